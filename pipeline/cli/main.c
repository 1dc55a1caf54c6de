/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c - render-episode's command line: dispatch subcommands, and the render command
 * itself. Parses options, calls the library, prints, maps statuses to exit codes (0 ok,
 * 1 usage, 2 input or render failure, 128+N on signal N). */
#define _GNU_SOURCE
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <ebur128.h>
#include <espeak-ng/speak_lib.h>
#include <flite/flite_version.h>
#include <jansson.h>
#include <jpeglib.h>
#include <lame/lame.h>
#include <libxml/xmlversion.h>
#include <libxml/globals.h>
#include <mpg123.h>
#include <nettle/version.h>
#include <png.h>
#include <sndfile.h>
#include <soxr.h>

#include "cli.h"
#include "curl_lib.h"
#include "duration.h"
#include "render.h"
#include "status.h"
#include "utf8.h"

static const char usage_text[] =
    "usage: render-episode [render] SCRIPT [-o OUT.mp3|OUT.wav] [options]\n"
    "       render-episode batch [-j N] -O OUTDIR FILE|DIR... [options]\n"
    "       render-episode check MP3 [FILE...] [--json] [--fix] [--tolerance DURATION]\n"
    "       render-episode check DIR [--json] [--tolerance DURATION]\n"
    "       render-episode feed OUTDIR --base-url URL [-o FEED.xml] [--show FILE]\n"
    "       render-episode cache --stats | --prune SIZE [--cache DIR]\n"
    "       render-episode explain [--lexicon FILE] SCRIPT\n"
    "       render-episode voices [--voices DIR]\n"
    "\n"
    "Turns an episode script into a podcast MP3 (or WAV), its sidecar OUT.json, a WebVTT\n"
    "transcript OUT.vtt and, when the script has headings, OUT.chapters.json.\n"
    "\n"
    "Render options:\n"
    "  -o, --output FILE        output file, .mp3 or .wav (default: SCRIPT with .mp3)\n";

static const char usage_tail[] =
    "  -h, --help               this help\n"
    "  -V, --version            versions of the program and its libraries\n"
    "\n"
    "Run 'render-episode help COMMAND' (or 'render-episode COMMAND --help') for render, batch,\n"
    "check, feed, cache, explain and voices; 'man render-episode' for the manual. A script\n"
    "named like a command is rendered with 'render-episode render -- NAME' or './NAME'.\n"
    "\n"
    "Exit status: 0 ok, 1 usage error (or, for check, a claim that does not hold),\n"
    "2 invalid input or failed render (nothing written), 130/143 interrupted.\n";

static int print_help(void)
{
    fputs(usage_text, stdout);
    fputs(re_cli_render_options_help, stdout);
    fputs(usage_tail, stdout);
    return fflush(stdout) == 0 ? RE_EXIT_OK : RE_EXIT_FAILURE;
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

typedef struct render_cli {
    cli_render_settings settings;
    const char *script;
    const char *output;
} render_cli;

static int take_script(void *context, const char *arg)
{
    render_cli *cli = context;
    if (cli->script)
        return re_cli_usage_error(NULL, "one script at a time (got a second one: '%s'); see 'batch'",
                                  arg);
    cli->script = arg;
    return 0;
}

static const cli_option render_own_options[] = {
    { "output", 'o', CLI_TEXT, CLI_AT(render_cli, output), .value_name = "FILE" },
    CLI_HELP_OPTION,
};

/* Returns CLI_GO_ON, or an exit status. */
static int parse_render_args(int argc, char **argv, render_cli *cli)
{
    cli_group groups[] = { CLI_GROUP(render_own_options, cli), re_cli_render_group(&cli->settings) };
    cli_command command = { .name = NULL, .help = { usage_text, re_cli_render_options_help, usage_tail },
                            .groups = groups, .group_count = 2, .dashdash_one = 1,
                            .operand = take_script, .context = cli };
    int rc = re_cli_scan(&command, argc, argv);
    if (rc == CLI_GO_ON && !cli->script)
        return re_cli_usage_error(NULL, "%s", "no script given");
    return rc;
}

/* argv[0] is the word "render", or the program's name when the command was left out. */
static int cli_render(int argc, char **argv)
{
    render_cli cli = { .script = NULL };
    re_cli_render_settings_init(&cli.settings, NULL);
    cli_render_settings *s = &cli.settings;
    char *default_output = NULL;
    int rc = parse_render_args(argc, argv, &cli);
    if (rc != CLI_GO_ON) {
        re_cli_render_settings_free(s);
        return rc;
    }
    const char *script = cli.script, *output = cli.output;
    struct stat st;
    if (stat(script, &st) == 0 && S_ISDIR(st.st_mode)) {   /* what batch is for: say so */
        char *shown = re_utf8_shown(script);
        fprintf(stderr, "%s: a folder, not a script; to render every script in it, run: "
                "render-episode batch -O OUTDIR %s\n", shown ? shown : script, shown ? shown : script);
        free(shown);
        re_cli_render_settings_free(s);
        return RE_EXIT_FAILURE;
    }
    if (!output) {
        const char *slash = strrchr(script, '/'), *dot = strrchr(script, '.');
        size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - script) : strlen(script);
        if (asprintf(&default_output, "%.*s.mp3", (int)stem, script) < 0) {
            re_cli_render_settings_free(s);
            return RE_EXIT_FAILURE;
        }
        output = default_output;
    }
    if (!re_render_format_of(output)) {
        re_cli_usage_error(NULL, "the output name must end in .mp3 or .wav: '%s'", output);
        free(default_output);
        re_cli_render_settings_free(s);
        return RE_EXIT_USAGE;
    }
    s->options.output_path = output;   /* a WAV has no bitrate to check */
    int finished = re_cli_render_settings_finish(s);
    if (finished != 0) {
        free(default_output);
        re_cli_render_settings_free(s);
        return finished == RE_EXIT_FAILURE ? RE_EXIT_FAILURE : RE_EXIT_USAGE;
    }
    int show_progress = !s->quiet && isatty(STDERR_FILENO);
    s->options.script_path = script;
    s->options.output_path = output;
    s->options.progress = show_progress ? print_progress : NULL;

    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_render_result result;
    re_status status = re_render(&s->options, &result, &diag);
    if (show_progress)
        fprintf(stderr, "\r\033[K");
    re_cli_print_diagnostics(&diag);
    if (status == RE_ERR_INTERRUPTED)
        fprintf(stderr, "render-episode: interrupted; nothing was written\n");
    else if (status != RE_OK && diag.count == 0)
        re_cli_error(NULL, "%s: %s", script, re_strerror(status));
    if (status == RE_OK && s->timings) {
        re_cli_print_timings(output, result.steps, NULL);
        fprintf(stderr, "  encodes: %u whole, %u local\n", result.encodes_whole,
                result.encodes_local);
    }
    if (status == RE_OK) {
        uint64_t ms = re_samples_to_ms(result.samples, result.sample_rate);   /* the project's rule */
        printf("%s: %s, %llu.%03llu s, %llu bytes, %.1f LUFS, %.1f dBTP\n", output, result.duration,
               (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000), result.bytes,
               result.loudness.integrated_lufs, result.loudness.true_peak_dbtp);
        if (!result.loudness_met)
            re_cli_error(NULL, "warning: %s: the loudness target was not reached (%.1f LUFS, "
                         "%.1f dBTP)", output, result.loudness.integrated_lufs,
                         result.loudness.true_peak_dbtp);
        if (fflush(stdout) != 0) {
            re_cli_error(NULL, "%s was written, but the summary line could not be printed: %s",
                         output, strerror(errno));
            status = RE_ERR_WRITE;
        }
    }
    re_diagnostics_free(&diag);
    free(default_output);
    re_cli_render_settings_free(s);
    return re_cli_exit_status(status);
}

/* The subcommands; argv[0] is the command's name when one is called. */
static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    { "render", cli_render }, { "batch", re_cli_batch }, { "check", re_cli_check },
    { "feed", re_cli_feed }, { "cache", re_cli_cache }, { "explain", re_cli_explain },
    { "voices", re_cli_voices },
};

static const struct command *command_named(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* `help` and `help COMMAND`: the command's own --help. */
static int cli_help(int argc, char **argv)
{
    if (argc < 2)
        return print_help();
    if (argc > 2)
        return re_cli_usage_error(NULL, "help takes one command (got also '%s')", argv[2]);
    const struct command *command = command_named(argv[1]);
    if (!command)
        return re_cli_usage_error(NULL, "no command '%s'; the commands are render, batch, check, "
                                  "feed, cache, explain, voices", argv[1]);
    char *help_argv[] = { argv[1], "--help", NULL };
    return command->run(2, help_argv);
}

#define JPEG_STRINGIFY(x) #x
#define JPEG_VERSION_TEXT(x) JPEG_STRINGIFY(x)
#define JPEG_TURBO_BUILT_VERSION JPEG_VERSION_TEXT(LIBJPEG_TURBO_VERSION)

/* The program's version, then each library's as the library itself reports it at run time
 * (libmpg123 1.31, flite and libjpeg-turbo have no such call: the version built against).
 * libcurl, which a render loads only for a remote cache (curl_lib.h), is loaded to be asked;
 * flite, loaded only for a natural voice, is not: its version is the one built against. */
static void print_version(void)
{
    printf("render-episode %s\n", RE_VERSION);
    printf("espeak-ng %s\n", espeak_Info(NULL));
    printf("flite %s (built with: it has no run-time version call)\n", FLITE_PROJECT_VERSION);
    printf("LAME %s\n", get_lame_version());
    const char *sndfile = sf_version_string();
    printf("libsndfile %s\n", strncmp(sndfile, "libsndfile-", 11) == 0 ? sndfile + 11 : sndfile);
    printf("libmpg123 %s (built with: 1.31 has no run-time version call)\n",
           RE_MPG123_BUILT_VERSION);
    int major = 0, minor = 0, patch = 0;
    ebur128_get_version(&major, &minor, &patch);
    printf("libebur128 %d.%d.%d\n", major, minor, patch);
    const char *soxr = soxr_version();   /* "libsoxr-0.1.3" */
    printf("libsoxr %s\n", strncmp(soxr, "libsoxr-", 8) == 0 ? soxr + 8 : soxr);
    long xml = strtol(xmlParserVersion, NULL, 10);   /* "20914" */
    printf("libxml2 %ld.%ld.%ld\n", xml / 10000, xml / 100 % 100, xml % 100);
    printf("jansson %s\n", jansson_version_str());
    printf("nettle %d.%d\n", nettle_version_major(), nettle_version_minor());
    const char *why = NULL;
    const re_curl_api *curl = re_curl(&why);
    if (curl)
        printf("libcurl %s\n", curl->version_info(CURLVERSION_NOW)->version);
    else
        printf("libcurl: %s\n", why);
    printf("libpng %s\n", png_get_libpng_ver(NULL));
    printf("libjpeg-turbo %s (built with: it has no run-time version call)\n",
           JPEG_TURBO_BUILT_VERSION);
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* A fixed mmap threshold: large blocks (a paragraph's audio, megabytes) are mapped and
     * unmapped on free. glibc's default raises the threshold after the first such free, so
     * the next ones are cut from the heap, where the small blocks kept for the whole render
     * (cues, chapters) pin them: megabytes of freed but resident memory. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    re_cli_install_signals();
    if (argc < 2)
        return re_cli_usage_error(NULL, "%s", "no script given");
    const char *first = argv[1];
    if (strcmp(first, "-h") == 0 || strcmp(first, "--help") == 0)
        return print_help();
    if (strcmp(first, "-V") == 0 || strcmp(first, "--version") == 0) {
        print_version();
        return RE_EXIT_OK;
    }
    if (strcmp(first, "help") == 0)
        return cli_help(argc - 1, argv + 1);
    const struct command *command = command_named(first);
    if (command)
        return command->run(argc - 1, argv + 1);
    return cli_render(argc, argv);   /* the program's name stands for the word "render" */
}
