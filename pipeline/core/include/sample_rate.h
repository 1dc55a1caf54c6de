/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sample_rate.h - the output rates an episode may have, owned here once: the front matter's
 * `sample_rate:`, --sample-rate and the resampler all ask re_rate_supported. */
#ifndef RE_SAMPLE_RATE_H
#define RE_SAMPLE_RATE_H

#define RE_RATE_DEFAULT 22050u
/* The set, as messages name it. */
#define RE_RATES_TEXT "22050, 44100 or 48000"

/* 1 when `rate` (Hz) is one of RE_RATES_TEXT, else 0. */
int re_rate_supported(unsigned rate);

#endif
