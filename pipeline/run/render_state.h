/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render_state.h - what render.c (the order of work) and timeline.c (the episode's items
 * onto one timeline) share: the state of one render and the small helpers both use. Private
 * to run/. */
#ifndef RE_RENDER_STATE_H
#define RE_RENDER_STATE_H

#include "render.h"

#include <stdint.h>

#include "assemble.h"
#include "cover.h"
#include "deliver.h"
#include "loudness.h"
#include "music.h"
#include "outputs.h"
#include "prepare.h"
#include "sidecar.h"
#include "sounds.h"
#include "speak.h"
#include "synth.h"
#include "transcript.h"
#include "voice.h"

/* What was last written to the timeline, for the air around sound files: speech and a sound
 * never touch; the episode's sound gap goes between them unless silence already does. */
typedef enum audio_kind { AUDIO_NOTHING, AUDIO_SPEECH, AUDIO_SOUND, AUDIO_SILENCE } audio_kind;

typedef struct render {
    const re_render_options *opt;
    step_clock clock;                    /* the result's steps, filled as the render goes */
    re_diagnostics *diag;
    re_prepared prepared;                /* script, profiles, lexicon */
    const re_episode *episode;           /* prepared.episode */
    re_engine *engine;
    unsigned rate;                       /* of the episode (the engine's may differ) */
    speech_scheduler *speech;
    re_assembler *assembler;
    output_choice choice;                /* which files are written */
    output_set *outputs;
    const char **inputs;                 /* what the outputs must never replace (outputs.h) */
    re_output *audio;                    /* the set's audio file */
    re_transcript transcript;
    re_render_facts facts;               /* what the sidecar and the tags say, once spoken */
    delivery *delivery;                  /* mix, level, encode, measure, retry (deliver.h) */
    delivery_result delivered;           /* what it delivered, for the sidecar and the result */
    re_loudness_meter *pass1_meter;      /* fed while speaking */
    const char *format;
    char engine_name[128];               /* the engines that speak it (re_prepared_engines) */
    int own_engine;
    char inputs_sha256[RE_SHA256_HEX_SIZE];
    uint64_t sound_frames;               /* audio that came from speech or sound files */
    episode_sounds sounds;               /* the sound files the script names, loaded */
    re_sidecar_insert *inserts;          /* where each was played (sounds.uses' order) */
    episode_music music;                 /* the script's `music:` bed, if any */
    episode_cover cover;                 /* the cover art the MP3 embeds, if any */
    re_sidecar_image image;              /* the sidecar's record of it */
    char *cover_file;                    /* its file beside the outputs, for the page */
    audio_kind last_audio;               /* what the timeline ends with (the sound gap's rule) */
    const char *pending_chapter;         /* a heading's title, marked with its first audio */
} render;

/* Points what a stage said since `from` (with no file of its own) at the place this render
 * knows: the paragraph's SCRIPT:LINE:COL, or the output. Returns status. */
static inline re_status place(render *r, re_status status, size_t from, const char *file, unsigned line,
                              unsigned col)
{
    re_diag_place(r->diag, from, file, line, col);
    return status;
}

static inline const re_voice_profile *profile_of(const render *r, const char *voice)
{
    return re_prepared_profile(&r->prepared, voice);
}

static inline void report(render *r, re_render_phase phase, size_t done, size_t total)
{
    if (!r->opt->progress)
        return;
    re_render_progress p = { phase, done, total, re_assembler_frames(r->assembler),
                             r->rate };
    r->opt->progress(r->opt->progress_context, &p);
}

static inline int stopped(const render *r)
{
    return r->opt->stop && *r->opt->stop;
}

/* Every item of the episode onto the timeline in order, with the intro before and the outro
 * after them, the pass-1 loudness meter fed as it goes, the transcript's cues made as each is
 * spoken (timeline.c). Errors name SCRIPT:LINE:COL where there is one. */
re_status re_render_speak_all(render *r);

#endif
