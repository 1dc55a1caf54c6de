/* SPDX-License-Identifier: GPL-3.0-or-later */
/* speak.c - paragraphs spoken ahead, from the cache or in children, handed out in order (see
 * speak.h). */
#include "speak.h"

#include <stdlib.h>
#include <string.h>

#include "cache.h"

/* A SPEECH item between "started" and "handed out". */
typedef struct speech_slot {
    re_synth_job *job;       /* running in a child, or NULL */
    re_speech speech;        /* the audio, once ready */
    int ready;               /* speech holds audio (from the cache) */
    re_cache_key key;
    unsigned rate;           /* of its engine's audio (re_engine_rate) */
} speech_slot;

struct speech_scheduler {
    speech_plan plan;
    const re_episode *episode;
    speech_slot *slots;      /* per item */
    re_spoken *spoken;       /* per item: its text as the engine speaks it, while under way */
    size_t next_to_start;
    size_t ahead;            /* items under way */
    re_cache *cache;
    re_remote *remote;
    int cache_warned;
    size_t synthesized;
    size_t cached;
    size_t from_remote;
};

/* Points what the engine said since `from` at the paragraph's SCRIPT:LINE:COL. */
static re_status place_at(re_diagnostics *diag, re_status status, size_t from, const char *file,
                          const re_item *item)
{
    re_diag_place(diag, from, file, item->line, item->col);
    return status;
}

/* A cache that cannot be opened costs speed, not correctness: say so and go on. */
static re_status open_cache(speech_scheduler *s, re_diagnostics *diag)
{
    re_status status = RE_OK;
    if (s->plan.cache_dir) {
        status = re_cache_open(s->plan.cache_dir, &s->cache);
        if (status == RE_ERR_NOMEM)
            return status;
        if (status != RE_OK)
            re_diag_add(diag, s->plan.cache_dir, 0, 0, "warning: not using the segment cache: %s",
                        re_strerror(status));
    }
    if (s->plan.remote.url) {
        size_t from = diag->count;
        status = re_remote_open(&s->plan.remote, &s->remote, diag);
        if (status == RE_ERR_NOMEM)
            return status;
        if (status != RE_OK)
            re_diag_prefix(diag, from, "warning: not using the remote segment cache: ");
    }
    return RE_OK;
}

re_status re_speech_scheduler_create(const speech_plan *plan, speech_scheduler **out,
                                     re_diagnostics *diag)
{
    *out = NULL;
    speech_scheduler *s = calloc(1, sizeof *s);
    if (!s)
        return RE_ERR_NOMEM;
    s->plan = *plan;
    s->episode = plan->prepared->episode;
    size_t count = s->episode->item_count ? s->episode->item_count : 1;
    s->slots = calloc(count, sizeof *s->slots);
    s->spoken = calloc(count, sizeof *s->spoken);
    re_status status = s->slots && s->spoken ? open_cache(s, diag) : RE_ERR_NOMEM;
    if (status != RE_OK) {
        re_speech_scheduler_free(s);
        return status;
    }
    *out = s;
    return RE_OK;
}

/* Stores audio in the local cache for next time; a cache that cannot be written is only a
 * warning, given once (the cache names its folder). */
static void remember_locally(speech_scheduler *s, const speech_slot *slot, re_diagnostics *diag)
{
    if (!s->cache)
        return;
    re_diagnostics *warn = s->cache_warned ? NULL : diag;
    size_t from = warn ? warn->count : 0;
    if (re_cache_put(s->cache, &slot->key, slot->rate, &slot->speech, warn) != RE_OK && warn) {
        re_diag_prefix(warn, from, "warning: the segment cache is not written: ");
        s->cache_warned = 1;
    }
}

/* Freshly spoken audio goes to both caches. The remote's failures are warnings (remote.h). */
static re_status remember(speech_scheduler *s, const speech_slot *slot, re_diagnostics *diag)
{
    remember_locally(s, slot, diag);
    if (!s->remote)
        return RE_OK;
    return re_remote_put(s->remote, &slot->key, slot->rate, &slot->speech, diag);
}

/* Gets item i's speech under way: its text as the engine will speak it, then its audio from
 * the cache when it has it, else from a new child. */
static re_status start_item(speech_scheduler *s, size_t i, re_diagnostics *diag)
{
    const re_item *item = &s->episode->items[i];
    speech_slot *slot = &s->slots[i];
    re_voice_profile scratch;
    char voice[RE_ITEM_VOICE_MAX];
    const re_voice_profile *profile = re_prepared_item_profile(s->plan.prepared, item, &scratch,
                                                               voice);
    re_status status = re_prepared_item_spoken(s->plan.prepared, item, &s->spoken[i]);
    if (status != RE_OK)
        return status;
    const char *text = s->spoken[i].text;
    unsigned flags = s->spoken[i].text_flags;
    /* the key names the engine and its version: flite's and espeak-ng's audio never mix */
    const char *engine_name = re_engine_name(s->plan.engine, profile);
    slot->rate = re_engine_rate(s->plan.engine, profile);
    if (s->cache) {
        re_cache_key_compute(&slot->key, engine_name, slot->rate, profile, flags, text);
        int hit = 0;
        status = re_cache_get(s->cache, &slot->key, slot->rate, &slot->speech, &hit);
        if (status == RE_OK)
            status = re_cache_take_warning(s->cache, diag);   /* an unsafe folder or entry */
        if (status != RE_OK)
            return status;
        if (hit) {
            slot->ready = 1;
            s->cached++;
            return RE_OK;
        }
    }
    if (s->remote) {
        if (!s->cache)
            re_cache_key_compute(&slot->key, engine_name, slot->rate, profile, flags, text);
        int hit = 0;
        status = re_remote_get(s->remote, &slot->key, slot->rate, &slot->speech, &hit, diag);
        if (status != RE_OK)
            return status;
        if (hit) {
            slot->ready = 1;
            s->cached++;
            s->from_remote++;
            remember_locally(s, slot, diag);
            return RE_OK;
        }
    }
    size_t from = diag->count;
    status = re_engine_start(s->plan.engine, text, flags, profile, &slot->job, diag);
    return place_at(diag, status, from, s->plan.script_path, item);
}

/* Keeps up to plan.jobs items under way (speaking, or read from the cache) ahead of the one
 * being assembled: every core busy, memory bounded by a few segments. */
static re_status start_ahead(speech_scheduler *s, re_diagnostics *diag)
{
    const re_episode *ep = s->episode;
    while (s->ahead < s->plan.jobs && s->next_to_start < ep->item_count) {
        size_t i = s->next_to_start++;
        if (ep->items[i].kind != RE_ITEM_SPEECH)
            continue;
        re_status status = start_item(s, i, diag);
        if (status != RE_OK)
            return status;
        s->ahead++;
    }
    return RE_OK;
}

re_status re_speech_scheduler_next(speech_scheduler *s, size_t i, re_speech *speech,
                                   re_diagnostics *diag)
{
    const re_item *item = &s->episode->items[i];
    speech_slot *slot = &s->slots[i];
    memset(speech, 0, sizeof *speech);
    re_status status = start_ahead(s, diag);
    if (status != RE_OK)
        return status;
    if (!slot->ready) {
        size_t from = diag->count;
        status = re_engine_wait(slot->job, s->plan.timeout_ms, &slot->speech, diag);
        slot->job = NULL;
        if (status != RE_OK)
            return place_at(diag, status, from, s->plan.script_path, item);
        s->synthesized++;
        status = remember(s, slot, diag);
        if (status != RE_OK)
            return status;
    }
    s->ahead--;
    status = start_ahead(s, diag);   /* keep every core speaking while this one is assembled */
    if (status == RE_OK) {
        *speech = slot->speech;
        memset(&slot->speech, 0, sizeof slot->speech);
        slot->ready = 0;
    }
    return status;
}

const re_spoken *re_speech_scheduler_spoken(const speech_scheduler *s, size_t i)
{
    return &s->spoken[i];
}

void re_speech_scheduler_done(speech_scheduler *s, size_t i)
{
    re_spoken_free(&s->spoken[i]);
}

size_t re_speech_scheduler_synthesized(const speech_scheduler *s) { return s->synthesized; }
size_t re_speech_scheduler_cached(const speech_scheduler *s) { return s->cached; }
size_t re_speech_scheduler_remote(const speech_scheduler *s) { return s->from_remote; }

void re_speech_scheduler_free(speech_scheduler *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->slots && i < s->episode->item_count; i++) {
        re_engine_cancel(s->slots[i].job);
        re_speech_free(&s->slots[i].speech);
    }
    for (size_t i = 0; s->spoken && i < s->episode->item_count; i++)
        re_spoken_free(&s->spoken[i]);
    free(s->slots);
    free(s->spoken);
    re_cache_free(s->cache);
    re_remote_free(s->remote);
    free(s);
}
