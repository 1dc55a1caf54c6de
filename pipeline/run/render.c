/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render.c - one episode end to end (see render.h): the order of work. Everything that can
 * be refused is refused before the first sample: script, profiles, sound files and the bed,
 * engine voices, encoder settings (the delivery handle's), output files; then speech
 * (speak.h) and sounds are assembled on one timeline, the delivery handle (deliver.h) makes
 * the audio file of it (mixed, leveled, encoded, measured, retried), and the output set
 * (outputs.h) is published all or nothing. */
#define _GNU_SOURCE
#include "render.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "assemble.h"
#include "deliver.h"
#include "extras.h"
#include "duration.h"
#include "cover.h"
#include "files.h"
#include "fit.h"
#include "fingerprint.h"
#include "loudness.h"
#include "music.h"
#include "outputs.h"
#include "page.h"
#include "prepare.h"
#include "script.h"
#include "sidecar.h"
#include "sounds.h"
#include "speak.h"
#include "synth.h"
#include "tags.h"
#include "transcript.h"
#include "up_to_date.h"
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

const char *re_render_format_of(const char *output_path)
{
    const char *dot = strrchr(output_path, '.');
    const char *slash = strrchr(output_path, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    if (strcasecmp(dot, ".mp3") == 0)
        return "mp3";
    if (strcasecmp(dot, ".wav") == 0)
        return "wav";
    return NULL;
}

/* The time since the last call (or the render's start) goes to `step`. */
static void charge(render *r, re_render_step step)
{
    step_clock_charge(&r->clock, step);
}

/* Points what a stage said since `from` (with no file of its own) at the place this render
 * knows: the paragraph's SCRIPT:LINE:COL, or the output. Returns status. */
static re_status place(render *r, re_status status, size_t from, const char *file, unsigned line,
                       unsigned col)
{
    re_diag_place(r->diag, from, file, line, col);
    return status;
}

static int has_chapters(const re_episode *ep)
{
    for (size_t i = 0; i < ep->item_count; i++)
        if (ep->items[i].kind == RE_ITEM_CHAPTER)
            return 1;
    return 0;
}

/* The script, its profiles and its lexicon (prepare.h). */
static re_status load_script(render *r)
{
    const re_render_options *o = r->opt;
    re_episode_sources sources = {
        .script_path = o->script_path, .max_script_size = o->max_script_size,
        .voice_dirs = o->voice_dirs, .voice_dir_count = o->voice_dir_count,
        .lexicon_paths = o->lexicon_paths, .lexicon_path_count = o->lexicon_path_count,
        .no_default_lexicon = o->no_default_lexicon,
        .allowed_dirs = o->allowed_dirs, .allowed_dir_count = o->allowed_dir_count,
    };
    re_status status = re_prepare(&sources, &r->prepared, r->diag);
    r->episode = r->prepared.episode;
    if (status == RE_OK)
        r->choice = (output_choice){ .srt = o->write_srt,
                                     .transcript_json = o->write_transcript_json,
                                     .page = o->write_page,
                                     .page_md = o->write_page_md, .chapters = has_chapters(r->episode) };
    return status;
}

static re_status start_engine(render *r)
{
    if (r->opt->engine) {
        r->engine = r->opt->engine;
    } else {
        size_t from = r->diag->count;
        re_status status = re_engine_create(r->opt->stop, &r->engine, r->diag);
        if (status != RE_OK)
            return place(r, status, from, r->opt->script_path, 0, 0);
        r->own_engine = 1;
    }
    re_prepared_engines(&r->prepared, r->engine, r->engine_name, sizeof r->engine_name);
    return RE_OK;
}

/* Every sound file the script names, at the episode's rate, before anything is spoken
 * (sounds.h): a bad one is an error at the name. */
static re_status load_sounds(render *r)
{
    const re_render_options *o = r->opt;
    re_status status = re_episode_sounds_load(r->episode, o->script_path, o->allowed_dirs,
                                              o->allowed_dir_count, r->rate, o->stop, &r->sounds,
                                              r->diag);
    if (status == RE_OK && r->sounds.use_count > 0) {
        r->inserts = calloc(r->sounds.use_count, sizeof *r->inserts);
        if (!r->inserts)
            return RE_ERR_NOMEM;
    }
    return status;
}

/* The command line's rate wins over the script's; neither: RE_RATE_DEFAULT, whatever the
 * engine's rate (speech is resampled to it, assemble.h). */
static void choose_rate(render *r)
{
    r->rate = r->opt->sample_rate ? r->opt->sample_rate
            : r->episode->sample_rate ? r->episode->sample_rate : RE_RATE_DEFAULT;
}

/* The encode's progress, for the render's (deliver.h). */
static void report_encode(void *context, size_t done, size_t total);

/* The delivery handle (deliver.h), its encoder settings checked before anything is spoken. */
static re_status start_delivery(render *r)
{
    const re_render_options *o = r->opt;
    delivery_settings settings = {
        .rate = r->rate, .format = strcmp(r->format, "wav") == 0 ? DELIVERY_WAV : DELIVERY_MP3,
        .loudness_off = o->loudness_off, .loudness_target = o->loudness_target,
        .true_peak = o->true_peak, .mp3 = o->mp3, .serial_encode = o->serial_encode,
        .encode_threads = o->encode_threads, .music = r->music.present ? &r->music : NULL,
        .output_path = o->output_path, .stop = o->stop, .clock = &r->clock,
        .progress = report_encode, .progress_context = r,
    };
    return re_delivery_create(&settings, &r->delivery, r->diag);
}

/* What the outputs are made from (fingerprint.h), recorded in the sidecar. */
static re_status digest_inputs(render *r)
{
    const re_render_options *o = r->opt;
    re_fingerprint_inputs inputs = {
        .prepared = &r->prepared, .engine = r->engine_name, .encoder = re_delivery_encoder(r->delivery),
        .format = r->format, .mp3_quality = o->mp3.quality, .serial_encode = o->serial_encode,
        .loudness_off = o->loudness_off, .loudness_target = o->loudness_target,
        .true_peak = o->true_peak, .write_srt = o->write_srt,
        .write_transcript_json = o->write_transcript_json, .write_page = o->write_page,
        .write_page_md = o->write_page_md,
        .music_sha256 = r->music.present ? r->music.sound.sha256 : NULL,
        .cover_sha256 = r->cover.present ? r->cover.sha256 : NULL,
        .in_feed = r->cover.in_feed, .max_duration_us = o->max_duration_us,
    };
    unsigned char (*digests)[RE_SHA256_SIZE] = NULL;
    if (r->sounds.use_count > 0) {
        digests = calloc(r->sounds.use_count, sizeof *digests);
        if (!digests)
            return RE_ERR_NOMEM;
        for (size_t u = 0; u < r->sounds.use_count; u++)
            memcpy(digests[u], r->sounds.uses[u].sound->sha256, RE_SHA256_SIZE);
        inputs.sound_digests = (const unsigned char (*)[RE_SHA256_SIZE])digests;
        inputs.sound_count = r->sounds.use_count;
    }
    re_fingerprint(&inputs, r->inputs_sha256);
    free(digests);
    return RE_OK;
}

/* The paragraphs' speech (speak.h), from the cache or the engine, with -j of them at once. */
static re_status start_speech(render *r)
{
    speech_plan plan = {
        .prepared = &r->prepared, .engine = r->engine,
        .script_path = r->opt->script_path, .cache_dir = r->opt->cache_dir,
        .remote = { .url = r->opt->cache_url, .timeout_ms = r->opt->cache_timeout_ms,
                    .bearer_token = r->opt->cache_token, .netrc_file = r->opt->cache_netrc,
                    .state = r->opt->remote_state, .stop = r->opt->stop },
        .jobs = r->opt->jobs ? r->opt->jobs : 1,
        .timeout_ms = r->opt->engine_timeout_ms ? r->opt->engine_timeout_ms : RE_ENGINE_TIMEOUT_MS,
    };
    return re_speech_scheduler_create(&plan, &r->speech, r->diag);
}

/* The files the episode is made from: the script, its lexicons and its voice profiles. */
static re_status gather_inputs(render *r, output_inputs *inputs)
{
    size_t lexicons = 0;
    const char *const *lexicon = re_lexicon_files(r->prepared.lexicon, &lexicons);
    size_t voices = r->episode->voice_count;
    r->inputs = calloc(3 + lexicons + voices + r->sounds.loaded_count, sizeof *r->inputs);
    if (!r->inputs)
        return RE_ERR_NOMEM;
    size_t n = 0;
    r->inputs[n++] = r->opt->script_path;
    if (r->music.path)
        r->inputs[n++] = r->music.path;
    if (r->cover.path)
        r->inputs[n++] = r->cover.path;
    for (size_t i = 0; i < lexicons; i++)
        r->inputs[n++] = lexicon[i];
    for (size_t i = 0; i < voices; i++) {
        const char *file = re_voice_set_file(r->prepared.voices, r->episode->voices[i]);
        if (file)
            r->inputs[n++] = file;
    }
    for (size_t k = 0; k < r->sounds.loaded_count; k++)
        r->inputs[n++] = r->sounds.paths[k];
    *inputs = (output_inputs){ r->inputs, n };
    return RE_OK;
}

static re_status open_outputs(render *r)
{
    output_inputs inputs;
    re_status status = gather_inputs(r, &inputs);
    if (status == RE_OK)
        status = re_output_set_open(r->opt->output_path, &inputs, &r->choice, &r->outputs, r->diag);
    if (status == RE_OK)
        r->audio = re_output_set_file(r->outputs, OUTPUT_AUDIO);
    return status;
}

static const re_voice_profile *profile_of(const render *r, const char *voice)
{
    return re_prepared_profile(&r->prepared, voice);
}

static void report(render *r, re_render_phase phase, size_t done, size_t total)
{
    if (!r->opt->progress)
        return;
    re_render_progress p = { phase, done, total, re_assembler_frames(r->assembler),
                             r->rate };
    r->opt->progress(r->opt->progress_context, &p);
}

static void report_encode(void *context, size_t done, size_t total)
{
    report(context, RE_PHASE_ENCODE, done, total);
}

static int stopped(const render *r)
{
    return r->opt->stop && *r->opt->stop;
}

/* Item i's cues, made as soon as it is spoken from the timeline the assembler kept for it,
 * which is then forgotten: neither the timeline nor the spoken texts grow with the episode.
 * Speaker names only when the script has speaker turns. */
static re_status transcribe_segment(render *r, size_t i)
{
    const re_item *item = &r->episode->items[i];
    size_t sentence_count, event_count;
    const re_sentence_span *sentences = re_assembler_sentences(r->assembler, &sentence_count);
    const re_timed_event *events = re_assembler_events(r->assembler, &event_count);
    const char *speaker = r->episode->voice_count > 1 ? profile_of(r, item->voice)->speaker : NULL;
    re_status status = re_transcript_add_spoken(&r->transcript, sentences, sentence_count, events,
                                                event_count, re_speech_scheduler_spoken(r->speech, i),
                                                item->text, speaker);
    re_assembler_forget_timeline(r->assembler);
    return status;
}

/* The sound gap, in samples: the script's `sound_gap:` or its default. */
static uint64_t sound_gap(const render *r)
{
    return re_us_to_frames(r->episode->sound_gap_us, r->rate);
}

/* Before audio of `kind` is written: the sound gap when it is speech after a sound or a sound
 * after speech (nothing else between them but headings), then the waiting heading's chapter
 * mark, so that a chapter starts with its audio, after the gap. Silence (a pause, a paragraph
 * pause) between the two is their air instead: the gap is never added to it. */
static re_status before_audio(render *r, audio_kind kind)
{
    re_status status = RE_OK;
    if ((kind == AUDIO_SPEECH && r->last_audio == AUDIO_SOUND)
        || (kind == AUDIO_SOUND && r->last_audio == AUDIO_SPEECH))
        status = re_assembler_add_silence(r->assembler, sound_gap(r), r->diag);
    if (status == RE_OK && r->pending_chapter) {
        status = re_assembler_mark_chapter(r->assembler, r->pending_chapter);
        r->pending_chapter = NULL;
    }
    r->last_audio = kind;
    return status;
}

/* Any sample that is not zero: the assembler adds nothing for a segment without one. */
static int audible(const re_speech *speech)
{
    for (size_t k = 0; k < speech->frames; k++)
        if (speech->pcm[k] != 0)
            return 1;
    return 0;
}

/* Item i's audio onto the timeline, then its cues. */
static re_status speak_item(render *r, size_t i)
{
    const re_item *item = &r->episode->items[i];
    re_speech speech;
    re_status status = re_speech_scheduler_next(r->speech, i, &speech, r->diag);
    if (status != RE_OK)
        return status;
    size_t from = r->diag->count;
    if (audible(&speech))
        status = before_audio(r, AUDIO_SPEECH);
    uint64_t before = re_assembler_frames(r->assembler);
    if (status == RE_OK)
        status = re_assembler_add_speech(r->assembler, &speech,
                                         (unsigned)profile_of(r, item->voice)->sentence_pause_ms,
                                         r->diag);
    re_speech_free(&speech);
    r->sound_frames += re_assembler_frames(r->assembler) - before;
    if (status != RE_OK)
        status = place(r, status, from, r->opt->script_path, item->line, item->col);
    else
        status = transcribe_segment(r, i);
    re_speech_scheduler_done(r->speech, i);   /* spoken and transcribed: its text is done with */
    return status;
}

static const re_item *first_speech(const re_episode *ep)
{
    for (size_t i = 0; i < ep->item_count; i++)
        if (ep->items[i].kind == RE_ITEM_SPEECH)
            return &ep->items[i];
    return ep->item_count ? &ep->items[0] : NULL;   /* none: all text was left out */
}

/* Sound file use u onto the timeline, after the sound gap when speech is before it: whole, or
 * cut to item's pause_us and faded out (sound_file.h), mixed under what follows by `overlap`
 * samples (the intro; what follows then starts under it, with no gap). Recorded for the
 * sidecar. */
static re_status play_sound(render *r, size_t u, uint64_t cut_us, size_t overlap)
{
    re_status status = before_audio(r, overlap ? AUDIO_NOTHING : AUDIO_SOUND);
    if (status != RE_OK)
        return status;
    const re_sound *sound = r->sounds.uses[u].sound;
    size_t frames = sound->frames;
    uint64_t cut_frames = cut_us ? re_us_to_frames(cut_us, r->rate) : frames;
    if (cut_frames < frames)
        frames = (size_t)cut_frames;
    uint64_t start = re_assembler_frames(r->assembler);
    status = re_assembler_add_sound_cut(r->assembler, sound, frames,
                                        (size_t)re_us_to_frames(RE_SOUND_FADE_MS * 1000ULL, r->rate),
                                        overlap, r->diag);
    r->sound_frames += frames;
    re_sidecar_insert *insert = &r->inserts[u];
    insert->kind = re_sound_use_kind_name(r->sounds.uses[u].kind);
    insert->file = r->sounds.uses[u].file;
    insert->start = start;
    insert->samples = frames;
    memcpy(insert->sha256, sound->sha256, RE_SHA256_SIZE);
    return status;
}

/* The use index of the intro or the outro, or SIZE_MAX. */
static size_t use_of(const render *r, sound_use_kind kind)
{
    for (size_t u = 0; u < r->sounds.use_count; u++)
        if (r->sounds.uses[u].kind == kind)
            return u;
    return SIZE_MAX;
}

/* Anything but silence: pauses alone do not make an episode. */
static int has_sound(const render *r)
{
    return r->sound_frames > 0;
}

/* `frames` of silence from the script (a pause, a paragraph pause), with the chapter that
 * waits for it. */
static re_status add_pause(render *r, uint64_t frames)
{
    re_status status = before_audio(r, frames ? AUDIO_SILENCE : r->last_audio);
    return status == RE_OK ? re_assembler_add_silence(r->assembler, frames, r->diag) : status;
}

/* The kind of the first item after item i that is not a heading, or RE_ITEM_CHAPTER for none. */
static re_item_kind next_kind(const re_episode *ep, size_t i)
{
    while (++i < ep->item_count)
        if (ep->items[i].kind != RE_ITEM_CHAPTER)
            return ep->items[i].kind;
    return RE_ITEM_CHAPTER;
}

/* BREAK item i's silence: the paragraph pause of the paragraph before it, and at least the
 * sound gap when it stands between a sound and speech (a sound that ends a paragraph, or starts
 * the next): it is their air, so the two are not added. */
static uint64_t paragraph_pause(const render *r, size_t i)
{
    const re_item *item = &r->episode->items[i];
    uint64_t frames = re_us_to_frames((uint64_t)profile_of(r, item->voice)->paragraph_pause_ms * 1000,
                                      r->rate);
    re_item_kind next = next_kind(r->episode, i);
    if (((r->last_audio == AUDIO_SOUND && next == RE_ITEM_SPEECH)
         || (r->last_audio == AUDIO_SPEECH && next == RE_ITEM_SOUND))
        && sound_gap(r) > frames)
        frames = sound_gap(r);
    return frames;
}

static re_status speak_all(render *r)
{
    const re_episode *ep = r->episode;
    unsigned rate = r->rate;
    size_t from = r->diag->count;
    re_status status = re_assembler_create(rate, &r->assembler, r->diag);
    if (status != RE_OK)
        return place(r, status, from, r->opt->output_path, 0, 0);
    status = re_loudness_meter_create_planning(rate, &r->pass1_meter);   /* pass 1 of loudness */
    if (status == RE_OK)
        status = re_loudness_meter_in_background(r->pass1_meter);   /* off the assembly's core */
    if (status != RE_OK)
        return status;
    re_assembler_attach_meter(r->assembler, r->pass1_meter);
    re_transcript_init(&r->transcript, rate);
    uint64_t max_frames = re_us_to_frames(RE_EPISODE_MAX_US, rate);
    size_t intro = use_of(r, SOUND_INTRO), outro = use_of(r, SOUND_OUTRO), next_use = 0;
    if (intro != SIZE_MAX) {   /* before everything: speech starts over its tail */
        from = r->diag->count;
        status = play_sound(r, intro, 0, r->sounds.intro_overlap);
        if (status != RE_OK)
            return place(r, status, from, r->opt->script_path, ep->intro_line, ep->intro_col);
    }
    for (size_t i = 0; status == RE_OK && i < ep->item_count; i++) {
        const re_item *item = &ep->items[i];
        from = r->diag->count;
        switch (item->kind) {
        case RE_ITEM_SPEECH:
            status = speak_item(r, i);
            break;
        case RE_ITEM_PAUSE:
            status = add_pause(r, re_us_to_frames(item->pause_us, rate));
            break;
        case RE_ITEM_BREAK:
            status = add_pause(r, paragraph_pause(r, i));
            re_transcript_start_block(&r->transcript);
            break;
        case RE_ITEM_CHAPTER:   /* marked with the next audio (before_audio) */
            r->pending_chapter = item->text;
            re_transcript_start_block(&r->transcript);
            break;
        case RE_ITEM_SOUND:   /* the uses are in playing order: the next insert is this one */
            while (r->sounds.uses[next_use].kind != SOUND_INSERT)
                next_use++;
            status = play_sound(r, next_use++, item->pause_us, 0);
            break;
        }
        if (status != RE_OK && item->kind != RE_ITEM_SPEECH)   /* speech places its own */
            status = place(r, status, from, r->opt->output_path, 0, 0);
        if (status == RE_OK && re_assembler_frames(r->assembler) > max_frames)
            status = re_diag_fail(r->diag, RE_ERR_LIMIT, r->opt->script_path, item->line,
                                  item->col, "the episode would be longer than 12 hours of audio "
                                  "here; split it");
        if (status == RE_OK && stopped(r))
            status = RE_ERR_INTERRUPTED;
        report(r, RE_PHASE_SPEAK, i + 1, ep->item_count);
    }
    if (status == RE_OK && r->pending_chapter)   /* its text made no sound: here, as it was */
        status = before_audio(r, r->last_audio);
    if (status == RE_OK && outro != SIZE_MAX) {   /* after everything, the intro's tail too */
        from = r->diag->count;
        uint64_t before = re_assembler_frames(r->assembler);
        status = re_assembler_release(r->assembler, r->diag);
        if (re_assembler_frames(r->assembler) > before)
            r->last_audio = AUDIO_SOUND;   /* it ends with the intro's tail */
        if (status == RE_OK)
            status = play_sound(r, outro, 0, 0);
        if (status != RE_OK)
            status = place(r, status, from, r->opt->output_path, 0, 0);
        else if (re_assembler_frames(r->assembler) > max_frames)
            status = re_diag_fail(r->diag, RE_ERR_LIMIT, r->opt->script_path, ep->outro_line,
                                  ep->outro_col, "the episode would be longer than 12 hours of "
                                  "audio here; split it");
    }
    if (status == RE_OK) {
        from = r->diag->count;
        status = re_assembler_finish(r->assembler, r->diag);
        if (status != RE_OK)
            status = place(r, status, from, r->opt->output_path, 0, 0);
    }
    const re_item *first = first_speech(ep);
    if (status == RE_OK && !has_sound(r))
        status = re_diag_fail(r->diag, RE_ERR_INPUT, r->opt->script_path, first ? first->line : 0,
                              first ? first->col : 0, "the script's text produced no sound at all "
                              "(only punctuation, or text no voice reads?); nothing to publish");
    return status;
}

/* --max-duration: the episode cut to fit (fit.h) before any of it is spoken for good; a
 * note says how much was left out and where to see what. */
static re_status fit_to_duration(render *r)
{
    const re_render_options *o = r->opt;
    fit_options fit = {
        .max_us = o->max_duration_us, .max_text = o->max_duration_text ? o->max_duration_text : "",
        .rate = r->rate, .script_path = o->script_path, .cache_dir = o->cache_dir,
        .reserve = strcmp(r->format, "mp3") == 0 ? FIT_MP3_RESERVE(r->rate) : 0,
        .jobs = o->jobs ? o->jobs : 1,
        .timeout_ms = o->engine_timeout_ms ? o->engine_timeout_ms : RE_ENGINE_TIMEOUT_MS,
        .stop = o->stop,
    };
    fit_report report;
    re_status status = re_fit_episode(&r->prepared, r->engine, &fit, &report, r->diag);
    if (status == RE_OK && report.blocks_out
        && re_diag_add(r->diag, o->script_path, 0, 0, "warning: --max-duration %s left out %zu "
                       "of %zu blocks; `render-episode explain --max-duration %s %s` names "
                       "them (the show notes keep them all)", fit.max_text, report.blocks_out,
                       report.blocks, fit.max_text, o->script_path) != RE_OK)
        status = RE_ERR_NOMEM;
    re_fit_report_free(&report);
    r->choice.chapters = has_chapters(r->episode);
    return status;
}

/* The audio delivered is within --max-duration, sample for sample. */
static re_status check_fitted(render *r)
{
    uint64_t budget = re_fit_budget(r->opt->max_duration_us, r->rate,
                                    strcmp(r->format, "mp3") == 0 ? FIT_MP3_RESERVE(r->rate) : 0);
    uint64_t frames = re_assembler_frames(r->assembler);
    if (frames <= budget)
        return RE_OK;
    return re_diag_fail(r->diag, RE_ERR_INVALID, r->opt->script_path, 0, 0, "--max-duration %s: "
                        "the audio came out %llu samples longer than the blocks measured "
                        "(a bug: please report it)", r->opt->max_duration_text,
                        (unsigned long long)(frames - budget));
}

/* What the sidecar and the tags say about the episode; bytes are known once encoded. */
static void describe_facts(render *r)
{
    size_t chapter_count;
    const re_chapter_mark *chapters = re_assembler_chapters(r->assembler, &chapter_count);
    r->facts = (re_render_facts){
        .episode = r->episode, .samples = re_assembler_frames(r->assembler),
        .sample_rate = r->rate, .format = r->format,
        .chapters = chapters, .chapter_count = chapter_count,
        .voices = r->prepared.profiles, .voice_count = r->episode->voice_count,
        .engine = r->engine_name, .encoder = re_delivery_encoder(r->delivery),
        .inputs_sha256 = r->inputs_sha256, .loudness = &r->delivered.loudness,
        .loudness_plan = r->opt->loudness_off ? NULL : &r->delivered.plan,
        .inserts = r->inserts, .insert_count = r->sounds.use_count,
        .music = r->music.present ? &r->music.facts : NULL,
        .image = r->cover.present ? &r->image : NULL,
        .cover_file = r->cover_file,
        .in_feed = r->cover.in_feed,
    };
}

/* The music bed (music.h): loaded, confined and measured before anything is spoken, its
 * file's SHA-256 part of the inputs digest. */
static re_status load_music(render *r)
{
    const re_render_options *o = r->opt;
    return re_episode_music_load(r->episode, o->script_path, o->allowed_dirs, o->allowed_dir_count,
                                 r->rate, o->stop, &r->music, r->diag);
}

/* The cover art (cover.h): read and checked before anything is spoken, its SHA-256 part of
 * the inputs digest. A WAV has no place for it: checked all the same, then let go. */
static re_status load_cover(render *r)
{
    const re_render_options *o = r->opt;
    re_status status = re_episode_cover_load(r->episode, o->script_path, o->allowed_dirs,
                                             o->allowed_dir_count, o->output_path, &r->cover,
                                             r->diag);
    if (strcmp(r->format, "mp3") != 0)
        re_episode_cover_free(&r->cover);
    if (status == RE_OK && r->cover.present) {
        r->image = (re_sidecar_image){ r->cover.name, r->cover.own ? "episode" : "show",
                                       r->cover.mime, r->cover.len, r->cover.sha256_hex };
        /* the episode's own cover is published beside it (the show's is in the folder) */
        int png = strcmp(r->cover.mime, "image/png") == 0;
        r->choice.cover_jpeg = r->cover.own && !png;
        r->choice.cover_png = r->cover.own && png;
        if (r->cover.own) {   /* the page shows the copy beside it, or the show's file */
            char *copy = re_output_sibling(o->output_path, png ? ".cover.png" : ".cover.jpg");
            const char *slash = copy ? strrchr(copy, '/') : NULL;
            r->cover_file = copy ? strdup(slash ? slash + 1 : copy) : NULL;
            free(copy);
        } else {
            r->cover_file = strdup(r->cover.name);
        }
        if (!r->cover_file)
            return RE_ERR_NOMEM;
    }
    return status;
}

/* The assembled speech (its pass-1 loudness measured while it was assembled) through the
 * delivery handle into the audio file: mixed, leveled, encoded, measured (deliver.h). */
static re_status deliver_audio(render *r)
{
    re_loudness pass1;
    re_status status = re_loudness_meter_finish(r->pass1_meter, &pass1);
    charge(r, RE_STEP_SPEAK);   /* the pass-1 meter ran beside the speech */
    if (status == RE_OK)
        status = re_delivery_feed(r->delivery, re_assembler_spool(r->assembler), &pass1, r->diag);
    delivery_file file = { .audio = r->audio, .wav_tags = re_episode_wav_tags(r->episode) };
    unsigned char *tag = NULL;
    if (status == RE_OK && strcmp(r->format, "mp3") == 0) {
        status = re_episode_id3_tag(&r->facts, &r->cover, &tag, &file.id3_len);
        if (status != RE_OK)
            return re_diag_fail(r->diag, status, r->opt->output_path, 0, 0,
                                "cannot build the ID3 tag");
        file.id3_tag = tag;
    }
    if (status == RE_OK)
        status = re_delivery_finish(r->delivery, &file, &r->delivered, r->diag);
    free(tag);
    return status;
}

static re_status finish_outputs(render *r, re_render_result *result)
{
    re_status status = re_output_size(r->audio, &r->facts.bytes, r->diag);
    if (status != RE_OK)
        return status;
    /* first: the sidecar lists every other file, hashed */
    status = re_render_write_extras(r->outputs, r->opt->output_path, &r->facts, &r->transcript,
                                    &r->cover, r->diag);
    re_sidecar_file *files = NULL;
    size_t file_count = 0;
    if (status == RE_OK)
        status = re_output_set_describe(r->outputs, &files, &file_count, r->diag);
    if (status != RE_OK)
        return status;
    r->facts.files = files;
    r->facts.file_count = file_count;
    re_output *sidecar = re_output_set_file(r->outputs, OUTPUT_SIDECAR);
    status = re_sidecar_write(re_output_stream(sidecar), &r->facts);
    r->facts.files = NULL;
    r->facts.file_count = 0;
    re_output_files_free(files, file_count);
    if (status != RE_OK)
        return re_diag_fail(r->diag, status, re_output_target(sidecar), 0, 0,
                            "cannot write the sidecar");
    status = re_output_set_publish(r->outputs, r->opt->stop, r->diag);
    if (status != RE_OK)
        return status;
    /* another set in the folder that is this episode: said, not touched, and never a failure */
    re_output_set_warn_claims(r->opt->output_path, r->facts.format, r->facts.episode, r->diag);

    result->samples = r->facts.samples;
    result->sample_rate = r->facts.sample_rate;
    result->bytes = r->facts.bytes;
    result->segments_synthesized = re_speech_scheduler_synthesized(r->speech);
    result->segments_cached = re_speech_scheduler_cached(r->speech);
    result->segments_remote = re_speech_scheduler_remote(r->speech);
    result->loudness = r->delivered.loudness;
    result->encodes_whole = r->delivered.encodes_whole;
    result->encodes_local = r->delivered.encodes_local;
    result->loudness_normalized = r->delivered.normalized;
    result->loudness_met = r->delivered.met;
    re_duration_format_iso(re_samples_to_seconds(r->facts.samples, r->facts.sample_rate),
                           result->duration);
    return RE_OK;
}

static void render_cleanup(render *r)
{
    re_speech_scheduler_free(r->speech);
    re_output_set_free(r->outputs);
    free(r->inputs);
    re_transcript_free(&r->transcript);
    re_delivery_free(r->delivery);
    re_episode_music_free(&r->music);
    re_episode_cover_free(&r->cover);
    free(r->cover_file);
    re_loudness_meter_free(r->pass1_meter);
    re_assembler_free(r->assembler);
    free(r->inserts);
    re_episode_sounds_free(&r->sounds);
    if (r->own_engine)
        re_engine_free(r->engine);
    re_prepared_free(&r->prepared);
}

re_status re_render(const re_render_options *options, re_render_result *result,
                    re_diagnostics *diag)
{
    memset(result, 0, sizeof *result);
    render r = { .opt = options, .diag = diag, .format = re_render_format_of(options->output_path),
                 .clock = { result->steps, re_step_clock() } };
    if (!r.format)
        return re_diag_fail(r.diag, RE_ERR_INVALID, options->output_path, 0, 0,
                            "the output name must end in .mp3 or .wav");
    re_status status = load_script(&r);
    if (status == RE_OK) {
        choose_rate(&r);
        status = load_sounds(&r);
        /* the bed's errors are reported with the sound files' in the same run */
        re_status music = status == RE_OK || status == RE_ERR_INPUT ? load_music(&r) : RE_OK;
        if (status == RE_OK || music == RE_ERR_NOMEM)
            status = music;
        re_status cover = status == RE_OK || status == RE_ERR_INPUT ? load_cover(&r) : RE_OK;
        if (status == RE_OK || cover == RE_ERR_NOMEM)
            status = cover;
    }
    if (status == RE_OK)
        status = start_engine(&r);
    if (status == RE_OK)
        status = start_delivery(&r);
    if (status == RE_OK)
        status = digest_inputs(&r);
    if (status == RE_OK && options->skip_unchanged
        && re_render_up_to_date(options->output_path, r.format, r.inputs_sha256, &r.choice, result,
                                diag)) {
        render_cleanup(&r);
        charge(&r, RE_STEP_PARSE);
        return RE_OK;
    }
    if (status == RE_OK)
        status = re_prepared_check_engine(&r.prepared, r.engine, diag);
    if (status == RE_OK && options->max_duration_us)
        status = fit_to_duration(&r);
    if (status == RE_OK)
        status = start_speech(&r);
    if (status == RE_OK)
        status = open_outputs(&r);
    charge(&r, RE_STEP_PARSE);
    if (status == RE_OK)
        status = speak_all(&r);
    if (status == RE_OK && options->max_duration_us)
        status = check_fitted(&r);
    if (status == RE_OK) {
        describe_facts(&r);
        status = deliver_audio(&r);
    }
    if (status == RE_OK)
        status = finish_outputs(&r, result);
    render_cleanup(&r);
    if (status == RE_OK)
        charge(&r, RE_STEP_PUBLISH);
    return status;
}
