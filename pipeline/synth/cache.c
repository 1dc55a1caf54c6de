/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache.c - the content-addressed segment cache (see cache.h and docs/cache.md). */
#define _GNU_SOURCE
#include "cache.h"

#include <dirent.h>
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
static int open_folder(re_cache *cache, int parent, const char *name, const char *shown,
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
    int dir = open_folder(cache, AT_FDCWD, cache->dir, cache->dir, 0);
    if (dir < 0 && errno == ENOENT && create) {   /* first use of the cache */
        snprintf(shown, sizeof shown, "%s", cache->dir);
        if (make_folders(shown) != 0)
            return -1;
        dir = open_folder(cache, AT_FDCWD, cache->dir, cache->dir, 0);
    }
    if (dir < 0)
        return -1;
    snprintf(shown, sizeof shown, "%s/v1", cache->dir);
    int v1 = open_folder(cache, dir, "v1", shown, create);
    int err = errno;
    (void)close(dir);
    if (v1 < 0) {
        errno = err;
        return -1;
    }
    snprintf(shown, sizeof shown, "%s/v1/%s", cache->dir, fan);
    int fd = open_folder(cache, v1, fan, shown, create);
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

/* ---- the entry layout -------------------------------------------------------------------- */

/* Header, 64 bytes, little-endian:
 *    0  magic "RESEG\0v1"        8
 *    8  sample rate (Hz)         u32
 *   12  event record size (24)   u32
 *   16  frame count              u64
 *   24  event count              u64
 *   32  key                      32 bytes
 * then event_count records of 24 bytes (type u32, text_pos u32, length u32, 0 u32,
 * sample u64), frame_count samples (int16), and the SHA-256 of all the bytes before it. */
#define MAGIC "RESEG\0v1"
#define MAGIC_SIZE 8
#define HEADER_SIZE 64
#define EVENT_SIZE 24
#define EVENT_TYPE_SENTENCE 0u   /* on disk, whatever the values of re_speech_event_type */
#define EVENT_TYPE_WORD 1u

static void store_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t load_le64(const unsigned char *p)
{
    return (uint64_t)load_le32(p) | (uint64_t)load_le32(p + 4) << 32;
}

/* The size of an entry with these counts, or 0 when above RE_CACHE_MAX_ENTRY_BYTES. */
static uint64_t entry_size(uint64_t frames, uint64_t event_count)
{
    const uint64_t max = RE_CACHE_MAX_ENTRY_BYTES;
    if (frames > max / 2 || event_count > max / EVENT_SIZE)
        return 0;
    uint64_t size = HEADER_SIZE + event_count * EVENT_SIZE + frames * 2 + RE_SHA256_SIZE;
    return size <= max ? size : 0;
}

uint64_t re_cache_max_entry_bytes(unsigned sample_rate)
{
    uint64_t size = entry_size((uint64_t)sample_rate * RE_SEGMENT_MAX_SECONDS, RE_CACHE_MAX_EVENTS);
    return size ? size : RE_CACHE_MAX_ENTRY_BYTES;
}

/* ---- get --------------------------------------------------------------------------------- */

typedef enum entry_verdict {
    ENTRY_VALID,
    ENTRY_INVALID,      /* the file is not a whole, correct entry for this key: remove it */
    ENTRY_UNREADABLE,   /* reading failed (I/O error) or the request does not fit: just a miss */
    ENTRY_NOMEM
} entry_verdict;

/* Reads exactly len bytes (retrying on EINTR). 1 on success, 0 at a short file, -1 on error. */
static int read_exact(int fd, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

static entry_verdict read_failure(int r)
{
    return r == 0 ? ENTRY_INVALID : ENTRY_UNREADABLE;
}

static entry_verdict read_entry(int fd, const struct stat *st, const re_cache_key *key,
                                unsigned sample_rate, re_speech *out)
{
    if (!S_ISREG(st->st_mode) || st->st_size < HEADER_SIZE + RE_SHA256_SIZE
        || (uint64_t)st->st_size > RE_CACHE_MAX_ENTRY_BYTES)
        return ENTRY_INVALID;
    unsigned char header[HEADER_SIZE];
    int r = read_exact(fd, header, sizeof header);
    if (r != 1)
        return read_failure(r);
    uint64_t frames = load_le64(header + 16), event_count = load_le64(header + 24);
    if (memcmp(header, MAGIC, MAGIC_SIZE) != 0 || load_le32(header + 12) != EVENT_SIZE
        || memcmp(header + 32, key->digest, RE_SHA256_SIZE) != 0)
        return ENTRY_INVALID;
    uint64_t size = entry_size(frames, event_count);
    if (size == 0 || size != (uint64_t)st->st_size)
        return ENTRY_INVALID;

    /* Sizes are now bounded by the file's, so these allocations are too. */
    size_t events_len = (size_t)event_count * EVENT_SIZE, pcm_len = (size_t)frames * 2;
    unsigned char *records = malloc(events_len ? events_len : 1);
    unsigned char *pcm = malloc(pcm_len ? pcm_len : 1);
    re_speech_event *events = event_count ? calloc((size_t)event_count, sizeof *events) : NULL;
    entry_verdict verdict = ENTRY_VALID;
    if (!records || !pcm || (event_count && !events))
        verdict = ENTRY_NOMEM;
    unsigned char stored[RE_SHA256_SIZE], computed[RE_SHA256_SIZE];
    if (verdict == ENTRY_VALID && ((r = read_exact(fd, records, events_len)) != 1
                                   || (r = read_exact(fd, pcm, pcm_len)) != 1
                                   || (r = read_exact(fd, stored, sizeof stored)) != 1))
        verdict = read_failure(r);
    if (verdict == ENTRY_VALID) {
        re_sha256_ctx ctx;
        re_sha256_init(&ctx);
        re_sha256_update(&ctx, header, sizeof header);
        re_sha256_update(&ctx, records, events_len);
        re_sha256_update(&ctx, pcm, pcm_len);
        re_sha256_final(&ctx, computed);
        if (memcmp(stored, computed, sizeof stored) != 0)
            verdict = ENTRY_INVALID;
        else if (load_le32(header + 8) != sample_rate)
            verdict = ENTRY_UNREADABLE;   /* a whole entry, but the caller's key and rate
                                           * disagree: not ours to remove */
    }
    /* A shared cache is written by others: an entry is untrusted input even with a valid
     * checksum. Its events must be what the engine could have made: in order, inside the
     * audio, at text positions a paragraph can have. */
    if (verdict == ENTRY_VALID && event_count > RE_CACHE_MAX_EVENTS)
        verdict = ENTRY_INVALID;
    uint64_t previous = 0;
    for (size_t i = 0; verdict == ENTRY_VALID && i < event_count; i++) {
        const unsigned char *rec = records + i * EVENT_SIZE;
        uint32_t type = load_le32(rec), text_pos = load_le32(rec + 4), length = load_le32(rec + 8);
        uint64_t sample = load_le64(rec + 16);
        if (type > EVENT_TYPE_WORD || load_le32(rec + 12) != 0 || sample > frames
            || sample < previous || text_pos > RE_CACHE_MAX_TEXT_POSITION
            || length > RE_CACHE_MAX_TEXT_POSITION) {
            verdict = ENTRY_INVALID;
            break;
        }
        previous = sample;
        events[i] = (re_speech_event){ type == EVENT_TYPE_WORD ? RE_EVENT_WORD : RE_EVENT_SENTENCE,
                                       text_pos, length, sample };
    }
    free(records);
    if (verdict != ENTRY_VALID) {
        free(pcm);
        free(events);
        return verdict;
    }
    /* In place: sample i is made of bytes 2i and 2i+1 only. */
    int16_t *samples = (int16_t *)(void *)pcm;
    for (size_t i = 0; i < (size_t)frames; i++)
        samples[i] = (int16_t)(uint16_t)(pcm[2 * i] | pcm[2 * i + 1] << 8);
    out->pcm = samples;
    out->frames = (size_t)frames;
    out->events = events;
    out->event_count = (size_t)event_count;
    return ENTRY_VALID;
}

re_status re_cache_entry_read(int fd, const re_cache_key *key, unsigned sample_rate,
                              re_speech *out, int *valid)
{
    memset(out, 0, sizeof *out);
    *valid = 0;
    struct stat st;
    if (fstat(fd, &st) != 0 || lseek(fd, 0, SEEK_SET) != 0)
        return RE_OK;
    entry_verdict verdict = read_entry(fd, &st, key, sample_rate, out);
    *valid = verdict == ENTRY_VALID;
    return verdict == ENTRY_NOMEM ? RE_ERR_NOMEM : RE_OK;
}

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
    entry_verdict verdict = read_entry(fd, &st, key, sample_rate, out);
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

/* Buffered writes that hash what they write. The first error sticks. */
typedef struct entry_writer {
    int fd;
    int error;                  /* errno of the first failure, 0 while all is well */
    int hashing;                /* hash what is flushed (all but the final checksum) */
    re_sha256_ctx hash;
    size_t used;
    unsigned char buf[65536];
} entry_writer;

static void writer_flush(entry_writer *w)
{
    if (w->hashing)
        re_sha256_update(&w->hash, w->buf, w->used);
    const unsigned char *p = w->buf;
    size_t left = w->used;
    while (!w->error && left) {
        ssize_t n = write(w->fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            w->error = n < 0 ? errno : ENOSPC;
            break;
        }
        p += n;
        left -= (size_t)n;
    }
    w->used = 0;
}

/* Room for n more bytes in the buffer (n <= sizeof buf); returns where to put them. */
static unsigned char *writer_reserve(entry_writer *w, size_t n)
{
    if (sizeof w->buf - w->used < n)
        writer_flush(w);
    unsigned char *p = w->buf + w->used;
    w->used += n;
    return p;
}

/* Hashes and writes the content bytes (everything but the final checksum). */
static void write_content(entry_writer *w, const re_cache_key *key, unsigned sample_rate,
                          const re_speech *speech)
{
    unsigned char *h = writer_reserve(w, HEADER_SIZE);
    memset(h, 0, HEADER_SIZE);
    memcpy(h, MAGIC, MAGIC_SIZE);
    store_le32(h + 8, sample_rate);
    store_le32(h + 12, EVENT_SIZE);
    store_le64(h + 16, speech->frames);
    store_le64(h + 24, speech->event_count);
    memcpy(h + 32, key->digest, RE_SHA256_SIZE);
    for (size_t i = 0; i < speech->event_count; i++) {
        const re_speech_event *e = &speech->events[i];
        unsigned char *rec = writer_reserve(w, EVENT_SIZE);
        store_le32(rec, e->type == RE_EVENT_WORD ? EVENT_TYPE_WORD : EVENT_TYPE_SENTENCE);
        store_le32(rec + 4, e->text_pos);
        store_le32(rec + 8, e->length);
        store_le32(rec + 12, 0);
        store_le64(rec + 16, e->sample);
    }
    for (size_t i = 0; i < speech->frames;) {
        if (sizeof w->buf - w->used < 2)
            writer_flush(w);
        size_t room = (sizeof w->buf - w->used) / 2, left = speech->frames - i;
        size_t n = room < left ? room : left;
        unsigned char *s = writer_reserve(w, 2 * n);
        for (size_t k = 0; k < n; k++, i++) {
            uint16_t v = (uint16_t)speech->pcm[i];
            s[2 * k] = (unsigned char)v;
            s[2 * k + 1] = (unsigned char)(v >> 8);
        }
    }
}

/* Writes the whole entry to fd (which it closes). 0, or the errno of the first failure. */
static int write_entry(int fd, const re_cache_key *key, unsigned sample_rate,
                       const re_speech *speech)
{
    entry_writer *w = malloc(sizeof *w);
    if (!w) {
        close(fd);
        return ENOMEM;
    }
    *w = (entry_writer){ .fd = fd, .hashing = 1 };
    re_sha256_init(&w->hash);
    write_content(w, key, sample_rate, speech);
    writer_flush(w);
    unsigned char digest[RE_SHA256_SIZE];
    re_sha256_final(&w->hash, digest);
    w->hashing = 0;
    memcpy(writer_reserve(w, RE_SHA256_SIZE), digest, RE_SHA256_SIZE);
    writer_flush(w);
    int error = w->error;
    free(w);
    if (close(fd) != 0 && !error)
        error = errno;
    return error;
}

/* speech is what the engine could have made: arrays present where counted, known events. */
static int speech_is_storable(const re_speech *speech)
{
    int valid = (!speech->frames || speech->pcm) && (!speech->event_count || speech->events);
    for (size_t i = 0; valid && i < speech->event_count; i++)
        valid = speech->events[i].type == RE_EVENT_SENTENCE || speech->events[i].type == RE_EVENT_WORD;
    return valid;
}

re_status re_cache_entry_write(int fd, const re_cache_key *key, unsigned sample_rate,
                               const re_speech *speech)
{
    if (!speech_is_storable(speech)) {
        close(fd);
        return RE_ERR_INVALID;
    }
    if (entry_size(speech->frames, speech->event_count) == 0) {
        close(fd);
        return RE_ERR_LIMIT;
    }
    int error = write_entry(fd, key, sample_rate, speech);
    return error == 0 ? RE_OK : error == ENOMEM ? RE_ERR_NOMEM : RE_ERR_WRITE;
}

re_status re_cache_put(re_cache *cache, const re_cache_key *key, unsigned sample_rate,
                       const re_speech *speech, re_diagnostics *diag)
{
    if (!speech_is_storable(speech)) {
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
    if (entry_size(speech->frames, speech->event_count) == 0) {
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
    error = write_entry(fd, key, sample_rate, speech);
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

static int is_lower_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int is_entry_name(const char *name)
{
    return strlen(name) == ENTRY_NAME_LEN && is_lower_hex(name, 2 * RE_SHA256_SIZE)
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
    return open_folder(cache, v1, fan, shown, 0);
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
    int dir = open_folder(cache, AT_FDCWD, cache->dir, cache->dir, 0);
    scan->v1 = dir < 0 ? -1 : open_folder(cache, dir, "v1", cache->entry_path, 0);
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
        if (strlen(de->d_name) == 2 && is_lower_hex(de->d_name, 2))
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
