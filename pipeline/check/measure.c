/* SPDX-License-Identifier: GPL-3.0-or-later */
/* measure.c - an MP3's true length: decoded whole by audio's MP3 reader (gapless), the Xing/LAME tag's
 * frame count trusted over anything after it, and the ID3v2 TLEN texts collected (see
 * check.h, re_mp3_measure). */
#define _GNU_SOURCE  /* strndup */
#include "check_internal.h"
#include "files.h"
#include "mp3_decoder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void re_mp3_measurement_free(re_mp3_measurement *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->tlen_count; i++)
        free(m->tlen[i]);
    free(m->tlen);
    memset(m, 0, sizeof *m);
}

/* Keeps a copy of one text of the leading ID3v2 tag's TLEN frames. */
static re_status keep_tlen(void *user, const char *text, size_t len)
{
    re_mp3_measurement *m = user;
    char **grown = realloc(m->tlen, (m->tlen_count + 1) * sizeof *grown);
    if (!grown)
        return RE_ERR_NOMEM;
    m->tlen = grown;
    if (!(m->tlen[m->tlen_count] = strndup(text, len)))
        return RE_ERR_NOMEM;
    m->tlen_count++;
    return RE_OK;
}

/* Reads the stream up to its first frame: format, MPEG version, layer, LAME tag, TLEN. */
static re_status decoder_start(re_mp3_reader *r, const char *path, re_mp3_measurement *m,
                               re_diagnostics *diag)
{
    re_mp3_format fmt;
    switch (re_mp3_reader_format(r, &fmt)) {
    case RE_MP3_FORMAT_OK:
        break;
    case RE_MP3_NO_FRAME:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0,
                          "not an MP3: no complete MPEG audio frame found");
    case RE_MP3_NO_INFO:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: %s",
                          re_mp3_reader_strerror(r));
    case RE_MP3_NOT_LAYER3:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0,
                          "not an MP3: MPEG audio layer %d, not layer III", fmt.layer);
    case RE_MP3_UNUSABLE:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: unusable output format");
    }
    m->sample_rate = (unsigned)fmt.rate;
    m->channels = (unsigned)fmt.channels;
    m->mpeg_version = fmt.mpeg_version;
    m->has_lame_tag = re_mp3_reader_encoder_delay(r) >= 0;
    m->tag_frames = -1;
    if (m->has_lame_tag)   /* with a tag, the frame length comes from it, not a guess */
        m->tag_frames = re_mp3_reader_frame_count(r);
    return re_mp3_reader_each_text(r, "TLEN", keep_tlen, m);
}

/* Notes where decoding stopped early: after the last good frame, or at the frame that does
 * not fit. */
static void stop_at(re_mp3_reader *r, re_mp3_measurement *m, int after_frame, const char *why)
{
    off_t at = re_mp3_reader_frame_offset(r);   /* where the frame parsed last starts */
    if (after_frame && at >= 0)
        at += re_mp3_reader_frame_bytes(r);
    m->stopped_at = at > 0 ? (uint64_t)at : 1;
    m->stopped_why = why;
}

/* Counts the PCM frames per channel of each decoded block. */
typedef struct sample_count {
    re_mp3_reader *r;
    re_mp3_measurement *m;
    unsigned channels;
} sample_count;

/* With a Xing/LAME tag, only the frames it announces count: random bytes after the audio can
 * pass for a frame or two. A change of sample rate ends the count with a note. */
static int count_block(void *user, const re_mp3_block *b)
{
    sample_count *c = user;
    re_mp3_measurement *m = c->m;
    if (b->new_format) {
        if (b->channels < 1 || b->channels > 2 || (unsigned)b->rate != m->sample_rate) {
            stop_at(c->r, m, 0, "the sample rate changes (junk, or another stream joined on)");
            return 1;
        }
        c->channels = (unsigned)b->channels;
    }
    if (m->tag_frames >= 0 && b->frame >= m->tag_frames)   /* frames count from 0 */
        m->extra_frames++;
    else
        m->samples += b->bytes / (2u * c->channels);
    return 0;
}

/* Decodes every frame, counting PCM frames per channel. Junk (or damage) ends the count with
 * a note. */
static re_status decoder_run(re_mp3_reader *r, const char *path, re_mp3_measurement *m,
                             re_diagnostics *diag)
{
    sample_count count = { r, m, m->channels };
    if (re_mp3_reader_each(r, count_block, &count) == RE_MP3_END_ERROR) {
        if (m->samples == 0)
            return check_fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: %s",
                              re_mp3_reader_strerror(r));
        stop_at(r, m, 1, "what follows is not MPEG audio (trailing junk or damage)");
    }
    m->frames = (uint64_t)re_mp3_reader_frames_decoded(r);
    if (m->frames >= m->extra_frames)
        m->frames -= m->extra_frames;
    m->truncated = m->tag_frames >= 0 && m->frames < (uint64_t)m->tag_frames;
    return RE_OK;
}

/* The reader on the open file. A stream it cannot open is reported with its reason, a reader
 * that cannot be set up in our words only. */
static re_status open_decoder(const char *path, int fd, uint64_t bytes, re_mp3_reader **r,
                              re_diagnostics *diag)
{
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_mp3_reader_open(fd, (off_t)bytes, RE_MP3_INT16, 0, r, &said);
    if (status == RE_ERR_READ) {
        re_diag_place(&said, 0, path, 0, 0);
        re_status moved = re_diag_move(diag, &said);
        if (moved != RE_OK)
            status = moved;
    } else if (status != RE_OK && status != RE_ERR_NOMEM) {
        status = check_fail(diag, status, path, 0, 0, "cannot set up the MP3 decoder");
    }
    re_diagnostics_free(&said);
    return status;
}

/* Measures the file open at fd (-1 with status a failure to open it); closes it. */
static re_status measure_fd(const char *path, int fd, re_status status, re_mp3_measurement *out,
                            re_diagnostics *diag)
{
    re_mp3_reader *r = NULL;
    if (status != RE_OK)
        goto done;
    status = open_decoder(path, fd, out->bytes, &r, diag);
    if (status != RE_OK)
        goto done;
    status = decoder_start(r, path, out, diag);
    if (status == RE_OK)
        status = decoder_run(r, path, out, diag);
done:
    if (r) {
        size_t from = diag ? diag->count : 0;
        re_status closed = re_mp3_reader_close(r, status == RE_OK ? diag : NULL);
        re_diag_place(diag, from, path, 0, 0);
        if (status == RE_OK)
            status = closed;
    }
    if (fd >= 0 && close(fd) != 0 && status == RE_OK)
        status = check_fail(diag, RE_ERR_READ, path, 0, 0, "cannot close: %s", strerror(errno));
    if (status != RE_OK)
        re_mp3_measurement_free(out);
    return status;
}

re_status re_mp3_measure(const char *path, re_mp3_measurement *out, re_diagnostics *diag)
{
    if (!path || !out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    int fd = -1;
    re_status status = re_file_open_regular(path, &fd, &out->bytes, diag);
    return measure_fd(path, fd, status, out, diag);
}

re_status re_mp3_measure_trusted(const char *path, re_mp3_measurement *out, uid_t *owner,
                                 re_diagnostics *diag)
{
    *owner = 0;
    if (!path || !out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    int fd = re_open_trusted(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, owner);
    if (fd < 0 && errno == EPERM)
        return RE_OK;   /* another user's: never read, and nothing measured */
    re_status status = fd < 0
        ? check_fail(diag, RE_ERR_READ, path, 0, 0, "cannot open: %s", strerror(errno))
        : re_file_check_regular(fd, path, &out->bytes, diag);
    if (status != RE_OK)
        fd = -1;   /* closed by re_file_check_regular */
    return measure_fd(path, fd, status, out, diag);
}
