/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ring.h - a bounded queue of PCM chunks between two threads: one side produces chunks, the
 * other consumes them in order, and neither waits on the other more than the ring's few
 * chunks allow. The ring starts and joins the second thread (the "worker"), which may be
 * either side: the leveling pass levels on the worker and writes on the caller; the
 * background meter meters on the worker what the caller feeds.
 *
 * Life cycle: re_ring_create -> re_ring_start (the worker) ->
 *   producer: (re_ring_slot -> fill it -> re_ring_push)* -> re_ring_close
 *   consumer: (re_ring_next -> use it -> re_ring_release)* until next gives NULL, or
 *             re_ring_abandon to stop early (the producer's next slot is then NULL)
 * -> re_ring_join (waits for the worker to return) -> re_ring_free.
 * One thread per side. Memory: chunk_count * chunk_frames samples, all allocated by create. */
#ifndef RE_RING_H
#define RE_RING_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct re_ring re_ring;

/* RE_ERR_INVALID for zero sizes, RE_ERR_NOMEM. */
re_status re_ring_create(size_t chunk_count, size_t chunk_frames, re_ring **out);
/* Runs worker(arg) on a new thread; at most once. RE_ERR_LIMIT when a process limit keeps
 * it from starting (EAGAIN), RE_ERR_NOMEM for any other reason it cannot start (the
 * ring stays usable, without a worker). */
re_status re_ring_start(re_ring *ring, void *(*worker)(void *arg), void *arg);

/* Producer: the next free chunk (chunk_frames samples), waiting while all are full; NULL
 * once the consumer has abandoned the ring. */
int16_t *re_ring_slot(re_ring *ring);
/* Producer: hands the chunk from re_ring_slot to the consumer with `frames` samples in it
 * (0 hands nothing over; the slot stays free). */
void re_ring_push(re_ring *ring, size_t frames);
/* Producer: no more chunks will come. */
void re_ring_close(re_ring *ring);

/* Consumer: the oldest chunk not yet released and its length, waiting while there is none;
 * NULL when the producer has closed the ring and every chunk has been released. */
const int16_t *re_ring_next(re_ring *ring, size_t *frames);
/* Consumer: gives the chunk from re_ring_next back to the producer. */
void re_ring_release(re_ring *ring);
/* Consumer: stops taking chunks; the producer sees NULL from re_ring_slot. */
void re_ring_abandon(re_ring *ring);

/* Waits for the worker to return (no-op without one, or the second time). */
void re_ring_join(re_ring *ring);
/* Abandons and closes the ring, joins the worker, frees everything. NULL is allowed. */
void re_ring_free(re_ring *ring);

#endif
