/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3.h - the MP3 encoding stage: libmp3lame, CBR mono at the engine's rate, our own ID3v2
 * tag in front, and LAME's Xing/Info + LAME tag written back after the last frame so that
 * decoders return exactly the samples that were fed in (encoder delay and padding).
 *
 * Life cycle: re_mp3_encoder_create (writes the ID3v2 tag and reserves the tag frame) ->
 * re_mp3_encoder_write any number of times -> re_mp3_encoder_finish (flushes, writes the
 * LAME tag frame over the reserved one) -> re_mp3_encoder_free. free without finish is
 * allowed (after an error); the stream then holds an unfinished file the caller discards. */
#ifndef RE_MP3_H
#define RE_MP3_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "id3.h"
#include "status.h"

typedef struct re_mp3_settings {
    int bitrate_kbps;    /* CBR bitrate */
    int quality;         /* LAME algorithm quality 0 (best, slowest) .. 9; -1 = LAME's default */
} re_mp3_settings;

#define RE_MP3_DEFAULT_BITRATE 64   /* at 22050 Hz; see re_mp3_default_bitrate */

/* The bitrate used when none is asked for: 64 kbps up to 24000 Hz, 96 kbps above (mono; the
 * issue's choice for 44.1 kHz, and above the lowest bitrate that carries the tag at 48 kHz). */
int re_mp3_default_bitrate(unsigned sample_rate);

/* Checks that LAME can encode mono at `sample_rate` with these settings AND still write its
 * Xing/LAME tag (at low bitrates it silently drops it, and durations drift). On refusal
 * returns RE_ERR_ENCODER with a one-line English reason in diag (e.g. "bitrate 48 kbps is
 * too low to carry the LAME tag at 22050 Hz; use 56..160"), which names no file: the caller
 * knows which output the settings are for (re_diag_place). */
re_status re_mp3_check_settings(unsigned sample_rate, const re_mp3_settings *settings,
                                re_diagnostics *diag);
/* Also refused (RE_ERR_ENCODER, reason in diag): a rate that is not an MPEG rate (no
 * resampling is done), a quality outside -1..9, and a bitrate that is not a Layer III bitrate
 * of the rate's MPEG version (the reason lists the valid ones; LAME itself would silently
 * substitute another). The tag check encodes a frame of silence with LAME, about 1 ms.
 * Measured with LAME 3.100, the lowest bitrate that carries the tag (mono):
 *   8000 Hz 24 | 11025, 12000 Hz 32 | 16000 Hz 40 | 22050 Hz 56 | 24000 Hz 64 |
 *   32000 Hz 40 | 44100 Hz 56 | 48000 Hz 64   (highest: 64 below 16 kHz, 160 below 32 kHz,
 *   else 320). Nothing is added on success, nor for RE_ERR_NOMEM.
 * RE_ERR_INVALID (no message) if settings is NULL. */

/* Describes the settings for the TSSE frame, e.g. "LAME 3.100, 64 kbps CBR, mono, 22050 Hz"
 * (", quality N" is appended unless quality is -1). Truncates to len; never fails. */
void re_mp3_describe(unsigned sample_rate, const re_mp3_settings *settings, char *buf, size_t len);

/* A LAME encoder configured the one way this program encodes: CBR mono at exactly
 * `sample_rate`, the Xing/LAME tag on, LAME's own ID3 tags off, LAME's messages silenced,
 * checked after lame_init_params (LAME must not quietly change the rate, bitrate or mode).
 * Shared by the serial encoder here and the piece encoders of mp3_parallel.c, so that one
 * piece gives the serial bytes. RE_ERR_ENCODER, or RE_ERR_NOMEM; close it with lame_close. */
struct lame_global_struct;
re_status re_mp3_lame_open(unsigned sample_rate, const re_mp3_settings *settings,
                           struct lame_global_struct **out);
/* What a negative LAME return code means to us: -2 is its malloc failing. */
re_status re_mp3_lame_status(int code);

typedef struct re_mp3_encoder re_mp3_encoder;

/* `out` must be a seekable stream opened for writing at offset 0; the encoder does not close
 * it. `tag` is built with re_id3_build and written first (TLEN must already be known). */
re_status re_mp3_encoder_create(FILE *out, unsigned sample_rate, const re_mp3_settings *settings,
                                const unsigned char *tag, size_t tag_len, re_mp3_encoder **enc);
/* create returns RE_ERR_ENCODER for settings re_mp3_check_settings refuses, RE_ERR_INVALID
 * for a NULL argument or a stream that cannot seek (a pipe), RE_ERR_WRITE if the tag cannot
 * be written. After any error the encoder keeps returning it; after finish, write and finish
 * return RE_ERR_INVALID. The output bytes depend only on the tag, PCM and settings. */
/* Encodes `frames` mono 16-bit samples. RE_ERR_WRITE when the stream fails. */
re_status re_mp3_encoder_write(re_mp3_encoder *enc, const int16_t *pcm, size_t frames);
/* Flushes the encoder, writes the LAME tag back, and fflush()es the stream. */
re_status re_mp3_encoder_finish(re_mp3_encoder *enc);
void re_mp3_encoder_free(re_mp3_encoder *enc);

#endif
