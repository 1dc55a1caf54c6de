/* SPDX-License-Identifier: GPL-3.0-or-later */
/* music.h - the episode's music bed (front matter `music:`) for render: the file
 * confined to the script's folder tree, read and measured before anything is spoken, then
 * mixed under the assembled speech (audio/bed.h) into a new spool that leveling and encoding
 * work on.
 *
 * Its level: the bed alone is measured (libebur128, dual mono, as every level here) and given
 *   gain = music_level - target + speech - bed
 * dB, `speech` being the assembled speech's integrated loudness (pass 1) and `target` the
 * loudness target (-16 by default; with --loudness off the default target all the same). The
 * final normalization turns the whole mix by one gain, so the bed stays music_level - target
 * below the speech: the balance the script asked for survives it. */
#ifndef RE_MUSIC_H
#define RE_MUSIC_H

#include <signal.h>

#include "loudness.h"
#include "script.h"
#include "sha256.h"
#include "sidecar.h"
#include "sound_file.h"
#include "spool.h"
#include "status.h"

/* A bed shorter than this is measured looped to this length (BS.1770's gate needs 400 ms
 * blocks; a loop is what the episode plays). */
#define RE_MUSIC_METER_MIN_S 3

typedef struct episode_music {
    int present;                       /* the script has `music:` */
    const re_music_spec *spec;         /* the episode's */
    const char *script;                /* the script's name for diagnostics (the episode's) */
    char *path;                        /* the file, resolved beside the script */
    re_sound sound;                    /* the bed, mono at the episode's rate */
    double bed_lufs;                   /* the bed alone */
    char sha256_hex[RE_SHA256_HEX_SIZE];
    re_sidecar_music facts;            /* for the sidecar, once mixed */
} episode_music;

/* Confines, reads and measures the bed the episode names (nothing when it names none: present
 * stays 0). Every failure is an error at the `music:` value's SCRIPT:LINE:COL (RE_ERR_INPUT):
 * outside the script's folder tree (and allowed_dirs), missing, unreadable, not audio, longer
 * than RE_SOUND_MAX_SECONDS, or silent. RE_ERR_INTERRUPTED (no message) as soon as *stop is
 * raised while the file is read (a signal; NULL never stops), as for the sound files. */
re_status re_episode_music_load(const re_episode *episode, const char *script_path,
                                const char *const *allowed_dirs, size_t allowed_dir_count,
                                unsigned rate, volatile sig_atomic_t *stop, episode_music *out,
                                re_diagnostics *diag);

/* How the bed is mixed into the episode. */
typedef struct episode_mix_settings {
    unsigned rate;                     /* the episode's */
    double target_lufs;                /* the loudness target (the default one when off) */
    int normalized;                    /* the mix is normalized afterwards */
    volatile sig_atomic_t *stop;       /* may be NULL */
} episode_mix_settings;

/* A finished spool and its loudness, measured by a planning meter. */
typedef struct episode_track {
    re_spool *spool;
    re_loudness loudness;
} episode_track;

/* Mixes the bed under `speech` (finished; read from its start; its loudness is pass 1) into a
 * new finished spool mix->spool, the caller's, measured with a planning meter while it is
 * written (mix->loudness). `normalized`: the mix is normalized afterwards, so a mix that
 * would saturate int16 is made again, speech and bed lowered together by just enough (the
 * balance kept); otherwise a saturated mix is a warning at the `music:` line. Spool failures
 * come unplaced (the caller places them at the output); RE_ERR_INTERRUPTED when *stop rises.
 * On failure mix->spool is NULL. */
re_status re_episode_music_mix(episode_music *music, const episode_mix_settings *settings,
                               const episode_track *speech, episode_track *mix,
                               re_diagnostics *diag);

void re_episode_music_free(episode_music *music);

#endif
