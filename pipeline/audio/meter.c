/* SPDX-License-Identifier: GPL-3.0-or-later */
/* meter.c - the BS.1770 loudness meter: libebur128's gated loudness and range, our own true
 * peak, optionally fed from a thread of its own (see loudness.h; docs/loudness.md). */
#include "loudness.h"
#include "meter_internal.h"
#include "ring.h"
#include "true_peak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ebur128.h>

typedef struct meter_background meter_background;

struct re_loudness_meter {
    meter_background *bg;   /* when fed in the background */
    ebur128_state *state;
    unsigned channels;
    uint64_t frames;
    int finished;
    meter_kind kind;
    interpolator ip;        /* METER_FULL: our own peaks, per channel */
    peak_finder peaks[2];
    int sample_max;         /* METER_PLANNING: the largest |sample| (int16, so at most 32768) */
};

static re_status background_stop(re_loudness_meter *m);

/* The kind that measures true and sample peaks with our interpolator. */
static int finds_peaks(meter_kind kind)
{
    return kind == METER_FULL;
}

/* Histogram mode keeps memory constant however long the episode is; it rounds block
 * loudness to 0.1 dB bins, which moves the integrated value by a few hundredths of a LU.
 * libebur128's own true-peak mode is not used: its 4x oversampling of every sample was most
 * of the meter's cost, and true_peak.c measures only where a peak can be. */
#define FULL_MODE (EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_HISTOGRAM)
/* The planning meter's sample peak is ours too: libebur128's (EBUR128_MODE_SAMPLE_PEAK) is the
 * same number, |x| / 32768 (measured: equal to the last bit on the GPL-3 speech), at a tenth
 * of the meter's cost. It has no range: a plan needs none, and every range reported is the
 * delivered file's. */
#define PLANNING_MODE (EBUR128_MODE_I | EBUR128_MODE_HISTOGRAM)
/* METER_LOUDNESS is FULL_MODE without our peaks; METER_RANGE makes no gating blocks, only
 * short-term ones. */
#define RANGE_MODE (EBUR128_MODE_LRA | EBUR128_MODE_HISTOGRAM)

re_status re_meter_create_kind(unsigned sample_rate, unsigned channels, meter_kind kind,
                               re_loudness_meter **out)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = NULL;
    if (sample_rate < RE_LOUDNESS_RATE_MIN || sample_rate > RE_LOUDNESS_RATE_MAX || channels < 1 || channels > 2)
        return RE_ERR_INVALID;
    re_loudness_meter *m = calloc(1, sizeof *m);
    if (!m)
        return RE_ERR_NOMEM;
    m->kind = kind;
    m->channels = channels;
    if (finds_peaks(kind))
        re_interpolator_init(&m->ip);
    m->state = ebur128_init(channels, sample_rate, kind == METER_PLANNING ? PLANNING_MODE
                            : kind == METER_RANGE ? RANGE_MODE : FULL_MODE);
    if (!m->state) {
        free(m);
        return RE_ERR_NOMEM;
    }
    if (channels == 1 && ebur128_set_channel(m->state, 0, EBUR128_DUAL_MONO) != EBUR128_SUCCESS) {
        re_loudness_meter_free(m);
        return RE_ERR_INVALID;
    }
    *out = m;
    return RE_OK;
}

re_status re_loudness_meter_create(unsigned sample_rate, re_loudness_meter **out)
{
    return re_meter_create_kind(sample_rate, 1, METER_FULL, out);
}

re_status re_loudness_meter_create_planning(unsigned sample_rate, re_loudness_meter **out)
{
    return re_meter_create_kind(sample_rate, 1, METER_PLANNING, out);
}

static re_status meter_feed_now(re_loudness_meter *m, const int16_t *pcm, size_t frames)
{
    if (frames && m->state && ebur128_add_frames_short(m->state, pcm, frames) != EBUR128_SUCCESS)
        return RE_ERR_NOMEM;
    if (m->kind == METER_PLANNING)
        m->sample_max = re_int16_peak(pcm, frames, m->sample_max);
    float block[256];
    for (size_t i = 0; finds_peaks(m->kind) && i < frames; i += 256) {
        size_t n = frames - i < 256 ? frames - i : 256;
        for (size_t k = 0; k < n; k++)
            block[k] = (float)pcm[i + k] * (1.0f / 32768.0f);
        re_peaks_bar(&m->peaks[0], block, n, 1);
        re_peaks_feed(&m->peaks[0], &m->ip, block, n, 1);
    }
    m->frames += frames;
    return RE_OK;
}

re_status re_meter_feed_float(re_loudness_meter *m, const float *pcm, size_t frames)
{
    if (frames && m->state && ebur128_add_frames_float(m->state, pcm, frames) != EBUR128_SUCCESS)
        return RE_ERR_NOMEM;
    for (unsigned ch = 0; finds_peaks(m->kind) && ch < m->channels; ch++) {
        re_peaks_bar(&m->peaks[ch], pcm + ch, frames, m->channels);
        re_peaks_feed(&m->peaks[ch], &m->ip, pcm + ch, frames, m->channels);
    }
    m->frames += frames;
    return RE_OK;
}

uint64_t re_meter_frames(const re_loudness_meter *m)
{
    return m->frames;
}

#define JOINED_MAX 4

re_status re_meter_joined(re_loudness_meter *const *gated, size_t n_gated,
                          re_loudness_meter *const *ranged, size_t n_ranged,
                          double *integrated_lufs, double *range_lu)
{
    ebur128_state *g[JOINED_MAX], *r[JOINED_MAX];
    if (n_gated < 1 || n_gated > JOINED_MAX || n_ranged < 1 || n_ranged > JOINED_MAX)
        return RE_ERR_INVALID;
    for (size_t k = 0; k < n_gated; k++)
        if (!(g[k] = gated[k]->state) || gated[k]->kind == METER_RANGE || gated[k]->finished)
            return RE_ERR_INVALID;
    for (size_t k = 0; k < n_ranged; k++)
        if (!(r[k] = ranged[k]->state) || ranged[k]->finished)
            return RE_ERR_INVALID;
    double integrated = -HUGE_VAL, range = 0;
    if (ebur128_loudness_global_multiple(g, n_gated, &integrated) != EBUR128_SUCCESS)
        return RE_ERR_INVALID;
    if (ebur128_loudness_range_multiple(r, n_ranged, &range) != EBUR128_SUCCESS)
        range = 0;   /* too few short-term blocks, as re_loudness_meter_finish */
    *integrated_lufs = isfinite(integrated) ? integrated : -HUGE_VAL;
    *range_lu = isfinite(range) && range > 0 ? range : 0;
    return RE_OK;
}

re_status re_loudness_meter_finish(re_loudness_meter *m, re_loudness *out)
{
    if (!m || !out || m->finished)
        return RE_ERR_INVALID;
    m->finished = 1;
    re_status queued = background_stop(m);
    if (queued != RE_OK)
        return queued;
    memset(out, 0, sizeof *out);
    double integrated = -HUGE_VAL, range = 0, true_peak = 0, sample_peak = 0;
    if (m->state && ebur128_loudness_global(m->state, &integrated) != EBUR128_SUCCESS)
        return RE_ERR_INVALID;
    if (!m->state || ebur128_loudness_range(m->state, &range) != EBUR128_SUCCESS)
        range = 0;   /* libebur128 refuses LRA with too few short-term blocks */
    for (unsigned ch = 0; ch < m->channels; ch++) {
        double tp = 0, sp = 0;
        if (finds_peaks(m->kind)) {
            re_peak_finish(&m->peaks[ch], &m->ip);
            tp = m->peaks[ch].true_peak;
            sp = m->peaks[ch].sample_peak;
        } else {
            sp = m->sample_max / 32768.0;
            tp = sp * pow(10.0, RE_LOUDNESS_PLANNING_PEAK_MARGIN_DB / 20.0);
        }
        true_peak = fmax(true_peak, tp);
        sample_peak = fmax(sample_peak, sp);
    }
    out->integrated_lufs = isfinite(integrated) ? integrated : -HUGE_VAL;
    out->range_lu = isfinite(range) && range > 0 ? range : 0;
    /* A true peak under the sample peak would be an interpolation artefact of the meter. */
    out->true_peak_dbtp = re_db_of(fmax(true_peak, sample_peak));
    out->sample_peak_dbfs = re_db_of(sample_peak);
    out->frames = m->frames;
    return RE_OK;
}

/* ---- Feeding in the background: a thread meters copies of what the caller feeds ---- */
#define BG_CHUNK 16384
#define BG_CHUNKS 8

struct meter_background {
    re_ring *ring;            /* the caller produces, the thread meters */
    re_status status;         /* the thread's error; it then abandons the ring */
};

static void *background_main(void *arg)
{
    re_loudness_meter *m = arg;
    meter_background *bg = m->bg;
    size_t n;
    for (const int16_t *pcm; (pcm = re_ring_next(bg->ring, &n)) != NULL;) {
        re_status status = meter_feed_now(m, pcm, n);
        re_ring_release(bg->ring);
        if (status != RE_OK) {
            bg->status = status;   /* read by the caller after the ring's lock or the join */
            re_ring_abandon(bg->ring);
            return NULL;
        }
    }
    return NULL;
}

static void background_free(meter_background *bg)
{
    if (!bg)
        return;
    re_ring_free(bg->ring);
    free(bg);
}

/* Waits for the thread to meter everything queued, and ends it. */
static re_status background_stop(re_loudness_meter *m)
{
    meter_background *bg = m->bg;
    if (!bg)
        return RE_OK;
    re_ring_close(bg->ring);
    re_ring_join(bg->ring);
    re_status status = bg->status;
    background_free(bg);
    m->bg = NULL;
    return status;
}

re_status re_loudness_meter_in_background(re_loudness_meter *m)
{
    if (!m || m->finished || m->bg || m->frames)
        return RE_ERR_INVALID;
    meter_background *bg = calloc(1, sizeof *bg);
    if (!bg)
        return RE_ERR_NOMEM;
    re_status status = re_ring_create(BG_CHUNKS, BG_CHUNK, &bg->ring);
    m->bg = bg;
    if (status == RE_OK)
        status = re_ring_start(bg->ring, background_main, m);
    if (status != RE_OK) {
        background_free(bg);
        m->bg = NULL;
    }
    return status;
}

re_status re_loudness_meter_feed(re_loudness_meter *m, const int16_t *pcm, size_t frames)
{
    if (!m || m->finished || (!pcm && frames))
        return RE_ERR_INVALID;
    meter_background *bg = m->bg;
    if (!bg)
        return meter_feed_now(m, pcm, frames);
    for (size_t done = 0; done < frames;) {
        int16_t *slot = re_ring_slot(bg->ring);
        if (!slot)
            return bg->status;
        size_t n = frames - done < BG_CHUNK ? frames - done : BG_CHUNK;
        memcpy(slot, pcm + done, n * sizeof *pcm);
        re_ring_push(bg->ring, n);
        done += n;
    }
    return RE_OK;
}

void re_loudness_meter_free(re_loudness_meter *m)
{
    if (!m)
        return;
    (void)background_stop(m);
    if (m->state)
        ebur128_destroy(&m->state);
    free(m);
}