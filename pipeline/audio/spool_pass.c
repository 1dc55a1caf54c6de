/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spool_pass.c - metering and leveling passes over a spool (see spool_pass.h). */
#include "spool_pass.h"

#include <stdlib.h>

#include "ring.h"

#define RING_CHUNKS 4

static int stopped(volatile sig_atomic_t *stop)
{
    return stop && *stop;
}

re_status re_spool_measure(re_spool *input, unsigned sample_rate, volatile sig_atomic_t *stop,
                           re_loudness *measured, re_diagnostics *diag)
{
    re_loudness_meter *meter = NULL;
    int16_t *in = malloc(RE_SPOOL_PASS_CHUNK * sizeof *in);
    re_status status = in ? RE_OK : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_loudness_meter_create(sample_rate, &meter);
    if (status == RE_OK)
        status = re_spool_rewind(input, diag);
    for (size_t got = 1; status == RE_OK && got > 0;) {
        status = re_spool_read(input, in, RE_SPOOL_PASS_CHUNK, &got, diag);
        if (status == RE_OK)
            status = re_loudness_meter_feed(meter, in, got);
        if (status == RE_OK && stopped(stop))
            status = RE_ERR_INTERRUPTED;
    }
    if (status == RE_OK)
        status = re_loudness_meter_finish(meter, measured);
    re_loudness_meter_free(meter);
    free(in);
    return status;
}

/* The worker's side of a leveling pass: reads and levels into the ring. */
typedef struct leveling {
    re_ring *ring;
    re_spool *input;
    re_leveler *lv;
    re_status status;             /* the worker's, read after the join ... */
    re_diagnostics diag;          /* ... with what it said, moved to the caller's then */
} leveling;

static void *level_worker(void *arg)
{
    leveling *job = arg;
    int16_t *in = malloc(RE_SPOOL_PASS_CHUNK * sizeof *in);
    re_status status = in ? RE_OK : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_spool_rewind(job->input, &job->diag);
    for (size_t got = 1; status == RE_OK && got > 0;) {
        int16_t *slot = re_ring_slot(job->ring);
        if (!slot)
            break;
        status = re_spool_read(job->input, in, RE_SPOOL_PASS_CHUNK, &got, &job->diag);
        size_t n = 0;
        if (status == RE_OK)   /* the flush's held-back samples fit: latency < the chunk */
            status = got ? re_leveler_process(job->lv, in, got, slot, &n)
                         : re_leveler_flush(job->lv, slot, &n);
        if (status == RE_OK)
            re_ring_push(job->ring, n);
    }
    free(in);
    job->status = status;
    re_ring_close(job->ring);
    return NULL;
}

re_status re_spool_level(re_spool *input, re_leveler *lv, re_spool *out, unsigned sample_rate,
                         re_loudness *measured, volatile sig_atomic_t *stop,
                         re_diagnostics *diag)
{
    leveling job = { .input = input, .lv = lv, .status = RE_OK };
    re_diagnostics_init(&job.diag, RE_DIAG_DEFAULT_LIMIT);
    re_loudness_meter *meter = NULL;
    re_status status = re_leveler_latency(lv) < RE_SPOOL_PASS_CHUNK ? RE_OK : RE_ERR_INVALID;
    if (status == RE_OK)
        status = re_ring_create(RING_CHUNKS, RE_SPOOL_PASS_CHUNK, &job.ring);
    if (status == RE_OK && measured)
        status = re_loudness_meter_create_planning(sample_rate, &meter);
    int started = status == RE_OK && re_ring_start(job.ring, level_worker, &job) == RE_OK;
    if (status == RE_OK && !started)
        status = RE_ERR_NOMEM;
    size_t n;
    for (const int16_t *pcm; status == RE_OK && (pcm = re_ring_next(job.ring, &n)) != NULL;) {
        if (meter)
            status = re_loudness_meter_feed(meter, pcm, n);
        if (status == RE_OK)
            status = re_spool_write(out, pcm, n, diag);
        if (status == RE_OK && stopped(stop))
            status = RE_ERR_INTERRUPTED;
        re_ring_release(job.ring);
    }
    if (started) {
        re_ring_abandon(job.ring);
        re_ring_join(job.ring);
        if (status == RE_OK && job.status != RE_OK) {
            status = job.status;
            re_status moved = re_diag_move(diag, &job.diag);
            if (moved != RE_OK)
                status = moved;
        }
    }
    re_diagnostics_free(&job.diag);
    re_ring_free(job.ring);
    if (status == RE_OK && meter)
        status = re_loudness_meter_finish(meter, measured);
    re_loudness_meter_free(meter);
    return status;
}
