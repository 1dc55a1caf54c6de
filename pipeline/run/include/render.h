/* SPDX-License-Identifier: GPL-3.0-or-later */
/* render.h - one episode from script to published files: parse -> synth -> assemble ->
 * encode -> describe. This is the library's entry point for the CLI (and later for batch).
 *
 * Outputs, all beside OUT and named after it: OUT (.mp3 or .wav), the sidecar OUT.json, the
 * WebVTT transcript OUT.vtt, OUT.chapters.json when the script has headings (a stale one is
 * removed when it has none), and on request OUT.srt and OUT.transcript.json. Each is written
 * to a temporary file; only when all are complete are they renamed into place, the sidecar
 * last. On failure none is touched. */
#ifndef RE_RENDER_H
#define RE_RENDER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "loudness.h"
#include "mp3.h"
#include "resample.h"
#include "status.h"

#define RE_ENGINE_TIMEOUT_MS 120000u   /* per segment: the engine runs ~900x real time */

typedef enum re_render_phase { RE_PHASE_SPEAK, RE_PHASE_ENCODE } re_render_phase;

typedef struct re_render_progress {
    re_render_phase phase;
    size_t done, total;        /* items spoken, or samples encoded */
    uint64_t audio_frames;     /* audio assembled so far */
    unsigned sample_rate;
} re_render_progress;

struct re_engine;
struct re_remote_state;

typedef struct re_render_options {
    const char *script_path;
    const char *output_path;           /* ends in .mp3 or .wav */
    const char *const *voice_dirs;     /* searched in this order */
    size_t voice_dir_count;
    re_mp3_settings mp3;               /* bitrate 0: re_mp3_default_bitrate of the rate */
    unsigned sample_rate;              /* of the output: 22050, 44100, 48000, or 0 for the
                                        * script's `sample_rate:`, else RE_RATE_DEFAULT */
    size_t max_script_size;            /* bytes */
    unsigned engine_timeout_ms;        /* per segment, 0 = RE_ENGINE_TIMEOUT_MS */
    unsigned jobs;                     /* speech processes at once, >= 1 */
    int write_srt;                     /* also OUT.srt */
    int write_transcript_json;         /* also OUT.transcript.json (Podcasting 2.0) */
    int write_page;                    /* also OUT.html, the episode page */
    int write_page_md;                 /* also OUT.md, the page as Markdown show notes */
    const char *cache_dir;             /* segment cache folder, or NULL for none */
    const char *cache_url;             /* remote segment cache under it (remote.h), or NULL */
    unsigned cache_timeout_ms;         /* per remote request, 0 = the default */
    const char *cache_token;           /* bearer token for the remote, or NULL; never shown */
    const char *cache_netrc;           /* netrc file for the remote, or NULL for ~/.netrc */
    struct re_remote_state *remote_state;  /* shared by a run's processes, or NULL */
    const char *const *lexicon_paths;  /* --lexicon files, applied in order after the others */
    size_t lexicon_path_count;
    int no_default_lexicon;            /* leave out the shipped voices/default.lexicon */
    const char *const *allowed_dirs;   /* --allow-path folders (prepare.h) */
    size_t allowed_dir_count;
    int loudness_off;                  /* keep the engine's level (still measured) */
    int serial_encode;                 /* one LAME encoder instead of one per core */
    unsigned encode_threads;           /* at most this many encoder threads (0: one per core);
                                        * the bytes do not depend on it */
    double loudness_target;            /* LUFS integrated, RE_LOUDNESS_TARGET_MIN..MAX */
    double true_peak;                  /* dBTP ceiling, RE_LOUDNESS_CEILING_MIN..MAX */
    int skip_unchanged;                /* do nothing when the outputs were made from these inputs */
    uint64_t max_duration_us;          /* --max-duration: a Markdown episode is cut to fit it
                                        * (run/fit.h); 0: no limit */
    const char *max_duration_text;     /* as typed, for messages */
    volatile sig_atomic_t *stop;       /* raised by a signal handler; may be NULL */
    struct re_engine *engine;          /* a warm engine to use (not freed), or NULL to create one */
    void (*progress)(void *context, const re_render_progress *progress);
    void *progress_context;
} re_render_options;

/* Where a render's time goes (--timings), in the order they run. Retries of level, encode and
 * measure add to their step. Speak includes the pass-1 meter that runs beside it. */
typedef enum re_render_step {
    RE_STEP_PARSE,      /* script, profiles, lexicons, engine, encoder settings, outputs opened */
    RE_STEP_SPEAK,      /* synthesis (or the cache), assembly, transcript, pass-1 meter */
    RE_STEP_LEVEL,      /* gain and limiter into the leveled spool (with its meter when needed) */
    RE_STEP_ENCODE,     /* MP3 (or WAV) from the leveled spool */
    RE_STEP_MEASURE,    /* the encoded file's peaks (a WAV: its loudness) */
    RE_STEP_PUBLISH,    /* sidecar, transcripts, page, renames into place */
    RE_STEPS
} re_render_step;

typedef struct re_step_time {
    double wall_s;      /* monotonic clock */
    double cpu_s;       /* user + system of the process, its threads and its reaped children */
} re_step_time;

/* "parse", "speak", ...; NULL past RE_STEPS. */
const char *re_render_step_name(re_render_step step);

/* Now, as a point to subtract from a later one: the monotonic clock, and the CPU of this
 * process (all its threads) and of its children that were waited for. */
re_step_time re_step_clock(void);

typedef struct re_render_result {
    uint64_t samples;
    unsigned sample_rate;
    unsigned long long bytes;          /* of the audio output */
    char duration[32];                 /* ISO 8601 */
    size_t segments_synthesized;       /* speech segments the engine spoke this time */
    size_t segments_cached;            /* speech segments taken from the segment cache */
    size_t segments_remote;            /* of those, found in the remote cache (not locally) */
    int up_to_date;                    /* skipped: outputs exist and were made from these inputs */
    re_loudness loudness;              /* measured on the output file (not when up to date) */
    int loudness_normalized;
    int loudness_met;                  /* target and ceiling hold (or normalization is off) */
    re_step_time steps[RE_STEPS];      /* always measured; costs two system calls a step */
    unsigned encodes_whole;            /* the audio encoded whole: 1, more after a full retry */
    unsigned encodes_local;            /* local true-peak retries: spots re-encoded in place */
} re_render_result;

/* Renders one episode. Problems in the script, its voice profiles, the engine (with the
 * paragraph's FILE:LINE:COL) or the outputs are appended to diag. Returns RE_OK, or the
 * first failure's status (RE_ERR_INPUT, RE_ERR_ENGINE, RE_ERR_WRITE, RE_ERR_INTERRUPTED...). */
re_status re_render(const re_render_options *options, re_render_result *result,
                    re_diagnostics *diag);

/* "mp3", "wav", or NULL when the output name has neither extension (case-insensitive). */
const char *re_render_format_of(const char *output_path);

#endif
