/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bed.h - the music bed (docs/loudness.md, "A music bed"): a sound looped or cut to the
 * episode's length, at a fixed gain, ducked under speech by a sidechain on the speech itself,
 * faded in at the start and out at the end, and added to the speech. Streaming: the mixer
 * holds the bed (borrowed) and a look-ahead of speech, never the episode.
 *
 * Output sample t = speech[t] + round(bed(t) * gain * duck(t) * fade(t)) (half away from zero),
 * saturated to int16 (counted in re_bed_stats.clipped); with a headroom h dB it is
 * round((speech[t] + bed(t) * gain * duck(t) * fade(t)) * 10^(-h/20)) instead. Everything is computed per sample from integers and the
 * settings, in a fixed order: the same input and settings give the same samples whatever the
 * chunking, on every run.
 *
 * bed(t): the bed's samples from its start. A bed at least as long as the episode is cut at
 * the episode's end. A shorter one is looped, with an equal-power crossfade of
 * RE_BED_LOOP_CROSSFADE_MS (at most a quarter of the bed) at each loop point: the next pass
 * starts that long before the bed ends, so a bed whose end does not meet its start does not
 * click. The first pass starts with the bed's own first sample.
 *
 * duck(t): the sidechain. A speech sample at or above RE_BED_THRESHOLD_DBFS (in |sample|) is
 * "speech". The bed's attenuation (in dB, 0 or `duck_db`) follows it:
 *   - attack: the ramp down starts RE_BED_LOOKAHEAD_MS before the first speech sample and
 *     reaches duck_db after RE_BED_ATTACK_MS, linear in dB (so the bed is all the way down
 *     10 ms before speech starts: the mixer reads speech ahead, as the leveler does);
 *   - hold: it stays down until RE_BED_HOLD_MS after the last speech sample (a sentence or
 *     paragraph pause shorter than that does not let the bed swell up between sentences);
 *   - release: then it rises back to 0 dB over RE_BED_RELEASE_MS, linear in dB.
 * The ramps move in equal steps counted in integers, so each takes exactly its time.
 *
 * fade(t): linear in amplitude from 0 at the first sample to 1 after `fade_frames`, and from
 * 1 down to 0 at the episode's last sample over the last `fade_frames` (the smaller factor
 * where the two overlap).
 *
 * Life cycle: re_bed_create -> re_bed_process any number of times -> re_bed_flush (once) ->
 * re_bed_free. Across all calls frames out == frames in, and the caller feeds exactly
 * `episode_frames` (the bed is laid out for that length). */
#ifndef RE_BED_H
#define RE_BED_H

#include <stddef.h>
#include <stdint.h>

#include "processor.h"
#include "status.h"

#define RE_BED_THRESHOLD_DBFS -45.0
#define RE_BED_LOOKAHEAD_MS 50
#define RE_BED_ATTACK_MS 40
#define RE_BED_HOLD_MS 500
#define RE_BED_RELEASE_MS 800
#define RE_BED_LOOP_CROSSFADE_MS 500
/* Front-matter ranges and defaults (docs/script-format.md). */
#define RE_BED_DEFAULT_LEVEL_LUFS -24.0
#define RE_BED_LEVEL_MIN_LUFS -60.0
#define RE_BED_LEVEL_MAX_LUFS -5.0
#define RE_BED_DEFAULT_DUCK_DB 12.0
#define RE_BED_DUCK_MAX_DB 60.0
#define RE_BED_DEFAULT_FADE_US 2000000ULL
#define RE_BED_FADE_MAX_US 60000000ULL
/* The largest gain the bed may be given (a near-silent bed would only bring up its hiss). */
#define RE_BED_MAX_GAIN_DB 40.0
#define RE_BED_MAX_HEADROOM_DB 60.0

typedef struct re_bed_settings {
    double gain_db;          /* the bed's gain in the mix, -RE_BED_MAX_GAIN_DB..RE_BED_MAX_GAIN_DB */
    double duck_db;          /* how far it goes down under speech, 0..RE_BED_DUCK_MAX_DB */
    uint64_t fade_frames;    /* fade in and fade out, each; 0: none */
    double headroom_db;      /* 0..RE_BED_MAX_HEADROOM_DB: the whole mix (speech and bed) is
                              * lowered by this, for a caller that normalizes it afterwards and
                              * would rather not have it saturate (re_bed_stats.peak) */
} re_bed_settings;

typedef struct re_bed re_bed;

/* A mixer for an episode of `episode_frames` at `sample_rate` (8000..192000), laying out
 * bed[0..bed_frames) (mono at that rate, borrowed: it must outlive the mixer; at least one
 * frame). RE_ERR_INVALID for settings out of range or NULL pointers, RE_ERR_NOMEM. */
re_status re_bed_create(const int16_t *bed, size_t bed_frames, unsigned sample_rate,
                        uint64_t episode_frames, const re_bed_settings *settings, re_bed **out);

/* Frames the mixer holds back (the look-ahead); constant for its life. */
size_t re_bed_latency(const re_bed *mixer);

/* Consumes `frames` speech samples and writes *got <= frames mixed samples to `out` (which
 * must hold `frames`; it may not overlap `speech`): *got is 0 until the look-ahead has filled,
 * then equals frames. RE_ERR_INVALID after flush, past episode_frames, or for NULL pointers. */
re_status re_bed_process(re_bed *mixer, const int16_t *speech, size_t frames, int16_t *out,
                         size_t *got);

/* Writes the held-back samples (*got <= re_bed_latency, which `out` must hold), as if the
 * speech went on in silence. */
re_status re_bed_flush(re_bed *mixer, int16_t *out, size_t *got);

typedef struct re_bed_stats {
    uint64_t clipped;        /* output samples saturated to int16 */
    uint64_t ducked_frames;  /* output frames with the bed attenuated by the full duck */
    unsigned loops;          /* times the bed started again (0: cut, or just long enough) */
    double peak;             /* the largest |speech + bed| (before headroom and rounding) of
                              * the saturated samples, 0 when none: a headroom of
                              * 20 log10(peak / 32767) dB would not have saturated any */
} re_bed_stats;
void re_bed_get_stats(const re_bed *mixer, re_bed_stats *out);

/* The mixer as a processor (processor.h) for the spool pass; mixer stays the caller's. */
re_processor re_bed_processor(re_bed *mixer);

void re_bed_free(re_bed *mixer);   /* NULL is allowed */

#endif
