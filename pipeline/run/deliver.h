/* SPDX-License-Identifier: GPL-3.0-or-later */
/* deliver.h - the delivery handle: the assembled episode made into what a listener gets. It
 * orders every pass over the samples after assembly (each one audio's spool pass running its
 * processors, spool_pass.h and processor.h: this stage never reads a sample): the music bed
 * mixed under the speech (music.h), the loudness plan from the episode's measured loudness,
 * leveling (gain and true-peak limiter, audio/loudness.h), encoding (MP3 on every core,
 * encode/mp3_parallel.h, or WAV), the measure of what came out (the MP3's true peak from its
 * decode, kept per tile) and the retries while the plan asks for one: local (the frames
 * around each overshoot encoded again) or of the whole file.
 *
 * Life cycle, the only legal order:
 *   re_delivery_create   the settings checked (the MP3 encoder's included), before anything is
 *                     spoken: nothing is read or written
 *   re_delivery_feed     once: the assembled speech (a finished spool, read from its start,
 *                     borrowed until free) and its pass-1 loudness; the bed is mixed here
 *   re_delivery_finish   once, after feed: levels, encodes into the audio output, measures,
 *                     retries; says what was delivered
 *   re_delivery_free     always (NULL allowed), also after a failure of any of them
 * A call out of order returns RE_ERR_INVALID. Every failure is placed at the output path,
 * but for the bed's (at its `music:` line) and RE_ERR_NOMEM / RE_ERR_INTERRUPTED, which say
 * nothing.
 *
 * Why one handle: the passes are its own business, so that a change that fuses them
 * (measuring the true peak while encoding, retrying only the spots) changes this stage and
 * not render.c's order of work. The output bytes depend only on the settings and the
 * samples fed: never on -j, the machine's cores or encode_threads. */
#ifndef RE_RUN_DELIVER_H
#define RE_RUN_DELIVER_H

#include <signal.h>
#include <stddef.h>

#include "loudness.h"
#include "mp3.h"
#include "music.h"
#include "output.h"
#include "spool.h"
#include "status.h"
#include "step_clock.h"
#include "wav.h"

typedef enum delivery_format { DELIVERY_MP3, DELIVERY_WAV } delivery_format;

typedef struct delivery_settings {
    unsigned rate;                    /* of the episode: 22050, 44100 or 48000 */
    delivery_format format;
    int loudness_off;                 /* --loudness off: only measured, never leveled */
    double loudness_target;           /* LUFS, when normalized */
    double true_peak;                 /* dBTP, the ceiling, when normalized */
    re_mp3_settings mp3;              /* bitrate 0: re_mp3_default_bitrate(rate) */
    int serial_encode;                /* one MP3 encoder; a true-peak retry re-encodes whole */
    unsigned encode_threads;          /* 0: one per encoder (mp3_parallel.h, tuning.threads) */
    episode_music *music;             /* the bed to mix under the speech, or NULL */
    const char *output_path;          /* where failures are placed */
    volatile sig_atomic_t *stop;      /* may be NULL */
    step_clock *clock;                /* charged with mixing and leveling, encode, measure */
    /* the encode's progress in samples (may be NULL) */
    void (*progress)(void *context, size_t done, size_t total);
    void *progress_context;
} delivery_settings;

/* The audio file: the output it is written to (started again for a whole retry) and what it
 * says about its episode (tags.h): the MP3's ID3 tag, or the WAV's strings. */
typedef struct delivery_file {
    re_output *audio;
    const unsigned char *id3_tag;     /* borrowed for the call */
    size_t id3_len;
    re_wav_tags wav_tags;
} delivery_file;

/* What was delivered. */
typedef struct delivery_result {
    re_loudness loudness;             /* what the file gives a listener */
    re_loudness_plan plan;            /* the plan as it ended (normalized only) */
    int normalized;
    int met;                          /* the plan's target and ceiling were met (1 when off) */
    unsigned encodes_whole;           /* whole encodes (the first one included) */
    unsigned encodes_local;           /* local retries of a true-peak overshoot */
} delivery_result;

typedef struct delivery delivery;

/* Checks the settings (for an MP3: re_mp3_check_settings, its reason placed at the output
 * path, RE_ERR_ENCODER) and makes the handle; settings is copied, its pointers borrowed. */
re_status re_delivery_create(const delivery_settings *settings, delivery **out,
                             re_diagnostics *diag);

/* The encoder and its settings for the tags and the sidecar ("LAME 3.100, 64 kbps CBR, mono,
 * 22050 Hz" or the WAV's): the handle's, valid until free. */
const char *re_delivery_encoder(const delivery *d);

/* The assembled speech and its pass-1 loudness (a planning meter's, fed while assembling).
 * With a bed, the mix replaces both (music.h): loudness is planned, leveled, encoded and
 * checked on the final mix. */
re_status re_delivery_feed(delivery *d, re_spool *speech, const re_loudness *speech_loudness,
                           re_diagnostics *diag);

/* Levels (unless loudness is off), encodes into file->audio, measures what came out, and
 * while the plan asks for it retries: locally when only the true peak is over and the file
 * is an MP3 of the parallel encoder, else leveling and encoding the whole again (at most
 * RE_LOUDNESS_MAX_ENCODES encodes). *result is filled on success. */
re_status re_delivery_finish(delivery *d, const delivery_file *file, delivery_result *result,
                             re_diagnostics *diag);

void re_delivery_free(delivery *d);

#endif
