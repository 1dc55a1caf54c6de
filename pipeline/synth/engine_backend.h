/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_backend.h - what synth.c asks of each speech engine, and what it offers a speech
 * child in return (private to synth/).
 *
 * synth.c owns the processes: it starts every engine once in this process (an on_demand one
 * when a job first needs it), forks a child per job, splits a paragraph into sentences
 * (sentences.h) and calls the profile's engine once per sentence in that child, where the
 * engine writes the sentence's audio and word starts through re_synth_child_pcm and
 * re_synth_child_word. An engine never forks, waits or reads a child's files;
 * synth.c never calls an engine's library. */
#ifndef RE_ENGINE_BACKEND_H
#define RE_ENGINE_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "status.h"
#include "voice.h"

typedef struct engine_backend {
    /* 0: started by re_engine_create, for every run. 1: started in this process before the
     * first child that speaks, checks or reads phonemes with one of its profiles, and never
     * in a run that does not (its libraries are loaded then, with dlopen); once per process. */
    int on_demand;
    /* In this process, before any child of this engine: RE_OK, or an error with a message in
     * diag. An on_demand engine's start is called again after a failure, and must be cheap to
     * call again after success. */
    re_status (*start)(re_diagnostics *diag);
    const char *(*version)(void);     /* e.g. "1.51": after start, or always when on_demand */
    /* The rate of every sample the engine makes with this profile (Hz): after start, or
     * always when on_demand. */
    unsigned (*rate)(const re_voice_profile *profile);
    /* In a child: choose the profile's voice and settings. 0, or -1 after re_synth_child_message. */
    int (*select)(const re_voice_profile *profile);
    /* In a child, after select: speak one sentence (sentence[0..len), NUL-terminated) of a
     * text read as text_flags say (normalize.h). Its samples go to re_synth_child_pcm, in order;
     * its word starts to re_synth_child_word. 0, or -1 after re_synth_child_message. */
    int (*speak)(const char *sentence, size_t len, unsigned text_flags);
    /* In a child, after select: what the engine would say for text, in its own phoneme
     * notation, written to out (lines and runs of blanks mean nothing: re_engine_phonemes
     * joins them with single spaces). 0, or -1 after a message. */
    int (*phonemes)(const char *text, unsigned text_flags, FILE *out);
} engine_backend;

extern const engine_backend re_espeak_backend;
extern const engine_backend re_flite_backend;

/* For an engine in a child. re_synth_child_pcm appends samples to the paragraph's audio; it
 * returns 1 when the paragraph has grown past RE_SEGMENT_MAX_SECONDS (stop speaking), else 0.
 * re_synth_child_word records a word that starts `sample` samples into the current sentence's
 * audio, at character `text_pos` (counting from 1; 0 when unknown) of the sentence, `length`
 * characters long. re_synth_child_failed is 1 once a write has failed or the paragraph is too
 * long: an engine that can stop early should. re_synth_child_message reports why the child fails
 * (once; the engine then returns -1). */
int re_synth_child_pcm(const int16_t *pcm, size_t frames);
void re_synth_child_word(uint32_t text_pos, uint32_t length, uint64_t sample);
int re_synth_child_failed(void);
void re_synth_child_message(const char *text);

#endif
