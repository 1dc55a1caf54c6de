/* SPDX-License-Identifier: GPL-3.0-or-later */
/* true_peak.c - the 8x true-peak interpolator and the peak finder (see true_peak.h). */
#include "true_peak.h"

#define KAISER_BETA 6.0

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

void re_interpolator_init(interpolator *ip)
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
            float a = fabsf(ip->coef[j][f]);
            ip->tap_bound[j] = f == 0 || a > ip->tap_bound[j] ? a : ip->tap_bound[j];
        }
        ip->peak_bound = fmax(ip->peak_bound, abs_sum);
    }
}

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
        const float *taps = &pf->taps[(n + 1) & (FIR_TAPS - 1)];
        if (re_interval_bound(ip, taps) > pf->true_peak) {
            float v = re_interval_max(ip, taps);
            if (v > pf->true_peak)
                pf->true_peak = v;
        }
    }
}

#define PEAK_BLOCK 64

/* The largest |x| of n samples x[0], x[stride], ...; for stride 1 in four independent
 * maxima, which the compiler keeps in vector registers (max is exact in any order). */
static float block_max(const float *x, size_t n, size_t stride)
{
    float m[4] = { 0, 0, 0, 0 };
    size_t i = 0;
    if (stride == 1)
        for (; i + 4 <= n; i += 4)
            for (int k = 0; k < 4; k++) {
                float a = fabsf(x[i + (size_t)k]);
                m[k] = a > m[k] ? a : m[k];
            }
    for (; i < n; i++) {
        float a = fabsf(x[i * stride]);
        m[0] = a > m[0] ? a : m[0];
    }
    float a = m[0] > m[1] ? m[0] : m[1], b = m[2] > m[3] ? m[2] : m[3];
    return a > b ? a : b;
}

/* peak_push for each sample; a block none of whose samples is loud enough to matter only
 * passes through the ring (the same result, without the per-sample test). */
void re_peaks_feed(peak_finder *pf, const interpolator *ip, const float *x, size_t n,
                   size_t stride)
{
    for (size_t i = 0; i < n;) {
        if (!pf->loud_left && n - i >= PEAK_BLOCK) {
            float m = block_max(x + i * stride, PEAK_BLOCK, stride);
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

void re_peaks_bar(peak_finder *pf, const float *x, size_t n, size_t stride)
{
    float m = block_max(x, n, stride);
    if (m > pf->true_peak)
        pf->true_peak = m;
}

void re_peak_prime(peak_finder *pf, const interpolator *ip, float x)
{
    uint64_t n = pf->n++;
    pf->taps[n & (FIR_TAPS - 1)] = pf->taps[(n & (FIR_TAPS - 1)) + FIR_TAPS] = x;
    float a = x < 0 ? -x : x;
    if (a * ip->peak_bound > pf->true_peak)
        pf->loud_left = FIR_TAPS;
}

void re_peak_finish(peak_finder *pf, const interpolator *ip)
{
    for (int i = 0; i < FIR_HALF; i++)
        peak_push(pf, ip, 0);
}
