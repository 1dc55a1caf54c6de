/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notes.h - a Markdown script's document as show notes that are safe to publish: on the
 * episode page, on the Markdown page and in the feed's content:encoded, the same notes, from
 * cmark-gfm's HTML (re_html_from_markdown) read back by libxml2's HTML parser and copied through
 * an allowlist. What passes:
 *
 * - the elements cmark-gfm writes for Markdown (paragraphs, headings, lists, task-list boxes,
 *   quotes, code, rules, breaks, emphasis, strike-through, links, tables), with only the
 *   attributes it gives them (a link's href and title, a list's start, a cell's align, a code
 *   block's language class, a box's type, checked and disabled); any other element gives its
 *   text only, and the content of script, style and the like is dropped;
 * - links whose address is http, https, mailto or relative (re_notes_link_allowed); any other
 *   link (javascript:, data:, vbscript:, file:, an empty one) gives its words only;
 * - no image: an image becomes a link to its address (when allowed) whose words are its alt
 *   text (its address when it has none), so that a page fetches nothing but its own files
 *   and a reader's app loads no one's tracking pixel.
 *
 * Life cycle: notes_tree_new -> the tree's nodes are read by the callers (the HTML page copies
 * them, re_notes_html and re_notes_write_markdown serialize them) -> notes_tree_free. */
#ifndef RE_NOTES_H
#define RE_NOTES_H

#include <stdio.h>

#include "html_tree.h"
#include "status.h"

/* Whether url may be a link's address in published notes: http:, https: or mailto: (any
 * case), or a relative reference (no scheme: nothing but a path, query or fragment before a
 * colon); never one holding a blank, a control character or a backslash, and never "". */
int re_notes_link_allowed(const char *url);

/* Copies the safe part of cmark-gfm's HTML for the notes to the end of parent in b's
 * document, text through re_html_text (its duration rule). b->failed is set when out of
 * memory. */
void re_notes_append(html_builder *b, xmlNodePtr parent, const char *cmark_html);

/* The safe notes as an HTML fragment (the feed's content:encoded): serialized by libxml2,
 * every text escaped. Malloc'ed; NULL when out of memory. */
char *re_notes_html(const char *cmark_html);

/* The safe notes as Markdown, for the Markdown page: every text escaped so that it reads as
 * text (no raw HTML, autolink, entity, emphasis or link can start in it), links written
 * `[words](<address>)` with only allowed addresses, headings `shift` levels down (at most
 * level 6), fenced code as it is. RE_ERR_NOMEM, RE_ERR_WRITE. */
re_status re_notes_write_markdown(FILE *out, const char *cmark_html, int shift);

#endif
