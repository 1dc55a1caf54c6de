/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_common.c - what every subcommand of the command line shares: signals, exit statuses,
 * diagnostics printing, and the render options `render` and `batch` have in common (their
 * table, their help, and what they add up to). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cache.h"
#include "duration.h"
#include "remote.h"
#include "sample_rate.h"
#include "script.h"
#include "utf8.h"

volatile sig_atomic_t re_cli_stop_signal;

static void on_stop_signal(int sig)
{
    re_cli_stop_signal = sig;
}

void re_cli_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;   /* no SA_RESTART: waits return early and see the flag */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);         /* a closed stdout is a write error, not a death */
}

int re_cli_exit_status(re_status status)
{
    if (status == RE_OK)
        return RE_EXIT_OK;
    if (re_cli_stop_signal)   /* whatever failed, a signal asked us to stop: say so */
        return 128 + re_cli_stop_signal;
    return RE_EXIT_FAILURE;
}

void re_cli_print_diagnostic(const re_diag *d, const char *kind)
{
    re_diag labelled = *d;
    char *message = NULL, line[2048];
    if (kind[0] && asprintf(&message, "%s%s", kind, d->message) < 0) {
        fputs("(a message that could not be shown: out of memory)\n", stderr);
        return;
    }
    if (message)
        labelled.message = message;
    re_diag_format(&labelled, line, sizeof line);
    fprintf(stderr, "%s\n", line);
    free(message);
}

void re_cli_print_diagnostics(const re_diagnostics *diag)
{
    for (size_t i = 0; i < diag->count; i++)
        re_cli_print_diagnostic(&diag->items[i], "");
    if (diag->truncated)
        fprintf(stderr, "render-episode: too many errors; only the first %zu are shown\n", diag->count);
}

void re_cli_print_shown_lines(FILE *out, const char *text)
{
    while (*text) {
        const char *end = strchr(text, '\n');
        size_t n = end ? (size_t)(end - text) : strlen(text);
        char *line = strndup(text, n), *shown = line ? re_utf8_shown(line) : NULL;
        fprintf(out, "%s\n", shown ? shown : "(a message that could not be shown: out of memory)");
        free(shown);
        free(line);
        text += n + (end != NULL);
    }
}

const char *re_cli_first_message(const re_diagnostics *diag, re_status status)
{
    return diag->count ? diag->items[0].message : re_strerror(status);
}

void re_cli_print_timings(const char *title, const re_step_time steps[RE_STEPS],
                          const re_step_time *whole)
{
    re_step_time total = { 0, 0 };
    fprintf(stderr, "timings: %s\n  %-8s %9s %9s\n", title, "step", "wall s", "cpu s");
    for (int k = 0; k < RE_STEPS; k++) {
        fprintf(stderr, "  %-8s %9.3f %9.3f\n", re_render_step_name((re_render_step)k),
                steps[k].wall_s, steps[k].cpu_s);
        total.wall_s += steps[k].wall_s;
        total.cpu_s += steps[k].cpu_s;
    }
    fprintf(stderr, "  %-8s %9.3f %9.3f\n", "total", total.wall_s, total.cpu_s);
    if (whole)
        fprintf(stderr, "  %-8s %9.3f %9.3f\n", "batch", whole->wall_s, whole->cpu_s);
}

const char re_cli_render_options_help[] =
    "  -r, --sample-rate HZ     output rate 22050, 44100 or 48000 (default: the script's\n"
    "                           sample_rate:, else 22050); speech is resampled with libsoxr\n"
    "  -b, --bitrate KBPS       MP3 CBR bitrate (default 64 at 22050 Hz, 96 at 44100/48000;\n"
    "                           lowest: 56 at 22050/44100 Hz, 64 at 48000 Hz)\n"
    "      --quality N          LAME quality 0 (best) .. 9 (fastest) (default: LAME's)\n"
    "      --serial-encode      one MP3 encoder instead of one per core (other bytes, same\n"
    "                           length and tags; a true-peak retry re-encodes it all)\n"
    "      --voices DIR         also look for voice profiles in DIR, first (repeatable)\n"
    "      --lexicon FILE       pronunciation lexicon, applied after the others (repeatable)\n"
    "      --no-default-lexicon leave out the shipped voices/default.lexicon\n"
    "      --allow-path DIR     a script may name files in DIR too, not only in its own folder\n"
    "  -j, --jobs N             processes at once, 1..64 (default: CPUs)\n"
    "      --srt                also write OUT.srt (the WebVTT OUT.vtt is always written)\n"
    "      --transcript-json    also write OUT.transcript.json (Podcasting 2.0)\n"
    "      --page               also write OUT.html, the episode page (player, chapters,\n"
    "                           transcript); --page-md: OUT.md, the same as Markdown\n"
    "      --loudness LUFS|off  integrated loudness target (default -16; -40..-5)\n"
    "      --true-peak DBTP     true-peak ceiling (default -1; -20..0)\n"
    "      --cache DIR          segment cache folder (default $XDG_CACHE_HOME/render-episode)\n"
    "      --no-cache           do not read or write the segment cache (nor the remote one)\n"
    "      --cache-url URL      also a remote segment cache over HTTP(S) (default\n"
    "                           $RENDER_EPISODE_CACHE_URL); see docs/cache.md\n"
    "      --cache-timeout S    give up on the remote cache after S seconds a request\n"
    "                           (default 10; 1..600)\n"
    "      --max-size BYTES     refuse scripts larger than this (default 8388608)\n"
    "      --segment-timeout S  give up on a paragraph after S seconds (default 120)\n"
    "      --max-duration DURATION\n"
    "                           Markdown release notes only: leave out what ranks last\n"
    "                           (chores, dependencies...) until the audio fits in DURATION\n"
    "                           (3m, 90s, 2m30s, PT3M); the show notes keep everything\n"
    "  -q, --quiet              no progress display\n"
    "      --timings            wall and CPU seconds per step (parse, speak, level, encode,\n"
    "                           measure, publish) on stderr; batch: also in --report\n";

void re_cli_render_settings_init(cli_render_settings *s, const char *command)
{
    memset(s, 0, sizeof *s);
    s->command = command;
    s->options.mp3 = (re_mp3_settings){ 0, -1 };   /* bitrate: the rate's default (render.h) */
    s->options.loudness_target = RE_LOUDNESS_DEFAULT_TARGET;
    s->options.true_peak = RE_LOUDNESS_DEFAULT_CEILING;
    s->max_size = RE_SCRIPT_DEFAULT_MAX_SIZE;
    s->timeout_s = RE_ENGINE_TIMEOUT_MS / 1000;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    s->jobs = cpus > 0 ? (unsigned long)(cpus < 64 ? cpus : 64) : 1;
}

static int check_rate(const char *command, const cli_option *option, const char *value,
                      void *base)
{
    (void)option;
    cli_render_settings *s = base;
    if (re_rate_supported(s->options.sample_rate))
        return 0;
    return re_cli_usage_error(command, "--sample-rate must be " RE_RATES_TEXT ", not '%s'", value);
}

static int take_loudness(const char *command, const cli_option *option, const char *value,
                         void *base)
{
    (void)option;
    cli_render_settings *s = base;
    s->options.loudness_off = strcmp(value, "off") == 0;
    return s->options.loudness_off
           ? 0 : re_cli_parse_decimal(command, "--loudness", value, RE_LOUDNESS_TARGET_MIN,
                                      RE_LOUDNESS_TARGET_MAX, &s->options.loudness_target);
}

static int note_true_peak(const char *command, const cli_option *option, const char *value,
                          void *base)
{
    (void)command, (void)option, (void)value;
    ((cli_render_settings *)base)->true_peak_given = 1;
    return 0;
}

#define MAX_DURATION_MIN_US 1000   /* 1 ms: the smallest --max-duration its error names */

int re_cli_parse_max_duration(const char *command, const char *value, uint64_t *us)
{
    re_duration d;
    if (re_duration_parse_units(value, strlen(value), &d) != RE_OK || d.us < MAX_DURATION_MIN_US
        || d.us > RE_EPISODE_MAX_US)
        return re_cli_usage_error(command, "--max-duration: '%s' is not a duration from 1 ms to 12 "
                                  "hours (try 3m, 90s, 2m30s or PT3M)", value);
    *us = d.us;
    return 0;
}

static int take_max_duration(const char *command, const cli_option *option, const char *value,
                             void *base)
{
    (void)option;
    cli_render_settings *s = base;
    s->options.max_duration_text = value;
    return re_cli_parse_max_duration(command, value, &s->options.max_duration_us);
}

static int note_cache_url(const char *command, const cli_option *option, const char *value,
                          void *base)
{
    (void)command, (void)option, (void)value;
    ((cli_render_settings *)base)->cache_url_given = 1;
    return 0;
}

#define R(member) CLI_AT(cli_render_settings, member)
static const cli_option render_options[] = {
    { "sample-rate", 'r', CLI_NUMBER, R(options.sample_rate), 22050, 48000, "HZ",
      .check = check_rate },
    { "bitrate", 'b', CLI_NUMBER, R(options.mp3.bitrate_kbps), 8, 320, "KBPS" },
    { "quality", 0, CLI_NUMBER, R(options.mp3.quality), 0, 9, "N" },
    { "serial-encode", 0, CLI_FLAG, R(options.serial_encode) },
    { "voices", 0, CLI_LIST, R(voice_dirs), .value_name = "DIR" },
    { "lexicon", 0, CLI_LIST, R(lexicons), .value_name = "FILE" },
    { "no-default-lexicon", 0, CLI_FLAG, R(options.no_default_lexicon) },
    { "allow-path", 0, CLI_LIST, R(allowed_dirs), .value_name = "DIR" },
    { "jobs", 'j', CLI_NUMBER, R(jobs), 1, 64, "N" },
    { "srt", 0, CLI_FLAG, R(options.write_srt) },
    { "transcript-json", 0, CLI_FLAG, R(options.write_transcript_json) },
    { "page", 0, CLI_FLAG, R(options.write_page) },
    { "page-md", 0, CLI_FLAG, R(options.write_page_md) },
    { "loudness", 0, CLI_CALL, R(options.loudness_target), RE_LOUDNESS_TARGET_MIN,
      RE_LOUDNESS_TARGET_MAX, "LUFS|off", .check = take_loudness },
    { "true-peak", 0, CLI_DECIMAL, R(options.true_peak), RE_LOUDNESS_CEILING_MIN,
      RE_LOUDNESS_CEILING_MAX, "DBTP", .check = note_true_peak },
    { "cache", 0, CLI_TEXT, R(cache_dir), .value_name = "DIR" },
    { "no-cache", 0, CLI_FLAG, R(no_cache) },
    { "cache-url", 0, CLI_TEXT, R(cache_url), .value_name = "URL", .check = note_cache_url },
    { "cache-timeout", 0, CLI_NUMBER, R(cache_timeout_s), 1, 600, "S" },
    { "max-size", 0, CLI_NUMBER, R(max_size), 1, 1UL << 30, "BYTES" },
    { "segment-timeout", 0, CLI_NUMBER, R(timeout_s), 1, 3600, "S" },
    { "max-duration", 0, CLI_CALL, R(options.max_duration_us), .value_name = "DURATION",
      .needs = "a DURATION", .flags = CLI_ONCE, .check = take_max_duration },
    { "quiet", 'q', CLI_FLAG, R(quiet) },
    { "timings", 0, CLI_FLAG, R(timings) },
};
#undef R

cli_group re_cli_render_group(cli_render_settings *s)
{
    return (cli_group)CLI_GROUP(render_options, s);
}

int re_cli_add_default_voice_dirs(cli_list *dirs, char **exe_voices)
{
    char exe[PATH_MAX];
    *exe_voices = NULL;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (asprintf(exe_voices, "%s/../share/render-episode/voices", exe) < 0)
                *exe_voices = NULL;
        }
    }
    if (*exe_voices && re_cli_list_add(dirs, *exe_voices) != 0)
        return -1;
#ifdef RE_SOURCE_VOICES_DIR
    if (re_cli_list_add(dirs, RE_SOURCE_VOICES_DIR) != 0)
        return -1;
#endif
    return re_cli_list_add(dirs, RE_INSTALL_VOICES_DIR);
}

static const char *nonempty_env(const char *name)
{
    const char *value = getenv(name);
    return value && value[0] ? value : NULL;
}

/* The remote cache: from --cache-url or the environment, its URL checked now (a typo is a
 * usage error before any work), its credentials from the environment, never shown. 0, or the
 * exit status after the error was printed. */
static int finish_remote(cli_render_settings *s)
{
    if (s->no_cache && s->cache_url_given) {
        re_cli_usage_error(s->command, "%s", "--cache-url and --no-cache contradict each other");
        return RE_EXIT_USAGE;
    }
    if (!s->cache_url_given)
        s->cache_url = nonempty_env(RE_REMOTE_URL_ENV);
    if (s->no_cache || !s->cache_url)
        return 0;
    re_remote_options remote = { .url = s->cache_url };
    re_remote *probe = NULL;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_remote_open(&remote, &probe, &diag);
    re_remote_free(probe);
    if (status != RE_OK) {
        re_cli_error(NULL, "%s: %s", s->cache_url_given ? "--cache-url" : RE_REMOTE_URL_ENV,
                     re_cli_first_message(&diag, status));
        re_diagnostics_free(&diag);
        /* a bad URL is a usage error; libcurl that cannot be loaded (curl_lib.h) is not */
        return status == RE_ERR_INPUT ? RE_EXIT_USAGE : RE_EXIT_FAILURE;
    }
    re_diagnostics_free(&diag);
    s->options.cache_url = s->cache_url;
    s->options.cache_timeout_ms = (unsigned)(s->cache_timeout_s * 1000);
    s->options.cache_token = nonempty_env(RE_REMOTE_TOKEN_ENV);
    s->options.cache_netrc = nonempty_env(RE_REMOTE_NETRC_ENV);
    return 0;
}

/* A bitrate LAME cannot use at the rate asked for, or too low for its tag, is a usage error
 * before any work. Without --sample-rate a script may still choose its rate: the render
 * checks then, naming the output. */
static int check_bitrate(const cli_render_settings *s)
{
    const char *format = s->options.output_path ? re_render_format_of(s->options.output_path) : NULL;
    if (!s->options.sample_rate || !s->options.mp3.bitrate_kbps || (format && strcmp(format, "wav") == 0))
        return 0;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_mp3_check_settings(s->options.sample_rate, &s->options.mp3, &diag);
    if (status != RE_OK)
        re_cli_usage_error(s->command, "--bitrate: %s", re_cli_first_message(&diag, status));
    re_diagnostics_free(&diag);
    return status == RE_OK ? 0 : -1;
}

int re_cli_render_settings_finish(cli_render_settings *s)
{
    if (check_bitrate(s) != 0)
        return -1;
    if (s->options.loudness_off && s->true_peak_given) {
        re_cli_usage_error(s->command, "%s", "--true-peak has no effect with --loudness off");
        return -1;
    }
    if (s->no_cache && s->cache_dir) {
        re_cli_usage_error(s->command, "%s", "--cache and --no-cache contradict each other");
        return -1;
    }
    if (!s->no_cache && !s->cache_dir) {
        re_diagnostics diag;
        re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
        s->default_cache_dir = re_cache_default_dir(&diag);
        if (!s->default_cache_dir)
            re_cli_error(NULL, "rendering without a segment cache: %s",
                         re_cli_first_message(&diag, RE_ERR_NOMEM));
        re_diagnostics_free(&diag);
        s->cache_dir = s->default_cache_dir;
    }
    s->options.cache_dir = s->no_cache ? NULL : s->cache_dir;
    int remote = finish_remote(s);
    if (remote != 0)
        return remote;
    if (re_cli_add_default_voice_dirs(&s->voice_dirs, &s->exe_voices) != 0) {
        fprintf(stderr, "render-episode: out of memory\n");
        return -1;
    }
    s->options.voice_dirs = s->voice_dirs.items;
    s->options.voice_dir_count = s->voice_dirs.count;
    s->options.lexicon_paths = s->lexicons.items;
    s->options.lexicon_path_count = s->lexicons.count;
    s->options.allowed_dirs = s->allowed_dirs.items;
    s->options.allowed_dir_count = s->allowed_dirs.count;
    s->options.max_script_size = s->max_size;
    s->options.engine_timeout_ms = (unsigned)(s->timeout_s * 1000);
    s->options.jobs = (unsigned)s->jobs;
    s->options.stop = &re_cli_stop_signal;
    return 0;
}

void re_cli_render_settings_free(cli_render_settings *s)
{
    re_cli_list_free(&s->voice_dirs);
    re_cli_list_free(&s->lexicons);
    re_cli_list_free(&s->allowed_dirs);
    free(s->exe_voices);
    free(s->default_cache_dir);
    s->exe_voices = NULL;
    s->default_cache_dir = NULL;
}
