/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown.h - what the Markdown reader made of each block of a document, for `explain`.
 *
 * A file named *.md or *.markdown is read by re_script_parse as CommonMark with GitHub's
 * extensions (tables, strikethrough, autolinks, task lists), parsed by cmark-gfm, into the
 * same episode a .txt script gives (docs/script-format.md, "Markdown"). */
#ifndef RE_MARKDOWN_H
#define RE_MARKDOWN_H

#include <stddef.h>

#include "status.h"

/* Tables read aloud row by row as "header: cell" pairs up to this size; a larger one is left
 * out with a warning. */
#define RE_MD_TABLE_MAX_ROWS 20u      /* rows under the header row */
#define RE_MD_TABLE_MAX_COLUMNS 8u
/* Blocks inside blocks (lists in lists, quotes in quotes) the reader follows; deeper is an
 * error at the block that crosses it. */
#define RE_MD_MAX_DEPTH 32u

typedef struct re_md_block {
    unsigned line, col;   /* where the block starts in the file */
    char *kind;           /* "paragraph", "list item", "heading 2", "code block", "table", ... */
    char *account;        /* "spoken: TEXT", "chapter: TITLE", "title: TITLE", "left out: WHY"
                           * (the spoken text as the reader gives it to the script's rules,
                           * directives still in it) */
} re_md_block;

typedef struct re_md_outline {
    re_md_block *blocks;  /* in document order */
    size_t count, capacity;
} re_md_outline;

/* Parses the Markdown document buf[0..len) named `file` as re_script_parse does, and fills
 * *out (empty first) with one entry per block. The parse's errors and warnings go to diag;
 * on RE_ERR_INPUT the outline holds the blocks read. Free with re_md_outline_free. */
re_status re_markdown_outline(const char *file, const char *buf, size_t len, re_md_outline *out,
                              re_diagnostics *diag);

void re_md_outline_free(re_md_outline *outline);

#endif
