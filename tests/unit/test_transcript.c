/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_transcript.c - timed transcripts: cue times in exact milliseconds (rounded down, hours
 * rolling over), WebVTT escaping and <v> speaker tags, SRT, the Podcasting 2.0 JSON; each
 * format also read by a parser we did not write (ffprobe/ffmpeg for WebVTT and SRT, python3's
 * json); and the cues built from the timeline: one per sentence at character (not byte)
 * positions, long sentences split at word events, the engine's words mapped back to the
 * script's. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "testdir.h"
#include "testkit.h"
#include "testrun.h"
#include "normalize.h"
#include "transcript.h"

#define RATE 22050u

static char dir[256];

/* The first sample whose time, rounded down, is `ms` milliseconds. */
static uint64_t at_ms(uint64_t ms)
{
    return (ms * RATE + 999) / 1000;
}

typedef re_status (*writer)(FILE *, const re_transcript *);

static char *write_to_memory(writer w, const re_transcript *t, re_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = w(f, t);
    fclose(f);
    return buf;
}

/* Writes the transcript to dir/name; returns the malloc'ed path. */
static char *write_to_file(writer w, const re_transcript *t, const char *name)
{
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        abort();
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK_INT(w(f, t), RE_OK);
        CHECK(fclose(f) == 0);
    }
    return path;
}

/* ---- cues and times ----------------------------------------------------------------------- */

static void test_add_and_times(void)
{
    re_transcript t;
    re_transcript_init(&t, RATE);
    CHECK_INT(t.sample_rate, RATE);
    CHECK_INT(re_transcript_add(&t, 0, 22049, NULL, "one"), RE_OK);
    CHECK_INT(re_transcript_add(&t, 22049, 22050, "Host", "touching the one before"), RE_OK);
    CHECK_INT(re_transcript_add(&t, 22049, 30000, NULL, "overlapping"), RE_ERR_INVALID);
    CHECK_INT(re_transcript_add(&t, 40000, 39999, NULL, "ends before it starts"), RE_ERR_INVALID);
    CHECK_INT(re_transcript_add(&t, 40000, 40000, NULL, "empty"), RE_OK);
    CHECK_INT(t.count, 3);
    /* strings are copied */
    char text[] = "mutable";
    CHECK_INT(re_transcript_add(&t, 50000, 60000, NULL, text), RE_OK);
    text[0] = 'X';
    CHECK_STR(t.cues[3].text, "mutable");
    CHECK_STR(t.cues[1].speaker, "Host");
    CHECK(t.cues[0].speaker == NULL);
    /* the first cue opens a block (a paragraph of the script); then only the first cue
     * after re_transcript_start_block */
    CHECK_INT(t.cues[0].opens_block, 1);
    CHECK_INT(t.cues[1].opens_block, 0);
    re_transcript_start_block(&t);
    re_transcript_start_block(&t);   /* twice: still one block */
    CHECK_INT(re_transcript_add(&t, 60000, 60100, NULL, "two"), RE_OK);
    CHECK_INT(re_transcript_add(&t, 60100, 60200, NULL, "three"), RE_OK);
    CHECK_INT(t.cues[3].opens_block, 0);
    CHECK_INT(t.cues[4].opens_block, 1);
    CHECK_INT(t.cues[5].opens_block, 0);

    /* milliseconds rounded down */
    CHECK_INT(re_cue_start_ms(&t, &t.cues[0]), 0);
    CHECK_INT(re_cue_end_ms(&t, &t.cues[0]), 999);
    CHECK_INT(re_cue_end_ms(&t, &t.cues[1]), 1000);
    CHECK_INT(re_cue_start_ms(&t, &t.cues[3]), 2267);   /* 50000 / 22.05 = 2267.57 */
    CHECK_INT(re_cue_end_ms(&t, &t.cues[3]), 2721);     /* 60000 / 22.05 = 2721.09 */
    re_transcript_free(&t);
    CHECK_INT(t.count, 0);
    CHECK(t.cues == NULL);
}

/* The transcript that the writers below are judged on. */
static void sample_transcript(re_transcript *t, int speakers)
{
    re_transcript_init(t, RATE);
    const char *host = speakers ? "Host" : NULL, *guest = speakers ? "Guest <b> & co" : NULL;
    CHECK_INT(re_transcript_add(t, 0, 22049, host, "Hello & welcome <friends>."), RE_OK);
    CHECK_INT(re_transcript_add(t, at_ms(61001), at_ms(119999), guest, "a --> b, \"quoted\" – café"),
              RE_OK);
    CHECK_INT(re_transcript_add(t, at_ms(3599999), at_ms(3600000), host, "across the hour"), RE_OK);
    CHECK_INT(re_transcript_add(t, at_ms(36000000 + 59 * 60000 + 59999), at_ms(360000000), host,
                                "ten hours and more"), RE_OK);
}

static void test_vtt(void)
{
    re_transcript t;
    sample_transcript(&t, 0);
    re_status st;
    char *vtt = write_to_memory(re_transcript_write_vtt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(vtt,
              "WEBVTT\n"
              "\n"
              "1\n"
              "00:00:00.000 --> 00:00:00.999\n"
              "Hello &amp; welcome &lt;friends&gt;.\n"
              "\n"
              "2\n"
              "00:01:01.001 --> 00:01:59.999\n"
              "a --&gt; b, \"quoted\" – café\n"
              "\n"
              "3\n"
              "00:59:59.999 --> 01:00:00.000\n"
              "across the hour\n"
              "\n"
              "4\n"
              "10:59:59.999 --> 100:00:00.000\n"
              "ten hours and more\n");
    free(vtt);
    re_transcript_free(&t);

    /* speaker turns: <v Name>, the name escaped like the text */
    sample_transcript(&t, 1);
    vtt = write_to_memory(re_transcript_write_vtt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK(strstr(vtt, "\n00:00:00.000 --> 00:00:00.999\n<v Host>Hello &amp; welcome &lt;friends&gt;.\n\n"));
    CHECK(strstr(vtt, "\n<v Guest &lt;b&gt; &amp; co>a --&gt; b, \"quoted\" – café\n\n"));
    CHECK(strstr(vtt, "\n<v Host>across the hour\n"));
    free(vtt);
    re_transcript_free(&t);

    /* no cues: the header alone */
    re_transcript_init(&t, RATE);
    vtt = write_to_memory(re_transcript_write_vtt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(vtt, "WEBVTT\n");
    free(vtt);
    re_transcript_free(&t);
}

static void test_srt(void)
{
    re_transcript t;
    sample_transcript(&t, 1);
    re_status st;
    char *srt = write_to_memory(re_transcript_write_srt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(srt,
              "1\n"
              "00:00:00,000 --> 00:00:00,999\n"
              "Host: Hello & welcome < friends>.\n"   /* ffmpeg would drop <friends> */
              "\n"
              "2\n"
              "00:01:01,001 --> 00:01:59,999\n"
              "Guest < b> & co: a --> b, \"quoted\" – café\n"
              "\n"
              "3\n"
              "00:59:59,999 --> 01:00:00,000\n"
              "Host: across the hour\n"
              "\n"
              "4\n"
              "10:59:59,999 --> 100:00:00,000\n"
              "Host: ten hours and more\n");
    free(srt);
    re_transcript_free(&t);

    re_transcript_init(&t, RATE);
    srt = write_to_memory(re_transcript_write_srt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(srt, "");
    free(srt);
    re_transcript_free(&t);
}

static void test_json(void)
{
    re_transcript t;
    sample_transcript(&t, 1);
    free(t.cues[1].speaker);   /* one cue without a speaker */
    t.cues[1].speaker = NULL;
    re_status st;
    char *text = write_to_memory(re_transcript_write_json, &t, &st);
    CHECK_INT(st, RE_OK);
    size_t len = strlen(text);
    CHECK(len > 0 && text[len - 1] == '\n');
    json_error_t err;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &err);
    CHECK(json_is_object(root));
    if (root) {
        CHECK_INT(json_object_size(root), 2);
        CHECK_STR(json_string_value(json_object_get(root, "version")), "1.0.0");
        json_t *segs = json_object_get(root, "segments");
        CHECK(json_is_array(segs) && json_array_size(segs) == 4);
        static const double starts[] = { 0.0, 61.001, 3599.999, 39599.999 };
        static const double ends[] = { 0.999, 119.999, 3600.0, 360000.0 };
        for (size_t i = 0; i < 4 && i < json_array_size(segs); i++) {
            json_t *s = json_array_get(segs, i);
            CHECK(json_is_real(json_object_get(s, "startTime")));
            CHECK(json_real_value(json_object_get(s, "startTime")) == starts[i]);
            CHECK(json_real_value(json_object_get(s, "endTime")) == ends[i]);
            CHECK_STR(json_string_value(json_object_get(s, "body")), t.cues[i].text);
            CHECK_INT(json_object_size(s), t.cues[i].speaker ? 4 : 3);   /* no "speaker": null */
        }
        CHECK_STR(json_string_value(json_object_get(json_array_get(segs, 1), "body")),
                  "a --> b, \"quoted\" – café");
        CHECK_STR(json_string_value(json_object_get(json_array_get(segs, 0), "speaker")), "Host");
        CHECK(json_object_get(json_array_get(segs, 1), "speaker") == NULL);
    }
    json_decref(root);
    free(text);

    /* python3's json reads the same values */
    char *path = write_to_file(re_transcript_write_json, &t, "ep.transcript.json");
    char *argv[] = { "/usr/bin/python3", "-c",
                     "import json, sys\n"
                     "d = json.load(open(sys.argv[1], encoding='utf-8'))\n"
                     "assert d['version'] == '1.0.0'\n"
                     "for s in d['segments']:\n"
                     "    print(s.get('speaker'), repr(s['startTime']), repr(s['endTime']), s['body'], sep='|')\n",
                     path, NULL };
    bytes out;
    CHECK_INT(run_capture(argv, &out), 0);
    CHECK_STR((char *)out.data,
              "Host|0.0|0.999|Hello & welcome <friends>.\n"
              "None|61.001|119.999|a --> b, \"quoted\" – café\n"
              "Host|3599.999|3600.0|across the hour\n"
              "Host|39599.999|360000.0|ten hours and more\n");
    free(out.data);
    free(path);
    re_transcript_free(&t);
}

/* ffprobe's packets of a subtitle file: "pts,duration" lines in ms (its time base is 1/1000). */
static char *ffprobe_times(const char *path)
{
    char *argv[] = { "ffprobe", "-v", "error", "-show_entries", "packet=pts,duration", "-of",
                     "csv=p=0", (char *)path, NULL };
    bytes out;
    if (run_capture(argv, &out) != 0) {
        free(out.data);
        return NULL;
    }
    /* keep "pts,duration" only (WebVTT packets carry a side-data column) */
    char *lines = calloc(1, out.len + 1), *w = lines;
    for (char *line = strtok((char *)out.data, "\n"); line; line = strtok(NULL, "\n")) {
        long long pts, duration;
        if (sscanf(line, "%lld,%lld", &pts, &duration) == 2)
            w += sprintf(w, "%lld,%lld\n", pts, duration);
    }
    free(out.data);
    return lines;
}

/* What ffmpeg decodes a subtitle file to, written back as `format`. */
static char *ffmpeg_text(const char *path, const char *format)
{
    char *argv[] = { "ffmpeg", "-nostdin", "-v", "error", "-i", (char *)path, "-f", (char *)format,
                     "-", NULL };
    bytes out;
    if (run_capture(argv, &out) != 0) {
        free(out.data);
        return NULL;
    }
    return (char *)out.data;
}

static void test_independent_parsers(void)
{
    re_transcript t;
    re_transcript_init(&t, RATE);
    CHECK_INT(re_transcript_add(&t, 0, 22049, "Host", "x < y & z --> w <care> <-b> </i> <a x=1>"), RE_OK);
    CHECK_INT(re_transcript_add(&t, at_ms(61001), at_ms(119999), "Guest", "café – \"quoted\""), RE_OK);
    CHECK_INT(re_transcript_add(&t, at_ms(3599999), at_ms(3601500), "Host", "across the hour"), RE_OK);
    const char *times = "0,999\n61001,58998\n3599999,1501\n";

    /* WebVTT: ffprobe's cue times; ffmpeg's decoding of our escapes and <v> tags */
    char *vtt = write_to_file(re_transcript_write_vtt, &t, "ep.vtt");
    char *got = ffprobe_times(vtt);
    CHECK_STR(got, times);
    free(got);
    got = ffmpeg_text(vtt, "srt");
    CHECK_STR(got,
              "1\n00:00:00,000 --> 00:00:00,999\nx < y & z --> w <care> <-b> </i> <a x=1>\n\n"
              "2\n00:01:01,001 --> 00:01:59,999\ncafé – \"quoted\"\n\n"
              "3\n00:59:59,999 --> 01:00:01,500\nacross the hour\n\n");
    free(got);

    /* SRT: the same times, the speaker as a prefix of the text */
    char *srt = write_to_file(re_transcript_write_srt, &t, "ep.srt");
    got = ffprobe_times(srt);
    CHECK_STR(got, times);
    free(got);
    got = ffmpeg_text(srt, "srt");
    CHECK_STR(got,
              "1\n00:00:00,000 --> 00:00:00,999\nHost: x < y & z --> w < care> <-b> < /i> < a x=1>\n\n"
              "2\n00:01:01,001 --> 00:01:59,999\nGuest: café – \"quoted\"\n\n"
              "3\n00:59:59,999 --> 01:00:01,500\nHost: across the hour\n\n");
    free(got);
    free(vtt);
    free(srt);
    re_transcript_free(&t);
}

/* ---- cues from the timeline ----------------------------------------------------------------- */

static void test_build_sentences(void)
{
    re_transcript_segment segments[] = {
        { "Hello world. Ça va? Très bien.", NULL },
        { "Guest here.", "Guest" },
    };
    /* text_pos counts characters from 1: "Ça" is the 14th, "Très" the 21st (Ç and à are one
     * character each but two bytes) */
    re_sentence_span sentences[] = {
        { 0, 1, 100, 5000 },
        { 0, 14, 8000, 12000 },
        { 0, 21, 15000, 20000 },
        { 1, 1, 30000, 30000 },   /* no time: no cue */
        { 1, 1, 31000, 40000 },
    };
    re_transcript t;
    re_transcript_init(&t, RATE);
    CHECK_INT(re_transcript_build(&t, sentences, 5, NULL, 0, segments, 2), RE_OK);
    CHECK_INT(t.count, 4);
    if (t.count == 4) {
        CHECK_STR(t.cues[0].text, "Hello world.");
        CHECK_STR(t.cues[1].text, "Ça va?");
        CHECK_STR(t.cues[2].text, "Très bien.");
        CHECK_STR(t.cues[3].text, "Guest here.");
        CHECK_INT(t.cues[0].start, 100);
        CHECK_INT(t.cues[0].end, 5000);
        CHECK_INT(t.cues[2].start, 15000);
        CHECK_INT(t.cues[2].end, 20000);
        CHECK(t.cues[1].speaker == NULL);
        CHECK_STR(t.cues[3].speaker, "Guest");
        CHECK_INT(t.cues[3].start, 31000);
    }
    re_transcript_free(&t);

    /* a sentence of a segment that does not exist */
    re_transcript_init(&t, RATE);
    re_sentence_span stray = { 2, 1, 0, 100 };
    CHECK_INT(re_transcript_build(&t, &stray, 1, NULL, 0, segments, 2), RE_ERR_INVALID);
    re_transcript_free(&t);
}

/* Word events for every word of text (segment 0), the k-th at start + step * k. */
static size_t word_events(const char *text, uint64_t start, uint64_t step, re_timed_event *out,
                          size_t max)
{
    size_t n = 0;
    uint32_t pos = 1;   /* characters from 1 (the text is ASCII) */
    for (const char *p = text; *p && n < max;) {
        while (*p == ' ') {
            p++;
            pos++;
        }
        if (!*p)
            break;
        size_t len = strcspn(p, " ");
        out[n] = (re_timed_event){ RE_EVENT_WORD, start + step * n, pos, (uint32_t)len, 0 };
        n++;
        p += len;
        pos += (uint32_t)len;
    }
    return n;
}

static void check_split(const char *text, size_t expect_lines)
{
    re_timed_event events[64];
    size_t n = word_events(text, 1000, 500, events, 64);
    re_sentence_span s = { 0, 1, 1000, 1000 + 500 * n };
    re_transcript_segment seg = { text, "Host" };
    re_transcript t;
    re_transcript_init(&t, RATE);
    CHECK_INT(re_transcript_build(&t, &s, 1, events, n, &seg, 1), RE_OK);
    CHECK_INT(t.count, expect_lines);
    char joined[1024] = "";
    for (size_t i = 0; i < t.count; i++) {
        const re_cue *c = &t.cues[i];
        CHECK(strlen(c->text) <= RE_CUE_MAX_LINE);
        CHECK(c->text[0] != ' ' && c->text[strlen(c->text) - 1] != ' ');
        CHECK_STR(c->speaker, "Host");
        /* each line starts at its first word's event, where the line before it ends */
        size_t offset = i ? strlen(joined) + 1 : 0;   /* of this line in the text */
        uint64_t expect_start = s.start;
        for (size_t k = 0; i && k < n; k++)
            if (events[k].text_pos - 1 == offset)
                expect_start = events[k].sample;
        CHECK(i == 0 || expect_start != s.start);     /* a line starts at a word */
        CHECK_INT(c->start, expect_start);
        CHECK_INT(c->end, i + 1 < t.count ? t.cues[i + 1].start : s.end);
        if (i)
            strcat(joined, " ");
        strcat(joined, c->text);
    }
    CHECK_STR(joined, text);
    /* balanced: no line is shorter than half of what an even split would give */
    for (size_t i = 0; t.count > 1 && i < t.count; i++)
        CHECK(strlen(t.cues[i].text) * 2 * t.count >= strlen(text));
    re_transcript_free(&t);
}

static void test_build_long_sentences(void)
{
    /* 65 characters exactly: one line */
    check_split("alpha bravo charlie delta echo foxtrot golf hotel india juliet ki", 1);
    /* 97 characters: two lines */
    check_split("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
                "november oscar papa", 2);
    /* 178 characters: three lines */
    check_split("one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
                "fifteen sixteen seventeen eighteen nineteen twenty twenty-one twenty-two "
                "twenty-three twenty-four", 3);
}

/* The engine spoke the normalized text; the cues show the script's, at the engine's times. */
static void test_add_spoken(void)
{
    const char *script = "See PR 189759 now. And C++ too.";
    re_spoken spoken;
    CHECK_INT(re_normalize_spans(NULL, script, &spoken), RE_OK);
    /* PR is a dictionary word (wamerican lists it): the engine is given it as written */
    CHECK_STR(spoken.text, "See PR one eight nine seven five nine now. And C plus plus too.");
    /* engine positions in the spoken text: "And" is its 44th character */
    re_sentence_span sentences[] = { { 3, 1, 2000, 90000 }, { 3, 44, 100000, 150000 } };
    re_timed_event events[] = {
        { RE_EVENT_SENTENCE, 2000, 1, 0, 3 },
        { RE_EVENT_WORD, 2000, 1, 3, 3 },      /* See */
        { RE_EVENT_WORD, 20000, 5, 3, 3 },     /* PR */
        { RE_EVENT_WORD, 40000, 8, 3, 3 },     /* one */
        { RE_EVENT_WORD, 80000, 39, 3, 3 },    /* now. */
        { RE_EVENT_WORD, 100000, 44, 3, 3 },   /* And */
    };
    re_transcript t;
    re_transcript_init(&t, RATE);
    CHECK_INT(re_transcript_add_spoken(&t, sentences, 2, events, 6, &spoken, script, "Host"), RE_OK);
    CHECK_INT(t.count, 2);
    if (t.count == 2) {
        CHECK_STR(t.cues[0].text, "See PR 189759 now.");
        CHECK_STR(t.cues[1].text, "And C++ too.");
        CHECK_INT(t.cues[0].start, 2000);
        CHECK_INT(t.cues[0].end, 90000);
        CHECK_INT(t.cues[1].start, 100000);
        CHECK_INT(t.cues[1].end, 150000);
        CHECK_STR(t.cues[1].speaker, "Host");
    }
    re_transcript_free(&t);
    re_spoken_free(&spoken);
}

/* Emoji are not heard: the transcript files leave them out (a cue of emoji only too), with
 * the blank around them; the cue itself keeps the written text, for the page. */
static void test_emoji_not_in_files(void)
{
    re_transcript t;
    re_transcript_init(&t, 1000);
    CHECK_INT(re_transcript_add(&t, 0, 1000, NULL, "CHANGES WITH 252 \xF0\x9F\x8E\x83: all good "
                                "\xE2\x9C\x85 now."), RE_OK);
    CHECK_INT(re_transcript_add(&t, 1000, 1500, NULL, "\xF0\x9F\x8E\x89"), RE_OK);
    CHECK_INT(re_transcript_add(&t, 1500, 2000, NULL, "\xE2\x9A\xA0\xEF\xB8\x8F fixed"
                                "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBDnow \xF0\x9F\x91\x8B"), RE_OK);
    re_status st;
    char *vtt = write_to_memory(re_transcript_write_vtt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(vtt, "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.000\nCHANGES WITH 252 : all good now.\n"
                   "\n2\n00:00:01.500 --> 00:00:02.000\nfixednow\n");
    char *srt = write_to_memory(re_transcript_write_srt, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(srt, "1\n00:00:00,000 --> 00:00:01,000\nCHANGES WITH 252 : all good now.\n"
                   "\n2\n00:00:01,500 --> 00:00:02,000\nfixednow\n");
    char *json = write_to_memory(re_transcript_write_json, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK(json && strstr(json, "\"body\": \"CHANGES WITH 252 : all good now.\"") != NULL);
    CHECK(json && strstr(json, "\"body\": \"fixednow\"") != NULL);
    CHECK(json && strstr(json, "\xF0\x9F") == NULL && strstr(json, "\\ud83c") == NULL);
    CHECK(json && strstr(json, "startTime\": 1.0,") == NULL);   /* the cue of emoji only */
    CHECK_STR(t.cues[0].text, "CHANGES WITH 252 \xF0\x9F\x8E\x83: all good \xE2\x9C\x85 now.");
    free(vtt);
    free(srt);
    free(json);
    re_transcript_free(&t);
}

int main(void)
{
    if (test_temp_dir(dir, sizeof dir, "transcript") != 0)
        return 1;
    test_add_and_times();
    test_vtt();
    test_srt();
    test_json();
    test_emoji_not_in_files();
    test_independent_parsers();
    test_build_sentences();
    test_build_long_sentences();
    test_add_spoken();
    test_remove_tree(dir);
    return check_finish("test_transcript");
}
