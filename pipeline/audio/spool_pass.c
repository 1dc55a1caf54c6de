/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spool_pass.c - metering and leveling passes over a spool (see spool_pass.h). */
#include "spool_pass.h"

#include <math.h>
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

/* The worker's side of a pass: reads and runs the chain into the ring. */
typedef struct pass_worker {
    re_ring *ring;
    const re_spool_pass *pass;
    int16_t *between[2];          /* what a processor gives the next one */
    re_status status;             /* the worker's, read after the join ... */
    re_diagnostics diag;          /* ... with what it said, moved to the caller's then */
} pass_worker;

/* `in` (n samples) through the chain from processor `from` on into `out`; *made is how many.
 * Each processor writes into its own buffer, the last one into `out`. */
static re_status run_chain(pass_worker *job, size_t from, const int16_t *in, size_t n,
                           int16_t *out, size_t *made)
{
    const re_spool_pass *pass = job->pass;
    re_status status = RE_OK;
    for (size_t k = from; status == RE_OK && k < pass->chain_length; k++) {
        const re_processor *p = &pass->chain[k];
        int16_t *to = k + 1 == pass->chain_length ? out : job->between[k % 2];
        status = p->process(p->self, in, n, to, &n);
        in = to;
    }
    *made = status == RE_OK ? n : 0;
    return status;
}

/* Every processor's held-back samples, in order, each through the ones after it, into
 * `out` (they fit: the latencies together are under the chunk). */
static re_status flush_chain(pass_worker *job, int16_t *out, size_t *made)
{
    const re_spool_pass *pass = job->pass;
    re_status status = RE_OK;
    *made = 0;
    for (size_t k = 0; status == RE_OK && k < pass->chain_length; k++) {
        const re_processor *p = &pass->chain[k];
        int last = k + 1 == pass->chain_length;
        int16_t *to = last ? out + *made : job->between[k % 2];
        size_t n = 0, through = 0;
        status = p->flush(p->self, to, &n);
        if (status == RE_OK && !last)
            status = run_chain(job, k + 1, to, n, out + *made, &through);
        *made += last ? n : through;
    }
    return status;
}

static void *pass_worker_run(void *arg)
{
    pass_worker *job = arg;
    const re_spool_pass *pass = job->pass;
    int16_t *in = malloc(RE_SPOOL_PASS_CHUNK * sizeof *in);
    re_status status = in ? RE_OK : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_spool_rewind(pass->input, &job->diag);
    for (size_t got = 1; status == RE_OK && got > 0;) {
        int16_t *slot = re_ring_slot(job->ring);
        if (!slot)
            break;
        status = re_spool_read(pass->input, in, RE_SPOOL_PASS_CHUNK, &got, &job->diag);
        size_t n = 0;
        if (status == RE_OK)
            status = got ? run_chain(job, 0, in, got, slot, &n) : flush_chain(job, slot, &n);
        if (status == RE_OK)
            re_ring_push(job->ring, n);
    }
    free(in);
    job->status = status;
    re_ring_close(job->ring);
    return NULL;
}

/* The chain is runnable: 1 to RE_SPOOL_PASS_MAX_CHAIN processors whose look-aheads fit in a
 * chunk together. */
static re_status check_chain(const re_spool_pass *pass)
{
    if (!pass->input || !pass->output || !pass->chain || pass->chain_length == 0
        || pass->chain_length > RE_SPOOL_PASS_MAX_CHAIN)
        return RE_ERR_INVALID;
    size_t latency = 0;
    for (size_t k = 0; k < pass->chain_length; k++) {
        const re_processor *p = &pass->chain[k];
        if (!p->process || !p->flush || !p->latency)
            return RE_ERR_INVALID;
        latency += p->latency(p->self);
    }
    return latency < RE_SPOOL_PASS_CHUNK ? RE_OK : RE_ERR_INVALID;
}

re_status re_spool_pass_run(const re_spool_pass *pass, re_diagnostics *diag)
{
    pass_worker job = { .pass = pass, .status = RE_OK };
    re_diagnostics_init(&job.diag, RE_DIAG_DEFAULT_LIMIT);
    re_loudness_meter *meter = NULL;
    re_status status = pass ? check_chain(pass) : RE_ERR_INVALID;
    for (int k = 0; status == RE_OK && k < 2 && pass->chain_length > 1; k++)
        if (!(job.between[k] = malloc(RE_SPOOL_PASS_CHUNK * sizeof *job.between[k])))
            status = RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_ring_create(RING_CHUNKS, RE_SPOOL_PASS_CHUNK, &job.ring);
    if (status == RE_OK && pass->measured)
        status = re_loudness_meter_create_planning(pass->sample_rate, &meter);
    int started = status == RE_OK && re_ring_start(job.ring, pass_worker_run, &job) == RE_OK;
    if (status == RE_OK && !started)
        status = RE_ERR_NOMEM;
    size_t n;
    for (const int16_t *pcm; status == RE_OK && (pcm = re_ring_next(job.ring, &n)) != NULL;) {
        if (meter)
            status = re_loudness_meter_feed(meter, pcm, n);
        if (status == RE_OK)
            status = re_spool_write(pass->output, pcm, n, diag);
        if (status == RE_OK && stopped(pass->stop))
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
    free(job.between[0]);
    free(job.between[1]);
    if (status == RE_OK && meter)
        status = re_loudness_meter_finish(meter, pass->measured);
    re_loudness_meter_free(meter);
    return status;
}

re_status re_spool_rework(re_spool *spool, uint64_t first, uint64_t last,
                          const re_processor *processor, re_diagnostics *diag)
{
    if (!spool || !processor || first > last || last > re_spool_frames(spool)
        || processor->latency(processor->self) != 0)
        return RE_ERR_INVALID;
    int16_t *in = malloc(RE_SPOOL_PASS_CHUNK * sizeof *in);
    int16_t *out = malloc(RE_SPOOL_PASS_CHUNK * sizeof *out);
    re_status status = in && out ? RE_OK : RE_ERR_NOMEM;
    for (uint64_t at = first; status == RE_OK && at < last;) {
        size_t n = last - at < RE_SPOOL_PASS_CHUNK ? (size_t)(last - at) : RE_SPOOL_PASS_CHUNK;
        size_t made = 0;
        status = re_spool_read_at(spool, at, in, n, diag);
        if (status == RE_OK)
            status = processor->process(processor->self, in, n, out, &made);
        if (status == RE_OK && made != n)
            status = RE_ERR_INVALID;   /* latency 0: what goes in comes out */
        if (status == RE_OK)
            status = re_spool_write_at(spool, at, out, n, diag);
        at += n;
    }
    size_t held = 0;
    if (status == RE_OK)
        status = processor->flush(processor->self, out, &held);
    free(in);
    free(out);
    return status;
}

re_status re_spool_range_peak(re_spool *spool, uint64_t first, uint64_t last, double *dbfs,
                              re_diagnostics *diag)
{
    if (!spool || first > last || last > re_spool_frames(spool))
        return RE_ERR_INVALID;
    int16_t *in = malloc(RE_SPOOL_PASS_CHUNK * sizeof *in);
    re_status status = in ? RE_OK : RE_ERR_NOMEM;
    int peak = 0;
    for (uint64_t at = first; status == RE_OK && at < last;) {
        size_t n = last - at < RE_SPOOL_PASS_CHUNK ? (size_t)(last - at) : RE_SPOOL_PASS_CHUNK;
        status = re_spool_read_at(spool, at, in, n, diag);
        for (size_t i = 0; status == RE_OK && i < n; i++)
            peak = abs(in[i]) > peak ? abs(in[i]) : peak;
        at += n;
    }
    free(in);
    *dbfs = peak ? 20.0 * log10(peak / 32768.0) : -HUGE_VAL;
    return status;
}
