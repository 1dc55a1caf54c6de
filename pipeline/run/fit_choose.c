/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_choose.c - which blocks of a Markdown episode fit --max-duration (see fit.h): the walk
 * that says what a choice of blocks is made of, and the greedy choice. Pure: no I/O. */
#include "fit.h"

#include <stdlib.h>

#define NONE SIZE_MAX

/* Per walk: which sections, releases and lists have content kept. */
typedef struct tally {
    size_t sections, lists;          /* array sizes */
    unsigned char *section_kept;     /* by section and by release (a release is a section) */
    size_t *list_kept, *list_total;
    size_t *list_last;               /* by list: its last SPEECH token */
} tally;

typedef struct walker {
    const fit_problem *pb;
    const unsigned char *keep;
    const tally *tl;
    fit_visit visit;
    void *context;
    uint64_t total;
    int last_speech;                 /* the last step in this paragraph was speech */
    int since_break;                 /* something was kept since the last paragraph break */
    size_t pending_break, pending_chapter, list, last_speech_token;
} walker;

static int tally_init(tally *tl, const fit_problem *pb)
{
    tl->sections = 1;
    tl->lists = 1;
    for (size_t c = 0; c < pb->choice_count; c++) {
        const fit_choice *ch = &pb->choices[c];
        if (ch->section + 1 > tl->sections)
            tl->sections = ch->section + 1;
        if (ch->release + 1 > tl->sections)
            tl->sections = ch->release + 1;
        if (ch->list + 1 > tl->lists)
            tl->lists = ch->list + 1;
    }
    tl->section_kept = calloc(tl->sections, 1);
    tl->list_kept = calloc(tl->lists, sizeof *tl->list_kept);
    tl->list_total = calloc(tl->lists, sizeof *tl->list_total);
    tl->list_last = calloc(tl->lists, sizeof *tl->list_last);
    if (!tl->section_kept || !tl->list_kept || !tl->list_total || !tl->list_last)
        return 0;
    for (size_t i = 0; i < pb->token_count; i++)
        if (pb->tokens[i].kind == FIT_SPEECH)
            tl->list_last[pb->choices[pb->tokens[i].choice].list] = i;
    return 1;
}

static void tally_free(tally *tl)
{
    free(tl->section_kept);
    free(tl->list_kept);
    free(tl->list_total);
    free(tl->list_last);
}

static void tally_count(tally *tl, const fit_problem *pb, const unsigned char *keep)
{
    for (size_t s = 0; s < tl->sections; s++)
        tl->section_kept[s] = 0;
    for (size_t l = 0; l < tl->lists; l++)
        tl->list_kept[l] = tl->list_total[l] = 0;
    for (size_t c = 0; c < pb->choice_count; c++) {
        const fit_choice *ch = &pb->choices[c];
        if (ch->heading)
            continue;
        size_t items = ch->items > 1 ? ch->items : 1;   /* a run said together counts whole */
        tl->list_total[ch->list] += items;
        if (!keep[c])
            continue;
        tl->list_kept[ch->list] += items;
        tl->section_kept[ch->section] |= 1;
        tl->section_kept[ch->release] |= 2;   /* something kept in the release */
    }
}

/* A heading is kept with something kept under it. */
static int kept(const walker *w, size_t c)
{
    const fit_choice *ch = &w->pb->choices[c];
    if (ch->heading == 1)
        return w->tl->section_kept[ch->section] & 1;
    if (ch->heading == 2)
        return (w->tl->section_kept[ch->release] & 2) != 0;
    return w->keep[c];
}

static void step(walker *w, fit_step_kind kind, size_t index, uint64_t frames, size_t count)
{
    w->total += frames;
    if (w->visit) {
        fit_step s = { kind, index, frames, count };
        w->visit(w->context, &s);
    }
}

static void emit_pending(walker *w)
{
    if (w->pending_break != NONE)
        step(w, FIT_STEP_TOKEN, w->pending_break, w->pb->tokens[w->pending_break].frames, 0);
    if (w->pending_chapter != NONE)
        step(w, FIT_STEP_TOKEN, w->pending_chapter, 0, 0);
    w->pending_break = w->pending_chapter = NONE;
}

/* Leaving list w->list at token `at`: after its last item, "And N more ..." when it lost
 * some items but not all (a long list may be cut into paragraphs: not at those breaks). */
static void end_list(walker *w, size_t at)
{
    size_t l = w->list;
    w->list = 0;
    if (l == 0 || at <= w->tl->list_last[l] || w->tl->list_kept[l] == 0
        || w->tl->list_kept[l] == w->tl->list_total[l])
        return;
    if (w->pending_break != NONE)   /* the pause after the last item kept (its own paragraph) */
        emit_pending(w);
    else if (w->last_speech)
        step(w, FIT_STEP_SENTENCE_PAUSE, w->last_speech_token,
             w->pb->tokens[w->last_speech_token].sentence_pause, 0);
    size_t n = w->tl->list_total[l] - w->tl->list_kept[l];
    step(w, FIT_STEP_MORE, l, w->pb->more(w->pb->more_context, l, n), n);
    w->last_speech = 1;
    w->since_break = 1;   /* the break after the list ends it as a paragraph */
}

static uint64_t walk(const fit_problem *pb, const unsigned char *keep, const tally *tl,
                     fit_visit visit, void *context)
{
    walker w = { pb, keep, tl, visit, context, 0, 0, 0, NONE, NONE, 0, 0 };
    for (size_t i = 0; i < pb->token_count; i++) {
        const fit_token *t = &pb->tokens[i];
        switch (t->kind) {
        case FIT_SPEECH:
        case FIT_PAUSE:
            if (t->kind == FIT_SPEECH && pb->choices[t->choice].list != w.list) {
                end_list(&w, i);
                w.list = pb->choices[t->choice].list;
            }
            if (!kept(&w, t->choice))
                break;
            emit_pending(&w);
            if (t->kind == FIT_SPEECH && t->starts_choice && w.last_speech)
                step(&w, FIT_STEP_SENTENCE_PAUSE, i, t->sentence_pause, 0);
            step(&w, FIT_STEP_TOKEN, i, t->frames, 0);
            w.last_speech = t->kind == FIT_SPEECH;
            if (w.last_speech)
                w.last_speech_token = i;
            w.since_break = 1;
            break;
        case FIT_BREAK:
            end_list(&w, i);
            if (w.since_break)
                w.pending_break = i;
            w.since_break = 0;
            w.last_speech = 0;
            break;
        case FIT_CHAPTER:
            end_list(&w, i);
            w.pending_chapter = i;   /* one still waiting had nothing kept: it goes */
            w.last_speech = 0;
            break;
        }
    }
    end_list(&w, pb->token_count);
    return w.total;
}

uint64_t re_fit_walk(const fit_problem *problem, const unsigned char *keep, fit_visit visit,
                     void *context)
{
    tally tl;
    uint64_t total = UINT64_MAX;
    if (tally_init(&tl, problem)) {
        tally_count(&tl, problem, keep);
        total = walk(problem, keep, &tl, visit, context);
    }
    tally_free(&tl);
    return total;
}

typedef struct order_key {
    unsigned rank, release;
    size_t choice;
} order_key;

static int by_order(const void *a, const void *b)
{
    const order_key *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->release != y->release)
        return x->release < y->release ? -1 : 1;
    return x->choice < y->choice ? -1 : x->choice > y->choice;
}

uint64_t re_fit_choose(const fit_problem *problem, uint64_t budget, unsigned char *keep,
                       re_status *status)
{
    *status = RE_OK;
    size_t n = problem->choice_count;
    for (size_t c = 0; c < n; c++)
        keep[c] = 1;
    tally tl;
    order_key *order = malloc((n ? n : 1) * sizeof *order);
    if (!order || !tally_init(&tl, problem)) {
        free(order);
        *status = RE_ERR_NOMEM;
        return 0;
    }
    tally_count(&tl, problem, keep);
    uint64_t total = walk(problem, keep, &tl, NULL, NULL);
    if (total <= budget)
        goto done;
    size_t m = 0;
    for (size_t c = 0; c < n; c++) {
        keep[c] = 0;
        if (!problem->choices[c].heading)
            order[m++] = (order_key){ problem->choices[c].rank, problem->choices[c].release, c };
    }
    qsort(order, m, sizeof *order, by_order);
    total = 0;
    for (size_t k = 0; k < m; k++) {
        size_t c = order[k].choice;
        keep[c] = 1;
        tally_count(&tl, problem, keep);
        uint64_t with = walk(problem, keep, &tl, NULL, NULL);
        if (with <= budget)
            total = with;
        else
            keep[c] = 0;
    }
done:
    free(order);
    tally_free(&tl);
    return total;
}
