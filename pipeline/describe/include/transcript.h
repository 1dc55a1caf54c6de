/* SPDX-License-Identifier: GPL-3.0-or-later */
/* transcript.h - timed transcripts from the render itself: one cue per sentence, its start
 * the sentence's first sample (the engine's SENTENCE event plus the segment's offset in the
 * assembled stream), its end the sentence's last voiced sample. Never estimated.
 *
 * Writers: WebVTT (always beside the output: ep.vtt), SRT and the Podcasting 2.0 JSON
 * transcript ({"version": "1.0.0", "segments": [{speaker, startTime, endTime, body}]}). */
#ifndef RE_TRANSCRIPT_H
#define RE_TRANSCRIPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "assemble.h"
#include "normalize.h"
#include "status.h"

#define RE_CUE_MAX_LINE 65   /* a cue's text is kept under about this many characters */

typedef struct re_cue {
    uint64_t start;      /* first sample */
    uint64_t end;        /* one past the last voiced sample */
    char *speaker;       /* display name of the voice profile; NULL when the script has one voice */
    char *text;          /* UTF-8, one line */
    int opens_block;     /* 1: the first cue of a paragraph of the script (a Markdown
                          * paragraph or list item): the pages start a paragraph there */
} re_cue;

typedef struct re_transcript {
    unsigned sample_rate;
    re_cue *cues;
    size_t count;
    size_t capacity;
    int block_pending;   /* the next cue added opens a block */
} re_transcript;

void re_transcript_init(re_transcript *t, unsigned sample_rate);
void re_transcript_free(re_transcript *t);
/* Appends a cue (strings copied). Cues must come in order and must not overlap. The first
 * cue, and the first after re_transcript_start_block, opens a block. */
re_status re_transcript_add(re_transcript *t, uint64_t start, uint64_t end, const char *speaker,
                            const char *text);

/* A paragraph of the script ends here: the next cue added opens a block. */
void re_transcript_start_block(re_transcript *t);

/* What the timeline needs to know of each speech segment (in add_speech order). */
typedef struct re_transcript_segment {
    const char *text;      /* the text the engine spoke (its positions are the events') */
    const char *speaker;   /* NULL for no <v> tag */
} re_transcript_segment;

/* Builds the cues: one per sentence, a sentence longer than RE_CUE_MAX_LINE characters split
 * at its word events into lines that fit. */
re_status re_transcript_build(re_transcript *t, const re_sentence_span *sentences, size_t sentence_count,
                              const re_timed_event *events, size_t event_count,
                              const re_transcript_segment *segments, size_t segment_count);

/* Adds the cues of one speech segment from the assembler's timeline for it (sentences and
 * word events with positions in the engine's text, `spoken`), with every position mapped
 * back through spoken's spans to `script_text`: the cues show what the script says ("PR
 * 189759") at the times the engine said it. `speaker` as in re_transcript_segment. */
re_status re_transcript_add_spoken(re_transcript *t, const re_sentence_span *sentences,
                                   size_t sentence_count, const re_timed_event *events,
                                   size_t event_count, const re_spoken *spoken,
                                   const char *script_text, const char *speaker);

/* Times in milliseconds (rounded down, like every duration of the project). */
uint64_t re_cue_start_ms(const re_transcript *t, const re_cue *cue);
uint64_t re_cue_end_ms(const re_transcript *t, const re_cue *cue);

re_status re_transcript_write_vtt(FILE *out, const re_transcript *t);
re_status re_transcript_write_srt(FILE *out, const re_transcript *t);
re_status re_transcript_write_json(FILE *out, const re_transcript *t);

#endif
