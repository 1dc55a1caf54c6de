/* main.c - render-episode's command line: parse options, call the library, print, and map
 * statuses to exit codes (0 ok, 1 usage, 2 input or render failure, 128+N on signal N). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "render.h"
#include "script.h"
#include "status.h"

#define MAX_VOICE_DIRS 16

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void install_signal_handlers(void)
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

static const char usage_text[] =
    "usage: render-episode [render] SCRIPT [-o OUT.mp3|OUT.wav] [options]\n"
    "       render-episode check MP3 [FILE...] [--json] [--fix] [--tolerance DURATION]\n"
    "\n"
    "Turns an episode script into a podcast MP3 (or WAV) and a sidecar OUT.json.\n"
    "\n"
    "Render options:\n"
    "  -o, --output FILE        output file, .mp3 or .wav (default: SCRIPT with .mp3)\n"
    "  -b, --bitrate KBPS       MP3 CBR bitrate (default 64; 56..160 at 22050 Hz)\n"
    "      --quality N          LAME quality 0 (best) .. 9 (fastest) (default: LAME's)\n"
    "      --voices DIR         also look for voice profiles in DIR, first (repeatable)\n"
    "  -j, --jobs N             speech processes at once, 1..64 (default: CPUs)\n"
    "      --max-size BYTES     refuse scripts larger than this (default 8388608)\n"
    "      --segment-timeout S  give up on a paragraph after S seconds (default 120)\n"
    "      --srt                also write OUT.srt (the WebVTT OUT.vtt is always written)\n"
    "      --transcript-json    also write OUT.transcript.json (Podcasting 2.0)\n"
    "  -q, --quiet              no progress line\n"
    "  -h, --help               this help\n"
    "  -V, --version            version of the program and its libraries\n"
    "\n"
    "Exit status: 0 ok, 1 usage error (or, for check, a claim that does not hold),\n"
    "2 invalid input or failed render (nothing written), 130/143 interrupted.\n";

typedef struct render_cli {
    const char *script;
    const char *output;
    char *default_output;
    const char *voice_dirs[MAX_VOICE_DIRS + 3];
    size_t voice_dir_count;
    char *exe_voices;
    re_mp3_settings mp3;
    unsigned long max_size;
    unsigned long timeout_s;
    unsigned long jobs;
    int quiet;
    int srt;
    int transcript_json;
} render_cli;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "render-episode: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'render-episode --help'.\n");
    return RE_EXIT_USAGE;
}

/* Strict unsigned parse: all digits, in [min, max]; names the option on failure. */
static int parse_number(const char *option, const char *text, unsigned long min, unsigned long max,
                        unsigned long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long value = text && *text >= '0' && *text <= '9' ? strtoul(text, &end, 10) : 0;
    if (!text || !end || *end != '\0' || errno == ERANGE || value < min || value > max) {
        fprintf(stderr, "render-episode: %s needs a whole number from %lu to %lu, not '%s'\n",
                option, min, max, text ? text : "");
        return -1;
    }
    *out = value;
    return 0;
}

static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static int is_option(const char *arg, const char *short_name, const char *long_name)
{
    size_t n = strlen(long_name);
    return (short_name && strcmp(arg, short_name) == 0) || strcmp(arg, long_name) == 0
           || (strncmp(arg, long_name, n) == 0 && arg[n] == '=');
}

/* Returns -1 to go on, or an exit status. */
static int parse_render_args(int argc, char **argv, render_cli *cli)
{
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *v;
        unsigned long n;
        if (is_option(arg, "-o", "--output")) {
            if (!(v = option_value(argc, argv, &i, "--output")))
                return RE_EXIT_USAGE;
            cli->output = v;
        } else if (is_option(arg, "-b", "--bitrate")) {
            if (!(v = option_value(argc, argv, &i, "--bitrate")) || parse_number("--bitrate", v, 8, 320, &n))
                return RE_EXIT_USAGE;
            cli->mp3.bitrate_kbps = (int)n;
        } else if (is_option(arg, NULL, "--quality")) {
            if (!(v = option_value(argc, argv, &i, "--quality")) || parse_number("--quality", v, 0, 9, &n))
                return RE_EXIT_USAGE;
            cli->mp3.quality = (int)n;
        } else if (is_option(arg, NULL, "--voices")) {
            if (!(v = option_value(argc, argv, &i, "--voices")))
                return RE_EXIT_USAGE;
            if (cli->voice_dir_count == MAX_VOICE_DIRS)
                return usage_error("at most %s --voices folders", "16");
            cli->voice_dirs[cli->voice_dir_count++] = v;
        } else if (is_option(arg, "-j", "--jobs")) {
            if (!(v = option_value(argc, argv, &i, "--jobs")) || parse_number("--jobs", v, 1, 64, &cli->jobs))
                return RE_EXIT_USAGE;
        } else if (is_option(arg, NULL, "--max-size")) {
            if (!(v = option_value(argc, argv, &i, "--max-size"))
                || parse_number("--max-size", v, 1, 1UL << 30, &cli->max_size))
                return RE_EXIT_USAGE;
        } else if (is_option(arg, NULL, "--segment-timeout")) {
            if (!(v = option_value(argc, argv, &i, "--segment-timeout"))
                || parse_number("--segment-timeout", v, 1, 3600, &cli->timeout_s))
                return RE_EXIT_USAGE;
        } else if (strcmp(arg, "--srt") == 0) {
            cli->srt = 1;
        } else if (strcmp(arg, "--transcript-json") == 0) {
            cli->transcript_json = 1;
        } else if (strcmp(arg, "-q") == 0 || strcmp(arg, "--quiet") == 0) {
            cli->quiet = 1;
        } else if (strcmp(arg, "--") == 0 && i + 1 < argc && !cli->script) {
            cli->script = argv[++i];
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error("unknown option '%s'", arg);
        } else if (cli->script) {
            return usage_error("one script at a time (got a second one: '%s')", arg);
        } else {
            cli->script = arg;
        }
    }
    if (!cli->script)
        return usage_error("%s", "no script given");
    return -1;
}

/* Default voice folders after the user's: beside the installed program, the source tree
 * this program was built from, the configured install location. */
static void add_default_voice_dirs(render_cli *cli)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            if (asprintf(&cli->exe_voices, "%s/../share/render-episode/voices", exe) < 0)
                cli->exe_voices = NULL;
        }
    }
    if (cli->exe_voices)
        cli->voice_dirs[cli->voice_dir_count++] = cli->exe_voices;
    cli->voice_dirs[cli->voice_dir_count++] = RE_SOURCE_VOICES_DIR;
    cli->voice_dirs[cli->voice_dir_count++] = RE_INSTALL_VOICES_DIR;
}

static void print_progress(void *context, const re_render_progress *p)
{
    (void)context;
    unsigned long seconds = p->sample_rate ? (unsigned long)(p->audio_frames / p->sample_rate) : 0;
    if (p->phase == RE_PHASE_SPEAK)
        fprintf(stderr, "\rspeaking %zu/%zu, %lu:%02lu of audio\033[K", p->done, p->total,
                seconds / 60, seconds % 60);
    else
        fprintf(stderr, "\rencoding %3zu%%\033[K", p->total ? p->done * 100 / p->total : 100);
}

static void print_diagnostics(const re_diagnostics *diag)
{
    for (size_t i = 0; i < diag->count; i++) {
        const re_diag *d = &diag->items[i];
        if (d->line && d->col)
            fprintf(stderr, "%s:%u:%u: %s\n", d->file, d->line, d->col, d->message);
        else if (d->line)
            fprintf(stderr, "%s:%u: %s\n", d->file, d->line, d->message);
        else
            fprintf(stderr, "%s: %s\n", d->file, d->message);
    }
    if (diag->truncated)
        fprintf(stderr, "render-episode: too many errors; only the first %zu are shown\n", diag->count);
}

static int exit_status_for(re_status status)
{
    if (status == RE_OK)
        return RE_EXIT_OK;
    if (status == RE_ERR_INTERRUPTED && stop_signal)
        return 128 + stop_signal;
    return RE_EXIT_FAILURE;
}

static int cli_render(int argc, char **argv)
{
    render_cli cli = { .mp3 = { RE_MP3_DEFAULT_BITRATE, -1 },
                       .max_size = RE_SCRIPT_DEFAULT_MAX_SIZE, .timeout_s = RE_ENGINE_TIMEOUT_MS / 1000 };
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cli.jobs = cpus > 0 ? (unsigned long)(cpus < 64 ? cpus : 64) : 1;
    int rc = parse_render_args(argc, argv, &cli);
    if (rc >= 0)
        return rc;
    if (!cli.output) {
        const char *slash = strrchr(cli.script, '/'), *dot = strrchr(cli.script, '.');
        size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - cli.script) : strlen(cli.script);
        if (asprintf(&cli.default_output, "%.*s.mp3", (int)stem, cli.script) < 0)
            return RE_EXIT_FAILURE;
        cli.output = cli.default_output;
    }
    if (!re_render_format_of(cli.output)) {
        free(cli.default_output);
        return usage_error("the output name must end in .mp3 or .wav: '%s'", cli.output);
    }
    add_default_voice_dirs(&cli);

    int show_progress = !cli.quiet && isatty(STDERR_FILENO);
    re_render_options options = {
        .script_path = cli.script, .output_path = cli.output,
        .voice_dirs = cli.voice_dirs, .voice_dir_count = cli.voice_dir_count,
        .mp3 = cli.mp3, .max_script_size = cli.max_size,
        .engine_timeout_ms = (unsigned)(cli.timeout_s * 1000), .jobs = (unsigned)cli.jobs,
        .write_srt = cli.srt, .write_transcript_json = cli.transcript_json,
        .stop = &stop_signal, .progress = show_progress ? print_progress : NULL,
    };
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_render_result result;
    re_status status = re_render(&options, &result, &diag);
    if (show_progress)
        fprintf(stderr, "\r\033[K");
    print_diagnostics(&diag);
    if (status == RE_ERR_INTERRUPTED)
        fprintf(stderr, "render-episode: interrupted; nothing was written\n");
    else if (status != RE_OK && diag.count == 0)
        fprintf(stderr, "render-episode: %s: %s\n", cli.script, re_strerror(status));
    if (status == RE_OK) {
        printf("%s: %s, %.3f s, %llu bytes\n", cli.output, result.duration,
               (double)result.samples / result.sample_rate, result.bytes);
        if (fflush(stdout) != 0)
            status = RE_ERR_WRITE;
    }
    re_diagnostics_free(&diag);
    free(cli.default_output);
    free(cli.exe_voices);
    return exit_status_for(status);
}

static void print_version(void)
{
    printf("render-episode %s\n", RE_VERSION);
}

int main(int argc, char **argv)
{
    install_signal_handlers();
    if (argc < 2)
        return usage_error("%s", "no script given");
    const char *first = argv[1];
    if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0) {
        fputs(usage_text, stdout);
        return RE_EXIT_OK;
    }
    if (strcmp(first, "-V") == 0 || strcmp(first, "--version") == 0) {
        print_version();
        return RE_EXIT_OK;
    }
    if (strcmp(first, "check") == 0)
        return cli_check(argc - 1, argv + 1);
    if (strcmp(first, "render") == 0)
        return cli_render(argc - 2, argv + 2);
    return cli_render(argc - 1, argv + 1);
}
