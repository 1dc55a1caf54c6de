/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meter_internal.h - the meter's kinds, for the MP3 measurements after encoding (peak_map.c):
 * a meter of any channel count fed decoded float samples, and the loudness of audio metered
 * in parts (private to audio/). */
#ifndef RE_METER_INTERNAL_H
#define RE_METER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "loudness.h"

typedef enum meter_kind {
    METER_FULL,       /* libebur128 loudness and range, our true peak */
    METER_PLANNING,   /* libebur128 integrated loudness, our sample peak: no range */
    METER_LOUDNESS,   /* libebur128 loudness and range only: no peaks */
    METER_RANGE       /* libebur128 short-term blocks only: for re_meter_joined's range */
} meter_kind;

/* A meter of `kind` for 1 or 2 channels at 8000..192000 Hz; as re_loudness_meter_create. */
re_status re_meter_create_kind(unsigned sample_rate, unsigned channels, meter_kind kind,
                               re_loudness_meter **out);
/* Feeds `frames` interleaved float frames (full scale 1.0) on the caller's thread. */
re_status re_meter_feed_float(re_loudness_meter *m, const float *pcm, size_t frames);
/* Frames fed so far. */
uint64_t re_meter_frames(const re_loudness_meter *m);

/* libebur128 makes a gating block (400 ms) every RE_METER_HOP(rate) samples (100 ms) and a
 * short-term block (3 s) every 10 hops, counted from the first sample a meter is fed. Audio
 * metered in parts gives one meter's loudness when each of those blocks is made by exactly one
 * part's meter (peak_map.c cuts an MP3's halves so): */
#define RE_METER_HOP(rate) (((rate) + 5) / 10)
/* The integrated loudness over the gating blocks of the `gated` meters (METER_FULL or
 * METER_LOUDNESS) and the loudness range over the short-term blocks of the `ranged` meters
 * (those, or METER_RANGE), as libebur128 gives them for one meter; -inf below the gates, a
 * range of 0 when there are too few blocks. Call before finishing the meters. */
re_status re_meter_joined(re_loudness_meter *const *gated, size_t n_gated,
                          re_loudness_meter *const *ranged, size_t n_ranged,
                          double *integrated_lufs, double *range_lu);

#endif
