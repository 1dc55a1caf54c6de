/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_id3.c - byte-level checks of the ID3v2.3 tag from re_id3_build: header, syncsafe size,
 * frame order and sizes, UTF-16 text decoded back by the test's own decoder, COMM, CTOC and
 * CHAP layout, date handling and refusals. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "id3.h"

/* A picture's bytes, as given: APIC copies them, whatever they are. */
#define PICTURE "\x89PNG\r\n\x1a\n\0\0\0\rIHDR fake"
#define TITLE "Caf\xC3\xA9 \xE2\x80\x93 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x8E\xA7"

typedef struct frame {
    char id[5];
    const unsigned char *body;
    size_t size;
} frame;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Splits frames[start, end) into at most max frames; returns the count, or -1 if a frame
 * header is malformed or runs past the end. */
static int split_frames(const unsigned char *p, size_t len, frame *frames, int max)
{
    int count = 0;
    size_t at = 0;
    while (at < len) {
        if (len - at < 10 || count == max)
            return -1;
        uint32_t size = be32(p + at + 4);
        if (p[at + 8] != 0 || p[at + 9] != 0 || size > len - at - 10)
            return -1;
        memcpy(frames[count].id, p + at, 4);
        frames[count].id[4] = '\0';
        frames[count].body = p + at + 10;
        frames[count].size = size;
        count++;
        at += 10 + size;
    }
    return count;
}

/* Decodes BOM + UTF-16LE up to a 00 00 terminator into UTF-8 (out holds 512 bytes). Returns
 * the bytes consumed including the terminator, or 0 on any malformation. */
static size_t decode_utf16(const unsigned char *p, size_t len, char *out)
{
    size_t at = 2, used = 0;
    if (len < 4 || p[0] != 0xFF || p[1] != 0xFE)
        return 0;
    for (;;) {
        if (len - at < 2)
            return 0;
        uint32_t cp = p[at] | (uint32_t)p[at + 1] << 8;
        at += 2;
        if (cp == 0)
            break;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (len - at < 2)
                return 0;
            uint32_t low = p[at] | (uint32_t)p[at + 1] << 8;
            if (low < 0xDC00 || low > 0xDFFF)
                return 0;
            at += 2;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return 0;
        }
        if (used + 5 > 512)
            return 0;
        if (cp < 0x80) {
            out[used++] = (char)cp;
        } else if (cp < 0x800) {
            out[used++] = (char)(0xC0 | cp >> 6);
            out[used++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[used++] = (char)(0xE0 | cp >> 12);
            out[used++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[used++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[used++] = (char)(0xF0 | cp >> 18);
            out[used++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            out[used++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[used++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[used] = '\0';
    return at;
}

/* The text of a text frame body: encoding 1, one terminated UTF-16 string filling the body. */
static const char *text_of(const frame *f, char *out)
{
    if (f->size < 1 || f->body[0] != 1)
        return NULL;
    size_t used = decode_utf16(f->body + 1, f->size - 1, out);
    if (used == 0 || used != f->size - 1)
        return NULL;
    return out;
}

static const frame *find(const frame *frames, int count, const char *id)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(frames[i].id, id) == 0)
            return &frames[i];
    }
    return NULL;
}

/* Builds a tag and splits it; returns the frame count or -1. */
static int build_and_split(const re_id3_fields *fields, unsigned char **tag, size_t *len,
                           frame *frames, int max)
{
    re_status st = re_id3_build(fields, tag, len);
    CHECK_INT(st, RE_OK);
    if (st != RE_OK)
        return -1;
    CHECK(*len >= 10);
    CHECK(memcmp(*tag, "ID3\x03\x00\x00", 6) == 0);
    CHECK(((*tag)[6] | (*tag)[7] | (*tag)[8] | (*tag)[9]) < 0x80);
    size_t body = (size_t)(*tag)[6] << 21 | (size_t)(*tag)[7] << 14 | (size_t)(*tag)[8] << 7 |
                  (*tag)[9];
    CHECK_INT(body, *len - 10);
    return split_frames(*tag + 10, *len - 10, frames, max);
}

static void test_full_tag(void)
{
    static const re_id3_chapter chapters[] = {
        { "Intro", 0, 1500 },
        { "\xC3\x9C" "ber \xF0\x9F\x8E\xA7", 1500, 61000 },
        { "End", 61000, 62345 },
    };
    re_id3_fields f = {
        .title = TITLE, .artist = "Render Bot", .album = "Weekly", .published =
        "2026-07-14T13:00:41Z", .genre = "Podcast", .comment = "Line one\nline two \xE2\x9C\x93",
        .encoder_settings = "LAME 3.100, 64 kbps CBR, mono, 22050 Hz", .length_ms = 62345,
        .chapters = chapters, .chapter_count = 3, .track = 42,
        .picture = (const unsigned char *)PICTURE, .picture_len = sizeof PICTURE - 1,
        .picture_mime = "image/png",
    };
    unsigned char *tag = NULL;
    size_t len = 0;
    frame frames[32];
    char text[512];
    int n = build_and_split(&f, &tag, &len, frames, 32);

    static const char *const order[] = { "TIT2", "TPE1", "TALB", "TYER", "TDAT", "TIME", "TCON",
                                         "COMM", "TLEN", "TSSE", "TRCK", "CTOC", "CHAP", "CHAP",
                                         "CHAP", "APIC" };
    CHECK_INT(n, 16);
    for (int i = 0; i < n && i < 16; i++)
        CHECK_STR(frames[i].id, order[i]);
    if (n != 16)
        goto done;

    CHECK_STR(text_of(&frames[0], text), TITLE);
    /* The headphones U+1F3A7 as the surrogate pair D83C DFA7, little-endian, then 00 00. */
    CHECK(frames[0].size >= 6 &&
          memcmp(frames[0].body + frames[0].size - 6, "\x3C\xD8\xA7\xDF\x00\x00", 6) == 0);
    /* "Café": BOM, C 00 a 00 f 00 E9 00 */
    CHECK(memcmp(frames[0].body, "\x01\xFF\xFE" "C\0a\0f\0\xE9\0", 11) == 0);
    CHECK_INT(frames[0].size, 1 + 2 + 2 * 11 + 4 + 2);
    CHECK_STR(text_of(&frames[1], text), "Render Bot");
    CHECK_STR(text_of(&frames[2], text), "Weekly");
    CHECK_STR(text_of(&frames[3], text), "2026");
    CHECK_STR(text_of(&frames[4], text), "1407");
    CHECK_STR(text_of(&frames[5], text), "1300");
    CHECK_STR(text_of(&frames[6], text), "Podcast");
    CHECK_STR(text_of(&frames[8], text), "62345");
    CHECK_STR(text_of(&frames[9], text), "LAME 3.100, 64 kbps CBR, mono, 22050 Hz");

    /* COMM: encoding 1, "eng", empty description (BOM + terminator), then the text. */
    const frame *comm = &frames[7];
    CHECK(comm->size > 8 && memcmp(comm->body, "\x01" "eng" "\xFF\xFE\x00\x00", 8) == 0);
    if (comm->size > 8) {
        size_t used = decode_utf16(comm->body + 8, comm->size - 8, text);
        CHECK_INT(used, comm->size - 8);
        CHECK_STR(used ? text : NULL, "Line one\nline two \xE2\x9C\x93");
    }

    /* CTOC: "toc" NUL, flags top-level|ordered, 3 entries, child ids, no sub-frames. */
    static const unsigned char ctoc[] = "toc\0\x03\x03" "chp0\0chp1\0chp2";
    CHECK_INT(frames[11].size, sizeof ctoc);
    CHECK(frames[11].size == sizeof ctoc && memcmp(frames[11].body, ctoc, sizeof ctoc) == 0);
    CHECK_STR(text_of(&frames[10], text), "42");

    /* APIC: encoding 0, "image/png" NUL, type 3 (front cover), empty description, the bytes. */
    static const char apic_head[] = "\0image/png\0\x03";   /* its NUL: the description's */
    const frame *apic = &frames[15];
    CHECK_INT(apic->size, sizeof apic_head + sizeof PICTURE - 1);
    CHECK(apic->size == sizeof apic_head + sizeof PICTURE - 1
          && memcmp(apic->body, apic_head, sizeof apic_head) == 0
          && memcmp(apic->body + sizeof apic_head, PICTURE, sizeof PICTURE - 1) == 0);

    for (int i = 0; i < 3; i++) {
        const frame *chap = &frames[12 + i];
        char id[8];
        snprintf(id, sizeof id, "chp%d", i);
        CHECK(chap->size > 21);
        if (chap->size <= 21)
            continue;
        CHECK(memcmp(chap->body, id, 5) == 0);
        CHECK_INT(be32(chap->body + 5), chapters[i].start_ms);
        CHECK_INT(be32(chap->body + 9), chapters[i].end_ms);
        CHECK_INT(be32(chap->body + 13), 0xFFFFFFFFu);
        CHECK_INT(be32(chap->body + 17), 0xFFFFFFFFu);
        frame sub[4];
        int subs = split_frames(chap->body + 21, chap->size - 21, sub, 4);
        CHECK_INT(subs, 1);
        if (subs == 1) {
            CHECK_STR(sub[0].id, "TIT2");
            CHECK_STR(text_of(&sub[0], text), chapters[i].title);
        }
    }

    /* Deterministic: the same fields give the same bytes. */
    unsigned char *again = NULL;
    size_t again_len = 0;
    CHECK_INT(re_id3_build(&f, &again, &again_len), RE_OK);
    CHECK(again && again_len == len && memcmp(again, tag, len) == 0);
    free(again);
done:
    free(tag);
}

static void test_bad_picture(void)
{
    unsigned char *tag = NULL;
    size_t len = 0;
    re_id3_fields f = { .picture = (const unsigned char *)PICTURE, .picture_len = 4,
                        .picture_mime = "image/gif" };
    CHECK_INT(re_id3_build(&f, &tag, &len), RE_ERR_INVALID);
    CHECK(tag == NULL);
    f.picture_mime = NULL;
    CHECK_INT(re_id3_build(&f, &tag, &len), RE_ERR_INVALID);
    f.picture_mime = "image/jpeg";
    f.picture = NULL;
    CHECK_INT(re_id3_build(&f, &tag, &len), RE_ERR_INVALID);
    f.picture_len = 0;     /* no picture: no APIC, nothing else to check */
    CHECK_INT(re_id3_build(&f, &tag, &len), RE_OK);
    free(tag);
}

static void test_minimal_tag(void)
{
    re_id3_fields f = { 0 };
    unsigned char *tag = NULL;
    size_t len = 0;
    frame frames[4];
    char text[512];
    int n = build_and_split(&f, &tag, &len, frames, 4);
    CHECK_INT(n, 1);
    if (n == 1) {
        CHECK_STR(frames[0].id, "TLEN");
        CHECK_STR(text_of(&frames[0], text), "0");
    }
    CHECK_INT(len, 10 + 10 + 1 + 2 + 2 + 2);
    free(tag);

    /* A large TLEN stays exact. */
    f.length_ms = 18446744073709551615u;
    n = build_and_split(&f, &tag, &len, frames, 4);
    CHECK_INT(n, 1);
    if (n == 1)
        CHECK_STR(text_of(&frames[0], text), "18446744073709551615");
    free(tag);
}

/* Checks the TYER/TDAT/TIME frames made from `published`; time NULL = no TIME frame. */
static void check_date(const char *published, const char *year, const char *date,
                       const char *time)
{
    re_id3_fields f = { .published = published };
    unsigned char *tag = NULL;
    size_t len = 0;
    frame frames[8];
    char text[512];
    int n = build_and_split(&f, &tag, &len, frames, 8);
    CHECK_INT(n, time ? 4 : 3);
    if (n >= 3) {
        const frame *tyer = find(frames, n, "TYER"), *tdat = find(frames, n, "TDAT");
        const frame *tim = find(frames, n, "TIME");
        CHECK_STR(tyer ? text_of(tyer, text) : NULL, year);
        CHECK_STR(tdat ? text_of(tdat, text) : NULL, date);
        if (time)
            CHECK_STR(tim ? text_of(tim, text) : NULL, time);
        else
            CHECK(tim == NULL);
    }
    free(tag);
}

static void check_refused(const re_id3_fields *f, const char *what)
{
    unsigned char *tag = (unsigned char *)"not touched";
    size_t len = 99;
    re_status st = re_id3_build(f, &tag, &len);
    if (st != RE_ERR_INVALID)
        fprintf(stderr, "not refused: %s\n", what);
    CHECK_INT(st, RE_ERR_INVALID);
    CHECK(tag == NULL);
    CHECK_INT(len, 0);
}

static void test_dates(void)
{
    check_date("2026-07-14", "2026", "1407", NULL);
    check_date("2026-07-14T13:00:41Z", "2026", "1407", "1300");
    check_date("2026-07-14T13:00", "2026", "1407", "1300");
    /* Wall-clock digits as written: no conversion to UTC. */
    check_date("2026-01-02T23:59:59.123+05:30", "2026", "0201", "2359");
    check_date("2026-12-31T23:30:00-05:00", "2026", "3112", "2330");
    check_date("2024-02-29", "2024", "2902", NULL);
    check_date("2000-02-29T00:00:00Z", "2000", "2902", "0000");

    static const char *const bad[] = {
        "", "2026", "2026-07", "2026-7-14", "2026-07-14 13:00", "2026-07-14T13", "2026-07-14T",
        "2026-13-01", "2026-00-10", "2026-07-00", "2026-07-32", "2026-02-29", "1900-02-29",
        "2026-04-31", "2026-07-14T24:00", "2026-07-14T13:60", "2026-07-14T13:00:61",
        "2026-07-14T13:00:00.", "2026-07-14T13:00Zjunk", "2026-07-14T13:00:00+0530",
        "2026-07-14T13:00:00+24:00", "2026-07-14x", "20260714", "2026-07-14T13:00:00z",
        "\xEF\xBC\x92" "026-07-14",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        re_id3_fields f = { .published = bad[i] };
        check_refused(&f, bad[i]);
    }
}

static void test_refusals(void)
{
    static const char *const bad_utf8[] = {
        "\xC0\xAF",             /* overlong '/' */
        "\xE0\x80\xAF",         /* overlong, 3 bytes */
        "\xED\xA0\x80",         /* lone surrogate U+D800 */
        "ab\xE6\x97",           /* truncated */
        "\xF4\x90\x80\x80",     /* above U+10FFFF */
        "\xF5\x80\x80\x80",
        "\x80",                 /* stray continuation byte */
        "\xFF",
    };
    for (size_t i = 0; i < sizeof bad_utf8 / sizeof bad_utf8[0]; i++) {
        re_id3_fields f = { .title = bad_utf8[i] };
        check_refused(&f, "bad UTF-8 title");
        re_id3_fields g = { .comment = bad_utf8[i] };
        check_refused(&g, "bad UTF-8 comment");
        re_id3_chapter chapter = { bad_utf8[i], 0, 1 };
        re_id3_fields h = { .chapters = &chapter, .chapter_count = 1 };
        check_refused(&h, "bad UTF-8 chapter title");
    }

    re_id3_fields no_chapters = { .chapter_count = 2 };
    check_refused(&no_chapters, "chapter_count without chapters");
    re_id3_chapter backwards = { "x", 2000, 1000 };
    re_id3_fields reversed = { .chapters = &backwards, .chapter_count = 1 };
    check_refused(&reversed, "start after end");

    unsigned char *tag;
    size_t len;
    CHECK_INT(re_id3_build(NULL, &tag, &len), RE_ERR_INVALID);
    re_id3_fields empty = { 0 };
    CHECK_INT(re_id3_build(&empty, NULL, &len), RE_ERR_INVALID);
    CHECK_INT(re_id3_build(&empty, &tag, NULL), RE_ERR_INVALID);
}

static void test_chapter_limits(void)
{
    re_id3_chapter *chapters = calloc(256, sizeof *chapters);
    CHECK(chapters != NULL);
    if (!chapters)
        return;
    for (unsigned i = 0; i < 256; i++) {
        chapters[i].start_ms = i * 1000;
        chapters[i].end_ms = i * 1000 + 1000;
    }
    /* A NULL title leaves out the TIT2 sub-frame. */
    re_id3_fields f = { .chapters = chapters, .chapter_count = 255 };
    unsigned char *tag = NULL;
    size_t len = 0;
    static frame frames[300];
    int n = build_and_split(&f, &tag, &len, frames, 300);
    CHECK_INT(n, 1 + 1 + 255);
    if (n == 257) {
        CHECK_STR(frames[1].id, "CTOC");
        CHECK_INT(frames[1].body[5], 255);
        CHECK(memcmp(frames[1].body + frames[1].size - 7, "chp254", 7) == 0);
        CHECK_STR(frames[256].id, "CHAP");
        CHECK_INT(frames[256].size, 7 + 16);
        CHECK(memcmp(frames[256].body, "chp254", 7) == 0);
        CHECK_INT(be32(frames[256].body + 7), 254000);
    }
    free(tag);
    f.chapter_count = 256;
    check_refused(&f, "256 chapters");
    free(chapters);
}

static void test_size_limit(void)
{
    /* 128 MiB of ASCII becomes 256 MiB of UTF-16: more than a syncsafe size can hold. */
    size_t n = (size_t)128 << 20;
    char *huge = malloc(n + 1);
    CHECK(huge != NULL);
    if (!huge)
        return;
    memset(huge, 'a', n);
    huge[n] = '\0';
    re_id3_fields f = { .title = huge };
    check_refused(&f, "a 256 MiB title");
    free(huge);
}

int main(void)
{
    test_full_tag();
    test_minimal_tag();
    test_bad_picture();
    test_dates();
    test_refusals();
    test_chapter_limits();
    test_size_limit();
    return check_finish("test_id3");
}
