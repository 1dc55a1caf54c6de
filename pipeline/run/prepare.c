/* prepare.c - an episode's inputs, loaded and checked (see prepare.h). */
#include "prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"

static re_status open_voice_set(const re_episode_sources *src, re_prepared *p)
{
    re_status status = re_voice_set_create(&p->voices);
    for (size_t i = 0; status == RE_OK && i < src->voice_dir_count; i++)
        status = re_voice_set_add_dir(p->voices, src->voice_dirs[i]);
    return status;
}

static re_status resolve_profiles(const re_episode_sources *src, re_prepared *p,
                                  re_diagnostics *diag)
{
    re_status status = open_voice_set(src, p);
    if (status == RE_OK)
        status = re_episode_check_voices(p->episode, p->voices, diag);
    if (status != RE_OK)
        return status;
    size_t count = p->episode->voice_count;
    p->profiles = calloc(count ? count : 1, sizeof *p->profiles);
    if (!p->profiles)
        return RE_ERR_NOMEM;
    for (size_t i = 0; status == RE_OK && i < count; i++)
        status = re_voice_set_get(p->voices, p->episode->voices[i], &p->profiles[i], diag);
    return status;
}

re_status re_prepare(const re_episode_sources *src, re_prepared *p, re_diagnostics *diag)
{
    memset(p, 0, sizeof *p);
    re_status status = re_file_read(src->script_path, src->max_script_size, RE_READ_ANY,
                                    &p->script_bytes, &p->script_len, diag);
    if (status == RE_OK)
        status = re_script_parse_partial(src->script_path, p->script_bytes, p->script_len,
                                         &p->episode, diag);
    if (status == RE_ERR_INPUT && p->episode) {
        /* the profiles it names are reported with the parse errors, not in the next run */
        re_status voices = open_voice_set(src, p);
        if (voices == RE_OK)
            voices = re_episode_check_voices(p->episode, p->voices, diag);
        re_episode_free(p->episode);
        p->episode = NULL;
        return voices == RE_ERR_NOMEM ? voices : status;
    }
    if (status == RE_OK)
        status = resolve_profiles(src, p, diag);
    if (status != RE_OK)
        return status;
    const re_episode *ep = p->episode;
    re_lexicon_sources lexicon = {
        .dirs = src->voice_dirs, .dir_count = src->voice_dir_count,
        .no_default = src->no_default_lexicon, .script_path = src->script_path,
        .front_matter = ep->lexicon, .front_matter_line = ep->lexicon_line,
        .front_matter_col = ep->lexicon_col,
        .paths = src->lexicon_paths, .path_count = src->lexicon_path_count,
        .allowed_dirs = src->allowed_dirs, .allowed_dir_count = src->allowed_dir_count,
    };
    return re_lexicon_build(&lexicon, &p->lexicon, diag);
}

const re_voice_profile *re_prepared_profile(const re_prepared *p, const char *voice)
{
    for (size_t i = 0; i < p->episode->voice_count; i++)
        if (strcmp(p->episode->voices[i], voice) == 0)
            return p->profiles[i];
    return NULL;
}

/* The first item that speaks with `voice`, to point an engine error at. */
static const re_item *first_use(const re_episode *ep, const char *voice)
{
    for (size_t i = 0; i < ep->item_count; i++)
        if (ep->items[i].kind == RE_ITEM_SPEECH && strcmp(ep->items[i].voice, voice) == 0)
            return &ep->items[i];
    return NULL;
}

re_status re_prepared_check_engine(const re_prepared *p, re_engine *engine, re_diagnostics *diag)
{
    for (size_t i = 0; i < p->episode->voice_count; i++) {
        size_t from = diag->count;
        re_status status = re_engine_check_voice(engine, p->profiles[i], diag);
        if (status != RE_OK) {
            const re_item *item = first_use(p->episode, p->profiles[i]->name);
            re_diag_prefix(diag, from, "voice profile '%s': ", p->profiles[i]->name);
            re_diag_place(diag, from, p->episode->file, item ? item->line : 0,
                          item ? item->col : 0);
            return status;
        }
    }
    return RE_OK;
}

void re_prepared_free(re_prepared *p)
{
    if (!p)
        return;
    re_lexicon_free(p->lexicon);
    free(p->profiles);
    re_voice_set_free(p->voices);
    re_episode_free(p->episode);
    free(p->script_bytes);
    memset(p, 0, sizeof *p);
}
