/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_synth.c - the engine stage: audio depends on text and profile only, crashes and
 * unknown voices end as errors of that segment, not of this process; for espeak-ng and for
 * flite alike. */
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "synth.h"

static re_voice_profile profile(const char *engine_voice)
{
    re_voice_profile p = { .name = "test", .engine_voice = (char *)engine_voice, .speaker = "Test",
                           .rate = 175, .pitch = 50, .range = 50, .volume = 100,
                           .word_gap_ms = 0, .sentence_pause_ms = 350, .paragraph_pause_ms = 750 };
    return p;
}

/* A profile of flite's voice `voice` (rms, slt, awb), with the same numbers. */
static re_voice_profile flite_profile(const char *voice)
{
    re_voice_profile p = profile(voice);
    p.engine = RE_VOICE_FLITE;
    return p;
}

/* What the engine said, emptied before each call whose messages a test reads. */
static re_diagnostics said;

static re_status speak(re_engine *engine, const char *text, const re_voice_profile *p,
                       re_speech *out)
{
    diag_clear(&said);
    re_synth_job *job;
    re_status status = re_engine_start(engine, text, RE_TEXT_PLAIN, p, &job, &said);
    if (status != RE_OK)
        return status;
    return re_engine_wait(job, 20000, out, &said);
}

static void test_same_text_same_audio(re_engine *engine, re_voice_profile p, unsigned rate)
{
    re_speech a, b, c;
    CHECK_INT(speak(engine, "Hello world.", &p, &a), RE_OK);
    CHECK_INT(speak(engine, "Something else entirely, to disturb any state.", &p, &c), RE_OK);
    CHECK_INT(speak(engine, "Hello world.", &p, &b), RE_OK);
    CHECK_INT(a.rate, rate);
    CHECK_INT(c.rate, rate);
    CHECK(a.frames > rate / 2);
    CHECK_INT(a.frames, b.frames);
    CHECK(a.frames == b.frames && memcmp(a.pcm, b.pcm, a.frames * sizeof *a.pcm) == 0);
    CHECK(a.event_count > 0);
    CHECK_INT(a.event_count, b.event_count);
    re_speech_free(&a);
    re_speech_free(&b);
    re_speech_free(&c);
}

static void test_parallel_jobs_match_serial(re_engine *engine, re_voice_profile p)
{
    const char *texts[3] = { "First paragraph.", "Second one, a bit longer than the first.", "Third." };
    re_synth_job *jobs[3];
    re_speech parallel[3], serial[3];
    for (int i = 0; i < 3; i++)
        CHECK_INT(re_engine_start(engine, texts[i], RE_TEXT_PLAIN, &p, &jobs[i], &said), RE_OK);
    for (int i = 2; i >= 0; i--)   /* waited for out of order on purpose */
        CHECK_INT(re_engine_wait(jobs[i], 20000, &parallel[i], &said), RE_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(speak(engine, texts[i], &p, &serial[i]), RE_OK);
        CHECK(serial[i].frames > 0);
        CHECK(parallel[i].frames == serial[i].frames
              && memcmp(parallel[i].pcm, serial[i].pcm, serial[i].frames * 2) == 0);
        re_speech_free(&parallel[i]);
        re_speech_free(&serial[i]);
    }
}

static void test_crash_is_an_error(re_engine *engine)
{
    /* ~70 or more repeats of s' abort espeak-ng 1.51 inside the library (docs/design.md,
     * "The speech engine"). */
    char text[400] = "";
    for (int i = 0; i < 120; i++)
        strcat(text, "s'");
    re_voice_profile p = profile("en-us");
    re_speech speech;
    re_status status = speak(engine, text, &p, &speech);
    CHECK_INT(status, RE_ERR_ENGINE);
    CHECK(strstr(diag_last(&said), "crashed") != NULL);
    /* and the engine still works afterwards */
    CHECK_INT(speak(engine, "Still here.", &p, &speech), RE_OK);
    re_speech_free(&speech);
}

static void test_unknown_voice(re_engine *engine)
{
    re_voice_profile p = profile("xx-nonexistent");
    diag_clear(&said);
    CHECK_INT(re_engine_check_voice(engine, &p, &said), RE_ERR_ENGINE);
    CHECK(strstr(diag_last(&said), "xx-nonexistent") != NULL);
    CHECK_INT(said.count, 1);
    CHECK(said.items[0].file == NULL);   /* the caller knows the paragraph, not the engine */
    re_voice_profile ok = profile("en-gb+f3");
    CHECK_INT(re_engine_check_voice(engine, &ok, &said), RE_OK);
}

static void test_timeout(re_engine *engine)
{
    /* A long text with a 1 ms budget cannot finish: the child is stopped and reported. */
    static char text[9000];
    for (size_t i = 0; i + 20 < sizeof text; i += 19)
        memcpy(text + i, "a longer sentence. ", 19);
    re_voice_profile p = profile("en-us");
    re_synth_job *job;
    re_speech speech;
    diag_clear(&said);
    CHECK_INT(re_engine_start(engine, text, RE_TEXT_PLAIN, &p, &job, &said), RE_OK);
    CHECK_INT(re_engine_wait(job, 1, &speech, &said), RE_ERR_ENGINE);
    CHECK(strstr(diag_last(&said), "hung") != NULL);
}

static void test_phonemes(re_engine *engine)
{
    re_voice_profile p = profile("en-us");
    char *ph = NULL;
    CHECK_INT(re_engine_phonemes(engine, "Hello world.", RE_TEXT_PLAIN, &p, &ph, &said), RE_OK);
    CHECK_STR(ph, "h@l'oU w'3:ld");
    free(ph);
    /* literal brackets stay text; with phoneme input they are phonemes */
    CHECK_INT(re_engine_phonemes(engine, "[[gl'u:]]", RE_TEXT_PHONEMES, &p, &ph, &said), RE_OK);
    CHECK(ph && strstr(ph, "gl'u:") != NULL);
    free(ph);
}

static void test_flite_unknown_voice(re_engine *engine)
{
    /* kal is a voice of the flite program, not one this program registers; en-us is
     * espeak-ng's */
    const char *unknown[] = { "kal", "en-us" };
    for (size_t i = 0; i < 2; i++) {
        re_voice_profile p = flite_profile(unknown[i]);
        diag_clear(&said);
        CHECK_INT(re_engine_check_voice(engine, &p, &said), RE_ERR_ENGINE);
        CHECK_INT(said.count, 1);
        CHECK(strstr(diag_last(&said), "flite has no voice") != NULL);
        CHECK(strstr(diag_last(&said), unknown[i]) != NULL);
        CHECK(said.count == 1 && said.items[0].file == NULL);
    }
    const char *known[] = { "rms", "slt", "awb" };
    for (size_t i = 0; i < 3; i++) {
        re_voice_profile p = flite_profile(known[i]);
        diag_clear(&said);
        CHECK_INT(re_engine_check_voice(engine, &p, &said), RE_OK);
        CHECK_INT(said.count, 0);
    }
}

static void test_flite_phonemes(re_engine *engine)
{
    re_voice_profile p = flite_profile("slt");
    char *ph = NULL;
    /* as `flite -voice slt -t "Hello world." -ps` says them, its pauses left out */
    CHECK_INT(re_engine_phonemes(engine, "Hello world.", RE_TEXT_PLAIN, &p, &ph, &said), RE_OK);
    CHECK_STR(ph, "hh-ax-l-ow w-er-l-d");
    free(ph);
    ph = NULL;
    CHECK_INT(re_engine_phonemes(engine, "The build is green.", RE_TEXT_PLAIN, &p, &ph, &said),
              RE_OK);
    CHECK_STR(ph, "dh-ax b-ih-l-d ih-z g-r-iy-n");
    free(ph);
    /* espeak-ng's phoneme input is not flite's: an error, not a reading of the brackets */
    ph = NULL;
    diag_clear(&said);
    CHECK_INT(re_engine_phonemes(engine, "[[gl'u:]]", RE_TEXT_PHONEMES, &p, &ph, &said),
              RE_ERR_ENGINE);
    CHECK(ph == NULL);
    CHECK(strstr(diag_last(&said), "flite cannot say espeak-ng phoneme input") != NULL);
    re_speech speech;
    re_synth_job *job;
    diag_clear(&said);
    CHECK_INT(re_engine_start(engine, "[[gl'u:]]", RE_TEXT_PHONEMES, &p, &job, &said), RE_OK);
    CHECK_INT(re_engine_wait(job, 20000, &speech, &said), RE_ERR_ENGINE);
    CHECK(strstr(diag_last(&said), "flite cannot say espeak-ng phoneme input") != NULL);
}

/* flite's audio has no digital silence of its own: each sentence comes back starting and
 * ending in exact zeros around its sound, at 16000 Hz, its words in order inside it. */
static void test_flite_sentence_edges(re_engine *engine)
{
    const char *voices[] = { "rms", "slt", "awb" };
    for (size_t v = 0; v < 3; v++) {
        re_voice_profile p = flite_profile(voices[v]);
        re_speech s;
        CHECK_INT(speak(engine, "Hello world. This is a second sentence.", &p, &s), RE_OK);
        CHECK_INT(s.rate, 16000);
        size_t starts[3], n = 0, words = 0;
        for (size_t i = 0; i < s.event_count; i++)
            if (s.events[i].type == RE_EVENT_SENTENCE && n < 2)
                starts[n++] = (size_t)s.events[i].sample;
        CHECK_INT(n, 2);
        if (n != 2 || s.frames == 0) {
            re_speech_free(&s);
            continue;
        }
        starts[2] = s.frames;
        CHECK_INT(starts[0], 0);
        for (size_t k = 0; k < 2; k++) {
            size_t first = starts[k], end = starts[k + 1];
            CHECK(first < end);
            if (first >= end)
                continue;
            CHECK_INT(s.pcm[first], 0);
            CHECK_INT(s.pcm[end - 1], 0);
            while (first < end && s.pcm[first] == 0)
                first++;
            while (end > first && s.pcm[end - 1] == 0)
                end--;
            /* sound inside, and zeros on each side of it: at least 20 ms, where flite's
             * leading and trailing pauses were */
            CHECK(end - first > 16000 / 4);
            CHECK(first - starts[k] >= 320);
            CHECK(starts[k + 1] - end >= 320);
            int peak = 0;
            for (size_t i = first; i < end; i++)
                peak = abs(s.pcm[i]) > peak ? abs(s.pcm[i]) : peak;
            CHECK(peak > 3000);
            /* the sentence's words start in order, inside its sound (the first where its
             * first phone starts, at most 1 ms before the first sample that is not 0: a wave
             * crosses zero) */
            uint64_t last = 0;
            size_t in_sentence = 0;
            for (size_t i = 0; i < s.event_count; i++) {
                const re_speech_event *e = &s.events[i];
                if (e->type != RE_EVENT_WORD || e->sample < starts[k] || e->sample >= starts[k + 1])
                    continue;
                CHECK(e->sample + 16 >= first && e->sample < end);
                CHECK(e->sample >= last);
                last = e->sample;
                in_sentence++;
                words++;
            }
            CHECK_INT(in_sentence, k == 0 ? 2 : 5);
        }
        CHECK_INT(words, 7);
        re_speech_free(&s);
    }
}

/* flite's voices draw the noise of unvoiced sounds from rand(): each sentence starts from the
 * same state, so a sentence's audio is the same wherever it stands in a paragraph. */
static void test_flite_sentence_alone_anywhere(re_engine *engine)
{
    re_voice_profile p = flite_profile("awb");
    re_speech s, alone;
    CHECK_INT(speak(engine, "She sells sea shells. She sells sea shells.", &p, &s), RE_OK);
    CHECK_INT(speak(engine, "She sells sea shells.", &p, &alone), RE_OK);
    size_t starts[2], n = 0;
    for (size_t i = 0; i < s.event_count; i++)
        if (s.events[i].type == RE_EVENT_SENTENCE && n < 2)
            starts[n++] = (size_t)s.events[i].sample;
    CHECK_INT(n, 2);
    if (n == 2) {
        CHECK_INT(starts[1] - starts[0], alone.frames);
        CHECK_INT(s.frames - starts[1], alone.frames);
        CHECK(s.frames - starts[1] == alone.frames
              && memcmp(s.pcm + starts[1], alone.pcm, alone.frames * sizeof *s.pcm) == 0);
        CHECK(starts[1] == alone.frames
              && memcmp(s.pcm, alone.pcm, alone.frames * sizeof *s.pcm) == 0);
    }
    re_speech_free(&s);
    re_speech_free(&alone);
}

/* The span from a speech's first to its last non-zero sample, and its largest |sample|. */
static size_t sounded(const re_speech *s, int *peak)
{
    size_t first = s->frames, last = 0;
    *peak = 0;
    for (size_t i = 0; i < s->frames; i++)
        if (s->pcm[i] != 0) {
            if (first == s->frames)
                first = i;
            last = i;
            if (abs(s->pcm[i]) > *peak)
                *peak = abs(s->pcm[i]);
        }
    return first < s->frames ? last - first + 1 : 0;
}

/* rate is words per minute for flite as for espeak-ng (the duration stretch is the voice's
 * own speed over it), volume a gain, pitch and range change the samples: each key a profile
 * documents for flite changes what it says, in the documented direction. */
static void test_flite_settings(re_engine *engine)
{
    const char *text = "The quick brown fox jumps over the lazy dog, twice.";
    re_voice_profile slow = flite_profile("rms"), fast = flite_profile("rms");
    slow.rate = 120;
    fast.rate = 240;
    re_speech a, b;
    int peak_a, peak_b;
    CHECK_INT(speak(engine, text, &slow, &a), RE_OK);
    CHECK_INT(speak(engine, text, &fast, &b), RE_OK);
    size_t long_span = sounded(&a, &peak_a), short_span = sounded(&b, &peak_b);
    /* twice the rate: about half the length (flite stretches phones, not its pauses' noise) */
    CHECK(short_span * 10 > long_span * 4 && short_span * 10 < long_span * 6);
    re_speech_free(&a);
    re_speech_free(&b);

    re_voice_profile loud = flite_profile("slt"), quiet = flite_profile("slt");
    quiet.volume = 50;
    CHECK_INT(speak(engine, text, &loud, &a), RE_OK);
    CHECK_INT(speak(engine, text, &quiet, &b), RE_OK);
    (void)sounded(&a, &peak_a);
    (void)sounded(&b, &peak_b);
    CHECK(peak_b >= peak_a / 2 - 1 && peak_b <= peak_a / 2 + 1);   /* half, rounded */
    re_speech_free(&a);
    re_speech_free(&b);

    re_voice_profile plain = flite_profile("awb"), higher = flite_profile("awb"),
                     flat = flite_profile("awb");
    higher.pitch = 90;
    flat.range = 0;
    re_speech c;
    CHECK_INT(speak(engine, text, &plain, &a), RE_OK);
    CHECK_INT(speak(engine, text, &higher, &b), RE_OK);
    CHECK_INT(speak(engine, text, &flat, &c), RE_OK);
    CHECK(a.frames != b.frames || memcmp(a.pcm, b.pcm, a.frames * sizeof *a.pcm) != 0);
    CHECK(a.frames != c.frames || memcmp(a.pcm, c.pcm, a.frames * sizeof *a.pcm) != 0);
    re_speech_free(&a);
    re_speech_free(&b);
    re_speech_free(&c);
}

int main(void)
{
    re_engine *engine;
    if (re_engine_create(NULL, &engine, &said) != RE_OK) {
        fprintf(stderr, "engine: %s\n", diag_last(&said));
        return 1;
    }
    re_voice_profile espeak = { .engine = RE_VOICE_ESPEAK_NG }, flite = { .engine = RE_VOICE_FLITE };
    CHECK_INT(re_engine_rate(engine, &espeak), 22050);
    CHECK_INT(re_engine_rate(engine, &flite), 16000);
    test_same_text_same_audio(engine, profile("en-us"), 22050);
    test_parallel_jobs_match_serial(engine, profile("en-us"));
    test_crash_is_an_error(engine);
    test_unknown_voice(engine);
    test_timeout(engine);
    test_phonemes(engine);
    test_same_text_same_audio(engine, flite_profile("rms"), 16000);
    test_parallel_jobs_match_serial(engine, flite_profile("slt"));
    test_flite_unknown_voice(engine);
    test_flite_phonemes(engine);
    test_flite_sentence_edges(engine);
    test_flite_sentence_alone_anywhere(engine);
    test_flite_settings(engine);
    re_engine_free(engine);
    re_diagnostics_free(&said);
    return check_finish("test_synth");
}
