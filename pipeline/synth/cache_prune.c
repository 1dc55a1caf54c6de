/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_prune.c - what a segment cache folder holds and how it is bounded: stats, prune (the
 * least recently used entries first, stale temporary files) and the sizes prune is given. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "cache_internal.h"
#include "hex.h"

/* ---- stats and prune --------------------------------------------------------------------- */

#define ENTRY_NAME_LEN (2 * RE_SHA256_SIZE + 4)   /* <64 hex>.seg */

typedef struct scanned_entry {
    char rel[3 + ENTRY_NAME_LEN + 1];    /* "ab/<64 hex>.seg", relative to DIR/v1 */
    uint64_t size;
    struct timespec mtime;
} scanned_entry;

typedef struct cache_scan {
    re_cache *cache;
    int v1;                     /* DIR/v1, open; -1 when the cache does not exist yet */
    scanned_entry *entries;     /* collected only for prune */
    size_t count, capacity;
    int collect;
    int remove_stale_temps;
    time_t now;
    re_cache_usage usage;
    uint64_t temp_removed, temp_bytes_removed;
    int remove_error;           /* errno of the first file that could not be removed */
} cache_scan;

static int is_entry_name(const char *name)
{
    return strlen(name) == ENTRY_NAME_LEN && re_hex_valid(name, 2 * RE_SHA256_SIZE)
           && strcmp(name + 2 * RE_SHA256_SIZE, ".seg") == 0;
}

static int is_temp_name(const char *name)
{
    size_t n = strlen(name);
    return name[0] == '.' && n > 5 && strcmp(name + n - 4, ".tmp") == 0;
}

static int add_entry(cache_scan *scan, const char *fan, const char *name, const struct stat *st)
{
    if (scan->count == scan->capacity) {
        size_t capacity = scan->capacity ? scan->capacity * 2 : 256;
        scanned_entry *grown = realloc(scan->entries, capacity * sizeof *grown);
        if (!grown)
            return -1;
        scan->entries = grown;
        scan->capacity = capacity;
    }
    scanned_entry *e = &scan->entries[scan->count++];
    snprintf(e->rel, sizeof e->rel, "%s/%s", fan, name);
    e->size = (uint64_t)st->st_size;
    e->mtime = st->st_mtim;
    return 0;
}

/* One fan-out folder. Files that vanish while we look are simply not there. */
/* A fan-out folder of DIR/v1 (open as v1), checked as every folder of the cache is. */
static int open_fan_in(re_cache *cache, int v1, const char *fan)
{
    char shown[4096];
    snprintf(shown, sizeof shown, "%s/v1/%s", cache->dir, fan);
    return re_cache_open_folder(cache, v1, fan, shown, 0);
}

static re_status scan_fan(cache_scan *scan, const char *fan)
{
    int fd = open_fan_in(scan->cache, scan->v1, fan);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return RE_OK;   /* removed meanwhile, not a folder, or refused: nothing of ours */
    }
    re_status status = RE_OK;
    struct dirent *de;
    while (status == RE_OK && (de = readdir(d)) != NULL) {
        int entry = is_entry_name(de->d_name), temp = !entry && is_temp_name(de->d_name);
        struct stat st;
        if ((!entry && !temp) || fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0
            || !S_ISREG(st.st_mode))
            continue;
        if (entry) {
            scan->usage.entries++;
            scan->usage.bytes += (uint64_t)st.st_size;
            if (scan->collect && add_entry(scan, fan, de->d_name, &st) != 0)
                status = RE_ERR_NOMEM;
            continue;
        }
        scan->usage.temp_files++;
        scan->usage.temp_bytes += (uint64_t)st.st_size;
        if (!scan->remove_stale_temps || scan->now - st.st_mtim.tv_sec <= RE_CACHE_STALE_TEMP_SECONDS)
            continue;
        if (unlinkat(fd, de->d_name, 0) == 0) {
            scan->temp_removed++;
            scan->temp_bytes_removed += (uint64_t)st.st_size;
        } else if (errno != ENOENT && !scan->remove_error) {
            scan->remove_error = errno;
        }
    }
    closedir(d);
    return status;
}

/* Opens DIR/v1 and walks its fan-out folders. */
static re_status scan_cache(re_cache *cache, cache_scan *scan, re_diagnostics *diag)
{
    snprintf(cache->entry_path, cache->path_size, "%s/v1", cache->dir);
    scan->cache = cache;
    int dir = re_cache_open_folder(cache, AT_FDCWD, cache->dir, cache->dir, 0);
    scan->v1 = dir < 0 ? -1 : re_cache_open_folder(cache, dir, "v1", cache->entry_path, 0);
    int err = errno;
    if (dir >= 0)
        (void)close(dir);
    if (scan->v1 < 0) {
        if (err == ENOENT)
            return RE_OK;   /* no cache yet: an empty one */
        if (err == EPERM && cache->refusal) {
            cache->refusal_taken = 1;
            re_diag_add(diag, cache->dir, 0, 0, "%s", cache->refusal);
        } else {
            re_diag_add(diag, cache->dir, 0, 0, "cannot open the cache folder %s: %s",
                        cache->entry_path, strerror(err));
        }
        return RE_ERR_READ;
    }
    int dup_fd = dup(scan->v1);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        re_diag_add(diag, cache->dir, 0, 0, "cannot list the cache folder %s: %s",
                    cache->entry_path, strerror(errno));
        if (dup_fd >= 0)
            close(dup_fd);
        return RE_ERR_READ;
    }
    re_status status = RE_OK;
    struct dirent *de;
    errno = 0;
    while (status == RE_OK && (de = readdir(d)) != NULL) {
        if (strlen(de->d_name) == 2 && re_hex_valid(de->d_name, 2))
            status = scan_fan(scan, de->d_name);
        errno = 0;
    }
    if (status == RE_OK && errno != 0) {
        re_diag_add(diag, cache->dir, 0, 0, "cannot list the cache folder %s/v1: %s", cache->dir,
                    strerror(errno));
        status = RE_ERR_READ;
    }
    closedir(d);
    return status;
}

re_status re_cache_stats(re_cache *cache, re_cache_usage *usage, re_diagnostics *diag)
{
    cache_scan scan = { .v1 = -1 };
    re_status status = scan_cache(cache, &scan, diag);
    if (scan.v1 >= 0)
        close(scan.v1);
    *usage = scan.usage;
    return status;
}

static int older_first(const void *a, const void *b)
{
    const scanned_entry *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec)
        return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->rel, y->rel);
}

static int newer_than(const struct timespec *now, const struct timespec *then)
{
    return now->tv_sec > then->tv_sec || (now->tv_sec == then->tv_sec && now->tv_nsec > then->tv_nsec);
}

re_status re_cache_prune(re_cache *cache, uint64_t max_bytes, re_cache_prune_report *report,
                         re_diagnostics *diag)
{
    memset(report, 0, sizeof *report);
    cache_scan scan = { .v1 = -1, .collect = 1, .remove_stale_temps = 1, .now = time(NULL) };
    re_status status = scan_cache(cache, &scan, diag);
    report->before = scan.usage;
    report->temp_removed = scan.temp_removed;
    report->temp_bytes_removed = scan.temp_bytes_removed;
    uint64_t total = scan.usage.bytes, entries = scan.usage.entries;
    if (status == RE_OK && total > max_bytes) {
        qsort(scan.entries, scan.count, sizeof *scan.entries, older_first);
        for (size_t i = 0; i < scan.count && total > max_bytes; i++) {
            const scanned_entry *e = &scan.entries[i];
            struct stat st;
            char fan_name[3] = { e->rel[0], e->rel[1], '\0' };
            const char *name = e->rel + 3;
            int fan = open_fan_in(cache, scan.v1, fan_name);
            if (fan < 0 || fstatat(fan, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (fan >= 0)
                    close(fan);
                if (errno == ENOENT) {   /* pruned or rejected by someone else */
                    total -= e->size;
                    entries--;
                }
                continue;
            }
            if (newer_than(&st.st_mtim, &e->mtime)) {
                close(fan);
                continue;               /* used (or rewritten) since the walk: keep it */
            }
            int removed = unlinkat(fan, name, 0) == 0;
            int err = errno;
            close(fan);
            errno = err;
            if (removed) {
                report->entries_removed++;
                report->bytes_removed += e->size;
            } else if (errno != ENOENT) {
                if (!scan.remove_error)
                    scan.remove_error = errno;
                continue;
            }
            total -= e->size;
            entries--;
        }
    }
    report->after = (re_cache_usage){ entries, total, scan.usage.temp_files - scan.temp_removed,
                                      scan.usage.temp_bytes - scan.temp_bytes_removed };
    if (status == RE_OK && scan.remove_error) {
        re_diag_add(diag, cache->dir, 0, 0, "cannot remove some files in %s/v1: %s", cache->dir,
                    strerror(scan.remove_error));
        status = RE_ERR_WRITE;
    }
    if (scan.v1 >= 0)
        close(scan.v1);
    free(scan.entries);
    return status;
}

/* ---- sizes ------------------------------------------------------------------------------- */

re_status re_cache_parse_size(const char *text, uint64_t *bytes, re_diagnostics *diag)
{
    static const char suffixes[] = "KMGT";
    const uint64_t limit = UINT64_C(1) << 63;
    uint64_t value = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (value > (limit - digit) / 10)
            goto too_large;
        value = value * 10 + digit;
    }
    if (p == text)
        goto malformed;
    if (*p) {
        const char *s = strchr(suffixes, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
        if (!s || p[1] != '\0')
            goto malformed;
        for (const char *k = suffixes; k <= s; k++) {
            if (value > limit / 1024)
                goto too_large;
            value *= 1024;
        }
    }
    *bytes = value;
    return RE_OK;
malformed:
    re_diag_add(diag, NULL, 0, 0, "'%s' is not a size (digits with an optional K, M, G or T, "
                "like 500M, 2G or 1048576)", text);
    return RE_ERR_INPUT;
too_large:
    re_diag_add(diag, NULL, 0, 0, "'%s' is too large (the limit is 2^63 bytes)", text);
    return RE_ERR_INPUT;
}
