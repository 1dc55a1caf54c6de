/* SPDX-License-Identifier: GPL-3.0-or-later */
/* speak.h - the speech of an episode's paragraphs, handed out in script order with every core
 * busy: up to `jobs` paragraphs are under way ahead of the one being assembled, each read from
 * the segment cache when it holds it (the local folder first, then the remote one, remote.h),
 * else spoken by the engine in a child of its own (synth.h). Audio spoken afresh is stored in
 * both caches for next time, audio found only remotely in the local one. The output never
 * depends on `jobs` or on the cache: a child's audio depends only on (text, profile).
 *
 * Life cycle: re_speech_scheduler_create -> for each SPEECH item, in order:
 * re_speech_scheduler_next (its audio) -> re_speech_scheduler_spoken (its text as the engine spoke
 * it, for the transcript) -> re_speech_scheduler_done -> re_speech_scheduler_free. free is allowed
 * at any point (after an error): children still running are killed.
 *
 * Ownership: the scheduler borrows the prepared inputs and the engine (they must outlive it);
 * it owns the cache handle, the children, and each item's spoken text from the moment the item
 * is started until re_speech_scheduler_done. The audio handed out by next is the caller's.
 *
 * Errors: an engine that cannot start or speak a paragraph is an error at the paragraph's
 * SCRIPT:LINE:COL in diag; RE_ERR_INTERRUPTED (a raised stop) comes without a message. A cache
 * that cannot be opened, or written (said once), is a warning naming its folder, never an
 * error. */
#ifndef RE_RUN_SPEAK_H
#define RE_RUN_SPEAK_H

#include <stddef.h>

#include "normalize.h"
#include "prepare.h"
#include "remote.h"
#include "status.h"
#include "synth.h"

typedef struct speech_plan {
    const re_prepared *prepared;   /* the episode, its profiles and its lexicon */
    re_engine *engine;
    const char *script_path;       /* where a paragraph's error points */
    const char *cache_dir;         /* the segment cache folder, or NULL for none */
    re_remote_options remote;      /* the remote cache under it: remote.url NULL for none */
    unsigned jobs;                 /* paragraphs under way at once, >= 1 */
    unsigned timeout_ms;           /* per paragraph, > 0 */
} speech_plan;

typedef struct speech_scheduler speech_scheduler;

/* Opens the cache (a warning in diag when it cannot be used) and makes room for the episode's
 * items; starts nothing yet. The plan's strings must outlive the scheduler. RE_ERR_NOMEM. */
re_status re_speech_scheduler_create(const speech_plan *plan, speech_scheduler **out,
                                     re_diagnostics *diag);

/* The audio of SPEECH item i, which must be the next SPEECH item of the episode: starts items
 * ahead of it, waits for it, and starts more before returning, so that the engine keeps
 * speaking while the caller assembles. *speech is the caller's (re_speech_free). */
re_status re_speech_scheduler_next(speech_scheduler *s, size_t i, re_speech *speech,
                                   re_diagnostics *diag);

/* Item i's text as the engine spoke it, with its map back to the script's words; valid from
 * next(i) until done(i). */
const re_spoken *re_speech_scheduler_spoken(const speech_scheduler *s, size_t i);

/* Item i is assembled and transcribed: its spoken text is dropped, so memory stays flat
 * however long the episode is. */
void re_speech_scheduler_done(speech_scheduler *s, size_t i);

size_t re_speech_scheduler_synthesized(const speech_scheduler *s);   /* spoken by the engine */
size_t re_speech_scheduler_cached(const speech_scheduler *s);        /* taken from a cache */
size_t re_speech_scheduler_remote(const speech_scheduler *s);        /* of those, from the remote */

void re_speech_scheduler_free(speech_scheduler *s);   /* NULL is allowed */

#endif
