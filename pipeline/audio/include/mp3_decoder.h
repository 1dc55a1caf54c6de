/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_decoder.h - a libmpg123 decoder set up the way this program reads MP3s (check's
 * duration measurement, the loudness stage's peaks and loudness): gapless, so the LAME tag's
 * delay and padding are removed as ffmpeg removes them; silent; every rate libmpg123 knows,
 * mono or stereo, each file keeping its own; one sample encoding for all.
 *
 * Life cycle: re_mp3_decoder_open (on an fd, through a re_mp3_source) -> re_mp3_decoder_format
 * (reads up to the first frame and checks it) -> optionally mpg123_seek -> re_mp3_decoder_each
 * (every decoded frame through a callback) -> mpg123_close + mpg123_delete. */
#ifndef RE_MP3_DECODER_H
#define RE_MP3_DECODER_H

#include <stddef.h>
#include <sys/types.h>

#include <mpg123.h>

#include "status.h"

/* A new handle decoding to `encoding` (MPG123_ENC_SIGNED_16, MPG123_ENC_FLOAT_32, ...), not
 * yet opened on anything; free it with mpg123_delete. RE_ERR_NOMEM, or RE_ERR_FORMAT when
 * libmpg123 refuses the setup, with "cannot set up the MP3 decoder: REASON" in diag (may be
 * NULL). The decoder knows no file: its messages have none (re_diag_place). */
re_status re_mp3_decoder_new(int encoding, mpg123_handle **out, re_diagnostics *diag);

#define RE_MP3_SOURCE_AHEAD 32768

/* An open file read with pread at this source's own position, so that several decoders (one
 * per thread) can share one fd. Fill fd and size (bytes); everything else starts at 0. error
 * is the errno of a failed read: a decoding error with it set is a read error. libmpg123
 * reads a frame as two small reads (its header, then its body: about 200 bytes at 64 kbps),
 * so the source reads ahead RE_MP3_SOURCE_AHEAD bytes at a time (one system call where there
 * were about 300); the file must not change while it is decoded. */
typedef struct re_mp3_source {
    int fd;
    off_t pos;
    off_t size;
    int error;
    off_t ahead_at;                            /* file offset of ahead[0] */
    size_t ahead_len;                          /* bytes of ahead[] that are the file's */
    unsigned char ahead[RE_MP3_SOURCE_AHEAD];
} re_mp3_source;

/* re_mp3_decoder_new, then opened on src, which must outlive the handle's use. Failures as
 * re_mp3_decoder_new, and RE_ERR_READ ("cannot read: REASON" in diag) when libmpg123 cannot
 * open the stream. */
re_status re_mp3_decoder_open(int encoding, re_mp3_source *src, mpg123_handle **out,
                              re_diagnostics *diag);

/* The same with more libmpg123 flags (MPG123_NO_RESYNC: a stream that loses its frames ends
 * in an error instead of libmpg123 searching on for something that looks like one). */
re_status re_mp3_decoder_open_flags(int encoding, long flags, re_mp3_source *src,
                                    mpg123_handle **out, re_diagnostics *diag);

/* The stream's output format and first frame, read by re_mp3_decoder_format. */
typedef struct re_mp3_format {
    long rate;                      /* Hz */
    int channels;                   /* 1 or 2 */
    int encoding;
    struct mpg123_frameinfo2 info;  /* of the first frame: version, layer, ... */
} re_mp3_format;

typedef enum re_mp3_format_problem {
    RE_MP3_FORMAT_OK,
    RE_MP3_NO_FRAME,    /* no complete MPEG audio frame: empty, random bytes, another format,
                         * or a read error (see re_mp3_source.error) */
    RE_MP3_NO_INFO,     /* libmpg123 gives no frame information (mpg123_strerror says why) */
    RE_MP3_NOT_LAYER3,  /* MPEG audio, but layer I or II (info.layer) */
    RE_MP3_UNUSABLE     /* no rate, channels other than 1 or 2, or not the asked encoding */
} re_mp3_format_problem;

/* Reads up to the first frame of an open handle and checks that it is MPEG layer III in
 * `encoding` with 1 or 2 channels. Fills *fmt as far as it got. */
re_mp3_format_problem re_mp3_decoder_format(mpg123_handle *mh, int encoding, re_mp3_format *fmt);

/* What re_mp3_decoder_each hands its callback: one decoded MPEG frame, or the news that the
 * output format changes before the next one (new_format 1, no samples). */
typedef struct re_mp3_block {
    const unsigned char *pcm;  /* interleaved samples in the handle's encoding */
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
    RE_MP3_END_ERROR     /* libmpg123 could not decode on: mpg123_strerror says why (or the
                          * source's error, for a read error) */
} re_mp3_end;

/* Decodes frame by frame from where the handle stands, handing each to block(). */
re_mp3_end re_mp3_decoder_each(mpg123_handle *mh, re_mp3_block_fn block, void *user);

#endif
