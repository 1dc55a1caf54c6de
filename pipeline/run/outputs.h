/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outputs.h - an episode's output set: OUT itself (the audio), the files published beside it
 * and named after it, and the sidecar; each written to a temporary file (core/output.h) and
 * published all or nothing.
 *
 * The set: OUT, OUT.vtt and the sidecar OUT.json always; OUT.srt, OUT.transcript.json and
 * OUT.html and OUT.md when asked for; OUT.chapters.json when the script has headings;
 * OUT.cover.jpg or OUT.cover.png, a copy of the script's own `image:`, when it has one. Those the
 * previous render wrote and this one does not are removed on publishing (re_output_set_publish).
 *
 * Life cycle: re_output_set_open (a temporary file for every file of the set, or none) -> write
 * each through re_output_set_file -> re_output_set_publish -> re_output_set_free. Free without publish
 * (after an error) discards every temporary file: yesterday's outputs stay as they were.
 *
 * Ownership: the set owns its outputs until publish or free; the pointers re_output_set_file
 * returns are valid until then. The set copies nothing: the paths given to open must outlive
 * it. */
#ifndef RE_RUN_OUTPUTS_H
#define RE_RUN_OUTPUTS_H

#include <signal.h>

#include "output.h"
#include "script.h"
#include "sidecar.h"
#include "status.h"

/* The files of the set, in the order they are published: the audio first and the sidecar
 * last (a sidecar must never describe files that are not there). */
typedef enum output_kind {
    OUTPUT_AUDIO,
    OUTPUT_VTT,
    OUTPUT_SRT,
    OUTPUT_TRANSCRIPT_JSON,
    OUTPUT_CHAPTERS,
    OUTPUT_PAGE,
    OUTPUT_PAGE_MD,
    OUTPUT_COVER_JPEG,     /* the episode's own cover art, copied for the feed and the page */
    OUTPUT_COVER_PNG,
    OUTPUT_SIDECAR,
    OUTPUT_KINDS
} output_kind;

/* What decides which files are in the set. */
typedef struct output_choice {
    int srt, transcript_json, page, page_md;   /* asked for */
    int chapters;                     /* the script has headings */
    int cover_jpeg, cover_png;        /* the script's `image:` is a JPEG, a PNG (cover.h) */
} output_choice;

int output_wanted(const output_choice *choice, output_kind kind);

/* What each file adds to OUT's name with its extension taken off (".vtt", ".chapters.json";
 * NULL for OUT itself): batch checks that no two episodes would share a file. */
const char *re_output_suffix(output_kind kind);

typedef struct output_set output_set;

/* The files an episode is made from, the script first (borrowed for the set's life): no
 * output ever replaces or removes one of them, under any name. */
typedef struct output_inputs {
    const char *const *paths;
    size_t count;
} output_inputs;

/* Opens a temporary file beside OUT for every file of the set. RE_ERR_WRITE with the file's
 * path in diag when its folder is missing or not writable, it is a directory, or it is one
 * of the inputs (the script as ep.md with --page-md, a lexicon, a voice profile). On failure
 * nothing stays open and *out is NULL. */
re_status re_output_set_open(const char *output_path, const output_inputs *inputs,
                             const output_choice *choice, output_set **out, re_diagnostics *diag);

/* The file of that kind, NULL when it is not in the set. */
re_output *re_output_set_file(output_set *set, output_kind kind);

/* Every file's data on disk first (a failure names its file in diag); then, holding the
 * running user's publishing lock of OUT's folder (an exclusive flock on a 0600 file of that
 * user's own there, .render-episode-UID.lock, that no other user can open; only the user's own
 * renders are waited for: a second render of the same set publishes after this one, whole;
 * what another user put at its name is removed with a "warning: removed", or RE_ERR_WRITE with
 * a message when it cannot be), and unless `stop` (may be NULL) was raised meanwhile
 * (RE_ERR_INTERRUPTED), each is renamed into place in publishing order. All or nothing: when a
 * rename fails, the files already published are
 * put back as they were (or removed when there was none). On success, the companions the
 * previous render of OUT wrote (as its sidecar, read before it is replaced, lists them with
 * their digests) and this one does not are removed, each only while it is still exactly the
 * file that render wrote; one that changed, is no longer a regular file (never followed: all
 * through the folder's fd, no symlink), belongs to another user or has another name is kept,
 * with a "warning: kept" in diag saying why; a previous sidecar of another user lists nothing
 * to remove. Without such a sidecar (an older version's) only a stale
 * OUT.chapters.json of ours is removed. The set's files are published or discarded in every case but an early failure
 * or stop, after which they are still the set's. */
re_status re_output_set_publish(output_set *set, volatile sig_atomic_t *stop, re_diagnostics *diag);

/* Every file of the set but the sidecar, as written so far, in publishing order (the audio
 * first): its name beside OUT (no folder), bytes and SHA-256, for the sidecar's "files". Call
 * after writing them and before publishing. RE_ERR_WRITE with a message naming the file when
 * one cannot be read back; RE_ERR_NOMEM. Free the list with re_output_files_free. */
re_status re_output_set_describe(output_set *set, re_sidecar_file **files, size_t *count,
                                 re_diagnostics *diag);
void re_output_files_free(re_sidecar_file *files, size_t count);

/* After publishing an MP3 (`format`; a WAV is in no feed): a warning in diag for every other
 * MP3 sidecar in OUT's folder (of the running user or root; another user's is not read) that
 * claims the same episode as `episode` (feed.h re_episode_claims_same: its `guid:`, or its
 * season and episode number), naming that sidecar: `feed` refuses such a folder. Nothing is
 * changed. Best-effort, since the outputs are already published: running out of memory is
 * one more warning (when there is memory to say it), never a failure. */
void re_output_set_warn_claims(const char *output_path, const char *format,
                               const re_episode *episode, re_diagnostics *diag);

/* 1 when every file of the set beside OUT, the audio and the sidecar aside, exists. */
int re_output_set_present(const char *output_path, const output_choice *choice);

void re_output_set_free(output_set *set);   /* discards what is not published; NULL is allowed */

/* The running user's publishing lock of a folder (the one re_output_set_publish holds), for
 * another writer of the folder's published files (`feed` writing the show's navigation into
 * the pages): folder is an fd of the folder (duplicated), target a file there named in
 * messages. Waits for the user's own render holding it; RE_ERR_INTERRUPTED when a signal
 * ends the wait; RE_ERR_WRITE with a message. Released (and freed) by re_output_folder_unlock. */
typedef struct publish_lock publish_lock;
re_status re_output_folder_lock(int folder, const char *target, publish_lock **lock,
                                re_diagnostics *diag);
void re_output_folder_unlock(publish_lock *lock);   /* NULL is allowed */

#endif
