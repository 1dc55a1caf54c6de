/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sound_file.c - sound files a script names: libsndfile reads them whole, mixes them to
 * mono and resamples them with the one recipe; a 16-bit mono file at the episode's rate comes
 * back bit-exact; every failure is one unplaced message naming the path; a FIFO is refused
 * without blocking; a chained Ogg file is refused, from four threads at once too. And the
 * confinement rule every file a script names follows (files.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "files.h"
#include "sha256.h"
#include "sound_file.h"
#include "testdir.h"
#include "testkit.h"

static char dir[256];

static char *in_dir(const char *name)
{
    return re_path_join(dir, name);
}

/* Writes a 16-bit WAV of `frames` frames, `channels` channels at `rate`: a tone, channel c
 * scaled by (c + 1) / channels. */
static void write_wav(const char *path, unsigned rate, unsigned channels, size_t frames,
                      int16_t *mono_out)
{
    SF_INFO info = { .samplerate = (int)rate, .channels = (int)channels,
                     .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16 };
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    CHECK(sf != NULL);
    int16_t *buf = malloc(frames * channels * sizeof *buf);
    for (size_t i = 0; i < frames; i++) {
        double v = 12000.0 * sin(2 * M_PI * 440.0 * (double)i / rate);
        for (unsigned c = 0; c < channels; c++)
            buf[i * channels + c] = (int16_t)lrint(v);
        if (mono_out)
            mono_out[i] = (int16_t)lrint(v);
    }
    CHECK_INT(sf_writef_short(sf, buf, (sf_count_t)frames), (long long)frames);
    sf_close(sf);
    free(buf);
}

static void bit_exact_at_same_rate(void)
{
    enum { N = 5000 };
    int16_t want[N];
    char *path = in_dir("mono.wav");
    write_wav(path, 22050, 1, N, want);
    re_sound s;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_sound_load(path, 22050, &s, &d), RE_OK);
    CHECK_INT(s.frames, N);
    CHECK_INT(s.rate, 22050);
    CHECK(s.frames == N && memcmp(s.samples, want, sizeof want) == 0);
    /* the digest is the file's bytes' */
    char *bytes = NULL;
    size_t len = 0;
    CHECK_INT(re_file_read(path, 1 << 20, RE_READ_REGULAR, &bytes, &len, NULL), RE_OK);
    unsigned char digest[RE_SHA256_SIZE];
    re_sha256(bytes, len, digest);
    CHECK(memcmp(digest, s.sha256, sizeof digest) == 0);
    free(bytes);
    re_sound_free(&s);
    CHECK(s.samples == NULL && s.frames == 0);
    re_diagnostics_free(&d);
    free(path);
}

/* A raised stop flag (a signal) stops the load with RE_ERR_INTERRUPTED and no message, the
 * sound left empty; a lowered one changes nothing. */
static void stopped_by_a_signal(void)
{
    char *path = in_dir("stop.wav");
    write_wav(path, 44100, 2, 50000, NULL);
    volatile sig_atomic_t stop = SIGTERM;
    re_sound s;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_sound_load_until(path, 22050, &stop, &s, &d), RE_ERR_INTERRUPTED);
    CHECK_INT(d.count, 0);
    CHECK(s.samples == NULL && s.frames == 0);
    stop = 0;
    CHECK_INT(re_sound_load_until(path, 22050, &stop, &s, &d), RE_OK);
    CHECK_INT(s.frames, 25000);
    re_sound_free(&s);
    re_diagnostics_free(&d);
    free(path);
}

/* Stereo 44.1 kHz to 22050: half the frames, the channels averaged (same signal on both at
 * different levels: the average is 0.75 of it), within the recipe's precision. */
static void stereo_resampled(void)
{
    enum { N = 44100 };
    char *path = in_dir("stereo.wav");
    SF_INFO info = { .samplerate = 44100, .channels = 2, .format = SF_FORMAT_WAV | SF_FORMAT_PCM_16 };
    SNDFILE *sf = sf_open(path, SFM_WRITE, &info);
    static int16_t buf[2 * N];
    for (size_t i = 0; i < N; i++) {
        buf[2 * i] = (int16_t)lrint(16000.0 * sin(2 * M_PI * 440.0 * (double)i / 44100));
        buf[2 * i + 1] = (int16_t)lrint(8000.0 * sin(2 * M_PI * 440.0 * (double)i / 44100));
    }
    CHECK_INT(sf_writef_short(sf, buf, N), N);
    sf_close(sf);
    re_sound s;
    CHECK_INT(re_sound_load(path, 22050, &s, NULL), RE_OK);
    CHECK_INT(s.frames, 22050);
    CHECK_INT(s.source_rate, 44100);
    CHECK_INT(s.source_channels, 2);
    long worst = 0;
    for (size_t i = 1000; i + 1000 < s.frames; i++) {
        long want = lrint(12000.0 * sin(2 * M_PI * 440.0 * (double)i / 22050));
        long diff = labs(want - s.samples[i]);
        worst = diff > worst ? diff : worst;
    }
    CHECK(worst <= 2);
    re_sound s2;
    CHECK_INT(re_sound_load(path, 22050, &s2, NULL), RE_OK);
    CHECK(s2.frames == s.frames && memcmp(s.samples, s2.samples, s.frames * 2) == 0);
    re_sound_free(&s);
    re_sound_free(&s2);
    free(path);
}

/* One unplaced message naming the path, and the status. */
static void refused(const char *name, re_status want, const char *part)
{
    char *path = in_dir(name);
    re_sound s;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_sound_load(path, 22050, &s, &d), want);
    CHECK_INT(d.count, 1);
    CHECK(d.count == 1 && d.items[0].file == NULL && strstr(d.items[0].message, path)
          && strstr(d.items[0].message, part));
    if (d.count != 1 || !strstr(diag_last(&d), part))
        fprintf(stderr, "  %s: '%s'\n", name, diag_last(&d));
    CHECK(s.samples == NULL && s.frames == 0);
    re_diagnostics_free(&d);
    free(path);
}

static void failures(void)
{
    refused("missing.wav", RE_ERR_READ, "cannot open");
    char *p = in_dir("text.wav");
    FILE *f = fopen(p, "w");
    fputs("this is not audio at all, just words\n", f);
    fclose(f);
    free(p);
    refused("text.wav", RE_ERR_FORMAT, "not audio");
    p = in_dir("empty.wav");
    fclose(fopen(p, "w"));
    free(p);
    refused("empty.wav", RE_ERR_FORMAT, "empty");
    p = in_dir("fifo.wav");
    CHECK_INT(mkfifo(p, 0600), 0);
    free(p);
    refused("fifo.wav", RE_ERR_READ, "not a regular file");
    p = in_dir("sub");
    CHECK_INT(mkdir(p, 0700), 0);
    free(p);
    refused("sub", RE_ERR_READ, "directory");
    /* a header with no frames */
    p = in_dir("noframes.wav");
    write_wav(p, 22050, 1, 0, NULL);
    free(p);
    refused("noframes.wav", RE_ERR_FORMAT, "no samples");
}

/* What re_path_open_confined makes of a name: 1 opened, 0 outside, -errno beneath but not
 * opened. */
static int confined(const char *script, const char *path, const char *const *allowed, size_t n)
{
    int fd = -1, error = -1;
    if (re_path_open_confined(script, path, allowed, n, O_RDONLY | O_NONBLOCK | O_CLOEXEC, &fd,
                              &error) != RE_OK)
        return -1000;
    if (fd >= 0)
        close(fd);
    return fd >= 0 ? 1 : error ? -error : 0;
}

static void confinement(void)
{
    char *script = in_dir("show/ep.txt"), *show = in_dir("show"), *other = in_dir("other");
    CHECK_INT(mkdir(show, 0700), 0);
    CHECK_INT(mkdir(other, 0700), 0);
    char *inside_path = NULL, *abs_out = NULL, *up = NULL, *link = NULL, *there = in_dir("other/x.wav");
    fclose(fopen(there, "w"));
    CHECK_INT(re_path_beside(script, "sounds/chime.wav", &inside_path), RE_OK);
    CHECK(strstr(inside_path, "/show/sounds/chime.wav") != NULL);
    CHECK_INT(re_path_beside(script, "/etc/passwd", &abs_out), RE_OK);
    CHECK_STR(abs_out, "/etc/passwd");
    CHECK_INT(re_path_beside(script, "../other/x.wav", &up), RE_OK);
    CHECK_INT(confined(script, inside_path, NULL, 0), -ENOENT);   /* beneath, not there */
    CHECK_INT(confined(script, abs_out, NULL, 0), 0);
    CHECK_INT(confined(script, up, NULL, 0), 0);
    const char *allowed[] = { other };
    CHECK_INT(confined(script, up, allowed, 1), 1);
    CHECK_INT(confined(script, there, allowed, 1), 1);   /* absolute, in an allowed folder */
    /* a symlink inside the tree that leads out of it */
    CHECK_INT(re_path_beside(script, "out.wav", &link), RE_OK);
    CHECK_INT(symlink("/etc/hostname", link), 0);
    CHECK_INT(confined(script, link, NULL, 0), 0);
    free(inside_path);
    free(abs_out);
    free(up);
    free(link);
    free(there);
    free(script);
    free(show);
    free(other);
}

static void fade(void)
{
    int16_t s[6] = { 1000, 1000, 1000, 1000, 1000, -1000 };
    re_sound_fade_out(s, 6, 4);
    static const int16_t want[6] = { 1000, 1000, 800, 600, 400, -200 };
    CHECK(memcmp(s, want, sizeof s) == 0);
    int16_t t[2] = { 300, 300 };
    re_sound_fade_out(t, 2, 50);   /* longer than the sound: all of it */
    CHECK_INT(t[0], 200);
    CHECK_INT(t[1], 100);
}

/* An Ogg Vorbis file twice over: a chained file of two streams. */
static char *write_chained_ogg(void)
{
    char *one = in_dir("one.ogg"), *two = in_dir("chained.ogg");
    SF_INFO info = { .samplerate = 22050, .channels = 1,
                     .format = SF_FORMAT_OGG | SF_FORMAT_VORBIS };
    SNDFILE *sf = sf_open(one, SFM_WRITE, &info);
    CHECK(sf != NULL);
    short tone[2205];
    for (size_t i = 0; i < sizeof tone / sizeof tone[0]; i++)
        tone[i] = (short)lrint(8000.0 * sin(2 * M_PI * 440.0 * (double)i / 22050));
    if (sf) {
        CHECK_INT(sf_writef_short(sf, tone, 2205), 2205);
        sf_close(sf);
    }
    char *bytes = NULL;
    size_t len = 0;
    FILE *in = fopen(one, "rb"), *out = fopen(two, "wb");
    CHECK(in != NULL && out != NULL);
    if (in && out) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
            char *grown = realloc(bytes, len + n);
            CHECK(grown != NULL);
            if (!grown)
                break;
            bytes = grown;
            memcpy(bytes + len, buf, n);
            len += n;
        }
        CHECK_INT(fwrite(bytes, 1, len, out), len);
        CHECK_INT(fwrite(bytes, 1, len, out), len);
    }
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    free(bytes);
    free(one);
    return two;
}

typedef struct {
    const char *path;
    pthread_barrier_t *start;
    re_status status;
    int said_chained;
} chained_reader;

static void *read_chained(void *arg)
{
    chained_reader *r = arg;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    re_sound s;
    pthread_barrier_wait(r->start);
    r->status = re_sound_load(r->path, 22050, &s, &diag);
    r->said_chained = diag.count == 1 && strstr(diag.items[0].message, "chained Ogg file: 2 ")
                      != NULL;
    if (r->status == RE_OK)
        re_sound_free(&s);
    re_diagnostics_free(&diag);
    return NULL;
}

/* A chained Ogg file is refused, by four readers at once, each the first of the process to
 * check a page: the checksum's table is a constant. `test_sound_file threads` runs this alone,
 * for valgrind --tool=helgrind, which found the table filled lazily written by one thread
 * while another read it (what it still reports is inside libsndfile's sf_open_fd). */
static void chained_ogg_from_threads(void)
{
    enum { READERS = 4 };
    char *path = write_chained_ogg();
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, READERS);
    pthread_t threads[READERS];
    chained_reader readers[READERS];
    int started = 0;
    for (int i = 0; i < READERS; i++) {
        readers[i] = (chained_reader){ path, &start, RE_OK, 0 };
        started += pthread_create(&threads[i], NULL, read_chained, &readers[i]) == 0;
    }
    CHECK_INT(started, READERS);
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        CHECK_INT(readers[i].status, RE_ERR_FORMAT);
        CHECK(readers[i].said_chained);
    }
    pthread_barrier_destroy(&start);
    free(path);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "threads") == 0) {   /* for valgrind --tool=helgrind */
        if (test_temp_dir(dir, sizeof dir, "sound") != 0)
            return 1;
        chained_ogg_from_threads();
        test_remove_tree(dir);
        return check_finish("test_sound_file threads");
    }
    fade();
    if (test_temp_dir(dir, sizeof dir, "sound") != 0)
        return 1;
    bit_exact_at_same_rate();
    stereo_resampled();
    failures();
    confinement();
    stopped_by_a_signal();
    chained_ogg_from_threads();
    test_remove_tree(dir);
    return check_finish("test_sound_file");
}
