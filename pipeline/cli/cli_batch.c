/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_batch.c - `render-episode batch`: options, the progress display, the summary table,
 * the report files, and the exit status (0 all ok, 1 any episode failed, 2 nothing could
 * run, 130/143 interrupted). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "output.h"
#include "report.h"
#include "shard.h"
#include "utf8.h"

static const char batch_usage[] =
    "usage: render-episode batch [-j N] -O OUTDIR FILE|DIR... [options]\n"
    "\n"
    "Renders every script (each FILE; in each DIR the *.txt files and the *.md files that\n"
    "start with front matter) to OUTDIR/NAME.mp3 with its sidecar, transcript and chapters,\n"
    "N episodes at once. A folder's other .md files are listed as skipped; its show.txt (the\n"
    "show's file) is left out. Episodes whose outputs exist and were made from the same\n"
    "inputs are not rendered again.\n"
    "\n"
    "  -O, --outdir DIR         where the outputs go (created if missing)\n"
    "      --shard K/N          render only shard K of N (for a CI matrix of N runners)\n"
    "      --shard auto         K and N from the CI system or scheduler that started the job\n"
    "                           (GitLab, CircleCI, Buildkite, Kubernetes, Slurm; docs/ci.md)\n"
    "      --shard-count N      N for --shard auto in a Kubernetes indexed Job (its completions)\n"
    "      --report FILE.json   per-episode results as JSON\n"
    "      --junit FILE.xml     per-episode results as JUnit XML\n"
    "      --progress           show the progress even when stderr is not a terminal (there\n"
    "                           a whole line per finished episode)\n"
    "  -h, --help               this help\n";

typedef struct batch_cli {
    cli_render_settings render;
    re_batch_options options;
    const char **inputs;
    size_t input_count;
    const char *report;
    const char *junit;
    re_output *report_out;         /* opened before the work (open_reports), written after it */
    re_output *junit_out;
    int progress;
    int shard_auto;
    unsigned long shard_count_given;
} batch_cli;

static int parse_shard(const char *text, unsigned *index, unsigned *count)
{
    char *end;
    unsigned long k = strtoul(text, &end, 10);
    if (end == text || *end != '/' || text[0] < '0' || text[0] > '9')
        return -1;
    const char *second = end + 1;
    unsigned long n = strtoul(second, &end, 10);
    if (end == second || *end || second[0] < '0' || second[0] > '9' || n < 1 || n > 1000 || k < 1 || k > n)
        return -1;
    *index = (unsigned)k;
    *count = (unsigned)n;
    return 0;
}

static int take_shard(const char *command, const cli_option *option, const char *value,
                      void *base)
{
    (void)option;
    batch_cli *cli = base;
    cli->shard_auto = strcmp(value, "auto") == 0;
    if (!cli->shard_auto
        && parse_shard(value, &cli->options.shard_index, &cli->options.shard_count) != 0)
        return re_cli_usage_error(command, "--shard needs K/N with 1 <= K <= N <= 1000, or auto, "
                                  "not '%s'", value);
    return 0;
}

static int take_input(void *context, const char *arg)
{
    batch_cli *cli = context;
    cli->inputs[cli->input_count++] = arg;
    return 0;
}

#define B(member) CLI_AT(batch_cli, member)
static const cli_option batch_options[] = {
    { "outdir", 'O', CLI_TEXT, B(options.outdir), .value_name = "DIR" },
    { "shard", 0, CLI_CALL, B(shard_auto), .value_name = "K/N|auto", .check = take_shard },
    { "shard-count", 0, CLI_NUMBER, B(shard_count_given), 1, RE_SHARD_MAX, "N" },
    { "report", 0, CLI_TEXT, B(report), .value_name = "FILE.json" },
    { "junit", 0, CLI_TEXT, B(junit), .value_name = "FILE.xml" },
    { "progress", 0, CLI_FLAG, B(progress) },
    CLI_HELP_OPTION,
};
#undef B

/* Returns CLI_GO_ON, or an exit status. */
static int parse_batch_args(int argc, char **argv, batch_cli *cli)
{
    cli_group groups[] = { CLI_GROUP(batch_options, cli), re_cli_render_group(&cli->render) };
    cli_command command = { .name = "batch", .help = { batch_usage, re_cli_render_options_help },
                            .groups = groups, .group_count = 2, .operand = take_input,
                            .context = cli };
    int rc = re_cli_scan(&command, argc, argv);
    if (rc != CLI_GO_ON)
        return rc;
    if (!cli->options.outdir)
        return re_cli_usage_error("batch", "%s", "batch needs -O OUTDIR");
    if (cli->input_count == 0)
        return re_cli_usage_error("batch", "%s", "batch needs at least one script or folder");
    if (cli->shard_count_given && !cli->shard_auto)
        return re_cli_usage_error("batch", "%s", "--shard-count goes with --shard auto");
    return CLI_GO_ON;
}

static const char *lookup_env(void *context, const char *name)
{
    (void)context;
    const char *value = getenv(name);
    return value && value[0] ? value : NULL;
}

/* --shard auto: K and N from the scheduler, which is named before any work (a CI log then
 * shows which variable chose what this runner renders). CLI_GO_ON, or an exit status. */
static int shard_from_scheduler(batch_cli *cli)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_shard shard;
    re_status status = re_shard_from_env(lookup_env, NULL, (unsigned)cli->shard_count_given,
                                         &shard, &diag);
    if (status != RE_OK) {
        for (size_t i = 0; i < diag.count; i++) {
            char line[2048];
            re_diag_format(&diag.items[i], line, sizeof line);
            fprintf(stderr, "render-episode: %s\n", line);
        }
        re_diagnostics_free(&diag);
        return status == RE_ERR_NOMEM ? RE_EXIT_FAILURE : RE_EXIT_USAGE;
    }
    re_diagnostics_free(&diag);
    cli->options.shard_index = shard.index;
    cli->options.shard_count = shard.count;
    printf("shard %u/%u from %s\n", shard.index, shard.count, shard.source);
    return CLI_GO_ON;
}

/* The progress display: on a terminal one line rewritten in place (\r, and ESC[K to clear
 * what a longer one left); elsewhere (a CI log, a file) a whole line each time an episode
 * ends, with nothing a log viewer would show as junk. */
typedef struct progress_display {
    int shown;      /* --progress, or stderr is a terminal and not -q */
    int terminal;   /* stderr is a terminal */
} progress_display;

static void show_progress(void *context, const re_batch_progress *p)
{
    const progress_display *display = context;
    double eta = p->done ? p->elapsed / (double)p->done * (double)(p->total - p->done) : 0;
    fprintf(stderr, "%s%zu/%zu episodes%s%zu failed, %llu:%02llu of audio, ETA %.0f s%s%s",
            display->terminal ? "\r" : "", p->done, p->total, p->failed ? ", " : " (",
            p->failed, p->audio_ms / 60000, p->audio_ms / 1000 % 60, eta,
            p->failed ? "" : ")", display->terminal ? "\033[K" : "\n");
}

/* Clears the terminal's progress line before other text is written over it. */
static void clear_progress(const progress_display *display)
{
    if (display->shown && display->terminal)
        fputs("\r\033[K", stderr);
}

/* Errors (and the warnings of episodes that rendered: a cache that could not be used) as
 * they happen, so a long CI log shows them next to their cause. */
static void print_finished(void *context, const re_batch_episode *ep)
{
    if (ep->errors) {
        clear_progress(context);
        re_cli_print_shown_lines(stderr, ep->errors);
    }
}

/* The files of the folders that are not rendered, each with why and what to do, before
 * the work (so that a CI log says it first). */
static void print_skipped(const re_batch *batch)
{
    for (size_t i = 0; i < batch->skipped_count; i++) {
        char *shown = re_utf8_shown(batch->skipped[i].path);   /* a name from a listing */
        fprintf(stderr, "%s: skipped: %s\n", shown ? shown : "?", batch->skipped[i].reason);
        free(shown);
    }
}

static void print_summary(const re_batch *batch)
{
    size_t width = 7, counts[4] = { 0, 0, 0, 0 };
    /* a name from a folder listing is outside text: shown escaped (utf8.h) */
    char **names = calloc(batch->count + 1, sizeof *names);
    for (size_t i = 0; names && i < batch->count; i++)
        names[i] = re_utf8_shown(batch->episodes[i].name);
    for (size_t i = 0; i < batch->count; i++) {
        const char *name = names && names[i] ? names[i] : "?";
        if (strlen(name) > width)
            width = strlen(name);
    }
    printf("%-*s  %-10s  %9s  %10s  %7s  %s\n", (int)width, "episode", "status", "duration", "size",
           "time", "segments");
    for (size_t i = 0; i < batch->count; i++) {
        const re_batch_episode *ep = &batch->episodes[i];
        const char *name = names && names[i] ? names[i] : "?";
        counts[ep->state]++;
        if (ep->state == RE_EPISODE_FAILED || ep->state == RE_EPISODE_NOT_RUN) {
            printf("%-*s  %-10s  %9s  %10s  %6.1fs  -\n", (int)width, name,
                   ep->state == RE_EPISODE_FAILED ? "FAILED" : "not run", "-", "-", ep->seconds);
            continue;
        }
        printf("%-*s  %-10s  %9s  %10llu  %6.1fs  %zu synthesized, %zu cached\n", (int)width,
               name, re_episode_state_name(ep->state), ep->result.duration, ep->result.bytes,
               ep->seconds, ep->result.segments_synthesized, ep->result.segments_cached);
    }
    printf("%zu episodes: %zu rendered, %zu up to date, %zu failed", batch->count,
           counts[RE_EPISODE_RENDERED], counts[RE_EPISODE_UP_TO_DATE], counts[RE_EPISODE_FAILED]);
    if (counts[RE_EPISODE_NOT_RUN])
        printf(", %zu not run", counts[RE_EPISODE_NOT_RUN]);
    if (batch->skipped_count)
        printf(", %zu skipped", batch->skipped_count);
    putchar('\n');
    for (size_t i = 0; names && i < batch->count; i++)
        free(names[i]);
    free(names);
}

/* Opens one report's file as the batch's other outputs are opened (a temporary file beside
 * it, published at the end; a device or FIFO written into), the option ("--report") before
 * its messages. */
static re_status open_report(const char *path, const char *option, re_output **out,
                             re_diagnostics *diag)
{
    size_t from = diag->count;
    re_status status = re_output_open_special(path, RE_OUTPUT_WRITE_INTO_SPECIAL, out, diag);
    if (status != RE_OK && diag->count == from)
        re_diag_add(diag, path, 0, 0, "%s", re_strerror(status));
    re_diag_prefix(diag, from, "%s: ", option);
    return status;
}

/* re_batch_options.ready: the reports are opened once the output folder exists (a report
 * may be in it) and before any episode is rendered, so that a report that cannot be written
 * (its folder missing, a directory, another user's link) stops the batch before the work.
 * Both are tried, for both messages. */
static re_status open_reports(void *context, re_diagnostics *diag)
{
    batch_cli *cli = context;
    re_status status = RE_OK, junit = RE_OK;
    if (cli->report)
        status = open_report(cli->report, "--report", &cli->report_out, diag);
    if (cli->junit)
        junit = open_report(cli->junit, "--junit", &cli->junit_out, diag);
    return status != RE_OK ? status : junit;
}

static void discard_reports(batch_cli *cli)
{
    re_output_discard(cli->report_out);
    re_output_discard(cli->junit_out);
    cli->report_out = cli->junit_out = NULL;
}

/* Writes and publishes the report opened for `path` (out NULL: none asked for); frees it.
 * 0, or -1 after printing why. */
static int write_report(re_output *out, const char *path, const re_batch *batch, int junit)
{
    if (!out)
        return 0;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = junit ? re_report_write_junit(re_output_stream(out), batch)
                             : re_report_write_json(re_output_stream(out), batch);
    if (status != RE_OK) {
        re_output_discard(out);
        re_diag_add(&diag, path, 0, 0, "%s", re_strerror(status));
    } else {
        status = re_output_commit(out, &diag);
    }
    if (status != RE_OK && diag.count == 0)
        re_diag_add(&diag, path, 0, 0, "%s", re_strerror(status));
    re_cli_print_diagnostics(&diag);
    re_diagnostics_free(&diag);
    return status == RE_OK ? 0 : -1;
}

/* --timings: the episodes' steps summed (as in the report), and the batch's own wall and CPU (workers included). */
static void print_batch_timings(const re_batch *batch)
{
    re_step_time sum[RE_STEPS];
    re_report_step_sums(batch, sum);
    re_cli_print_timings("steps summed over the episodes that rendered or were up to date", sum,
                         &batch->whole);
}

int re_cli_batch(int argc, char **argv)
{
    batch_cli cli;
    memset(&cli, 0, sizeof cli);
    re_cli_render_settings_init(&cli.render, "batch");
    cli.options.shard_index = cli.options.shard_count = 1;
    cli.inputs = calloc((size_t)argc, sizeof *cli.inputs);
    if (!cli.inputs)
        return RE_EXIT_FAILURE;
    int rc = parse_batch_args(argc, argv, &cli);
    if (rc != CLI_GO_ON) {
        free(cli.inputs);
        re_cli_render_settings_free(&cli.render);
        return rc;
    }
    int finished = re_cli_render_settings_finish(&cli.render);
    if (finished != 0) {
        free(cli.inputs);
        re_cli_render_settings_free(&cli.render);
        return finished == RE_EXIT_FAILURE ? RE_EXIT_FAILURE : RE_EXIT_USAGE;
    }
    if (cli.shard_auto && (rc = shard_from_scheduler(&cli)) != CLI_GO_ON) {
        free(cli.inputs);
        re_cli_render_settings_free(&cli.render);
        return rc;
    }
    progress_display display = { .terminal = isatty(STDERR_FILENO) };
    display.shown = cli.progress || (!cli.render.quiet && display.terminal);
    cli.options.render = cli.render.options;
    cli.options.render.skip_unchanged = 1;
    cli.options.workers = (unsigned)cli.render.jobs;
    cli.options.stop = &re_cli_stop_signal;
    cli.options.progress = display.shown ? show_progress : NULL;
    cli.options.progress_context = &display;
    cli.options.finished = print_finished;
    cli.options.finished_context = &display;
    cli.options.ready = open_reports;
    cli.options.ready_context = &cli;

    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_batch batch;
    re_status status = re_batch_collect(cli.inputs, cli.input_count, &cli.options, &batch, &diag);
    int collected = status == RE_OK;
    if (collected) {
        print_skipped(&batch);
        batch.timed = cli.render.timings;
        status = re_batch_run(&batch, &cli.options, &diag);
        clear_progress(&display);
    }
    re_cli_print_diagnostics(&diag);
    int exit_status = re_cli_exit_status(status);
    if (status == RE_OK || status == RE_ERR_INTERRUPTED) {
        if (status == RE_ERR_INTERRUPTED)
            fprintf(stderr, "render-episode: interrupted; unfinished episodes were not written\n");
        print_summary(&batch);
        if (cli.render.timings)
            print_batch_timings(&batch);
        if (fflush(stdout) != 0 || ferror(stdout)) {   /* > /dev/full, | head -c0 */
            fprintf(stderr, "render-episode: cannot write the summary to standard output: %s\n",
                    strerror(errno));
            exit_status = RE_EXIT_FAILURE;
        }
        for (size_t i = 0; status == RE_OK && i < batch.count; i++)
            if (batch.episodes[i].state == RE_EPISODE_FAILED && exit_status == RE_EXIT_OK)
                exit_status = RE_EXIT_MISMATCH;
        int report_failed = write_report(cli.report_out, cli.report, &batch, 0) != 0;
        int junit_failed = write_report(cli.junit_out, cli.junit, &batch, 1) != 0;
        cli.report_out = cli.junit_out = NULL;
        if (report_failed || junit_failed)
            exit_status = RE_EXIT_FAILURE;
    }
    if (collected)   /* also when it did not run (a refused report, no output folder) */
        re_batch_free(&batch);
    discard_reports(&cli);   /* the batch did not run: nothing of it is published */
    re_diagnostics_free(&diag);
    re_cli_render_settings_free(&cli.render);
    free(cli.inputs);
    return exit_status;
}
