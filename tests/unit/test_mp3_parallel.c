/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_mp3_parallel.c - the parallel MP3 encoder judged by tools we did not write: real
 * speech (espeak-ng, the program, into a WAV read with libsndfile) is encoded serially and
 * in pieces on 2, 3 and 4 threads; ffmpeg and mpg123 must decode exactly the samples fed in,
 * mutagen must read a LAME tag with the right frame count, delay and padding, and around
 * every splice the decoded error against the source must be no larger than the serial
 * encoder's error there or the file's 99th percentile elsewhere (no click, gap or level
 * step). Also: determinism across runs and worker counts, the serial path's bytes, the
 * fallback paths, MPEG-1 and MPEG-2.5 rates, interruption and errors. No timing.
 *
 * RE_TEST_QUICK=1 uses 8 s of speech instead of about 60 s (for valgrind). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>
#include <sndfile.h>

#include "testkit.h"
#include "testrun.h"
#include "id3.h"
#include "mp3.h"
#include "mp3_parallel.h"

#define WINDOW 220                /* 10 ms at 22050 Hz */
#define DECODER_DELAY 529         /* samples a Layer III decoder adds (LAME counts on it) */

static char dir[256];
static int quick;
/* Under the sanitizers (RE_SANITIZED) the speech and the synthetic signals are shorter: a
 * longer signal only takes the same piece, splice and writer paths more times (the default
 * plan still splices, every tuning still makes several pieces). */
static int sanitized;

typedef struct signal_pcm {
    int16_t *pcm;
    size_t n;
    unsigned rate;
} signal_pcm;

static int same_file(const char *a, const char *b)
{
    bytes x = { 0 }, y = { 0 };
    int same = read_file(a, &x) && read_file(b, &y) && x.len == y.len &&
               memcmp(x.data, y.data, x.len) == 0;
    free(x.data);
    free(y.data);
    return same;
}

/* ---- signals ---------------------------------------------------------------------------- */

static const char speech_text[] =
    "It's Monday, and this is your render-episode briefing. Three things changed this week. "
    "First, the encoder now uses every core: the audio is cut into pieces at frame "
    "boundaries, each piece is encoded on its own thread, and the frames are joined into "
    "one stream. Second, pauses stay exact, to the sample, whatever the engine does. "
    "Third, the sidecar, the chapters and the transcript all agree on one number, the "
    "sample count.\n\n"
    "Why does any of this matter? Because a podcast that says it lasts twelve minutes and "
    "forty seconds should last exactly that long, in every player, on every device. "
    "Seeking must land where the chapter says. A click at a splice would be heard by "
    "everyone; a gap of a single frame would shift every chapter after it.\n\n"
    "So the tests listen for them: they decode the file with ffmpeg and with mpg123, "
    "compare it with the speech that went in, and look hardest at the places where one "
    "encoder hands over to the next. Quiet passages, loud ones, hissing consonants like "
    "s, sh and f, and plosives like p, t and k all pass through the same joins. That's "
    "all for this week. Thanks for listening, and see you next Monday.\n";

/* Speech from the espeak-ng program (not the library: a test of the encoder must not depend
 * on the engine wrapper), read back with libsndfile. */
static int make_speech(signal_pcm *out, size_t max_samples)
{
    char text_path[320], wav_path[320];
    snprintf(text_path, sizeof text_path, "%s/speech.txt", dir);
    snprintf(wav_path, sizeof wav_path, "%s/speech.wav", dir);
    FILE *f = fopen(text_path, "w");
    if (!f || fputs(speech_text, f) == EOF || fclose(f) != 0)
        return 0;
    char *argv[] = { "espeak-ng", "-w", wav_path, "-f", text_path, NULL };
    bytes ignored;
    int rc = run_capture(argv, &ignored);
    free(ignored.data);
    CHECK_INT(rc, 0);
    if (rc != 0)
        return 0;
    SF_INFO info = { 0 };
    SNDFILE *wav = sf_open(wav_path, SFM_READ, &info);
    CHECK(wav != NULL);
    if (!wav)
        return 0;
    CHECK_INT(info.channels, 1);
    size_t n = (size_t)info.frames < max_samples ? (size_t)info.frames : max_samples;
    out->pcm = malloc(n * sizeof *out->pcm);
    out->n = out->pcm ? (size_t)sf_readf_short(wav, out->pcm, (sf_count_t)n) : 0;
    out->rate = (unsigned)info.samplerate;
    sf_close(wav);
    CHECK_INT(out->n, n);
    return out->n == n && n > 0;
}

/* Deterministic and hard on the bit reservoir: full-scale noise bursts, chirps, a square
 * wave, clicks and digital silence, a few hundred milliseconds each. */
static int make_synthetic(signal_pcm *out, unsigned rate, double seconds)
{
    out->rate = rate;
    out->n = (size_t)(seconds * rate);
    out->pcm = malloc(out->n * sizeof *out->pcm);
    if (!out->pcm)
        return 0;
    uint32_t seed = 12345;
    size_t part = rate * 3 / 10;
    for (size_t i = 0; i < out->n; i++) {
        double t = (double)i / rate, v;
        seed = seed * 1664525u + 1013904223u;
        double noise = ((double)(seed >> 8) / (double)(1u << 24)) * 2.0 - 1.0;
        switch ((i / part) % 5) {
        case 0: v = 0.9 * noise; break;
        case 1: v = 0.7 * sin(2 * M_PI * (200.0 + 3000.0 * fmod(t, 0.3)) * t); break;
        case 2: v = 0.5 * (fmod(t * 330.0, 1.0) < 0.5 ? 1.0 : -1.0) + 0.2 * noise; break;
        case 3: v = (i % (rate / 20) == 0) ? 0.95 : 0.0; break;
        default: v = 0.0; break;
        }
        out->pcm[i] = (int16_t)lrint(v * 32000.0);
    }
    return 1;
}

/* The spool: raw int16 little-endian, read by the encoder with pread. */
static int write_spool(const signal_pcm *sig, const char *name)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    unsigned char *raw = malloc(sig->n * 2);
    int ok = raw != NULL;
    for (size_t i = 0; ok && i < sig->n; i++) {
        raw[2 * i] = (unsigned char)((uint16_t)sig->pcm[i] & 0xFF);
        raw[2 * i + 1] = (unsigned char)((uint16_t)sig->pcm[i] >> 8);
    }
    ok = ok && write(fd, raw, sig->n * 2) == (ssize_t)(sig->n * 2);
    /* The encoder must not depend on the descriptor's offset. */
    ok = ok && lseek(fd, 12345, SEEK_SET) == 12345;
    free(raw);
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- encoding --------------------------------------------------------------------------- */

static unsigned char *id3_tag;
static size_t id3_len;

static re_status encode(const char *path, int fd, const signal_pcm *sig, const re_mp3_settings *s,
                        unsigned workers, const re_mp3_parallel_tuning *tuning,
                        re_mp3_parallel_stats *stats)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    FILE *out = fopen(path, "wb");
    if (!out)
        return RE_ERR_WRITE;
    re_mp3_encoding encoding = { .sample_rate = sig->rate, .settings = *s, .workers = workers };
    if (tuning)
        encoding.tuning = *tuning;
    re_mp3_file file = { out, id3_tag, id3_len };
    re_status st = re_mp3_encode_fd(&encoding, (re_mp3_pcm){ fd, sig->n }, &file, stats, &diag);
    if (fclose(out) != 0 && st == RE_OK)
        st = RE_ERR_WRITE;
    if (st != RE_OK)
        fprintf(stderr, "%s: %s (%s)\n", path, re_strerror(st), diag_last(&diag));
    else
        CHECK_INT(diag.count, 0);
    re_diagnostics_free(&diag);
    return st;
}

/* What mp3.h alone writes for the same input (the reference for the serial path). */
static re_status encode_reference(const char *path, const signal_pcm *sig, const re_mp3_settings *s)
{
    FILE *out = fopen(path, "wb");
    re_mp3_encoder *enc = NULL;
    if (!out)
        return RE_ERR_WRITE;
    re_status st = re_mp3_encoder_create(out, sig->rate, s, id3_tag, id3_len, &enc);
    if (st == RE_OK)
        st = re_mp3_encoder_write(enc, sig->pcm, sig->n);
    if (st == RE_OK)
        st = re_mp3_encoder_finish(enc);
    re_mp3_encoder_free(enc);
    if (fclose(out) != 0 && st == RE_OK)
        st = RE_ERR_WRITE;
    return st;
}

/* ---- judges ----------------------------------------------------------------------------- */

static int16_t *decode(const char *tool, const char *path, size_t expected)
{
    char *ffmpeg[] = { "ffmpeg", "-nostdin", "-v", "error", "-i", (char *)path, "-f", "s16le",
                       "-acodec", "pcm_s16le", "-ac", "1", "-", NULL };
    char *mpg123[] = { "mpg123", "-q", "--gapless", "-e", "s16", "-s", (char *)path, NULL };
    bytes out;
    int rc = run_capture(strcmp(tool, "ffmpeg") == 0 ? ffmpeg : mpg123, &out);
    CHECK_INT(rc, 0);
    CHECK_INT(out.len, 2 * expected);
    if (rc != 0 || out.len != 2 * expected) {
        fprintf(stderr, "%s decoded %zu samples of %s, expected %zu\n", tool, out.len / 2, path,
                expected);
        free(out.data);
        return NULL;
    }
    int16_t *pcm = malloc(expected * sizeof *pcm);
    for (size_t i = 0; pcm && i < expected; i++)
        pcm[i] = (int16_t)(uint16_t)(out.data[2 * i] | out.data[2 * i + 1] << 8);
    free(out.data);
    return pcm;
}

static const char mutagen_script[] =
    "import json, sys\n"
    "from mutagen.mp3 import MP3\n"
    "from mutagen.mp3._util import XingHeader\n"
    "info = MP3(sys.argv[1]).info\n"
    "f = open(sys.argv[1], 'rb')\n"
    "f.seek(info.frame_offset + XingHeader.get_offset(info))\n"
    "x = XingHeader(f)\n"
    "print(json.dumps({'samples': round(info.length * info.sample_rate), 'frames': x.frames,\n"
    "                  'bytes': x.bytes, 'delay': x.lame_header.encoder_delay_start,\n"
    "                  'padding': x.lame_header.encoder_padding_end,\n"
    "                  'mode': str(info.bitrate_mode), 'encoder': info.encoder_info}))\n";

static void judge_mutagen(const char *path, size_t samples, size_t stream_bytes, unsigned spf)
{
    char *argv[] = { "/usr/bin/python3", "-c", (char *)mutagen_script, (char *)path, NULL };
    bytes out;
    json_error_t error;
    CHECK_INT(run_capture(argv, &out), 0);
    json_t *root = out.data ? json_loadb((const char *)out.data, out.len, 0, &error) : NULL;
    CHECK(root != NULL);
    free(out.data);
    if (!root)
        return;
    CHECK_INT(json_integer_value(json_object_get(root, "samples")), samples);
    CHECK_INT(json_integer_value(json_object_get(root, "delay")), 576);
    CHECK_INT(json_integer_value(json_object_get(root, "bytes")), stream_bytes);
    long long frames = json_integer_value(json_object_get(root, "frames"));
    long long padding = json_integer_value(json_object_get(root, "padding"));
    CHECK(padding >= 0 && padding < 2 * (long long)spf);
    CHECK_INT(frames * spf, 576 + (long long)samples + padding);
    CHECK_STR(json_string_value(json_object_get(root, "mode")), "BitrateMode.CBR");
    json_decref(root);
}

static uint16_t crc16(const unsigned char *p, size_t n)
{
    unsigned crc = 0;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xA001 : crc >> 1;
    }
    return (uint16_t)crc;
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The LAME tag of the parallel file against the serial one: every byte equal except the music
 * CRC and the tag CRC, which must be right for the parallel bytes. Also the same length. */
static void judge_tag(const char *parallel, const char *serial, unsigned side_len)
{
    bytes p = { 0 }, s = { 0 };   /* s stays empty when p cannot be read */
    CHECK(read_file(parallel, &p) && read_file(serial, &s));
    CHECK_INT(p.len, s.len);
    size_t x = id3_len + side_len;     /* "Info" */
    if (p.len < x + 160 || s.len < x + 160) {
        CHECK(0);
        free(p.data);
        free(s.data);
        return;
    }
    CHECK(memcmp(p.data, id3_tag, id3_len) == 0);
    CHECK(memcmp(p.data + x, "Info", 4) == 0);
    CHECK(memcmp(p.data + id3_len, s.data + id3_len, side_len + 152) == 0);
    CHECK(memcmp(p.data + x + 156, s.data + x + 156, 16) == 0);
    /* The tag frame's length from its header: MPEG-1 144000, else 72000 * kbps / rate. */
    static const int br1[] = { 0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320 };
    static const int br2[] = { 0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160 };
    static const unsigned rates[4][3] = { { 11025, 12000, 8000 }, { 0, 0, 0 },
                                          { 22050, 24000, 16000 }, { 44100, 48000, 32000 } };
    const unsigned char *h = p.data + id3_len;
    int version = (h[1] >> 3) & 3, mpeg1 = version == 3;
    unsigned rate = rates[version][(h[2] >> 2) & 3];
    int kbps = (mpeg1 ? br1 : br2)[h[2] >> 4];
    size_t tag_frame = (size_t)(mpeg1 ? 144000 : 72000) * (size_t)kbps / rate;
    CHECK_INT(be32(p.data + x + 12), p.len - id3_len);               /* bytes */
    CHECK_INT(be32(p.data + x + 148), p.len - id3_len);              /* music length */
    unsigned music_crc = (unsigned)p.data[x + 152] << 8 | p.data[x + 153];
    unsigned tag_crc = (unsigned)p.data[x + 154] << 8 | p.data[x + 155];
    CHECK_INT(music_crc, crc16(p.data + id3_len + tag_frame, p.len - id3_len - tag_frame));
    CHECK_INT(tag_crc, crc16(p.data + id3_len, side_len + 154));
    free(p.data);
    free(s.data);
}

typedef struct error_profile {
    double *window;          /* squared error per 10 ms window */
    size_t count;
    double total, signal;
} error_profile;

static void profile(error_profile *e, const int16_t *src, const int16_t *dec, size_t n)
{
    e->count = n / WINDOW;
    e->window = calloc(e->count ? e->count : 1, sizeof *e->window);
    e->total = e->signal = 0;
    for (size_t i = 0; i < e->count * WINDOW; i++) {
        double d = (double)dec[i] - src[i];
        e->window[i / WINDOW] += d * d;
        e->total += d * d;
        e->signal += (double)src[i] * src[i];
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The quality gate. Around each splice (3 frames either side of where the switch frame
 * decodes to), every 10 ms window's error must be within the parallel file's 99th percentile
 * elsewhere or within twice (3 dB) the serial encoder's error in the same window; the error
 * over the region must be within region_db (1.5 dB with the default priming and overrun) of
 * the serial one; overall SNR within 0.1 dB. */
static void judge_splices(const char *label, const signal_pcm *sig, const int16_t *serial,
                          const int16_t *parallel, const uint64_t *splice_at, size_t splices,
                          unsigned spf, double region_db)
{
    error_profile a, b;
    profile(&a, sig->pcm, serial, sig->n);
    profile(&b, sig->pcm, parallel, sig->n);
    char *near = calloc(b.count ? b.count : 1, 1);
    double *far = malloc((b.count ? b.count : 1) * sizeof *far);
    for (size_t k = 0; k < splices; k++) {
        long long c = (long long)splice_at[k] * spf - 576 - DECODER_DELAY;
        for (long long w = (c - 3 * (long long)spf) / WINDOW; w <= (c + 3 * (long long)spf) / WINDOW; w++)
            if (w >= 0 && (size_t)w < b.count)
                near[w] = 1;
    }
    size_t far_count = 0;
    for (size_t w = 0; w < b.count; w++)
        if (!near[w])
            far[far_count++] = b.window[w];
    qsort(far, far_count, sizeof *far, by_value);
    double p99 = far_count ? far[far_count * 99 / 100] : 0;
    size_t loud = 0, checked = 0;
    for (size_t w = 0; w < b.count; w++) {
        if (!near[w])
            continue;
        checked++;
        if (b.window[w] > p99 && b.window[w] > 2 * a.window[w] + WINDOW) {
            loud++;
            fprintf(stderr, "%s: window at %.3f s: error %.0f, serial %.0f, P99 elsewhere %.0f\n",
                    label, (double)w * WINDOW / sig->rate, b.window[w], a.window[w], p99);
        }
    }
    CHECK_INT(loud, 0);
    double worst = -99;
    for (size_t k = 0; k < splices; k++) {
        long long c = (long long)splice_at[k] * spf - 576 - DECODER_DELAY;
        double ea = 0, eb = 0;
        long long lo = c - 3 * (long long)spf, hi = c + 3 * (long long)spf;
        for (long long i = lo < 0 ? 0 : lo; i < hi && (size_t)i < sig->n; i++) {
            double x = sig->pcm[i];
            ea += (serial[i] - x) * (serial[i] - x);
            eb += (parallel[i] - x) * (parallel[i] - x);
        }
        double db = 10 * log10((eb + (double)(hi - lo)) / (ea + (double)(hi - lo)));
        if (db > worst)
            worst = db;
        if (db > region_db)
            fprintf(stderr, "%s: splice at frame %llu: %.2f dB more error than serial\n", label,
                    (unsigned long long)splice_at[k], db);
        CHECK(db <= region_db);
    }
    double snr_a = 10 * log10(a.signal / (a.total > 0 ? a.total : 1));
    double snr_b = 10 * log10(b.signal / (b.total > 0 ? b.total : 1));
    printf("%s: %zu splices, %zu windows near them; SNR serial %.2f dB, parallel %.2f dB; "
           "worst splice region %+.2f dB vs serial\n", label, splices, checked, snr_a, snr_b,
           splices ? worst : 0.0);
    CHECK(snr_b >= snr_a - 0.1);
    free(near);
    free(far);
    free(a.window);
    free(b.window);
}

/* ---- the cases -------------------------------------------------------------------------- */

/* Encodes sig on 2, 3 and 4 workers with `tuning` and judges everything; `reference` is the
 * serial file of the same input. */
static void judge_parallel(const char *label, const signal_pcm *sig, int fd,
                           const re_mp3_settings *s, const re_mp3_parallel_tuning *tuning,
                           const char *reference, int expect_splices, double region_db)
{
    char p2[320], p2b[320], p3[320], p4[320];
    snprintf(p2, sizeof p2, "%s/%s-2.mp3", dir, label);
    snprintf(p2b, sizeof p2b, "%s/%s-2b.mp3", dir, label);
    snprintf(p3, sizeof p3, "%s/%s-3.mp3", dir, label);
    snprintf(p4, sizeof p4, "%s/%s-4.mp3", dir, label);
    uint64_t at[512];
    re_mp3_parallel_stats stats = { .splice_at = at, .splice_capacity = 512 };
    CHECK_INT(encode(p2, fd, sig, s, 2, tuning, &stats), RE_OK);
    CHECK_INT(encode(p2b, fd, sig, s, 2, tuning, NULL), RE_OK);
    CHECK_INT(encode(p3, fd, sig, s, 3, tuning, NULL), RE_OK);
    CHECK_INT(encode(p4, fd, sig, s, 4, tuning, NULL), RE_OK);
    CHECK(same_file(p2, p2b));           /* deterministic ... */
    CHECK(same_file(p2, p3));            /* ... and the same for any number of workers */
    CHECK(same_file(p2, p4));
    printf("%s: %zu pieces, %zu splices (%zu seamless), %llu frames, %llu encoded "
           "(%llu by the writer)\n", label, stats.pieces, stats.splices, stats.seamless_splices,
           (unsigned long long)stats.stream_frames, (unsigned long long)stats.encoded_frames,
           (unsigned long long)stats.extension_frames);
    if (expect_splices)
        CHECK(stats.splices > 0);
    CHECK(stats.splices <= 512);
    unsigned spf = sig->rate >= 32000 ? 1152 : 576;
    unsigned side_len = 4 + (sig->rate >= 32000 ? 17 : 9);
    CHECK(stats.encoded_frames >= stats.stream_frames);
    judge_tag(p2, reference, side_len);
    struct stat st;
    CHECK(stat(p2, &st) == 0);
    judge_mutagen(p2, sig->n, (size_t)st.st_size - id3_len, spf);
    int16_t *serial = decode("ffmpeg", reference, sig->n);
    int16_t *parallel = decode("ffmpeg", p2, sig->n);
    int16_t *by_mpg123 = decode("mpg123", p2, sig->n);
    if (serial && parallel)
        judge_splices(label, sig, serial, parallel, at,
                      stats.splices < 512 ? stats.splices : 512, spf, region_db);
    if (parallel && by_mpg123) {
        /* Both decoders put every sample in the same place (to within rounding). */
        size_t off = 0;
        for (size_t i = 0; i < sig->n; i++)
            off += abs(parallel[i] - by_mpg123[i]) > 2;
        CHECK(off < sig->n / 1000);
    }
    free(serial);
    free(parallel);
    free(by_mpg123);
}

static void test_speech(void)
{
    signal_pcm sig = { 0 };
    if (!make_speech(&sig, quick ? 8 * 22050 : sanitized ? 30 * 22050 : 120 * 22050))
        return;
    CHECK_INT(sig.rate, 22050);
    printf("speech: %zu samples (%.1f s)\n", sig.n, (double)sig.n / sig.rate);
    int fd = write_spool(&sig, "speech.raw");
    CHECK(fd >= 0);
    re_mp3_settings s = { RE_MP3_DEFAULT_BITRATE, -1 };
    char serial[320], reference[320];
    snprintf(serial, sizeof serial, "%s/speech-1.mp3", dir);
    snprintf(reference, sizeof reference, "%s/speech-ref.mp3", dir);

    /* workers <= 1: the serial encoder, byte for byte. */
    CHECK_INT(encode(serial, fd, &sig, &s, 1, NULL, NULL), RE_OK);
    CHECK_INT(encode_reference(reference, &sig, &s), RE_OK);
    CHECK(same_file(serial, reference));
    char zero[320];
    snprintf(zero, sizeof zero, "%s/speech-0.mp3", dir);
    CHECK_INT(encode(zero, fd, &sig, &s, 0, NULL, NULL), RE_OK);
    CHECK(same_file(zero, reference));

    /* One piece through the piece machinery: LAME's own tag, rebuilt, so the serial bytes. */
    re_mp3_parallel_tuning one = { .piece_frames = 100000, .force_pieces = 1 };
    char single[320];
    snprintf(single, sizeof single, "%s/speech-single.mp3", dir);
    CHECK_INT(encode(single, fd, &sig, &s, 2, &one, NULL), RE_OK);
    CHECK(same_file(single, reference));

    /* The default plan (a few pieces for a minute of speech), then many small pieces. */
    judge_parallel("speech-default", &sig, fd, &s, NULL, reference, !quick, 1.5);
    /* The same pieces on one thread (a batch that keeps the other cores busy): the same bytes. */
    re_mp3_parallel_tuning one_thread = { .threads = 1 };
    char threaded[320], lone[320];
    snprintf(threaded, sizeof threaded, "%s/speech-default-2.mp3", dir);
    snprintf(lone, sizeof lone, "%s/speech-one-thread.mp3", dir);
    CHECK_INT(encode(lone, fd, &sig, &s, 2, &one_thread, NULL), RE_OK);
    CHECK(same_file(lone, threaded));
    /* A short episode is encoded as two halves (8 s: two cores for a one-paragraph render);
     * under about 5 s it is one piece, the serial bytes. */
    signal_pcm short8 = sig, short4 = sig;
    short8.n = 8 * 22050;
    short4.n = 4 * 22050;
    re_mp3_parallel_stats halves = { 0 }, whole = { 0 };
    char p8[320], p4[320], r4[320];
    snprintf(p8, sizeof p8, "%s/speech-8s.mp3", dir);
    snprintf(p4, sizeof p4, "%s/speech-4s.mp3", dir);
    snprintf(r4, sizeof r4, "%s/speech-4s-ref.mp3", dir);
    CHECK_INT(encode(p8, fd, &short8, &s, 2, NULL, &halves), RE_OK);
    CHECK_INT(halves.pieces, 2);
    CHECK_INT(encode(p4, fd, &short4, &s, 2, NULL, &whole), RE_OK);
    CHECK_INT(whole.pieces, 0);
    CHECK_INT(encode_reference(r4, &short4, &s), RE_OK);
    CHECK(same_file(p4, r4));
    re_mp3_parallel_tuning small = { .piece_frames = 98 };
    judge_parallel("speech-small", &sig, fd, &s, &small, reference, 1, 1.5);
    /* One frame of overrun: the writer often has to encode on to find a switch. With so
     * short an overlap the later encoder has settled for only a few frames at the switch,
     * which costs up to about 2 dB more error over those 35 ms (the reason the default
     * overlap is 32 frames): still no click, but the region bound is 3 dB here. */
    re_mp3_parallel_tuning tight = { .piece_frames = 49, .overrun_frames = 1 };
    judge_parallel("speech-tight", &sig, fd, &s, &tight, reference, 1, 3.0);

    /* The fallback: no switch is ever allowed, so the first encoder encodes everything and
     * the bytes are the serial ones; a smaller margin forces frequent extensions. */
    re_mp3_parallel_tuning never = { .piece_frames = 98, .splice_margin = 1000 };
    re_mp3_parallel_stats stats = { 0 };
    char fallback[320];
    snprintf(fallback, sizeof fallback, "%s/speech-never.mp3", dir);
    CHECK_INT(encode(fallback, fd, &sig, &s, 3, &never, &stats), RE_OK);
    CHECK(same_file(fallback, reference));
    CHECK_INT(stats.splices, 0);
    CHECK(stats.extension_frames > 0);
    re_mp3_parallel_tuning margin = { .piece_frames = 98, .overrun_frames = 2, .splice_margin = 60 };
    judge_parallel("speech-margin", &sig, fd, &s, &margin, reference, 0, 1.5);
    close(fd);
    free(sig.pcm);
}

/* Squared error of dec against src over [lo, hi). */
static double error_over(const int16_t *src, const int16_t *dec, size_t lo, size_t hi)
{
    double e = 0;
    for (size_t i = lo; i < hi; i++)
        e += ((double)dec[i] - src[i]) * ((double)dec[i] - src[i]);
    return e;
}

/* Issue 18's local retry: a window of the input turned down by 6 dB, re-encoded in place in
 * the parallel file of the original. The patched file keeps its size, LAME tag fields and
 * CRCs (judge_tag), decodes (ffmpeg and mpg123) to exactly the samples fed in, is the
 * original's decoded audio (mpg123) away from the window, and around it carries the changed input
 * with no more error than a whole encode of the changed input has there (+1.5 dB). */
static void test_patch(void)
{
    signal_pcm sig = { 0 };
    if (!make_speech(&sig, quick ? 8 * 22050 : 40 * 22050))
        return;
    size_t a = sig.n * 2 / 5, b = a + 22050 / 10;          /* 100 ms at 40 % of the way */
    signal_pcm changed = sig;
    changed.pcm = malloc(sig.n * sizeof *sig.pcm);
    if (!changed.pcm) {
        CHECK(0);
        free(sig.pcm);
        return;
    }
    memcpy(changed.pcm, sig.pcm, sig.n * sizeof *sig.pcm);
    for (size_t i = a; i < b; i++)
        changed.pcm[i] = (int16_t)(changed.pcm[i] / 2);
    int fd = write_spool(&sig, "patch.raw"), changed_fd = write_spool(&changed, "patch-changed.raw");
    CHECK(fd >= 0 && changed_fd >= 0);
    re_mp3_settings s = { RE_MP3_DEFAULT_BITRATE, -1 };
    char original[320], whole[320], patched[320], again[320], serial[320];
    snprintf(original, sizeof original, "%s/patch-original.mp3", dir);
    snprintf(whole, sizeof whole, "%s/patch-whole.mp3", dir);
    snprintf(patched, sizeof patched, "%s/patch-patched.mp3", dir);
    snprintf(again, sizeof again, "%s/patch-again.mp3", dir);
    snprintf(serial, sizeof serial, "%s/patch-serial.mp3", dir);
    CHECK_INT(encode(original, fd, &sig, &s, 2, NULL, NULL), RE_OK);
    CHECK_INT(encode(whole, changed_fd, &changed, &s, 2, NULL, NULL), RE_OK);
    CHECK_INT(encode_reference(serial, &changed, &s), RE_OK);
    const uint64_t ranges[1][2] = { { a, b } };
    for (int k = 0; k < 2; k++) {
        const char *path = k ? again : patched;
        char *cp[] = { "cp", original, (char *)path, NULL };
        bytes ignored = { 0 };
        CHECK_INT(run_capture(cp, &ignored), 0);
        free(ignored.data);
        FILE *out = fopen(path, "r+b");
        CHECK(out != NULL);
        if (!out)
            continue;
        re_diagnostics diag;
        re_diagnostics_init(&diag, 0);
        re_mp3_encoding encoding = { .sample_rate = changed.rate, .settings = s };
        re_mp3_file file = { out, NULL, id3_len };
        re_mp3_patch patch = { ranges, 1, NULL };
        CHECK_INT(re_mp3_patch_fd(&encoding, (re_mp3_pcm){ changed_fd, changed.n }, &file, &patch,
                                  &diag), RE_OK);
        if (diag.count)
            fprintf(stderr, "patch: %s\n", diag_last(&diag));
        re_diagnostics_free(&diag);
        CHECK_INT(fclose(out), 0);
    }
    CHECK(same_file(patched, again));                         /* deterministic */
    CHECK(!same_file(patched, original));
    judge_tag(patched, serial, 13);
    /* ffmpeg must decode the patched file's length exactly (decode checks it); the
     * comparisons are between mpg123's decodes (two decoders round differently) */
    int16_t *dec_ffmpeg = decode("ffmpeg", patched, sig.n);
    int16_t *dec_original = decode("mpg123", original, sig.n);
    int16_t *dec_whole = decode("mpg123", whole, sig.n);
    int16_t *dec_patched = decode("mpg123", patched, sig.n);
    if (dec_original && dec_whole && dec_patched && dec_ffmpeg) {
        /* the changed samples' frames, from 6 frames before (and LAME's look-ahead) to the
         * switch out, which may come up to 256 + 28 frames after them */
        size_t lo = a > 60 * 576 ? a - 60 * 576 : 0, hi = b + 300 * 576 < sig.n ? b + 300 * 576 : sig.n;
        size_t first_diff = sig.n, last_diff = 0;
        for (size_t i = 0; i < sig.n; i++)
            if (dec_patched[i] != dec_original[i]) {
                first_diff = i < first_diff ? i : first_diff;
                last_diff = i;
            }
        CHECK(first_diff >= lo && first_diff < a + 576);
        CHECK(last_diff < hi && last_diff >= b);
        size_t r0 = first_diff, r1 = last_diff + 1;
        double mine = error_over(changed.pcm, dec_patched, r0, r1);
        double full = error_over(changed.pcm, dec_whole, r0, r1);
        double db = 10 * log10((mine + (double)(r1 - r0)) / (full + (double)(r1 - r0)));
        printf("patch: %.3f..%.3f s re-encoded for a change at %.3f..%.3f s; error %+.2f dB "
               "against a whole encode of the changed input there\n",
               (double)r0 / sig.rate, (double)r1 / sig.rate, (double)a / sig.rate,
               (double)b / sig.rate, db);
        CHECK(db <= 1.5);
    } else
        CHECK(0);
    free(dec_original);
    free(dec_whole);
    free(dec_patched);
    free(dec_ffmpeg);
    close(fd);
    close(changed_fd);
    free(changed.pcm);
    free(sig.pcm);
}

/* The same judges at an MPEG-1 rate (1152-sample frames, 9-bit main_data_begin) and an
 * MPEG-2.5 rate, on a signal that is hard on the bit reservoir. */
static void test_rates(void)
{
    static const struct { unsigned rate; int kbps; const char *label; } cases[] = {
        { 22050, 64, "synthetic-22050" }, { 44100, 128, "synthetic-44100" },
        { 11025, 32, "synthetic-11025" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        signal_pcm sig = { 0 };
        if (!make_synthetic(&sig, cases[i].rate, quick ? 4.0 : sanitized ? 10.0 : 20.0))
            continue;
        int fd = write_spool(&sig, "synthetic.raw");
        CHECK(fd >= 0);
        re_mp3_settings s = { cases[i].kbps, -1 };
        char reference[320];
        snprintf(reference, sizeof reference, "%s/%s-ref.mp3", dir, cases[i].label);
        CHECK_INT(encode(reference, fd, &sig, &s, 1, NULL, NULL), RE_OK);
        re_mp3_parallel_tuning small = { .piece_frames = 20 };   /* rounded up to 49 */
        judge_parallel(cases[i].label, &sig, fd, &s, &small, reference, 1, 1.5);
        close(fd);
        free(sig.pcm);
    }
}

/* The default piece: 1/16 of the episode's frames, clamped to 512..3136 frames, then rounded
 * up to LAME's padding cycle (49 frames at 22050 Hz, 64 kbps). What the clamp decides shows in
 * the plan (stats: pieces, and where each splice takes the later encoder, from its piece's
 * first kept frame on), and the file must still be exact: the serial file's length and tag
 * fields, and every sample decoded by ffmpeg and mpg123 (mutagen reads the tag).
 *   - upper: 16 x 3136 frames of audio give 3136 exactly (the edge, unclamped); one sample
 *     more is 3137 frames' worth, clamped to 3136 (unclamped it would round up to 3185);
 *   - lower: 16 x 490 frames would give 490 (a multiple of 49): clamped to 512, rounded to
 *     539, 15 pieces instead of 16. Between 491 and 539 the rounding alone gives 539, so the
 *     minimum's exact value (anything from 491 to 539) cannot be seen from outside. */
static void judge_default_plan(const char *label, size_t samples, size_t want_pieces,
                               uint64_t want_len)
{
    signal_pcm sig = { 0 };
    if (!make_synthetic(&sig, 22050, (double)samples / 22050.0 + 1.0))
        return;
    sig.n = samples;
    int fd = write_spool(&sig, "clamp.raw");
    CHECK(fd >= 0);
    re_mp3_settings s = { 64, -1 };
    char path[320], reference[320];
    snprintf(path, sizeof path, "%s/%s.mp3", dir, label);
    snprintf(reference, sizeof reference, "%s/%s-serial.mp3", dir, label);
    uint64_t at[64];
    re_mp3_parallel_stats stats = { .splice_at = at, .splice_capacity = 64 };
    CHECK_INT(encode(path, fd, &sig, &s, 2, NULL, &stats), RE_OK);
    CHECK_INT(encode(reference, fd, &sig, &s, 1, NULL, NULL), RE_OK);
    printf("%s: %zu samples (%llu frames), %zu pieces, %zu splices (%zu seamless), first at "
           "frame %llu, %llu frames by the writer\n", label, samples,
           (unsigned long long)((samples + 575) / 576), stats.pieces, stats.splices,
           stats.seamless_splices, (unsigned long long)(stats.splices ? at[0] : 0),
           (unsigned long long)stats.extension_frames);
    CHECK_INT(stats.pieces, want_pieces);
    CHECK(stats.splices > 0 && stats.splices < want_pieces && stats.splices <= 64);
    /* a switch lies in the overlap of piece k and k+1: from k+1's first kept frame on, within
     * the earlier encoder's overrun (none had to be extended on this signal) */
    CHECK_INT(stats.extension_frames, 0);
    for (size_t k = 0; k < stats.splices && k < 64; k++) {
        uint64_t start = (at[k] - 4) / want_len * want_len;   /* the piece it switched to */
        CHECK(start > 0 && at[k] >= start + 4 && at[k] <= start + 4 + 28);
        if (k > 0)
            CHECK(start > (at[k - 1] - 4) / want_len * want_len);
    }
    CHECK((at[0] - 4) / want_len == 1);
    judge_tag(path, reference, 4 + 9);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    judge_mutagen(path, samples, (size_t)st.st_size - id3_len, 576);
    free(decode("ffmpeg", path, samples));
    free(decode("mpg123", path, samples));
    close(fd);
    free(sig.pcm);
}

static void test_piece_clamp(void)
{
    judge_default_plan("clamp-max-edge", 16 * 3136 * 576, 16, 3136);
    judge_default_plan("clamp-max-past", 16 * 3136 * 576 + 1, 16, 3136);
    judge_default_plan("clamp-min", 16 * 490 * 576, 15, 539);
}

static void test_errors(void)
{
    signal_pcm sig = { 0 };
    if (!make_synthetic(&sig, 22050, 3.0))
        return;
    int fd = write_spool(&sig, "errors.raw");
    re_mp3_settings s = { 64, -1 };
    char path[320];
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    snprintf(path, sizeof path, "%s/errors.mp3", dir);
    re_mp3_parallel_tuning small = { .piece_frames = 20 };

    /* Interrupted before it starts, on both paths. */
    volatile sig_atomic_t stop = 1;
    re_mp3_pcm pcm = { fd, sig.n };
    for (unsigned workers = 1; workers <= 2; workers++) {
        re_mp3_file file = { .out = fopen(path, "wb") };
        re_mp3_encoding encoding = { 22050, s, workers, small, &stop };
        CHECK_INT(re_mp3_encode_fd(&encoding, pcm, &file, NULL, &diag), RE_ERR_INTERRUPTED);
        CHECK_INT(diag.count, 0);   /* an interruption says nothing more */
        fclose(file.out);
    }
    /* A spool shorter than announced. */
    for (unsigned workers = 1; workers <= 2; workers++) {
        re_mp3_file file = { .out = fopen(path, "wb") };
        re_mp3_encoding encoding = { 22050, s, workers, small, NULL };
        CHECK_INT(re_mp3_encode_fd(&encoding, (re_mp3_pcm){ fd, sig.n + 50000 }, &file, NULL,
                                   &diag), RE_ERR_READ);
        CHECK(strstr(diag_last(&diag), "audio spool") != NULL);
        CHECK_INT(diag.count, 1);   /* the first failure, from whichever thread */
        CHECK(diag.items[0].file == NULL);
        diag_clear(&diag);
        fclose(file.out);
    }
    /* Settings the serial encoder refuses are refused with its reason. */
    re_mp3_settings low = { 48, -1 };
    re_mp3_file file = { .out = fopen(path, "wb") }, no_stream = { .out = NULL };
    re_mp3_encoding two = { .sample_rate = 22050, .settings = low, .workers = 2 };
    CHECK_INT(re_mp3_encode_fd(&two, pcm, &file, NULL, &diag), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&diag),
              "bitrate 48 kbps is too low to carry the LAME tag at 22050 Hz; use 56..160");
    two.settings = s;
    CHECK_INT(re_mp3_encode_fd(NULL, pcm, &file, NULL, &diag), RE_ERR_INVALID);
    CHECK_INT(re_mp3_encode_fd(&two, pcm, &no_stream, NULL, &diag), RE_ERR_INVALID);
    CHECK_INT(re_mp3_encode_fd(&two, pcm, NULL, NULL, &diag), RE_ERR_INVALID);
    CHECK_INT(re_mp3_encode_fd(&two, (re_mp3_pcm){ -1, sig.n }, &file, NULL, &diag),
              RE_ERR_INVALID);
    fclose(file.out);
    /* A pipe cannot take the tag frame written back. */
    int fds[2];
    CHECK(pipe(fds) == 0);
    re_mp3_file piped = { .out = fdopen(fds[1], "wb") };
    CHECK_INT(re_mp3_encode_fd(&two, pcm, &piped, NULL, &diag), RE_ERR_INVALID);
    CHECK_STR(diag_last(&diag), "the MP3 output cannot seek (a pipe?)");
    re_diagnostics_free(&diag);
    fclose(piped.out);
    close(fds[0]);
    /* Nothing to encode: a valid, empty file (ffmpeg 5.1 decodes 529 samples of it, mpg123
     * honours the tag's delay and padding). */
    signal_pcm empty = { sig.pcm, 0, 22050 };
    CHECK_INT(encode(path, fd, &empty, &s, 2, NULL, NULL), RE_OK);
    int16_t *none = decode("mpg123", path, 0);
    free(none);
    close(fd);
    free(sig.pcm);
}

int main(void)
{
    const char *q = getenv("RE_TEST_QUICK");
    quick = q && *q && strcmp(q, "0") != 0;
    const char *san = getenv("RE_SANITIZED");
    sanitized = san && *san && strcmp(san, "0") != 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/re-test-mp3-parallel.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    re_id3_fields fields = { .title = "Parallel \xE2\x80\x93 test", .length_ms = 1000 };
    CHECK_INT(re_id3_build(&fields, &id3_tag, &id3_len), RE_OK);

    test_speech();
    test_patch();
    test_rates();
    test_piece_clamp();
    test_errors();

    free(id3_tag);
    char *rm[] = { "rm", "-rf", dir, NULL };
    bytes ignored;
    run_capture(rm, &ignored);
    free(ignored.data);
    return check_finish("test_mp3_parallel");
}
