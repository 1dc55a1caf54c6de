/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gain_window.c - a ramped gain over a window of samples (see gain_window.h). */
#include "gain_window.h"

#include <math.h>

void re_gain_window_init(re_gain_window *window, uint64_t frames, uint64_t ramp, double db)
{
    *window = (re_gain_window){ .frames = frames, .ramp = ramp, .gain = pow(10.0, db / 20.0) };
}

static size_t window_latency(const void *self)
{
    (void)self;
    return 0;
}

static re_status window_process(void *self, const int16_t *in, size_t frames, int16_t *out,
                                size_t *got)
{
    re_gain_window *w = self;
    *got = 0;
    if (frames > w->frames - w->at)
        return RE_ERR_INVALID;
    uint64_t n = w->frames, ramp = w->ramp;
    for (size_t k = 0; k < frames; k++) {
        uint64_t i = w->at + k;
        double weight = 1.0;
        if (ramp > 0 && i < ramp)
            weight = (double)(i + 1) / (double)(ramp + 1);
        else if (ramp > 0 && n - i <= ramp)
            weight = (double)(n - i) / (double)(ramp + 1);
        double y = nearbyint((double)in[k] * (1.0 + (w->gain - 1.0) * weight));
        out[k] = (int16_t)(y > 32767 ? 32767 : y < -32768 ? -32768 : (long)y);
    }
    w->at += frames;
    *got = frames;
    return RE_OK;
}

static re_status window_flush(void *self, int16_t *out, size_t *got)
{
    (void)self;
    (void)out;
    *got = 0;
    return RE_OK;
}

re_processor re_gain_window_processor(re_gain_window *window)
{
    return (re_processor){ "gain window", window, window_latency, window_process, window_flush };
}
