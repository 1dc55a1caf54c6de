/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3_decoder.c - the one libmpg123 setup, pread source, format check and decode loop (see
 * mp3_decoder.h). */
#include "mp3_decoder.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

re_status re_mp3_decoder_new(int encoding, mpg123_handle **out, re_diagnostics *diag)
{
    int err = MPG123_OK;
    *out = NULL;
    mpg123_handle *mh = mpg123_new(NULL, &err);
    if (!mh) {
        re_diag_add(diag, NULL, 0, 0, "cannot set up the MP3 decoder: %s",
                    mpg123_plain_strerror(err));
        return err == MPG123_OUT_OF_MEM ? RE_ERR_NOMEM : RE_ERR_FORMAT;
    }
    const long *rates = NULL;
    size_t rate_count = 0;
    mpg123_rates(&rates, &rate_count);
    int ok = mpg123_param2(mh, MPG123_ADD_FLAGS, MPG123_GAPLESS | MPG123_QUIET, 0) == MPG123_OK
          && mpg123_param2(mh, MPG123_REMOVE_FLAGS, MPG123_FORCE_MONO | MPG123_FORCE_STEREO
                           | MPG123_IGNORE_INFOFRAME | MPG123_FORCE_8BIT | MPG123_FORCE_FLOAT,
                           0) == MPG123_OK
          && mpg123_format_none(mh) == MPG123_OK;
    for (size_t i = 0; ok && i < rate_count; i++)
        ok = mpg123_format(mh, rates[i], MPG123_MONO | MPG123_STEREO, encoding) == MPG123_OK;
    if (!ok) {
        re_diag_add(diag, NULL, 0, 0, "cannot set up the MP3 decoder: %s", mpg123_strerror(mh));
        mpg123_delete(mh);
        return RE_ERR_FORMAT;
    }
    *out = mh;
    return RE_OK;
}

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
    re_mp3_source *s = handle;
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
    re_mp3_source *s = handle;
    off_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s->pos : s->size;
    if ((whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) || base + offset < 0) {
        errno = EINVAL;
        return -1;
    }
    s->pos = base + offset;
    return s->pos;
}

re_status re_mp3_decoder_open(int encoding, re_mp3_source *src, mpg123_handle **out,
                              re_diagnostics *diag)
{
    return re_mp3_decoder_open_flags(encoding, 0, src, out, diag);
}

re_status re_mp3_decoder_open_flags(int encoding, long flags, re_mp3_source *src,
                                    mpg123_handle **out, re_diagnostics *diag)
{
    mpg123_handle *mh = NULL;
    *out = NULL;
    re_status status = re_mp3_decoder_new(encoding, &mh, diag);
    if (status != RE_OK)
        return status;
    if (flags && mpg123_param2(mh, MPG123_ADD_FLAGS, flags, 0) != MPG123_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot set up the MP3 decoder: %s", mpg123_strerror(mh));
        mpg123_delete(mh);
        return RE_ERR_FORMAT;
    }
    if (mpg123_replace_reader_handle(mh, source_read, source_seek, NULL) != MPG123_OK
        || mpg123_open_handle(mh, src) != MPG123_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot read: %s", mpg123_strerror(mh));
        mpg123_delete(mh);
        return RE_ERR_READ;
    }
    *out = mh;
    return RE_OK;
}

re_mp3_format_problem re_mp3_decoder_format(mpg123_handle *mh, int encoding, re_mp3_format *fmt)
{
    fmt->rate = 0;
    fmt->channels = 0;
    fmt->encoding = 0;
    if (mpg123_getformat(mh, &fmt->rate, &fmt->channels, &fmt->encoding) != MPG123_OK)
        return RE_MP3_NO_FRAME;
    if (mpg123_info2(mh, &fmt->info) != MPG123_OK)
        return RE_MP3_NO_INFO;
    if (fmt->info.layer != 3)
        return RE_MP3_NOT_LAYER3;
    if (fmt->rate <= 0 || fmt->channels < 1 || fmt->channels > 2 || fmt->encoding != encoding)
        return RE_MP3_UNUSABLE;
    return RE_MP3_FORMAT_OK;
}

re_mp3_end re_mp3_decoder_each(mpg123_handle *mh, re_mp3_block_fn block, void *user)
{
    for (;;) {
        re_mp3_block b = { NULL, 0, 0, 0, 0, 0 };
        unsigned char *audio = NULL;
        int rc = mpg123_decode_frame(mh, &b.frame, &audio, &b.bytes);
        if (rc == MPG123_DONE)
            return RE_MP3_END_DONE;
        if (rc == MPG123_NEW_FORMAT) {
            int encoding = 0;
            b.new_format = 1;
            if (mpg123_getformat(mh, &b.rate, &b.channels, &encoding) != MPG123_OK) {
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
