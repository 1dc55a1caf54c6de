/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli.h - the command-line front end: main.c dispatches subcommands to these. Only the CLI
 * prints, parses options and chooses exit codes (0 ok, 1 usage or a claim that failed,
 * 2 input or render failure, 130/143 interrupted). */
#ifndef RE_CLI_H
#define RE_CLI_H

#include <signal.h>
#include <stdio.h>

#include "cli_options.h"
#include "render.h"
#include "status.h"

#define RE_EXIT_OK 0
#define RE_EXIT_USAGE 1
#define RE_EXIT_MISMATCH 1
#define RE_EXIT_FAILURE 2

/* Subcommands; argv[0] is the subcommand's name. Each returns the exit status. */
int re_cli_check(int argc, char **argv);
int re_cli_batch(int argc, char **argv);
int re_cli_feed(int argc, char **argv);
int re_cli_cache(int argc, char **argv);
int re_cli_explain(int argc, char **argv);
int re_cli_voices(int argc, char **argv);

/* The signal that asked us to stop (0 while none did); installed by re_cli_install_signals. */
extern volatile sig_atomic_t re_cli_stop_signal;
void re_cli_install_signals(void);
/* 0 for RE_OK, 128 + signal when interrupted, 2 otherwise. */
int re_cli_exit_status(re_status status);

void re_cli_print_diagnostics(const re_diagnostics *diag);
/* One message on stderr as re_diag_format shows it (controls and invalid UTF-8 escaped), with
 * `kind` ("warning: ", or "") between its place and its text. */
void re_cli_print_diagnostic(const re_diag *d, const char *kind);
/* Prints text line by line, each as re_utf8_shown shows it (controls and bidi overrides
 * escaped), each ending in a newline. */
void re_cli_print_shown_lines(FILE *out, const char *text);
/* The first message in diag without its place, for a line the command words itself; or
 * re_strerror(status) when there is none. */
const char *re_cli_first_message(const re_diagnostics *diag, re_status status);

/* Appends the shipped voice folders (beside the installed program, the source tree it was
 * built from unless RE_SOURCE_VOICES is off, the configured install location) to dirs.
 * *exe_voices is malloc'ed (or NULL) and must be freed by the caller. 0, or -1 when out of
 * memory. */
int re_cli_add_default_voice_dirs(cli_list *dirs, char **exe_voices);

/* The options shared by `render` and `batch` (encoder, voices, transcripts, limits). */
typedef struct cli_render_settings {
    re_render_options options;
    const char *command;           /* the name its usage errors say (NULL: render) */
    cli_list voice_dirs;           /* --voices, then the shipped folders */
    cli_list lexicons;
    cli_list allowed_dirs;
    char *exe_voices;
    unsigned long max_size, timeout_s, jobs;
    int quiet;
    int timings;                   /* --timings: wall and CPU per step on stderr */
    int no_cache;
    int true_peak_given;
    const char *cache_dir;
    char *default_cache_dir;
    const char *cache_url;         /* --cache-url, else $RENDER_EPISODE_CACHE_URL */
    int cache_url_given;           /* by the option, not the environment */
    unsigned long cache_timeout_s;
} cli_render_settings;

void re_cli_render_settings_init(cli_render_settings *s, const char *command);
/* The shared options' table, its values going into s. */
cli_group re_cli_render_group(cli_render_settings *s);
/* Fills s->options (voice folders: the user's, then the shipped ones; the cache folder).
 * 0, or the exit status after an error was printed: -1 after a usage error (RE_EXIT_USAGE),
 * RE_EXIT_FAILURE when the remote cache's libcurl cannot be loaded. */
int re_cli_render_settings_finish(cli_render_settings *s);
void re_cli_render_settings_free(cli_render_settings *s);

/* The --timings table on stderr: each step's wall and CPU seconds, their total, and when
 * `whole` is given (a batch) the run's own wall and CPU. */
void re_cli_print_timings(const char *title, const re_step_time steps[RE_STEPS],
                          const re_step_time *whole);

/* --max-duration's DURATION (3m, 2m30s, PT3M; duration.h), 1 ms to 12 hours, into *us: 0, or
 * RE_EXIT_USAGE after a usage error naming the option. */
int re_cli_parse_max_duration(const char *command, const char *value, uint64_t *us);

/* Help text of the shared options. */
extern const char re_cli_render_options_help[];

#endif
