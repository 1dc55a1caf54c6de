/* SPDX-License-Identifier: GPL-3.0-or-later */
/* id3.h - builds the ID3v2.3 tag at the head of our MP3s: UTF-16 text frames, TLEN, TRCK,
 * COMM, TSSE, the cover art (APIC), and CHAP/CTOC chapter frames (id3.org ID3v2 Chapter Frame Addendum), which
 * LAME cannot write. Pure: bytes in memory, no I/O. */
#ifndef RE_ID3_H
#define RE_ID3_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct re_id3_chapter {
    const char *title;       /* UTF-8; becomes the CHAP's TIT2 sub-frame */
    uint32_t start_ms;
    uint32_t end_ms;
} re_id3_chapter;

/* Every string is UTF-8 (validated by the caller) or NULL to leave its frame out. Text frames
 * are written as UTF-16 with a byte-order mark (encoding 1), so any Unicode reads back exactly. */
typedef struct re_id3_fields {
    const char *title;             /* TIT2 */
    const char *artist;            /* TPE1 */
    const char *album;             /* TALB */
    const char *published;         /* ISO 8601 date or date-time: TYER (YYYY), TDAT (DDMM) and,
                                    * with a time of day, TIME (HHMM). Accepted: YYYY-MM-DD
                                    * [THH:MM[:SS[.frac]][Z|+HH:MM|-HH:MM]]. ID3v2.3 has no time
                                    * zone, so TDAT/TIME hold the wall-clock digits as written
                                    * and the offset is checked, then dropped (not converted). */
    const char *genre;             /* TCON */
    const char *comment;           /* COMM, language "eng", empty description */
    const char *encoder_settings;  /* TSSE */
    uint64_t length_ms;            /* TLEN, written always, as decimal milliseconds */
    long track;                    /* TRCK, decimal, when > 0 (the script's `episode:`) */
    const re_id3_chapter *chapters;/* CHAP frames with element ids "chp0", "chp1", ... and one */
    size_t chapter_count;          /* top-level ordered CTOC "toc" listing them; none if 0.
                                    * At most 255 (CTOC's one-byte entry count); each chapter
                                    * needs start_ms <= end_ms; a NULL title leaves out its TIT2. */
    const unsigned char *picture;  /* APIC, picture type 3 (front cover), the bytes as given, */
    size_t picture_len;            /* when picture_len > 0; picture_mime is "image/jpeg" or */
    const char *picture_mime;      /* "image/png" (else RE_ERR_INVALID); empty description */
} re_id3_fields;

/* Builds a complete tag (10-byte header + frames, no padding, no unsynchronisation, no
 * extended header). *out is malloc'ed and owned by the caller. Deterministic: the same
 * fields give the same bytes. RE_ERR_INVALID for fields that cannot be represented
 * (a date that is not ISO 8601, a tag over 256 MiB).
 * Frame order: TIT2 TPE1 TALB TYER TDAT TIME TCON COMM TLEN TSSE TRCK CTOC CHAP... APIC;
 * every text
 * (also TLEN and the dates) is encoding 1: BOM FF FE, UTF-16LE, 00 00 terminator.
 * RE_ERR_INVALID also for a string that is not strict UTF-8, and for the chapter rules above;
 * RE_ERR_NOMEM if memory runs out. On error *out is NULL. */
re_status re_id3_build(const re_id3_fields *fields, unsigned char **out, size_t *out_len);

#endif
