/* render.c - one episode end to end (see render.h). The order of work is chosen so that
 * everything that can be refused is refused before the first sample: script, profiles,
 * engine voices, encoder settings, output folder; then speech, then encoding. */
#define _GNU_SOURCE
#include "render.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assemble.h"
#include "cache.h"
#include "duration.h"
#include "files.h"
#include "id3.h"
#include "lexicon.h"
#include "loudness.h"
#include "mp3_parallel.h"
#include "normalize.h"
#include "output.h"
#include "page.h"
#include "prepare.h"
#include "script.h"
#include "fingerprint.h"
#include "sidecar.h"
#include "spool_pass.h"
#include "synth.h"
#include "transcript.h"
#include "voice.h"
#include "wav.h"

/* The files published beside the audio, besides the sidecar. */
enum { EXTRA_VTT, EXTRA_SRT, EXTRA_TRANSCRIPT_JSON, EXTRA_CHAPTERS, EXTRA_PAGE, EXTRA_COUNT };
static const char *const extra_suffix[EXTRA_COUNT] = {
    ".vtt", ".srt", ".transcript.json", ".chapters.json", ".md",
};

/* A SPEECH item between "started" and "assembled". */
typedef struct speech_slot {
    re_synth_job *job;       /* running in a child, or NULL */
    re_speech speech;        /* the audio, once ready */
    int ready;               /* speech holds audio (from the cache) */
    re_cache_key key;
} speech_slot;

typedef struct render {
    const re_render_options *opt;
    re_diagnostics *diag;
    re_prepared prepared;                /* script, profiles, lexicon */
    const re_episode *episode;           /* prepared.episode */
    re_engine *engine;
    re_assembler *assembler;
    re_output *audio;
    re_output *sidecar;
    re_output *extras[EXTRA_COUNT];      /* NULL for files not written this time */
    re_transcript transcript;
    re_loudness_plan plan;               /* when loudness is normalized */
    re_loudness delivered;               /* what the output file gives a listener */
    re_loudness leveled_loudness;        /* of the PCM being encoded (pass 1 plus the gain...) */
    re_spool *leveled;                   /* the leveled episode being encoded */
    re_loudness_meter *pass1_meter;      /* fed while speaking */
    re_spoken *spoken;                   /* per item: SPEECH text as the engine speaks it */
    const char *format;
    speech_slot *slots;                  /* per item: its speech while under way */
    size_t next_to_start;
    size_t ahead;                        /* slots under way */
    re_cache *cache;
    int cache_warned;
    char encoder[160];
    char engine_name[64];
    int own_engine;
    char inputs_sha256[RE_SHA256_HEX_SIZE];
    size_t synthesized;
    size_t cached;
    uint64_t sound_frames;               /* audio that came from speech, not pauses */
} render;

#define WHY_LEN 512

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

static re_status fail_at(render *r, re_status status, const char *file, unsigned line,
                         unsigned col, const char *why)
{
    re_status s = re_diag_add(r->diag, file, line, col, "%s", why);
    return s == RE_OK ? status : s;
}

/* The script, its profiles and its lexicon (prepare.h). Each SPEECH item's text as the
 * engine will speak it, with the map back to the script's words, is made when the item is
 * started and dropped once it is spoken (see speak_item): memory stays flat however long the
 * episode is. */
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
    if (status != RE_OK)
        return status;
    r->spoken = calloc(r->episode->item_count ? r->episode->item_count : 1, sizeof *r->spoken);
    return r->spoken ? RE_OK : RE_ERR_NOMEM;
}

static re_status start_engine(render *r)
{
    char why[WHY_LEN];
    re_status status = RE_OK;
    if (r->opt->engine) {
        r->engine = r->opt->engine;
    } else {
        status = re_engine_create(r->opt->stop, &r->engine, why, sizeof why);
        if (status != RE_OK)
            return fail_at(r, status, r->opt->script_path, 0, 0, why);
        r->own_engine = 1;
    }
    snprintf(r->engine_name, sizeof r->engine_name, "espeak-ng %s", re_engine_version(r->engine));
    return RE_OK;
}

static re_status check_encoder(render *r)
{
    unsigned rate = re_engine_sample_rate(r->engine);
    if (strcmp(r->format, "wav") == 0) {
        re_wav_describe(rate, r->encoder, sizeof r->encoder);
        return RE_OK;
    }
    char why[WHY_LEN];
    re_status status = re_mp3_check_settings(rate, &r->opt->mp3, why, sizeof why);
    if (status != RE_OK)
        return fail_at(r, status, r->opt->output_path, 0, 0, why);
    re_mp3_describe(rate, &r->opt->mp3, r->encoder, sizeof r->encoder);
    return RE_OK;
}

static int has_chapters(const re_episode *ep)
{
    for (size_t i = 0; i < ep->item_count; i++)
        if (ep->items[i].kind == RE_ITEM_CHAPTER)
            return 1;
    return 0;
}

static int extra_wanted(const render *r, int kind)
{
    switch (kind) {
    case EXTRA_VTT: return 1;
    case EXTRA_SRT: return r->opt->write_srt;
    case EXTRA_TRANSCRIPT_JSON: return r->opt->write_transcript_json;
    case EXTRA_CHAPTERS: return has_chapters(r->episode);
    case EXTRA_PAGE: return r->opt->write_page;
    }
    return 0;
}

/* No output may replace the script being rendered (ep.md with --page, for one). */
static re_status refuse_script_as_output(render *r, const char *path)
{
    struct stat in_st, out_st;
    if (stat(path, &out_st) == 0 && stat(r->opt->script_path, &in_st) == 0
        && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
        return fail_at(r, RE_ERR_WRITE, path, 0, 0,
                       "this output would overwrite the script itself; choose another output name");
    return RE_OK;
}

/* Opens one output beside OUT (suffix NULL: OUT itself). */
static re_status open_one(render *r, const char *suffix, re_output **out)
{
    char *path = suffix ? re_output_sibling(r->opt->output_path, suffix) : strdup(r->opt->output_path);
    if (!path)
        return RE_ERR_NOMEM;
    char why[WHY_LEN];
    re_status status = refuse_script_as_output(r, path);
    if (status == RE_OK) {
        status = re_output_open(path, out, why, sizeof why);
        if (status != RE_OK)
            status = fail_at(r, status, path, 0, 0, why);
    }
    free(path);
    return status;
}

static re_status open_outputs(render *r)
{
    re_status status = open_one(r, NULL, &r->audio);
    if (status == RE_OK)
        status = open_one(r, ".json", &r->sidecar);
    for (int k = 0; status == RE_OK && k < EXTRA_COUNT; k++)
        if (extra_wanted(r, k))
            status = open_one(r, extra_suffix[k], &r->extras[k]);
    return status;
}

static const re_voice_profile *profile_of(const render *r, const char *voice)
{
    return re_prepared_profile(&r->prepared, voice);
}

/* The text the engine speaks for a SPEECH item, and how it reads it. */
static const char *engine_text(const render *r, size_t i, unsigned *flags)
{
    *flags = r->spoken[i].text_flags;
    return r->spoken[i].text;
}

/* Gets item i's speech under way: from the cache when it has it, else in a new child. */
static re_status prepare_speech(render *r, size_t i)
{
    const re_item *item = &r->episode->items[i];
    speech_slot *slot = &r->slots[i];
    const re_voice_profile *profile = profile_of(r, item->voice);
    re_status normalized = re_normalize_spans(r->prepared.lexicon, item->text, &r->spoken[i]);
    if (normalized != RE_OK)
        return normalized;
    unsigned flags;
    const char *text = engine_text(r, i, &flags);
    if (r->cache) {
        re_cache_key_compute(&slot->key, r->engine_name, re_engine_sample_rate(r->engine), profile,
                             flags, text);
        int hit = 0;
        re_status status = re_cache_get(r->cache, &slot->key, re_engine_sample_rate(r->engine),
                                        &slot->speech, &hit);
        if (status != RE_OK)
            return status;
        if (hit) {
            slot->ready = 1;
            r->cached++;
            return RE_OK;
        }
    }
    char why[WHY_LEN];
    re_status status = re_engine_start(r->engine, text, flags, profile, &slot->job, why, sizeof why);
    if (status != RE_OK)
        return fail_at(r, status, r->opt->script_path, item->line, item->col, why);
    return RE_OK;
}

/* Keeps up to opt->jobs segments under way (speaking, or read from the cache) ahead of the
 * one being assembled: every core busy, memory bounded by a few segments. */
static re_status start_ahead(render *r)
{
    const re_episode *ep = r->episode;
    unsigned jobs = r->opt->jobs ? r->opt->jobs : 1;
    while (r->ahead < jobs && r->next_to_start < ep->item_count) {
        size_t i = r->next_to_start++;
        if (ep->items[i].kind != RE_ITEM_SPEECH)
            continue;
        re_status status = prepare_speech(r, i);
        if (status != RE_OK)
            return status;
        r->ahead++;
    }
    return RE_OK;
}

/* Stores freshly spoken audio for next time; a cache that cannot be written is only a warning. */
static void remember(render *r, speech_slot *slot)
{
    if (!r->cache)
        return;
    char why[WHY_LEN];
    if (re_cache_put(r->cache, &slot->key, re_engine_sample_rate(r->engine), &slot->speech,
                     why, sizeof why) != RE_OK && !r->cache_warned) {
        re_diag_add(r->diag, r->opt->cache_dir, 0, 0, "warning: the segment cache is not written: %s", why);
        r->cache_warned = 1;
    }
}

static re_status transcribe_segment(render *r, size_t i);

static re_status speak_item(render *r, size_t i)
{
    const re_item *item = &r->episode->items[i];
    speech_slot *slot = &r->slots[i];
    re_status status = start_ahead(r);
    if (status != RE_OK)
        return status;
    char why[WHY_LEN];
    if (!slot->ready) {
        unsigned timeout = r->opt->engine_timeout_ms ? r->opt->engine_timeout_ms : RE_ENGINE_TIMEOUT_MS;
        status = re_engine_wait(slot->job, timeout, &slot->speech, why, sizeof why);
        slot->job = NULL;
        if (status == RE_ERR_INTERRUPTED)
            return status;
        if (status != RE_OK)
            return fail_at(r, status, r->opt->script_path, item->line, item->col, why);
        r->synthesized++;
        remember(r, slot);
    }
    r->ahead--;
    status = start_ahead(r);   /* keep every core speaking while this one is assembled */
    if (status != RE_OK)
        return status;
    uint64_t before = re_assembler_frames(r->assembler);
    status = re_assembler_add_speech(r->assembler, &slot->speech,
                                     (unsigned)profile_of(r, item->voice)->sentence_pause_ms,
                                     why, sizeof why);
    re_speech_free(&slot->speech);
    slot->ready = 0;
    r->sound_frames += re_assembler_frames(r->assembler) - before;
    if (status != RE_OK && status != RE_ERR_NOMEM)
        return fail_at(r, status, r->opt->script_path, item->line, item->col, why);
    if (status == RE_OK)
        status = transcribe_segment(r, i);
    re_spoken_free(&r->spoken[i]);   /* spoken and transcribed: its text and map are done with */
    return status;
}

static void report(render *r, re_render_phase phase, size_t done, size_t total)
{
    if (!r->opt->progress)
        return;
    re_render_progress p = { phase, done, total, re_assembler_frames(r->assembler),
                             re_engine_sample_rate(r->engine) };
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
                                                event_count, &r->spoken[i], item->text, speaker);
    re_assembler_forget_timeline(r->assembler);
    return status;
}

static const re_item *first_speech(const re_episode *ep)
{
    for (size_t i = 0; i < ep->item_count; i++)
        if (ep->items[i].kind == RE_ITEM_SPEECH)
            return &ep->items[i];
    return &ep->items[0];
}

/* Anything but silence: pauses alone do not make an episode. */
static int has_sound(const render *r)
{
    return r->sound_frames > 0;
}

static re_status speak_all(render *r)
{
    const re_episode *ep = r->episode;
    unsigned rate = re_engine_sample_rate(r->engine);
    char why[WHY_LEN];
    re_status status = re_assembler_create(rate, &r->assembler, why, sizeof why);
    if (status != RE_OK)
        return fail_at(r, status, r->opt->output_path, 0, 0, why);
    status = re_loudness_meter_create_planning(rate, &r->pass1_meter);   /* pass 1 of loudness */
    if (status == RE_OK)
        status = re_loudness_meter_in_background(r->pass1_meter);   /* off the assembly's core */
    if (status != RE_OK)
        return status;
    re_assembler_attach_meter(r->assembler, r->pass1_meter);
    re_transcript_init(&r->transcript, rate);
    r->slots = calloc(ep->item_count, sizeof *r->slots);
    if (!r->slots)
        return RE_ERR_NOMEM;
    uint64_t max_frames = re_us_to_frames(RE_EPISODE_MAX_US, rate);
    for (size_t i = 0; status == RE_OK && i < ep->item_count; i++) {
        const re_item *item = &ep->items[i];
        switch (item->kind) {
        case RE_ITEM_SPEECH:
            status = speak_item(r, i);
            break;
        case RE_ITEM_PAUSE:
            status = re_assembler_add_silence(r->assembler, re_us_to_frames(item->pause_us, rate),
                                              why, sizeof why);
            break;
        case RE_ITEM_BREAK:
            status = re_assembler_add_silence(
                r->assembler,
                re_us_to_frames((uint64_t)profile_of(r, item->voice)->paragraph_pause_ms * 1000, rate),
                why, sizeof why);
            break;
        case RE_ITEM_CHAPTER:
            status = re_assembler_mark_chapter(r->assembler, item->text);
            break;
        }
        if (status == RE_ERR_WRITE && item->kind != RE_ITEM_SPEECH)   /* speech reports its own */
            status = fail_at(r, status, r->opt->output_path, 0, 0, why);
        if (status == RE_OK && re_assembler_frames(r->assembler) > max_frames)
            status = fail_at(r, RE_ERR_LIMIT, r->opt->script_path, item->line, item->col,
                             "the episode would be longer than 12 hours of audio here; split it");
        if (status == RE_OK && stopped(r))
            status = RE_ERR_INTERRUPTED;
        report(r, RE_PHASE_SPEAK, i + 1, ep->item_count);
    }
    if (status == RE_OK) {
        status = re_assembler_finish(r->assembler, why, sizeof why);
        if (status != RE_OK)
            status = fail_at(r, status, r->opt->output_path, 0, 0, why);
    }
    if (status == RE_OK && !has_sound(r))
        status = fail_at(r, RE_ERR_INPUT, r->opt->script_path, first_speech(ep)->line,
                         first_speech(ep)->col, "the script's text produced no sound at all "
                         "(only punctuation?); nothing to publish");
    return status;
}

static re_status build_tag(render *r, unsigned char **tag, size_t *tag_len)
{
    const re_episode *ep = r->episode;
    unsigned rate = re_engine_sample_rate(r->engine);
    size_t count;
    const re_chapter_mark *marks = re_assembler_chapters(r->assembler, &count);
    re_id3_chapter *chapters = count ? calloc(count, sizeof *chapters) : NULL;
    if (count && !chapters)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < count; i++)
        chapters[i] = (re_id3_chapter){ marks[i].title, (uint32_t)re_samples_to_ms(marks[i].start, rate),
                                        (uint32_t)re_samples_to_ms(marks[i].end, rate) };
    char settings[320];
    snprintf(settings, sizeof settings, "render-episode %s; %s; %s", RE_VERSION, r->engine_name,
             r->encoder);
    re_id3_fields fields = {
        .title = ep->title,
        .artist = ep->author ? ep->author : ep->show,
        .album = ep->show,
        .published = ep->published,
        .genre = "Podcast",
        .comment = ep->summary,
        .encoder_settings = settings,
        .length_ms = re_samples_to_ms(re_assembler_frames(r->assembler), rate),
        .chapters = chapters,
        .chapter_count = count,
    };
    re_status status = re_id3_build(&fields, tag, tag_len);
    free(chapters);
    return status;
}

#define ENCODE_CHUNK 16384

/* The MP3 on every core (mp3_parallel.h): the bytes are the same for any number of encoder
 * threads >= 2, so they never depend on the machine or on -j; --serial-encode keeps LAME's
 * one-encoder path (different bytes, same length and tags). */
static re_status encode_mp3(render *r, re_spool *input)
{
    char why[WHY_LEN] = "";
    unsigned char *tag = NULL;
    size_t tag_len = 0;
    re_status status = build_tag(r, &tag, &tag_len);
    if (status != RE_OK)
        return fail_at(r, status, r->opt->output_path, 0, 0, "cannot build the ID3 tag");
    unsigned workers = 1;
    if (!r->opt->serial_encode) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        workers = cpus > 2 ? (unsigned)(cpus < 16 ? cpus : 16) : 2;
    }
    re_mp3_parallel_tuning tuning = { .threads = r->opt->encode_threads };
    report(r, RE_PHASE_ENCODE, 0, (size_t)re_spool_frames(input));
    status = re_mp3_encode_fd_tuned(re_output_stream(r->audio), re_spool_fd(input),
                                    re_spool_frames(input), re_engine_sample_rate(r->engine),
                                    &r->opt->mp3, tag, tag_len, workers, &tuning, NULL,
                                    r->opt->stop, why, sizeof why);
    free(tag);
    if (status == RE_OK)
        report(r, RE_PHASE_ENCODE, (size_t)re_spool_frames(input), (size_t)re_spool_frames(input));
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM)
        return fail_at(r, status, r->opt->output_path, 0, 0, why[0] ? why : re_strerror(status));
    return status;
}

static re_status encode_wav(render *r, re_spool *input)
{
    const re_episode *ep = r->episode;
    re_wav_tags tags = {
        .title = ep->title, .artist = ep->author ? ep->author : ep->show, .album = ep->show,
        .comment = ep->summary, .date = ep->published, .software = "render-episode " RE_VERSION,
    };
    char why[WHY_LEN] = "";
    re_wav_writer *wav = NULL;
    int16_t *pcm = malloc(ENCODE_CHUNK * sizeof *pcm);
    re_status status = pcm ? re_spool_rewind(input, why, sizeof why) : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = re_wav_writer_create(fileno(re_output_stream(r->audio)),
                                      re_engine_sample_rate(r->engine), &tags, &wav, why, sizeof why);
    uint64_t total = re_spool_frames(input), done = 0;
    while (status == RE_OK) {
        size_t got;
        status = re_spool_read(input, pcm, ENCODE_CHUNK, &got, why, sizeof why);
        if (status != RE_OK || got == 0)
            break;
        status = re_wav_writer_write(wav, pcm, got, why, sizeof why);
        done += got;
        if (status == RE_OK && stopped(r))
            status = RE_ERR_INTERRUPTED;
        report(r, RE_PHASE_ENCODE, (size_t)done, (size_t)total);
    }
    if (status == RE_OK)
        status = re_wav_writer_finish(wav, why, sizeof why);
    re_wav_writer_free(wav);
    free(pcm);
    if (status == RE_ERR_WRITE || status == RE_ERR_READ)
        return fail_at(r, status, r->opt->output_path, 0, 0, why);
    return status;
}

static re_status write_extras(render *r, const re_render_facts *facts)
{
    for (int k = 0; k < EXTRA_COUNT; k++) {
        if (!r->extras[k])
            continue;
        FILE *out = re_output_stream(r->extras[k]);
        re_status status = RE_OK;
        switch (k) {
        case EXTRA_VTT: status = re_transcript_write_vtt(out, &r->transcript); break;
        case EXTRA_SRT: status = re_transcript_write_srt(out, &r->transcript); break;
        case EXTRA_TRANSCRIPT_JSON: status = re_transcript_write_json(out, &r->transcript); break;
        case EXTRA_CHAPTERS:
            status = re_chapters_json_write(out, facts->chapters, facts->chapter_count,
                                            facts->sample_rate);
            break;
        case EXTRA_PAGE: status = re_page_write(out, facts, &r->transcript); break;
        }
        if (status != RE_OK)
            return fail_at(r, status, re_output_target(r->extras[k]), 0, 0,
                           status == RE_ERR_NOMEM ? "out of memory" : "cannot write");
    }
    return RE_OK;
}

/* A chapters file from an earlier render of a script that has no headings any more would
 * publish chapters the audio does not have. */
static void remove_stale(const char *output_path, const char *suffix)
{
    char *path = re_output_sibling(output_path, suffix);
    if (path)
        unlink(path);
    free(path);
}

/* One pass over `input` into the full meter (loudness, range, true peak). */
static re_status loudness_pass(render *r, re_spool *input, re_loudness *measured)
{
    char why[WHY_LEN] = "";
    re_status status = re_spool_measure(input, re_engine_sample_rate(r->engine), r->opt->stop,
                                        measured, why, sizeof why);
    if (status == RE_ERR_READ || status == RE_ERR_WRITE)
        return fail_at(r, status, r->opt->output_path, 0, 0, why);
    return status;
}

/* The episode through a leveler with the plan's settings into a new spool (r->leveled), with
 * its loudness measured when `measured` is given. */
static re_status level_into(render *r, re_loudness *measured)
{
    char why[WHY_LEN];
    re_leveler *lv = NULL;
    re_spool_free(r->leveled);
    r->leveled = NULL;
    re_status status = re_leveler_create(re_engine_sample_rate(r->engine), r->plan.gain_db,
                                         r->plan.limiter_ceiling_dbtp, &lv);
    if (status == RE_OK) {
        status = re_spool_create(re_engine_sample_rate(r->engine), &r->leveled, why, sizeof why);
        if (status == RE_ERR_WRITE)
            status = fail_at(r, status, r->opt->output_path, 0, 0, why);
    }
    if (status == RE_OK) {
        status = re_spool_level(re_assembler_spool(r->assembler), lv, r->leveled,
                                re_engine_sample_rate(r->engine), measured, r->opt->stop,
                                why, sizeof why);
        if (status == RE_ERR_READ || status == RE_ERR_WRITE)
            status = fail_at(r, status, r->opt->output_path, 0, 0, why);
    }
    if (status == RE_OK)
        status = re_spool_finish(r->leveled, why, sizeof why);
    re_leveler_free(lv);
    return status;
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

/* What the listener gets. A WAV is the leveled samples, measured whole. An MP3 is decoded and
 * its peaks measured, which is what encoding changes; its loudness is the leveled PCM's
 * minus LAME's constant level loss (RE_LOUDNESS_MP3_LEVEL_DB, measured on every kind of
 * input): metering the decoded file again cost more than all the other loudness work. */
static re_status measure_delivered(render *r, re_spool *input)
{
    if (strcmp(r->format, "wav") == 0)
        return loudness_pass(r, input, &r->delivered);
    char why[WHY_LEN] = "";
    FILE *stream = re_output_stream(r->audio);
    re_status status = fflush(stream) == 0 ? RE_OK : RE_ERR_WRITE;
    if (status == RE_OK)
        status = re_loudness_peaks_mp3_fd(fileno(stream), &r->delivered, why, sizeof why);
    if (status != RE_OK)
        return fail_at(r, status, r->opt->output_path, 0, 0,
                       why[0] ? why : "cannot measure the encoded file's loudness");
    r->delivered.integrated_lufs = r->leveled_loudness.integrated_lufs + RE_LOUDNESS_MP3_LEVEL_DB;
    r->delivered.range_lu = r->leveled_loudness.range_lu;
    return RE_OK;
}

/* Encodes (after leveling, unless loudness is off), measures what came out, and encodes
 * again with corrected settings while the plan asks for it (rarely; at most 3 times). */
static re_status encode_all(render *r)
{
    int mp3 = strcmp(r->format, "mp3") == 0;
    int level = !r->opt->loudness_off;
    re_loudness pass1;
    re_status status = re_loudness_meter_finish(r->pass1_meter, &pass1);
    if (status == RE_OK && level)
        status = plan_loudness(r, &pass1);
    else if (status == RE_OK)
        r->leveled_loudness = pass1;
    for (;;) {
        re_spool *input = level ? r->leveled : re_assembler_spool(r->assembler);
        if (status == RE_OK)
            status = mp3 ? encode_mp3(r, input) : encode_wav(r, input);
        if (status == RE_OK)
            status = measure_delivered(r, input);
        if (status == RE_OK && stopped(r))
            status = RE_ERR_INTERRUPTED;
        if (status != RE_OK || !level || !re_loudness_plan_update(&r->plan, &r->delivered, RE_LOUDNESS_DELIVERED))
            return status;
        char why[WHY_LEN];
        status = re_output_restart(r->audio, why, sizeof why);
        if (status != RE_OK)
            return fail_at(r, status, r->opt->output_path, 0, 0, why);
        status = level_into(r, &r->leveled_loudness);
    }
}

/* Every output's data on disk first; only then are they renamed into place, the audio
 * first and the sidecar last (a sidecar must never describe files that are not there). A
 * signal that arrived meanwhile still stops everything here. */
static re_status publish_all(render *r)
{
    char why[WHY_LEN];
    re_output *order[EXTRA_COUNT + 2];
    size_t n = 0;
    order[n++] = r->audio;
    for (int k = 0; k < EXTRA_COUNT; k++)
        if (r->extras[k])
            order[n++] = r->extras[k];
    order[n++] = r->sidecar;
    for (size_t i = 0; i < n; i++) {
        re_status status = re_output_prepare(order[i], why, sizeof why);
        if (status != RE_OK)
            return fail_at(r, status, re_output_target(order[i]), 0, 0, why);
    }
    if (stopped(r))
        return RE_ERR_INTERRUPTED;
    char *targets[EXTRA_COUNT + 2], *backups[EXTRA_COUNT + 2];
    re_status status = RE_OK;
    for (size_t i = 0; i < n; i++) {
        targets[i] = strdup(re_output_target(order[i]));
        backups[i] = NULL;
        if (!targets[i])
            status = RE_ERR_NOMEM;
        else if (status == RE_OK)
            status = re_output_backup(targets[i], &backups[i]);
    }
    r->audio = r->sidecar = NULL;
    memset(r->extras, 0, sizeof r->extras);
    size_t published = 0;
    for (size_t i = 0; i < n; i++) {
        if (status != RE_OK) {
            re_output_discard(order[i]);
            continue;
        }
        status = re_output_publish(order[i], why, sizeof why);
        if (status == RE_OK)
            published++;
        else
            status = fail_at(r, status, targets[i], 0, 0, why);
    }
    /* All or nothing: on a failure, yesterday's files go back where they were. */
    for (size_t i = 0; i < n; i++) {
        if (status != RE_OK && i < published)
            re_output_restore(targets[i], backups[i]);
        else
            re_output_drop_backup(backups[i]);
        free(targets[i]);
    }
    return status;
}

static re_status finish_outputs(render *r, re_render_result *result)
{
    char why[WHY_LEN];
    unsigned rate = re_engine_sample_rate(r->engine);
    unsigned long long bytes;
    re_status status = re_output_size(r->audio, &bytes, why, sizeof why);
    if (status != RE_OK)
        return fail_at(r, status, r->opt->output_path, 0, 0, why);
    size_t chapter_count;
    const re_chapter_mark *chapters = re_assembler_chapters(r->assembler, &chapter_count);
    re_render_facts facts = {
        .episode = r->episode, .samples = re_assembler_frames(r->assembler), .sample_rate = rate,
        .bytes = bytes, .format = r->format, .chapters = chapters, .chapter_count = chapter_count,
        .voices = r->prepared.profiles, .voice_count = r->episode->voice_count,
        .engine = r->engine_name, .encoder = r->encoder, .inputs_sha256 = r->inputs_sha256,
        .loudness = &r->delivered, .loudness_plan = r->opt->loudness_off ? NULL : &r->plan,
    };
    status = re_sidecar_write(re_output_stream(r->sidecar), &facts);
    if (status != RE_OK)
        return fail_at(r, status, re_output_target(r->sidecar), 0, 0, "cannot write the sidecar");
    status = write_extras(r, &facts);
    if (status != RE_OK)
        return status;

    status = publish_all(r);
    if (status != RE_OK)
        return status;
    if (!r->extras[EXTRA_CHAPTERS] && !extra_wanted(r, EXTRA_CHAPTERS))
        remove_stale(r->opt->output_path, extra_suffix[EXTRA_CHAPTERS]);

    result->samples = facts.samples;
    result->sample_rate = rate;
    result->bytes = bytes;
    result->segments_synthesized = r->synthesized;
    result->segments_cached = r->cached;
    result->loudness = r->delivered;
    result->loudness_normalized = !r->opt->loudness_off;
    result->loudness_met = r->opt->loudness_off || r->plan.met;
    re_duration_format_iso(re_samples_to_seconds(facts.samples, rate), result->duration);
    return RE_OK;
}

static void render_cleanup(render *r)
{
    if (r->slots) {
        for (size_t i = 0; i < r->episode->item_count; i++) {
            re_engine_cancel(r->slots[i].job);
            re_speech_free(&r->slots[i].speech);
        }
        free(r->slots);
    }
    re_cache_free(r->cache);
    re_output_discard(r->audio);
    re_output_discard(r->sidecar);
    for (int k = 0; k < EXTRA_COUNT; k++)
        re_output_discard(r->extras[k]);
    re_transcript_free(&r->transcript);
    re_spool_free(r->leveled);
    if (r->spoken) {
        for (size_t i = 0; i < r->episode->item_count; i++)
            re_spoken_free(&r->spoken[i]);
        free(r->spoken);
    }
    re_loudness_meter_free(r->pass1_meter);
    re_assembler_free(r->assembler);
    if (r->own_engine)
        re_engine_free(r->engine);
    re_prepared_free(&r->prepared);
}

/* A cache that cannot be opened costs speed, not correctness: say so and go on. */
static re_status open_cache(render *r)
{
    if (!r->opt->cache_dir)
        return RE_OK;
    re_status status = re_cache_open(r->opt->cache_dir, &r->cache);
    if (status == RE_ERR_NOMEM)
        return status;
    if (status != RE_OK)
        re_diag_add(r->diag, r->opt->cache_dir, 0, 0, "warning: not using the segment cache: %s",
                    re_strerror(status));
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
    };
    re_fingerprint(&inputs, r->inputs_sha256);
    return RE_OK;
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
    for (int k = 0; fresh && k < EXTRA_COUNT; k++) {
        char *path = extra_wanted(r, k) ? re_output_sibling(r->opt->output_path, extra_suffix[k]) : NULL;
        fresh = !extra_wanted(r, k) || (path && access(path, F_OK) == 0);
        free(path);
    }
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
    render r = { .opt = options, .diag = diag, .format = re_render_format_of(options->output_path) };
    if (!r.format)
        return fail_at(&r, RE_ERR_INVALID, options->output_path, 0, 0,
                       "the output name must end in .mp3 or .wav");
    re_status status = load_script(&r);
    if (status == RE_OK)
        status = start_engine(&r);
    if (status == RE_OK)
        status = check_encoder(&r);
    if (status == RE_OK)
        status = digest_inputs(&r);
    if (status == RE_OK && options->skip_unchanged && outputs_up_to_date(&r, result)) {
        render_cleanup(&r);
        return RE_OK;
    }
    if (status == RE_OK)
        status = re_prepared_check_engine(&r.prepared, r.engine, diag);
    if (status == RE_OK)
        status = open_cache(&r);
    if (status == RE_OK)
        status = open_outputs(&r);
    if (status == RE_OK)
        status = speak_all(&r);
    if (status == RE_OK)
        status = encode_all(&r);
    if (status == RE_OK)
        status = finish_outputs(&r, result);
    render_cleanup(&r);
    return status;
}
