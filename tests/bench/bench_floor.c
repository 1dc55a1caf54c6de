/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_floor.c - the floor a render is measured against (docs/PERFORMANCE.md): the two jobs
 * no render can skip, each alone, through the library's own code.
 *
 *   bench-floor speak [-j N] SCRIPT...
 *       every paragraph of each script spoken as a render speaks it (prepare.h, then the
 *       speech scheduler of speak.h with N children at once, no segment cache), and the audio
 *       dropped: no assembly, no pauses, no resampling, no transcript, no meter.
 *   bench-floor encode [-w WORKERS] [-t THREADS] [-r RATE] [-b KBPS] RAW OUT.mp3 [RAW OUT.mp3]...
 *       raw 16-bit mono PCM at RATE encoded as a render encodes its leveled spool
 *       (mp3_parallel.h, the render's worker count and its MP3 settings), one file at a time.
 *
 * Each mode prints one line per input (what it did, so the bench can check it did the work)
 * and exits 0; a failure prints its diagnostics and exits 2. scripts/benchlib.py times the
 * process from outside (wait4): the figures include its start-up, as a render's do. Not a
 * product: built with the tests, run only by the scripts/bench* programs and by the ctest
 * that checks it can (source.bench). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mp3.h"
#include "mp3_parallel.h"
#include "prepare.h"
#include "render.h"
#include "speak.h"
#include "status.h"
#include "synth.h"

static void print_diagnostics(const re_diagnostics *diag)
{
    char line[2048];
    for (size_t i = 0; i < diag->count; i++) {
        re_diag_format(&diag->items[i], line, sizeof line);
        fprintf(stderr, "bench-floor: %s\n", line);
    }
}

static int fail(re_status status, re_diagnostics *diag, const char *what)
{
    print_diagnostics(diag);
    fprintf(stderr, "bench-floor: %s: %s\n", what, re_strerror(status));
    re_diagnostics_free(diag);
    return 2;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: bench-floor speak [-j N] SCRIPT...\n"
            "       bench-floor encode [-w WORKERS] [-t THREADS] [-r RATE] [-b KBPS] RAW OUT.mp3...\n");
    return 1;
}

/* A whole number in 1..max, or 0 when `text` is not one. */
static unsigned parse_count(const char *text, unsigned long max)
{
    char *end = NULL;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max)
        return 0;
    return (unsigned)value;
}

static unsigned online_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
}

/* One script's paragraphs through the speech scheduler; *frames gets the audio's length. */
static re_status speak_script(re_engine *engine, const char *path, unsigned jobs, size_t *items,
                              uint64_t *frames, unsigned *rate, re_diagnostics *diag)
{
    const char *voice_dirs[] = { RE_SOURCE_VOICES_DIR };
    re_episode_sources sources = { .script_path = path, .max_script_size = 8u << 20,
                                   .voice_dirs = voice_dirs, .voice_dir_count = 1 };
    re_prepared prepared = { 0 };
    speech_scheduler *scheduler = NULL;
    re_status status = re_prepare(&sources, &prepared, diag);
    if (status == RE_OK)
        status = re_prepared_check_engine(&prepared, engine, diag);
    speech_plan plan = { .prepared = &prepared, .engine = engine,
                         .script_path = path, .jobs = jobs, .timeout_ms = RE_ENGINE_TIMEOUT_MS };
    if (status == RE_OK)
        status = re_speech_scheduler_create(&plan, &scheduler, diag);
    *items = 0;
    *frames = 0;
    for (size_t i = 0; status == RE_OK && i < prepared.episode->item_count; i++) {
        if (prepared.episode->items[i].kind != RE_ITEM_SPEECH)
            continue;
        re_speech speech;
        status = re_speech_scheduler_next(scheduler, i, &speech, diag);
        if (status != RE_OK)
            break;
        *frames += speech.frames;
        *rate = speech.rate;   /* one profile's engine: the bench's scripts speak with one */
        (*items)++;
        re_speech_free(&speech);
        re_speech_scheduler_done(scheduler, i);
    }
    re_speech_scheduler_free(scheduler);
    re_prepared_free(&prepared);
    return status;
}

static int speak_main(int argc, char **argv)
{
    unsigned jobs = online_cpus();   /* a render's default -j */
    int first = 0;
    if (argc >= 2 && strcmp(argv[0], "-j") == 0) {
        if ((jobs = parse_count(argv[1], 64)) == 0)
            return usage();
        first = 2;
    }
    if (first >= argc)
        return usage();
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_engine *engine = NULL;
    re_status status = re_engine_create(NULL, &engine, &diag);
    if (status != RE_OK)
        return fail(status, &diag, "cannot start the engine");
    for (int a = first; a < argc; a++) {
        size_t items = 0;
        uint64_t frames = 0;
        unsigned rate = 0;
        status = speak_script(engine, argv[a], jobs, &items, &frames, &rate, &diag);
        if (status != RE_OK) {
            re_engine_free(engine);
            return fail(status, &diag, argv[a]);
        }
        printf("speak %s: paragraphs=%zu frames=%llu rate=%u jobs=%u\n", argv[a], items,
               (unsigned long long)frames, rate, jobs);
    }
    re_engine_free(engine);
    re_diagnostics_free(&diag);
    return 0;
}

static re_status encode_file(const char *raw, const char *out_path, unsigned rate,
                             const re_mp3_settings *settings, unsigned workers, unsigned threads,
                             re_mp3_parallel_stats *stats, uint64_t *frames, re_diagnostics *diag)
{
    int fd = open(raw, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        re_diag_add(diag, raw, 0, 0, "cannot read: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return RE_ERR_READ;
    }
    FILE *out = fopen(out_path, "wb");
    if (!out) {
        re_diag_add(diag, out_path, 0, 0, "cannot write: %s", strerror(errno));
        close(fd);
        return RE_ERR_WRITE;
    }
    *frames = (uint64_t)st.st_size / 2;
    re_mp3_encoding encoding = { .sample_rate = rate, .settings = *settings, .workers = workers,
                                 .tuning = { .threads = threads } };
    re_status status = re_mp3_encode_fd(&encoding, (re_mp3_pcm){ fd, *frames },
                                        &(re_mp3_file){ .out = out }, stats, diag);
    if (fclose(out) != 0 && status == RE_OK)
        status = RE_ERR_WRITE;
    close(fd);
    return status;
}

static int encode_main(int argc, char **argv)
{
    /* The render's encoder (re_mp3_default_workers): one worker per core, 2 at least, 16 at
     * most; as many threads as workers unless a batch shares the cores. */
    unsigned workers = re_mp3_default_workers();
    unsigned threads = 0, rate = 22050;
    re_mp3_settings settings = { 0, -1 };
    int a = 0;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        unsigned value = parse_count(argv[a + 1], 1000000);
        if (value == 0)
            return usage();
        if (strcmp(argv[a], "-w") == 0)
            workers = value;
        else if (strcmp(argv[a], "-t") == 0)
            threads = value;
        else if (strcmp(argv[a], "-r") == 0)
            rate = value;
        else if (strcmp(argv[a], "-b") == 0)
            settings.bitrate_kbps = (int)value;
        else
            return usage();
    }
    if (a >= argc || (argc - a) % 2 != 0)
        return usage();
    if (settings.bitrate_kbps == 0)
        settings.bitrate_kbps = re_mp3_default_bitrate(rate);
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_mp3_check_settings(rate, &settings, &diag);
    if (status != RE_OK)
        return fail(status, &diag, "MP3 settings");
    for (; a < argc; a += 2) {
        re_mp3_parallel_stats stats = { 0 };
        uint64_t frames = 0;
        status = encode_file(argv[a], argv[a + 1], rate, &settings, workers, threads, &stats,
                             &frames, &diag);
        if (status != RE_OK)
            return fail(status, &diag, argv[a]);
        printf("encode %s: frames=%llu rate=%u kbps=%d workers=%u pieces=%zu encoded_frames=%llu "
               "stream_frames=%llu\n", argv[a], (unsigned long long)frames, rate,
               settings.bitrate_kbps, workers, stats.pieces,
               (unsigned long long)stats.encoded_frames, (unsigned long long)stats.stream_frames);
    }
    re_diagnostics_free(&diag);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "speak") == 0)
        return speak_main(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "encode") == 0)
        return encode_main(argc - 2, argv + 2);
    return usage();
}
