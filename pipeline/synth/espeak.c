/* SPDX-License-Identifier: GPL-3.0-or-later */
/* espeak.c - espeak-ng behind the engine contract (engine_backend.h): the library's global
 * state lives here and nowhere else. The library is started once in the warm parent; every
 * call that speaks runs in a forked child (synth.h says why). */
#define _GNU_SOURCE
#include "engine_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <espeak-ng/espeak_ng.h>
#include <espeak-ng/speak_lib.h>

#include "normalize.h"

static unsigned espeak_rate_hz;
static char espeak_version_text[32];

static void engine_message(const char *what, espeak_ng_STATUS status)
{
    char engine_text[256], text[400];
    espeak_ng_GetStatusCodeMessage(status, engine_text, sizeof engine_text);
    snprintf(text, sizeof text, "%s: %s", what, engine_text);
    re_synth_child_message(text);
}

static void *idle_thread(void *arg)
{
    return arg;
}

/* espeak-ng 1.51 starts a thread in espeak_ng_Initialize and, when the system refuses it
 * (a process limit: RLIMIT_NPROC counts threads), fails an assert and aborts the whole
 * program (fifo.c:90). Asked first: 0 when a thread can be had now, else the errno. */
static int can_start_a_thread(void)
{
    pthread_t thread;
    int err = pthread_create(&thread, NULL, idle_thread, NULL);
    if (err == 0)
        pthread_join(thread, NULL);
    return err;
}

static re_status espeak_start(re_diagnostics *diag)
{
    int err = can_start_a_thread();
    if (err != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot start the speech engine: it needs a thread, and "
                    "the system refuses one (%s)", strerror(err));
        return RE_ERR_LIMIT;
    }
    espeak_ng_ERROR_CONTEXT context = NULL;
    espeak_ng_InitializePath(NULL);
    espeak_ng_STATUS status = espeak_ng_Initialize(&context);
    if (status == ENS_OK)
        status = espeak_ng_InitializeOutput(ENOUTPUT_MODE_SYNCHRONOUS, 0, NULL);
    if (status != ENS_OK) {
        char message[256];
        espeak_ng_GetStatusCodeMessage(status, message, sizeof message);
        re_diag_add(diag, NULL, 0, 0, "cannot initialise espeak-ng: %s", message);
        espeak_ng_ClearErrorContext(&context);
        return RE_ERR_ENGINE;
    }
    int rate = espeak_ng_GetSampleRate();
    if (rate <= 0) {
        re_diag_add(diag, NULL, 0, 0, "espeak-ng reports no sample rate");
        return RE_ERR_ENGINE;
    }
    espeak_rate_hz = (unsigned)rate;
    /* espeak-ng 1.51 builds its list of voices by reading every voice file (about 360 opens)
     * the first time a voice is chosen; built here, every forked child inherits it instead
     * of building it again (about 8 ms of each child's 20 for a short paragraph). */
    (void)espeak_ListVoices(NULL);
    const char *data_path = NULL;
    snprintf(espeak_version_text, sizeof espeak_version_text, "%s", espeak_Info(&data_path));
    return RE_OK;
}

static const char *espeak_version(void)
{
    return espeak_version_text;
}

static unsigned espeak_rate(const re_voice_profile *profile)
{
    (void)profile;   /* every espeak-ng voice here speaks at the library's one rate */
    return espeak_rate_hz;
}

/* Selects a voice the way the espeak-ng program does: by name ("en-us", "en+f3"), else by
 * language ("en-gb"), keeping a "+variant" suffix in both cases. */
static espeak_ng_STATUS select_voice(const char *name)
{
    espeak_ng_STATUS status = espeak_ng_SetVoiceByName(name);
    if (status == ENS_OK)
        return status;
    char base[128];
    snprintf(base, sizeof base, "%s", name);
    char *variant = strchr(base, '+');
    if (variant)
        *variant++ = '\0';
    espeak_VOICE wanted;
    memset(&wanted, 0, sizeof wanted);
    wanted.languages = base;
    status = espeak_ng_SetVoiceByProperties(&wanted);
    if (status != ENS_OK || !variant)
        return status;
    espeak_VOICE *chosen = espeak_GetCurrentVoice();
    char full[256];
    if (!chosen || !chosen->name)
        return ENS_VOICE_NOT_FOUND;
    snprintf(full, sizeof full, "%s+%s", chosen->name, variant);
    return espeak_ng_SetVoiceByName(full);
}

/* The library's positions count from the start of each call, as re_synth_child_word wants them;
 * its own SENTENCE events are not passed on: sentences are synth.c's calls. */
static int synth_callback(short *wav, int numsamples, espeak_EVENT *events)
{
    if (wav && numsamples > 0 && re_synth_child_pcm(wav, (size_t)numsamples))
        return 1;   /* bounded: a paragraph cannot fill the disk or the memory */
    for (espeak_EVENT *ev = events; ev && ev->type != espeakEVENT_LIST_TERMINATED; ev++) {
        if (ev->type != espeakEVENT_WORD)
            continue;
        re_synth_child_word(ev->text_position > 0 ? (uint32_t)ev->text_position : 0,
                            ev->length > 0 ? (uint32_t)ev->length : 0,
                            ev->sample > 0 ? (uint64_t)ev->sample : 0);
    }
    return re_synth_child_failed();   /* non-zero asks the engine to stop */
}

static int espeak_select(const re_voice_profile *profile)
{
    espeak_ng_STATUS status = select_voice(profile->engine_voice);
    if (status != ENS_OK) {
        char text[200];
        snprintf(text, sizeof text, "espeak-ng has no voice '%s'", profile->engine_voice);
        re_synth_child_message(text);
        return -1;
    }
    const struct { espeak_PARAMETER parameter; int value; } settings[] = {
        { espeakRATE, profile->rate },
        { espeakPITCH, profile->pitch },
        { espeakRANGE, profile->range },
        { espeakVOLUME, profile->volume },
        { espeakWORDGAP, profile->word_gap_ms / 10 },   /* the engine counts 10 ms units */
    };
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
        status = espeak_ng_SetParameter(settings[i].parameter, settings[i].value, 0);
        if (status != ENS_OK) {
            engine_message("cannot set a voice parameter", status);
            return -1;
        }
    }
    espeak_SetSynthCallback(synth_callback);
    return 0;
}

/* Plain text unless told otherwise: no espeakSSML ever, and espeakPHONEMES only when the
 * caller vouches that every [[ ]] in the text is meant as phoneme input. */
static unsigned synth_flags(unsigned text_flags)
{
    return (unsigned)(espeakCHARS_UTF8 | ((text_flags & RE_TEXT_PHONEMES) ? espeakPHONEMES : 0));
}

static int espeak_speak(const char *sentence, size_t len, unsigned text_flags)
{
    espeak_ng_STATUS status = espeak_ng_Synthesize(sentence, len + 1, 0, POS_CHARACTER, 0,
                                                   synth_flags(text_flags), NULL, NULL);
    if (status == ENS_OK)
        status = espeak_ng_Synchronize();
    if (status != ENS_OK && !re_synth_child_failed()) {
        engine_message("synthesis failed", status);
        return -1;
    }
    return 0;
}

static int discard_audio(short *wav, int numsamples, espeak_EVENT *events)
{
    (void)wav;
    (void)numsamples;
    (void)events;
    return 0;
}

/* The phoneme mnemonics exactly as `espeak-ng -x` prints them: by synthesizing with the
 * phoneme trace on (the library's espeak_TextToPhonemes ignores [[ ]] phoneme input, so it
 * would not show what is spoken). */
static int espeak_phonemes(const char *text, unsigned text_flags, FILE *out)
{
    espeak_SetPhonemeTrace(espeakPHONEMES_SHOW, out);
    espeak_SetSynthCallback(discard_audio);
    espeak_ng_STATUS status = espeak_ng_Synthesize(text, strlen(text) + 1, 0, POS_CHARACTER, 0,
                                                   synth_flags(text_flags), NULL, NULL);
    if (status == ENS_OK)
        status = espeak_ng_Synchronize();
    if (status != ENS_OK) {
        engine_message("phoneme conversion failed", status);
        return -1;
    }
    return 0;
}

const engine_backend re_espeak_backend = {
    .start = espeak_start,
    .version = espeak_version,
    .rate = espeak_rate,
    .select = espeak_select,
    .speak = espeak_speak,
    .phonemes = espeak_phonemes,
};
