/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_parallel.c - parallel MP3 encoding of a PCM spool: pieces at frame boundaries, one
 * LAME encoder per piece and thread, frames spliced into one stream with one LAME tag.
 *
 * The frame grid. Every encoder starts at a multiple of the piece length, which is a
 * multiple of LAME's frame-padding cycle, so its frame j is frame (start + j) of the whole
 * stream, padded or not exactly as a single encoder would pad it, with LAME's own 576-sample
 * delay in front. Piece p keeps frames [p*L + priming, (p+1)*L + priming); piece 0 starts at
 * frame 0 and the last piece runs to the end and is flushed.
 *
 * The bit reservoir. A Layer III frame's main data may begin up to main_data_begin bytes
 * before its header, in the slots of earlier frames. When the stream switches at frame s
 * from encoder A to encoder B, B's frame s may borrow bytes that live in B's own (dropped)
 * priming frames. A's frame s in turn tells how many bytes before header s A did not use
 * for frames < s. If A's free bytes >= B's borrowed bytes, the borrowed bytes are copied
 * into the end of that free space and every frame stays exactly as its encoder made it.
 * A runs `overrun` frames past its piece, so both encoders offer that many candidates. Both
 * hear the same audio, so their states converge (most of all once both reservoirs have
 * filled up in a pause) and they often make the very same frames: the writer switches at the
 * first frame both made alike (nothing changes at all), else at the last frame that allows
 * the switch (B has settled longest). If none does, the writer encodes on with A until a
 * frame does, or until A has covered B's piece, which is then dropped.
 *
 * The tag. LAME's own Info/LAME tag frame from the last encoder is the template; frame count,
 * byte count, seek table (LAME's algorithm, which for CBR depends only on the frame count),
 * padding, music length, music CRC and tag CRC are computed for the spliced stream. With a
 * single piece this gives byte for byte what mp3.c writes. */
#define _GNU_SOURCE
#include "mp3_parallel.h"

#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <lame/lame.h>

#include "files.h"

/* Samples handed to LAME per call and the output buffer LAME asks for (1.25 n + 7200). */
#define CHUNK_SAMPLES 8192
#define CHUNK_BUFFER_BYTES (CHUNK_SAMPLES + CHUNK_SAMPLES / 4 + 7200)

#define DEFAULT_PRIMING 4
#define DEFAULT_OVERRUN 28
#define DEFAULT_PIECE_SHARE 16     /* default piece: 1/16 of the episode ... */
#define DEFAULT_PIECE_MIN 512      /* ... but at least this many frames ... */
#define DEFAULT_PIECE_MAX 3136     /* ... and at most this many (64 padding cycles at 22050 Hz) */
#define EXTENSION_STEP 8           /* frames the writer encodes at a time to find a splice */
#define LAG_FRAMES 1               /* input frames beyond a frame before LAME has written its header */

/* LAME tag layout (Info tag, then the LAME extension), relative to the "Info" magic. */
#define XING_FRAMES 8
#define XING_BYTES 12
#define XING_TOC 16
#define LAME_DELAY 141
#define LAME_MUSIC_LENGTH 148
#define LAME_MUSIC_CRC 152
#define LAME_TAG_CRC 154
#define LAME_TAG_END 156


static const int bitrates_mpeg1[15] = { 0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320 };
static const int bitrates_mpeg2[15] = { 0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160 };

/* What every frame of the stream looks like, derived from the settings. */
typedef struct stream_format {
    unsigned spf;            /* samples per frame */
    unsigned side_len;       /* header + side information bytes (mono, no CRC) */
    unsigned max_borrow;     /* largest main_data_begin: 255 (MPEG-2/2.5) or 511 (MPEG-1) */
    unsigned reach;          /* frames that always hold max_borrow bytes of main data */
    unsigned tag_frame_len;  /* LAME's tag frame (no padding) */
    unsigned period;         /* LAME's padding cycle in frames */
    unsigned char byte1;     /* expected header bytes 1 and 2 (padding and private bits masked) */
    unsigned char byte2;
    int mpeg1;
    int kbps;
} stream_format;

typedef struct frame_info {
    size_t offset;           /* of the header in the piece's bytes */
    uint16_t length;         /* slot length */
    uint16_t borrow;         /* main_data_begin in bytes */
} frame_info;

/* One encoder's output: frames first .. first + count - 1 of the stream (global numbers). */
typedef struct piece {
    uint64_t first;          /* the encoder's first frame */
    uint64_t keep_from;      /* the piece proper: [keep_from, keep_to) */
    uint64_t keep_to;        /* UINT64_MAX for the last piece */
    lame_global_flags *gf;
    uint64_t fed;            /* next input sample to feed */
    int flushed;
    unsigned char *bytes;
    size_t len, cap;
    size_t parsed;           /* bytes already split into frames */
    frame_info *frame;
    size_t count, frame_cap;
} piece;

/* Per-thread buffers, and where the thread says what went wrong. */
typedef struct scratch {
    int16_t *pcm;
    unsigned char *mp3;
    re_diagnostics *diag;    /* the thread's own list: never shared while threads run */
} scratch;

enum { PIECE_WAITING, PIECE_RUNNING, PIECE_DONE };

typedef struct job {
    int fd;
    uint64_t samples;
    unsigned rate;
    const re_mp3_settings *settings;
    stream_format fmt;
    volatile sig_atomic_t *stop;
    uint64_t piece_len, priming, overrun;
    unsigned margin;         /* extra free bytes a switch needs (tests) */
    size_t piece_count;
    piece *pieces;
    int *state;

    pthread_mutex_t lock;
    pthread_cond_t changed;
    size_t next_claim;       /* the next piece a worker takes ... */
    size_t current;          /* ... if below current + window: memory stays bounded */
    size_t window;
    re_status error;         /* the first failure ... */
    re_diagnostics *said;    /* ... and the list of the thread that said why, read after the join */
    atomic_int abort;
} job;

/* An encoder thread: the job it works on and its own list of messages. */
typedef struct worker {
    job *jb;
    re_diagnostics diag;
} worker;

/* LAME 3.100 is re-entrant per encoder except for a few process-wide lookup tables (pow43,
 * adj43, ipow20, pow20, the log table) that lame_init and every lame_init_params fill again,
 * with the same values each time. The first fill happens before any thread starts (the
 * settings check encodes a probe frame); later fills rewrite identical bytes while other
 * encoders read them, which is harmless on every platform we know but shows up in helgrind.
 * Creations are serialised so that two fills never overlap. */
static pthread_mutex_t lame_setup = PTHREAD_MUTEX_INITIALIZER;

/* The encoder configuration of mp3.c (re_mp3_lame_open), so that one piece gives the serial
 * bytes; one creation at a time. */
static re_status lame_open(unsigned rate, const re_mp3_settings *settings, lame_global_flags **out)
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
static re_status describe_stream(unsigned rate, int kbps, stream_format *fmt)
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

static re_status read_pcm(const job *jb, uint64_t first, int16_t *pcm, size_t n, scratch *sc)
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
static void *region_alloc(size_t size)
{
    void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void region_free(void *p, size_t size)
{
    if (p)
        munmap(p, size ? size : 1);
}

/* A larger region with the first `used` bytes of p (freed). NULL (p kept) if out of memory. */
static void *region_grow(void *p, size_t used, size_t old_size, size_t size)
{
    void *grown = region_alloc(size);
    if (grown && p) {
        memcpy(grown, p, used);
        region_free(p, old_size);
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
static re_status parse_frames(piece *pc, const stream_format *fmt, scratch *sc)
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

static uint64_t frames_out(const piece *pc)
{
    return pc->first + pc->count;
}

/* Encodes on until the headers of frames below `target` are out, or to the end (flush). */
static re_status advance(piece *pc, const job *jb, uint64_t target, scratch *sc)
{
    const stream_format *fmt = &jb->fmt;
    while (!pc->flushed && frames_out(pc) < target) {
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
            re_status status = read_pcm(jb, pc->fed, sc->pcm, (size_t)n, sc);
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
            status = parse_frames(pc, fmt, sc);
        if (status != RE_OK)
            return status;
    }
    if (pc->flushed && pc->parsed != pc->len) {
        re_diag_add(sc->diag, NULL, 0, 0, "LAME's last frame is incomplete");
        return RE_ERR_ENCODER;
    }
    return RE_OK;
}

static re_status piece_start(piece *pc, const job *jb, scratch *sc)
{
    re_status status = lame_open(jb->rate, jb->settings, &pc->gf);
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
    pc->frame = region_alloc(pc->frame_cap * sizeof *pc->frame);
    pc->bytes = region_alloc(pc->cap);
    if (!pc->frame || !pc->bytes) {
        pc->frame_cap = pc->frame ? pc->frame_cap : 0;
        pc->cap = pc->bytes ? pc->cap : 0;
        return RE_ERR_NOMEM;
    }
    return advance(pc, jb, target, sc);
}

static void piece_free(piece *pc)
{
    if (pc->gf)
        lame_close(pc->gf);
    region_free(pc->bytes, pc->cap);
    region_free(pc->frame, pc->frame_cap * sizeof *pc->frame);
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
static re_status copy_borrowed(piece *to, const piece *from, uint64_t s, unsigned n,
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
static int same_frame(const piece *a, const piece *b, uint64_t s, unsigned side_len)
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

/* ---- the tag ------------------------------------------------------------------------------ */

static void crc16_table(uint16_t table[256])
{
    for (unsigned i = 0; i < 256; i++) {
        unsigned c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xA001 : c >> 1;
        table[i] = (uint16_t)c;
    }
}

static uint16_t crc16(const uint16_t table[256], uint16_t crc, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crc = (uint16_t)((crc >> 8) ^ table[(crc ^ p[i]) & 0xFF]);
    return crc;
}

/* LAME's seek table (VbrTag.c: addVbr + Xing_seek_table) for `frames` frames of one bitrate. */
static void lame_toc(uint64_t frames, int kbps, unsigned char toc[100])
{
    enum { BAG = 400 };
    int64_t bag[BAG], sum = 0;
    int pos = 0;
    uint64_t want = 1, seen = 0;
    for (uint64_t f = 0; f < frames; f++) {
        sum += kbps;
        if (++seen < want)
            continue;
        if (pos < BAG) {
            bag[pos++] = sum;
            seen = 0;
        }
        if (pos == BAG) {
            for (int i = 1; i < BAG; i += 2)
                bag[i / 2] = bag[i];
            want *= 2;
            pos /= 2;
        }
    }
    memset(toc, 0, 100);
    if (pos <= 0)
        return;
    for (int i = 1; i < 100; i++) {
        float j = (float)i / 100.0f;
        int index = (int)floor(j * (float)pos);
        if (index > pos - 1)
            index = pos - 1;
        float act = (float)bag[index], total = (float)sum;
        int point = (int)(256. * act / total);
        toc[i] = (unsigned char)(point > 255 ? 255 : point);
    }
}

static void put_be(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xFF);
        v >>= 8;
    }
}

/* ---- workers ------------------------------------------------------------------------------- */

/* Records a thread's failure, with the list that says why (its messages stay there, in the
 * thread's own list, until the caller moves them after the join). The first failure wins,
 * except that a real error replaces a mere interruption. */
static void fail(job *jb, re_status status, re_diagnostics *said)
{
    if (said->count == 0)
        re_diag_add(said, NULL, 0, 0, "%s", re_strerror(status));
    pthread_mutex_lock(&jb->lock);
    if (jb->error == RE_OK || (jb->error == RE_ERR_INTERRUPTED && status != RE_ERR_INTERRUPTED)) {
        jb->error = status;
        jb->said = said;
    }
    atomic_store(&jb->abort, 1);
    pthread_cond_broadcast(&jb->changed);
    pthread_mutex_unlock(&jb->lock);
}

static re_status scratch_init(scratch *sc, re_diagnostics *diag)
{
    sc->pcm = malloc(CHUNK_SAMPLES * sizeof *sc->pcm);
    sc->mp3 = malloc(CHUNK_BUFFER_BYTES);
    sc->diag = diag;
    return sc->pcm && sc->mp3 ? RE_OK : RE_ERR_NOMEM;
}

static void scratch_free(scratch *sc)
{
    free(sc->pcm);
    free(sc->mp3);
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    job *jb = wk->jb;
    scratch sc;
    re_status status = scratch_init(&sc, &wk->diag);
    if (status != RE_OK) {
        scratch_free(&sc);
        fail(jb, status, &wk->diag);
        return NULL;
    }
    pthread_mutex_lock(&jb->lock);
    for (;;) {
        while (!atomic_load(&jb->abort) && jb->next_claim < jb->piece_count &&
               jb->next_claim >= jb->current + jb->window)
            pthread_cond_wait(&jb->changed, &jb->lock);
        if (atomic_load(&jb->abort) || jb->next_claim >= jb->piece_count)
            break;
        size_t i = jb->next_claim++;
        jb->state[i] = PIECE_RUNNING;
        pthread_mutex_unlock(&jb->lock);

        status = piece_start(&jb->pieces[i], jb, &sc);
        if (status != RE_OK)
            fail(jb, status, &wk->diag);

        pthread_mutex_lock(&jb->lock);
        if (status == RE_OK)
            jb->state[i] = PIECE_DONE;
        pthread_cond_broadcast(&jb->changed);
    }
    pthread_mutex_unlock(&jb->lock);
    scratch_free(&sc);
    return NULL;
}

/* ---- the writer (calling thread) ------------------------------------------------------------ */

typedef struct writer {
    FILE *out;
    uint16_t crc_table[256];
    uint16_t music_crc;
    uint64_t audio_bytes;
    re_mp3_parallel_stats *stats;
} writer;

static re_status emit(writer *w, const unsigned char *bytes, size_t n, int music)
{
    if (n > 0 && fwrite(bytes, 1, n, w->out) != n)
        return RE_ERR_WRITE;
    if (music) {
        w->music_crc = crc16(w->crc_table, w->music_crc, bytes, n);
        w->audio_bytes += n;
    }
    return RE_OK;
}

static re_status wait_for(job *jb, size_t i)
{
    pthread_mutex_lock(&jb->lock);
    while (jb->state[i] != PIECE_DONE && !atomic_load(&jb->abort))
        pthread_cond_wait(&jb->changed, &jb->lock);
    re_status status = jb->state[i] == PIECE_DONE ? RE_OK
                     : jb->error != RE_OK ? jb->error : RE_ERR_INTERRUPTED;
    pthread_mutex_unlock(&jb->lock);
    return status;
}

static void move_window(job *jb, size_t current)
{
    pthread_mutex_lock(&jb->lock);
    jb->current = current;
    pthread_cond_broadcast(&jb->changed);
    pthread_mutex_unlock(&jb->lock);
}

/* Whether the stream can go from cur to next at frame s: cur left room for what next's
 * frame s borrows from before its header. */
static int may_switch(const job *jb, const piece *cur, const piece *next, uint64_t s)
{
    return cur->frame[s - cur->first].borrow >=
           (unsigned)next->frame[s - next->first].borrow + jb->margin;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Splices every piece into the stream after the ID3 tag; cur ends as the final encoder. */
static re_status splice_all(job *jb, writer *w, scratch *sc, size_t *final_piece)
{
    const stream_format *fmt = &jb->fmt;
    re_status status = wait_for(jb, 0);
    if (status != RE_OK)
        return status;
    size_t cur_index = 0;
    piece *cur = &jb->pieces[0];
    uint64_t e = 0;                      /* the first frame of cur not written yet */
    size_t write_from = 0;               /* its byte (piece 0: the tag placeholder first) */
    re_mp3_parallel_stats *st = w->stats;

    for (size_t next_index = 1; next_index < jb->piece_count; next_index++) {
        if (jb->stop && *jb->stop)
            return RE_ERR_INTERRUPTED;
        status = wait_for(jb, next_index);
        if (status != RE_OK)
            return status;
        piece *next = &jb->pieces[next_index];
        uint64_t lo = max64(max64(next->keep_from, e + fmt->reach), next->first + fmt->reach);
        /* Within the frames both encoders have made: the first frame where they agree byte
         * for byte (they have converged: the switch changes nothing), else the last frame
         * where the reservoir allows a switch (the later encoder has settled longest). */
        uint64_t hi = frames_out(cur) < frames_out(next) ? frames_out(cur) : frames_out(next);
        uint64_t s = lo, found = UINT64_MAX;
        int seamless = 0;
        for (; s < hi && !seamless; s++) {
            if (!may_switch(jb, cur, next, s))
                continue;
            found = s;
            seamless = s + 1 < hi && same_frame(cur, next, s, fmt->side_len);
        }
        /* None: cur encodes on until a frame allows the switch or it has covered next. */
        while (found == UINT64_MAX && frames_out(cur) < frames_out(next)) {
            uint64_t before = frames_out(cur);
            status = advance(cur, jb, before + EXTENSION_STEP, sc);
            if (status != RE_OK)
                return status;
            if (frames_out(cur) == before) {     /* flushed short of next's frames */
                re_diag_add(sc->diag, NULL, 0, 0, "the encoders disagree on the stream's length");
                return RE_ERR_ENCODER;
            }
            if (st)
                st->extension_frames += frames_out(cur) - before;
            hi = frames_out(cur) < frames_out(next) ? frames_out(cur) : frames_out(next);
            for (; s < hi && found == UINT64_MAX; s++)
                if (may_switch(jb, cur, next, s))
                    found = s;
        }
        if (found == UINT64_MAX) {
            /* cur went through all of next's frames without a splice point: next is not
             * needed, cur goes on to the piece after it. */
            if (st)
                st->encoded_frames += next->count;
            piece_free(next);
            move_window(jb, next_index);
            continue;
        }
        unsigned borrow = next->frame[found - next->first].borrow;
        status = copy_borrowed(cur, next, found, borrow, fmt->side_len);
        if (status != RE_OK) {
            re_diag_add(sc->diag, NULL, 0, 0, "cannot splice at frame %llu",
                        (unsigned long long)found);
            return status;
        }
        size_t end = cur->frame[found - cur->first].offset;
        size_t music_from = cur_index == 0 && write_from < fmt->tag_frame_len ? fmt->tag_frame_len
                          : write_from;
        status = emit(w, cur->bytes + write_from, music_from - write_from, 0);
        if (status == RE_OK)
            status = emit(w, cur->bytes + music_from, end - music_from, 1);
        if (status != RE_OK)
            return status;
        if (st) {
            if (st->splices < st->splice_capacity && st->splice_at)
                st->splice_at[st->splices] = found;
            st->splices++;
            st->seamless_splices += seamless;
            st->encoded_frames += cur->count;
        }
        piece_free(cur);
        cur = next;
        cur_index = next_index;
        e = found;
        write_from = cur->frame[found - cur->first].offset;
        move_window(jb, next_index);
    }
    status = advance(cur, jb, UINT64_MAX, sc);
    if (status != RE_OK)
        return status;
    size_t music_from = cur_index == 0 && write_from < fmt->tag_frame_len ? fmt->tag_frame_len
                      : write_from;
    status = emit(w, cur->bytes + write_from, music_from - write_from, 0);
    if (status == RE_OK)
        status = emit(w, cur->bytes + music_from, cur->len - music_from, 1);
    if (st) {
        st->encoded_frames += cur->count;
        st->stream_frames = frames_out(cur);
    }
    *final_piece = cur_index;
    return status;
}

/* Writes the LAME tag frame for the spliced stream over the placeholder at tag_at. */
static re_status write_tag(job *jb, writer *w, const piece *last, off_t tag_at,
                           re_diagnostics *diag)
{
    const stream_format *fmt = &jb->fmt;
    unsigned char tag[2880];
    size_t size = lame_get_lametag_frame(last->gf, tag, sizeof tag);
    size_t x = fmt->side_len;
    if (size != fmt->tag_frame_len || x + LAME_TAG_END > size || memcmp(tag + x, "Info", 4) != 0) {
        re_diag_add(diag, NULL, 0, 0, "LAME's tag frame is not the expected Info tag");
        return RE_ERR_ENCODER;
    }
    uint64_t frames = frames_out(last);
    uint64_t bytes = fmt->tag_frame_len + w->audio_bytes;
    unsigned delay = (unsigned)tag[x + LAME_DELAY] << 4 | tag[x + LAME_DELAY + 1] >> 4;
    uint64_t span = frames * fmt->spf;
    if (span < delay + jb->samples || span - delay - jb->samples > 0xFFF || bytes > UINT32_MAX ||
        frames > UINT32_MAX) {
        re_diag_add(diag, NULL, 0, 0, "the spliced stream cannot be described by a LAME tag");
        return RE_ERR_ENCODER;
    }
    unsigned padding = (unsigned)(span - delay - jb->samples);
    unsigned lame_padding = ((unsigned)tag[x + LAME_DELAY + 1] & 0xF) << 8 | tag[x + LAME_DELAY + 2];
    if (padding != lame_padding) {
        re_diag_add(diag, NULL, 0, 0, "the spliced stream has %u samples of padding, LAME says %u",
                    padding, lame_padding);
        return RE_ERR_ENCODER;
    }
    put_be(tag + x + XING_FRAMES, frames, 4);
    put_be(tag + x + XING_BYTES, bytes, 4);
    lame_toc(frames, fmt->kbps, tag + x + XING_TOC);
    put_be(tag + x + LAME_MUSIC_LENGTH, bytes, 4);
    put_be(tag + x + LAME_MUSIC_CRC, w->music_crc, 2);
    put_be(tag + x + LAME_TAG_CRC, crc16(w->crc_table, 0, tag, x + LAME_TAG_CRC), 2);
    if (fseeko(w->out, tag_at, SEEK_SET) != 0 || fwrite(tag, 1, size, w->out) != size ||
        fseeko(w->out, 0, SEEK_END) != 0 || fflush(w->out) != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

static void plan_pieces(job *jb, const re_mp3_parallel_tuning *tuning)
{
    const stream_format *fmt = &jb->fmt;
    uint64_t input_frames = (jb->samples + fmt->spf - 1) / fmt->spf;
    uint64_t len = tuning && tuning->piece_frames ? tuning->piece_frames
                 : (input_frames + DEFAULT_PIECE_SHARE - 1) / DEFAULT_PIECE_SHARE;
    if (!(tuning && tuning->piece_frames)) {
        if (len < DEFAULT_PIECE_MIN)
            len = DEFAULT_PIECE_MIN;
        if (len > DEFAULT_PIECE_MAX)
            len = DEFAULT_PIECE_MAX;
    }
    len = (len + fmt->period - 1) / fmt->period * fmt->period;
    if (!(tuning && tuning->piece_frames) && (input_frames + len / 2) / len < 2
        && input_frames >= 4 * fmt->period) {
        /* One piece would leave every core but one idle on a short episode (its start-up
         * time): two halves from about 5 s of audio on, for one splice's overlap. */
        uint64_t half = ((input_frames + 1) / 2 + fmt->period - 1) / fmt->period * fmt->period;
        if ((input_frames + half / 2) / half == 2)
            len = half;
    }
    jb->piece_len = len;
    jb->priming = tuning && tuning->priming_frames ? tuning->priming_frames : DEFAULT_PRIMING;
    if (jb->priming > len / 2)
        jb->priming = len / 2;
    jb->overrun = tuning && tuning->overrun_frames ? tuning->overrun_frames : DEFAULT_OVERRUN;
    jb->margin = tuning ? tuning->splice_margin : 0;
    uint64_t count = (input_frames + len / 2) / len;
    jb->piece_count = count ? (size_t)count : 1;
}

/* The writer's messages go to writer_said, each worker's to its own list; after the join the
 * first failure's are moved to diag. */
static re_status encode_pieces(FILE *out, job *jb, unsigned workers, const unsigned char *id3_tag,
                               size_t id3_len, re_mp3_parallel_stats *stats, re_diagnostics *diag)
{
    re_status status = RE_OK;
    pthread_t *threads = NULL;
    worker *crew = NULL;
    size_t started = 0;
    int lock_ready = 0, cond_ready = 0;
    re_diagnostics writer_said;
    re_diagnostics_init(&writer_said, RE_DIAG_DEFAULT_LIMIT);
    scratch sc = { 0 };
    writer w = { .out = out, .stats = stats };
    crc16_table(w.crc_table);

    jb->pieces = calloc(jb->piece_count, sizeof *jb->pieces);
    jb->state = calloc(jb->piece_count, sizeof *jb->state);
    if (workers > jb->piece_count)
        workers = (unsigned)jb->piece_count;
    threads = calloc(workers, sizeof *threads);
    crew = calloc(workers, sizeof *crew);
    for (unsigned t = 0; crew && t < workers; t++) {
        crew[t].jb = jb;
        re_diagnostics_init(&crew[t].diag, RE_DIAG_DEFAULT_LIMIT);
    }
    if (!jb->pieces || !jb->state || !threads || !crew
        || scratch_init(&sc, &writer_said) != RE_OK) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    for (size_t p = 0; p < jb->piece_count; p++) {
        piece *pc = &jb->pieces[p];
        pc->first = p * jb->piece_len;
        pc->keep_from = p == 0 ? 0 : pc->first + jb->priming;
        pc->keep_to = p + 1 == jb->piece_count ? UINT64_MAX : (p + 1) * jb->piece_len + jb->priming;
    }
    jb->window = (size_t)workers + 2;
    atomic_init(&jb->abort, 0);
    if (pthread_mutex_init(&jb->lock, NULL) != 0) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    lock_ready = 1;
    if (pthread_cond_init(&jb->changed, NULL) != 0) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    cond_ready = 1;

    if (id3_len && fwrite(id3_tag, 1, id3_len, out) != id3_len) {
        status = RE_ERR_WRITE;
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
        goto done;
    }
    off_t tag_at = ftello(out);
    if (tag_at < 0) {
        status = RE_ERR_WRITE;
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
        goto done;
    }
    for (; started < workers; started++) {
        int err = pthread_create(&threads[started], NULL, worker_main, &crew[started]);
        if (err != 0) {   /* EAGAIN: a process limit, which another process's end may lift */
            status = err == EAGAIN ? RE_ERR_LIMIT : RE_ERR_NOMEM;
            re_diag_add(diag, NULL, 0, 0, "cannot start an encoder thread");
            break;
        }
    }
    size_t final_piece = 0;
    if (status == RE_OK) {
        status = splice_all(jb, &w, &sc, &final_piece);
        if (status == RE_ERR_WRITE)
            re_diag_add(&writer_said, NULL, 0, 0, "cannot write the MP3 file: %s",
                        strerror(errno));
        if (status != RE_OK)
            fail(jb, status, &writer_said);    /* keeps a worker's earlier error */
    }
    if (status != RE_OK)
        atomic_store(&jb->abort, 1);
    pthread_mutex_lock(&jb->lock);
    pthread_cond_broadcast(&jb->changed);
    pthread_mutex_unlock(&jb->lock);
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
#ifdef __GLIBC__
    /* The workers' LAME encoders were allocated in per-thread malloc arenas, which glibc
     * keeps after the threads end: without this, a render that encodes again (a loudness
     * retry) starts 3 MB higher (measured at 2 h 16 min). */
    malloc_trim(0);
#endif
    if (jb->error != RE_OK) {
        status = jb->error;
        re_status moved = re_diag_move(diag, jb->said);
        if (moved != RE_OK)
            status = moved;
    }
    if (status == RE_OK)
        status = write_tag(jb, &w, &jb->pieces[final_piece], tag_at, diag);
done:
    if (jb->pieces)
        for (size_t p = 0; p < jb->piece_count; p++)
            piece_free(&jb->pieces[p]);
    free(jb->pieces);
    free(jb->state);
    free(threads);
    for (unsigned t = 0; crew && t < workers; t++)
        re_diagnostics_free(&crew[t].diag);
    free(crew);
    scratch_free(&sc);
    re_diagnostics_free(&writer_said);
    if (cond_ready)
        pthread_cond_destroy(&jb->changed);
    if (lock_ready)
        pthread_mutex_destroy(&jb->lock);
    return status;
}

/* ---- the serial path ----------------------------------------------------------------------- */

static re_status encode_serial(FILE *out, job *jb, const unsigned char *id3_tag, size_t id3_len,
                               re_diagnostics *diag)
{
    re_mp3_encoder *enc = NULL;
    re_diagnostics read_said;
    re_diagnostics_init(&read_said, RE_DIAG_DEFAULT_LIMIT);
    scratch sc = { 0 };
    re_status status = scratch_init(&sc, &read_said);
    if (status == RE_OK)
        status = re_mp3_encoder_create(out, jb->rate, jb->settings, id3_tag, id3_len, &enc);
    for (uint64_t done = 0; status == RE_OK && done < jb->samples;) {
        if (jb->stop && *jb->stop) {
            status = RE_ERR_INTERRUPTED;
            break;
        }
        uint64_t n = jb->samples - done < CHUNK_SAMPLES ? jb->samples - done : CHUNK_SAMPLES;
        status = read_pcm(jb, done, sc.pcm, (size_t)n, &sc);
        if (status == RE_OK)
            status = re_mp3_encoder_write(enc, sc.pcm, (size_t)n);
        done += n;
    }
    if (status == RE_OK)
        status = re_mp3_encoder_finish(enc);
    re_mp3_encoder_free(enc);
    if (status == RE_ERR_READ) {
        re_status moved = re_diag_move(diag, &read_said);
        if (moved != RE_OK)
            status = moved;
    } else if (status == RE_ERR_WRITE)
        re_diag_add(diag, NULL, 0, 0, "cannot write the MP3 file: %s", strerror(errno));
    else if (status == RE_ERR_ENCODER)
        re_diag_add(diag, NULL, 0, 0, "LAME failed");
    scratch_free(&sc);
    re_diagnostics_free(&read_said);
    return status;
}

re_status re_mp3_encode_fd_tuned(FILE *out, int pcm_fd, uint64_t frames, unsigned sample_rate,
                                 const re_mp3_settings *settings, const unsigned char *id3_tag,
                                 size_t id3_len, unsigned workers,
                                 const re_mp3_parallel_tuning *tuning,
                                 re_mp3_parallel_stats *stats, volatile sig_atomic_t *stop,
                                 re_diagnostics *diag)
{
    if (stats) {
        uint64_t *splice_at = stats->splice_at;
        size_t capacity = stats->splice_capacity;
        memset(stats, 0, sizeof *stats);
        stats->splice_at = splice_at;
        stats->splice_capacity = capacity;
    }
    if (!out || pcm_fd < 0 || !settings || (id3_len > 0 && !id3_tag)) {
        re_diag_add(diag, NULL, 0, 0, "invalid argument");
        return RE_ERR_INVALID;
    }
    re_status status = re_mp3_check_settings(sample_rate, settings, diag);
    if (status != RE_OK)
        return status;
    if (ftello(out) < 0) {
        int error = errno;
        re_diag_add(diag, NULL, 0, 0, "the MP3 output cannot seek (a pipe?)");
        return error == ESPIPE ? RE_ERR_INVALID : RE_ERR_WRITE;
    }
    job jb = { .fd = pcm_fd, .samples = frames, .rate = sample_rate, .settings = settings,
               .stop = stop };
    if (describe_stream(sample_rate, settings->bitrate_kbps, &jb.fmt) != RE_OK) {
        re_diag_add(diag, NULL, 0, 0, "%u Hz at %d kbps is not an MPEG Layer III stream",
                    sample_rate, settings->bitrate_kbps);
        return RE_ERR_ENCODER;
    }
    plan_pieces(&jb, tuning);
    if (workers <= 1 || (jb.piece_count == 1 && !(tuning && tuning->force_pieces)))
        return encode_serial(out, &jb, id3_tag, id3_len, diag);
    if (stats)
        stats->pieces = jb.piece_count;
    unsigned threads = tuning && tuning->threads && tuning->threads < workers ? tuning->threads
                                                                             : workers;
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    status = encode_pieces(out, &jb, threads, id3_tag, id3_len, stats, &said);
    if (status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM) {   /* these say no more */
        re_status moved = re_diag_move(diag, &said);
        if (moved != RE_OK)
            status = moved;
    }
    re_diagnostics_free(&said);
    return status;
}

/* ---- the local re-encode (the local true-peak retry) -----------------------------------------
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
    old->bytes = region_alloc(old->cap);
    if (!old->bytes) {
        old->cap = 0;
        return RE_ERR_NOMEM;
    }
    re_status status = re_pread_all(fd, old->bytes, old->cap, offsets[first]);
    old->len = old->cap;
    if (status == RE_OK)
        status = parse_frames(old, fmt, sc);
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
        status = piece_start(&nu, jb, sc);
    if (status == RE_OK && to_end && frames_out(&nu) != total) {
        re_diag_add(sc->diag, NULL, 0, 0, "%llu frames again, %llu before",
                    (unsigned long long)frames_out(&nu), (unsigned long long)total);
        status = RE_ERR_ENCODER;
    }
    /* in: the first frame both made alike, else the latest the reservoir allows */
    uint64_t s1 = UINT64_MAX;
    uint64_t lo = max64(start + (start ? jb->priming : 0), old_first + fmt->reach);
    if (start == 0)
        lo = 0;
    for (uint64_t s = lo; status == RE_OK && s <= s1_max; s++) {
        if (!may_switch(jb, &old, &nu, s))
            continue;
        s1 = s;
        if (same_frame(&old, &nu, s, fmt->side_len))
            break;
    }
    /* out: the first frame both made alike, else the first the reservoir allows */
    uint64_t s2 = to_end ? total : UINT64_MAX;
    for (uint64_t s = s2_min; status == RE_OK && s2 == UINT64_MAX;) {
        uint64_t hi = frames_out(&nu) < old_end ? frames_out(&nu) : old_end;
        uint64_t allowed = UINT64_MAX;
        for (; s + 1 < hi; s++) {
            if (!may_switch(jb, &nu, &old, s))
                continue;
            if (allowed == UINT64_MAX)
                allowed = s;
            if (same_frame(&nu, &old, s, fmt->side_len)) {
                allowed = s;
                break;
            }
        }
        if (allowed != UINT64_MAX && (s + 1 < hi || frames_out(&nu) >= s2_min + PATCH_SEARCH))
            s2 = allowed;
        else if (hi + 1 >= old_end || nu.flushed) {
            re_diag_add(sc->diag, NULL, 0, 0, "no frame to switch back at after frame %llu",
                        (unsigned long long)s2_min);
            status = RE_ERR_ENCODER;      /* the caller encodes everything again */
        }
        else
            status = advance(&nu, jb, frames_out(&nu) + EXTENSION_STEP, sc);
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
        status = copy_borrowed(&nu, &old, s2, old.frame[s2 - old.first].borrow, fmt->side_len);
    if (status == RE_OK)
        status = copy_borrowed(&old, &nu, s1, nu.frame[s1 - nu.first].borrow, fmt->side_len);
    if (status == RE_OK)
        status = re_pwrite_all(fd, old.bytes, old.frame[s1 - old.first].offset, offsets[old_first]);
    if (status == RE_OK)
        status = re_pwrite_all(fd, nu.bytes + new_from, new_to - new_from, offsets[s1]);
    if (status == RE_OK && changed) {
        changed[0] = s1;
        changed[1] = s2;
    }
    piece_free(&nu);
    piece_free(&old);
    return status;
}

re_status re_mp3_patch_fd(FILE *out, off_t audio_at, int pcm_fd, uint64_t frames,
                          unsigned sample_rate, const re_mp3_settings *settings,
                          const uint64_t (*ranges)[2], size_t range_count,
                          uint64_t (*changed)[2], volatile sig_atomic_t *stop,
                          re_diagnostics *diag)
{
    if (!out || pcm_fd < 0 || !settings || (range_count && !ranges))
        return RE_ERR_INVALID;
    job jb = { .fd = pcm_fd, .samples = frames, .rate = sample_rate, .settings = settings,
               .stop = stop, .priming = DEFAULT_PRIMING, .overrun = DEFAULT_OVERRUN };
    atomic_init(&jb.abort, 0);
    if (describe_stream(sample_rate, settings->bitrate_kbps, &jb.fmt) != RE_OK)
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
        status = scratch_init(&sc, diag);
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
    crc16_table(table);
    for (off_t at = audio_at + (off_t)jb.fmt.tag_frame_len; status == RE_OK && at < st.st_size;) {
        size_t n = st.st_size - at < (1 << 20) ? (size_t)(st.st_size - at) : 1 << 20;
        status = re_pread_all(fd, buf, n, at);
        crc = crc16(table, crc, buf, n);
        at += (off_t)n;
    }
    size_t x = jb.fmt.side_len;
    if (status == RE_OK)
        status = re_pread_all(fd, buf, jb.fmt.tag_frame_len, audio_at);
    if (status == RE_OK
        && (x + LAME_TAG_END > jb.fmt.tag_frame_len || memcmp(buf + x, "Info", 4) != 0))
        status = RE_ERR_FORMAT;
    if (status == RE_OK) {
        put_be(buf + x + LAME_MUSIC_CRC, crc, 2);
        put_be(buf + x + LAME_TAG_CRC, crc16(table, 0, buf, x + LAME_TAG_CRC), 2);
        status = re_pwrite_all(fd, buf, jb.fmt.tag_frame_len, audio_at);
    }
    free(buf);
    free(offsets);
    scratch_free(&sc);
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM)
        re_diag_add(diag, NULL, 0, 0, "cannot re-encode part of the MP3 (%s)", re_strerror(status));
    return status;
}

re_status re_mp3_encode_fd(FILE *out, int pcm_fd, uint64_t frames, unsigned sample_rate,
                           const re_mp3_settings *settings, const unsigned char *id3_tag,
                           size_t id3_len, unsigned workers, volatile sig_atomic_t *stop,
                           re_diagnostics *diag)
{
    return re_mp3_encode_fd_tuned(out, pcm_fd, frames, sample_rate, settings, id3_tag, id3_len,
                                  workers, NULL, NULL, stop, diag);
}
