/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render.c - one episode end to end (see render.h): the order of work. Everything that can
 * be refused is refused before the first sample: script, profiles, sound files and the bed,
 * engine voices, encoder settings (the delivery handle's), output files; then speech
 * (speak.h) and sounds are assembled on one timeline, the delivery handle (deliver.h) makes
 * the audio file of it (mixed, leveled, encoded, measured, retried), and the output set
 * (outputs.h) is published all or nothing. */
#define _GNU_SOURCE
#include "render_state.h"

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

static void report_encode(void *context, size_t done, size_t total)
{
    report(context, RE_PHASE_ENCODE, done, total);
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
        status = re_render_speak_all(&r);
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
