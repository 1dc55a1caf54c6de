/* SPDX-License-Identifier: GPL-3.0-or-later */
/* id3.c - builds our ID3v2.3.0 tag in memory: UTF-16 text frames, COMM, TLEN, TSSE, TRCK, the
 * CHAP/CTOC chapter frames of the id3.org Chapter Frame Addendum and the cover art (APIC). */
#include "id3.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datetime.h"
#include "utf8.h"

/* The header's size field is a 28-bit syncsafe integer that excludes the 10 header bytes. */
#define ID3_HEADER_LEN 10u
#define ID3_FRAME_HEADER_LEN 10u
#define ID3_MAX_BODY 0x0FFFFFFFu
/* CTOC stores its entry count in one byte. */
#define ID3_MAX_CHAPTERS 255u

#define ID3_ENCODING_UTF16_BOM 1u
#define ID3_ENCODING_LATIN1 0u
/* APIC's picture type for the front cover (ID3v2.3 section 4.15). */
#define ID3_PICTURE_FRONT_COVER 0x03u

/* A growing byte buffer. The first error sticks; later appends do nothing. */
typedef struct tag_buffer {
    unsigned char *bytes;
    size_t len;
    size_t capacity;
    re_status status;
} tag_buffer;

/* Makes room for `extra` more bytes, refusing to grow past the largest legal tag. */
static int tag_reserve(tag_buffer *b, size_t extra)
{
    if (b->status != RE_OK)
        return 0;
    if (extra > ID3_HEADER_LEN + ID3_MAX_BODY - b->len) {
        b->status = RE_ERR_INVALID;
        return 0;
    }
    size_t need = b->len + extra;
    if (need <= b->capacity)
        return 1;
    size_t capacity = b->capacity ? b->capacity : 256;
    while (capacity < need)
        capacity *= 2;
    if (capacity > ID3_HEADER_LEN + ID3_MAX_BODY)
        capacity = ID3_HEADER_LEN + ID3_MAX_BODY;
    unsigned char *bytes = realloc(b->bytes, capacity);
    if (!bytes) {
        b->status = RE_ERR_NOMEM;
        return 0;
    }
    b->bytes = bytes;
    b->capacity = capacity;
    return 1;
}

static void tag_put(tag_buffer *b, const void *data, size_t len)
{
    if (!tag_reserve(b, len))
        return;
    memcpy(b->bytes + b->len, data, len);
    b->len += len;
}

static void tag_put_byte(tag_buffer *b, unsigned value)
{
    unsigned char byte = (unsigned char)value;
    tag_put(b, &byte, 1);
}

static void put_be32(unsigned char *at, uint32_t value)
{
    at[0] = (unsigned char)(value >> 24);
    at[1] = (unsigned char)(value >> 16);
    at[2] = (unsigned char)(value >> 8);
    at[3] = (unsigned char)value;
}

static void tag_put_be32(tag_buffer *b, uint32_t value)
{
    unsigned char bytes[4];
    put_be32(bytes, value);
    tag_put(b, bytes, sizeof bytes);
}

/* Size of text as UTF-16 with BOM and a 2-byte terminator; 0 if text is not strict UTF-8
 * (utf8.h: no overlongs, surrogates, values above U+10FFFF or truncation). */
static size_t utf16_size(const char *text)
{
    size_t len = strlen(text), size = 4;
    if (!re_utf8_check(text, len, NULL, NULL))
        return 0;
    for (const char *s = text, *end = text + len; s < end;) {
        uint32_t cp;
        s += re_utf8_decode(s, end, &cp);
        size += cp > 0xFFFF ? 4 : 2;
    }
    return size;
}

/* Appends text as BOM FF FE, UTF-16LE code units (surrogate pairs above U+FFFF), 00 00.
 * The text must have passed utf16_size. */
static void tag_put_utf16(tag_buffer *b, const char *text)
{
    tag_put_byte(b, 0xFF);
    tag_put_byte(b, 0xFE);
    for (const char *s = text, *end = text + strlen(text); s < end;) {
        uint32_t cp;
        s += re_utf8_decode(s, end, &cp);
        if (cp > 0xFFFF) {
            uint32_t v = cp - 0x10000;
            uint32_t high = 0xD800 | (v >> 10), low = 0xDC00 | (v & 0x3FF);
            unsigned char unit[4] = { (unsigned char)high, (unsigned char)(high >> 8),
                                      (unsigned char)low, (unsigned char)(low >> 8) };
            tag_put(b, unit, 4);
        } else {
            unsigned char unit[2] = { (unsigned char)cp, (unsigned char)(cp >> 8) };
            tag_put(b, unit, 2);
        }
    }
    tag_put_byte(b, 0);
    tag_put_byte(b, 0);
}

/* Starts a frame with a size placeholder; returns the offset of the frame header. */
static size_t frame_begin(tag_buffer *b, const char id[4])
{
    size_t start = b->len;
    tag_put(b, id, 4);
    tag_put_be32(b, 0);
    tag_put_byte(b, 0);    /* status flags */
    tag_put_byte(b, 0);    /* format flags */
    return start;
}

/* Patches the size of the frame begun at `start` (the size excludes the frame header). */
static void frame_end(tag_buffer *b, size_t start)
{
    if (b->status != RE_OK)
        return;
    put_be32(b->bytes + start + 4, (uint32_t)(b->len - start - ID3_FRAME_HEADER_LEN));
}

#define NO_FRAME ((size_t)-1)

/* Starts frame `id` for `text` (UTF-16 with BOM) after `fields` bytes of other fields, and
 * writes its encoding byte; NO_FRAME when there is no text or the tag has failed. */
static size_t begin_text_frame(tag_buffer *b, const char id[4], const char *text, size_t fields)
{
    if (!text || b->status != RE_OK)
        return NO_FRAME;
    size_t size = utf16_size(text);
    if (size == 0) {
        b->status = RE_ERR_INVALID;
        return NO_FRAME;
    }
    if (!tag_reserve(b, ID3_FRAME_HEADER_LEN + 1 + fields + size))
        return NO_FRAME;
    size_t start = frame_begin(b, id);
    tag_put_byte(b, ID3_ENCODING_UTF16_BOM);
    return start;
}

/* A text information frame (or, with the same layout, a CHAP's TIT2 sub-frame). */
static void put_text_frame(tag_buffer *b, const char id[4], const char *text)
{
    size_t start = begin_text_frame(b, id, text, 0);
    if (start == NO_FRAME)
        return;
    tag_put_utf16(b, text);
    frame_end(b, start);
}

static void put_comment_frame(tag_buffer *b, const char *text)
{
    size_t start = begin_text_frame(b, "COMM", text, 3 + 4);
    if (start == NO_FRAME)
        return;
    tag_put(b, "eng", 3);
    tag_put_utf16(b, "");    /* the empty description: BOM + terminator */
    tag_put_utf16(b, text);
    frame_end(b, start);
}

static void put_ctoc_frame(tag_buffer *b, size_t chapter_count)
{
    size_t start = frame_begin(b, "CTOC");
    tag_put(b, "toc", 4);       /* element id with its NUL */
    tag_put_byte(b, 0x03);      /* top-level + ordered */
    tag_put_byte(b, (unsigned)chapter_count);
    for (size_t i = 0; i < chapter_count; i++) {
        char id[32];
        int n = snprintf(id, sizeof id, "chp%zu", i);
        tag_put(b, id, (size_t)n + 1);
    }
    frame_end(b, start);
}

static void put_chap_frame(tag_buffer *b, size_t index, const re_id3_chapter *chapter)
{
    char id[32];
    int n = snprintf(id, sizeof id, "chp%zu", index);
    size_t start = frame_begin(b, "CHAP");
    tag_put(b, id, (size_t)n + 1);
    tag_put_be32(b, chapter->start_ms);
    tag_put_be32(b, chapter->end_ms);
    tag_put_be32(b, 0xFFFFFFFFu);    /* byte offsets unused: times are authoritative */
    tag_put_be32(b, 0xFFFFFFFFu);
    put_text_frame(b, "TIT2", chapter->title);
    frame_end(b, start);
}

/* APIC: encoding 0 (the description is empty), the MIME type and its NUL, the picture type,
 * the empty description's NUL, then the picture's bytes as they are. */
static void put_picture_frame(tag_buffer *b, const char *mime, const unsigned char *picture,
                              size_t len)
{
    size_t mime_len = strlen(mime) + 1;
    if (!tag_reserve(b, ID3_FRAME_HEADER_LEN + 1 + mime_len + 2 + len))
        return;
    size_t start = frame_begin(b, "APIC");
    tag_put_byte(b, ID3_ENCODING_LATIN1);
    tag_put(b, mime, mime_len);
    tag_put_byte(b, ID3_PICTURE_FRONT_COVER);
    tag_put_byte(b, 0);
    tag_put(b, picture, len);
    frame_end(b, start);
}

typedef struct published_date {
    char year[5];    /* TYER "YYYY" */
    char date[5];    /* TDAT "DDMM" */
    char time[5];    /* TIME "HHMM", empty without a time of day */
} published_date;

/* The script's `published` (datetime.h; a zone is optional here). The offset is validated and
 * then ignored: TDAT and TIME carry the wall-clock digits as written, because ID3v2.3 has no
 * field for a time zone. */
static int parse_published(const char *text, published_date *out)
{
    re_datetime t;
    char reason[128];
    if (re_datetime_parse(text, strlen(text), RE_DATETIME_ZONE_OPTIONAL, &t, reason, sizeof reason))
        return 0;
    snprintf(out->year, sizeof out->year, "%04d", t.year);
    snprintf(out->date, sizeof out->date, "%02d%02d", t.day, t.month);
    out->time[0] = '\0';
    if (t.has_time)
        snprintf(out->time, sizeof out->time, "%02d%02d", t.hour, t.minute);
    return 1;
}

re_status re_id3_build(const re_id3_fields *fields, unsigned char **out, size_t *out_len)
{
    tag_buffer b = { NULL, 0, 0, RE_OK };
    published_date published;

    if (!fields || !out || !out_len)
        return RE_ERR_INVALID;
    *out = NULL;
    *out_len = 0;
    if (fields->chapter_count > 0 && !fields->chapters)
        return RE_ERR_INVALID;
    if (fields->chapter_count > ID3_MAX_CHAPTERS)
        return RE_ERR_INVALID;
    for (size_t i = 0; i < fields->chapter_count; i++) {
        if (fields->chapters[i].start_ms > fields->chapters[i].end_ms)
            return RE_ERR_INVALID;
    }
    if (fields->published && !parse_published(fields->published, &published))
        return RE_ERR_INVALID;
    if (fields->picture_len > 0
        && (!fields->picture || !fields->picture_mime
            || (strcmp(fields->picture_mime, "image/jpeg") != 0
                && strcmp(fields->picture_mime, "image/png") != 0)))
        return RE_ERR_INVALID;

    tag_put(&b, "ID3", 3);
    tag_put_byte(&b, 3);    /* version 2.3.0 */
    tag_put_byte(&b, 0);
    tag_put_byte(&b, 0);    /* flags: no unsynchronisation, no extended header */
    tag_put_be32(&b, 0);    /* size, patched below */

    put_text_frame(&b, "TIT2", fields->title);
    put_text_frame(&b, "TPE1", fields->artist);
    put_text_frame(&b, "TALB", fields->album);
    if (fields->published) {
        put_text_frame(&b, "TYER", published.year);
        put_text_frame(&b, "TDAT", published.date);
        if (published.time[0])
            put_text_frame(&b, "TIME", published.time);
    }
    put_text_frame(&b, "TCON", fields->genre);
    put_comment_frame(&b, fields->comment);
    {
        char length[24];
        snprintf(length, sizeof length, "%llu", (unsigned long long)fields->length_ms);
        put_text_frame(&b, "TLEN", length);
    }
    put_text_frame(&b, "TSSE", fields->encoder_settings);
    if (fields->track > 0) {
        char track[24];
        snprintf(track, sizeof track, "%ld", fields->track);
        put_text_frame(&b, "TRCK", track);
    }
    if (fields->chapter_count > 0) {
        put_ctoc_frame(&b, fields->chapter_count);
        for (size_t i = 0; i < fields->chapter_count; i++)
            put_chap_frame(&b, i, &fields->chapters[i]);
    }
    if (fields->picture_len > 0)
        put_picture_frame(&b, fields->picture_mime, fields->picture, fields->picture_len);

    if (b.status != RE_OK) {
        free(b.bytes);
        return b.status;
    }
    size_t body = b.len - ID3_HEADER_LEN;    /* <= ID3_MAX_BODY, enforced by tag_reserve */
    b.bytes[6] = (unsigned char)((body >> 21) & 0x7F);
    b.bytes[7] = (unsigned char)((body >> 14) & 0x7F);
    b.bytes[8] = (unsigned char)((body >> 7) & 0x7F);
    b.bytes[9] = (unsigned char)(body & 0x7F);
    *out = b.bytes;
    *out_len = b.len;
    return RE_OK;
}
