/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cache_entry.c - one segment cache entry's bytes: its layout, read back as untrusted input,
 * and written with its checksum (see cache.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cache_internal.h"

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
uint64_t re_cache_entry_size(uint64_t frames, uint64_t event_count)
{
    const uint64_t max = RE_CACHE_MAX_ENTRY_BYTES;
    if (frames > max / 2 || event_count > max / EVENT_SIZE)
        return 0;
    uint64_t size = HEADER_SIZE + event_count * EVENT_SIZE + frames * 2 + RE_SHA256_SIZE;
    return size <= max ? size : 0;
}

uint64_t re_cache_max_entry_bytes(unsigned sample_rate)
{
    uint64_t size = re_cache_entry_size((uint64_t)sample_rate * RE_SEGMENT_MAX_SECONDS, RE_CACHE_MAX_EVENTS);
    return size ? size : RE_CACHE_MAX_ENTRY_BYTES;
}

/* ---- reading ----------------------------------------------------------------------------- */

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

entry_verdict re_cache_read_entry(int fd, const struct stat *st, const re_cache_key *key,
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
    uint64_t size = re_cache_entry_size(frames, event_count);
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
    out->rate = sample_rate;
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
    entry_verdict verdict = re_cache_read_entry(fd, &st, key, sample_rate, out);
    *valid = verdict == ENTRY_VALID;
    return verdict == ENTRY_NOMEM ? RE_ERR_NOMEM : RE_OK;
}

/* ---- writing ----------------------------------------------------------------------------- */

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
int re_cache_write_entry(int fd, const re_cache_key *key, unsigned sample_rate,
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
int re_cache_speech_is_storable(const re_speech *speech)
{
    int valid = (!speech->frames || speech->pcm) && (!speech->event_count || speech->events);
    for (size_t i = 0; valid && i < speech->event_count; i++)
        valid = speech->events[i].type == RE_EVENT_SENTENCE || speech->events[i].type == RE_EVENT_WORD;
    return valid;
}

re_status re_cache_entry_write(int fd, const re_cache_key *key, unsigned sample_rate,
                               const re_speech *speech)
{
    if (!re_cache_speech_is_storable(speech)) {
        close(fd);
        return RE_ERR_INVALID;
    }
    if (re_cache_entry_size(speech->frames, speech->event_count) == 0) {
        close(fd);
        return RE_ERR_LIMIT;
    }
    int error = re_cache_write_entry(fd, key, sample_rate, speech);
    return error == 0 ? RE_OK : error == ENOMEM ? RE_ERR_NOMEM : RE_ERR_WRITE;
}
