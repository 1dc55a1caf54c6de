/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spool.h - a nameless temporary file of mono 16-bit PCM, written and read through
 * libsndfile, so that an episode's audio never has to fit in memory. The file is unlinked
 * as soon as it exists: whatever happens, nothing is left behind.
 *
 * Life cycle: re_spool_create -> re_spool_write* -> re_spool_finish -> (re_spool_rewind ->
 * re_spool_read until 0 frames)* -> re_spool_free. */
#ifndef RE_SPOOL_H
#define RE_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct re_spool re_spool;

/* A spool knows no file worth naming: its failures (RE_ERR_WRITE while writing, RE_ERR_READ
 * while reading back) add one message each with no file, for the caller to place
 * (re_diag_place). RE_ERR_NOMEM and RE_ERR_INVALID (wrong call order) come without one. */

/* In $TMPDIR (or /tmp). */
re_status re_spool_create(unsigned sample_rate, re_spool **out, re_diagnostics *diag);
re_status re_spool_write(re_spool *spool, const int16_t *pcm, size_t frames,
                         re_diagnostics *diag);
/* Ends writing; the spool is then read from its start. */
re_status re_spool_finish(re_spool *spool, re_diagnostics *diag);
re_status re_spool_rewind(re_spool *spool, re_diagnostics *diag);
/* The next frames; *got is 0 at the end. */
re_status re_spool_read(re_spool *spool, int16_t *buf, size_t max, size_t *got,
                        re_diagnostics *diag);
uint64_t re_spool_frames(const re_spool *spool);
/* After finish: `frames` samples from sample `first` on (all within the spool), read or
 * written in place, whatever the position of re_spool_read (RE_ERR_INVALID past the end or
 * before finish). Writing changes the finished spool: for a rework of a few samples
 * (spool_pass.h), never while a pass reads it. */
re_status re_spool_read_at(re_spool *spool, uint64_t first, int16_t *buf, size_t frames,
                           re_diagnostics *diag);
re_status re_spool_write_at(re_spool *spool, uint64_t first, const int16_t *pcm, size_t frames,
                            re_diagnostics *diag);
/* After finish: the file as raw little-endian int16 from offset 0, for pread. Owned by the spool. */
int re_spool_fd(const re_spool *spool);
void re_spool_free(re_spool *spool);

#endif
