/* SPDX-License-Identifier: GPL-3.0-or-later */
/* up_to_date.c - whether an episode's outputs may be kept as they are (see up_to_date.h). */
#define _GNU_SOURCE   /* asprintf */
#include "up_to_date.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "sidecar.h"

/* A set another user owns a file of is never up to date: they could have swapped in their own
 * audio and patched the sidecar to match (in a shared folder, rendering the same script
 * first). It is rendered again, and published over theirs. */
static void not_ours(re_diagnostics *diag, const char *path, uid_t owner)
{
    (void)re_diag_add(diag, path, 0, 0, "warning: not up to date: it belongs to another user "
                      "(uid %ju), who could have changed the episode's files; rendering it "
                      "again", (uintmax_t)owner);
}

/* Every file the sidecar lists is still as the render wrote it (an edited transcript, which
 * the feed would refuse as stale, is written again), and the running user's or root's. */
static int listed_files_unchanged(const char *output_path, const re_sidecar *side,
                                  re_diagnostics *diag)
{
    int same = side->has_files;
    for (size_t i = 0; same && i < side->file_count; i++) {
        const char *slash = strrchr(output_path, '/');
        char *path = NULL;
        if (asprintf(&path, "%.*s%s", slash ? (int)(slash - output_path + 1) : 0, output_path,
                     side->files[i].name) < 0)
            return 0;
        uid_t owner = 0;
        re_sidecar_match match = re_sidecar_file_match(path, &side->files[i], &owner);
        if (match == RE_SIDECAR_FOREIGN)
            not_ours(diag, path, owner);
        same = match == RE_SIDECAR_MATCH;
        free(path);
    }
    return same;
}

/* The sidecar is read without waiting (a FIFO in its place is not one). */
int re_render_up_to_date(const char *output_path, const char *format, const char *inputs_sha256,
                         const output_choice *choice, re_render_result *result,
                         re_diagnostics *diag)
{
    char *sidecar_path = re_sidecar_path(output_path);
    re_diagnostics ignored;
    re_diagnostics_init(&ignored, 1);
    re_sidecar side;
    re_sidecar_found found = RE_SIDECAR_NOT_OURS;
    char *buf = NULL;
    size_t len = 0;
    uid_t owner = 0;
    if (sidecar_path && re_file_read_trusted(sidecar_path, RE_SIDECAR_MAX_SIZE, RE_READ_REGULAR,
                                             &buf, &len, &owner, &ignored) == RE_OK) {
        if (!buf)
            not_ours(diag, sidecar_path, owner);
        else
            re_sidecar_read(sidecar_path, buf, len, format, &side, &found, &ignored);
    }
    free(buf);
    re_diagnostics_free(&ignored);
    free(sidecar_path);
    if (found != RE_SIDECAR_FOUND)
        return 0;
    struct stat st;
    int fresh = side.inputs_sha256 && strcmp(side.inputs_sha256, inputs_sha256) == 0
                && side.duration && stat(output_path, &st) == 0
                && (uint64_t)st.st_size == side.bytes;
    fresh = fresh && re_output_set_present(output_path, choice)
            && listed_files_unchanged(output_path, &side, diag);
    if (fresh) {
        result->samples = side.samples;
        result->sample_rate = side.sample_rate;
        result->bytes = side.bytes;
        snprintf(result->duration, sizeof result->duration, "%s", side.duration);
        result->up_to_date = 1;
    }
    re_sidecar_free(&side);
    return fresh;
}
