/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_explain.c - `render-episode explain SCRIPT`: for each piece of speech, where it is, the
 * text the engine will be given (after the lexicon and normalization) and the phonemes it will
 * say, without rendering audio. Exit status: 0 ok, 1 usage error, 2 invalid script, profile
 * or lexicon, or an engine failure (as FILE:LINE:COL: message on stderr), 128+N on signal N. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "explain.h"
#include "files.h"
#include "markdown.h"
#include "sample_rate.h"
#include "script.h"

static const char explain_usage[] =
    "usage: render-episode explain SCRIPT [--lexicon FILE]... [--voices DIR]...\n"
    "                              [--no-default-lexicon] [--allow-path DIR]... [--max-size BYTES]\n"
    "                              [--max-duration DURATION [--sample-rate HZ]]\n"
    "\n"
    "Prints, for each piece of speech in SCRIPT, its place and the text as it will be\n"
    "spoken (after the pronunciation lexicon and normalization), then, indented, the\n"
    "phonemes the engine will use (espeak-ng's mnemonics, as `espeak-ng -x` prints them)\n"
    "and the decisions of the rules, word by word:\n"
    "\n"
    "A Markdown document (*.md, *.markdown) is first accounted for block by block:\n"
    "\n"
    "  SCRIPT:LINE:COL: [KIND] spoken: TEXT | chapter: TITLE | title: TITLE | left out: WHY\n"
    "\n"
    "With --max-duration, it is then cut as a render with it cuts it (every block spoken once\n"
    "to be measured), and what was left out is said first:\n"
    "\n"
    "  SCRIPT: left out for --max-duration DURATION: WHAT of 'SECTION' in 'RELEASE' (WHY)\n"
    "\n"
    "  SCRIPT:LINE:COL: spoken text\n"
    "      phonemes\n"
    "      - WORD: what the rules decided for it (one line per word a rule took)\n"
    "\n"
    "  --lexicon FILE          also use this lexicon, above the others (repeatable)\n"
    "  --voices DIR            look for voice profiles and default.lexicon in DIR first\n"
    "                          (repeatable)\n"
    "  --no-default-lexicon    leave out default.lexicon\n"
    "  --allow-path DIR        the script may name files in DIR too, not only in its folder\n"
    "  --max-size BYTES        refuse scripts larger than this (default 8388608)\n"
    "  --max-duration DURATION cut a Markdown document as render --max-duration does (3m,\n"
    "                          90s, 2m30s, PT3M) and say what is left out\n"
    "  --sample-rate HZ        the rate the render will use, for --max-duration (default: the\n"
    "                          script's sample_rate:, else 22050)\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 ok, 1 usage error, 2 invalid script, voice profile or lexicon, or an\n"
    "engine failure.\n";

typedef struct explain_cli {
    const char *script;
    cli_list lexicons;
    cli_list allowed_dirs;
    cli_list voice_dirs;
    char *exe_voices;
    unsigned long max_size;
    int no_default_lexicon;
    re_explain_limit limit;
} explain_cli;

static int take_max_duration(const char *command, const cli_option *option, const char *value,
                             void *base)
{
    (void)option;
    explain_cli *cli = base;
    cli->limit.max_text = value;
    return re_cli_parse_max_duration(command, value, &cli->limit.max_us);
}

static int check_rate(const char *command, const cli_option *option, const char *value,
                      void *base)
{
    (void)option;
    if (re_rate_supported(((explain_cli *)base)->limit.sample_rate))
        return 0;
    return re_cli_usage_error(command, "--sample-rate must be " RE_RATES_TEXT ", not '%s'", value);
}

static int take_script(void *context, const char *arg)
{
    explain_cli *cli = context;
    if (cli->script)
        return re_cli_usage_error("explain", "one script at a time (got a second one: '%s')", arg);
    cli->script = arg;
    return 0;
}

#define E(member) CLI_AT(explain_cli, member)
static const cli_option explain_options[] = {
    { "lexicon", 0, CLI_LIST, E(lexicons), .value_name = "FILE" },
    { "voices", 0, CLI_LIST, E(voice_dirs), .value_name = "DIR" },
    { "no-default-lexicon", 0, CLI_FLAG, E(no_default_lexicon) },
    { "allow-path", 0, CLI_LIST, E(allowed_dirs), .value_name = "DIR" },
    { "max-size", 0, CLI_NUMBER, E(max_size), 1, 1UL << 30, "BYTES" },
    { "max-duration", 0, CLI_CALL, E(limit.max_us), .value_name = "DURATION",
      .needs = "a DURATION", .flags = CLI_ONCE, .check = take_max_duration },
    { "sample-rate", 0, CLI_NUMBER, E(limit.sample_rate), 22050, 48000, "HZ",
      .check = check_rate },
    CLI_HELP_OPTION,
};
#undef E

/* Parses argv (argv[0] is "explain"). Returns CLI_GO_ON, or an exit status. */
static int parse_args(int argc, char **argv, explain_cli *cli)
{
    cli_group groups[] = { CLI_GROUP(explain_options, cli) };
    cli_command command = { .name = "explain", .help = { explain_usage }, .groups = groups,
                            .group_count = 1, .dashdash_one = 1, .operand = take_script,
                            .context = cli };
    int rc = re_cli_scan(&command, argc, argv);
    if (rc == CLI_GO_ON && !cli->script)
        return re_cli_usage_error("explain", "%s", "no script given");
    if (rc == CLI_GO_ON && cli->limit.sample_rate && !cli->limit.max_us)
        return re_cli_usage_error("explain", "%s", "--sample-rate is for --max-duration");
    return rc;
}

static void explain_cli_free(explain_cli *cli)
{
    re_cli_list_free(&cli->lexicons);
    re_cli_list_free(&cli->allowed_dirs);
    re_cli_list_free(&cli->voice_dirs);
    free(cli->exe_voices);
}

/* A Markdown document's blocks, each with what is spoken of it or why it is left out. Its
 * errors are not printed here: re_explain reports them. */
static void print_outline(const explain_cli *cli)
{
    char *buf = NULL;
    size_t len = 0;
    re_md_outline outline = { 0 };
    re_diagnostics quiet;

    if (!re_script_is_markdown(cli->script))
        return;
    re_diagnostics_init(&quiet, RE_DIAG_DEFAULT_LIMIT);
    if (re_file_read(cli->script, cli->max_size, RE_READ_ANY, &buf, &len, &quiet) == RE_OK
        && re_markdown_outline(cli->script, buf, len, &outline, &quiet) == RE_OK) {
        for (size_t i = 0; i < outline.count; i++)
            printf("%s:%u:%u: [%s] %s\n", cli->script, outline.blocks[i].line,
                   outline.blocks[i].col, outline.blocks[i].kind, outline.blocks[i].account);
    }
    re_md_outline_free(&outline);
    re_diagnostics_free(&quiet);
    free(buf);
}

/* Prints one SPEECH item: its place and spoken text, then its phonemes, indented, then one
 * line per decision of the rules ("- HEAD: dictionary word, ..."), a part of a word indented
 * under the word. */
static void print_left_out(void *context, const char *file, const char *line)
{
    (void)context;
    printf("%s: %s\n", file, line);
}

static re_status print_item(void *context, const re_explained_item *item)
{
    (void)context;
    printf("%s:%u:%u: %s\n    %s\n", item->file, item->line, item->col, item->spoken,
           item->phonemes);
    size_t ends[8], depth = 0;   /* where the words holding this one end */
    for (size_t i = 0; i < item->decision_count; i++) {
        const re_spoken_decision *d = &item->decisions[i];
        size_t end = d->text_offset + d->text_length;
        while (depth > 0 && (end > ends[depth - 1] || d->text_offset >= ends[depth - 1]))
            depth--;
        printf("    %*s- %.*s: %s\n", (int)(2 * depth), "", (int)d->text_length,
               item->text + d->text_offset, d->what);
        if (depth < sizeof ends / sizeof ends[0])
            ends[depth++] = end;
    }
    return RE_OK;
}

int re_cli_explain(int argc, char **argv)
{
    explain_cli cli = { .max_size = RE_SCRIPT_DEFAULT_MAX_SIZE };
    int rc = parse_args(argc, argv, &cli);
    if (rc != CLI_GO_ON || re_cli_add_default_voice_dirs(&cli.voice_dirs, &cli.exe_voices) != 0) {
        if (rc == CLI_GO_ON)
            fprintf(stderr, "render-episode explain: out of memory\n");
        explain_cli_free(&cli);
        return rc == CLI_GO_ON ? RE_EXIT_FAILURE : rc;
    }
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_episode_sources sources = {
        .script_path = cli.script, .max_script_size = cli.max_size,
        .voice_dirs = cli.voice_dirs.items, .voice_dir_count = cli.voice_dirs.count,
        .lexicon_paths = cli.lexicons.items, .lexicon_path_count = cli.lexicons.count,
        .no_default_lexicon = cli.no_default_lexicon,
        .allowed_dirs = cli.allowed_dirs.items, .allowed_dir_count = cli.allowed_dirs.count,
    };
    print_outline(&cli);
    cli.limit.left_out = print_left_out;
    re_status status = re_explain(&sources, &cli.limit, &re_cli_stop_signal, print_item, NULL,
                                  &diag);
    if (status == RE_OK && fflush(stdout) != 0)
        status = re_diag_add(&diag, "(stdout)", 0, 0, "%s", strerror(errno)) == RE_OK
                     ? RE_ERR_WRITE : RE_ERR_NOMEM;
    re_cli_print_diagnostics(&diag);
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && diag.count == 0)
        re_cli_error("explain", "%s: %s", cli.script, re_strerror(status));
    re_diagnostics_free(&diag);
    explain_cli_free(&cli);
    if (status == RE_ERR_INTERRUPTED && re_cli_stop_signal)
        return 128 + re_cli_stop_signal;
    return status == RE_OK ? RE_EXIT_OK : RE_EXIT_FAILURE;
}
