/* SPDX-License-Identifier: GPL-3.0-or-later */
/* timeline.c - the episode's items onto one timeline (render_state.h): speech as each
 * paragraph's child delivers it, pauses, sound inserts, the intro and the outro, with the air
 * between speech and sounds (the sound gap), chapter marks with their first audio, the
 * sidecar's record of every insert, and the transcript's cues. */
#define _GNU_SOURCE
#include "render_state.h"

#include <stdint.h>
#include <string.h>

#include "duration.h"
#include "sound_file.h"

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

/* Item i's audio onto the timeline, then its cues. */
static re_status speak_item(render *r, size_t i)
{
    const re_item *item = &r->episode->items[i];
    re_speech speech;
    re_status status = re_speech_scheduler_next(r->speech, i, &speech, r->diag);
    if (status != RE_OK)
        return status;
    size_t from = r->diag->count;
    if (re_assembler_audible(&speech))
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

re_status re_render_speak_all(render *r)
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

