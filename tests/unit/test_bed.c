/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_bed.c - the music bed mixer: the sidechain's attack, hold and release measured on
 * synthetic input (a constant bed, a burst of "speech"), the fades, a bed cut and a bed
 * looped with its crossfade, saturation, and the same samples whatever the chunking. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bed.h"
#include "testkit.h"

#define RATE 22050u

/* Mixes speech[0..n) with bed[0..bed_n) in chunks of `chunk` into a new array. */
static int16_t *mix(const int16_t *bed, size_t bed_n, const int16_t *speech, size_t n,
                    const re_bed_settings *s, size_t chunk, re_bed_stats *stats)
{
    re_bed *m = NULL;
    CHECK_INT(re_bed_create(bed, bed_n, RATE, n, s, &m), RE_OK);
    if (!m)
        return NULL;
    int16_t *out = calloc(n + 1, sizeof *out);
    size_t done = 0, got = 0;
    for (size_t at = 0; at < n; at += chunk) {
        size_t k = n - at < chunk ? n - at : chunk;
        CHECK_INT(re_bed_process(m, speech + at, k, out + done, &got), RE_OK);
        done += got;
    }
    CHECK(done + re_bed_latency(m) >= n);
    CHECK_INT(re_bed_flush(m, out + done, &got), RE_OK);
    done += got;
    CHECK_INT(done, n);
    if (stats)
        re_bed_get_stats(m, stats);
    re_bed_free(m);
    return out;
}

static int16_t *constant(size_t n, int16_t v)
{
    int16_t *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = v;
    return p;
}

static double frames_ms(long long frames)
{
    return 1000.0 * (double)frames / RATE;
}

/* A constant bed of 20000 under 4 s of silence with 1 s of speech (a square wave over the
 * threshold) from 1.0 s to 2.0 s: what the mix minus the speech shows is the bed's gain. */
static void envelope_times(void)
{
    enum { N = 4 * RATE, ON = RATE, OFF = 2 * RATE, LEVEL = 20000 };
    int16_t *bed = constant(N, LEVEL);
    int16_t *speech = calloc(N, sizeof *speech);
    for (size_t i = ON; i < OFF; i++)
        speech[i] = (i / 50) % 2 ? 9000 : -9000;
    re_bed_settings s = { .gain_db = 0, .duck_db = 12, .fade_frames = 0 };
    re_bed_stats stats;
    int16_t *out = mix(bed, N, speech, N, &s, 4096, &stats);
    long long bed_part[N];
    for (size_t i = 0; i < N; i++)
        bed_part[i] = (long long)out[i] - speech[i];
    long long ducked = llround(LEVEL * pow(10.0, -12.0 / 20.0));

    long long a0 = -1, a1 = -1, r0 = -1, r1 = -1;
    for (long long i = 0; i < N; i++) {
        if (a0 < 0 && bed_part[i] < LEVEL)
            a0 = i;
        if (a1 < 0 && bed_part[i] == ducked)
            a1 = i;
        if (a1 >= 0 && r0 < 0 && i > a1 && bed_part[i] > ducked)
            r0 = i;
        if (r0 >= 0 && r1 < 0 && bed_part[i] == LEVEL)
            r1 = i;
    }
    printf("attack starts %.2f ms before speech, full duck %.2f ms before it; "
           "attack %.2f ms, hold %.2f ms, release %.2f ms\n",
           frames_ms(ON - a0), frames_ms(ON - a1), frames_ms(a1 - a0 + 1),
           frames_ms(r0 - (OFF - 1)), frames_ms(r1 - r0 + 1));
    CHECK(a0 > 0 && a1 > a0 && r0 > a1 && r1 > r0);
    CHECK(fabs(frames_ms(ON - a0) - RE_BED_LOOKAHEAD_MS) < 0.1);
    CHECK(fabs(frames_ms(a1 - a0 + 1) - RE_BED_ATTACK_MS) < 0.1);
    CHECK(fabs(frames_ms(r0 - (OFF - 1)) - RE_BED_HOLD_MS) < 0.1);
    CHECK(fabs(frames_ms(r1 - r0 + 1) - RE_BED_RELEASE_MS) < 0.1);
    /* down all the time speech is there, level outside the ramps */
    for (long long i = a1; i < r0; i++)
        if (bed_part[i] != ducked) {
            CHECK_INT(bed_part[i], ducked);
            break;
        }
    for (long long i = 0; i < a0; i++)
        if (bed_part[i] != LEVEL) {
            CHECK_INT(bed_part[i], LEVEL);
            break;
        }
    for (long long i = r1; i < N; i++)
        if (bed_part[i] != LEVEL) {
            CHECK_INT(bed_part[i], LEVEL);
            break;
        }
    /* the ramps move one way, linear in dB */
    for (long long i = a0 + 1; i <= a1; i++)
        CHECK(bed_part[i] <= bed_part[i - 1]);
    long long mid = (a0 + a1) / 2;
    double mid_db = 20 * log10((double)bed_part[mid] / LEVEL);
    CHECK(fabs(mid_db - (-12.0 * (double)(mid - a0 + 1) / (double)(a1 - a0 + 1))) < 0.05);
    /* the step next to full depth rounds to the same sample: one frame either way */
    CHECK(llabs((long long)stats.ducked_frames - (r0 - a1)) <= 1);
    CHECK_INT(stats.clipped, 0);
    CHECK_INT(stats.loops, 0);

    /* the same samples whatever the chunking */
    size_t chunks[] = { 1, 7, 1103, 65536 };
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        int16_t *again = mix(bed, N, speech, N, &s, chunks[c], NULL);
        CHECK(again && memcmp(again, out, N * sizeof *out) == 0);
        free(again);
    }
    /* a sentence pause shorter than the hold does not let the bed up */
    for (size_t i = ON + RATE / 4; i < ON + RATE / 4 + RATE * 4 / 10; i++)
        speech[i] = 0;
    int16_t *paused = mix(bed, N, speech, N, &s, 4096, NULL);
    for (long long i = a1; i < r0; i++)
        if ((long long)paused[i] - speech[i] != ducked) {
            CHECK_INT((long long)paused[i] - speech[i], ducked);
            break;
        }
    free(paused);
    free(out);
    free(bed);
    free(speech);
}

/* Below the threshold (-45 dBFS: 184) is not speech; duck 0 leaves the bed alone. */
static void threshold_and_no_duck(void)
{
    enum { N = RATE, LEVEL = 10000 };
    int16_t *bed = constant(N, LEVEL);
    int16_t *speech = constant(N, 180);
    re_bed_settings s = { .gain_db = 0, .duck_db = 12, .fade_frames = 0 };
    int16_t *out = mix(bed, N, speech, N, &s, 512, NULL);
    for (size_t i = 0; i < N; i++)
        if (out[i] != LEVEL + 180) {
            CHECK_INT(out[i], LEVEL + 180);
            break;
        }
    free(out);
    free(speech);
    speech = constant(N, 5000);
    s.duck_db = 0;
    out = mix(bed, N, speech, N, &s, 512, NULL);
    for (size_t i = 0; i < N; i++)
        if (out[i] != LEVEL + 5000) {
            CHECK_INT(out[i], LEVEL + 5000);
            break;
        }
    free(out);
    free(speech);
    free(bed);
}

/* Linear fades: 0 at the first and the last sample, half way at half the fade; the gain. */
static void fades_and_gain(void)
{
    enum { N = RATE, LEVEL = 16000, FADE = 2000 };
    int16_t *bed = constant(N, LEVEL);
    int16_t *speech = calloc(N, sizeof *speech);
    re_bed_settings s = { .gain_db = -6.0, .duck_db = 12, .fade_frames = FADE };
    int16_t *out = mix(bed, N, speech, N, &s, 333, NULL);
    long long level = llround(LEVEL * pow(10.0, -6.0 / 20.0));
    CHECK_INT(out[0], 0);
    CHECK_INT(out[N - 1], 0);
    CHECK(llabs(out[FADE / 2] - llround(level * 0.5)) <= 1);
    CHECK(llabs(out[N - 1 - FADE / 2] - llround(level * 0.5)) <= 1);
    CHECK(llabs(out[FADE] - level) <= 1);
    CHECK(llabs(out[N / 2] - level) <= 1);
    for (size_t i = 1; i <= FADE; i++)
        CHECK(out[i] >= out[i - 1]);
    free(out);
    /* a fade longer than half the episode: the smaller factor */
    s.fade_frames = N;
    out = mix(bed, N, speech, N, &s, 333, NULL);
    CHECK(out[N / 2] <= llround(level * 0.5) + 1);
    free(out);
    free(speech);
    free(bed);
}

/* Extremes: an episode shorter than the look-ahead (everything comes out of the flush, and
 * the speech in it still ducks the bed), a bed of one sample looped, duck 60 dB at 48000 Hz. */
static void extremes(void)
{
    enum { N = 300 };   /* under the look-ahead (1103 frames at 22050 Hz) */
    int16_t *bed = constant(N, 10000);
    int16_t *speech = calloc(N, sizeof *speech);
    speech[N - 1] = 20000;
    re_bed_settings s = { .gain_db = 0, .duck_db = 60, .fade_frames = 0 };
    re_bed *m = NULL;
    CHECK_INT(re_bed_create(bed, N, RATE, N, &s, &m), RE_OK);
    int16_t out[N];
    size_t got = 1;
    CHECK_INT(re_bed_process(m, speech, N, out, &got), RE_OK);
    CHECK_INT(got, 0);
    CHECK_INT(re_bed_flush(m, out, &got), RE_OK);
    CHECK_INT(got, N);
    /* the speech is within the look-ahead of the first sample: the attack has begun there,
     * one step of 60 dB over 40 ms (882 frames) down, and goes on down */
    CHECK_INT(out[0], llround(10000 * pow(10.0, -60.0 / 20.0 / 882)));
    for (size_t i = 1; i < N; i++)
        CHECK(out[i] < out[i - 1] || (i == N - 1 && out[i] >= 20000));
    re_bed_free(m);

    re_bed_stats stats;
    int16_t one = 5000;
    speech[N - 1] = 0;
    int16_t *looped = mix(&one, 1, speech, N, &s, 7, &stats);
    for (size_t i = 0; i < N; i++)
        CHECK_INT(looped[i], 5000);
    CHECK(stats.loops >= N - 1);
    free(looped);

    CHECK_INT(re_bed_create(bed, N, 48000, 100000, &s, &m), RE_OK);
    int16_t *loud = constant(N, 30000), mixed[N];
    for (int k = 0; k < 3; k++) {   /* fed well past the look-ahead (2400 frames) */
        CHECK_INT(re_bed_process(m, loud, N, mixed, &got), RE_OK);
    }
    for (int k = 0; k < 20; k++)
        CHECK_INT(re_bed_process(m, loud, N, mixed, &got), RE_OK);
    CHECK_INT(got, N);
    CHECK_INT(mixed[N - 1], 30000 + 10);   /* 10000 down by 60 dB */
    re_bed_free(m);
    free(loud);
    free(speech);
    free(bed);
}

/* A bed as long as the episode or longer is cut: its own samples. A shorter one is looped:
 * the first pass is the bed, each later pass starts with the crossfade of the bed's end into
 * its start, then goes on with the bed's own samples. */
static void cut_and_loop(void)
{
    enum { BED = 4000, N = 11000 };
    int16_t bed[BED];
    for (size_t i = 0; i < BED; i++)
        bed[i] = (int16_t)(((i * 37) % 2000) - 1000);
    int16_t *speech = calloc(N, sizeof *speech);
    re_bed_settings s = { .gain_db = 0, .duck_db = 12, .fade_frames = 0 };
    int16_t *cut = mix(bed, BED, speech, BED - 10, &s, 100, NULL);
    CHECK(memcmp(cut, bed, (BED - 10) * sizeof *bed) == 0);
    free(cut);

    re_bed_stats stats;
    int16_t *looped = mix(bed, BED, speech, N, &s, 100, &stats);
    size_t xfade = BED / 4;   /* 500 ms is more than a quarter of this bed */
    size_t period = BED - xfade;
    CHECK(memcmp(looped, bed, period * sizeof *bed) == 0);
    CHECK(memcmp(looped + period + xfade, bed + xfade, (period - xfade) * sizeof *bed) == 0);
    for (size_t i = 0; i < xfade; i++) {
        double x = M_PI / 2 * ((double)i + 0.5) / (double)xfade;
        long long want = llround(bed[period + i] * cos(x) + bed[i] * sin(x));
        if (looped[period + i] != want) {
            CHECK_INT(looped[period + i], want);
            break;
        }
    }
    CHECK_INT(stats.loops, (N - 1) / period);
    free(looped);
    free(speech);
}

static void saturation_and_refusals(void)
{
    enum { N = 1000 };
    int16_t *bed = constant(N, 20000);
    int16_t *speech = constant(N, 30000);
    re_bed_settings s = { .gain_db = 0, .duck_db = 0, .fade_frames = 0 };
    re_bed_stats stats;
    int16_t *out = mix(bed, N, speech, N, &s, 100, &stats);
    CHECK_INT(out[N / 2], 32767);
    CHECK_INT(stats.clipped, N);
    CHECK(stats.peak == 50000.0);
    free(out);
    /* the headroom the peak asks for: nothing saturates, speech and bed lowered together */
    s.headroom_db = 20.0 * log10(stats.peak / 32767.0) + 0.01;
    out = mix(bed, N, speech, N, &s, 100, &stats);
    CHECK_INT(stats.clipped, 0);
    CHECK_INT(out[N / 2], llround(50000.0 * pow(10.0, -s.headroom_db / 20.0)));
    CHECK(out[N / 2] > 32700);
    free(out);
    s.headroom_db = 0;

    re_bed *m = NULL;
    re_bed_settings bad = { .gain_db = 0, .duck_db = -1 };
    CHECK_INT(re_bed_create(bed, N, RATE, N, &bad, &m), RE_ERR_INVALID);
    bad.duck_db = NAN;
    CHECK_INT(re_bed_create(bed, N, RATE, N, &bad, &m), RE_ERR_INVALID);
    bad = (re_bed_settings){ .gain_db = 41 };
    CHECK_INT(re_bed_create(bed, N, RATE, N, &bad, &m), RE_ERR_INVALID);
    bad = (re_bed_settings){ .headroom_db = -1 };
    CHECK_INT(re_bed_create(bed, N, RATE, N, &bad, &m), RE_ERR_INVALID);
    CHECK_INT(re_bed_create(bed, 0, RATE, N, &s, &m), RE_ERR_INVALID);
    CHECK(m == NULL);
    /* more speech than the episode */
    CHECK_INT(re_bed_create(bed, N, RATE, 10, &s, &m), RE_OK);
    size_t got;
    CHECK_INT(re_bed_process(m, speech, 11, out = malloc(11 * sizeof *out), &got), RE_ERR_INVALID);
    CHECK_INT(re_bed_flush(m, out, &got), RE_OK);
    CHECK_INT(re_bed_flush(m, out, &got), RE_ERR_INVALID);
    re_bed_free(m);
    free(out);
    free(bed);
    free(speech);
}

int main(void)
{
    envelope_times();
    threshold_and_no_duck();
    fades_and_gain();
    cut_and_loop();
    extremes();
    saturation_and_refusals();
    return check_finish("test_bed");
}
