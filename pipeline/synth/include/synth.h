/* SPDX-License-Identifier: GPL-3.0-or-later */
/* synth.h - the speech stage: the speech engines through their C libraries, one child
 * process per segment.
 *
 * Two engines speak, each chosen by a voice profile (voice.h): espeak-ng, and flite for a
 * natural English voice. What the rest of the program knows of them is this header: a
 * profile's rate, a name for cache keys and provenance, and speech (speech.h). Which engine
 * speaks is decided here, from the profile, and nowhere else (engine_backend.h is the contract
 * each engine meets).
 *
 * espeak-ng keeps hidden state between calls (the same sentence twice gives different audio),
 * is not thread-safe, and aborts on some input (docs/design.md, "The speech engine"). So this
 * process initialises the engines once and never synthesizes itself; each segment is spoken
 * by a child forked from it, flite's too (a crash of either library stays in its child).
 * A child's audio then depends only on (text, profile), and a crash or a hang ends that child
 * with an error for its segment, never this process. This module owns the engines' global
 * state: no other module may call espeak-ng or flite.
 *
 * Life cycle: re_engine_create -> (re_engine_start -> re_engine_wait)* -> re_engine_free.
 * Several jobs may run at once (one per core); results are independent of how many.
 *
 * Messages: the engine does not know which script or paragraph it speaks, so every failure
 * adds one message with no file to diag, for the caller to place (re_diag_place) at the
 * paragraph. RE_ERR_INTERRUPTED and RE_ERR_NOMEM come without a message. */
#ifndef RE_SYNTH_H
#define RE_SYNTH_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"
#include "normalize.h"
#include "speech.h"
#include "voice.h"

typedef struct re_engine re_engine;

/* Initialises espeak-ng (about 14 ms). flite's libraries are loaded and its voices registered
 * (about 5 ms) only when a job first needs a flite profile (re_engine_start,
 * re_engine_check_voice, re_engine_phonemes), in this process before the job's child forks;
 * a run without a flite profile never maps them. On failure returns RE_ERR_ENGINE
 * (RE_ERR_LIMIT when the system refuses espeak-ng a thread) with the engine's message in
 * diag. `stop` (may be NULL) is polled while waiting: when it becomes non-zero, waits give up
 * with RE_ERR_INTERRUPTED and kill their children. */
re_status re_engine_create(volatile sig_atomic_t *stop, re_engine **out, re_diagnostics *diag);
void re_engine_free(re_engine *engine);

/* The rate (Hz) of the audio the profile's engine makes: asked from espeak-ng (22050 for
 * its stock voices), 16000 for flite's voices. re_speech.rate says it for each segment. */
unsigned re_engine_rate(const re_engine *engine, const re_voice_profile *profile);
/* The profile's engine and its version, e.g. "espeak-ng 1.51" or "flite 2.2": part of every
 * cache key and of what an episode says made it. Owned by the engine. */
const char *re_engine_name(const re_engine *engine, const re_voice_profile *profile);

/* Checks that the engine has the profile's voice (e.g. "en-gb+f3"), in a child so this
 * process's state is untouched. RE_ERR_ENGINE with a reason in diag when it does not. */
re_status re_engine_check_voice(re_engine *engine, const re_voice_profile *profile,
                                re_diagnostics *diag);

typedef struct re_synth_job re_synth_job;

/* How the engine reads a text (RE_TEXT_PLAIN or RE_TEXT_PHONEMES, normalize.h). Never as SSML. */
#define RE_PHONEMES_TIMEOUT_MS 30000u
#define RE_SEGMENT_MAX_SECONDS 3600   /* one paragraph's audio; longer ones are stopped, an error */

/* Starts speaking `text` (valid UTF-8 without control characters) with `profile` in a new
 * child. The child has its own copy of the strings. RE_ERR_ENGINE with a reason in diag when
 * no child can be started, or the profile's engine cannot be loaded (the reason names the
 * package to install); RE_ERR_LIMIT when that is a process limit (fork's EAGAIN), which
 * another process's end may lift. */
re_status re_engine_start(re_engine *engine, const char *text, unsigned text_flags,
                          const re_voice_profile *profile, re_synth_job **job,
                          re_diagnostics *diag);

/* The phonemes the engine would speak for `text` with `profile`, computed in a child like
 * speech: for espeak-ng its mnemonics as `espeak-ng -x` prints them (clauses separated by
 * spaces); for flite each word's phones joined by '-' ("dh-ax b-ih-l-d"). *phonemes is
 * malloc'ed, owned by the caller. */
re_status re_engine_phonemes(re_engine *engine, const char *text, unsigned text_flags,
                             const re_voice_profile *profile, char **phonemes,
                             re_diagnostics *diag);

/* Waits for the job (at most timeout_ms; 0 = no limit), fills *out on success (its rate set to
 * the profile's, re_engine_rate), and frees the job in every case. RE_ERR_ENGINE with a reason
 * in diag when the child crashed (with its signal), hung past the timeout (it is killed), or
 * reported an engine error; RE_ERR_INTERRUPTED when `stop` was raised. */
re_status re_engine_wait(re_synth_job *job, unsigned timeout_ms, re_speech *out,
                         re_diagnostics *diag);

/* Kills and frees a job that will not be waited for. */
void re_engine_cancel(re_synth_job *job);

#endif
