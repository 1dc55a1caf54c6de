/* SPDX-License-Identifier: GPL-3.0-or-later */
/* resample.c - the one libsoxr recipe (see resample.h). */
#include "resample.h"

#include <stdlib.h>
#include <string.h>

#include <soxr.h>

uint64_t re_resample_length(uint64_t frames, unsigned in_rate, unsigned out_rate)
{
    if (in_rate == out_rate || in_rate == 0)
        return frames;
    return (frames * out_rate + in_rate / 2) / in_rate;
}

/* The recipe's specs, from samples of `in_type` to int16. */
typedef struct recipe {
    soxr_io_spec_t io;
    soxr_quality_spec_t quality;
    soxr_runtime_spec_t runtime;
} recipe;

static recipe recipe_for(soxr_datatype_t in_type)
{
    recipe r = { soxr_io_spec(in_type, SOXR_INT16_I),
                 soxr_quality_spec(SOXR_HQ, SOXR_LINEAR_PHASE), soxr_runtime_spec(1) };
    /* No dither: soxr's TPDF dither would add noise to what is digital silence around speech. */
    r.io.flags |= SOXR_NO_DITHER;
    return r;
}

/* The recipe, from samples of `in_type` to int16. */
static re_status convert(const void *in, soxr_datatype_t in_type, size_t frames, unsigned in_rate,
                         unsigned out_rate, int16_t *out)
{
    size_t want = (size_t)re_resample_length(frames, in_rate, out_rate);
    recipe r = recipe_for(in_type);
    size_t done = 0;
    soxr_error_t error = soxr_oneshot(in_rate, out_rate, 1, in, frames, NULL, out, want, &done,
                                      &r.io, &r.quality, &r.runtime);
    if (error)
        return strstr(error, "alloc") ? RE_ERR_NOMEM : RE_ERR_INVALID;
    if (done < want)   /* never seen: soxr gives the rounded length; silence if it did not */
        memset(out + done, 0, (want - done) * sizeof *out);
    return RE_OK;
}

re_status re_resample_mono16(const int16_t *in, size_t frames, unsigned in_rate,
                             unsigned out_rate, int16_t *out)
{
    if (in_rate == 0 || out_rate == 0)
        return RE_ERR_INVALID;
    if (in_rate == out_rate || frames == 0) {
        if (frames && in_rate == out_rate)
            memcpy(out, in, frames * sizeof *out);
        return RE_OK;
    }
    return convert(in, SOXR_INT16_I, frames, in_rate, out_rate, out);
}

re_status re_resample_float_mono16(const float *in, size_t frames, unsigned in_rate,
                                   unsigned out_rate, int16_t *out)
{
    if (in_rate == 0 || out_rate == 0)
        return RE_ERR_INVALID;
    if (frames == 0)
        return RE_OK;
    return convert(in, SOXR_FLOAT32_I, frames, in_rate, out_rate, out);
}

struct re_resample_stream {
    soxr_t soxr;
};

re_status re_resample_stream_create(unsigned in_rate, unsigned out_rate, re_resample_stream **out)
{
    *out = NULL;
    if (in_rate == 0 || out_rate == 0)
        return RE_ERR_INVALID;
    re_resample_stream *stream = calloc(1, sizeof *stream);
    if (!stream)
        return RE_ERR_NOMEM;
    recipe r = recipe_for(SOXR_FLOAT32_I);
    soxr_error_t error = NULL;
    stream->soxr = soxr_create(in_rate, out_rate, 1, &error, &r.io, &r.quality, &r.runtime);
    if (error || !stream->soxr) {
        re_resample_stream_free(stream);
        return error && strstr(error, "alloc") ? RE_ERR_NOMEM : RE_ERR_INVALID;
    }
    *out = stream;
    return RE_OK;
}

/* Room for `more` samples after *len in *buf. */
static re_status reserve(int16_t **buf, size_t len, size_t *cap, size_t more)
{
    if (*cap - len >= more)
        return RE_OK;
    size_t want = *cap ? *cap : 16384;
    while (want - len < more)
        want *= 2;
    int16_t *grown = realloc(*buf, want * sizeof *grown);
    if (!grown)
        return RE_ERR_NOMEM;
    *buf = grown;
    *cap = want;
    return RE_OK;
}

re_status re_resample_stream_feed(re_resample_stream *stream, const float *in, size_t frames,
                                  int16_t **buf, size_t *len, size_t *cap)
{
    enum { ROOM = 16384 };   /* samples of output space offered to soxr per call */
    for (;;) {
        re_status status = reserve(buf, *len, cap, ROOM);
        if (status != RE_OK)
            return status;
        size_t used = 0, made = 0;
        soxr_error_t error = soxr_process(stream->soxr, in, in ? frames : 0, &used, *buf + *len,
                                          ROOM, &made);
        if (error)
            return strstr(error, "alloc") ? RE_ERR_NOMEM : RE_ERR_INVALID;
        *len += made;
        if (in) {
            in += used;
            frames -= used;
            if (frames == 0 && made < ROOM)
                return RE_OK;
        } else if (made == 0) {
            return RE_OK;   /* the end: soxr has given everything it held */
        }
    }
}

void re_resample_stream_free(re_resample_stream *stream)
{
    if (!stream)
        return;
    if (stream->soxr)
        soxr_delete(stream->soxr);
    free(stream);
}
