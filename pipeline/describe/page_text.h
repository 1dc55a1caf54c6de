/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page_text.h - what the Markdown and the HTML episode pages share: the cover's alt text, the
 * guard that keeps the script's own words from reading as duration claims, chapter start
 * times as a clock, and where the transcript's paragraphs begin. */
#ifndef RE_PAGE_TEXT_H
#define RE_PAGE_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "sidecar.h"
#include "transcript.h"

/* The cover's alt text on both pages: "Cover art of SHOW", else of the episode's title.
 * Malloc'ed; NULL when out of memory. */
char *re_page_cover_alt(const re_episode *ep);

/* Whether s[0..end) ends with the word "duration" (any case) and optional blanks: a colon
 * written next would make `render-episode check` read what follows as a duration claim. */
int re_page_ends_with_duration(const char *s, size_t end);

/* "2 min 53 s", "1 h 0 min 5 s", "45 s": a whole number of seconds in words. */
void re_page_duration_words(uint64_t seconds, char *buf, size_t size);

/* The label of an episode that is not a full one, in the page's own (English) words:
 * "Trailer", "Bonus episode"; NULL for a full episode or one without `type:`. */
const char *re_page_episode_type_words(re_episode_type type);

/* "1:05" or "1:02:03" for a time in ms (whole seconds, rounded down). */
void re_page_clock_text(uint64_t ms, char *buf, size_t size);

/* Whether cue i of t opens a new transcript paragraph: the first cue, a new speaker, the
 * first cue at or after the start of the next chapter, or, for a Markdown script, the first
 * cue of each of its paragraphs and list items (a .txt script's pages keep one paragraph per
 * chapter or speaker turn, as they always have). *chapter (0 before the first cue) is
 * the chapter so far, advanced here: call it for i = 0, 1, 2... in order. */
int re_page_cue_opens_paragraph(const re_render_facts *facts, const re_transcript *t, size_t i,
                                size_t *chapter);

#endif
