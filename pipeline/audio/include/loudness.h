/* SPDX-License-Identifier: GPL-3.0-or-later */
/* loudness.h - the loudness stage: an ITU-R BS.1770 meter (libebur128), a leveler (gain and a
 * true-peak limiter) that keeps the sample count, a plan that turns a measurement into the
 * leveler's settings, and an after-encoding measurement of an MP3 file (libmpg123): every
 * loudness and peak a render reports is the decoded file's.
 * One file each: true_peak.c (the 8x interpolator they share), meter.c, leveler.c, plan.c,
 * peak_map.c (the MP3 measurements and the peak map).
 *
 * The render uses it in streaming passes over the spool (see docs/loudness.md):
 *   pass 1    re_loudness_meter (in the background) fed with the assembled PCM
 *             -> re_loudness_plan_make
 *   leveling  spool -> re_leveler -> re_loudness_meter and a new spool, again while
 *             re_loudness_plan_update(LEVELED) asks (only when the limiter will act)
 *   encoding  the leveled spool -> MP3; decoded once, its loudness metered and its peaks
 *             kept in a peak map (re_loudness_peak_map_mp3_fd); when they pass the ceiling,
 *             only the spots found from the map are re-encoded and measured again; leveling
 *             and encoding again while re_loudness_plan_update(DELIVERED) asks (rare: the
 *             encoder drops what was loud above its band, or the peaks pass the ceiling).
 * Nothing holds more than a few chunks of audio.
 *
 * Levels: integrated loudness in LUFS, a mono stream measured as dual mono (EBUR128_DUAL_MONO,
 * 3 LU above plain mono), as Apple Podcasts and ffmpeg's `ebur128=dualmono=true` do. Peaks in
 * dB relative to full scale (int16 32768 = 1.0 = 0 dB). -HUGE_VAL (-inf) means "below every
 * gate" (integrated loudness of silence) or "no signal" (peaks of silence): write it as JSON
 * null, never as a number. */
#ifndef RE_LOUDNESS_H
#define RE_LOUDNESS_H

#include <stddef.h>
#include <stdint.h>

#include "processor.h"
#include "status.h"

#define RE_LOUDNESS_DEFAULT_TARGET -16.0   /* LUFS: Apple Podcasts, -16 +/- 1 */
#define RE_LOUDNESS_DEFAULT_CEILING -1.0   /* dBTP */
/* Accepted by the plan (and the range the CLI should enforce for --loudness, --true-peak). */
#define RE_LOUDNESS_TARGET_MIN -40.0
#define RE_LOUDNESS_TARGET_MAX -5.0
#define RE_LOUDNESS_CEILING_MIN -20.0
#define RE_LOUDNESS_CEILING_MAX 0.0
/* LAME 3.100 decodes 0.45 dB quieter than its input (measured: a steady tone loses 0.446 dB at
 * every rate from 16 to 48 kHz, every bitrate, every level, mono and stereo; speech 0.42..0.46
 * LU), so the leveler aims that much louder than the target. It also keeps nothing in the top
 * scale-factor band at 22050 Hz (above 9.99 kHz) nor above its low-pass (20.5 kHz at 44100 Hz
 * and 96 kbps): what was loud there is not in the file, which the delivered measurement finds
 * and the plan corrects (docs/loudness.md). */
#define RE_LOUDNESS_MP3_LEVEL_DB -0.45
/* How far below the ceiling the limiter aims before encoding: encoding noise raises true peaks
 * above the (0.45 dB lower) decoded level by up to about 0.6 dB on speech (docs/loudness.md). */
#define RE_LOUDNESS_MP3_MARGIN_DB 0.3
/* For PCM output (WAV): the limiter's estimate against an independent 192 kHz meter. */
#define RE_LOUDNESS_PCM_MARGIN_DB 0.1
/* The plan never amplifies by more than this (a near-silent input would only get louder hiss),
 * and never adds more than RE_LOUDNESS_MAX_EXTRA_GAIN_DB to make up for what the limiter takes. */
#define RE_LOUDNESS_MAX_GAIN_DB 40.0
#define RE_LOUDNESS_MAX_EXTRA_GAIN_DB 6.0
/* A dry run (leveled PCM, before encoding) is accepted within this of its aim... */
#define RE_LOUDNESS_LEVELED_TOLERANCE_LU 0.1
/* ... and the delivered file within this of the target (half the +/- 1 LU Apple allows, so an
 * independent meter agrees with room to spare). */
#define RE_LOUDNESS_TOLERANCE_LU 0.5
/* The first dry run's gain adds this times over^2, `over` being how far (dB) pass 1's peaks
 * plus the gain would pass the limiter's ceiling: about half of what the limiter was measured
 * to take from espeak-ng voices (docs/loudness.md). */
#define RE_LOUDNESS_LIMITER_LOSS_PER_DB2 0.014
#define RE_LOUDNESS_MAX_DRY_RUNS 4     /* leveler + meter passes before encoding */
#define RE_LOUDNESS_MAX_ENCODES 3      /* leveler + encoder passes */

typedef struct re_loudness {
    double integrated_lufs;   /* BS.1770-4 gated integrated loudness; -inf below the gates */
    double range_lu;          /* EBU Tech 3342 loudness range; 0 for short or steady input */
    double true_peak_dbtp;    /* 8x oversampled peak (true_peak.c); -inf for digital silence */
    double sample_peak_dbfs;  /* largest |sample|; -inf for digital silence */
    uint64_t frames;          /* frames measured (per channel) */
} re_loudness;

/* ---- The meter ----------------------------------------------------------------------------
 * Life cycle: re_loudness_meter_create -> re_loudness_meter_feed any number of times ->
 * re_loudness_meter_finish (once; feed and finish afterwards return RE_ERR_INVALID) ->
 * re_loudness_meter_free. Memory is bounded (libebur128's histogram mode): it does not grow
 * with the length of the audio. */
typedef struct re_loudness_meter re_loudness_meter;

/* A meter for mono 16-bit audio at `sample_rate` (8000..192000), measured as dual mono.
 * RE_ERR_INVALID for a rate out of range or a NULL out, RE_ERR_NOMEM. */
re_status re_loudness_meter_create(unsigned sample_rate, re_loudness_meter **out);
/* A cheaper meter for planning (pass 1, dry runs): integrated loudness and sample peak, no
 * range (range_lu 0); its true_peak_dbtp is the sample peak plus
 * RE_LOUDNESS_PLANNING_PEAK_MARGIN_DB. The leveler finds true peaks itself, and the delivered
 * file's loudness, range and peaks are measured after encoding. */
re_status re_loudness_meter_create_planning(unsigned sample_rate, re_loudness_meter **out);
#define RE_LOUDNESS_PLANNING_PEAK_MARGIN_DB 0.5
re_status re_loudness_meter_feed(re_loudness_meter *m, const int16_t *pcm, size_t frames);
/* From now on, feed only copies the audio into a bounded queue (8 x 16384 samples; it waits
 * when that is full) and a thread of the meter's own meters it: for a caller with other
 * work on its one thread (the render's assembly while it speaks). Call before the first
 * feed; finish and free wait for the thread. RE_ERR_INVALID after a feed, RE_ERR_NOMEM. */
re_status re_loudness_meter_in_background(re_loudness_meter *m);
re_status re_loudness_meter_finish(re_loudness_meter *m, re_loudness *out);
void re_loudness_meter_free(re_loudness_meter *m);    /* NULL is allowed */

/* ---- The leveler: gain, then a look-ahead true-peak limiter ------------------------------
 * Output sample i is input sample i times the gain times the limiter's gain at i: the
 * look-ahead is compensated, so the stream keeps its length and timing exactly. The limiter
 * estimates inter-sample peaks (8x oversampling) and never lets them pass the ceiling; its
 * gain falls as a linear 5 ms ramp that ends on the peak, holds 20 ms (no pumping between
 * pitch pulses) and recovers with a 100 ms time constant; it never clips. Deterministic: no
 * dither, fixed rounding; the same input, settings and build give the same samples whatever
 * the chunking.
 *
 * Life cycle: re_leveler_create -> re_leveler_process any number of times ->
 * re_leveler_flush (once) -> re_leveler_free. Across all calls, frames out == frames in. */
typedef struct re_leveler re_leveler;

/* gain_db in -RE_LOUDNESS_MAX_GAIN_DB..+RE_LOUDNESS_MAX_GAIN_DB, ceiling_dbtp in
 * RE_LOUDNESS_CEILING_MIN..RE_LOUDNESS_CEILING_MAX (finite), sample_rate 8000..192000;
 * otherwise RE_ERR_INVALID. */
re_status re_leveler_create(unsigned sample_rate, double gain_db, double ceiling_dbtp,
                            re_leveler **out);
/* Frames the leveler holds back (about 5.3 ms at 22050 Hz); constant for its life. */
size_t re_leveler_latency(const re_leveler *lv);
/* Consumes `frames` input samples and writes *got <= frames output samples to `out` (which
 * must hold `frames`; it may not overlap `in`). *got is 0 until the look-ahead has filled, then
 * equals frames. RE_ERR_INVALID after flush or for NULL pointers. */
re_status re_leveler_process(re_leveler *lv, const int16_t *in, size_t frames, int16_t *out,
                             size_t *got);
/* Writes the held-back samples (*got <= re_leveler_latency, which `out` must hold). */
re_status re_leveler_flush(re_leveler *lv, int16_t *out, size_t *got);
/* The leveler as a processor (processor.h) for the spool pass; lv stays the caller's. */
re_processor re_leveler_processor(re_leveler *lv);

typedef struct re_leveler_stats {
    double max_reduction_db;  /* deepest limiter gain reduction, >= 0 (0: never limited) */
    uint64_t limited_frames;  /* output frames the limiter turned down by more than 0.01 dB */
} re_leveler_stats;
void re_leveler_get_stats(const re_leveler *lv, re_leveler_stats *out);
void re_leveler_free(re_leveler *lv);                  /* NULL is allowed */

/* ---- The plan ---------------------------------------------------------------------------
 * Turns the pass-1 measurement into the leveler's settings, then corrects them from
 * measurements of what came out. The limiter takes loudness away where it acts (up to 1.4 LU
 * on the peakiest espeak-ng voices), which pass 1 cannot know: when the limiter will act, dry
 * runs (leveler -> meter, no encoding, about 115 ms of CPU per minute of audio against 245 for
 * LAME) find the gain first.
 *
 *   re_loudness_plan_make(&pass1, target, ceiling, RE_LOUDNESS_MP3, &plan);
 *   if (re_loudness_plan_limits(&plan))
 *       do { rewind; leveler(plan) -> meter -> &leveled; }
 *       while (re_loudness_plan_update(&plan, &leveled, RE_LOUDNESS_LEVELED));
 *   do { rewind; leveler(plan) -> encoder -> file; re_loudness_measure_mp3_fd -> &delivered; }
 *   while (re_loudness_plan_update(&plan, &delivered, RE_LOUDNESS_DELIVERED));
 *   plan.met: 1 if the target and ceiling hold; the sidecar records `delivered` either way. */
typedef enum re_loudness_output {
    RE_LOUDNESS_PCM,   /* the leveled samples are the output (WAV) */
    RE_LOUDNESS_MP3    /* they go through LAME: aim RE_LOUDNESS_MP3_LEVEL_DB and margin */
} re_loudness_output;

typedef enum re_loudness_stage {
    RE_LOUDNESS_LEVELED,    /* a measurement of the leveler's output before encoding */
    RE_LOUDNESS_DELIVERED   /* a measurement of the output file (decoded MP3, or the PCM) */
} re_loudness_stage;

typedef struct re_loudness_plan {
    double target_lufs;           /* what the delivered file should measure */
    double ceiling_dbtp;          /* what its true peak must not exceed */
    double gain_db;               /* for re_leveler_create */
    double limiter_ceiling_dbtp;  /* for re_leveler_create */
    double leveled_aim_lufs;      /* what the leveler's output should measure */
    double pass1_true_peak_dbtp;
    double first_gain_db;         /* target - pass-1 loudness (+ codec level) */
    unsigned dry_runs, encodes;   /* updates received, per stage */
    int met;                      /* set by update: the last delivered measurement is in spec */
    /* the last measurement, for a secant step */
    int have_last;
    double last_gain_db, last_residual_lu;
    /* how far the first encode decoded under the target when it was off (>= 0): what the
     * encoder dropped, which the gain may make up beyond RE_LOUDNESS_MAX_EXTRA_GAIN_DB */
    double delivered_shortfall_lu;
} re_loudness_plan;

/* gain = aim - pass-1 integrated loudness (0 when the input is below the gates; clamped to
 * +/- RE_LOUDNESS_MAX_GAIN_DB), limiter ceiling = ceiling - the output's margin. RE_ERR_INVALID
 * for a target or ceiling outside the RE_LOUDNESS_*_MIN/MAX ranges or not finite. */
re_status re_loudness_plan_make(const re_loudness *pass1, double target_lufs,
                                double ceiling_dbtp, re_loudness_output output,
                                re_loudness_plan *out);
/* 1 when the limiter is expected to act (pass-1 true peak + gain comes within 0.3 dB of the
 * limiter ceiling), i.e. when dry runs are worth their cost. */
int re_loudness_plan_limits(const re_loudness_plan *plan);
/* Judges a measurement and returns 1 with the plan updated for one more pass, or 0 to stop.
 * LEVELED: accepted within RE_LOUDNESS_LEVELED_TOLERANCE_LU of leveled_aim_lufs; otherwise the
 * gain moves by a secant step (never more than RE_LOUDNESS_MAX_EXTRA_GAIN_DB above the first
 * gain); at most RE_LOUDNESS_MAX_DRY_RUNS. DELIVERED (the decoded file's measurement): sets
 * plan->met when the loudness is within RE_LOUDNESS_TOLERANCE_LU of the target (or the audio is
 * below the gates) and the true peak at or below the ceiling; otherwise the gain moves by the
 * loudness error (a secant step through the earlier encodes' measurements only; the first
 * encode's shortfall widens the cap on extra gain, since the encoder, not the limiter, took it)
 * and, when the peak is over, the limiter ceiling drops by the overshoot plus 0.3 dB; at most
 * RE_LOUDNESS_MAX_ENCODES encodes, after which it returns 0 with met == 0 (keep the file; the
 * CLI warns). */
int re_loudness_plan_update(re_loudness_plan *plan, const re_loudness *measured,
                            re_loudness_stage stage);

/* ---- After encoding ------------------------------------------------------------------------
 * Decodes an MP3 with libmpg123 (gapless: the LAME tag's delay and padding are removed, as
 * ffmpeg does) to 32-bit float, so overshoots above full scale are measured rather than
 * clipped, and meters it (mono as dual mono, stereo as left/right). out->frames is the decoded
 * length. RE_ERR_READ if the file cannot be read, RE_ERR_FORMAT if it is not an MP3, each with
 * a message naming the path in diag (may be NULL). */
re_status re_loudness_measure_mp3(const char *path, re_loudness *out, re_diagnostics *diag);
/* The same for an open file: reads it with pread from offset 0 to its end and leaves the file
 * offset alone, so it works on a stream the render is still holding (fflush it first). Its
 * messages have no file: the caller places them (re_diag_place). */
re_status re_loudness_measure_mp3_fd(int fd, re_loudness *out, re_diagnostics *diag);
/* The same values measured as the render measures what it encoded: a mono MP3 of 2^20 samples
 * or more in two halves at once (re_loudness_peak_map_mp3_fd, without keeping the map). The
 * peaks are one decoder's to within float rounding; the loudness is one meter's but for the
 * filter's first milliseconds in one gating block and one short-term block (peak_map.c). */
re_status re_loudness_peaks_mp3_fd(int fd, re_loudness *out, re_diagnostics *diag);

/* Where an open mono MP3's decoded true peak passes ceiling_dbtp (for the local true-peak retry):
 * spots of gapless sample positions [first, last) that hold every interval over it (to within
 * 64 + 16 samples before), spots under 0.1 s apart merged, with the largest peak of each.
 * Writes at most `capacity`; *count is how many there are (more than capacity: some left
 * out). One decoder from the start; the file offset is left alone. */
typedef struct re_loudness_spot {
    uint64_t first, last;
    double peak_dbtp;
} re_loudness_spot;
re_status re_loudness_overshoots_mp3_fd(int fd, double ceiling_dbtp, re_loudness_spot *spots,
                                        size_t capacity, size_t *count, re_diagnostics *diag);

/* ---- A peak map: the encoded file's peaks per tile (the local true-peak retry) ----------
 * The render decodes its MP3 once: re_loudness_peak_map_mp3_fd measures its loudness and peaks
 * as re_loudness_peaks_mp3_fd does (the same values: the largest tile is the file's peak) and
 * keeps the peaks per tile of RE_LOUDNESS_TILE samples (0.84 s at 22050 Hz; 2.4 KiB per hour).
 * After frames of the file were replaced (re_mp3_patch_fd), re_loudness_peak_map_update_mp3_fd
 * decodes again only the tiles around them for the peaks, and the whole file (in halves,
 * without the peak finder) for its loudness. A file too short to be measured in halves (under
 * about 48 s at 22050 Hz) gets no map (tiles 0): an update then measures the whole file.
 * Exactness: a decoder that starts in the middle of a file (a half, an update) gives the
 * samples of one decoder from the start to within float rounding (libmpg123's synthesis ring
 * restarts at another position: up to about 1e-7 of full scale apart), so these peaks may
 * differ from one whole decode's in the 7th digit, as re_loudness_peaks_mp3_fd's do. The
 * overshoot search, whose spots set the local retry's gains (bytes of the file), is only ever
 * made by a decoder from the file's start.
 * Life cycle: zero the map, re_loudness_peak_map_mp3_fd, any number of updates,
 * re_loudness_peak_map_free (which zeroes it again). The file must not change between calls
 * except in the frames an update names. */
#define RE_LOUDNESS_TILE 18432   /* samples: 32 MPEG-2 frames, 16 MPEG-1 frames */

typedef struct re_loudness_peak_map {
    uint64_t frames;                   /* decoded samples */
    long rate;
    unsigned spf;                      /* samples per MPEG frame */
    size_t tiles;                      /* tile k: the intervals measured when samples
                                        * [k, k + 1) x RE_LOUDNESS_TILE came in */
    float *tile_true, *tile_sample;    /* linear peaks per tile */
    double integrated_lufs, range_lu;  /* of the whole file, as re_loudness reports them */
} re_loudness_peak_map;

/* re_loudness_peaks_mp3_fd into *out, and the map (tiles 0 for a short file). The map must
 * be zeroed or hold an earlier map (freed first). RE_ERR_NOMEM besides its failures. */
re_status re_loudness_peak_map_mp3_fd(int fd, re_loudness_peak_map *map, re_loudness *out,
                                      re_diagnostics *diag);
/* re_loudness_peak_map_mp3_fd, and the spots re_loudness_overshoots_mp3_fd(fd, ceiling_dbtp,
 * spots, capacity, count) finds, from the same decode where that is exact: the first half's
 * decoder starts at the file's start, so it searches as the whole search does, and goes on
 * alone through the second half only when a tile there comes within rounding of the ceiling.
 * Without a map (a short file), the whole search runs when the peak passes the ceiling, and
 * *count is 0 when it does not. Costs a search's spot finder beside the first half's decode:
 * a few per cent of it. */
re_status re_loudness_peak_map_spots_mp3_fd(int fd, re_loudness_peak_map *map, re_loudness *out,
                                            double ceiling_dbtp, re_loudness_spot *spots,
                                            size_t capacity, size_t *count, re_diagnostics *diag);
/* After the file's MPEG audio frames [frames[k][0], frames[k][1]) (counted after the LAME tag
 * frame; count ranges, each non-empty) were replaced by frames of the same sizes: the tiles
 * they and the frames around them reach are measured again, the whole file's loudness too,
 * and *out is the whole file's measurement. Without a map, or when a decode fails, the whole
 * file is measured again (re_loudness_peak_map_mp3_fd). */
re_status re_loudness_peak_map_update_mp3_fd(int fd, re_loudness_peak_map *map,
                                             const uint64_t (*frames)[2], size_t count,
                                             re_loudness *out, re_diagnostics *diag);
void re_loudness_peak_map_free(re_loudness_peak_map *map);   /* NULL is allowed */

#endif
