/* SPDX-License-Identifier: GPL-3.0-or-later */
/* wav.c - WAV files through libsndfile (see wav.h). */
#include "wav.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sndfile.h>

#include "files.h"

struct re_wav_writer {
    SNDFILE *file;      /* NULL once finished */
};

static re_status set_strings(SNDFILE *file, const re_wav_tags *tags)
{
    const struct { int id; const char *value; } strings[] = {
        { SF_STR_TITLE, tags->title }, { SF_STR_ARTIST, tags->artist },
        { SF_STR_ALBUM, tags->album }, { SF_STR_COMMENT, tags->comment },
        { SF_STR_DATE, tags->date }, { SF_STR_SOFTWARE, tags->software },
    };
    for (size_t i = 0; i < sizeof strings / sizeof strings[0]; i++)
        if (strings[i].value && sf_set_string(file, strings[i].id, strings[i].value) != 0)
            return RE_ERR_WRITE;
    return RE_OK;
}

re_status re_wav_writer_create(int fd, unsigned sample_rate, const re_wav_tags *tags,
                               re_wav_writer **out, re_diagnostics *diag)
{
    *out = NULL;
    re_wav_writer *wav = calloc(1, sizeof *wav);
    if (!wav)
        return RE_ERR_NOMEM;
    SF_INFO info = { .samplerate = (int)sample_rate, .channels = 1,
                     .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16 };
    wav->file = sf_open_fd(fd, SFM_WRITE, &info, 0);
    if (!wav->file) {
        re_diag_add(diag, NULL, 0, 0, "cannot start the WAV file: %s", sf_strerror(NULL));
        free(wav);
        return RE_ERR_WRITE;
    }
    if (set_strings(wav->file, tags) != RE_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot write the WAV file: %s", sf_strerror(wav->file));
        re_wav_writer_free(wav);
        return RE_ERR_WRITE;
    }
    *out = wav;
    return RE_OK;
}

re_status re_wav_writer_write(re_wav_writer *wav, const int16_t *pcm, size_t frames,
                              re_diagnostics *diag)
{
    if (!wav->file)
        return RE_ERR_INVALID;
    if (sf_writef_short(wav->file, pcm, (sf_count_t)frames) != (sf_count_t)frames) {
        re_diag_add(diag, NULL, 0, 0, "cannot write the WAV file: %s", sf_strerror(wav->file));
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

#define APPEND_CHUNK 16384   /* samples read and written at a time */

re_status re_wav_writer_write_pcm(re_wav_writer *wav, re_wav_pcm pcm,
                                  const re_wav_append *how, re_diagnostics *diag)
{
    unsigned char *bytes = malloc(APPEND_CHUNK * 2);
    int16_t *samples = malloc(APPEND_CHUNK * sizeof *samples);
    re_status status = bytes && samples ? RE_OK : RE_ERR_NOMEM;
    for (uint64_t done = 0; status == RE_OK && done < pcm.frames;) {
        size_t n = pcm.frames - done < APPEND_CHUNK ? (size_t)(pcm.frames - done) : APPEND_CHUNK;
        if (re_pread_all(pcm.fd, bytes, n * 2, (off_t)(done * 2)) != RE_OK) {
            re_diag_add(diag, NULL, 0, 0, "cannot read the samples to write: %s",
                        strerror(errno));
            status = RE_ERR_READ;
            break;
        }
        for (size_t i = 0; i < n; i++)
            samples[i] = (int16_t)(uint16_t)(bytes[2 * i] | bytes[2 * i + 1] << 8);
        status = re_wav_writer_write(wav, samples, n, diag);
        done += n;
        if (status == RE_OK && how && how->stop && *how->stop)
            status = RE_ERR_INTERRUPTED;
        if (how && how->progress)
            how->progress(how->progress_context, done, pcm.frames);
    }
    free(bytes);
    free(samples);
    return status;
}

re_status re_wav_writer_finish(re_wav_writer *wav, re_diagnostics *diag)
{
    if (!wav->file)
        return RE_ERR_INVALID;
    int rc = sf_close(wav->file);
    wav->file = NULL;
    if (rc != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot finish the WAV file: %s", sf_strerror(NULL));
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

void re_wav_writer_free(re_wav_writer *wav)
{
    if (!wav)
        return;
    if (wav->file)
        sf_close(wav->file);
    free(wav);
}

void re_wav_describe(unsigned sample_rate, char *buf, size_t len)
{
    snprintf(buf, len, "libsndfile %s, WAV 16-bit PCM, mono, %u Hz",
             sf_version_string() ? sf_version_string() : "", sample_rate);
}
