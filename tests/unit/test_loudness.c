/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_loudness.c - the loudness stage: the meter against BS.1770 reference values, the leveler's
 * contract (same length, in place, deterministic, pure gain where it does not limit, inter-sample
 * peaks caught, smooth gain), the plan, the MP3 measurement, and the whole two-pass flow on real
 * espeak-ng speech (quiet, loud and mixed voices; targets -16, -19, -23) judged after MP3
 * encoding by an independent meter: ffmpeg's ebur128 filter with dualmono and true peak.
 * espeak-ng (the program) and ffmpeg must be installed; a tool that cannot run fails the test. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sndfile.h>

#include "testkit.h"
#include "testrun.h"
#include "id3.h"
#include "loudness.h"
#include "mp3.h"

#define RATE 22050u
#define CHUNK 4096

static char tmpdir[] = "/tmp/test_loudness.XXXXXX";

/* ---- helpers ---------------------------------------------------------------------------- */

typedef struct pcm {
    int16_t *samples;
    size_t frames;
} pcm;

static void pcm_free(pcm *p)
{
    free(p->samples);
    p->samples = NULL;
    p->frames = 0;
}

static int pcm_append(pcm *p, const int16_t *samples, size_t frames)
{
    int16_t *grown = realloc(p->samples, (p->frames + frames) * sizeof *grown);
    if (!grown)
        return -1;
    memcpy(grown + p->frames, samples, frames * sizeof *grown);
    p->samples = grown;
    p->frames += frames;
    return 0;
}

/* Speech from the espeak-ng program (the test's input only; the product uses the library). */
static int speak(pcm *out, const char *voice, int amplitude, const char *text)
{
    char path[64], amp[16];
    snprintf(path, sizeof path, "%s/speech.wav", tmpdir);
    snprintf(amp, sizeof amp, "%d", amplitude);
    char *argv[] = { "espeak-ng", "-v", (char *)voice, "-a", amp, "-w", path, (char *)text, NULL };
    bytes err;
    int rc = run_collect(argv, STDERR_FILENO, &err);
    free(err.data);
    if (rc != 0) {
        fprintf(stderr, "espeak-ng failed (%d)\n", rc);
        return -1;
    }
    SF_INFO info = { 0 };
    SNDFILE *f = sf_open(path, SFM_READ, &info);
    if (!f || info.channels != 1 || info.samplerate != (int)RATE) {
        if (f)
            sf_close(f);
        return -1;
    }
    int16_t *buf = malloc((size_t)info.frames * sizeof *buf);
    int ok = buf && sf_readf_short(f, buf, info.frames) == info.frames
             && pcm_append(out, buf, (size_t)info.frames) == 0;
    free(buf);
    sf_close(f);
    unlink(path);
    return ok ? 0 : -1;
}

typedef struct ffmpeg_reading {
    double integrated, range, true_peak;
} ffmpeg_reading;

/* The independent judge: ffmpeg's ebur128 filter, dual mono, true peak; parses its Summary. */
static int judge_ffmpeg(const char *path, ffmpeg_reading *r)
{
    char *argv[] = { "ffmpeg", "-nostdin", "-nostats", "-hide_banner", "-i", (char *)path,
                     "-af", "ebur128=peak=true:dualmono=true", "-f", "null", "-", NULL };
    bytes out;
    int rc = run_collect(argv, STDERR_FILENO, &out);
    char *err = (char *)out.data;
    const char *summary = err ? strstr(err, "Summary:") : NULL;
    const char *i = summary ? strstr(summary, "I:") : NULL;
    const char *lra = summary ? strstr(summary, "LRA:") : NULL;
    const char *tp = summary ? strstr(summary, "True peak:") : NULL;
    const char *peak = tp ? strstr(tp, "Peak:") : NULL;
    int ok = rc == 0 && i && lra && peak;
    if (ok) {
        r->integrated = strtod(i + 2, NULL);
        r->range = strtod(lra + 4, NULL);
        r->true_peak = strtod(peak + 5, NULL);
    } else {
        fprintf(stderr, "ffmpeg failed (%d) or printed no summary\n", rc);
    }
    free(err);
    return ok ? 0 : -1;
}

static re_status measure_pcm(const int16_t *samples, size_t frames, re_loudness *out)
{
    re_loudness_meter *m = NULL;
    re_status st = re_loudness_meter_create(RATE, &m);
    for (size_t at = 0; st == RE_OK && at < frames; at += CHUNK)
        st = re_loudness_meter_feed(m, samples + at, frames - at < CHUNK ? frames - at : CHUNK);
    if (st == RE_OK)
        st = re_loudness_meter_finish(m, out);
    re_loudness_meter_free(m);
    return st;
}

/* Levels `in` into `out` (same length) in pieces of `chunk`; returns the frames written. */
static size_t level(const re_loudness_plan *plan, const int16_t *in, size_t frames, size_t chunk,
                    int16_t *out, re_leveler_stats *stats)
{
    re_leveler *lv = NULL;
    if (re_leveler_create(RATE, plan->gain_db, plan->limiter_ceiling_dbtp, &lv) != RE_OK)
        return 0;
    size_t done = 0, got = 0;
    for (size_t at = 0; at < frames; at += chunk) {
        size_t n = frames - at < chunk ? frames - at : chunk;
        if (re_leveler_process(lv, in + at, n, out + done, &got) != RE_OK)
            break;
        done += got;
    }
    if (re_leveler_flush(lv, out + done, &got) == RE_OK)
        done += got;
    if (stats)
        re_leveler_get_stats(lv, stats);
    re_leveler_free(lv);
    return done;
}

static re_status encode(const char *path, const int16_t *samples, size_t frames)
{
    re_id3_fields fields = { .title = "loudness test",
                             .length_ms = (uint64_t)frames * 1000 / RATE };
    unsigned char *tag = NULL;
    size_t tag_len = 0;
    re_mp3_encoder *enc = NULL;
    re_mp3_settings settings = { RE_MP3_DEFAULT_BITRATE, -1 };
    re_status st = re_id3_build(&fields, &tag, &tag_len);
    FILE *f = st == RE_OK ? fopen(path, "w+b") : NULL;
    if (st == RE_OK && !f)
        st = RE_ERR_WRITE;
    if (st == RE_OK)
        st = re_mp3_encoder_create(f, RATE, &settings, tag, tag_len, &enc);
    for (size_t at = 0; st == RE_OK && at < frames; at += CHUNK)
        st = re_mp3_encoder_write(enc, samples + at, frames - at < CHUNK ? frames - at : CHUNK);
    if (st == RE_OK)
        st = re_mp3_encoder_finish(enc);
    re_mp3_encoder_free(enc);
    if (f && fclose(f) != 0 && st == RE_OK)
        st = RE_ERR_WRITE;
    free(tag);
    return st;
}

static int16_t *tone(size_t frames, double freq, double amplitude, double phase)
{
    int16_t *p = malloc(frames * sizeof *p);
    for (size_t i = 0; p && i < frames; i++)
        p[i] = (int16_t)lrint(amplitude * 32768.0
                              * sin(2.0 * M_PI * freq * (double)i / RATE + phase));
    return p;
}

static uint64_t fnv1a(const int16_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint16_t)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

/* ---- the meter -------------------------------------------------------------------------- */

static void test_meter(void)
{
    /* BS.1770: a full-scale 997 Hz sine in one channel reads -3.01 LUFS; dual mono counts it
     * twice, so a sine of peak -20 dBFS reads -20.0 LUFS (the K filter is ~0 dB at 1 kHz). */
    size_t n = 10 * RATE;
    int16_t *sine = tone(n, 997.0, pow(10.0, -20.0 / 20.0), 0.0);
    re_loudness r;
    CHECK_INT(measure_pcm(sine, n, &r), RE_OK);
    printf("meter: 997 Hz at -20 dBFS: I %.3f LUFS, LRA %.2f, TP %.3f, SP %.3f\n",
           r.integrated_lufs, r.range_lu, r.true_peak_dbtp, r.sample_peak_dbfs);
    CHECK(fabs(r.integrated_lufs - -20.0) < 0.1);
    CHECK(fabs(r.true_peak_dbtp - -20.0) < 0.1);
    CHECK(fabs(r.sample_peak_dbfs - -20.0) < 0.1);
    CHECK(r.range_lu < 0.2);
    CHECK_INT(r.frames, n);
    free(sine);

    int16_t *silence = calloc(RATE, sizeof *silence);
    CHECK_INT(measure_pcm(silence, RATE, &r), RE_OK);
    CHECK(isinf(r.integrated_lufs) && r.integrated_lufs < 0);
    CHECK(isinf(r.true_peak_dbtp) && r.true_peak_dbtp < 0);
    CHECK(r.range_lu == 0);
    free(silence);

    re_loudness_meter *m = NULL;
    CHECK_INT(re_loudness_meter_create(100, &m), RE_ERR_INVALID);
    CHECK(m == NULL);
    CHECK_INT(re_loudness_meter_create(RATE, &m), RE_OK);
    CHECK_INT(re_loudness_meter_finish(m, &r), RE_OK);
    CHECK_INT(re_loudness_meter_finish(m, &r), RE_ERR_INVALID);
    int16_t one = 1;
    CHECK_INT(re_loudness_meter_feed(m, &one, 1), RE_ERR_INVALID);
    re_loudness_meter_free(m);
    re_loudness_meter_free(NULL);
}

static void test_meter_peaks(void)
{
    /* A sine at a quarter of the rate, a quarter period off the samples: every sample sits
     * at 0.707 of the crest, which falls between them; the sample peak is 3.01 dB under it.
     * The true peak must find the crest: a ceiling is only safe if the meter never reads
     * low. It may read a little high: the 16-tap interpolator's ripple at a quarter of the
     * rate is +0.12 dB (measured); BS.1770-4 lets a 4x meter read up to 0.69 dB low. */
    size_t n = 4 * RATE;
    double amplitude = pow(10.0, -6.0 / 20.0);
    int16_t *sine = tone(n, RATE / 4.0, amplitude, M_PI / 4);
    re_loudness r, queued;
    CHECK_INT(measure_pcm(sine, n, &r), RE_OK);
    printf("meter: fs/4 sine, crest -6 dBFS between samples: TP %.3f, SP %.3f\n",
           r.true_peak_dbtp, r.sample_peak_dbfs);
    CHECK(r.true_peak_dbtp >= -6.0 - 0.01 && r.true_peak_dbtp < -6.0 + 0.2);
    CHECK(fabs(r.sample_peak_dbfs - (-6.0 - 3.01)) < 0.05);
    /* In speech's range it is within 0.02 dB (+0.010 measured at 1 kHz). */
    int16_t *low = tone(n, 1001.0, amplitude, 0.4);
    re_loudness r1;
    CHECK_INT(measure_pcm(low, n, &r1), RE_OK);
    printf("meter: 1001 Hz sine, crest -6 dBFS: TP %.3f, SP %.3f\n", r1.true_peak_dbtp,
           r1.sample_peak_dbfs);
    CHECK(r1.true_peak_dbtp >= -6.0 - 0.005 && r1.true_peak_dbtp < -6.0 + 0.02);
    free(low);

    /* Fed in the background, in odd pieces: the same measurement, to the last bit. */
    re_loudness_meter *m = NULL;
    CHECK_INT(re_loudness_meter_create(RATE, &m), RE_OK);
    CHECK_INT(re_loudness_meter_in_background(m), RE_OK);
    CHECK_INT(re_loudness_meter_in_background(m), RE_ERR_INVALID);
    for (size_t at = 0, step = 1; at < n; at += step, step = step * 3 % 40009 + 1)
        CHECK_INT(re_loudness_meter_feed(m, sine + at, n - at < step ? n - at : step), RE_OK);
    CHECK_INT(re_loudness_meter_finish(m, &queued), RE_OK);
    re_loudness_meter_free(m);
    CHECK(memcmp(&queued, &r, sizeof r) == 0);
    /* Freed while the thread still has audio queued: nothing leaks, nothing hangs. */
    CHECK_INT(re_loudness_meter_create_planning(RATE, &m), RE_OK);
    CHECK_INT(re_loudness_meter_in_background(m), RE_OK);
    CHECK_INT(re_loudness_meter_feed(m, sine, n), RE_OK);
    re_loudness_meter_free(m);
    free(sine);
}

/* ---- the leveler ------------------------------------------------------------------------ */

static void test_leveler_contract(void)
{
    re_leveler *lv = NULL;
    CHECK_INT(re_leveler_create(RATE, 41.0, -1.0, &lv), RE_ERR_INVALID);
    CHECK_INT(re_leveler_create(RATE, 0.0, 0.5, &lv), RE_ERR_INVALID);
    CHECK_INT(re_leveler_create(RATE, NAN, -1.0, &lv), RE_ERR_INVALID);
    CHECK_INT(re_leveler_create(1000, 0.0, -1.0, &lv), RE_ERR_INVALID);
    CHECK(lv == NULL);

    /* Fewer samples than the look-ahead: all of them still come out. */
    CHECK_INT(re_leveler_create(RATE, 0.0, -1.0, &lv), RE_OK);
    size_t latency = re_leveler_latency(lv);
    printf("leveler: latency %zu frames (%.2f ms)\n", latency, 1000.0 * (double)latency / RATE);
    CHECK(latency > 0 && latency < RATE / 100);
    int16_t in[5] = { 1, -2, 3, -4, 5 }, out[512];
    size_t got = 99;
    CHECK_INT(re_leveler_process(lv, in, 5, out, &got), RE_OK);
    CHECK_INT(got, 0);
    CHECK_INT(re_leveler_flush(lv, out, &got), RE_OK);
    CHECK_INT(got, 5);
    CHECK(memcmp(in, out, sizeof in) == 0);   /* 0 dB, far below the ceiling: untouched */
    CHECK_INT(re_leveler_process(lv, in, 5, out, &got), RE_ERR_INVALID);
    CHECK_INT(re_leveler_flush(lv, out, &got), RE_ERR_INVALID);
    re_leveler_free(lv);
    re_leveler_free(NULL);

    /* Nothing in, nothing out. */
    CHECK_INT(re_leveler_create(RATE, 3.0, -1.0, &lv), RE_OK);
    CHECK_INT(re_leveler_flush(lv, out, &got), RE_OK);
    CHECK_INT(got, 0);
    re_leveler_free(lv);
}

static void test_leveler_gain_only(void)
{
    /* Where the limiter does not act, output i is exactly round(input i x gain): no delay,
     * no drift. The tone's peak after +6 dB is about -6 dBFS, far below a -1 dBTP ceiling. */
    size_t n = 3 * RATE + 17;
    int16_t *in = tone(n, 311.0, 0.25, 0.3), *out = malloc(n * sizeof *out);
    re_loudness_plan plan = { .gain_db = 6.0, .limiter_ceiling_dbtp = -1.0 };
    re_leveler_stats stats;
    CHECK_INT(level(&plan, in, n, 1000, out, &stats), n);
    double g = pow(10.0, 6.0 / 20.0);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += out[i] != (int16_t)lrint((double)in[i] * g);
    CHECK_INT(wrong, 0);
    CHECK(stats.max_reduction_db == 0);
    CHECK_INT(stats.limited_frames, 0);
    free(in);
    free(out);
}

static void test_leveler_limits(void)
{
    /* A tone at a quarter of the rate with a 45-degree phase: every sample is at 0.707 of the
     * wave's peak, so the true peak is 3 dB above the sample peak. Samples at -2 dBFS (true
     * peak +1 dBTP), +4 dB of gain, ceiling -1 dBTP: the limiter must see the peaks between
     * the samples and take 6 dB off; a sample-peak limiter would leave it 3 dB too loud. */
    size_t period = 5 * RATE / 2, n = 3 * period;
    int16_t *in = tone(n, RATE / 4.0, pow(10.0, 1.0 / 20.0), M_PI / 4);
    int16_t *out = malloc(n * sizeof *out);
    /* bursts: 200 ms on, 2.3 s at -26 dB, so the gain has to come down and go back up */
    for (size_t i = 0; i < n; i++)
        if (i % period >= RATE / 5)
            in[i] = (int16_t)(in[i] / 20);
    re_loudness before, after;
    CHECK_INT(measure_pcm(in, n, &before), RE_OK);
    re_loudness_plan plan = { .gain_db = 4.0, .limiter_ceiling_dbtp = -1.0 };
    re_leveler_stats stats;
    CHECK_INT(level(&plan, in, n, 777, out, &stats), n);
    CHECK_INT(measure_pcm(out, n, &after), RE_OK);
    printf("leveler: fs/4 bursts: in SP %.2f TP %.2f -> out SP %.2f TP %.2f, max reduction %.2f dB,"
           " %.1f%% of frames limited\n", before.sample_peak_dbfs, before.true_peak_dbtp,
           after.sample_peak_dbfs, after.true_peak_dbtp, stats.max_reduction_db,
           100.0 * (double)stats.limited_frames / (double)n);
    CHECK(before.true_peak_dbtp > before.sample_peak_dbfs + 2.5);
    CHECK(after.true_peak_dbtp <= -1.0 + 0.05);
    CHECK(after.true_peak_dbtp > -1.0 - 0.5);    /* limited to the ceiling, not far below it */
    /* 6 dB, and a little more where a burst starts (the switch-on overshoots between samples) */
    CHECK(stats.max_reduction_db > 5.5 && stats.max_reduction_db < 7.5);

    /* Smooth: the applied gain (out/in on loud samples) changes by little from sample to
     * sample (a 6 dB ramp over 5 ms is 0.0045 per sample; rounding adds < 0.001). */
    double worst = 0, last = -1;
    for (size_t i = 0; i < n; i++) {
        if (abs(in[i]) < 8000) {
            last = -1;
            continue;
        }
        double ratio = (double)out[i] / in[i] / pow(10.0, 4.0 / 20.0);
        if (last >= 0 && fabs(ratio - last) > worst)
            worst = fabs(ratio - last);
        last = ratio;
    }
    printf("leveler: largest gain step between loud samples %.4f\n", worst);
    CHECK(worst < 0.01);

    /* Quiet stretches get their gain back: 2 s into a gap the gain is exactly the plain gain. */
    size_t probe = period + RATE / 5 + 2 * RATE;
    double g = pow(10.0, 4.0 / 20.0);
    int exact = 1;
    for (size_t i = probe; i < probe + 100; i++)
        exact &= out[i] == (int16_t)lrint((double)in[i] * g);
    CHECK(exact);
    free(in);
    free(out);
}

static void test_leveler_deterministic(const pcm *speech)
{
    /* The same input gives the same samples whatever the chunking (1, 333, 16384 frames). */
    re_loudness_plan plan = { .gain_db = 9.0, .limiter_ceiling_dbtp = -1.3 };
    size_t n = speech->frames;
    int16_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    re_leveler_stats stats;
    CHECK_INT(level(&plan, speech->samples, n, 1, a, NULL), n);
    CHECK_INT(level(&plan, speech->samples, n, 333, b, NULL), n);
    CHECK_INT(level(&plan, speech->samples, n, 16384, c, &stats), n);
    CHECK(memcmp(a, b, n * sizeof *a) == 0);
    CHECK(memcmp(a, c, n * sizeof *a) == 0);
    CHECK(stats.limited_frames > 0);
    printf("leveler: speech +9 dB: %zu frames, hash %016llx, max reduction %.2f dB\n", n,
           (unsigned long long)fnv1a(a, n), stats.max_reduction_db);
    free(a);
    free(b);
    free(c);
}

/* The leveler's ranges and its output's int16 saturation, at their edges and with their signs.
 * Gain -40..+40 dB, ceiling -20..0 dBTP, rate 8000..192000 Hz: the ends are taken, a step
 * past either refused. Saturation: only at the 0 dBTP ceiling can a sample reach full scale
 * (the limiter lets through what stays within the ceiling, 32768 units, and that rounds to
 * 32768 once it passes 32767.5). An impulse of 32767 with gain making it 32767.49 comes out
 * 32767 unclamped; made 32767.51, it rounds to 32768 and must saturate at 32767, not wrap to
 * -32768. The negative side: -32768 with any gain over 0 dB is limited back to the ceiling,
 * -32768 exactly: the floor is reached and kept (not -32767, not wrapped to +32767). */
static void test_leveler_edges(void)
{
    re_leveler *lv = NULL;
    const struct { unsigned rate; double gain, ceiling; re_status want; } ranges[] = {
        { RATE, 40.0, -1.0, RE_OK },      { RATE, 40.001, -1.0, RE_ERR_INVALID },
        { RATE, -40.0, -1.0, RE_OK },     { RATE, -40.001, -1.0, RE_ERR_INVALID },
        { RATE, 0.0, 0.0, RE_OK },        { RATE, 0.0, 0.001, RE_ERR_INVALID },
        { RATE, 0.0, -20.0, RE_OK },      { RATE, 0.0, -20.001, RE_ERR_INVALID },
        { 8000, 0.0, -1.0, RE_OK },       { 7999, 0.0, -1.0, RE_ERR_INVALID },
        { 192000, 0.0, -1.0, RE_OK },     { 192001, 0.0, -1.0, RE_ERR_INVALID },
        { RATE, INFINITY, -1.0, RE_ERR_INVALID }, { RATE, 0.0, -INFINITY, RE_ERR_INVALID },
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        lv = NULL;
        CHECK_INT(re_leveler_create(ranges[i].rate, ranges[i].gain, ranges[i].ceiling, &lv),
                  ranges[i].want);
        CHECK((lv != NULL) == (ranges[i].want == RE_OK));
        re_leveler_free(lv);
    }

    enum { N = 20000, AT = 5000 };
    int16_t *in = calloc(N, sizeof *in), *out = calloc(N, sizeof *out);
    const struct { int16_t x; double scaled; int16_t want; int limited; } impulses[] = {
        { 32767, 32767.49, 32767, 0 },    /* just inside: rounds to 32767 */
        { 32767, 32767.51, 32767, 0 },    /* just outside: 32768, saturated */
        { 32767, 32767.99, 32767, 0 },
        { -32768, -32768.4, -32768, 1 },  /* the limiter holds it at the floor */
        { -32768, -32768 * 1.01, -32768, 1 },
        { -32767, -32767.49, -32767, 0 },
        { -32767, -32767.51, -32768, 0 }, /* rounds to the floor itself */
    };
    for (size_t i = 0; in && out && i < sizeof impulses / sizeof impulses[0]; i++) {
        memset(in, 0, N * sizeof *in);
        in[AT] = impulses[i].x;
        double gain_db = 20.0 * log10(impulses[i].scaled / impulses[i].x);
        re_loudness_plan plan = { .gain_db = gain_db, .limiter_ceiling_dbtp = 0.0 };
        re_leveler_stats stats;
        CHECK_INT(level(&plan, in, N, 4096, out, &stats), N);
        CHECK_INT(out[AT], impulses[i].want);
        CHECK_INT(out[AT - 1], 0);
        CHECK_INT(out[AT + 1], 0);
        CHECK_INT(stats.max_reduction_db > 0, impulses[i].limited);
    }
    free(in);
    free(out);
}

/* ---- the plan --------------------------------------------------------------------------- */

static void test_plan(void)
{
    re_loudness pass1 = { .integrated_lufs = -20.0, .true_peak_dbtp = -7.0 };
    re_loudness_plan plan;
    CHECK_INT(re_loudness_plan_make(&pass1, -16.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_OK);
    CHECK(fabs(plan.gain_db - (4.0 - RE_LOUDNESS_MP3_LEVEL_DB)) < 1e-9);
    CHECK(fabs(plan.limiter_ceiling_dbtp - (-1.0 - RE_LOUDNESS_MP3_MARGIN_DB)) < 1e-9);
    CHECK(!re_loudness_plan_limits(&plan));        /* -7 + 4.45 = -2.55: the limiter won't act */
    CHECK_INT(re_loudness_plan_make(&pass1, -16.0, -1.0, RE_LOUDNESS_PCM, &plan), RE_OK);
    CHECK(fabs(plan.gain_db - 4.0) < 1e-9);

    pass1.true_peak_dbtp = -2.0;                   /* + 4.45 dB: far over the ceiling */
    CHECK_INT(re_loudness_plan_make(&pass1, -16.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_OK);
    CHECK(re_loudness_plan_limits(&plan));
    /* The first dry run starts with part of what the limiter is expected to take. */
    double over = -2.0 + plan.first_gain_db - plan.limiter_ceiling_dbtp;
    CHECK(fabs(plan.first_gain_db - (4.0 - RE_LOUDNESS_MP3_LEVEL_DB)) < 1e-9);
    CHECK(fabs(plan.gain_db - plan.first_gain_db - RE_LOUDNESS_LIMITER_LOSS_PER_DB2 * over * over) < 1e-9);
    /* A dry run that came out 1 LU short: the gain goes up by 1 dB (slope 1 at first)... */
    double g0 = plan.gain_db;
    re_loudness leveled = { .integrated_lufs = plan.leveled_aim_lufs - 1.0 };
    CHECK_INT(re_loudness_plan_update(&plan, &leveled, RE_LOUDNESS_LEVELED), 1);
    CHECK(fabs(plan.gain_db - (g0 + 1.0)) < 1e-9);
    /* ... and then 0.5 LU short: the limiter gave only half of it, so the secant doubles. */
    leveled.integrated_lufs = plan.leveled_aim_lufs - 0.5;
    CHECK_INT(re_loudness_plan_update(&plan, &leveled, RE_LOUDNESS_LEVELED), 1);
    CHECK(fabs(plan.gain_db - (g0 + 2.0)) < 1e-9);
    leveled.integrated_lufs = plan.leveled_aim_lufs + 0.05;
    CHECK_INT(re_loudness_plan_update(&plan, &leveled, RE_LOUDNESS_LEVELED), 0);
    CHECK_INT(plan.dry_runs, 3);

    /* Delivered 10 LU under the target after dry runs that were on their aim: the encoder
     * dropped loud audio above its band. The gain makes it up with a step of slope 1 (not
     * the dry runs' secant), past the limiter's cap on extra gain; a second encode still
     * 0.6 LU short moves it on by the secant through the two encodes. */
    re_loudness_plan dropped = plan;
    double g1 = dropped.gain_db;
    re_loudness delivered = { .integrated_lufs = -26.0, .true_peak_dbtp = -9.0 };
    CHECK_INT(re_loudness_plan_update(&dropped, &delivered, RE_LOUDNESS_DELIVERED), 1);
    CHECK(!dropped.met);
    CHECK(fabs(dropped.gain_db - (g1 + 10.0)) < 1e-9);
    CHECK(dropped.gain_db > dropped.first_gain_db + RE_LOUDNESS_MAX_EXTRA_GAIN_DB);
    delivered.integrated_lufs = -16.6;
    CHECK_INT(re_loudness_plan_update(&dropped, &delivered, RE_LOUDNESS_DELIVERED), 1);
    CHECK(fabs(dropped.gain_db - (g1 + 10.0 + 0.6 / 0.94)) < 1e-9);
    delivered.integrated_lufs = -16.1;
    CHECK_INT(re_loudness_plan_update(&dropped, &delivered, RE_LOUDNESS_DELIVERED), 0);
    CHECK(dropped.met);

    /* Delivered: in spec, then a peak 0.2 dB over: the limiter ceiling comes down 0.5 dB. */
    delivered = (re_loudness){ .integrated_lufs = -16.3, .true_peak_dbtp = -1.2 };
    re_loudness_plan copy = plan;
    CHECK_INT(re_loudness_plan_update(&copy, &delivered, RE_LOUDNESS_DELIVERED), 0);
    CHECK(copy.met);
    delivered.true_peak_dbtp = -0.8;
    double ceiling = plan.limiter_ceiling_dbtp, gain = plan.gain_db;
    CHECK_INT(re_loudness_plan_update(&plan, &delivered, RE_LOUDNESS_DELIVERED), 1);
    CHECK(!plan.met);
    CHECK(fabs(plan.limiter_ceiling_dbtp - (ceiling - 0.5)) < 1e-9);
    CHECK(plan.gain_db == gain);
    /* Never in spec: it gives up after RE_LOUDNESS_MAX_ENCODES encodes. */
    delivered.integrated_lufs = -30.0;
    while (re_loudness_plan_update(&plan, &delivered, RE_LOUDNESS_DELIVERED))
        ;
    CHECK_INT(plan.encodes, RE_LOUDNESS_MAX_ENCODES);
    CHECK(!plan.met);
    CHECK(plan.gain_db <= plan.first_gain_db + RE_LOUDNESS_MAX_EXTRA_GAIN_DB);

    /* Silence: no gain, nothing to correct. */
    re_loudness silent = { .integrated_lufs = -HUGE_VAL, .true_peak_dbtp = -HUGE_VAL };
    CHECK_INT(re_loudness_plan_make(&silent, -16.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_OK);
    CHECK(plan.gain_db == 0);
    CHECK(!re_loudness_plan_limits(&plan));
    CHECK_INT(re_loudness_plan_update(&plan, &silent, RE_LOUDNESS_DELIVERED), 0);
    CHECK(plan.met);

    CHECK_INT(re_loudness_plan_make(&pass1, -3.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&pass1, -16.0, 1.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&pass1, NAN, -1.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
}

/* The plan's limits at their edges, on both sides and with their signs: the gain is clamped
 * to -40..+40 dB (a loud sound file under --loudness -40 is attenuated by at most 40 dB, a
 * near-silent one amplified by at most 40), the limiter's ceiling never goes below -20 dBTP
 * (--true-peak -20 less the margin would be -20.3), and the documented ranges of the target
 * (-40..-5 LUFS) and of the ceiling (-20..0 dBTP) hold at their ends. */
static void test_plan_edges(void)
{
    re_loudness_plan plan;
    const struct { double integrated, target, gain; } gains[] = {
        { -55.9, -16.0, 39.9 },  { -56.0, -16.0, 40.0 },  { -56.1, -16.0, 40.0 },
        { -80.0, -16.0, 40.0 },
        { -0.1, -40.0, -39.9 },  { 0.0, -40.0, -40.0 },   { 0.1, -40.0, -40.0 },
        { 3.0, -40.0, -40.0 },
    };
    for (size_t i = 0; i < sizeof gains / sizeof gains[0]; i++) {
        re_loudness pass1 = { .integrated_lufs = gains[i].integrated, .true_peak_dbtp = -100.0 };
        CHECK_INT(re_loudness_plan_make(&pass1, gains[i].target, -1.0, RE_LOUDNESS_PCM, &plan),
                  RE_OK);
        CHECK(fabs(plan.gain_db - gains[i].gain) < 1e-9);
        CHECK(fabs(plan.first_gain_db - gains[i].gain) < 1e-9);
    }
    /* The limiter's path (pass 1's peaks plus the gain pass the limiter's ceiling, -1.1 dBTP
     * here): the gain gets 0.014 x over^2 more, at most 3 dB (half the cap on extra gain),
     * and the sum is clamped to +40 dB. 38.5 + 1.4 = 39.9 is just inside, 38.7 + 1.4 just
     * outside (40); over 14.6 dB adds 2.984 (inside the 3 dB cap), 14.7 dB adds 3 (outside);
     * at no overshoot nothing is added. The share only ever raises the gain: at -40 dB it
     * gives -38.6, the lower clamp never acts on this path. */
    const struct { double integrated, over, gain, first; } limited[] = {
        { -54.5, 10.0, 39.9, 38.5 },   { -54.7, 10.0, 40.0, 38.7 },
        { -56.0, 10.0, 40.0, 40.0 },   { -54.5, 0.0, 38.5, 38.5 },
        { -20.0, 14.6, 4.0 + 0.014 * 14.6 * 14.6, 4.0 },   { -20.0, 14.7, 7.0, 4.0 },
        { -20.0, 30.0, 7.0, 4.0 },     { -20.0, 0.1, 4.0 + 0.014 * 0.01, 4.0 },
        { -20.0, -0.1, 4.0, 4.0 },     { 24.0, 10.0, -38.6, -40.0 },
    };
    for (size_t i = 0; i < sizeof limited / sizeof limited[0]; i++) {
        double first = limited[i].first;
        re_loudness pass1 = { .integrated_lufs = limited[i].integrated,
                              .true_peak_dbtp = limited[i].over - 1.1 - first };
        CHECK_INT(re_loudness_plan_make(&pass1, limited[i].integrated < 0 ? -16.0 : -40.0, -1.0,
                                        RE_LOUDNESS_PCM, &plan), RE_OK);
        CHECK(fabs(plan.limiter_ceiling_dbtp - -1.1) < 1e-9);
        CHECK(fabs(plan.first_gain_db - first) < 1e-9);
        CHECK(fabs(plan.gain_db - limited[i].gain) < 1e-9);
        CHECK_INT(re_loudness_plan_limits(&plan), limited[i].over > -0.3);
        re_leveler *lv = NULL;   /* whatever the plan says, the leveler takes */
        CHECK_INT(re_leveler_create(RATE, plan.gain_db, plan.limiter_ceiling_dbtp, &lv), RE_OK);
        re_leveler_free(lv);
    }
    /* the limiter ceiling: the ceiling less the output's margin, never under -20 dBTP */
    const struct { double ceiling; re_loudness_output output; double limiter; } ceilings[] = {
        { -19.6, RE_LOUDNESS_MP3, -19.9 }, { -19.7, RE_LOUDNESS_MP3, -20.0 },
        { -20.0, RE_LOUDNESS_MP3, -20.0 }, { -19.9, RE_LOUDNESS_PCM, -20.0 },
        { -20.0, RE_LOUDNESS_PCM, -20.0 }, { 0.0, RE_LOUDNESS_MP3, -0.3 },
        { 0.0, RE_LOUDNESS_PCM, -0.1 },
    };
    re_loudness quiet = { .integrated_lufs = -20.0, .true_peak_dbtp = -60.0 };
    for (size_t i = 0; i < sizeof ceilings / sizeof ceilings[0]; i++) {
        CHECK_INT(re_loudness_plan_make(&quiet, -16.0, ceilings[i].ceiling, ceilings[i].output,
                                        &plan), RE_OK);
        CHECK(fabs(plan.limiter_ceiling_dbtp - ceilings[i].limiter) < 1e-9);
    }
    /* a delivered peak far over a ceiling at its floor: the limiter ceiling stays at -20 */
    CHECK_INT(re_loudness_plan_make(&quiet, -16.0, -20.0, RE_LOUDNESS_MP3, &plan), RE_OK);
    re_loudness delivered = { .integrated_lufs = -16.0, .true_peak_dbtp = -5.0 };
    CHECK_INT(re_loudness_plan_update(&plan, &delivered, RE_LOUDNESS_DELIVERED), 1);
    CHECK(fabs(plan.limiter_ceiling_dbtp - RE_LOUDNESS_CEILING_MIN) < 1e-9);
    /* a delivered file 5 LU too loud with the gain near -40: the step stops at -40 */
    re_loudness loud = { .integrated_lufs = -1.0, .true_peak_dbtp = -100.0 };
    CHECK_INT(re_loudness_plan_make(&loud, -40.0, -1.0, RE_LOUDNESS_PCM, &plan), RE_OK);
    CHECK(fabs(plan.gain_db - -39.0) < 1e-9);
    delivered = (re_loudness){ .integrated_lufs = -35.0, .true_peak_dbtp = -60.0 };
    CHECK_INT(re_loudness_plan_update(&plan, &delivered, RE_LOUDNESS_DELIVERED), 1);
    CHECK(fabs(plan.gain_db - -RE_LOUDNESS_MAX_GAIN_DB) < 1e-9);
    /* ... and one 50 LU too quiet with the gain near +40: at most +40 */
    re_loudness faint = { .integrated_lufs = -55.0, .true_peak_dbtp = -100.0 };
    CHECK_INT(re_loudness_plan_make(&faint, -16.0, -1.0, RE_LOUDNESS_PCM, &plan), RE_OK);
    CHECK(fabs(plan.gain_db - 39.0) < 1e-9);
    delivered = (re_loudness){ .integrated_lufs = -18.0, .true_peak_dbtp = -60.0 };
    CHECK_INT(re_loudness_plan_update(&plan, &delivered, RE_LOUDNESS_DELIVERED), 1);
    CHECK(fabs(plan.gain_db - RE_LOUDNESS_MAX_GAIN_DB) < 1e-9);
    /* The secant's slope is kept within 0.2 .. 1, whatever sign it comes out with: after a
     * step of +1 dB, a dry run 0.2 LU nearer its aim is a slope of 0.2 (the next step is
     * 0.8 / 0.2 = 4 dB), 0.1 LU nearer is 0.1, taken as 0.2 (4.5 dB, not 9); 1.5 LU nearer
     * (past the aim) is 1.5, taken as 1; 0.5 LU further is -0.5, taken as 0.2: the gain goes
     * on up (to its cap, 6 dB over the first), never down. */
    const struct { double second, step; } slopes[] = {
        { -0.8, 4.0 }, { -0.9, 4.5 }, { 0.5, -0.5 }, { -1.5, 5.0 },
    };
    for (size_t i = 0; i < sizeof slopes / sizeof slopes[0]; i++) {
        re_loudness pass1 = { .integrated_lufs = -20.0, .true_peak_dbtp = -60.0 };
        CHECK_INT(re_loudness_plan_make(&pass1, -16.0, -1.0, RE_LOUDNESS_PCM, &plan), RE_OK);
        double g0 = plan.gain_db;
        re_loudness leveled = { .integrated_lufs = plan.leveled_aim_lufs - 1.0 };
        CHECK_INT(re_loudness_plan_update(&plan, &leveled, RE_LOUDNESS_LEVELED), 1);
        CHECK(fabs(plan.gain_db - (g0 + 1.0)) < 1e-9);
        leveled.integrated_lufs = plan.leveled_aim_lufs + slopes[i].second;
        CHECK_INT(re_loudness_plan_update(&plan, &leveled, RE_LOUDNESS_LEVELED), 1);
        CHECK(fabs(plan.gain_db - (g0 + 1.0 + slopes[i].step)) < 1e-9);
    }
    /* the ranges, at both ends and just outside */
    CHECK_INT(re_loudness_plan_make(&quiet, -40.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_OK);
    CHECK_INT(re_loudness_plan_make(&quiet, -40.001, -1.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&quiet, -5.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_OK);
    CHECK_INT(re_loudness_plan_make(&quiet, -4.999, -1.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&quiet, 40.0, -1.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&quiet, -16.0, -20.001, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&quiet, -16.0, 0.001, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&quiet, -16.0, 20.0, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
    CHECK_INT(re_loudness_plan_make(&quiet, -16.0, -INFINITY, RE_LOUDNESS_MP3, &plan), RE_ERR_INVALID);
}

/* ---- measuring an MP3 ------------------------------------------------------------------- */

static void test_measure_mp3(void)
{
    char path[64], text[64];
    snprintf(path, sizeof path, "%s/tone.mp3", tmpdir);
    size_t n = 5 * RATE + 321;
    int16_t *sine = tone(n, 997.0, pow(10.0, -20.0 / 20.0), 0.0);
    CHECK_INT(encode(path, sine, n), RE_OK);
    re_loudness r;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK(lseek(fd, 100, SEEK_SET) == 100);
    CHECK_INT(re_loudness_measure_mp3_fd(fd, &r, &diag), RE_OK);
    CHECK(lseek(fd, 0, SEEK_CUR) == 100);          /* the file offset is left alone */
    close(fd);
    printf("mp3: 997 Hz at -20 dBFS decodes to I %.3f LUFS, TP %.3f dBTP, %llu frames\n",
           r.integrated_lufs, r.true_peak_dbtp, (unsigned long long)r.frames);
    CHECK_INT(r.frames, n);                        /* gapless: the LAME tag was honoured */
    CHECK(fabs(r.integrated_lufs - (-20.0 + RE_LOUDNESS_MP3_LEVEL_DB)) < 0.1);
    free(sine);

    /* Long enough to be measured in two halves at once: the peaks and the loudness of a
     * single decoder and meter. A quiet tone, with the loudest burst in the second half and
     * the next one in the first, and a burst every 1.3 s (across the halves' meters' seams
     * too), so that the gates and the range have something to decide. */
    size_t long_n = 52 * RATE;
    int16_t *bursts = tone(long_n, 440.0, 0.1, 0.0);
    int16_t *loud = tone(RATE / 2, 2997.0, 0.8, 0.3), *less = tone(RATE / 2, 1234.0, 0.6, 0.0);
    int16_t *beat = tone(RATE / 3, 700.0, 0.4, 0.0);
    for (size_t at = RATE / 5; at + RATE / 3 < long_n; at += 13 * RATE / 10)
        memcpy(bursts + at, beat, RATE / 3 * sizeof *beat);
    memcpy(bursts + 40 * RATE, loud, RATE / 2 * sizeof *loud);
    memcpy(bursts + 10 * RATE, less, RATE / 2 * sizeof *less);
    CHECK_INT(encode(path, bursts, long_n), RE_OK);
    fd = open(path, O_RDONLY);
    re_loudness halves, whole;
    CHECK_INT(re_loudness_peaks_mp3_fd(fd, &halves, &diag), RE_OK);
    CHECK_INT(re_loudness_measure_mp3_fd(fd, &whole, &diag), RE_OK);
    CHECK_INT(diag.count, 0);
    close(fd);
    printf("mp3: in halves TP %.6f SP %.6f I %.6f LRA %.6f, one decoder TP %.6f SP %.6f "
           "I %.6f LRA %.6f\n", halves.true_peak_dbtp, halves.sample_peak_dbfs,
           halves.integrated_lufs, halves.range_lu, whole.true_peak_dbtp,
           whole.sample_peak_dbfs, whole.integrated_lufs, whole.range_lu);
    CHECK_INT(halves.frames, long_n);
    CHECK(fabs(halves.true_peak_dbtp - whole.true_peak_dbtp) < 1e-4);
    CHECK(fabs(halves.sample_peak_dbfs - whole.sample_peak_dbfs) < 1e-4);
    CHECK(fabs(halves.integrated_lufs - whole.integrated_lufs) < 0.005);
    CHECK(fabs(halves.range_lu - whole.range_lu) < 0.005);
    CHECK(whole.range_lu > 1.0);
    free(beat);
    free(bursts);
    free(loud);
    free(less);

    snprintf(text, sizeof text, "%s/not.mp3", tmpdir);
    FILE *f = fopen(text, "wb");
    CHECK(f != NULL);
    for (int i = 0; f && i < 200; i++)
        fputs("this is not an mp3 file\n", f);
    if (f)
        fclose(f);
    CHECK_INT(re_loudness_measure_mp3(text, &r, &diag), RE_ERR_FORMAT);
    CHECK(diag_last(&diag)[0] != '\0');
    CHECK_STR(diag.items[0].file, text);              /* the path names where it went wrong */
    diag_clear(&diag);
    unlink(text);
    snprintf(text, sizeof text, "%s/missing.mp3", tmpdir);
    CHECK_INT(re_loudness_measure_mp3(text, &r, &diag), RE_ERR_READ);
    CHECK(strstr(diag_last(&diag), "missing.mp3") != NULL);
    re_diagnostics_free(&diag);
    unlink(path);
}

/* ---- the peak map (issue 18) ------------------------------------------------------------ */

/* Byte offsets of the MPEG frames of an MP3 written by encode() (an ID3 tag, then MPEG-2
 * layer III at 64 kbps and 22050 Hz: 208 bytes, 209 with the padding bit); frame 0 is the
 * LAME tag frame. Returns the count, at most cap. */
static size_t frame_offsets(const unsigned char *data, size_t len, size_t *at, size_t cap)
{
    size_t pos = 0, count = 0;
    if (len > 10 && memcmp(data, "ID3", 3) == 0)
        pos = 10 + ((size_t)data[6] << 21 | (size_t)data[7] << 14 | (size_t)data[8] << 7 | data[9]);
    while (pos + 4 <= len && count < cap && data[pos] == 0xFF && (data[pos + 1] & 0xE0) == 0xE0) {
        at[count++] = pos;
        pos += 208 + ((data[pos + 2] >> 1) & 1);
    }
    return count;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = malloc(4u << 20);
    *len = f && data ? fread(data, 1, 4u << 20, f) : 0;
    if (f)
        fclose(f);
    return data;
}

/* The spots found beside the map's decode are one whole search's, exactly (they set the
 * local retry's gains, so the file's bytes). */
static void check_spots(int fd, double ceiling, size_t want_min)
{
    re_loudness_spot whole[16], beside[16];
    size_t whole_n = 0, beside_n = 99;
    re_loudness_peak_map map = { 0 };
    re_loudness peaks;
    CHECK_INT(re_loudness_overshoots_mp3_fd(fd, ceiling, whole, 16, &whole_n, NULL), RE_OK);
    CHECK_INT(re_loudness_peak_map_spots_mp3_fd(fd, &map, &peaks, ceiling, beside, 16, &beside_n,
                                                NULL), RE_OK);
    printf("peak map: %zu spots over %.1f dBTP (the whole search: %zu)\n", beside_n, ceiling,
           whole_n);
    CHECK(whole_n >= want_min && map.tiles > 0);
    CHECK_INT(beside_n, whole_n);
    for (size_t k = 0; k < whole_n && k < beside_n && k < 16; k++) {
        CHECK_INT(beside[k].first, whole[k].first);
        CHECK_INT(beside[k].last, whole[k].last);
        CHECK(beside[k].peak_dbtp == whole[k].peak_dbtp);
    }
    re_loudness_peak_map_free(&map);
}

static void test_peak_map(void)
{
    char path[64], other[64], spliced[64];
    snprintf(path, sizeof path, "%s/map.mp3", tmpdir);
    snprintf(other, sizeof other, "%s/map-other.mp3", tmpdir);
    snprintf(spliced, sizeof spliced, "%s/map-spliced.mp3", tmpdir);
    /* a quiet tone with loud bursts: early, across the halves' split (about 30 s), at a tile
     * boundary, and in the last tile: the tiles keep them apart */
    size_t n = 60 * RATE + 321;
    int16_t *x = tone(n, 440.0, 0.1, 0.0), *burst = tone(RATE / 20, 2997.0, 0.9, 0.3);
    size_t at[] = { 3 * RATE, n / 2 / 576 * 576 - RATE / 40, 40 * RE_LOUDNESS_TILE - 300,
                    n - RATE / 10 };
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
        memcpy(x + at[k], burst, RATE / 20 * sizeof *burst);
    CHECK_INT(encode(path, x, n), RE_OK);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    re_loudness_peak_map map = { 0 };
    re_loudness via_map, halves, whole;
    CHECK_INT(re_loudness_peak_map_mp3_fd(fd, &map, &via_map, NULL), RE_OK);
    CHECK_INT(re_loudness_peaks_mp3_fd(fd, &halves, NULL), RE_OK);
    CHECK_INT(re_loudness_measure_mp3_fd(fd, &whole, NULL), RE_OK);
    CHECK(map.tiles == (n + 8) / RE_LOUDNESS_TILE + 1);
    CHECK_INT(map.frames, n);
    CHECK(via_map.true_peak_dbtp == halves.true_peak_dbtp);      /* the same finder, in tiles */
    CHECK(via_map.sample_peak_dbfs == halves.sample_peak_dbfs);
    CHECK(fabs(via_map.true_peak_dbtp - whole.true_peak_dbtp) < 1e-4);
    size_t loud = 0;
    for (size_t k = 0; k < map.tiles; k++)
        loud += map.tile_sample[k] > 0.5f;
    CHECK_INT(loud, 5);   /* four bursts, one of them across a tile boundary */
    CHECK(map.tile_sample[0] < 0.11f && map.tile_true[0] < 0.11f && map.tile_true[0] > 0.09f);
    check_spots(fd, -3.0, 4);     /* the bursts: in both halves and in the last tile */
    check_spots(fd, -25.0, 1);    /* the tone itself: one spot over everything */
    check_spots(fd, 0.5, 0);      /* none */

    /* Frames of another encode put in place of some (CBR: the same sizes), as the local retry
     * does: the map measured again around them equals a map of the new file. */
    int16_t *louder = tone(RATE / 20, 1997.0, 0.99, 0.0);
    memcpy(x + 20 * RATE, louder, RATE / 20 * sizeof *louder);
    free(louder);
    CHECK_INT(encode(other, x, n), RE_OK);
    size_t len_a = 0, len_b = 0;
    unsigned char *a = read_all(path, &len_a), *b = read_all(other, &len_b);
    size_t offsets[8192];
    size_t frames = frame_offsets(a, len_a, offsets, 8192);
    CHECK(len_a == len_b && frames > 2000);
    uint64_t first = 20 * RATE / 576 - 2, end = first + 12;      /* audio frames: after the tag */
    if (len_a == len_b && frames > end + 2) {
        memcpy(a + offsets[first + 1], b + offsets[first + 1], offsets[end + 1] - offsets[first + 1]);
        FILE *f = fopen(spliced, "wb");
        CHECK(f && fwrite(a, 1, len_a, f) == len_a);
        if (f)
            fclose(f);
    }
    close(fd);
    fd = open(spliced, O_RDONLY);
    re_loudness updated, fresh;
    re_loudness_peak_map fresh_map = { 0 };
    const uint64_t replaced[1][2] = { { first, end } };
    CHECK_INT(re_loudness_peak_map_update_mp3_fd(fd, &map, replaced, 1, &updated, NULL), RE_OK);
    CHECK_INT(re_loudness_peak_map_mp3_fd(fd, &fresh_map, &fresh, NULL), RE_OK);
    printf("peak map: after a splice TP %.6f I %.4f (fresh map %.6f %.4f, before %.6f %.4f)\n",
           updated.true_peak_dbtp, updated.integrated_lufs, fresh.true_peak_dbtp,
           fresh.integrated_lufs, via_map.true_peak_dbtp, via_map.integrated_lufs);
    CHECK(updated.true_peak_dbtp > via_map.true_peak_dbtp + 0.1);   /* the new burst counts */
    CHECK(fabs(updated.true_peak_dbtp - fresh.true_peak_dbtp) < 1e-4);
    /* and so does its loudness: the whole file is metered again */
    CHECK(updated.integrated_lufs == fresh.integrated_lufs);
    CHECK(updated.range_lu == fresh.range_lu);
    CHECK(updated.integrated_lufs != via_map.integrated_lufs);
    CHECK_INT(fresh_map.tiles, map.tiles);
    size_t differ = 0;
    for (size_t k = 0; k < map.tiles && k < fresh_map.tiles; k++)
        differ += fabsf(map.tile_true[k] - fresh_map.tile_true[k]) > 1e-5f
                  || fabsf(map.tile_sample[k] - fresh_map.tile_sample[k]) > 1e-5f;
    CHECK_INT(differ, 0);
    check_spots(fd, -3.0, 5);
    check_spots(fd, -0.3, 1);     /* only the louder burst, in the first half: no second pass */
    /* without a map (a short file), the update measures the whole file */
    re_loudness_peak_map none = { 0 };
    CHECK_INT(re_loudness_peak_map_update_mp3_fd(fd, &none, replaced, 1, &updated, NULL), RE_OK);
    CHECK(none.tiles == map.tiles && updated.true_peak_dbtp == fresh.true_peak_dbtp);
    CHECK(updated.integrated_lufs == fresh.integrated_lufs);
    re_loudness_peak_map_free(&none);
    re_loudness_peak_map_free(&fresh_map);
    re_loudness_peak_map_free(&map);
    CHECK(map.tiles == 0 && map.tile_true == NULL);
    close(fd);
    free(a);
    free(b);
    free(x);
    free(burst);
    unlink(path);
    unlink(other);
    unlink(spliced);
}

/* ---- the whole flow on speech, judged by ffmpeg ----------------------------------------- */

/* pass 1 -> plan -> dry runs -> (level -> encode -> measure) until the plan is satisfied,
 * then ffmpeg's verdict on the file. */
static void render_and_judge(const char *name, const pcm *speech, double target, double ceiling)
{
    size_t n = speech->frames;
    int16_t *leveled = malloc(n * sizeof *leveled);
    char path[64];
    snprintf(path, sizeof path, "%s/%s.mp3", tmpdir, name);
    re_loudness pass1, measured;
    re_loudness_plan plan;
    CHECK_INT(measure_pcm(speech->samples, n, &pass1), RE_OK);
    CHECK_INT(re_loudness_plan_make(&pass1, target, ceiling, RE_LOUDNESS_MP3, &plan), RE_OK);
    if (re_loudness_plan_limits(&plan)) {
        do {
            CHECK_INT(level(&plan, speech->samples, n, CHUNK, leveled, NULL), n);
            CHECK_INT(measure_pcm(leveled, n, &measured), RE_OK);
        } while (re_loudness_plan_update(&plan, &measured, RE_LOUDNESS_LEVELED));
    }
    re_loudness before;
    re_leveler_stats stats;
    do {
        CHECK_INT(level(&plan, speech->samples, n, CHUNK, leveled, &stats), n);
        CHECK_INT(measure_pcm(leveled, n, &before), RE_OK);
        CHECK_INT(encode(path, leveled, n), RE_OK);
        CHECK_INT(re_loudness_measure_mp3(path, &measured, NULL), RE_OK);
        CHECK_INT(measured.frames, n);
    } while (re_loudness_plan_update(&plan, &measured, RE_LOUDNESS_DELIVERED));
    ffmpeg_reading ff = { NAN, NAN, NAN };
    CHECK_INT(judge_ffmpeg(path, &ff), 0);
    printf("%-7s %5.1f LUFS: pass 1 I %6.2f TP %5.2f | gain %+6.2f limiter %5.2f (max -%.1f dB)"
           " dry runs %u encodes %u | leveled I %6.2f TP %5.2f | mp3 I %6.2f LRA %4.1f TP %5.2f"
           " | ffmpeg I %5.1f LRA %4.1f TP %5.1f\n", name, target, pass1.integrated_lufs,
           pass1.true_peak_dbtp, plan.gain_db, plan.limiter_ceiling_dbtp, stats.max_reduction_db,
           plan.dry_runs, plan.encodes, before.integrated_lufs, before.true_peak_dbtp,
           measured.integrated_lufs, measured.range_lu, measured.true_peak_dbtp, ff.integrated,
           ff.range, ff.true_peak);
    CHECK(plan.met);
    CHECK(fabs(ff.integrated - target) <= 1.0);
    CHECK(ff.true_peak <= ceiling);
    /* our own reading of the file agrees with ffmpeg's */
    CHECK(fabs(measured.integrated_lufs - ff.integrated) < 0.1);
    CHECK(fabs(measured.true_peak_dbtp - ff.true_peak) < 0.15);
    /* and so does what the render reports (the decode in halves), and the plan's aim: the
     * leveled loudness less LAME's level loss */
    re_loudness peaks;
    int fd = open(path, O_RDONLY);
    CHECK_INT(re_loudness_peaks_mp3_fd(fd, &peaks, NULL), RE_OK);
    close(fd);
    CHECK(fabs(before.integrated_lufs + RE_LOUDNESS_MP3_LEVEL_DB - ff.integrated) < 0.1);
    CHECK(fabs(peaks.integrated_lufs - ff.integrated) < 0.1);
    CHECK(fabs(peaks.true_peak_dbtp - ff.true_peak) < 0.15);
    free(leveled);
    unlink(path);
}

#define HOST_TEXT "First, the core. A plain-text script now becomes a podcast MP3 in one command. "\
    "Each paragraph is spoken by its own process, so a crash can't take the render down."
#define GUEST_TEXT "Thanks! As the guest this week, I'll add one thing: the same script always " \
    "gives the same bytes. Sizzling, hissing sibilants: sea shells, six sticks."

static void test_speech(void)
{
    pcm quiet = { 0 }, loud = { 0 }, mixed = { 0 };
    /* quiet: amplitude 20 (about -33 LUFS); loud: 180, which clips inside espeak-ng (peaks at
     * full scale, the hardest case for MP3 overshoot); mixed: a quiet host, a loud guest with
     * another voice, the host again at the stock level, with silences between. */
    CHECK_INT(speak(&quiet, "en-us", 20, HOST_TEXT), 0);
    CHECK_INT(speak(&loud, "en-gb+f3", 180, GUEST_TEXT), 0);
    int16_t *gap = calloc(RATE, sizeof *gap);
    CHECK_INT(speak(&mixed, "en-us", 30, HOST_TEXT), 0);
    pcm_append(&mixed, gap, RATE);
    CHECK_INT(speak(&mixed, "en-gb+f3", 180, GUEST_TEXT), 0);
    pcm_append(&mixed, gap, RATE / 2);
    CHECK_INT(speak(&mixed, "en-us+m3", 100, GUEST_TEXT), 0);
    free(gap);
    if (!quiet.frames || !loud.frames || !mixed.frames) {
        fprintf(stderr, "no speech to test with\n");
        check_failures++;
    } else {
        test_leveler_deterministic(&mixed);
        render_and_judge("quiet", &quiet, -16.0, -1.0);
        render_and_judge("loud", &loud, -16.0, -1.0);
        render_and_judge("mixed", &mixed, -16.0, -1.0);
        render_and_judge("mixed", &mixed, -19.0, -1.0);
        render_and_judge("mixed", &mixed, -23.0, -1.0);
        render_and_judge("quiet", &quiet, -23.0, -2.0);
    }
    pcm_free(&quiet);
    pcm_free(&loud);
    pcm_free(&mixed);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_meter();
    test_meter_peaks();
    test_leveler_contract();
    test_leveler_gain_only();
    test_leveler_limits();
    test_leveler_edges();
    test_plan();
    test_plan_edges();
    test_measure_mp3();
    test_peak_map();
    test_speech();
    rmdir(tmpdir);
    return check_finish("test_loudness");
}
