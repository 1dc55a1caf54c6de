/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_voices.c - `render-episode voices [--voices DIR]...`: the voice profiles a render
 * would find, each with its engine and the engine's voice, and the engines that speak them.
 * A profile that is invalid, or whose engine has no such voice, is reported at its file
 * (exit 2), so the command also checks a voices folder before a render needs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "synth.h"
#include "voice.h"

static const char voices_usage[] =
    "usage: render-episode voices [--voices DIR]...\n"
    "\n"
    "Lists the voice profiles in the voice folders (those given with --voices first, then\n"
    "the shipped ones), as a script finds them by name: each one's engine (espeak-ng, or\n"
    "flite for a natural English voice), the engine's voice, the speaker and the file. Each\n"
    "profile is checked: an invalid one is reported at its FILE:LINE:COL, one naming a voice\n"
    "its engine does not have at its FILE.\n"
    "\n"
    "  --voices DIR    look for voice profiles in DIR, first (repeatable)\n"
    "  -h, --help      this help\n"
    "\n"
    "A profile chooses its engine with 'engine = flite' (voices rms, slt, awb); without it,\n"
    "espeak-ng speaks ('espeak-ng --voices' lists its voices). docs/script-format.md says how.\n"
    "\n"
    "Exit status: 0 every profile is good, 1 usage error, 2 a profile is not.\n";

typedef struct voices_cli {
    cli_list voice_dirs;
    char *exe_voices;
} voices_cli;

static int no_operand(void *context, const char *arg)
{
    (void)context;
    return re_cli_usage_error("voices", "unexpected argument '%s' (voices takes only --voices DIR)",
                              arg);
}

#define V(member) CLI_AT(voices_cli, member)
static const cli_option voices_options[] = {
    { "voices", 0, CLI_LIST, V(voice_dirs), .value_name = "DIR" },
    CLI_HELP_OPTION,
};
#undef V

/* One profile's line. RE_OK when it is good, RE_ERR_INPUT when it is not (its reasons in
 * diag), RE_ERR_INTERRUPTED or RE_ERR_NOMEM when the listing must stop. */
static re_status list_profile(re_voice_set *set, re_engine *engine, const char *name,
                              re_diagnostics *diag)
{
    const re_voice_profile *profile;
    re_voice_lookup how;
    size_t from = diag->count;
    re_status status = re_voice_set_find(set, name, &profile, &how, diag);
    const char *file = re_voice_set_file(set, name);
    if (status == RE_OK) {
        status = re_engine_check_voice(engine, profile, diag);
        if (status != RE_OK)
            re_diag_place(diag, from, file, 0, 0);
    }
    if (status == RE_ERR_INTERRUPTED || status == RE_ERR_NOMEM)
        return status;
    if (status != RE_OK) {
        printf("%-20s %-10s %-12s %-12s %s\n", name, "-", "-", "(invalid)",
               file ? file : "");
        return RE_ERR_INPUT;
    }
    printf("%-20s %-10s %-12s %-12s %s\n", name, re_voice_engine_name(profile->engine),
           profile->engine_voice, profile->speaker, file ? file : "");
    return RE_OK;
}

int re_cli_voices(int argc, char **argv)
{
    voices_cli cli = { 0 };
    cli_group groups[] = { CLI_GROUP(voices_options, &cli) };
    cli_command command = { .name = "voices", .help = { voices_usage }, .groups = groups,
                            .group_count = 1, .operand = no_operand };
    int rc = re_cli_scan(&command, argc, argv);
    re_voice_set *set = NULL;
    re_engine *engine = NULL;
    char **names = NULL;
    size_t count = 0;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = RE_OK;
    if (rc != CLI_GO_ON)
        goto done;
    rc = RE_EXIT_FAILURE;
    if (re_cli_add_default_voice_dirs(&cli.voice_dirs, &cli.exe_voices) != 0
        || re_voice_set_create(&set) != RE_OK) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; status == RE_OK && i < cli.voice_dirs.count; i++)
        status = re_voice_set_add_dir(set, cli.voice_dirs.items[i]);
    if (status == RE_OK)
        status = re_voice_set_names(set, &names, &count);
    if (status == RE_OK)
        status = re_engine_create(&re_cli_stop_signal, &engine, &diag);
    if (status != RE_OK)
        goto done;
    re_voice_profile as = { .engine = RE_VOICE_ESPEAK_NG };
    printf("engines: %s", re_engine_name(engine, &as));
    as.engine = RE_VOICE_FLITE;
    printf(", %s (voices %s)\n", re_engine_name(engine, &as), RE_VOICE_FLITE_VOICES);
    printf("%-20s %-10s %-12s %-12s %s\n", "PROFILE", "ENGINE", "VOICE", "SPEAKER", "FILE");
    int bad = 0;
    for (size_t i = 0; status == RE_OK && i < count; i++) {
        re_status one = list_profile(set, engine, names[i], &diag);
        if (one == RE_ERR_INPUT)
            bad = 1;
        else
            status = one;
        if (status == RE_OK && re_cli_stop_signal)
            status = RE_ERR_INTERRUPTED;
    }
    if (status == RE_OK && count == 0)
        printf("(no profiles in %s)\n", re_voice_set_search_path(set));
    rc = status != RE_OK ? re_cli_exit_status(status) : bad ? RE_EXIT_FAILURE : RE_EXIT_OK;
    if (fflush(stdout) != 0 && rc == RE_EXIT_OK)
        rc = RE_EXIT_FAILURE;
done:
    re_cli_print_diagnostics(&diag);
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && diag.count == 0)
        re_cli_error("voices", "%s", re_strerror(status));
    if (status != RE_OK)
        rc = re_cli_exit_status(status);
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
    re_engine_free(engine);
    re_voice_set_free(set);
    re_diagnostics_free(&diag);
    re_cli_list_free(&cli.voice_dirs);
    free(cli.exe_voices);
    return rc;
}
