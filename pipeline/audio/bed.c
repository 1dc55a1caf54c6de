/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bed.c - the music bed mixer (see bed.h): loop or cut, gain, sidechain duck, fades. */
#include "bed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


struct re_bed {
    const int16_t *bed;
    size_t bed_frames;
    uint64_t episode_frames;
    int looping;             /* the episode is longer than the bed */
    size_t period;           /* a loop's length: the bed less the crossfade */
    size_t crossfade;        /* frames of each loop point's crossfade */
    double *head;            /* the crossfaded start of every pass after the first */
    double gain;             /* linear */
    double scale;            /* the headroom, linear; 1: none (the sum stays exact) */
    double duck_db;
    /* The attenuation is duck_db * depth / full: depth is a whole number from 0 to full =
     * attack frames * release frames, so both ramps are whole steps of it and take exactly
     * their time. */
    int64_t full, attack_step, release_step;
    uint64_t hold;           /* frames after the last speech sample */
    uint64_t fade;
    int threshold;           /* |speech sample| that counts as speech */
    /* the look-ahead: the last `lookahead` speech samples, a ring */
    int16_t *ring;
    size_t lookahead;
    uint64_t fed, emitted;   /* speech samples in, mixed samples out */
    int have_key;
    uint64_t last_key;       /* index of the last speech sample at or over the threshold */
    int64_t depth;           /* now */
    int64_t cached_depth;
    double cached_factor;
    size_t pass_pos;         /* where bed(t) is within its pass (see bed_at) */
    unsigned passes;
    int flushed;
    re_bed_stats stats;
};

static uint64_t ms_frames(unsigned ms, unsigned rate)
{
    return ((uint64_t)ms * rate + 500) / 1000;
}

re_status re_bed_create(const int16_t *bed, size_t bed_frames, unsigned sample_rate,
                        uint64_t episode_frames, const re_bed_settings *s, re_bed **out)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = NULL;
    if (!bed || bed_frames == 0 || !s || sample_rate < 8000 || sample_rate > 192000
        || !(s->gain_db >= -RE_BED_MAX_GAIN_DB && s->gain_db <= RE_BED_MAX_GAIN_DB)
        || !(s->duck_db >= 0 && s->duck_db <= RE_BED_DUCK_MAX_DB)
        || !(s->headroom_db >= 0 && s->headroom_db <= RE_BED_MAX_HEADROOM_DB))
        return RE_ERR_INVALID;
    re_bed *m = calloc(1, sizeof *m);
    if (!m)
        return RE_ERR_NOMEM;
    m->bed = bed;
    m->bed_frames = bed_frames;
    m->episode_frames = episode_frames;
    m->looping = episode_frames > bed_frames;
    m->gain = pow(10.0, s->gain_db / 20.0);
    m->scale = s->headroom_db > 0 ? pow(10.0, -s->headroom_db / 20.0) : 1.0;
    m->duck_db = s->duck_db;
    uint64_t attack = ms_frames(RE_BED_ATTACK_MS, sample_rate);
    uint64_t release = ms_frames(RE_BED_RELEASE_MS, sample_rate);
    m->full = s->duck_db > 0 ? (int64_t)(attack * release) : 0;
    m->attack_step = (int64_t)release;   /* down in `attack` frames */
    m->release_step = (int64_t)attack;   /* up in `release` frames */
    m->hold = ms_frames(RE_BED_HOLD_MS, sample_rate);
    m->fade = s->fade_frames;
    m->threshold = (int)ceil(32768.0 * pow(10.0, RE_BED_THRESHOLD_DBFS / 20.0));
    m->lookahead = (size_t)ms_frames(RE_BED_LOOKAHEAD_MS, sample_rate);
    m->cached_depth = 0;
    m->cached_factor = 1.0;
    m->ring = malloc(m->lookahead * sizeof *m->ring);
    if (!m->ring) {
        re_bed_free(m);
        return RE_ERR_NOMEM;
    }
    m->crossfade = m->looping ? (size_t)ms_frames(RE_BED_LOOP_CROSSFADE_MS, sample_rate) : 0;
    if (m->crossfade > bed_frames / 4)
        m->crossfade = bed_frames / 4;
    m->period = bed_frames - m->crossfade;
    if (m->crossfade) {
        m->head = malloc(m->crossfade * sizeof *m->head);
        if (!m->head) {
            re_bed_free(m);
            return RE_ERR_NOMEM;
        }
        /* equal power: the two passes are unrelated sound, so their powers add */
        for (size_t i = 0; i < m->crossfade; i++) {
            double x = M_PI / 2 * ((double)i + 0.5) / (double)m->crossfade;
            m->head[i] = bed[m->period + i] * cos(x) + bed[i] * sin(x);
        }
    }
    *out = m;
    return RE_OK;
}

size_t re_bed_latency(const re_bed *m)
{
    return m ? m->lookahead : 0;
}

/* The bed's sample at the next output position; moves on. */
static double bed_next(re_bed *m)
{
    if (!m->looping)
        return m->bed[m->pass_pos++];
    double v = m->passes > 0 && m->pass_pos < m->crossfade ? m->head[m->pass_pos]
                                                          : m->bed[m->pass_pos];
    if (++m->pass_pos == m->period) {
        m->pass_pos = 0;
        m->passes++;
    }
    return v;
}

static double fade_at(const re_bed *m, uint64_t t)
{
    double f = 1.0;
    if (m->fade == 0)
        return f;
    if (t < m->fade)
        f = (double)t / (double)m->fade;
    uint64_t to_end = m->episode_frames - 1 - t;
    if (to_end < m->fade && (double)to_end / (double)m->fade < f)
        f = (double)to_end / (double)m->fade;
    return f;
}

/* One output sample at position m->emitted, the speech sample `speech` under it. */
static int16_t mix_one(re_bed *m, int16_t speech)
{
    uint64_t t = m->emitted++;
    int64_t target = m->have_key && m->last_key + m->hold >= t ? m->full : 0;
    if (m->depth < target)
        m->depth = m->depth + m->attack_step < target ? m->depth + m->attack_step : target;
    else if (m->depth > target)
        m->depth = m->depth - m->release_step > target ? m->depth - m->release_step : target;
    if (m->depth != m->cached_depth) {
        m->cached_depth = m->depth;
        m->cached_factor = exp(m->duck_db * (double)m->depth / (double)m->full * (-M_LN10 / 20.0));
    }
    if (m->full > 0 && m->depth == m->full)
        m->stats.ducked_frames++;
    double bed = bed_next(m) * (m->gain * m->cached_factor * fade_at(m, t));
    /* rounded half away from zero, by hand: the libm call cost a tenth of the mix */
    long y;
    if (m->scale == 1.0) {
        y = (long)speech + (long)(bed >= 0 ? bed + 0.5 : bed - 0.5);
    } else {
        double sum = ((double)speech + bed) * m->scale;
        y = (long)(sum >= 0 ? sum + 0.5 : sum - 0.5);
    }
    if (y > 32767 || y < -32768) {
        double size = fabs((double)speech + bed);
        if (size > m->stats.peak)
            m->stats.peak = size;
        m->stats.clipped++;
        return y > 0 ? 32767 : -32768;
    }
    return (int16_t)y;
}

/* Takes one speech sample into the look-ahead; returns 1 with *out set when a mixed sample
 * comes out. */
static int step(re_bed *m, int16_t speech, int16_t *out)
{
    uint64_t i = m->fed++;
    if (abs(speech) >= m->threshold) {
        m->have_key = 1;
        m->last_key = i;
    }
    if (m->lookahead == 0) {
        *out = mix_one(m, speech);
        return 1;
    }
    size_t slot = (size_t)(i % m->lookahead);
    int emit = i >= m->lookahead;
    if (emit)
        *out = mix_one(m, m->ring[slot]);
    m->ring[slot] = speech;
    return emit;
}

re_status re_bed_process(re_bed *m, const int16_t *speech, size_t frames, int16_t *out,
                         size_t *got)
{
    if (!m || (!speech && frames) || (!out && frames) || !got || m->flushed
        || frames > m->episode_frames - m->fed)
        return RE_ERR_INVALID;
    size_t n = 0;
    for (size_t k = 0; k < frames; k++)
        n += (size_t)step(m, speech[k], out + n);
    *got = n;
    return RE_OK;
}

re_status re_bed_flush(re_bed *m, int16_t *out, size_t *got)
{
    if (!m || !out || !got || m->flushed)
        return RE_ERR_INVALID;
    m->flushed = 1;
    size_t n = 0;
    while (m->emitted < m->fed) {   /* the look-ahead now sees silence */
        uint64_t t = m->emitted;
        out[n++] = mix_one(m, m->ring[(size_t)(t % m->lookahead)]);
    }
    *got = n;
    return RE_OK;
}

static size_t bed_latency(const void *self)
{
    return re_bed_latency(self);
}

static re_status bed_process(void *self, const int16_t *in, size_t frames, int16_t *out,
                             size_t *got)
{
    return re_bed_process(self, in, frames, out, got);
}

static re_status bed_flush(void *self, int16_t *out, size_t *got)
{
    return re_bed_flush(self, out, got);
}

re_processor re_bed_processor(re_bed *m)
{
    return (re_processor){ "bed", m, bed_latency, bed_process, bed_flush };
}

void re_bed_get_stats(const re_bed *m, re_bed_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!m)
        return;
    *out = m->stats;
    out->loops = m->passes;
}

void re_bed_free(re_bed *m)
{
    if (!m)
        return;
    free(m->head);
    free(m->ring);
    free(m);
}
