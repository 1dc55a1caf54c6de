/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_outline.c - a Markdown document's chapters and title (see markdown_outline.h). */
#include "markdown_outline.h"

#include <stddef.h>

/* Headings of `level` at the document's top, the title aside. */
static unsigned headings_at(cmark_node *doc, const cmark_node *title, int level)
{
    unsigned count = 0;
    for (cmark_node *c = cmark_node_first_child(doc); c; c = cmark_node_next(c))
        count += cmark_node_get_type(c) == CMARK_NODE_HEADING && c != title
                 && cmark_node_get_heading_level(c) == level;
    return count;
}

/* The shallowest level of the document's top headings deeper than `level`; 0: none. */
static int next_level(cmark_node *doc, const cmark_node *title, int level)
{
    int next = 7;
    for (cmark_node *c = cmark_node_first_child(doc); c; c = cmark_node_next(c))
        if (cmark_node_get_type(c) == CMARK_NODE_HEADING && c != title
            && cmark_node_get_heading_level(c) > level && cmark_node_get_heading_level(c) < next)
            next = cmark_node_get_heading_level(c);
    return next < 7 ? next : 0;
}

cmark_node *re_md_choose_chapters(cmark_node *doc, int *chapter_level, cmark_node **title_heading)
{
    int ones = 0, shallowest = 7, shallowest_other = 7;
    cmark_node *first = NULL, *first_one = NULL;
    *title_heading = NULL;
    for (cmark_node *c = cmark_node_first_child(doc); c; c = cmark_node_next(c)) {
        if (cmark_node_get_type(c) != CMARK_NODE_HEADING)
            continue;
        int level = cmark_node_get_heading_level(c);
        if (!first)
            first = c;
        if (level == 1 && !first_one)
            first_one = c;
        ones += level == 1;
        if (level < shallowest)
            shallowest = level;
        if (c != first && level < shallowest_other)
            shallowest_other = level;
    }
    if (first && cmark_node_get_heading_level(first) == 1 && ones == 1) {
        *title_heading = first;
        *chapter_level = shallowest_other < 7 ? shallowest_other : 0;
        first_one = NULL;
    } else {
        *chapter_level = shallowest < 7 ? shallowest : 0;
    }
    int sections = *chapter_level ? next_level(doc, *title_heading, *chapter_level) : 0;
    if (sections && headings_at(doc, *title_heading, *chapter_level) == 1
        && headings_at(doc, *title_heading, sections) >= 2)
        *chapter_level = sections;
    return first_one;
}
