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
#include "lexicon.h"
#include "normalize.h"
#include "script.h"
#include "synth.h"
#include "voice.h"

#define MAX_LIST 16    /* --voices and --lexicon, each */
#define WHY_LEN 512

static const char explain_usage[] =
    "usage: render-episode explain SCRIPT [--lexicon FILE]... [--voices DIR]...\n"
    "                              [--no-default-lexicon] [--max-size BYTES]\n"
    "\n"
    "Prints, for each piece of speech in SCRIPT, its place and the text as it will be\n"
    "spoken (after the pronunciation lexicon and normalization), then, indented, the\n"
    "phonemes the engine will use (espeak-ng's mnemonics, as `espeak-ng -x` prints them):\n"
    "\n"
    "  SCRIPT:LINE:COL: spoken text\n"
    "      phonemes\n"
    "\n"
    "  --lexicon FILE          also use this lexicon, above the others (repeatable)\n"
    "  --voices DIR            look for voice profiles and default.lexicon in DIR first\n"
    "                          (repeatable)\n"
    "  --no-default-lexicon    leave out default.lexicon\n"
    "  --max-size BYTES        refuse scripts larger than this (default 8388608)\n"
    "  -h, --help              this help\n"
    "\n"
    "Exit status: 0 ok, 1 usage error, 2 invalid script, voice profile or lexicon, or an\n"
    "engine failure.\n";

typedef struct explain_cli {
    const char *script;
    const char *lexicons[MAX_LIST];
    size_t lexicon_count;
    const char *voice_dirs[MAX_LIST + 3];
    size_t voice_dir_count;
    char *exe_voices;
    unsigned long max_size;
    int no_default_lexicon;
    int help;
} explain_cli;

/* What explain works with once the inputs are loaded. */
typedef struct explanation {
    re_episode *episode;
    re_voice_set *voices;
    re_lexicon *lexicon;
    re_engine *engine;
    const re_voice_profile **profiles;   /* per distinct voice of the episode */
} explanation;

static volatile sig_atomic_t explain_stop;

static void on_stop(int sig)
{
    explain_stop = sig;
}

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

/* The script's `lexicon:` front-matter value and its place; NULL while script.c does not
 * parse the key. */
static const char *front_matter_lexicon(const re_episode *episode, unsigned *line, unsigned *col)
{
    *line = episode->lexicon_line;
    *col = episode->lexicon_col;
    return episode->lexicon;
}

static re_status load_inputs(const explain_cli *cli, explanation *x, re_diagnostics *diag)
{
    re_status status = re_script_load(cli->script, cli->max_size, &x->episode, diag);
    if (status == RE_OK)
        status = re_voice_set_create(&x->voices);
    for (size_t i = 0; status == RE_OK && i < cli->voice_dir_count; i++)
        status = re_voice_set_add_dir(x->voices, cli->voice_dirs[i]);
    if (status == RE_OK)
        status = re_episode_check_voices(x->episode, x->voices, diag);
    if (status != RE_OK)
        return status;
    re_lexicon_sources sources = {
        .dirs = cli->voice_dirs, .dir_count = cli->voice_dir_count,
        .no_default = cli->no_default_lexicon, .script_path = cli->script,
        .paths = cli->lexicons, .path_count = cli->lexicon_count,
    };
    sources.front_matter = front_matter_lexicon(x->episode, &sources.front_matter_line,
                                                &sources.front_matter_col);
    status = re_lexicon_build(&sources, &x->lexicon, diag);
    if (status != RE_OK)
        return status;
    x->profiles = calloc(x->episode->voice_count ? x->episode->voice_count : 1,
                         sizeof *x->profiles);
    if (!x->profiles)
        return RE_ERR_NOMEM;
    for (size_t i = 0; status == RE_OK && i < x->episode->voice_count; i++)
        status = re_voice_set_get(x->voices, x->episode->voices[i], &x->profiles[i], diag);
    return status;
}

static const re_voice_profile *profile_of(const explanation *x, const char *voice)
{
    for (size_t i = 0; i < x->episode->voice_count; i++)
        if (strcmp(x->episode->voices[i], voice) == 0)
            return x->profiles[i];
    return NULL;
}

static re_status fail_at(re_diagnostics *diag, re_status status, const char *file,
                         const re_item *item, const char *why)
{
    re_status s = re_diag_add(diag, file, item ? item->line : 0, item ? item->col : 0, "%s", why);
    return s == RE_OK ? status : s;
}

/* The first SPEECH item with `voice`, to point an engine error at. */
static const re_item *first_use(const re_episode *episode, const char *voice)
{
    for (size_t i = 0; i < episode->item_count; i++)
        if (episode->items[i].kind == RE_ITEM_SPEECH && strcmp(episode->items[i].voice, voice) == 0)
            return &episode->items[i];
    return NULL;
}

static re_status start_engine(explanation *x, const char *script, re_diagnostics *diag)
{
    char why[WHY_LEN], message[WHY_LEN + 80];
    re_status status = re_engine_create(&explain_stop, &x->engine, why, sizeof why);
    if (status != RE_OK)
        return fail_at(diag, status, script, NULL, why);
    for (size_t i = 0; i < x->episode->voice_count; i++) {
        status = re_engine_check_voice(x->engine, x->profiles[i], why, sizeof why);
        if (status != RE_OK) {
            snprintf(message, sizeof message, "voice profile '%s': %s", x->profiles[i]->name, why);
            return fail_at(diag, status, script, first_use(x->episode, x->profiles[i]->name),
                           message);
        }
    }
    return RE_OK;
}

/* Prints one SPEECH item: its place and spoken text, then its phonemes, indented. */
static re_status explain_item(const explanation *x, const re_item *item, re_diagnostics *diag)
{
    char *spoken = NULL, *phonemes = NULL, why[WHY_LEN];
    unsigned flags;
    re_status status = re_normalize(x->lexicon, item->text, &spoken, &flags);
    if (status == RE_OK)
        status = re_engine_phonemes(x->engine, spoken, flags, profile_of(x, item->voice),
                                    &phonemes, why, sizeof why);
    else
        snprintf(why, sizeof why, "cannot normalize the text: %s", re_strerror(status));
    if (status == RE_OK)
        printf("%s:%u:%u: %s\n    %s\n", x->episode->file, item->line, item->col, spoken,
               phonemes);
    else if (status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED)
        status = fail_at(diag, status, x->episode->file, item, why);
    free(spoken);
    free(phonemes);
    return status;
}

static re_status explain_all(explanation *x, const char *script, re_diagnostics *diag)
{
    re_status status = start_engine(x, script, diag);
    for (size_t i = 0; status == RE_OK && i < x->episode->item_count; i++) {
        if (x->episode->items[i].kind == RE_ITEM_SPEECH)
            status = explain_item(x, &x->episode->items[i], diag);
        if (status == RE_OK && explain_stop)
            status = RE_ERR_INTERRUPTED;
    }
    if (status == RE_OK && fflush(stdout) != 0)
        status = fail_at(diag, RE_ERR_WRITE, "(stdout)", NULL, strerror(errno));
    return status;
}

static void install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;   /* no SA_RESTART: waits return early and see the flag */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}


int cli_explain(int argc, char **argv)
{
    explain_cli cli = { .max_size = RE_SCRIPT_DEFAULT_MAX_SIZE };
    int rc = parse_args(argc, argv, &cli);
    if (rc >= 0)
        return rc;
    cli.voice_dir_count = cli_add_default_voice_dirs(cli.voice_dirs, cli.voice_dir_count, &cli.exe_voices);
    install_signal_handlers();
    explanation x = { 0 };
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = load_inputs(&cli, &x, &diag);
    if (status == RE_OK)
        status = explain_all(&x, cli.script, &diag);
    cli_print_diagnostics(&diag);
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && diag.count == 0)
        fprintf(stderr, "render-episode explain: %s: %s\n", cli.script, re_strerror(status));
    re_engine_free(x.engine);
    re_lexicon_free(x.lexicon);
    free(x.profiles);
    re_voice_set_free(x.voices);
    re_episode_free(x.episode);
    re_diagnostics_free(&diag);
    free(cli.exe_voices);
    if (status == RE_ERR_INTERRUPTED && explain_stop)
        return 128 + explain_stop;
    return status == RE_OK ? RE_EXIT_OK : RE_EXIT_FAILURE;
}
