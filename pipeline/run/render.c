/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render.c - one episode end to end (see render.h): the order of work. Everything that can
 * be refused is refused before the first sample: script, profiles, engine voices, encoder
 * settings, output files; then speech (speak.h) is assembled, leveled and encoded, and the
 * output set (outputs.h) is published all or nothing. */
#define _GNU_SOURCE
#include "render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "assemble.h"
#include "duration.h"
#include "files.h"
#include "fingerprint.h"
#include "loudness.h"
#include "mp3_parallel.h"
#include "music.h"
#include "outputs.h"
#include "page.h"
#include "prepare.h"
#include "script.h"
#include "sidecar.h"
#include "sounds.h"
#include "speak.h"
#include "spool_pass.h"
#include "synth.h"
#include "tags.h"
#include "transcript.h"
#include "voice.h"
#include "wav.h"

#define LOCAL_SPOTS_MAX 16   /* LOCAL_SPOTS, below */

/* What was last written to the timeline, for the air around sound files: speech and a sound
 * never touch; the episode's sound gap goes between them unless silence already does. */
typedef enum audio_kind { AUDIO_NOTHING, AUDIO_SPEECH, AUDIO_SOUND, AUDIO_SILENCE } audio_kind;

typedef struct render {
    const re_render_options *opt;
    re_step_time *steps;                 /* the result's, filled as the render goes */
    re_step_time since;                  /* when the current step began (re_step_clock) */
    re_diagnostics *diag;
    re_prepared prepared;                /* script, profiles, lexicon */
    const re_episode *episode;           /* prepared.episode */
    re_engine *engine;
    unsigned rate;                       /* of the episode (the engine's may differ) */
    re_mp3_settings mp3;                 /* the options', with the bitrate for the rate */
    speech_scheduler *speech;
    re_assembler *assembler;
    output_choice choice;                /* which files are written */
    output_set *outputs;
    const char **inputs;                 /* what the outputs must never replace (outputs.h) */
    re_output *audio;                    /* the set's audio file */
    re_transcript transcript;
    re_render_facts facts;               /* what the sidecar and the tags say, once spoken */
    re_loudness_plan plan;               /* when loudness is normalized */
    re_loudness delivered;               /* what the output file gives a listener */
    re_loudness leveled_loudness;        /* of the PCM being encoded (pass 1 plus the gain...) */
    re_spool *leveled;                   /* the leveled episode being encoded */
    size_t id3_len;                      /* the MP3's ID3 tag: its LAME tag frame follows */
    unsigned encodes_whole, encodes_local;   /* for re_render_result */
    re_loudness_peak_map peaks;          /* the MP3's peaks per tile, from its one whole decode */
    uint64_t patched[LOCAL_SPOTS_MAX][2];    /* the frames the last local retry replaced */
    size_t patched_count;                /* 0: the MP3 was encoded whole since it was measured */
    re_loudness_spot spots[LOCAL_SPOTS_MAX];  /* where the MP3 passes the ceiling, when known */
    size_t spot_count;
    int spots_known;                     /* found by the decode of its peaks */
    re_loudness_meter *pass1_meter;      /* fed while speaking */
    const char *format;
    char encoder[160];
    char engine_name[64];
    int own_engine;
    char inputs_sha256[RE_SHA256_HEX_SIZE];
    uint64_t sound_frames;               /* audio that came from speech or sound files */
    episode_sounds sounds;               /* the sound files the script names, loaded */
    re_sidecar_insert *inserts;          /* where each was played (sounds.uses' order) */
    episode_music music;                 /* the script's `music:` bed, if any */
    re_spool *mixed;                     /* speech with the bed under it (mix_music) */
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

const char *re_render_step_name(re_render_step step)
{
    static const char *const names[RE_STEPS] = { "parse", "speak", "level", "encode", "measure",
                                                 "publish" };
    return step < RE_STEPS ? names[step] : NULL;
}

static double seconds_of(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

re_step_time re_step_clock(void)
{
    struct timespec ts;
    struct rusage self, children;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);   /* the speech processes, once reaped */
    return (re_step_time){ (double)ts.tv_sec + (double)ts.tv_nsec / 1e9,
                           seconds_of(self.ru_utime) + seconds_of(self.ru_stime)
                           + seconds_of(children.ru_utime) + seconds_of(children.ru_stime) };
}

/* The time since the last call (or the render's start) goes to `step`. */
static void charge(render *r, re_render_step step)
{
    re_step_time now = re_step_clock();
    r->steps[step].wall_s += now.wall_s - r->since.wall_s;
    r->steps[step].cpu_s += now.cpu_s - r->since.cpu_s;
    r->since = now;
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
    snprintf(r->engine_name, sizeof r->engine_name, "espeak-ng %s", re_engine_version(r->engine));
    return RE_OK;
}

/* Every sound file the script names, at the episode's rate, before anything is spoken
 * (sounds.h): a bad one is an error at the name. */
static re_status load_sounds(render *r)
{
    const re_render_options *o = r->opt;
    re_status status = episode_sounds_load(r->episode, o->script_path, o->allowed_dirs,
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
    r->mp3 = r->opt->mp3;
    if (r->mp3.bitrate_kbps == 0)
        r->mp3.bitrate_kbps = re_mp3_default_bitrate(r->rate);
}

static re_status check_encoder(render *r)
{
    unsigned rate = r->rate;
    if (strcmp(r->format, "wav") == 0) {
        re_wav_describe(rate, r->encoder, sizeof r->encoder);
        return RE_OK;
    }
    size_t from = r->diag->count;
    re_status status = re_mp3_check_settings(rate, &r->mp3, r->diag);
    if (status != RE_OK)
        return place(r, status, from, r->opt->output_path, 0, 0);
    re_mp3_describe(rate, &r->mp3, r->encoder, sizeof r->encoder);
    return RE_OK;
}

/* What the outputs are made from (fingerprint.h), recorded in the sidecar. */
static re_status digest_inputs(render *r)
{
    const re_render_options *o = r->opt;
    re_fingerprint_inputs inputs = {
        .prepared = &r->prepared, .engine = r->engine_name, .encoder = r->encoder,
        .format = r->format, .mp3_quality = o->mp3.quality, .serial_encode = o->serial_encode,
        .loudness_off = o->loudness_off, .loudness_target = o->loudness_target,
        .true_peak = o->true_peak, .write_srt = o->write_srt,
        .write_transcript_json = o->write_transcript_json, .write_page = o->write_page,
        .write_page_md = o->write_page_md,
        .music_sha256 = r->music.present ? r->music.sound.sha256 : NULL,
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
        .prepared = &r->prepared, .engine = r->engine, .engine_name = r->engine_name,
        .script_path = r->opt->script_path, .cache_dir = r->opt->cache_dir,
        .remote = { .url = r->opt->cache_url, .timeout_ms = r->opt->cache_timeout_ms,
                    .bearer_token = r->opt->cache_token, .netrc_file = r->opt->cache_netrc,
                    .state = r->opt->remote_state, .stop = r->opt->stop },
        .jobs = r->opt->jobs ? r->opt->jobs : 1,
        .timeout_ms = r->opt->engine_timeout_ms ? r->opt->engine_timeout_ms : RE_ENGINE_TIMEOUT_MS,
    };
    return speech_scheduler_create(&plan, &r->speech, r->diag);
}

/* The files the episode is made from: the script, its lexicons and its voice profiles. */
static re_status gather_inputs(render *r, output_inputs *inputs)
{
    size_t lexicons = 0;
    const char *const *lexicon = re_lexicon_files(r->prepared.lexicon, &lexicons);
    size_t voices = r->episode->voice_count;
    r->inputs = calloc(2 + lexicons + voices + r->sounds.loaded_count, sizeof *r->inputs);
    if (!r->inputs)
        return RE_ERR_NOMEM;
    size_t n = 0;
    r->inputs[n++] = r->opt->script_path;
    if (r->music.path)
        r->inputs[n++] = r->music.path;
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
        status = output_set_open(r->opt->output_path, &inputs, &r->choice, &r->outputs, r->diag);
    if (status == RE_OK)
        r->audio = output_set_file(r->outputs, OUTPUT_AUDIO);
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
                                                event_count, speech_scheduler_spoken(r->speech, i),
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
    re_status status = speech_scheduler_next(r->speech, i, &speech, r->diag);
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
    speech_scheduler_done(r->speech, i);   /* spoken and transcribed: its text is done with */
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
    int16_t *cut = NULL;
    uint64_t cut_frames = cut_us ? re_us_to_frames(cut_us, r->rate) : frames;
    if (cut_frames < frames) {
        frames = (size_t)cut_frames;
        cut = malloc((frames ? frames : 1) * sizeof *cut);
        if (!cut)
            return RE_ERR_NOMEM;
        memcpy(cut, sound->samples, frames * sizeof *cut);
        re_sound_fade_out(cut, frames, (size_t)re_us_to_frames(RE_SOUND_FADE_MS * 1000ULL, r->rate));
    }
    uint64_t start = re_assembler_frames(r->assembler);
    status = re_assembler_add_sound_overlapped(r->assembler, cut ? cut : sound->samples, frames,
                                               overlap, r->diag);
    free(cut);
    r->sound_frames += frames;
    re_sidecar_insert *insert = &r->inserts[u];
    insert->kind = sound_use_kind_name(r->sounds.uses[u].kind);
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
    re_status status = re_assembler_create(re_engine_sample_rate(r->engine), rate, &r->assembler,
                                           r->diag);
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
            break;
        case RE_ITEM_CHAPTER:   /* marked with the next audio (before_audio) */
            r->pending_chapter = item->text;
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
        .engine = r->engine_name, .encoder = r->encoder, .inputs_sha256 = r->inputs_sha256,
        .loudness = &r->delivered, .loudness_plan = r->opt->loudness_off ? NULL : &r->plan,
        .inserts = r->inserts, .insert_count = r->sounds.use_count,
        .music = r->music.present ? &r->music.facts : NULL,
    };
}

#define ENCODE_CHUNK 16384

/* The MP3 on every core (mp3_parallel.h): the bytes are the same for any number of encoder
 * threads >= 2, so they never depend on the machine or on -j; --serial-encode keeps LAME's
 * one-encoder path (different bytes, same length and tags). */
static re_status encode_mp3(render *r, re_spool *input)
{
    unsigned char *tag = NULL;
    size_t tag_len = 0;
    re_status status = episode_id3_tag(&r->facts, &tag, &tag_len);
    if (status != RE_OK)
        return re_diag_fail(r->diag, status, r->opt->output_path, 0, 0,
                            "cannot build the ID3 tag");
    unsigned workers = 1;
    if (!r->opt->serial_encode) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        workers = cpus > 2 ? (unsigned)(cpus < 16 ? cpus : 16) : 2;
    }
    re_mp3_parallel_tuning tuning = { .threads = r->opt->encode_threads };
    report(r, RE_PHASE_ENCODE, 0, (size_t)re_spool_frames(input));
    size_t from = r->diag->count;
    status = re_mp3_encode_fd_tuned(re_output_stream(r->audio), re_spool_fd(input),
                                    re_spool_frames(input), r->rate,
                                    &r->mp3, tag, tag_len, workers, &tuning, NULL,
                                    r->opt->stop, r->diag);
    free(tag);
    r->id3_len = tag_len;
    if (status == RE_OK)
        report(r, RE_PHASE_ENCODE, (size_t)re_spool_frames(input), (size_t)re_spool_frames(input));
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM
        && r->diag->count == from)
        return re_diag_fail(r->diag, status, r->opt->output_path, 0, 0, "%s",
                            re_strerror(status));
    return place(r, status, from, r->opt->output_path, 0, 0);
}

static re_status encode_wav(render *r, re_spool *input)
{
    re_wav_tags tags = episode_wav_tags(r->episode);
    re_wav_writer *wav = NULL;
    size_t from = r->diag->count;
    int16_t *pcm = malloc(ENCODE_CHUNK * sizeof *pcm);
    re_status status = pcm ? re_spool_rewind(input, r->diag) : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_wav_writer_create(fileno(re_output_stream(r->audio)),
                                      r->rate, &tags, &wav, r->diag);
    uint64_t total = re_spool_frames(input), done = 0;
    while (status == RE_OK) {
        size_t got;
        status = re_spool_read(input, pcm, ENCODE_CHUNK, &got, r->diag);
        if (status != RE_OK || got == 0)
            break;
        status = re_wav_writer_write(wav, pcm, got, r->diag);
        done += got;
        if (status == RE_OK && stopped(r))
            status = RE_ERR_INTERRUPTED;
        report(r, RE_PHASE_ENCODE, (size_t)done, (size_t)total);
    }
    if (status == RE_OK)
        status = re_wav_writer_finish(wav, r->diag);
    re_wav_writer_free(wav);
    free(pcm);
    return place(r, status, from, r->opt->output_path, 0, 0);
}

/* The HTML page names the audio and the WebVTT transcript beside it, by file name. */
static re_status write_html_page(render *r, FILE *out)
{
    char *vtt = re_output_sibling(r->opt->output_path, ".vtt");
    if (!vtt)
        return RE_ERR_NOMEM;
    const char *audio_slash = strrchr(r->opt->output_path, '/'), *vtt_slash = strrchr(vtt, '/');
    re_status status = re_page_write_html(out, &r->facts, &r->transcript,
                                          audio_slash ? audio_slash + 1 : r->opt->output_path,
                                          vtt_slash ? vtt_slash + 1 : vtt);
    free(vtt);
    return status;
}

/* Every file beside the audio but the sidecar, from the transcript and the facts. */
static re_status write_extras(render *r)
{
    for (int k = 0; k < OUTPUT_KINDS; k++) {
        re_output *file = k == OUTPUT_AUDIO || k == OUTPUT_SIDECAR ? NULL
                        : output_set_file(r->outputs, (output_kind)k);
        if (!file)
            continue;
        FILE *out = re_output_stream(file);
        re_status status = RE_OK;
        switch (k) {
        case OUTPUT_VTT: status = re_transcript_write_vtt(out, &r->transcript); break;
        case OUTPUT_SRT: status = re_transcript_write_srt(out, &r->transcript); break;
        case OUTPUT_TRANSCRIPT_JSON: status = re_transcript_write_json(out, &r->transcript); break;
        case OUTPUT_CHAPTERS:
            status = re_chapters_json_write(out, r->facts.chapters, r->facts.chapter_count,
                                            r->facts.sample_rate);
            break;
        case OUTPUT_PAGE: status = write_html_page(r, out); break;
        case OUTPUT_PAGE_MD: status = re_page_write(out, &r->facts, &r->transcript); break;
        }
        if (status != RE_OK)
            return re_diag_fail(r->diag, status, re_output_target(file), 0, 0, "%s",
                                status == RE_ERR_NOMEM ? "out of memory" : "cannot write");
    }
    return RE_OK;
}

/* One pass over `input` into the full meter (loudness, range, true peak). */
static re_status loudness_pass(render *r, re_spool *input, re_loudness *measured)
{
    size_t from = r->diag->count;
    re_status status = re_spool_measure(input, r->rate, r->opt->stop,
                                        measured, r->diag);
    return place(r, status, from, r->opt->output_path, 0, 0);
}

/* What leveling and encoding read: the assembled speech, or the mix when there is a bed. */
static re_spool *episode_audio(render *r)
{
    return r->mixed ? r->mixed : re_assembler_spool(r->assembler);
}

/* The music bed (music.h): loaded, confined and measured before anything is spoken, its
 * file's SHA-256 part of the inputs digest. */
static re_status load_music(render *r)
{
    const re_render_options *o = r->opt;
    return episode_music_load(r->episode, o->script_path, o->allowed_dirs, o->allowed_dir_count,
                              r->rate, o->stop, &r->music, r->diag);
}

/* With a bed, between assembly and leveling: the bed mixed under the speech into r->mixed,
 * whose measurement replaces pass 1's (*pass1 is the speech's on entry): loudness is leveled,
 * encoded and checked on the final mix. */
static re_status mix_music(render *r, re_loudness *pass1)
{
    double target = r->opt->loudness_off ? RE_LOUDNESS_DEFAULT_TARGET : r->opt->loudness_target;
    size_t from = r->diag->count;
    re_loudness speech = *pass1;
    re_status status = episode_music_mix(&r->music, re_assembler_spool(r->assembler), &speech,
                                         target, !r->opt->loudness_off, r->rate, r->opt->stop,
                                         &r->mixed, pass1, r->diag);
    charge(r, RE_STEP_LEVEL);
    return place(r, status, from, r->opt->output_path, 0, 0);
}

/* The episode through a leveler with the plan's settings into a new spool (r->leveled), with
 * its loudness measured when `measured` is given. */
static re_status level_into(render *r, re_loudness *measured)
{
    re_leveler *lv = NULL;
    re_spool_free(r->leveled);
    r->leveled = NULL;
    size_t from = r->diag->count;
    re_status status = re_leveler_create(r->rate, r->plan.gain_db,
                                         r->plan.limiter_ceiling_dbtp, &lv);
    if (status == RE_OK)
        status = re_spool_create(r->rate, &r->leveled, r->diag);
    if (status == RE_OK)
        status = re_spool_level(episode_audio(r), lv, r->leveled,
                                r->rate, measured, r->opt->stop, r->diag);
    if (status == RE_OK)   /* a failure here was never reported beyond its status: kept so */
        status = re_spool_finish(r->leveled, NULL);
    re_leveler_free(lv);
    charge(r, RE_STEP_LEVEL);
    return place(r, status, from, r->opt->output_path, 0, 0);
}

/* Pass 1, measured while speaking, gives the gain. When the limiter will act it takes some
 * loudness too, which pass 1 cannot know: the leveled episode is measured and leveled again
 * with a corrected gain until it is on target (re_loudness_plan_update). Otherwise its
 * loudness is pass 1's plus the gain. Leaves r->leveled and r->leveled_loudness. */
static re_status plan_loudness(render *r, const re_loudness *pass1)
{
    re_status status = re_loudness_plan_make(pass1, r->opt->loudness_target, r->opt->true_peak,
                                             strcmp(r->format, "mp3") == 0 ? RE_LOUDNESS_MP3 : RE_LOUDNESS_PCM,
                                             &r->plan);
    if (status == RE_OK && !re_loudness_plan_limits(&r->plan)) {
        r->leveled_loudness = *pass1;
        if (isfinite(pass1->integrated_lufs))
            r->leveled_loudness.integrated_lufs += r->plan.gain_db;
        return level_into(r, NULL);
    }
    do
        status = level_into(r, &r->leveled_loudness);
    while (status == RE_OK && re_loudness_plan_update(&r->plan, &r->leveled_loudness, RE_LOUDNESS_LEVELED));
    return status;
}

/* The MP3's peaks: the whole file decoded once into the peak map after a whole encode; after
 * a local retry only the tiles around the frames it replaced (the episode is not decoded
 * again). */
static re_status measure_peaks(render *r, int fd)
{
    r->spots_known = 0;
    if (r->patched_count == 0 && r->opt->loudness_off)
        return re_loudness_peak_map_mp3_fd(fd, &r->peaks, &r->delivered, r->diag);
    if (r->patched_count == 0) {   /* and where it passes the ceiling, for a local retry */
        re_status status = re_loudness_peak_map_spots_mp3_fd(fd, &r->peaks, &r->delivered,
                                                             r->plan.ceiling_dbtp, r->spots,
                                                             LOCAL_SPOTS_MAX, &r->spot_count,
                                                             r->diag);
        r->spots_known = status == RE_OK;
        return status;
    }
    re_status status = RE_OK;
    for (size_t k = 0; status == RE_OK && k < r->patched_count; k++)
        status = re_loudness_peak_map_update_mp3_fd(fd, &r->peaks, r->patched[k][0],
                                                    r->patched[k][1], &r->delivered, r->diag);
    r->patched_count = 0;
    return status;
}

/* What the listener gets. A WAV is the leveled samples, measured whole. An MP3 is decoded and
 * its peaks measured, which is what encoding changes; its loudness is the leveled PCM's
 * minus LAME's constant level loss (RE_LOUDNESS_MP3_LEVEL_DB, measured on every kind of
 * input): metering the decoded file again cost more than all the other loudness work. */
static re_status measure_delivered(render *r, re_spool *input)
{
    if (strcmp(r->format, "wav") == 0)
        return loudness_pass(r, input, &r->delivered);
    size_t from = r->diag->count;
    FILE *stream = re_output_stream(r->audio);
    re_status status = fflush(stream) == 0 ? RE_OK : RE_ERR_WRITE;
    if (status == RE_OK)
        status = measure_peaks(r, fileno(stream));
    if (status != RE_OK && r->diag->count == from)
        return re_diag_fail(r->diag, status, r->opt->output_path, 0, 0,
                            "cannot measure the encoded file's loudness");
    if (status != RE_OK)
        return place(r, status, from, r->opt->output_path, 0, 0);
    r->delivered.integrated_lufs = r->leveled_loudness.integrated_lufs + RE_LOUDNESS_MP3_LEVEL_DB;
    r->delivered.range_lu = r->leveled_loudness.range_lu;
    return RE_OK;
}

/* ---- the local true-peak retry -------------------------------------------------------------
 * When only the true peak is over the ceiling (the loudness is on target), the leveled
 * samples are turned down around each spot where the decoded MP3 passes it (by the overshoot
 * plus the 0.3 dB a full retry would take off the limiter's ceiling, flat over the spot and
 * LOCAL_FLAT_S either side, with LOCAL_RAMP_S linear ramps), and only the MP3 frames around
 * those samples are encoded again and spliced in place (re_mp3_patch_fd). Samples elsewhere
 * are untouched, so every other byte of the file stays. --serial-encode keeps its promise
 * of one encoder and re-encodes the whole; so does an episode whose overshoots are more than
 * LOCAL_SPOTS spots, or one where no splice point is found (the fallback). */
#define LOCAL_SPOTS LOCAL_SPOTS_MAX
#define LOCAL_FLAT_S 0.03
#define LOCAL_RAMP_S 0.01
#define LOCAL_MARGIN_DB 0.3

/* Multiplies the spool's samples [a, b) by a gain of `db` that ramps in over the first
 * `ramp` samples and out over the last `ramp` (rounded to nearest, clamped): deterministic. */
static re_status spool_gain_window(int fd, uint64_t a, uint64_t b, uint64_t ramp, double db)
{
    size_t n = (size_t)(b - a);
    unsigned char *p = malloc(n > 0 ? n * 2 : 1);
    if (!p)
        return RE_ERR_NOMEM;
    off_t at = (off_t)(a * 2);
    re_status status = re_pread_all(fd, p, n * 2, at);
    double g = pow(10.0, db / 20.0);
    for (size_t i = 0; status == RE_OK && i < n; i++) {
        double w = 1.0;
        if (ramp > 0 && i < ramp)
            w = (double)(i + 1) / (double)(ramp + 1);
        else if (ramp > 0 && n - i <= ramp)
            w = (double)(n - i) / (double)(ramp + 1);
        int16_t x = (int16_t)(uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
        double y = nearbyint((double)x * (1.0 + (g - 1.0) * w));
        long v = y > 32767 ? 32767 : y < -32768 ? -32768 : (long)y;
        p[2 * i] = (unsigned char)((unsigned long)v & 0xFF);
        p[2 * i + 1] = (unsigned char)(((unsigned long)v >> 8) & 0xFF);
    }
    if (status == RE_OK)
        status = re_pwrite_all(fd, p, n * 2, at);
    free(p);
    return status;
}

/* [first, last) widened by the flat part and the ramps, within the episode. */
static void local_window(uint64_t first, uint64_t last, unsigned rate, uint64_t frames,
                         uint64_t *a, uint64_t *b, uint64_t *ramp)
{
    uint64_t pad = (uint64_t)((LOCAL_FLAT_S + LOCAL_RAMP_S) * rate);
    *ramp = (uint64_t)(LOCAL_RAMP_S * rate);
    *a = first > pad ? first - pad : 0;
    *b = last + pad < frames ? last + pad : frames;
}

/* The largest |sample| of the spool's [a, b), in dBFS (-inf for silence). */
static double spool_window_peak(int fd, uint64_t a, uint64_t b)
{
    unsigned char p[4096];
    int peak = 0;
    for (off_t at = (off_t)(a * 2), end = (off_t)(b * 2); at < end;) {
        size_t want = end - at < (off_t)sizeof p ? (size_t)(end - at) : sizeof p;
        ssize_t got = pread(fd, p, want, at);
        if (got < 2)
            break;
        for (ssize_t i = 0; i + 1 < got; i += 2) {
            int x = (int16_t)(uint16_t)(p[i] | p[i + 1] << 8);
            peak = abs(x) > peak ? abs(x) : peak;
        }
        at += got & ~(ssize_t)1;
    }
    return peak ? 20.0 * log10(peak / 32768.0) : -HUGE_VAL;
}

/* Test hook (documented in docs/loudness.md): RE_TEST_OVERSHOOT="SECONDS:DB" turns the
 * leveled samples within 40 ms of SECONDS up, before the first encode, until their sample
 * peak is DB above the true-peak ceiling (nothing if they are silent), so that a short
 * episode passes the ceiling there and takes the retry. Tests only: nothing else reads it. */
static re_status test_overshoot(render *r)
{
    const char *hook = getenv("RE_TEST_OVERSHOOT");
    double at_s, db;
    if (!hook || sscanf(hook, "%lf:%lf", &at_s, &db) != 2
        || !(at_s >= 0 && at_s <= (double)RE_EPISODE_MAX_US / 1e6) || !(db > 0 && db <= 6))
        return RE_OK;
    unsigned rate = r->rate;
    uint64_t frames = re_spool_frames(r->leveled), t = (uint64_t)(at_s * rate), a, b, ramp;
    if (t >= frames)
        return RE_OK;
    local_window(t, t + 1, rate, frames, &a, &b, &ramp);
    double peak = spool_window_peak(re_spool_fd(r->leveled), a, b);
    double gain = r->plan.ceiling_dbtp + db - peak;
    if (!isfinite(peak) || !(gain > 0))
        return RE_OK;
    return spool_gain_window(re_spool_fd(r->leveled), a, b, ramp, fmin(gain, 40.0));
}

/* Sets *done when the file now has the spots turned down; leaves it alone (a full retry
 * follows) when the local retry does not apply or cannot be made. */
static re_status retry_locally(render *r, int *done)
{
    *done = 0;
    double residual = r->delivered.integrated_lufs - r->plan.target_lufs;
    if (r->opt->serial_encode || strcmp(r->format, "mp3") != 0
        || fabs(residual) > RE_LOUDNESS_TOLERANCE_LU)
        return RE_OK;
    FILE *stream = re_output_stream(r->audio);
    if (fflush(stream) != 0)
        return RE_OK;
    re_loudness_spot found[LOCAL_SPOTS];
    const re_loudness_spot *spots = r->spots;
    size_t count = r->spot_count;
    re_status status = RE_OK;
    if (!r->spots_known) {   /* after a local retry: the whole file searched again */
        spots = found;
        status = re_loudness_overshoots_mp3_fd(fileno(stream), r->plan.ceiling_dbtp, found,
                                               LOCAL_SPOTS, &count, NULL);
    }
    charge(r, RE_STEP_MEASURE);
    if (status == RE_ERR_NOMEM)
        return status;
    if (status != RE_OK || count == 0 || count > LOCAL_SPOTS)
        return RE_OK;
    unsigned rate = r->rate;
    uint64_t frames = re_spool_frames(r->leveled);
    uint64_t ranges[LOCAL_SPOTS][2];
    size_t n = 0;
    for (size_t k = 0; k < count && status == RE_OK; k++) {
        uint64_t a, b, ramp;
        local_window(spots[k].first, spots[k].last, rate, frames, &a, &b, &ramp);
        double db = -(spots[k].peak_dbtp - r->plan.ceiling_dbtp + LOCAL_MARGIN_DB);
        if (n > 0 && a < ranges[n - 1][1])
            a = ranges[n - 1][1];     /* spots are 0.1 s apart: the ramps do not meet */
        status = a < b ? spool_gain_window(re_spool_fd(r->leveled), a, b, ramp, db) : RE_OK;
        if (status == RE_OK && n > 0 && a <= ranges[n - 1][1])
            ranges[n - 1][1] = b;
        else if (status == RE_OK && a < b) {
            ranges[n][0] = a;
            ranges[n][1] = b;
            n++;
        }
    }
    charge(r, RE_STEP_LEVEL);
    if (status != RE_OK)
        return status == RE_ERR_NOMEM ? status : RE_OK;
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    status = re_mp3_patch_fd(stream, (off_t)r->id3_len, re_spool_fd(r->leveled), frames, rate,
                             &r->mp3, (const uint64_t (*)[2])ranges, n, r->patched,
                             r->opt->stop, &said);
    re_diagnostics_free(&said);
    charge(r, RE_STEP_ENCODE);
    if (status == RE_OK) {
        *done = 1;
        r->patched_count = n;
    }
    return status == RE_ERR_NOMEM || status == RE_ERR_INTERRUPTED ? status : RE_OK;
}

/* Encodes (after leveling, unless loudness is off), measures what came out, and encodes
 * again with corrected settings while the plan asks for it (rarely; at most 3 times). */
static re_status encode_all(render *r)
{
    int mp3 = strcmp(r->format, "mp3") == 0;
    int level = !r->opt->loudness_off;
    re_loudness pass1;
    re_status status = re_loudness_meter_finish(r->pass1_meter, &pass1);
    charge(r, RE_STEP_SPEAK);   /* the pass-1 meter ran beside the speech */
    if (status == RE_OK && r->music.present)
        status = mix_music(r, &pass1);
    if (status == RE_OK && level)
        status = plan_loudness(r, &pass1);
    else if (status == RE_OK)
        r->leveled_loudness = pass1;
    if (status == RE_OK && level && mp3)
        status = test_overshoot(r);
    int patched = 0;
    for (;;) {
        re_spool *input = level ? r->leveled : episode_audio(r);
        if (status == RE_OK && !patched) {
            status = mp3 ? encode_mp3(r, input) : encode_wav(r, input);
            r->encodes_whole++;
        }
        charge(r, RE_STEP_ENCODE);
        if (status == RE_OK)
            status = measure_delivered(r, input);
        charge(r, RE_STEP_MEASURE);
        if (status == RE_OK && stopped(r))
            status = RE_ERR_INTERRUPTED;
        if (status != RE_OK || !level || !re_loudness_plan_update(&r->plan, &r->delivered, RE_LOUDNESS_DELIVERED))
            return status;
        status = retry_locally(r, &patched);
        r->encodes_local += (unsigned)patched;
        if (status != RE_OK || patched)
            continue;
        status = re_output_restart(r->audio, r->diag);
        if (status != RE_OK)
            return status;
        status = level_into(r, &r->leveled_loudness);
    }
}

static re_status finish_outputs(render *r, re_render_result *result)
{
    re_status status = re_output_size(r->audio, &r->facts.bytes, r->diag);
    if (status != RE_OK)
        return status;
    status = write_extras(r);   /* first: the sidecar lists every other file, hashed */
    re_sidecar_file *files = NULL;
    size_t file_count = 0;
    if (status == RE_OK)
        status = output_set_describe(r->outputs, &files, &file_count, r->diag);
    if (status != RE_OK)
        return status;
    r->facts.files = files;
    r->facts.file_count = file_count;
    re_output *sidecar = output_set_file(r->outputs, OUTPUT_SIDECAR);
    status = re_sidecar_write(re_output_stream(sidecar), &r->facts);
    r->facts.files = NULL;
    r->facts.file_count = 0;
    output_files_free(files, file_count);
    if (status != RE_OK)
        return re_diag_fail(r->diag, status, re_output_target(sidecar), 0, 0,
                            "cannot write the sidecar");
    status = output_set_publish(r->outputs, r->opt->stop, r->diag);
    if (status != RE_OK)
        return status;

    result->samples = r->facts.samples;
    result->sample_rate = r->facts.sample_rate;
    result->bytes = r->facts.bytes;
    result->segments_synthesized = speech_scheduler_synthesized(r->speech);
    result->segments_cached = speech_scheduler_cached(r->speech);
    result->segments_remote = speech_scheduler_remote(r->speech);
    result->loudness = r->delivered;
    result->encodes_whole = r->encodes_whole;
    result->encodes_local = r->encodes_local;
    result->loudness_normalized = !r->opt->loudness_off;
    result->loudness_met = r->opt->loudness_off || r->plan.met;
    re_duration_format_iso(re_samples_to_seconds(r->facts.samples, r->facts.sample_rate),
                           result->duration);
    return RE_OK;
}

static void render_cleanup(render *r)
{
    speech_scheduler_free(r->speech);
    output_set_free(r->outputs);
    free(r->inputs);
    re_transcript_free(&r->transcript);
    re_spool_free(r->leveled);
    re_spool_free(r->mixed);
    episode_music_free(&r->music);
    re_loudness_peak_map_free(&r->peaks);
    re_loudness_meter_free(r->pass1_meter);
    re_assembler_free(r->assembler);
    free(r->inserts);
    episode_sounds_free(&r->sounds);
    if (r->own_engine)
        re_engine_free(r->engine);
    re_prepared_free(&r->prepared);
}

/* Every file the sidecar lists is still as the render wrote it (an edited transcript, which
 * the feed would refuse as stale, is written again). */
static int listed_files_unchanged(const char *output_path, const re_sidecar *side)
{
    int same = side->has_files;
    for (size_t i = 0; same && i < side->file_count; i++) {
        const char *slash = strrchr(output_path, '/');
        char *path = NULL;
        if (asprintf(&path, "%.*s%s", slash ? (int)(slash - output_path + 1) : 0, output_path,
                     side->files[i].name) < 0)
            return 0;
        same = re_sidecar_file_match(path, &side->files[i]) == RE_SIDECAR_MATCH;
        free(path);
    }
    return same;
}

/* The outputs exist, complete, and the sidecar says they were made from these inputs. A
 * sidecar that cannot be read or is not valid only means rendering again: nothing to say. */
static int outputs_up_to_date(render *r, re_render_result *result)
{
    char *sidecar_path = re_sidecar_path(r->opt->output_path);
    re_diagnostics ignored;
    re_diagnostics_init(&ignored, 1);
    re_sidecar side;
    re_sidecar_found found = RE_SIDECAR_NOT_OURS;
    if (sidecar_path)
        re_sidecar_load(sidecar_path, r->format, &side, &found, &ignored);
    re_diagnostics_free(&ignored);
    free(sidecar_path);
    if (found != RE_SIDECAR_FOUND)
        return 0;
    struct stat st;
    int fresh = side.inputs_sha256 && strcmp(side.inputs_sha256, r->inputs_sha256) == 0
                && side.duration && stat(r->opt->output_path, &st) == 0
                && (uint64_t)st.st_size == side.bytes;
    fresh = fresh && output_set_present(r->opt->output_path, &r->choice)
            && listed_files_unchanged(r->opt->output_path, &side);
    if (fresh) {
        result->samples = side.samples;
        result->sample_rate = side.sample_rate;
        result->bytes = side.bytes;
        snprintf(result->duration, sizeof result->duration, "%s", side.duration);
        result->up_to_date = 1;
    }
    re_sidecar_free(&side);
    return fresh;
}

re_status re_render(const re_render_options *options, re_render_result *result,
                    re_diagnostics *diag)
{
    memset(result, 0, sizeof *result);
    render r = { .opt = options, .diag = diag, .format = re_render_format_of(options->output_path),
                 .steps = result->steps, .since = re_step_clock() };
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
    }
    if (status == RE_OK)
        status = start_engine(&r);
    if (status == RE_OK)
        status = check_encoder(&r);
    if (status == RE_OK)
        status = digest_inputs(&r);
    if (status == RE_OK && options->skip_unchanged && outputs_up_to_date(&r, result)) {
        render_cleanup(&r);
        charge(&r, RE_STEP_PARSE);
        return RE_OK;
    }
    if (status == RE_OK)
        status = re_prepared_check_engine(&r.prepared, r.engine, diag);
    if (status == RE_OK)
        status = start_speech(&r);
    if (status == RE_OK)
        status = open_outputs(&r);
    charge(&r, RE_STEP_PARSE);
    if (status == RE_OK)
        status = speak_all(&r);
    if (status == RE_OK) {
        describe_facts(&r);
        status = encode_all(&r);
    }
    if (status == RE_OK)
        status = finish_outputs(&r, result);
    render_cleanup(&r);
    if (status == RE_OK)
        charge(&r, RE_STEP_PUBLISH);
    return status;
}
