/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spool_pass.h - one pass over a finished spool, chunk by chunk: metering it, or leveling it
 * into a new spool (and metering what comes out). Both can be stopped by a signal between
 * chunks. These are the loudness passes of a render; the spool's audio never has to fit in
 * memory.
 *
 * Errors: RE_ERR_READ / RE_ERR_WRITE with the spools' own message in diag (no file: the
 * caller places it), RE_ERR_INTERRUPTED when *stop was raised, RE_ERR_NOMEM, RE_ERR_INVALID
 * (these three without a message). */
#ifndef RE_SPOOL_PASS_H
#define RE_SPOOL_PASS_H

#include <signal.h>
#include <stddef.h>

#include "loudness.h"
#include "spool.h"
#include "status.h"

#define RE_SPOOL_PASS_CHUNK 16384   /* samples read, leveled and written at a time */

/* The full meter (loudness, range, true peak) over `input`, from its start. `stop` may be NULL. */
re_status re_spool_measure(re_spool *input, unsigned sample_rate, volatile sig_atomic_t *stop,
                           re_loudness *measured, re_diagnostics *diag);

/* `input`, from its start, through the leveler `lv` (fresh: process then flush) into `out`
 * (created, not finished: the caller finishes it), and, when `measured` is not NULL, into a
 * planning meter whose result it receives. Runs on two cores: a thread reads and levels into
 * a ring of chunks (ring.h) while the caller meters and writes them, in order, so the samples
 * are the same as one thread doing it all; what the reading thread says reaches diag after
 * the join. The leveler's latency must be under RE_SPOOL_PASS_CHUNK (RE_ERR_INVALID). */
re_status re_spool_level(re_spool *input, re_leveler *lv, re_spool *out, unsigned sample_rate,
                         re_loudness *measured, volatile sig_atomic_t *stop,
                         re_diagnostics *diag);

#endif
