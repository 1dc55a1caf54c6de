/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_source.h - a Markdown document before and right after cmark-gfm parses it: the
 * limits that bound the parser's work, checked on the raw text first; the one place
 * cmark-gfm is set up; and the characters its decoding of references makes, checked before
 * anything reads them (private to the parse stage; markdown.h has the public calls).
 *
 * Order: re_md_within_limits (refuses, never parses) -> re_md_parse -> re_md_decoded_controls. */
#ifndef RE_MARKDOWN_SOURCE_H
#define RE_MARKDOWN_SOURCE_H

#include <stddef.h>

#include <cmark-gfm.h>

#include "parse_errors.h"

/* Measures text[0..len) (whose first line is line first_line of the file) against the limits
 * of markdown.h and reports, at FILE:LINE:COL, every line over RE_SCRIPT_MAX_LINE and the
 * first block or document over the work or piece limits. Reads only the text, linearly.
 * 1 when the text is within every limit, 0 when something was reported. */
int re_md_within_limits(parse_errors *e, const char *text, size_t len, unsigned first_line);

/* The document as cmark-gfm parses it, with GitHub's table, strikethrough, autolink and
 * task-list extensions (*extensions: the list a renderer needs, owned by *parser). Only for
 * text re_md_within_limits accepted. NULL when out of memory; else free the tree with
 * cmark_node_free and then *parser with cmark_parser_free. */
cmark_node *re_md_parse(const char *text, size_t len, cmark_parser **parser);

/* Reports, at the character reference that made it, the first control character that
 * cmark-gfm's decoding of `&#27;`, `&#x85;`, `&NewLine;` ... put into the document's text,
 * link targets and titles, and code blocks' info strings: the raw text was checked for them
 * before, the decoded text never was. One that cannot be placed is reported at its block. A
 * reference to U+0000 is U+FFFD (cmark-gfm's choice), not an error. src[0..len) is what doc
 * was parsed from, its first line being line first_line of the file. Returns 1 when it
 * reported one (the document is refused: nothing more is looked for, which keeps the check
 * linear), else 0. */
unsigned re_md_decoded_controls(parse_errors *e, cmark_node *doc, const char *src, size_t len,
                                unsigned first_line);

#endif
