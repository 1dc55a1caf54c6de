/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meter_internal.h - the meter's kinds, for the MP3 measurements after encoding (peak_map.c):
 * a meter of any channel count fed decoded float samples (private to audio/). */
#ifndef RE_METER_INTERNAL_H
#define RE_METER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "loudness.h"

typedef enum meter_kind {
    METER_FULL,       /* libebur128 loudness and range, our true peak */
    METER_PLANNING,   /* libebur128 loudness, range and sample peak: no true peak */
    METER_PEAKS       /* our true and sample peak only: no libebur128 state */
} meter_kind;

/* A meter of `kind` for 1 or 2 channels at 8000..192000 Hz; as re_loudness_meter_create. */
re_status re_meter_create_kind(unsigned sample_rate, unsigned channels, meter_kind kind,
                               re_loudness_meter **out);
/* Feeds `frames` interleaved float frames (full scale 1.0) on the caller's thread. */
re_status re_meter_feed_float(re_loudness_meter *m, const float *pcm, size_t frames);
/* Frames fed so far. */
uint64_t re_meter_frames(const re_loudness_meter *m);

#endif
