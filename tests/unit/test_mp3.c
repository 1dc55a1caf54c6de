/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_mp3.c - encodes a synthetic sine through mp3.c with a full ID3 tag and judges the file
 * with tools we did not write: ffmpeg and mpg123 must decode exactly the samples fed in (and
 * in place: the encoder delay is removed), mutagen and ffprobe must read our tag and chapters.
 * A tool that cannot be run fails the test. Also: byte-identical re-encodes, the settings
 * check, and write/seek failures. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "testkit.h"
#include "testrun.h"
#include "id3.h"
#include "mp3.h"

#define RATE 22050u
#define SAMPLES (22050 + 12345)
#define LENGTH_MS 1560    /* 34395 samples at 22.05 kHz = 1559.86 ms */
#define TITLE "Caf\xC3\xA9 \xE2\x80\x93 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x8E\xA7"
#define COMMENT "Notes: \xC3\xA4\xC3\xB6\xC3\xBC \xE2\x9C\x93"
#define CHAPTER1 "\xC3\x9C" "ber \xF0\x9F\x8E\xA7"

static const re_id3_chapter chapters[] = {
    { "Intro", 0, 500 },
    { CHAPTER1, 500, 1200 },
    { "End", 1200, LENGTH_MS },
};

static int16_t *make_sine(size_t n)
{
    int16_t *pcm = malloc(n * sizeof *pcm);
    if (!pcm)
        return NULL;
    for (size_t i = 0; i < n; i++)
        pcm[i] = (int16_t)lrint(16000.0 * sin(2.0 * M_PI * 440.0 * (double)i / RATE));
    return pcm;
}

static re_status encode_file(const char *path, const int16_t *pcm, size_t n,
                             const re_mp3_settings *settings, size_t *tag_len)
{
    char tsse[128];
    re_mp3_describe(RATE, settings, tsse, sizeof tsse);
    re_id3_fields fields = {
        .title = TITLE, .artist = "Render Bot", .published = "2026-07-14T13:00:41Z",
        .comment = COMMENT, .encoder_settings = tsse, .length_ms = LENGTH_MS,
        .chapters = chapters, .chapter_count = 3,
    };
    unsigned char *tag = NULL;
    re_mp3_encoder *enc = NULL;
    FILE *out = NULL;
    re_status st = re_id3_build(&fields, &tag, tag_len);
    if (st != RE_OK)
        goto done;
    out = fopen(path, "wb");
    if (!out) {
        st = RE_ERR_WRITE;
        goto done;
    }
    st = re_mp3_encoder_create(out, RATE, settings, tag, *tag_len, &enc);
    if (st != RE_OK)
        goto done;
    /* Uneven pieces, one larger than the encoder's internal chunk. */
    size_t pieces[] = { 1, 1000, 7, 20000 };
    size_t at = 0;
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0] && st == RE_OK; i++) {
        st = re_mp3_encoder_write(enc, pcm + at, pieces[i]);
        at += pieces[i];
    }
    if (st == RE_OK)
        st = re_mp3_encoder_write(enc, pcm + at, n - at);
    if (st == RE_OK)
        st = re_mp3_encoder_finish(enc);
done:
    re_mp3_encoder_free(enc);
    if (out && fclose(out) != 0 && st == RE_OK)
        st = RE_ERR_WRITE;
    free(tag);
    return st;
}

/* Decoded s16 mono must have exactly n samples and line up with the input: a residual far
 * below the signal (a shift by the 576-sample encoder delay would nearly invert a 440 Hz
 * sine at 22.05 kHz). */
static void check_decoded(const char *tool, const bytes *pcm_bytes, const int16_t *pcm, size_t n)
{
    CHECK_INT(pcm_bytes->len, 2 * n);
    if (pcm_bytes->len != 2 * n) {
        fprintf(stderr, "%s decoded %zu bytes, expected %zu\n", tool, pcm_bytes->len, 2 * n);
        return;
    }
    double signal = 0, residual = 0;
    for (size_t i = 0; i < n; i++) {
        int16_t decoded;
        memcpy(&decoded, pcm_bytes->data + 2 * i, 2);
        signal += (double)pcm[i] * pcm[i];
        residual += ((double)decoded - pcm[i]) * ((double)decoded - pcm[i]);
    }
    double snr_db = 10.0 * log10(signal / (residual > 0 ? residual : 1e-9));
    printf("%s: SNR %.1f dB\n", tool, snr_db);
    CHECK(snr_db > 20.0);
}

static void judge_ffmpeg(const char *path, const int16_t *pcm, size_t n)
{
    char *argv[] = { "ffmpeg", "-nostdin", "-v", "error", "-i", (char *)path, "-f", "s16le",
                     "-acodec", "pcm_s16le", "-ac", "1", "-", NULL };
    bytes out;
    CHECK_INT(run_capture(argv, &out), 0);
    check_decoded("ffmpeg", &out, pcm, n);
    free(out.data);
}

static void judge_mpg123(const char *path, const int16_t *pcm, size_t n)
{
    /* -s: raw s16 to stdout at the native rate and channel count; --gapless is the default
     * in Debian's build but is asked for explicitly. */
    char *argv[] = { "mpg123", "-q", "--gapless", "-e", "s16", "-s", (char *)path, NULL };
    bytes out;
    CHECK_INT(run_capture(argv, &out), 0);
    check_decoded("mpg123", &out, pcm, n);
    free(out.data);
}

static json_t *run_json(char *const argv[])
{
    bytes out;
    json_error_t error;
    int rc = run_capture(argv, &out);
    CHECK_INT(rc, 0);
    json_t *root = rc == 0 ? json_loadb((const char *)out.data, out.len, 0, &error) : NULL;
    if (rc == 0 && !root)
        fprintf(stderr, "%s: bad JSON (%s): %s\n", argv[0], error.text, (char *)out.data);
    CHECK(root != NULL);
    free(out.data);
    return root;
}

static const char *jstr(json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static long long jint(json_t *obj, const char *key)
{
    json_t *value = json_object_get(obj, key);
    return json_is_integer(value) ? (long long)json_integer_value(value) : -1;
}

static const char mutagen_script[] =
    "import json, sys\n"
    "from mutagen.id3 import ID3\n"
    "from mutagen.mp3 import MP3\n"
    "raw = ID3(sys.argv[1], translate=False)\n"
    "out = {'version': '%d.%d.%d' % raw.version}\n"
    "for key in ('TIT2', 'TPE1', 'TYER', 'TDAT', 'TIME', 'TLEN', 'TSSE'):\n"
    "    out[key] = [str(t) for t in raw[key].text]\n"
    "    out[key + '.encoding'] = int(raw[key].encoding)\n"
    "out['COMM'] = [[c.lang, c.desc, str(c)] for c in raw.getall('COMM')]\n"
    "out['CHAP'] = [{'id': c.element_id, 'start': c.start_time, 'end': c.end_time,\n"
    "                'start_offset': c.start_offset, 'end_offset': c.end_offset,\n"
    "                'title': str(c.sub_frames['TIT2'])} for c in raw.getall('CHAP')]\n"
    "out['CTOC'] = [{'id': c.element_id, 'flags': int(c.flags),\n"
    "                'children': list(c.child_element_ids)} for c in raw.getall('CTOC')]\n"
    "out['TDRC'] = str(ID3(sys.argv[1])['TDRC'])\n"
    "info = MP3(sys.argv[1]).info\n"
    "out['info'] = {'rate': info.sample_rate, 'channels': info.channels,\n"
    "               'bitrate': info.bitrate, 'mode': str(info.bitrate_mode),\n"
    "               'encoder': info.encoder_info, 'samples': round(info.length * info.sample_rate)}\n"
    "print(json.dumps(out))\n";

static void judge_mutagen(const char *path, const re_mp3_settings *settings)
{
    char *argv[] = { "/usr/bin/python3", "-c", (char *)mutagen_script, (char *)path, NULL };
    json_t *root = run_json(argv);
    if (!root)
        return;
    char tsse[128];
    re_mp3_describe(RATE, settings, tsse, sizeof tsse);
    struct { const char *key, *value; } texts[] = {
        { "TIT2", TITLE }, { "TPE1", "Render Bot" }, { "TYER", "2026" }, { "TDAT", "1407" },
        { "TIME", "1300" }, { "TLEN", "1560" }, { "TSSE", tsse },
    };
    CHECK_STR(jstr(root, "version"), "2.3.0");
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_t *list = json_object_get(root, texts[i].key);
        char key[32];
        CHECK_INT(json_array_size(list), 1);
        CHECK_STR(json_string_value(json_array_get(list, 0)), texts[i].value);
        snprintf(key, sizeof key, "%s.encoding", texts[i].key);
        CHECK_INT(jint(root, key), 1);
    }
    json_t *comm = json_object_get(root, "COMM");
    CHECK_INT(json_array_size(comm), 1);
    CHECK_STR(json_string_value(json_array_get(json_array_get(comm, 0), 0)), "eng");
    CHECK_STR(json_string_value(json_array_get(json_array_get(comm, 0), 1)), "");
    CHECK_STR(json_string_value(json_array_get(json_array_get(comm, 0), 2)), COMMENT);

    json_t *chap = json_object_get(root, "CHAP");
    CHECK_INT(json_array_size(chap), 3);
    for (size_t i = 0; i < 3 && i < json_array_size(chap); i++) {
        json_t *c = json_array_get(chap, i);
        char id[8];
        snprintf(id, sizeof id, "chp%zu", i);
        CHECK_STR(jstr(c, "id"), id);
        CHECK_INT(jint(c, "start"), chapters[i].start_ms);
        CHECK_INT(jint(c, "end"), chapters[i].end_ms);
        CHECK_INT(jint(c, "start_offset"), 0xFFFFFFFFu);
        CHECK_INT(jint(c, "end_offset"), 0xFFFFFFFFu);
        CHECK_STR(jstr(c, "title"), chapters[i].title);
    }
    json_t *ctoc = json_object_get(root, "CTOC");
    CHECK_INT(json_array_size(ctoc), 1);
    json_t *toc = json_array_get(ctoc, 0);
    CHECK_STR(jstr(toc, "id"), "toc");
    CHECK_INT(jint(toc, "flags"), 3);
    json_t *children = json_object_get(toc, "children");
    CHECK_INT(json_array_size(children), 3);
    CHECK_STR(json_string_value(json_array_get(children, 0)), "chp0");
    CHECK_STR(json_string_value(json_array_get(children, 1)), "chp1");
    CHECK_STR(json_string_value(json_array_get(children, 2)), "chp2");
    /* mutagen's own v2.4 translation of TYER + TDAT + TIME. */
    CHECK_STR(jstr(root, "TDRC"), "2026-07-14 13:00:00");

    json_t *info = json_object_get(root, "info");
    CHECK_INT(jint(info, "rate"), RATE);
    CHECK_INT(jint(info, "channels"), 1);
    /* mutagen derives the bitrate from bytes and length: 63996 for this file. */
    CHECK(llabs(jint(info, "bitrate") - settings->bitrate_kbps * 1000) < 100);
    CHECK_STR(jstr(info, "mode"), "BitrateMode.CBR");
    /* mutagen spells the LAME tag's version "LAME 3.100.0+". */
    CHECK(jstr(info, "encoder") && strncmp(jstr(info, "encoder"), "LAME 3.100", 10) == 0);
    CHECK_INT(jint(info, "samples"), SAMPLES);
    json_decref(root);
}

static void judge_ffprobe(const char *path)
{
    char *argv[] = { "ffprobe", "-v", "error", "-show_chapters", "-show_format", "-of", "json",
                     (char *)path, NULL };
    json_t *root = run_json(argv);
    if (!root)
        return;
    json_t *list = json_object_get(root, "chapters");
    CHECK_INT(json_array_size(list), 3);
    for (size_t i = 0; i < 3 && i < json_array_size(list); i++) {
        json_t *c = json_array_get(list, i);
        char start[32], end[32];
        snprintf(start, sizeof start, "%u.%03u000", chapters[i].start_ms / 1000,
                 chapters[i].start_ms % 1000);
        snprintf(end, sizeof end, "%u.%03u000", chapters[i].end_ms / 1000,
                 chapters[i].end_ms % 1000);
        CHECK_STR(jstr(c, "time_base"), "1/1000");
        CHECK_INT(jint(c, "start"), chapters[i].start_ms);
        CHECK_INT(jint(c, "end"), chapters[i].end_ms);
        CHECK_STR(jstr(c, "start_time"), start);
        CHECK_STR(jstr(c, "end_time"), end);
        CHECK_STR(jstr(json_object_get(c, "tags"), "title"), chapters[i].title);
    }
    json_t *format = json_object_get(root, "format");
    CHECK_STR(jstr(format, "format_name"), "mp3");
    json_t *tags = json_object_get(format, "tags");
    CHECK_STR(jstr(tags, "title"), TITLE);
    CHECK_STR(jstr(tags, "comment"), COMMENT);
    json_decref(root);
}

/* Our own look at the LAME tag frame right after the ID3 tag: an MPEG-2 Layer III mono
 * frame with "Info" (CBR) after the 13 bytes of header + side info, "LAME3.100", and
 * frames * 576 = delay + samples + padding. */
static void check_lametag(const char *path, size_t tag_len)
{
    bytes file;
    CHECK(read_file(path, &file));
    const unsigned char *f = file.data + tag_len;
    CHECK(file.len > tag_len + 200);
    if (file.len <= tag_len + 200) {
        free(file.data);
        return;
    }
    CHECK(f[0] == 0xFF && (f[1] & 0xF0) == 0xF0);
    CHECK(memcmp(f + 13, "Info", 4) == 0);
    uint32_t frames = (uint32_t)f[21] << 24 | (uint32_t)f[22] << 16 | (uint32_t)f[23] << 8 | f[24];
    uint32_t stream_bytes = (uint32_t)f[25] << 24 | (uint32_t)f[26] << 16 | (uint32_t)f[27] << 8 |
                            f[28];
    CHECK_INT(stream_bytes, file.len - tag_len);
    const unsigned char *lame = f + 13 + 120;
    CHECK(memcmp(lame, "LAME3.100", 9) == 0);
    unsigned delay = (unsigned)lame[21] << 4 | lame[22] >> 4;
    unsigned padding = ((unsigned)lame[22] & 0x0F) << 8 | lame[23];
    printf("LAME tag: %u frames, delay %u, padding %u\n", frames, delay, padding);
    CHECK_INT(delay, 576);
    CHECK_INT((unsigned long long)frames * 576, delay + SAMPLES + padding);
    free(file.data);
}

/* The settings check with a fresh list, so that `said` holds what this call said. */
static re_diagnostics said;

static re_status check_settings(unsigned rate, const re_mp3_settings *s)
{
    diag_clear(&said);
    return re_mp3_check_settings(rate, s, &said);
}

static void test_settings(void)
{
    re_mp3_settings s = { 32, -1 };
    CHECK_INT(check_settings(RATE, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 32 kbps is too low to carry the LAME tag at 22050 Hz; use 56..160");
    s.bitrate_kbps = 48;
    CHECK_INT(check_settings(RATE, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 48 kbps is too low to carry the LAME tag at 22050 Hz; use 56..160");
    s.bitrate_kbps = 56;
    CHECK_INT(check_settings(RATE, &s), RE_OK);
    CHECK_INT(said.count, 0);
    s.bitrate_kbps = 64;
    CHECK_INT(check_settings(RATE, &s), RE_OK);
    s.bitrate_kbps = 160;
    CHECK_INT(check_settings(RATE, &s), RE_OK);
    s.bitrate_kbps = 192;    /* MPEG-1 only: LAME would quietly encode 160 */
    CHECK_INT(check_settings(RATE, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 192 kbps is not a valid MPEG Layer III bitrate at 22050 Hz "
              "(valid: 8 16 24 32 40 48 56 64 80 96 112 128 144 160)");
    s.bitrate_kbps = 50;
    CHECK_INT(check_settings(44100, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 50 kbps is not a valid MPEG Layer III bitrate at 44100 Hz "
              "(valid: 32 40 48 56 64 80 96 112 128 160 192 224 256 320)");
    s.bitrate_kbps = 48;
    CHECK_INT(check_settings(44100, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 48 kbps is too low to carry the LAME tag at 44100 Hz; use 56..320");
    s.bitrate_kbps = 56;
    CHECK_INT(check_settings(24000, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 56 kbps is too low to carry the LAME tag at 24000 Hz; use 64..160");
    s.bitrate_kbps = 32;
    CHECK_INT(check_settings(16000, &s), RE_ERR_ENCODER);
    CHECK_STR(diag_last(&said),
              "bitrate 32 kbps is too low to carry the LAME tag at 16000 Hz; use 40..160");
    s.bitrate_kbps = 64;
    CHECK_INT(check_settings(22051, &s), RE_ERR_ENCODER);
    CHECK(strstr(diag_last(&said), "22051 Hz is not an MPEG audio rate") != NULL);
    s.quality = 10;
    CHECK_INT(check_settings(RATE, &s), RE_ERR_ENCODER);
    CHECK(strstr(diag_last(&said), "quality 10") != NULL);
    s.quality = 7;
    CHECK_INT(re_mp3_check_settings(RATE, &s, NULL), RE_OK);   /* no list: no messages */
    CHECK_INT(check_settings(RATE, NULL), RE_ERR_INVALID);
    CHECK_INT(said.count, 0);
    /* A message names no file: the caller knows which output the settings are for. */
    s.bitrate_kbps = 48;
    s.quality = -1;
    CHECK_INT(check_settings(RATE, &s), RE_ERR_ENCODER);
    CHECK_INT(said.count, 1);
    CHECK(said.items[0].file == NULL);
    re_diagnostics_free(&said);

    char tsse[128];
    s.bitrate_kbps = 64;
    re_mp3_describe(RATE, &s, tsse, sizeof tsse);
    CHECK_STR(tsse, "LAME 3.100, 64 kbps CBR, mono, 22050 Hz");
    s.quality = 2;
    re_mp3_describe(RATE, &s, tsse, sizeof tsse);
    CHECK_STR(tsse, "LAME 3.100, 64 kbps CBR, mono, 22050 Hz, quality 2");
}

static void test_stream_errors(const int16_t *pcm)
{
    re_mp3_settings s = { 64, -1 };
    re_mp3_encoder *enc = NULL;
    static const unsigned char tag[10] = "ID3\x03";

    /* A full disk surfaces as RE_ERR_WRITE, at the latest when the tag frame is written back. */
    FILE *full = fopen("/dev/full", "wb");
    CHECK(full != NULL);
    if (full) {
        re_status st = re_mp3_encoder_create(full, RATE, &s, tag, sizeof tag, &enc);
        if (st == RE_OK) {
            st = re_mp3_encoder_write(enc, pcm, SAMPLES);
            if (st == RE_OK)
                st = re_mp3_encoder_finish(enc);
        }
        CHECK_INT(st, RE_ERR_WRITE);
        /* The error sticks. */
        if (enc)
            CHECK_INT(re_mp3_encoder_finish(enc), RE_ERR_WRITE);
        re_mp3_encoder_free(enc);
        enc = NULL;
        fclose(full);
    }

    /* A pipe cannot be seeked: refused up front. */
    int fds[2];
    CHECK(pipe(fds) == 0);
    FILE *w = fdopen(fds[1], "wb");
    CHECK(w != NULL);
    if (w) {
        CHECK_INT(re_mp3_encoder_create(w, RATE, &s, NULL, 0, &enc), RE_ERR_INVALID);
        CHECK(enc == NULL);
        fclose(w);
    }
    close(fds[0]);

    /* Settings the check refuses are refused by create too; wrong call order is INVALID. */
    FILE *null = fopen("/dev/null", "wb");
    CHECK(null != NULL);
    if (null) {
        re_mp3_settings low = { 48, -1 };
        CHECK_INT(re_mp3_encoder_create(null, RATE, &low, NULL, 0, &enc), RE_ERR_ENCODER);
        CHECK(enc == NULL);
        CHECK_INT(re_mp3_encoder_create(null, RATE, &s, NULL, 5, &enc), RE_ERR_INVALID);
        CHECK_INT(re_mp3_encoder_create(NULL, RATE, &s, NULL, 0, &enc), RE_ERR_INVALID);
        CHECK_INT(re_mp3_encoder_create(null, RATE, &s, NULL, 0, &enc), RE_OK);
        if (enc) {
            CHECK_INT(re_mp3_encoder_write(enc, NULL, 1), RE_ERR_INVALID);
            CHECK_INT(re_mp3_encoder_write(enc, pcm, 0), RE_OK);
            CHECK_INT(re_mp3_encoder_finish(enc), RE_OK);
            CHECK_INT(re_mp3_encoder_finish(enc), RE_ERR_INVALID);
            CHECK_INT(re_mp3_encoder_write(enc, pcm, 10), RE_ERR_INVALID);
        }
        re_mp3_encoder_free(enc);
        enc = NULL;
        /* free without finish is allowed. */
        CHECK_INT(re_mp3_encoder_create(null, RATE, &s, NULL, 0, &enc), RE_OK);
        if (enc)
            CHECK_INT(re_mp3_encoder_write(enc, pcm, 5000), RE_OK);
        re_mp3_encoder_free(enc);
        fclose(null);
    }
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096], first[4200], second[4200];
    snprintf(dir, sizeof dir, "%s/test_mp3.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(first, sizeof first, "%s/first.mp3", dir);
    snprintf(second, sizeof second, "%s/second.mp3", dir);

    int16_t *pcm = make_sine(SAMPLES);
    CHECK(pcm != NULL);
    if (!pcm)
        return check_finish("test_mp3");

    test_settings();

    re_mp3_settings settings = { RE_MP3_DEFAULT_BITRATE, -1 };
    size_t tag_len = 0, tag_len2 = 0;
    re_status st = encode_file(first, pcm, SAMPLES, &settings, &tag_len);
    CHECK_INT(st, RE_OK);
    if (st == RE_OK) {
        check_lametag(first, tag_len);
        judge_ffmpeg(first, pcm, SAMPLES);
        judge_mpg123(first, pcm, SAMPLES);
        judge_mutagen(first, &settings);
        judge_ffprobe(first);

        /* Same PCM and settings: the same bytes. */
        CHECK_INT(encode_file(second, pcm, SAMPLES, &settings, &tag_len2), RE_OK);
        bytes a, b;
        CHECK(read_file(first, &a));
        CHECK(read_file(second, &b));
        CHECK(a.data && b.data && a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
        free(a.data);
        free(b.data);
    }

    test_stream_errors(pcm);

    unlink(first);
    unlink(second);
    rmdir(dir);
    free(pcm);
    return check_finish("test_mp3");
}
