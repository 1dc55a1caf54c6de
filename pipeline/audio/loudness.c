/* SPDX-License-Identifier: GPL-3.0-or-later */
/* loudness.c - BS.1770 meter, gain + true-peak limiter, the plan, and the after-encoding
 * measurement of an MP3 (see loudness.h; design and measurements in docs/loudness.md). */
#include "loudness.h"
#include "mp3_decoder.h"
#include "ring.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <fcntl.h>
#include <unistd.h>

#include <ebur128.h>
#include <mpg123.h>

#define RATE_MIN 8000u
#define RATE_MAX 192000u

static double db_of(double linear)
{
    return linear > 0 ? 20.0 * log10(linear) : -HUGE_VAL;
}

/* ==========================================================================================
 * True peak: the interpolator the leveler and the meter share
 *
 * The interval [c, c+1) is estimated at the sample and the OVERSAMPLE-1 points between it and
 * the next, by a 16-tap-per-phase Kaiser-windowed sinc (8x oversampling, finer than the 4x
 * BS.1770-4 asks for), which needs FIR_HALF samples after c. No interpolated point exceeds
 * peak_bound times the largest |tap|, so both users skip the arithmetic wherever the taps are
 * too quiet to matter, which on speech is most samples.
 * ========================================================================================== */
#define OVERSAMPLE 8
#define FIR_TAPS 16                 /* per phase; a power of two (ring index mask) */
#define FIR_HALF (FIR_TAPS / 2)     /* interval [c, c+1) uses x[c - FIR_HALF + 1 .. c + FIR_HALF] */
#define KAISER_BETA 6.0

typedef struct interpolator {
    float coef[FIR_TAPS][OVERSAMPLE];
    double peak_bound;
} interpolator;

static double bessel_i0(double x)
{
    double sum = 1, term = 1;
    for (int k = 1; k < 50; k++) {
        term *= (x / (2.0 * k)) * (x / (2.0 * k));
        sum += term;
        if (term < sum * 1e-17)
            break;
    }
    return sum;
}

/* coef[j][f] weights x[c - FIR_HALF + 1 + j] for the point c + f/OVERSAMPLE (phase 0 is x[c]
 * itself); each phase is normalised to unity gain at DC. Phases are the inner index so the
 * estimator's loop over taps vectorises without reordering any sum. peak_bound is the largest
 * sum of |coef| over a phase: no interpolated point exceeds it times the largest |tap|. */
static void make_interpolator(interpolator *ip)
{
    ip->peak_bound = 1;
    for (int f = 0; f < OVERSAMPLE; f++) {
        double h[FIR_TAPS], sum = 0, abs_sum = 0;
        for (int j = 0; j < FIR_TAPS; j++) {
            double t = (double)f / OVERSAMPLE + (FIR_HALF - 1) - j;   /* distance to that tap */
            double sinc = t == 0 ? 1.0 : sin(M_PI * t) / (M_PI * t);
            double u = t / FIR_HALF;
            double w = u * u < 1 ? bessel_i0(KAISER_BETA * sqrt(1 - u * u)) / bessel_i0(KAISER_BETA)
                                 : 0;
            h[j] = f == 0 ? (j == FIR_HALF - 1) : sinc * w;
            sum += h[j];
        }
        for (int j = 0; j < FIR_TAPS; j++) {
            ip->coef[j][f] = (float)(h[j] / sum);
            abs_sum += fabs((double)ip->coef[j][f]);
        }
        ip->peak_bound = fmax(ip->peak_bound, abs_sum);
    }
}

/* The largest |value| of the interval [c, c+1) whose taps x[c - FIR_HALF + 1 .. c + FIR_HALF]
 * are `taps` (oldest first). */
static float interval_max(const interpolator *ip, const float *taps)
{
    float v[OVERSAMPLE] = { 0 };
    for (int j = 0; j < FIR_TAPS; j++)
        for (int f = 0; f < OVERSAMPLE; f++)
            v[f] += ip->coef[j][f] * taps[j];
    float peak = 0;
    for (int f = 0; f < OVERSAMPLE; f++) {
        float a = v[f] < 0 ? -v[f] : v[f];
        peak = a > peak ? a : peak;
    }
    return peak;
}

/* The true and sample peak of one channel, exact for this interpolator: only intervals with a
 * tap loud enough to pass the peak found so far are interpolated. */
typedef struct peak_finder {
    float taps[2 * FIR_TAPS];   /* the last FIR_TAPS samples, each written twice */
    uint64_t n;
    unsigned loud_left;
    float true_peak, sample_peak;
} peak_finder;

static void peak_push(peak_finder *pf, const interpolator *ip, float x)
{
    uint64_t n = pf->n++;
    pf->taps[n & (FIR_TAPS - 1)] = pf->taps[(n & (FIR_TAPS - 1)) + FIR_TAPS] = x;
    float a = x < 0 ? -x : x;
    if (a > pf->sample_peak)
        pf->sample_peak = a;
    if (a * ip->peak_bound > pf->true_peak)
        pf->loud_left = FIR_TAPS;
    if (pf->loud_left) {
        pf->loud_left--;
        float v = interval_max(ip, &pf->taps[(n + 1) & (FIR_TAPS - 1)]);
        if (v > pf->true_peak)
            pf->true_peak = v;
    }
}

#define PEAK_BLOCK 64

/* peak_push for n samples x[0], x[stride], ...: a block none of whose samples is loud enough
 * to matter only passes through the ring (the same result, without the per-sample test). */
static void peaks_feed(peak_finder *pf, const interpolator *ip, const float *x, size_t n,
                       size_t stride)
{
    for (size_t i = 0; i < n;) {
        if (!pf->loud_left && n - i >= PEAK_BLOCK) {
            float m = 0;
            for (size_t k = 0; k < PEAK_BLOCK; k++) {
                float a = fabsf(x[(i + k) * stride]);
                m = a > m ? a : m;
            }
            if (m * ip->peak_bound <= pf->true_peak) {   /* peak_push's test, for all */
                if (m > pf->sample_peak)
                    pf->sample_peak = m;
                for (size_t k = PEAK_BLOCK - FIR_TAPS; k < PEAK_BLOCK; k++) {
                    uint64_t at = (pf->n + k) & (FIR_TAPS - 1);
                    pf->taps[at] = pf->taps[at + FIR_TAPS] = x[(i + k) * stride];
                }
                pf->n += PEAK_BLOCK;
                i += PEAK_BLOCK;
                continue;
            }
        }
        peak_push(pf, ip, x[i * stride]);
        i++;
    }
}

/* Samples that only fill the taps (the audio just before a part of a file measured on its
 * own): no interval is measured, but a loud one makes the next FIR_TAPS intervals count. */
static void peak_prime(peak_finder *pf, const interpolator *ip, float x)
{
    uint64_t n = pf->n++;
    pf->taps[n & (FIR_TAPS - 1)] = pf->taps[(n & (FIR_TAPS - 1)) + FIR_TAPS] = x;
    float a = x < 0 ? -x : x;
    if (a * ip->peak_bound > pf->true_peak)
        pf->loud_left = FIR_TAPS;
}

/* The intervals at the end, against the silence after it. */
static void peak_finish(peak_finder *pf, const interpolator *ip)
{
    for (int i = 0; i < FIR_HALF; i++)
        peak_push(pf, ip, 0);
}

/* ==========================================================================================
 * The meter
 * ========================================================================================== */

typedef enum meter_kind {
    METER_FULL,       /* libebur128 loudness and range, our true peak */
    METER_PLANNING,   /* libebur128 loudness, range and sample peak: no true peak */
    METER_PEAKS       /* our true and sample peak only: no libebur128 state */
} meter_kind;

typedef struct meter_background meter_background;

struct re_loudness_meter {
    meter_background *bg;   /* when fed in the background */
    ebur128_state *state;   /* NULL for METER_PEAKS */
    unsigned channels;
    uint64_t frames;
    int finished;
    meter_kind kind;
    interpolator ip;        /* METER_FULL, METER_PEAKS: our own peaks, per channel */
    peak_finder peaks[2];
};

static re_status background_stop(re_loudness_meter *m);

/* Histogram mode keeps memory constant however long the episode is; it rounds block
 * loudness to 0.1 dB bins, which moves the integrated value by a few hundredths of a LU.
 * libebur128's own true-peak mode is not used: its 4x oversampling of every sample was most
 * of the meter's cost, and the interpolator above measures only where a peak can be. */
#define FULL_MODE (EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_HISTOGRAM)
#define PLANNING_MODE (EBUR128_MODE_I | EBUR128_MODE_LRA | EBUR128_MODE_SAMPLE_PEAK \
                       | EBUR128_MODE_HISTOGRAM)

static re_status meter_create_kind(unsigned sample_rate, unsigned channels, meter_kind kind,
                                   re_loudness_meter **out)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = NULL;
    if (sample_rate < RATE_MIN || sample_rate > RATE_MAX || channels < 1 || channels > 2)
        return RE_ERR_INVALID;
    re_loudness_meter *m = calloc(1, sizeof *m);
    if (!m)
        return RE_ERR_NOMEM;
    m->kind = kind;
    m->channels = channels;
    if (kind != METER_PLANNING)
        make_interpolator(&m->ip);
    if (kind != METER_PEAKS) {
        m->state = ebur128_init(channels, sample_rate, kind == METER_FULL ? FULL_MODE : PLANNING_MODE);
        if (!m->state) {
            free(m);
            return RE_ERR_NOMEM;
        }
        if (channels == 1 && ebur128_set_channel(m->state, 0, EBUR128_DUAL_MONO) != EBUR128_SUCCESS) {
            re_loudness_meter_free(m);
            return RE_ERR_INVALID;
        }
    }
    *out = m;
    return RE_OK;
}

re_status re_loudness_meter_create(unsigned sample_rate, re_loudness_meter **out)
{
    return meter_create_kind(sample_rate, 1, METER_FULL, out);
}

re_status re_loudness_meter_create_planning(unsigned sample_rate, re_loudness_meter **out)
{
    return meter_create_kind(sample_rate, 1, METER_PLANNING, out);
}

static re_status meter_feed_now(re_loudness_meter *m, const int16_t *pcm, size_t frames)
{
    if (frames && m->state && ebur128_add_frames_short(m->state, pcm, frames) != EBUR128_SUCCESS)
        return RE_ERR_NOMEM;
    float block[256];
    for (size_t i = 0; m->kind != METER_PLANNING && i < frames; i += 256) {
        size_t n = frames - i < 256 ? frames - i : 256;
        for (size_t k = 0; k < n; k++)
            block[k] = (float)pcm[i + k] * (1.0f / 32768.0f);
        peaks_feed(&m->peaks[0], &m->ip, block, n, 1);
    }
    m->frames += frames;
    return RE_OK;
}

static re_status meter_feed_float(re_loudness_meter *m, const float *pcm, size_t frames)
{
    if (frames && m->state && ebur128_add_frames_float(m->state, pcm, frames) != EBUR128_SUCCESS)
        return RE_ERR_NOMEM;
    for (unsigned ch = 0; ch < m->channels; ch++)
        peaks_feed(&m->peaks[ch], &m->ip, pcm + ch, frames, m->channels);
    m->frames += frames;
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
        if (m->kind != METER_PLANNING) {
            peak_finish(&m->peaks[ch], &m->ip);
            tp = m->peaks[ch].true_peak;
            sp = m->peaks[ch].sample_peak;
        } else if (ebur128_sample_peak(m->state, ch, &sp) != EBUR128_SUCCESS) {
            return RE_ERR_INVALID;
        } else {
            tp = sp * pow(10.0, RE_LOUDNESS_PLANNING_PEAK_MARGIN_DB / 20.0);
        }
        true_peak = fmax(true_peak, tp);
        sample_peak = fmax(sample_peak, sp);
    }
    out->integrated_lufs = isfinite(integrated) ? integrated : -HUGE_VAL;
    out->range_lu = isfinite(range) && range > 0 ? range : 0;
    /* A true peak under the sample peak would be an interpolation artefact of the meter. */
    out->true_peak_dbtp = db_of(fmax(true_peak, sample_peak));
    out->sample_peak_dbfs = db_of(sample_peak);
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

/* ==========================================================================================
 * The leveler
 *
 * Per input sample n (all in input units, full scale 32768):
 *   1. true-peak estimate of the interval [c, c+1), c = n - FIR_HALF: the sample and the
 *      OVERSAMPLE-1 points between it and the next, by a 16-tap-per-phase Kaiser-windowed
 *      sinc interpolator (which needs FIR_HALF samples after c);
 *   2. the gain sample c needs so that both intervals it touches stay under the ceiling;
 *   3. the minimum of that over the last `hold` samples (a monotonic deque), then an
 *      exponential release: r[c] <= every requirement in [c - hold + 1, c];
 *   4. a moving average of r over `attack` samples: the gain applied to sample
 *      p = c - attack + 1 averages r[p .. c], each of which is <= the requirement at p
 *      (hold >= attack), so the ramp ends on the peak and never lets it through;
 *   5. output p = input p x gain x limiter gain, rounded to nearest (lrint), clamped.
 * r is kept in Q30 fixed point so the running sum of step 4 is exact (no drift over hours). */
#define ATTACK_S 0.005
#define HOLD_S 0.020
#define RELEASE_S 0.100
#define Q30 1073741824.0
#define REDUCED 0.998849      /* -0.01 dB: below this a frame counts as limited */
#define RELEASE_SNAP 1e-9   /* release this close to its goal ends the recovery */

typedef struct hold_entry {
    uint64_t index;
    double value;
} hold_entry;

struct re_leveler {
    double gain;                 /* linear */
    double ceiling_in;           /* the ceiling in input units before gain (32768 = 0 dBFS) */
    interpolator ip;
    int16_t fir[2 * FIR_TAPS];   /* the last FIR_TAPS input samples, each written twice (at
                                  * n % FIR_TAPS and FIR_TAPS later) so they read contiguously */
    double prev_interval_peak;   /* estimate for [c-1, c) */
    double loud_in;              /* |x| above this can reach the ceiling: ceiling_in / peak_bound */
    unsigned loud_left;          /* steps until no such sample is among the taps any more */
    unsigned rest_skip;          /* steps before rest_block looks at the input again */
    hold_entry *hold;            /* deque ring, capacity hold_cap (a power of two) */
    size_t hold_cap, hold_head, hold_count, hold_len;
    double release_alpha, release;
    int64_t *box;                /* the last `attack` values of r in Q30 */
    size_t attack, box_at;
    int64_t box_sum, box_full;   /* box_full: the sum when every r is 1 */
    double box_scale;            /* 1 / (attack * 2^30) */
    int16_t *delay;              /* input samples waiting for their gain, ring of delay_cap */
    size_t delay_cap;
    size_t latency;
    uint64_t in_count;           /* samples pushed, real and (at flush) virtual zeros */
    uint64_t real_count;         /* real input samples */
    uint64_t out_count;
    double min_gain;
    uint64_t limited;
    int flushed;
};

static size_t pow2_at_least(size_t n)
{
    size_t p = 1;
    while (p < n)
        p *= 2;
    return p;
}

re_status re_leveler_create(unsigned sample_rate, double gain_db, double ceiling_dbtp,
                            re_leveler **out)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = NULL;
    if (sample_rate < RATE_MIN || sample_rate > RATE_MAX || !isfinite(gain_db)
        || fabs(gain_db) > RE_LOUDNESS_MAX_GAIN_DB || !isfinite(ceiling_dbtp)
        || ceiling_dbtp < RE_LOUDNESS_CEILING_MIN || ceiling_dbtp > RE_LOUDNESS_CEILING_MAX)
        return RE_ERR_INVALID;
    re_leveler *lv = calloc(1, sizeof *lv);
    if (!lv)
        return RE_ERR_NOMEM;
    lv->gain = pow(10.0, gain_db / 20.0);
    lv->ceiling_in = 32768.0 * pow(10.0, ceiling_dbtp / 20.0) / lv->gain;
    make_interpolator(&lv->ip);
    lv->loud_in = lv->ceiling_in / lv->ip.peak_bound * (1 - 1e-12);   /* errs towards the full path */
    lv->attack = (size_t)lround(sample_rate * ATTACK_S);
    lv->hold_len = (size_t)lround(sample_rate * HOLD_S);
    lv->hold_cap = pow2_at_least(lv->hold_len + 1);
    lv->release_alpha = 1.0 - exp(-1.0 / (sample_rate * RELEASE_S));
    lv->release = 1.0;
    lv->latency = FIR_HALF + lv->attack - 1;
    lv->delay_cap = pow2_at_least(lv->latency + 1);
    lv->hold = malloc(lv->hold_cap * sizeof *lv->hold);
    lv->box = malloc(lv->attack * sizeof *lv->box);
    lv->delay = calloc(lv->delay_cap, sizeof *lv->delay);
    if (!lv->hold || !lv->box || !lv->delay) {
        re_leveler_free(lv);
        return RE_ERR_NOMEM;
    }
    for (size_t i = 0; i < lv->attack; i++)
        lv->box[i] = (int64_t)Q30;
    lv->box_sum = lv->box_full = (int64_t)lv->attack * (int64_t)Q30;
    lv->box_scale = 1.0 / ((double)lv->attack * Q30);
    lv->min_gain = 1.0;
    *out = lv;
    return RE_OK;
}

size_t re_leveler_latency(const re_leveler *lv)
{
    return lv ? lv->latency : 0;
}

/* Peak magnitude over [c, c+1) where c = n - FIR_HALF and x[n] is the newest sample; or 0 when
 * no tap is loud enough for any interpolated point to pass the ceiling (most samples: every
 * value at or under the ceiling means the same to the caller). */
static double interval_peak(const re_leveler *lv, uint64_t n)
{
    if (!lv->loud_left)
        return 0;
    const int16_t *ring = &lv->fir[(n + 1) & (FIR_TAPS - 1)];   /* x[n - FIR_TAPS + 1 .. n] */
    float taps[FIR_TAPS];
    for (int j = 0; j < FIR_TAPS; j++)
        taps[j] = (float)ring[j];
    return interval_max(&lv->ip, taps);
}

static void hold_push(re_leveler *lv, uint64_t index, double value)
{
    size_t mask = lv->hold_cap - 1;
    while (lv->hold_count && lv->hold[(lv->hold_head + lv->hold_count - 1) & mask].value >= value)
        lv->hold_count--;
    lv->hold[(lv->hold_head + lv->hold_count) & mask] = (hold_entry){ index, value };
    lv->hold_count++;
    while (lv->hold[lv->hold_head].index + lv->hold_len <= index) {
        lv->hold_head = (lv->hold_head + 1) & mask;
        lv->hold_count--;
    }
}

/* Pushes one sample; returns 1 and sets *out when an output sample is due. */
static int leveler_step(re_leveler *lv, int16_t x, int16_t *out)
{
    uint64_t n = lv->in_count++;
    lv->fir[n & (FIR_TAPS - 1)] = lv->fir[(n & (FIR_TAPS - 1)) + FIR_TAPS] = x;
    lv->delay[n & (lv->delay_cap - 1)] = x;
    if ((x < 0 ? -x : x) > lv->loud_in)
        lv->loud_left = FIR_TAPS;

    double peak = interval_peak(lv, n);
    if (lv->loud_left)
        lv->loud_left--;
    double near = peak > lv->prev_interval_peak ? peak : lv->prev_interval_peak;
    lv->prev_interval_peak = peak;
    double need = near > lv->ceiling_in ? lv->ceiling_in / near : 1.0;

    hold_push(lv, n, need);
    double held = lv->hold[lv->hold_head].value;
    if (held < lv->release)
        lv->release = held;
    else if (held - lv->release < RELEASE_SNAP)   /* recovered: snap, so gain-only is exact again */
        lv->release = held;
    else
        lv->release += (held - lv->release) * lv->release_alpha;
    int64_t r = (int64_t)(lv->release * Q30);   /* >= 0: truncation is floor */

    size_t at = lv->box_at;
    lv->box_sum += r - lv->box[at];
    lv->box[at] = r;
    lv->box_at = at + 1 == lv->attack ? 0 : at + 1;

    if (n < lv->latency)
        return 0;
    uint64_t p = n - lv->latency;
    /* exactly 1 when nothing is limited, so a gain-only stretch is exactly x * gain */
    double g = lv->box_sum == lv->box_full ? 1.0 : (double)lv->box_sum * lv->box_scale;
    long v = lrint((double)lv->delay[p & (lv->delay_cap - 1)] * (lv->gain * g));
    *out = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
    if (p < lv->real_count && g < 1.0) {
        if (g < lv->min_gain)
            lv->min_gain = g;
        if (g < REDUCED)
            lv->limited++;
    }
    return 1;
}

/* At rest: nothing limited now or pending (release recovered, every held need and every r in
 * the box exactly 1, the last interval under the ceiling). */
static int at_rest(const re_leveler *lv)
{
    return lv->release == 1.0 && lv->box_sum == lv->box_full && lv->hold_count
           && lv->hold[lv->hold_head].value == 1.0 && lv->prev_interval_peak <= lv->ceiling_in;
}

#define REST_BLOCK 256

/* At rest, a block whose samples (and the taps before it) cannot reach the ceiling even at the
 * interpolator's bound needs nothing but the gain: every step of leveler_step would push need
 * 1, keep release and the box at 1 and output x * gain. Done here without those steps, with
 * the same state afterwards, so the samples are identical to the step-by-step path. Returns 0
 * (nothing consumed) when the block needs the full path. */
static size_t rest_block(re_leveler *lv, const int16_t *in, size_t frames, int16_t *out,
                         size_t *written)
{
    if (frames < REST_BLOCK || lv->rest_skip || lv->loud_left || !at_rest(lv))
        return 0;
    int largest = 0;
    for (size_t i = 0; i < REST_BLOCK; i++) {
        int a = in[i] < 0 ? -in[i] : in[i];
        largest = a > largest ? a : largest;
    }
    if (largest > lv->loud_in) {
        lv->rest_skip = REST_BLOCK;   /* the step-by-step path takes this stretch */
        return 0;
    }
    size_t mask = lv->delay_cap - 1, n_out = 0;
    for (size_t i = 0; i < REST_BLOCK; i++) {
        uint64_t n = lv->in_count++;
        lv->fir[n & (FIR_TAPS - 1)] = lv->fir[(n & (FIR_TAPS - 1)) + FIR_TAPS] = in[i];
        lv->delay[n & mask] = in[i];
        if (n >= lv->latency) {
            long v = lrint((double)lv->delay[(n - lv->latency) & mask] * lv->gain);
            out[n_out++] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
        }
    }
    lv->hold[lv->hold_head] = (hold_entry){ lv->in_count - 1, 1.0 };
    lv->hold_count = 1;
    lv->box_at = (lv->box_at + REST_BLOCK) % lv->attack;
    lv->prev_interval_peak = 0;
    *written = n_out;
    return REST_BLOCK;
}

re_status re_leveler_process(re_leveler *lv, const int16_t *in, size_t frames, int16_t *out,
                             size_t *got)
{
    if (got)
        *got = 0;
    if (!lv || !got || lv->flushed || (frames && (!in || !out)))
        return RE_ERR_INVALID;
    size_t n = 0;
    for (size_t i = 0; i < frames;) {
        size_t written = 0, used = rest_block(lv, in + i, frames - i, out + n, &written);
        if (used) {
            lv->real_count += used;
            n += written;
            i += used;
            continue;
        }
        lv->real_count++;
        n += (size_t)leveler_step(lv, in[i], out + n);
        i++;
        if (lv->rest_skip)
            lv->rest_skip--;
    }
    lv->out_count += n;
    *got = n;
    return RE_OK;
}

re_status re_leveler_flush(re_leveler *lv, int16_t *out, size_t *got)
{
    if (got)
        *got = 0;
    if (!lv || !got || !out || lv->flushed)
        return RE_ERR_INVALID;
    lv->flushed = 1;
    size_t n = 0;
    while (lv->out_count + n < lv->real_count) {
        int16_t sample;
        if (leveler_step(lv, 0, &sample))
            out[n++] = sample;
    }
    lv->out_count += n;
    *got = n;
    return RE_OK;
}

void re_leveler_get_stats(const re_leveler *lv, re_leveler_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!lv)
        return;
    out->max_reduction_db = lv->min_gain < 1.0 ? -db_of(lv->min_gain) : 0.0;
    out->limited_frames = lv->limited;
}

void re_leveler_free(re_leveler *lv)
{
    if (!lv)
        return;
    free(lv->hold);
    free(lv->box);
    free(lv->delay);
    free(lv);
}

/* ==========================================================================================
 * The plan
 * ========================================================================================== */

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

re_status re_loudness_plan_make(const re_loudness *pass1, double target_lufs,
                                double ceiling_dbtp, re_loudness_output output,
                                re_loudness_plan *out)
{
    if (!pass1 || !out || !isfinite(target_lufs) || !isfinite(ceiling_dbtp)
        || target_lufs < RE_LOUDNESS_TARGET_MIN || target_lufs > RE_LOUDNESS_TARGET_MAX
        || ceiling_dbtp < RE_LOUDNESS_CEILING_MIN || ceiling_dbtp > RE_LOUDNESS_CEILING_MAX
        || (output != RE_LOUDNESS_PCM && output != RE_LOUDNESS_MP3))
        return RE_ERR_INVALID;
    int mp3 = output == RE_LOUDNESS_MP3;
    double aim = target_lufs - (mp3 ? RE_LOUDNESS_MP3_LEVEL_DB : 0.0);
    double gain = isfinite(pass1->integrated_lufs) ? aim - pass1->integrated_lufs : 0.0;
    gain = clamp(gain, -RE_LOUDNESS_MAX_GAIN_DB, RE_LOUDNESS_MAX_GAIN_DB);
    double limiter_ceiling = fmax(ceiling_dbtp - (mp3 ? RE_LOUDNESS_MP3_MARGIN_DB
                                                      : RE_LOUDNESS_PCM_MARGIN_DB),
                                  RE_LOUDNESS_CEILING_MIN);
    *out = (re_loudness_plan){
        .target_lufs = target_lufs,
        .ceiling_dbtp = ceiling_dbtp,
        .gain_db = gain,
        .limiter_ceiling_dbtp = limiter_ceiling,
        .leveled_aim_lufs = aim,
        .pass1_true_peak_dbtp = pass1->true_peak_dbtp,
        .first_gain_db = gain,
    };
    /* The limiter takes more loudness the further peaks go over its ceiling. The first dry
     * run starts with a share of what it is expected to take, so that it lands within
     * tolerance more often (each dry run is a pass over the whole episode). */
    double over = pass1->true_peak_dbtp + gain - limiter_ceiling;
    if (isfinite(pass1->integrated_lufs) && over > 0)
        out->gain_db = clamp(gain + fmin(RE_LOUDNESS_LIMITER_LOSS_PER_DB2 * over * over,
                                         RE_LOUDNESS_MAX_EXTRA_GAIN_DB / 2),
                             -RE_LOUDNESS_MAX_GAIN_DB, RE_LOUDNESS_MAX_GAIN_DB);
    return RE_OK;
}

int re_loudness_plan_limits(const re_loudness_plan *plan)
{
    return plan && plan->pass1_true_peak_dbtp + plan->gain_db > plan->limiter_ceiling_dbtp - 0.3;
}

/* Moves the gain so the residual (measured - aimed) goes to 0: a secant step through the last
 * measurement when there is one at a different gain, else a step of slope 1. The limiter makes
 * loudness grow more slowly than gain, so the slope is kept within 0.2 .. 1. */
static void step_gain(re_loudness_plan *plan, double residual)
{
    double slope = 1.0;
    if (plan->have_last && fabs(plan->gain_db - plan->last_gain_db) > 0.01)
        slope = clamp((residual - plan->last_residual_lu) / (plan->gain_db - plan->last_gain_db),
                      0.2, 1.0);
    plan->have_last = 1;
    plan->last_gain_db = plan->gain_db;
    plan->last_residual_lu = residual;
    double gain = plan->gain_db - residual / slope;
    gain = fmin(gain, plan->first_gain_db + RE_LOUDNESS_MAX_EXTRA_GAIN_DB);
    plan->gain_db = clamp(gain, -RE_LOUDNESS_MAX_GAIN_DB, RE_LOUDNESS_MAX_GAIN_DB);
}

int re_loudness_plan_update(re_loudness_plan *plan, const re_loudness *measured,
                            re_loudness_stage stage)
{
    if (!plan || !measured)
        return 0;
    int silent = !isfinite(measured->integrated_lufs);
    if (stage == RE_LOUDNESS_LEVELED) {
        plan->dry_runs++;
        double residual = silent ? 0.0 : measured->integrated_lufs - plan->leveled_aim_lufs;
        if (fabs(residual) <= RE_LOUDNESS_LEVELED_TOLERANCE_LU
            || plan->dry_runs >= RE_LOUDNESS_MAX_DRY_RUNS)
            return 0;
        double before = plan->gain_db;
        step_gain(plan, residual);
        return plan->gain_db != before;
    }
    plan->encodes++;
    double residual = silent ? 0.0 : measured->integrated_lufs - plan->target_lufs;
    double over = measured->true_peak_dbtp - plan->ceiling_dbtp;   /* -inf for silence */
    int loudness_off = fabs(residual) > RE_LOUDNESS_TOLERANCE_LU;
    plan->met = !loudness_off && !(over > 0);
    if (plan->met || plan->encodes >= RE_LOUDNESS_MAX_ENCODES)
        return 0;
    if (loudness_off)
        step_gain(plan, residual);
    if (over > 0)
        plan->limiter_ceiling_dbtp = fmax(plan->limiter_ceiling_dbtp - over - 0.3,
                                          RE_LOUDNESS_CEILING_MIN);
    return 1;
}

/* ==========================================================================================
 * After encoding: decode the MP3 with libmpg123 and meter it
 * ========================================================================================== */

/* Feeds every decoded block to a meter; the format must stay the first frame's. */
typedef struct meter_feed {
    re_loudness_meter *meter;
    long rate;
    int channels;
    re_status status;
    re_diagnostics *diag;
} meter_feed;

static int feed_block(void *user, const re_mp3_block *b)
{
    meter_feed *f = user;
    if (b->new_format) {
        if (b->rate != f->rate || b->channels != f->channels) {
            re_diag_add(f->diag, NULL, 0, 0, "the MP3 changes its sample rate or channels midway");
            f->status = RE_ERR_FORMAT;
        }
    } else {
        f->status = meter_feed_float(f->meter, (const float *)(const void *)b->pcm,
                                     b->bytes / (sizeof(float) * (size_t)f->channels));
    }
    return f->status != RE_OK;
}

/* A float decoder of the MP3 open on fd, read from its start. */
static re_status open_mp3_fd(int fd, re_mp3_source *src, mpg123_handle **mh, re_diagnostics *diag)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot read the MP3: %s", strerror(errno));
        return RE_ERR_READ;
    }
    *src = (re_mp3_source){ .fd = fd, .pos = 0, .size = st.st_size, .error = 0 };
    return re_mp3_decoder_open(MPG123_ENC_FLOAT_32, src, mh, diag);
}

static re_status decode_into_meter(mpg123_handle *mh, const re_mp3_source *src, meter_kind kind,
                                   re_loudness *out, re_diagnostics *diag)
{
    re_mp3_format fmt;
    re_mp3_format_problem problem = re_mp3_decoder_format(mh, MPG123_ENC_FLOAT_32, &fmt);
    if (problem == RE_MP3_NO_FRAME && src->error) {
        re_diag_add(diag, NULL, 0, 0, "cannot read the MP3: %s", strerror(src->error));
        return RE_ERR_READ;
    }
    if (problem == RE_MP3_NO_FRAME || problem == RE_MP3_NO_INFO || problem == RE_MP3_NOT_LAYER3) {
        re_diag_add(diag, NULL, 0, 0, "not an MP3: no MPEG audio layer III frame found");
        return RE_ERR_FORMAT;
    }
    if (problem != RE_MP3_FORMAT_OK) {
        re_diag_add(diag, NULL, 0, 0, "not an MP3: unusable output format");
        return RE_ERR_FORMAT;
    }
    re_loudness_meter *m = NULL;
    re_status status = meter_create_kind((unsigned)fmt.rate, (unsigned)fmt.channels, kind, &m);
    if (status != RE_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot meter %ld Hz audio", fmt.rate);
        return status;
    }
    meter_feed feed = { m, fmt.rate, fmt.channels, RE_OK, diag };
    if (re_mp3_decoder_each(mh, feed_block, &feed) == RE_MP3_END_ERROR) {
        if (src->error) {
            re_diag_add(diag, NULL, 0, 0, "cannot read the MP3: %s", strerror(src->error));
            feed.status = RE_ERR_READ;
        } else {
            re_diag_add(diag, NULL, 0, 0, "damaged MP3 after %llu samples: %s",
                        (unsigned long long)m->frames, mpg123_strerror(mh));
            feed.status = RE_ERR_FORMAT;
        }
    }
    status = feed.status;
    if (status == RE_OK)
        status = re_loudness_meter_finish(m, out);
    re_loudness_meter_free(m);
    return status;
}

static re_status measure_mp3_fd(int fd, meter_kind kind, re_loudness *out, re_diagnostics *diag)
{
    if (!out || fd < 0)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    re_mp3_source src;
    mpg123_handle *mh = NULL;
    re_status status = open_mp3_fd(fd, &src, &mh, diag);
    if (status != RE_OK)
        return status;
    status = decode_into_meter(mh, &src, kind, out, diag);
    mpg123_close(mh);
    mpg123_delete(mh);
    if (status != RE_OK)
        memset(out, 0, sizeof *out);
    return status;
}

re_status re_loudness_measure_mp3_fd(int fd, re_loudness *out, re_diagnostics *diag)
{
    return measure_mp3_fd(fd, METER_FULL, out, diag);
}

/* Where a mono MP3 passes a ceiling (the local true-peak retry): one decoder from the start, a
 * peak finder whose bar is the ceiling (so quiet audio only passes through its ring), checked
 * every OVER_BLOCK samples; spots closer than OVER_MERGE_S are one. */
#define OVER_BLOCK 64
#define OVER_MERGE_S 0.1

typedef struct over_feed {
    interpolator ip;
    peak_finder pf;
    float bar;
    uint64_t at, merge;
    re_loudness_spot *spots;
    size_t capacity, count;
} over_feed;

static void over_note(over_feed *f, uint64_t first, uint64_t last)
{
    double peak = db_of(fmax(f->pf.true_peak, f->pf.sample_peak));
    f->pf.true_peak = f->pf.sample_peak = f->bar;
    if (f->count > 0 && f->count <= f->capacity
        && first <= f->spots[f->count - 1].last + f->merge) {
        re_loudness_spot *s = &f->spots[f->count - 1];
        s->last = last;
        s->peak_dbtp = fmax(s->peak_dbtp, peak);
        return;
    }
    if (f->count < f->capacity)
        f->spots[f->count] = (re_loudness_spot){ first, last, peak };
    f->count++;
}

static int over_block(void *user, const re_mp3_block *b)
{
    over_feed *f = user;
    if (b->new_format)
        return 0;
    const float *x = (const float *)(const void *)b->pcm;
    size_t n = b->bytes / sizeof(float);
    for (size_t i = 0; i < n; i += OVER_BLOCK) {
        size_t m = n - i < OVER_BLOCK ? n - i : OVER_BLOCK;
        peaks_feed(&f->pf, &f->ip, x + i, m, 1);
        if (f->pf.true_peak > f->bar || f->pf.sample_peak > f->bar) {
            /* an interval is measured FIR_HALF samples after it: the spot is in these */
            uint64_t end = f->at + i + m;
            over_note(f, end > m + FIR_TAPS ? end - m - FIR_TAPS : 0, end);
        }
    }
    f->at += n;
    return 0;
}

/* The peaks of an MP3 measured in two halves at once, one per thread: the second decoder
 * starts PEAK_PRIMING frames early, so that its bit reservoir, overlap and synthesis filter
 * hold what a decoder from the start would have. Its samples from the split on are a single
 * decoder's to within float rounding (measured on LAME files at 7 split points each: equal,
 * or at most 1.2e-7 of full scale apart, where libmpg123's synthesis ring restarts at
 * another position). Every interval is measured by one of the halves with all its real taps.
 * The split depends only on the file's length, so the result is the same on every run. */
#define PEAK_PRIMING 4              /* frames decoded before a half and not measured */
#define PEAK_SPLIT_MIN (1u << 20)   /* samples (48 s at 22050 Hz) worth a second decoder */

typedef struct peak_part {
    int fd;
    off_t size;
    off_t from, to;          /* gapless samples whose intervals this part measures */
    int last;                /* the part that reaches the end */
    interpolator ip;
    peak_finder pf;
    off_t decoded;           /* gapless samples decoded up to */
    /* a peak map's tiles (NULL: none): the finder's peaks are one tile's, kept per tile */
    float *tile_true, *tile_sample;
    size_t tiles, tile;      /* tile: the one the finder measures now (tiles: none yet) */
    over_feed *over;         /* the first part only (may be NULL): spots over a ceiling */
    re_status status;
    re_diagnostics diag;     /* the part's thread's own; the whole file's decoder reports */
} peak_part;

/* Pushes of gapless samples [pos, pos + n), each tile's peaks kept apart: the finder starts
 * each tile from nothing, and skips only what cannot pass that tile's peak so far, so the
 * largest tile is exactly the whole file's peak. */
static void tile_store(peak_part *pt)
{
    if (pt->tile < pt->tiles) {
        float *t = &pt->tile_true[pt->tile], *s = &pt->tile_sample[pt->tile];
        *t = pt->pf.true_peak > *t ? pt->pf.true_peak : *t;
        *s = pt->pf.sample_peak > *s ? pt->pf.sample_peak : *s;
    }
}

static void tiles_feed(peak_part *pt, const float *x, size_t n, off_t pos)
{
    if (!pt->tile_true) {
        peaks_feed(&pt->pf, &pt->ip, x, n, 1);
        return;
    }
    while (n > 0) {
        size_t k = (size_t)(pos / RE_LOUDNESS_TILE);
        if (k >= pt->tiles)
            k = pt->tiles - 1;   /* the finish's pushes past a length that ends a tile */
        if (k != pt->tile) {
            tile_store(pt);
            pt->tile = k;
            pt->pf.true_peak = pt->pf.sample_peak = 0;
        }
        off_t left = (off_t)(k + 1) * RE_LOUDNESS_TILE - pos;
        size_t m = k + 1 < pt->tiles && left < (off_t)n ? (size_t)left : n;
        peaks_feed(&pt->pf, &pt->ip, x, m, 1);
        x += m;
        n -= m;
        pos += (off_t)m;
    }
}

/* The intervals at the end, against the silence after it (peak_finish, in tiles). */
static void tiles_finish(peak_part *pt, off_t pos)
{
    static const float zeros[FIR_HALF];
    tiles_feed(pt, zeros, FIR_HALF, pos);
    tile_store(pt);
}

/* Measures a part's intervals from each decoded block; `at` counts gapless samples. */
typedef struct part_feed {
    peak_part *pt;
    off_t at;
    off_t end;               /* the last interval's later taps; -1: to the end */
} part_feed;

static int part_block(void *user, const re_mp3_block *b)
{
    part_feed *f = user;
    peak_part *pt = f->pt;
    if (b->new_format)
        return 0;
    if (pt->over)   /* a decoder from the start: every block, as the whole search makes them */
        over_block(pt->over, b);
    const float *x = (const float *)(const void *)b->pcm;
    size_t n = b->bytes / sizeof(float), i = 0;
    for (; i < n && f->at + (off_t)i < pt->from; i++)
        if (f->at + (off_t)i >= pt->from - FIR_TAPS)
            peak_prime(&pt->pf, &pt->ip, x[i]);
    size_t stop = n;
    if (f->end >= 0 && f->at + (off_t)n > f->end)
        stop = f->end > f->at + (off_t)i ? (size_t)(f->end - f->at) : i;
    if (stop > i)
        tiles_feed(pt, x + i, stop - i, f->at + (off_t)i);
    f->at += (off_t)n;
    return f->end >= 0 && f->at >= f->end;
}

static re_status part_decode(peak_part *pt, mpg123_handle *mh, const re_mp3_source *src)
{
    off_t at = 0;
    if (pt->from > 0) {
        re_mp3_format fmt;
        if (re_mp3_decoder_format(mh, MPG123_ENC_FLOAT_32, &fmt) != RE_MP3_FORMAT_OK)
            return RE_ERR_FORMAT;
        off_t spf = fmt.info.version == MPG123_1_0 ? 1152 : 576;
        off_t want = pt->from - (off_t)PEAK_PRIMING * spf;
        at = want < 0 ? 0 : want;
        if (mpg123_seek(mh, at, SEEK_SET) != at || mpg123_tell(mh) != at) {
            re_diag_add(&pt->diag, NULL, 0, 0, "cannot seek in the MP3: %s", mpg123_strerror(mh));
            return RE_ERR_FORMAT;
        }
    }
    part_feed feed = { pt, at, pt->last ? -1 : pt->to + FIR_HALF };
    if (re_mp3_decoder_each(mh, part_block, &feed) == RE_MP3_END_ERROR) {
        re_diag_add(&pt->diag, NULL, 0, 0,
                    src->error ? "cannot read the MP3: %s" : "damaged MP3: %s",
                    src->error ? strerror(src->error) : mpg123_strerror(mh));
        return src->error ? RE_ERR_READ : RE_ERR_FORMAT;
    }
    pt->decoded = feed.at;
    if (pt->last && pt->tile_true)
        tiles_finish(pt, feed.at);
    else if (pt->last)
        peak_finish(&pt->pf, &pt->ip);
    else
        tile_store(pt);
    return RE_OK;
}

static void *peak_part_main(void *arg)
{
    peak_part *pt = arg;
    re_mp3_source src = { .fd = pt->fd, .pos = 0, .size = pt->size, .error = 0 };
    mpg123_handle *mh = NULL;
    pt->status = re_mp3_decoder_open(MPG123_ENC_FLOAT_32, &src, &mh, &pt->diag);
    if (pt->status == RE_OK) {
        pt->status = part_decode(pt, mh, &src);
        mpg123_close(mh);
        mpg123_delete(mh);
    }
    return NULL;
}

/* A mono MP3 of known length (a LAME tag) in two halves; 0 when it is not one, or short. */
static int peaks_split_point(int fd, off_t size, off_t *split, off_t *length, off_t *spf,
                             long *rate)
{
    re_mp3_source src = { .fd = fd, .pos = 0, .size = size, .error = 0 };
    mpg123_handle *mh = NULL;
    if (re_mp3_decoder_open(MPG123_ENC_FLOAT_32, &src, &mh, NULL) != RE_OK)
        return 0;
    re_mp3_format fmt;
    off_t len = -1;
    if (re_mp3_decoder_format(mh, MPG123_ENC_FLOAT_32, &fmt) == RE_MP3_FORMAT_OK
        && fmt.channels == 1)
        len = mpg123_length(mh);
    mpg123_close(mh);
    mpg123_delete(mh);
    if (len < (off_t)PEAK_SPLIT_MIN)
        return 0;
    *spf = fmt.info.version == MPG123_1_0 ? 1152 : 576;
    *split = len / 2 / *spf * *spf;
    *length = len;
    *rate = fmt.rate;
    return 1;
}

static void peak_parts_free(peak_part *parts, int count)
{
    for (int k = 0; parts && k < count; k++) {
        re_diagnostics_free(&parts[k].diag);
        free(parts[k].tile_true);
        free(parts[k].tile_sample);
    }
    free(parts);
}

/* `count` parts of the map's file, each with tiles of its own (all zero). */
static peak_part *peak_parts_new(int fd, off_t size, const re_loudness_peak_map *map, int count)
{
    peak_part *parts = calloc((size_t)count, sizeof *parts);
    for (int k = 0; parts && k < count; k++) {
        parts[k] = (peak_part){ .fd = fd, .size = size, .tiles = map->tiles, .tile = map->tiles };
        make_interpolator(&parts[k].ip);
        re_diagnostics_init(&parts[k].diag, RE_DIAG_DEFAULT_LIMIT);
        parts[k].tile_true = calloc(map->tiles, sizeof(float));
        parts[k].tile_sample = calloc(map->tiles, sizeof(float));
        if (!parts[k].tile_true || !parts[k].tile_sample) {
            peak_parts_free(parts, k + 1);
            return NULL;
        }
    }
    return parts;
}

void re_loudness_peak_map_free(re_loudness_peak_map *map)
{
    if (!map)
        return;
    free(map->tile_true);
    free(map->tile_sample);
    memset(map, 0, sizeof *map);
}

/* The peaks of the whole file from its tiles (as re_loudness_peaks_mp3_fd reports them). */
static void map_summary(const re_loudness_peak_map *map, re_loudness *out)
{
    float true_peak = 0, sample_peak = 0;
    for (size_t k = 0; k < map->tiles; k++) {
        true_peak = map->tile_true[k] > true_peak ? map->tile_true[k] : true_peak;
        sample_peak = map->tile_sample[k] > sample_peak ? map->tile_sample[k] : sample_peak;
    }
    memset(out, 0, sizeof *out);
    out->integrated_lufs = -HUGE_VAL;
    out->true_peak_dbtp = db_of(fmax(true_peak, sample_peak));
    out->sample_peak_dbfs = db_of(sample_peak);
    out->frames = map->frames;
}

/* One decoder from the start, for a file too short for halves (or one that cannot be split). */
static re_status peaks_whole(int fd, re_loudness *out, re_diagnostics *diag)
{
    re_status status = measure_mp3_fd(fd, METER_PEAKS, out, diag);
    if (status == RE_OK)
        out->integrated_lufs = -HUGE_VAL;
    return status;
}

/* Relative rounding a decoder that seeks may be off by (1e-7, measured), with room. */
#define SEEK_ROUNDING 1e-5f

static int over_rest_block(void *user, const re_mp3_block *b)
{
    return over_block(user, b);
}

/* The map in halves; with `over`, the first half's decoder (from the start) also searches
 * for spots, and goes on alone through the second half when a tile there may pass its bar
 * (the second half's own decoder is off by rounding: it cannot decide a spot). *over_done is
 * 0 when the spots could not be searched so (the caller searches the whole file). */
static re_status map_decode(int fd, re_loudness_peak_map *map, re_loudness *out, over_feed *over,
                            int *over_done, re_diagnostics *diag)
{
    *over_done = 0;
    re_loudness_peak_map_free(map);
    struct stat st;
    off_t split = 0, length = 0, spf = 0;
    long rate = 0;
    if (fstat(fd, &st) != 0 || !peaks_split_point(fd, st.st_size, &split, &length, &spf, &rate))
        return peaks_whole(fd, out, diag);
    *map = (re_loudness_peak_map){ .rate = rate, .spf = (unsigned)spf,
                                   .tiles = (size_t)((length + FIR_HALF) / RE_LOUDNESS_TILE) + 1 };
    map->tile_true = calloc(map->tiles, sizeof(float));
    map->tile_sample = calloc(map->tiles, sizeof(float));
    peak_part *parts = map->tile_true && map->tile_sample
                       ? peak_parts_new(fd, st.st_size, map, 2) : NULL;
    re_mp3_source *src = malloc(sizeof *src);
    if (!parts || !src) {
        peak_parts_free(parts, 2);
        free(src);
        re_loudness_peak_map_free(map);
        return RE_ERR_NOMEM;
    }
    for (int k = 0; k < 2; k++) {
        parts[k].from = k ? split : 0;
        parts[k].to = k ? length : split;
        parts[k].last = k == 1;
    }
    if (over) {
        over->merge = (uint64_t)(OVER_MERGE_S * (double)rate);
        parts[0].over = over;
    }
    pthread_t second;
    int threaded = pthread_create(&second, NULL, peak_part_main, &parts[1]) == 0;
    /* the first half on this thread, its decoder kept for the spots' second half */
    *src = (re_mp3_source){ .fd = fd, .pos = 0, .size = st.st_size, .error = 0 };
    mpg123_handle *mh = NULL;
    parts[0].status = re_mp3_decoder_open(MPG123_ENC_FLOAT_32, src, &mh, &parts[0].diag);
    if (parts[0].status == RE_OK)
        parts[0].status = part_decode(&parts[0], mh, src);
    if (threaded)
        pthread_join(second, NULL);
    else
        peak_part_main(&parts[1]);
    re_status status = parts[0].status != RE_OK ? parts[0].status : parts[1].status;
    if (status == RE_OK) {
        for (size_t k = 0; k < map->tiles; k++) {
            map->tile_true[k] = fmaxf(parts[0].tile_true[k], parts[1].tile_true[k]);
            map->tile_sample[k] = fmaxf(parts[0].tile_sample[k], parts[1].tile_sample[k]);
        }
        map->frames = (uint64_t)parts[1].decoded;
    }
    if (status == RE_OK && over) {
        /* intervals the first decoder has not measured are in these tiles or later */
        off_t seen = parts[0].decoded > 2 * OVER_BLOCK ? parts[0].decoded - 2 * OVER_BLOCK : 0;
        float near_bar = over->bar * (1.0f - SEEK_ROUNDING);
        int rest = 0;
        for (size_t k = (size_t)(seen / RE_LOUDNESS_TILE); !rest && k < map->tiles; k++)
            rest = map->tile_true[k] > near_bar || map->tile_sample[k] > near_bar;
        re_mp3_end end = rest ? re_mp3_decoder_each(mh, over_rest_block, over) : RE_MP3_END_DONE;
        if (end == RE_MP3_END_DONE && rest) {   /* the file's end, as the whole search ends */
            peak_finish(&over->pf, &over->ip);
            if (over->pf.true_peak > over->bar || over->pf.sample_peak > over->bar)
                over_note(over, over->at > FIR_TAPS ? over->at - FIR_TAPS : 0, over->at);
        }
        *over_done = end == RE_MP3_END_DONE && (!rest || over->at == map->frames);
    }
    if (mh) {
        mpg123_close(mh);
        mpg123_delete(mh);
    }
    free(src);
    peak_parts_free(parts, 2);
    if (status != RE_OK) {
        /* whatever went wrong in halves (a decoder that cannot seek there), one decoder from
         * the start decides, and reports it */
        re_loudness_peak_map_free(map);
        *over_done = 0;
        return peaks_whole(fd, out, diag);
    }
    map_summary(map, out);
    return RE_OK;
}

re_status re_loudness_peak_map_mp3_fd(int fd, re_loudness_peak_map *map, re_loudness *out,
                                      re_diagnostics *diag)
{
    if (fd < 0 || !out || !map)
        return RE_ERR_INVALID;
    int unused;
    return map_decode(fd, map, out, NULL, &unused, diag);
}

re_status re_loudness_peak_map_spots_mp3_fd(int fd, re_loudness_peak_map *map, re_loudness *out,
                                            double ceiling_dbtp, re_loudness_spot *spots,
                                            size_t capacity, size_t *count, re_diagnostics *diag)
{
    if (fd < 0 || !out || !map || !count || (capacity && !spots) || !isfinite(ceiling_dbtp))
        return RE_ERR_INVALID;
    *count = 0;
    over_feed *f = calloc(1, sizeof *f);
    if (!f)
        return RE_ERR_NOMEM;
    make_interpolator(&f->ip);
    f->bar = (float)pow(10.0, ceiling_dbtp / 20.0);
    f->pf.true_peak = f->pf.sample_peak = f->bar;
    f->spots = spots;
    f->capacity = capacity;
    int done = 0;
    re_status status = map_decode(fd, map, out, f, &done, diag);
    *count = f->count;
    free(f);
    if (status == RE_OK && !done && out->true_peak_dbtp > ceiling_dbtp)   /* no map: the whole */
        status = re_loudness_overshoots_mp3_fd(fd, ceiling_dbtp, spots, capacity, count, diag);
    else if (status == RE_OK && !done)
        *count = 0;
    return status;
}

re_status re_loudness_peaks_mp3_fd(int fd, re_loudness *out, re_diagnostics *diag)
{
    re_loudness_peak_map map = { 0 };
    re_status status = re_loudness_peak_map_mp3_fd(fd, &map, out, diag);
    re_loudness_peak_map_free(&map);
    return status;
}

/* Decoded samples depend on their own frame and the one before (the transform's overlap);
 * LAME's delay (576) and the decoder's (529) put frame f's samples at f * spf - 1105. Three
 * frames either side hold that with room. */
#define MAP_CHANGE_MARGIN 3

re_status re_loudness_peak_map_update_mp3_fd(int fd, re_loudness_peak_map *map,
                                             uint64_t first_frame, uint64_t end_frame,
                                             re_loudness *out, re_diagnostics *diag)
{
    if (fd < 0 || !map || !out || first_frame >= end_frame)
        return RE_ERR_INVALID;
    if (!map->tiles)
        return re_loudness_peak_map_mp3_fd(fd, map, out, diag);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return re_loudness_peak_map_mp3_fd(fd, map, out, diag);
    uint64_t spf = map->spf;
    uint64_t a = first_frame > MAP_CHANGE_MARGIN ? (first_frame - MAP_CHANGE_MARGIN) * spf : 0;
    uint64_t b = (end_frame + MAP_CHANGE_MARGIN) * spf + FIR_TAPS;   /* intervals' later taps */
    size_t k0 = (size_t)(a / RE_LOUDNESS_TILE), k1 = (size_t)(b / RE_LOUDNESS_TILE);
    if (k0 >= map->tiles)
        k0 = map->tiles - 1;
    int last = (uint64_t)(k1 + 1) * RE_LOUDNESS_TILE >= map->frames;
    if (last || k1 >= map->tiles)
        k1 = map->tiles - 1;
    peak_part *pt = peak_parts_new(fd, st.st_size, map, 1);
    if (!pt)
        return RE_ERR_NOMEM;
    pt->from = (off_t)k0 * RE_LOUDNESS_TILE;
    pt->to = last ? (off_t)map->frames : (off_t)(k1 + 1) * RE_LOUDNESS_TILE - FIR_HALF;
    pt->last = last;
    peak_part_main(pt);
    re_status status = pt->status;
    if (status == RE_OK && last && (uint64_t)pt->decoded != map->frames)
        status = RE_ERR_FORMAT;
    if (status == RE_OK) {
        for (size_t k = k0; k <= k1; k++) {
            map->tile_true[k] = pt->tile_true[k];
            map->tile_sample[k] = pt->tile_sample[k];
        }
    }
    peak_parts_free(pt, 1);
    if (status != RE_OK)   /* the whole file again decides, and reports */
        return re_loudness_peak_map_mp3_fd(fd, map, out, diag);
    map_summary(map, out);
    return RE_OK;
}

re_status re_loudness_overshoots_mp3_fd(int fd, double ceiling_dbtp, re_loudness_spot *spots,
                                        size_t capacity, size_t *count, re_diagnostics *diag)
{
    if (fd < 0 || !count || (capacity && !spots) || !isfinite(ceiling_dbtp))
        return RE_ERR_INVALID;
    *count = 0;
    re_mp3_source src;
    mpg123_handle *mh = NULL;
    re_status status = open_mp3_fd(fd, &src, &mh, diag);
    if (status != RE_OK)
        return status;
    re_mp3_format fmt;
    over_feed *f = calloc(1, sizeof *f);
    if (!f)
        status = RE_ERR_NOMEM;
    else if (re_mp3_decoder_format(mh, MPG123_ENC_FLOAT_32, &fmt) != RE_MP3_FORMAT_OK
             || fmt.channels != 1) {
        re_diag_add(diag, NULL, 0, 0, "not a mono MP3");
        status = RE_ERR_FORMAT;
    }
    if (status == RE_OK) {
        make_interpolator(&f->ip);
        f->bar = (float)pow(10.0, ceiling_dbtp / 20.0);
        f->pf.true_peak = f->pf.sample_peak = f->bar;
        f->merge = (uint64_t)(OVER_MERGE_S * (double)fmt.rate);
        f->spots = spots;
        f->capacity = capacity;
        if (re_mp3_decoder_each(mh, over_block, f) == RE_MP3_END_ERROR) {
            re_diag_add(diag, NULL, 0, 0, "damaged MP3: %s", mpg123_strerror(mh));
            status = src.error ? RE_ERR_READ : RE_ERR_FORMAT;
        }
    }
    if (status == RE_OK) {
        peak_finish(&f->pf, &f->ip);
        if (f->pf.true_peak > f->bar || f->pf.sample_peak > f->bar)
            over_note(f, f->at > FIR_TAPS ? f->at - FIR_TAPS : 0, f->at);
        *count = f->count;
    }
    free(f);
    mpg123_close(mh);
    mpg123_delete(mh);
    return status;
}

re_status re_loudness_measure_mp3(const char *path, re_loudness *out, re_diagnostics *diag)
{
    if (!path || !out)
        return RE_ERR_INVALID;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        re_diag_add(diag, path, 0, 0, "cannot open %s: %s", path, strerror(errno));
        return RE_ERR_READ;
    }
    size_t from = diag ? diag->count : 0;
    re_status status = re_loudness_measure_mp3_fd(fd, out, diag);
    close(fd);
    re_diag_place(diag, from, path, 0, 0);
    return status;
}
