/* SPDX-License-Identifier: GPL-3.0-or-later */
/* speech.h - one segment's spoken audio as plain data: mono 16-bit samples and the events
 * (sentence and word starts) placed in them. The engine (synth.h) and the segment cache make
 * it; the assembler (assemble.h) consumes it; neither needs the other's headers. */
#ifndef RE_SPEECH_H
#define RE_SPEECH_H

#include <stddef.h>
#include <stdint.h>

typedef enum re_speech_event_type {
    RE_EVENT_SENTENCE,   /* a sentence starts: each sentence (sentences.h) is spoken by a
                          * call of its own, and this is the first sample of that call; the
                          * engine's own sentence events are not kept */
    RE_EVENT_WORD        /* a word starts */
} re_speech_event_type;

typedef struct re_speech_event {
    re_speech_event_type type;
    uint32_t text_pos;   /* the engine's character position in the text, counting from 1 */
    uint32_t length;     /* the engine's length of the word in characters (WORD only) */
    uint64_t sample;     /* offset in this segment's audio */
} re_speech_event;

/* One segment's audio: mono 16-bit at `rate`, the rate of the engine that spoke it
 * (re_engine_rate, synth.h: 22050 Hz for espeak-ng, 16000 Hz for flite). Owned by whoever
 * filled it; release with re_speech_free. The samples are read-only: the engine hands over
 * the speech process's own memory file, mapped (`mapped` bytes), instead of a copy. */
typedef struct re_speech {
    int16_t *pcm;
    size_t frames;
    size_t mapped;       /* 0: pcm is malloc's; else the length of pcm's read-only mapping */
    unsigned rate;
    re_speech_event *events;
    size_t event_count;
} re_speech;

/* Frees the samples and events and zeroes *speech. */
void re_speech_free(re_speech *speech);

#endif
