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

/* What cmark-gfm may be given, checked on the raw text before it parses anything, since its
 * work cannot be interrupted and is not linear on every input (docs/robustness.md,
 * "Markdown"). A line is at most RE_SCRIPT_MAX_LINE bytes, as in any script. The document is
 * cut into blocks (lines between blank lines; a list item starts a new one; fenced code
 * blocks weigh nothing), and each weighs its punctuation marks times its bytes, plus 16 times
 * each line's `www.`, `://`, `@` and `|` times that line's bytes, plus 256 times its
 * delimiter-like lines (`|---|`) times its `|`. Each is an error at the block or line that
 * crosses it. */
#define RE_MD_MAX_BLOCK_WORK (1ull << 27)   /* one block's weight */
#define RE_MD_MAX_WORK (1ull << 29)         /* all blocks' weights together */
#define RE_MD_MAX_PIECES 524288u            /* lines outside code blocks (4 each) and
                                             * punctuation marks (1 each): cmark-gfm's nodes */

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

/* Checks Markdown that comes from elsewhere than a script (the show notes a sidecar keeps)
 * as a script's document is checked before it is read: strict UTF-8 without control
 * characters, the limits above, and no character reference standing for a control character
 * (`&#27;`). `file` names it in diag, where each problem is reported at its line and column
 * of text[0..len). RE_OK, RE_ERR_INPUT, RE_ERR_NOMEM. Bounded in time and memory by the
 * limits. */
re_status re_markdown_vet(const char *file, const char *text, size_t len, re_diagnostics *diag);

/* Only the limits above, on text[0..len) (a document whose first line is line 1): for a
 * caller about to give cmark-gfm text that was vetted before, as a last guard. 1 when it is
 * within them. Reads nothing else; reports nothing. */
int re_markdown_within_limits(const char *text, size_t len);

/* A document as HTML by cmark-gfm (the reader's own set-up: GitHub's table, strikethrough,
 * autolink and task-list extensions; raw HTML and unsafe links such as javascript: left out,
 * since CMARK_OPT_UNSAFE is off): the page's show notes and the feed's content:encoded. NULL
 * when text[0..len) is over the limits above (vet it first: re_markdown_vet) or memory ran
 * out; free() it. */
char *re_markdown_to_html(const char *text, size_t len);

#endif
