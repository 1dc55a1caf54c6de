/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_voice.c - voice profile parsing and the voice set's search path and cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testkit.h"
#include "voice.h"

static re_status parse(const char *text, re_voice_profile *profile, re_diagnostics *d)
{
    re_diagnostics_init(d, 0);
    return re_voice_profile_parse("x.voice", text, strlen(text), "x", profile, d);
}

/* 1 if d holds a message at line:col containing `part`; prints the list when not. */
static int has_diag(const re_diagnostics *d, unsigned line, unsigned col, const char *part)
{
    for (size_t i = 0; i < d->count; i++) {
        if (d->items[i].line == line && d->items[i].col == col
            && strstr(d->items[i].message, part))
            return 1;
    }
    fprintf(stderr, "  no diagnostic %u:%u '%s' among:\n", line, col, part);
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "    %s:%u:%u: %s\n", d->items[i].file, d->items[i].line,
                d->items[i].col, d->items[i].message);
    return 0;
}

/* Parses text, expects exactly one error at line:col containing part. */
static void expect_error(const char *text, unsigned line, unsigned col, const char *part)
{
    re_voice_profile profile;
    re_diagnostics d;

    CHECK_INT(parse(text, &profile, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 1);
    CHECK(has_diag(&d, line, col, part));
    CHECK(profile.name == NULL && profile.engine_voice == NULL && profile.speaker == NULL);
    re_diagnostics_free(&d);
}

static void test_full_profile(void)
{
    re_voice_profile p;
    re_diagnostics d;
    const char *text = "\xEF\xBB\xBF# a comment\r\n"
                       "\r\n"
                       "voice = en-gb+f3\r\n"
                       "  speaker   =  Dr. Ada  L\xC3\xB3pez \r\n"
                       "role = co-host\n"
                       "rate=450\n"
                       "pitch = 0\n"
                       "   # indented comment\n"
                       "range = 99\n"
                       "volume = 200\n"
                       "word_gap = 25\n"
                       "sentence_pause = 10000\n"
                       "paragraph_pause = 60000";

    CHECK_INT(parse(text, &p, &d), RE_OK);
    CHECK_INT(d.count, 0);
    CHECK_STR(p.name, "x");
    CHECK_STR(p.engine_voice, "en-gb+f3");
    CHECK_STR(p.speaker, "Dr. Ada  L\xC3\xB3pez");
    CHECK_STR(p.role, "co-host");
    CHECK_INT(p.rate, 450);
    CHECK_INT(p.pitch, 0);
    CHECK_INT(p.range, 99);
    CHECK_INT(p.volume, 200);
    CHECK_INT(p.word_gap_ms, 20);   /* rounded down to the engine's 10 ms */
    CHECK_INT(p.sentence_pause_ms, 10000);
    CHECK_INT(p.paragraph_pause_ms, 60000);
    re_voice_profile_clear(&p);
    CHECK(p.name == NULL);
    re_diagnostics_free(&d);
}

static void test_defaults(void)
{
    re_voice_profile p;
    re_diagnostics d;

    CHECK_INT(parse("voice = en-us\n", &p, &d), RE_OK);
    CHECK_STR(p.speaker, "x");
    CHECK(p.role == NULL);   /* the sidecar decides: host for the default voice, else guest */
    CHECK_INT(p.rate, 175);
    CHECK_INT(p.pitch, 50);
    CHECK_INT(p.range, 50);
    CHECK_INT(p.volume, 100);
    CHECK_INT(p.word_gap_ms, 0);
    CHECK_INT(p.sentence_pause_ms, 400);
    CHECK_INT(p.paragraph_pause_ms, 800);
    re_voice_profile_clear(&p);
    re_diagnostics_free(&d);

    /* The limits themselves are allowed. */
    CHECK_INT(parse("voice=a\nrate=80\nvolume=0\nword_gap=1000\n", &p, &d), RE_OK);
    CHECK_INT(p.rate, 80);
    CHECK_INT(p.word_gap_ms, 1000);
    re_voice_profile_clear(&p);
    re_diagnostics_free(&d);
}

static void test_errors(void)
{
    expect_error("voice = en-us\nrate = 79\n", 2, 8, "rate 79 is out of range 80..450");
    expect_error("voice = en-us\nrate = 451\n", 2, 8, "out of range 80..450");
    expect_error("voice = en-us\npitch = 100\n", 2, 9, "pitch 100 is out of range 0..99");
    expect_error("voice = en-us\nrange = -1\n", 2, 9, "range -1 is out of range 0..99");
    expect_error("voice = en-us\nvolume = 201\n", 2, 10, "out of range 0..200");
    expect_error("voice = en-us\nword_gap = 1001\n", 2, 12, "out of range 0..1000");
    expect_error("voice = en-us\nsentence_pause = 10001\n", 2, 18, "out of range 0..10000");
    expect_error("voice = en-us\nparagraph_pause = 99999999999999999999\n", 2, 19,
                 "out of range 0..60000");
    expect_error("voice = en-us\nrate = 12abc\n", 2, 8, "rate must be a whole number, got '12abc'");
    expect_error("voice = en-us\nrate = 1.5\n", 2, 8, "whole number");
    expect_error("voice = en-us\nrate = +170\n", 2, 8, "whole number");
    expect_error("voice = en-us\nrate = 1 70\n", 2, 8, "whole number");
    expect_error("voice = en-us\nrate = -\n", 2, 8, "whole number");
    expect_error("voice = en-us\nrate =\n", 2, 1, "key 'rate' has no value");
    expect_error("voice = en-us\n  ratee = 170\n", 2, 3,
                 "unknown key 'ratee' (did you mean 'rate'?)");
    expect_error("voice = en-us\n  tempo = 170\n", 2, 3,
                 "unknown key 'tempo' (known keys: engine, voice, speaker, role, rate, pitch, range, "
                 "volume, word_gap, sentence_pause, paragraph_pause)");
    expect_error("voice = en-us\nrate = 170\nrate = 171\n", 3, 1,
                 "duplicate key 'rate' (first set on line 2)");
    expect_error("voice = en-us\nrate 170\n", 2, 1, "expected 'key = value', got 'rate 170'");
    expect_error("voice = en-us\n= 170\n", 2, 1, "expected 'key = value', got '= 170'");
    expect_error("voice = en us\n", 1, 9, "voice 'en us' is not a voice name");
    expect_error("voice = en-us;rm\n", 1, 9, "is not a voice name");
    expect_error("speaker = Host\n", 0, 0, "the profile has no 'voice' key");
    expect_error("voice = en-us\nrole = Host\n", 2, 8, "role 'Host' is not one of: host, co-host");
    expect_error("voice = en-us\nrole = producer\n", 2, 8, "role 'producer' is not one of");
    expect_error("", 0, 0, "no 'voice' key");
    expect_error("voice = en-us\nspeaker = a\x01z\n", 2, 12, "control character U+0001");
    expect_error("voice = en-us\r\r\n", 1, 14, "carriage return");
    expect_error("voice = en-us\nspeaker = \xC3\n", 2, 11, "not valid UTF-8: truncated");
}

static void test_several_errors(void)
{
    re_voice_profile p;
    re_diagnostics d;

    CHECK_INT(parse("rate = 5\npitch = x\nvolume = 7\nfoo = 1\n", &p, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 4);
    CHECK(has_diag(&d, 1, 8, "rate 5 is out of range"));
    CHECK(has_diag(&d, 2, 9, "pitch must be a whole number"));
    CHECK(has_diag(&d, 4, 1, "unknown key 'foo'"));
    CHECK(has_diag(&d, 0, 0, "no 'voice' key"));
    re_diagnostics_free(&d);
}

static void test_names(void)
{
    char long_name[66];

    CHECK_INT(re_voice_name_valid("host"), 1);
    CHECK_INT(re_voice_name_valid("guest_2-b"), 1);
    CHECK_INT(re_voice_name_valid(""), 0);
    CHECK_INT(re_voice_name_valid("Host"), 0);
    CHECK_INT(re_voice_name_valid("a b"), 0);
    CHECK_INT(re_voice_name_valid("../x"), 0);
    CHECK_INT(re_voice_name_valid("en+f3"), 0);
    memset(long_name, 'a', 64);
    long_name[64] = '\0';
    CHECK_INT(re_voice_name_valid(long_name), 1);
    long_name[64] = 'a';
    long_name[65] = '\0';
    CHECK_INT(re_voice_name_valid(long_name), 0);

    re_voice_profile p;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_voice_profile_parse("f", "voice = a\n", 10, "Bad", &p, &d), RE_ERR_INVALID);
    re_diagnostics_free(&d);
}

static char *data_path(const char *rest)
{
    const char *base = getenv("RE_TEST_DATA");
    char *path = malloc(1024);

    if (path)
        snprintf(path, 1024, "%s/%s", base ? base : "tests/data", rest);
    return path;
}

static re_voice_set *fixture_set(void)
{
    re_voice_set *set = NULL;
    char *primary = data_path("voices/primary");
    char *secondary = data_path("voices/secondary/");   /* trailing slash: no "//" in paths */

    CHECK_INT(re_voice_set_create(&set), RE_OK);
    CHECK_INT(re_voice_set_add_dir(set, primary), RE_OK);
    CHECK_INT(re_voice_set_add_dir(set, secondary), RE_OK);
    free(primary);
    free(secondary);
    return set;
}

static void test_set_search(void)
{
    re_voice_set *set = fixture_set();
    const re_voice_profile *host = NULL, *again = NULL, *guest = NULL;
    re_diagnostics d;

    re_diagnostics_init(&d, 0);
    CHECK(strstr(re_voice_set_search_path(set), "voices/primary, ") != NULL);
    CHECK_INT(re_voice_set_get(set, "host", &host, &d), RE_OK);
    CHECK(host != NULL && strcmp(host->speaker, "Primary Host") == 0);   /* first folder wins */
    CHECK_INT(host ? host->rate : 0, 180);
    CHECK_INT(re_voice_set_get(set, "guest", &guest, &d), RE_OK);   /* second folder */
    CHECK(guest != NULL && strcmp(guest->engine_voice, "en-gb+f3") == 0);
    CHECK_INT(re_voice_set_get(set, "host", &again, &d), RE_OK);
    CHECK(again == host);                                           /* parsed once */
    CHECK_INT(re_voice_set_get(set, "minimal", &again, &d), RE_OK);
    CHECK(again != NULL && strcmp(again->speaker, "minimal") == 0);
    CHECK(host != NULL && strcmp(host->name, "host") == 0);        /* still valid */
    CHECK_INT(d.count, 0);

    CHECK_INT(re_voice_set_get(set, "nobody", &again, &d), RE_ERR_INPUT);
    CHECK(again == NULL);
    CHECK_INT(d.count, 1);
    CHECK(has_diag(&d, 0, 0, "unknown voice profile 'nobody' (looked in: "));
    CHECK(d.count == 1 && strstr(d.items[0].message, "voices/secondary/)") != NULL);
    CHECK_INT(re_voice_set_get(set, "No Body", &again, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 0, 0, "invalid voice profile name 'No Body'"));
    /* every name of both folders once, in byte order (host is in both; broken is listed) */
    char **names = NULL;
    size_t count = 0;
    CHECK_INT(re_voice_set_names(set, &names, &count), RE_OK);
    const char *const expected[] = { "broken", "guest", "host", "minimal" };
    CHECK_INT(count, 4);
    for (size_t i = 0; i < count && i < 4; i++)
        CHECK_STR(names[i], expected[i]);
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    re_diagnostics_free(&d);
    re_voice_set_free(set);
}

static void test_set_broken(void)
{
    re_voice_set *set = fixture_set();
    const re_voice_profile *p = NULL;
    re_voice_lookup how = RE_VOICE_LOADED;
    re_diagnostics d;

    re_diagnostics_init(&d, 0);
    CHECK_INT(re_voice_set_get(set, "broken", &p, &d), RE_ERR_INPUT);
    CHECK(p == NULL);
    CHECK_INT(d.count, 2);   /* the file's own errors, at its path */
    CHECK(has_diag(&d, 3, 8, "rate 1000 is out of range"));
    CHECK(has_diag(&d, 4, 1, "unknown key 'pich'"));
    CHECK(d.count > 0 && strstr(d.items[0].file, "voices/primary/broken.voice") != NULL);
    /* Asked again: not re-read, one short pointer back to those errors. */
    CHECK_INT(re_voice_set_get(set, "broken", &p, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 3);
    CHECK(has_diag(&d, 0, 0, "voice profile 'broken' is invalid (see its errors above)"));
    CHECK_INT(re_voice_set_find(set, "broken", &p, &how, &d), RE_ERR_INPUT);
    CHECK_INT(how, RE_VOICE_BROKEN);
    CHECK_INT(re_voice_set_find(set, "nobody", &p, &how, &d), RE_ERR_INPUT);
    CHECK_INT(how, RE_VOICE_MISSING);
    CHECK_INT(re_voice_set_find(set, "BAD", &p, &how, &d), RE_ERR_INPUT);
    CHECK_INT(how, RE_VOICE_BAD_NAME);
    CHECK_INT(re_voice_set_find(set, "guest", &p, &how, &d), RE_OK);
    CHECK_INT(how, RE_VOICE_LOADED);
    CHECK_INT(d.count, 3);   /* find adds nothing of its own */
    re_diagnostics_free(&d);
    re_voice_set_free(set);
}

static void test_set_unreadable(void)
{
    char dir[] = "/tmp/test_voice_XXXXXX";
    char sub[64];
    re_voice_set *set = NULL;
    const re_voice_profile *p = NULL;
    re_diagnostics d;

    re_diagnostics_init(&d, 0);
    CHECK(mkdtemp(dir) != NULL);
    snprintf(sub, sizeof sub, "%s/folder.voice", dir);
    CHECK_INT(mkdir(sub, 0700), 0);
    CHECK_INT(re_voice_set_create(&set), RE_OK);
    CHECK_STR(re_voice_set_search_path(set), "no folders");
    CHECK_INT(re_voice_set_get(set, "host", &p, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 0, 0, "(looked in: no folders)"));
    CHECK_INT(re_voice_set_add_dir(set, dir), RE_OK);
    CHECK_INT(re_voice_set_get(set, "folder", &p, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 0, 0, "directory"));
    CHECK(d.count == 2 && strcmp(d.items[1].file, sub) == 0);
    CHECK_INT(re_voice_set_add_dir(set, ""), RE_ERR_INVALID);
    rmdir(sub);
    rmdir(dir);
    re_diagnostics_free(&d);
    re_voice_set_free(set);
}

/* The profiles shipped in voices/ must parse and say what the brief decided. */
static void test_shipped_profiles(void)
{
    const char *source = getenv("RE_SOURCE_DIR");
    char dir[1024];
    re_voice_set *set = NULL;
    const re_voice_profile *host = NULL, *guest = NULL;
    re_diagnostics d;

    snprintf(dir, sizeof dir, "%s/voices", source ? source : ".");
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_voice_set_create(&set), RE_OK);
    CHECK_INT(re_voice_set_add_dir(set, dir), RE_OK);
    CHECK_INT(re_voice_set_get(set, "host", &host, &d), RE_OK);
    CHECK_INT(re_voice_set_get(set, "guest", &guest, &d), RE_OK);
    if (host && guest) {
        CHECK_STR(host->engine_voice, "en-us");
        CHECK_STR(host->speaker, "Host");
        CHECK_INT(host->rate, 170);
        CHECK_INT(host->pitch, 50);
        CHECK_INT(host->range, 50);
        CHECK_INT(host->volume, 100);
        CHECK_INT(host->word_gap_ms, 0);
        CHECK_INT(host->sentence_pause_ms, 350);
        CHECK_INT(host->paragraph_pause_ms, 750);
        CHECK_STR(guest->engine_voice, "en-gb+f3");
        CHECK_STR(guest->speaker, "Guest");
        CHECK_INT(guest->rate, 165);
        CHECK_INT(guest->pitch, 60);
        CHECK_INT(guest->sentence_pause_ms, 350);
        CHECK_INT(guest->paragraph_pause_ms, 750);
    }
    const re_voice_profile *natural_host = NULL, *natural_guest = NULL;
    CHECK_INT(re_voice_set_get(set, "natural-host", &natural_host, &d), RE_OK);
    CHECK_INT(re_voice_set_get(set, "natural-guest", &natural_guest, &d), RE_OK);
    if (natural_host && natural_guest) {   /* two flite voices a listener tells apart */
        CHECK_INT(natural_host->engine, RE_VOICE_FLITE);
        CHECK_STR(natural_host->engine_voice, "rms");
        CHECK_INT(natural_guest->engine, RE_VOICE_FLITE);
        CHECK_STR(natural_guest->engine_voice, "awb");
    }
    char **names = NULL;
    size_t count = 0;
    CHECK_INT(re_voice_set_names(set, &names, &count), RE_OK);
    CHECK_INT(count, 4);
    if (count == 4) {
        CHECK_STR(names[0], "guest");
        CHECK_STR(names[1], "host");
        CHECK_STR(names[2], "natural-guest");
        CHECK_STR(names[3], "natural-host");
    }
    for (size_t k = 0; k < count; k++)
        free(names[k]);
    free(names);
    CHECK_INT(d.count, 0);
    re_diagnostics_free(&d);
    re_voice_set_free(set);
}

/* A flite profile: its engine, its voices, and the one key it cannot honour; the engine key
 * may come before or after the voice. */
static void test_flite_profiles(void)
{
    re_voice_profile p;
    re_diagnostics d;

    CHECK_INT(parse("voice = en-us\n", &p, &d), RE_OK);
    CHECK_INT(p.engine, RE_VOICE_ESPEAK_NG);
    CHECK_STR(re_voice_profile_language(&p), "en-us");
    re_voice_profile_clear(&p);
    re_diagnostics_free(&d);
    CHECK_INT(parse("engine = espeak-ng\nvoice = de\n", &p, &d), RE_OK);
    CHECK_INT(p.engine, RE_VOICE_ESPEAK_NG);
    CHECK_STR(re_voice_profile_language(&p), "de");
    re_voice_profile_clear(&p);
    re_diagnostics_free(&d);
    const char *const voices[] = { "rms", "slt", "awb" };
    for (size_t i = 0; i < 3; i++) {
        char text[128];
        snprintf(text, sizeof text, "voice = %s\nrate = 155\npitch = 40\nrange = 0\nvolume = 150\n"
                 "engine = flite\n", voices[i]);
        CHECK_INT(parse(text, &p, &d), RE_OK);
        CHECK_INT(p.engine, RE_VOICE_FLITE);
        CHECK_STR(p.engine_voice, voices[i]);
        CHECK_STR(re_voice_engine_name(p.engine), "flite");
        CHECK_STR(re_voice_profile_language(&p), "en-us");
        CHECK_INT(p.rate, 155);
        CHECK_INT(p.range, 0);
        re_voice_profile_clear(&p);
        re_diagnostics_free(&d);
    }
    /* an unknown voice is its value's error, at the value, wherever the engine key is;
     * word_gap is its key's */
    expect_error("engine = flite\nvoice = kal\n", 2, 9, "flite has no voice 'kal' (its voices: "
                 "rms, slt, awb)");
    expect_error("voice = en-us\nengine = flite\n", 1, 9, "flite has no voice 'en-us'");
    expect_error("voice =  kal\nengine = flite\n", 1, 10, "flite has no voice 'kal'");
    expect_error("engine = flite\nvoice = rms\n  word_gap = 0\n", 3, 3,
                 "flite cannot put a gap between words");
    expect_error("engine = festival\nvoice = rms\n", 1, 10,
                 "engine 'festival' is not one of espeak-ng, flite");
    expect_error("engine = Flite\nvoice = rms\n", 1, 10, "engine 'Flite' is not one of");
    /* word_gap stays an espeak-ng key */
    CHECK_INT(parse("engine = espeak-ng\nvoice = en-us\nword_gap = 20\n", &p, &d), RE_OK);
    CHECK_INT(p.word_gap_ms, 20);
    re_voice_profile_clear(&p);
    re_diagnostics_free(&d);
}

int main(void)
{
    test_full_profile();
    test_flite_profiles();
    test_defaults();
    test_errors();
    test_several_errors();
    test_names();
    test_set_search();
    test_set_broken();
    test_set_unreadable();
    test_shipped_profiles();
    return check_finish("test_voice");
}
