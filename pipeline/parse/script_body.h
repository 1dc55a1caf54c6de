/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script_body.h - the episode builder that script.c's own reader drives, opened to the
 * Markdown reader (markdown.c) so that a Markdown document becomes the same items, with the
 * same directives, limits and messages, as a .txt script (private to the parse stage).
 *
 * Call order for one body: any number of re_body_span / re_body_literal / body_space /
 * re_body_end_sentence calls make up a paragraph, re_body_end_paragraph ends it; re_body_heading
 * starts a chapter (ending the open paragraph first). Positions are the script's own
 * (1-based line, byte column). */
#ifndef RE_SCRIPT_BODY_H
#define RE_SCRIPT_BODY_H

#include <stddef.h>

#include "markdown.h"
#include "parse_errors.h"
#include "script.h"

typedef struct parser parser;

/* Text of a paragraph in the .txt syntax: directives ([pause], [voice], [lang], [sound]) are
 * read, `\[` is a literal '[', blank runs are one space; s[0] stands at line:col. */
void re_body_span(parser *p, const char *s, size_t len, unsigned line, unsigned col);

/* Text taken as it is (no directives), blank runs one space; s[0] stands at line:col. */
void re_body_literal(parser *p, const char *s, size_t len, unsigned line, unsigned col);

/* A space before the next text, when there is text before it. */
void body_space(parser *p);

/* Ends a sentence: a full stop is supplied when the text so far does not end with one
 * (a trailing ':' ';' or ',' becomes the full stop). Nothing when no text is pending. */
void re_body_end_sentence(parser *p);

/* Ends the open paragraph, if any; `ended_by` is the line that ended it. */
void re_body_end_paragraph(parser *p, unsigned ended_by);

/* A chapter titled title[0..len) starts here (the title is used as given, blanks collapsed). */
void re_body_heading(parser *p, const char *title, size_t len, unsigned line, unsigned col);

/* A heading that ranks the blocks after it (script.h, re_md_section): its index in the
 * episode's sections, or 0 when memory ran out. A chapter is its own release. */
unsigned re_body_section(parser *p, const char *title, unsigned char rank, int chapter);

/* A block starts here, at the next text: the unit --max-duration keeps or leaves out
 * (script.h, re_item_unit). `heading`: 0, 1 (a section's heading), 2 (a chapter's title);
 * `items`: the list items it says (1, or a run of them said together). */
void re_body_unit(parser *p, unsigned char rank, unsigned char heading, unsigned section,
                  unsigned list, unsigned items, unsigned line, unsigned col);

/* The rank of the blocks under a heading titled title, and of one block's text given its
 * section's rank (markdown_rank.c). */
unsigned char re_md_rank_of_heading(const char *title);
unsigned char re_md_rank_of_block(const char *text, size_t len, unsigned char section_rank);

/* The error reporter, for the Markdown reader's own messages. */
parse_errors *re_body_errors(parser *p);

/* The episode being built (for its title). */
re_episode *re_body_episode(parser *p);

/* Where each block is accounted for (markdown.h), or NULL when no one asked. */
re_md_outline *re_body_outline(parser *p);

/* 1 once a limit ended the body (the rest is not read) or memory ran out. */
int re_body_stopped(const parser *p);

/* Ends the body here: a limit was crossed and reported, the rest is not read. */
void re_body_halt(parser *p);

/* The Markdown reader: reads body[0..len) (the document after its front matter, whose first
 * line is line first_line of the file) into p. Sets the episode's title from the first
 * level-1 heading when it has none. Defined in markdown.c. */
void re_markdown_body(parser *p, const char *body, size_t len, unsigned first_line);

#endif
