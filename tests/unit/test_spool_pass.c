/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_spool_pass.c - the one pass over the episode's samples (spool_pass.h, processor.h):
 * a processor run by the pass gives the samples it gives when called by hand, a chain of two
 * gives what two passes give, the pass meters what it writes, a bad chain is refused before a
 * sample moves; the rework of a range in place (the local retry's gain window) changes that
 * range by the window's formula and no other byte; the bed's offset removal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bed.h"
#include "gain_window.h"
#include "loudness.h"
#include "sound_file.h"
#include "spool_pass.h"
#include "testkit.h"

#define RATE 22050u
#define N (3 * RE_SPOOL_PASS_CHUNK + 1234)   /* three chunks and an odd tail */

/* A loud, peaky signal (the limiter acts) with silences (the bed's duck moves). */
static int16_t *speechlike(size_t n)
{
    int16_t *s = malloc(n * sizeof *s);
    unsigned x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        int noise = (int)((x >> 16) & 0x7FFF) - 16384;
        int on = (i / 9000) % 3 != 2;
        double v = on ? 20000.0 * sin((double)i * 0.07) + noise / 2 : 0.0;
        s[i] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
    }
    return s;
}

static re_spool *spool_of(const int16_t *pcm, size_t n)
{
    re_spool *spool = NULL;
    CHECK_INT(re_spool_create(RATE, &spool, NULL), RE_OK);
    CHECK_INT(re_spool_write(spool, pcm, n, NULL), RE_OK);
    CHECK_INT(re_spool_finish(spool, NULL), RE_OK);
    return spool;
}

static int16_t *contents(re_spool *spool)
{
    size_t n = (size_t)re_spool_frames(spool), got = 0;
    int16_t *pcm = calloc(n + 1, sizeof *pcm);
    CHECK_INT(re_spool_read_at(spool, 0, pcm, n, NULL), RE_OK);
    CHECK_INT(re_spool_rewind(spool, NULL), RE_OK);   /* and the same through the reader */
    int16_t *again = calloc(n + 1, sizeof *again);
    CHECK_INT(re_spool_read(spool, again, n + 1, &got, NULL), RE_OK);
    CHECK_INT(got, n);
    CHECK(memcmp(pcm, again, n * sizeof *pcm) == 0);
    free(again);
    return pcm;
}

/* `input` through `chain` in one pass into a new finished spool. */
static re_spool *run(re_spool *input, const re_processor *chain, size_t length,
                     re_loudness *measured)
{
    re_spool *out = NULL;
    CHECK_INT(re_spool_create(RATE, &out, NULL), RE_OK);
    re_spool_pass pass = { .input = input, .chain = chain, .chain_length = length,
                           .output = out, .sample_rate = RATE, .measured = measured };
    CHECK_INT(re_spool_pass_run(&pass, NULL), RE_OK);
    CHECK_INT(re_spool_finish(out, NULL), RE_OK);
    return out;
}

/* The leveler called by hand over the whole array, in one call and a flush. */
static int16_t *leveled_by_hand(const int16_t *in, size_t n)
{
    re_leveler *lv = NULL;
    CHECK_INT(re_leveler_create(RATE, 6.0, -1.5, &lv), RE_OK);
    int16_t *out = calloc(n + 1, sizeof *out);
    size_t got = 0, more = 0;
    CHECK_INT(re_leveler_process(lv, in, n, out, &got), RE_OK);
    CHECK_INT(re_leveler_flush(lv, out + got, &more), RE_OK);
    CHECK_INT(got + more, n);
    re_leveler_free(lv);
    return out;
}

static void test_one_processor_is_the_hand_call(void)
{
    int16_t *speech = speechlike(N);
    re_spool *in = spool_of(speech, N);
    re_leveler *lv = NULL;
    CHECK_INT(re_leveler_create(RATE, 6.0, -1.5, &lv), RE_OK);
    re_processor chain[] = { re_leveler_processor(lv) };
    CHECK_STR(chain[0].name, "leveler");
    re_loudness measured;
    re_spool *out = run(in, chain, 1, &measured);
    CHECK_INT(re_spool_frames(out), N);
    int16_t *got = contents(out), *want = leveled_by_hand(speech, N);
    CHECK(memcmp(got, want, N * sizeof *got) == 0);
    re_leveler_stats stats;
    re_leveler_get_stats(lv, &stats);
    CHECK(stats.limited_frames > 0);   /* the limiter acted: the test means something */
    /* the pass meters what it writes: a planning meter over the output says the same */
    re_loudness_meter *meter = NULL;
    re_loudness alone;
    CHECK_INT(re_loudness_meter_create_planning(RATE, &meter), RE_OK);
    CHECK_INT(re_loudness_meter_feed(meter, want, N), RE_OK);
    CHECK_INT(re_loudness_meter_finish(meter, &alone), RE_OK);
    re_loudness_meter_free(meter);
    CHECK(measured.integrated_lufs == alone.integrated_lufs);
    CHECK(measured.true_peak_dbtp == alone.true_peak_dbtp);
    free(got);
    free(want);
    re_leveler_free(lv);
    re_spool_free(out);
    re_spool_free(in);
    free(speech);
}

static void test_chain_is_two_passes(void)
{
    int16_t *speech = speechlike(N), *bed_pcm = speechlike(RATE);   /* a 1 s bed, looped */
    re_bed_settings settings = { .gain_db = -6.0, .duck_db = 12.0, .fade_frames = RATE / 2 };
    re_spool *in = spool_of(speech, N);
    /* two passes: the bed, then the leveler */
    re_bed *bed = NULL;
    re_leveler *lv = NULL;
    CHECK_INT(re_bed_create(bed_pcm, RATE, RATE, N, &settings, &bed), RE_OK);
    CHECK_INT(re_leveler_create(RATE, 6.0, -1.5, &lv), RE_OK);
    re_processor mixer = re_bed_processor(bed), leveler = re_leveler_processor(lv);
    re_spool *mixed = run(in, &mixer, 1, NULL);
    re_spool *twice = run(mixed, &leveler, 1, NULL);
    re_bed_free(bed);
    re_leveler_free(lv);
    /* one pass of both */
    CHECK_INT(re_bed_create(bed_pcm, RATE, RATE, N, &settings, &bed), RE_OK);
    CHECK_INT(re_leveler_create(RATE, 6.0, -1.5, &lv), RE_OK);
    re_processor chain[] = { re_bed_processor(bed), re_leveler_processor(lv) };
    re_spool *once = run(in, chain, 2, NULL);
    CHECK_INT(re_spool_frames(once), N);
    int16_t *a = contents(twice), *b = contents(once);
    CHECK(memcmp(a, b, N * sizeof *a) == 0);
    int16_t *plain = contents(in);
    CHECK(memcmp(plain, b, N * sizeof *a) != 0);   /* the chain did something */
    free(plain);
    free(a);
    free(b);
    re_bed_free(bed);
    re_leveler_free(lv);
    re_spool_free(once);
    re_spool_free(twice);
    re_spool_free(mixed);
    re_spool_free(in);
    free(speech);
    free(bed_pcm);
}

static size_t huge_latency(const void *self)
{
    (void)self;
    return RE_SPOOL_PASS_CHUNK;
}

static void test_bad_chains_refused(void)
{
    int16_t *speech = speechlike(1000);
    re_spool *in = spool_of(speech, 1000), *out = NULL;
    CHECK_INT(re_spool_create(RATE, &out, NULL), RE_OK);
    re_leveler *lv = NULL;
    CHECK_INT(re_leveler_create(RATE, 0.0, -1.0, &lv), RE_OK);
    re_processor chain[RE_SPOOL_PASS_MAX_CHAIN + 1];
    for (size_t k = 0; k <= RE_SPOOL_PASS_MAX_CHAIN; k++)
        chain[k] = re_leveler_processor(lv);
    re_spool_pass pass = { .input = in, .chain = chain, .chain_length = 0, .output = out,
                           .sample_rate = RATE };
    CHECK_INT(re_spool_pass_run(&pass, NULL), RE_ERR_INVALID);          /* empty */
    pass.chain_length = RE_SPOOL_PASS_MAX_CHAIN + 1;
    CHECK_INT(re_spool_pass_run(&pass, NULL), RE_ERR_INVALID);          /* too long */
    chain[0].latency = huge_latency;
    pass.chain_length = 1;
    CHECK_INT(re_spool_pass_run(&pass, NULL), RE_ERR_INVALID);          /* look-ahead > chunk */
    CHECK_INT(re_spool_pass_run(NULL, NULL), RE_ERR_INVALID);
    CHECK_INT(re_spool_frames(out), 0);                                 /* nothing moved */
    re_processor leveler = re_leveler_processor(lv);                    /* latency > 0 */
    CHECK_INT(re_spool_rework(in, 0, 10, &leveler, NULL), RE_ERR_INVALID);
    re_leveler_free(lv);
    re_spool_free(out);
    re_spool_free(in);
    free(speech);
}

/* The window's formula, written out: what the local retry did to the raw bytes before. */
static int16_t windowed(int16_t x, size_t i, size_t n, size_t ramp, double db)
{
    double g = pow(10.0, db / 20.0), w = 1.0;
    if (ramp > 0 && i < ramp)
        w = (double)(i + 1) / (double)(ramp + 1);
    else if (ramp > 0 && n - i <= ramp)
        w = (double)(n - i) / (double)(ramp + 1);
    double y = nearbyint((double)x * (1.0 + (g - 1.0) * w));
    return (int16_t)(y > 32767 ? 32767 : y < -32768 ? -32768 : (long)y);
}

static void test_rework_in_place(void)
{
    int16_t *speech = speechlike(N);
    re_spool *spool = spool_of(speech, N);
    uint64_t a = RE_SPOOL_PASS_CHUNK - 500, b = 2 * RE_SPOOL_PASS_CHUNK + 700, ramp = 220;
    re_gain_window window;
    re_gain_window_init(&window, b - a, ramp, -3.3);
    re_processor gain = re_gain_window_processor(&window);
    CHECK_INT(re_spool_rework(spool, a, b, &gain, NULL), RE_OK);
    int16_t *got = contents(spool);
    size_t wrong = 0;
    for (size_t i = 0; i < N; i++) {
        int16_t want = i >= a && i < b ? windowed(speech[i], i - a, b - a, ramp, -3.3) : speech[i];
        wrong += got[i] != want;
    }
    CHECK_INT(wrong, 0);
    double peak, whole;
    CHECK_INT(re_spool_range_peak(spool, a, b, &peak, NULL), RE_OK);
    CHECK_INT(re_spool_range_peak(spool, 0, N, &whole, NULL), RE_OK);
    CHECK(peak < whole);
    CHECK_INT(re_spool_range_peak(spool, 10, 10, &peak, NULL), RE_OK);
    CHECK(isinf(peak) && peak < 0);
    CHECK_INT(re_spool_range_peak(spool, 0, N + 1, &peak, NULL), RE_ERR_INVALID);
    re_gain_window_init(&window, 10, 0, -1.0);
    CHECK_INT(re_spool_rework(spool, N - 5, N + 5, &gain, NULL), RE_ERR_INVALID);   /* past the end */
    free(got);
    re_spool_free(spool);
    free(speech);
}

static void test_remove_offset(void)
{
    int16_t pcm[] = { 10, 11, 11, 32767 };   /* mean 8199.75: 8200 off */
    re_sound sound = { .samples = malloc(sizeof pcm), .frames = 4 };
    memcpy(sound.samples, pcm, sizeof pcm);
    re_sound_remove_offset(&sound);
    CHECK_INT(sound.samples[0], 10 - 8200);
    CHECK_INT(sound.samples[3], 32767 - 8200);
    int16_t low[] = { -32768, -32768, -1 };   /* mean -21845.67: -21846 off */
    memcpy(sound.samples, low, sizeof low);
    sound.frames = 3;
    re_sound_remove_offset(&sound);
    CHECK_INT(sound.samples[0], -32768 + 21846);
    CHECK_INT(sound.samples[2], -1 + 21846);
    int16_t high[] = { 32767, 32767, -32768 };   /* mean 10922.33: 10922 off */
    memcpy(sound.samples, high, sizeof high);
    re_sound_remove_offset(&sound);
    CHECK_INT(sound.samples[0], 32767 - 10922);
    CHECK_INT(sound.samples[2], -32768);   /* saturated */
    double lufs = 0;
    CHECK_INT(re_sound_measure_looped(&sound, RATE, 3, &lufs), RE_OK);
    CHECK(isfinite(lufs));
    sound.frames = 0;   /* nothing: nothing to take out, nothing to measure (no endless loop) */
    re_sound_remove_offset(&sound);
    CHECK_INT(re_sound_measure_looped(&sound, RATE, 3, &lufs), RE_OK);
    CHECK(!isfinite(lufs));
    re_sound_free(&sound);
}

int main(void)
{
    test_one_processor_is_the_hand_call();
    test_chain_is_two_passes();
    test_bad_chains_refused();
    test_rework_in_place();
    test_remove_offset();
    return check_finish("test_spool_pass");
}
