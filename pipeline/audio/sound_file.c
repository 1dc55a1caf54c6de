/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sound_file.c - a sound file read whole, mixed to mono and resampled (see sound_file.h). */
#define _GNU_SOURCE   /* memmem */
#include "sound_file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sndfile.h>

#include "duration.h"
#include "files.h"
#include "loudness.h"
#include "mp3_decoder.h"
#include "resample.h"

#define DECODE_CHUNK 4096u  /* frames decoded at a time */

/* One message about the file, with no place: the caller knows the script's FILE:LINE:COL. */
#define sound_fail(diag, status, path, fmt, ...) \
    re_diag_fail((diag), (status), NULL, 0, 0, "sound file '%s': " fmt, (path), __VA_ARGS__)

/* Opens the file without blocking (files.h), or checks the one the caller opened (`given`, -1
 * for none), moving its path:0:0 messages into unplaced ones. */
static re_status open_file(const char *path, int given, int *fd, uint64_t *size,
                           re_diagnostics *diag)
{
    re_diagnostics local;
    re_diagnostics_init(&local, 4);
    re_status status = given >= 0 ? re_file_check_regular(given, path, size, &local)
                                  : re_file_open_regular(path, fd, size, &local);
    if (given >= 0 && status == RE_OK)
        *fd = given;
    for (size_t i = 0; status != RE_OK && i < local.count; i++)
        if (sound_fail(diag, status, path, "%s", local.items[i].message) == RE_ERR_NOMEM)
            status = RE_ERR_NOMEM;
    re_diagnostics_free(&local);
    return status;
}

/* Where decoded frames come from: libsndfile, or the MP3 reader (mp3_decoder.h). read fills up to
 * `frames` interleaved float frames and returns how many; 0 at the end or on an error (the
 * reader's own error state says which). */
typedef struct frame_reader {
    size_t (*read)(void *context, float *frames_out, size_t frames);
    void *context;
} frame_reader;

static size_t read_sndfile(void *context, float *out, size_t frames)
{
    sf_count_t got = sf_readf_float(context, out, (sf_count_t)frames);
    return got > 0 ? (size_t)got : 0;
}

/* An MP3 as the reader decodes it: a change of format after the first frame (what a run of
 * bytes that only look like frames gives) or any decoding error ends it with `end` set. */
typedef struct mp3_frames {
    re_mp3_reader *reader;
    unsigned channels;
    re_mp3_read end;     /* RE_MP3_READ_NEW_FORMAT or RE_MP3_READ_ERROR when it failed */
} mp3_frames;

static size_t read_mp3(void *context, float *out, size_t frames)
{
    mp3_frames *r = context;
    size_t want = frames * r->channels * sizeof *out, done = 0;
    while (done < want) {
        size_t got = 0;
        re_mp3_read rc = re_mp3_reader_read(r->reader, (unsigned char *)out + done, want - done,
                                            &got);
        done += got;
        if (rc == RE_MP3_READ_DONE)
            break;
        if (rc != RE_MP3_READ_OK) {
            r->end = rc;
            return 0;
        }
        if (got == 0)
            break;
    }
    return done / (r->channels * sizeof *out);
}

/* Decodes every frame, channels averaged, a chunk at a time, straight into the resampler:
 * only the output, at the episode's rate, is ever held whole (a small file can claim a rate of
 * hundreds of kHz: FLAC's silence takes a few bytes a block). *frames counts the source frames,
 * at most max_frames (one chunk more is read to know the file is longer: *too_long). */
static re_status decode_resampled(frame_reader reader, unsigned channels, unsigned source_rate,
                                  unsigned rate, uint64_t max_frames,
                                  volatile sig_atomic_t *stop, int16_t **out,
                                  size_t *out_len, uint64_t *frames, int *too_long)
{
    float *chunk = malloc((size_t)DECODE_CHUNK * channels * sizeof *chunk);
    float *mono = malloc((size_t)DECODE_CHUNK * sizeof *mono);
    re_resample_stream *stream = NULL;
    int16_t *buf = NULL;
    size_t len = 0, cap = 0;
    uint64_t used = 0;
    re_status status = chunk && mono ? re_resample_stream_create(source_rate, rate, &stream)
                                     : RE_ERR_NOMEM;
    *too_long = 0;
    while (status == RE_OK) {
        if (stop && *stop) {
            status = RE_ERR_INTERRUPTED;
            break;
        }
        size_t got = reader.read(reader.context, chunk, DECODE_CHUNK);
        if (got == 0)
            break;
        if (used + (uint64_t)got > max_frames) {
            used += (uint64_t)got;
            *too_long = 1;
            break;
        }
        for (size_t f = 0; f < got; f++) {
            double sum = 0;
            for (unsigned c = 0; c < channels; c++)
                sum += chunk[f * channels + c];
            float v = (float)(sum / channels);
            mono[f] = isfinite(v) ? v : 0.0f;
        }
        status = re_resample_stream_feed(stream, mono, got, &buf, &len, &cap);
        used += (uint64_t)got;
    }
    if (status == RE_OK && !*too_long && used > 0)
        status = re_resample_stream_feed(stream, NULL, 0, &buf, &len, &cap);
    free(chunk);
    free(mono);
    re_resample_stream_free(stream);
    *frames = used;   /* the work done, even when it fails */
    if (status != RE_OK) {
        free(buf);
        return status;
    }
    *out = buf;
    *out_len = len;
    return RE_OK;
}

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec
           && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ino == b->st_ino;
}

/* The containers and codecs a sound file may be (docs/script-format.md, "Sound files"), by
 * libsndfile's verdict on its header, never by its name: the other parsers libsndfile has
 * (AIFF, AU, IRCAM, PAF, VOC, XI, ...) are rarely used and never reached by a script. An MP3
 * is not in the table: libmpg123 reads it directly (read_mp3). */
static int allowed_format(int format)
{
    int major = format & SF_FORMAT_TYPEMASK, sub = format & SF_FORMAT_SUBMASK;
    switch (major) {
    case SF_FORMAT_WAV:
    case SF_FORMAT_WAVEX:
        return sub == SF_FORMAT_PCM_U8 || sub == SF_FORMAT_PCM_16 || sub == SF_FORMAT_PCM_24
               || sub == SF_FORMAT_PCM_32 || sub == SF_FORMAT_FLOAT || sub == SF_FORMAT_DOUBLE;
    case SF_FORMAT_FLAC:
        return sub == SF_FORMAT_PCM_S8 || sub == SF_FORMAT_PCM_16 || sub == SF_FORMAT_PCM_24;
    case SF_FORMAT_OGG:
        return sub == SF_FORMAT_VORBIS || sub == SF_FORMAT_OPUS;
    default:
        return 0;
    }
}

/* libsndfile's name of a major format or a subtype ("AIFF (Apple/SGI)", "Signed 16 bit PCM"). */
static const char *format_name(int format)
{
    SF_FORMAT_INFO info = { .format = format };
    if (sf_command(NULL, SFC_GET_FORMAT_INFO, &info, sizeof info) != 0 || !info.name)
        return "unknown";
    return info.name;
}

static ssize_t pread_all(int fd, unsigned char *buf, size_t len, off_t at)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, buf + done, len - done, at + (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

/* Ogg's page checksum: CRC-32, polynomial 0x04c11db7, MSB first, no reflection, init 0. The
 * table is a constant, not filled on first use: a library function may be called from two
 * threads at once, and a table filled lazily let the second use it half built. Entry i is i << 24
 * shifted through the polynomial eight times (a chained file written by libogg, in
 * test_sound_file, holds it to libogg's own checksums). */
static const uint32_t ogg_crc_table[256] = {
    0x00000000u, 0x04c11db7u, 0x09823b6eu, 0x0d4326d9u, 0x130476dcu, 0x17c56b6bu,
    0x1a864db2u, 0x1e475005u, 0x2608edb8u, 0x22c9f00fu, 0x2f8ad6d6u, 0x2b4bcb61u,
    0x350c9b64u, 0x31cd86d3u, 0x3c8ea00au, 0x384fbdbdu, 0x4c11db70u, 0x48d0c6c7u,
    0x4593e01eu, 0x4152fda9u, 0x5f15adacu, 0x5bd4b01bu, 0x569796c2u, 0x52568b75u,
    0x6a1936c8u, 0x6ed82b7fu, 0x639b0da6u, 0x675a1011u, 0x791d4014u, 0x7ddc5da3u,
    0x709f7b7au, 0x745e66cdu, 0x9823b6e0u, 0x9ce2ab57u, 0x91a18d8eu, 0x95609039u,
    0x8b27c03cu, 0x8fe6dd8bu, 0x82a5fb52u, 0x8664e6e5u, 0xbe2b5b58u, 0xbaea46efu,
    0xb7a96036u, 0xb3687d81u, 0xad2f2d84u, 0xa9ee3033u, 0xa4ad16eau, 0xa06c0b5du,
    0xd4326d90u, 0xd0f37027u, 0xddb056feu, 0xd9714b49u, 0xc7361b4cu, 0xc3f706fbu,
    0xceb42022u, 0xca753d95u, 0xf23a8028u, 0xf6fb9d9fu, 0xfbb8bb46u, 0xff79a6f1u,
    0xe13ef6f4u, 0xe5ffeb43u, 0xe8bccd9au, 0xec7dd02du, 0x34867077u, 0x30476dc0u,
    0x3d044b19u, 0x39c556aeu, 0x278206abu, 0x23431b1cu, 0x2e003dc5u, 0x2ac12072u,
    0x128e9dcfu, 0x164f8078u, 0x1b0ca6a1u, 0x1fcdbb16u, 0x018aeb13u, 0x054bf6a4u,
    0x0808d07du, 0x0cc9cdcau, 0x7897ab07u, 0x7c56b6b0u, 0x71159069u, 0x75d48ddeu,
    0x6b93dddbu, 0x6f52c06cu, 0x6211e6b5u, 0x66d0fb02u, 0x5e9f46bfu, 0x5a5e5b08u,
    0x571d7dd1u, 0x53dc6066u, 0x4d9b3063u, 0x495a2dd4u, 0x44190b0du, 0x40d816bau,
    0xaca5c697u, 0xa864db20u, 0xa527fdf9u, 0xa1e6e04eu, 0xbfa1b04bu, 0xbb60adfcu,
    0xb6238b25u, 0xb2e29692u, 0x8aad2b2fu, 0x8e6c3698u, 0x832f1041u, 0x87ee0df6u,
    0x99a95df3u, 0x9d684044u, 0x902b669du, 0x94ea7b2au, 0xe0b41de7u, 0xe4750050u,
    0xe9362689u, 0xedf73b3eu, 0xf3b06b3bu, 0xf771768cu, 0xfa325055u, 0xfef34de2u,
    0xc6bcf05fu, 0xc27dede8u, 0xcf3ecb31u, 0xcbffd686u, 0xd5b88683u, 0xd1799b34u,
    0xdc3abdedu, 0xd8fba05au, 0x690ce0eeu, 0x6dcdfd59u, 0x608edb80u, 0x644fc637u,
    0x7a089632u, 0x7ec98b85u, 0x738aad5cu, 0x774bb0ebu, 0x4f040d56u, 0x4bc510e1u,
    0x46863638u, 0x42472b8fu, 0x5c007b8au, 0x58c1663du, 0x558240e4u, 0x51435d53u,
    0x251d3b9eu, 0x21dc2629u, 0x2c9f00f0u, 0x285e1d47u, 0x36194d42u, 0x32d850f5u,
    0x3f9b762cu, 0x3b5a6b9bu, 0x0315d626u, 0x07d4cb91u, 0x0a97ed48u, 0x0e56f0ffu,
    0x1011a0fau, 0x14d0bd4du, 0x19939b94u, 0x1d528623u, 0xf12f560eu, 0xf5ee4bb9u,
    0xf8ad6d60u, 0xfc6c70d7u, 0xe22b20d2u, 0xe6ea3d65u, 0xeba91bbcu, 0xef68060bu,
    0xd727bbb6u, 0xd3e6a601u, 0xdea580d8u, 0xda649d6fu, 0xc423cd6au, 0xc0e2d0ddu,
    0xcda1f604u, 0xc960ebb3u, 0xbd3e8d7eu, 0xb9ff90c9u, 0xb4bcb610u, 0xb07daba7u,
    0xae3afba2u, 0xaafbe615u, 0xa7b8c0ccu, 0xa379dd7bu, 0x9b3660c6u, 0x9ff77d71u,
    0x92b45ba8u, 0x9675461fu, 0x8832161au, 0x8cf30badu, 0x81b02d74u, 0x857130c3u,
    0x5d8a9099u, 0x594b8d2eu, 0x5408abf7u, 0x50c9b640u, 0x4e8ee645u, 0x4a4ffbf2u,
    0x470cdd2bu, 0x43cdc09cu, 0x7b827d21u, 0x7f436096u, 0x7200464fu, 0x76c15bf8u,
    0x68860bfdu, 0x6c47164au, 0x61043093u, 0x65c52d24u, 0x119b4be9u, 0x155a565eu,
    0x18197087u, 0x1cd86d30u, 0x029f3d35u, 0x065e2082u, 0x0b1d065bu, 0x0fdc1becu,
    0x3793a651u, 0x3352bbe6u, 0x3e119d3fu, 0x3ad08088u, 0x2497d08du, 0x2056cd3au,
    0x2d15ebe3u, 0x29d4f654u, 0xc5a92679u, 0xc1683bceu, 0xcc2b1d17u, 0xc8ea00a0u,
    0xd6ad50a5u, 0xd26c4d12u, 0xdf2f6bcbu, 0xdbee767cu, 0xe3a1cbc1u, 0xe760d676u,
    0xea23f0afu, 0xeee2ed18u, 0xf0a5bd1du, 0xf464a0aau, 0xf9278673u, 0xfde69bc4u,
    0x89b8fd09u, 0x8d79e0beu, 0x803ac667u, 0x84fbdbd0u, 0x9abc8bd5u, 0x9e7d9662u,
    0x933eb0bbu, 0x97ffad0cu, 0xafb010b1u, 0xab710d06u, 0xa6322bdfu, 0xa2f33668u,
    0xbcb4666du, 0xb8757bdau, 0xb5365d03u, 0xb1f740b4u
};

static uint32_t ogg_crc(const unsigned char *data, size_t len)
{
    uint32_t crc = 0;
    for (size_t i = 0; i < len; i++)
        crc = (crc << 8) ^ ogg_crc_table[((crc >> 24) ^ data[i]) & 0xff];
    return crc;
}

#define OGG_PAGE_MAX (27 + 255 + 255 * 255)

/* How many logical streams begin in an Ogg file (pages with the beginning-of-stream flag),
 * found as libogg finds pages: at a capture pattern "OggS" whose page checksum holds, anywhere
 * in the file. libsndfile plays the first stream only, so a chained file (streams one after
 * another, as `cat a.ogg b.ogg` makes) would lose the rest without a word. -1: a read error,
 * -2 no memory. */
static long ogg_streams(int fd, uint64_t size, volatile sig_atomic_t *stop)
{
    unsigned char *page = malloc(OGG_PAGE_MAX);
    if (!page)
        return -2;
    long streams = 0;
    uint64_t at = 0;
    while (at + 27 <= size) {
        if (stop && *stop)
            break;
        ssize_t n = pread_all(fd, page, OGG_PAGE_MAX, (off_t)at);
        if (n < 0) {
            streams = -1;
            break;
        }
        if (n < 27)
            break;
        size_t skip = 1;   /* where the next capture pattern may start */
        if (memcmp(page, "OggS", 4) == 0 && page[4] == 0 && (size_t)n >= 27u + page[26]) {
            size_t body = 0, header = 27u + page[26];
            for (unsigned i = 0; i < page[26]; i++)
                body += page[27 + i];
            if (header + body <= (size_t)n) {
                uint32_t stored = (uint32_t)page[22] | (uint32_t)page[23] << 8
                                  | (uint32_t)page[24] << 16 | (uint32_t)page[25] << 24;
                memset(page + 22, 0, 4);
                if (ogg_crc(page, header + body) == stored) {
                    if (page[5] & 0x02)
                        streams++;
                    skip = header + body;
                }
            }
        }
        if (skip == 1) {   /* not a page here: on to the next "OggS" in what was read */
            unsigned char *next = memmem(page + 1, (size_t)n - 1, "OggS", 4);
            skip = next ? (size_t)(next - page) : (size_t)n > 3 ? (size_t)n - 3 : 1;
        }
        at += skip;
    }
    free(page);
    return streams;
}

/* An MP3 starts with an ID3v2 tag or an MPEG audio frame's sync (11 bits set): libmpg123
 * reads it. Anything else goes to libsndfile, whose own MP3 reader is not used (it lets
 * libmpg123 print, and takes bytes that only look like frames for audio). */
static int starts_as_mp3(const unsigned char *head, ssize_t n)
{
    return (n >= 3 && memcmp(head, "ID3", 3) == 0)
           || (n >= 2 && head[0] == 0xff && (head[1] & 0xe0) == 0xe0);
}

re_status re_sound_load(const char *path, unsigned rate, re_sound *out, re_diagnostics *diag)
{
    return re_sound_load_until(path, rate, NULL, out, diag);
}

static re_status load_until(const char *path, int given, unsigned rate,
                            volatile sig_atomic_t *stop, uint64_t *budget_frames,
                            re_sound *out, re_diagnostics *diag);

re_status re_sound_load_until(const char *path, unsigned rate, volatile sig_atomic_t *stop,
                              re_sound *out, re_diagnostics *diag)
{
    return load_until(path, -1, rate, stop, NULL, out, diag);
}

re_status re_sound_load_fd_until(int fd, const char *path, unsigned rate,
                                 volatile sig_atomic_t *stop, re_sound *out,
                                 re_diagnostics *diag)
{
    if (fd < 0)
        return RE_ERR_INVALID;
    return load_until(path, fd, rate, stop, NULL, out, diag);
}

re_status re_sound_load_fd_budget(int fd, const char *path, unsigned rate,
                                  volatile sig_atomic_t *stop, uint64_t *budget_us,
                                  re_sound *out, re_diagnostics *diag)
{
    if (fd < 0)
        return RE_ERR_INVALID;
    return load_until(path, fd, rate, stop, budget_us, out, diag);
}

static re_status load_until(const char *path, int given, unsigned rate,
                            volatile sig_atomic_t *stop, uint64_t *budget_us,
                            re_sound *out, re_diagnostics *diag)
{
    int fd = -1;
    uint64_t size = 0;
    SNDFILE *sf = NULL;
    re_mp3_reader *mp3_reader = NULL;
    mp3_frames mp3 = { NULL, 0, RE_MP3_READ_OK };
    struct stat before, after;
    re_status status;

    if (!out || !path || rate == 0) {
        if (given >= 0)
            (void)close(given);
        if (out)
            memset(out, 0, sizeof *out);
        return RE_ERR_INVALID;
    }
    memset(out, 0, sizeof *out);
    status = open_file(path, given, &fd, &size, diag);
    if (status != RE_OK)
        return status;
    if (size > RE_SOUND_MAX_BYTES) {   /* before a byte is read: a sparse file costs nothing */
        status = sound_fail(diag, RE_ERR_LIMIT, path, "is %llu bytes, more than %llu (1 GiB), "
                            "the limit for a sound file", (unsigned long long)size,
                            (unsigned long long)RE_SOUND_MAX_BYTES);
        goto fail;
    }
    if (fstat(fd, &before) != 0) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "cannot read the file");
        goto fail;
    }
    if (size == 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "is empty: no audio to play");
        goto fail;
    }
    unsigned char head[4];
    ssize_t head_len = pread_all(fd, head, sizeof head, 0);
    unsigned channels = 0, source_rate = 0;
    frame_reader reader;
    if (starts_as_mp3(head, head_len)) {
        re_diagnostics local;
        re_diagnostics_init(&local, 2);
        status = re_mp3_reader_open(fd, (off_t)size, RE_MP3_FLOAT, RE_MP3_NO_RESYNC, &mp3_reader,
                                    &local);
        for (size_t i = 0; status != RE_OK && i < local.count; i++)
            if (sound_fail(diag, status, path, "%s", local.items[i].message) == RE_ERR_NOMEM)
                status = RE_ERR_NOMEM;
        re_diagnostics_free(&local);
        if (status != RE_OK)
            goto fail;
        re_mp3_format fmt;
        re_mp3_format_problem problem = re_mp3_reader_format(mp3_reader, &fmt);
        if (problem != RE_MP3_FORMAT_OK) {
            status = sound_fail(diag, RE_ERR_FORMAT, path, "is not an MP3 (MPEG-1/2 layer III, "
                                "mono or stereo) that libmpg123 decodes: %s",
                                problem == RE_MP3_NOT_LAYER3 ? "not layer III"
                                : re_mp3_reader_read_errno(mp3_reader)
                                ? strerror(re_mp3_reader_read_errno(mp3_reader))
                                : re_mp3_reader_strerror(mp3_reader));
            goto fail;
        }
        channels = (unsigned)fmt.channels;
        source_rate = (unsigned)fmt.rate;
        mp3 = (mp3_frames){ mp3_reader, channels, RE_MP3_READ_OK };
        reader = (frame_reader){ read_mp3, &mp3 };
    } else {
        /* libsndfile's verdict on the header first: what is not audio is refused before its
         * bytes are hashed (pread: libsndfile's position in the file stays where it is) */
        SF_INFO info;
        memset(&info, 0, sizeof info);
        sf = sf_open_fd(fd, SFM_READ, &info, 0);
        if (!sf) {
            status = sound_fail(diag, RE_ERR_FORMAT, path,
                                "is not audio that libsndfile reads (WAV, FLAC, Ogg Vorbis or "
                                "Opus, MP3): %s", sf_strerror(NULL));
            goto fail;
        }
        if (!allowed_format(info.format)) {
            status = sound_fail(diag, RE_ERR_FORMAT, path, "is %s, %s: a sound file is WAV "
                                "(PCM or float), FLAC, Ogg Vorbis, Ogg Opus or MP3",
                                format_name(info.format & SF_FORMAT_TYPEMASK),
                                format_name(info.format & SF_FORMAT_SUBMASK));
            goto fail;
        }
        if (info.samplerate <= 0 || info.channels <= 0) {
            status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "has no sample rate or no channels");
            goto fail;
        }
        if ((info.format & SF_FORMAT_TYPEMASK) == SF_FORMAT_OGG) {
            long streams = ogg_streams(fd, size, stop);
            if (streams == -2) {
                status = RE_ERR_NOMEM;
                goto fail;
            }
            if (streams < 0) {
                status = sound_fail(diag, RE_ERR_READ, path, "%s", "cannot read the file");
                goto fail;
            }
            if (streams > 1) {
                status = sound_fail(diag, RE_ERR_FORMAT, path, "is a chained Ogg file: %ld "
                                    "streams, and only the first would play; join them into "
                                    "one (sox a.ogg b.ogg joined.ogg)", streams);
                goto fail;
            }
        }
        channels = (unsigned)info.channels;
        source_rate = (unsigned)info.samplerate;
        reader = (frame_reader){ read_sndfile, sf };
    }
    uint64_t hashed = 0;
    status = re_fd_sha256(fd, stop, &hashed, out->sha256);
    if (status == RE_ERR_INTERRUPTED || status == RE_ERR_NOMEM)
        goto fail;
    if (status == RE_OK && hashed != size) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "changed while it was being read");
        goto fail;
    }
    if (status != RE_OK) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "cannot read the file");
        goto fail;
    }
    uint64_t max_frames = (uint64_t)RE_SOUND_MAX_SECONDS * source_rate;
    int over_budget = 0;
    if (budget_us) {
        uint64_t budget = re_us_to_frames_down(*budget_us, source_rate);
        if (budget < max_frames) {
            max_frames = budget;
            over_budget = 1;
        }
    }
    /* The length is what decodes, never the header's claim (info.frames): an MP3 cut from a
     * longer one keeps a Xing header that claims the whole, and the decode stops itself at the
     * limit. */
    int too_long = 0;
    int16_t *resampled = NULL;
    size_t resampled_len = 0;
    uint64_t source_frames = 0;
    status = decode_resampled(reader, channels, source_rate, rate, max_frames, stop, &resampled,
                              &resampled_len, &source_frames, &too_long);
    if (budget_us) {
        uint64_t spent = source_frames / source_rate * 1000000u
                         + source_frames % source_rate * 1000000u / source_rate;
        *budget_us = spent < *budget_us ? *budget_us - spent : 0;
    }
    if (status == RE_ERR_INVALID)
        status = sound_fail(diag, RE_ERR_FORMAT, path, "cannot be converted from %u Hz to %u Hz",
                            source_rate, rate);
    if (status != RE_OK)
        goto fail;
    out->samples = resampled;
    if (sf && sf_error(sf) != SF_ERR_NO_ERROR && !too_long) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "cannot be decoded: %s", sf_strerror(sf));
        goto fail;
    }
    if (mp3_reader && mp3.end != RE_MP3_READ_OK && !too_long) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "cannot be decoded as an MP3: %s",
                            mp3.end == RE_MP3_READ_NEW_FORMAT
                            ? "its frames change rate or channels (bytes that only look like "
                              "MPEG frames)"
                            : re_mp3_reader_read_errno(mp3_reader)
                            ? strerror(re_mp3_reader_read_errno(mp3_reader))
                            : re_mp3_reader_strerror(mp3_reader));
        goto fail;
    }
    if (too_long && over_budget) {
        status = sound_fail(diag, RE_ERR_LIMIT, path, "would make the episode's sound files "
                            "decode more than %u seconds of audio together, the limit for one "
                            "render (refused files count)", RE_SOUNDS_DECODE_BUDGET_SECONDS);
        goto fail;
    }
    if (too_long) {
        status = sound_fail(diag, RE_ERR_LIMIT, path, "is longer than %u seconds, the limit "
                            "for a sound file (it is held in memory whole)", RE_SOUND_MAX_SECONDS);
        goto fail;
    }
    if (source_frames == 0) {
        status = sound_fail(diag, RE_ERR_FORMAT, path, "%s", "holds no samples");
        goto fail;
    }
    if (fstat(fd, &after) != 0 || !same_file(&before, &after)) {
        status = sound_fail(diag, RE_ERR_READ, path, "%s", "changed while it was being read");
        goto fail;
    }
    /* exactly re_resample_length samples, as the one-shot recipe gives (resample.h) */
    size_t frames = (size_t)re_resample_length(source_frames, source_rate, rate);
    int16_t *exact = realloc(out->samples, (frames ? frames : 1) * sizeof *exact);
    if (!exact) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    if (resampled_len < frames)
        memset(exact + resampled_len, 0, (frames - resampled_len) * sizeof *exact);
    out->samples = exact;
    out->frames = frames;
    out->rate = rate;
    out->source_rate = source_rate;
    out->source_channels = channels;
    status = RE_OK;

fail:   /* and success: one cleanup */
    if (sf)
        sf_close(sf);
    (void)re_mp3_reader_close(mp3_reader, NULL);
    if (fd >= 0)
        (void)close(fd);   /* read-only: nothing a close could lose */
    if (status != RE_OK)
        re_sound_free(out);
    return status;
}

void re_sound_fade_out(int16_t *samples, size_t n, size_t fade)
{
    if (fade > n)
        fade = n;
    int16_t *tail = samples + (n - fade);
    for (size_t k = 0; k < fade; k++)
        tail[k] = (int16_t)((int64_t)tail[k] * (int64_t)(fade - k) / (int64_t)(fade + 1));
}

void re_sound_remove_offset(re_sound *sound)
{
    if (sound->frames == 0)
        return;
    int64_t sum = 0;
    for (size_t i = 0; i < sound->frames; i++)
        sum += sound->samples[i];
    int64_t n = (int64_t)sound->frames;
    int64_t mean = sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
    if (mean == 0)
        return;
    for (size_t i = 0; i < sound->frames; i++) {
        int64_t v = sound->samples[i] - mean;
        sound->samples[i] = (int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
    }
}

re_status re_sound_measure_looped(const re_sound *sound, unsigned sample_rate,
                                  unsigned min_seconds, double *lufs)
{
    re_loudness_meter *meter = NULL;
    re_status status = re_loudness_meter_create_planning(sample_rate, &meter);
    uint64_t want = (uint64_t)min_seconds * sample_rate, fed = 0;
    while (status == RE_OK && sound->frames > 0 && (fed == 0 || fed < want)) {
        status = re_loudness_meter_feed(meter, sound->samples, sound->frames);
        fed += sound->frames;
    }
    re_loudness measured;
    if (status == RE_OK)
        status = re_loudness_meter_finish(meter, &measured);
    re_loudness_meter_free(meter);
    if (status == RE_OK)
        *lufs = measured.integrated_lufs;
    return status;
}

void re_sound_free(re_sound *sound)
{
    if (!sound)
        return;
    free(sound->samples);
    memset(sound, 0, sizeof *sound);
}
