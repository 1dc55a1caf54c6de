/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_source.c - a Markdown document before and right after cmark-gfm parses it: the
 * limits on its work, measured on the raw text; cmark-gfm's set-up; and the control
 * characters that its decoding of character references makes (markdown_source.h). */
#include "markdown_source.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmark-gfm-core-extensions.h>

#include "markdown.h"
#include "script.h"
#include "utf8.h"

/* ---- the limits --------------------------------------------------------------------------
 *
 * cmark-gfm 0.29.0.gfm.6 is linear on real documents but not on every input: its bracket and
 * emphasis stacks are quadratic in the marks of one paragraph, its autolink extension rescans
 * a line from every `www.`, `://` and `@`, its table extension appends each cell to a linked
 * list by walking it and re-reads the whole paragraph at every line that looks like a
 * delimiter row; and every node costs it a few allocations. None of it can be interrupted.
 * So before it runs, the text is cut into blocks - lines between blank lines, a new one at
 * each list item (a line that ends any open paragraph, whatever holds it) - and weighed:
 *
 *   work of a block = its punctuation marks x its bytes
 *                     + ADDRESS_WEIGHT x (each line's `www.`, `://`, `@` and `|` x its bytes)
 *                     + DELIMITER_WEIGHT x (its delimiter-like lines x its `|`)
 *   pieces          = LINE_PIECES a line + 1 a punctuation mark
 *
 * Every term bounds a superlinear cost from above (scripts/bench-markdown measures each shape
 * against it; docs/robustness.md has the table). A fenced code block at the margin, which
 * cmark-gfm copies without parsing, weighs nothing: it is only taken for one where cmark-gfm
 * must see one too (never inside what may be an HTML block). Every other doubt weighs more. */
#define ADDRESS_WEIGHT 16u
#define DELIMITER_WEIGHT 256u
#define LINE_PIECES 4u

typedef struct block_weight {
    unsigned line;            /* file line of its first line; 0 when no block is open */
    uint64_t bytes, marks, line_work, delimiters, pipes;
} block_weight;

typedef struct limits_scan {
    parse_errors *e;
    uint64_t work, pieces;
    block_weight block;
    int over;                 /* a work or piece limit was reported: nothing more is weighed */
    char fence;               /* '`' or '~' inside a fenced code block, else 0 */
    size_t fence_length;
    int html;                 /* 1 inside what may be an HTML block */
    unsigned html_needs;      /* end marks still to see before a blank line can end it */
} limits_scan;

static int is_mark(unsigned char c)
{
    return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`')
           || (c >= '{' && c <= '~');
}

static int is_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t')
            return 0;
    return 1;
}

/* A list item with text after its marker, at most three spaces in: cmark-gfm ends any open
 * paragraph there, in whatever list or quote it is (a marker cannot be lazy continuation
 * text, and at that indentation it starts a block in every container). Only `1.` and `1)`
 * of the ordered markers: another number cannot interrupt a paragraph. */
static int starts_list_item(const char *s, size_t n)
{
    size_t i = 0;
    while (i < 3 && i < n && s[i] == ' ')
        i++;
    if (i < n && (s[i] == '-' || s[i] == '+' || s[i] == '*'))
        i++;
    else if (i + 1 < n && s[i] == '1' && (s[i + 1] == '.' || s[i + 1] == ')'))
        i += 2;
    else
        return 0;
    if (i >= n || (s[i] != ' ' && s[i] != '\t'))
        return 0;
    return !is_blank_line(s + i, n - i);
}

/* An opening fence at column 1 (three or more '`' with no '`' after them, or '~'): such a line
 * is outside every list and quote, so cmark-gfm opens a code block at the top level there
 * unless an HTML block or a code block holds it. Its length, 0 when it is none. */
static size_t opening_fence(const char *s, size_t n)
{
    size_t k = 0;
    if (n < 3 || (s[0] != '`' && s[0] != '~'))
        return 0;
    while (k < n && s[k] == s[0])
        k++;
    if (k < 3 || (s[0] == '`' && memchr(s + k, '`', n - k)))
        return 0;
    return k;
}

/* cmark-gfm's closing fence: at most three spaces, the fence's character at least as many
 * times as it opened with, blanks only after. */
static int closing_fence(const char *s, size_t n, char c, size_t length)
{
    size_t i = 0, k = 0;
    while (i < 3 && i < n && s[i] == ' ')
        i++;
    while (i + k < n && s[i + k] == c)
        k++;
    return k >= length && is_blank_line(s + i + k, n - i - k);
}

enum { HTML_TAG_END = 1, HTML_COMMENT_END = 2, HTML_PI_END = 4, HTML_DECL_END = 8,
       HTML_CDATA_END = 16 };

/* A line that may start an HTML block: '<' at most three spaces in, then a letter, '/', '!'
 * or '?' (a superset of cmark-gfm's seven kinds). The end marks the kinds it may be need. */
static int html_start(const char *s, size_t n, unsigned *needs)
{
    static const char *const raw_tags[] = { "script", "pre", "style", "textarea" };
    size_t i = 0;
    while (i < 3 && i < n && s[i] == ' ')
        i++;
    if (i + 1 >= n || s[i] != '<')
        return 0;
    const char *t = s + i + 1;
    size_t left = n - i - 1;
    if (!((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z') || t[0] == '/'
          || t[0] == '!' || t[0] == '?'))
        return 0;
    *needs = 0;
    for (size_t k = 0; k < sizeof raw_tags / sizeof raw_tags[0]; k++)
        if (left >= strlen(raw_tags[k]) && strncasecmp(t, raw_tags[k], strlen(raw_tags[k])) == 0)
            *needs |= HTML_TAG_END;
    if (left >= 3 && memcmp(t, "!--", 3) == 0)
        *needs |= HTML_COMMENT_END;
    if (t[0] == '?')
        *needs |= HTML_PI_END;
    if (left >= 2 && t[0] == '!' && ((t[1] >= 'a' && t[1] <= 'z') || (t[1] >= 'A' && t[1] <= 'Z')))
        *needs |= HTML_DECL_END;
    if (left >= 8 && memcmp(t, "![CDATA[", 8) == 0)
        *needs |= HTML_CDATA_END;
    return 1;
}

static int contains(const char *s, size_t n, const char *what, int any_case)
{
    size_t k = strlen(what);
    for (size_t i = 0; i + k <= n; i++)
        if (any_case ? strncasecmp(s + i, what, k) == 0 : memcmp(s + i, what, k) == 0)
            return 1;
    return 0;
}

/* The end marks of HTML blocks that this line holds. */
static unsigned html_ends(const char *s, size_t n)
{
    unsigned seen = 0;
    if (contains(s, n, "</script>", 1) || contains(s, n, "</pre>", 1)
        || contains(s, n, "</style>", 1) || contains(s, n, "</textarea>", 1))
        seen |= HTML_TAG_END;
    if (contains(s, n, "-->", 0))
        seen |= HTML_COMMENT_END;
    if (contains(s, n, "?>", 0))
        seen |= HTML_PI_END;
    if (memchr(s, '>', n))
        seen |= HTML_DECL_END;
    if (contains(s, n, "]]>", 0))
        seen |= HTML_CDATA_END;
    return seen;
}

/* A line that may be a table's delimiter row: only '-', ':', '|' and blanks, one '-' at least. */
static int delimiter_like(const char *s, size_t n)
{
    int dash = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '-')
            dash = 1;
        else if (s[i] != ':' && s[i] != '|' && s[i] != ' ' && s[i] != '\t')
            return 0;
    }
    return dash;
}

static void end_block(limits_scan *x)
{
    block_weight *b = &x->block;
    if (!b->line || x->over) {
        b->line = 0;
        return;
    }
    uint64_t work = b->marks * b->bytes + ADDRESS_WEIGHT * b->line_work
                    + DELIMITER_WEIGHT * b->delimiters * b->pipes;
    if (work > RE_MD_MAX_BLOCK_WORK) {
        re_parse_error(x->e, b->line, 1, "this block is too much work for the Markdown parser: "
                       "%llu bytes with %llu punctuation marks weigh %llu, more than %llu: split "
                       "it with blank lines", (unsigned long long)b->bytes,
                       (unsigned long long)b->marks, (unsigned long long)work,
                       (unsigned long long)RE_MD_MAX_BLOCK_WORK);
        x->over = 1;
    } else if ((x->work += work) > RE_MD_MAX_WORK) {
        re_parse_error(x->e, b->line, 1, "the document is too much work for the Markdown parser "
                       "from this block on: its blocks weigh more than %llu together; split it "
                       "into smaller documents", (unsigned long long)RE_MD_MAX_WORK);
        x->over = 1;
    }
    b->line = 0;
}

static void weigh_line(limits_scan *x, const char *s, size_t n, unsigned line)
{
    uint64_t marks = 0, addresses = 0, pipes = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_mark(c))
            continue;
        marks++;
        if (c == '@' || c == '|')
            addresses++;
        pipes += c == '|';
        if (c == ':' && i + 2 < n && s[i + 1] == '/' && s[i + 2] == '/')
            addresses++;
        if (c == '.' && i >= 3 && memcmp(s + i - 3, "www", 3) == 0)
            addresses++;
    }
    block_weight *b = &x->block;
    if (!b->line)
        *b = (block_weight){ .line = line };
    b->bytes += n + 1;
    b->marks += marks;
    b->line_work += addresses * (n + 1);
    b->pipes += pipes;
    b->delimiters += delimiter_like(s, n);
    x->pieces += LINE_PIECES + marks;
    if (x->pieces > RE_MD_MAX_PIECES && !x->over) {
        re_parse_error(x->e, line, 1, "the document holds more Markdown than the parser is allowed "
                       "here: more than %u pieces (a line counts %u, a punctuation mark 1); split "
                       "it into smaller documents", RE_MD_MAX_PIECES, LINE_PIECES);
        x->over = 1;
    }
}

static void scan_line(limits_scan *x, const char *s, size_t n, unsigned line)
{
    if (x->fence) {
        if (closing_fence(s, n, x->fence, x->fence_length))
            x->fence = 0;
        return;
    }
    if (is_blank_line(s, n)) {
        end_block(x);
        if (x->html && x->html_needs == 0)
            x->html = 0;
        return;
    }
    unsigned needs = 0;
    size_t fence = x->html ? 0 : opening_fence(s, n);
    if (fence) {
        end_block(x);
        x->fence = s[0];
        x->fence_length = fence;
        return;
    }
    if (html_start(s, n, &needs)) {
        x->html_needs |= needs;
        x->html = 1;
    }
    if (x->html)
        x->html_needs &= ~html_ends(s, n);
    if (starts_list_item(s, n))
        end_block(x);
    if (!x->over)
        weigh_line(x, s, n, line);
}

int re_md_within_limits(parse_errors *e, const char *text, size_t len, unsigned first_line)
{
    limits_scan x = { .e = e };
    int errors = e->count;
    unsigned line = first_line;
    for (size_t pos = 0; pos < len; line++) {
        const char *s = text + pos, *nl = memchr(s, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - s) : len - pos;
        pos += n + 1;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (n > RE_SCRIPT_MAX_LINE) {   /* as in a .txt script; not read further */
            re_parse_error(e, line, RE_SCRIPT_MAX_LINE + 1, "line is %zu bytes; the limit is %u "
                           "(is a line break missing?)", n, RE_SCRIPT_MAX_LINE);
            x.over = 1;
            continue;
        }
        scan_line(&x, s, n, line);
    }
    end_block(&x);
    return e->count == errors;
}

/* ---- the parser ------------------------------------------------------------------------- */

cmark_node *re_md_parse(const char *text, size_t len, cmark_parser **parser)
{
    static const char *const extensions[] = { "table", "strikethrough", "autolink", "tasklist" };

    *parser = NULL;
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *reader = cmark_parser_new(CMARK_OPT_DEFAULT);
    if (!reader)
        return NULL;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++) {
        cmark_syntax_extension *ext = cmark_find_syntax_extension(extensions[i]);
        if (!ext || !cmark_parser_attach_syntax_extension(reader, ext)) {
            cmark_parser_free(reader);
            return NULL;
        }
    }
    cmark_parser_feed(reader, text, len);
    cmark_node *doc = cmark_parser_finish(reader);
    if (!doc) {
        cmark_parser_free(reader);
        return NULL;
    }
    *parser = reader;
    return doc;
}

/* ---- what references decode to ---------------------------------------------------------- */

/* A character that a reference may not stand for: the controls the raw text may not hold
 * (re_utf8_is_control), and a line break, which a document writes as one. */
static int forbidden(uint32_t cp)
{
    return re_utf8_is_control(cp) || cp == '\n';
}

/* The character reference at s[0..n) (s[0] is '&'), as cmark-gfm decodes it: its length
 * and *cp, or 0 when it is none this check needs (named ones other than &NewLine; decode to
 * no control character). cmark-gfm 0.29.0.gfm.6 takes 1 to 8 digits in either base
 * (`&#00000027;` and `&#x0000001B;` are ESC; nine digits are text), more than CommonMark's 7
 * and 6: its houdini_unescape_ent decides, not the spec. */
static size_t reference_at(const char *s, size_t n, uint32_t *cp)
{
    static const char newline[] = "&NewLine;";
    if (n >= sizeof newline - 1 && memcmp(s, newline, sizeof newline - 1) == 0) {
        *cp = '\n';
        return sizeof newline - 1;
    }
    if (n < 4 || s[1] != '#')
        return 0;
    int hex = s[2] == 'x' || s[2] == 'X';
    size_t i = hex ? 3 : 2, digits = 0;
    uint32_t value = 0;
    for (; i < n; i++, digits++) {
        unsigned char c = (unsigned char)s[i];
        int d = c >= '0' && c <= '9' ? c - '0'
                : hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
        if (d < 0)
            break;
        if (value < 0x110000)
            value = value * (hex ? 16 : 10) + (uint32_t)d;
    }
    if (digits == 0 || digits > 8 || i >= n || s[i] != ';')
        return 0;
    if (value == 0 || (value >= 0xD800 && value < 0xE000) || value >= 0x110000)
        value = 0xFFFD;
    *cp = value;
    return i + 1;
}

/* The first code point in s that a reference may not stand for, or 0. */
static uint32_t first_forbidden(const char *s)
{
    for (const char *p = s; p && *p;) {
        uint32_t cp;
        p += re_utf8_decode(p, p + strlen(p), &cp);
        if (forbidden(cp))
            return cp;
    }
    return 0;
}

typedef struct source_lines {
    const char *src;
    size_t len;
    unsigned first_line;
    size_t *starts;      /* where each body line starts, made at the first need */
    size_t count;
    int nomem;
} source_lines;

/* Offset of the start of body line `line` (1-based), or len when it is past the end. The
 * lines are found once: a document of many references (65,535 lines of `- &#1;`) or of
 * links whose titles hold a raw line break looks a line up for each. */
static size_t line_offset(source_lines *s, int line)
{
    if (!s->starts && !s->nomem) {
        size_t lines = 1;
        for (const char *p = s->src; (p = memchr(p, '\n', s->len - (size_t)(p - s->src)));
             p++)
            lines++;
        s->starts = malloc(lines * sizeof *s->starts);
        s->nomem = !s->starts;
        if (s->starts) {
            s->starts[s->count++] = 0;
            for (size_t pos = 0; pos < s->len; pos++)
                if (s->src[pos] == '\n')
                    s->starts[s->count++] = pos + 1;
        }
    }
    if (line < 1 || !s->starts || (size_t)line > s->count)
        return s->len;
    return s->starts[line - 1];
}

/* The first reference to `cp` in body lines from..to (from col `col` of line `from`): its
 * file line and column in *line, *col; 0 when there is none there. */
static int find_reference(source_lines *s, int from, int col, int to, uint32_t cp,
                          unsigned *line, unsigned *at_col)
{
    size_t start = line_offset(s, from), pos = start + (size_t)(col > 0 ? col - 1 : 0);
    int l = from;
    size_t line_start = start;
    for (; pos < s->len && l <= to; pos++) {
        if (s->src[pos] == '\n') {
            l++;
            line_start = pos + 1;
            continue;
        }
        uint32_t got;
        if (s->src[pos] == '&' && reference_at(s->src + pos, s->len - pos, &got) && got == cp) {
            *line = s->first_line + (unsigned)l - 1;
            *at_col = (unsigned)(pos - line_start) + 1;
            return 1;
        }
    }
    return 0;
}

/* The innermost block with a place in the source that holds node (node itself for a code
 * block). */
static cmark_node *enclosing_block(cmark_node *node)
{
    for (cmark_node *n = node; n; n = cmark_node_parent(n))
        if (((unsigned)cmark_node_get_type(n) & CMARK_NODE_TYPE_MASK) == CMARK_NODE_TYPE_BLOCK
            && cmark_node_get_type(n) != CMARK_NODE_DOCUMENT && cmark_node_get_start_line(n) > 0)
            return n;
    return NULL;
}

unsigned re_md_decoded_controls(parse_errors *e, cmark_node *doc, const char *src, size_t len,
                                unsigned first_line)
{
    source_lines s = { .src = src, .len = len, .first_line = first_line };
    unsigned reported = 0;
    cmark_iter *iter = cmark_iter_new(doc);
    cmark_event_type ev;
    while (iter && !reported && (ev = cmark_iter_next(iter)) != CMARK_EVENT_DONE) {
        cmark_node *node = cmark_iter_get_node(iter);
        if (ev != CMARK_EVENT_ENTER)
            continue;
        const char *texts[2] = { NULL, NULL };
        switch (cmark_node_get_type(node)) {
        case CMARK_NODE_TEXT:
            texts[0] = cmark_node_get_literal(node);
            break;
        case CMARK_NODE_LINK:
        case CMARK_NODE_IMAGE:
            texts[0] = cmark_node_get_url(node);
            texts[1] = cmark_node_get_title(node);
            break;
        case CMARK_NODE_CODE_BLOCK:
            texts[0] = cmark_node_get_fence_info(node);
            break;
        default:
            break;
        }
        for (int k = 0; k < 2 && !reported; k++) {
            uint32_t cp = texts[k] ? first_forbidden(texts[k]) : 0;
            if (!cp)
                continue;
            cmark_node *block = enclosing_block(node);
            int first = block ? cmark_node_get_start_line(block) : 1;
            int last = block ? cmark_node_get_end_line(block) : 0;
            int from = cmark_node_get_start_line(node), col = cmark_node_get_start_column(node);
            if (last < first)
                last = first;
            unsigned line, at;
            /* from the node's own place, else from its block's. A line break found nowhere
             * in a link's title (texts[1]) is a raw one, which Markdown allows there. Any
             * other control character, and a line break anywhere else (a table cell's
             * `&NewLine;`, whose place cmark-gfm does not keep), was not in the raw text as
             * it is: a reference this check cannot place made it, reported at its block */
            int found = from > 0 && find_reference(&s, from, col, last, cp, &line, &at);
            if (!found)
                found = find_reference(&s, first, 1, last, cp, &line, &at);
            if (!found && cp == '\n' && k == 1)
                continue;
            if (!found) {
                line = first_line + (unsigned)(first > 0 ? first : 1) - 1;
                at = 1;
            }
            re_parse_error(e, line, at, "a character reference here stands for control character "
                           "U+%04X, which is not allowed", (unsigned)cp);
            reported++;
        }
    }
    cmark_iter_free(iter);
    free(s.starts);
    if (s.nomem)
        e->nomem = 1;
    return reported;
}

/* ---- for the other stages (markdown.h) -------------------------------------------------- */

re_status re_markdown_vet(const char *file, const char *text, size_t len, re_diagnostics *diag)
{
    parse_errors e = { .file = file, .diag = diag };
    int decodable = 0;
    re_status status = re_utf8_check_text(file, text, len, &decodable, diag);
    if (status != RE_OK)
        return status;
    if (!re_md_within_limits(&e, text, len, 1))
        return e.nomem ? RE_ERR_NOMEM : RE_ERR_INPUT;
    cmark_parser *reader = NULL;
    cmark_node *doc = re_md_parse(text, len, &reader);
    if (!doc)
        return RE_ERR_NOMEM;
    re_md_decoded_controls(&e, doc, text, len, 1);
    cmark_node_free(doc);
    cmark_parser_free(reader);
    return e.nomem ? RE_ERR_NOMEM : e.count ? RE_ERR_INPUT : RE_OK;
}

int re_markdown_within_limits(const char *text, size_t len)
{
    re_diagnostics quiet;
    re_diagnostics_init(&quiet, 1);
    parse_errors e = { .file = "", .diag = &quiet };
    int within = re_md_within_limits(&e, text, len, 1);
    re_diagnostics_free(&quiet);
    return within;
}

char *re_markdown_to_html(const char *text, size_t len)
{
    if (!re_markdown_within_limits(text, len))
        return NULL;
    cmark_parser *reader = NULL;
    cmark_node *doc = re_md_parse(text, len, &reader);
    char *html = doc ? cmark_render_html(doc, CMARK_OPT_DEFAULT,
                                         cmark_parser_get_syntax_extensions(reader)) : NULL;
    cmark_node_free(doc);
    cmark_parser_free(reader);
    return html;
}
