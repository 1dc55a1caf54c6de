/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explain.h - what the engine will be given for each piece of speech, without rendering
 * audio: the script, its profiles and lexicon (prepare.h), each SPEECH item normalized, and
 * the phonemes the engine makes of it (espeak-ng's mnemonics, as `espeak-ng -x` prints them).
 * The library's entry point for `render-episode explain`; it prints nothing itself. */
#ifndef RE_EXPLAIN_H
#define RE_EXPLAIN_H

#include <signal.h>

#include "normalize.h"
#include "prepare.h"
#include "status.h"

/* One SPEECH item, explained. Every pointer is valid during the callback only. */
typedef struct re_explained_item {
    const char *file;          /* the script, as named */
    unsigned line, col;        /* where the item starts */
    const char *text;          /* the item's text, as in the script */
    const char *spoken;        /* the text as the engine is given it */
    const char *phonemes;
    const re_spoken_decision *decisions;  /* what the rules decided, for words of `text` */
    size_t decision_count;                /* (normalize.h) */
} re_explained_item;

/* Called per SPEECH item in script order; a status other than RE_OK stops re_explain,
 * which returns it. */
typedef re_status (*re_explain_callback)(void *context, const re_explained_item *item);

/* --max-duration for explain: the episode is cut as a render with it would cut it (every
 * block spoken once to be measured, at `sample_rate`), and `left_out` is called with each
 * line that says what was left out and why, before the items. */
typedef struct re_explain_limit {
    uint64_t max_us;                   /* 0: no limit */
    const char *max_text;              /* as typed */
    unsigned sample_rate;              /* of the episode: the script's or RE_RATE_DEFAULT when 0 */
    void (*left_out)(void *context, const char *file, const char *line);
} re_explain_limit;

/* Prepares the episode from `sources`, starts an engine (stopped early by *stop, which may be
 * NULL), checks its voices, cuts it to limit (may be NULL), then calls `each` for every
 * SPEECH item. Problems in the inputs, the engine or an item go to diag (FILE:LINE:COL) and
 * the first failure's status is returned; RE_ERR_INTERRUPTED when *stop was raised. */
re_status re_explain(const re_episode_sources *sources, const re_explain_limit *limit,
                     volatile sig_atomic_t *stop, re_explain_callback each, void *context,
                     re_diagnostics *diag);

#endif
