/* SPDX-License-Identifier: GPL-3.0-or-later */
/* spool.c - raw PCM in a nameless temporary file, through libsndfile (see spool.h). */
#define _GNU_SOURCE
#include "spool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sndfile.h>

#include "files.h"

struct re_spool {
    unsigned rate;
    int fd;              /* ours while writing; libsndfile's after finish */
    int raw_fd;          /* after finish: a second descriptor for pread */
    SNDFILE *sf;
    int reading;
    uint64_t frames;
};

static SF_INFO raw_info(unsigned rate)
{
    SF_INFO info = { .samplerate = (int)rate, .channels = 1,
                     .format = SF_FORMAT_RAW | SF_FORMAT_PCM_16 | SF_ENDIAN_LITTLE };
    return info;
}

re_status re_spool_create(unsigned sample_rate, re_spool **out, re_diagnostics *diag)
{
    *out = NULL;
    re_spool *spool = calloc(1, sizeof *spool);
    if (!spool)
        return RE_ERR_NOMEM;
    spool->rate = sample_rate;
    spool->raw_fd = -1;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char *path = NULL;
    if (asprintf(&path, "%s/render-episode-spool.XXXXXX", dir) < 0) {
        free(spool);
        return RE_ERR_NOMEM;
    }
    spool->fd = mkstemp(path);
    if (spool->fd < 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot create a spool file in %s: %s", dir,
                    strerror(errno));
        free(path);
        free(spool);
        return RE_ERR_WRITE;
    }
    unlink(path);   /* nameless from now on: nothing to clean up, whatever happens */
    free(path);
    SF_INFO info = raw_info(sample_rate);
    spool->sf = sf_open_fd(spool->fd, SFM_WRITE, &info, 0);
    if (!spool->sf) {
        re_diag_add(diag, NULL, 0, 0, "cannot open the spool file: %s", sf_strerror(NULL));
        close(spool->fd);
        free(spool);
        return RE_ERR_WRITE;
    }
    *out = spool;
    return RE_OK;
}

re_status re_spool_write(re_spool *spool, const int16_t *pcm, size_t frames,
                         re_diagnostics *diag)
{
    if (spool->reading)
        return RE_ERR_INVALID;
    if (frames == 0)
        return RE_OK;
    if (sf_writef_short(spool->sf, pcm, (sf_count_t)frames) != (sf_count_t)frames) {
        re_diag_add(diag, NULL, 0, 0, "cannot write the spool file: %s", sf_strerror(spool->sf));
        return RE_ERR_WRITE;
    }
    spool->frames += frames;
    return RE_OK;
}

re_status re_spool_finish(re_spool *spool, re_diagnostics *diag)
{
    if (spool->reading)
        return RE_ERR_INVALID;
    int failed = sf_close(spool->sf) != 0;
    spool->sf = NULL;
    if (failed || lseek(spool->fd, 0, SEEK_SET) != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot finish the spool file: %s", strerror(errno));
        return RE_ERR_WRITE;
    }
    spool->raw_fd = dup(spool->fd);
    SF_INFO info = raw_info(spool->rate);
    spool->sf = spool->raw_fd >= 0 ? sf_open_fd(spool->fd, SFM_READ, &info, 1) : NULL;
    if (!spool->sf) {
        re_diag_add(diag, NULL, 0, 0, "cannot reopen the spool file: %s", sf_strerror(NULL));
        return RE_ERR_READ;
    }
    spool->fd = -1;   /* libsndfile closes it */
    spool->reading = 1;
    if ((uint64_t)info.frames != spool->frames) {
        re_diag_add(diag, NULL, 0, 0, "the spool file holds %lld samples, not %llu",
                 (long long)info.frames, (unsigned long long)spool->frames);
        return RE_ERR_READ;
    }
    return RE_OK;
}

re_status re_spool_rewind(re_spool *spool, re_diagnostics *diag)
{
    if (!spool->reading)
        return RE_ERR_INVALID;
    if (sf_seek(spool->sf, 0, SEEK_SET) != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot rewind the spool file: %s",
                    sf_strerror(spool->sf));
        return RE_ERR_READ;
    }
    return RE_OK;
}

re_status re_spool_read(re_spool *spool, int16_t *buf, size_t max, size_t *got,
                        re_diagnostics *diag)
{
    *got = 0;
    if (!spool->reading)
        return RE_ERR_INVALID;
    sf_count_t n = sf_readf_short(spool->sf, buf, (sf_count_t)max);
    if (n < 0 || (n == 0 && sf_error(spool->sf) != SF_ERR_NO_ERROR)) {
        re_diag_add(diag, NULL, 0, 0, "cannot read the spool file: %s", sf_strerror(spool->sf));
        return RE_ERR_READ;
    }
    *got = (size_t)n;
    return RE_OK;
}

uint64_t re_spool_frames(const re_spool *spool) { return spool->frames; }

/* The raw file is little-endian 16-bit from offset 0 (raw_info). */
static int in_spool(const re_spool *spool, uint64_t first, size_t frames)
{
    return spool->reading && first <= spool->frames && frames <= spool->frames - first;
}

re_status re_spool_read_at(re_spool *spool, uint64_t first, int16_t *buf, size_t frames,
                           re_diagnostics *diag)
{
    if (!in_spool(spool, first, frames))
        return RE_ERR_INVALID;
    unsigned char *p = (unsigned char *)buf;
    if (re_pread_all(spool->raw_fd, p, frames * 2, (off_t)(first * 2)) != RE_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot read the spool file: %s", strerror(errno));
        return RE_ERR_READ;
    }
    for (size_t i = 0; i < frames; i++)   /* in place: sample i is made of its own two bytes */
        buf[i] = (int16_t)(uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
    return RE_OK;
}

re_status re_spool_write_at(re_spool *spool, uint64_t first, const int16_t *pcm, size_t frames,
                            re_diagnostics *diag)
{
    if (!in_spool(spool, first, frames))
        return RE_ERR_INVALID;
    unsigned char *p = malloc(frames > 0 ? frames * 2 : 1);
    if (!p)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < frames; i++) {
        uint16_t v = (uint16_t)pcm[i];
        p[2 * i] = (unsigned char)(v & 0xFF);
        p[2 * i + 1] = (unsigned char)(v >> 8);
    }
    re_status status = re_pwrite_all(spool->raw_fd, p, frames * 2, (off_t)(first * 2));
    if (status != RE_OK)
        re_diag_add(diag, NULL, 0, 0, "cannot write the spool file: %s", strerror(errno));
    free(p);
    return status == RE_OK ? RE_OK : RE_ERR_WRITE;
}

int re_spool_fd(const re_spool *spool)
{
    return spool->reading ? spool->raw_fd : -1;
}

void re_spool_free(re_spool *spool)
{
    if (!spool)
        return;
    if (spool->sf)
        sf_close(spool->sf);
    if (spool->fd >= 0 && !spool->reading)
        close(spool->fd);
    if (spool->raw_fd >= 0)
        close(spool->raw_fd);
    free(spool);
}
