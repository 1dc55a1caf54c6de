/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_stream.h - private to encode/: the MP3 stream as the parallel encoder (mp3_parallel.c)
 * and the local re-encode (mp3_patch.c) both see it. A stream_format says what every frame
 * looks like; a piece is one LAME encoder's output on the stream's frame grid, split into
 * frames as it is written; two pieces are spliced at a frame where the earlier one left room
 * in its bit reservoir for what the later one borrows (re_mp3_may_switch, re_mp3_copy_borrowed).
 * The frame grid and the reservoir rule are explained at the top of mp3_parallel.c. */
#ifndef RE_MP3_STREAM_H
#define RE_MP3_STREAM_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "mp3.h"
#include "status.h"

struct lame_global_struct;

/* Samples handed to LAME per call and the output buffer LAME asks for (1.25 n + 7200). */
#define CHUNK_SAMPLES 8192
#define CHUNK_BUFFER_BYTES (CHUNK_SAMPLES + CHUNK_SAMPLES / 4 + 7200)

#define DEFAULT_PRIMING 4
#define DEFAULT_OVERRUN 28
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
    struct lame_global_struct *gf;
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

/* One encode, or one local re-encode: the input, the stream, the pieces, and what the
 * threads share (under lock). */
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

/* LAME's encoder configuration of mp3.c (re_mp3_lame_open), one creation at a time in the
 * process (LAME's shared tables: see mp3_stream.c), so that one piece gives the serial bytes. */
re_status mp3_lame_open_one(unsigned rate, const re_mp3_settings *settings,
                            struct lame_global_struct **out);

/* Fills fmt for settings that re_mp3_check_settings accepted; RE_ERR_ENCODER for others. */
re_status re_mp3_stream_describe(unsigned rate, int kbps, stream_format *fmt);

/* Samples [first, first + n) of the job's PCM descriptor (raw int16 little-endian), read with
 * pread. RE_ERR_READ, said in sc->diag, when it cannot be read or ends early. */
re_status re_mp3_read_pcm(const job *jb, uint64_t first, int16_t *pcm, size_t n, scratch *sc);

/* Anonymous mappings for a piece's large buffers (see mp3_stream.c for why not malloc). */
void *re_mp3_region_alloc(size_t size);
void re_mp3_region_free(void *p, size_t size);

/* Splits the piece's newly written bytes into frames; RE_ERR_ENCODER for a header that is not
 * the stream's. */
re_status re_mp3_piece_parse(piece *pc, const stream_format *fmt, scratch *sc);
/* One past the piece's last frame whose header is out (a global frame number). */
uint64_t re_mp3_piece_end(const piece *pc);
/* Encodes on until the headers of frames below `target` are out, or to the end (flush). */
re_status re_mp3_piece_advance(piece *pc, const job *jb, uint64_t target, scratch *sc);
/* Opens the piece's encoder at pc->first and encodes through its keep_to plus the overrun. */
re_status re_mp3_piece_start(piece *pc, const job *jb, scratch *sc);
/* Closes the encoder and frees the buffers; the piece is zeroed. */
void re_mp3_piece_free(piece *pc);

/* Whether the stream can go from cur to next at frame s (the job's splice margin included). */
int re_mp3_may_switch(const job *jb, const piece *cur, const piece *next, uint64_t s);
/* Copies the n main-data bytes before header s in `from` over the last n before it in `to`. */
re_status re_mp3_copy_borrowed(piece *to, const piece *from, uint64_t s, unsigned n,
                               unsigned side_len);
/* Whether both made frame s alike: the same slot and the same borrowed bytes. */
int re_mp3_same_frame(const piece *a, const piece *b, uint64_t s, unsigned side_len);

/* The LAME tag's CRC-16 (polynomial 0x8005, reflected), and big-endian fields. */
void re_mp3_crc16_table(uint16_t table[256]);
uint16_t re_mp3_crc16(const uint16_t table[256], uint16_t crc, const unsigned char *p, size_t n);
void re_mp3_put_be(unsigned char *p, uint64_t v, int bytes);

/* A thread's buffers (CHUNK_SAMPLES of PCM, CHUNK_BUFFER_BYTES of MP3) and its message list. */
re_status re_mp3_scratch_init(scratch *sc, re_diagnostics *diag);
void re_mp3_scratch_free(scratch *sc);

static inline uint64_t mp3_min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static inline uint64_t mp3_max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

#endif
