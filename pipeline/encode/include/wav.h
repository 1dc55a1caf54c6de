/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wav.h - the WAV encoding stage: 16-bit PCM mono through libsndfile, with the episode's
 * metadata in the LIST/INFO chunk (title, artist, album, comment, date, software).
 *
 * Life cycle: re_wav_writer_create (on an open descriptor) -> re_wav_writer_write any number
 * of times -> re_wav_writer_finish (completes the header) -> re_wav_writer_free. free without
 * finish is allowed (after an error); the file then holds an unfinished WAV the caller
 * discards. The writer never closes the descriptor. Every failure is RE_ERR_WRITE, with a
 * one-line English message in diag, e.g. "cannot write the WAV file: ...", that names no file
 * (the writer has only a descriptor: the caller places it), or RE_ERR_NOMEM without one. */
#ifndef RE_WAV_H
#define RE_WAV_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* The strings written into the file; NULL ones are left out. Copied by create. */
typedef struct re_wav_tags {
    const char *title, *artist, *album, *comment, *date;
    const char *software;     /* what made the file, e.g. "render-episode 0.1.0" */
} re_wav_tags;

typedef struct re_wav_writer re_wav_writer;

/* `fd` must be open for writing at offset 0 and seekable (libsndfile writes the header last). */
re_status re_wav_writer_create(int fd, unsigned sample_rate, const re_wav_tags *tags,
                               re_wav_writer **out, re_diagnostics *diag);
/* Appends `frames` mono samples. */
re_status re_wav_writer_write(re_wav_writer *wav, const int16_t *pcm, size_t frames,
                              re_diagnostics *diag);
/* Samples that wait in a file: `frames` mono samples, raw int16 little-endian from offset 0
 * of fd (a finished spool's, spool.h), read with pread (the descriptor's offset is not used
 * or changed), as re_mp3_pcm is for the MP3 encoder. */
typedef struct re_wav_pcm {
    int fd;
    uint64_t frames;
} re_wav_pcm;

/* How an append of re_wav_pcm goes: *stop (may be NULL) raised stops it between chunks
 * (RE_ERR_INTERRUPTED, no message); progress (may be NULL) hears the samples done after
 * each chunk. */
typedef struct re_wav_append {
    volatile sig_atomic_t *stop;
    void (*progress)(void *context, uint64_t done, uint64_t total);
    void *progress_context;
} re_wav_append;

/* Appends all of `pcm`, a chunk at a time. A short read is RE_ERR_READ with a message. */
re_status re_wav_writer_write_pcm(re_wav_writer *wav, re_wav_pcm pcm,
                                  const re_wav_append *how, re_diagnostics *diag);
/* Completes the file; afterwards only free is allowed. */
re_status re_wav_writer_finish(re_wav_writer *wav, re_diagnostics *diag);
void re_wav_writer_free(re_wav_writer *wav);

/* Describes the encoding for the sidecar and the inputs digest, e.g. "libsndfile
 * libsndfile-1.2.0, WAV 16-bit PCM, mono, 22050 Hz". Truncates to len; never fails. */
void re_wav_describe(unsigned sample_rate, char *buf, size_t len);

#endif
