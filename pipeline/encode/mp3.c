/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mp3.c - the MP3 encoding stage on libmp3lame: CBR mono, our ID3v2 tag in front, and LAME's
 * Xing/Info + LAME tag frame written back over its placeholder once the length is known.
 *
 * LAME's message callbacks are replaced by no-ops: a stage never prints, and every failure
 * is reported through re_status instead. */
#include "mp3.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <lame/lame.h>

/* Samples handed to LAME per call, and the output buffer the LAME docs ask for:
 * 1.25 * samples + 7200 bytes (also enough for lame_encode_flush). */
#define CHUNK_SAMPLES 8192
#define CHUNK_BUFFER_BYTES (CHUNK_SAMPLES + CHUNK_SAMPLES / 4 + 7200)

/* The largest Layer III frame (MPEG-1, 320 kbps, 32 kHz, padded) is 1441 bytes; LAME's own
 * buffer for the tag frame is 2880. */
#define LAMETAG_MAX_BYTES 2880

/* Samples fed to the probe encoder in re_mp3_check_settings: one MPEG-1 frame. */
#define PROBE_SAMPLES 1152

/* Layer III bitrates by MPEG version. MPEG-2.5 (8..12 kHz) shares the MPEG-2 table in the
 * standard, but LAME 3.100 silently lowers anything above 64 kbps at those rates, so only
 * what LAME really writes is offered. */
static const int bitrates_mpeg1[] = { 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320 };
static const int bitrates_mpeg2[] = { 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160 };
static const int bitrates_mpeg25[] = { 8, 16, 24, 32, 40, 48, 56, 64 };

typedef struct bitrate_list {
    const int *kbps;
    size_t count;
} bitrate_list;

#define TABLE(a) { a, sizeof a / sizeof a[0] }

/* The bitrates of the MPEG version that carries `sample_rate`; count 0 if none does. */
static bitrate_list bitrates_for_rate(unsigned sample_rate)
{
    static const bitrate_list none = { NULL, 0 };
    static const bitrate_list mpeg1 = TABLE(bitrates_mpeg1);
    static const bitrate_list mpeg2 = TABLE(bitrates_mpeg2);
    static const bitrate_list mpeg25 = TABLE(bitrates_mpeg25);
    switch (sample_rate) {
    case 32000: case 44100: case 48000: return mpeg1;
    case 16000: case 22050: case 24000: return mpeg2;
    case 8000: case 11025: case 12000: return mpeg25;
    default: return none;
    }
}

static int table_has(bitrate_list table, int kbps)
{
    for (size_t i = 0; i < table.count; i++) {
        if (table.kbps[i] == kbps)
            return 1;
    }
    return 0;
}

static void lame_quiet(const char *format, va_list args)
{
    (void)format;
    (void)args;
}

re_status re_mp3_lame_status(int code)
{
    return code == -2 ? RE_ERR_NOMEM : RE_ERR_ENCODER;    /* -2: LAME's malloc failed */
}

re_status re_mp3_lame_open(unsigned sample_rate, const re_mp3_settings *settings,
                           lame_global_flags **out)
{
    re_status status = RE_ERR_ENCODER;
    lame_global_flags *gf = lame_init();
    *out = NULL;
    if (!gf)
        return RE_ERR_NOMEM;
    if (lame_set_errorf(gf, lame_quiet) != 0 || lame_set_debugf(gf, lame_quiet) != 0 ||
        lame_set_msgf(gf, lame_quiet) != 0)
        goto fail;
    if (lame_set_num_channels(gf, 1) != 0 || lame_set_mode(gf, MONO) != 0 ||
        lame_set_in_samplerate(gf, (int)sample_rate) != 0 ||
        lame_set_out_samplerate(gf, (int)sample_rate) != 0 ||
        lame_set_VBR(gf, vbr_off) != 0 || lame_set_brate(gf, settings->bitrate_kbps) != 0 ||
        lame_set_bWriteVbrTag(gf, 1) != 0)
        goto fail;
    lame_set_write_id3tag_automatic(gf, 0);    /* returns void: read back below */
    if (lame_get_write_id3tag_automatic(gf) != 0)
        goto fail;
    if (settings->quality >= 0 && lame_set_quality(gf, settings->quality) != 0)
        goto fail;
    int rc = lame_init_params(gf);
    if (rc < 0) {
        status = re_mp3_lame_status(rc);
        goto fail;
    }
    if (lame_get_out_samplerate(gf) != (int)sample_rate ||
        lame_get_brate(gf) != settings->bitrate_kbps || lame_get_mode(gf) != MONO ||
        lame_get_VBR(gf) != vbr_off)
        goto fail;
    *out = gf;
    return RE_OK;
fail:
    lame_close(gf);
    return status;
}

/* Encodes a frame of silence through a throw-away encoder and reports the size of the LAME
 * tag frame it would write back: 0 when LAME dropped the tag because it does not fit in a
 * frame at this bitrate and rate (LAME only decides that once it starts writing). */
static re_status probe_lametag_size(unsigned sample_rate, const re_mp3_settings *settings,
                                    size_t *tag_size)
{
    static const short silence[PROBE_SAMPLES];
    unsigned char *mp3 = NULL;
    lame_global_flags *gf = NULL;
    re_status status = re_mp3_lame_open(sample_rate, settings, &gf);
    *tag_size = 0;
    if (status != RE_OK)
        goto done;
    mp3 = malloc(CHUNK_BUFFER_BYTES);
    if (!mp3) {
        status = RE_ERR_NOMEM;
        goto done;
    }
    int rc = lame_encode_buffer(gf, silence, silence, PROBE_SAMPLES, mp3, CHUNK_BUFFER_BYTES);
    if (rc >= 0)
        rc = lame_encode_flush(gf, mp3, CHUNK_BUFFER_BYTES);
    if (rc < 0) {
        status = re_mp3_lame_status(rc);
        goto done;
    }
    /* With a zero-sized buffer LAME returns the size it needs, or 0 without a tag. */
    *tag_size = lame_get_lametag_frame(gf, NULL, 0);
done:
    free(mp3);
    if (gf)
        lame_close(gf);
    return status;
}

static void list_bitrates(bitrate_list table, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < table.count && used < len; i++) {
        int n = snprintf(buf + used, len - used, "%s%d", i ? " " : "", table.kbps[i]);
        if (n < 0)
            return;
        used += (size_t)n;
    }
}

/* Like re_mp3_check_settings, and also returns the LAME tag frame size on success. diag may
 * be NULL (an encoder being created, for settings already checked). */
static re_status check_settings(unsigned sample_rate, const re_mp3_settings *settings,
                                re_diagnostics *diag, size_t *tag_size)
{
    char valid[128];
    if (!settings)
        return RE_ERR_INVALID;
    bitrate_list table = bitrates_for_rate(sample_rate);
    if (table.count == 0) {
        re_diag_add(diag, NULL, 0, 0, "sample rate %u Hz is not an MPEG audio rate (8000 11025 "
                    "12000 16000 22050 24000 32000 44100 48000)", sample_rate);
        return RE_ERR_ENCODER;
    }
    if (settings->quality < -1 || settings->quality > 9) {
        re_diag_add(diag, NULL, 0, 0, "quality %d is out of range (0 best .. 9 fastest, or -1 "
                    "for LAME's default)", settings->quality);
        return RE_ERR_ENCODER;
    }
    if (!table_has(table, settings->bitrate_kbps)) {
        list_bitrates(table, valid, sizeof valid);
        re_diag_add(diag, NULL, 0, 0, "bitrate %d kbps is not a valid MPEG Layer III bitrate at "
                    "%u Hz (valid: %s)", settings->bitrate_kbps, sample_rate, valid);
        return RE_ERR_ENCODER;
    }
    re_status status = probe_lametag_size(sample_rate, settings, tag_size);
    if (status == RE_ERR_ENCODER) {
        re_diag_add(diag, NULL, 0, 0, "LAME refused %d kbps CBR mono at %u Hz",
                    settings->bitrate_kbps, sample_rate);
        return status;
    }
    if (status != RE_OK || *tag_size != 0)
        return status;

    /* Too low: find the lowest bitrate that carries the tag (higher ones only grow the frame). */
    int lowest = 0;
    for (size_t i = 0; i < table.count && lowest == 0; i++) {
        re_mp3_settings higher = *settings;
        size_t size;
        if (table.kbps[i] <= settings->bitrate_kbps)
            continue;
        higher.bitrate_kbps = table.kbps[i];
        status = probe_lametag_size(sample_rate, &higher, &size);
        if (status == RE_ERR_NOMEM)
            return status;
        if (status == RE_OK && size != 0)
            lowest = table.kbps[i];
    }
    if (lowest)
        re_diag_add(diag, NULL, 0, 0,
                    "bitrate %d kbps is too low to carry the LAME tag at %u Hz; use %d..%d",
                    settings->bitrate_kbps, sample_rate, lowest, table.kbps[table.count - 1]);
    else
        re_diag_add(diag, NULL, 0, 0, "no bitrate carries the LAME tag at %u Hz", sample_rate);
    return RE_ERR_ENCODER;
}

int re_mp3_default_bitrate(unsigned sample_rate)
{
    return sample_rate <= 24000 ? RE_MP3_DEFAULT_BITRATE : 96;
}

re_status re_mp3_check_settings(unsigned sample_rate, const re_mp3_settings *settings,
                                re_diagnostics *diag)
{
    size_t tag_size;
    return check_settings(sample_rate, settings, diag, &tag_size);
}

void re_mp3_describe(unsigned sample_rate, const re_mp3_settings *settings, char *buf, size_t len)
{
    if (!buf || len == 0)
        return;
    if (!settings) {
        buf[0] = '\0';
        return;
    }
    if (settings->quality >= 0)
        snprintf(buf, len, "LAME %s, %d kbps CBR, mono, %u Hz, quality %d",
                 get_lame_short_version(), settings->bitrate_kbps, sample_rate, settings->quality);
    else
        snprintf(buf, len, "LAME %s, %d kbps CBR, mono, %u Hz", get_lame_short_version(),
                 settings->bitrate_kbps, sample_rate);
}

struct re_mp3_encoder {
    FILE *out;
    lame_global_flags *gf;
    unsigned char *buffer;     /* CHUNK_BUFFER_BYTES of LAME output */
    off_t lametag_offset;      /* where LAME's first frame, the tag placeholder, starts */
    size_t lametag_size;       /* its size, measured by check_settings */
    re_status error;           /* sticky: the first failure, returned by every later call */
    int finished;
};

static re_status write_bytes(FILE *out, const unsigned char *bytes, size_t len)
{
    if (len > 0 && fwrite(bytes, 1, len, out) != len)
        return RE_ERR_WRITE;
    return RE_OK;
}

re_status re_mp3_encoder_create(FILE *out, unsigned sample_rate, const re_mp3_settings *settings,
                                const unsigned char *tag, size_t tag_len, re_mp3_encoder **enc)
{
    re_mp3_encoder *e = NULL;
    re_status status;

    if (!enc)
        return RE_ERR_INVALID;
    *enc = NULL;
    if (!out || !settings || (tag_len > 0 && !tag))
        return RE_ERR_INVALID;
    e = calloc(1, sizeof *e);
    if (!e)
        return RE_ERR_NOMEM;
    e->out = out;
    if (ftello(out) < 0) {    /* the tag frame is written back: the stream must seek */
        status = errno == ESPIPE ? RE_ERR_INVALID : RE_ERR_WRITE;
        goto fail;
    }
    status = check_settings(sample_rate, settings, NULL, &e->lametag_size);
    if (status != RE_OK)
        goto fail;
    if (e->lametag_size == 0 || e->lametag_size > LAMETAG_MAX_BYTES) {
        status = RE_ERR_ENCODER;
        goto fail;
    }
    status = re_mp3_lame_open(sample_rate, settings, &e->gf);
    if (status != RE_OK)
        goto fail;
    e->buffer = malloc(CHUNK_BUFFER_BYTES);
    if (!e->buffer) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    status = write_bytes(out, tag, tag_len);
    if (status != RE_OK)
        goto fail;
    e->lametag_offset = ftello(out);
    if (e->lametag_offset < 0) {
        status = RE_ERR_WRITE;
        goto fail;
    }
    *enc = e;
    return RE_OK;
fail:
    re_mp3_encoder_free(e);
    return status;
}

re_status re_mp3_encoder_write(re_mp3_encoder *enc, const int16_t *pcm, size_t frames)
{
    if (!enc || (frames > 0 && !pcm))
        return RE_ERR_INVALID;
    if (enc->error != RE_OK)
        return enc->error;
    if (enc->finished)
        return RE_ERR_INVALID;
    while (frames > 0) {
        int n = frames > CHUNK_SAMPLES ? CHUNK_SAMPLES : (int)frames;
        int rc = lame_encode_buffer(enc->gf, pcm, pcm, n, enc->buffer, CHUNK_BUFFER_BYTES);
        if (rc < 0) {
            enc->error = re_mp3_lame_status(rc);
            return enc->error;
        }
        enc->error = write_bytes(enc->out, enc->buffer, (size_t)rc);
        if (enc->error != RE_OK)
            return enc->error;
        pcm += n;
        frames -= (size_t)n;
    }
    return RE_OK;
}

re_status re_mp3_encoder_finish(re_mp3_encoder *enc)
{
    if (!enc)
        return RE_ERR_INVALID;
    if (enc->error != RE_OK)
        return enc->error;
    if (enc->finished)
        return RE_ERR_INVALID;
    enc->finished = 1;

    re_status status;
    int rc = lame_encode_flush(enc->gf, enc->buffer, CHUNK_BUFFER_BYTES);
    if (rc < 0) {
        status = re_mp3_lame_status(rc);
        goto fail;
    }
    status = write_bytes(enc->out, enc->buffer, (size_t)rc);
    if (status != RE_OK)
        goto fail;

    /* The tag frame must be exactly the placeholder LAME wrote first, or it would overwrite
     * audio. */
    size_t size = lame_get_lametag_frame(enc->gf, enc->buffer, CHUNK_BUFFER_BYTES);
    if (size != enc->lametag_size) {
        status = RE_ERR_ENCODER;
        goto fail;
    }
    off_t end = ftello(enc->out);
    if (end < 0 || end - enc->lametag_offset < (off_t)size) {
        status = end < 0 ? RE_ERR_WRITE : RE_ERR_ENCODER;
        goto fail;
    }
    status = RE_ERR_WRITE;
    if (fseeko(enc->out, enc->lametag_offset, SEEK_SET) != 0)
        goto fail;
    if (fwrite(enc->buffer, 1, size, enc->out) != size)
        goto fail;
    if (fseeko(enc->out, 0, SEEK_END) != 0)
        goto fail;
    if (fflush(enc->out) != 0)
        goto fail;
    return RE_OK;
fail:
    enc->error = status;
    return status;
}

void re_mp3_encoder_free(re_mp3_encoder *enc)
{
    if (!enc)
        return;
    if (enc->gf)
        lame_close(enc->gf);
    free(enc->buffer);
    free(enc);
}
