/* SPDX-License-Identifier: GPL-3.0-or-later */
/* voice.h - voice profiles: how a speaker sounds (engine voice, rate, pitch, pauses).
 *
 * A profile is a file NAME.voice of `key = value` lines (`#` starts a comment line):
 *   engine           espeak-ng or flite                                 (default espeak-ng)
 *   voice            the engine's voice: for espeak-ng a voice name, e.g. en-us, en-gb+f3;
 *                    for flite one of RE_VOICE_FLITE_VOICES              (required)
 *   speaker          display name for transcripts                      (default: NAME)
 *   role             the speaker's role in the feed's podcast:person, one of RE_VOICE_ROLES
 *                    (default: host for the episode's default voice, else guest)
 *   rate             words per minute, 80..450                          (default 175)
 *   pitch            0..99                                              (default 50)
 *   range            pitch range, 0..99                                 (default 50)
 *   volume           0..200                                             (default 100)
 *   word_gap         extra pause between words in ms, 0..1000, rounded
 *                    down to the engine's 10 ms units                   (default 0)
 *   sentence_pause   silence between sentences in ms, 0..10000          (default 400)
 *   paragraph_pause  silence between paragraphs in ms, 0..60000         (default 800)
 * Unknown keys, duplicate keys, malformed or out-of-range numbers are errors naming
 * FILE:LINE:COL, and so is a key the profile's engine cannot honour (flite has no gap
 * between words: `word_gap` in a flite profile). Profile names are [a-z0-9_-]{1,64}.
 *
 * The numbers mean the same for both engines (docs/script-format.md, "Voice profiles"):
 * rate is words per minute, pitch 50 and range 50 are the voice's own, volume 100 is the
 * engine's normal level. */
#ifndef RE_VOICE_H
#define RE_VOICE_H

#include "status.h"

/* The cast roles of the Podcast Taxonomy that a profile's `role` may name. */
#define RE_VOICE_ROLES "host, co-host, guest, guest host, narrator, announcer, voice actor, reporter"

/* The speech engines a profile may choose, and flite's voices (US English clustergen voices
 * compiled into Debian's libflite: rms male, slt female, awb male with a Scottish accent). */
typedef enum re_voice_engine {
    RE_VOICE_ESPEAK_NG,
    RE_VOICE_FLITE,
    RE_VOICE_ENGINE_COUNT
} re_voice_engine;
#define RE_VOICE_FLITE_VOICES "rms, slt, awb"

typedef struct re_voice_profile {
    char *name;              /* profile name, e.g. "host" */
    re_voice_engine engine;
    char *engine_voice;      /* the engine's voice name */
    char *speaker;           /* display name */
    int rate;
    int pitch;
    int range;
    int volume;
    int word_gap_ms;
    int sentence_pause_ms;
    int paragraph_pause_ms;
    char *role;              /* one of RE_VOICE_ROLES; NULL when not given */
} re_voice_profile;

/* Parses one profile named `name` from buf[0..len) read from `file`. On success *out holds
 * owned strings (free with re_voice_profile_clear). On RE_ERR_INPUT, diag holds the reasons
 * and *out is cleared. */
re_status re_voice_profile_parse(const char *file, const char *buf, size_t len, const char *name,
                                 re_voice_profile *out, re_diagnostics *diag);
void re_voice_profile_clear(re_voice_profile *profile);

/* The espeak-ng name of the language the profile speaks, for the rules that depend on it
 * (normalize.h, writing.h) and for the espeak-ng voice of a [lang] span's fallback: the
 * espeak-ng voice itself, or "en-us" for flite's voices. */
const char *re_voice_profile_language(const re_voice_profile *profile);

/* The engine's name as a profile's `engine` says it: "espeak-ng" or "flite". */
const char *re_voice_engine_name(re_voice_engine engine);

/* Returns 1 if `name` is a valid profile name ([a-z0-9_-]{1,64}). */
int re_voice_name_valid(const char *name);

/* A set of folders searched for profiles, and the profiles loaded from them. */
typedef struct re_voice_set re_voice_set;

re_status re_voice_set_create(re_voice_set **out);
/* Appends a folder to the search path; folders added first are searched first. The string is copied. */
re_status re_voice_set_add_dir(re_voice_set *set, const char *dir);
/* Finds NAME.voice in the search path and parses it (once; later calls return the same
 * profile). RE_ERR_INPUT with a diagnostic when the name is invalid, not found (the message
 * lists the folders searched) or the file is invalid. The profile lives as long as the set. */
re_status re_voice_set_get(re_voice_set *set, const char *name, const re_voice_profile **out,
                           re_diagnostics *diag);
void re_voice_set_free(re_voice_set *set);

/* What a lookup found, for callers that report a failed lookup at a place of their own. */
typedef enum re_voice_lookup {
    RE_VOICE_LOADED,     /* found and valid */
    RE_VOICE_BAD_NAME,   /* not a valid profile name */
    RE_VOICE_MISSING,    /* no NAME.voice in any folder of the search path */
    RE_VOICE_BROKEN      /* found but unreadable or invalid; its errors were reported (once,
                          * at PATH:LINE:COL) when it was first read */
} re_voice_lookup;

/* Like re_voice_set_get, but adds no diagnostic for a bad name or a missing profile (only a
 * profile file's own errors, on first read). *how says what happened; RE_OK only for LOADED. */
re_status re_voice_set_find(re_voice_set *set, const char *name, const re_voice_profile **out,
                            re_voice_lookup *how, re_diagnostics *diag);
/* The search path for messages: the folders joined with ", ", or "no folders". Owned by the
 * set; valid until the next re_voice_set_add_dir. */
const char *re_voice_set_search_path(const re_voice_set *set);

/* The profile in the search path whose name is nearest to `name` (at most 2 edits, capitals
 * read as small letters; ties by byte order), for a "did you mean" after an unknown one:
 * written to out (RE_VOICE_NAME_MAX + 1 bytes), "" when none is near. Folders that cannot
 * be read are passed over. RE_ERR_NOMEM. */
#define RE_VOICE_NAME_MAX 64
re_status re_voice_set_nearest(const re_voice_set *set, const char *name, char *out);

/* Every profile name in the search path (NAME.voice files with a valid NAME; a name in two
 * folders once), in byte order: *names and each string malloc'ed, owned by the caller.
 * Folders that cannot be read are passed over. RE_ERR_NOMEM. */
re_status re_voice_set_names(const re_voice_set *set, char ***names, size_t *count);

/* The file a profile got by re_voice_set_get was read from (owned by the set), or NULL. */
const char *re_voice_set_file(const re_voice_set *set, const char *name);

#endif
