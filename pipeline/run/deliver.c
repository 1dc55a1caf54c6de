/* SPDX-License-Identifier: GPL-3.0-or-later */
/* deliver.c - the delivery handle (deliver.h): mix, level, encode, measure, retry. */
#define _GNU_SOURCE
#include "deliver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "duration.h"
#include "files.h"
#include "gain_window.h"
#include "mp3_parallel.h"
#include "spool_pass.h"

#define LOCAL_SPOTS 16   /* the local retry, below */

struct delivery {
    delivery_settings set;
    re_mp3_encoding encoding;            /* every encode's and local re-encode's */
    char encoder[160];
    int fed, finished;
    re_diagnostics *diag;                /* the current call's */
    re_spool *speech;                    /* fed: the assembled speech (borrowed) */
    re_spool *mixed;                     /* speech with the bed under it */
    re_loudness pass1;                   /* of what is leveled: the speech, or the mix */
    re_loudness_plan plan;               /* when loudness is normalized */
    re_loudness delivered;               /* what the output file gives a listener, measured */
    re_spool *leveled;                   /* the leveled episode being encoded */
    const delivery_file *file;           /* during finish */
    unsigned encodes_whole, encodes_local;
    re_loudness_peak_map peaks;          /* the MP3's peaks per tile, from its one whole decode */
    uint64_t patched[LOCAL_SPOTS][2];    /* the frames the last local retry replaced */
    size_t patched_count;                /* 0: the MP3 was encoded whole since it was measured */
    re_loudness_spot spots[LOCAL_SPOTS]; /* where the MP3 passes the ceiling, when known */
    size_t spot_count;
    int spots_known;                     /* found by the decode of its peaks */
};

static void charge(delivery *d, re_render_step step)
{
    if (d->set.clock)
        step_clock_charge(d->set.clock, step);
}

/* Points what a stage said since `from` (with no file of its own) at the output. */
static re_status place(delivery *d, re_status status, size_t from)
{
    re_diag_place(d->diag, from, d->set.output_path, 0, 0);
    return status;
}

static void report(delivery *d, uint64_t done, uint64_t total)
{
    if (d->set.progress)
        d->set.progress(d->set.progress_context, (size_t)done, (size_t)total);
}

static int stopped(const delivery *d)
{
    return d->set.stop && *d->set.stop;
}

static int is_mp3(const delivery *d)
{
    return d->set.format == DELIVERY_MP3;
}

re_status re_delivery_create(const delivery_settings *settings, delivery **out, re_diagnostics *diag)
{
    *out = NULL;
    if (!settings || (settings->format != DELIVERY_MP3 && settings->format != DELIVERY_WAV))
        return RE_ERR_INVALID;
    delivery *d = calloc(1, sizeof *d);
    if (!d)
        return RE_ERR_NOMEM;
    d->set = *settings;
    d->diag = diag;
    unsigned rate = settings->rate;
    if (settings->format == DELIVERY_WAV) {
        re_wav_describe(rate, d->encoder, sizeof d->encoder);
        *out = d;
        return RE_OK;
    }
    /* The MP3 on every core (mp3_parallel.h): the bytes are the same for any number of
     * encoder threads >= 2, so they never depend on the machine or on -j; --serial-encode
     * keeps LAME's one-encoder path (different bytes, same length and tags). */
    d->encoding = (re_mp3_encoding){ .sample_rate = rate, .settings = settings->mp3,
                                     .workers = settings->serial_encode ? 1
                                                : re_mp3_default_workers(),
                                     .tuning = { .threads = settings->encode_threads },
                                     .stop = settings->stop };
    if (d->encoding.settings.bitrate_kbps == 0)
        d->encoding.settings.bitrate_kbps = re_mp3_default_bitrate(rate);
    size_t from = diag->count;
    re_status status = re_mp3_check_settings(rate, &d->encoding.settings, diag);
    if (status != RE_OK) {
        free(d);
        re_diag_place(diag, from, settings->output_path, 0, 0);
        return status;
    }
    re_mp3_describe(rate, &d->encoding.settings, d->encoder, sizeof d->encoder);
    *out = d;
    return RE_OK;
}

const char *re_delivery_encoder(const delivery *d)
{
    return d->encoder;
}

/* ---- the music bed ---------------------------------------------------------------------- */

/* With a bed, between assembly and leveling: the bed mixed under the speech into d->mixed,
 * whose measurement replaces pass 1's (the speech's on entry): loudness is leveled, encoded
 * and checked on the final mix. */
static re_status mix_music(delivery *d)
{
    episode_mix_settings mix = {
        .rate = d->set.rate, .stop = d->set.stop, .normalized = !d->set.loudness_off,
        .target_lufs = d->set.loudness_off ? RE_LOUDNESS_DEFAULT_TARGET : d->set.loudness_target,
    };
    size_t from = d->diag->count;
    episode_track speech = { d->speech, d->pass1 }, mixed = { NULL, d->pass1 };
    re_status status = re_episode_music_mix(d->set.music, &mix, &speech, &mixed, d->diag);
    d->mixed = mixed.spool;
    d->pass1 = mixed.loudness;
    charge(d, RE_STEP_LEVEL);
    return place(d, status, from);
}

re_status re_delivery_feed(delivery *d, re_spool *speech, const re_loudness *speech_loudness,
                           re_diagnostics *diag)
{
    if (!d || d->fed || !speech || !speech_loudness)
        return RE_ERR_INVALID;
    d->fed = 1;
    d->diag = diag;
    d->speech = speech;
    d->pass1 = *speech_loudness;
    return d->set.music && d->set.music->present ? mix_music(d) : RE_OK;
}

/* ---- leveling ----------------------------------------------------------------------------- */

/* What leveling and encoding read: the assembled speech, or the mix when there is a bed. */
static re_spool *episode_audio(delivery *d)
{
    return d->mixed ? d->mixed : d->speech;
}

/* The episode through a leveler with the plan's settings into a new spool (d->leveled), with
 * its loudness measured when `measured` is given. */
static re_status level_into(delivery *d, re_loudness *measured)
{
    re_leveler *lv = NULL;
    re_spool_free(d->leveled);
    d->leveled = NULL;
    size_t from = d->diag->count;
    unsigned rate = d->set.rate;
    re_status status = re_leveler_create(rate, d->plan.gain_db, d->plan.limiter_ceiling_dbtp,
                                         &lv);
    if (status == RE_OK)
        status = re_spool_create(rate, &d->leveled, d->diag);
    re_processor leveler = re_leveler_processor(lv);
    re_spool_pass pass = { .input = episode_audio(d), .chain = &leveler, .chain_length = 1,
                           .output = d->leveled, .sample_rate = rate, .measured = measured,
                           .stop = d->set.stop };
    if (status == RE_OK)
        status = re_spool_pass_run(&pass, d->diag);
    if (status == RE_OK)   /* a failure here was never reported beyond its status: kept so */
        status = re_spool_finish(d->leveled, NULL);
    re_leveler_free(lv);
    charge(d, RE_STEP_LEVEL);
    return place(d, status, from);
}

/* Pass 1 gives the gain. When the limiter will act it takes some loudness too, which pass 1
 * cannot know: the leveled episode is measured and leveled again with a corrected gain until
 * it is on target (re_loudness_plan_update). Leaves d->leveled. */
static re_status plan_loudness(delivery *d)
{
    re_status status = re_loudness_plan_make(&d->pass1, d->set.loudness_target,
                                             d->set.true_peak,
                                             is_mp3(d) ? RE_LOUDNESS_MP3 : RE_LOUDNESS_PCM,
                                             &d->plan);
    if (status == RE_OK && !re_loudness_plan_limits(&d->plan))
        return level_into(d, NULL);
    re_loudness leveled;
    do
        status = level_into(d, &leveled);
    while (status == RE_OK && re_loudness_plan_update(&d->plan, &leveled, RE_LOUDNESS_LEVELED));
    return status;
}

/* ---- encoding ----------------------------------------------------------------------------- */

static re_status encode_mp3(delivery *d, re_spool *input)
{
    const delivery_file *file = d->file;
    re_mp3_file mp3 = { re_output_stream(file->audio), file->id3_tag, file->id3_len };
    report(d, 0, re_spool_frames(input));
    size_t from = d->diag->count;
    re_status status = re_mp3_encode_fd(&d->encoding,
                                        (re_mp3_pcm){ re_spool_fd(input), re_spool_frames(input) },
                                        &mp3, NULL, d->diag);
    if (status == RE_OK)
        report(d, re_spool_frames(input), re_spool_frames(input));
    if (status != RE_OK && status != RE_ERR_INTERRUPTED && status != RE_ERR_NOMEM
        && d->diag->count == from)
        return re_diag_fail(d->diag, status, d->set.output_path, 0, 0, "%s",
                            re_strerror(status));
    return place(d, status, from);
}

/* The encode's progress in samples, for the WAV writer. */
static void wav_progress(void *context, uint64_t done, uint64_t total)
{
    report(context, done, total);
}

static re_status encode_wav(delivery *d, re_spool *input)
{
    re_wav_writer *wav = NULL;
    size_t from = d->diag->count;
    re_status status = re_wav_writer_create(fileno(re_output_stream(d->file->audio)),
                                            d->set.rate, &d->file->wav_tags, &wav, d->diag);
    re_wav_append how = { .stop = d->set.stop, .progress = wav_progress, .progress_context = d };
    if (status == RE_OK)
        status = re_wav_writer_write_pcm(wav, (re_wav_pcm){ re_spool_fd(input),
                                                            re_spool_frames(input) },
                                         &how, d->diag);
    if (status == RE_OK)
        status = re_wav_writer_finish(wav, d->diag);
    re_wav_writer_free(wav);
    return place(d, status, from);
}

/* ---- the measure ---------------------------------------------------------------------------- */

/* The MP3's loudness and peaks: the whole file decoded once into the peak map after a whole
 * encode; after a local retry the peaks of only the tiles around the frames it replaced, and
 * the loudness of the whole file again. */
static re_status measure_mp3(delivery *d, int fd)
{
    d->spots_known = 0;
    if (d->patched_count == 0 && d->set.loudness_off)
        return re_loudness_peak_map_mp3_fd(fd, &d->peaks, &d->delivered, d->diag);
    if (d->patched_count == 0) {   /* and where it passes the ceiling, for a local retry */
        re_status status = re_loudness_peak_map_spots_mp3_fd(fd, &d->peaks, &d->delivered,
                                                             d->plan.ceiling_dbtp, d->spots,
                                                             LOCAL_SPOTS, &d->spot_count,
                                                             d->diag);
        d->spots_known = status == RE_OK;
        return status;
    }
    re_status status = re_loudness_peak_map_update_mp3_fd(fd, &d->peaks,
                                                          (const uint64_t (*)[2])d->patched,
                                                          d->patched_count, &d->delivered,
                                                          d->diag);
    d->patched_count = 0;
    return status;
}

/* What the listener gets, measured on it: a WAV is the leveled samples; an MP3 is decoded and
 * metered, since encoding changes its peaks, lowers its level and drops what lay above the
 * encoder's band (an insert that was loud there counted for the gain, and is not in the
 * file). */
static re_status measure_delivered(delivery *d, re_spool *input)
{
    size_t from = d->diag->count;
    if (!is_mp3(d))
        return place(d, re_spool_measure(input, d->set.rate, d->set.stop, &d->delivered,
                                         d->diag), from);
    FILE *stream = re_output_stream(d->file->audio);
    re_status status = fflush(stream) == 0 ? RE_OK : RE_ERR_WRITE;
    if (status == RE_OK)
        status = measure_mp3(d, fileno(stream));
    if (status != RE_OK && d->diag->count == from)
        return re_diag_fail(d->diag, status, d->set.output_path, 0, 0,
                            "cannot measure the encoded file's loudness");
    return place(d, status, from);
}

/* ---- the local retry -------------------------------------------------------------------------
 * When only the true peak is over the ceiling (the loudness is on target), the leveled
 * samples are turned down around each spot where the decoded MP3 passes it (by the overshoot
 * plus the 0.3 dB a full retry would take off the limiter's ceiling, flat over the spot and
 * LOCAL_FLAT_S either side, with LOCAL_RAMP_S linear ramps), and only the MP3 frames around
 * those samples are encoded again and spliced in place (re_mp3_patch_fd). Samples elsewhere
 * are untouched, so every other byte of the file stays. --serial-encode keeps its promise
 * of one encoder and re-encodes the whole; so does an episode whose overshoots are more than
 * LOCAL_SPOTS spots, or one where no splice point is found (the fallback). */
#define LOCAL_FLAT_S 0.03
#define LOCAL_RAMP_S 0.01
#define LOCAL_MARGIN_DB 0.3

/* Turns the leveled samples [a, b) by `db`, ramped in and out over `ramp` samples
 * (gain_window.h), in place. */
static re_status turn_window(delivery *d, uint64_t a, uint64_t b, uint64_t ramp, double db)
{
    re_gain_window window;
    re_gain_window_init(&window, b - a, ramp, db);
    re_processor gain = re_gain_window_processor(&window);
    return re_spool_rework(d->leveled, a, b, &gain, NULL);
}

/* [first, last) widened by the flat part and the ramps, within the episode. */
static void local_window(uint64_t first, uint64_t last, unsigned rate, uint64_t frames,
                         uint64_t *a, uint64_t *b, uint64_t *ramp)
{
    uint64_t pad = (uint64_t)((LOCAL_FLAT_S + LOCAL_RAMP_S) * rate);
    *ramp = (uint64_t)(LOCAL_RAMP_S * rate);
    *a = first > pad ? first - pad : 0;
    *b = last + pad < frames ? last + pad : frames;
}

#ifdef RE_TEST_HOOKS
/* Test hook (documented in docs/loudness.md), compiled only into builds with the tests
 * (RE_TEST_HOOKS): RE_TEST_OVERSHOOT="SECONDS:DB" turns the leveled samples within 40 ms of
 * SECONDS up, before the first encode, until their sample peak is DB above the true-peak
 * ceiling (nothing if they are silent), so that a short episode passes the ceiling there and
 * takes the retry. */
static re_status test_overshoot(delivery *d)
{
    const char *hook = getenv("RE_TEST_OVERSHOOT");
    double at_s, db;
    if (!hook || sscanf(hook, "%lf:%lf", &at_s, &db) != 2
        || !(at_s >= 0 && at_s <= (double)RE_EPISODE_MAX_US / 1e6) || !(db > 0 && db <= 6))
        return RE_OK;
    unsigned rate = d->set.rate;
    uint64_t frames = re_spool_frames(d->leveled), t = (uint64_t)(at_s * rate), a, b, ramp;
    if (t >= frames)
        return RE_OK;
    local_window(t, t + 1, rate, frames, &a, &b, &ramp);
    double peak;
    if (re_spool_range_peak(d->leveled, a, b, &peak, NULL) != RE_OK)
        return RE_OK;
    double gain = d->plan.ceiling_dbtp + db - peak;
    if (!isfinite(peak) || !(gain > 0))
        return RE_OK;
    return turn_window(d, a, b, ramp, fmin(gain, 40.0));
}
#else
static re_status test_overshoot(delivery *d)
{
    (void)d;
    return RE_OK;
}
#endif

/* Sets *done when the file now has the spots turned down; leaves it alone (a full retry
 * follows) when the local retry does not apply or cannot be made. */
static re_status retry_locally(delivery *d, int *done)
{
    *done = 0;
    double residual = d->delivered.integrated_lufs - d->plan.target_lufs;
    if (d->set.serial_encode || !is_mp3(d) || fabs(residual) > RE_LOUDNESS_TOLERANCE_LU)
        return RE_OK;
    FILE *stream = re_output_stream(d->file->audio);
    if (fflush(stream) != 0)
        return RE_OK;
    re_loudness_spot found[LOCAL_SPOTS];
    const re_loudness_spot *spots = d->spots;
    size_t count = d->spot_count;
    re_status status = RE_OK;
    if (!d->spots_known) {   /* after a local retry: the whole file searched again */
        spots = found;
        status = re_loudness_overshoots_mp3_fd(fileno(stream), d->plan.ceiling_dbtp, found,
                                               LOCAL_SPOTS, &count, NULL);
    }
    charge(d, RE_STEP_MEASURE);
    if (status == RE_ERR_NOMEM)
        return status;
    if (status != RE_OK || count == 0 || count > LOCAL_SPOTS)
        return RE_OK;
    unsigned rate = d->set.rate;
    uint64_t frames = re_spool_frames(d->leveled);
    uint64_t ranges[LOCAL_SPOTS][2];
    size_t n = 0;
    for (size_t k = 0; k < count && status == RE_OK; k++) {
        uint64_t a, b, ramp;
        local_window(spots[k].first, spots[k].last, rate, frames, &a, &b, &ramp);
        double db = -(spots[k].peak_dbtp - d->plan.ceiling_dbtp + LOCAL_MARGIN_DB);
        if (n > 0 && a < ranges[n - 1][1])
            a = ranges[n - 1][1];     /* spots are 0.1 s apart: the ramps do not meet */
        status = a < b ? turn_window(d, a, b, ramp, db) : RE_OK;
        if (status == RE_OK && n > 0 && a <= ranges[n - 1][1])
            ranges[n - 1][1] = b;
        else if (status == RE_OK && a < b) {
            ranges[n][0] = a;
            ranges[n][1] = b;
            n++;
        }
    }
    charge(d, RE_STEP_LEVEL);
    if (status != RE_OK)
        return status == RE_ERR_NOMEM ? status : RE_OK;
    re_diagnostics said;
    re_diagnostics_init(&said, RE_DIAG_DEFAULT_LIMIT);
    re_mp3_file file = { stream, NULL, d->file->id3_len };
    re_mp3_patch patch = { (const uint64_t (*)[2])ranges, n, d->patched };
    status = re_mp3_patch_fd(&d->encoding, (re_mp3_pcm){ re_spool_fd(d->leveled), frames },
                             &file, &patch, &said);
    re_diagnostics_free(&said);
    charge(d, RE_STEP_ENCODE);
    if (status == RE_OK) {
        *done = 1;
        d->patched_count = n;
    }
    return status == RE_ERR_NOMEM || status == RE_ERR_INTERRUPTED ? status : RE_OK;
}

/* ---- finish ------------------------------------------------------------------------------- */

/* Encodes (after leveling, unless loudness is off), measures what came out, and encodes
 * again with corrected settings while the plan asks for it (rarely; at most 3 times). */
static re_status deliver(delivery *d)
{
    int level = !d->set.loudness_off;
    re_status status = RE_OK;
    if (level)
        status = plan_loudness(d);
    if (status == RE_OK && level && is_mp3(d))
        status = test_overshoot(d);
    int patched = 0;
    for (;;) {
        re_spool *input = level ? d->leveled : episode_audio(d);
        if (status == RE_OK && !patched) {
            status = is_mp3(d) ? encode_mp3(d, input) : encode_wav(d, input);
            d->encodes_whole++;
        }
        charge(d, RE_STEP_ENCODE);
        if (status == RE_OK)
            status = measure_delivered(d, input);
        charge(d, RE_STEP_MEASURE);
        if (status == RE_OK && stopped(d))
            status = RE_ERR_INTERRUPTED;
        if (status != RE_OK || !level || !re_loudness_plan_update(&d->plan, &d->delivered, RE_LOUDNESS_DELIVERED))
            return status;
        status = retry_locally(d, &patched);
        d->encodes_local += (unsigned)patched;
        if (status != RE_OK || patched)
            continue;
        status = re_output_restart(d->file->audio, d->diag);
        if (status != RE_OK)
            return status;
        status = level_into(d, NULL);   /* what counts is measured on the file */
    }
}

re_status re_delivery_finish(delivery *d, const delivery_file *file, delivery_result *result,
                             re_diagnostics *diag)
{
    if (!d || !d->fed || d->finished || !file || !file->audio || !result)
        return RE_ERR_INVALID;
    d->finished = 1;
    d->diag = diag;
    d->file = file;
    re_status status = deliver(d);
    d->file = NULL;
    if (status != RE_OK)
        return status;
    *result = (delivery_result){
        .loudness = d->delivered, .plan = d->plan, .normalized = !d->set.loudness_off,
        .met = d->set.loudness_off || d->plan.met,
        .encodes_whole = d->encodes_whole, .encodes_local = d->encodes_local,
    };
    return RE_OK;
}

void re_delivery_free(delivery *d)
{
    if (!d)
        return;
    re_spool_free(d->leveled);
    re_spool_free(d->mixed);
    re_loudness_peak_map_free(&d->peaks);
    free(d);
}
