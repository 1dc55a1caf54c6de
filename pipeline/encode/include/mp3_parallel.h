/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_parallel.h - MP3 encoding of a finished PCM spool on every core: the audio is cut at MP3
 * frame boundaries into pieces, each piece is encoded by its own LAME encoder in its own
 * thread, and the frames are spliced into one valid stream with one correct Xing/Info + LAME
 * tag, so that decoders return exactly the samples that were rendered.
 *
 * How a splice stays inaudible (the details are in mp3_parallel.c and docs/PERFORMANCE.md):
 *   - every piece encoder starts `priming` frames before its piece, on the same frame grid
 *     as the whole stream, so its first kept frame comes from a settled encoder (filterbank,
 *     psychoacoustic model, bit reservoir);
 *   - the bit reservoir stays on. Each encoder runs `overrun` frames past its piece; the
 *     stream switches to the next encoder at a frame s of that overlap where the earlier
 *     encoder left at least as many free reservoir bytes before frame s as the later
 *     encoder's frame s borrows (main_data_begin), and those borrowed bytes are copied into
 *     that free space. No frame is re-quantised or truncated. Preferred: a frame both
 *     encoders made byte for byte alike (they have converged); else the latest allowed one.
 *     If none is allowed, the earlier encoder goes on (in the writing thread) until one is.
 * Measured on 32 minutes of speech (docs/PERFORMANCE.md): the same SNR as the serial encoder
 * to 0.01 dB, no splice region worse than the serial file by more than a fraction of a dB,
 * and two thirds of the splices land where both encoders already made identical frames.
 *
 * Determinism: the piece plan depends only on the sample count and the settings, and every
 * splice decision only on the encoders' output, so the same input and settings give the same
 * bytes for every workers >= 2 (and on every run). They equal the serial bytes when the
 * plan has a single piece (episodes under about 5 s); otherwise they generally differ from the serial
 * encoder's bytes (the same length, frame count, tag fields and decoded length). */
#ifndef RE_MP3_PARALLEL_H
#define RE_MP3_PARALLEL_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "mp3.h"
#include "status.h"

/* Knobs for tests and measurements; zero fields take the defaults. Sizes are in MP3 frames
 * (576 samples below 32 kHz, 1152 from 32 kHz). The piece length is rounded up to a
 * multiple of LAME's frame-padding cycle (49 frames at 22050 Hz, 64 kbps) so that every
 * encoder pads frames exactly where a single encoder would. */
typedef struct re_mp3_parallel_tuning {
    unsigned piece_frames;      /* piece length; default from the length: 1/16 of it,
                                 * clamped to 512..3136 frames */
    unsigned priming_frames;    /* frames encoded and dropped before each piece (default 4) */
    unsigned overrun_frames;    /* frames each encoder goes past its piece (default 28) */
    unsigned splice_margin;     /* extra free reservoir bytes a switch needs (default 0; a
                                 * value above 511 forbids every switch, so the first encoder
                                 * ends up encoding everything: for testing the fallback) */
    int force_pieces;           /* non-zero: use the piece machinery even for one piece */
    unsigned threads;           /* encoder threads for workers >= 2: 1..workers (default
                                 * workers). The bytes are the same: a batch that already
                                 * keeps every core busy with other episodes runs each one's
                                 * pieces on fewer threads rather than oversubscribe. */
} re_mp3_parallel_tuning;

/* What a parallel encode did (all zero after the serial path). */
typedef struct re_mp3_parallel_stats {
    size_t pieces;              /* pieces in the plan */
    size_t splices;             /* encoder switches in the stream */
    size_t seamless_splices;    /* ... where both encoders had produced the same bytes */
    uint64_t stream_frames;     /* audio frames in the stream (the tag frame not counted) */
    uint64_t encoded_frames;    /* frames LAME encoded in all: stream + priming + overrun */
    uint64_t extension_frames;  /* of those, encoded by the writer to find a splice point */
    uint64_t *splice_at;        /* optional array (caller's) of splice_capacity entries: the */
    size_t splice_capacity;     /* first frame each switch took from the later encoder */
} re_mp3_parallel_stats;

/* How an episode's MP3 is encoded: the same for its whole encode and for every local
 * re-encode of it (re_mp3_patch_fd needs the settings the file was made with). */
typedef struct re_mp3_encoding {
    unsigned sample_rate;             /* an MPEG rate; nothing is resampled */
    re_mp3_settings settings;         /* bitrate and LAME quality (re_mp3_check_settings) */
    unsigned workers;                 /* <= 1: the serial encoder; >= 2: pieces on threads */
    re_mp3_parallel_tuning tuning;    /* all zero: the defaults */
    volatile sig_atomic_t *stop;      /* may be NULL; polled about every 8192 samples */
} re_mp3_encoding;

/* The samples: `frames` mono samples, raw int16 little-endian from offset 0 of fd, read with
 * pread (the descriptor's offset is not used or changed). */
typedef struct re_mp3_pcm {
    int fd;
    uint64_t frames;
} re_mp3_pcm;

/* The file: a seekable stream positioned where the file starts (the tag frame is written back
 * at the end; it is fflush()ed, never closed), and the ID3 tag in front of the audio (id3_len
 * bytes, may be 0; re_mp3_patch_fd reads only its length: the LAME tag frame follows it). */
typedef struct re_mp3_file {
    FILE *out;
    const unsigned char *id3_tag;
    size_t id3_len;
} re_mp3_file;

/* The encoders a render runs on this machine: one per online CPU, at least 2 (so that the
 * bytes, the same for any workers >= 2, never depend on the machine) and at most 16. */
unsigned re_mp3_default_workers(void);

/* Encodes pcm into file: first the ID3 tag, then the LAME tag frame, then the audio frames.
 *
 * workers <= 1: the serial encoder of mp3.h (re_mp3_encoder_*), byte-identical to it.
 * workers >= 2: that many pieces' encoders (tuning.threads of them running at once); the
 * calling thread reads none of the audio and only splices and writes. Memory is bounded by
 * workers + 3 pieces of MP3 (a piece is at most 3136 frames: 82 s, 0.65 MB at 64 kbps),
 * whatever the length. Episodes under about 20 s are planned as two halves; a single-piece
 * plan (under about 5 s at 22050 Hz) takes the serial path unless tuning.force_pieces.
 * Thread-safety: see mp3_stream.c on LAME's shared lookup tables.
 *
 * Once *stop is non-zero the call returns RE_ERR_INTERRUPTED and the stream holds an
 * unfinished file that the caller discards. Also returned, with a one-line English reason in
 * diag that names no file (the encoder has a stream and a descriptor: the caller places it):
 *   RE_ERR_INVALID   a NULL argument, or a stream that cannot seek (a pipe);
 *   RE_ERR_ENCODER   settings re_mp3_check_settings refuses (its reason), or LAME failed;
 *   RE_ERR_READ      pcm.fd holds fewer than pcm.frames samples or cannot be read;
 *   RE_ERR_WRITE     the stream failed.
 * RE_ERR_NOMEM (an allocation or a thread could not be created) and RE_ERR_INTERRUPTED come
 * without a message. Whichever encoder thread failed first is the one reported: each thread
 * says why in a list of its own, moved to diag after the threads are joined.
 * stats (NULL: not wanted) says what a parallel encode did. */
re_status re_mp3_encode_fd(const re_mp3_encoding *encoding, re_mp3_pcm pcm,
                           const re_mp3_file *file, re_mp3_parallel_stats *stats,
                           re_diagnostics *diag);

/* Which samples changed since the file was encoded, and where to say what was replaced. */
typedef struct re_mp3_patch {
    const uint64_t (*ranges)[2];      /* [first, last) samples, sorted and disjoint */
    size_t range_count;
    uint64_t (*changed)[2];           /* may be NULL; else range_count entries, filled */
} re_mp3_patch;

/* The local re-encode: after the samples of pcm changed in patch->ranges, re-encodes only the
 * frames around each range and splices them into the MP3 already in file->out (which
 * re_mp3_encode_fd wrote with this encoding; its LAME tag frame follows the ID3 tag of
 * file->id3_len bytes), in place: CBR frames keep their lengths, so the file keeps its size,
 * frame count and gapless length; the tag's music CRC and its own CRC are computed again.
 * encoding's workers and tuning are not used (one encoder per range, the default priming).
 * Each range costs its own frames and about 70-120 more of encoding (the new encoder starts
 * on LAME's padding cycle, primed, with 28 frames searched for each switch), more if it needs
 * longer to find a switch out. The result depends only on the file and the samples:
 * deterministic.
 * patch->changed gets, per range, the audio frames [first, end) whose bytes were replaced
 * (counted after the LAME tag frame): frames before them may have bytes borrowed by the
 * first new frame copied into their unused reservoir space, which changes nothing they decode
 * to.
 * Any failure (RE_ERR_ENCODER: no splice point, RE_ERR_FORMAT: not such a file) may leave the
 * file part-patched: the caller then encodes the whole again. */
re_status re_mp3_patch_fd(const re_mp3_encoding *encoding, re_mp3_pcm pcm,
                          const re_mp3_file *file, const re_mp3_patch *patch,
                          re_diagnostics *diag);

#endif
