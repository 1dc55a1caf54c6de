/* SPDX-License-Identifier: GPL-3.0-or-later */
/* assemble.c - exact joins, the spool file and the timeline (see assemble.h). */
#define _GNU_SOURCE
#include "assemble.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resample.h"

struct re_assembler {
    unsigned rate;              /* of the stream */
    re_spool *spool;
    re_loudness_meter *meter;   /* fed everything written, when attached */
    int reading;
    uint64_t frames;
    uint32_t segments;
    re_chapter_mark *chapters;
    size_t chapter_count, chapter_capacity;
    re_timed_event *events;
    size_t event_count, event_capacity;
    re_sentence_span *sentences;
    size_t sentence_count, sentence_capacity;
    int16_t *overlay;           /* a sound's held tail, mixed under what comes next */
    size_t overlay_len, overlay_pos;
};

/* A stretch [begin, end) of a segment (at the speech rate) replaced by `insert` samples of
 * silence (at the stream's rate). The sound before it, from the previous cut's end, is
 * written as sound[lead .. lead + sound_len) (resampled; NULL: the segment's own samples,
 * rates equal), and `out` is where the silence starts in the segment's output. */
typedef struct cut {
    size_t begin, end;
    size_t insert;
    uint64_t out;
    int16_t *sound;
    size_t lead, sound_len;
} cut;

re_status re_assembler_create(unsigned sample_rate, re_assembler **out, re_diagnostics *diag)
{
    *out = NULL;
    if (sample_rate == 0)
        return RE_ERR_INVALID;
    re_assembler *a = calloc(1, sizeof *a);
    if (!a)
        return RE_ERR_NOMEM;
    a->rate = sample_rate;
    re_status status = re_spool_create(sample_rate, &a->spool, diag);
    if (status != RE_OK) {
        free(a);
        return status;
    }
    *out = a;
    return RE_OK;
}

static re_status write_plain(re_assembler *a, const int16_t *pcm, size_t n, re_diagnostics *diag)
{
    re_status status = re_spool_write(a->spool, pcm, n, diag);
    if (status == RE_OK && a->meter)
        status = re_loudness_meter_feed(a->meter, pcm, n);
    if (status == RE_OK)
        a->frames += n;
    return status;
}

/* Writes pcm[0..n), mixed over the held overlay while it lasts. */
static re_status write_frames(re_assembler *a, const int16_t *pcm, size_t n, re_diagnostics *diag)
{
    int16_t mixed[4096];
    re_status status = RE_OK;
    while (status == RE_OK && n > 0 && a->overlay_pos < a->overlay_len) {
        size_t k = a->overlay_len - a->overlay_pos;
        k = k < n ? k : n;
        k = k < 4096 ? k : 4096;
        for (size_t i = 0; i < k; i++) {
            int sum = (int)pcm[i] + (int)a->overlay[a->overlay_pos + i];
            mixed[i] = (int16_t)(sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum);
        }
        status = write_plain(a, mixed, k, diag);
        a->overlay_pos += k;
        pcm += k;
        n -= k;
    }
    if (a->overlay && a->overlay_pos == a->overlay_len) {
        free(a->overlay);
        a->overlay = NULL;
        a->overlay_len = a->overlay_pos = 0;
    }
    return status == RE_OK && n > 0 ? write_plain(a, pcm, n, diag) : status;
}

/* The edge of a stretch of sound that meets silence is faded over RE_JOIN_FADE_MS, so that no
 * join clicks: the engine ends some calls on a loud sample ("It works." on +896, a cut "B." on
 * +5511) and the breath variants start theirs on one. Smoothstep weights t*t*(3 - 2t), t =
 * k/(F+1) for the k-th sample from the edge, in integers (the same bytes on every machine); a
 * sample that was not zero stays non-zero (+-1), so that every pause, measured from the last
 * non-zero sample to the next, keeps its exact length. */
static int16_t faded(int16_t x, size_t k, size_t fade)
{
    int64_t t = (int64_t)k, d = (int64_t)fade + 1;
    int64_t y = (int64_t)x * t * t * (3 * d - 2 * t) / (d * d * d);
    if (y == 0 && x != 0)
        y = x > 0 ? 1 : -1;
    return (int16_t)y;
}

static size_t fade_length(const re_assembler *a, size_t n)
{
    size_t fade = re_us_to_frames(RE_JOIN_FADE_MS * 1000u, a->rate);
    if (fade > RE_JOIN_FADE_MAX)
        fade = RE_JOIN_FADE_MAX;
    return fade > n / 2 ? n / 2 : fade;
}

static void fade_in_place(const re_assembler *a, int16_t *pcm, size_t n, int head, int tail)
{
    size_t fade = fade_length(a, n);
    for (size_t k = 0; head && k < fade; k++)
        pcm[k] = faded(pcm[k], k + 1, fade);
    for (size_t k = 0; tail && k < fade; k++)
        pcm[n - 1 - k] = faded(pcm[n - 1 - k], k + 1, fade);
}

/* Writes pcm[0..n) with its start faded in (head) and its end faded out (tail). */
static re_status write_faded(re_assembler *a, const int16_t *pcm, size_t n, int head, int tail,
                             re_diagnostics *diag)
{
    int16_t edge[RE_JOIN_FADE_MAX] = { 0 };
    size_t fade = fade_length(a, n);
    size_t in = head ? fade : 0, out = tail ? fade : 0;
    for (size_t k = 0; k < in; k++)
        edge[k] = faded(pcm[k], k + 1, fade);
    re_status status = write_frames(a, edge, in, diag);
    if (status == RE_OK)
        status = write_frames(a, pcm + in, n - in - out, diag);
    for (size_t k = 0; k < out; k++)
        edge[k] = faded(pcm[n - out + k], out - k, fade);
    return status == RE_OK ? write_frames(a, edge, out, diag) : status;
}

/* Speech: both edges of every stretch, always. */
static re_status write_edged(re_assembler *a, const int16_t *pcm, size_t n, re_diagnostics *diag)
{
    return write_faded(a, pcm, n, 1, 1, diag);
}

re_status re_assembler_add_sound(re_assembler *a, const int16_t *samples, size_t frames,
                                 re_diagnostics *diag)
{
    return re_assembler_add_sound_overlapped(a, samples, frames, 0, diag);
}

re_status re_assembler_add_sound_overlapped(re_assembler *a, const int16_t *samples,
                                            size_t frames, size_t overlap,
                                            re_diagnostics *diag)
{
    if (a->reading || overlap > frames || (overlap > 0 && a->overlay))
        return RE_ERR_INVALID;
    /* A sound file is written as it is, but an edge that would click (a first or last sample
     * louder than RE_JOIN_JUMP_MAX) is faded like speech's. */
    int head = frames > 0 && abs(samples[0]) > RE_JOIN_JUMP_MAX;
    int tail = frames > 0 && abs(samples[frames - 1]) > RE_JOIN_JUMP_MAX;
    if (overlap == 0)
        return write_faded(a, samples, frames, head, tail, diag);
    int16_t *copy = malloc(frames * sizeof *copy);   /* faded whole, then split */
    if (!copy)
        return RE_ERR_NOMEM;
    memcpy(copy, samples, frames * sizeof *copy);
    fade_in_place(a, copy, frames, head, tail);
    re_status status = write_frames(a, copy, frames - overlap, diag);
    a->overlay = status == RE_OK ? malloc(overlap * sizeof *a->overlay) : NULL;
    if (status == RE_OK && !a->overlay)
        status = RE_ERR_NOMEM;
    if (status == RE_OK)
        memcpy(a->overlay, copy + (frames - overlap), overlap * sizeof *a->overlay);
    free(copy);
    if (status != RE_OK)
        return status;
    a->overlay_len = overlap;
    a->overlay_pos = 0;
    return RE_OK;
}

re_status re_assembler_add_sound_cut(re_assembler *a, const re_sound *sound, size_t played,
                                     size_t fade, size_t overlap, re_diagnostics *diag)
{
    if (played >= sound->frames)
        return re_assembler_add_sound_overlapped(a, sound->samples, sound->frames, overlap, diag);
    int16_t *head = malloc((played ? played : 1) * sizeof *head);
    if (!head)
        return RE_ERR_NOMEM;
    memcpy(head, sound->samples, played * sizeof *head);
    re_sound_fade_out(head, played, fade);
    re_status status = re_assembler_add_sound_overlapped(a, head, played, overlap, diag);
    free(head);
    return status;
}

re_status re_assembler_add_silence(re_assembler *a, uint64_t frames, re_diagnostics *diag)
{
    static const int16_t zeros[4096];
    if (a->reading)
        return RE_ERR_INVALID;
    while (frames > 0) {
        size_t n = frames < 4096 ? (size_t)frames : 4096;
        re_status status = write_frames(a, zeros, n, diag);
        if (status != RE_OK)
            return status;
        frames -= n;
    }
    return RE_OK;
}

/* The last sound of a sentence's audio pcm[head..end): its last non-zero sample, less a
 * quiet tail. Voices with breath noise (the +f1..+f5 style variants) and echo end a call with
 * a tail far below the speech (a few units of 32767, for hundreds of milliseconds): a run of
 * at least 40 ms no louder than 1/100 of the sentence's peak at the very end is not part of
 * it. A final fricative ("off") is louder than that and stays. */
static size_t last_sound(const int16_t *pcm, size_t head, size_t end, unsigned rate)
{
    size_t last = end - 1;
    while (last > head && pcm[last] == 0)
        last--;
    int peak = 0;
    for (size_t i = head; i <= last; i++)
        if (abs(pcm[i]) > peak)
            peak = abs(pcm[i]);
    size_t quiet = last;
    while (quiet > head && abs(pcm[quiet]) <= peak / 100)
        quiet--;
    return last - quiet >= rate / 25 ? quiet : last;
}

/* Plans the cuts of one segment. The engine spoke each sentence by a call of its own, and its
 * SENTENCE event is the first sample of that call (synth.h): so a sentence's audio is the
 * stretch up to the next event, and its sound runs from its first non-zero sample to its
 * last sound (last_sound). Cuts: the silence before the first sentence's sound (removed), the
 * silence between each sentence's last sound and the next one's first (replaced by the
 * sentence pause), and what follows the last sound (removed). A sentence without a sound adds
 * nothing. Returns the number of cuts written (capacity event_count + 2). */
static size_t plan_cuts(const re_speech *speech, size_t sentence_gap, unsigned rate, cut *cuts)
{
    size_t n = 0, from = 0, sounded = 0;
    for (size_t i = 0; i <= speech->event_count; i++) {
        size_t to = speech->frames;
        if (i < speech->event_count) {
            const re_speech_event *ev = &speech->events[i];
            if (ev->type != RE_EVENT_SENTENCE || ev->sample <= from || ev->sample >= speech->frames)
                continue;
            to = (size_t)ev->sample;
        }
        size_t head = from;
        while (head < to && speech->pcm[head] == 0)
            head++;
        if (head < to) {
            size_t begin = n ? cuts[n - 1].begin : 0;
            if (n == 0)
                cuts[n++] = (cut){ 0, head, 0, 0, NULL, 0, 0 };
            else
                cuts[n - 1] = (cut){ begin, head, sentence_gap, 0, NULL, 0, 0 };
            size_t last = last_sound(speech->pcm, head, to, rate);
            cuts[n++] = (cut){ last + 1, to, sentence_gap, 0, NULL, 0, 0 };
            sounded = 1;
        } else if (n > 0) {
            cuts[n - 1].end = to;   /* a silent sentence: its silence joins the cut before */
        }
        from = to;
    }
    if (!sounded)
        return 0;
    cuts[n - 1].insert = 0;   /* after the last sound: nothing, until what comes next */
    return n;
}

/* Resamples the sound before each cut (resample.h) and says where each cut's silence starts
 * in the segment's output. A resampled stretch can begin or end with samples that round to
 * zero: they are dropped, so that a pause, measured from the last sound to the next, is still
 * exactly its samples at the stream's rate. Equal rates: the stretches as they are. */
static re_status resample_stretches(const re_assembler *a, const re_speech *speech, cut *cuts,
                                    size_t n)
{
    uint64_t out = 0;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = cuts[i].begin - pos;
        cuts[i].sound_len = len;
        if (speech->rate != a->rate && len > 0) {
            size_t out_len = (size_t)re_resample_length(len, speech->rate, a->rate);
            cuts[i].sound = malloc((out_len ? out_len : 1) * sizeof *cuts[i].sound);
            if (!cuts[i].sound)
                return RE_ERR_NOMEM;
            re_status status = re_resample_mono16(speech->pcm + pos, len, speech->rate, a->rate,
                                                  cuts[i].sound);
            if (status != RE_OK)
                return status;
            size_t lead = 0, end = out_len;
            while (lead < end && cuts[i].sound[lead] == 0)
                lead++;
            while (end > lead && cuts[i].sound[end - 1] == 0)
                end--;
            cuts[i].lead = lead;
            cuts[i].sound_len = end - lead;
        }
        out += cuts[i].sound_len;
        cuts[i].out = out;
        out += cuts[i].insert;
        pos = cuts[i].end;
    }
    return RE_OK;
}

/* Where sample x of the segment lands in the segment's output; a sample inside a cut moves
 * to the end of the silence that replaces it, i.e. to the next sound. */
static uint64_t map_sample(const cut *cuts, size_t n, uint64_t x, unsigned in_rate,
                           unsigned out_rate)
{
    uint64_t pos = 0, out = 0;   /* the start of the current stretch of sound, in and out */
    for (size_t i = 0; i < n; i++) {
        if (x < cuts[i].begin) {
            uint64_t at = re_resample_length(x - pos, in_rate, out_rate);
            at = at > cuts[i].lead ? at - cuts[i].lead : 0;
            return out + (at < cuts[i].sound_len ? at : cuts[i].sound_len);
        }
        if (x < cuts[i].end)
            return cuts[i].out + cuts[i].insert;
        pos = cuts[i].end;
        out = cuts[i].out + cuts[i].insert;
    }
    return out + re_resample_length(x - pos, in_rate, out_rate);
}

static int reserve(void **items, size_t *capacity, size_t need, size_t size);

static re_status keep_events(re_assembler *a, const re_speech *speech, const cut *cuts, size_t n,
                             uint64_t base)
{
    if (reserve((void **)&a->events, &a->event_capacity, a->event_count + speech->event_count,
                sizeof *a->events) != 0)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < speech->event_count; i++) {
        const re_speech_event *ev = &speech->events[i];
        a->events[a->event_count++] = (re_timed_event){
            ev->type, base + map_sample(cuts, n, ev->sample, speech->rate, a->rate), ev->text_pos, ev->length, a->segments };
    }
    return RE_OK;
}

/* Grows *items (of `size` bytes each) to hold `need` entries. */
static int reserve(void **items, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity)
        return 0;
    size_t cap = *capacity ? *capacity : 64;
    while (cap < need)
        cap *= 2;
    void *grown = realloc(*items, cap * size);
    if (!grown)
        return -1;
    *items = grown;
    *capacity = cap;
    return 0;
}

/* Each sentence runs from its first sound to the next stretch of silence that replaced a gap
 * (or trailing padding), and never past the next sentence's start. */
static re_status keep_sentences(re_assembler *a, const re_speech *speech, const cut *cuts, size_t n,
                                uint64_t base)
{
    if (reserve((void **)&a->sentences, &a->sentence_capacity,
                a->sentence_count + speech->event_count, sizeof *a->sentences) != 0)
        return RE_ERR_NOMEM;
    size_t first_new = a->sentence_count;
    for (size_t i = 0; i < speech->event_count; i++) {
        const re_speech_event *ev = &speech->events[i];
        if (ev->type != RE_EVENT_SENTENCE)
            continue;
        uint64_t start = map_sample(cuts, n, ev->sample, speech->rate, a->rate);
        uint64_t end = start;
        for (size_t c = 0; c < n; c++) {
            if (cuts[c].begin > ev->sample && cuts[c].out > start) {
                end = cuts[c].out;
                break;
            }
        }
        a->sentences[a->sentence_count++] = (re_sentence_span){ a->segments, ev->text_pos,
                                                                base + start, base + end };
    }
    for (size_t i = first_new; i + 1 < a->sentence_count; i++)
        if (a->sentences[i].end > a->sentences[i + 1].start)
            a->sentences[i].end = a->sentences[i + 1].start;
    return RE_OK;
}

int re_assembler_audible(const re_speech *speech)
{
    for (size_t k = 0; k < speech->frames; k++)
        if (speech->pcm[k] != 0)
            return 1;
    return 0;
}

re_status re_assembler_add_speech(re_assembler *a, const re_speech *speech,
                                  unsigned sentence_pause_ms, re_diagnostics *diag)
{
    if (a->reading || speech->rate == 0)
        return RE_ERR_INVALID;
    cut *cuts = calloc(speech->event_count + 2, sizeof *cuts);
    if (!cuts)
        return RE_ERR_NOMEM;
    size_t sentence_gap = (size_t)re_us_to_frames((uint64_t)sentence_pause_ms * 1000, a->rate);
    size_t n = plan_cuts(speech, sentence_gap, speech->rate, cuts);
    if (n == 0) {   /* nothing audible: the segment adds no audio */
        free(cuts);
        a->segments++;
        return RE_OK;
    }

    uint64_t base = a->frames;
    re_status status = resample_stretches(a, speech, cuts, n);
    if (status == RE_OK)
        status = keep_events(a, speech, cuts, n, base);
    if (status == RE_OK)
        status = keep_sentences(a, speech, cuts, n, base);
    size_t pos = 0;
    for (size_t i = 0; status == RE_OK && i < n; i++) {
        const int16_t *sound = cuts[i].sound ? cuts[i].sound + cuts[i].lead : speech->pcm + pos;
        status = write_edged(a, sound, cuts[i].sound_len, diag);
        if (status == RE_OK)
            status = re_assembler_add_silence(a, cuts[i].insert, diag);
        pos = cuts[i].end;
    }
    for (size_t i = 0; i < n; i++)
        free(cuts[i].sound);
    free(cuts);
    a->segments++;
    return status;
}

re_status re_assembler_mark_chapter(re_assembler *a, const char *title)
{
    if (a->reading)
        return RE_ERR_INVALID;
    if (re_array_grow(&a->chapters, &a->chapter_capacity, a->chapter_count,
                      sizeof *a->chapters) != RE_OK)
        return RE_ERR_NOMEM;
    char *copy = strdup(title);
    if (!copy)
        return RE_ERR_NOMEM;
    a->chapters[a->chapter_count++] = (re_chapter_mark){ copy, a->frames, 0 };
    return RE_OK;
}

uint64_t re_assembler_frames(const re_assembler *a) { return a->frames; }

void re_assembler_attach_meter(re_assembler *a, re_loudness_meter *meter)
{
    a->meter = meter;
}

re_status re_assembler_release(re_assembler *a, re_diagnostics *diag)
{
    if (a->reading)
        return RE_ERR_INVALID;
    if (!a->overlay)
        return RE_OK;
    re_status status = write_plain(a, a->overlay + a->overlay_pos,
                                   a->overlay_len - a->overlay_pos, diag);
    free(a->overlay);
    a->overlay = NULL;
    a->overlay_len = a->overlay_pos = 0;
    return status;
}

re_status re_assembler_finish(re_assembler *a, re_diagnostics *diag)
{
    if (a->reading)
        return RE_ERR_INVALID;
    re_status released = re_assembler_release(a, diag);   /* a held tail nothing covered */
    if (released != RE_OK)
        return released;
    if (a->chapter_count > 0)
        a->chapters[0].start = 0;
    for (size_t i = 0; i < a->chapter_count; i++)
        a->chapters[i].end = i + 1 < a->chapter_count ? a->chapters[i + 1].start : a->frames;

    re_status status = re_spool_finish(a->spool, diag);
    if (status == RE_OK)
        a->reading = 1;
    return status;
}

re_status re_assembler_read(re_assembler *a, int16_t *buf, size_t max, size_t *got,
                            re_diagnostics *diag)
{
    *got = 0;
    if (!a->reading)
        return RE_ERR_INVALID;
    return re_spool_read(a->spool, buf, max, got, diag);
}

const re_chapter_mark *re_assembler_chapters(const re_assembler *a, size_t *count)
{
    *count = a->chapter_count;
    return a->chapters;
}

const re_timed_event *re_assembler_events(const re_assembler *a, size_t *count)
{
    *count = a->event_count;
    return a->events;
}

int re_assembler_pcm_fd(const re_assembler *a)
{
    return a->reading ? re_spool_fd(a->spool) : -1;
}

re_spool *re_assembler_spool(re_assembler *a)
{
    return a->reading ? a->spool : NULL;
}

const re_sentence_span *re_assembler_sentences(const re_assembler *a, size_t *count)
{
    *count = a->sentence_count;
    return a->sentences;
}

void re_assembler_forget_timeline(re_assembler *a)
{
    a->event_count = 0;
    a->sentence_count = 0;
}

void re_assembler_free(re_assembler *a)
{
    if (!a)
        return;
    re_spool_free(a->spool);
    for (size_t i = 0; i < a->chapter_count; i++)
        free(a->chapters[i].title);
    free(a->chapters);
    free(a->events);
    free(a->sentences);
    free(a->overlay);
    free(a);
}
