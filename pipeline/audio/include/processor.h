/* SPDX-License-Identifier: GPL-3.0-or-later */
/* processor.h - one effect on the episode's samples, as the spool pass (spool_pass.h) runs it:
 * the one interface for every pass over the samples after assembly (docs/loudness.md, "The
 * passes over the samples"). SoX's effect handler (flow / drain) and libopusenc's
 * write / drain are the models.
 *
 * A processor is a handle and a table of three calls over mono 16-bit PCM at the pass's rate:
 *   process  consumes `frames` samples from `in` and writes *got <= frames to `out` (which
 *            holds `frames` and does not overlap `in`): fewer while the processor fills its
 *            look-ahead, then as many as it was given;
 *   flush    once, after the last process: writes the held-back samples (*got <= latency),
 *            as if the input went on in silence;
 *   latency  the samples it holds back, constant for its life.
 * Across all calls samples out == samples in: a processor keeps the episode's length and
 * timing. It is deterministic: the same samples give the same samples whatever the chunking.
 *
 * Who owns what: the handle (`self`) stays the caller's; it is made before the pass (its own
 * create, e.g. re_leveler_create, re_bed_create) and freed after it, so the caller can read
 * its statistics between the two. A processor struct is a value: copy it freely.
 *
 * The processors: the leveler (loudness.h, re_leveler_processor), the music bed's mixer
 * (bed.h, re_bed_processor), the local true-peak retry's gain window (gain_window.h). */
#ifndef RE_PROCESSOR_H
#define RE_PROCESSOR_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct re_processor {
    const char *name;                                 /* "leveler", "bed", "gain window" */
    void *self;                                       /* the effect's handle (borrowed) */
    size_t (*latency)(const void *self);
    re_status (*process)(void *self, const int16_t *in, size_t frames, int16_t *out,
                         size_t *got);
    re_status (*flush)(void *self, int16_t *out, size_t *got);
} re_processor;

#endif
