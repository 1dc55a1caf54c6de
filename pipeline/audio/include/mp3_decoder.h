/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_decoder.h - the one MP3 reader: libmpg123 set up the way this program reads MP3s (check's
 * length measurement, the loudness stage's peaks and loudness, sound files), behind an opaque
 * handle; mp3_decoder.c is the only file that calls libmpg123. Gapless, so the LAME tag's
 * delay and padding are removed as ffmpeg removes them; silent; every rate libmpg123 knows,
 * mono or stereo, each file keeping its own; the sample type the caller asks for.
 *
 * Life cycle: re_mp3_reader_open (on an fd) -> re_mp3_reader_format (reads up to the first
 * frame and checks it) -> optionally re_mp3_reader_seek -> re_mp3_reader_each (every decoded
 * frame through a callback) or re_mp3_reader_read (samples into a buffer) -> the queries, at
 * any point after the format -> re_mp3_reader_close (always, also after a failure). One
 * reader belongs to one thread; several readers may share one fd (each reads with pread at
 * its own position). The file must not change while a reader is open on it. */
#ifndef RE_MP3_DECODER_H
#define RE_MP3_DECODER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "status.h"

typedef struct re_mp3_reader re_mp3_reader;

typedef enum re_mp3_samples {
    RE_MP3_INT16,   /* signed 16-bit, native endian (check's sample count) */
    RE_MP3_FLOAT    /* 32-bit float, full scale 1.0: overshoots above it are kept, not clipped */
} re_mp3_samples;

/* Flags for re_mp3_reader_open. RE_MP3_NO_RESYNC: a stream that loses its frames ends in an
 * error instead of libmpg123 searching on for something that looks like one. */
#define RE_MP3_NO_RESYNC 1u

/* A reader of the open file fd, `size` bytes, from offset 0; fd's own offset is left alone
 * (the render measures a stream it still holds: fflush it first). The fd stays the caller's.
 * RE_ERR_NOMEM; RE_ERR_FORMAT when libmpg123 refuses the setup ("cannot set up the MP3
 * decoder: REASON" in diag, which may be NULL); RE_ERR_READ when libmpg123 cannot open the
 * stream ("cannot read: REASON"). The reader knows no file: its messages have none
 * (re_diag_place). On failure *out is NULL. */
re_status re_mp3_reader_open(int fd, off_t size, re_mp3_samples samples, unsigned flags,
                             re_mp3_reader **out, re_diagnostics *diag);

/* Frees the reader (NULL is allowed). RE_ERR_READ, with "cannot close: REASON" in diag (may be
 * NULL), when libmpg123 reports an error closing the stream; RE_OK otherwise. */
re_status re_mp3_reader_close(re_mp3_reader *r, re_diagnostics *diag);

/* The stream's output format and first frame, read by re_mp3_reader_format. */
typedef struct re_mp3_format {
    long rate;                    /* Hz */
    int channels;                 /* 1 or 2 */
    int mpeg_version;             /* 1, 2, or 25 (MPEG 2.5) */
    int layer;                    /* 1, 2 or 3 */
    unsigned samples_per_frame;   /* of a layer III frame: 1152 for MPEG-1, else 576 */
} re_mp3_format;

typedef enum re_mp3_format_problem {
    RE_MP3_FORMAT_OK,
    RE_MP3_NO_FRAME,    /* no complete MPEG audio frame: empty, random bytes, another format,
                         * or a read error (re_mp3_reader_read_errno) */
    RE_MP3_NO_INFO,     /* libmpg123 gives no frame information (re_mp3_reader_strerror) */
    RE_MP3_NOT_LAYER3,  /* MPEG audio, but layer I or II (fmt->layer) */
    RE_MP3_UNUSABLE     /* no rate, channels other than 1 or 2, or not the asked samples */
} re_mp3_format_problem;

/* Reads up to the first frame and checks that it is MPEG layer III with 1 or 2 channels in
 * the reader's sample type. Fills *fmt as far as it got. */
re_mp3_format_problem re_mp3_reader_format(re_mp3_reader *r, re_mp3_format *fmt);

/* What re_mp3_reader_each hands its callback: one decoded MPEG frame, or the news that the
 * output format changes before the next one (new_format 1, no samples). */
typedef struct re_mp3_block {
    const unsigned char *pcm;  /* interleaved samples of the reader's type */
    size_t bytes;
    off_t frame;               /* the MPEG frame's number, from 0 */
    int new_format;
    long rate;                 /* new_format: the new rate and channels, 0 when libmpg123 */
    int channels;              /* cannot say */
} re_mp3_block;

/* Returns 0 to go on, anything else to stop. */
typedef int (*re_mp3_block_fn)(void *user, const re_mp3_block *block);

typedef enum re_mp3_end {
    RE_MP3_END_DONE,     /* the end of the stream */
    RE_MP3_END_STOPPED,  /* the callback asked to stop */
    RE_MP3_END_ERROR     /* libmpg123 could not decode on: re_mp3_reader_strerror says why (or
                          * re_mp3_reader_read_errno, for a read error) */
} re_mp3_end;

/* Decodes frame by frame from where the reader stands, handing each to block(). */
re_mp3_end re_mp3_reader_each(re_mp3_reader *r, re_mp3_block_fn block, void *user);

typedef enum re_mp3_read {
    RE_MP3_READ_OK,          /* `bytes` filled, or the stream paused short of it (*got) */
    RE_MP3_READ_DONE,        /* the end of the stream: *got bytes, maybe 0 */
    RE_MP3_READ_NEW_FORMAT,  /* the frames change rate or channels: nothing more is read */
    RE_MP3_READ_ERROR        /* libmpg123 could not decode on (re_mp3_reader_strerror) */
} re_mp3_read;

/* Up to `bytes` bytes of decoded interleaved samples into out; *got says how many came. */
re_mp3_read re_mp3_reader_read(re_mp3_reader *r, void *out, size_t bytes, size_t *got);

/* Moves to gapless sample `sample` (from the stream's start). RE_OK when the reader stands
 * exactly there; RE_ERR_FORMAT otherwise (re_mp3_reader_strerror). */
re_status re_mp3_reader_seek(re_mp3_reader *r, int64_t sample);

/* ---- Queries --------------------------------------------------------------------------- */
/* The errno of a failed read of the file, 0 if none failed: a decoding error with it set is
 * a read error. */
int re_mp3_reader_read_errno(const re_mp3_reader *r);
/* libmpg123's reason for the last thing that failed (a static string). */
const char *re_mp3_reader_strerror(re_mp3_reader *r);
/* Gapless samples per channel in the stream as its Xing/LAME tag (or, without one, libmpg123's
 * estimate) says; -1 when unknown. */
int64_t re_mp3_reader_length(re_mp3_reader *r);
/* The LAME tag's encoder delay in samples; -1 when the stream has no LAME tag. */
long re_mp3_reader_encoder_delay(re_mp3_reader *r);
/* MPEG frames the stream holds, from its Xing/LAME tag (or libmpg123's estimate); -1 when
 * unknown. */
int64_t re_mp3_reader_frame_count(re_mp3_reader *r);
/* MPEG frames decoded so far. */
int64_t re_mp3_reader_frames_decoded(re_mp3_reader *r);
/* The file offset of the frame parsed last (-1 when unknown), and its size in bytes (0 when
 * unknown). */
off_t re_mp3_reader_frame_offset(re_mp3_reader *r);
long re_mp3_reader_frame_bytes(re_mp3_reader *r);
/* Calls text() with each text of the leading ID3v2 tag's frames named `id` (four characters:
 * "TLEN"), in the tag's order; stops at the first status other than RE_OK and returns it.
 * RE_OK when the stream has no such tag or frame. Read after re_mp3_reader_format. */
typedef re_status (*re_mp3_text_fn)(void *user, const char *text, size_t len);
re_status re_mp3_reader_each_text(re_mp3_reader *r, const char *id, re_mp3_text_fn text,
                                  void *user);

#endif
