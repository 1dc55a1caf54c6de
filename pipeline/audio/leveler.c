/* SPDX-License-Identifier: GPL-3.0-or-later */
/* leveler.c - gain, then a look-ahead true-peak limiter that keeps the sample count (see
 * loudness.h; measurements in docs/loudness.md).
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
#include "loudness.h"
#include "true_peak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    if (sample_rate < RE_LOUDNESS_RATE_MIN || sample_rate > RE_LOUDNESS_RATE_MAX || !isfinite(gain_db)
        || fabs(gain_db) > RE_LOUDNESS_MAX_GAIN_DB || !isfinite(ceiling_dbtp)
        || ceiling_dbtp < RE_LOUDNESS_CEILING_MIN || ceiling_dbtp > RE_LOUDNESS_CEILING_MAX)
        return RE_ERR_INVALID;
    re_leveler *lv = calloc(1, sizeof *lv);
    if (!lv)
        return RE_ERR_NOMEM;
    lv->gain = pow(10.0, gain_db / 20.0);
    lv->ceiling_in = 32768.0 * pow(10.0, ceiling_dbtp / 20.0) / lv->gain;
    re_interpolator_init(&lv->ip);
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
    return re_interval_max(&lv->ip, taps);
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
    if (re_int16_peak(in, REST_BLOCK, 0) > lv->loud_in) {
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

static size_t leveler_latency(const void *self)
{
    return re_leveler_latency(self);
}

static re_status leveler_process(void *self, const int16_t *in, size_t frames, int16_t *out,
                                 size_t *got)
{
    return re_leveler_process(self, in, frames, out, got);
}

static re_status leveler_flush(void *self, int16_t *out, size_t *got)
{
    return re_leveler_flush(self, out, got);
}

re_processor re_leveler_processor(re_leveler *lv)
{
    return (re_processor){ "leveler", lv, leveler_latency, leveler_process, leveler_flush };
}

void re_leveler_get_stats(const re_leveler *lv, re_leveler_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!lv)
        return;
    out->max_reduction_db = lv->min_gain < 1.0 ? -re_db_of(lv->min_gain) : 0.0;
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