/* SPDX-License-Identifier: GPL-3.0-or-later */
/* measure.c - an MP3's true length: decoded whole with libmpg123 (gapless), the Xing/LAME tag's
 * frame count trusted over anything after it, and the ID3v2 TLEN texts collected (see
 * check.h, re_mp3_measure). */
#define _GNU_SOURCE  /* strndup */
#include "check_internal.h"
#include "files.h"
#include "mp3_decoder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpg123.h>

void re_mp3_measurement_free(re_mp3_measurement *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->tlen_count; i++)
        free(m->tlen[i]);
    free(m->tlen);
    memset(m, 0, sizeof *m);
}

/* Copies the texts of the leading ID3v2 tag's TLEN frames. */
static re_status collect_tlen(mpg123_handle *mh, re_mp3_measurement *m)
{
    mpg123_id3v1 *v1 = NULL;
    mpg123_id3v2 *v2 = NULL;
    if (!(mpg123_meta_check(mh) & MPG123_ID3) || mpg123_id3(mh, &v1, &v2) != MPG123_OK || !v2)
        return RE_OK;
    for (size_t i = 0; i < v2->texts; i++) {
        const mpg123_text *t = &v2->text[i];
        if (memcmp(t->id, "TLEN", 4) != 0)
            continue;
        size_t n = t->text.p ? strnlen(t->text.p, t->text.fill) : 0;
        char **grown = realloc(m->tlen, (m->tlen_count + 1) * sizeof *grown);
        if (!grown)
            return RE_ERR_NOMEM;
        m->tlen = grown;
        if (!(m->tlen[m->tlen_count] = strndup(t->text.p ? t->text.p : "", n)))
            return RE_ERR_NOMEM;
        m->tlen_count++;
    }
    return RE_OK;
}

/* Reads the stream up to its first frame: format, MPEG version, layer, LAME tag, TLEN. */
static re_status decoder_start(mpg123_handle *mh, const char *path, re_mp3_measurement *m,
                               re_diagnostics *diag)
{
    re_mp3_format fmt;
    switch (re_mp3_decoder_format(mh, MPG123_ENC_SIGNED_16, &fmt)) {
    case RE_MP3_FORMAT_OK:
        break;
    case RE_MP3_NO_FRAME:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0,
                          "not an MP3: no complete MPEG audio frame found");
    case RE_MP3_NO_INFO:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: %s", mpg123_strerror(mh));
    case RE_MP3_NOT_LAYER3:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0,
                          "not an MP3: MPEG audio layer %d, not layer III", fmt.info.layer);
    case RE_MP3_UNUSABLE:
        return check_fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: unusable output format");
    }
    m->sample_rate = (unsigned)fmt.rate;
    m->channels = (unsigned)fmt.channels;
    m->mpeg_version = fmt.info.version == MPG123_1_0 ? 1 : fmt.info.version == MPG123_2_0 ? 2 : 25;
    long delay = -1;
    if (mpg123_getstate2(mh, MPG123_ENC_DELAY, &delay, NULL) != MPG123_OK)
        delay = -1;
    m->has_lame_tag = delay >= 0;
    m->tag_frames = -1;
    if (m->has_lame_tag) {   /* with a tag, the frame length comes from it, not a guess */
        off_t frames = mpg123_framelength(mh);
        m->tag_frames = frames >= 0 ? (int64_t)frames : -1;
    }
    return collect_tlen(mh, m);
}

/* Notes where decoding stopped early: after the last good frame, or at the frame that does
 * not fit. */
static void stop_at(mpg123_handle *mh, re_mp3_measurement *m, int after_frame, const char *why)
{
    off_t at = mpg123_framepos(mh);   /* where the frame parsed last starts */
    struct mpg123_frameinfo2 info;
    if (after_frame && at >= 0 && mpg123_info2(mh, &info) == MPG123_OK && info.framesize > 0)
        at += info.framesize;
    m->stopped_at = at > 0 ? (uint64_t)at : 1;
    m->stopped_why = why;
}

/* Counts the PCM frames per channel of each decoded block. */
typedef struct sample_count {
    mpg123_handle *mh;
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
            stop_at(c->mh, m, 0, "the sample rate changes (junk, or another stream joined on)");
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
static re_status decoder_run(mpg123_handle *mh, const char *path, re_mp3_measurement *m,
                             re_diagnostics *diag)
{
    sample_count count = { mh, m, m->channels };
    if (re_mp3_decoder_each(mh, count_block, &count) == RE_MP3_END_ERROR) {
        if (m->samples == 0)
            return check_fail(diag, RE_ERR_FORMAT, path, 0, 0, "not an MP3: %s",
                              mpg123_strerror(mh));
        stop_at(mh, m, 1, "what follows is not MPEG audio (trailing junk or damage)");
    }
    off_t frame = mpg123_tellframe(mh);
    m->frames = frame > 0 ? (uint64_t)frame : 0;
    if (m->frames >= m->extra_frames)
        m->frames -= m->extra_frames;
    m->truncated = m->tag_frames >= 0 && m->frames < (uint64_t)m->tag_frames;
    return RE_OK;
}

/* The decoder on the open file. A stream libmpg123 cannot open is reported with its reason,
 * a decoder that cannot be set up in our words only. */
static re_status open_decoder(const char *path, re_mp3_source *src, mpg123_handle **mh,
                              re_diagnostics *diag)
{
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_mp3_decoder_open(MPG123_ENC_SIGNED_16, src, mh, &said);
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

re_status re_mp3_measure(const char *path, re_mp3_measurement *out, re_diagnostics *diag)
{
    if (!path || !out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    int fd = -1;
    mpg123_handle *mh = NULL;
    re_status status = re_file_open_regular(path, &fd, &out->bytes, diag);
    if (status != RE_OK)
        goto done;
    re_mp3_source src = { .fd = fd, .pos = 0, .size = (off_t)out->bytes, .error = 0 };
    status = open_decoder(path, &src, &mh, diag);
    if (status != RE_OK)
        goto done;
    status = decoder_start(mh, path, out, diag);
    if (status == RE_OK)
        status = decoder_run(mh, path, out, diag);
    if (mpg123_close(mh) != MPG123_OK && status == RE_OK)
        status = check_fail(diag, RE_ERR_READ, path, 0, 0, "cannot close: %s", mpg123_strerror(mh));
done:
    if (mh)
        mpg123_delete(mh);
    if (fd >= 0 && close(fd) != 0 && status == RE_OK)
        status = check_fail(diag, RE_ERR_READ, path, 0, 0, "cannot close: %s", strerror(errno));
    if (status != RE_OK)
        re_mp3_measurement_free(out);
    return status;
}
