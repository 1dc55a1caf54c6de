/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sidecar_edges.c - the sidecar schema as documented at its edges: the key order the
 * header states, any JSON value at the top is read (a scalar is "not ours"), and a NUL in a
 * text is an input error, not invalid JSON. Each check failed before its fix. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "testkit.h"
#include "sidecar.h"

int main(void)
{
    /* 1. sidecar.h documents the keys "in this order: ... generator, inputs_sha256, loudness",
     *    but re_sidecar_write puts "loudness" between "chapters" and "voices". */
    re_episode ep = { .title = "T", .language = "en", .episode_number = -1 };
    re_loudness l = { .integrated_lufs = -16, .true_peak_dbtp = -1.5 };
    re_render_facts f = { .episode = &ep, .samples = 1, .sample_rate = 22050, .format = "mp3",
                          .engine = "e", .encoder = "x", .loudness = &l };
    char *buf = NULL; size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    re_sidecar_write(out, &f);
    fclose(out);
    json_t *root = json_loads(buf, 0, NULL);
    char keys[1024] = "";
    for (void *it = json_object_iter(root); it; it = json_object_iter_next(root, it)) {
        if (keys[0]) strcat(keys, " ");
        strcat(keys, json_object_iter_key(it));
    }
    CHECK_STR(keys, "title show published summary author language episode season guid duration "
                    "duration_ms samples sample_rate bytes format chapters loudness voices engine "
                    "encoder generator inputs_sha256 files");
    json_decref(root);
    free(buf);

    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    re_sidecar s;
    re_sidecar_found found;
    /* 2. valid JSON whose top level is not an object or array (RFC 8259 allows it) is refused
     *    as "not valid JSON" (RE_ERR_FORMAT) instead of being "not ours": `feed` exits 2 on a
     *    version.json holding "1.2.3", though docs/feed.md says other JSON is ignored. */
    const char *scalar = "\"1.2.3\"\n";
    CHECK_INT(re_sidecar_read("version.json", scalar, strlen(scalar), "mp3", &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_NOT_OURS);
    CHECK_INT(d.count, 0);
    if (d.count) fprintf(stderr, "  message: %s\n", d.items[0].message);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 10);
    /* 3. a \u0000 in a text value is valid JSON holding a character XML cannot carry: sidecar.h
     *    says RE_ERR_INPUT; it is RE_ERR_FORMAT "not valid JSON: \u0000 is not allowed without
     *    JSON_ALLOW_NUL" (read_text's strlen != json_string_length test is never reached). */
    const char *nul = "{\"title\": \"a\\u0000b\", \"samples\": 1, \"sample_rate\": 22050, "
                      "\"bytes\": 1, \"format\": \"mp3\", \"generator\": \"render-episode\"}";
    CHECK_INT(re_sidecar_read("n.json", nul, strlen(nul), "mp3", &s, &found, &d), RE_ERR_INPUT);
    if (d.count) fprintf(stderr, "  message: %s\n", d.items[0].message);
    re_diagnostics_free(&d);

    /* 4. "notes" is Markdown that feed and --page give cmark-gfm: a sidecar another user wrote
     *    could hold a reference to ESC (the feed's HTML then carried a raw ESC) or 720 kB of a
     *    shape cmark-gfm needs minutes for; both are held to a script's limits. */
    const char *head = "{\"title\": \"t\", \"samples\": 1, \"sample_rate\": 22050, "
                       "\"bytes\": 1, \"format\": \"mp3\", \"generator\": \"render-episode\", "
                       "\"notes\": \"";
    const char *notes[] = { "Fine [text](https://example.org).\\n", "Bell &#7; here.\\n", NULL };
    for (int i = 0; i < 3; i++) {
        char *json = NULL;
        if (notes[i]) {
            if (asprintf(&json, "%s%s\"}", head, notes[i]) < 0)
                return 1;
        } else {   /* 720 kB of *[a](b) */
            size_t n = 720000 / 7, h = strlen(head);
            json = malloc(h + n * 7 + 3);
            memcpy(json, head, h);
            for (size_t k = 0; k < n; k++)
                memcpy(json + h + k * 7, "*[a](b)", 7);
            strcpy(json + h + n * 7, "\"}");
        }
        re_diagnostics_init(&d, 10);
        re_status st = re_sidecar_read("ep.json", json, strlen(json), "mp3", &s, &found, &d);
        CHECK_INT(st, i == 0 ? RE_OK : RE_ERR_INPUT);
        if (st == RE_OK)
            re_sidecar_free(&s);
        CHECK(i == 0 || (d.count == 1 && strstr(d.items[0].message, "the sidecar's \"notes\"")));
        if (d.count) fprintf(stderr, "  message: %s\n", d.items[0].message);
        re_diagnostics_free(&d);
        free(json);
    }
    return check_finish("test_sidecar_edges");
}
