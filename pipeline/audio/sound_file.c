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

#define HASH_CHUNK 65536u   /* bytes read at a time for the digest */
#define DECODE_CHUNK 4096u  /* frames decoded at a time */

/* One message about the file, with no place: the caller knows the script's FILE:LINE:COL. */
#define sound_fail(diag, status, path, fmt, ...) \
    re_diag_fail((diag), (status), NULL, 0, 0, "sound file '%s': " fmt, (path), __VA_ARGS__)

/* Opens the file without blocking (files.h), moving its path:0:0 messages into unplaced ones. */
static re_status open_file(const char *path, int *fd, uint64_t *size, re_diagnostics *diag)
{
    re_diagnostics local;
    re_diagnostics_init(&local, 4);
    re_status status = re_file_open_regular(path, fd, size, &local);
    for (size_t i = 0; status != RE_OK && i < local.count; i++)
        if (sound_fail(diag, status, path, "%s", local.items[i].message) == RE_ERR_NOMEM)
            status = RE_ERR_NOMEM;
    re_diagnostics_free(&local);
    return status;
}

static re_status hash_file(int fd, uint64_t size, unsigned char digest[RE_SHA256_SIZE])
{
    unsigned char *buf = malloc(HASH_CHUNK);
    if (!buf)
        return RE_ERR_NOMEM;
    re_sha256_ctx ctx;
    re_sha256_init(&ctx);
    re_status status = RE_OK;
    for (uint64_t at = 0; status == RE_OK && at < size; at += HASH_CHUNK) {
        size_t n = size - at < HASH_CHUNK ? (size_t)(size - at) : HASH_CHUNK;
        status = re_pread_all(fd, buf, n, (off_t)at);
        if (status == RE_OK)
            re_sha256_update(&ctx, buf, n);
    }
    re_sha256_final(&ctx, digest);
    free(buf);
    return status;
}

/* Decodes every frame, channels averaged, into a growing float buffer of at most max_frames
 * (one more is read to know the file is longer). */
static re_status decode_mono(SNDFILE *sf, unsigned channels, uint64_t max_frames, float **out,
                             size_t *frames, int *too_long)
{
    float *chunk = malloc((size_t)DECODE_CHUNK * channels * sizeof *chunk);
    float *mono = NULL;
    size_t used = 0, cap = 0;
    re_status status = chunk ? RE_OK : RE_ERR_NOMEM;
    *too_long = 0;
    while (status == RE_OK) {
        sf_count_t got = sf_readf_float(sf, chunk, DECODE_CHUNK);
        if (got <= 0)
            break;
        if (used + (uint64_t)got > max_frames) {
            *too_long = 1;
            break;
        }
        if (used + (size_t)got > cap) {
            size_t want = cap ? cap * 2 : 65536;
            while (want < used + (size_t)got)
                want *= 2;
            float *grown = realloc(mono, want * sizeof *mono);
            if (!grown) {
                status = RE_ERR_NOMEM;
                break;
            }
            mono = grown;
            cap = want;
        }
        for (sf_count_t f = 0; f < got; f++) {
            double sum = 0;
            for (unsigned c = 0; c < channels; c++)
                sum += chunk[(size_t)f * channels + c];
            float v = (float)(sum / channels);
            mono[used + (size_t)f] = isfinite(v) ? v : 0.0f;
        }
        used += (size_t)got;
    }
    free(chunk);
    if (status != RE_OK) {
        free(mono);
        return status;
    }
    *out = mono;
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
    int fd = -1;
    uint64_t size = 0;
    SNDFILE *sf = NULL;
    float *mono = NULL;
    size_t mono_frames = 0;
    struct stat before, after;
    re_status status;

    if (!out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!path || rate == 0)
        return RE_ERR_INVALID;
    status = open_file(path, &fd, &size, diag);
    if (status != RE_OK)
        return status;
    if (fstat(fd, &before) != 0 || hash_file(fd, size, out->sha256) != RE_OK) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "cannot read the file");
        goto fail;
    }
    if (size == 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "is empty: no audio to play");
        goto fail;
    }
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
    uint64_t max_frames = (uint64_t)RE_SOUND_MAX_SECONDS * (unsigned)info.samplerate;
    int too_long = info.frames > 0 && (uint64_t)info.frames > max_frames;
    if (!too_long) {
        status = decode_mono(sf, (unsigned)info.channels, max_frames, &mono, &mono_frames,
                             &too_long);
        if (status != RE_OK)
            goto fail;
        if (sf_error(sf) != SF_ERR_NO_ERROR && !too_long) {
            status = sound_fail(diag, RE_ERR_FORMAT, path, "cannot be decoded: %s",
                                sf_strerror(sf));
            goto fail;
        }
    }
    if (too_long) {
        status = sound_fail(diag, RE_ERR_LIMIT, path, "is longer than %u seconds, the limit "
                            "for a sound file (it is held in memory whole)", RE_SOUND_MAX_SECONDS);
        goto fail;
    }
    if (mono_frames == 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "holds no samples");
        goto fail;
    }
    if (fstat(fd, &after) != 0 || !same_file(&before, &after)) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "changed while it was being read");
        goto fail;
    }
    uint64_t frames = re_resample_length(mono_frames, (unsigned)info.samplerate, rate);
    out->samples = malloc((size_t)(frames ? frames : 1) * sizeof *out->samples);
    if (!out->samples) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    status = re_resample_float_mono16(mono, mono_frames, (unsigned)info.samplerate, rate,
                                      out->samples);
    if (status != RE_OK)
        goto fail;
    out->frames = (size_t)frames;
    out->rate = rate;
    out->source_rate = (unsigned)info.samplerate;
    out->source_channels = (unsigned)info.channels;
    free(mono);
    sf_close(sf);
    (void)close(fd);   /* read-only: nothing a close could lose */
    return RE_OK;

fail:
    free(mono);
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
