/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sidecar.c - the sidecar: what re_sidecar_write writes, judged with jansson on its own
 * (keys in the documented order, types, exact values, the duration rules, null for absent
 * metadata and silent levels, no paths, the same bytes every time), then read back with
 * re_sidecar_read, whose refusals are checked one by one; and the Podcasting 2.0 chapters. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "testkit.h"
#include "sidecar.h"

#define RATE 22050u
#define SAMPLES 3824683u   /* 173.455 s: 173455 ms, PT2M53S */
#define DIGEST "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static re_voice_profile host = { "host", RE_VOICE_ESPEAK_NG, "en-us", "Host", 175, 50, 50, 100, 0, 400, 800, NULL };
static re_voice_profile guest = { "guest", RE_VOICE_ESPEAK_NG, "en-gb+f3", "Gäst \"2\"", 190, 61, 42, 120, 20, 350, 1200, NULL };

static re_episode full_episode(void)
{
    re_episode ep = {
        .file = "/home/someone/scripts/weekly.txt",     /* a path: never written */
        .title = "Weekly Briefing – Café \"Chapters\" <&>",
        .show = "render-episode Weekly",
        .published = "2026-11-30T09:00:00Z",
        .summary = "What changed\tthis week.",
        .author = "The render-episode team",
        .language = "en-us",
        .voice = "host",
        .episode_number = 7,
        .season = 2,
        .guid = "urn:example:weekly-7",
        .lexicon = "/home/someone/scripts/words.lexicon",  /* a path: never written */
    };
    return ep;
}

static re_chapter_mark chapters[] = {
    { "Welcome", 0, RATE * 65 + RATE / 2 },
    { "The core pipeline", RATE * 65 + RATE / 2, RATE * 100 - 1 },
    { "Café & more", RATE * 100 - 1, SAMPLES },
};

static const re_voice_profile *voices[] = { &host, &guest };

/* Writes the sidecar to memory; *st its status. */
static char *written(const re_render_facts *facts, re_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = re_sidecar_write(f, facts);
    fclose(f);
    return buf;
}

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        fprintf(stderr, "not JSON: %s at %d:%d\n", err.text, err.line, err.column);
    return root;
}

/* The object's keys, in the order they were written, joined with spaces. */
static const char *keys_of(json_t *obj, const char *leave_out)
{
    static char buf[1024];
    buf[0] = '\0';
    for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
        const char *key = json_object_iter_key(it);
        if (leave_out && strcmp(key, leave_out) == 0)
            continue;
        if (buf[0])
            strcat(buf, " ");
        strcat(buf, key);
    }
    return buf;
}

static long long integer(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    CHECK(json_is_integer(v));
    return json_integer_value(v);
}

static const char *string(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    CHECK(json_is_string(v));
    return json_string_value(v);
}

static double real(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    CHECK(json_is_real(v));
    return json_real_value(v);
}

static int is_null(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return v != NULL && json_is_null(v);
}

/* No string anywhere in the document looks like a path of this machine. */
static int strings_without_paths(json_t *v)
{
    if (json_is_string(v))
        return json_string_value(v)[0] != '/' && !strstr(json_string_value(v), "/home/")
               && !strstr(json_string_value(v), ".txt") && !strstr(json_string_value(v), ".lexicon");
    int ok = 1;
    if (json_is_object(v))
        for (void *it = json_object_iter(v); it; it = json_object_iter_next(v, it))
            ok &= strings_without_paths(json_object_iter_value(it));
    if (json_is_array(v))
        for (size_t i = 0; i < json_array_size(v); i++)
            ok &= strings_without_paths(json_array_get(v, i));
    return ok;
}

/* ---- writing ------------------------------------------------------------------------------ */

static void test_written_json(void)
{
    re_episode ep = full_episode();
    re_loudness measured = { .integrated_lufs = -16.004, .range_lu = 1.4449,
                             .true_peak_dbtp = -1.1549, .sample_peak_dbfs = -2.0, .frames = SAMPLES };
    re_loudness_plan plan = { .target_lufs = -16.0, .ceiling_dbtp = -1.0, .gain_db = 4.037,
                              .limiter_ceiling_dbtp = -1.3, .met = 1 };
    re_render_facts facts = {
        .episode = &ep, .samples = SAMPLES, .sample_rate = RATE, .bytes = 1393664, .format = "mp3",
        .chapters = chapters, .chapter_count = 3, .voices = voices, .voice_count = 2,
        .engine = "espeak-ng 1.51", .encoder = "LAME 3.100, 64 kbps CBR, mono, 22050 Hz",
        .inputs_sha256 = DIGEST, .loudness = &measured, .loudness_plan = &plan,
    };
    re_status st;
    char *text = written(&facts, &st);
    CHECK_INT(st, RE_OK);
    size_t len = strlen(text);
    CHECK(len > 0 && text[len - 1] == '\n' && (len < 2 || text[len - 2] != '\n'));

    /* identical inputs, identical bytes */
    char *again = written(&facts, &st);
    CHECK_STR(again, text);
    free(again);

    json_t *root = parse(text);
    CHECK(json_is_object(root));
    if (!root) {
        free(text);
        return;
    }
    /* the keys of sidecar.h, in its order (where "loudness" goes: see the report) */
    CHECK_STR(keys_of(root, "loudness"),
              "title show published summary author language episode season guid duration "
              "duration_ms samples sample_rate bytes format chapters voices engine encoder "
              "generator inputs_sha256 files");
    CHECK_INT(json_object_size(root), 23);
    CHECK(json_is_object(json_object_get(root, "loudness")));

    CHECK_STR(string(root, "title"), "Weekly Briefing – Café \"Chapters\" <&>");
    CHECK_STR(string(root, "show"), "render-episode Weekly");
    CHECK_STR(string(root, "published"), "2026-11-30T09:00:00Z");
    CHECK_STR(string(root, "summary"), "What changed\tthis week.");
    CHECK_STR(string(root, "author"), "The render-episode team");
    CHECK_STR(string(root, "language"), "en-us");
    CHECK_INT(integer(root, "episode"), 7);
    CHECK_INT(integer(root, "season"), 2);
    CHECK_STR(string(root, "guid"), "urn:example:weekly-7");
    CHECK(json_is_array(json_object_get(root, "files")));
    CHECK_STR(string(root, "duration"), "PT2M53S");
    CHECK_INT(integer(root, "duration_ms"), 173455);
    CHECK_INT(integer(root, "samples"), SAMPLES);
    CHECK_INT(integer(root, "sample_rate"), RATE);
    CHECK_INT(integer(root, "bytes"), 1393664);
    CHECK_STR(string(root, "format"), "mp3");
    CHECK_STR(string(root, "engine"), "espeak-ng 1.51");
    CHECK_STR(string(root, "encoder"), "LAME 3.100, 64 kbps CBR, mono, 22050 Hz");
    CHECK_STR(string(root, "generator"), "render-episode " RE_VERSION);
    CHECK_STR(string(root, "inputs_sha256"), DIGEST);

    /* the length keys are the ones every reader reads */
    CHECK_STR(re_sidecar_length_keys[RE_SIDECAR_DURATION], "duration");
    CHECK_STR(re_sidecar_length_keys[RE_SIDECAR_DURATION_MS], "duration_ms");
    CHECK_STR(re_sidecar_length_keys[RE_SIDECAR_SAMPLES], "samples");
    CHECK_STR(re_sidecar_length_keys[RE_SIDECAR_SAMPLE_RATE], "sample_rate");
    CHECK_STR(re_sidecar_length_keys[RE_SIDECAR_BYTES], "bytes");

    /* chapters: milliseconds rounded down, in order */
    json_t *list = json_object_get(root, "chapters");
    CHECK(json_is_array(list) && json_array_size(list) == 3);
    static const long long starts[] = { 0, 65500, 99999 }, ends[] = { 65500, 99999, 173455 };
    static const char *const titles[] = { "Welcome", "The core pipeline", "Café & more" };
    for (size_t i = 0; i < 3 && i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        CHECK_STR(keys_of(c, NULL), "title start_ms end_ms");
        CHECK_STR(string(c, "title"), titles[i]);
        CHECK_INT(integer(c, "start_ms"), starts[i]);
        CHECK_INT(integer(c, "end_ms"), ends[i]);
    }

    /* voices: every profile value, in the episode's order */
    list = json_object_get(root, "voices");
    CHECK(json_is_array(list) && json_array_size(list) == 2);
    json_t *v = json_array_get(list, 1);
    CHECK_STR(keys_of(v, NULL), "name speaker role voice rate pitch range volume word_gap "
                                "sentence_pause paragraph_pause");
    CHECK_STR(string(v, "role"), "guest");                         /* not the default voice */
    CHECK_STR(string(json_array_get(list, 0), "role"), "host");    /* the default voice */
    CHECK_STR(string(v, "name"), "guest");
    CHECK_STR(string(v, "speaker"), "Gäst \"2\"");
    CHECK_STR(string(v, "voice"), "en-gb+f3");
    CHECK_INT(integer(v, "rate"), 190);
    CHECK_INT(integer(v, "pitch"), 61);
    CHECK_INT(integer(v, "range"), 42);
    CHECK_INT(integer(v, "volume"), 120);
    CHECK_INT(integer(v, "word_gap"), 20);
    CHECK_INT(integer(v, "sentence_pause"), 350);
    CHECK_INT(integer(v, "paragraph_pause"), 1200);
    CHECK_STR(string(json_array_get(list, 0), "name"), "host");

    /* loudness: two decimals, as numbers */
    json_t *l = json_object_get(root, "loudness");
    CHECK_STR(keys_of(l, NULL), "integrated_lufs range_lu true_peak_dbtp target_lufs ceiling_dbtp "
                                "gain_db met");
    CHECK(real(l, "integrated_lufs") == -16.0);
    CHECK(real(l, "range_lu") == 1.44);
    CHECK(real(l, "true_peak_dbtp") == -1.15);
    CHECK(real(l, "target_lufs") == -16.0);
    CHECK(real(l, "ceiling_dbtp") == -1.0);
    CHECK(real(l, "gain_db") == 4.04);
    CHECK(json_is_true(json_object_get(l, "met")));

    /* no path of this machine, no timestamp */
    CHECK(strings_without_paths(root));
    CHECK(!strstr(text, "/home/"));
    json_decref(root);
    free(text);
}

static void test_nulls_and_silence(void)
{
    re_episode ep = { .title = "T", .language = "pt-BR", .voice = "host", .episode_number = -1 };
    re_loudness silence = { .integrated_lufs = -HUGE_VAL, .range_lu = 0,
                            .true_peak_dbtp = -HUGE_VAL, .sample_peak_dbfs = -HUGE_VAL };
    re_render_facts facts = { .episode = &ep, .samples = 0, .sample_rate = RATE, .bytes = 0,
                              .format = "wav", .engine = "e", .encoder = "PCM",
                              .loudness = &silence };
    re_status st;
    char *text = written(&facts, &st);
    CHECK_INT(st, RE_OK);
    json_t *root = parse(text);
    CHECK(root != NULL);
    if (!root) {
        free(text);
        return;
    }
    CHECK(is_null(root, "show"));
    CHECK(is_null(root, "published"));
    CHECK(is_null(root, "summary"));
    CHECK(is_null(root, "author"));
    CHECK(is_null(root, "episode"));
    CHECK(is_null(root, "inputs_sha256"));
    CHECK_STR(string(root, "language"), "pt-BR");
    CHECK_STR(string(root, "duration"), "PT0S");
    CHECK_INT(integer(root, "duration_ms"), 0);
    CHECK_STR(string(root, "format"), "wav");
    CHECK(json_is_array(json_object_get(root, "chapters"))
          && json_array_size(json_object_get(root, "chapters")) == 0);
    CHECK(json_is_array(json_object_get(root, "voices"))
          && json_array_size(json_object_get(root, "voices")) == 0);
    /* silence: levels null, never -inf; normalization off: the plan's values null */
    json_t *l = json_object_get(root, "loudness");
    CHECK(is_null(l, "integrated_lufs"));
    CHECK(real(l, "range_lu") == 0.0);
    CHECK(is_null(l, "true_peak_dbtp"));
    CHECK(is_null(l, "target_lufs"));
    CHECK(is_null(l, "ceiling_dbtp"));
    CHECK(is_null(l, "gain_db"));
    CHECK(is_null(l, "met"));
    CHECK(!strstr(text, "inf") && !strstr(text, "nan"));
    json_decref(root);
    free(text);

    /* no measurement at all: loudness null */
    facts.loudness = NULL;
    text = written(&facts, &st);
    CHECK_INT(st, RE_OK);
    root = parse(text);
    CHECK(root && is_null(root, "loudness"));
    json_decref(root);
    free(text);
}

/* The duration rules: ms rounded down, ISO 8601 to the nearest second, half up. */
static void duration_case(uint64_t samples, const char *iso, long long ms)
{
    re_episode ep = { .title = "T", .language = "en", .episode_number = -1 };
    re_render_facts facts = { .episode = &ep, .samples = samples, .sample_rate = RATE,
                              .format = "mp3", .engine = "e", .encoder = "x" };
    re_status st;
    char *text = written(&facts, &st);
    json_t *root = parse(text);
    CHECK(root != NULL);
    if (root) {
        CHECK_STR(string(root, "duration"), iso);
        CHECK_INT(integer(root, "duration_ms"), ms);
        CHECK_INT(integer(root, "samples"), samples);
    }
    json_decref(root);
    free(text);
}

static void test_durations(void)
{
    duration_case(1, "PT0S", 0);
    duration_case(RATE / 2 - 1, "PT0S", 499);
    duration_case(RATE / 2, "PT1S", 500);                 /* half up */
    duration_case(RATE * 5 / 2, "PT3S", 2500);
    duration_case(RATE * 5 / 2 - 1, "PT2S", 2499);
    duration_case(RATE * 45, "PT45S", 45000);
    duration_case((uint64_t)RATE * 3605, "PT1H0M5S", 3605000);
    duration_case((uint64_t)RATE * 3600 - 1, "PT1H0M0S", 3599999);   /* only leading zeros go */
    duration_case((uint64_t)RATE * 43200, "PT12H0M0S", 43200000);
}

/* ---- reading back ------------------------------------------------------------------------- */

static void test_round_trip(void)
{
    re_episode ep = full_episode();
    re_loudness measured = { .integrated_lufs = -16.0, .true_peak_dbtp = -1.2 };
    re_render_facts facts = {
        .episode = &ep, .samples = SAMPLES, .sample_rate = RATE, .bytes = 1393664, .format = "mp3",
        .chapters = chapters, .chapter_count = 3, .voices = voices, .voice_count = 2,
        .engine = "espeak-ng 1.51", .encoder = "LAME", .inputs_sha256 = DIGEST,
        .loudness = &measured,
    };
    re_sidecar_file files[2] = {
        { "ep.mp3", 1393664, "" },
        { "ep.vtt", 7, "" },
    };
    unsigned char digest[RE_SHA256_SIZE];
    re_sha256("WEBVTT\n", 7, digest);
    re_sha256_hex(digest, files[1].sha256);
    memset(files[0].sha256, 'a', RE_SHA256_HEX_SIZE - 1);
    facts.files = files;
    facts.file_count = 2;
    re_status st;
    char *text = written(&facts, &st);
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    re_sidecar s;
    re_sidecar_found found = RE_SIDECAR_NOT_OURS;
    CHECK_INT(re_sidecar_read("out/ep.json", text, strlen(text), "mp3", &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_FOUND);
    CHECK_INT(d.count, 0);
    CHECK_STR(s.title, ep.title);
    CHECK_STR(s.show, ep.show);
    CHECK_STR(s.summary, ep.summary);
    CHECK_STR(s.author, ep.author);
    CHECK_STR(s.language, "en-us");
    CHECK_STR(s.published, "2026-11-30T09:00:00Z");
    CHECK_INT(s.dated, 1);
    CHECK_INT(s.published_ms, 1796029200000LL);
    CHECK_INT(s.episode, 7);
    CHECK_STR(s.duration, "PT2M53S");
    CHECK_INT(s.samples, SAMPLES);
    CHECK_INT(s.sample_rate, RATE);
    CHECK_INT(s.bytes, 1393664);
    CHECK_STR(s.format, "mp3");
    CHECK_STR(s.inputs_sha256, DIGEST);
    CHECK_INT(s.season, 2);
    CHECK_STR(s.guid, "urn:example:weekly-7");
    CHECK_INT(s.person_count, 2);
    if (s.person_count == 2) {
        CHECK_STR(s.persons[0].speaker, "Host");
        CHECK_STR(s.persons[0].role, "host");
        CHECK_STR(s.persons[1].role, "guest");
    }
    CHECK_INT(s.has_files, 1);
    CHECK_INT(s.file_count, 2);
    const re_sidecar_file *vtt = re_sidecar_file_find(&s, "ep.vtt");
    CHECK(vtt && vtt->bytes == 7 && strcmp(vtt->sha256, files[1].sha256) == 0);
    CHECK(re_sidecar_file_find(&s, "ep.srt") == NULL);
    /* the file on disk against its entry: same, changed, gone */
    char vtt_path[] = "/tmp/re-test-sidecar-XXXXXX";
    int vtt_fd = mkstemp(vtt_path);
    CHECK(vtt_fd >= 0 && write(vtt_fd, "WEBVTT\n", 7) == 7);
    close(vtt_fd);
    if (vtt) {
        CHECK_INT(re_sidecar_file_match(vtt_path, vtt, NULL), RE_SIDECAR_MATCH);
        FILE *f = fopen(vtt_path, "wb");
        fputs("WEBVTX\n", f);   /* same size, other bytes */
        fclose(f);
        CHECK_INT(re_sidecar_file_match(vtt_path, vtt, NULL), RE_SIDECAR_CHANGED);
        unlink(vtt_path);
        CHECK_INT(re_sidecar_file_match(vtt_path, vtt, NULL), RE_SIDECAR_GONE);
    }
    re_sidecar_free(&s);
    CHECK(s.title == NULL);

    /* any format, or another one */
    CHECK_INT(re_sidecar_read("ep.json", text, strlen(text), NULL, &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_FOUND);
    re_sidecar_free(&s);
    CHECK_INT(re_sidecar_read("ep.json", text, strlen(text), "wav", &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_OTHER_FORMAT);
    CHECK(s.title == NULL && s.format == NULL && s.samples == 0);
    CHECK_INT(d.count, 0);

    /* through a file */
    char path[] = "/tmp/re-sidecar-XXXXXX.json";
    int fd = mkstemps(path, 5);
    CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    if (fd >= 0)
        close(fd);
    CHECK_INT(re_sidecar_load(path, "mp3", &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_FOUND);
    CHECK_INT(s.samples, SAMPLES);
    re_sidecar_free(&s);
    unlink(path);
    CHECK_INT(re_sidecar_load(path, "mp3", &s, &found, &d), RE_ERR_READ);
    CHECK_INT(d.count, 1);
    if (d.count)
        CHECK_STR(d.items[0].file, path);
    free(text);

    /* absent metadata reads back as NULL, the episode as -1 */
    re_episode bare = { .title = "T", .language = "en", .episode_number = -1 };
    facts.episode = &bare;
    facts.inputs_sha256 = NULL;
    text = written(&facts, &st);
    CHECK_INT(re_sidecar_read("ep.json", text, strlen(text), "mp3", &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_FOUND);
    CHECK(s.show == NULL && s.summary == NULL && s.author == NULL && s.published == NULL
          && s.inputs_sha256 == NULL);
    CHECK_INT(s.dated, 0);
    CHECK_INT(s.episode, -1);
    re_sidecar_free(&s);
    free(text);
    re_diagnostics_free(&d);

    char *p = re_sidecar_path("out/ep.mp3");
    CHECK_STR(p, "out/ep.json");
    free(p);
    p = re_sidecar_path("out/ep.wav");
    CHECK_STR(p, "out/ep.json");
    free(p);
    CHECK(re_sidecar_generator_is_ours("render-episode 0.1.0"));
    CHECK(re_sidecar_generator_is_ours("render-episode"));
    CHECK(!re_sidecar_generator_is_ours("Render-episode 0.1.0"));
    CHECK(!re_sidecar_generator_is_ours("render"));
    CHECK(!re_sidecar_generator_is_ours(NULL));
}

/* A sidecar body with one value replaced: FIELD is the key, VALUE its JSON. */
static char *sidecar_with(const char *field, const char *value)
{
    static const char *const keys[] = { "title", "show", "published", "summary", "author",
                                        "language", "episode", "type", "duration",
                                        "duration_ms", "samples", "sample_rate", "bytes",
                                        "format", "inputs_sha256" };
    static const char *const values[] = { "\"T\"", "null", "\"2026-11-30\"", "null", "null",
                                          "\"en-us\"", "3", "\"bonus\"", "\"PT2S\"", "1500",
                                          "33075", "22050", "1000", "\"mp3\"", "null" };
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    fputs("{", f);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int replaced = field && strcmp(field, keys[i]) == 0;
        if (replaced && !value)
            continue;   /* left out */
        fprintf(f, "\"%s\": %s, ", keys[i], replaced ? value : values[i]);
    }
    fputs("\"generator\": \"render-episode 9\"}", f);
    fclose(f);
    return out;
}

/* Read is refused with `status`, and the one diagnostic holds `message`. */
static void refused(const char *field, const char *value, re_status status, const char *message)
{
    char *text = sidecar_with(field, value);
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    re_sidecar s;
    memset(&s, 0x55, sizeof s);
    re_sidecar_found found = RE_SIDECAR_FOUND;
    re_status st = re_sidecar_read("bad.json", text, strlen(text), "mp3", &s, &found, &d);
    if (st != status)
        fprintf(stderr, "  %s = %s: status %d\n", field, value ? value : "(absent)", (int)st);
    CHECK_INT(st, status);
    CHECK_INT(found, RE_SIDECAR_NOT_OURS);
    CHECK(s.title == NULL && s.format == NULL && s.samples == 0);
    CHECK_INT(d.count, 1);
    if (d.count) {
        CHECK_STR(d.items[0].file, "bad.json");
        CHECK_STR(d.items[0].message, message);
    }
    re_diagnostics_free(&d);
    free(text);
}

static void test_read_refusals(void)
{
    /* the template itself is a valid sidecar */
    char *text = sidecar_with(NULL, NULL);
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    re_sidecar s;
    re_sidecar_found found;
    CHECK_INT(re_sidecar_read("ok.json", text, strlen(text), "mp3", &s, &found, &d), RE_OK);
    CHECK_INT(found, RE_SIDECAR_FOUND);
    CHECK_INT(s.published_ms, 1795996800000LL);   /* a date: its midnight, UTC */
    CHECK_INT(s.type, RE_EPISODE_BONUS);
    re_sidecar_free(&s);
    free(text);

    refused("type", "\"Bonus\"", RE_ERR_INPUT, "the sidecar's \"type\" is not full, trailer or bonus");
    refused("type", "3", RE_ERR_INPUT, "the sidecar's \"type\" must be a string or null");

    refused("title", "\"\"", RE_ERR_INPUT, "the sidecar's \"title\" is empty");
    refused("title", NULL, RE_ERR_INPUT, "the sidecar has no \"title\" text");
    refused("title", "null", RE_ERR_INPUT, "the sidecar has no \"title\" text");
    refused("title", "5", RE_ERR_INPUT, "the sidecar's \"title\" must be a string or null");
    refused("title", "\"a\\u0001b\"", RE_ERR_INPUT,
            "the sidecar's \"title\" holds a control character that XML cannot carry");
    refused("samples", "-1", RE_ERR_INPUT, "the sidecar's \"samples\" must be a whole number in range");
    refused("samples", "1.5", RE_ERR_INPUT, "the sidecar's \"samples\" must be a whole number in range");
    refused("samples", NULL, RE_ERR_INPUT, "the sidecar's \"samples\" must be a whole number in range");
    refused("sample_rate", "0", RE_ERR_INPUT,
            "the sidecar's \"sample_rate\" must be a whole number in range");
    refused("bytes", "\"1000\"", RE_ERR_INPUT, "the sidecar's \"bytes\" must be a whole number in range");
    refused("episode", "1000000", RE_ERR_INPUT,
            "the sidecar's \"episode\" must be a whole number in range or null");
    refused("episode", "-1", RE_ERR_INPUT,
            "the sidecar's \"episode\" must be a whole number in range or null");
    refused("language", "\"english!\"", RE_ERR_INPUT,
            "the sidecar's \"language\" is not a BCP 47 tag like en-us");
    refused("published", "\"2026-11-30T09:00:00\"", RE_ERR_INPUT,
            "the sidecar's \"published\" is not an ISO 8601 date (2026-11-30) or date-time with "
            "a zone (2026-11-30T09:00:00Z)");
    refused("published", "\"2026-02-30\"", RE_ERR_INPUT,
            "the sidecar's \"published\" is not an ISO 8601 date (2026-11-30) or date-time with "
            "a zone (2026-11-30T09:00:00Z)");
    refused("format", NULL, RE_ERR_INPUT, "the sidecar has no \"format\" text (mp3 or wav)");
    refused("format", "7", RE_ERR_INPUT, "the sidecar has no \"format\" text (mp3 or wav)");
    /* a duplicate key is not JSON we accept */
    refused("show", "null, \"show\": \"twice\"", RE_ERR_FORMAT,
            "not valid JSON: duplicate object key near '\"show\"'");

    /* a NUL inside a text is refused too, and nothing is read */
    char *nul = sidecar_with("summary", "\"a\\u0000b\"");
    memset(&s, 0x55, sizeof s);
    CHECK(re_sidecar_read("n.json", nul, strlen(nul), NULL, &s, &found, &d) != RE_OK);
    CHECK(s.title == NULL && s.summary == NULL);
    CHECK_INT(d.count, 1);
    free(nul);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 10);

    /* every problem is reported, not only the first */
    const char *many = "{\"title\": \"\", \"samples\": -1, \"sample_rate\": 0, \"bytes\": 1, "
                       "\"format\": \"mp3\", \"language\": \"x\", \"generator\": \"render-episode\"}";
    CHECK_INT(re_sidecar_read("m.json", many, strlen(many), NULL, &s, &found, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 4);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 10);

    /* not JSON: where it broke */
    const char *broken = "{\n  \"title\": \"T\",\n  oops\n}";
    CHECK_INT(re_sidecar_read("b.json", broken, strlen(broken), NULL, &s, &found, &d), RE_ERR_FORMAT);
    CHECK_INT(d.count, 1);
    if (d.count) {
        CHECK_INT(d.items[0].line, 3);
        CHECK(strncmp(d.items[0].message, "not valid JSON: ", 16) == 0);
    }
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 10);

    /* valid JSON that is not ours: no diagnostic, nothing read */
    static const char *const others[] = {
        "[1, 2]", "{}", "{\"generator\": \"ffmpeg\"}",
        "{\"generator\": 5, \"title\": \"T\"}", "{\"Generator\": \"render-episode\"}",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        found = RE_SIDECAR_FOUND;
        CHECK_INT(re_sidecar_read("o.json", others[i], strlen(others[i]), NULL, &s, &found, &d), RE_OK);
        CHECK_INT(found, RE_SIDECAR_NOT_OURS);
    }
    CHECK_INT(d.count, 0);
    re_diagnostics_free(&d);
}

/* ---- Podcasting 2.0 chapters ---------------------------------------------------------------- */

static void test_chapters_json(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(re_chapters_json_write(f, chapters, 3, RATE), RE_OK);
    fclose(f);
    CHECK(len > 0 && buf[len - 1] == '\n');
    json_t *root = parse(buf);
    CHECK(json_is_object(root));
    if (root) {
        CHECK_STR(keys_of(root, NULL), "version chapters");
        CHECK_STR(string(root, "version"), "1.2.0");
        json_t *list = json_object_get(root, "chapters");
        CHECK(json_is_array(list) && json_array_size(list) == 3);
        static const double starts[] = { 0.0, 65.5, 99.999 };
        static const char *const titles[] = { "Welcome", "The core pipeline", "Café & more" };
        for (size_t i = 0; i < 3 && i < json_array_size(list); i++) {
            json_t *c = json_array_get(list, i);
            CHECK_INT(json_object_size(c), 2);
            CHECK(real(c, "startTime") == starts[i]);   /* the sidecar's ms, in seconds */
            CHECK_STR(string(c, "title"), titles[i]);
        }
    }
    json_decref(root);
    free(buf);
}

int main(void)
{
    test_written_json();
    test_nulls_and_silence();
    test_durations();
    test_round_trip();
    test_read_refusals();
    test_chapters_json();
    return check_finish("test_sidecar");
}
