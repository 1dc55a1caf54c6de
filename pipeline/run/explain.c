/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explain.c - script -> profiles -> lexicon -> normalize -> engine phonemes (see explain.h). */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>

#include "fit.h"
#include "normalize.h"
#include "sample_rate.h"
#include "render.h"
#include "synth.h"

/* Points what the engine said since `from` at the script, at the item when there is one. */
static re_status place_at(re_diagnostics *diag, re_status status, size_t from, const char *file,
                          const re_item *item)
{
    re_diag_place(diag, from, file, item ? item->line : 0, item ? item->col : 0);
    return status;
}

/* One SPEECH item: normalized, then given to the engine for its phonemes. */
static re_status explain_item(const re_prepared *p, re_engine *engine, const re_item *item,
                              re_explain_callback each, void *context, re_diagnostics *diag)
{
    re_spoken spoken;
    char *phonemes = NULL;
    re_voice_profile scratch;
    char voice[RE_ITEM_VOICE_MAX];
    size_t from = diag->count;
    const re_voice_profile *profile = re_prepared_item_profile(p, item, &scratch, voice);
    re_status status = re_prepared_item_spoken(p, item, &spoken);
    if (status == RE_OK)
        status = re_engine_phonemes(engine, spoken.text, spoken.text_flags, profile, &phonemes,
                                    diag);
    else if (status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED
             && re_diag_add(diag, NULL, 0, 0, "cannot normalize the text: %s",
                            re_strerror(status)) != RE_OK)
        status = RE_ERR_NOMEM;
    if (status == RE_OK) {
        re_explained_item explained = { p->episode->file, item->line, item->col, item->text,
                                        spoken.text, phonemes, spoken.decisions,
                                        spoken.decision_count };
        status = each(context, &explained);
    } else {
        status = place_at(diag, status, from, p->episode->file, item);
    }
    re_spoken_free(&spoken);
    free(phonemes);
    return status;
}

/* The episode cut to limit->max_us, as a render cuts it, and what was left out said. */
static re_status fit_limit(re_prepared *p, re_engine *engine, const re_explain_limit *limit,
                           const re_episode_sources *sources, volatile sig_atomic_t *stop,
                           void *context, re_diagnostics *diag)
{
    unsigned rate = limit->sample_rate ? limit->sample_rate
                  : p->episode->sample_rate ? p->episode->sample_rate : RE_RATE_DEFAULT;
    fit_options opt = { .max_us = limit->max_us, .max_text = limit->max_text ? limit->max_text : "",
                        .rate = rate, .reserve = FIT_MP3_RESERVE(rate),
                        .script_path = sources->script_path, .jobs = 1,
                        .timeout_ms = RE_ENGINE_TIMEOUT_MS, .stop = stop };
    fit_report report;
    re_status status = re_fit_episode(p, engine, &opt, &report, diag);
    for (size_t i = 0; status == RE_OK && i < report.count && limit->left_out; i++)
        limit->left_out(context, sources->script_path, report.lines[i]);
    re_fit_report_free(&report);
    return status;
}

re_status re_explain(const re_episode_sources *sources, const re_explain_limit *limit,
                     volatile sig_atomic_t *stop, re_explain_callback each, void *context,
                     re_diagnostics *diag)
{
    re_prepared p;
    re_engine *engine = NULL;
    re_status status = re_prepare(sources, &p, diag);
    if (status == RE_OK) {
        size_t from = diag->count;
        status = re_engine_create(stop, &engine, diag);
        if (status != RE_OK)
            status = place_at(diag, status, from, sources->script_path, NULL);
    }
    if (status == RE_OK)
        status = re_prepared_check_engine(&p, engine, diag);
    if (status == RE_OK && limit && limit->max_us)
        status = fit_limit(&p, engine, limit, sources, stop, context, diag);
    for (size_t i = 0; status == RE_OK && i < p.episode->item_count; i++) {
        const re_item *item = &p.episode->items[i];
        if (item->kind == RE_ITEM_SPEECH)
            status = explain_item(&p, engine, item, each, context, diag);
        if (status == RE_OK && stop && *stop)
            status = RE_ERR_INTERRUPTED;
    }
    re_engine_free(engine);
    re_prepared_free(&p);
    return status;
}
