/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_publish.c - what `feed` reads: the show file and sidecars. The first byte chooses the
 * parser (even: show file, odd: sidecar), the rest is the file. A show that parses holds only
 * valid values; a sidecar that reads holds a title and only plain file names with SHA-256s.
 * What `feed` rewrites is fuzzed with the same bytes: a sidecar's entry for a page (only a
 * sidecar that writes back byte for byte; put back, the same bytes) and a page's show slots
 * (the bytes outside them kept; written twice, the same bytes). */
#define _GNU_SOURCE   /* memmem */
#include <string.h>

#include "feed.h"
#include "fuzz.h"
#include "page.h"
#include "sidecar.h"

static void show_file(const char *text, size_t len)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_show show;
    re_show_init(&show);
    re_status status = re_show_parse("fuzz.txt", text, len, &show, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(diag.count == 0);
        FUZZ_ASSERT(!show.guid || re_uuid_valid(show.guid));
        FUZZ_ASSERT(show.explicit_content >= -1 && show.explicit_content <= 1);
        FUZZ_ASSERT(show.locked >= -1 && show.locked <= 1);
        FUZZ_ASSERT(show.disclosure == 0 || show.disclosure == 1);
        FUZZ_ASSERT(!show.subcategory || show.category);
        FUZZ_ASSERT(!show.image || (show.image[0] && show.image[0] != '.'));
    } else {
        FUZZ_ASSERT(status == RE_ERR_NOMEM || diag.count > 0);
    }
    re_show_free(&show);
    re_diagnostics_free(&diag);
}

/* The entry rewritten, then put back: the sidecar's own bytes again. */
static void sidecar_entry(const char *text, size_t len, const re_sidecar_file *file)
{
    static const char other[] = "0123456789abcdef0123456789abcdef"
                                "0123456789abcdef0123456789abcdef";
    char *out = NULL, *back = NULL;
    size_t out_len = 0, back_len = 0;
    re_status status = re_sidecar_with_file(text, len, file->name, 7, other, &out, &out_len);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_FORMAT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        status = re_sidecar_with_file(out, out_len, file->name, file->bytes, file->sha256, &back,
                                      &back_len);
        FUZZ_ASSERT(status == RE_OK || status == RE_ERR_NOMEM);
        FUZZ_ASSERT(status != RE_OK || (back_len == len && memcmp(back, text, len) == 0));
    } else {
        FUZZ_ASSERT(out == NULL);
    }
    free(out);
    free(back);
}

/* The bytes as an episode page: its slots filled, everything else kept, idempotent. */
static void page_slots(const char *text, size_t len)
{
    re_page_link link = { "A duration: PT5S <&>", "2026-11-30", "a b.html" };
    re_page_nav nav = { .show = "S", .index_name = "index.html", .feed_name = "feed.xml",
                        .older = &link, .newer = &link, .nearby = &link, .nearby_count = 1,
                        .canonical_url = "https://e.org/a.html", .title = "T", .audio_url =
                        "https://e.org/a.mp3" };
    char *out = NULL, *again = NULL;
    size_t out_len = 0, again_len = 0;
    re_status status = re_page_with_nav(text, len, &nav, &out, &out_len);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_FORMAT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        const char *open = "<!--show-meta-->";
        const char *at = memmem(text, len, open, strlen(open));
        FUZZ_ASSERT(at && out_len >= (size_t)(at - text)
                    && memcmp(out, text, (size_t)(at - text)) == 0);
        status = re_page_with_nav(out, out_len, &nav, &again, &again_len);
        FUZZ_ASSERT(status == RE_OK || status == RE_ERR_NOMEM);
        FUZZ_ASSERT(status != RE_OK || (again_len == out_len && memcmp(again, out, out_len) == 0));
    } else {
        FUZZ_ASSERT(out == NULL);
    }
    free(out);
    free(again);
}

static void sidecar_file(const char *text, size_t len)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_sidecar side;
    re_sidecar_found found;
    re_status status = re_sidecar_read("fuzz.json", text, len, "mp3", &side, &found, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_FORMAT
                || status == RE_ERR_NOMEM);
    if (status == RE_OK && found == RE_SIDECAR_FOUND) {
        FUZZ_ASSERT(side.title && side.title[0] && side.format && side.sample_rate >= 1);
        FUZZ_ASSERT(side.season == -1 || (side.season >= 1 && side.season <= 999999));
        for (size_t i = 0; i < side.file_count; i++) {
            FUZZ_ASSERT(side.files[i].name[0] && !strchr(side.files[i].name, '/'));
            FUZZ_ASSERT(strlen(side.files[i].sha256) == RE_SHA256_HEX_SIZE - 1);
            FUZZ_ASSERT(re_sidecar_file_find(&side, side.files[i].name) != NULL);
        }
        for (size_t i = 0; i < side.person_count; i++)
            FUZZ_ASSERT(side.persons[i].speaker[0] && side.persons[i].role[0]);
        if (side.file_count > 0)
            sidecar_entry(text, len, &side.files[side.file_count - 1]);
        re_sidecar_free(&side);
    } else {
        FUZZ_ASSERT(side.title == NULL && side.files == NULL);
    }
    re_diagnostics_free(&diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        show_file((const char *)data + 1, size - 1);
    else
        sidecar_file((const char *)data + 1, size - 1);
    page_slots((const char *)data + 1, size - 1);
    return 0;
}
