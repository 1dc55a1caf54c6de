/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_patch.c - the local re-encode (mp3_parallel.h, re_mp3_patch_fd): the frames around
 * changed samples encoded again and spliced into the finished MP3 in place. */
#define _GNU_SOURCE
#include "mp3_parallel.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "files.h"
#include "mp3_stream.h"

/* ---- the local re-encode ----------------------------------------------------------------
 * The stream in the file is an "old" piece (its frames read back), a new encoder is started
 * on the frame grid before the changed samples, and two splices are made the way splice_all
 * makes them: old -> new before the change (where the old stream left room for what the new
 * frame borrows), new -> old after it (where the new encoder left room for what the old
 * frame borrows; preferably a frame both made alike). CBR frames keep their lengths, so the
 * new frames replace a byte range in place. */
#define PATCH_BEFORE 6        /* frames from the switch in to the first changed one (look-ahead) */
#define PATCH_AFTER 3         /* frames after the last changed sample's (+ codec delays) */
#define PATCH_DELAYS 1105     /* LAME's encoder delay (576) + the decoder's (529) */
#define PATCH_SEARCH 28       /* frames searched for each switch */
#define PATCH_EXTEND 256      /* frames the new encoder may go on to find the switch out */

#define INDEX_READ 65536

/* The file offset of every audio frame's header (after the tag frame at audio_at), and one
 * past the last frame's end at [count]. RE_ERR_FORMAT unless the file is such frames to its end. */
static re_status index_frames(int fd, off_t audio_at, off_t size, const stream_format *fmt,
                              off_t **offsets, uint64_t *count)
{
    size_t cap = 4096, n = 0;
    off_t *at = malloc(cap * sizeof *at);
    off_t pos = audio_at + (off_t)fmt->tag_frame_len;
    /* the headers read INDEX_READ bytes at a time: one system call a frame was 77,000 calls
     * for half an hour of audio */
    unsigned char *window = malloc(INDEX_READ);
    off_t window_at = 0;
    size_t window_len = 0;
    while (at && window && pos < size) {
        if (pos < window_at || pos + 4 > window_at + (off_t)window_len) {
            window_at = pos;
            window_len = size - pos < INDEX_READ ? (size_t)(size - pos) : INDEX_READ;
            if (re_pread_all(fd, window, window_len, pos) != RE_OK)
                window_len = 0;
        }
        const unsigned char *h = window + (pos - window_at);
        if (pos + (off_t)fmt->side_len > size || pos + 4 > window_at + (off_t)window_len
            || h[0] != 0xFF || h[1] != fmt->byte1 || (h[2] & 0xFC) != fmt->byte2) {
            free(at);
            free(window);
            return RE_ERR_FORMAT;
        }
        if (n + 1 >= cap) {
            off_t *grown = realloc(at, 2 * cap * sizeof *at);
            if (!grown)
                break;
            at = grown;
            cap *= 2;
        }
        at[n++] = pos;
        pos += (off_t)(fmt->tag_frame_len + ((h[2] >> 1) & 1));
    }
    free(window);
    if (!at || pos < size) {
        free(at);
        return RE_ERR_NOMEM;
    }
    if (pos != size) {
        free(at);
        return RE_ERR_FORMAT;
    }
    at[n] = pos;
    *offsets = at;
    *count = n;
    return RE_OK;
}

/* The stream's frames [first, end) read back as a piece. */
static re_status read_old(int fd, const off_t *offsets, uint64_t first, uint64_t end,
                          const stream_format *fmt, piece *old, scratch *sc)
{
    old->first = first;
    old->cap = (size_t)(offsets[end] - offsets[first]);
    old->bytes = re_mp3_region_alloc(old->cap);
    if (!old->bytes) {
        old->cap = 0;
        return RE_ERR_NOMEM;
    }
    re_status status = re_pread_all(fd, old->bytes, old->cap, offsets[first]);
    old->len = old->cap;
    if (status == RE_OK)
        status = re_mp3_piece_parse(old, fmt, sc);
    if (status == RE_OK && old->count != end - first)
        status = RE_ERR_FORMAT;
    return status;
}

/* One changed range of samples [a, b) into the file. */
static re_status patch_range(job *jb, int fd, const off_t *offsets, uint64_t total,
                             uint64_t a, uint64_t b, scratch *sc, uint64_t *changed)
{
    const stream_format *fmt = &jb->fmt;
    uint64_t fa = a / fmt->spf, fb = (b + PATCH_DELAYS + fmt->spf - 1) / fmt->spf;
    uint64_t s1_max = fa > PATCH_BEFORE ? fa - PATCH_BEFORE : 0;
    uint64_t start = s1_max > jb->priming + PATCH_SEARCH ? s1_max - jb->priming - PATCH_SEARCH : 0;
    start = start / fmt->period * fmt->period;   /* LAME pads the frames a whole encode pads */
    uint64_t s2_min = fb + PATCH_AFTER;
    if (s2_min < s1_max + fmt->reach + 1)
        s2_min = s1_max + fmt->reach + 1;
    int to_end = s2_min + PATCH_SEARCH + 1 >= total;
    uint64_t old_first = start > fmt->reach + 1 ? start - fmt->reach - 1 : 0;
    uint64_t old_end = to_end ? total : s2_min + PATCH_SEARCH + PATCH_EXTEND;
    if (old_end > total)
        old_end = total;
    piece old = { 0 }, nu = { .first = start, .keep_from = start,
                              .keep_to = to_end ? UINT64_MAX : s2_min };
    re_status status = read_old(fd, offsets, old_first, old_end, fmt, &old, sc);
    if (status == RE_OK)
        status = re_mp3_piece_start(&nu, jb, sc);
    if (status == RE_OK && to_end && re_mp3_piece_end(&nu) != total) {
        re_diag_add(sc->diag, NULL, 0, 0, "%llu frames again, %llu before",
                    (unsigned long long)re_mp3_piece_end(&nu), (unsigned long long)total);
        status = RE_ERR_ENCODER;
    }
    /* in: the first frame both made alike, else the latest the reservoir allows */
    uint64_t s1 = UINT64_MAX;
    uint64_t lo = mp3_max64(start + (start ? jb->priming : 0), old_first + fmt->reach);
    if (start == 0)
        lo = 0;
    for (uint64_t s = lo; status == RE_OK && s <= s1_max; s++) {
        if (!re_mp3_may_switch(jb, &old, &nu, s))
            continue;
        s1 = s;
        if (re_mp3_same_frame(&old, &nu, s, fmt->side_len))
            break;
    }
    /* out: the first frame both made alike, else the first the reservoir allows */
    uint64_t s2 = to_end ? total : UINT64_MAX;
    for (uint64_t s = s2_min; status == RE_OK && s2 == UINT64_MAX;) {
        uint64_t hi = mp3_min64(re_mp3_piece_end(&nu), old_end);
        uint64_t allowed = UINT64_MAX;
        for (; s + 1 < hi; s++) {
            if (!re_mp3_may_switch(jb, &nu, &old, s))
                continue;
            if (allowed == UINT64_MAX)
                allowed = s;
            if (re_mp3_same_frame(&nu, &old, s, fmt->side_len)) {
                allowed = s;
                break;
            }
        }
        if (allowed != UINT64_MAX && (s + 1 < hi || re_mp3_piece_end(&nu) >= s2_min + PATCH_SEARCH))
            s2 = allowed;
        else if (hi + 1 >= old_end || nu.flushed) {
            re_diag_add(sc->diag, NULL, 0, 0, "no frame to switch back at after frame %llu",
                        (unsigned long long)s2_min);
            status = RE_ERR_ENCODER;      /* the caller encodes everything again */
        }
        else
            status = re_mp3_piece_advance(&nu, jb, re_mp3_piece_end(&nu) + EXTENSION_STEP, sc);
    }
    if (status == RE_OK && s1 == UINT64_MAX) {
        re_diag_add(sc->diag, NULL, 0, 0, "no frame to switch at in %llu..%llu",
                    (unsigned long long)lo, (unsigned long long)s1_max);
        status = RE_ERR_ENCODER;
    }
    /* the new frames must fill exactly the old ones' bytes */
    size_t new_from = 0, new_to = 0;
    if (status == RE_OK) {
        new_from = nu.frame[s1 - nu.first].offset;
        new_to = s2 == total ? nu.len : nu.frame[s2 - nu.first].offset;
        if ((off_t)(new_to - new_from) != offsets[s2] - offsets[s1]) {
            re_diag_add(sc->diag, NULL, 0, 0, "frames %llu..%llu: %zu bytes again, %lld before",
                        (unsigned long long)s1, (unsigned long long)s2, new_to - new_from,
                        (long long)(offsets[s2] - offsets[s1]));
            status = RE_ERR_ENCODER;
        }
    }
    if (status == RE_OK && s2 < total)
        status = re_mp3_copy_borrowed(&nu, &old, s2, old.frame[s2 - old.first].borrow, fmt->side_len);
    if (status == RE_OK)
        status = re_mp3_copy_borrowed(&old, &nu, s1, nu.frame[s1 - nu.first].borrow, fmt->side_len);
    if (status == RE_OK)
        status = re_pwrite_all(fd, old.bytes, old.frame[s1 - old.first].offset, offsets[old_first]);
    if (status == RE_OK)
        status = re_pwrite_all(fd, nu.bytes + new_from, new_to - new_from, offsets[s1]);
    if (status == RE_OK && changed) {
        changed[0] = s1;
        changed[1] = s2;
    }
    re_mp3_piece_free(&nu);
    re_mp3_piece_free(&old);
    return status;
}

re_status re_mp3_patch_fd(const re_mp3_encoding *encoding, re_mp3_pcm pcm,
                          const re_mp3_file *file, const re_mp3_patch *patch,
                          re_diagnostics *diag)
{
    if (!encoding || !file || !file->out || pcm.fd < 0 || !patch
        || (patch->range_count && !patch->ranges))
        return RE_ERR_INVALID;
    FILE *out = file->out;
    off_t audio_at = (off_t)file->id3_len;
    uint64_t frames = pcm.frames;
    const uint64_t (*ranges)[2] = patch->ranges;
    size_t range_count = patch->range_count;
    uint64_t (*changed)[2] = patch->changed;
    volatile sig_atomic_t *stop = encoding->stop;
    job jb = { .fd = pcm.fd, .samples = frames, .rate = encoding->sample_rate,
               .settings = &encoding->settings, .stop = stop, .priming = DEFAULT_PRIMING,
               .overrun = DEFAULT_OVERRUN };
    atomic_init(&jb.abort, 0);
    if (re_mp3_stream_describe(encoding->sample_rate, encoding->settings.bitrate_kbps, &jb.fmt)
        != RE_OK)
        return RE_ERR_ENCODER;
    if (fflush(out) != 0)
        return RE_ERR_WRITE;
    int fd = fileno(out);
    struct stat st;
    if (fstat(fd, &st) != 0)
        return RE_ERR_READ;
    off_t *offsets = NULL;
    uint64_t total = 0;
    re_status status = index_frames(fd, audio_at, st.st_size, &jb.fmt, &offsets, &total);
    uint64_t input_frames = (frames + jb.fmt.spf - 1) / jb.fmt.spf;
    if (status == RE_OK && total < input_frames)
        status = RE_ERR_FORMAT;
    scratch sc = { 0 };
    if (status == RE_OK)
        status = re_mp3_scratch_init(&sc, diag);
    for (size_t k = 0; status == RE_OK && k < range_count; k++) {
        if (ranges[k][0] >= ranges[k][1] || ranges[k][1] > frames)
            status = RE_ERR_INVALID;
        else
            status = patch_range(&jb, fd, offsets, total, ranges[k][0], ranges[k][1], &sc,
                                 changed ? changed[k] : NULL);
        if (status == RE_OK && stop && *stop)
            status = RE_ERR_INTERRUPTED;
    }
    /* the LAME tag's music CRC, then its own CRC */
    unsigned char *buf = status == RE_OK ? malloc(1 << 20) : NULL;
    if (status == RE_OK && !buf)
        status = RE_ERR_NOMEM;
    uint16_t table[256], crc = 0;
    re_mp3_crc16_table(table);
    for (off_t at = audio_at + (off_t)jb.fmt.tag_frame_len; status == RE_OK && at < st.st_size;) {
        size_t n = st.st_size - at < (1 << 20) ? (size_t)(st.st_size - at) : 1 << 20;
        status = re_pread_all(fd, buf, n, at);
        crc = re_mp3_crc16(table, crc, buf, n);
        at += (off_t)n;
    }
    size_t x = jb.fmt.side_len;
    if (status == RE_OK)
        status = re_pread_all(fd, buf, jb.fmt.tag_frame_len, audio_at);
    if (status == RE_OK
        && (x + LAME_TAG_END > jb.fmt.tag_frame_len || memcmp(buf + x, "Info", 4) != 0))
        status = RE_ERR_FORMAT;
    if (status == RE_OK) {
        re_mp3_put_be(buf + x + LAME_MUSIC_CRC, crc, 2);
        re_mp3_put_be(buf + x + LAME_TAG_CRC, re_mp3_crc16(table, 0, buf, x + LAME_TAG_CRC), 2);
        status = re_pwrite_all(fd, buf, jb.fmt.tag_frame_len, audio_at);
    }
    free(buf);
    free(offsets);
    re_mp3_scratch_free(&sc);
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM)
        re_diag_add(diag, NULL, 0, 0, "cannot re-encode part of the MP3 (%s)", re_strerror(status));
    return status;
}
