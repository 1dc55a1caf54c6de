/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit.c - a Markdown episode cut to --max-duration (see fit.h): its blocks spoken once and
 * measured as the assembler adds them, chosen by re_fit_choose, the episode rebuilt of them. */
#define _GNU_SOURCE
#include "fit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "script.h"
#include "speak.h"

/* A piece of a SPEECH item's text that is one token: one block, or the part of one. */
typedef struct piece {
    size_t item;               /* in the episode */
    size_t start, end;         /* bytes of its text */
    unsigned line, col;
} piece;

/* "And N more ..." of a list, spoken once per N it was measured for. */
typedef struct more_text {
    size_t list, n;
    uint64_t frames;
    int measured;
} more_text;

typedef struct fitter {
    re_prepared *prepared;
    re_engine *engine;
    const fit_options *opt;
    re_diagnostics *diag;
    fit_token *tokens;
    size_t token_count;
    piece *pieces;             /* by token (SPEECH tokens only) */
    fit_choice *choices;
    size_t choice_count;
    const re_item_unit **choice_unit;   /* the block that starts each choice */
    size_t list_count;
    size_t *list_first;        /* by list: its first SPEECH token */
    more_text *mores;
    size_t more_count, more_cap;
    unsigned char *keep;
} fitter;

static const char *const rank_names[RE_RANKS] = {
    "breaking changes", "security", "features", "fixes", "changes", "other notes",
    "dependencies and chores",
};

/* What "And N more ..." calls the items of a list, by its section. */
static const char *more_noun(const fitter *f, size_t list, size_t n)
{
    const re_episode *ep = f->prepared->episode;
    const re_item_unit *u = f->choice_unit[f->tokens[f->list_first[list]].choice];
    const re_md_section *sec = &ep->sections[u->section];
    static const char *const nouns[RE_RANKS][2] = {
        { "breaking change", "breaking changes" }, { "security fix", "security fixes" },
        { "new feature", "new features" }, { "fix", "fixes" }, { "change", "changes" },
        { "item", "items" }, { "chore", "chores" },
    };
    if (sec->title && (strcasestr(sec->title, "depend") || strcasestr(sec->title, "deps")))
        return n == 1 ? "dependency update" : "dependency updates";
    unsigned rank = sec->rank < RE_RANKS ? sec->rank : RE_RANK_OTHER;
    for (size_t c = 0; c < f->choice_count; c++)   /* items ranked otherwise (a bump among
                                                      * features): no name but "items" */
        if (f->choices[c].list == list && !f->choices[c].heading && f->choices[c].rank != rank)
            rank = RE_RANK_OTHER;
    return nouns[rank][n != 1];
}

static char *more_sentence(const fitter *f, size_t list, size_t n)
{
    char *text = NULL;
    if (asprintf(&text, "And %zu more %s.", n, more_noun(f, list, n)) < 0)
        return NULL;
    return text;
}

static uint64_t us_frames(uint64_t us, unsigned rate)
{
    return re_us_to_frames(us, rate);
}

static const re_voice_profile *profile_of(const fitter *f, const char *voice)
{
    return re_prepared_profile(f->prepared, voice);
}

/* ---- the episode as tokens --------------------------------------------------------------- */

static int add_token(fitter *f, size_t *cap, fit_token t, piece pc)
{
    if (f->token_count == *cap) {
        size_t want = *cap ? *cap * 2 : 64;
        fit_token *tokens = realloc(f->tokens, want * sizeof *tokens);
        if (tokens)
            f->tokens = tokens;
        piece *pieces = realloc(f->pieces, want * sizeof *pieces);
        if (pieces)
            f->pieces = pieces;
        if (!tokens || !pieces)
            return 0;
        *cap = want;
    }
    f->pieces[f->token_count] = pc;
    f->tokens[f->token_count++] = t;
    return 1;
}

static int add_choice(fitter *f, size_t *cap, const re_item_unit *u)
{
    if (f->choice_count == *cap) {
        size_t want = *cap ? *cap * 2 : 64;
        fit_choice *choices = realloc(f->choices, want * sizeof *choices);
        if (choices)
            f->choices = choices;
        const re_item_unit **units = realloc(f->choice_unit, want * sizeof *units);
        if (units)
            f->choice_unit = units;
        if (!choices || !units)
            return 0;
        *cap = want;
    }
    const re_episode *ep = f->prepared->episode;
    unsigned section = u->section < ep->section_count ? u->section : 0;
    f->choices[f->choice_count] = (fit_choice){ u->rank, ep->sections[section].release,
                                                u->heading, section, u->list, u->items };
    f->choice_unit[f->choice_count++] = u;
    if (u->list + 1 > f->list_count)
        f->list_count = u->list + 1;
    return 1;
}

static size_t trimmed(const char *text, size_t *start, size_t end)
{
    while (*start < end && text[*start] == ' ')
        (*start)++;
    while (end > *start && text[end - 1] == ' ')
        end--;
    return end;
}

static re_status tokenize(fitter *f)
{
    const re_episode *ep = f->prepared->episode;
    unsigned rate = f->opt->rate;
    size_t token_cap = 0, choice_cap = 0;
    static const re_item_unit whole = { 0, 0, 0, RE_RANK_OTHER, 0, 0, 0, 0, 1 };
    for (size_t i = 0; i < ep->item_count; i++) {
        const re_item *item = &ep->items[i];
        piece none = { i, 0, 0, item->line, item->col };
        int ok = 1;
        if (item->kind == RE_ITEM_SPEECH) {
            const re_voice_profile *profile = profile_of(f, item->voice);
            uint64_t sentence = us_frames((uint64_t)profile->sentence_pause_ms * 1000, rate);
            size_t units = item->unit_count ? item->unit_count : 1;
            for (size_t k = 0; k < units && ok; k++) {
                const re_item_unit *u = item->unit_count ? &item->units[k] : &whole;
                size_t start = u->offset, end = k + 1 < units ? item->units[k + 1].offset
                                                              : strlen(item->text);
                end = trimmed(item->text, &start, end);
                int starts = !u->cont || f->choice_count == 0;
                if (starts)
                    ok = add_choice(f, &choice_cap, u);
                if (ok && end > start)
                    ok = add_token(f, &token_cap, (fit_token){ FIT_SPEECH, f->choice_count - 1,
                                                               0, starts, sentence },
                                   (piece){ i, start, end, u->line && !u->cont ? u->line
                                                                               : item->line,
                                            u->line && !u->cont ? u->col : item->col });
            }
        } else if (item->kind == RE_ITEM_PAUSE) {
            if (f->choice_count == 0)
                ok = add_choice(f, &choice_cap, &whole);
            ok = ok && add_token(f, &token_cap, (fit_token){ FIT_PAUSE, f->choice_count - 1,
                                                             us_frames(item->pause_us, rate),
                                                             0, 0 }, none);
        } else if (item->kind == RE_ITEM_BREAK) {
            const re_voice_profile *profile = profile_of(f, item->voice);
            ok = add_token(f, &token_cap, (fit_token){ FIT_BREAK, 0,
                   us_frames((uint64_t)profile->paragraph_pause_ms * 1000, rate), 0, 0 }, none);
        } else if (item->kind == RE_ITEM_CHAPTER) {
            ok = add_token(f, &token_cap, (fit_token){ FIT_CHAPTER, 0, 0, 0, 0 }, none);
        }
        if (!ok)
            return RE_ERR_NOMEM;
    }
    f->list_first = calloc(f->list_count ? f->list_count : 1, sizeof *f->list_first);
    if (!f->list_first)
        return RE_ERR_NOMEM;
    for (size_t t = f->token_count; t-- > 0;)
        if (f->tokens[t].kind == FIT_SPEECH)
            f->list_first[f->choices[f->tokens[t].choice].list] = t;
    return RE_OK;
}

/* ---- measuring ---------------------------------------------------------------------------- */

/* Speaks texts[0..n) (each in the voice of item `like[k]`) and sets frames[k] to the samples
 * the assembler adds for it, as the render will. */
static re_status measure(fitter *f, char **texts, const size_t *like, size_t n,
                         uint64_t *frames)
{
    if (n == 0)
        return RE_OK;
    const re_episode *ep = f->prepared->episode;
    re_episode probe = *ep;
    probe.items = calloc(n, sizeof *probe.items);
    if (!probe.items)
        return RE_ERR_NOMEM;
    probe.item_count = n;
    for (size_t k = 0; k < n; k++) {
        probe.items[k] = ep->items[like[k]];
        probe.items[k].text = texts[k];
        probe.items[k].units = NULL;
        probe.items[k].unit_count = 0;
    }
    re_prepared view = *f->prepared;
    view.episode = &probe;
    speech_plan plan = {
        .prepared = &view, .engine = f->engine, .script_path = f->opt->script_path,
        .cache_dir = f->opt->cache_dir, .jobs = f->opt->jobs ? f->opt->jobs : 1,
        .timeout_ms = f->opt->timeout_ms,
    };
    speech_scheduler *s = NULL;
    re_assembler *a = NULL;
    re_status status = re_speech_scheduler_create(&plan, &s, f->diag);
    if (status == RE_OK)
        status = re_assembler_create(f->opt->rate, &a, f->diag);
    for (size_t k = 0; status == RE_OK && k < n; k++) {
        re_speech speech;
        status = re_speech_scheduler_next(s, k, &speech, f->diag);
        if (status != RE_OK)
            break;
        uint64_t before = re_assembler_frames(a);
        const re_voice_profile *profile = profile_of(f, probe.items[k].voice);
        status = re_assembler_add_speech(a, &speech, (unsigned)profile->sentence_pause_ms,
                                         f->diag);
        frames[k] = re_assembler_frames(a) - before;
        re_speech_free(&speech);
        re_assembler_forget_timeline(a);
        re_speech_scheduler_done(s, k);
        if (status == RE_OK && f->opt->stop && *f->opt->stop)
            status = RE_ERR_INTERRUPTED;
    }
    re_assembler_free(a);
    re_speech_scheduler_free(s);
    free(probe.items);
    return status;
}

static re_status measure_pieces(fitter *f)
{
    const re_episode *ep = f->prepared->episode;
    size_t n = 0;
    for (size_t t = 0; t < f->token_count; t++)
        n += f->tokens[t].kind == FIT_SPEECH;
    char **texts = calloc(n ? n : 1, sizeof *texts);
    size_t *like = calloc(n ? n : 1, sizeof *like);
    uint64_t *frames = calloc(n ? n : 1, sizeof *frames);
    re_status status = texts && like && frames ? RE_OK : RE_ERR_NOMEM;
    size_t k = 0;
    for (size_t t = 0; status == RE_OK && t < f->token_count; t++) {
        if (f->tokens[t].kind != FIT_SPEECH)
            continue;
        const piece *pc = &f->pieces[t];
        texts[k] = strndup(ep->items[pc->item].text + pc->start, pc->end - pc->start);
        like[k] = pc->item;
        if (!texts[k++])
            status = RE_ERR_NOMEM;
    }
    if (status == RE_OK)
        status = measure(f, texts, like, n, frames);
    k = 0;
    for (size_t t = 0; status == RE_OK && t < f->token_count; t++)
        if (f->tokens[t].kind == FIT_SPEECH)
            f->tokens[t].frames = frames[k++];
    for (size_t i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
    free(like);
    free(frames);
    return status;
}

static more_text *find_more(const fitter *f, size_t list, size_t n)
{
    for (size_t k = 0; k < f->more_count; k++)
        if (f->mores[k].list == list && f->mores[k].n == n)
            return &f->mores[k];
    return NULL;
}

/* The samples of "And N more ...": measured, or until it is, a generous guess from the
 * longest measured for the list (a guess too short is found when the choice is checked). */
static uint64_t more_frames(void *context, size_t list, size_t n)
{
    fitter *f = context;
    const more_text *m = find_more(f, list, n);
    if (m && m->measured)
        return m->frames;
    uint64_t longest = 0;
    for (size_t k = 0; k < f->more_count; k++)
        if (f->mores[k].list == list && f->mores[k].measured && f->mores[k].frames > longest)
            longest = f->mores[k].frames;
    if (!m && re_array_grow(&f->mores, &f->more_cap, f->more_count, sizeof *f->mores) == RE_OK)
        f->mores[f->more_count++] = (more_text){ list, n, 0, 0 };
    return longest + longest / 2 + us_frames(500000, f->opt->rate);
}

/* Speaks every "And N more ..." asked for and not yet measured. */
static re_status measure_mores(fitter *f, int *measured_any)
{
    size_t n = 0;
    *measured_any = 0;
    for (size_t k = 0; k < f->more_count; k++)
        n += !f->mores[k].measured;
    if (n == 0)
        return RE_OK;
    char **texts = calloc(n, sizeof *texts);
    size_t *like = calloc(n, sizeof *like), *which = calloc(n, sizeof *which);
    uint64_t *frames = calloc(n, sizeof *frames);
    re_status status = texts && like && which && frames ? RE_OK : RE_ERR_NOMEM;
    size_t j = 0;
    for (size_t k = 0; status == RE_OK && k < f->more_count; k++) {
        if (f->mores[k].measured)
            continue;
        which[j] = k;
        like[j] = f->pieces[f->list_first[f->mores[k].list]].item;
        texts[j] = more_sentence(f, f->mores[k].list, f->mores[k].n);
        if (!texts[j++])
            status = RE_ERR_NOMEM;
    }
    if (status == RE_OK)
        status = measure(f, texts, like, n, frames);
    for (j = 0; status == RE_OK && j < n; j++) {
        f->mores[which[j]].frames = frames[j];
        f->mores[which[j]].measured = 1;
        *measured_any = 1;
    }
    for (j = 0; texts && j < n; j++)
        free(texts[j]);
    free(texts);
    free(like);
    free(which);
    free(frames);
    return status;
}

/* ---- the kept episode --------------------------------------------------------------------- */

typedef struct rebuild {
    fitter *f;
    re_item *items;
    size_t count, capacity;
    int nomem;
} rebuild;

static void push(rebuild *b, re_item item)
{
    if (b->nomem || re_array_grow(&b->items, &b->capacity, b->count, sizeof *b->items) != RE_OK) {
        free(item.text);
        free(item.language);
        b->nomem = 1;
        return;
    }
    b->items[b->count++] = item;
}

static void rebuild_step(void *context, const fit_step *step)
{
    rebuild *b = context;
    fitter *f = b->f;
    const re_episode *ep = f->prepared->episode;
    if (b->nomem)
        return;
    if (step->kind == FIT_STEP_MORE) {
        const piece *pc = &f->pieces[f->list_first[step->index]];
        const re_item *like = &ep->items[pc->item];
        re_item item = { RE_ITEM_SPEECH, pc->line, pc->col, more_sentence(f, step->index,
                         step->count), like->voice, 0, NULL, NULL, 0 };
        if (!item.text || (like->language && !(item.language = strdup(like->language))))
            b->nomem = 1;
        push(b, item);
        return;
    }
    const piece *pc = &f->pieces[step->index];
    const re_item *from = &ep->items[pc->item];
    if (step->kind == FIT_STEP_SENTENCE_PAUSE) {
        const re_voice_profile *profile = profile_of(f, from->voice);
        push(b, (re_item){ RE_ITEM_PAUSE, pc->line, pc->col, NULL, NULL,
                           (uint64_t)profile->sentence_pause_ms * 1000, NULL, NULL, 0 });
        return;
    }
    re_item item = *from;
    item.units = NULL;
    item.unit_count = 0;
    item.text = NULL;
    item.language = NULL;
    if (from->kind == RE_ITEM_SPEECH) {
        item.line = pc->line;
        item.col = pc->col;
        item.text = strndup(from->text + pc->start, pc->end - pc->start);
    } else if (from->text) {
        item.text = strdup(from->text);
    }
    if ((from->text && !item.text) || (from->language && !(item.language = strdup(from->language))))
        b->nomem = 1;
    push(b, item);
}

/* The episode's items become the kept ones. */
static re_status replace_items(fitter *f)
{
    rebuild b = { f, NULL, 0, 0, 0 };
    fit_problem pb = { f->tokens, f->token_count, f->choices, f->choice_count, more_frames, f };
    re_fit_walk(&pb, f->keep, rebuild_step, &b);
    re_episode *ep = f->prepared->episode;
    if (b.nomem) {
        for (size_t i = 0; i < b.count; i++) {
            free(b.items[i].text);
            free(b.items[i].language);
        }
        free(b.items);
        return RE_ERR_NOMEM;
    }
    for (size_t i = 0; i < ep->item_count; i++) {
        free(ep->items[i].text);
        free(ep->items[i].language);
        free(ep->items[i].units);
    }
    free(ep->items);
    ep->items = b.items;
    ep->item_count = b.count;
    return RE_OK;
}

/* ---- what was left out -------------------------------------------------------------------- */

static int add_line(fit_report *r, char *line)
{
    char **lines = line ? realloc(r->lines, (r->count + 1) * sizeof *lines) : NULL;
    if (!lines) {
        free(line);
        return 0;
    }
    r->lines = lines;
    r->lines[r->count++] = line;
    return 1;
}

static re_status report_left_out(const fitter *f, fit_report *r)
{
    const re_episode *ep = f->prepared->episode;
    for (size_t c = 0; c < f->choice_count; c++) {
        const fit_choice *ch = &f->choices[c];
        if (ch->heading)
            continue;
        r->blocks++;
        r->blocks_out += !f->keep[c];
    }
    for (size_t c = 0; c < f->choice_count; c++) {
        const fit_choice *ch = &f->choices[c];
        if (ch->heading || f->keep[c])
            continue;
        size_t n = 1;
        if (ch->list) {   /* a list's items left out: once, at the first */
            int first = 1;
            for (size_t d = 0; d < c && first; d++)
                first = !(f->choices[d].list == ch->list && !f->choices[d].heading && !f->keep[d]);
            if (!first)
                continue;
            n = 0;
            for (size_t d = c; d < f->choice_count; d++)
                if (f->choices[d].list == ch->list && !f->choices[d].heading && !f->keep[d])
                    n += f->choices[d].items > 1 ? f->choices[d].items : 1;
        }
        const re_md_section *sec = &ep->sections[ch->section];
        const re_md_section *rel = ch->release ? &ep->sections[ch->release] : NULL;
        const re_item_unit *u = f->choice_unit[c];
        char what[64];
        if (ch->list)
            snprintf(what, sizeof what, "%zu list item%s", n, n == 1 ? "" : "s");
        else
            snprintf(what, sizeof what, "the paragraph at line %u", u->line);
        char *line = NULL;
        if (asprintf(&line, "left out for --max-duration %s: %s%s%s%s%s%s%s (rank %u of %u, %s: "
                     "no time was left for %s)",
                     f->opt->max_text, what, sec->title ? " of '" : "", sec->title ? sec->title : "",
                     sec->title ? "'" : "", rel && rel != sec ? " in '" : "",
                     rel && rel != sec ? rel->title : "", rel && rel != sec ? "'" : "",
                     ch->rank + 1, (unsigned)RE_RANKS,
                     rank_names[ch->rank < RE_RANKS ? ch->rank : RE_RANK_OTHER],
                     n == 1 ? "it" : "them") < 0)
            line = NULL;
        if (!add_line(r, line))
            return RE_ERR_NOMEM;
    }
    return RE_OK;
}

void re_fit_report_free(fit_report *report)
{
    for (size_t i = 0; i < report->count; i++)
        free(report->lines[i]);
    free(report->lines);
    memset(report, 0, sizeof *report);
}

/* ---- the whole ---------------------------------------------------------------------------- */

uint64_t re_fit_budget(uint64_t max_us, unsigned rate, unsigned reserve)
{
    uint64_t frames = (uint64_t)((unsigned __int128)max_us * rate / 1000000u);
    return frames > reserve ? frames - reserve : 0;
}

static re_status refuse(const fitter *f, const char *why)
{
    return re_diag_fail(f->diag, RE_ERR_INPUT, f->opt->script_path, 0, 0,
                        "--max-duration %s: %s", f->opt->max_text, why);
}

static re_status check_episode(const fitter *f)
{
    const re_episode *ep = f->prepared->episode;
    if (!ep->sections)
        return refuse(f, "only a Markdown document (release notes) can be shortened; a .txt "
                      "script is spoken as written, so there is nothing it may leave out "
                      "(shorten the script instead)");
    int sounds = ep->intro || ep->outro;
    for (size_t i = 0; i < ep->item_count && !sounds; i++)
        sounds = ep->items[i].kind == RE_ITEM_SOUND;
    if (sounds)
        return refuse(f, "a document that plays sound files (intro:, outro:, [sound]) cannot "
                      "be shortened to fit");
    return RE_OK;
}

static void fitter_free(fitter *f)
{
    free(f->tokens);
    free(f->pieces);
    free(f->choices);
    free(f->choice_unit);
    free(f->list_first);
    free(f->mores);
    free(f->keep);
}

/* Chooses with the "And N more ..." measured as they are asked for, until the choice holds
 * with every one of them measured. */
static re_status choose(fitter *f, uint64_t budget, uint64_t *total)
{
    fit_problem pb = { f->tokens, f->token_count, f->choices, f->choice_count, more_frames, f };
    re_status status = RE_OK;
    for (;;) {
        *total = re_fit_choose(&pb, budget, f->keep, &status);
        if (status != RE_OK)
            return status;
        re_fit_walk(&pb, f->keep, NULL, NULL);   /* asks for every "And N more" of the choice */
        int measured = 0;
        status = measure_mores(f, &measured);
        if (status != RE_OK || !measured)
            return status;
        *total = re_fit_walk(&pb, f->keep, NULL, NULL);
        if (*total <= budget)
            return RE_OK;
    }
}

re_status re_fit_episode(re_prepared *prepared, re_engine *engine, const fit_options *opt,
                         fit_report *report, re_diagnostics *diag)
{
    fitter f = { .prepared = prepared, .engine = engine, .opt = opt, .diag = diag };
    memset(report, 0, sizeof *report);
    re_status status = check_episode(&f);
    if (status == RE_OK)
        status = tokenize(&f);
    if (status == RE_OK && f.token_count > FIT_MAX_BLOCKS) {
        char why[160];
        snprintf(why, sizeof why, "the document has %zu blocks and pauses (paragraphs, list "
                 "items, tables); at most %u can be measured and chosen from", f.token_count,
                 FIT_MAX_BLOCKS);
        status = refuse(&f, why);
    }
    if (status == RE_OK)
        status = measure_pieces(&f);
    if (status == RE_OK && !(f.keep = calloc(f.choice_count ? f.choice_count : 1, 1)))
        status = RE_ERR_NOMEM;
    uint64_t budget = re_fit_budget(opt->max_us, opt->rate, opt->reserve);
    uint64_t total = 0;
    if (status == RE_OK)
        status = choose(&f, budget, &total);
    int all = 1;
    for (size_t c = 0; status == RE_OK && c < f.choice_count; c++)
        all &= f.keep[c];
    if (status == RE_OK && total == 0)
        status = refuse(&f, "no block of the document fits in it, even alone with its headings");
    if (status == RE_OK && !all) {
        status = report_left_out(&f, report);
        if (status == RE_OK)
            status = replace_items(&f);
    }
    report->frames = total;
    fitter_free(&f);
    return status;
}
