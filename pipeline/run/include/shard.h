/* SPDX-License-Identifier: GPL-3.0-or-later */
/* shard.h - which part of a batch this runner renders, from the variables its CI system or
 * scheduler sets (`batch --shard auto`, docs/ci.md).
 *
 * Each scheduler numbers its parallel jobs in its own way; all of them become the batch's
 * 1-based shard K of N (batch.h):
 *
 *   GitLab CI     CI_NODE_INDEX 1..N,              CI_NODE_TOTAL
 *   CircleCI      CIRCLE_NODE_INDEX 0..N-1,         CIRCLE_NODE_TOTAL
 *   Buildkite     BUILDKITE_PARALLEL_JOB 0..N-1,    BUILDKITE_PARALLEL_JOB_COUNT
 *   Kubernetes    JOB_COMPLETION_INDEX 0..N-1,      N from --shard-count or RENDER_EPISODE_SHARD_COUNT
 *   Slurm         SLURM_ARRAY_TASK_ID MIN..MIN+N-1, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_COUNT
 *                 (an array with gaps or a step, MAX != MIN+COUNT-1 or STEP != 1, is refused)
 *
 * A scheduler is present when its index variable is set. None present is an error (not one
 * shard of one: a runner that silently renders everything N times is the failure this
 * prevents), and so are the variables of more than one. */
#ifndef RE_SHARD_H
#define RE_SHARD_H

#include "status.h"

#define RE_SHARD_COUNT_ENV "RENDER_EPISODE_SHARD_COUNT"
#define RE_SHARD_MAX 1000

/* The environment as a function (getenv, or a table in tests): the value of `name`, or NULL. */
typedef const char *(*re_env_lookup)(void *context, const char *name);

typedef struct re_shard {
    unsigned index;           /* 1..count */
    unsigned count;           /* 1..RE_SHARD_MAX */
    char source[160];         /* e.g. "GitLab CI: CI_NODE_INDEX=2, CI_NODE_TOTAL=4" */
} re_shard;

/* Finds this runner's shard. count_given (0: none) is --shard-count: the N of a Kubernetes
 * indexed Job; for a scheduler that sets N itself it must agree. RE_ERR_INPUT with one message
 * in diag (file: the variable at fault, or "--shard auto") when no scheduler or more than one
 * is found, or a variable is not a number in range. */
re_status re_shard_from_env(re_env_lookup lookup, void *context, unsigned count_given,
                            re_shard *out, re_diagnostics *diag);

#endif
