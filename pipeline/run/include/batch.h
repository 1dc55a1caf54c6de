/* SPDX-License-Identifier: GPL-3.0-or-later */
/* batch.h - many episodes at once, for CI: every script becomes OUTDIR/<name>.mp3 with its
 * sidecar, rendered by worker processes forked from one warm engine.
 *
 * Workers are processes, not threads (the engine is not thread-safe). Each renders one
 * episode with its share of `workers` speech processes (workers divided by the episodes
 * running beside it when it starts), so the batch never has more than `workers` speech
 * processes and `workers` episodes at once, and when one long episode is left its paragraphs
 * still use every core. Episodes start longest script first (the tail, when cores can sit
 * idle, is then the shortest episodes); batch->episodes keeps the name order. A failing
 * episode (bad script, engine crash) fails
 * alone; the others go on. Output bytes do not depend on the number of workers.
 *
 * Life cycle: re_batch_collect (the scripts, sharded) -> re_batch_run -> re_batch_free. */
#ifndef RE_BATCH_H
#define RE_BATCH_H

#include <signal.h>
#include <stddef.h>

#include "render.h"
#include "status.h"

typedef enum re_episode_state {
    RE_EPISODE_NOT_RUN,      /* not (yet) rendered: the batch was interrupted before it */
    RE_EPISODE_RENDERED,
    RE_EPISODE_UP_TO_DATE,   /* output and inputs unchanged: not rendered again */
    RE_EPISODE_FAILED
} re_episode_state;

typedef struct re_batch_episode {
    char *script;            /* as found */
    char *name;              /* output stem: the script's file name without .txt */
    char *output;            /* OUTDIR/name.mp3 */
    re_episode_state state;
    re_status status;
    char *errors;            /* FILE:LINE:COL lines, newline-separated; NULL when none */
    re_render_result result;
    double seconds;          /* wall time of its worker */
} re_batch_episode;

/* A file in a folder that looked like a script but is not rendered (a folder's README.md),
 * listed so that a batch never leaves one out unsaid. A folder's show file (show.txt) is not
 * one: it is the show's, and left out without a word. */
typedef struct re_batch_skip {
    char *path;              /* DIR/NAME, as found */
    const char *reason;      /* why, and what to do to render it (static text) */
} re_batch_skip;

typedef struct re_batch {
    re_batch_episode *episodes;
    size_t count;
    re_batch_skip *skipped;  /* in the folders' listing order, every shard's the same */
    size_t skipped_count;
    int timed;               /* the JSON report carries the steps' times (--timings) */
    re_step_time whole;      /* re_batch_run's wall, and CPU with every worker's */
} re_batch;

typedef struct re_batch_progress {
    size_t done, total, failed;
    unsigned long long audio_ms;   /* audio of the finished episodes */
    double elapsed;                /* seconds since the batch started */
} re_batch_progress;

typedef struct re_batch_options {
    const char *outdir;
    unsigned workers;                  /* episodes at once, >= 1 */
    unsigned shard_index;              /* 1..shard_count; 1/1 = everything */
    unsigned shard_count;
    re_render_options render;          /* template: script/output/engine are set per episode */
    volatile sig_atomic_t *stop;
    void (*progress)(void *context, const re_batch_progress *progress);
    void *progress_context;
    void (*finished)(void *context, const re_batch_episode *episode);  /* as each one ends */
    void *finished_context;
    /* Called once the output folder exists, before the engine starts or any episode is
     * rendered: where the caller opens the files that go with the batch (its reports), so
     * that one it cannot write is found before the work, not after it. RE_OK goes on; any
     * other status (its messages in diag) is re_batch_run's, with nothing rendered and the
     * output folder removed again when this run created it. NULL: nothing to open. */
    re_status (*ready)(void *context, re_diagnostics *diag);
    void *ready_context;
} re_batch_options;

/* Lists the scripts: each FILE as given, each DIR's *.txt files (not recursive); sorted by
 * output name (so shards agree whatever order folders are given in), then keeps shard K of N
 * (every N-th, starting at the K-th). Two scripts with the same output name, a missing path
 * or an unreadable folder are errors (RE_ERR_INPUT with diagnostics) before anything runs. */
re_status re_batch_collect(const char *const *inputs, size_t input_count, const re_batch_options *options,
                           re_batch *batch, re_diagnostics *diag);

/* Renders every collected episode; fills each episode's state. Returns RE_OK when the batch
 * ran (even if episodes failed), RE_ERR_INTERRUPTED when stopped by a signal, or an error
 * that prevented running at all (engine, output folder, options->ready's status). */
re_status re_batch_run(re_batch *batch, const re_batch_options *options, re_diagnostics *diag);

void re_batch_free(re_batch *batch);

#endif
