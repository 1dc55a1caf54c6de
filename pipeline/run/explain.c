/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explain.c - script -> profiles -> lexicon -> normalize -> engine phonemes (see explain.h). */
#include "explain.h"

#include <stdio.h>
#include <stdlib.h>

#include "normalize.h"
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

re_status re_explain(const re_episode_sources *sources, volatile sig_atomic_t *stop,
                     re_explain_callback each, void *context, re_diagnostics *diag)
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
