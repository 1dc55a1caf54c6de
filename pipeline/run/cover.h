/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cover.h - the cover art an episode carries: the script's own `image:`, else the show's
 * (`image:` in show.txt in the output's folder, when that is a file there), read and checked
 * before anything is spoken, then embedded in the MP3 (tags.h), listed in the sidecar and
 * hashed into the inputs digest (fingerprint.h).
 *
 * The script's `image:` is relative to the script's folder and confined like every file a
 * script names (files.h re_path_open_confined, --allow-path); the show's is opened beneath
 * the output's folder (a symlink that leads out is refused). Both must pass the feed's rules
 * for cover art (artwork.h: JPEG or PNG by signature, RGB, square, 1400-3000 px) and be at
 * most RE_COVER_MAX_SIZE bytes. A show.txt that is there must be a regular file (never waited
 * on, as a FIFO would be) that parses (show.h). No show.txt, or one whose `image:` is an
 * http(s) URL (not fetched: a render reads nothing from the network for its cover), means no
 * cover. A show.txt or show cover that belongs to another user (not the running user, not
 * root; or a symlink of theirs at its name), which anyone can put in a shared folder, is
 * ignored with a warning naming it and its owner: never opened for its text, never waited
 * on, never the episode's cover, never failing the render; the episode is then in no show's
 * feed. */
#ifndef RE_RUN_COVER_H
#define RE_RUN_COVER_H

#include <stddef.h>

#include "script.h"
#include "sha256.h"
#include "status.h"

#define RE_COVER_MAX_SIZE (8u << 20)   /* bytes: the tag is part of every download */

typedef struct episode_cover {
    int in_feed;                /* show.txt is a file of ours in the output's folder: the
                                 * episode is one of that show's feed (feed.xml there), cover
                                 * or not */
    int present;                /* 0: no cover (nothing below is set) */
    int own;                    /* 1: the script's `image:`; 0: the show's */
    char *path;                 /* the file read (an input no output may replace) */
    char *name;                 /* as written: the script's value, or the show file's */
    const char *mime;           /* "image/jpeg" or "image/png", from the signature */
    unsigned char *bytes;       /* the file's bytes, as read */
    size_t len;
    unsigned char sha256[RE_SHA256_SIZE];
    char sha256_hex[RE_SHA256_HEX_SIZE];
} episode_cover;

/* Finds, reads and checks the episode's cover into *out (zeroed first; present 0 when there
 * is none). A bad `image:` is an error at its FILE:LINE:COL (RE_ERR_INPUT); a bad show file
 * or show cover is one at that file. RE_ERR_NOMEM, RE_ERR_INTERRUPTED. */
re_status re_episode_cover_load(const re_episode *ep, const char *script_path,
                                const char *const *allowed_dirs, size_t allowed_dir_count,
                                const char *output_path, episode_cover *out, re_diagnostics *diag);

void re_episode_cover_free(episode_cover *cover);

#endif
