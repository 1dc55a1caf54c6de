/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown.c - a Markdown document's body, parsed by cmark-gfm, read aloud as a person
 * would: the blocks become the paragraphs, sentences and chapters of script_body.h
 * (docs/script-format.md, "Markdown", says what is spoken and what is left out). */
#define _GNU_SOURCE   /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>

#include "markdown.h"
#include "markdown_brief.h"
#include "markdown_outline.h"
#include "markdown_source.h"
#include "script_body.h"
#include "text.h"

/* A run of the text collected for one block: bytes [start, next run's start) stand in the
 * file at line:col onwards (literal: no directives in them, as for inline code). */
typedef struct run {
    size_t start;
    unsigned line, col;
    int literal;
} run;

typedef struct inline_text {
    char *data;
    size_t len, cap;
    run *runs;
    size_t run_count, run_cap;
    unsigned line, col;      /* the block's place: for text of no place of its own */
    char *left_out;          /* what the block's inlines left out, for the outline */
    size_t left_len, left_cap;
} inline_text;

typedef struct md_reader {
    parser *p;
    const char *src;          /* the body as cmark-gfm read it */
    size_t len;
    size_t *line_starts;      /* offset of each body line, [0] for line 1 */
    unsigned line_count;
    unsigned first_line;      /* the file's line of body line 1 */
    int chapter_level;        /* headings of this level are chapters; 0: none */
    cmark_node *title_heading;   /* the document's level-1 heading taken as its title */
    unsigned code_blocks, code_line, code_col;
    unsigned section, lists, list;   /* the heading blocks rank under; lists so far, the one
                                      * being read (--max-duration's units, script.h) */
    int item_start;                  /* a list item's first paragraph is next */
    int nomem;
} md_reader;

/* ---- storage ---------------------------------------------------------------------------- */

static int append(md_reader *md, char **data, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t want = *cap ? *cap : 64;
        while (want < *len + n + 1)
            want *= 2;
        char *grown = realloc(*data, want);
        if (!grown) {
            md->nomem = 1;
            return 0;
        }
        *data = grown;
        *cap = want;
    }
    memcpy(*data + *len, s, n);
    *len += n;
    (*data)[*len] = '\0';
    return 1;
}

/* Appends s[0..n) that stands at line:col (0: where the text before it ends). */
static void put(md_reader *md, inline_text *t, const char *s, size_t n, unsigned line,
                unsigned col, int literal)
{
    if (n == 0)
        return;
    if (line && (t->run_count == 0 || t->runs[t->run_count - 1].literal != literal
                 || t->runs[t->run_count - 1].line != line
                 || t->runs[t->run_count - 1].col + (t->len - t->runs[t->run_count - 1].start)
                    != col)) {
        if (re_array_grow(&t->runs, &t->run_cap, t->run_count, sizeof *t->runs) != RE_OK) {
            md->nomem = 1;
            return;
        }
        t->runs[t->run_count++] = (run){ t->len, line, col, literal };
    } else if (t->run_count == 0 || t->runs[t->run_count - 1].literal != literal) {
        if (re_array_grow(&t->runs, &t->run_cap, t->run_count, sizeof *t->runs) != RE_OK) {
            md->nomem = 1;
            return;
        }
        run before = t->run_count ? t->runs[t->run_count - 1] : (run){ 0, t->line, t->col, 0 };
        t->runs[t->run_count++] = (run){ t->len, before.line, before.col, literal };
    }
    append(md, &t->data, &t->len, &t->cap, s, n);
}

static void note_left_out(md_reader *md, inline_text *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note_left_out(md_reader *md, inline_text *t, const char *fmt, ...)
{
    char note[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    if (t->left_len)
        append(md, &t->left_out, &t->left_len, &t->left_cap, "; ", 2);
    append(md, &t->left_out, &t->left_len, &t->left_cap, note, strlen(note));
}

static void text_clear(inline_text *t, unsigned line, unsigned col)
{
    t->line = line;
    t->col = col;
    t->len = 0;
    t->run_count = 0;
    t->left_len = 0;
    if (t->data)
        t->data[0] = '\0';
    if (t->left_out)
        t->left_out[0] = '\0';
}

static void text_free(inline_text *t)
{
    free(t->data);
    free(t->runs);
    free(t->left_out);
}

/* ---- the outline ------------------------------------------------------------------------ */

/* A node's first line in the body. cmark-gfm's table extension leaves the paragraph it splits
 * from a table without a position (line 0: found by fuzz_markdown); such a node is placed at
 * the first positioned node after it, at its own level or above (the table), else line 1. */
static int node_line(cmark_node *node)
{
    for (cmark_node *n = node; n; n = cmark_node_parent(n)) {
        if (cmark_node_get_start_line(n) > 0)
            return cmark_node_get_start_line(n);
        for (cmark_node *s = cmark_node_next(n); s; s = cmark_node_next(s))
            if (cmark_node_get_start_line(s) > 0)
                return cmark_node_get_start_line(s);
    }
    return 1;
}

static unsigned file_line(const md_reader *md, cmark_node *node)
{
    return md->first_line + (unsigned)node_line(node) - 1;
}

static unsigned file_col(cmark_node *node)
{
    int col = cmark_node_get_start_line(node) > 0 ? cmark_node_get_start_column(node) : 0;
    return col > 0 ? (unsigned)col : 1;
}

__attribute__((format(printf, 5, 0)))
static void account_line(md_reader *md, unsigned line, unsigned col, const char *kind,
                         const char *fmt, va_list ap)
{
    re_md_outline *o = re_body_outline(md->p);
    if (!o || md->nomem)
        return;
    char *text = NULL;
    int n = vasprintf(&text, fmt, ap);
    char *k = strdup(kind);
    if (n < 0 || !k || re_array_grow(&o->blocks, &o->capacity, o->count, sizeof *o->blocks)
                       != RE_OK) {
        free(n < 0 ? NULL : text);
        free(k);
        md->nomem = 1;
        return;
    }
    size_t at = o->count++;   /* in the order of the source */
    while (at > 0 && o->blocks[at - 1].line > line) {
        o->blocks[at] = o->blocks[at - 1];
        at--;
    }
    o->blocks[at] = (re_md_block){ line, col, k, text };
}

static void account(md_reader *md, cmark_node *node, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void account(md_reader *md, cmark_node *node, const char *kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    account_line(md, file_line(md, node), file_col(node), kind, fmt, ap);
    va_end(ap);
}

static void account_at(md_reader *md, unsigned line, unsigned col, const char *kind,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void account_at(md_reader *md, unsigned line, unsigned col, const char *kind,
                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    account_line(md, line, col, kind, fmt, ap);
    va_end(ap);
}

/* cmark-gfm takes link reference definitions (`[1.1.0]: https://...`) out of the tree, so
 * explain would not see them: a line outside every top-level block that starts like one is
 * accounted for as left out. */
static void account_definitions(md_reader *md, cmark_node *doc)
{
    unsigned covered_to = 0;   /* body lines (from 1) inside the blocks seen so far */
    cmark_node *next = cmark_node_first_child(doc);
    for (unsigned line = 1; line <= md->line_count; line++) {
        while (next && (unsigned)node_line(next) <= line) {
            int end = cmark_node_get_end_line(next);
            if (end > 0 && (unsigned)end > covered_to)
                covered_to = (unsigned)end;
            next = cmark_node_next(next);
        }
        if (line <= covered_to)
            continue;
        const char *s = md->src + md->line_starts[line - 1];
        const char *end = line < md->line_count ? md->src + md->line_starts[line] : md->src + md->len;
        size_t i = 0;
        while (i < 3 && s + i < end && s[i] == ' ')
            i++;
        if (s + i >= end || s[i] != '[')
            continue;
        const char *close = memchr(s + i, ']', (size_t)(end - s - i));
        if (close && close + 1 < end && close[1] == ':' && close > s + i + 1)
            account_at(md, md->first_line + line - 1, (unsigned)i + 1, "link reference definition",
                       "left out: %.*s (a link's target, not read aloud)", (int)(close - s - i + 1),
                       s + i);
    }
}

/* ---- GitHub's conventions --------------------------------------------------------------- */

/* "... by @alice in " before a pull request or issue: read "by alice, pull request N". */
static void by_name_in(md_reader *md, inline_text *t)
{
    if (t->len < 8 || memcmp(t->data + t->len - 4, " in ", 4) != 0)
        return;
    size_t word = t->len - 4;
    while (word > 0 && t->data[word - 1] != ' ')
        word--;
    if (word == t->len - 4 || word < 3 || memcmp(t->data + word - 3, "by ", 3) != 0
        || (word > 3 && t->data[word - 4] != ' '))
        return;
    t->len -= 4;
    while (t->run_count > 0 && t->runs[t->run_count - 1].start >= t->len)
        t->run_count--;
    put(md, t, ", ", 2, 0, 0, 1);
}

static const char *const directive_names[] = { "[pause", "[voice", "[lang", "[/lang", "[sound" };

static size_t directive_at(const char *s, size_t len)
{
    for (size_t d = 0; d < sizeof directive_names / sizeof directive_names[0]; d++) {
        size_t n = strlen(directive_names[d]);
        if (len > n && memcmp(s, directive_names[d], n) == 0
            && (s[n] == ' ' || s[n] == ']' || (d == 0 && (re_is_digit(s[n]) || s[n] == '.')))) {
            const char *close = memchr(s, ']', len);
            return close ? (size_t)(close - s) + 1 : 0;
        }
    }
    return 0;
}

/* ---- inlines ---------------------------------------------------------------------------- */

/* Where the literal of a text node stands in the source: a pointer walks the source beside
 * it, over backslash escapes; lost (0) after an entity or anything else it cannot follow. */
typedef struct source_walk {
    const md_reader *md;
    size_t pos;
    unsigned line;            /* file line, 0 when lost */
    size_t line_start;
} source_walk;

static source_walk walk_at(const md_reader *md, cmark_node *node)
{
    source_walk w = { md, 0, 0, 0 };
    int line = cmark_node_get_start_line(node), col = cmark_node_get_start_column(node);
    if (line <= 0) {   /* a paragraph split from a table: its first line, from column 1 */
        line = node_line(node);
        col = 1;
    }
    if (col <= 0 || (unsigned)line > md->line_count)
        return w;
    w.line_start = md->line_starts[line - 1];
    w.pos = w.line_start + (size_t)col - 1;
    w.line = md->first_line + (unsigned)line - 1;
    if (w.pos > md->len)
        w.line = 0;
    return w;
}

static unsigned walk_col(const source_walk *w)
{
    return (unsigned)(w->pos - w->line_start) + 1;
}

/* Moves past literal byte c; 1 when the source had it escaped (`\c`). */
static int walk_step(source_walk *w, char c)
{
    const char *src = w->md->src;
    size_t len = w->md->len;
    if (!w->line)
        return 0;
    if (w->pos < len && src[w->pos] == c) {
        w->pos++;
        return 0;
    }
    if (w->pos + 1 < len && src[w->pos] == '\\' && src[w->pos + 1] == c) {
        w->pos += 2;
        return 1;
    }
    w->line = 0;
    return 0;
}

/* Markup characters that are never spoken, whatever they are inside. */
static int is_markup(char c)
{
    return c == '*' || c == '`' || c == '|';
}

/* A text node's literal, with GitHub's conventions applied, into t. */
static void text_node(md_reader *md, inline_text *t, cmark_node *node)
{
    const char *s = cmark_node_get_literal(node);
    size_t len = s ? strlen(s) : 0, i = 0;
    source_walk w = walk_at(md, node);

    while (i < len && !md->nomem) {
        int word_start = i == 0 ? (t->len == 0 || !re_is_alnum(t->data[t->len - 1]))
                                : !re_is_alnum(s[i - 1]) && s[i - 1] != ':';
        size_t n;
        if (s[i] == '[' && (n = directive_at(s + i, len - i)) > 0) {
            for (size_t k = 0; k < n; k++) {
                unsigned line = w.line, col = w.line ? walk_col(&w) : 0;
                walk_step(&w, s[i + k]);
                put(md, t, s + i + k, 1, line, col, 0);
            }
            i += n;
        } else if (s[i] == '@' && word_start && i + 1 < len && re_is_alnum(s[i + 1])) {
            walk_step(&w, '@');   /* @name: the name */
            i++;
        } else if (s[i] == '#' && word_start && i + 1 < len && re_is_digit(s[i + 1])) {
            size_t end = i + 1;
            while (end < len && re_is_digit(s[end]))
                end++;
            if (end < len && re_is_letter(s[end])) {
                unsigned line = w.line, col = w.line ? walk_col(&w) : 0;
                walk_step(&w, '#');
                put(md, t, "#", 1, line, col, 0);
                i++;
                continue;
            }
            walk_step(&w, '#');
            put(md, t, "number ", 7, 0, 0, 1);
            i++;
        } else if (s[i] == ':' && (n = re_md_emoji_shortcode(s + i, len - i, word_start)) > 0) {
            for (size_t k = 0; k < n; k++)
                walk_step(&w, s[i + k]);
            i += n;
        } else if (is_markup(s[i])) {
            walk_step(&w, s[i]);
            put(md, t, " ", 1, 0, 0, 1);
            i++;
        } else {
            unsigned line = w.line, col = w.line ? walk_col(&w) : 0;
            if (walk_step(&w, s[i]) && s[i] == '[')
                put(md, t, "\\[", 2, line, col, 0);   /* `\[`: a literal '[' */
            else
                put(md, t, s + i, 1, line, col, 0);
            i++;
        }
    }
}

static void inlines(md_reader *md, inline_text *t, cmark_node *parent, unsigned depth);

/* The plain text of a node's children (no conventions), for comparing a link's text. */
static void plain_text(cmark_node *node, char *out, size_t size, size_t *len)
{
    for (cmark_node *c = cmark_node_first_child(node); c; c = cmark_node_next(c)) {
        const char *lit = cmark_node_get_literal(c);
        if (lit && (cmark_node_get_type(c) == CMARK_NODE_TEXT
                    || cmark_node_get_type(c) == CMARK_NODE_CODE)) {
            size_t n = strlen(lit);
            if (*len + n < size) {
                memcpy(out + *len, lit, n);
                *len += n;
                out[*len] = '\0';
            }
        } else {
            plain_text(c, out, size, len);
        }
    }
}

static int same_address(const char *text, const char *url)
{
    if (strcmp(text, url) == 0)
        return 1;
    if (strncmp(url, "mailto:", 7) == 0 && strcmp(text, url + 7) == 0)
        return 1;
    const char *bare = strstr(url, "://");
    return bare && strcmp(text, bare + 3) == 0;
}

static int number_sign(const char *text)
{
    if (text[0] != '#' || !re_is_digit(text[1]))
        return 0;
    for (const char *c = text + 1; *c; c++)
        if (!re_is_digit(*c))
            return 0;
    return 1;
}

static void link(md_reader *md, inline_text *t, cmark_node *node, unsigned depth)
{
    const char *url = cmark_node_get_url(node);
    char text[512] = "", reference[256];
    size_t text_len = 0;
    int pull_or_issue = 0;

    url = url ? url : "";
    plain_text(node, text, sizeof text, &text_len);
    int bare = text_len == 0 || same_address(text, url);
    if (re_md_brief_commit_link(url, text, bare)) {
        note_left_out(md, t, "the commit link %s (not read aloud)", url);
    } else if (re_md_github_reference(url, reference, sizeof reference, &pull_or_issue)
        && (bare || number_sign(text) || strstr(text, "...") || strstr(text, "://"))) {
        if (pull_or_issue)
            by_name_in(md, t);
        put(md, t, reference, strlen(reference), 0, 0, 1);
        note_left_out(md, t, "the link target %s (read as '%s')", url, reference);
    } else if (bare && text_len == 0) {
        if (strncmp(url, "mailto:", 7) == 0)
            url += 7;
        put(md, t, url, strlen(url), file_line(md, node), file_col(node), 1);
    } else if (bare) {
        put(md, t, text, text_len, 0, 0, 1);   /* an address: the URL rules read it */
    } else {
        inlines(md, t, node, depth + 1);
        if (*url)
            note_left_out(md, t, "the link target %s", url);
    }
}

static void inlines(md_reader *md, inline_text *t, cmark_node *parent, unsigned depth)
{
    if (depth > RE_MD_MAX_DEPTH * 4) {
        note_left_out(md, t, "inlines nested too deep");
        return;
    }
    for (cmark_node *node = cmark_node_first_child(parent); node && !md->nomem;
         node = cmark_node_next(node)) {
        const char *type = cmark_node_get_type_string(node);
        switch (cmark_node_get_type(node)) {
        case CMARK_NODE_TEXT:
            text_node(md, t, node);
            break;
        case CMARK_NODE_SOFTBREAK:
        case CMARK_NODE_LINEBREAK:
            put(md, t, " ", 1, 0, 0, 1);
            break;
        case CMARK_NODE_CODE: {
            const char *code = cmark_node_get_literal(node);
            size_t n = code ? strlen(code) : 0;
            put(md, t, "", 0, 0, 0, 1);
            for (size_t i = 0; i < n; i++)
                put(md, t, is_markup(code[i]) ? " " : code + i, 1, file_line(md, node),
                    file_col(node) + 1 + (unsigned)i, 1);
            break;
        }
        case CMARK_NODE_HTML_INLINE:
            note_left_out(md, t, "raw HTML");
            break;
        case CMARK_NODE_IMAGE:
            if (cmark_node_first_child(node))
                inlines(md, t, node, depth + 1);
            else
                note_left_out(md, t, "an image without alt text");
            break;
        case CMARK_NODE_LINK:
            link(md, t, node, depth);
            break;
        case CMARK_NODE_EMPH:
        case CMARK_NODE_STRONG:
            inlines(md, t, node, depth + 1);
            break;
        default:
            if (strcmp(type, "strikethrough") == 0)
                note_left_out(md, t, "struck-through text");
            else
                inlines(md, t, node, depth + 1);
            break;
        }
    }
}

/* ---- a briefing ------------------------------------------------------------------------- */

/* Copies t's bytes [from, to) to out, each at its place in the file (*r: the run at from). */
static void keep(md_reader *md, inline_text *out, const inline_text *t, size_t from, size_t to,
                 size_t *r)
{
    while (from < to && t->run_count) {
        while (*r + 1 < t->run_count && t->runs[*r + 1].start <= from)
            ++*r;
        const run *x = &t->runs[*r];
        size_t run_end = *r + 1 < t->run_count ? t->runs[*r + 1].start : t->len;
        size_t end = run_end < to ? run_end : to;
        put(md, out, t->data + from, end - from, x->line,
            x->line ? x->col + (unsigned)(from - x->start) : 0, x->literal);
        from = end;
    }
}

/* t's text told as a briefing (markdown_brief.h): its edits applied, every kept byte still
 * at its place in the file, what was said otherwise noted for the outline. */
static void brief(md_reader *md, inline_text *t)
{
    md_edits e = { 0 };
    re_md_brief_text(t->data ? t->data : "", t->len, &e);
    if (e.count == 0 || e.nomem) {
        md->nomem |= e.nomem;
        re_md_edits_free(&e);
        return;
    }
    inline_text out = { .line = t->line, .col = t->col };
    size_t from = 0, r = 0;
    for (size_t k = 0; k < e.count && !e.nomem; k++) {
        keep(md, &out, t, from, e.items[k].at, &r);
        if (e.items[k].with)
            put(md, &out, e.items[k].with, strlen(e.items[k].with), 0, 0, 1);
        if (e.items[k].note)
            note_left_out(md, t, "%s", e.items[k].note);
        from = e.items[k].at + e.items[k].len;
    }
    keep(md, &out, t, from, t->len, &r);
    if (e.count && !e.nomem && !md->nomem) {
        free(t->data);
        free(t->runs);
        t->data = out.data, t->len = out.len, t->cap = out.cap;
        t->runs = out.runs, t->run_count = out.run_count, t->run_cap = out.run_cap;
        out = (inline_text){ 0 };
    }
    md->nomem |= e.nomem;
    text_free(&out);
    re_md_edits_free(&e);
}

/* ---- blocks ----------------------------------------------------------------------------- */

/* Gives the collected text to the script's reader, run by run. */
static void feed(md_reader *md, inline_text *t)
{
    for (size_t r = 0; r < t->run_count && !re_body_stopped(md->p); r++) {
        size_t end = r + 1 < t->run_count ? t->runs[r + 1].start : t->len;
        const run *x = &t->runs[r];
        if (x->literal)
            re_body_literal(md->p, t->data + x->start, end - x->start, x->line, x->col);
        else
            re_body_span(md->p, t->data + x->start, end - x->start, x->line, x->col);
    }
}

static void account_text(md_reader *md, cmark_node *node, const char *kind, inline_text *t)
{
    const char *spoken = t->len ? t->data : "";
    while (*spoken == ' ')
        spoken++;
    if (*spoken && t->left_len)
        account(md, node, kind, "spoken: %s (left out: %s)", spoken, t->left_out);
    else if (*spoken)
        account(md, node, kind, "spoken: %s", spoken);
    else
        account(md, node, kind, "left out: %s", t->left_len ? t->left_out : "nothing to read");
}

static unsigned end_line(const md_reader *md, cmark_node *node)
{
    int line = cmark_node_get_end_line(node);
    return line > 0 ? md->first_line + (unsigned)line : file_line(md, node) + 1;
}

/* The heading's text, collapsed, as a chapter's title (no directives in it). */
static char *heading_text(md_reader *md, cmark_node *node)
{
    inline_text t = { .line = file_line(md, node), .col = file_col(node) };
    inlines(md, &t, node, 0);
    char *title = NULL;
    if (!md->nomem) {
        size_t n = 0;
        title = malloc(t.len + 1);
        for (size_t i = 0; title && i < t.len; i++) {
            if (t.data[i] == '\\' && i + 1 < t.len && t.data[i + 1] == '[')
                continue;
            title[n++] = t.data[i];
        }
        if (title) {
            title[n] = '\0';
            const char *s = title;
            size_t len = n;
            re_trim(&s, &len);
            memmove(title, s, len);
            title[len] = '\0';
        } else {
            md->nomem = 1;
        }
    }
    text_free(&t);
    return title;
}

static void block(md_reader *md, inline_text *t, cmark_node *node, unsigned depth,
                  int in_list);

/* A block whose text (in t as written, before the briefing's edits, when it has been read)
 * is next: its rank under the section. */
static void unit(md_reader *md, const inline_text *t, cmark_node *node, unsigned list)
{
    const re_episode *ep = re_body_episode(md->p);
    unsigned char rank = md->section < ep->section_count ? ep->sections[md->section].rank
                                                         : RE_RANK_OTHER;
    if (t->len)
        rank = re_md_rank_of_block(t->data, t->len, rank);
    re_body_unit(md->p, rank, 0, md->section, list, 1, file_line(md, node), file_col(node));
}

static void blocks(md_reader *md, inline_text *t, cmark_node *parent, unsigned depth,
                   int in_list)
{
    for (cmark_node *c = cmark_node_first_child(parent); c && !re_body_stopped(md->p) && !md->nomem;
         c = cmark_node_next(c))
        block(md, t, c, depth, in_list);
}

/* The list item's text, as read before the briefing's edits, into t; 0 when the item is not
 * one paragraph. */
static int item_text(md_reader *md, inline_text *t, cmark_node *item)
{
    cmark_node *para = cmark_node_first_child(item);
    if (!para || cmark_node_next(para) || cmark_node_get_type(para) != CMARK_NODE_PARAGRAPH)
        return 0;
    text_clear(t, file_line(md, para), file_col(para));
    inlines(md, t, para, 0);
    if (!md->nomem && !t->data)   /* nothing collected: an empty text, never NULL */
        append(md, &t->data, &t->len, &t->cap, "", 0);
    return !md->nomem;
}

/* The items from `item` on said as one sentence (markdown_brief.h: a run of dependency
 * updates, the new contributors): the node after them, or item when it starts none. */
static cmark_node *said_together(md_reader *md, inline_text *t, cmark_node *item)
{
    md_group g = { 0 };
    cmark_node *n = item;
    while (n && item_text(md, t, n) && re_md_group_add(&g, t->data, t->len))
        n = cmark_node_next(n);
    char *sentence = g.count >= re_md_group_least(g.kind) ? re_md_group_sentence(&g) : NULL;
    md->nomem |= g.nomem || (g.count >= re_md_group_least(g.kind) && !sentence);
    if (sentence && !md->nomem) {
        text_clear(t, file_line(md, item), file_col(item));
        put(md, t, sentence, strlen(sentence), 0, 0, 1);
        if (md->item_start) {   /* one block of g.count items for --max-duration */
            const re_episode *ep = re_body_episode(md->p);
            unsigned char rank = g.kind == MD_GROUP_UPDATES ? RE_RANK_CHORE
                                 : md->section < ep->section_count ? ep->sections[md->section].rank
                                                                   : RE_RANK_OTHER;
            re_body_unit(md->p, rank, 0, md->section, md->list, g.count, file_line(md, item),
                         file_col(item));
        }
        md->item_start = 0;
        feed(md, t);
        for (cmark_node *c = item; c != n && item_text(md, t, c); c = cmark_node_next(c))
            if (c == item)
                account(md, cmark_node_first_child(c), "list item",
                        "spoken: %s (for %u item%s; this one: %s)", sentence, g.count,
                        g.count == 1 ? "" : "s", t->data);
            else
                account(md, cmark_node_first_child(c), "list item",
                        "left out: %s (said with the item at line %u)", t->data,
                        file_line(md, item));
    }
    int said = sentence != NULL;
    free(sentence);
    re_md_group_free(&g);
    return said ? n : item;
}

/* 1 when the block after node is a list of first contributions. */
static int contributions_follow(md_reader *md, cmark_node *node)
{
    cmark_node *list = cmark_node_next(node);
    inline_text t = { 0 };
    int follow = list && cmark_node_get_type(list) == CMARK_NODE_LIST
                 && item_text(md, &t, cmark_node_first_child(list))
                 && re_md_brief_kind(t.data, t.len) == MD_GROUP_CONTRIBUTORS;
    text_free(&t);
    return follow;
}

static void heading(md_reader *md, cmark_node *node, int top)
{
    int level = cmark_node_get_heading_level(node);
    char kind[16];
    snprintf(kind, sizeof kind, "heading %d", level);
    char *title = heading_text(md, node);
    if (!title)
        return;
    char *spoken = re_md_brief_heading(title, &md->nomem);   /* "Version 2.4.0, 2026-11-30" */
    const char *said = spoken ? spoken : title;
    int silent = re_md_brief_is_contributors(title) && contributions_follow(md, node);
    if (node == md->title_heading) {
        re_episode *ep = re_body_episode(md->p);
        if (!ep->title && !(ep->title = strdup(title)))
            md->nomem = 1;
        account(md, node, kind, "title: %s (the episode's title, not spoken)", title);
    } else if (!*title) {
        account(md, node, kind, "left out: a heading without text");
    } else if (top && level == md->chapter_level) {
        re_body_heading(md->p, title, strlen(title), file_line(md, node), file_col(node));
        md->section = re_body_section(md->p, title, re_md_rank_of_heading(title), 1);
        if (!silent) {
            re_body_unit(md->p, RE_RANK_OTHER, 2, md->section, 0, 1, file_line(md, node),
                         file_col(node));
            re_body_literal(md->p, said, strlen(said), file_line(md, node), file_col(node));
        }
        re_body_end_sentence(md->p);
        re_body_end_paragraph(md->p, end_line(md, node));
        if (silent)
            account(md, node, kind, "chapter: %s (its title not spoken: the list names them)",
                    title);
        else if (spoken)
            account(md, node, kind, "chapter: %s (said first as '%s')", title, said);
        else
            account(md, node, kind, "chapter: %s (its title spoken first)", title);
    } else if (silent) {   /* its section ranks the list that names them */
        md->section = re_body_section(md->p, title, re_md_rank_of_heading(title), 0);
        account(md, node, kind, "left out: %s (the list below names them)", title);
    } else {
        re_body_end_paragraph(md->p, file_line(md, node));
        md->section = re_body_section(md->p, title, re_md_rank_of_heading(title), 0);
        re_body_unit(md->p, RE_RANK_OTHER, 1, md->section, 0, 1, file_line(md, node),
                     file_col(node));
        re_body_literal(md->p, said, strlen(said), file_line(md, node), file_col(node));
        re_body_end_sentence(md->p);
        re_body_end_paragraph(md->p, end_line(md, node));
        account(md, node, kind, "spoken: %s (a sentence of its own%s)", said,
                top && level < md->chapter_level ? ": its sections are the chapters"
                                                 : ", not a chapter");
    }
    free(spoken);
    free(title);
}

static void table(md_reader *md, inline_text *t, cmark_node *node)
{
    unsigned rows = 0, columns = 0;
    cmark_node *header = cmark_node_first_child(node);
    for (cmark_node *r = header; r; r = cmark_node_next(r))
        rows++;
    for (cmark_node *c = header ? cmark_node_first_child(header) : NULL; c;
         c = cmark_node_next(c))
        columns++;
    rows = rows ? rows - 1 : 0;
    re_body_end_paragraph(md->p, file_line(md, node));
    if (rows > RE_MD_TABLE_MAX_ROWS || columns > RE_MD_TABLE_MAX_COLUMNS) {
        re_diag_add(re_body_errors(md->p)->diag, re_body_errors(md->p)->file, file_line(md, node),
                    file_col(node), "warning: a table of %u rows and %u columns is left out: "
                    "tables of up to %u rows and %u columns are read aloud", rows, columns,
                    RE_MD_TABLE_MAX_ROWS, RE_MD_TABLE_MAX_COLUMNS);
        account(md, node, "table", "left out: %u rows and %u columns (read aloud up to %u rows "
                "and %u columns)", rows, columns, RE_MD_TABLE_MAX_ROWS, RE_MD_TABLE_MAX_COLUMNS);
        return;
    }
    char *names[RE_MD_TABLE_MAX_COLUMNS] = { 0 };
    unsigned k = 0;
    for (cmark_node *c = cmark_node_first_child(header); c && k < columns;
         c = cmark_node_next(c), k++)
        names[k] = heading_text(md, c);
    text_clear(t, file_line(md, node), file_col(node));
    unit(md, t, node, 0);
    for (cmark_node *r = cmark_node_next(header); r && !md->nomem; r = cmark_node_next(r)) {
        size_t row_start = t->len;
        k = 0;
        for (cmark_node *c = cmark_node_first_child(r); c && k < columns;
             c = cmark_node_next(c), k++) {
            size_t before = t->len;
            if (t->len > row_start)
                put(md, t, ", ", 2, 0, 0, 1);
            if (names[k] && *names[k]) {
                put(md, t, names[k], strlen(names[k]), 0, 0, 1);
                put(md, t, ": ", 2, 0, 0, 1);
            }
            size_t cell_start = t->len;
            inlines(md, t, c, 0);
            int empty = 1;
            for (size_t i = cell_start; i < t->len; i++)
                empty &= t->data[i] == ' ';
            if (empty) {   /* an empty cell: no pair */
                t->len = before;
                while (t->run_count > 0 && t->runs[t->run_count - 1].start >= t->len)
                    t->run_count--;
            }
        }
        if (t->len > row_start)
            put(md, t, ". ", 2, 0, 0, 1);
    }
    feed(md, t);
    account_text(md, node, "table", t);
    re_body_end_paragraph(md->p, end_line(md, node));
    for (k = 0; k < columns; k++)
        free(names[k]);
}

static void block(md_reader *md, inline_text *t, cmark_node *node, unsigned depth, int in_list)
{
    const char *type = cmark_node_get_type_string(node);

    if (depth > RE_MD_MAX_DEPTH) {
        re_parse_error(re_body_errors(md->p), file_line(md, node), file_col(node), "blocks are nested "
                       "more than %u deep here; the limit is %u", RE_MD_MAX_DEPTH, RE_MD_MAX_DEPTH);
        return;
    }
    switch (cmark_node_get_type(node)) {
    case CMARK_NODE_PARAGRAPH: {
        text_clear(t, file_line(md, node), file_col(node));
        inlines(md, t, node, 0);
        if (md->nomem)
            return;
        if (!in_list || md->item_start)   /* ranked by what is written (chore:, Bump ...) */
            unit(md, t, node, in_list ? md->list : 0);
        md->item_start = 0;
        brief(md, t);
        if (md->nomem)
            return;
        feed(md, t);
        account_text(md, node, in_list ? "list item" : "paragraph", t);
        if (in_list)   /* an item is a paragraph of its own, ended as a sentence */
            re_body_end_sentence(md->p);
        re_body_end_paragraph(md->p, end_line(md, node));
        break;
    }
    case CMARK_NODE_HEADING:
        heading(md, node, depth == 0);
        break;
    case CMARK_NODE_LIST:   /* each item's text ends its own paragraphs (above); a run of
                             * items said together (markdown_brief.h) is one paragraph */
        if (!in_list)   /* a list in a list goes with its item */
            md->list = ++md->lists;
        for (cmark_node *item = cmark_node_first_child(node), *next, *last; item
             && !re_body_stopped(md->p) && !md->nomem; item = next) {
            if (!in_list)   /* an item's first spoken block opens its unit, nested or not */
                md->item_start = 1;
            if ((next = said_together(md, t, item)) == item) {
                block(md, t, item, depth, 1);
                next = cmark_node_next(item);
                continue;
            }
            for (last = item; cmark_node_next(last) != next; last = cmark_node_next(last))
                ;
            re_body_end_sentence(md->p);
            re_body_end_paragraph(md->p, end_line(md, last));
        }
        break;
    case CMARK_NODE_ITEM:
        blocks(md, t, node, depth + 1, 1);
        break;
    case CMARK_NODE_BLOCK_QUOTE:
        blocks(md, t, node, depth + 1, in_list);
        break;
    case CMARK_NODE_CODE_BLOCK: {
        const char *code = cmark_node_get_literal(node);
        unsigned lines = 0;
        for (const char *c = code; c && *c; c++)
            lines += *c == '\n';
        if (md->code_blocks++ == 0) {
            md->code_line = file_line(md, node);
            md->code_col = file_col(node);
        }
        account(md, node, "code block", "left out: code is not read aloud (%u line%s)", lines,
                lines == 1 ? "" : "s");
        break;
    }
    case CMARK_NODE_HTML_BLOCK: {
        const char *html = cmark_node_get_literal(node);
        int comment = html && strncmp(html, "<!--", 4) == 0;
        account(md, node, "HTML", "left out: %s is not read aloud",
                comment ? "an HTML comment" : "raw HTML");
        break;
    }
    case CMARK_NODE_THEMATIC_BREAK:
        if (!in_list)
            re_body_end_paragraph(md->p, file_line(md, node));
        account(md, node, "thematic break", "left out: nothing to read (a paragraph ends)");
        break;
    default:
        if (strcmp(type, "table") == 0) {
            table(md, t, node);
        } else {
            account(md, node, type, "left out: not read aloud");
        }
        break;
    }
}

/* The chapter level and the title heading (markdown_outline.h); a level-1 heading that is
 * not the title names the episode when the front matter does not. */
static void choose_chapters(md_reader *md, cmark_node *doc)
{
    cmark_node *first_one = re_md_choose_chapters(doc, &md->chapter_level, &md->title_heading);
    if (!md->title_heading && first_one) {
        char *title = heading_text(md, first_one);
        re_episode *ep = re_body_episode(md->p);
        if (title && !ep->title)
            ep->title = title;
        else
            free(title);
    }
}

void re_markdown_body(parser *p, const char *body, size_t len, unsigned first_line)
{
    md_reader md = { .p = p, .src = body, .len = len, .first_line = first_line };
    inline_text t = { 0 };

    size_t lines = 1;
    for (size_t i = 0; i < len; i++)
        lines += body[i] == '\n';
    /* nothing cmark-gfm cannot do quickly is given to it; what its references decode to is
     * checked before anything reads it */
    if (!re_md_within_limits(re_body_errors(p), body, len, first_line)) {
        re_body_halt(p);
        return;
    }
    cmark_parser *reader = NULL;
    md.line_starts = malloc(lines * sizeof *md.line_starts);
    cmark_node *doc = md.line_starts ? re_md_parse(body, len, &reader) : NULL;
    if (!doc) {
        free(md.line_starts);
        re_body_errors(p)->nomem = 1;
        return;
    }
    if (re_md_decoded_controls(re_body_errors(p), doc, body, len, first_line) > 0) {
        re_body_halt(p);
        cmark_node_free(doc);
        cmark_parser_free(reader);
        free(md.line_starts);
        return;
    }
    cmark_parser_free(reader);
    cmark_consolidate_text_nodes(doc);
    md.line_starts[0] = 0;
    for (size_t i = 0; i < len; i++)
        if (body[i] == '\n')
            md.line_starts[++md.line_count] = i + 1;
    md.line_count++;
    choose_chapters(&md, doc);
    blocks(&md, &t, doc, 0, 0);
    account_definitions(&md, doc);
    re_body_end_paragraph(p, first_line + md.line_count);
    if (md.code_blocks && !re_body_stopped(p))
        re_diag_add(re_body_errors(p)->diag, re_body_errors(p)->file, md.code_line, md.code_col,
                    "warning: %u code block%s left out (code is not read aloud)",
                    md.code_blocks, md.code_blocks == 1 ? " is" : "s are");
    if (md.nomem)
        re_body_errors(p)->nomem = 1;
    text_free(&t);
    cmark_node_free(doc);
    free(md.line_starts);
}
