/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assemble.h - joins spoken segments and exact silences into one PCM stream and keeps the
 * timeline (where every segment, sentence, word and chapter starts, in samples).
 *
 * The stream goes to a spool file (spool.h) through libsndfile (mono 16-bit at the episode's rate), so
 * memory stays bounded by one segment however long the episode is; after finish it is read
 * back once, in order, by the encoder. The sample count here is the one number that every
 * duration, TLEN and chapter time is derived from.
 *
 * Pauses are exact. The engine speaks each sentence by a call of its own (synth.h) and pads
 * each call with silence (exact zero samples, or a quiet breath tail for some variants);
 * add_speech trims the padding and puts the profile's sentence pause between one sentence's
 * last sound and the next one's first, so a pause written in the script, a paragraph pause or
 * a sentence pause is exactly as long as stated, measured from the last sound to the next.
 * Where a sentence ends comes from its own audio, never from a guess at the engine's events.
 *
 * No join clicks: the first and last RE_JOIN_FADE_MS of every stretch of speech that meets a
 * silence are faded in and out (smoothstep), so the sample jump at any join of speech with
 * silence is at most RE_JOIN_JUMP_MAX (and 2 x that where two faded edges meet).
 *
 * Two rates: speech comes at the rate of the engine that spoke it (re_speech.rate: 22050 Hz
 * from espeak-ng, 16000 Hz from flite; the cache keeps it), segment by segment; the stream
 * is at the episode's. When they differ, the silences are found and cut at the speech rate,
 * where the engine's silence is exact zeros, and each stretch of sound between two cuts is
 * resampled on its own (resample.h), samples at its two ends that round to zero dropped;
 * every pause is then counted in samples of the episode's rate, so it stays exact from the
 * last sound to the next, and events move with the sound they belong to (rounded to the
 * nearest output sample). Resampling whole segments instead would smear the engine's zeros
 * (no exact trim) and make pauses a rounded product of two rates.
 *
 * Sound files (inserts, intro, outro; sound_file.h) come at the episode's rate and are written
 * as they are, like a pause that is not silent. The intro may reach under what follows it
 * (add_sound_overlapped): its last samples are held back and what is appended next is mixed
 * over them, so that speech starts over the intro's tail.
 *
 * Life cycle: re_assembler_create -> add_speech / add_silence / add_sound / mark_chapter in
 * order ->
 * re_assembler_finish -> re_assembler_read until it returns 0 frames -> re_assembler_free. */
#ifndef RE_ASSEMBLE_H
#define RE_ASSEMBLE_H

#include <stddef.h>
#include <stdint.h>

#include "duration.h"   /* re_us_to_frames, for the pauses and fades given to it */
#include "loudness.h"
#include "sound_file.h"
#include "spool.h"
#include "status.h"
#include "speech.h"

#define RE_JOIN_FADE_MS 5u
#define RE_JOIN_FADE_MAX 256      /* samples: 5 ms at up to 51.2 kHz */
#define RE_JOIN_JUMP_MAX 8        /* 32767 * 3 / (F + 1)^2 with F = 5 ms at 22050 Hz, rounded up */

typedef struct re_chapter_mark {
    char *title;
    uint64_t start;      /* first sample of the chapter */
    uint64_t end;        /* one past its last sample (valid after finish) */
} re_chapter_mark;

typedef struct re_timed_event {
    re_speech_event_type type;
    uint64_t sample;     /* in the assembled stream; a sentence starts at its first sound */
    uint32_t text_pos;   /* the engine's position in its segment's text */
    uint32_t length;
    uint32_t segment;    /* index of the speech segment (order of add_speech calls) */
} re_timed_event;

/* A sentence as heard: from its first sound to its last voiced sample. */
typedef struct re_sentence_span {
    uint32_t segment;    /* index of the speech segment */
    uint32_t text_pos;   /* the engine's character position (from 1) in the segment's text */
    uint64_t start;      /* first sample in the assembled stream */
    uint64_t end;        /* one past the last voiced sample */
} re_sentence_span;

typedef struct re_assembler re_assembler;

/* The spool's failures are the assembler's (spool.h): RE_ERR_WRITE, RE_ERR_READ with one
 * message with no file in diag, for the caller to place. */

/* Creates the spool in $TMPDIR (or /tmp), already unlinked so it can never be left behind.
 * add_speech takes audio at each speech's own rate; the stream, every silence and every
 * sample number the assembler gives out are at sample_rate. RE_ERR_INVALID for a rate of 0. */
re_status re_assembler_create(unsigned sample_rate, re_assembler **out, re_diagnostics *diag);

/* Whether speech has any sample that is not zero: re_assembler_add_speech adds nothing for a
 * segment without one, so the sound gap and a waiting chapter mark are not placed for it. */
int re_assembler_audible(const re_speech *speech);

/* Appends a segment's audio (at speech->rate, never 0: RE_ERR_INVALID) after trimming the
 * engine's leading and trailing silence and setting every gap between sentences to
 * sentence_pause_ms. The speech is not modified but for
 * the faded edges (above). `speech` must come from the engine as synth.h describes it: each
 * sentence from its SENTENCE event's sample to the next one's. */
re_status re_assembler_add_speech(re_assembler *a, const re_speech *speech,
                                  unsigned sentence_pause_ms, re_diagnostics *diag);
/* Appends `frames` samples (at sample_rate) of digital silence. */
re_status re_assembler_add_silence(re_assembler *a, uint64_t frames, re_diagnostics *diag);
/* Appends samples[0..frames) (at sample_rate) as they are: a sound file's audio. Not kept
 * (the caller's buffer is free again on return). */
re_status re_assembler_add_sound(re_assembler *a, const int16_t *samples, size_t frames,
                                 re_diagnostics *diag);
/* The same, but only the first frames - overlap samples end the stream now: the last
 * `overlap` are copied and held, and whatever is appended next (speech, silence, sound) is
 * mixed over them, sample by sample (the sum, clipped to int16), so it starts `overlap`
 * samples before this sound ends. What nothing covered is written as it is at finish.
 * RE_ERR_INVALID when overlap > frames or an overlap is still held. re_assembler_frames and
 * mark_chapter count only what is written: the held samples are not the end of the stream. */
re_status re_assembler_add_sound_overlapped(re_assembler *a, const int16_t *samples,
                                            size_t frames, size_t overlap,
                                            re_diagnostics *diag);
/* A sound file played: all of it, or, when `played` is less than its frames, its first
 * `played` samples ended by re_sound_fade_out over `fade` samples (the script's cut,
 * `[sound FILE 2.5s]`); then as re_assembler_add_sound_overlapped (overlap 0: as
 * re_assembler_add_sound). The sound is not changed. */
re_status re_assembler_add_sound_cut(re_assembler *a, const re_sound *sound, size_t played,
                                     size_t fade, size_t overlap, re_diagnostics *diag);
/* Writes what is still held of an overlapped sound as it is, nothing mixed over the rest: what
 * comes next starts after it (the outro, after everything, the intro's tail included). Nothing
 * held: nothing to do. finish does it too. */
re_status re_assembler_release(re_assembler *a, re_diagnostics *diag);
/* A chapter starts at the current end of the stream. The title is copied. */
re_status re_assembler_mark_chapter(re_assembler *a, const char *title);

uint64_t re_assembler_frames(const re_assembler *a);

/* Every sample written from now on is also fed to `meter` (not owned), so loudness is measured
 * while the episode is being spoken instead of in a pass of its own. */
void re_assembler_attach_meter(re_assembler *a, re_loudness_meter *meter);

/* Ends writing: the first chapter is extended back to sample 0 (audio before the first heading
 * belongs to it) and each chapter ends where the next starts, the last at the end. */
re_status re_assembler_finish(re_assembler *a, re_diagnostics *diag);
/* Reads the next frames of the stream (after finish); *got is 0 at the end. */
re_status re_assembler_read(re_assembler *a, int16_t *buf, size_t max, size_t *got,
                            re_diagnostics *diag);

/* After finish: a descriptor of the spool, raw little-endian int16 mono samples from offset 0,
 * for readers that want pread (the parallel encoder). Owned by the assembler; -1 before finish. */
int re_assembler_pcm_fd(const re_assembler *a);
/* After finish: the spool itself, to read it more than once (rewind). Owned by the assembler. */
re_spool *re_assembler_spool(re_assembler *a);

const re_chapter_mark *re_assembler_chapters(const re_assembler *a, size_t *count);
/* The events and sentences kept since creation or since the last forget_timeline. */
const re_timed_event *re_assembler_events(const re_assembler *a, size_t *count);
const re_sentence_span *re_assembler_sentences(const re_assembler *a, size_t *count);
/* Drops the events and sentences kept so far (a caller that has used them, segment by
 * segment, keeps memory flat however long the episode). Segment numbers go on counting. */
void re_assembler_forget_timeline(re_assembler *a);

void re_assembler_free(re_assembler *a);

#endif
