/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ring.c - a bounded queue of PCM chunks between two threads (see ring.h). */
#include "ring.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct re_ring {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int lock_made, cond_made;
    pthread_t worker;
    int worker_running;
    void *(*work)(void *arg);     /* the worker, started through worker_start */
    void *work_arg;
    int worker_started;           /* the worker's thread is running its own code */
    int16_t **chunk;
    size_t *len;
    size_t chunk_count, chunk_frames;
    size_t produced, consumed;    /* chunks so far; produced - consumed <= chunk_count */
    int closed;                   /* the producer has made its last chunk */
    int abandoned;                /* the consumer stopped: the producer must stop too */
};

re_status re_ring_create(size_t chunk_count, size_t chunk_frames, re_ring **out)
{
    *out = NULL;
    if (chunk_count == 0 || chunk_frames == 0)
        return RE_ERR_INVALID;
    re_ring *ring = calloc(1, sizeof *ring);
    if (!ring)
        return RE_ERR_NOMEM;
    ring->chunk_count = chunk_count;
    ring->chunk_frames = chunk_frames;
    ring->chunk = calloc(chunk_count, sizeof *ring->chunk);
    ring->len = calloc(chunk_count, sizeof *ring->len);
    if (!ring->chunk || !ring->len)
        goto fail;
    for (size_t k = 0; k < chunk_count; k++)
        if (!(ring->chunk[k] = malloc(chunk_frames * sizeof *ring->chunk[k])))
            goto fail;
    ring->lock_made = pthread_mutex_init(&ring->lock, NULL) == 0;
    ring->cond_made = ring->lock_made && pthread_cond_init(&ring->changed, NULL) == 0;
    if (!ring->cond_made)
        goto fail;
    *out = ring;
    return RE_OK;
fail:
    re_ring_free(ring);
    return RE_ERR_NOMEM;
}

/* The worker's thread: says it is running before the worker's own code starts. */
static void *worker_start(void *arg)
{
    re_ring *ring = arg;
    pthread_mutex_lock(&ring->lock);
    ring->worker_started = 1;
    pthread_cond_broadcast(&ring->changed);
    pthread_mutex_unlock(&ring->lock);
    return ring->work(ring->work_arg);
}

re_status re_ring_start(re_ring *ring, void *(*worker)(void *arg), void *arg)
{
    if (ring->worker_running)
        return RE_ERR_INVALID;
    ring->work = worker;
    ring->work_arg = arg;
    int err = pthread_create(&ring->worker, NULL, worker_start, ring);
    if (err != 0)   /* EAGAIN: a process limit, which another process's end may lift */
        return err == EAGAIN ? RE_ERR_LIMIT : RE_ERR_NOMEM;
    ring->worker_running = 1;
    /* Returns once the thread runs: its start (the C library's and a sanitizer's own
     * allocations for a new thread) is over before the caller goes on, and the caller may
     * fork a speech process next. A fork while another thread holds an allocator's lock
     * leaves the child waiting for it for ever: GCC 12's AddressSanitizer does not take its
     * allocator's locks around fork (glibc's malloc does), and a sanitizer build's speech
     * child for a first paragraph hung so, in its allocator's lock, forked just after the
     * meter's thread was made. */
    pthread_mutex_lock(&ring->lock);
    while (!ring->worker_started)
        pthread_cond_wait(&ring->changed, &ring->lock);
    pthread_mutex_unlock(&ring->lock);
    return RE_OK;
}

int16_t *re_ring_slot(re_ring *ring)
{
    pthread_mutex_lock(&ring->lock);
    while (!ring->abandoned && ring->produced - ring->consumed == ring->chunk_count)
        pthread_cond_wait(&ring->changed, &ring->lock);
    int16_t *slot = ring->abandoned ? NULL : ring->chunk[ring->produced % ring->chunk_count];
    pthread_mutex_unlock(&ring->lock);
    return slot;
}

void re_ring_push(re_ring *ring, size_t frames)
{
    if (frames == 0)
        return;
    pthread_mutex_lock(&ring->lock);
    ring->len[ring->produced++ % ring->chunk_count] = frames;
    pthread_cond_broadcast(&ring->changed);
    pthread_mutex_unlock(&ring->lock);
}

/* Sets a flag both sides wait on. */
static void raise_flag(re_ring *ring, int *flag)
{
    pthread_mutex_lock(&ring->lock);
    *flag = 1;
    pthread_cond_broadcast(&ring->changed);
    pthread_mutex_unlock(&ring->lock);
}

void re_ring_close(re_ring *ring)
{
    raise_flag(ring, &ring->closed);
}

const int16_t *re_ring_next(re_ring *ring, size_t *frames)
{
    pthread_mutex_lock(&ring->lock);
    while (ring->consumed == ring->produced && !ring->closed)
        pthread_cond_wait(&ring->changed, &ring->lock);
    int have = ring->consumed < ring->produced;
    pthread_mutex_unlock(&ring->lock);
    if (!have)
        return NULL;
    *frames = ring->len[ring->consumed % ring->chunk_count];
    return ring->chunk[ring->consumed % ring->chunk_count];
}

void re_ring_release(re_ring *ring)
{
    pthread_mutex_lock(&ring->lock);
    ring->consumed++;
    pthread_cond_broadcast(&ring->changed);
    pthread_mutex_unlock(&ring->lock);
}

void re_ring_abandon(re_ring *ring)
{
    raise_flag(ring, &ring->abandoned);
}

void re_ring_join(re_ring *ring)
{
    if (!ring->worker_running)
        return;
    pthread_join(ring->worker, NULL);
    ring->worker_running = 0;
}

void re_ring_free(re_ring *ring)
{
    if (!ring)
        return;
    if (ring->worker_running) {
        re_ring_abandon(ring);
        re_ring_close(ring);
        re_ring_join(ring);
    }
    if (ring->cond_made)
        pthread_cond_destroy(&ring->changed);
    if (ring->lock_made)
        pthread_mutex_destroy(&ring->lock);
    for (size_t k = 0; ring->chunk && k < ring->chunk_count; k++)
        free(ring->chunk[k]);
    free(ring->chunk);
    free(ring->len);
    free(ring);
}
