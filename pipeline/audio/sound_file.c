/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sound_file.c - a sound file read whole, mixed to mono and resampled (see sound_file.h). */
#include "sound_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "files.h"
#include "resample.h"

#define DECODE_CHUNK 4096u  /* frames decoded at a time */

/* One message about the file, with no place: the caller knows the script's FILE:LINE:COL. */
#define sound_fail(diag, status, path, fmt, ...) \
    re_diag_fail((diag), (status), NULL, 0, 0, "sound file '%s': " fmt, (path), __VA_ARGS__)

/* Opens the file without blocking (files.h), or checks the one the caller opened (`given`, -1
 * for none), moving its path:0:0 messages into unplaced ones. */
static re_status open_file(const char *path, int given, int *fd, uint64_t *size,
                           re_diagnostics *diag)
{
    re_diagnostics local;
    re_diagnostics_init(&local, 4);
    re_status status = given >= 0 ? re_file_check_regular(given, path, size, &local)
                                  : re_file_open_regular(path, fd, size, &local);
    if (given >= 0 && status == RE_OK)
        *fd = given;
    for (size_t i = 0; status != RE_OK && i < local.count; i++)
        if (sound_fail(diag, status, path, "%s", local.items[i].message) == RE_ERR_NOMEM)
            status = RE_ERR_NOMEM;
    re_diagnostics_free(&local);
    return status;
}

/* Decodes every frame, channels averaged, a chunk at a time, straight into the resampler:
 * only the output, at the episode's rate, is ever held whole (a small file can claim a rate of
 * hundreds of kHz: FLAC's silence takes a few bytes a block). *frames counts the source frames,
 * at most max_frames (one chunk more is read to know the file is longer: *too_long). */
static re_status decode_resampled(SNDFILE *sf, unsigned channels, unsigned source_rate,
                                  unsigned rate, uint64_t max_frames,
                                  volatile sig_atomic_t *stop, int16_t **out,
                                  size_t *out_len, uint64_t *frames, int *too_long)
{
    float *chunk = malloc((size_t)DECODE_CHUNK * channels * sizeof *chunk);
    float *mono = malloc((size_t)DECODE_CHUNK * sizeof *mono);
    re_resample_stream *stream = NULL;
    int16_t *buf = NULL;
    size_t len = 0, cap = 0;
    uint64_t used = 0;
    re_status status = chunk && mono ? re_resample_stream_create(source_rate, rate, &stream)
                                     : RE_ERR_NOMEM;
    *too_long = 0;
    while (status == RE_OK) {
        if (stop && *stop) {
            status = RE_ERR_INTERRUPTED;
            break;
        }
        sf_count_t got = sf_readf_float(sf, chunk, DECODE_CHUNK);
        if (got <= 0)
            break;
        if (used + (uint64_t)got > max_frames) {
            *too_long = 1;
            break;
        }
        for (sf_count_t f = 0; f < got; f++) {
            double sum = 0;
            for (unsigned c = 0; c < channels; c++)
                sum += chunk[(size_t)f * channels + c];
            float v = (float)(sum / channels);
            mono[f] = isfinite(v) ? v : 0.0f;
        }
        status = re_resample_stream_feed(stream, mono, (size_t)got, &buf, &len, &cap);
        used += (uint64_t)got;
    }
    if (status == RE_OK && !*too_long && used > 0)
        status = re_resample_stream_feed(stream, NULL, 0, &buf, &len, &cap);
    free(chunk);
    free(mono);
    re_resample_stream_free(stream);
    if (status != RE_OK) {
        free(buf);
        return status;
    }
    *out = buf;
    *out_len = len;
    *frames = used;
    return RE_OK;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec
           && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ino == b->st_ino;
}

re_status re_sound_load(const char *path, unsigned rate, re_sound *out, re_diagnostics *diag)
{
    return re_sound_load_until(path, rate, NULL, out, diag);
}

static re_status load_until(const char *path, int given, unsigned rate,
                            volatile sig_atomic_t *stop, re_sound *out, re_diagnostics *diag);

re_status re_sound_load_until(const char *path, unsigned rate, volatile sig_atomic_t *stop,
                              re_sound *out, re_diagnostics *diag)
{
    return load_until(path, -1, rate, stop, out, diag);
}

re_status re_sound_load_fd_until(int fd, const char *path, unsigned rate,
                                 volatile sig_atomic_t *stop, re_sound *out,
                                 re_diagnostics *diag)
{
    if (fd < 0)
        return RE_ERR_INVALID;
    return load_until(path, fd, rate, stop, out, diag);
}

static re_status load_until(const char *path, int given, unsigned rate,
                            volatile sig_atomic_t *stop, re_sound *out, re_diagnostics *diag)
{
    int fd = -1;
    uint64_t size = 0;
    SNDFILE *sf = NULL;
    struct stat before, after;
    re_status status;

    if (!out || !path || rate == 0) {
        if (given >= 0)
            (void)close(given);
        if (out)
            memset(out, 0, sizeof *out);
        return RE_ERR_INVALID;
    }
    memset(out, 0, sizeof *out);
    status = open_file(path, given, &fd, &size, diag);
    if (status != RE_OK)
        return status;
    if (size > RE_SOUND_MAX_BYTES) {   /* before a byte is read: a sparse file costs nothing */
        status = sound_fail(diag, RE_ERR_LIMIT, path, "is %llu bytes, more than %llu (1 GiB), "
                            "the limit for a sound file", (unsigned long long)size,
                            (unsigned long long)RE_SOUND_MAX_BYTES);
        goto fail;
    }
    if (fstat(fd, &before) != 0) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "cannot read the file");
        goto fail;
    }
    if (size == 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "is empty: no audio to play");
        goto fail;
    }
    /* libsndfile's verdict on the header first: what is not audio is refused before its
     * bytes are hashed (pread: libsndfile's position in the file stays where it is) */
    SF_INFO info;
    memset(&info, 0, sizeof info);
    sf = sf_open_fd(fd, SFM_READ, &info, 0);
    if (!sf) {
        status = sound_fail(diag, RE_ERR_FORMAT, path,
                            "is not audio that libsndfile reads (WAV, FLAC, Ogg Vorbis or "
                            "Opus, MP3): %s", sf_strerror(NULL));
        goto fail;
    }
    if (info.samplerate <= 0 || info.channels <= 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "has no sample rate or no channels");
        goto fail;
    }
    uint64_t hashed = 0;
    status = re_fd_sha256(fd, stop, &hashed, out->sha256);
    if (status == RE_ERR_INTERRUPTED || status == RE_ERR_NOMEM)
        goto fail;
    if (status == RE_OK && hashed != size) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "changed while it was being read");
        goto fail;
    }
    if (status != RE_OK) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "cannot read the file");
        goto fail;
    }
    uint64_t max_frames = (uint64_t)RE_SOUND_MAX_SECONDS * (unsigned)info.samplerate;
    /* The length is what decodes, never the header's claim (info.frames): an MP3 cut from a
     * longer one keeps a Xing header that claims the whole, and the decode stops itself at the
     * limit. */
    int too_long = 0;
    int16_t *resampled = NULL;
    size_t resampled_len = 0;
    uint64_t source_frames = 0;
    status = decode_resampled(sf, (unsigned)info.channels, (unsigned)info.samplerate, rate,
                              max_frames, stop, &resampled, &resampled_len, &source_frames,
                              &too_long);
    if (status == RE_ERR_INVALID)
        status = sound_fail(diag, RE_ERR_FORMAT, path, "cannot be converted from %d Hz to %u Hz",
                            info.samplerate, rate);
    if (status != RE_OK)
        goto fail;
    out->samples = resampled;
    if (sf_error(sf) != SF_ERR_NO_ERROR && !too_long) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "cannot be decoded: %s", sf_strerror(sf));
        goto fail;
    }
    if (too_long) {
        status = sound_fail(diag, RE_ERR_LIMIT, path, "is longer than %u seconds, the limit "
                            "for a sound file (it is held in memory whole)", RE_SOUND_MAX_SECONDS);
        goto fail;
    }
    if (source_frames == 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "holds no samples");
        goto fail;
    }
    if (fstat(fd, &after) != 0 || !same_file(&before, &after)) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "changed while it was being read");
        goto fail;
    }
    /* exactly re_resample_length samples, as the one-shot recipe gives (resample.h) */
    size_t frames = (size_t)re_resample_length(source_frames, (unsigned)info.samplerate, rate);
    int16_t *exact = realloc(out->samples, (frames ? frames : 1) * sizeof *exact);
    if (!exact) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    if (resampled_len < frames)
        memset(exact + resampled_len, 0, (frames - resampled_len) * sizeof *exact);
    out->samples = exact;
    out->frames = frames;
    out->rate = rate;
    out->source_rate = (unsigned)info.samplerate;
    out->source_channels = (unsigned)info.channels;
    sf_close(sf);
    (void)close(fd);   /* read-only: nothing a close could lose */
    return RE_OK;

fail:
    if (sf)
        sf_close(sf);
    if (fd >= 0)
        (void)close(fd);   /* already failing */
    re_sound_free(out);
    return status;
}

void re_sound_fade_out(int16_t *samples, size_t n, size_t fade)
{
    if (fade > n)
        fade = n;
    int16_t *tail = samples + (n - fade);
    for (size_t k = 0; k < fade; k++)
        tail[k] = (int16_t)((int64_t)tail[k] * (int64_t)(fade - k) / (int64_t)(fade + 1));
}

void re_sound_free(re_sound *sound)
{
    if (!sound)
        return;
    free(sound->samples);
    memset(sound, 0, sizeof *sound);
}
