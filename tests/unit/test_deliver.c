/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_deliver.c - the delivery handle (run/deliver.h): its life cycle (the one legal call
 * order, every other refused), the encoder settings checked at create and placed at the
 * output, and a quiet synthetic episode delivered as a WAV and an MP3: the WAV read back by
 * libsndfile and measured by libebur128 (integrated loudness on the target, true peak under
 * the ceiling), the MP3 decoded by libmpg123 to exactly the samples fed. */
#define _GNU_SOURCE
#include <ebur128.h>
#include <math.h>
#include <mpg123.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deliver.h"
#include "mp3_parallel.h"
#include "testdir.h"
#include "testkit.h"

#define RATE 22050u
#define SECONDS 8

static char dir[512];

/* Speech-like: a 220 Hz tone with its harmonics, on for 300 ms and off for 100 ms, at about
 * -30 LUFS: the plan turns it up by some 14 dB. */
static int16_t *synthetic(size_t n)
{
    int16_t *pcm = calloc(n, sizeof *pcm);
    for (size_t i = 0; pcm && i < n; i++) {
        double t = (double)i / RATE;
        int on = (i % (RATE * 4 / 10)) < RATE * 3 / 10;
        double x = sin(2 * M_PI * 220 * t) + 0.5 * sin(2 * M_PI * 440 * t)
                 + 0.25 * sin(2 * M_PI * 660 * t);
        pcm[i] = on ? (int16_t)lrint(1500.0 * x) : 0;
    }
    return pcm;
}

/* The samples as a finished spool, and their pass-1 loudness (a planning meter). */
static re_spool *speech_spool(const int16_t *pcm, size_t n, re_loudness *pass1)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    re_spool *spool = NULL;
    re_loudness_meter *meter = NULL;
    CHECK_INT(re_spool_create(RATE, &spool, &diag), RE_OK);
    CHECK_INT(re_spool_write(spool, pcm, n, &diag), RE_OK);
    CHECK_INT(re_spool_finish(spool, &diag), RE_OK);
    CHECK_INT(re_loudness_meter_create_planning(RATE, &meter), RE_OK);
    CHECK_INT(re_loudness_meter_feed(meter, pcm, n), RE_OK);
    CHECK_INT(re_loudness_meter_finish(meter, pass1), RE_OK);
    re_loudness_meter_free(meter);
    re_diagnostics_free(&diag);
    return spool;
}

static delivery_settings settings_for(delivery_format format, const char *path)
{
    return (delivery_settings){ .rate = RATE, .format = format, .loudness_target = -16.0,
                                .true_peak = -1.0, .mp3 = { 0, -1 }, .output_path = path };
}

/* Create, feed and finish into `path`, committed. */
static re_status deliver_to(const char *path, delivery_format format, re_spool *speech,
                            const re_loudness *pass1, delivery_result *result)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    delivery_settings settings = settings_for(format, path);
    delivery *d = NULL;
    re_output *out = NULL;
    re_status status = re_delivery_create(&settings, &d, &diag);
    if (status == RE_OK)
        status = re_output_open(path, &out, &diag);
    if (status == RE_OK)
        status = re_delivery_feed(d, speech, pass1, &diag);
    delivery_file file = { .audio = out, .wav_tags = { .title = "Delivered" } };
    if (status == RE_OK)
        status = re_delivery_finish(d, &file, result, &diag);
    if (status == RE_OK)
        status = re_output_commit(out, &diag);
    else
        re_output_discard(out);
    if (diag.count)
        fprintf(stderr, "%s: %s\n", path, diag_last(&diag));
    re_delivery_free(d);
    re_diagnostics_free(&diag);
    return status;
}

static void test_life_cycle(re_spool *speech, const re_loudness *pass1)
{
    char path[600];
    snprintf(path, sizeof path, "%s/order.mp3", dir);
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    delivery_settings settings = settings_for(DELIVERY_MP3, path);
    delivery *d = NULL;
    CHECK_INT(re_delivery_create(&settings, &d, &diag), RE_OK);
    CHECK(d != NULL);
    /* as many encoders as a render runs: never one, so the bytes never depend on the cores */
    CHECK(re_mp3_default_workers() >= 2 && re_mp3_default_workers() <= 16);
    /* bitrate 0 is the rate's default, named as the tags name it */
    CHECK_STR(re_delivery_encoder(d), "LAME 3.100, 64 kbps CBR, mono, 22050 Hz");
    re_output *out = NULL;
    CHECK_INT(re_output_open(path, &out, &diag), RE_OK);
    delivery_file file = { .audio = out };
    delivery_result result;
    CHECK_INT(re_delivery_finish(d, &file, &result, &diag), RE_ERR_INVALID);   /* before feed */
    CHECK_INT(re_delivery_feed(d, speech, pass1, &diag), RE_OK);
    CHECK_INT(re_delivery_feed(d, speech, pass1, &diag), RE_ERR_INVALID);      /* twice */
    CHECK_INT(re_delivery_finish(d, NULL, &result, &diag), RE_ERR_INVALID);
    CHECK_INT(re_delivery_finish(d, &file, &result, &diag), RE_OK);
    CHECK_INT(re_delivery_finish(d, &file, &result, &diag), RE_ERR_INVALID);   /* twice */
    CHECK_INT(diag.count, 0);
    re_output_discard(out);
    re_delivery_free(d);
    re_delivery_free(NULL);

    /* Settings the encoder refuses: refused at create, the reason placed at the output. */
    settings.mp3.bitrate_kbps = 48;
    d = (delivery *)&settings;   /* set to NULL on failure */
    CHECK_INT(re_delivery_create(&settings, &d, &diag), RE_ERR_ENCODER);
    CHECK(d == NULL);
    CHECK_INT(diag.count, 1);
    CHECK_STR(diag.count ? diag.items[0].file : NULL, path);
    CHECK_STR(diag_last(&diag),
              "bitrate 48 kbps is too low to carry the LAME tag at 22050 Hz; use 56..160");
    /* A WAV names its writer and takes no MP3 settings. */
    settings = settings_for(DELIVERY_WAV, path);
    settings.mp3.bitrate_kbps = 48;
    CHECK_INT(re_delivery_create(&settings, &d, &diag), RE_OK);
    CHECK(d && strstr(re_delivery_encoder(d), "WAV") != NULL);
    re_delivery_free(d);
    re_diagnostics_free(&diag);
}

/* The WAV's samples read back by libsndfile, measured by libebur128. */
static void test_wav(re_spool *speech, const re_loudness *pass1, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/episode.wav", dir);
    delivery_result result;
    CHECK_INT(deliver_to(path, DELIVERY_WAV, speech, pass1, &result), RE_OK);
    CHECK(result.normalized && result.met);
    CHECK_INT(result.encodes_whole, 1);
    CHECK_INT(result.encodes_local, 0);
    SF_INFO info = { 0 };
    SNDFILE *sf = sf_open(path, SFM_READ, &info);
    CHECK(sf != NULL);
    if (!sf)
        return;
    CHECK_INT(info.frames, (long long)n);
    CHECK_INT(info.samplerate, RATE);
    CHECK_INT(info.channels, 1);
    short *pcm = malloc(n * sizeof *pcm);
    CHECK_INT(sf_readf_short(sf, pcm, (sf_count_t)n), (long long)n);
    sf_close(sf);
    ebur128_state *st = ebur128_init(1, RATE, EBUR128_MODE_I | EBUR128_MODE_TRUE_PEAK);
    CHECK(st != NULL);
    ebur128_set_channel(st, 0, EBUR128_DUAL_MONO);
    CHECK_INT(ebur128_add_frames_short(st, pcm, n), EBUR128_SUCCESS);
    double lufs = 0, peak = 0;
    CHECK_INT(ebur128_loudness_global(st, &lufs), EBUR128_SUCCESS);
    CHECK_INT(ebur128_true_peak(st, 0, &peak), EBUR128_SUCCESS);
    double peak_dbtp = 20 * log10(peak);
    fprintf(stderr, "wav: %.2f LUFS (said %.2f), %.2f dBTP\n", lufs,
            result.loudness.integrated_lufs, peak_dbtp);
    CHECK(fabs(lufs - -16.0) <= RE_LOUDNESS_TOLERANCE_LU);
    CHECK(fabs(lufs - result.loudness.integrated_lufs) <= 0.1);
    CHECK(peak_dbtp <= -1.0 + 0.05);
    ebur128_destroy(&st);
    free(pcm);
}

/* The MP3 decoded by libmpg123 (gapless: the LAME tag's delay and padding) to the samples fed. */
static void test_mp3(re_spool *speech, const re_loudness *pass1, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/episode.mp3", dir);
    delivery_result result;
    CHECK_INT(deliver_to(path, DELIVERY_MP3, speech, pass1, &result), RE_OK);
    CHECK(result.normalized && result.met);
    CHECK(result.encodes_whole >= 1);
    CHECK(fabs(result.loudness.integrated_lufs - -16.0) <= RE_LOUDNESS_TOLERANCE_LU);
    CHECK(result.loudness.true_peak_dbtp <= -1.0);
    mpg123_handle *mh = mpg123_new(NULL, NULL);
    CHECK(mh != NULL);
    if (!mh)
        return;
    mpg123_param(mh, MPG123_ADD_FLAGS, MPG123_GAPLESS | MPG123_QUIET, 0);
    CHECK_INT(mpg123_open(mh, path), MPG123_OK);
    size_t total = 0, got = 0;
    unsigned char buf[16384];
    int rc;
    while ((rc = mpg123_read(mh, buf, sizeof buf, &got)) == MPG123_OK || rc == MPG123_NEW_FORMAT)
        total += got;
    total += got;
    CHECK_INT(rc, MPG123_DONE);
    CHECK_INT(total / 2, (long long)n);
    mpg123_close(mh);
    mpg123_delete(mh);
}

int main(void)
{
    if (test_temp_dir(dir, sizeof dir, "deliver") != 0)
        return 1;
    size_t n = (size_t)SECONDS * RATE;
    int16_t *pcm = synthetic(n);
    CHECK(pcm != NULL);
    if (!pcm)
        return check_finish("test_deliver");
    re_loudness pass1;
    re_spool *speech = speech_spool(pcm, n, &pass1);
    CHECK(isfinite(pass1.integrated_lufs) && pass1.integrated_lufs < -25);
    test_life_cycle(speech, &pass1);
    test_wav(speech, &pass1, n);
    test_mp3(speech, &pass1, n);
    re_spool_free(speech);
    free(pcm);
    test_remove_tree(dir);
    return check_finish("test_deliver");
}
