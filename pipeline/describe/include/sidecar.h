/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sidecar.h - the describe stage: OUT.json beside every output, the facts of one render.
 *
 * Keys, in this order: title, show, published, summary, notes (a Markdown script's document
 * after its front matter, as written; the key is absent for a plain-text script), author,
 * language, episode, season,
 * guid, type (the script's `type:`, absent without one), duration
 * (ISO 8601), duration_ms, samples, sample_rate, bytes, format, chapters [{title, start_ms,
 * end_ms}], inserts [{kind ("intro", "sound", "outro"), file (as the script wrote it), start,
 * samples (where it starts and how long it plays, in samples of the episode; the intro's tail
 * under the speech included), start_ms, sha256 (of the file's bytes)}] in playing order
 * (format 1.1; the key is absent when the episode plays no sound file, so that the sidecars
 * of spoken-only episodes stay as they were), loudness {integrated_lufs, range_lu, true_peak_dbtp (measured on the output file;
 * null for silence), target_lufs, ceiling_dbtp, gain_db (null when normalization is off),
 * met}, music {...} (with a bed), image {name, source ("episode" or "show"), mime, bytes,
 * sha256} (the cover art the MP3 embeds; absent without one), voices [{name, speaker, role, voice, rate, pitch, range, volume, word_gap,
 * sentence_pause, paragraph_pause, and engine: "flite" for a flite profile, absent for
 * espeak-ng's}], engine (the engines that spoke, e.g. "espeak-ng 1.51, flite 2.2"),
 * encoder, generator, inputs_sha256 (what the
 * outputs were made from: program, engine, encoder, options, script bytes, profile values),
 * files [{name, bytes, sha256}] (every other file this render wrote, the audio first: what a
 * feed may link and check may trust beside the audio). Absent metadata is null.
 * No absolute paths, no timestamps: identical inputs give identical bytes.
 *
 * This module is the schema's one owner: it writes sidecars (re_sidecar_write) and reads them
 * back (re_sidecar_read) for every consumer: render's up-to-date check, the feed, check. */
#ifndef RE_SIDECAR_H
#define RE_SIDECAR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "assemble.h"
#include "loudness.h"
#include "script.h"
#include "sha256.h"
#include "status.h"
#include "voice.h"

/* One file a render wrote beside its sidecar: its name in the folder (no path), size and
 * SHA-256. */
typedef struct re_sidecar_file {
    char *name;
    uint64_t bytes;
    char sha256[RE_SHA256_HEX_SIZE];
} re_sidecar_file;

/* A voice of the episode as the sidecar lists it: its display name and its podcast:person
 * role (the profile's `role`, else host for the episode's default voice, guest otherwise). */
typedef struct re_sidecar_person {
    char *speaker;
    char *role;
} re_sidecar_person;


/* The music bed as the sidecar records it: the `music` object. */
typedef struct re_sidecar_music {
    const char *file;                  /* as the script's `music:` wrote it */
    const char *sha256;                /* of the file's bytes, hex */
    double level_lufs, duck_db, fade_s;   /* the settings */
    double bed_lufs;                   /* the bed alone as read, integrated (dual mono) */
    double speech_lufs;                /* the speech before normalization */
    double gain_db;                    /* applied to the bed in the mix */
} re_sidecar_music;

/* The cover art the MP3 embeds (run/cover.h) as the sidecar records it: the `image` object. */
typedef struct re_sidecar_image {
    const char *name;                  /* as written: the script's `image:` or the show file's */
    const char *source;                /* "episode" (the script's own) or "show" */
    const char *mime;                  /* "image/jpeg" or "image/png" */
    uint64_t bytes;
    const char *sha256;                /* of the file's bytes, hex */
} re_sidecar_image;

/* A sound file the episode plays (format 1.1): an intro, an outro or a [sound] insert. */
typedef struct re_sidecar_insert {
    const char *kind;                  /* "intro", "sound" or "outro" */
    const char *file;                  /* as the script wrote it */
    uint64_t start, samples;           /* in samples of the episode */
    unsigned char sha256[RE_SHA256_SIZE];   /* of the file's bytes */
} re_sidecar_insert;

typedef struct re_render_facts {
    const re_episode *episode;
    uint64_t samples;
    unsigned sample_rate;
    unsigned long long bytes;          /* size of the audio output file */
    const char *format;                /* "mp3" or "wav" */
    const re_chapter_mark *chapters;
    size_t chapter_count;
    const re_voice_profile *const *voices;
    size_t voice_count;
    const char *engine;                /* e.g. "espeak-ng 1.51" */
    const char *encoder;               /* e.g. "LAME 3.100, 64 kbps CBR, mono, 22050 Hz" */
    const char *inputs_sha256;         /* digest of everything the outputs were made from */
    const re_loudness *loudness;       /* measured on the output file */
    const re_loudness_plan *loudness_plan;  /* NULL when normalization is off */
    const re_sidecar_music *music;     /* NULL without a bed: no `music` key */
    const re_sidecar_image *image;     /* NULL without embedded cover art: no `image` key */
    const char *cover_file;            /* that cover's file beside the outputs (the page's
                                        * <img>): a name, no folder; NULL without one */
    int in_feed;                       /* a show file beside the outputs: the page links the
                                        * show's feed (feed.xml there, as `feed` writes it) */
    const re_sidecar_file *files;      /* what the render wrote, the sidecar aside */
    size_t file_count;
    const re_sidecar_insert *inserts;  /* the sound files played, in order (may be none) */
    size_t insert_count;
} re_render_facts;

/* Writes the sidecar as UTF-8 JSON with a final newline. RE_ERR_WRITE if the stream fails. */
re_status re_sidecar_write(FILE *out, const re_render_facts *facts);

/* ep.mp3 -> ep.json (the extension, if any, replaced). Returns a malloc'ed string or NULL. */
char *re_sidecar_path(const char *output_path);

/* The sidecar's keys that state how long the audio is: the writer writes them under these
 * names and every reader (the up-to-date check, the feed, check's claims) reads them so. */
typedef enum re_sidecar_length_key {
    RE_SIDECAR_DURATION,       /* ISO 8601, whole seconds */
    RE_SIDECAR_DURATION_MS,    /* samples * 1000 / sample_rate, rounded down */
    RE_SIDECAR_SAMPLES,
    RE_SIDECAR_SAMPLE_RATE,
    RE_SIDECAR_BYTES,          /* of the audio file */
    RE_SIDECAR_LENGTH_KEYS
} re_sidecar_length_key;

extern const char *const re_sidecar_length_keys[RE_SIDECAR_LENGTH_KEYS];

/* ---- reading ------------------------------------------------------------------------------ */

#define RE_SIDECAR_MAX_SIZE (16u << 20)   /* bytes of one sidecar read back */

/* The facts a sidecar gives back. Strings are owned (re_sidecar_free) and NULL when the
 * sidecar has null or no such key. */
typedef struct re_sidecar {
    char *title;               /* never NULL, never empty */
    char *show, *summary, *author;
    char *notes;               /* a Markdown script's document; NULL for a plain-text one */
    char *language;            /* a BCP 47 tag */
    char *published;           /* ISO 8601 date, or date-time with a zone ... */
    int dated;                 /* ... when given, and then ... */
    int64_t published_ms;      /* ... this many ms after 1970-01-01T00:00:00Z */
    long episode;              /* -1 when null */
    long season;               /* -1 when null or absent */
    char *guid;                /* the script's `guid:` */
    re_episode_type type;      /* the script's `type:`; RE_EPISODE_TYPE_UNSET when absent */
    char *duration;            /* ISO 8601 as written */
    uint64_t samples;
    unsigned sample_rate;      /* >= 1 */
    uint64_t bytes;            /* of the audio file it describes */
    char *format;              /* "mp3", "wav", ... never NULL */
    char *inputs_sha256;       /* what the outputs were made from */
    re_sidecar_person *persons;   /* the voices, in order */
    size_t person_count;
    int has_files;             /* the sidecar lists the files the render wrote ... */
    re_sidecar_file *files;    /* ... these (a sidecar of an older version has no list) */
    size_t file_count;
} re_sidecar;

/* What a JSON file turned out to be. */
typedef enum re_sidecar_found {
    RE_SIDECAR_NOT_OURS,       /* valid JSON, but not a render-episode sidecar */
    RE_SIDECAR_FOUND,          /* a sidecar of the wanted format: *sidecar is filled */
    RE_SIDECAR_OTHER_FORMAT    /* a sidecar of another format: not read further */
} re_sidecar_found;

/* 1 when a "generator" value says render-episode wrote the file. */
int re_sidecar_generator_is_ours(const char *generator);

/* Reads a sidecar held in memory; `path` names it in diagnostics. A JSON object whose
 * "generator" starts with "render-episode" is a sidecar. `format` ("mp3", "wav") reads only
 * sidecars of that format (others are RE_SIDECAR_OTHER_FORMAT, unchecked); NULL reads any.
 * Every problem is reported to diag as PATH[:LINE:COL] before returning: RE_ERR_FORMAT when
 * buf is not valid JSON (duplicate keys included); RE_ERR_INPUT when a key is missing, has
 * the wrong type or an invalid value (title empty, a text with a character XML cannot carry,
 * a number out of range, language not BCP 47, published not an ISO 8601 date or date-time
 * with a zone); RE_ERR_NOMEM. *sidecar is zeroed unless RE_OK with RE_SIDECAR_FOUND; then the
 * caller frees it with re_sidecar_free. */
re_status re_sidecar_read(const char *path, const char *buf, size_t len, const char *format,
                          re_sidecar *sidecar, re_sidecar_found *found, re_diagnostics *diag);

/* re_sidecar_read of the file at `path` (at most RE_SIDECAR_MAX_SIZE bytes of UTF-8);
 * RE_ERR_READ or RE_ERR_LIMIT, reported, when it cannot be read. */
re_status re_sidecar_load(const char *path, const char *format, re_sidecar *sidecar,
                          re_sidecar_found *found, re_diagnostics *diag);

void re_sidecar_free(re_sidecar *sidecar);

/* The entry of `name` in the sidecar's list of written files, or NULL. */
const re_sidecar_file *re_sidecar_file_find(const re_sidecar *sidecar, const char *name);

/* Whether the file at `path` is still the one the sidecar's entry describes. */
typedef enum re_sidecar_match {
    RE_SIDECAR_MATCH,      /* same size and SHA-256 */
    RE_SIDECAR_CHANGED,    /* there, but other bytes */
    RE_SIDECAR_GONE,       /* missing or not a regular file */
    RE_SIDECAR_FOREIGN     /* another user's (not the running user, not root), or reached
                            * through their symlink: never trusted as the render's, whatever
                            * its bytes (they could change it at any time) */
} re_sidecar_match;

/* Compares the file at `path` with `entry` (reads it whole when the size matches); opened
 * without waiting (a FIFO is GONE) and without following another user's link (files.h
 * re_open_owned). With RE_SIDECAR_FOREIGN, *owner (may be NULL) is that user. */
re_sidecar_match re_sidecar_file_match(const char *path, const re_sidecar_file *entry,
                                       uid_t *owner);

/* Hashes the open file `fd` from its start (pread; the offset is not moved): *bytes and hex.
 * RE_ERR_READ when it cannot be read. */
re_status re_sidecar_file_digest(int fd, uint64_t *bytes, char hex[RE_SHA256_HEX_SIZE]);

/* Podcasting 2.0 JSON chapters (ep.chapters.json): {"version": "1.2.0", "chapters":
 * [{"startTime": seconds, "title": ...}]}, in order; times from the same milliseconds as the
 * sidecar and the CHAP frames. */
re_status re_chapters_json_write(FILE *out, const re_chapter_mark *chapters, size_t count,
                                 unsigned sample_rate);

/* The sidecar buf[0..len) with its "files" entry for `name` stating `bytes` and `sha256` (64
 * lowercase hex digits) instead: *out (malloc'ed, *out_len bytes), every other byte as it
 * was. Used by `feed` when it writes the show's navigation into a page the render listed, so
 * that the list stays true for `check`, `feed` and the up-to-date check. RE_ERR_FORMAT when
 * buf is not a sidecar exactly as re_sidecar_write writes it (read back and written again,
 * it would change: another version's, or edited) or lists no such file; RE_ERR_NOMEM. */
re_status re_sidecar_with_file(const char *buf, size_t len, const char *name, uint64_t bytes,
                               const char *sha256, char **out, size_t *out_len);

#endif
