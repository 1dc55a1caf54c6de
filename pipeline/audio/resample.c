/* resample.c - the one libsoxr recipe (see resample.h). */
#include "resample.h"

#include <string.h>

#include <soxr.h>

int re_rate_supported(unsigned rate)
{
    return rate == 22050 || rate == 44100 || rate == 48000;
}

uint64_t re_resample_length(uint64_t frames, unsigned in_rate, unsigned out_rate)
{
    if (in_rate == out_rate || in_rate == 0)
        return frames;
    return (frames * out_rate + in_rate / 2) / in_rate;
}

/* The recipe, from samples of `in_type` to int16. */
static re_status convert(const void *in, soxr_datatype_t in_type, size_t frames, unsigned in_rate,
                         unsigned out_rate, int16_t *out)
{
    size_t want = (size_t)re_resample_length(frames, in_rate, out_rate);
    /* No dither: soxr's TPDF dither would add noise to what is digital silence around speech. */
    soxr_io_spec_t io = soxr_io_spec(in_type, SOXR_INT16_I);
    io.flags |= SOXR_NO_DITHER;
    soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, SOXR_LINEAR_PHASE);
    soxr_runtime_spec_t runtime = soxr_runtime_spec(1);
    size_t done = 0;
    soxr_error_t error = soxr_oneshot(in_rate, out_rate, 1, in, frames, NULL, out, want, &done,
                                      &io, &quality, &runtime);
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

const char *re_resample_library_version(void)
{
    return soxr_version();
}
