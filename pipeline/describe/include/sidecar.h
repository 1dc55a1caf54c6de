/* sidecar.h - the describe stage: OUT.json beside every output, the facts of one render.
 *
 * Keys, in this order: title, show, published, summary, author, language, episode, duration
 * (ISO 8601), duration_ms, samples, sample_rate, bytes, format, chapters [{title, start_ms,
 * end_ms}], voices [{name, speaker, voice, rate, pitch, range, volume, word_gap,
 * sentence_pause, paragraph_pause}], engine, encoder, generator, inputs_sha256 (what the
 * outputs were made from: program, engine, encoder, options, script bytes, profile values),
 * loudness {integrated_lufs, range_lu, true_peak_dbtp (measured on the output file; null for
 * silence), target_lufs, ceiling_dbtp, gain_db (null when normalization is off), met}. Absent metadata is null.
 * No absolute paths, no timestamps: identical inputs give identical bytes. */
#ifndef RE_SIDECAR_H
#define RE_SIDECAR_H

#include <stdint.h>
#include <stdio.h>

#include "assemble.h"
#include "loudness.h"
#include "script.h"
#include "status.h"
#include "voice.h"

typedef struct re_render_facts {
    const re_episode *episode;
    uint64_t samples;
    unsigned sample_rate;
    unsigned long long bytes;          /* size of the audio output file */
    const char *format;                /* "mp3" or "wav" */
    const re_chapter_mark *chapters;
    size_t chapter_count;
    const re_voice_profile *const *voices;
    size_t voice_count;
    const char *engine;                /* e.g. "espeak-ng 1.51" */
    const char *encoder;               /* e.g. "LAME 3.100, 64 kbps CBR, mono, 22050 Hz" */
    const char *inputs_sha256;         /* digest of everything the outputs were made from */
    const re_loudness *loudness;       /* measured on the output file */
    const re_loudness_plan *loudness_plan;  /* NULL when normalization is off */
} re_render_facts;

/* Writes the sidecar as UTF-8 JSON with a final newline. RE_ERR_WRITE if the stream fails. */
re_status re_sidecar_write(FILE *out, const re_render_facts *facts);

/* ep.mp3 -> ep.json (the extension, if any, replaced). Returns a malloc'ed string or NULL. */
char *re_sidecar_path(const char *output_path);

/* Podcasting 2.0 JSON chapters (ep.chapters.json): {"version": "1.2.0", "chapters":
 * [{"startTime": seconds, "title": ...}]}, in order; times from the same milliseconds as the
 * sidecar and the CHAP frames. */
re_status re_chapters_json_write(FILE *out, const re_chapter_mark *chapters, size_t count,
                                 unsigned sample_rate);

#endif
