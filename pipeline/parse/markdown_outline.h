/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_outline.h - which headings of a Markdown document are its chapters and which is
 * its title (docs/script-format.md, "Markdown"; private to the parse stage). */
#ifndef RE_MARKDOWN_OUTLINE_H
#define RE_MARKDOWN_OUTLINE_H

#include <cmark-gfm.h>

/* The chapter level of doc's top headings into *chapter_level (0: none) and its title
 * heading into *title_heading (NULL: none). With one level-1 heading first in the document,
 * that heading is the title and the chapters are the shallowest level of the others;
 * otherwise the chapters are the shallowest level present. When that level has one heading
 * only (a single release) and the next level two or more (its sections), the next level.
 * Returns the first level-1 heading when it is not the title (it may name the episode),
 * else NULL. */
cmark_node *re_md_choose_chapters(cmark_node *doc, int *chapter_level, cmark_node **title_heading);

#endif
