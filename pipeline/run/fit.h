/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit.h - a Markdown episode cut to fit --max-duration: what is kept, chosen from the exact
 * sample counts of its spoken blocks, and the episode rebuilt of it (private to the run stage).
 *
 * The choice (re_fit_choose) is pure: the episode as a run of tokens (a block's speech, a pause, a
 * paragraph break, a chapter), each block a choice with a rank; choices are kept greedily in
 * order of rank, then release (the earlier chapter first: a changelog puts the newest release
 * first), then place, each one only when the whole still fits. Headings are kept with
 * something kept under them; a list that lost items ends with "And N more ..." (counted in
 * the budget); a sentence pause separates kept blocks that were one piece of speech. re_fit_walk
 * is the one place that says what the kept episode is made of: the cost and the rebuilt items
 * both come from it, so the audio rendered from the items is exactly the cost.
 *
 * re_fit_episode (fit.c) does it to a prepared episode: every block spoken once (the cache makes
 * the render that follows cheap) and measured as the assembler will add it, chosen, rebuilt.
 * The episode is left as it was when all of it fits. */
#ifndef RE_RUN_FIT_H
#define RE_RUN_FIT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "prepare.h"
#include "status.h"
#include "synth.h"

/* Blocks a document may have to be cut to a duration: each is spoken alone to be measured,
 * and each kept one becomes a segment of its own (script.h, RE_SCRIPT_MAX_SEGMENTS). */
#define FIT_MAX_BLOCKS 10000u

typedef enum fit_token_kind { FIT_SPEECH, FIT_PAUSE, FIT_BREAK, FIT_CHAPTER } fit_token_kind;

typedef struct fit_token {
    fit_token_kind kind;
    size_t choice;             /* FIT_SPEECH, FIT_PAUSE: the block it belongs to */
    uint64_t frames;           /* FIT_SPEECH (measured), FIT_PAUSE, FIT_BREAK: its samples */
    int starts_choice;         /* FIT_SPEECH: the block's first speech (not a continuation) */
    uint64_t sentence_pause;   /* FIT_SPEECH: its voice's sentence pause, in samples */
} fit_token;

typedef struct fit_choice {
    unsigned rank;             /* re_rank: lower is kept first */
    unsigned release;          /* its chapter's number: lower is kept first within a rank */
    unsigned heading;          /* 0 content; 1 heads `section`; 2 heads `release` */
    unsigned section;
    size_t list;               /* 0: not a list item; items of one list share it */
    unsigned items;            /* the list items it says (a run said together); 0: one */
} fit_choice;

/* The samples of "And N more ..." for `list` (n >= 1 of its items left out). */
typedef uint64_t (*fit_more_frames)(void *context, size_t list, size_t n);

/* What the kept episode is made of, in order. */
typedef enum fit_step_kind {
    FIT_STEP_TOKEN,            /* token `index` as it is */
    FIT_STEP_SENTENCE_PAUSE,   /* `frames` of silence between two kept blocks */
    FIT_STEP_MORE              /* "And `count` more ..." for list `index` */
} fit_step_kind;

typedef struct fit_step {
    fit_step_kind kind;
    size_t index;
    uint64_t frames;           /* the step's samples */
    size_t count;
} fit_step;

typedef void (*fit_visit)(void *context, const fit_step *step);

typedef struct fit_problem {
    const fit_token *tokens;
    size_t token_count;
    const fit_choice *choices;
    size_t choice_count;
    fit_more_frames more;
    void *more_context;
} fit_problem;

/* Walks the episode as `keep` (one flag a choice; headings are derived, their flags ignored)
 * makes it, calling visit (may be NULL) for every step; returns the total samples. */
uint64_t re_fit_walk(const fit_problem *problem, const unsigned char *keep, fit_visit visit,
                     void *context);

/* Fills keep[choice_count]: every choice when the whole fits in `budget` samples, else the
 * greedy choice above. Returns the kept total; 0 with nothing kept when not even one block fits
 * (RE_ERR_NOMEM aside: *status). */
uint64_t re_fit_choose(const fit_problem *problem, uint64_t budget, unsigned char *keep,
                       re_status *status);

/* What re_fit_episode left out, for `explain` and the render's note. */
typedef struct fit_report {
    char **lines;              /* "left out for --max-duration: 12 list items of 'Fixed' in
                                * '1.2.0' (...)" */
    size_t count;
    size_t blocks_out, blocks;  /* blocks left out, of all */
    uint64_t frames;           /* the kept episode's samples */
} fit_report;

void re_fit_report_free(fit_report *report);

/* Samples an MP3 adds around the audio that a reader counting whole frames (ffprobe's
 * duration) takes for audio: the encoder's delay (576), the decoder's (529) and up to two
 * frames of padding (576 samples a frame at 22.05 kHz, 1152 at 44.1 and 48 kHz). */
#define FIT_MP3_RESERVE(rate) (576u + 529u + 2u * ((rate) >= 32000 ? 1152u : 576u))

/* The samples an episode at `rate` may have to fit max_us, less `reserve`. */
uint64_t re_fit_budget(uint64_t max_us, unsigned rate, unsigned reserve);

typedef struct fit_options {
    uint64_t max_us;           /* --max-duration */
    unsigned reserve;          /* samples kept free of it: FIT_MP3_RESERVE for an MP3, else 0 */
    const char *max_text;      /* as given, for messages */
    unsigned rate;             /* of the episode */
    const char *script_path;
    const char *cache_dir;     /* the segment cache, or NULL */
    unsigned jobs;
    unsigned timeout_ms;
    volatile sig_atomic_t *stop;
} fit_options;

/* Cuts prepared->episode to fit opt->max_us: a Markdown episode without sound files. A .txt
 * script, sound files, or an episode whose every block alone is longer than the limit is
 * RE_ERR_INPUT with a message at the script; the engine's failures are its own. */
re_status re_fit_episode(re_prepared *prepared, re_engine *engine, const fit_options *opt,
                         fit_report *report, re_diagnostics *diag);

#endif
