/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.h - the inputs digest: one SHA-256 over everything a render's outputs are
 * made from, recorded in the sidecar as inputs_sha256 so that a later run can skip an
 * episode whose outputs were made from exactly these inputs (re_render_options.skip_unchanged).
 *
 * It covers, each as a named, length-prefixed field (so no two inputs can run together):
 *   - the program's version (RE_VERSION) and the digest's own format ("render-episode inputs v1");
 *   - the engine's name and version, and the encoder's description (which names its library
 *     version and every encoder setting);
 *   - the output format, the MP3 quality and --serial-encode (both change the bytes);
 *   - the loudness settings (off, or the target and the ceiling to two decimals);
 *   - the lexicon as applied (canonical form, whatever files it came from) and the version of
 *     the normalization rules;
 *   - which extra files are written (--srt, --transcript-json, --page, --page-md);
 *   - the script's bytes exactly as read;
 *   - every value of every voice profile the episode uses, in the episode's order;
 *   - the SHA-256 of every sound file the episode plays (format 1.1: intro, each [sound],
 *     outro, in playing order), so that editing a jingle renders its episodes again; an
 *     episode with none hashes nothing for them (its digest is as before);
 *   - the SHA-256 of the music bed's file (`music:`), when there is one (the bed's settings
 *     are in the script's bytes);
 *   - the SHA-256 of the cover art the MP3 embeds (cover.h: the script's `image:` or the
 *     show's), when there is one, so that a changed cover renders its episodes again.
 * Not covered, on purpose: paths (the same inputs elsewhere are the same inputs), -j, the
 * encoder thread count and the cache (they never change the bytes), time. Changing what is
 * covered changes every digest: every episode is then rendered again once. */
#ifndef RE_FINGERPRINT_H
#define RE_FINGERPRINT_H

#include "prepare.h"
#include "sha256.h"

typedef struct re_fingerprint_inputs {
    const re_prepared *prepared;   /* script bytes, profiles, lexicon */
    const char *engine;            /* e.g. "espeak-ng 1.51" */
    const char *encoder;           /* re_mp3_describe's or re_wav_describe's text */
    const char *format;            /* "mp3" or "wav" */
    int mp3_quality;
    int serial_encode;
    int loudness_off;
    double loudness_target, true_peak;
    int write_srt, write_transcript_json, write_page, write_page_md;
    const unsigned char (*sound_digests)[RE_SHA256_SIZE];   /* the sound files' bytes' */
    size_t sound_count;
    const unsigned char *music_sha256;   /* RE_SHA256_SIZE bytes; NULL without a bed */
    const unsigned char *cover_sha256;   /* RE_SHA256_SIZE bytes; NULL without a cover */
    int in_feed;                         /* a show file beside the outputs: the page links
                                          * its feed */
    uint64_t max_duration_us;            /* --max-duration, 0 for none */
} re_fingerprint_inputs;

/* Writes the digest as lowercase hex (RE_SHA256_HEX_SIZE bytes with the NUL). Never fails. */
void re_fingerprint(const re_fingerprint_inputs *inputs, char hex[RE_SHA256_HEX_SIZE]);

#endif
