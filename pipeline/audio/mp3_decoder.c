/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_decoder.c - the one MP3 reader: libmpg123's setup, a pread source, the format check,
 * the decode loops and the stream's queries (see mp3_decoder.h). The only file that calls
 * libmpg123. */
#include "mp3_decoder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpg123.h>

#define SOURCE_AHEAD 32768

/* The open file read with pread at the source's own position, so that several readers (one
 * per thread) can share one fd. error is the errno of a failed read. libmpg123 reads a frame
 * as two small reads (its header, then its body: about 200 bytes at 64 kbps), so the source
 * reads ahead SOURCE_AHEAD bytes at a time (one system call where there were about 300). */
typedef struct mp3_source {
    int fd;
    off_t pos;
    off_t size;
    int error;
    off_t ahead_at;                     /* file offset of ahead[0] */
    size_t ahead_len;                   /* bytes of ahead[] that are the file's */
    unsigned char ahead[SOURCE_AHEAD];
} mp3_source;

struct re_mp3_reader {
    mpg123_handle *mh;
    int encoding;       /* MPG123_ENC_SIGNED_16 or MPG123_ENC_FLOAT_32 */
    int read_error;     /* the libmpg123 code re_mp3_reader_read stopped on; 0: none */
    mp3_source src;
};

static ssize_t pread_retrying(int fd, void *buf, size_t len, off_t at)
{
    ssize_t n;
    while ((n = pread(fd, buf, len, at)) < 0 && errno == EINTR)
        ;
    return n;
}

/* Up to len bytes at s->pos: from the read-ahead buffer, refilled when pos is not in it; a
 * read at least as large as the buffer goes straight to the file. 0 only at the end. */
static mpg123_ssize_t source_read(void *handle, void *buf, size_t len)
{
    mp3_source *s = handle;
    if (len >= sizeof s->ahead) {
        ssize_t n = pread_retrying(s->fd, buf, len, s->pos);
        if (n < 0)
            s->error = errno;
        else
            s->pos += n;
        return n;
    }
    if (s->pos < s->ahead_at || s->pos >= s->ahead_at + (off_t)s->ahead_len) {
        ssize_t n = pread_retrying(s->fd, s->ahead, sizeof s->ahead, s->pos);
        if (n < 0) {
            s->error = errno;
            s->ahead_len = 0;
            return n;
        }
        s->ahead_at = s->pos;
        s->ahead_len = (size_t)n;
        if (n == 0)
            return 0;
    }
    size_t offset = (size_t)(s->pos - s->ahead_at), have = s->ahead_len - offset;
    size_t n = len < have ? len : have;
    memcpy(buf, s->ahead + offset, n);
    s->pos += (off_t)n;
    return (mpg123_ssize_t)n;
}

static off_t source_seek(void *handle, off_t offset, int whence)
{
    mp3_source *s = handle;
    off_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s->pos : s->size;
    if ((whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) || base + offset < 0) {
        errno = EINVAL;
        return -1;
    }
    s->pos = base + offset;
    return s->pos;
}

static re_status setup_failed(re_mp3_reader *r, re_status status, const char *reason,
                              re_diagnostics *diag)
{
    re_diag_add(diag, NULL, 0, 0, "cannot set up the MP3 decoder: %s", reason);
    if (r->mh)
        mpg123_delete(r->mh);
    free(r);
    return status;
}

re_status re_mp3_reader_open(int fd, off_t size, re_mp3_samples samples, unsigned flags,
                             re_mp3_reader **out, re_diagnostics *diag)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = NULL;
    if (fd < 0 || size < 0 || (samples != RE_MP3_INT16 && samples != RE_MP3_FLOAT))
        return RE_ERR_INVALID;
    re_mp3_reader *r = calloc(1, sizeof *r);
    if (!r)
        return RE_ERR_NOMEM;
    r->encoding = samples == RE_MP3_FLOAT ? MPG123_ENC_FLOAT_32 : MPG123_ENC_SIGNED_16;
    r->src.fd = fd;
    r->src.size = size;
    int err = MPG123_OK;
    r->mh = mpg123_new(NULL, &err);
    if (!r->mh)
        return setup_failed(r, err == MPG123_OUT_OF_MEM ? RE_ERR_NOMEM : RE_ERR_FORMAT,
                            mpg123_plain_strerror(err), diag);
    const long *rates = NULL;
    size_t rate_count = 0;
    mpg123_rates(&rates, &rate_count);
    long more = flags & RE_MP3_NO_RESYNC ? MPG123_NO_RESYNC : 0;
    int ok = mpg123_param2(r->mh, MPG123_ADD_FLAGS, MPG123_GAPLESS | MPG123_QUIET, 0) == MPG123_OK
          && mpg123_param2(r->mh, MPG123_REMOVE_FLAGS, MPG123_FORCE_MONO | MPG123_FORCE_STEREO
                           | MPG123_IGNORE_INFOFRAME | MPG123_FORCE_8BIT | MPG123_FORCE_FLOAT,
                           0) == MPG123_OK
          && mpg123_format_none(r->mh) == MPG123_OK;
    for (size_t i = 0; ok && i < rate_count; i++)
        ok = mpg123_format(r->mh, rates[i], MPG123_MONO | MPG123_STEREO, r->encoding) == MPG123_OK;
    ok = ok && (!more || mpg123_param2(r->mh, MPG123_ADD_FLAGS, more, 0) == MPG123_OK);
    if (!ok)
        return setup_failed(r, RE_ERR_FORMAT, mpg123_strerror(r->mh), diag);
    if (mpg123_replace_reader_handle(r->mh, source_read, source_seek, NULL) != MPG123_OK
        || mpg123_open_handle(r->mh, &r->src) != MPG123_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot read: %s", mpg123_strerror(r->mh));
        mpg123_delete(r->mh);
        free(r);
        return RE_ERR_READ;
    }
    *out = r;
    return RE_OK;
}

re_status re_mp3_reader_close(re_mp3_reader *r, re_diagnostics *diag)
{
    if (!r)
        return RE_OK;
    re_status status = RE_OK;
    if (mpg123_close(r->mh) != MPG123_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot close: %s", mpg123_strerror(r->mh));
        status = RE_ERR_READ;
    }
    mpg123_delete(r->mh);
    free(r);
    return status;
}

re_mp3_format_problem re_mp3_reader_format(re_mp3_reader *r, re_mp3_format *fmt)
{
    memset(fmt, 0, sizeof *fmt);
    int encoding = 0;
    if (mpg123_getformat(r->mh, &fmt->rate, &fmt->channels, &encoding) != MPG123_OK)
        return RE_MP3_NO_FRAME;
    struct mpg123_frameinfo2 info;
    if (mpg123_info2(r->mh, &info) != MPG123_OK)
        return RE_MP3_NO_INFO;
    fmt->layer = info.layer;
    fmt->mpeg_version = info.version == MPG123_1_0 ? 1 : info.version == MPG123_2_0 ? 2 : 25;
    fmt->samples_per_frame = info.version == MPG123_1_0 ? 1152 : 576;
    if (info.layer != 3)
        return RE_MP3_NOT_LAYER3;
    if (fmt->rate <= 0 || fmt->channels < 1 || fmt->channels > 2 || encoding != r->encoding)
        return RE_MP3_UNUSABLE;
    return RE_MP3_FORMAT_OK;
}

re_mp3_end re_mp3_reader_each(re_mp3_reader *r, re_mp3_block_fn block, void *user)
{
    for (;;) {
        re_mp3_block b = { NULL, 0, 0, 0, 0, 0 };
        unsigned char *audio = NULL;
        int rc = mpg123_decode_frame(r->mh, &b.frame, &audio, &b.bytes);
        if (rc == MPG123_DONE)
            return RE_MP3_END_DONE;
        if (rc == MPG123_NEW_FORMAT) {
            int encoding = 0;
            b.new_format = 1;
            if (mpg123_getformat(r->mh, &b.rate, &b.channels, &encoding) != MPG123_OK) {
                b.rate = 0;
                b.channels = 0;
            }
        } else if (rc != MPG123_OK) {
            return RE_MP3_END_ERROR;
        }
        b.pcm = audio;
        if (block(user, &b) != 0)
            return RE_MP3_END_STOPPED;
    }
}

re_mp3_read re_mp3_reader_read(re_mp3_reader *r, void *out, size_t bytes, size_t *got)
{
    *got = 0;
    int rc = mpg123_read(r->mh, out, bytes, got);
    if (rc == MPG123_OK)
        return RE_MP3_READ_OK;
    if (rc == MPG123_DONE)
        return RE_MP3_READ_DONE;
    if (rc == MPG123_NEW_FORMAT)
        return RE_MP3_READ_NEW_FORMAT;
    r->read_error = mpg123_errcode(r->mh);
    if (r->read_error == MPG123_OK)
        r->read_error = MPG123_ERR;
    return RE_MP3_READ_ERROR;
}

re_status re_mp3_reader_seek(re_mp3_reader *r, int64_t sample)
{
    off_t at = (off_t)sample;
    return mpg123_seek(r->mh, at, SEEK_SET) == at && mpg123_tell(r->mh) == at ? RE_OK
                                                                              : RE_ERR_FORMAT;
}

int re_mp3_reader_read_errno(const re_mp3_reader *r)
{
    return r->src.error;
}

const char *re_mp3_reader_strerror(re_mp3_reader *r)
{
    return r->read_error ? mpg123_plain_strerror(r->read_error) : mpg123_strerror(r->mh);
}

int64_t re_mp3_reader_length(re_mp3_reader *r)
{
    off_t len = mpg123_length(r->mh);
    return len >= 0 ? (int64_t)len : -1;
}

long re_mp3_reader_encoder_delay(re_mp3_reader *r)
{
    long delay = -1;
    if (mpg123_getstate2(r->mh, MPG123_ENC_DELAY, &delay, NULL) != MPG123_OK)
        return -1;
    return delay >= 0 ? delay : -1;
}

int64_t re_mp3_reader_frame_count(re_mp3_reader *r)
{
    off_t frames = mpg123_framelength(r->mh);
    return frames >= 0 ? (int64_t)frames : -1;
}

int64_t re_mp3_reader_frames_decoded(re_mp3_reader *r)
{
    off_t frame = mpg123_tellframe(r->mh);
    return frame > 0 ? (int64_t)frame : 0;
}

off_t re_mp3_reader_frame_offset(re_mp3_reader *r)
{
    off_t at = mpg123_framepos(r->mh);
    return at >= 0 ? at : -1;
}

long re_mp3_reader_frame_bytes(re_mp3_reader *r)
{
    struct mpg123_frameinfo2 info;
    return mpg123_info2(r->mh, &info) == MPG123_OK && info.framesize > 0 ? info.framesize : 0;
}

re_status re_mp3_reader_each_text(re_mp3_reader *r, const char *id, re_mp3_text_fn text,
                                  void *user)
{
    mpg123_id3v1 *v1 = NULL;
    mpg123_id3v2 *v2 = NULL;
    if (!(mpg123_meta_check(r->mh) & MPG123_ID3) || mpg123_id3(r->mh, &v1, &v2) != MPG123_OK
        || !v2)
        return RE_OK;
    for (size_t i = 0; i < v2->texts; i++) {
        const mpg123_text *t = &v2->text[i];
        if (memcmp(t->id, id, 4) != 0)
            continue;
        size_t n = t->text.p ? strnlen(t->text.p, t->text.fill) : 0;
        re_status status = text(user, t->text.p ? t->text.p : "", n);
        if (status != RE_OK)
            return status;
    }
    return RE_OK;
}
