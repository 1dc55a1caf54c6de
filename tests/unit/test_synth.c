/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_synth.c - the engine stage: audio depends on text and profile only, crashes and
 * unknown voices end as errors of that segment, not of this process. */
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

static void test_same_text_same_audio(re_engine *engine)
{
    re_voice_profile p = profile("en-us");
    re_speech a, b, c;
    CHECK_INT(speak(engine, "Hello world.", &p, &a), RE_OK);
    CHECK_INT(speak(engine, "Something else entirely, to disturb any state.", &p, &c), RE_OK);
    CHECK_INT(speak(engine, "Hello world.", &p, &b), RE_OK);
    CHECK(a.frames > 10000);
    CHECK_INT(a.frames, b.frames);
    CHECK(a.frames == b.frames && memcmp(a.pcm, b.pcm, a.frames * sizeof *a.pcm) == 0);
    CHECK(a.event_count > 0);
    CHECK_INT(a.event_count, b.event_count);
    re_speech_free(&a);
    re_speech_free(&b);
    re_speech_free(&c);
}

static void test_parallel_jobs_match_serial(re_engine *engine)
{
    re_voice_profile p = profile("en-us");
    const char *texts[3] = { "First paragraph.", "Second one, a bit longer than the first.", "Third." };
    re_synth_job *jobs[3];
    re_speech parallel[3], serial[3];
    for (int i = 0; i < 3; i++)
        CHECK_INT(re_engine_start(engine, texts[i], RE_TEXT_PLAIN, &p, &jobs[i], &said), RE_OK);
    for (int i = 2; i >= 0; i--)   /* waited for out of order on purpose */
        CHECK_INT(re_engine_wait(jobs[i], 20000, &parallel[i], &said), RE_OK);
    for (int i = 0; i < 3; i++) {
        CHECK_INT(speak(engine, texts[i], &p, &serial[i]), RE_OK);
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
    test_same_text_same_audio(engine);
    test_parallel_jobs_match_serial(engine);
    test_crash_is_an_error(engine);
    test_unknown_voice(engine);
    test_timeout(engine);
    test_phonemes(engine);
    re_engine_free(engine);
    re_diagnostics_free(&said);
    return check_finish("test_synth");
}
