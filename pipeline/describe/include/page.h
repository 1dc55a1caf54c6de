/* page.h - the episode page: show notes in Markdown (ep.md beside ep.mp3) in the shape of a
 * published episode page - title, summary, `Duration: PT…`, an overview list, chapters with
 * their start times, the transcript - whose two duration lines `render-episode check`
 * confirms. Pure: writes to a stream; the format is in docs/feed.md. */
#ifndef RE_PAGE_H
#define RE_PAGE_H

#include <stdio.h>

#include "sidecar.h"
#include "status.h"
#include "transcript.h"

/* Writes the page for the render described by facts (the same facts as the sidecar: the
 * episode's metadata, samples, sample_rate, chapters; voices, engine, encoder and bytes are
 * not used). transcript may be NULL or empty: the page then has no Transcript section; an
 * episode without chapters has no Chapters section. Every text from the script is escaped
 * for Markdown, and a colon right after the word "duration" in it is written `\:`, so that
 * the only duration claims on the page are its own `Duration:` and `Audio duration:` lines.
 * Cues must use the same sample rate as facts. RE_ERR_INVALID for missing facts (no episode
 * or title, rate 0), RE_ERR_WRITE when the stream fails. */
re_status re_page_write(FILE *out, const re_render_facts *facts, const re_transcript *transcript);

#endif
