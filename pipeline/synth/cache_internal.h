/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_internal.h - what the segment cache's files share and nobody else sees: the handle,
 * the folder check every opened folder passes, and one entry's bytes (cache_entry.c). */
#ifndef RE_CACHE_INTERNAL_H
#define RE_CACHE_INTERNAL_H

#include <stdint.h>
#include <sys/stat.h>

#include "cache.h"

struct re_cache {
    char *dir;
    char *refusal;      /* the first folder or entry refused as unsafe, until it is warned of */
    int refusal_taken;
    char *entry_path;   /* scratch: DIR/v1/ab/<hex>.seg */
    char *temp_path;    /* scratch: DIR/v1/ab/.<hex>.<pid>-<random>.tmp */
    size_t path_size;
    unsigned long temp_sequence;   /* makes temporary names unique within this handle */
    re_cache_counters counters;
};

/* ---- cache.c: folders ------------------------------------------------------------------- */

/* Opens the folder `name` in `parent` (AT_FDCWD and a path for the cache folder itself) as
 * the cache trusts it (not a symlink; not writable by others unless sticky), `shown` naming
 * it in the refusal; with `create`, a missing one is made. The fd, or -1 with errno: ENOENT
 * missing, EPERM refused (the reason recorded in cache->refusal), or another error. */
int re_cache_open_folder(re_cache *cache, int parent, const char *name, const char *shown,
                         int create);

/* ---- cache_entry.c: one entry's bytes ------------------------------------------------------ */

typedef enum entry_verdict {
    ENTRY_VALID,
    ENTRY_INVALID,      /* the file is not a whole, correct entry for this key: remove it */
    ENTRY_UNREADABLE,   /* reading failed (I/O error) or the request does not fit: just a miss */
    ENTRY_NOMEM
} entry_verdict;

/* The size of an entry with these counts, or 0 when above RE_CACHE_MAX_ENTRY_BYTES. */
uint64_t re_cache_entry_size(uint64_t frames, uint64_t event_count);
/* Reads the entry open as fd (st: its fstat, read from the current offset) for key at
 * sample_rate into *out (owned by the caller) when the verdict is ENTRY_VALID. */
entry_verdict re_cache_read_entry(int fd, const struct stat *st, const re_cache_key *key,
                                  unsigned sample_rate, re_speech *out);
/* Writes the whole entry to fd, which it closes. 0, or the errno of the first failure. */
int re_cache_write_entry(int fd, const re_cache_key *key, unsigned sample_rate,
                         const re_speech *speech);
/* 1 when speech is what the engine could have made: arrays present where counted, known
 * events. */
int re_cache_speech_is_storable(const re_speech *speech);

#endif
