/* SPDX-License-Identifier: GPL-3.0-or-later */
/* peak_map.c - after encoding: an MP3 decoded and metered (its loudness, its peaks, where it
 * passes the ceiling) and the peak map the local true-peak retry updates tile by tile (see
 * loudness.h; docs/loudness.md). */
#include "loudness.h"
#include "meter_internal.h"
#include "mp3_decoder.h"
#include "true_peak.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- Decode the MP3 and meter it ---------------------------------------------------------- */

/* Feeds every decoded block to a meter; the format must stay the first frame's. */
typedef struct meter_feed {
    re_loudness_meter *meter;
    long rate;
    int channels;
    re_status status;
    re_diagnostics *diag;
} meter_feed;

static int feed_block(void *user, const re_mp3_block *b)
{
    meter_feed *f = user;
    if (b->new_format) {
        if (b->rate != f->rate || b->channels != f->channels) {
            re_diag_add(f->diag, NULL, 0, 0, "the MP3 changes its sample rate or channels midway");
            f->status = RE_ERR_FORMAT;
        }
    } else {
        f->status = re_meter_feed_float(f->meter, (const float *)(const void *)b->pcm,
                                     b->bytes / (sizeof(float) * (size_t)f->channels));
    }
    return f->status != RE_OK;
}

/* A float decoder of the MP3 open on fd, read from its start. */
static re_status open_mp3_fd(int fd, re_mp3_reader **r, re_diagnostics *diag)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        re_diag_add(diag, NULL, 0, 0, "cannot read the MP3: %s", strerror(errno));
        return RE_ERR_READ;
    }
    return re_mp3_reader_open(fd, st.st_size, RE_MP3_FLOAT, 0, r, diag);
}

static re_status decode_into_meter(re_mp3_reader *r, re_loudness *out, re_diagnostics *diag)
{
    re_mp3_format fmt;
    re_mp3_format_problem problem = re_mp3_reader_format(r, &fmt);
    if (problem == RE_MP3_NO_FRAME && re_mp3_reader_read_errno(r)) {
        re_diag_add(diag, NULL, 0, 0, "cannot read the MP3: %s",
                    strerror(re_mp3_reader_read_errno(r)));
        return RE_ERR_READ;
    }
    if (problem == RE_MP3_NO_FRAME || problem == RE_MP3_NO_INFO || problem == RE_MP3_NOT_LAYER3) {
        re_diag_add(diag, NULL, 0, 0, "not an MP3: no MPEG audio layer III frame found");
        return RE_ERR_FORMAT;
    }
    if (problem != RE_MP3_FORMAT_OK) {
        re_diag_add(diag, NULL, 0, 0, "not an MP3: unusable output format");
        return RE_ERR_FORMAT;
    }
    re_loudness_meter *m = NULL;
    re_status status = re_meter_create_kind((unsigned)fmt.rate, (unsigned)fmt.channels,
                                            METER_FULL, &m);
    if (status != RE_OK) {
        re_diag_add(diag, NULL, 0, 0, "cannot meter %ld Hz audio", fmt.rate);
        return status;
    }
    meter_feed feed = { m, fmt.rate, fmt.channels, RE_OK, diag };
    if (re_mp3_reader_each(r, feed_block, &feed) == RE_MP3_END_ERROR) {
        if (re_mp3_reader_read_errno(r)) {
            re_diag_add(diag, NULL, 0, 0, "cannot read the MP3: %s",
                        strerror(re_mp3_reader_read_errno(r)));
            feed.status = RE_ERR_READ;
        } else {
            re_diag_add(diag, NULL, 0, 0, "damaged MP3 after %llu samples: %s",
                        (unsigned long long)re_meter_frames(m), re_mp3_reader_strerror(r));
            feed.status = RE_ERR_FORMAT;
        }
    }
    status = feed.status;
    if (status == RE_OK)
        status = re_loudness_meter_finish(m, out);
    re_loudness_meter_free(m);
    return status;
}

re_status re_loudness_measure_mp3_fd(int fd, re_loudness *out, re_diagnostics *diag)
{
    if (!out || fd < 0)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    re_mp3_reader *r = NULL;
    re_status status = open_mp3_fd(fd, &r, diag);
    if (status != RE_OK)
        return status;
    status = decode_into_meter(r, out, diag);
    (void)re_mp3_reader_close(r, NULL);
    if (status != RE_OK)
        memset(out, 0, sizeof *out);
    return status;
}

/* Where a mono MP3 passes a ceiling (the local true-peak retry): one decoder from the start, a
 * peak finder whose bar is the ceiling (so quiet audio only passes through its ring), checked
 * every OVER_BLOCK samples; spots closer than OVER_MERGE_S are one. */
#define OVER_BLOCK 64
#define OVER_MERGE_S 0.1

typedef struct over_feed {
    interpolator ip;
    peak_finder pf;
    float bar;
    uint64_t at, merge;
    re_loudness_spot *spots;
    size_t capacity, count;
} over_feed;

static void over_note(over_feed *f, uint64_t first, uint64_t last)
{
    double peak = re_db_of(fmax(f->pf.true_peak, f->pf.sample_peak));
    f->pf.true_peak = f->pf.sample_peak = f->bar;
    if (f->count > 0 && f->count <= f->capacity
        && first <= f->spots[f->count - 1].last + f->merge) {
        re_loudness_spot *s = &f->spots[f->count - 1];
        s->last = last;
        s->peak_dbtp = fmax(s->peak_dbtp, peak);
        return;
    }
    if (f->count < f->capacity)
        f->spots[f->count] = (re_loudness_spot){ first, last, peak };
    f->count++;
}

static int over_block(void *user, const re_mp3_block *b)
{
    over_feed *f = user;
    if (b->new_format)
        return 0;
    const float *x = (const float *)(const void *)b->pcm;
    size_t n = b->bytes / sizeof(float);
    for (size_t i = 0; i < n; i += OVER_BLOCK) {
        size_t m = n - i < OVER_BLOCK ? n - i : OVER_BLOCK;
        re_peaks_feed(&f->pf, &f->ip, x + i, m, 1);
        if (f->pf.true_peak > f->bar || f->pf.sample_peak > f->bar) {
            /* an interval is measured FIR_HALF samples after it: the spot is in these */
            uint64_t end = f->at + i + m;
            over_note(f, end > m + FIR_TAPS ? end - m - FIR_TAPS : 0, end);
        }
    }
    f->at += n;
    return 0;
}

/* The peaks of an MP3 measured in two halves at once, one per thread: the second decoder
 * starts PEAK_PRIMING frames early, so that its bit reservoir, overlap and synthesis filter
 * hold what a decoder from the start would have. Its samples from the split on are a single
 * decoder's to within float rounding (measured on LAME files at 7 split points each: equal,
 * or at most 1.2e-7 of full scale apart, where libmpg123's synthesis ring restarts at
 * another position). Every interval is measured by one of the halves with all its real taps.
 * The split depends only on the file's length, so the result is the same on every run. */
#define PEAK_PRIMING 4              /* frames decoded before a half and not measured */
#define PEAK_SPLIT_MIN (1u << 20)   /* samples (48 s at 22050 Hz) worth a second decoder */

/* A part's share of the loudness: a meter fed gapless samples [from, to) (to -1: the end). */
typedef struct part_meter {
    re_loudness_meter *meter;
    off_t from, to;
} part_meter;

typedef struct peak_part {
    int fd;
    off_t size;
    off_t from, to;          /* gapless samples whose intervals this part measures */
    int last;                /* the part that reaches the end */
    int peaks;               /* 0: the part measures loudness only */
    part_meter loud[2];      /* (meter NULL: none) */
    interpolator ip;
    peak_finder pf;
    off_t decoded;           /* gapless samples decoded up to */
    /* a peak map's tiles (NULL: none): the finder's peaks are one tile's, kept per tile */
    float *tile_true, *tile_sample;
    size_t tiles, tile;      /* tile: the one the finder measures now (tiles: none yet) */
    over_feed *over;         /* the first part only (may be NULL): spots over a ceiling */
    re_status status;
    re_diagnostics diag;     /* the part's thread's own; the whole file's decoder reports */
} peak_part;

/* Pushes of gapless samples [pos, pos + n), each tile's peaks kept apart: the finder starts
 * each tile from nothing, raises its bar to the largest sample it is given (re_peaks_bar) and
 * skips only what cannot pass that, so the largest tile is exactly the whole file's peak. A
 * tile may hold the sample peak of one of its last FIR_HALF samples, whose interval is the
 * next tile's: every sample that can change lies in a tile measured again with it. */
static void tile_store(peak_part *pt)
{
    if (pt->tile < pt->tiles) {
        float *t = &pt->tile_true[pt->tile], *s = &pt->tile_sample[pt->tile];
        *t = pt->pf.true_peak > *t ? pt->pf.true_peak : *t;
        *s = pt->pf.sample_peak > *s ? pt->pf.sample_peak : *s;
    }
}

static void tiles_feed(peak_part *pt, const float *x, size_t n, off_t pos)
{
    if (!pt->tile_true) {
        re_peaks_bar(&pt->pf, x, n, 1);
        re_peaks_feed(&pt->pf, &pt->ip, x, n, 1);
        return;
    }
    while (n > 0) {
        size_t k = (size_t)(pos / RE_LOUDNESS_TILE);
        if (k >= pt->tiles)
            k = pt->tiles - 1;   /* the finish's pushes past a length that ends a tile */
        if (k != pt->tile) {
            tile_store(pt);
            pt->tile = k;
            pt->pf.true_peak = pt->pf.sample_peak = 0;
        }
        off_t left = (off_t)(k + 1) * RE_LOUDNESS_TILE - pos;
        size_t m = k + 1 < pt->tiles && left < (off_t)n ? (size_t)left : n;
        re_peaks_bar(&pt->pf, x, m, 1);
        re_peaks_feed(&pt->pf, &pt->ip, x, m, 1);
        x += m;
        n -= m;
        pos += (off_t)m;
    }
}

/* The intervals at the end, against the silence after it (re_peak_finish, in tiles). */
static void tiles_finish(peak_part *pt, off_t pos)
{
    static const float zeros[FIR_HALF];
    tiles_feed(pt, zeros, FIR_HALF, pos);
    tile_store(pt);
}

/* Measures a part's intervals from each decoded block; `at` counts gapless samples. */
typedef struct part_feed {
    peak_part *pt;
    off_t at;
    off_t end;               /* the last interval's later taps; -1: to the end */
    off_t decode_end;        /* where the part stops: its intervals' and its meters' end */
} part_feed;

/* The part's meters fed what they measure of gapless samples [at, at + n). */
static re_status loud_feed(peak_part *pt, const float *x, size_t n, off_t at)
{
    re_status status = RE_OK;
    for (int k = 0; status == RE_OK && k < 2; k++) {
        part_meter *pm = &pt->loud[k];
        off_t a = at > pm->from ? at : pm->from, b = at + (off_t)n;
        if (pm->to >= 0 && b > pm->to)
            b = pm->to;
        if (pm->meter && b > a)
            status = re_meter_feed_float(pm->meter, x + (a - at), (size_t)(b - a));
    }
    return status;
}

static int part_block(void *user, const re_mp3_block *b)
{
    part_feed *f = user;
    peak_part *pt = f->pt;
    if (b->new_format)
        return 0;
    if (pt->over)   /* a decoder from the start: every block, as the whole search makes them */
        over_block(pt->over, b);
    const float *x = (const float *)(const void *)b->pcm;
    size_t n = b->bytes / sizeof(float), i = 0;
    for (; pt->peaks && i < n && f->at + (off_t)i < pt->from; i++)
        if (f->at + (off_t)i >= pt->from - FIR_TAPS)
            re_peak_prime(&pt->pf, &pt->ip, x[i]);
    size_t stop = n;
    if (f->end >= 0 && f->at + (off_t)n > f->end)
        stop = f->end > f->at + (off_t)i ? (size_t)(f->end - f->at) : i;
    if (pt->peaks && stop > i)
        tiles_feed(pt, x + i, stop - i, f->at + (off_t)i);
    pt->status = loud_feed(pt, x, n, f->at);
    f->at += (off_t)n;
    return pt->status != RE_OK || (f->decode_end >= 0 && f->at >= f->decode_end);
}

static re_status part_decode(peak_part *pt, re_mp3_reader *r)
{
    off_t at = 0;
    if (pt->from > 0) {
        re_mp3_format fmt;
        if (re_mp3_reader_format(r, &fmt) != RE_MP3_FORMAT_OK)
            return RE_ERR_FORMAT;
        off_t spf = (off_t)fmt.samples_per_frame;
        off_t want = pt->from - (off_t)PEAK_PRIMING * spf;
        at = want < 0 ? 0 : want;
        if (re_mp3_reader_seek(r, at) != RE_OK) {
            re_diag_add(&pt->diag, NULL, 0, 0, "cannot seek in the MP3: %s",
                        re_mp3_reader_strerror(r));
            return RE_ERR_FORMAT;
        }
    }
    off_t end = pt->last ? -1 : pt->to + FIR_HALF, decode_end = end;
    for (int k = 0; decode_end >= 0 && k < 2; k++) {
        const part_meter *pm = &pt->loud[k];
        if (pm->meter && (pm->to < 0 || pm->to > decode_end))
            decode_end = pm->to;
    }
    part_feed feed = { pt, at, end, decode_end };
    pt->status = RE_OK;
    re_mp3_end ended = re_mp3_reader_each(r, part_block, &feed);
    if (pt->status != RE_OK)
        return pt->status;
    if (ended == RE_MP3_END_ERROR) {
        int read_errno = re_mp3_reader_read_errno(r);
        re_diag_add(&pt->diag, NULL, 0, 0,
                    read_errno ? "cannot read the MP3: %s" : "damaged MP3: %s",
                    read_errno ? strerror(read_errno) : re_mp3_reader_strerror(r));
        return read_errno ? RE_ERR_READ : RE_ERR_FORMAT;
    }
    pt->decoded = feed.at;
    if (!pt->peaks)
        return RE_OK;
    if (pt->last && pt->tile_true)
        tiles_finish(pt, feed.at);
    else if (pt->last)
        re_peak_finish(&pt->pf, &pt->ip);
    else
        tile_store(pt);
    return RE_OK;
}

static void *peak_part_main(void *arg)
{
    peak_part *pt = arg;
    re_mp3_reader *r = NULL;
    pt->status = re_mp3_reader_open(pt->fd, pt->size, RE_MP3_FLOAT, 0, &r, &pt->diag);
    if (pt->status == RE_OK) {
        pt->status = part_decode(pt, r);
        (void)re_mp3_reader_close(r, NULL);
    }
    return NULL;
}

/* A mono MP3 of known length (a LAME tag) in two halves; 0 when it is not one, or short. */
static int peaks_split_point(int fd, off_t size, off_t *split, off_t *length, off_t *spf,
                             long *rate)
{
    re_mp3_reader *r = NULL;
    if (re_mp3_reader_open(fd, size, RE_MP3_FLOAT, 0, &r, NULL) != RE_OK)
        return 0;
    re_mp3_format fmt;
    off_t len = -1;
    if (re_mp3_reader_format(r, &fmt) == RE_MP3_FORMAT_OK && fmt.channels == 1)
        len = (off_t)re_mp3_reader_length(r);
    (void)re_mp3_reader_close(r, NULL);
    if (len < (off_t)PEAK_SPLIT_MIN)
        return 0;
    *spf = (off_t)fmt.samples_per_frame;
    *split = len / 2 / *spf * *spf;
    *length = len;
    *rate = fmt.rate;
    return 1;
}

static void peak_parts_free(peak_part *parts, int count)
{
    for (int k = 0; parts && k < count; k++) {
        re_loudness_meter_free(parts[k].loud[0].meter);
        re_loudness_meter_free(parts[k].loud[1].meter);
        re_diagnostics_free(&parts[k].diag);
        free(parts[k].tile_true);
        free(parts[k].tile_sample);
    }
    free(parts);
}

/* `count` parts of the map's file, each with tiles of its own (all zero; none for a map of
 * no tiles). */
static peak_part *peak_parts_new(int fd, off_t size, const re_loudness_peak_map *map, int count)
{
    peak_part *parts = calloc((size_t)count, sizeof *parts);
    for (int k = 0; parts && k < count; k++) {
        parts[k] = (peak_part){ .fd = fd, .size = size, .peaks = 1, .tiles = map->tiles,
                                .tile = map->tiles };
        re_interpolator_init(&parts[k].ip);
        re_diagnostics_init(&parts[k].diag, RE_DIAG_DEFAULT_LIMIT);
        if (!map->tiles)
            continue;
        parts[k].tile_true = calloc(map->tiles, sizeof(float));
        parts[k].tile_sample = calloc(map->tiles, sizeof(float));
        if (!parts[k].tile_true || !parts[k].tile_sample) {
            peak_parts_free(parts, k + 1);
            return NULL;
        }
    }
    return parts;
}

void re_loudness_peak_map_free(re_loudness_peak_map *map)
{
    if (!map)
        return;
    free(map->tile_true);
    free(map->tile_sample);
    memset(map, 0, sizeof *map);
}

/* Two parts of a file of `length` samples at `rate` cut at `split` (the second decoder starts
 * PEAK_PRIMING frames before it), with meters placed so that every block libebur128 makes of
 * the whole file is made by exactly one of them (RE_METER_HOP): the first part's meter counts
 * the gating blocks that end up to L + 3 hops and the short-term blocks that end up to L, L a
 * whole number of seconds at least 2 s after the split; the second part's counts those after,
 * from L on, and a range meter fed [L - 2 s, L + 2 s) makes the two short-term blocks in
 * between (those ending at L + 1 s and L + 2 s). Each meter starts with its filter at rest,
 * where one meter's would hold the audio before: the first 10 ms or so of one gating block and
 * one short-term block are weighted a little differently. */
static re_status halves_plan(peak_part *parts, off_t split, off_t length, long rate)
{
    off_t hop = RE_METER_HOP(rate), second = 10 * hop;
    off_t at = (split + 2 * second + second - 1) / second * second;
    for (int k = 0; k < 2; k++) {
        parts[k].from = k ? split : 0;
        parts[k].to = k ? length : split;
        parts[k].last = k == 1;
    }
    parts[0].loud[0] = (part_meter){ NULL, 0, at + 3 * hop };
    parts[1].loud[0] = (part_meter){ NULL, at, -1 };
    parts[1].loud[1] = (part_meter){ NULL, at - 2 * second, at + 2 * second };
    re_status status = re_meter_create_kind((unsigned)rate, 1, METER_LOUDNESS,
                                            &parts[0].loud[0].meter);
    if (status == RE_OK)
        status = re_meter_create_kind((unsigned)rate, 1, METER_LOUDNESS, &parts[1].loud[0].meter);
    if (status == RE_OK)
        status = re_meter_create_kind((unsigned)rate, 1, METER_RANGE, &parts[1].loud[1].meter);
    return status;
}

/* The file's loudness from the halves' meters, into the map. */
static re_status halves_loudness(const peak_part *parts, re_loudness_peak_map *map)
{
    re_loudness_meter *gated[2] = { parts[0].loud[0].meter, parts[1].loud[0].meter };
    re_loudness_meter *ranged[3] = { gated[0], gated[1], parts[1].loud[1].meter };
    return re_meter_joined(gated, 2, ranged, 3, &map->integrated_lufs, &map->range_lu);
}

/* Runs the second part on a thread of its own (or after, when none can be started) and the
 * first on this one, with the reader *r, which is left open for the caller. */
static re_status halves_run(peak_part *parts, int fd, off_t size, re_mp3_reader **r)
{
    pthread_t second;
    int threaded = pthread_create(&second, NULL, peak_part_main, &parts[1]) == 0;
    parts[0].status = re_mp3_reader_open(fd, size, RE_MP3_FLOAT, 0, r, &parts[0].diag);
    if (parts[0].status == RE_OK)
        parts[0].status = part_decode(&parts[0], *r);
    if (threaded)
        pthread_join(second, NULL);
    else
        peak_part_main(&parts[1]);
    return parts[0].status != RE_OK ? parts[0].status : parts[1].status;
}

/* The loudness and peaks of the whole file from its meters and tiles (as
 * re_loudness_peaks_mp3_fd reports them). */
static void map_summary(const re_loudness_peak_map *map, re_loudness *out)
{
    float true_peak = 0, sample_peak = 0;
    for (size_t k = 0; k < map->tiles; k++) {
        true_peak = map->tile_true[k] > true_peak ? map->tile_true[k] : true_peak;
        sample_peak = map->tile_sample[k] > sample_peak ? map->tile_sample[k] : sample_peak;
    }
    memset(out, 0, sizeof *out);
    out->integrated_lufs = map->integrated_lufs;
    out->range_lu = map->range_lu;
    out->true_peak_dbtp = re_db_of(fmax(true_peak, sample_peak));
    out->sample_peak_dbfs = re_db_of(sample_peak);
    out->frames = map->frames;
}

/* Relative rounding a decoder that seeks may be off by (1e-7, measured), with room. */
#define SEEK_ROUNDING 1e-5f

static int over_rest_block(void *user, const re_mp3_block *b)
{
    return over_block(user, b);
}

/* The map in halves; with `over`, the first half's decoder (from the start) also searches
 * for spots, and goes on alone through the second half when a tile there may pass its bar
 * (the second half's own decoder is off by rounding: it cannot decide a spot). *over_done is
 * 0 when the spots could not be searched so (the caller searches the whole file). */
static re_status map_decode(int fd, re_loudness_peak_map *map, re_loudness *out, over_feed *over,
                            int *over_done, re_diagnostics *diag)
{
    *over_done = 0;
    re_loudness_peak_map_free(map);
    struct stat st;
    off_t split = 0, length = 0, spf = 0;
    long rate = 0;
    if (fstat(fd, &st) != 0 || !peaks_split_point(fd, st.st_size, &split, &length, &spf, &rate))
        return re_loudness_measure_mp3_fd(fd, out, diag);
    *map = (re_loudness_peak_map){ .rate = rate, .spf = (unsigned)spf,
                                   .tiles = (size_t)((length + FIR_HALF) / RE_LOUDNESS_TILE) + 1 };
    map->tile_true = calloc(map->tiles, sizeof(float));
    map->tile_sample = calloc(map->tiles, sizeof(float));
    peak_part *parts = map->tile_true && map->tile_sample
                       ? peak_parts_new(fd, st.st_size, map, 2) : NULL;
    if (!parts || halves_plan(parts, split, length, rate) != RE_OK) {
        peak_parts_free(parts, 2);
        re_loudness_peak_map_free(map);
        return RE_ERR_NOMEM;
    }
    if (over) {
        over->merge = (uint64_t)(OVER_MERGE_S * (double)rate);
        parts[0].over = over;
    }
    /* the first half on this thread, its decoder kept for the spots' second half */
    re_mp3_reader *r = NULL;
    re_status status = halves_run(parts, fd, st.st_size, &r);
    if (status == RE_OK)
        status = halves_loudness(parts, map);
    if (status == RE_OK) {
        for (size_t k = 0; k < map->tiles; k++) {
            map->tile_true[k] = fmaxf(parts[0].tile_true[k], parts[1].tile_true[k]);
            map->tile_sample[k] = fmaxf(parts[0].tile_sample[k], parts[1].tile_sample[k]);
        }
        map->frames = (uint64_t)parts[1].decoded;
    }
    if (status == RE_OK && over) {
        /* intervals the first decoder has not measured are in these tiles or later */
        off_t seen = parts[0].decoded > 2 * OVER_BLOCK ? parts[0].decoded - 2 * OVER_BLOCK : 0;
        float near_bar = over->bar * (1.0f - SEEK_ROUNDING);
        int rest = 0;
        for (size_t k = (size_t)(seen / RE_LOUDNESS_TILE); !rest && k < map->tiles; k++)
            rest = map->tile_true[k] > near_bar || map->tile_sample[k] > near_bar;
        re_mp3_end end = rest ? re_mp3_reader_each(r, over_rest_block, over) : RE_MP3_END_DONE;
        if (end == RE_MP3_END_DONE && rest) {   /* the file's end, as the whole search ends */
            re_peak_finish(&over->pf, &over->ip);
            if (over->pf.true_peak > over->bar || over->pf.sample_peak > over->bar)
                over_note(over, over->at > FIR_TAPS ? over->at - FIR_TAPS : 0, over->at);
        }
        *over_done = end == RE_MP3_END_DONE && (!rest || over->at == map->frames);
    }
    (void)re_mp3_reader_close(r, NULL);
    peak_parts_free(parts, 2);
    if (status != RE_OK) {
        /* whatever went wrong in halves (a decoder that cannot seek there), one decoder from
         * the start decides, and reports it */
        re_loudness_peak_map_free(map);
        *over_done = 0;
        return re_loudness_measure_mp3_fd(fd, out, diag);
    }
    map_summary(map, out);
    return RE_OK;
}

re_status re_loudness_peak_map_mp3_fd(int fd, re_loudness_peak_map *map, re_loudness *out,
                                      re_diagnostics *diag)
{
    if (fd < 0 || !out || !map)
        return RE_ERR_INVALID;
    int unused;
    return map_decode(fd, map, out, NULL, &unused, diag);
}

re_status re_loudness_peak_map_spots_mp3_fd(int fd, re_loudness_peak_map *map, re_loudness *out,
                                            double ceiling_dbtp, re_loudness_spot *spots,
                                            size_t capacity, size_t *count, re_diagnostics *diag)
{
    if (fd < 0 || !out || !map || !count || (capacity && !spots) || !isfinite(ceiling_dbtp))
        return RE_ERR_INVALID;
    *count = 0;
    over_feed *f = calloc(1, sizeof *f);
    if (!f)
        return RE_ERR_NOMEM;
    re_interpolator_init(&f->ip);
    f->bar = (float)pow(10.0, ceiling_dbtp / 20.0);
    f->pf.true_peak = f->pf.sample_peak = f->bar;
    f->spots = spots;
    f->capacity = capacity;
    int done = 0;
    re_status status = map_decode(fd, map, out, f, &done, diag);
    *count = f->count;
    free(f);
    if (status == RE_OK && !done && out->true_peak_dbtp > ceiling_dbtp)   /* no map: the whole */
        status = re_loudness_overshoots_mp3_fd(fd, ceiling_dbtp, spots, capacity, count, diag);
    else if (status == RE_OK && !done)
        *count = 0;
    return status;
}

re_status re_loudness_peaks_mp3_fd(int fd, re_loudness *out, re_diagnostics *diag)
{
    re_loudness_peak_map map = { 0 };
    re_status status = re_loudness_peak_map_mp3_fd(fd, &map, out, diag);
    re_loudness_peak_map_free(&map);
    return status;
}

/* Decoded samples depend on their own frame and the one before (the transform's overlap);
 * LAME's delay (576) and the decoder's (529) put frame f's samples at f * spf - 1105. Three
 * frames either side hold that with room. */
#define MAP_CHANGE_MARGIN 3

/* The tiles that MPEG frames [first_frame, end_frame) and the frames around them reach,
 * measured again. */
static re_status map_update_tiles(int fd, off_t size, re_loudness_peak_map *map,
                                  uint64_t first_frame, uint64_t end_frame)
{
    uint64_t spf = map->spf;
    uint64_t a = first_frame > MAP_CHANGE_MARGIN ? (first_frame - MAP_CHANGE_MARGIN) * spf : 0;
    uint64_t b = (end_frame + MAP_CHANGE_MARGIN) * spf + FIR_TAPS;   /* intervals' later taps */
    size_t k0 = (size_t)(a / RE_LOUDNESS_TILE), k1 = (size_t)(b / RE_LOUDNESS_TILE);
    if (k0 >= map->tiles)
        k0 = map->tiles - 1;
    int last = (uint64_t)(k1 + 1) * RE_LOUDNESS_TILE >= map->frames;
    if (last || k1 >= map->tiles)
        k1 = map->tiles - 1;
    peak_part *pt = peak_parts_new(fd, size, map, 1);
    if (!pt)
        return RE_ERR_NOMEM;
    pt->from = (off_t)k0 * RE_LOUDNESS_TILE;
    pt->to = last ? (off_t)map->frames : (off_t)(k1 + 1) * RE_LOUDNESS_TILE - FIR_HALF;
    pt->last = last;
    peak_part_main(pt);
    re_status status = pt->status;
    if (status == RE_OK && last && (uint64_t)pt->decoded != map->frames)
        status = RE_ERR_FORMAT;
    if (status == RE_OK) {
        for (size_t k = k0; k <= k1; k++) {
            map->tile_true[k] = pt->tile_true[k];
            map->tile_sample[k] = pt->tile_sample[k];
        }
    }
    peak_parts_free(pt, 1);
    return status;
}

/* The whole file's loudness measured again in halves, without its peaks: a frame changed
 * anywhere may change the gating of every block. */
static re_status map_loudness(int fd, off_t size, re_loudness_peak_map *map)
{
    off_t split = 0, length = 0, spf = 0;
    long rate = 0;
    if (!peaks_split_point(fd, size, &split, &length, &spf, &rate)
        || (uint64_t)length != map->frames)
        return RE_ERR_FORMAT;
    re_loudness_peak_map none = { 0 };   /* no tiles */
    peak_part *parts = peak_parts_new(fd, size, &none, 2);
    re_status status = parts ? halves_plan(parts, split, length, rate) : RE_ERR_NOMEM;
    re_mp3_reader *r = NULL;
    if (status == RE_OK) {
        parts[0].peaks = parts[1].peaks = 0;
        status = halves_run(parts, fd, size, &r);
        (void)re_mp3_reader_close(r, NULL);
    }
    if (status == RE_OK && (uint64_t)parts[1].decoded != map->frames)
        status = RE_ERR_FORMAT;
    if (status == RE_OK)
        status = halves_loudness(parts, map);
    peak_parts_free(parts, 2);
    return status;
}

re_status re_loudness_peak_map_update_mp3_fd(int fd, re_loudness_peak_map *map,
                                             const uint64_t (*frames)[2], size_t count,
                                             re_loudness *out, re_diagnostics *diag)
{
    if (fd < 0 || !map || !out || !frames || count == 0)
        return RE_ERR_INVALID;
    for (size_t k = 0; k < count; k++)
        if (frames[k][0] >= frames[k][1])
            return RE_ERR_INVALID;
    struct stat st;
    if (!map->tiles || fstat(fd, &st) != 0)
        return re_loudness_peak_map_mp3_fd(fd, map, out, diag);
    re_status status = RE_OK;
    for (size_t k = 0; status == RE_OK && k < count; k++)
        status = map_update_tiles(fd, st.st_size, map, frames[k][0], frames[k][1]);
    if (status == RE_OK)
        status = map_loudness(fd, st.st_size, map);
    if (status != RE_OK)   /* the whole file again decides, and reports */
        return re_loudness_peak_map_mp3_fd(fd, map, out, diag);
    map_summary(map, out);
    return RE_OK;
}

re_status re_loudness_overshoots_mp3_fd(int fd, double ceiling_dbtp, re_loudness_spot *spots,
                                        size_t capacity, size_t *count, re_diagnostics *diag)
{
    if (fd < 0 || !count || (capacity && !spots) || !isfinite(ceiling_dbtp))
        return RE_ERR_INVALID;
    *count = 0;
    re_mp3_reader *r = NULL;
    re_status status = open_mp3_fd(fd, &r, diag);
    if (status != RE_OK)
        return status;
    re_mp3_format fmt;
    over_feed *f = calloc(1, sizeof *f);
    if (!f)
        status = RE_ERR_NOMEM;
    else if (re_mp3_reader_format(r, &fmt) != RE_MP3_FORMAT_OK || fmt.channels != 1) {
        re_diag_add(diag, NULL, 0, 0, "not a mono MP3");
        status = RE_ERR_FORMAT;
    }
    if (status == RE_OK) {
        re_interpolator_init(&f->ip);
        f->bar = (float)pow(10.0, ceiling_dbtp / 20.0);
        f->pf.true_peak = f->pf.sample_peak = f->bar;
        f->merge = (uint64_t)(OVER_MERGE_S * (double)fmt.rate);
        f->spots = spots;
        f->capacity = capacity;
        if (re_mp3_reader_each(r, over_block, f) == RE_MP3_END_ERROR) {
            re_diag_add(diag, NULL, 0, 0, "damaged MP3: %s", re_mp3_reader_strerror(r));
            status = re_mp3_reader_read_errno(r) ? RE_ERR_READ : RE_ERR_FORMAT;
        }
    }
    if (status == RE_OK) {
        re_peak_finish(&f->pf, &f->ip);
        if (f->pf.true_peak > f->bar || f->pf.sample_peak > f->bar)
            over_note(f, f->at > FIR_TAPS ? f->at - FIR_TAPS : 0, f->at);
        *count = f->count;
    }
    free(f);
    (void)re_mp3_reader_close(r, NULL);
    return status;
}

re_status re_loudness_measure_mp3(const char *path, re_loudness *out, re_diagnostics *diag)
{
    if (!path || !out)
        return RE_ERR_INVALID;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        re_diag_add(diag, path, 0, 0, "cannot open %s: %s", path, strerror(errno));
        return RE_ERR_READ;
    }
    size_t from = diag ? diag->count : 0;
    re_status status = re_loudness_measure_mp3_fd(fd, out, diag);
    close(fd);
    re_diag_place(diag, from, path, 0, 0);
    return status;
}