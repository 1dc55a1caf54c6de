/* outputs.c - an episode's files: opened together, published all or nothing (see outputs.h). */
#define _GNU_SOURCE
#include "outputs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each file's name beside OUT (NULL: OUT itself). */
static const char *const suffix_of[OUTPUT_KINDS] = {
    [OUTPUT_AUDIO] = NULL, [OUTPUT_VTT] = ".vtt", [OUTPUT_SRT] = ".srt",
    [OUTPUT_TRANSCRIPT_JSON] = ".transcript.json", [OUTPUT_CHAPTERS] = ".chapters.json",
    [OUTPUT_PAGE] = ".md", [OUTPUT_SIDECAR] = ".json",
};

/* The order files are opened in, so that the first one refused is the one named. */
static const output_kind open_order[OUTPUT_KINDS] = {
    OUTPUT_AUDIO, OUTPUT_SIDECAR, OUTPUT_VTT, OUTPUT_SRT, OUTPUT_TRANSCRIPT_JSON, OUTPUT_CHAPTERS,
    OUTPUT_PAGE,
};

struct output_set {
    const char *output_path;
    output_choice choice;
    re_output *files[OUTPUT_KINDS];   /* NULL for files not in the set, or gone */
};

int output_wanted(const output_choice *choice, output_kind kind)
{
    switch (kind) {
    case OUTPUT_AUDIO: case OUTPUT_VTT: case OUTPUT_SIDECAR: return 1;
    case OUTPUT_SRT: return choice->srt;
    case OUTPUT_TRANSCRIPT_JSON: return choice->transcript_json;
    case OUTPUT_CHAPTERS: return choice->chapters;
    case OUTPUT_PAGE: return choice->page;
    case OUTPUT_KINDS: break;
    }
    return 0;
}

static char *path_of(const char *output_path, output_kind kind)
{
    return suffix_of[kind] ? re_output_sibling(output_path, suffix_of[kind]) : strdup(output_path);
}

/* No output may replace the script being rendered. */
static re_status refuse_script(const char *path, const char *script_path, re_diagnostics *diag)
{
    struct stat in_st, out_st;
    if (stat(path, &out_st) == 0 && stat(script_path, &in_st) == 0
        && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino)
        return re_diag_fail(diag, RE_ERR_WRITE, path, 0, 0, "this output would overwrite the "
                            "script itself; choose another output name");
    return RE_OK;
}

static re_status open_one(output_set *set, const char *script_path, output_kind kind,
                          re_diagnostics *diag)
{
    char *path = path_of(set->output_path, kind);
    if (!path)
        return RE_ERR_NOMEM;
    re_status status = refuse_script(path, script_path, diag);
    if (status == RE_OK)
        status = re_output_open(path, &set->files[kind], diag);
    free(path);
    return status;
}

re_status output_set_open(const char *output_path, const char *script_path,
                          const output_choice *choice, output_set **out, re_diagnostics *diag)
{
    *out = NULL;
    output_set *set = calloc(1, sizeof *set);
    if (!set)
        return RE_ERR_NOMEM;
    set->output_path = output_path;
    set->choice = *choice;
    re_status status = RE_OK;
    for (int k = 0; status == RE_OK && k < OUTPUT_KINDS; k++)
        if (output_wanted(choice, open_order[k]))
            status = open_one(set, script_path, open_order[k], diag);
    if (status != RE_OK) {
        output_set_free(set);
        return status;
    }
    *out = set;
    return RE_OK;
}

re_output *output_set_file(output_set *set, output_kind kind)
{
    return set->files[kind];
}

/* A chapters file from an earlier render of a script that has no headings any more would
 * publish chapters the audio does not have. */
static void remove_stale(const output_set *set, output_kind kind)
{
    char *path = re_output_sibling(set->output_path, suffix_of[kind]);
    if (path)
        unlink(path);
    free(path);
}

re_status output_set_publish(output_set *set, volatile sig_atomic_t *stop, re_diagnostics *diag)
{
    re_output *order[OUTPUT_KINDS];
    size_t n = 0;
    for (int k = 0; k < OUTPUT_KINDS; k++)
        if (set->files[k])
            order[n++] = set->files[k];
    for (size_t i = 0; i < n; i++) {
        re_status status = re_output_prepare(order[i], diag);
        if (status != RE_OK)
            return status;
    }
    if (stop && *stop)
        return RE_ERR_INTERRUPTED;
    char *targets[OUTPUT_KINDS], *backups[OUTPUT_KINDS];
    re_status status = RE_OK;
    for (size_t i = 0; i < n; i++) {
        targets[i] = strdup(re_output_target(order[i]));
        backups[i] = NULL;
        if (!targets[i])
            status = RE_ERR_NOMEM;
        else if (status == RE_OK)
            status = re_output_backup(targets[i], &backups[i]);
    }
    memset(set->files, 0, sizeof set->files);   /* from here each is published or discarded */
    size_t published = 0;
    for (size_t i = 0; i < n; i++) {
        if (status != RE_OK) {
            re_output_discard(order[i]);
            continue;
        }
        status = re_output_publish(order[i], diag);
        if (status == RE_OK)
            published++;
    }
    /* All or nothing: on a failure, yesterday's files go back where they were. */
    for (size_t i = 0; i < n; i++) {
        if (status != RE_OK && i < published)
            re_output_restore(targets[i], backups[i]);
        else
            re_output_drop_backup(backups[i]);
        free(targets[i]);
    }
    if (status == RE_OK && !output_wanted(&set->choice, OUTPUT_CHAPTERS))
        remove_stale(set, OUTPUT_CHAPTERS);
    return status;
}

int output_set_present(const char *output_path, const output_choice *choice)
{
    int present = 1;
    for (int k = 0; present && k < OUTPUT_KINDS; k++) {
        if (k == OUTPUT_AUDIO || k == OUTPUT_SIDECAR || !output_wanted(choice, k))
            continue;
        char *path = path_of(output_path, k);
        present = path && access(path, F_OK) == 0;
        free(path);
    }
    return present;
}

void output_set_free(output_set *set)
{
    if (!set)
        return;
    for (int k = 0; k < OUTPUT_KINDS; k++)
        re_output_discard(set->files[k]);
    free(set);
}
