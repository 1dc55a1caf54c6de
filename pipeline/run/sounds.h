/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sounds.h - the sound files an episode names (format 1.1: `[sound FILE]`, `intro:`,
 * `outro:`), every one found beside the script, confined to its folder tree (files.h's
 * re_path_confined, the lexicon's rule) and loaded at the episode's rate (sound_file.h)
 * before anything is spoken, so that a missing, unreadable, undecodable or outside file is an
 * error at the FILE:LINE:COL that named it and nothing is synthesized or written.
 *
 * A file named twice (or by two names: a hard link, a symlink) is loaded once, and a file
 * refused once is not read again: its other uses are errors that point at the first. What the
 * files decode together, loaded or refused, is within RE_SOUNDS_DECODE_BUDGET_SECONDS of
 * their own audio (sound_file.h). The uses are listed in the order the episode plays
 * them (intro, each [sound], outro): the order the input digest hashes their SHA-256s in
 * and the sidecar lists them.
 *
 * Ownership: episode_sounds owns every loaded sound; free with re_episode_sounds_free (a zeroed
 * struct is free to free). */
#ifndef RE_RUN_SOUNDS_H
#define RE_RUN_SOUNDS_H

#include <stddef.h>
#include <stdint.h>

#include "script.h"
#include "sound_file.h"
#include "status.h"

/* The distinct sound files of one episode hold at most this much audio together: they are
 * all in memory during the render (16-bit at the episode's rate: 345 MB at 48 kHz), unlike
 * speech, which is spooled to disk. One file is at most RE_SOUND_MAX_SECONDS. */
#define SOUNDS_MAX_TOTAL_SECONDS 3600u

/* The distinct sound files of one episode are at most this many bytes together (each is at
 * most RE_SOUND_MAX_BYTES): every byte is hashed and decoded, so this bounds the work that
 * files adding almost no audio can make (many sparse files claiming a huge rate). */
#define SOUNDS_MAX_TOTAL_BYTES (4ULL << 30)

typedef enum sound_use_kind { SOUND_INTRO, SOUND_INSERT, SOUND_OUTRO } sound_use_kind;

typedef struct sound_use {
    sound_use_kind kind;
    const char *file;          /* as the script wrote it (the episode's string) */
    size_t item;               /* SOUND_INSERT: the item's index in the episode */
    const re_sound *sound;     /* loaded, at the episode's rate */
} sound_use;

typedef struct episode_sounds {
    sound_use *uses;           /* in playing order */
    size_t use_count;
    char **paths;              /* the distinct files loaded, resolved ... */
    re_sound *loaded;          /* ... and their audio ... */
    uint64_t (*file_ids)[2];   /* ... and device and inode: two names of one file load once */
    size_t loaded_count;
    size_t intro_overlap;      /* samples of the intro under the speech (0: none) */
    uint64_t total_frames;     /* of the distinct files loaded */
    uint64_t total_bytes;      /* of the distinct files read (loaded or not) */
    struct {                   /* the files refused, by device and inode, and where */
        uint64_t id[2];
        unsigned line, col;
    } *failed;
    size_t failed_count;
    uint64_t decode_budget_us; /* of RE_SOUNDS_DECODE_BUDGET_SECONDS, what is left to decode */
} episode_sounds;

/* The kind's name in the sidecar: "intro", "sound", "outro". */
const char *re_sound_use_kind_name(sound_use_kind kind);

/* Finds, confines and loads every sound file `episode` names, at `rate`. Every failure is
 * reported at the episode's FILE:LINE:COL of the name (the [sound]'s '[', the front-matter
 * value), all of them in one run: RE_ERR_INPUT. An intro_overlap longer than the intro is an
 * error at intro_overlap; a file past SOUNDS_MAX_TOTAL_BYTES together is an error at its name
 * (not read); files past SOUNDS_MAX_TOTAL_SECONDS together are an error (RE_ERR_LIMIT)
 * at the name that passes it; sound files and pauses that alone add up to more than
 * RE_EPISODE_MAX_US are an error (RE_ERR_LIMIT) at the one that crosses it. RE_ERR_NOMEM and
 * RE_ERR_INTERRUPTED (*stop raised: a signal; NULL never stops) stop at once. */
re_status re_episode_sounds_load(const re_episode *episode, const char *script_path,
                                 const char *const *allowed_dirs, size_t allowed_dir_count,
                                 unsigned rate, volatile sig_atomic_t *stop, episode_sounds *out,
                                 re_diagnostics *diag);

void re_episode_sounds_free(episode_sounds *sounds);

#endif
