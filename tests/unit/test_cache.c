/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cache.c - the segment cache: keys, round trips, corrupt and truncated entries, failed
 * writes, LRU pruning, and several processes sharing one folder. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "testdir.h"
#include "testkit.h"

#define RATE 22050u

static re_voice_profile base_profile(void)
{
    re_voice_profile p = { .name = "host", .engine_voice = "en-us", .speaker = "Host",
                           .rate = 175, .pitch = 50, .range = 50, .volume = 100,
                           .word_gap_ms = 0, .sentence_pause_ms = 400, .paragraph_pause_ms = 800 };
    return p;
}

static re_cache_key key_of(const char *text)
{
    re_voice_profile p = base_profile();
    re_cache_key key;
    re_cache_key_compute(&key, "espeak-ng 1.51", RATE, &p, RE_TEXT_PLAIN, text);
    return key;
}

static re_cache_key key_n(int n)
{
    char text[64];
    snprintf(text, sizeof text, "Paragraph number %d.", n);
    return key_of(text);
}

/* Audio and events that depend on seed, so a mix-up between entries shows. */
static re_speech make_speech(unsigned seed, size_t frames, size_t event_count)
{
    re_speech s = { 0 };
    s.pcm = malloc(frames ? frames * sizeof *s.pcm : 1);
    s.frames = frames;
    for (size_t i = 0; i < frames; i++)
        s.pcm[i] = (int16_t)(uint16_t)((i * 2654435761u) ^ (seed * 40503u) ^ (i >> 3));
    if (frames)
        s.pcm[0] = INT16_MIN;   /* the extremes survive the little-endian round trip */
    if (frames > 1)
        s.pcm[1] = INT16_MAX;
    s.events = event_count ? calloc(event_count, sizeof *s.events) : NULL;
    s.event_count = event_count;
    for (size_t i = 0; i < event_count; i++)
        s.events[i] = (re_speech_event){ i % 5 ? RE_EVENT_WORD : RE_EVENT_SENTENCE,
                                         (uint32_t)(i * 7 + seed), (uint32_t)(i % 9 + 1),
                                         (uint64_t)i * (frames / (event_count + 1)) + seed % 7 };
    /* (in order and inside the audio, as the engine makes them: the reader refuses others) */
    return s;
}

static int speech_equal(const re_speech *a, const re_speech *b)
{
    if (a->frames != b->frames || a->event_count != b->event_count)
        return 0;
    if (a->frames && memcmp(a->pcm, b->pcm, a->frames * sizeof *a->pcm) != 0)
        return 0;
    for (size_t i = 0; i < a->event_count; i++) {
        const re_speech_event *x = &a->events[i], *y = &b->events[i];
        if (x->type != y->type || x->text_pos != y->text_pos || x->length != y->length
            || x->sample != y->sample)
            return 0;
    }
    return 1;
}

static char *temp_root(void)
{
    const char *tmp = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/test_cache.XXXXXX", tmp && tmp[0] ? tmp : "/tmp") < 0)
        return NULL;
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

static char *entry_file(const char *dir, const re_cache_key *key)
{
    char hex[RE_SHA256_HEX_SIZE], *path = NULL;
    re_cache_key_hex(key, hex);
    if (asprintf(&path, "%s/v1/%.2s/%s.seg", dir, hex, hex) < 0)
        return NULL;
    return path;
}

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static re_cache_usage usage_of(re_cache *cache)
{
    re_cache_usage u = { 0 };
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK_INT(re_cache_stats(cache, &u, &diag), RE_OK);
    return u;
}

/* ---- keys -------------------------------------------------------------------------------- */

static void test_key(void)
{
    re_voice_profile p = base_profile();
    re_cache_key k0, k;
    re_cache_key_compute(&k0, "espeak-ng 1.51", RATE, &p, RE_TEXT_PLAIN, "Hello world.");
    /* The serialization is a contract with every cache on disk: when this value has to
     * change, RE_CACHE_FORMAT_TAG must change too. (Checked against the same serialization
     * written in Python: u64le length + bytes per field, numbers as 8-byte fields.) */
    char hex[RE_SHA256_HEX_SIZE];
    re_cache_key_hex(&k0, hex);
    CHECK_STR(hex, "a2caa193709a9a6b1da7d365d39692aff97ef40cf1809d0627de84326d33bb15");

    re_cache_key_compute(&k, "espeak-ng 1.51", RATE, &p, RE_TEXT_PLAIN, "Hello world.");
    CHECK(memcmp(&k, &k0, sizeof k) == 0);

    /* what determines the audio changes the key ... */
    int differ = 0, cases = 0;
#define DIFFERS(stmt) do { re_voice_profile q = base_profile(); const char *engine = "espeak-ng 1.51"; \
        unsigned rate = RATE, flags = RE_TEXT_PLAIN; const char *text = "Hello world."; stmt; \
        re_cache_key_compute(&k, engine, rate, &q, flags, text); cases++; \
        if (memcmp(&k, &k0, sizeof k) != 0) differ++; else fprintf(stderr, "same key: %s\n", #stmt); } while (0)
    DIFFERS(engine = "espeak-ng 1.52");
    DIFFERS(engine = NULL);
    DIFFERS(rate = 16000);
    DIFFERS(q.engine_voice = "en-gb");
    DIFFERS(q.rate = 176);
    DIFFERS(q.pitch = 51);
    DIFFERS(q.range = 49);
    DIFFERS(q.volume = 101);
    DIFFERS(q.word_gap_ms = 10);
    DIFFERS(flags = RE_TEXT_PHONEMES);
    DIFFERS(text = "Hello world!");
    DIFFERS(text = "Hello world. ");
    DIFFERS(text = "");
    DIFFERS(text = NULL);
#undef DIFFERS
    CHECK_INT(differ, cases);

    /* ... what is applied after synthesis, or only displayed, does not */
    re_voice_profile q = base_profile();
    q.name = "narrator";
    q.speaker = "Someone Else";
    q.sentence_pause_ms = 1000;
    q.paragraph_pause_ms = 5000;
    re_cache_key_compute(&k, "espeak-ng 1.51", RATE, &q, RE_TEXT_PLAIN, "Hello world.");
    CHECK(memcmp(&k, &k0, sizeof k) == 0);

    /* length prefixes: moving bytes from one field to the next changes the key */
    re_cache_key a, b;
    q = base_profile();
    q.engine_voice = "c";
    re_cache_key_compute(&a, "ab", RATE, &q, RE_TEXT_PLAIN, "x");
    q.engine_voice = "bc";
    re_cache_key_compute(&b, "a", RATE, &q, RE_TEXT_PLAIN, "x");
    CHECK(memcmp(&a, &b, sizeof a) != 0);
    q.engine_voice = "";
    re_cache_key_compute(&a, "", RATE, &q, RE_TEXT_PLAIN, "x");
    q.engine_voice = NULL;
    re_cache_key_compute(&b, "", RATE, &q, RE_TEXT_PLAIN, "x");
    CHECK(memcmp(&a, &b, sizeof a) != 0);
}

static void test_default_dir(void)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    char *saved_xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    char *saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;

    setenv("XDG_CACHE_HOME", "/var/cache/me", 1);
    setenv("HOME", "/home/me", 1);
    char *dir = re_cache_default_dir(&diag);
    CHECK_STR(dir, "/var/cache/me/render-episode");
    free(dir);
    setenv("XDG_CACHE_HOME", "relative/cache", 1);   /* the XDG spec says: ignore it */
    dir = re_cache_default_dir(&diag);
    CHECK_STR(dir, "/home/me/.cache/render-episode");
    free(dir);
    unsetenv("XDG_CACHE_HOME");
    dir = re_cache_default_dir(&diag);
    CHECK_STR(dir, "/home/me/.cache/render-episode");
    free(dir);
    unsetenv("HOME");
    diag_clear(&diag);
    dir = re_cache_default_dir(&diag);
    CHECK(dir == NULL);
    CHECK(strstr(diag_last(&diag), "HOME") != NULL);
    setenv("HOME", "", 1);
    CHECK(re_cache_default_dir(&diag) == NULL);

    if (saved_xdg)
        setenv("XDG_CACHE_HOME", saved_xdg, 1);
    if (saved_home)
        setenv("HOME", saved_home, 1);
    else
        unsetenv("HOME");
    free(saved_xdg);
    free(saved_home);
    re_diagnostics_free(&diag);
}

static void test_parse_size(void)
{
    static const struct { const char *text; uint64_t bytes; } good[] = {
        { "0", 0 }, { "1048576", 1048576 }, { "500M", 500ull << 20 }, { "2G", 2ull << 30 },
        { "2g", 2ull << 30 }, { "1k", 1024 }, { "3T", 3ull << 40 }, { "007", 7 },
        { "9223372036854775808", 1ull << 63 }, { "8388608T", 1ull << 63 },
    };
    static const char *const bad[] = {
        "", "M", "-1", "+1", " 1", "1 ", "1.5G", "12abc", "1MB", "1MiB", "1KK", "0x10", "1e6",
        "9223372036854775809", "99999999999999999999999", "8388609T", "1P",
    };
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 12345;
        CHECK_INT(re_cache_parse_size(good[i].text, &v, &diag), RE_OK);
        CHECK(v == good[i].bytes);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v = 12345;
        diag_clear(&diag);
        re_status s = re_cache_parse_size(bad[i], &v, &diag);
        CHECK_INT(s, RE_ERR_INPUT);
        CHECK(v == 12345);
        CHECK(strstr(diag_last(&diag), bad[i]) != NULL);
        if (s == RE_OK)
            fprintf(stderr, "accepted '%s'\n", bad[i]);
    }
    re_diagnostics_free(&diag);
}

/* ---- get and put ------------------------------------------------------------------------- */

static void test_round_trip(const char *root)
{
    char *dir = NULL;
    CHECK(asprintf(&dir, "%s/round/not/yet/there", root) > 0);
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open("", &cache), RE_ERR_INVALID);
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    CHECK_STR(re_cache_dir(cache), dir);

    re_cache_key key = key_of("Hello world.");
    re_speech got;
    int hit = 1;
    CHECK_INT(re_cache_get(cache, &key, RATE, &got, &hit), RE_OK);   /* no folder yet */
    CHECK_INT(hit, 0);
    CHECK(got.pcm == NULL && got.frames == 0 && got.events == NULL);
    re_cache_usage u = usage_of(cache);
    CHECK(u.entries == 0 && u.bytes == 0);

    re_speech speech = make_speech(1, 30000, 40);
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK_INT(re_cache_put(cache, &key, RATE, &speech, &diag), RE_OK);
    char *path = entry_file(dir, &key);
    CHECK_INT(file_size(path), 64 + 40 * 24 + 30000 * 2 + 32);
    struct stat st;
    mode_t mask = umask(0);
    umask(mask);
    CHECK(stat(path, &st) == 0);
    CHECK_INT(st.st_mode & 0777, 0666 & ~mask);   /* readable by the other users of the cache */

    CHECK_INT(re_cache_get(cache, &key, RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 1);
    CHECK(speech_equal(&got, &speech));
    re_speech_free(&got);

    /* another key, another rate: misses; the entry stays */
    re_cache_key other = key_of("Hello world!");
    CHECK_INT(re_cache_get(cache, &other, RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 0);
    CHECK_INT(re_cache_get(cache, &key, 16000, &got, &hit), RE_OK);
    CHECK_INT(hit, 0);
    CHECK(exists(path));

    /* replacing an entry, and an empty segment */
    re_speech empty = { 0 };
    CHECK_INT(re_cache_put(cache, &key, RATE, &empty, &diag), RE_OK);
    CHECK_INT(re_cache_get(cache, &key, RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 1);
    CHECK(got.frames == 0 && got.event_count == 0 && got.events == NULL);
    re_speech_free(&got);
    re_speech bad = { .frames = 3 };
    CHECK_INT(re_cache_put(cache, &key, RATE, &bad, &diag), RE_ERR_INVALID);
    int16_t one_sample = 0;   /* claims 2^30 frames: refused before a byte is read */
    re_speech huge = { .pcm = &one_sample, .frames = (size_t)1 << 30 };
    diag_clear(&diag);
    CHECK_INT(re_cache_put(cache, &key, RATE, &huge, &diag), RE_ERR_LIMIT);
    CHECK(strstr(diag_last(&diag), "too large") != NULL);
    re_speech_event odd = { (re_speech_event_type)7, 1, 1, 0 };
    re_speech odd_event = { .events = &odd, .event_count = 1 };
    CHECK_INT(re_cache_put(cache, &key, RATE, &odd_event, &diag), RE_ERR_INVALID);

    const re_cache_counters *c = re_cache_counters_of(cache);
    CHECK_INT(c->hits, 2);
    CHECK_INT(c->misses, 3);
    CHECK_INT(c->rejected, 0);
    CHECK_INT(c->stored, 2);
    CHECK_INT(c->store_failures, 1);
    u = usage_of(cache);
    CHECK(u.entries == 1 && u.bytes == 64 + 32 && u.temp_files == 0);

    re_speech_free(&speech);
    re_cache_free(cache);
    re_cache_free(NULL);
    re_diagnostics_free(&diag);
    free(path);
    free(dir);
}

/* Damages the entry with `damage`, then: get misses, removes it, and a new put repairs it. */
static int rejected_then_rebuilt(re_cache *cache, const re_cache_key *key, const re_speech *speech,
                                 const char *path)
{
    re_speech got;
    int hit = 1, ok = 1;
    size_t rejected = re_cache_counters_of(cache)->rejected;
    if (re_cache_get(cache, key, RATE, &got, &hit) != RE_OK || hit || got.pcm)
        ok = 0;
    if (exists(path) || re_cache_counters_of(cache)->rejected != rejected + 1)
        ok = 0;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    if (re_cache_put(cache, key, RATE, speech, &diag) != RE_OK)
        ok = 0;
    if (re_cache_get(cache, key, RATE, &got, &hit) != RE_OK || !hit || !speech_equal(&got, speech))
        ok = 0;
    re_speech_free(&got);
    return ok;
}

static void flip_byte(const char *path, long long offset)
{
    int fd = open(path, O_RDWR);
    unsigned char b = 0;
    CHECK(fd >= 0 && pread(fd, &b, 1, offset) == 1);
    b ^= 0x41;
    CHECK(pwrite(fd, &b, 1, offset) == 1);
    close(fd);
}

static void test_corruption(const char *root)
{
    char *dir = NULL;
    CHECK(asprintf(&dir, "%s/corrupt", root) > 0);
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_cache_key key = key_of("A paragraph that will be damaged.");
    re_speech speech = make_speech(7, 5000, 12);
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK_INT(re_cache_put(cache, &key, RATE, &speech, &diag), RE_OK);
    char *path = entry_file(dir, &key);
    long long size = file_size(path);
    const long long events_at = 64, pcm_at = 64 + 12 * 24, sum_at = size - 32;

    /* truncated anywhere, also to nothing */
    const long long cuts[] = { 0, 1, 7, 8, 40, 63, 64, events_at + 5, pcm_at, pcm_at + 1,
                               pcm_at + 5000, sum_at, size - 1 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        CHECK(truncate(path, cuts[i]) == 0);
        int ok = rejected_then_rebuilt(cache, &key, &speech, path);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  (truncated at %lld)\n", cuts[i]);
    }
    /* one byte changed anywhere: magic, rate, counts, key, an event, the PCM, the checksum */
    const long long flips[] = { 0, 6, 8, 12, 16, 20, 24, 31, 32, 63, events_at, events_at + 12,
                                events_at + 23, pcm_at, pcm_at + 4999, sum_at - 1, sum_at, size - 1 };
    for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        flip_byte(path, flips[i]);
        int ok = rejected_then_rebuilt(cache, &key, &speech, path);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  (byte %lld changed)\n", flips[i]);
    }
    /* bytes appended */
    FILE *f = fopen(path, "ab");
    CHECK(f && fputs("more", f) >= 0);
    if (f)
        fclose(f);
    CHECK(rejected_then_rebuilt(cache, &key, &speech, path));

    /* a whole, valid entry under another key's name (a renamed or misplaced file) */
    re_cache_key other = key_of("Another paragraph.");
    char *other_path = entry_file(dir, &other);
    char *other_folder = strdup(other_path);
    *strrchr(other_folder, '/') = '\0';
    mkdir(other_folder, 0777);
    CHECK(link(path, other_path) == 0);
    re_speech got;
    int hit = 1;
    CHECK_INT(re_cache_get(cache, &other, RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 0);
    CHECK(!exists(other_path));
    CHECK(exists(path));

    /* a header that claims far more audio than the file holds: no huge allocation, a miss */
    int fd = open(path, O_RDWR);
    unsigned char huge[8] = { 0, 0, 0, 0x40, 0, 0, 0, 0 };   /* 2^30 frames */
    CHECK(fd >= 0 && pwrite(fd, huge, 8, 16) == 8);
    close(fd);
    CHECK(rejected_then_rebuilt(cache, &key, &speech, path));

    /* not a file at all */
    CHECK(mkdir(other_path, 0777) == 0);
    CHECK_INT(re_cache_get(cache, &other, RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 0);
    CHECK(rmdir(other_path) == 0);
    /* a symbolic link to garbage */
    CHECK(symlink("/etc/hostname", other_path) == 0);
    CHECK_INT(re_cache_get(cache, &other, RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 0);
    CHECK(!exists(other_path));

    re_cache_usage u = usage_of(cache);
    CHECK(u.entries == 1 && u.temp_files == 0);
    re_speech_free(&speech);
    re_cache_free(cache);
    free(other_path);
    free(other_folder);
    free(path);
    free(dir);
}

/* ---- failed puts ------------------------------------------------------------------------- */

static void test_put_failures(const char *root)
{
    char *file = NULL, *dir = NULL;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK(asprintf(&file, "%s/a-file", root) > 0 && asprintf(&dir, "%s/a-file/cache", root) > 0);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_cache_key key = key_of("Cannot be stored.");
    re_speech speech = make_speech(3, 1000, 2);
    diag_clear(&diag);
    CHECK_INT(re_cache_put(cache, &key, RATE, &speech, &diag), RE_ERR_WRITE);
    CHECK(strstr(diag_last(&diag), "a-file/cache") != NULL);
    CHECK(strstr(diag_last(&diag), "Not a directory") != NULL);
    CHECK_INT(re_cache_counters_of(cache)->store_failures, 1);
    re_cache_free(cache);
    free(dir);

    /* disk full in the middle of an entry (a file size limit stands in for it): an error,
     * and no temporary file left behind. In a child, which may keep the limit. */
    CHECK(asprintf(&dir, "%s/full", root) > 0);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        re_cache *c = NULL;
        if (re_cache_open(dir, &c) != RE_OK)
            _exit(10);
        re_speech small = make_speech(4, 10, 1);
        if (re_cache_put(c, &key, RATE, &small, &diag) != RE_OK)   /* makes the folders */
            _exit(11);
        struct rlimit limit = { 100000, 100000 };
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(12);
        re_speech big = make_speech(5, 200000, 10);
        re_status s = re_cache_put(c, &key, RATE, &big, &diag);
        if (s != RE_ERR_WRITE || !strstr(diag_last(&diag), "write"))
            _exit(13);
        re_speech got;
        int hit = 0;
        if (re_cache_get(c, &key, RATE, &got, &hit) != RE_OK || !hit || !speech_equal(&got, &small))
            _exit(14);   /* the old entry is untouched */
        re_speech_free(&got);
        re_speech_free(&small);
        re_speech_free(&big);
        re_cache_free(c);
        _exit(0);
    }
    int wstatus = 0;
    CHECK(pid > 0 && waitpid(pid, &wstatus, 0) == pid);
    CHECK(WIFEXITED(wstatus));
    CHECK_INT(WEXITSTATUS(wstatus), 0);
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_cache_usage u = usage_of(cache);
    CHECK(u.entries == 1 && u.temp_files == 0);
    re_cache_free(cache);

    /* a read-only cache (only meaningful when not root: root writes anyway) */
    if (geteuid() != 0) {
        char *ro = NULL;
        CHECK(asprintf(&ro, "%s/readonly", root) > 0 && mkdir(ro, 0555) == 0);
        CHECK_INT(re_cache_open(ro, &cache), RE_OK);
        CHECK_INT(re_cache_put(cache, &key, RATE, &speech, &diag), RE_ERR_WRITE);
        re_cache_free(cache);
        chmod(ro, 0755);
        free(ro);
    }
    re_speech_free(&speech);
    re_diagnostics_free(&diag);
    free(file);
    free(dir);
}

/* ---- prune ------------------------------------------------------------------------------- */

static void set_mtime(const char *path, time_t when)
{
    struct timespec times[2] = { { when, 0 }, { when, 0 } };
    CHECK(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static void test_prune(const char *root)
{
    char *dir = NULL;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK(asprintf(&dir, "%s/prune", root) > 0);
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_cache_prune_report r;
    CHECK_INT(re_cache_prune(cache, 0, &r, &diag), RE_OK);   /* no cache yet */
    CHECK(r.before.entries == 0 && r.entries_removed == 0);

    /* ten entries of 10,096 bytes, entry i last used i hours ago */
    enum { N = 10 };
    const long long entry_bytes = 64 + 10000 + 32;
    time_t now = time(NULL);
    char *paths[N];
    re_cache_key keys[N];
    for (int i = 0; i < N; i++) {
        keys[i] = key_n(i);
        re_speech s = make_speech((unsigned)i, 5000, 0);
        CHECK_INT(re_cache_put(cache, &keys[i], RATE, &s, &diag), RE_OK);
        re_speech_free(&s);
        paths[i] = entry_file(dir, &keys[i]);
        set_mtime(paths[i], now - 3600 * (i + 1));
    }
    /* entry 9, the oldest, is used now: it becomes the most recent */
    re_speech got;
    int hit = 0;
    CHECK_INT(re_cache_get(cache, &keys[9], RATE, &got, &hit), RE_OK);
    CHECK_INT(hit, 1);
    re_speech_free(&got);

    /* debris: a temp file of a killed writer (2 h old), one being written (now), a stranger */
    char *stale = NULL, *fresh = NULL, *stranger = NULL;
    char hex[RE_SHA256_HEX_SIZE];
    re_cache_key_hex(&keys[0], hex);
    CHECK(asprintf(&stale, "%s/v1/%.2s/.%s.123-dead.tmp", dir, hex, hex) > 0);
    CHECK(asprintf(&fresh, "%s/v1/%.2s/.%s.124-live.tmp", dir, hex, hex) > 0);
    CHECK(asprintf(&stranger, "%s/v1/%.2s/notes.txt", dir, hex) > 0);
    const char *extra[] = { stale, fresh, stranger };
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(extra[i], "w");
        CHECK(f && fputs("12345", f) >= 0);
        if (f)
            fclose(f);
    }
    set_mtime(stale, now - 7200);

    re_cache_usage u = usage_of(cache);
    CHECK(u.entries == N && u.bytes == (uint64_t)(N * entry_bytes));
    CHECK(u.temp_files == 2 && u.temp_bytes == 10);

    /* room for 4.5 entries: the 6 least recently used go (8, 7, 6, 5, 4, 3), 9 stays */
    uint64_t limit = (uint64_t)(4.5 * entry_bytes);
    CHECK_INT(re_cache_prune(cache, limit, &r, &diag), RE_OK);
    CHECK(r.before.entries == N && r.entries_removed == 6);
    CHECK(r.bytes_removed == (uint64_t)(6 * entry_bytes));
    CHECK(r.after.entries == 4 && r.after.bytes == (uint64_t)(4 * entry_bytes));
    CHECK(r.temp_removed == 1 && r.temp_bytes_removed == 5 && r.after.temp_files == 1);
    int kept[N] = { 1, 1, 1, 0, 0, 0, 0, 0, 0, 1 };
    for (int i = 0; i < N; i++)
        CHECK_INT(exists(paths[i]), kept[i]);
    CHECK(!exists(stale) && exists(fresh) && exists(stranger));
    u = usage_of(cache);
    CHECK(u.entries == 4 && u.bytes == r.after.bytes);

    /* under the limit: nothing to do */
    CHECK_INT(re_cache_prune(cache, limit, &r, &diag), RE_OK);
    CHECK(r.entries_removed == 0 && r.after.entries == 4);
    /* 0 empties it, and the cache still works after */
    CHECK_INT(re_cache_prune(cache, 0, &r, &diag), RE_OK);
    CHECK(r.entries_removed == 4 && r.after.entries == 0 && r.after.bytes == 0);
    re_speech s = make_speech(1, 100, 1);
    CHECK_INT(re_cache_put(cache, &keys[1], RATE, &s, &diag), RE_OK);
    CHECK_INT(re_cache_get(cache, &keys[1], RATE, &got, &hit), RE_OK);
    CHECK(hit && speech_equal(&got, &s));
    re_speech_free(&got);
    re_speech_free(&s);

    /* a cache folder that cannot be listed is an error, not an empty cache */
    re_cache *bad = NULL;
    CHECK_INT(re_cache_open(stranger, &bad), RE_OK);   /* a file, not a folder */
    diag_clear(&diag);
    CHECK_INT(re_cache_stats(bad, &u, &diag), RE_ERR_READ);
    CHECK(diag.count > 0);
    CHECK_STR(diag.items[0].file, stranger);   /* the cache names its folder */
    re_diagnostics_free(&diag);
    re_cache_free(bad);

    for (int i = 0; i < N; i++)
        free(paths[i]);
    free(stale);
    free(fresh);
    free(stranger);
    re_cache_free(cache);
    free(dir);
}

/* ---- several processes ------------------------------------------------------------------- */

enum { WORKERS = 4, ROUNDS = 150, SHARED_KEYS = 6 };

/* The audio of key n, whoever writes it. */
static re_speech audio_of(int n)
{
    return make_speech((unsigned)n, 2000 + (size_t)n * 37, (size_t)(n % 4));
}

static int worker(const char *dir, int id)
{
    re_cache *cache = NULL;
    if (re_cache_open(dir, &cache) != RE_OK)
        return 20;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    int wrong = 0;
    for (int round = 0; round < ROUNDS && !wrong; round++) {
        int n = (round + id) % 2 ? round % SHARED_KEYS : 100 + id * ROUNDS + round;
        re_cache_key key = key_n(n);
        re_speech want = audio_of(n), got;
        int hit = 0;
        if (re_cache_get(cache, &key, RATE, &got, &hit) != RE_OK)
            wrong = 21;
        else if (hit && !speech_equal(&got, &want))
            wrong = 22;   /* wrong audio: the one thing that must never happen */
        re_speech_free(&got);
        if (!wrong && re_cache_put(cache, &key, RATE, &want, &diag) != RE_OK)
            wrong = 23;
        if (!wrong && id == 0 && round % 10 == 9) {
            re_cache_prune_report r;   /* a pruner among the writers */
            if (re_cache_prune(cache, 40000, &r, &diag) != RE_OK)
                wrong = 24;
        }
        re_speech_free(&want);
    }
    if (re_cache_counters_of(cache)->rejected != 0)
        wrong = 25;
    re_cache_free(cache);
    re_diagnostics_free(&diag);
    return wrong;
}

static void test_concurrent(const char *root)
{
    char *dir = NULL;
    CHECK(asprintf(&dir, "%s/shared", root) > 0);
    pid_t pids[WORKERS];
    for (int id = 0; id < WORKERS; id++) {
        pids[id] = fork();
        if (pids[id] == 0)
            _exit(worker(dir, id));
    }
    for (int id = 0; id < WORKERS; id++) {
        int wstatus = 0;
        CHECK(pids[id] > 0 && waitpid(pids[id], &wstatus, 0) == pids[id]);
        CHECK(WIFEXITED(wstatus));
        CHECK_INT(WEXITSTATUS(wstatus), 0);
    }
    /* every entry left validates, and no temporary file remains */
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_cache_usage u = usage_of(cache);
    CHECK(u.entries > 0);
    CHECK_INT(u.temp_files, 0);
    size_t hits = 0;
    for (int n = 0; n < 100 + WORKERS * ROUNDS + ROUNDS; n++) {
        if (n >= SHARED_KEYS && n < 100)
            continue;
        re_cache_key key = key_n(n);
        re_speech want = audio_of(n), got;
        int hit = 0;
        CHECK_INT(re_cache_get(cache, &key, RATE, &got, &hit), RE_OK);
        if (hit) {
            hits++;
            CHECK(speech_equal(&got, &want));
        }
        re_speech_free(&got);
        re_speech_free(&want);
    }
    CHECK_INT(hits, u.entries);
    CHECK_INT(re_cache_counters_of(cache)->rejected, 0);
    re_cache_free(cache);
    free(dir);
}

/* ---- cost -------------------------------------------------------------------------------- */

static double seconds_since(clockid_t clock, const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(clock, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Informational: what a 30-second segment costs to store and to load (wall clock, and CPU
 * time of this process, which a busy machine disturbs less). */
static void measure_cost(const char *root)
{
    char *dir = NULL;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    CHECK(asprintf(&dir, "%s/cost", root) > 0);
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_speech speech = make_speech(30, 30 * RATE, 200);
    re_cache_key key = key_of("thirty seconds");
    enum { TIMES = 10 };
    double put[2], get[2];
    const clockid_t clocks[2] = { CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID };
    struct timespec t0[2];
    for (int c = 0; c < 2; c++)
        clock_gettime(clocks[c], &t0[c]);
    for (int i = 0; i < TIMES; i++)
        CHECK_INT(re_cache_put(cache, &key, RATE, &speech, &diag), RE_OK);
    for (int c = 0; c < 2; c++) {
        put[c] = seconds_since(clocks[c], &t0[c]) / TIMES;
        clock_gettime(clocks[c], &t0[c]);
    }
    for (int i = 0; i < TIMES; i++) {
        re_speech got;
        int hit = 0;
        CHECK_INT(re_cache_get(cache, &key, RATE, &got, &hit), RE_OK);
        CHECK(hit);
        re_speech_free(&got);
    }
    for (int c = 0; c < 2; c++)
        get[c] = seconds_since(clocks[c], &t0[c]) / TIMES;
    char *path = entry_file(dir, &key);
    printf("test_cache: 30 s segment (%lld bytes): put %.2f ms (CPU %.2f ms), "
           "get %.2f ms (CPU %.2f ms)\n", file_size(path), put[0] * 1e3, put[1] * 1e3,
           get[0] * 1e3, get[1] * 1e3);
    free(path);
    re_speech_free(&speech);
    re_cache_free(cache);
    free(dir);
}

/* File scope, so that forked children that _exit still reach it (no false leak). */
static char *test_root;

/* The entry format without the folder (what the remote cache stores): the bytes written to a
 * memfd are the bytes of the local file, and the same checks hold when they are read back. */
static void test_entry_codec(const char *root)
{
    char *dir = NULL;
    CHECK(asprintf(&dir, "%s/codec", root) > 0);
    re_cache *cache = NULL;
    CHECK_INT(re_cache_open(dir, &cache), RE_OK);
    re_cache_key key = key_of("Codec."), other = key_of("Other.");
    re_speech speech = make_speech(5, 4000, 9), got;
    CHECK_INT(re_cache_put(cache, &key, RATE, &speech, NULL), RE_OK);

    int fd = memfd_create("test-entry", MFD_CLOEXEC);
    CHECK(fd >= 0);
    CHECK_INT(re_cache_entry_write(dup(fd), &key, RATE, &speech), RE_OK);
    long long size = lseek(fd, 0, SEEK_END);
    char *path = entry_file(dir, &key);
    CHECK_INT(size, file_size(path));
    unsigned char *mem = malloc((size_t)size), *disk = malloc((size_t)size);
    FILE *f = fopen(path, "rb");
    CHECK(mem && disk && f && pread(fd, mem, (size_t)size, 0) == size
          && fread(disk, 1, (size_t)size, f) == (size_t)size);
    CHECK(memcmp(mem, disk, (size_t)size) == 0);   /* the same bytes as the local file */
    if (f)
        fclose(f);

    int valid = 0;
    CHECK_INT(re_cache_entry_read(fd, &key, RATE, &got, &valid), RE_OK);
    CHECK_INT(valid, 1);
    CHECK(speech_equal(&got, &speech));
    re_speech_free(&got);
    CHECK_INT(re_cache_entry_read(fd, &other, RATE, &got, &valid), RE_OK);   /* foreign */
    CHECK_INT(valid, 0);
    CHECK(got.pcm == NULL && got.events == NULL);
    CHECK_INT(re_cache_entry_read(fd, &key, RATE + 1, &got, &valid), RE_OK);  /* other rate */
    CHECK_INT(valid, 0);
    unsigned char flipped = mem[size / 2] ^ 0x10;                               /* corrupt */
    CHECK(pwrite(fd, &flipped, 1, size / 2) == 1);
    CHECK_INT(re_cache_entry_read(fd, &key, RATE, &got, &valid), RE_OK);
    CHECK_INT(valid, 0);
    CHECK(pwrite(fd, &mem[size / 2], 1, size / 2) == 1 && ftruncate(fd, size - 1) == 0);  /* truncated */
    CHECK_INT(re_cache_entry_read(fd, &key, RATE, &got, &valid), RE_OK);
    CHECK_INT(valid, 0);
    CHECK(ftruncate(fd, 0) == 0);                                               /* empty */
    CHECK_INT(re_cache_entry_read(fd, &key, RATE, &got, &valid), RE_OK);
    CHECK_INT(valid, 0);
    close(fd);

    re_speech bad = speech;   /* malformed speech is refused, and the fd still closed */
    bad.pcm = NULL;
    CHECK_INT(re_cache_entry_write(open("/dev/null", O_WRONLY), &key, RATE, &bad), RE_ERR_INVALID);
    re_speech_free(&speech);
    free(mem);
    free(disk);
    free(path);
    free(dir);
    re_cache_free(cache);
}

int main(void)
{
    test_root = temp_root();
    CHECK(test_root != NULL);
    if (!test_root)
        return check_finish("test_cache");
    test_key();
    test_default_dir();
    test_parse_size();
    test_round_trip(test_root);
    test_corruption(test_root);
    test_put_failures(test_root);
    test_entry_codec(test_root);
    test_prune(test_root);
    test_concurrent(test_root);
    measure_cost(test_root);
    test_remove_tree(test_root);
    free(test_root);
    return check_finish("test_cache");
}
