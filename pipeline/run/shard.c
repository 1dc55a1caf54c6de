/* SPDX-License-Identifier: GPL-3.0-or-later */
/* shard.c - this runner's shard from its scheduler's variables (see shard.h). */
#define _GNU_SOURCE
#include "shard.h"

#include <stdio.h>
#include <string.h>

/* One scheduler: its index variable, its base (0 or 1), and where N comes from. */
typedef struct scheduler {
    const char *name;
    const char *index_var;
    unsigned base;            /* the index of the first job */
    const char *count_var;    /* NULL: N from --shard-count or RE_SHARD_COUNT_ENV */
} scheduler;

static const scheduler schedulers[] = {
    { "GitLab CI", "CI_NODE_INDEX", 1, "CI_NODE_TOTAL" },
    { "CircleCI", "CIRCLE_NODE_INDEX", 0, "CIRCLE_NODE_TOTAL" },
    { "Buildkite", "BUILDKITE_PARALLEL_JOB", 0, "BUILDKITE_PARALLEL_JOB_COUNT" },
    { "Kubernetes indexed Job", "JOB_COMPLETION_INDEX", 0, NULL },
    { "Slurm job array", "SLURM_ARRAY_TASK_ID", 0, "SLURM_ARRAY_TASK_COUNT" },
};
#define SCHEDULERS (sizeof schedulers / sizeof *schedulers)

/* A plain decimal number up to max: digits only, no sign, no space. 0 on success. */
static int parse_number(const char *text, unsigned long max, unsigned long *out)
{
    unsigned long value = 0;
    if (!text || !*text)
        return -1;
    for (const char *p = text; *p; p++) {
        if (*p < '0' || *p > '9' || value > (max - (unsigned long)(*p - '0')) / 10)
            return -1;
        value = value * 10 + (unsigned long)(*p - '0');
    }
    *out = value;
    return 0;
}

/* The value of a variable that must be a number up to max. */
static re_status number_var(re_env_lookup lookup, void *context, const char *name,
                            unsigned long max, unsigned long *out, re_diagnostics *diag)
{
    const char *text = lookup(context, name);
    if (!text)
        return re_diag_fail(diag, RE_ERR_INPUT, name, 0, 0, "is not set; --shard auto needs it");
    if (parse_number(text, max, out) != 0)
        return re_diag_fail(diag, RE_ERR_INPUT, name, 0, 0, "'%.40s' is not a whole number from 0 "
                            "to %lu", text, max);
    return RE_OK;
}

/* Slurm: an array's task IDs are MIN..MAX, COUNT of them, in steps of STEP. Only a dense
 * array (STEP 1, MAX = MIN + COUNT - 1) maps onto shards 1..COUNT. */
static re_status slurm_shard(re_env_lookup lookup, void *context, unsigned long id,
                             unsigned long count, re_shard *out, re_diagnostics *diag)
{
    unsigned long min, max, step = 1;
    const unsigned long big = 1ul << 31;
    re_status status = number_var(lookup, context, "SLURM_ARRAY_TASK_MIN", big, &min, diag);
    if (status == RE_OK)
        status = number_var(lookup, context, "SLURM_ARRAY_TASK_MAX", big, &max, diag);
    if (status == RE_OK && lookup(context, "SLURM_ARRAY_TASK_STEP"))
        status = number_var(lookup, context, "SLURM_ARRAY_TASK_STEP", big, &step, diag);
    if (status != RE_OK)
        return status;
    if (step != 1 || max != min + count - 1)
        return re_diag_fail(diag, RE_ERR_INPUT, "SLURM_ARRAY_TASK_ID", 0, 0, "the job array has "
                            "gaps or a step (tasks %lu..%lu, %lu of them, step %lu); --shard auto "
                            "needs --array=MIN-MAX with every task, e.g. --array=0-%lu", min, max,
                            count, step, count ? count - 1 : 0);
    if (id < min || id > max)
        return re_diag_fail(diag, RE_ERR_INPUT, "SLURM_ARRAY_TASK_ID", 0, 0, "%lu is outside the "
                            "array's tasks %lu..%lu", id, min, max);
    out->index = (unsigned)(id - min + 1);
    snprintf(out->source, sizeof out->source, "Slurm job array: SLURM_ARRAY_TASK_ID=%lu, "
             "SLURM_ARRAY_TASK_MIN=%lu, SLURM_ARRAY_TASK_COUNT=%lu", id, min, count);
    return RE_OK;
}

re_status re_shard_from_env(re_env_lookup lookup, void *context, unsigned count_given,
                            re_shard *out, re_diagnostics *diag)
{
    memset(out, 0, sizeof *out);
    const scheduler *found = NULL;
    char names[256] = "";
    size_t present = 0;
    for (size_t i = 0; i < SCHEDULERS; i++) {
        if (!lookup(context, schedulers[i].index_var))
            continue;
        present++;
        found = found ? found : &schedulers[i];
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s (%s)", used ? ", " : "",
                 schedulers[i].name, schedulers[i].index_var);
    }
    if (present == 0)
        return re_diag_fail(diag, RE_ERR_INPUT, "--shard auto", 0, 0, "no scheduler's variables "
                            "are set (CI_NODE_INDEX, CIRCLE_NODE_INDEX, BUILDKITE_PARALLEL_JOB, "
                            "JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID); give --shard K/N");
    if (present > 1)
        return re_diag_fail(diag, RE_ERR_INPUT, "--shard auto", 0, 0, "the variables of more than "
                            "one scheduler are set: %s; unset all but one, or give --shard K/N",
                            names);

    unsigned long index, count;
    const unsigned long big = 1ul << 31;
    re_status status = number_var(lookup, context, found->index_var, big, &index, diag);
    if (status != RE_OK)
        return status;
    const char *count_var = found->count_var;
    if (!count_var && !lookup(context, RE_SHARD_COUNT_ENV) && count_given) {
        count = count_given;
    } else {
        if (!count_var)
            count_var = RE_SHARD_COUNT_ENV;
        if (!lookup(context, count_var))
            return re_diag_fail(diag, RE_ERR_INPUT, count_var, 0, 0, "is not set; %s gives only "
                                "this runner's index%s", found->name, found->count_var ? ""
                                : ": give the number of runners with --shard-count N (the Job's "
                                  "completions)");
        status = number_var(lookup, context, count_var, RE_SHARD_MAX, &count, diag);
        if (status != RE_OK)
            return status;
    }
    if (count < 1)
        return re_diag_fail(diag, RE_ERR_INPUT, count_var ? count_var : "--shard-count", 0, 0,
                            "there must be at least one runner, not 0");
    if (count_given && count != count_given)
        return re_diag_fail(diag, RE_ERR_INPUT, count_var, 0, 0, "says %lu runners, --shard-count "
                            "%u", count, count_given);
    out->count = (unsigned)count;
    if (strcmp(found->index_var, "SLURM_ARRAY_TASK_ID") == 0)
        return slurm_shard(lookup, context, index, count, out, diag);
    if (index < found->base || index - found->base >= count)
        return re_diag_fail(diag, RE_ERR_INPUT, found->index_var, 0, 0, "%lu is outside %lu..%lu "
                            "(%s numbers its %lu jobs from %u)", index, (unsigned long)found->base,
                            found->base + count - 1, found->name, count, found->base);
    out->index = (unsigned)(index - found->base + 1);
    if (found->count_var)
        snprintf(out->source, sizeof out->source, "%s: %s=%lu, %s=%lu", found->name,
                 found->index_var, index, found->count_var, count);
    else if (count_var)
        snprintf(out->source, sizeof out->source, "%s: %s=%lu, %s=%lu", found->name,
                 found->index_var, index, count_var, count);
    else
        snprintf(out->source, sizeof out->source, "%s: %s=%lu, --shard-count %lu", found->name,
                 found->index_var, index, count);
    return RE_OK;
}
