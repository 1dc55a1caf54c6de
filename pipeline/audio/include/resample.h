/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resample.h - sample-rate conversion with libsoxr, one fixed recipe for the whole program,
 * so that the same input always gives the same output bytes.
 *
 * The recipe: soxr's SOXR_HQ quality (about 20-bit precision, passband to 91 % of the lower
 * Nyquist frequency, linear phase), one thread, no dither, mono 16-bit in and out (samples
 * clipped to int16 by soxr). A stretch is converted on its own, as if it were surrounded by
 * digital silence: its output is exactly re_resample_length(frames) samples, aligned so that
 * input sample 0 and output sample 0 are at the same time (soxr removes its filter's delay).
 * The filter's ringing beyond the stretch's two ends (what it would put into the silence
 * around the stretch) is cut off; the assembler cuts stretches only where the engine's sound
 * starts or stops, so that ringing would have been the smallest part of the signal.
 *
 * Users: the assembler converts each stretch of speech between two pauses from the engine's
 * rate to the episode's (assemble.h); every sound file a script plays is converted whole
 * (sound_file.h). */
#ifndef RE_RESAMPLE_H
#define RE_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "sample_rate.h"   /* the output rates an episode may have: re_rate_supported */
#include "status.h"

/* How many samples `frames` input samples become: frames * out_rate / in_rate, rounded to
 * nearest (half up). Equal rates: frames. */
uint64_t re_resample_length(uint64_t frames, unsigned in_rate, unsigned out_rate);

/* Converts in[0..frames) at in_rate into out[0..re_resample_length(frames)) at out_rate (the
 * caller's buffer). Equal rates copy. RE_ERR_NOMEM, or RE_ERR_INVALID (a rate of 0, or soxr
 * refusing: never seen for the rates above). Thread-safe: no shared state. */
re_status re_resample_mono16(const int16_t *in, size_t frames, unsigned in_rate,
                             unsigned out_rate, int16_t *out);

/* The same recipe from mono float samples (-1..1, as libsndfile's sf_readf_float gives any
 * file: a sound insert, after mixing its channels down) to 16-bit; soxr rounds to nearest and
 * clips, no dither. Equal rates: still converted (rounded and clipped), not copied. */
re_status re_resample_float_mono16(const float *in, size_t frames, unsigned in_rate,
                                   unsigned out_rate, int16_t *out);

/* The same float recipe fed a piece at a time, so that a long or high-rate input is never held
 * whole (a sound file is decoded a chunk at a time, sound_file.h): create, then feed each piece
 * in order, then end, then free. Every call appends what soxr gives to the caller's growing
 * buffer. The whole output, cut or padded with silence to re_resample_length of the whole
 * input, is the one re_resample_float_mono16 gives for that input (soxr's output does not
 * depend on how its input is split; test_resample compares them). Equal rates: still
 * converted, as re_resample_float_mono16 does. */
typedef struct re_resample_stream re_resample_stream;

/* RE_ERR_NOMEM, RE_ERR_INVALID (a rate of 0, or soxr refusing the rates). */
re_status re_resample_stream_create(unsigned in_rate, unsigned out_rate, re_resample_stream **out);

/* Converts in[0..frames) (or, with in == NULL, what soxr still holds: the end of the input)
 * and appends the result to *buf (malloc'ed, *len samples used of *cap; NULL/0/0 to start;
 * grown with realloc, owned by the caller). RE_ERR_NOMEM leaves *buf valid; RE_ERR_INVALID
 * when soxr fails. */
re_status re_resample_stream_feed(re_resample_stream *stream, const float *in, size_t frames,
                                  int16_t **buf, size_t *len, size_t *cap);

/* Frees the stream; NULL is fine. */
void re_resample_stream_free(re_resample_stream *stream);

#endif
