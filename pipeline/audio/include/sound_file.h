/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sound_file.h - a sound file a script names (an insert, the intro, the outro, a music bed),
 * read whole into memory as mono 16-bit samples at the episode's rate.
 *
 * The formats docs/script-format.md names and no other, by the header, never the name:
 * libsndfile reads WAV (PCM or float), FLAC and Ogg Vorbis/Opus (one stream: a chained Ogg is
 * refused), checked with its SF_INFO.format; libmpg123 reads an MP3 (mp3_decoder.h, silent,
 * no resync: bytes that only look like frames are an error); any rate, any channel count. The channels are averaged (in float, as libsndfile gives any file: an
 * integer file's samples are its integers / 32768 exactly), non-finite samples become 0, and
 * the mono signal goes through resample.h's one recipe to the episode's rate. A 16-bit mono
 * file at the episode's rate therefore comes back bit-exact.
 *
 * The file's bytes are hashed (SHA-256) in the same pass as they are checked: the digest is
 * what a render's input digest and the sidecar say about the file, so editing a jingle
 * changes both. The file must not change between the hash and the decode (size and mtime are
 * compared after the decode; a change is an error). */
#ifndef RE_SOUND_FILE_H
#define RE_SOUND_FILE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"
#include "status.h"

/* The longest sound file accepted, in seconds of its own audio. A whole file is held in
 * memory as int16 at the episode's rate (600 s at 48 kHz: 58 MB); it is decoded and resampled
 * a chunk at a time, so its own rate never matters (a FLAC file of a few MB may claim 600 s
 * at 655 kHz). Ten minutes is far beyond any
 * jingle, sting or intro, and a music bed longer than that can be cut: the bed is looped to
 * the episode's length. */
#define RE_SOUND_MAX_SECONDS 600u

/* The largest sound file accepted, in bytes: every byte is hashed and every frame decoded, so
 * a file's size is the work it makes (a sparse file of a terabyte is made in an instant and
 * read for an hour). 1 GiB holds 600 s of anything a studio records (192 kHz stereo 32-bit
 * float: 922 MB). */
#define RE_SOUND_MAX_BYTES (1ULL << 30)

typedef struct re_sound {
    int16_t *samples;      /* mono at `rate` (channels averaged), resampled with resample.h's recipe */
    size_t frames;
    unsigned rate;
    unsigned char sha256[RE_SHA256_SIZE];   /* SHA-256 of the file's bytes */
    unsigned source_rate;                   /* the file's own rate and channel count */
    unsigned source_channels;
} re_sound;

/* Reads `path` (WAV, FLAC, Ogg Vorbis/Opus, MP3; any rate, any channel count) into *out (zeroed first; re_sound_free releases it),
 * resampled to `rate` (any rate re_rate_supported accepts, or any other positive rate).
 *
 * Failures add one message with NO file that names the path in its text ("sound file
 * 'x.wav': cannot open: No such file or directory"), for the caller to place at the script's
 * FILE:LINE:COL with re_diag_place and report as RE_ERR_INPUT: RE_ERR_READ (cannot open or
 * read, a directory; a FIFO, device or socket is refused without blocking, files.h;
 * changed while read), RE_ERR_FORMAT (not audio of the formats above, a chained Ogg, MP3
 * frames that do not follow each other, or no samples),
 * RE_ERR_LIMIT (longer than RE_SOUND_MAX_SECONDS, larger than RE_SOUND_MAX_BYTES),
 * RE_ERR_NOMEM (no message),
 * RE_ERR_INVALID (NULL arguments, rate 0). */
re_status re_sound_load(const char *path, unsigned rate, re_sound *out, re_diagnostics *diag);

/* The same, stopping as soon as *stop is raised (a signal handler's flag; NULL: never), between
 * two chunks of the hash or the decode, with RE_ERR_INTERRUPTED and no message: a render is
 * stopped within a fraction of a second, not after every file it names is read. */
re_status re_sound_load_until(const char *path, unsigned rate, volatile sig_atomic_t *stop,
                              re_sound *out, re_diagnostics *diag);

/* The same for a file already open (re_path_open_confined's fd, opened with O_NONBLOCK), which
 * it owns and closes in every case; `path` names it in messages. */
re_status re_sound_load_fd_until(int fd, const char *path, unsigned rate,
                                 volatile sig_atomic_t *stop, re_sound *out,
                                 re_diagnostics *diag);

/* Decoding is the work a sound file makes, and a file that is refused after its decode (too
 * long, bad frames late in it) has made all of it: the files one render decodes, loaded or
 * refused, add up to at most this much of their own audio: the most that may be loaded
 * together (SOUNDS_MAX_TOTAL_SECONDS in run/sounds.h, 3600 s) and one file's limit more, so
 * that the loaded files' own limit speaks first. A file is decoded once per render whatever
 * the number of times it is named. */
#define RE_SOUNDS_DECODE_BUDGET_SECONDS 4200u

/* re_sound_load_fd_until, decoding at most *budget_us microseconds of the file's own audio
 * (a longer file is refused, RE_ERR_LIMIT, with a message naming the budget) and taking what
 * it decoded, loaded or not, off *budget_us. */
re_status re_sound_load_fd_budget(int fd, const char *path, unsigned rate,
                                  volatile sig_atomic_t *stop, uint64_t *budget_us,
                                  re_sound *out, re_diagnostics *diag);

/* A cut sound (`[sound FILE 2.5s]`) ends with a linear fade-out over its last
 * RE_SOUND_FADE_MS (or all of it when it is shorter): long enough that the cut makes no
 * click, short enough that the cut is where the script says. */
#define RE_SOUND_FADE_MS 50u

/* Multiplies samples[n - fade .. n) by (fade - k) / (fade + 1) for k = 0 .. fade-1 (the last
 * sample's gain is 1/(fade+1), the silence after the cut would be the next step), in integer
 * arithmetic rounded toward zero: the same bytes everywhere. fade > n fades all n. */
void re_sound_fade_out(int16_t *samples, size_t n, size_t fade);

/* Takes the sound's mean (a constant offset, DC; rounded half away from zero) out of every
 * sample, saturating to int16: an offset is no sound, a meter's high-pass does not hear it
 * past its first block (a bed of one sample measured as loud), and mixed under speech it would
 * push the speech against full scale on one side. An empty sound stays as it is. */
void re_sound_remove_offset(re_sound *sound);

/* The sound's integrated loudness (LUFS, dual mono, a planning meter: loudness.h), looped to
 * at least `min_seconds` (BS.1770's gate needs 400 ms blocks; a loop is what a bed plays):
 * -HUGE_VAL when it is below the gate. */
re_status re_sound_measure_looped(const re_sound *sound, unsigned sample_rate,
                                  unsigned min_seconds, double *lufs);

/* Frees the samples and zeroes *sound; NULL and a zeroed sound are fine. */
void re_sound_free(re_sound *sound);

#endif
