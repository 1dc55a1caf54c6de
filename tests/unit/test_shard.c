/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_shard.c - `--shard auto`: each scheduler's numbering becomes the batch's 1-based K of N,
 * with its own off-by-one convention (GitLab 1-based; CircleCI, Buildkite, Kubernetes 0-based;
 * Slurm relative to SLURM_ARRAY_TASK_MIN), and every ambiguous environment is refused. */
#include <stdlib.h>
#include <string.h>
#include "testkit.h"
#include "shard.h"

/* An environment as NULL-terminated "NAME=value" strings. */
static const char *lookup(void *context, const char *name)
{
    const char *const *env = context;
    size_t n = strlen(name);
    for (; *env; env++)
        if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
            return *env + n + 1;
    return NULL;
}

static re_diagnostics diag;

/* The shard for env (and --shard-count), or {0, 0} when refused. */
static re_shard shard_of(const char *const *env, unsigned count_given)
{
    diag_clear(&diag);
    re_shard s;
    if (re_shard_from_env(lookup, (void *)env, count_given, &s, &diag) != RE_OK) {
        CHECK(diag.count == 1);
        s.index = s.count = 0;
    }
    return s;
}

#define CHECK_SHARD(env, given, k, n) do { re_shard s_ = shard_of(env, given); \
    CHECK_INT(s_.index, k); CHECK_INT(s_.count, n); } while (0)

int main(void)
{
    re_diagnostics_init(&diag, 0);

    /* GitLab numbers parallel jobs 1..N */
    const char *gitlab_first[] = { "CI_NODE_INDEX=1", "CI_NODE_TOTAL=4", NULL };
    const char *gitlab_last[] = { "CI_NODE_INDEX=4", "CI_NODE_TOTAL=4", NULL };
    const char *gitlab_zero[] = { "CI_NODE_INDEX=0", "CI_NODE_TOTAL=4", NULL };
    const char *gitlab_past[] = { "CI_NODE_INDEX=5", "CI_NODE_TOTAL=4", NULL };
    CHECK_SHARD(gitlab_first, 0, 1, 4);
    CHECK_STR(shard_of(gitlab_first, 0).source, "GitLab CI: CI_NODE_INDEX=1, CI_NODE_TOTAL=4");
    CHECK_SHARD(gitlab_last, 0, 4, 4);
    CHECK_SHARD(gitlab_zero, 0, 0, 0);
    CHECK(strstr(diag_last(&diag), "outside 1..4"));
    CHECK_SHARD(gitlab_past, 0, 0, 0);

    /* CircleCI and Buildkite number them 0..N-1 */
    const char *circle_first[] = { "CIRCLE_NODE_INDEX=0", "CIRCLE_NODE_TOTAL=3", NULL };
    const char *circle_last[] = { "CIRCLE_NODE_INDEX=2", "CIRCLE_NODE_TOTAL=3", NULL };
    const char *circle_past[] = { "CIRCLE_NODE_INDEX=3", "CIRCLE_NODE_TOTAL=3", NULL };
    CHECK_SHARD(circle_first, 0, 1, 3);
    CHECK_SHARD(circle_last, 0, 3, 3);
    CHECK_SHARD(circle_past, 0, 0, 0);
    const char *buildkite_first[] = { "BUILDKITE_PARALLEL_JOB=0", "BUILDKITE_PARALLEL_JOB_COUNT=16", NULL };
    const char *buildkite_last[] = { "BUILDKITE_PARALLEL_JOB=15", "BUILDKITE_PARALLEL_JOB_COUNT=16", NULL };
    const char *buildkite_past[] = { "BUILDKITE_PARALLEL_JOB=16", "BUILDKITE_PARALLEL_JOB_COUNT=16", NULL };
    CHECK_SHARD(buildkite_first, 0, 1, 16);
    CHECK_SHARD(buildkite_last, 0, 16, 16);
    CHECK_SHARD(buildkite_past, 0, 0, 0);

    /* a Kubernetes indexed Job sets only the 0-based index: N from --shard-count or the
     * documented variable, else an error naming both */
    const char *k8s[] = { "JOB_COMPLETION_INDEX=0", NULL };
    const char *k8s_last[] = { "JOB_COMPLETION_INDEX=3", NULL };
    const char *k8s_env[] = { "JOB_COMPLETION_INDEX=2", "RENDER_EPISODE_SHARD_COUNT=3", NULL };
    CHECK_SHARD(k8s, 4, 1, 4);
    CHECK_STR(shard_of(k8s, 4).source, "Kubernetes indexed Job: JOB_COMPLETION_INDEX=0, --shard-count 4");
    CHECK_SHARD(k8s_last, 4, 4, 4);
    CHECK_SHARD(k8s_last, 3, 0, 0);
    CHECK_SHARD(k8s_env, 0, 3, 3);
    CHECK_SHARD(k8s, 0, 0, 0);
    CHECK(strstr(diag_last(&diag), "--shard-count"));
    CHECK_SHARD(k8s_env, 4, 0, 0);        /* the variable and the option disagree */

    /* Slurm: task IDs MIN..MAX, shard = ID - MIN + 1; gaps or a step are refused */
    const char *slurm[] = { "SLURM_ARRAY_TASK_ID=5", "SLURM_ARRAY_TASK_MIN=5", "SLURM_ARRAY_TASK_MAX=8",
                            "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_STEP=1", NULL };
    const char *slurm_last[] = { "SLURM_ARRAY_TASK_ID=8", "SLURM_ARRAY_TASK_MIN=5", "SLURM_ARRAY_TASK_MAX=8",
                                 "SLURM_ARRAY_TASK_COUNT=4", NULL };
    const char *slurm_zero[] = { "SLURM_ARRAY_TASK_ID=0", "SLURM_ARRAY_TASK_MIN=0", "SLURM_ARRAY_TASK_MAX=1",
                                 "SLURM_ARRAY_TASK_COUNT=2", NULL };
    const char *slurm_step[] = { "SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=7",
                                 "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_STEP=2", NULL };
    const char *slurm_gaps[] = { "SLURM_ARRAY_TASK_ID=3", "SLURM_ARRAY_TASK_MIN=1", "SLURM_ARRAY_TASK_MAX=7",
                                 "SLURM_ARRAY_TASK_COUNT=4", NULL };   /* --array=1,3,5,7 */
    CHECK_SHARD(slurm, 0, 1, 4);
    CHECK_SHARD(slurm_last, 0, 4, 4);
    CHECK_SHARD(slurm_zero, 0, 1, 2);
    CHECK_SHARD(slurm_step, 0, 0, 0);
    CHECK(strstr(diag_last(&diag), "gaps or a step"));
    CHECK_SHARD(slurm_gaps, 0, 0, 0);
    CHECK(strstr(diag_last(&diag), "gaps or a step"));

    /* nothing, or more than one scheduler, or not numbers: errors naming what is wrong */
    const char *none[] = { "HOME=/root", "CI=true", NULL };
    const char *two[] = { "CI_NODE_INDEX=1", "CI_NODE_TOTAL=2", "JOB_COMPLETION_INDEX=0", NULL };
    const char *missing_total[] = { "CIRCLE_NODE_INDEX=0", NULL };
    const char *not_number[] = { "CI_NODE_INDEX=1x", "CI_NODE_TOTAL=2", NULL };
    const char *negative[] = { "BUILDKITE_PARALLEL_JOB=-1", "BUILDKITE_PARALLEL_JOB_COUNT=2", NULL };
    const char *zero_total[] = { "CIRCLE_NODE_INDEX=0", "CIRCLE_NODE_TOTAL=0", NULL };
    CHECK_SHARD(none, 0, 0, 0);
    CHECK(strstr(diag_last(&diag), "no scheduler"));
    CHECK_SHARD(two, 0, 0, 0);
    CHECK(strstr(diag_last(&diag), "GitLab CI (CI_NODE_INDEX)"));
    CHECK(strstr(diag_last(&diag), "Kubernetes indexed Job (JOB_COMPLETION_INDEX)"));
    CHECK_SHARD(missing_total, 0, 0, 0);
    CHECK_STR(diag.items[0].file, "CIRCLE_NODE_TOTAL");
    CHECK_SHARD(not_number, 0, 0, 0);
    CHECK_STR(diag.items[0].file, "CI_NODE_INDEX");
    CHECK_SHARD(negative, 0, 0, 0);
    CHECK_SHARD(zero_total, 0, 0, 0);

    re_diagnostics_free(&diag);
    return check_finish("test_shard");
}
