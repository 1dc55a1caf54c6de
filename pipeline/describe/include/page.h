/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page.h - the episode page, in HTML (ep.html beside ep.mp3: `--page`) or as show notes in
 * Markdown (ep.md: `--page-md`): title, summary, the duration, chapters with their start
 * times, the transcript; the HTML page also the player, the speakers and the synthetic-voice
 * note. `render-episode check` confirms its duration claims. Pure: writes to a stream; the
 * formats are in docs/feed.md. */
#ifndef RE_PAGE_H
#define RE_PAGE_H

#include <stdio.h>

#include "sidecar.h"
#include "status.h"
#include "transcript.h"

/* Writes the page for the render described by facts (the same facts as the sidecar: the
 * episode's metadata, samples, sample_rate, chapters, cover_file; voices, engine, encoder and
 * bytes are not used). transcript may be NULL or empty: the page then has no Transcript
 * section; an episode without chapters has no Chapters section; with a cover_file, the cover
 * is an image under the title, its file a percent-encoded relative URL (the HTML page's
 * <img>). Every text from the script is escaped for Markdown, and a colon right after the
 * word "duration" in it is written `\:`, so that the only duration claims on the page are its
 * own `Duration:` and `Audio duration:` lines. Cues must use the same sample rate as facts.
 * RE_ERR_INVALID for missing facts (no episode or title, rate 0), RE_ERR_NOMEM, RE_ERR_WRITE
 * when the stream fails. */
re_status re_page_write(FILE *out, const re_render_facts *facts, const re_transcript *transcript);

/* Writes the HTML page for the same facts and transcript (the voices name the speakers):
 * an HTML5 document with `lang` from the script's language, built as a libxml2 tree and
 * serialized by libxml2 (every text escaped there), with a small inline style and script and
 * no other resource than the two files it names, as percent-encoded URLs relative to the
 * page: audio_name (the player's source and a download link) and vtt_name (the player's
 * <track>, whose cue
 * identifiers 1..N are the transcript spans cue-1..cue-N the script highlights). The header
 * gives the date in the script's language (re_date_in_words) and the length in words, each
 * in a <time>; the page's own player controls (play/pause, skips, speed, a scrubber with the
 * chapters marked, the current chapter, a `#t=` link to the moment) are `hidden` until the
 * script shows them. Readable without the script: the audio keeps its own controls, and
 * chapter and cue links are media fragments (`ep.mp3#t=65.123`) that the script turns into
 * seeks. Its duration claims for `check` are the `Duration:` line (ISO 8601, and
 * the same whole seconds in words) and the JSON-LD `duration`s; a colon after "duration" in
 * the script's text is written `&#58;`. RE_ERR_INVALID as above or without names,
 * RE_ERR_NOMEM, RE_ERR_WRITE. */
re_status re_page_write_html(FILE *out, const re_render_facts *facts,
                             const re_transcript *transcript, const char *audio_name,
                             const char *vtt_name);

/* re_page_write, and with audio_name (may be NULL: no links) the overview also links the audio
 * file (`- Listen: [the audio (MP3)](NAME.mp3)`) and, when facts->in_feed, the show's feed
 * (`- Subscribe: [the show's feed (RSS)](feed.xml)`): relative links, percent-encoded as the
 * HTML page's are. */
re_status re_page_write_named(FILE *out, const re_render_facts *facts,
                              const re_transcript *transcript, const char *audio_name);

/* ---- the page inside its show ------------------------------------------------------------- */

/* Another episode the page links: its title, its published date as written (NULL: none) and
 * the file the link opens (its page, else its audio), a name in the same folder. */
typedef struct re_page_link {
    const char *title;
    const char *published;
    const char *file;
} re_page_link;

/* What the page's show slots hold (docs/feed.md, "The page inside its show"). Every pointer
 * may be NULL (not shown). The render fills only show and index_name (a show file beside it);
 * `feed` fills the rest. URLs are absolute; names are files of the page's folder. */
typedef struct re_page_nav {
    const char *show;             /* the show's title */
    const char *language;         /* for the dates in words; NULL: en-us */
    const char *index_name;       /* the show's index.html */
    const char *feed_name;        /* the show's feed.xml in the folder */
    const re_page_link *older;    /* "Previous": the episode before it in the feed's order */
    const re_page_link *newer;    /* "Next" */
    const re_page_link *nearby;   /* up to RE_PAGE_NEARBY_MAX episodes, in the feed's order */
    size_t nearby_count;
    const char *canonical_url;    /* the page's own URL: <link rel="canonical">, og:url */
    const char *title, *description;   /* og:title, og:description and twitter: ones */
    const char *image_url;        /* og:image, twitter:image */
    const char *audio_url;        /* og:audio (audio/mpeg) */
} re_page_nav;

#define RE_PAGE_NEARBY_MAX 8

/* The episode page page[0..len) with its two show slots (written by re_page_write_html)
 * holding nav instead of what they held: *out (malloc'ed, *out_len bytes), which is the same
 * bytes as the page when nothing changes (so that writing it again is idempotent). Only the
 * text between each slot's two comments is replaced; the rest of the page is kept byte for
 * byte, with every claim `check` reads. RE_ERR_FORMAT when either slot is not found exactly
 * once (a page of an older version, or edited), RE_ERR_NOMEM. */
re_status re_page_with_nav(const char *page, size_t len, const re_page_nav *nav, char **out,
                           size_t *out_len);

#endif
