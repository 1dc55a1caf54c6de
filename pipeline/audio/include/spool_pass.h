/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spool_pass.h - one pass over a finished spool, chunk by chunk: metering it, or running a
 * chain of processors (processor.h) over it into a new spool (and metering what comes out),
 * or reworking a range of it in place. Each can be stopped by a signal between chunks. These
 * are the passes over the samples of a render; the spool's audio never has to fit in memory,
 * and nothing outside audio/ reads or writes its samples.
 *
 * Errors: RE_ERR_READ / RE_ERR_WRITE with the spools' own message in diag (no file: the
 * caller places it), RE_ERR_INTERRUPTED when *stop was raised, RE_ERR_NOMEM, RE_ERR_INVALID
 * (these three without a message). */
#ifndef RE_SPOOL_PASS_H
#define RE_SPOOL_PASS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "loudness.h"
#include "processor.h"
#include "spool.h"
#include "status.h"

#define RE_SPOOL_PASS_CHUNK 16384   /* samples read, processed and written at a time */

/* The full meter (loudness, range, true peak) over `input`, from its start. `stop` may be NULL. */
re_status re_spool_measure(re_spool *input, unsigned sample_rate, volatile sig_atomic_t *stop,
                           re_loudness *measured, re_diagnostics *diag);

/* One pass of a chain of processors (processor.h) over `input`, from its start, into `output`
 * (created, not finished: the caller finishes it), and, when `measured` is not NULL, into a
 * planning meter whose result it receives. Every pass over the episode's samples after
 * assembly is one of these: mixing the music bed (the bed's mixer), leveling (the leveler).
 * Runs on two cores: a thread reads and runs the chain into a ring of chunks (ring.h) while
 * the caller meters and writes them, in order, so the samples are the same as one thread
 * doing it all; what the reading thread says reaches diag after the join. The chain's
 * latencies together must be under RE_SPOOL_PASS_CHUNK, and it holds 1 to
 * RE_SPOOL_PASS_MAX_CHAIN processors (RE_ERR_INVALID). The processors are fresh (process,
 * then flush, here) and stay the caller's. */
#define RE_SPOOL_PASS_MAX_CHAIN 4

typedef struct re_spool_pass {
    re_spool *input;                  /* finished; read from its start */
    const re_processor *chain;        /* run in this order */
    size_t chain_length;
    re_spool *output;                 /* created, not finished */
    unsigned sample_rate;
    re_loudness *measured;            /* NULL: not metered */
    volatile sig_atomic_t *stop;      /* may be NULL */
} re_spool_pass;

re_status re_spool_pass_run(const re_spool_pass *pass, re_diagnostics *diag);

/* The samples [first, last) of a finished spool through `processor` (latency 0: it works in
 * place) and written back where they were: the rest of the spool stays as it was, byte for
 * byte. The local true-peak retry's pass (gain_window.h). */
re_status re_spool_rework(re_spool *spool, uint64_t first, uint64_t last,
                          const re_processor *processor, re_diagnostics *diag);

/* The largest |sample| of a finished spool's [first, last) in dBFS (-HUGE_VAL for silence). */
re_status re_spool_range_peak(re_spool *spool, uint64_t first, uint64_t last, double *dbfs,
                              re_diagnostics *diag);

#endif
