/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fingerprint.c - the inputs digest: every input fingerprint.h lists changes it (each
 * profile value of each voice, the options, the engine and encoder strings, the lexicon's
 * content, the script's bytes), no two inputs can run together, and what it documents as not
 * an input (paths, where a lexicon or profile came from and how its file is laid out, the
 * loudness settings past two decimals) leaves it as it was. The last part goes through
 * re_prepare with the same episode in two folders. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testdir.h"
#include "testkit.h"
#include "fingerprint.h"

/* ---- hand-made inputs ---------------------------------------------------------------------- */

static const char SCRIPT[] = "---\ntitle: T\n---\nHello NCCL.\n\n[voice guest] Hi.\n";

typedef struct case_inputs {
    re_voice_profile host, guest;
    const re_voice_profile *profiles[2];
    char *names[2];
    re_episode episode;
    char script[256];
    re_prepared prepared;
    re_fingerprint_inputs in;
} case_inputs;

static re_lexicon *lexicon_of(const char *text)
{
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    CHECK_INT(re_lexicon_create(&lex), RE_OK);
    CHECK_INT(re_lexicon_parse(lex, "words.lexicon", text, strlen(text), &d), RE_OK);
    re_diagnostics_free(&d);
    return lex;
}

/* The base case; its lexicon is owned by the caller. */
static void base(case_inputs *c, re_lexicon *lexicon)
{
    memset(c, 0, sizeof *c);
    c->host = (re_voice_profile){ "host", RE_VOICE_ESPEAK_NG, "en-us", "Host", 170, 50, 50, 100, 0, 350, 750, NULL };
    c->guest = (re_voice_profile){ "guest", RE_VOICE_ESPEAK_NG, "en-gb+f3", "Guest", 165, 60, 50, 100, 0, 350, 750, NULL };
    c->profiles[0] = &c->host;
    c->profiles[1] = &c->guest;
    c->names[0] = "host";
    c->names[1] = "guest";
    c->episode = (re_episode){ .file = "scripts/weekly.txt", .title = "T", .language = "en-us",
                               .voice = "host", .episode_number = -1, .voices = c->names,
                               .voice_count = 2 };
    strcpy(c->script, SCRIPT);
    c->prepared = (re_prepared){ .script_bytes = c->script, .script_len = strlen(c->script),
                                 .episode = &c->episode, .profiles = c->profiles,
                                 .lexicon = lexicon };
    c->in = (re_fingerprint_inputs){
        .prepared = &c->prepared, .engine = "espeak-ng 1.51",
        .encoder = "LAME 3.100, 64 kbps CBR, mono, 22050 Hz", .format = "mp3", .mp3_quality = 2,
        .serial_encode = 0, .loudness_off = 0, .loudness_target = -16.0, .true_peak = -1.0,
    };
}

static void digest(const case_inputs *c, char hex[RE_SHA256_HEX_SIZE])
{
    memset(hex, 'X', RE_SHA256_HEX_SIZE);
    re_fingerprint(&c->in, hex);
}

#define MAX_CASES 80
static char seen[MAX_CASES][RE_SHA256_HEX_SIZE];
static const char *seen_name[MAX_CASES];
static size_t seen_count;

/* The case's digest differs from every digest seen so far (the base's first of all). */
static void distinct(const char *name, const case_inputs *c)
{
    char hex[RE_SHA256_HEX_SIZE];
    digest(c, hex);
    int clash = 0;
    for (size_t i = 0; i < seen_count; i++) {
        if (strcmp(seen[i], hex) == 0) {
            fprintf(stderr, "  '%s' has the digest of '%s'\n", name, seen_name[i]);
            clash = 1;
        }
    }
    CHECK(!clash);
    if (seen_count < MAX_CASES) {
        memcpy(seen[seen_count], hex, sizeof hex);
        seen_name[seen_count++] = name;
    }
}

/* The case's digest is the base's. */
static void same(const char *name, const case_inputs *c)
{
    char hex[RE_SHA256_HEX_SIZE];
    digest(c, hex);
    if (strcmp(hex, seen[0]) != 0)
        fprintf(stderr, "  '%s' changed the digest\n", name);
    CHECK_STR(hex, seen[0]);
}

static void test_format(void)
{
    re_lexicon *lex = lexicon_of("NCCL = nickel\n");
    case_inputs c;
    base(&c, lex);
    char a[RE_SHA256_HEX_SIZE], b[RE_SHA256_HEX_SIZE];
    digest(&c, a);
    digest(&c, b);
    CHECK_STR(a, b);   /* deterministic */
    CHECK_INT(strlen(a), 64);
    CHECK_INT(strspn(a, "0123456789abcdef"), 64);
    re_lexicon_free(lex);
}

static void test_every_input_counts(void)
{
    re_lexicon *lex = lexicon_of("NCCL = nickel\n");
    re_lexicon *lex_other_word = lexicon_of("NCCL = nickle\n");
    re_lexicon *lex_any_case = lexicon_of("NCCL ~= nickel\n");
    re_lexicon *lex_more = lexicon_of("NCCL = nickel\nGloo = [[gl'u:]]\n");
    re_lexicon *lex_empty = lexicon_of("");
    case_inputs c;
    base(&c, lex);
    distinct("base", &c);

    /* the engine, the encoder, the output */
    base(&c, lex); c.in.engine = "espeak-ng 1.52"; distinct("engine version", &c);
    base(&c, lex); c.in.encoder = "LAME 3.100, 96 kbps CBR, mono, 22050 Hz"; distinct("encoder", &c);
    base(&c, lex); c.in.encoder = "LAME 3.101, 64 kbps CBR, mono, 22050 Hz"; distinct("encoder version", &c);
    base(&c, lex); c.in.format = "wav"; distinct("format", &c);
    base(&c, lex); c.in.mp3_quality = 3; distinct("quality", &c);
    base(&c, lex); c.in.mp3_quality = -1; distinct("default quality", &c);
    base(&c, lex); c.in.serial_encode = 1; distinct("serial encode", &c);
    /* no two neighbours run together */
    base(&c, lex); c.in.engine = "espeak-ng 1.51LAME"; c.in.encoder = " 3.100, 64 kbps CBR, mono, 22050 Hz";
    distinct("engine + encoder boundary", &c);
    base(&c, lex); c.in.engine = ""; c.in.encoder = "espeak-ng 1.51"; distinct("engine as encoder", &c);

    /* loudness */
    base(&c, lex); c.in.loudness_off = 1; distinct("loudness off", &c);
    base(&c, lex); c.in.loudness_target = -19.0; distinct("target -19", &c);
    base(&c, lex); c.in.loudness_target = -16.01; distinct("target -16.01", &c);
    base(&c, lex); c.in.true_peak = -2.0; distinct("true peak -2", &c);
    base(&c, lex); c.in.true_peak = -1.01; distinct("true peak -1.01", &c);

    /* which extra files are written */
    base(&c, lex); c.in.write_srt = 1; distinct("srt", &c);
    base(&c, lex); c.in.write_transcript_json = 1; distinct("transcript json", &c);
    base(&c, lex); c.in.write_page = 1; distinct("page", &c);
    base(&c, lex); c.in.write_srt = c.in.write_page = 1; distinct("srt + page", &c);

    /* the lexicon as applied */
    base(&c, lex_other_word); distinct("lexicon replacement", &c);
    base(&c, lex_any_case); distinct("lexicon ~=", &c);
    base(&c, lex_more); distinct("lexicon entry added", &c);
    base(&c, lex_empty); distinct("lexicon empty", &c);

    /* the script's bytes, exactly */
    base(&c, lex); c.script[strlen(c.script) - 2] = '!'; c.prepared.script_len = strlen(c.script);
    distinct("script byte", &c);
    base(&c, lex); strcat(c.script, "\n"); c.prepared.script_len = strlen(c.script);
    distinct("script extra newline", &c);
    base(&c, lex); c.prepared.script_len--; distinct("script one byte shorter", &c);
    base(&c, lex); strcpy(c.script, "---\r\ntitle: T\r\n---\r\nHello NCCL.\r\n\r\n[voice guest] Hi.\r\n");
    c.prepared.script_len = strlen(c.script); distinct("script CRLF", &c);

    /* every value of every profile */
    static const char *const value_names[] = { "rate", "pitch", "range", "volume", "word_gap",
                                               "sentence_pause", "paragraph_pause" };
    static char labels[2][7][48];
    for (int who = 0; who < 2; who++) {
        for (int k = 0; k < 7; k++) {
            base(&c, lex);
            re_voice_profile *v = who ? &c.guest : &c.host;
            int *values[] = { &v->rate, &v->pitch, &v->range, &v->volume, &v->word_gap_ms,
                              &v->sentence_pause_ms, &v->paragraph_pause_ms };
            *values[k] += 1;
            snprintf(labels[who][k], sizeof labels[who][k], "%s %s", who ? "guest" : "host",
                     value_names[k]);
            distinct(labels[who][k], &c);
        }
    }
    base(&c, lex); c.host.engine_voice = "en-us+f2"; distinct("host engine voice", &c);
    base(&c, lex); c.guest.engine_voice = "en-gb"; distinct("guest engine voice", &c);
    base(&c, lex); c.host.speaker = "Hostess"; distinct("host speaker", &c);
    base(&c, lex); c.guest.speaker = "Guest "; distinct("guest speaker", &c);
    base(&c, lex); c.host.name = "anchor"; distinct("host profile name", &c);
    /* a value moved from one profile to the other, or the profiles in the other order */
    base(&c, lex); c.host.rate = 165; c.guest.rate = 170; distinct("rates swapped", &c);
    base(&c, lex); c.profiles[0] = &c.guest; c.profiles[1] = &c.host; distinct("profile order", &c);
    base(&c, lex); c.episode.voice_count = 1; distinct("one profile fewer", &c);

    re_lexicon_free(lex);
    re_lexicon_free(lex_other_word);
    re_lexicon_free(lex_any_case);
    re_lexicon_free(lex_more);
    re_lexicon_free(lex_empty);
}

static void test_not_inputs(void)
{
    re_lexicon *lex = lexicon_of("NCCL = nickel\n");
    /* the same entries, said differently and from another file */
    const char *relaid = "# a comment\n\n   NCCL   =   nickel   \n";
    re_lexicon *lex_relaid = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    CHECK_INT(re_lexicon_create(&lex_relaid), RE_OK);
    CHECK_INT(re_lexicon_parse(lex_relaid, "/elsewhere/other-name.lexicon", relaid, strlen(relaid), &d),
              RE_OK);
    /* the same entry, from two sources (the later one replacing the earlier) */
    re_lexicon *lex_layered = lexicon_of("NCCL = nickel\n");
    CHECK_INT(re_lexicon_parse(lex_layered, "second.lexicon", "NCCL = nickel\n", 14, &d), RE_OK);
    re_diagnostics_free(&d);

    case_inputs c;
    base(&c, lex);
    seen_count = 0;
    distinct("base", &c);
    base(&c, lex); c.episode.file = "/somewhere/else/weekly.txt"; same("script path", &c);
    base(&c, lex_relaid); same("lexicon layout and file name", &c);
    base(&c, lex_layered); same("lexicon entry given twice", &c);
    /* two decimals of the loudness settings */
    base(&c, lex); c.in.loudness_target = -16.004; same("target -16.004", &c);
    base(&c, lex); c.in.true_peak = -0.996; same("true peak -0.996", &c);
    /* the parsed episode beyond the script's bytes and the profiles (it is made from them) */
    base(&c, lex); c.episode.title = "Other"; same("episode struct title", &c);
    /* profiles equal in value, not the same objects */
    base(&c, lex);
    re_voice_profile host_copy = c.host;
    host_copy.name = strdup("host");
    c.profiles[0] = &host_copy;
    same("profile copy", &c);
    free(host_copy.name);

    re_lexicon_free(lex);
    re_lexicon_free(lex_relaid);
    re_lexicon_free(lex_layered);
}

/* ---- through re_prepare: the same episode in two folders ------------------------------------ */

static char root[256];

static void put(const char *folder, const char *name, const char *text)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s/%s", root, folder, name) < 0)
        abort();
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0755);   /* each folder on the way; EEXIST is fine */
        *slash = '/';
    }
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        perror(path);
        abort();
    }
    free(path);
}

/* re_prepare of FOLDER/show/weekly.txt with FOLDER/voices; the digest into hex. */
static int prepared_digest(const char *folder, char hex[RE_SHA256_HEX_SIZE])
{
    char *script = NULL, *voices = NULL;
    if (asprintf(&script, "%s/%s/show/weekly.txt", root, folder) < 0
        || asprintf(&voices, "%s/%s/voices", root, folder) < 0)
        abort();
    const char *dirs[] = { voices };
    re_episode_sources src = { .script_path = script, .max_script_size = 1 << 20,
                               .voice_dirs = dirs, .voice_dir_count = 1 };
    re_prepared p;
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    re_status st = re_prepare(&src, &p, &d);
    for (size_t i = 0; i < d.count; i++)
        fprintf(stderr, "  %s:%u:%u: %s\n", d.items[i].file, d.items[i].line, d.items[i].col,
                d.items[i].message);
    CHECK_INT(st, RE_OK);
    if (st == RE_OK) {
        re_fingerprint_inputs in = { .prepared = &p, .engine = "espeak-ng 1.51",
                                     .encoder = "LAME", .format = "mp3", .mp3_quality = -1,
                                     .loudness_target = -16.0, .true_peak = -1.0 };
        re_fingerprint(&in, hex);
    }
    re_prepared_free(&p);
    re_diagnostics_free(&d);
    free(script);
    free(voices);
    return st == RE_OK;
}

static const char EPISODE[] = "---\ntitle: Weekly\nlexicon: words.lexicon\n---\n"
                              "Hello NCCL and Gloo.\n\n[voice guest] Hi there.\n";

static void test_prepared_in_two_folders(void)
{
    /* a: the episode, its lexicons and profiles */
    put("a", "show/weekly.txt", EPISODE);
    put("a", "show/words.lexicon", "NCCL = nickel\n");
    put("a", "voices/default.lexicon", "Gloo = [[gl'u:]]\n");
    put("a", "voices/host.voice", "voice = en-us\nspeaker = Host\nrate = 170\n");
    put("a", "voices/guest.voice", "voice = en-gb+f3\nrate = 165\npitch = 60\n");
    /* b: the same values, laid out differently, in another folder */
    put("b", "show/weekly.txt", EPISODE);
    put("b", "show/words.lexicon", "# words of this show\n\nNCCL   =   nickel\n");
    put("b", "voices/default.lexicon", "# shared\nGloo = [[gl'u:]]\n");
    put("b", "voices/host.voice", "# the host\nrate = 170\nspeaker = Host\nvoice = en-us\n"
                                  "pitch = 50\nvolume = 100\n");
    put("b", "voices/guest.voice", "pitch = 60\nvoice = en-gb+f3\nrate = 165\nspeaker = guest\n");
    char a[RE_SHA256_HEX_SIZE] = "a", b[RE_SHA256_HEX_SIZE] = "b";
    if (prepared_digest("a", a) && prepared_digest("b", b))
        CHECK_STR(a, b);

    /* c: as a, but one profile value differs; d: a default-lexicon entry differs; e: the
     * script's lexicon file differs */
    put("c", "show/weekly.txt", EPISODE);
    put("c", "show/words.lexicon", "NCCL = nickel\n");
    put("c", "voices/default.lexicon", "Gloo = [[gl'u:]]\n");
    put("c", "voices/host.voice", "voice = en-us\nspeaker = Host\nrate = 170\n");
    put("c", "voices/guest.voice", "voice = en-gb+f3\nrate = 165\npitch = 60\nword_gap = 10\n");
    put("d", "show/weekly.txt", EPISODE);
    put("d", "show/words.lexicon", "NCCL = nickel\n");
    put("d", "voices/default.lexicon", "Gloo = [[gl'u]]\n");
    put("d", "voices/host.voice", "voice = en-us\nspeaker = Host\nrate = 170\n");
    put("d", "voices/guest.voice", "voice = en-gb+f3\nrate = 165\npitch = 60\n");
    put("e", "show/weekly.txt", EPISODE);
    put("e", "show/words.lexicon", "NCCL ~= nickel\n");
    put("e", "voices/default.lexicon", "Gloo = [[gl'u:]]\n");
    put("e", "voices/host.voice", "voice = en-us\nspeaker = Host\nrate = 170\n");
    put("e", "voices/guest.voice", "voice = en-gb+f3\nrate = 165\npitch = 60\n");
    char c[RE_SHA256_HEX_SIZE] = "c", d[RE_SHA256_HEX_SIZE] = "d", e[RE_SHA256_HEX_SIZE] = "e";
    if (prepared_digest("c", c) && prepared_digest("d", d) && prepared_digest("e", e)) {
        CHECK(strcmp(a, c) != 0);
        CHECK(strcmp(a, d) != 0);
        CHECK(strcmp(a, e) != 0);
        CHECK(strcmp(c, d) != 0 && strcmp(c, e) != 0 && strcmp(d, e) != 0);
    }
}

int main(void)
{
    test_format();
    test_every_input_counts();
    test_not_inputs();
    if (test_temp_dir(root, sizeof root, "fingerprint") != 0)
        return 1;
    test_prepared_in_two_folders();
    test_remove_tree(root);
    return check_finish("test_fingerprint");
}
