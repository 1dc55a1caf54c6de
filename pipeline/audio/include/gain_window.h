/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gain_window.h - a gain over a window of samples, ramped in and out: the local true-peak
 * retry's processor (docs/loudness.md, "The passes over the samples"), run in place over the
 * window by re_spool_rework (spool_pass.h).
 *
 * Over a window of n samples, sample i is multiplied by 1 + (g - 1) * w(i), g = 10^(db/20),
 * w rising as (i + 1) / (ramp + 1) over the first `ramp` samples, falling as
 * (n - i) / (ramp + 1) over the last `ramp`, 1 between; rounded to nearest and clamped to
 * int16. Deterministic; latency 0. The window is fed exactly n samples, from its first. */
#ifndef RE_GAIN_WINDOW_H
#define RE_GAIN_WINDOW_H

#include <stdint.h>

#include "processor.h"

typedef struct re_gain_window {
    uint64_t frames;     /* n */
    uint64_t ramp;
    double gain;         /* g, linear */
    uint64_t at;         /* samples processed so far */
} re_gain_window;

/* A window of `frames` samples at `db` with ramps of `ramp` samples. */
void re_gain_window_init(re_gain_window *window, uint64_t frames, uint64_t ramp, double db);

/* The window as a processor (processor.h); `window` stays the caller's. */
re_processor re_gain_window_processor(re_gain_window *window);

#endif
