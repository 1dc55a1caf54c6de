/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prepare.c - an episode's inputs, loaded and checked (see prepare.h). */
#define _GNU_SOURCE
#include "prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "files.h"
#include "sentences.h"
#include "writing.h"

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

/* Appends item to items (grown), 0 when out of memory (then the item's strings are freed). */
static int append_item(re_item **items, size_t *count, size_t *capacity, re_item item)
{
    if (re_array_grow(items, capacity, *count, sizeof **items) != RE_OK) {
        free(item.text);
        free(item.language);
        free(item.units);
        return 0;
    }
    (*items)[(*count)++] = item;
    return 1;
}

/* Between two pieces of one paragraph in different voices (a [lang] span or another writing
 * system), the silence the engine would make there: its comma pause (about 160 ms at the
 * default rate: docs/design.md, "The speech engine"), or the profile's sentence pause after a
 * sentence's end. Each piece is spoken anew and its own silences at both ends are trimmed,
 * so without it the words would touch. */
#define RE_PIECE_GAP_MS 160

/* append_item, with the gap before a SPEECH piece that follows another directly. */
static int add_item(const re_prepared *p, re_item **items, size_t *count, size_t *capacity,
                    re_item item)
{
    const re_item *last = *count ? &(*items)[*count - 1] : NULL;
    if (item.kind == RE_ITEM_SPEECH && last && last->kind == RE_ITEM_SPEECH) {
        const re_voice_profile *profile = re_prepared_profile(p, last->voice);
        unsigned ms = profile && re_ends_sentence(last->text, item.text) ? (unsigned)profile->sentence_pause_ms
                                                           : RE_PIECE_GAP_MS;
        re_item gap = { RE_ITEM_PAUSE, item.line, item.col, NULL, NULL, (uint64_t)ms * 1000,
                        NULL, NULL, 0 };
        if (ms > 0 && !append_item(items, count, capacity, gap)) {
            free(item.text);
            free(item.language);
            free(item.units);
            return 0;
        }
    }
    return append_item(items, count, capacity, item);
}

/* The Markdown blocks (script.h, re_item_unit) of the piece item->text[from, to): those that
 * start in it, after the one it starts in when none starts at `from` (it goes on with it).
 * 0 when out of memory; *units NULL for an item without blocks. */
static int slice_units(const re_item *item, size_t from, size_t to, re_item_unit **units,
                       size_t *count)
{
    *units = NULL;
    *count = 0;
    if (!item->unit_count)
        return 1;
    size_t first = 0;
    while (first + 1 < item->unit_count && item->units[first + 1].offset <= from)
        first++;
    *units = malloc(item->unit_count * sizeof **units);
    if (!*units)
        return 0;
    for (size_t k = first; k < item->unit_count && (k == first || item->units[k].offset < to);
         k++) {
        re_item_unit u = item->units[k];
        if (k == first) {
            u.cont |= u.offset < from;
            u.offset = 0;
        } else {
            u.offset -= from;
        }
        (*units)[(*count)++] = u;
    }
    return 1;
}

/* The pieces of a SPEECH item: its text cut where the writing system changes to one its
 * voice does not read (writing.h), each in a voice that does; text no voice reads is left
 * out with a warning at the item. 0 when out of memory. */
static int split_item(const re_prepared *p, const re_voice_profile *profile, re_item *item,
                      re_item **items, size_t *count, size_t *capacity, re_diagnostics *diag)
{
    re_writing_run runs[RE_WRITING_MAX_RUNS];
    size_t run_count;
    re_writing_runs(item->text, re_voice_profile_language(profile), runs, &run_count);
    if (run_count == 1 && !runs[0].voice)   /* all in the voice's own writing */
        return add_item(p, items, count, capacity, *item);
    int ok = 1;
    for (size_t r = 0; r < run_count && ok; r++) {
        const char *s = item->text + runs[r].offset;
        size_t len = runs[r].length;
        while (len && s[0] == ' ')
            s++, len--;
        while (len && s[len - 1] == ' ')
            len--;
        if (len == 0)
            continue;
        unsigned line, col;   /* the piece's own place, for its messages */
        re_script_locate(p->script_bytes, p->script_len, item, (size_t)(s - item->text), &line,
                         &col);
        if (runs[r].voice && strcmp(runs[r].voice, RE_WRITING_NO_VOICE) == 0) {
            char quoted[64];
            size_t cut = len < 40 ? len : 40;
            while (cut > 0 && cut < len && ((unsigned char)s[cut] & 0xC0) == 0x80)
                cut--;   /* whole characters */
            snprintf(quoted, sizeof quoted, "%.*s%s", (int)cut, s, cut < len ? "..." : "");
            ok = re_diag_add(diag, p->episode->file, line, col, "warning: '%s' is "
                             "left out: espeak-ng has no voice for %s text", quoted,
                             runs[r].script) == RE_OK;
            continue;
        }
        re_item piece = *item;
        piece.units = NULL;
        piece.unit_count = 0;
        piece.line = line;
        piece.col = col;
        piece.text = strndup(s, len);
        piece.language = runs[r].voice ? strdup(runs[r].voice) : NULL;
        size_t from = (size_t)(s - item->text);
        ok = piece.text && (piece.language || !runs[r].voice)
             && slice_units(item, from, from + len, &piece.units, &piece.unit_count);
        if (!ok) {
            free(piece.text);
            free(piece.language);
            free(piece.units);
        } else {
            ok = add_item(p, items, count, capacity, piece);
        }
    }
    free(item->text);
    free(item->units);
    return ok;
}

/* Text in another writing system than its voice's is spoken by a voice for it: the SPEECH
 * items outside [lang] spans are split where it changes (writing.h), while the episode stays
 * within its segment limit; a gap goes between pieces that follow each other directly. A
 * paragraph break is kept only after speech, as the parser makes them: one around a
 * paragraph that was all left out would be silence at the start, the end, or twice. */
static re_status split_writing_systems(re_prepared *p, re_diagnostics *diag)
{
    re_episode *ep = p->episode;
    re_item *items = NULL;
    size_t count = 0, capacity = 0, segments = 0;
    for (size_t i = 0; i < ep->item_count; i++)
        segments += ep->items[i].kind == RE_ITEM_SPEECH || ep->items[i].kind == RE_ITEM_PAUSE
                    || ep->items[i].kind == RE_ITEM_SOUND;
    int ok = 1, spoken = 0;   /* spoken: SPEECH kept since the last paragraph break */
    size_t i = 0;
    for (; i < ep->item_count && ok; i++) {
        re_item *item = &ep->items[i];
        const re_voice_profile *profile = item->kind == RE_ITEM_SPEECH && !item->language
                                          ? re_prepared_profile(p, item->voice) : NULL;
        size_t before = count;
        if (item->kind == RE_ITEM_BREAK && !spoken) {
            continue;   /* the paragraph before it was all left out: no pause for it */
        } else if (profile && segments + 2 * RE_WRITING_MAX_RUNS <= RE_SCRIPT_MAX_SEGMENTS) {
            ok = split_item(p, profile, item, &items, &count, &capacity, diag);
            segments += count - before - 1;
        } else {
            ok = add_item(p, &items, &count, &capacity, *item);
        }
        item->text = NULL;   /* moved (or freed) */
        item->language = NULL;
        item->units = NULL;
        if (item->kind == RE_ITEM_BREAK)
            spoken = 0;
        for (size_t k = before; k < count; k++)
            spoken |= items[k].kind == RE_ITEM_SPEECH;
    }
    while (ok && count > 0 && items[count - 1].kind == RE_ITEM_BREAK)
        count--;   /* before a last paragraph that was all left out */
    for (; i < ep->item_count; i++) {   /* after running out of memory: free the rest */
        free(ep->items[i].text);
        free(ep->items[i].language);
        free(ep->items[i].units);
    }
    free(ep->items);
    ep->items = items;
    ep->item_count = count;
    return ok ? RE_OK : RE_ERR_NOMEM;
}

/* The parser gives every heading audio after it; text left out by split_writing_systems may
 * take all of a chapter's: that is an error at the heading, as in the parser (a chapter of
 * no length, or of a paragraph pause, is not one). */
static re_status check_chapters_have_audio(const re_prepared *p, re_diagnostics *diag)
{
    const re_episode *ep = p->episode;
    re_status status = RE_OK;
    for (size_t i = 0; i < ep->item_count; i++) {
        if (ep->items[i].kind != RE_ITEM_CHAPTER)
            continue;
        size_t k = i + 1;
        while (k < ep->item_count && ep->items[k].kind != RE_ITEM_CHAPTER
               && ep->items[k].kind != RE_ITEM_SPEECH && ep->items[k].kind != RE_ITEM_PAUSE
               && ep->items[k].kind != RE_ITEM_SOUND)
            k++;
        if (k < ep->item_count && ep->items[k].kind != RE_ITEM_CHAPTER)
            continue;
        status = re_diag_fail(diag, RE_ERR_INPUT, ep->file, ep->items[i].line, ep->items[i].col,
                              "chapter '%s' has no audio: all its text was left out (no "
                              "espeak-ng voice reads it)", ep->items[i].text);
        if (status == RE_ERR_NOMEM)
            break;
    }
    return status;
}

/* A lexicon's phoneme respellings ([[...]]) are espeak-ng's notation, which flite cannot say:
 * a paragraph spoken by a flite profile that would get one is an error at the word, before
 * anything is spoken (a [lang] span in it is espeak-ng's, and may). */
static re_status check_phonemes_speakable(const re_prepared *p, re_diagnostics *diag)
{
    const re_episode *ep = p->episode;
    re_status status = RE_OK;
    for (size_t i = 0; status == RE_OK && i < ep->item_count; i++) {
        const re_item *item = &ep->items[i];
        const re_voice_profile *profile = item->kind == RE_ITEM_SPEECH && !item->language
                                          ? re_prepared_profile(p, item->voice) : NULL;
        if (!profile || profile->engine != RE_VOICE_FLITE)
            continue;
        re_spoken spoken;
        status = re_prepared_item_spoken(p, item, &spoken);
        if (status == RE_OK && (spoken.text_flags & RE_TEXT_PHONEMES)) {
            const re_spoken_span *span = spoken.spans;
            for (size_t k = 0; k < spoken.span_count; k++)
                if (memmem(spoken.text + spoken.spans[k].spoken_offset,
                           spoken.spans[k].spoken_length, "[[", 2)) {
                    span = &spoken.spans[k];
                    break;
                }
            unsigned line = item->line, col = item->col;
            if (span)
                re_script_locate(p->script_bytes, p->script_len, item, span->text_offset, &line,
                                 &col);
            status = re_diag_fail(diag, RE_ERR_INPUT, ep->file, line, col,
                                  "voice profile '%s' speaks with flite, which cannot say the "
                                  "lexicon's phoneme respelling of '%.*s' ([[...]] is espeak-ng's "
                                  "notation): respell it in words (WORD = words) or speak this "
                                  "paragraph with an espeak-ng profile", profile->name,
                                  span ? (int)span->text_length : 0,
                                  span ? item->text + span->text_offset : "");
        }
        re_spoken_free(&spoken);
    }
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
    if (status == RE_OK)
        status = split_writing_systems(p, diag);
    if (status == RE_OK)
        status = check_chapters_have_audio(p, diag);
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
    status = re_lexicon_build(&lexicon, &p->lexicon, diag);
    if (status == RE_OK)
        status = check_phonemes_speakable(p, diag);
    return status;
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

const re_voice_profile *re_prepared_item_profile(const re_prepared *p, const re_item *item,
                                                 re_voice_profile *scratch,
                                                 char voice_buf[RE_ITEM_VOICE_MAX])
{
    const re_voice_profile *profile = re_prepared_profile(p, item->voice);
    if (!profile || !item->language)
        return profile;
    const char *variant = profile->engine == RE_VOICE_ESPEAK_NG
                          ? strchr(profile->engine_voice, '+') : NULL;
    if (strchr(item->language, '+') || !variant)
        variant = "";
    snprintf(voice_buf, RE_ITEM_VOICE_MAX, "%s%s", item->language, variant);
    *scratch = *profile;
    scratch->engine = RE_VOICE_ESPEAK_NG;   /* espeak-ng speaks every language */
    scratch->engine_voice = voice_buf;
    return scratch;
}

re_status re_prepared_item_spoken(const re_prepared *p, const re_item *item, re_spoken *out)
{
    re_voice_profile scratch;
    char voice[RE_ITEM_VOICE_MAX];
    const re_voice_profile *profile = re_prepared_item_profile(p, item, &scratch, voice);
    return re_normalize_spans_for(p->lexicon, item->text,
                                  profile ? re_voice_profile_language(profile) : NULL, out);
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
    /* Each engine voice of a [lang] span once: at most one per voice profile and language. */
    char (*checked)[RE_ITEM_VOICE_MAX] = NULL;
    size_t checked_count = 0, checked_capacity = 0;
    re_status status = RE_OK;
    for (size_t i = 0; status == RE_OK && i < p->episode->item_count; i++) {
        const re_item *item = &p->episode->items[i];
        re_voice_profile scratch;
        char voice[RE_ITEM_VOICE_MAX];
        if (item->kind != RE_ITEM_SPEECH || !item->language)
            continue;
        const re_voice_profile *profile = re_prepared_item_profile(p, item, &scratch, voice);
        size_t k = 0;
        while (k < checked_count && strcmp(checked[k], voice) != 0)
            k++;
        if (k < checked_count)
            continue;
        status = re_array_grow(&checked, &checked_capacity, checked_count, sizeof *checked);
        if (status != RE_OK)
            break;
        memcpy(checked[checked_count++], voice, sizeof voice);
        size_t from = diag->count;
        status = re_engine_check_voice(engine, profile, diag);
        if (status != RE_OK) {
            re_diag_prefix(diag, from, "[lang %s]: ", item->language);
            re_diag_place(diag, from, p->episode->file, item->line, item->col);
        }
    }
    free(checked);
    return status;
}

void re_prepared_engines(const re_prepared *p, const re_engine *engine, char *out, size_t size)
{
    int used[RE_VOICE_ENGINE_COUNT] = { 0 };
    for (size_t i = 0; i < p->episode->item_count; i++) {
        const re_item *item = &p->episode->items[i];
        re_voice_profile scratch;
        char voice[RE_ITEM_VOICE_MAX];
        const re_voice_profile *profile =
            item->kind == RE_ITEM_SPEECH ? re_prepared_item_profile(p, item, &scratch, voice) : NULL;
        if (profile)
            used[profile->engine] = 1;
    }
    const re_voice_profile *fallback = re_prepared_profile(p, p->episode->voice);
    if (!used[0] && !used[1])
        used[fallback ? fallback->engine : RE_VOICE_ESPEAK_NG] = 1;
    re_voice_profile as = { .engine = RE_VOICE_ESPEAK_NG };
    out[0] = '\0';
    for (int e = 0; e < RE_VOICE_ENGINE_COUNT; e++) {
        if (!used[e])
            continue;
        as.engine = (re_voice_engine)e;
        size_t n = strlen(out);
        snprintf(out + n, size - n, "%s%s", n ? ", " : "", re_engine_name(engine, &as));
    }
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
