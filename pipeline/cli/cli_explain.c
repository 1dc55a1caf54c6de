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
#include "script.h"

#define MAX_LIST 16    /* --voices, --lexicon and --allow-path, each */

static const char explain_usage[] =
    "usage: render-episode explain SCRIPT [--lexicon FILE]... [--voices DIR]...\n"
    "                              [--no-default-lexicon] [--allow-path DIR]... [--max-size BYTES]\n"
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
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 ok, 1 usage error, 2 invalid script, voice profile or lexicon, or an\n"
    "engine failure.\n";

typedef struct explain_cli {
    const char *script;
    const char *lexicons[MAX_LIST];
    size_t lexicon_count;
    const char *allowed_dirs[MAX_LIST];
    size_t allowed_dir_count;
    const char *voice_dirs[MAX_LIST + 3];
    size_t voice_dir_count;
    char *exe_voices;
    unsigned long max_size;
    int no_default_lexicon;
    int help;
} explain_cli;

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "render-episode explain: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'render-episode explain --help'.\n");
    return RE_EXIT_USAGE;
}

/* "--name VALUE" or "--name=VALUE": the value, or NULL (after a usage message). */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", name);
        return NULL;
    }
    return argv[++*i];
}

static int is_option(const char *arg, const char *name)
{
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int add_to_list(const char **list, size_t *count, const char *value, const char *option)
{
    if (*count == MAX_LIST) {
        fprintf(stderr, "render-episode explain: at most %d %s options\n", MAX_LIST, option);
        return 0;
    }
    list[(*count)++] = value;
    return 1;
}

static int parse_size(const char *text, unsigned long *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long value = text[0] >= '0' && text[0] <= '9' ? strtoul(text, &end, 10) : 0;
    if (!end || *end != '\0' || errno == ERANGE || value < 1 || value > (1UL << 30)) {
        fprintf(stderr, "render-episode explain: --max-size needs a whole number from 1 to "
                "%lu, not '%s'\n", 1UL << 30, text);
        return 0;
    }
    *out = value;
    return 1;
}

/* Parses argv (argv[0] is "explain"). Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, explain_cli *cli)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            cli->help = 1;
        } else if (is_option(arg, "--lexicon")) {
            if (!(v = option_value(argc, argv, &i, "--lexicon"))
                || !add_to_list(cli->lexicons, &cli->lexicon_count, v, "--lexicon"))
                return RE_EXIT_USAGE;
        } else if (is_option(arg, "--allow-path")) {
            if (!(v = option_value(argc, argv, &i, "--allow-path"))
                || !add_to_list(cli->allowed_dirs, &cli->allowed_dir_count, v, "--allow-path"))
                return RE_EXIT_USAGE;
        } else if (is_option(arg, "--voices")) {
            if (!(v = option_value(argc, argv, &i, "--voices"))
                || !add_to_list(cli->voice_dirs, &cli->voice_dir_count, v, "--voices"))
                return RE_EXIT_USAGE;
        } else if (strcmp(arg, "--no-default-lexicon") == 0) {
            cli->no_default_lexicon = 1;
        } else if (is_option(arg, "--max-size")) {
            if (!(v = option_value(argc, argv, &i, "--max-size")) || !parse_size(v, &cli->max_size))
                return RE_EXIT_USAGE;
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
    if (cli->help) {
        fputs(explain_usage, stdout);
        return RE_EXIT_OK;
    }
    if (!cli->script)
        return usage_error("%s", "no script given");
    return -1;
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

int cli_explain(int argc, char **argv)
{
    explain_cli cli = { .max_size = RE_SCRIPT_DEFAULT_MAX_SIZE };
    int rc = parse_args(argc, argv, &cli);
    if (rc >= 0)
        return rc;
    cli.voice_dir_count = cli_add_default_voice_dirs(cli.voice_dirs, cli.voice_dir_count, &cli.exe_voices);
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_episode_sources sources = {
        .script_path = cli.script, .max_script_size = cli.max_size,
        .voice_dirs = cli.voice_dirs, .voice_dir_count = cli.voice_dir_count,
        .lexicon_paths = cli.lexicons, .lexicon_path_count = cli.lexicon_count,
        .no_default_lexicon = cli.no_default_lexicon,
        .allowed_dirs = cli.allowed_dirs, .allowed_dir_count = cli.allowed_dir_count,
    };
    print_outline(&cli);
    re_status status = re_explain(&sources, &cli_stop_signal, print_item, NULL, &diag);
    if (status == RE_OK && fflush(stdout) != 0)
        status = re_diag_add(&diag, "(stdout)", 0, 0, "%s", strerror(errno)) == RE_OK
                     ? RE_ERR_WRITE : RE_ERR_NOMEM;
    cli_print_diagnostics(&diag);
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && diag.count == 0)
        fprintf(stderr, "render-episode explain: %s: %s\n", cli.script, re_strerror(status));
    re_diagnostics_free(&diag);
    free(cli.exe_voices);
    if (status == RE_ERR_INTERRUPTED && cli_stop_signal)
        return 128 + cli_stop_signal;
    return status == RE_OK ? RE_EXIT_OK : RE_EXIT_FAILURE;
}
