/* SPDX-License-Identifier: GPL-3.0-or-later */
/* true_peak.h - the true-peak interpolator the loudness stage's meter, leveler and MP3 peak
 * measurements share, and a peak finder built on it (private to audio/; see loudness.h).
 *
 * The interval [c, c+1) is estimated at the sample and the OVERSAMPLE-1 points between it and
 * the next, by a 16-tap-per-phase Kaiser-windowed sinc (8x oversampling, finer than the 4x
 * BS.1770-4 asks for), which needs FIR_HALF samples after c. No interpolated point exceeds
 * peak_bound times the largest |tap|, so every user skips the arithmetic wherever the taps are
 * too quiet to matter, which on speech is most samples. */
#ifndef RE_TRUE_PEAK_H
#define RE_TRUE_PEAK_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#define OVERSAMPLE 8
#define FIR_TAPS 16                 /* per phase; a power of two (ring index mask) */
#define FIR_HALF (FIR_TAPS / 2)     /* interval [c, c+1) uses x[c - FIR_HALF + 1 .. c + FIR_HALF] */

/* The sample rates the meter and the leveler accept. */
#define RE_LOUDNESS_RATE_MIN 8000u
#define RE_LOUDNESS_RATE_MAX 192000u

/* A linear level in dB; -inf for 0. */
static inline double re_db_of(double linear)
{
    return linear > 0 ? 20.0 * log10(linear) : -HUGE_VAL;
}

typedef struct interpolator {
    float coef[FIR_TAPS][OVERSAMPLE];
    float tap_bound[FIR_TAPS];   /* the largest |coef[j][f]| over the phases, for each tap j */
    double peak_bound;
} interpolator;

/* coef[j][f] weights x[c - FIR_HALF + 1 + j] for the point c + f/OVERSAMPLE (phase 0 is x[c]
 * itself); each phase is normalised to unity gain at DC. peak_bound is the largest sum of
 * |coef| over a phase: no interpolated point exceeds it times the largest |tap|. */
void re_interpolator_init(interpolator *ip);

/* The largest |value| of the interval [c, c+1) whose taps x[c - FIR_HALF + 1 .. c + FIR_HALF]
 * are `taps` (oldest first). Phases are the inner index so the loop over taps vectorises
 * without reordering any sum; inline because the leveler calls it per loud sample. */
static inline float re_interval_max(const interpolator *ip, const float *taps)
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

/* The largest |x| of n int16 samples and so_far (at most 32768), in a loop the compiler
 * vectorises: the meter's sample peak, and the leveler's test of a block at rest. */
static inline int re_int16_peak(const int16_t *x, size_t n, int so_far)
{
    int m = so_far;
    for (size_t i = 0; i < n; i++) {
        int a = x[i] < 0 ? -x[i] : x[i];
        m = a > m ? a : m;
    }
    return m;
}

/* Rounding room for re_interval_bound: the float sums of re_interval_max and of the bound each
 * round at most 16 times by 2^-24 of the bound; 1e-5 is far more than both. */
#define RE_INTERVAL_BOUND_ROOM (1.0f + 1e-5f)

/* A bound no |value| re_interval_max returns for these taps exceeds: the sum over the taps of
 * |tap| times that tap's largest |coef|, with room for rounding. Far tighter than peak_bound
 * times the largest tap wherever the loud taps are away from the interval (their weights are
 * 0.002 to 0.2 there), and an eighth of the arithmetic, so the interpolation is only done
 * where this passes what the caller compares it with. */
static inline float re_interval_bound(const interpolator *ip, const float *taps)
{
    float sum = 0;
    for (int j = 0; j < FIR_TAPS; j++)
        sum += ip->tap_bound[j] * (taps[j] < 0 ? -taps[j] : taps[j]);
    return sum * RE_INTERVAL_BOUND_ROOM;
}

/* The true and sample peak of one channel, exact for this interpolator: only intervals with a
 * tap loud enough to pass the peak found so far are interpolated. Start it zeroed (or with
 * both peaks set to a bar: only what passes it is then measured). */
typedef struct peak_finder {
    float taps[2 * FIR_TAPS];   /* the last FIR_TAPS samples, each written twice */
    uint64_t n;
    unsigned loud_left;
    float true_peak, sample_peak;
} peak_finder;

/* Pushes n samples x[0], x[stride], ...: every interval they complete is measured. */
void re_peaks_feed(peak_finder *pf, const interpolator *ip, const float *x, size_t n,
                   size_t stride);
/* Raises the bar to the largest |x| of n samples about to be pushed (x[0], x[stride], ...), so
 * that only intervals which can pass it are interpolated. The true peak found stays exact:
 * each of those samples is the phase-0 point of its own interval (coef is exactly 1 there),
 * so the bar never exceeds the largest interval of the audio pushed in the end. Only a finder
 * whose peak so far is not itself a result (the spot search's bar) must not use it. */
void re_peaks_bar(peak_finder *pf, const float *x, size_t n, size_t stride);
/* A sample that only fills the taps (the audio just before a part of a file measured on its
 * own): no interval is measured, but a loud one makes the next FIR_TAPS intervals count. */
void re_peak_prime(peak_finder *pf, const interpolator *ip, float x);
/* The intervals at the end, against the silence after it. */
void re_peak_finish(peak_finder *pf, const interpolator *ip);

#endif
