/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_true_peak.c - the peak finder skips only what cannot matter: its true peak equals, to
 * the last bit, the largest value of every interval interpolated one by one, however the
 * audio is cut into pushes, with and without the bar raised ahead of each push
 * (re_peaks_bar); and re_interval_bound is never below the interval it bounds. */
#include "testkit.h"
#include "true_peak.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define RATE 22050
#define SECONDS 12

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static double uniform(void)   /* xorshift64*, [0, 1) */
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

/* Voiced syllables: harmonics of a gliding pitch under a 150..400 ms envelope, with pauses,
 * a little noise and, now and then, a click (one loud sample). Full scale 1.0. */
static void speechlike(float *x, size_t n)
{
    double phase = 0, f0 = 120, env = 0, target = 0;
    size_t next = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == next) {
            target = uniform() < 0.25 ? 0 : 0.3 + 0.65 * uniform();
            f0 = 90 + 140 * uniform();
            next = i + (size_t)(RATE * (0.15 + 0.25 * uniform()));
        }
        env += (target - env) * 0.002;
        phase += 2 * M_PI * f0 / RATE;
        double v = 0;
        for (int h = 1; h <= 12; h++)
            v += sin(h * phase + h * h) / h;
        v = env * v / 2.2 + 0.002 * (uniform() - 0.5);
        if (uniform() < 1e-4)
            v = uniform() < 0.5 ? -0.6 : 0.6;
        x[i] = (float)(v > 1 ? 1 : v < -1 ? -1 : v);
    }
}

/* A square wave between +-0.9 at a third of the rate (its true peak is well above its
 * samples), bursts of it between silence. */
static void square_bursts(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (i / 4000) % 2 ? ((i / 3) % 2 ? 0.9f : -0.9f) : 0.0f;
}

/* Lone impulses of different heights: the true peak is a sample itself (phase 0), so a bar
 * raised by the least bit too far shows. */
static void impulses(float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x[i] = i % 1000 == 500 ? (float)(0.2 + 0.5 * (double)(i % 7000) / 7000.0) : 0.0f;
}

/* Every interval the finder measures, one by one: taps x[n - FIR_TAPS + 1 .. n] for each push
 * n of the audio and of the FIR_HALF zeros re_peak_finish adds (zeros before the start). */
static float brute_true_peak(const interpolator *ip, const float *x, size_t n, int *bound_ok)
{
    float peak = 0;
    *bound_ok = 1;
    for (size_t k = 0; k < n + FIR_HALF; k++) {
        float taps[FIR_TAPS];
        for (int j = 0; j < FIR_TAPS; j++) {
            long at = (long)k - (FIR_TAPS - 1) + j;
            taps[j] = at >= 0 && (size_t)at < n ? x[at] : 0.0f;
        }
        float v = re_interval_max(ip, taps);
        if (re_interval_bound(ip, taps) < v)
            *bound_ok = 0;
        peak = v > peak ? v : peak;
    }
    return peak;
}

/* The finder fed in pushes of random length (1..max_push), with or without the bar. */
static peak_finder found(const interpolator *ip, const float *x, size_t n, size_t max_push,
                         int bar)
{
    peak_finder pf = { 0 };
    for (size_t i = 0; i < n;) {
        size_t m = 1 + (size_t)(uniform() * (double)max_push);
        m = m > n - i ? n - i : m;
        if (bar)
            re_peaks_bar(&pf, x + i, m, 1);
        re_peaks_feed(&pf, ip, x + i, m, 1);
        i += m;
    }
    re_peak_finish(&pf, ip);
    return pf;
}

static void judge(const char *what, const interpolator *ip, const float *x, size_t n)
{
    int bound_ok;
    float brute = brute_true_peak(ip, x, n, &bound_ok);
    float sample = 0;
    for (size_t i = 0; i < n; i++)
        sample = fabsf(x[i]) > sample ? fabsf(x[i]) : sample;
    printf("true_peak: %s: true %.9f, sample %.9f\n", what, brute, sample);
    CHECK(bound_ok);
    CHECK(brute >= sample);
    static const size_t pushes[] = { 1, 7, 64, 576, 5000, 100000 };
    for (size_t k = 0; k < sizeof pushes / sizeof *pushes; k++)
        for (int bar = 0; bar <= 1; bar++) {
            peak_finder pf = found(ip, x, n, pushes[k], bar);
            if (pf.true_peak != brute || pf.sample_peak != sample)
                fprintf(stderr, "  pushes up to %zu, bar %d: true %.9f, sample %.9f\n",
                        pushes[k], bar, pf.true_peak, pf.sample_peak);
            CHECK(pf.true_peak == brute);
            CHECK(pf.sample_peak == sample);
        }
}

int main(void)
{
    interpolator ip;
    re_interpolator_init(&ip);
    /* the bound's weights: the largest |coef| of each tap, 1 at the interval's own sample */
    CHECK(ip.tap_bound[FIR_HALF - 1] == 1.0f);
    for (int j = 0; j < FIR_TAPS; j++)
        for (int f = 0; f < OVERSAMPLE; f++)
            CHECK(fabsf(ip.coef[j][f]) <= ip.tap_bound[j]);

    size_t n = (size_t)RATE * SECONDS;
    float *x = malloc(n * sizeof *x);
    if (!x)
        return 1;
    speechlike(x, n);
    judge("speech-like", &ip, x, n);
    for (size_t i = 0; i < n; i++)   /* the same, quieter: the bar is reached later */
        x[i] *= 0.05f;
    judge("speech-like at -26 dB", &ip, x, n);
    square_bursts(x, n);
    judge("square bursts", &ip, x, n);
    impulses(x, n);
    judge("impulses", &ip, x, n);
    free(x);
    return check_finish("test_true_peak");
}
