/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache.h - the segment cache: synthesized speech stored by the SHA-256 of everything that
 * determines it, so that an unchanged paragraph is never synthesized twice (docs/cache.md).
 *
 * The cache is a plain folder that several processes and machines may share at once (a CI
 * cache, a network volume):
 *
 *   DIR/v1/ab/abcdef...(64 hex).seg     one entry per segment, fanned out by the first byte
 *   DIR/v1/ab/.abcdef....XXXXXX.tmp     an entry being written (renamed into place when whole)
 *
 * An entry is written to a unique temporary file beside its final name and renamed over it,
 * so readers see a whole entry or none. Every read is checked (magic, key, sizes against the
 * file size, a SHA-256 over the whole entry): a truncated, corrupt or misplaced entry is a
 * miss and is removed, never a crash and never wrong audio. A hit refreshes the entry's mtime,
 * which re_cache_prune uses to evict the least recently used entries first.
 *
 * Nothing here is fatal to a render: a cache that cannot be read is a miss, one that cannot
 * be written (read-only, disk full) makes re_cache_put fail with a reason the caller prints as
 * a warning and otherwise ignores. Every message a handle adds to a diagnostics list names
 * the cache folder as its file.
 *
 * Life cycle: re_cache_open -> (re_cache_get | re_cache_put | re_cache_stats |
 * re_cache_prune)* -> re_cache_free. A handle is for one thread; any number of handles, in
 * any number of processes, may use the same folder at once. */
#ifndef RE_CACHE_H
#define RE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "sha256.h"
#include "status.h"
#include "synth.h"
#include "voice.h"

/* Bumped whenever the serialization of the key, the entry layout, or what synth.c does to
 * produce audio from (text, profile) changes: old entries then simply stop being found. */
#define RE_CACHE_FORMAT_TAG "render-episode segment v2"   /* v2: a call per sentence */

/* An entry larger than this is refused by put and treated as corrupt by get (a 10,000-byte
 * paragraph at 80 words per minute is about 60 MB of audio). */
#define RE_CACHE_MAX_ENTRY_BYTES (1ull << 30)
/* An entry with more events, or an event at a text position or of a length past this, is
 * invalid (a paragraph's text is at most 10,000 bytes; the engine makes a few events a word). */
#define RE_CACHE_MAX_EVENTS (1u << 16)
#define RE_CACHE_MAX_TEXT_POSITION (1u << 20)

/* Temporary files older than this are debris of a killed writer; prune removes them. */
#define RE_CACHE_STALE_TEMP_SECONDS 3600

/* The address of one segment's audio. */
typedef struct re_cache_key {
    unsigned char digest[RE_SHA256_SIZE];
} re_cache_key;

/* The key of the audio the engine makes from these inputs: SHA-256 of a versioned,
 * length-prefixed serialization of RE_CACHE_FORMAT_TAG, `engine` (name and version, e.g.
 * "espeak-ng 1.51"), sample_rate, the profile values that change synthesized audio
 * (engine_voice, rate, pitch, range, volume, word_gap_ms; NOT sentence/paragraph pauses,
 * which are added after synthesis, nor name/speaker), text_flags (RE_TEXT_PLAIN /
 * RE_TEXT_PHONEMES) and `text`. `text` must be exactly the text handed to the engine, after
 * any pronunciation lexicon or normalization, so that editing those re-synthesizes exactly
 * the segments whose spoken text changed. NULL strings are allowed and differ from "". */
void re_cache_key_compute(re_cache_key *key, const char *engine, unsigned sample_rate,
                          const re_voice_profile *profile, unsigned text_flags, const char *text);

/* The key as 64 lowercase hex digits (the entry's file name without ".seg"). */
void re_cache_key_hex(const re_cache_key *key, char hex[RE_SHA256_HEX_SIZE]);

/* The default cache folder: $XDG_CACHE_HOME/render-episode when XDG_CACHE_HOME is set to an
 * absolute path, else $HOME/.cache/render-episode. malloc'ed, owned by the caller; NULL with
 * the reason in diag (no file: there is none yet) when neither variable gives an absolute
 * path (or out of memory). The folder is not created. */
char *re_cache_default_dir(re_diagnostics *diag);

typedef struct re_cache re_cache;

/* A cache folder may be shared (docs/cache.md says which layouts are safe): every folder of
 * it (DIR, DIR/v1, DIR/v1/ab) is opened without following a symlink and refused when it is
 * one, or when users other than its owner can write to it and it is not sticky; an entry
 * owned by another user than the running one or root is refused (any local user could have
 * written any audio under a valid checksum). A refusal is a miss (get) or a failed put, and
 * its reason, naming the folder or entry, is kept: re_cache_take_warning adds it to diag once
 * per handle ("warning: not using the segment cache folder ...: ..."), and nothing when there
 * was none or it was given already (by a put's message). RE_ERR_NOMEM. */
re_status re_cache_take_warning(re_cache *cache, re_diagnostics *diag);

/* A handle on the cache in `dir` (copied). Touches no file: a missing folder is created by
 * the first put. RE_ERR_INVALID for an empty dir, RE_ERR_NOMEM. */
re_status re_cache_open(const char *dir, re_cache **out);
void re_cache_free(re_cache *cache);   /* NULL is allowed */
const char *re_cache_dir(const re_cache *cache);

/* What this handle did, for a summary line after a render. */
typedef struct re_cache_counters {
    size_t hits;
    size_t misses;          /* includes rejected */
    size_t rejected;        /* entries found but invalid (truncated, corrupt, misplaced), removed */
    size_t stored;          /* successful puts */
    size_t store_failures;  /* failed puts */
} re_cache_counters;

const re_cache_counters *re_cache_counters_of(const re_cache *cache);

/* Looks the key up. On a hit: *hit = 1, *out holds the audio at sample_rate (owned by the
 * caller, release with re_speech_free) and the entry's mtime is refreshed (best effort). On a
 * miss: *hit = 0 and *out is empty; a missing folder or entry, an unreadable file, and an
 * invalid entry (which is also removed, best effort) are all misses. Returns RE_OK, or
 * RE_ERR_NOMEM (*hit = 0, *out empty). */
re_status re_cache_get(re_cache *cache, const re_cache_key *key, unsigned sample_rate,
                       re_speech *out, int *hit);

/* Stores `speech` (audio at sample_rate) under key, atomically; replaces an entry that is
 * already there. Creates the folders as needed. On failure nothing is left behind and the
 * reason is in diag (may be NULL): RE_ERR_WRITE (read-only cache, disk full, ...),
 * RE_ERR_LIMIT (larger than RE_CACHE_MAX_ENTRY_BYTES), RE_ERR_NOMEM ("out of memory"). None
 * of these need fail a render. RE_ERR_INVALID when speech is malformed (NULL arrays with
 * counts, unknown event types). */
re_status re_cache_put(re_cache *cache, const re_cache_key *key, unsigned sample_rate,
                       const re_speech *speech, re_diagnostics *diag);

/* The entry format without the folder, for other stores of the same entries (remote.h): an
 * entry is the same bytes wherever it is kept, and is checked the same way wherever it comes
 * from.
 *
 * re_cache_entry_write writes the entry for (key, speech at sample_rate) to fd from its
 * current position and closes fd, also on failure: RE_OK, RE_ERR_WRITE, RE_ERR_NOMEM,
 * RE_ERR_LIMIT (too large), RE_ERR_INVALID (malformed speech).
 *
 * re_cache_entry_read reads fd (a regular file or memfd holding exactly one entry; read from
 * its start) with every check re_cache_get makes: *valid = 1 and *out filled (owned by the
 * caller) for a whole entry of this key at this rate, else *valid = 0 and *out empty. RE_OK,
 * or RE_ERR_NOMEM. fd stays open. */
/* The largest entry one segment can make at sample_rate: RE_SEGMENT_MAX_SECONDS of 16-bit
 * audio and RE_CACHE_MAX_EVENTS events (at 22050 Hz about 160 MB; never more than
 * RE_CACHE_MAX_ENTRY_BYTES). What a remote answers beyond it is not an entry. */
uint64_t re_cache_max_entry_bytes(unsigned sample_rate);

re_status re_cache_entry_write(int fd, const re_cache_key *key, unsigned sample_rate,
                               const re_speech *speech);
re_status re_cache_entry_read(int fd, const re_cache_key *key, unsigned sample_rate,
                              re_speech *out, int *valid);

/* What the folder holds. Only names the cache writes are counted; other files are left
 * alone. Sizes are file sizes (st_size). */
typedef struct re_cache_usage {
    uint64_t entries;       /* DIR/v1/xx/<64 hex>.seg files */
    uint64_t bytes;
    uint64_t temp_files;    /* DIR/v1/xx/.<...>.tmp files: being written, or debris */
    uint64_t temp_bytes;
} re_cache_usage;

/* Walks the folder. A missing folder is an empty cache (RE_OK, all zeros); RE_ERR_READ with
 * the reason in diag when it cannot be listed. */
re_status re_cache_stats(re_cache *cache, re_cache_usage *usage, re_diagnostics *diag);

typedef struct re_cache_prune_report {
    re_cache_usage before;
    uint64_t entries_removed, bytes_removed;       /* least recently used first */
    uint64_t temp_removed, temp_bytes_removed;     /* older than RE_CACHE_STALE_TEMP_SECONDS */
    re_cache_usage after;                          /* before minus what went (also by others) */
} re_cache_prune_report;

/* Removes entries, oldest mtime first, until the entries total at most max_bytes (0 empties
 * the cache), and temporary files older than RE_CACHE_STALE_TEMP_SECONDS. Safe while other
 * processes read and write: a file that vanishes meanwhile counts as gone, an entry used
 * (touched) since the walk is kept. Folders are kept. RE_ERR_READ as for stats; a file that
 * cannot be removed is skipped (RE_ERR_WRITE with the first such reason in diag once the
 * walk is done). */
re_status re_cache_prune(re_cache *cache, uint64_t max_bytes, re_cache_prune_report *report,
                         re_diagnostics *diag);

/* A size for --prune: decimal digits with an optional binary suffix K, M, G or T (upper or
 * lower case; 1K = 1024): "1048576", "500M", "2G". Nothing else (no sign, space, fraction or
 * "B"). RE_ERR_INPUT with the reason in diag (no file) when malformed or above 2^63. */
re_status re_cache_parse_size(const char *text, uint64_t *bytes, re_diagnostics *diag);

#endif
