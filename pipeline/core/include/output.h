/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.h - atomic output files: written as a temporary file beside the target and renamed
 * over it only when complete, so a failure, a full disk or Ctrl-C never leaves a partial file
 * and never damages yesterday's output.
 *
 * Life cycle: re_output_open -> write through re_output_stream -> re_output_commit (rename) or
 * re_output_discard (unlink). Every open output must end in exactly one of the two. */
#ifndef RE_OUTPUT_H
#define RE_OUTPUT_H

#include <stdio.h>

#include "status.h"

typedef struct re_output re_output;

/* Creates a nameless temporary file (O_TMPFILE) in the target's folder, or a hidden
 * `.NAME.XXXXXXXX.part` where the filesystem has no O_TMPFILE, with mode 0666 & ~umask, or,
 * replacing a file, that and the old file's mode (a private file stays private; an earlier
 * file's wider mode, 0777 or 0666, is never kept). The folder is
 * opened once and every later step (the temporary name, the rename) is made in it by name
 * (openat, O_NOFOLLOW, renameat), so a link put at the target's name after the checks is
 * replaced, never written through. RE_ERR_WRITE when the folder is missing, the target is a
 * directory, or the file cannot be created; RE_ERR_NOMEM (no message).
 *
 * Every failure below that says "a message" adds one to diag naming the target, with the
 * reason (errno's) in it. */
re_status re_output_open(const char *target, re_output **out, re_diagnostics *diag);

/* What an existing target that is not a regular file gets. A symlink is followed (the file it
 * leads to is replaced and the link stays) only when the link and that file both belong to
 * the running user or root; another user's link (planted in a shared folder), or one to
 * another user's file, is refused with a message, as is a dangling one. */
typedef enum re_output_special {
    /* refused (RE_ERR_WRITE, a message): an episode's files, which must be replaceable as a
     * set and measurable, are never written into /dev/null, a FIFO or a terminal, and such a
     * file is never replaced by a regular one */
    RE_OUTPUT_REFUSE_SPECIAL,
    /* written into as it is (a FIFO, /dev/stdout, /dev/null): reports and feeds a user points
     * at a device or a pipe; nothing is renamed, and a socket or block device is refused, as
     * is a FIFO or device of another user (its reader is that user's to attach, or never) */
    RE_OUTPUT_WRITE_INTO_SPECIAL
} re_output_special;

/* re_output_open with a choice for special files (re_output_open refuses them). */
re_status re_output_open_special(const char *target, re_output_special special, re_output **out,
                                 re_diagnostics *diag);

FILE *re_output_stream(re_output *output);
const char *re_output_target(const re_output *output);

/* The target's folder, opened once by re_output_open (an O_PATH fd, borrowed: valid until the
 * output is published or discarded): what else is done beside the target (a lock) is done in
 * the very folder the file is renamed into. */
int re_output_folder(const re_output *output);

/* Size in bytes of what has been written so far (flushes the stream). RE_ERR_WRITE with a
 * message. */
re_status re_output_size(re_output *output, unsigned long long *size, re_diagnostics *diag);

/* Empties the temporary file to write it again from the start. RE_ERR_WRITE with a message. */
re_status re_output_restart(re_output *output, re_diagnostics *diag);

/* Publishing in two phases, for several files that must appear together: prepare every one
 * (flush + fsync: all the data is on disk, RE_ERR_WRITE with a message otherwise; the output
 * stays valid and must still be published or discarded), then publish every one (named and
 * renamed over the target, RE_ERR_WRITE with a message otherwise, RE_ERR_INVALID when it was
 * not prepared; frees the output in every case, removes the temporary file on failure). */
re_status re_output_prepare(re_output *output, re_diagnostics *diag);
re_status re_output_publish(re_output *output, re_diagnostics *diag);

/* Backups that make publishing several files all-or-nothing: before publishing, each existing
 * target gets a hidden hard link (*backup, NULL when there was no target or the filesystem
 * cannot link); if a later publish fails, restore puts yesterday's file back (or removes the
 * new one when there was none); after success, drop removes the link. */
re_status re_output_backup(const char *target, char **backup);
void re_output_restore(const char *target, char *backup);
void re_output_drop_backup(char *backup);

/* prepare + publish for a single file; frees the output in every case. */
re_status re_output_commit(re_output *output, re_diagnostics *diag);

/* Closes and removes the temporary file; frees the output. NULL is allowed. */
void re_output_discard(re_output *output);

/* The name of a file published beside `output_path`: its extension (if any) replaced by
 * `suffix` (ep.mp3 + ".vtt" -> ep.vtt). malloc'ed; NULL when out of memory. */
char *re_output_sibling(const char *output_path, const char *suffix);

#endif
