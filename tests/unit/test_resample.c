/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_resample.c - the libsoxr recipe: exact output lengths, equal rates copy, digital
 * silence stays digital silence, a tone keeps its shape within the recipe's precision, the
 * same input gives the same bytes; and the assembler at two rates keeps pauses exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assemble.h"
#include "resample.h"
#include "testkit.h"

static void lengths(void)
{
    CHECK_INT(re_resample_length(0, 22050, 44100), 0);
    CHECK_INT(re_resample_length(1, 22050, 44100), 2);
    CHECK_INT(re_resample_length(999, 22050, 48000), 2175);    /* 2174.69 -> 2175 */
    CHECK_INT(re_resample_length(12345, 22050, 48000), 26873); /* 26873.47 -> 26873 */
    CHECK_INT(re_resample_length(12345, 22050, 22050), 12345);
    CHECK(re_rate_supported(22050) && re_rate_supported(44100) && re_rate_supported(48000));
    CHECK(!re_rate_supported(32000) && !re_rate_supported(0));
}

/* A 1 kHz tone at -6 dBFS resampled 22050 -> 48000 matches the tone computed at 48000 (away
 * from the two ends, where the filter's ringing is cut off) to better than 16-bit rounding
 * plus the recipe's precision: at most 2 LSB. */
static void tone(void)
{
    enum { N = 22050 };
    int16_t *in = malloc(N * sizeof *in);
    size_t out_n = (size_t)re_resample_length(N, 22050, 48000);
    int16_t *out = malloc(out_n * sizeof *out), *again = malloc(out_n * sizeof *again);
    for (size_t i = 0; i < N; i++)
        in[i] = (int16_t)lrint(16384.0 * sin(2 * M_PI * 1000.0 * (double)i / 22050.0));
    CHECK_INT(re_resample_mono16(in, N, 22050, 48000, out), RE_OK);
    CHECK_INT(re_resample_mono16(in, N, 22050, 48000, again), RE_OK);
    CHECK(memcmp(out, again, out_n * sizeof *out) == 0);
    long worst = 0;
    for (size_t i = 2000; i + 2000 < out_n; i++) {
        long want = lrint(16384.0 * sin(2 * M_PI * 1000.0 * (double)i / 48000.0));
        long diff = labs(want - out[i]);
        if (diff > worst)
            worst = diff;
    }
    CHECK(worst <= 2);
    free(in);
    free(out);
    free(again);
}

static void silence_and_copy(void)
{
    int16_t zeros[100] = { 0 }, out[300];
    memset(out, 0x55, sizeof out);
    CHECK_INT(re_resample_mono16(zeros, 100, 22050, 44100, out), RE_OK);
    for (int i = 0; i < 200; i++)
        CHECK_INT(out[i], 0);
    int16_t ramp[10];
    for (int i = 0; i < 10; i++)
        ramp[i] = (int16_t)(i * 100);
    CHECK_INT(re_resample_mono16(ramp, 10, 44100, 44100, out), RE_OK);
    CHECK(memcmp(out, ramp, sizeof ramp) == 0);
    CHECK_INT(re_resample_mono16(ramp, 10, 0, 44100, out), RE_ERR_INVALID);
}

/* Floats (what libsndfile gives for any file) to 16-bit: equal rates round and clip; a 1 kHz
 * tone at 44100 down to 22050 matches the tone computed at 22050 within 2 LSB. */
static void from_float(void)
{
    float few[4] = { 0.5f, -0.25f, 1.5f, -2.0f };
    int16_t out4[4];
    CHECK_INT(re_resample_float_mono16(few, 4, 22050, 22050, out4), RE_OK);
    CHECK(abs(out4[0] - 16384) <= 1 && abs(out4[1] + 8192) <= 1);
    CHECK_INT(out4[2], 32767);
    CHECK_INT(out4[3], -32768);
    enum { N = 44100 };
    float *in = malloc(N * sizeof *in);
    size_t out_n = (size_t)re_resample_length(N, 44100, 22050);
    int16_t *out = malloc(out_n * sizeof *out);
    for (size_t i = 0; i < N; i++)
        in[i] = (float)(0.5 * sin(2 * M_PI * 1000.0 * (double)i / 44100.0));
    CHECK_INT(out_n, 22050);
    CHECK_INT(re_resample_float_mono16(in, N, 44100, 22050, out), RE_OK);
    long worst = 0;
    for (size_t i = 1000; i + 1000 < out_n; i++) {
        long diff = labs(lrint(16384.0 * sin(2 * M_PI * 1000.0 * (double)i / 22050.0)) - out[i]);
        if (diff > worst)
            worst = diff;
    }
    CHECK(worst <= 2);
    free(in);
    free(out);
}

/* The stream (what a sound file is decoded through a chunk at a time) gives, once cut or padded
 * to re_resample_length, the one-shot conversion's samples exactly, whatever the pieces: odd
 * sizes, one frame, everything at once; down, up, an odd ratio and equal rates. */
static void stream_equals_one_shot(void)
{
    static const unsigned pairs[][2] = { { 44100, 22050 }, { 8000, 48000 }, { 48000, 44100 },
                                         { 22050, 22050 }, { 655350, 22050 }, { 7, 22050 } };
    static const size_t pieces[] = { 1, 97, 4096, 100000 };
    enum { N = 30011 };
    float *in = malloc(N * sizeof *in);
    for (size_t i = 0; i < N; i++)
        in[i] = (float)(0.6 * sin(2 * M_PI * 0.013 * (double)i) + 0.3 * sin(0.0007 * (double)i * i));
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        size_t n = pairs[p][0] == 7 ? 5 : N;   /* 5 frames at 7 Hz: 15750 out */
        size_t want = (size_t)re_resample_length(n, pairs[p][0], pairs[p][1]);
        int16_t *one = malloc(want * sizeof *one);
        CHECK_INT(re_resample_float_mono16(in, n, pairs[p][0], pairs[p][1], one), RE_OK);
        for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
            re_resample_stream *stream = NULL;
            CHECK_INT(re_resample_stream_create(pairs[p][0], pairs[p][1], &stream), RE_OK);
            int16_t *buf = NULL;
            size_t len = 0, cap = 0;
            for (size_t at = 0; at < n; at += pieces[k]) {
                size_t m = n - at < pieces[k] ? n - at : pieces[k];
                CHECK_INT(re_resample_stream_feed(stream, in + at, m, &buf, &len, &cap), RE_OK);
            }
            CHECK_INT(re_resample_stream_feed(stream, NULL, 0, &buf, &len, &cap), RE_OK);
            re_resample_stream_free(stream);
            CHECK(len + 1 >= want);   /* at most the one-shot's padding of one sample */
            size_t same = len < want ? len : want;
            CHECK(memcmp(buf, one, same * sizeof *buf) == 0);
            for (size_t i = same; i < want; i++)
                CHECK_INT(one[i], 0);
            free(buf);
        }
        free(one);
    }
    re_resample_stream *none = NULL;
    CHECK_INT(re_resample_stream_create(0, 22050, &none), RE_ERR_INVALID);
    CHECK(none == NULL);
    re_resample_stream_free(NULL);
    free(in);
}

/* Speech at 22050 assembled at 44100: [sound][100 ms of engine zeros, a sentence][sound];
 * the gap becomes the profile's pause counted at 44100, the stream starts and ends with sound. */
static void assembled_at_another_rate(void)
{
    re_speech s = { 0 };
    s.frames = 300 + 2205 + 300 + 100;
    s.rate = 22050;
    s.pcm = calloc(s.frames, sizeof *s.pcm);
    for (size_t i = 50; i < 350; i++)
        s.pcm[i] = (int16_t)lrint(8000.0 * sin(2 * M_PI * 440.0 * (double)(i - 50) / 22050.0) + 3000);
    for (size_t i = 2555; i < 2855; i++)
        s.pcm[i] = (int16_t)lrint(8000.0 * sin(2 * M_PI * 440.0 * (double)(i - 2555) / 22050.0) - 3000);
    s.event_count = 2;
    s.events = calloc(2, sizeof *s.events);
    s.events[0] = (re_speech_event){ RE_EVENT_SENTENCE, 1, 0, 0 };
    s.events[1] = (re_speech_event){ RE_EVENT_SENTENCE, 20, 0, 2555 };
    re_diagnostics diag;
    re_diagnostics_init(&diag, 8);
    re_assembler *a = NULL;
    CHECK_INT(re_assembler_create(44100, &a, &diag), RE_OK);
    CHECK_INT(re_assembler_add_speech(a, &s, 250, &diag), RE_OK);   /* 250 ms = 11025 samples */
    CHECK_INT(re_assembler_finish(a, &diag), RE_OK);
    uint64_t frames = re_assembler_frames(a);
    int16_t *buf = calloc((size_t)frames, sizeof *buf);
    size_t got = 0;
    CHECK_INT(re_assembler_read(a, buf, (size_t)frames, &got, &diag), RE_OK);
    CHECK_INT(got, frames);
    CHECK(buf[0] != 0 && buf[frames - 1] != 0);
    size_t zero_begin = 0, zero_len = 0, run = 0;   /* the one long run of zeros */
    for (size_t i = 0; i < frames; i++) {
        run = buf[i] == 0 ? run + 1 : 0;
        if (run > zero_len) {
            zero_len = run;
            zero_begin = i + 1 - run;
        }
    }
    CHECK_INT(zero_len, 11025);
    CHECK(frames <= 1200 + 11025 && frames >= 1190 + 11025);   /* 2 x 300 samples, doubled */
    size_t count = 0;
    const re_sentence_span *sent = re_assembler_sentences(a, &count);
    CHECK_INT(count, 2);
    CHECK_INT(sent[0].start, 0);
    CHECK_INT(sent[0].end, zero_begin);
    CHECK_INT(sent[1].start, zero_begin + zero_len);
    free(buf);
    re_speech_free(&s);
    re_assembler_free(a);
    CHECK_INT(diag.count, 0);
    re_diagnostics_free(&diag);
}

int main(void)
{
    lengths();
    tone();
    silence_and_copy();
    from_float();
    stream_equals_one_shot();
    assembled_at_another_rate();
    return check_finish("test_resample");
}
