/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache.c - the content-addressed segment cache (see cache.h and docs/cache.md): the key, the
 * handle, the folders it trusts, get and put. The entry's bytes are cache_entry.c's; stats and
 * prune are cache_prune.c's. */
#define _GNU_SOURCE
#include "cache.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache_internal.h"

/* ---- the key ----------------------------------------------------------------------------- */

/* Every field is a 64-bit little-endian length and that many bytes, so no two different
 * inputs serialize to the same bytes; an absent string has the length UINT64_MAX. */
static void hash_u64(re_sha256_ctx *ctx, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    re_sha256_update(ctx, b, sizeof b);
}

static void hash_string(re_sha256_ctx *ctx, const char *s)
{
    if (!s) {
        hash_u64(ctx, UINT64_MAX);
        return;
    }
    size_t n = strlen(s);
    hash_u64(ctx, n);
    re_sha256_update(ctx, s, n);
}

static void hash_number(re_sha256_ctx *ctx, int64_t v)
{
    hash_u64(ctx, 8);
    hash_u64(ctx, (uint64_t)v);
}

void re_cache_key_compute(re_cache_key *key, const char *engine, unsigned sample_rate,
                          const re_voice_profile *profile, unsigned text_flags, const char *text)
{
    re_sha256_ctx ctx;
    re_sha256_init(&ctx);
    hash_string(&ctx, RE_CACHE_FORMAT_TAG);
    hash_string(&ctx, engine);
    hash_number(&ctx, sample_rate);
    hash_string(&ctx, profile->engine_voice);
    hash_number(&ctx, profile->rate);
    hash_number(&ctx, profile->pitch);
    hash_number(&ctx, profile->range);
    hash_number(&ctx, profile->volume);
    hash_number(&ctx, profile->word_gap_ms);
    hash_number(&ctx, text_flags);
    hash_string(&ctx, text);
    re_sha256_final(&ctx, key->digest);
}

void re_cache_key_hex(const re_cache_key *key, char hex[RE_SHA256_HEX_SIZE])
{
    re_sha256_hex(key->digest, hex);
}

char *re_cache_default_dir(re_diagnostics *diag)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char *dir = NULL;
    int n;
    if (xdg && xdg[0] == '/')
        n = asprintf(&dir, "%s/render-episode", xdg);
    else if (home && home[0] == '/')
        n = asprintf(&dir, "%s/.cache/render-episode", home);
    else {
        re_diag_add(diag, NULL, 0, 0, "no default cache folder: neither XDG_CACHE_HOME nor HOME "
                    "is an absolute path");
        return NULL;
    }
    if (n < 0) {
        re_diag_add(diag, NULL, 0, 0, "out of memory");
        return NULL;
    }
    return dir;
}

/* ---- the handle -------------------------------------------------------------------------- */

re_status re_cache_open(const char *dir, re_cache **out)
{
    *out = NULL;
    if (!dir || !dir[0])
        return RE_ERR_INVALID;
    re_cache *cache = calloc(1, sizeof *cache);
    if (!cache)
        return RE_ERR_NOMEM;
    cache->dir = strdup(dir);
    cache->path_size = strlen(dir) + 2 * RE_SHA256_HEX_SIZE + 64;
    cache->entry_path = malloc(cache->path_size);
    cache->temp_path = malloc(cache->path_size);
    if (!cache->dir || !cache->entry_path || !cache->temp_path) {
        re_cache_free(cache);
        return RE_ERR_NOMEM;
    }
    *out = cache;
    return RE_OK;
}

void re_cache_free(re_cache *cache)
{
    if (!cache)
        return;
    free(cache->dir);
    free(cache->refusal);
    free(cache->entry_path);
    free(cache->temp_path);
    free(cache);
}

const char *re_cache_dir(const re_cache *cache) { return cache->dir; }
const re_cache_counters *re_cache_counters_of(const re_cache *cache) { return &cache->counters; }

/* Fills cache->entry_path for key and returns it; hex receives the key's hex. */
static const char *entry_path_of(re_cache *cache, const re_cache_key *key,
                                 char hex[RE_SHA256_HEX_SIZE])
{
    re_cache_key_hex(key, hex);
    snprintf(cache->entry_path, cache->path_size, "%s/v1/%.2s/%s.seg", cache->dir, hex, hex);
    return cache->entry_path;
}

/* ---- safe folders ------------------------------------------------------------------------ */

/* Records the first reason a folder or an entry of a shared cache is not trusted (one warning
 * per handle, re_cache_take_warning). */
__attribute__((format(printf, 2, 3)))
static void refuse(re_cache *cache, const char *fmt, ...)
{
    if (cache->refusal)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&cache->refusal, fmt, ap) < 0)
        cache->refusal = NULL;
    va_end(ap);
}

re_status re_cache_take_warning(re_cache *cache, re_diagnostics *diag)
{
    if (!cache->refusal || cache->refusal_taken)
        return RE_OK;
    cache->refusal_taken = 1;
    return re_diag_add(diag, cache->dir, 0, 0, "warning: %s", cache->refusal);
}

/* Opens the folder `name` in `parent` (AT_FDCWD and a path for the cache folder itself) as
 * the cache trusts it: not a symlink, and not writable by users other than its owner unless
 * sticky (others could then rename their own entries over ours). With `create`, a missing one
 * is made (0777 & ~umask, made sticky when that leaves it writable by others). The fd, or -1:
 * missing (errno ENOENT), refused (a reason recorded, errno EPERM), or another error. */
int re_cache_open_folder(re_cache *cache, int parent, const char *name, const char *shown,
                         int create)
{
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && create) {
        int made = mkdirat(parent, name, 0777) == 0;
        if (!made && errno != EEXIST)
            return -1;
        fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (made && fd >= 0 && fstat(fd, &st) == 0 && (st.st_mode & 022))
            (void)fchmod(fd, (st.st_mode & 07777) | S_ISVTX);
    }
    struct stat st;
    if (fd < 0) {
        int err = errno;
        if ((err == ELOOP || err == ENOTDIR) && fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISLNK(st.st_mode)) {
            refuse(cache, "not using the segment cache folder %s: it is a symlink (a shared "
                   "cache's folders must be real folders)", shown);
            errno = EPERM;
            return -1;
        }
        errno = err;
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        (void)close(fd);
        return -1;
    }
    if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX)) {
        refuse(cache, "not using the segment cache folder %s: users other than its owner (uid "
               "%ju) can write to it and it is not sticky (chmod +t, or see docs/cache.md)",
               shown, (uintmax_t)st.st_uid);
        (void)close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

/* Creates every missing folder of path (mkdir -p: the folders above the cache's, as the user
 * named it); an existing one, also one made by another process at the same moment, is fine.
 * 0, or -1 with errno. */
static int make_folders(char *path)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int ok = mkdir(path, 0777) == 0 || errno == EEXIST;
        *p = c;
        if (!ok)
            return -1;
        if (c == '\0')
            return 0;
    }
}

/* The fan-out folder of `hex` (DIR/v1/ab), opened and checked folder by folder; -1 as
 * open_folder. */
static int open_fan(re_cache *cache, const char *hex, int create)
{
    char shown[4096], fan[3] = { hex[0], hex[1], '\0' };
    int dir = re_cache_open_folder(cache, AT_FDCWD, cache->dir, cache->dir, 0);
    if (dir < 0 && errno == ENOENT && create) {   /* first use of the cache */
        snprintf(shown, sizeof shown, "%s", cache->dir);
        if (make_folders(shown) != 0)
            return -1;
        dir = re_cache_open_folder(cache, AT_FDCWD, cache->dir, cache->dir, 0);
    }
    if (dir < 0)
        return -1;
    snprintf(shown, sizeof shown, "%s/v1", cache->dir);
    int v1 = re_cache_open_folder(cache, dir, "v1", shown, create);
    int err = errno;
    (void)close(dir);
    if (v1 < 0) {
        errno = err;
        return -1;
    }
    snprintf(shown, sizeof shown, "%s/v1/%s", cache->dir, fan);
    int fd = re_cache_open_folder(cache, v1, fan, shown, create);
    err = errno;
    (void)close(v1);
    errno = err;
    return fd;
}

/* 1 when an entry owned by `uid` may be used: ours or root's. Another user of a shared folder
 * could have written any audio under a valid checksum. */
static int trusted_entry(re_cache *cache, const struct stat *st, const char *path)
{
    if (st->st_uid == geteuid() || st->st_uid == 0)
        return 1;
    refuse(cache, "not using the segment cache entry %s: it belongs to another user (uid %ju); "
           "a cache is shared only between users who trust each other (docs/cache.md)", path,
           (uintmax_t)st->st_uid);
    return 0;
}

/* ---- get --------------------------------------------------------------------------------- */

/* Removes the entry `name` in fan if it is still the file we read (another process may have
 * just renamed a good entry over the bad one). Best effort. */
static void remove_if_same(int fan, const char *name, const struct stat *read_st)
{
    struct stat now;
    if (fstatat(fan, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == read_st->st_dev
        && now.st_ino == read_st->st_ino)
        (void)unlinkat(fan, name, 0);
}

re_status re_cache_get(re_cache *cache, const re_cache_key *key, unsigned sample_rate,
                       re_speech *out, int *hit)
{
    memset(out, 0, sizeof *out);
    *hit = 0;
    char hex[RE_SHA256_HEX_SIZE];
    const char *path = entry_path_of(cache, key, hex);
    const char *name = strrchr(path, '/') + 1;
    int fan = open_fan(cache, hex, 0);
    /* O_NONBLOCK: a FIFO that someone put where an entry goes must not stall every render
     * that needs this segment (read_entry refuses anything but a regular file). */
    int fd = fan < 0 ? -1 : openat(fan, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
                                               | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 && fan >= 0 && errno == ELOOP) {   /* a symlink is no entry: the link goes */
        (void)unlinkat(fan, name, 0);
        cache->counters.rejected++;
    }
    if (fd >= 0 && (fstat(fd, &st) != 0 || !trusted_entry(cache, &st, path))) {
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        if (fan >= 0)
            close(fan);
        cache->counters.misses++;
        return RE_OK;
    }
    entry_verdict verdict = re_cache_read_entry(fd, &st, key, sample_rate, out);
    if (verdict == ENTRY_VALID)
        (void)futimens(fd, NULL);   /* "recently used", for prune; fails harmlessly when the
                                     * entry belongs to root */
    close(fd);
    if (verdict == ENTRY_INVALID)
        remove_if_same(fan, name, &st);
    close(fan);
    switch (verdict) {
    case ENTRY_VALID:
        cache->counters.hits++;
        *hit = 1;
        return RE_OK;
    case ENTRY_INVALID:
        cache->counters.rejected++;
        cache->counters.misses++;
        return RE_OK;
    case ENTRY_UNREADABLE:
        cache->counters.misses++;
        return RE_OK;
    case ENTRY_NOMEM:
        break;
    }
    cache->counters.misses++;
    return RE_ERR_NOMEM;
}

/* ---- put --------------------------------------------------------------------------------- */

/* A new temporary file beside the entry, with a name unique to this process and call, mode
 * 0666 less the umask (readable by the other users of a shared cache). */
static int create_temp(re_cache *cache, int fan, const char *hex)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t nonce = 0;
        if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            nonce = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30;
        }
        nonce += ++cache->temp_sequence;
        snprintf(cache->temp_path, cache->path_size, ".%s.%ld-%016llx.tmp", hex, (long)getpid(),
                 (unsigned long long)nonce);
        int fd = openat(fan, cache->temp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY
                        | O_NOFOLLOW, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

re_status re_cache_put(re_cache *cache, const re_cache_key *key, unsigned sample_rate,
                       const re_speech *speech, re_diagnostics *diag)
{
    if (!re_cache_speech_is_storable(speech)) {
        re_diag_add(diag, cache->dir, 0, 0, "invalid speech to store");
        return RE_ERR_INVALID;
    }
    re_status status = RE_ERR_WRITE;
    const char *failed = NULL;
    int error = 0;
    char hex[RE_SHA256_HEX_SIZE];
    const char *path = entry_path_of(cache, key, hex);
    char *folder = strdup(path);
    if (!folder) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    *strrchr(folder, '/') = '\0';
    if (re_cache_entry_size(speech->frames, speech->event_count) == 0) {
        status = RE_ERR_LIMIT;
        goto fail;
    }
    int fan = open_fan(cache, hex, 1);
    if (fan < 0) {
        failed = errno == EPERM ? "use the cache folder" : "create the cache folder";
        error = errno;
        goto fail;
    }
    int fd = create_temp(cache, fan, hex);
    if (fd < 0) {
        failed = "create a file in";
        error = errno;
        close(fan);
        goto fail;
    }
    error = re_cache_write_entry(fd, key, sample_rate, speech);
    if (error)
        failed = "write an entry in";
    else if (renameat(fan, cache->temp_path, fan, strrchr(path, '/') + 1) != 0) {
        failed = "rename an entry in";
        error = errno;
    }
    if (failed)
        (void)unlinkat(fan, cache->temp_path, 0);
    close(fan);
    if (failed)
        goto fail;
    free(folder);
    cache->counters.stored++;
    return RE_OK;

fail:
    if (status == RE_ERR_NOMEM || error == ENOMEM)
        re_diag_add(diag, cache->dir, 0, 0, "out of memory");
    else if (status == RE_ERR_LIMIT)
        re_diag_add(diag, cache->dir, 0, 0, "segment too large for the cache (over %llu bytes)",
                    (unsigned long long)RE_CACHE_MAX_ENTRY_BYTES);
    else if (error == EPERM && cache->refusal) {
        re_diag_add(diag, cache->dir, 0, 0, "%s", cache->refusal);
        cache->refusal_taken |= diag != NULL;   /* said once */
    }
    else
        re_diag_add(diag, cache->dir, 0, 0, "cannot %s %s: %s", failed, folder, strerror(error));
    if (error == ENOMEM)
        status = RE_ERR_NOMEM;
    free(folder);
    cache->counters.store_failures++;
    return status;
}
