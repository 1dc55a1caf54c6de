/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_stream.c - the MP3 stream as the parallel encoder and the local re-encode see it
 * (mp3_stream.h): its frame format, one LAME encoder's output split into frames, and the
 * bit-reservoir splice between two encoders' frames. */
#define _GNU_SOURCE
#include "mp3_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lame/lame.h>

static const int bitrates_mpeg1[15] = { 0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320 };
static const int bitrates_mpeg2[15] = { 0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160 };

/* LAME 3.100 is re-entrant per encoder except for a few process-wide lookup tables (pow43,
 * adj43, ipow20, pow20, the log table) that lame_init and every lame_init_params fill again,
 * with the same values each time. The first fill happens before any thread starts (the
 * settings check encodes a probe frame); later fills rewrite identical bytes while other
 * encoders read them, which is harmless on every platform we know but shows up in helgrind.
 * Creations are serialised so that two fills never overlap. */
static pthread_mutex_t lame_setup = PTHREAD_MUTEX_INITIALIZER;

/* The encoder configuration of mp3.c (re_mp3_lame_open), so that one piece gives the serial
 * bytes; one creation at a time. */
re_status mp3_lame_open_one(unsigned rate, const re_mp3_settings *settings, lame_global_flags **out)
{
    pthread_mutex_lock(&lame_setup);
    re_status status = re_mp3_lame_open(rate, settings, out);
    pthread_mutex_unlock(&lame_setup);
    return status;
}

static unsigned gcd(unsigned a, unsigned b)
{
    while (b) {
        unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Fills fmt for settings that re_mp3_check_settings accepted. */
re_status re_mp3_stream_describe(unsigned rate, int kbps, stream_format *fmt)
{
    static const unsigned rates[3][3] = {
        { 44100, 48000, 32000 }, { 22050, 24000, 16000 }, { 11025, 12000, 8000 },
    };
    static const unsigned char version_bits[3] = { 3, 2, 0 };   /* MPEG-1, 2, 2.5 */
    int version = -1, rate_index = -1, bitrate_index = -1;
    for (int v = 0; v < 3; v++)
        for (int i = 0; i < 3; i++)
            if (rates[v][i] == rate) {
                version = v;
                rate_index = i;
            }
    if (version < 0)
        return RE_ERR_ENCODER;
    const int *table = version == 0 ? bitrates_mpeg1 : bitrates_mpeg2;
    for (int i = 1; i < 15; i++)
        if (table[i] == kbps)
            bitrate_index = i;
    if (bitrate_index < 0)
        return RE_ERR_ENCODER;
    memset(fmt, 0, sizeof *fmt);
    fmt->mpeg1 = version == 0;
    fmt->kbps = kbps;
    fmt->spf = fmt->mpeg1 ? 1152 : 576;
    fmt->side_len = 4 + (fmt->mpeg1 ? 17 : 9);
    fmt->max_borrow = fmt->mpeg1 ? 511 : 255;
    unsigned slot_bytes_x_rate = (fmt->mpeg1 ? 144000u : 72000u) * (unsigned)kbps;
    fmt->tag_frame_len = slot_bytes_x_rate / rate;
    unsigned area = fmt->tag_frame_len - fmt->side_len;     /* smallest main-data area */
    fmt->reach = (fmt->max_borrow + area - 1) / area + 1;
    unsigned lag = slot_bytes_x_rate % rate;                /* LAME's frac_SpF */
    fmt->period = lag ? rate / gcd(lag, rate) : 1;
    fmt->byte1 = (unsigned char)(0xE0 | version_bits[version] << 3 | 1 << 1 | 1);  /* L3, no CRC */
    fmt->byte2 = (unsigned char)(bitrate_index << 4 | rate_index << 2);
    return RE_OK;
}

/* ---- PCM input -------------------------------------------------------------------------- */

re_status re_mp3_read_pcm(const job *jb, uint64_t first, int16_t *pcm, size_t n, scratch *sc)
{
    unsigned char *dst = (unsigned char *)pcm;
    size_t want = n * sizeof *pcm;
    off_t at = (off_t)(first * sizeof *pcm);
    while (want > 0) {
        ssize_t got = pread(jb->fd, dst, want, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            re_diag_add(sc->diag, NULL, 0, 0, "cannot read the audio spool: %s",
                        strerror(errno));
            return RE_ERR_READ;
        }
        if (got == 0) {
            re_diag_add(sc->diag, NULL, 0, 0, "the audio spool ends after %llu of %llu samples",
                        (unsigned long long)(at / 2), (unsigned long long)jb->samples);
            return RE_ERR_READ;
        }
        dst += got;
        at += got;
        want -= (size_t)got;
    }
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe == 0) {      /* big-endian host: the spool is LE */
        for (size_t i = 0; i < n; i++) {
            uint16_t v = (uint16_t)pcm[i];
            pcm[i] = (int16_t)(uint16_t)(v << 8 | v >> 8);
        }
    }
    return RE_OK;
}

/* ---- one encoder's output --------------------------------------------------------------- */

/* A piece's buffers come straight from mmap: they are large and live for one piece each,
 * and from malloc they left the per-thread arenas holding fragments that grew with the
 * number of pieces (measured in render-episode: 3.3 MB more peak memory at 33 minutes,
 * 7.0 MB more at 2 h 16 min). */
void *re_mp3_region_alloc(size_t size)
{
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void re_mp3_region_free(void *p, size_t size)
{
    if (p)
        munmap(p, size ? size : 1);
}

/* A larger region with the first `used` bytes of p (freed). NULL (p kept) if out of memory. */
static void *region_grow(void *p, size_t used, size_t old_size, size_t size)
{
    void *grown = re_mp3_region_alloc(size);
    if (grown && p) {
        memcpy(grown, p, used);
        re_mp3_region_free(p, old_size);
    }
    return grown;
}

static re_status append(piece *pc, const unsigned char *bytes, size_t n)
{
    if (n == 0)
        return RE_OK;
    if (pc->len + n > pc->cap) {
        size_t cap = pc->cap ? pc->cap : 65536;
        while (cap < pc->len + n)
            cap *= 2;
        unsigned char *grown = region_grow(pc->bytes, pc->len, pc->cap, cap);
        if (!grown)
            return RE_ERR_NOMEM;
        pc->bytes = grown;
        pc->cap = cap;
    }
    memcpy(pc->bytes + pc->len, bytes, n);
    pc->len += n;
    return RE_OK;
}

/* Splits newly written bytes into frames: every header whose side information is complete. */
re_status re_mp3_piece_parse(piece *pc, const stream_format *fmt, scratch *sc)
{
    while (pc->len >= pc->parsed + fmt->side_len) {
        const unsigned char *h = pc->bytes + pc->parsed;
        if (h[0] != 0xFF || h[1] != fmt->byte1 || (h[2] & 0xFC) != fmt->byte2 ||
            (h[3] & 0xC0) != 0xC0) {
            re_diag_add(sc->diag, NULL, 0, 0,
                        "LAME wrote an unexpected frame header %02x%02x%02x%02x",
                        h[0], h[1], h[2], h[3]);
            return RE_ERR_ENCODER;
        }
        if (pc->count == pc->frame_cap) {
            size_t cap = pc->frame_cap ? pc->frame_cap * 2 : 1024;
            frame_info *grown = region_grow(pc->frame, pc->count * sizeof *grown,
                                            pc->frame_cap * sizeof *grown, cap * sizeof *grown);
            if (!grown)
                return RE_ERR_NOMEM;
            pc->frame = grown;
            pc->frame_cap = cap;
        }
        frame_info *f = &pc->frame[pc->count++];
        f->offset = pc->parsed;
        f->length = (uint16_t)(fmt->tag_frame_len + ((h[2] >> 1) & 1));
        f->borrow = fmt->mpeg1 ? (uint16_t)(h[4] << 1 | h[5] >> 7) : h[4];
        pc->parsed += f->length;
    }
    return RE_OK;
}

uint64_t re_mp3_piece_end(const piece *pc)
{
    return pc->first + pc->count;
}

/* Encodes on until the headers of frames below `target` are out, or to the end (flush). */
re_status re_mp3_piece_advance(piece *pc, const job *jb, uint64_t target, scratch *sc)
{
    const stream_format *fmt = &jb->fmt;
    while (!pc->flushed && re_mp3_piece_end(pc) < target) {
        if ((jb->stop && *jb->stop) || atomic_load(&jb->abort))
            return RE_ERR_INTERRUPTED;
        uint64_t left = jb->samples - pc->fed;
        int rc;
        if (left == 0) {
            rc = lame_encode_flush(pc->gf, sc->mp3, CHUNK_BUFFER_BYTES);
            pc->flushed = 1;
        } else {
            /* Enough for the target and LAME's look-ahead, not much more (a piece's end
             * would otherwise be encoded twice for nothing). */
            uint64_t need = target > UINT64_MAX / fmt->spf - LAG_FRAMES ? UINT64_MAX
                          : (target + LAG_FRAMES) * fmt->spf;
            uint64_t n = need > pc->fed ? need - pc->fed : fmt->spf;
            if (n > CHUNK_SAMPLES)
                n = CHUNK_SAMPLES;
            if (n > left)
                n = left;
            re_status status = re_mp3_read_pcm(jb, pc->fed, sc->pcm, (size_t)n, sc);
            if (status != RE_OK)
                return status;
            rc = lame_encode_buffer(pc->gf, sc->pcm, sc->pcm, (int)n, sc->mp3, CHUNK_BUFFER_BYTES);
            pc->fed += n;
        }
        if (rc < 0) {
            re_diag_add(sc->diag, NULL, 0, 0, "LAME failed with code %d", rc);
            return re_mp3_lame_status(rc);
        }
        re_status status = append(pc, sc->mp3, (size_t)rc);
        if (status == RE_OK)
            status = re_mp3_piece_parse(pc, fmt, sc);
        if (status != RE_OK)
            return status;
    }
    if (pc->flushed && pc->parsed != pc->len) {
        re_diag_add(sc->diag, NULL, 0, 0, "LAME's last frame is incomplete");
        return RE_ERR_ENCODER;
    }
    return RE_OK;
}

re_status re_mp3_piece_start(piece *pc, const job *jb, scratch *sc)
{
    re_status status = mp3_lame_open_one(jb->rate, jb->settings, &pc->gf);
    if (status != RE_OK) {
        re_diag_add(sc->diag, NULL, 0, 0, "LAME refused the settings");
        return status;
    }
    pc->fed = pc->first * jb->fmt.spf;
    pc->parsed = jb->fmt.tag_frame_len;       /* LAME's tag placeholder comes first */
    uint64_t target = pc->keep_to == UINT64_MAX ? UINT64_MAX : pc->keep_to + jb->overrun + 1;
    /* The whole piece's buffers at once; only the writer's rare extensions grow them. */
    uint64_t input_frames = (jb->samples + jb->fmt.spf - 1) / jb->fmt.spf;
    uint64_t frames = (target == UINT64_MAX ? input_frames : target) - pc->first + 8;
    pc->frame_cap = (size_t)frames;
    pc->cap = (size_t)frames * (jb->fmt.tag_frame_len + 1) + CHUNK_BUFFER_BYTES;
    pc->frame = re_mp3_region_alloc(pc->frame_cap * sizeof *pc->frame);
    pc->bytes = re_mp3_region_alloc(pc->cap);
    if (!pc->frame || !pc->bytes) {
        pc->frame_cap = pc->frame ? pc->frame_cap : 0;
        pc->cap = pc->bytes ? pc->cap : 0;
        return RE_ERR_NOMEM;
    }
    return re_mp3_piece_advance(pc, jb, target, sc);
}

void re_mp3_piece_free(piece *pc)
{
    if (pc->gf)
        lame_close(pc->gf);
    re_mp3_region_free(pc->bytes, pc->cap);
    re_mp3_region_free(pc->frame, pc->frame_cap * sizeof *pc->frame);
    memset(pc, 0, sizeof *pc);
}

/* ---- the splice ------------------------------------------------------------------------- */

/* A cursor walking backwards over the main-data bytes before a frame's header. */
typedef struct backward {
    const piece *pc;
    size_t frame;            /* the slot being read */
    size_t pos;              /* one past the next byte to read */
    unsigned side_len;
} backward;

static int backward_start(backward *b, const piece *pc, uint64_t s, unsigned side_len)
{
    if (s <= pc->first)
        return 0;
    b->pc = pc;
    b->frame = (size_t)(s - pc->first) - 1;
    b->pos = pc->frame[b->frame].offset + pc->frame[b->frame].length;
    b->side_len = side_len;
    return 1;
}

/* The index of the previous main-data byte, or SIZE_MAX before the first frame. */
static size_t backward_next(backward *b)
{
    while (b->pos == b->pc->frame[b->frame].offset + b->side_len) {
        if (b->frame == 0)
            return SIZE_MAX;
        b->frame--;
        b->pos = b->pc->frame[b->frame].offset + b->pc->frame[b->frame].length;
    }
    return --b->pos;
}

/* Copies the `n` main-data bytes before header s in `from` over the last n before header s
 * in `to`. */
re_status re_mp3_copy_borrowed(piece *to, const piece *from, uint64_t s, unsigned n,
                               unsigned side_len)
{
    backward dst, src;
    if (n == 0)
        return RE_OK;
    if (!backward_start(&dst, to, s, side_len) || !backward_start(&src, from, s, side_len))
        return RE_ERR_ENCODER;
    for (unsigned i = 0; i < n; i++) {
        size_t d = backward_next(&dst), f = backward_next(&src);
        if (d == SIZE_MAX || f == SIZE_MAX)
            return RE_ERR_ENCODER;
        to->bytes[d] = from->bytes[f];
    }
    return RE_OK;
}

/* Whether both encoders made frame s alike: the same slot and the same borrowed bytes. Both
 * must hold the header of frame s + 1 (the slot is complete). */
int re_mp3_same_frame(const piece *a, const piece *b, uint64_t s, unsigned side_len)
{
    const frame_info *fa = &a->frame[s - a->first], *fb = &b->frame[s - b->first];
    if (fa->borrow != fb->borrow || fa->length != fb->length ||
        memcmp(a->bytes + fa->offset, b->bytes + fb->offset, fa->length) != 0)
        return 0;
    backward ba, bb;
    if (fa->borrow == 0)
        return 1;
    if (!backward_start(&ba, a, s, side_len) || !backward_start(&bb, b, s, side_len))
        return 0;
    for (unsigned i = 0; i < fa->borrow; i++) {
        size_t x = backward_next(&ba), y = backward_next(&bb);
        if (x == SIZE_MAX || y == SIZE_MAX || a->bytes[x] != b->bytes[y])
            return 0;
    }
    return 1;
}

/* ---- the tag's arithmetic ------------------------------------------------------------------ */

void re_mp3_crc16_table(uint16_t table[256])
{
    for (unsigned i = 0; i < 256; i++) {
        unsigned c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xA001 : c >> 1;
        table[i] = (uint16_t)c;
    }
}

uint16_t re_mp3_crc16(const uint16_t table[256], uint16_t crc, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crc = (uint16_t)((crc >> 8) ^ table[(crc ^ p[i]) & 0xFF]);
    return crc;
}


void re_mp3_put_be(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xFF);
        v >>= 8;
    }
}

/* ---- per-thread buffers -------------------------------------------------------------------- */

re_status re_mp3_scratch_init(scratch *sc, re_diagnostics *diag)
{
    sc->pcm = malloc(CHUNK_SAMPLES * sizeof *sc->pcm);
    sc->mp3 = malloc(CHUNK_BUFFER_BYTES);
    sc->diag = diag;
    return sc->pcm && sc->mp3 ? RE_OK : RE_ERR_NOMEM;
}

void re_mp3_scratch_free(scratch *sc)
{
    free(sc->pcm);
    free(sc->mp3);
}

/* Whether the stream can go from cur to next at frame s: cur left room for what next's
 * frame s borrows from before its header. */
int re_mp3_may_switch(const job *jb, const piece *cur, const piece *next, uint64_t s)
{
    return cur->frame[s - cur->first].borrow >=
           (unsigned)next->frame[s - next->first].borrow + jb->margin;
}
