/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_script.c - the episode script parser: every construct, every error with its position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testkit.h"
#include "script.h"

#define FM "---\ntitle: T\n---\n"   /* the smallest front matter: the body starts on line 4 */

static void print_diags(const re_diagnostics *d)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "    %s:%u:%u: %s\n", d->items[i].file, d->items[i].line,
                d->items[i].col, d->items[i].message);
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
    print_diags(d);
    return 0;
}

static re_status parse(const char *text, re_episode **ep, re_diagnostics *d)
{
    re_diagnostics_init(d, 0);
    return re_script_parse("ep.txt", text, strlen(text), ep, d);
}

/* Parses a script that must be valid; NULL (after a failed check) when it is not. */
static re_episode *parse_ok(const char *text)
{
    re_episode *ep = NULL;
    re_diagnostics d;
    re_status status = parse(text, &ep, &d);

    CHECK_INT(status, RE_OK);
    CHECK_INT(d.count, 0);
    if (status != RE_OK) {
        fprintf(stderr, "  script:\n%s\n", text);
        print_diags(&d);
    }
    re_diagnostics_free(&d);
    return ep;
}

/* Parses a script that must fail with exactly one error, at line:col, containing part. */
static void expect_error(const char *text, unsigned line, unsigned col, const char *part)
{
    re_episode *ep = (re_episode *)1;
    re_diagnostics d;

    CHECK_INT(parse(text, &ep, &d), RE_ERR_INPUT);
    CHECK(ep == NULL);
    CHECK_INT(d.count, 1);
    int found = has_diag(&d, line, col, part);
    CHECK(found);
    if (!found || d.count != 1) {
        fprintf(stderr, "  script:\n%s\n", text);
        print_diags(&d);
    }
    re_diagnostics_free(&d);
}

/* Item kinds as letters: S speech, P pause, B break, C chapter, N sound. */
static void check_kinds(const re_episode *ep, const char *kinds)
{
    static const char letters[] = "SPBCN";
    char got[64] = "";

    if (!ep) {
        CHECK(ep != NULL);
        return;
    }
    for (size_t i = 0; i < ep->item_count && i < sizeof got - 1; i++)
        got[i] = letters[ep->items[i].kind];
    got[ep->item_count < sizeof got - 1 ? ep->item_count : sizeof got - 1] = '\0';
    CHECK_STR(got, kinds);
}

static const re_item *item(const re_episode *ep, size_t i)
{
    static const re_item none = { RE_ITEM_SPEECH, 0, 0, NULL, NULL, 0, NULL, NULL, 0 };

    if (!ep || i >= ep->item_count)
        return &none;
    return &ep->items[i];
}

static void check_speech(const re_episode *ep, size_t i, const char *text, const char *voice,
                         unsigned line, unsigned col)
{
    const re_item *it = item(ep, i);

    CHECK_INT(it->kind, RE_ITEM_SPEECH);
    CHECK_STR(it->text, text);
    CHECK_STR(it->voice, voice);
    CHECK_INT(it->line, line);
    CHECK_INT(it->col, col);
}

static void check_pause(const re_episode *ep, size_t i, uint64_t us, unsigned line, unsigned col)
{
    const re_item *it = item(ep, i);

    CHECK_INT(it->kind, RE_ITEM_PAUSE);
    CHECK_INT(it->pause_us, us);
    CHECK(it->text == NULL);
    CHECK_INT(it->line, line);
    CHECK_INT(it->col, col);
}

/* ---- front matter ----------------------------------------------------------------------- */

static void test_front_matter_full(void)
{
    re_episode *ep = parse_ok("---  \t\n"
                              "# a comment line\n"
                              "title:   The   First\tEpisode  \n"
                              "\n"
                              "show: Render Weekly\n"
                              "  published: 2026-07-14T13:00:41Z\n"
                              "summary: Pauses, voices & <things>\n"
                              "author: A. Host\n"
                              "language: en-GB\n"
                              "voice: guest\n"
                              "episode: 42\n"
                              "---\n"
                              "Hello.\n");
    if (!ep)
        return;
    CHECK_STR(ep->file, "ep.txt");
    CHECK_STR(ep->title, "The First Episode");
    CHECK_STR(ep->show, "Render Weekly");
    CHECK_STR(ep->published, "2026-07-14T13:00:41Z");
    CHECK_STR(ep->summary, "Pauses, voices & <things>");
    CHECK_STR(ep->author, "A. Host");
    CHECK_STR(ep->language, "en-GB");
    CHECK_STR(ep->voice, "guest");
    CHECK_INT(ep->voice_line, 10);
    CHECK_INT(ep->episode_number, 42);
    check_kinds(ep, "S");
    check_speech(ep, 0, "Hello.", "guest", 13, 1);
    CHECK_INT(ep->voice_count, 1);
    CHECK_INT(ep->voice_ref_count, 1);
    if (ep->voice_ref_count == 1) {
        CHECK_STR(ep->voice_refs[0].name, "guest");
        CHECK_INT(ep->voice_refs[0].line, 10);
        CHECK_INT(ep->voice_refs[0].col, 8);
    }
    re_episode_free(ep);
}

static void test_front_matter_defaults(void)
{
    re_episode *ep = parse_ok(FM "Hi.");

    if (!ep)
        return;
    CHECK_STR(ep->title, "T");
    CHECK(ep->show == NULL && ep->published == NULL && ep->summary == NULL);
    CHECK(ep->author == NULL);
    CHECK_STR(ep->language, "en-us");
    CHECK_STR(ep->voice, "host");
    CHECK_INT(ep->voice_line, 0);
    CHECK_INT(ep->episode_number, -1);
    check_speech(ep, 0, "Hi.", "host", 4, 1);
    /* The built-in default is named nowhere: its reference has no position. */
    CHECK_INT(ep->voice_ref_count, 1);
    if (ep->voice_ref_count == 1) {
        CHECK_STR(ep->voice_refs[0].name, "host");
        CHECK_INT(ep->voice_refs[0].line, 0);
        CHECK_INT(ep->voice_refs[0].col, 0);
    }
    re_episode_free(ep);
}

static void test_front_matter_errors(void)
{
    expect_error("title: T\n---\nHi\n", 1, 1, "a script starts with front matter: a line '---'");
    expect_error("", 1, 1, "a script starts with front matter");
    expect_error("--- x\ntitle: T\n---\nHi\n", 1, 1, "starts with front matter");
    expect_error(" ---\ntitle: T\n---\nHi\n", 1, 1, "starts with front matter");
    expect_error("---\ntitle: T\nHi\n", 1, 1, "the front matter is not closed");
    expect_error("---\n", 1, 1, "the front matter is not closed");
    /* A misspelt key, and then the title is missing too. */
    re_episode *ep;
    re_diagnostics d;
    CHECK_INT(parse("---\ntitel: T\n---\nHi\n", &ep, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 2);
    CHECK(has_diag(&d, 2, 1, "unknown front-matter key 'titel' (did you mean 'title'?)"));
    CHECK(has_diag(&d, 3, 1, "the front matter has no title"));
    re_diagnostics_free(&d);

    expect_error("---\ntitle: T\nTitle: U\n---\nHi\n", 3, 1, "unknown front-matter key 'Title' "
                 "(did you mean 'title'?)");
    expect_error("---\ntitle: T\n  langauge: de\n---\nHi\n", 3, 3, "(did you mean 'language'?)");
    expect_error("---\ntitle: T\nxyzzy: 1\n---\nHi\n", 3, 1, "unknown front-matter key 'xyzzy' "
                 "(known keys: title, show, published");
    expect_error("---\ntitle: T\ntitle: U\n---\nHi\n", 3, 1,
                 "duplicate front-matter key 'title' (first set on line 2)");
    expect_error("---\ntitle: T\njust words\n---\nHi\n", 3, 1,
                 "expected 'key: value' in the front matter, got 'just words'");
    expect_error("---\ntitle: T\n: value\n---\nHi\n", 3, 1, "expected 'key: value'");
    expect_error("---\ntitle: T\nshow:   \n---\nHi\n", 3, 1, "front-matter key 'show' has no value");
    expect_error("---\nshow: S\n\n---\nHi\n", 4, 1, "the front matter has no title");
    expect_error("---\ntitle: T\nepisode: 1000000\n---\nHi\n", 3, 10,
                 "episode 1000000 is out of range 0..999999");
    expect_error("---\ntitle: T\nepisode: -1\n---\nHi\n", 3, 10,
                 "episode -1 is out of range 0..999999");
    expect_error("---\ntitle: T\nseason: 0\n---\nHi\n", 3, 9, "season 0 is out of range 1..999999");
    expect_error("---\ntitle: T\nepisode: +1\n---\nHi\n", 3, 10, "got '+1'");
    expect_error("---\ntitle: T\nepisode: 12a\n---\nHi\n", 3, 10, "got '12a'");
    expect_error("---\ntitle: T\nepisode: 1 2\n---\nHi\n", 3, 10, "got '1 2'");
    expect_error("---\ntitle: T\nlanguage: english\n---\nHi\n", 3, 11,
                 "language 'english' is not a BCP 47 tag");
    expect_error("---\ntitle: T\nlanguage: e\n---\nHi\n", 3, 11, "not a BCP 47 tag");
    expect_error("---\ntitle: T\nlanguage: en-\n---\nHi\n", 3, 11, "not a BCP 47 tag");
    expect_error("---\ntitle: T\nlanguage: en_US\n---\nHi\n", 3, 11, "not a BCP 47 tag");
    expect_error("---\ntitle: T\nlanguage: en-abcdefghi\n---\nHi\n", 3, 11, "not a BCP 47 tag");
    expect_error("---\ntitle: T\nvoice: Guest\n---\nHi\n", 3, 8,
                 "invalid voice profile name 'Guest'");
}

static void test_front_matter_values(void)
{
    static const char *const languages[] = { "de", "en-us", "en-GB", "zh-Hant-TW", "gsw",
                                             "sr-Latn-RS-x-abcdefgh" };
    static const char *const episodes[] = { "0", "999999", "007" };
    static const long numbers[] = { 0, 999999, 7 };
    char text[256];

    for (size_t i = 0; i < sizeof languages / sizeof languages[0]; i++) {
        snprintf(text, sizeof text, FM "Hi");
        snprintf(text, sizeof text, "---\ntitle: T\nlanguage: %s\n---\nHi\n", languages[i]);
        re_episode *ep = parse_ok(text);
        CHECK(ep && strcmp(ep->language, languages[i]) == 0);
        re_episode_free(ep);
    }
    for (size_t i = 0; i < sizeof episodes / sizeof episodes[0]; i++) {
        snprintf(text, sizeof text, "---\ntitle: T\nepisode: %s\n---\nHi\n", episodes[i]);
        re_episode *ep = parse_ok(text);
        CHECK_INT(ep ? ep->episode_number : -2, numbers[i]);
        re_episode_free(ep);
    }
    static const char *const types[] = { "full", "trailer", "bonus" };
    static const re_episode_type type_values[] = { RE_EPISODE_FULL, RE_EPISODE_TRAILER,
                                                   RE_EPISODE_BONUS };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        snprintf(text, sizeof text, "---\ntitle: T\ntype: %s\n---\nHi\n", types[i]);
        re_episode *ep = parse_ok(text);
        CHECK_INT(ep ? (int)ep->type : -1, (int)type_values[i]);
        CHECK_STR(re_episode_type_name(type_values[i]), types[i]);
        re_episode_free(ep);
    }
    re_episode *plain = parse_ok("---\ntitle: T\n---\nHi\n");
    CHECK_INT(plain ? (int)plain->type : -1, (int)RE_EPISODE_TYPE_UNSET);
    CHECK_STR(re_episode_type_name(RE_EPISODE_TYPE_UNSET), "full");
    re_episode_free(plain);
    expect_error("---\ntitle: T\ntype: Trailr\n---\nHi\n", 3, 7, "type 'Trailr' is not one of: "
                 "full, trailer, bonus (did you mean 'trailer'?)");
    expect_error("---\ntitle: T\ntype: episode\n---\nHi\n", 3, 7, "type 'episode' is not one "
                 "of: full, trailer, bonus");
    /* No quoting rules: the value is the text after the colon, colons and quotes included. */
    re_episode *ep = parse_ok("---\ntitle: \"Q&A: part 2\" # not a comment\n---\nHi\n");
    CHECK_STR(ep ? ep->title : NULL, "\"Q&A: part 2\" # not a comment");
    re_episode_free(ep);
}

/* `music:` and its settings (format 1.1): defaults, the accepted spellings, each error. */
static void test_music_bed(void)
{
    re_episode *ep = parse_ok("---\ntitle: T\n---\nHi\n");
    CHECK(ep && !ep->music.file);
    re_episode_free(ep);
    ep = parse_ok("---\ntitle: T\nmusic: beds/pad.flac\n---\nHi\n");
    CHECK_STR(ep ? ep->music.file : NULL, "beds/pad.flac");
    CHECK_INT(ep ? ep->music.line : 0, 3);
    CHECK_INT(ep ? ep->music.col : 0, 8);
    CHECK(ep && ep->music.level_lufs == RE_MUSIC_DEFAULT_LEVEL_LUFS && ep->music.level_lufs == -24.0);
    CHECK(ep && ep->music.duck_db == 12.0);
    CHECK_INT(ep ? ep->music.fade_us : 0, 2000000);
    re_episode_free(ep);
    ep = parse_ok("---\ntitle: T\nmusic: a.wav\nmusic_level: -30.5\nduck: 6db\nfade: 1.5s\n---\nHi\n");
    CHECK(ep && ep->music.level_lufs == -30.5 && ep->music.duck_db == 6.0);
    CHECK_INT(ep ? ep->music.fade_us : 0, 1500000);
    re_episode_free(ep);
    ep = parse_ok("---\ntitle: T\nmusic: a.wav\nmusic_level: -60 lufs\nduck: 0 dB\nfade: 0s\n---\nHi\n");
    CHECK(ep && ep->music.level_lufs == -60.0 && ep->music.duck_db == 0.0);
    CHECK_INT(ep ? ep->music.fade_us : 1, 0);
    re_episode_free(ep);
    ep = parse_ok("---\ntitle: T\nmusic: a.wav\nmusic_level: -5 LUFS\nduck: 60 dB\nfade: 60000ms\n---\nHi\n");
    CHECK(ep && ep->music.level_lufs == -5.0 && ep->music.duck_db == 60.0);
    CHECK_INT(ep ? ep->music.fade_us : 0, 60000000);
    re_episode_free(ep);
    static const char *const bad_levels[] = { "-4.9", "-61", "24", "-24 dB", "-24LUFSx", "--24",
                                              "-.5", "-24.", "inf", "nan", "0x10" };
    char text[256];
    for (size_t i = 0; i < sizeof bad_levels / sizeof bad_levels[0]; i++) {
        snprintf(text, sizeof text, "---\ntitle: T\nmusic: a.wav\nmusic_level: %s\n---\nHi\n",
                 bad_levels[i]);
        expect_error(text, 4, 14, "music_level must be a loudness from -60 to -5 LUFS");
    }
    static const char *const bad_ducks[] = { "-1", "60.5", "12 LUFS", "12 dBFS", "twelve", "1e1" };
    for (size_t i = 0; i < sizeof bad_ducks / sizeof bad_ducks[0]; i++) {
        snprintf(text, sizeof text, "---\ntitle: T\nmusic: a.wav\nduck: %s\n---\nHi\n",
                 bad_ducks[i]);
        expect_error(text, 4, 7, "duck must be a level from 0 to 60 dB");
    }
    static const char *const bad_fades[] = { "2", "2 sec", "60.001s", "-1s", ".5s", "1.s", "2 m" };
    for (size_t i = 0; i < sizeof bad_fades / sizeof bad_fades[0]; i++) {
        snprintf(text, sizeof text, "---\ntitle: T\nmusic: a.wav\nfade: %s\n---\nHi\n",
                 bad_fades[i]);
        expect_error(text, 4, 7, "fade must be a duration from 0s to 60s");
    }
    expect_error("---\ntitle: T\nmusic: a.wav\nfade: 0.0000001s\n---\nHi\n", 4, 7,
                 "more precise than 1 microsecond");
    expect_error("---\ntitle: T\n  fade: 1s\n---\nHi\n", 3, 3,
                 "'fade' is set but there is no music bed");
    expect_error("---\ntitle: T\nmusic_level: -20\n---\nHi\n", 3, 1,
                 "'music_level' is set but there is no music bed");
    expect_error("---\ntitle: T\nmusic: a.wav\nmusic: b.wav\n---\nHi\n", 4, 1,
                 "duplicate front-matter key 'music'");
    expect_error("---\ntitle: T\nmusik: a.wav\n---\nHi\n", 3, 1, "did you mean 'music'");
}

static void test_published(void)
{
    static const char *const good[] = {
        "2024-02-29", "2000-02-29", "2026-12-31", "2026-07-14T13:00:41Z", "2026-07-14T13:00Z",
        "2026-07-14T00:00+02:00", "2026-07-14T23:59:59.123456-05:30", "2026-07-14T13:00:41+14:00",
        "2026-07-14T13:00:41-00:00",
    };
    static const struct { const char *value, *why; } bad[] = {
        { "2023-02-29", "day 29 does not exist in 2023-02" },
        { "1900-02-29", "day 29 does not exist in 1900-02" },
        { "2026-04-31", "day 31 does not exist" },
        { "2026-01-00", "day 00 does not exist" },
        { "2026-13-01", "month 13 is out of range" },
        { "2026-00-10", "month 00 is out of range" },
        { "2026-07-14T13:00:41", "a date-time needs a time zone, e.g. Z or +02:00" },
        { "2026-07-14T13:00", "a date-time needs a time zone" },
        { "2026-07-14T24:00Z", "hour 24 is out of range (00..23)" },
        { "2026-07-14T13:60Z", "minute 60 is out of range (00..59)" },
        { "2026-07-14T13:00:60Z", "second 60 is out of range (00..59)" },
        { "2026-07-14T13:00+14:01", "the time-zone offset must be at most 14:00" },
        { "2026-07-14T13:00+15:00", "the time-zone offset must be at most 14:00" },
        { "2026-07-14T13:00+02", "the time zone must be Z or +HH:MM" },
        { "2026-07-14T13:00z", "the time zone must be" },
        { "2026-07-14T13:00:41.Z", "a decimal point must be followed by digits" },
        { "2026-07-14 13:00Z", "expected an ISO 8601 date" },
        { "2026-7-14", "expected an ISO 8601 date" },
        { "14.07.2026", "expected an ISO 8601 date" },
        { "2026-07-14Z", "expected an ISO 8601 date" },
        { "2026-07-14T1:00Z", "not in the form" },
    };
    char text[256];

    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(text, sizeof text, "---\ntitle: T\npublished: %s\n---\nHi\n", good[i]);
        re_episode *ep = parse_ok(text);
        CHECK(ep && strcmp(ep->published, good[i]) == 0);
        re_episode_free(ep);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char part[160];
        snprintf(text, sizeof text, "---\ntitle: T\npublished: %s\n---\nHi\n", bad[i].value);
        snprintf(part, sizeof part, "invalid published date '%s': %s", bad[i].value, bad[i].why);
        expect_error(text, 3, 12, part);
    }
}

/* ---- body ------------------------------------------------------------------------------- */

static void test_paragraphs(void)
{
    re_episode *ep = parse_ok(FM
                              "  Hello,\n"              /* line 4 */
                              "\tworld   and\n"
                              "// a comment does not end the paragraph\n"
                              "   // nor does an indented one\n"
                              "all.  \n"
                              " \t \n"                  /* blank: ends it */
                              "Second\tone.\n");         /* line 10 */
    check_kinds(ep, "SBS");
    check_speech(ep, 0, "Hello, world and all.", "host", 4, 3);
    CHECK_INT(item(ep, 1)->kind, RE_ITEM_BREAK);
    CHECK_STR(item(ep, 1)->voice, "host");
    CHECK_INT(item(ep, 1)->line, 9);    /* the blank line that ended the paragraph */
    CHECK_INT(item(ep, 1)->col, 1);
    CHECK(item(ep, 1)->text == NULL);
    check_speech(ep, 2, "Second one.", "host", 10, 1);
    re_episode_free(ep);
}

static void test_literal_text(void)
{
    const char *text = FM "Say <b>&amp; \"quoted\" 'single' [[h@'loU]] [1] [citation needed]\n"
                          "\\[pause 1s] is text, back\\slash \\n stays, [pauses] [voiceover] [voice-over]"
                          " #120345 ####### seven [ pause 1s] caf\xC3\xA9 \xF0\x9F\x8E\x99 ]\n";
    re_episode *ep = parse_ok(text);

    check_kinds(ep, "S");
    check_speech(ep, 0, "Say <b>&amp; \"quoted\" 'single' [[h@'loU]] [1] [citation needed] "
                 "[pause 1s] is text, back\\slash \\n stays, [pauses] [voiceover] [voice-over] "
                 "#120345 ####### seven [ pause 1s] caf\xC3\xA9 \xF0\x9F\x8E\x99 ]", "host", 4, 1);
    re_episode_free(ep);

    /* A paragraph starting with \[ starts with the literal '[' at the backslash's column. */
    ep = parse_ok(FM "  \\[voice guest] hello\n");
    check_speech(ep, 0, "[voice guest] hello", "host", 4, 3);
    re_episode_free(ep);

    ep = parse_ok(FM "#\n\n#hashtag\n");
    check_kinds(ep, "SBS");
    check_speech(ep, 0, "#", "host", 4, 1);
    check_speech(ep, 2, "#hashtag", "host", 6, 1);
    re_episode_free(ep);
}

static void test_headings(void)
{
    re_episode *ep = parse_ok(FM
                              "Before.\n"                           /* 4 */
                              "# Part  [pause 1s] \\[one\\]  \n"     /* 5 */
                              "After.\n"
                              "\n"
                              "  ###### \tDeep\n"                    /* 8 */
                              "Deeper.\n");
    check_kinds(ep, "SBCSBCS");
    check_speech(ep, 0, "Before.", "host", 4, 1);
    CHECK_INT(item(ep, 1)->kind, RE_ITEM_BREAK);
    CHECK_INT(item(ep, 1)->line, 5);    /* the heading ended the paragraph */
    CHECK_INT(item(ep, 2)->kind, RE_ITEM_CHAPTER);
    CHECK_STR(item(ep, 2)->text, "Part [pause 1s] \\[one\\]");   /* a title is literal */
    CHECK_INT(item(ep, 2)->line, 5);
    CHECK_INT(item(ep, 2)->col, 1);
    check_speech(ep, 3, "After.", "host", 6, 1);
    CHECK_STR(item(ep, 5)->text, "Deep");
    CHECK_INT(item(ep, 5)->line, 8);
    CHECK_INT(item(ep, 5)->col, 3);
    check_speech(ep, 6, "Deeper.", "host", 9, 1);
    re_episode_free(ep);

    /* A heading first: no break before the first audio; a pause counts as audio. */
    ep = parse_ok(FM "# Intro\n[pause 2s]\n\nHi\n# Outro\n[pause 500ms]\n");
    check_kinds(ep, "CPSCP");
    CHECK_STR(item(ep, 0)->text, "Intro");
    check_pause(ep, 1, 2000000, 5, 1);
    check_speech(ep, 2, "Hi", "host", 7, 1);
    CHECK_STR(item(ep, 3)->text, "Outro");
    check_pause(ep, 4, 500000, 9, 1);
    re_episode_free(ep);

    /* A heading ends a paragraph without a blank line. */
    ep = parse_ok(FM "One\n## Two\nThree\n");
    check_kinds(ep, "SBCS");
    re_episode_free(ep);

    expect_error(FM "# \nHi\n", 4, 1, "a heading needs a title after '# '");
    expect_error(FM "Hi\n  ### \t \n", 5, 3, "a heading needs a title after '### '");
    expect_error(FM "# A\n# B\nHi\n", 4, 1, "chapter 'A' has no audio");
    expect_error(FM "# A\n// just a comment\n\n## B\nHi\n", 4, 1, "chapter 'A' has no audio");
    expect_error(FM "Hi\n# The End\n", 5, 1, "chapter 'The End' has no audio");
}

static void test_pauses(void)
{
    re_episode *ep = parse_ok(FM "A [pause 800ms] B[pause 1.5s]C\n"
                              "[pause\t0.0015s][pause 1ms] [pause 600s] [pause  600000 ms ]\n"
                              "[pause 1.500000000s]   [pause 2s] D\n");
    check_kinds(ep, "SPSPSPPPPPPS");
    check_speech(ep, 0, "A", "host", 4, 1);
    check_pause(ep, 1, 800000, 4, 3);
    check_speech(ep, 2, "B", "host", 4, 17);
    check_pause(ep, 3, 1500000, 4, 18);
    check_speech(ep, 4, "C", "host", 4, 30);
    check_pause(ep, 5, 1500, 5, 1);
    check_pause(ep, 6, 1000, 5, 16);
    check_pause(ep, 7, 600000000, 5, 28);
    check_pause(ep, 8, 600000000, 5, 41);
    check_pause(ep, 9, 1500000, 6, 1);
    check_pause(ep, 10, 2000000, 6, 24);
    check_speech(ep, 11, "D", "host", 6, 35);
    re_episode_free(ep);

    expect_error(FM "Hi [pause 0.9ms]\n", 4, 4, "pause 0.9ms is out of range: 1ms to 600s");
    expect_error(FM "Hi [pause 0ms]\n", 4, 4, "pause 0ms is out of range");
    expect_error(FM "Hi [pause 600.001s]\n", 4, 4, "pause 600.001s is out of range");
    expect_error(FM "Hi [pause 600001ms]\n", 4, 4, "out of range");
    expect_error(FM "Hi [pause 99999999999999999999999s]\n", 4, 4, "out of range");
    expect_error(FM "Hi [pause 0.0000001s]\n", 4, 4,
                 "pause 0.0000001s is not exact: it is more precise than 1 microsecond");
    expect_error(FM "Hi [pause 1.0005ms]\n", 4, 4, "more precise than 1 microsecond");
    expect_error(FM "Hi [pause]\n", 4, 4, "malformed pause '[pause]': no duration; write e.g. "
                 "[pause 800ms] or [pause 1.5s]");
    expect_error(FM "Hi [pause 1.5] there\n", 4, 4, "malformed pause '[pause 1.5]': no unit");
    expect_error(FM "Hi [pause 5 min]\n", 4, 4, "'[pause 5 min]': the unit must be ms or s");
    expect_error(FM "Hi [pause 5 msec]\n", 4, 4, "the unit must be ms or s");
    expect_error(FM "Hi [pause 5m]\n", 4, 4, "the unit must be ms or s");
    expect_error(FM "Hi [pause -1s]\n", 4, 4,
                 "'[pause -1s]': the duration must be a plain number");
    expect_error(FM "Hi [pause .5s]\n", 4, 4, "the duration must be a plain number");
    expect_error(FM "Hi [pause 1.s]\n", 4, 4, "a decimal point must be followed by digits");
    expect_error(FM "Hi [pause 1s\n", 4, 4, "malformed pause '[pause 1s': no closing ']'");
    expect_error(FM "Hi [pause 1s and more\n", 4, 4, "no closing ']'");
    expect_error(FM "Hi [pause 1s x]\n", 4, 4, "unexpected text before ']'");
    expect_error(FM "Hi [pause1s]\n", 4, 4, "expected a space after 'pause'");
    expect_error(FM "Hi [pause\n", 4, 4, "no duration");
    expect_error(FM "Hi [Pause 1s]\n", 4, 4, "'[Pause 1s]': directive names are lowercase");
    expect_error(FM "[VOICE guest] Hi\n", 4, 1, "directive names are lowercase");
}

static void test_breaks_and_pause_paragraphs(void)
{
    /* Pause-only paragraphs replace the paragraph break. */
    re_episode *ep = parse_ok(FM "A\n\n[pause 2s]\n\n[pause 3s]\n\nB\n");
    check_kinds(ep, "SPPS");
    check_pause(ep, 1, 2000000, 6, 1);
    check_pause(ep, 2, 3000000, 8, 1);
    re_episode_free(ep);

    /* An inline pause at the end of a paragraph adds to the break. */
    ep = parse_ok(FM "A [pause 1s]\n\n[pause 2s] B\n");
    check_kinds(ep, "SPBPS");
    CHECK_INT(item(ep, 2)->line, 5);
    CHECK_INT(item(ep, 2)->col, 1);
    re_episode_free(ep);

    /* Whitespace between pauses is no speech; pauses before the first speech need no break. */
    ep = parse_ok(FM "[pause 1s]   [pause 2s]\n\nA\n");
    check_kinds(ep, "PPS");
    re_episode_free(ep);

    /* Trailing pause-only paragraph. */
    ep = parse_ok(FM "A\n\n[pause 1s]\n");
    check_kinds(ep, "SP");
    re_episode_free(ep);
}

static void test_voices(void)
{
    re_episode *ep = parse_ok("---\ntitle: T\nvoice: narrator\n---\n"
                              "Intro.\n"                        /* 5 */
                              "\n"
                              "  [voice guest]  Hi,\n"          /* 7 */
                              "I am the guest.\n"
                              "\n"
                              "// a comment first does not matter\n"
                              "[voice host]\n"                  /* 11 */
                              "Host here. [pause 1s] More.\n"
                              "\n"
                              "Back to the narrator.\n"         /* 14 */
                              "\n"
                              "[voice guest] Again.\n");        /* 16 */
    check_kinds(ep, "SBSBSPSBSBS");
    for (size_t i = 1; ep && i < ep->item_count; i++)   /* positions never go backwards */
        CHECK(ep->items[i].line >= ep->items[i - 1].line);
    check_speech(ep, 0, "Intro.", "narrator", 5, 1);
    CHECK_STR(item(ep, 1)->voice, "narrator");     /* the break of the paragraph before it */
    check_speech(ep, 2, "Hi, I am the guest.", "guest", 7, 18);
    CHECK_STR(item(ep, 3)->voice, "guest");
    check_speech(ep, 4, "Host here.", "host", 12, 1);
    check_speech(ep, 6, "More.", "host", 12, 23);
    CHECK_STR(item(ep, 7)->voice, "host");
    check_speech(ep, 8, "Back to the narrator.", "narrator", 14, 1);
    check_speech(ep, 10, "Again.", "guest", 16, 15);
    if (ep) {
        CHECK_INT(ep->voice_count, 3);
        if (ep->voice_count == 3) {
            CHECK_STR(ep->voices[0], "narrator");
            CHECK_STR(ep->voices[1], "guest");
            CHECK_STR(ep->voices[2], "host");
            /* All pointers point into the episode's list. */
            CHECK(item(ep, 2)->voice == ep->voices[1]);
            CHECK(item(ep, 10)->voice == ep->voices[1]);
            CHECK(item(ep, 1)->voice == ep->voices[0]);
        }
        CHECK_INT(ep->voice_ref_count, 4);
        if (ep->voice_ref_count == 4) {
            CHECK_STR(ep->voice_refs[0].name, "narrator");
            CHECK_INT(ep->voice_refs[0].line, 3);
            CHECK_INT(ep->voice_refs[0].col, 8);
            CHECK_STR(ep->voice_refs[1].name, "guest");
            CHECK_INT(ep->voice_refs[1].line, 7);
            CHECK_INT(ep->voice_refs[1].col, 3);
            CHECK_STR(ep->voice_refs[2].name, "host");
            CHECK_INT(ep->voice_refs[2].line, 11);
            CHECK_INT(ep->voice_refs[3].line, 16);
        }
    }
    re_episode_free(ep);

    /* The default is not listed when every paragraph names its own voice. */
    ep = parse_ok(FM "[voice guest] Only the guest.\n");
    CHECK_INT(ep ? ep->voice_count : 0, 1);
    CHECK_STR(ep && ep->voice_count ? ep->voices[0] : NULL, "guest");
    CHECK_INT(ep ? ep->voice_ref_count : 0, 1);
    re_episode_free(ep);

    expect_error(FM "Hi [voice guest] there\n", 4, 4,
                 "'[voice guest]' is not at the start of its paragraph: [voice NAME] must start "
                 "a paragraph");
    expect_error(FM "Hi\n[voice guest] there\n", 5, 1, "must start a paragraph");
    expect_error(FM "[pause 1s] [voice guest] Hi\n", 4, 12, "must start a paragraph");
    expect_error(FM "[voice a][voice b] Hi\n", 4, 10, "must start a paragraph");
    expect_error(FM "[voice Guest] Hi\n", 4, 1, "invalid voice profile name 'Guest'");
    expect_error(FM "[voice] Hi\n", 4, 1, "malformed voice directive '[voice]'");
    expect_error(FM "[voice of reason] Hi\n", 4, 1, "malformed voice directive '[voice of reason]'");
    expect_error(FM "Hi\n\n[voice guest Hi\n", 6, 1, "malformed voice directive");
    expect_error(FM "Hi\n\n[voice guest]\n\nThere\n", 6, 1,
                 "'[voice guest]' is alone in its paragraph");
}

/* Fills out[0..n) with words of 8 letters and single spaces, starting and ending with a letter. */
static void fill_words(char *out, size_t n, char letter)
{
    for (size_t i = 0; i < n; i++)
        out[i] = i % 10 == 8 && i + 1 < n ? ' ' : letter;
}

static void test_paragraph_limit(void)
{
    size_t head = strlen(FM);
    char *text = malloc(head + 10100);

    if (!text)
        return;
    /* 10000 bytes of speech in two pieces: allowed. */
    memcpy(text, FM, head);
    fill_words(text + head, 5000, 'a');
    memcpy(text + head + 5000, "[pause 1s]", 10);
    fill_words(text + head + 5010, 5000, 'b');
    text[head + 10010] = '\0';
    re_episode *ep = parse_ok(text);
    check_kinds(ep, "SPS");
    re_episode_free(ep);

    /* 10001 bytes, counted as spoken: "x ...": 2 lines joined by a space. */
    fill_words(text + head, 5000, 'a');
    text[head + 5000] = '\n';
    fill_words(text + head + 5001, 5000, 'b');
    text[head + 10001] = '\0';
    expect_error(text, 4, 1, "paragraph is 10001 bytes; the limit is 10000: split it with a "
                 "blank line");
    free(text);
}

static void test_no_speech(void)
{
    expect_error(FM, 4, 1, "the script has no spoken text");
    expect_error(FM "\n// only a comment\n", 4, 1, "the script has no spoken text");
    expect_error("---\ntitle: T\n---", 4, 1, "the script has no spoken text");
    expect_error(FM "[pause 1s]\n", 4, 1, "the script has no spoken text");
}

/* ---- limits (docs/robustness.md) -------------------------------------------------------- */

/* A growing string for building big scripts. */
typedef struct big {
    char *data;
    size_t len, cap;
} big;

static void big_add(big *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *grown = realloc(b->data, cap);
        if (!grown)
            abort();
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void big_str(big *b, const char *s)
{
    big_add(b, s, strlen(s));
}

static void big_repeat(big *b, const char *s, size_t times)
{
    for (size_t i = 0; i < times; i++)
        big_str(b, s);
}

static void test_line_limit(void)
{
    big b = { 0 };

    /* A comment line of exactly the limit is fine; one byte more is an error at that byte. */
    big_str(&b, FM "Hi.\n//");
    big_repeat(&b, "x", RE_SCRIPT_MAX_LINE - 2);
    big_str(&b, "\n");
    re_episode *ep = parse_ok(b.data);
    check_kinds(ep, "S");
    re_episode_free(ep);
    b.len = 0;
    big_str(&b, FM "Hi.\n//");
    big_repeat(&b, "x", RE_SCRIPT_MAX_LINE - 1);
    big_str(&b, "\nBye.\n");
    expect_error(b.data, 5, RE_SCRIPT_MAX_LINE + 1, "line is 16385 bytes; the limit is 16384");

    /* In the front matter too; the line is not read, so no second error about the title. */
    b.len = 0;
    big_str(&b, "---\ntitle: ");
    big_repeat(&b, "T", RE_SCRIPT_MAX_LINE);
    big_str(&b, "\n---\nHi.\n");
    re_episode *none = (re_episode *)1;
    re_diagnostics d;
    CHECK_INT(parse(b.data, &none, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 2, RE_SCRIPT_MAX_LINE + 1, "line is 16391 bytes"));
    CHECK(has_diag(&d, 3, 1, "the front matter has no title"));
    CHECK_INT(d.count, 2);
    re_diagnostics_free(&d);
    free(b.data);
}

/* No word is refused for its length (issue 14): the item keeps the script's word whole; the
 * normalizer splits what the engine receives (test_normalize.c). */
static void test_long_words_kept(void)
{
    static const char *const words[] = {
        "https://github.com/pytorch/pytorch/pull/189759/files#diff-0123456789abcdef0123456789abcdef0123456789abcdef",
        "12d655d4561a0b9c8e7f6a5b4c3d2e1f0a9b8c7d",
        "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.",
        "torch.nn.functional.scaled_dot_product_attention_with_a_very_long_tail_name",
    };
    big b = { 0 };
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        b.len = 0;
        big_str(&b, FM "See ");
        big_str(&b, words[w]);
        big_str(&b, " now.\n");
        re_episode *ep = parse_ok(b.data);
        check_kinds(ep, "S");
        CHECK(strstr(ep->items[0].text, words[w]) != NULL);
        re_episode_free(ep);
    }
    /* 240 characters of the word that aborts espeak-ng 1.51 whole, and 264 with U+00A0. */
    b.len = 0;
    big_str(&b, FM "One.\n\n");
    big_repeat(&b, "s'", 120);
    big_str(&b, "\n");
    re_episode *ep = parse_ok(b.data);
    check_kinds(ep, "SBS");
    CHECK_INT(strlen(ep->items[2].text), 240);
    re_episode_free(ep);
    b.len = 0;
    big_str(&b, FM);
    big_repeat(&b, "s's's's's's's's's's's's's's's's'\xC2\xA0", 8);
    big_str(&b, "\n");
    ep = parse_ok(b.data);
    check_kinds(ep, "S");
    re_episode_free(ep);
    /* \[ is still one '[' of the text. */
    b.len = 0;
    big_str(&b, FM "x ");
    big_repeat(&b, "\\[", 33);
    big_str(&b, "\n");
    ep = parse_ok(b.data);
    CHECK_INT(strlen(ep->items[0].text), 2 + 33);
    re_episode_free(ep);
    free(b.data);
}

/* Format 1.1: [lang TAG]...[/lang] makes its text a SPEECH item of its own with the TAG;
 * \[lang stays text. */
static void test_lang_spans(void)
{
    re_episode *ep = parse_ok(FM "The German [lang de]Guten Morgen,\n wie geht's?[/lang] ends.\n\n"
                              "[lang pt-br]Olá [pause 300ms] mundo[/lang]\n\n"
                              "Literal \\[lang de] and \\[/lang] text.\n");
    check_kinds(ep, "SSSBSPSBS");
    CHECK_STR(item(ep, 0)->text, "The German");
    CHECK(item(ep, 0)->language == NULL);
    CHECK_STR(item(ep, 1)->text, "Guten Morgen, wie geht's?");
    CHECK_STR(item(ep, 1)->language ? item(ep, 1)->language : "", "de");
    CHECK_INT(item(ep, 1)->line, 4);
    CHECK_INT(item(ep, 1)->col, 21);
    CHECK_STR(item(ep, 2)->text, "ends.");
    CHECK(item(ep, 2)->language == NULL);
    CHECK_STR(item(ep, 4)->language ? item(ep, 4)->language : "", "pt-br");
    CHECK_STR(item(ep, 6)->text, "mundo");
    CHECK_STR(item(ep, 6)->language ? item(ep, 6)->language : "", "pt-br");
    CHECK_STR(item(ep, 8)->text, "Literal [lang de] and [/lang] text.");
    CHECK(item(ep, 8)->language == NULL);
    CHECK_STR(item(ep, 1)->voice, item(ep, 0)->voice);   /* the paragraph's profile */
    re_episode_free(ep);

    /* Closing punctuation right after [/lang] is the span's, so no cue starts with it; an
     * apostrophe stays with the text after it. */
    ep = parse_ok(FM "[lang de]Guten Morgen[/lang], everyone. [lang de]Tag[/lang]\u201D. "
                     "[lang de]M\u00FCller[/lang]'s test.\n");
    check_kinds(ep, "SSSSS");
    CHECK_STR(item(ep, 0)->text, "Guten Morgen,");
    CHECK_STR(item(ep, 1)->text, "everyone.");
    CHECK_STR(item(ep, 2)->text, "Tag\u201D.");
    CHECK_STR(item(ep, 3)->text, "M\u00FCller");
    CHECK_STR(item(ep, 4)->text, "'s test.");
    re_episode_free(ep);
    expect_error(FM "E [lang de][/lang], y.\n", 4, 3, "the [lang de] span has no text");

    expect_error(FM "A [lang de]eins [lang fr]deux[/lang] drei.\n", 4, 17,
                 "'[lang fr]' is inside the [lang de] span opened at 4:3: spans do not nest");
    expect_error(FM "B [/lang] here.\n", 4, 3, "'[/lang]' closes no span");
    expect_error(FM "C [lang de]offen\n\nweiter.\n", 4, 3,
                 "the [lang de] span is not closed: end it with [/lang] in the same paragraph");
    expect_error(FM "C [lang de]offen\n# Heading\nText.\n", 4, 3, "the [lang de] span is not closed");
    expect_error(FM "D [lang ++]x[/lang] y.\n", 4, 3, "invalid language tag '++'");
    expect_error(FM "E [lang de][/lang] y.\n", 4, 3, "the [lang de] span has no text");
    expect_error(FM "F [LANG de]y[/lang].\n", 4, 3, "directive names are lowercase");
    expect_error(FM "G [lang de x]z[/lang].\n", 4, 3, "malformed language span '[lang de x]'");
    expect_error(FM "H [lang]z[/lang].\n", 4, 3, "malformed language span '[lang]'");
    expect_error(FM "I [lang de]z[/lang.\n", 4, 3, "the [lang de] span is not closed");
}

static void test_segment_limit(void)
{
    big b = { 0 };

    /* 10000 segments: 5000 words each followed by a pause, 500 per line. */
    big_str(&b, FM);
    for (int line = 0; line < 10; line++) {
        big_repeat(&b, "a [pause 1ms] ", 500);
        big_str(&b, "\n");
    }
    re_episode *ep = parse_ok(b.data);
    CHECK_INT(ep ? ep->item_count : 0, RE_SCRIPT_MAX_SEGMENTS);
    re_episode_free(ep);

    /* One more is an error at it, and the rest of the script is not read. */
    big_str(&b, "\nLast.\n\nNot read: [pause 0s]\n");
    expect_error(b.data, 15, 1, "the script has more than 10000 segments");
    free(b.data);
}

static void test_chapter_and_voice_limits(void)
{
    big b = { 0 };
    char line[64];

    big_str(&b, FM);
    for (unsigned i = 1; i <= RE_SCRIPT_MAX_CHAPTERS; i++) {
        snprintf(line, sizeof line, "# Part %u\nText.\n", i);
        big_str(&b, line);
    }
    re_episode *ep = parse_ok(b.data);
    re_episode_free(ep);
    big_str(&b, "# One too many\nText.\n");
    expect_error(b.data, 4 + 2 * RE_SCRIPT_MAX_CHAPTERS, 1, "this is chapter 256; the limit is 255");

    b.len = 0;
    big_str(&b, FM);
    for (unsigned i = 1; i < RE_SCRIPT_MAX_VOICES; i++) {   /* and "host" for the first */
        snprintf(line, sizeof line, "Hi.\n\n[voice v%u] Hi.\n\n", i);
        big_str(&b, line);
    }
    ep = parse_ok(b.data);
    CHECK_INT(ep ? ep->voice_count : 0, RE_SCRIPT_MAX_VOICES);
    re_episode_free(ep);
    big_str(&b, "[voice extra] Hi.\n\n[voice extra2] Hi.\n");
    expect_error(b.data, 4 + 4 * (RE_SCRIPT_MAX_VOICES - 1), 1,
                 "more than 64 voice profiles speak in this script");
    free(b.data);
}

static void test_pause_total_limit(void)
{
    big b = { 0 };

    /* 72 pauses of 10 minutes are 12 hours: the limit, allowed. */
    big_str(&b, FM "Hi.\n");
    big_repeat(&b, "[pause 600s]\n", 72);
    re_episode *ep = parse_ok(b.data);
    re_episode_free(ep);
    big_str(&b, "Bye. [pause 1ms]\n");
    expect_error(b.data, 4 + 1 + 72, 6, "the pauses add up to more than 12 hours here");
    free(b.data);
}

/* ---- encodings and characters ------------------------------------------------------------ */

static void test_bom_and_crlf(void)
{
    re_episode *ep = parse_ok("\xEF\xBB\xBF---\r\ntitle: T\r\n---\r\n  Hello\r\nthere\r\n\r\nBye");
    check_kinds(ep, "SBS");
    check_speech(ep, 0, "Hello there", "host", 4, 3);
    check_speech(ep, 2, "Bye", "host", 7, 1);
    re_episode_free(ep);

    /* Columns count bytes after the BOM. */
    expect_error("\xEF\xBB\xBFtitle: T\n", 1, 1, "starts with front matter");
    expect_error("\xEF\xBB\xBF--\xC0\xAF\ntitle: T\n---\nHi\n", 1, 3, "overlong encoding");
    expect_error("\xEF\xBB\xBF---\ntitle: \x01T\n---\nHi\n", 2, 8, "control character U+0001");
    expect_error(FM "Hi\rthere\n", 4, 3, "carriage return (U+000D) not followed by a line feed");
    expect_error(FM "Hi\r\r\n", 4, 3, "carriage return");
}

static void test_bad_characters(void)
{
    /* Invalid UTF-8: one error, nothing after it is looked at. */
    expect_error(FM "ab\xC0\x80 \x01\nzz [pause]\n", 4, 3, "not valid UTF-8: overlong encoding");
    expect_error("---\ntitle: \xED\xA0\x80\n---\nHi\n", 2, 8, "not valid UTF-8: surrogate");
    expect_error(FM "\xF4\x90\x80\x80\n", 4, 1, "above U+10FFFF");
    expect_error(FM "end\xE2\x82", 4, 4, "truncated sequence");
    expect_error(FM "a\x80", 4, 2, "stray continuation byte");
    char with_nul[] = FM "a\0b";
    re_episode *ep = (re_episode *)1;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("ep.txt", with_nul, sizeof with_nul - 1, &ep, &d), RE_ERR_INPUT);
    CHECK(ep == NULL);
    CHECK_INT(d.count, 1);
    CHECK(has_diag(&d, 4, 2, "NUL byte"));
    re_diagnostics_free(&d);

    /* Control characters: each is an error, and parsing goes on. */
    expect_error(FM "Hi \x01 there\n", 4, 4, "control character U+0001 is not allowed");
    expect_error(FM "Hi \x7F\n", 4, 4, "control character U+007F is not allowed");
    expect_error(FM "Hi \xC2\x85\n", 4, 4, "control character U+0085 is not allowed");
    expect_error(FM "Hi \xC2\x9F\n", 4, 4, "control character U+009F");
    expect_error(FM "Hi \x1B[0m\n", 4, 4, "control character U+001B");
    /* Messages that quote input show a control character as \uXXXX, never raw. */
    ep = (re_episode *)1;
    re_diagnostics_init(&d, 0);
    const char *esc = "---\ntitle: T\n\x1B[31mkey: v\n---\nHi [pause \x1B[2J\xC2\x9B] x\n";
    CHECK_INT(re_script_parse("ep.txt", esc, strlen(esc), &ep, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 3, 1, "unknown front-matter key '\\u001B[31mkey'"));
    CHECK(has_diag(&d, 5, 4, "malformed pause '[pause \\u001B[2J\\u009B]'"));
    for (size_t i = 0; i < d.count; i++)
        for (const char *c = d.items[i].message; *c; c++)
            CHECK((unsigned char)*c >= 0x20 && (unsigned char)*c != 0x7F);
    re_diagnostics_free(&d);
    ep = parse_ok(FM "Hi \xC2\xA0 there\n");   /* U+00A0 is a character, not a control */
    check_speech(ep, 0, "Hi \xC2\xA0 there", "host", 4, 1);
    re_episode_free(ep);
}

static void test_many_errors(void)
{
    re_episode *ep = (re_episode *)1;
    re_diagnostics d;
    const char *text = "---\n"
                       "titel: x\n"                   /* 2 */
                       "published: 2023-02-29\n"      /* 3 */
                       "episode: x\n"                 /* 4 */
                       "---\n"                        /* 5: no title */
                       "# \n"                         /* 6 */
                       "Hi \x02 [pause 0.5ms]\n"      /* 7 */
                       "more [voice guest]\n"         /* 8 */
                       "\n"
                       "# Empty\n";                   /* 10 */

    CHECK_INT(parse(text, &ep, &d), RE_ERR_INPUT);
    CHECK(ep == NULL);
    CHECK_INT(d.count, 9);
    CHECK(has_diag(&d, 7, 4, "control character U+0002"));
    CHECK(has_diag(&d, 2, 1, "did you mean 'title'?"));
    CHECK(has_diag(&d, 3, 12, "day 29 does not exist in 2023-02"));
    CHECK(has_diag(&d, 4, 10, "episode must be a whole number"));
    CHECK(has_diag(&d, 5, 1, "no title"));
    CHECK(has_diag(&d, 6, 1, "a heading needs a title"));
    CHECK(has_diag(&d, 7, 6, "pause 0.5ms is out of range"));
    CHECK(has_diag(&d, 8, 6, "must start a paragraph"));
    CHECK(has_diag(&d, 10, 1, "chapter 'Empty' has no audio"));
    re_diagnostics_free(&d);

    /* The diagnostics limit bounds the list. */
    re_diagnostics_init(&d, 3);
    CHECK_INT(re_script_parse("ep.txt", text, strlen(text), &ep, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 3);
    CHECK_INT(d.truncated, 1);
    re_diagnostics_free(&d);
}

static void test_arguments(void)
{
    re_episode *ep = NULL;
    re_diagnostics d;

    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("x", NULL, 3, &ep, &d), RE_ERR_INVALID);
    CHECK_INT(re_script_parse("x", "abc", 3, NULL, &d), RE_ERR_INVALID);
    CHECK_INT(re_script_parse("x", "abc", 3, &ep, NULL), RE_ERR_INVALID);
    CHECK_INT(re_script_parse("x", NULL, 0, &ep, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 1, 1, "starts with front matter"));
    re_episode_free(NULL);
    re_diagnostics_free(&d);
}

/* ---- files and voices ------------------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");

    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_load(void)
{
    char dir[] = "/tmp/test_script_XXXXXX", path[128], missing[128];
    re_episode *ep = NULL;
    re_diagnostics d;

    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/ep.txt", dir);
    snprintf(missing, sizeof missing, "%s/nope.txt", dir);
    write_file(path, FM "Hello from a file.\n");

    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_load(path, RE_SCRIPT_DEFAULT_MAX_SIZE, &ep, &d), RE_OK);
    CHECK_STR(ep ? ep->file : NULL, path);
    check_speech(ep, 0, "Hello from a file.", "host", 4, 1);
    re_episode_free(ep);

    CHECK_INT(re_script_load(path, 10, &ep, &d), RE_ERR_LIMIT);
    CHECK(ep == NULL);
    CHECK(has_diag(&d, 0, 0, "the limit is 10 bytes"));
    CHECK_STR(d.count ? d.items[0].file : NULL, path);

    CHECK_INT(re_script_load(missing, 100, &ep, &d), RE_ERR_READ);
    CHECK(has_diag(&d, 0, 0, "No such file or directory"));
    CHECK_INT(re_script_load(dir, 100, &ep, &d), RE_ERR_READ);
    CHECK(has_diag(&d, 0, 0, "it is a directory"));
    re_diagnostics_free(&d);

    /* Diagnostics of the script itself name the path. */
    write_file(path, FM "[pause]\n");
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_load(path, 1000, &ep, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 4, 1, "malformed pause"));
    CHECK_STR(d.count ? d.items[0].file : NULL, path);
    re_diagnostics_free(&d);
    unlink(path);
    rmdir(dir);
}

static re_voice_set *fixture_voices(void)
{
    const char *data = getenv("RE_TEST_DATA");
    char dir[1024];
    re_voice_set *set = NULL;

    CHECK_INT(re_voice_set_create(&set), RE_OK);
    snprintf(dir, sizeof dir, "%s/voices/primary", data ? data : "tests/data");
    CHECK_INT(re_voice_set_add_dir(set, dir), RE_OK);
    snprintf(dir, sizeof dir, "%s/voices/secondary", data ? data : "tests/data");
    CHECK_INT(re_voice_set_add_dir(set, dir), RE_OK);
    return set;
}

static void test_check_voices(void)
{
    re_voice_set *set = fixture_voices();
    re_diagnostics d;

    re_episode *ep = parse_ok(FM "Hi.\n\n[voice guest] Hello.\n");
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_episode_check_voices(ep, set, &d), RE_OK);
    CHECK_INT(d.count, 0);
    re_episode_free(ep);

    ep = parse_ok("---\ntitle: T\nvoice: nobody\n---\nHi.\n\n"
                  "[voice broken] One.\n\n[voice guest] Two.\n\n[voice broken] Three.\n");
    CHECK_INT(re_episode_check_voices(ep, set, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 5);
    CHECK(has_diag(&d, 3, 8, "unknown voice profile 'nobody' (looked in: "));
    CHECK(has_diag(&d, 3, 8, "voices/primary, "));
    CHECK(has_diag(&d, 3, 8, "rate 1000 is out of range"));    /* in broken.voice */
    CHECK(has_diag(&d, 4, 1, "unknown key 'pich'"));
    CHECK(has_diag(&d, 7, 1, "voice profile 'broken' is invalid (see its errors above)"));
    CHECK(has_diag(&d, 11, 1, "voice profile 'broken' is invalid"));
    if (d.count == 5) {
        CHECK_STR(d.items[0].file, "ep.txt");
        CHECK(strstr(d.items[1].file, "broken.voice") != NULL);
        CHECK_STR(d.items[3].file, "ep.txt");
    }
    re_diagnostics_free(&d);
    re_episode_free(ep);

    /* The built-in default has no place in the script: reported at 0:0. */
    re_voice_set *empty = NULL;
    CHECK_INT(re_voice_set_create(&empty), RE_OK);
    ep = parse_ok(FM "Hi.\n");
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_episode_check_voices(ep, empty, &d), RE_ERR_INPUT);
    CHECK(has_diag(&d, 0, 0, "unknown voice profile 'host' (looked in: no folders)"));
    CHECK_INT(re_episode_check_voices(NULL, empty, &d), RE_ERR_INVALID);
    re_diagnostics_free(&d);
    re_episode_free(ep);
    re_voice_set_free(empty);
    re_voice_set_free(set);
}

/* re_script_locate follows the item's text back into the script: line joins, blank runs,
 * comment lines, `\\[` and a BOM; byte columns; the item's place for a foreign buffer. */
static void test_locate(void)
{
    const char *text = "\xEF\xBB\xBF---\ntitle: T\n---\n"
                       "  First   caf\xC3\xA9 \\[x]\n"           /* line 4 */
                       "// a comment\n"
                       "\tsecond\r\n"                             /* line 6 */
                       "   text // in a line is text\n";          /* line 7 */
    re_episode *ep = parse_ok(text);
    if (!ep)
        return;
    const re_item *it = &ep->items[0];
    CHECK_STR(it->text, "First caf\xC3\xA9 [x] second text // in a line is text");
    static const struct { const char *at; unsigned line, col; } want[] = {
        { "First", 4, 3 }, { "caf", 4, 11 }, { "\xC3\xA9", 4, 14 }, { "[x]", 4, 17 },
        { "x]", 4, 19 }, { " second", 4, 21 }, { "second", 6, 2 }, { "text", 7, 4 },
        { "// in", 7, 9 }, { "is text", 7, 22 },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        unsigned line = 0, col = 0;
        re_script_locate(text, strlen(text), it, (size_t)(strstr(it->text, want[i].at) - it->text),
                         &line, &col);
        CHECK_INT(line, want[i].line);
        CHECK_INT(col, want[i].col);
    }
    unsigned line = 0, col = 0;
    const char *other = "---\ntitle: T\n---\nother words\n";
    re_script_locate(other, strlen(other), it, 6, &line, &col);
    CHECK_INT(line, it->line);
    CHECK_INT(col, it->col);
    re_episode_free(ep);
}

/* Format 1.1's sound files: [sound FILE], [sound FILE N unit], intro/outro/intro_overlap. */
static void test_sounds(void)
{
    re_episode *ep = parse_ok("---\ntitle: T\nintro: sounds/in.ogg\nintro_overlap: 1.5s\n"
                              "outro: out.wav\n---\n"
                              "# One\n"
                              "\n"
                              "[sound chime.wav]\n"
                              "\n"
                              "Hello [sound sub/sting.flac 2.5s] there.\n"
                              "\n"
                              "Write \\[sound x.wav] literally. [sound   y.wav  800 ms ]\n");
    check_kinds(ep, "CNSNSBSN");
    if (ep && ep->item_count == 8) {
        CHECK_STR(ep->intro, "sounds/in.ogg");
        CHECK_INT(ep->intro_line, 3);
        CHECK_INT(ep->intro_col, 8);
        CHECK_INT(ep->intro_overlap_us, 1500000);
        CHECK_STR(ep->outro, "out.wav");
        CHECK_INT(ep->outro_line, 5);
        CHECK_STR(ep->items[1].text, "chime.wav");
        CHECK_INT(ep->items[1].pause_us, 0);
        CHECK_INT(ep->items[1].line, 9);
        CHECK_INT(ep->items[1].col, 1);
        CHECK_STR(ep->items[3].text, "sub/sting.flac");
        CHECK_INT(ep->items[3].pause_us, 2500000);
        CHECK_INT(ep->items[3].col, 7);
        /* a sound-only paragraph is like a pause-only one: no BREAK around it; a sound inside
         * a paragraph splits it like a pause */
        check_speech(ep, 2, "Hello", "host", 11, 1);
        check_speech(ep, 4, "there.", "host", 11, 35);
        check_speech(ep, 6, "Write [sound x.wav] literally.", "host", 13, 1);
        CHECK_STR(ep->items[7].text, "y.wav");
        CHECK_INT(ep->items[7].pause_us, 800000);
    }
    re_episode_free(ep);

    expect_error(FM "Hi [sound] there.\n", 4, 4, "malformed sound '[sound]': no file");
    expect_error(FM "Hi [sound x.wav there.\n", 4, 4, "unexpected text before ']'");
    expect_error(FM "Hi [sound x.wav 2.5s there.\n", 4, 4, "no closing ']'");
    expect_error(FM "Hi [sound my file.wav] there.\n", 4, 4, "a file name cannot hold blanks");
    expect_error(FM "Hi [sound x.wav 2 min] there.\n", 4, 4, "the unit must be ms or s");
    expect_error(FM "Hi [sound x.wav 0s] there.\n", 4, 4, "sound cut 0s is out of range");
    expect_error(FM "Hi [sound x.wav 0.0000001s] there.\n", 4, 4, "sound cut 0.0000001s is not exact");
    expect_error(FM "Hi [SOUND x.wav] there.\n", 4, 4, "directive names are lowercase");
    expect_error("---\ntitle: T\nintro_overlap: 1s\n---\nHi.\n", 3, 16, "intro_overlap needs an intro");
    expect_error("---\ntitle: T\nintro: a.wav\nintro_overlap: 1.5\n---\nHi.\n", 4, 16,
                 "intro_overlap '1.5' is not a duration: no unit");
    expect_error("---\ntitle: T\nintro: a.wav\nintro_overlap: 1s later\n---\nHi.\n", 4, 16,
                 "unexpected text after the unit");
    expect_error("---\ntitle: T\nintro: a.wav\nintro_overlap: 601s\n---\nHi.\n", 4, 16,
                 "intro_overlap 601s is out of range");
    expect_error(FM "[sound x.wav]\n", 4, 1, "the script has no spoken text");

    /* sound_gap: a duration as a pause writes it, 0s (no gap) to 600s; 250 ms when absent */
    ep = parse_ok(FM "Hi.\n");
    if (ep)
        CHECK_INT(ep->sound_gap_us, 250000);
    re_episode_free(ep);
    const char *const gaps[][2] = { { "0.5s", "500000" }, { "0s", "0" }, { "0ms", "0" },
                                    { "80ms", "80000" }, { "600s", "600000000" },
                                    { "0.25 s", "250000" }, { "1.000001s", "1000001" } };
    for (size_t k = 0; k < sizeof gaps / sizeof gaps[0]; k++) {
        char text[128];
        snprintf(text, sizeof text, "---\ntitle: T\nsound_gap: %s\n---\nHi.\n", gaps[k][0]);
        ep = parse_ok(text);
        if (ep) {
            CHECK_INT(ep->sound_gap_us, strtoull(gaps[k][1], NULL, 10));
            CHECK_INT(ep->sound_gap_line, 3);
            CHECK_INT(ep->sound_gap_col, 12);
        }
        re_episode_free(ep);
    }
    expect_error("---\ntitle: T\nsound_gap: 1.5\n---\nHi.\n", 3, 12,
                 "sound_gap '1.5' is not a duration: no unit (ms or s); write e.g. 0.5s, 250ms or 0s");
    expect_error("---\ntitle: T\nsound_gap: 601s\n---\nHi.\n", 3, 12,
                 "sound_gap 601s is out of range: 0s to 600s (10 minutes)");
    expect_error("---\ntitle: T\nsound_gap: 600.001s\n---\nHi.\n", 3, 12,
                 "sound_gap 600.001s is out of range");
    expect_error("---\ntitle: T\nsound_gap: -1s\n---\nHi.\n", 3, 12,
                 "sound_gap '-1s' is not a duration: the duration must be a plain number");
    expect_error("---\ntitle: T\nsound_gap: 0.5s later\n---\nHi.\n", 3, 12,
                 "sound_gap '0.5s later' is not a duration: unexpected text after the unit");
    expect_error("---\ntitle: T\nsound_gap: 2 min\n---\nHi.\n", 3, 12,
                 "sound_gap '2 min' is not a duration: the unit must be ms or s");
    expect_error("---\ntitle: T\nsound_gap: 0.0000001s\n---\nHi.\n", 3, 12,
                 "sound_gap 0.0000001s is not exact: it is more precise than 1 microsecond");
    expect_error("---\ntitle: T\nsound_gap: 1s\nsound_gap: 2s\n---\nHi.\n", 4, 1,
                 "duplicate front-matter key 'sound_gap' (first set on line 3)");
    expect_error("---\ntitle: T\nsound_gap:\n---\nHi.\n", 3, 1,
                 "front-matter key 'sound_gap' has no value");
    expect_error("---\ntitle: T\nsound_gaps: 1s\n---\nHi.\n", 3, 1,
                 "unknown front-matter key 'sound_gaps' (did you mean 'sound_gap'?)");
    expect_error(FM "Hi.\n\n[voice guest] [sound x.wav]\n\n[sound y.wav] [voice guest] Hi.\n", 8, 15,
                 "is not at the start of its paragraph");
    /* [sounds] and [sound-effect] are text */
    ep = parse_ok(FM "The [sounds], [soundx.wav] and [sound-effect] stay.\n");
    check_kinds(ep, "S");
    re_episode_free(ep);
    /* a heading before a sound-only paragraph has audio */
    ep = parse_ok(FM "Hi.\n\n# Jingle\n\n[sound j.wav]\n");
    check_kinds(ep, "SCN");
    re_episode_free(ep);
}

int main(void)
{
    test_front_matter_full();
    test_front_matter_defaults();
    test_front_matter_errors();
    test_front_matter_values();
    test_music_bed();
    test_published();
    test_paragraphs();
    test_literal_text();
    test_headings();
    test_pauses();
    test_breaks_and_pause_paragraphs();
    test_voices();
    test_paragraph_limit();
    test_line_limit();
    test_long_words_kept();
    test_lang_spans();
    test_segment_limit();
    test_chapter_and_voice_limits();
    test_pause_total_limit();
    test_no_speech();
    test_bom_and_crlf();
    test_bad_characters();
    test_many_errors();
    test_arguments();
    test_load();
    test_check_voices();
    test_locate();
    test_sounds();
    return check_finish("test_script");
}
