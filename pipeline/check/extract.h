/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extract.h - claim extraction inside the check stage: the context one file is read with, the
 * helpers every format uses, and the format handlers (SoX style: one file per format, each a
 * claim_format with its name, how it is recognised and its extractor; extract.c walks the
 * table). */
#ifndef RE_CHECK_EXTRACT_H
#define RE_CHECK_EXTRACT_H

#include <stddef.h>

#include "check_internal.h"

typedef struct span {
    size_t start, end;
} span;

typedef struct extract_ctx {
    const char *name;
    const char *buf;
    size_t len;
    const char *mp3_name;
    re_claim_list *out;
    re_diagnostics *diag;
    re_diagnostics *notes;
    span *skips;          /* regions the line scanner ignores (sorted) */
    size_t skip_count, skip_cap;
    span *blocks;         /* HTML: JSON-LD script contents */
    size_t block_count, block_cap;
    int html;             /* the line scanner steps over tags (style="animation-duration: 2s") */
    size_t pos_off, pos_line_start;   /* re_extract_position's memory: counting resumes here */
    unsigned pos_line;
    size_t claims;        /* found in this file so far */
    size_t items, matched;   /* feeds: items and entries, and those naming the MP3 */
} extract_ctx;

/* One claim format. */
typedef struct claim_format {
    re_file_kind kind;
    const char *name;                  /* re_file_kind_name */
    const char *const *suffixes;       /* file name endings that mean it (NULL-terminated) */
    /* whether content that starts (after a BOM and blanks) at buf[0..len) is this format;
     * NULL: never recognised by content */
    int (*looks_like)(const char *buf, size_t len);
    /* appends the claims of x->buf to x->out; RE_ERR_INPUT/RE_ERR_LIMIT with a diagnostic */
    re_status (*extract)(extract_ctx *x);
} claim_format;

extern const claim_format re_claim_format_json;      /* extract_json.c */
extern const claim_format re_claim_format_sidecar;   /* extract_json.c */
extern const claim_format re_claim_format_feed;      /* extract_feed.c: RSS and Atom */
extern const claim_format re_claim_format_html;      /* extract_html.c */
extern const claim_format re_claim_format_text;      /* extract_text.c */

/* ---- extract_feed.c: check DIR's feeds, each parsed once ----------------------------------- */

/* 1 when the root element of buf[0..len) is a feed's: RSS <rss>, Atom <feed> (or <feed>
 * without a namespace) or RSS 1.0 <rdf:RDF>; 0 for any other XML, or when the start does not
 * read as XML; -1 when out of memory. Only the start is parsed. */
int re_feed_root_is_feed(const char *name, const char *buf, size_t len);
/* Parses the feed once and appends each item's claims to lists[k], where mp3_names[k] (file
 * names, sorted by strcmp) is the MP3 its enclosure names (as re_claims_extract matches
 * them); *items counts the items and entries, *matched those naming one of them. On failure
 * (RE_ERR_INPUT malformed, RE_ERR_LIMIT, RE_ERR_NOMEM) no list keeps a claim of this feed. */
re_status re_feed_claims_site(const char *name, const char *buf, size_t len,
                              const char *const *mp3_names, size_t n, re_claim_list *lists,
                              size_t *items, size_t *matched, re_diagnostics *diag);

/* ---- extract.c: shared by the formats ---------------------------------------------------- */

/* 1-based line and byte column of offset `off` (columns after a leading BOM). */
void re_extract_position(extract_ctx *x, size_t off, unsigned *line, unsigned *col);
/* Adds a claim whose value sits at buf[off..off+len) (len 0: not rewritable) and shows as
 * `text`; RE_ERR_LIMIT past RE_CHECK_MAX_CLAIMS. */
re_status re_extract_add_claim(extract_ctx *x, const char *field, size_t field_len, size_t off,
                               size_t len, const char *text, size_t text_len, re_claim **out);
re_status re_extract_push_span(span **list, size_t *count, size_t *cap, size_t start, size_t end);
/* The first case-insensitive `needle` in buf[from..len), or NULL. */
const char *re_extract_find_ci(const char *buf, size_t from, size_t len, const char *needle);

/* ---- shared between the formats ---------------------------------------------------------- */

/* extract_text.c: `Duration: VALUE` labels on every line outside x->skips (also in HTML). */
re_status re_extract_duration_lines(extract_ctx *x);
/* extract_html.c: the end of the tag at buf[lt] == '<' (index of '>', or len), respecting
 * quotes; the span of attribute `name` in a start tag's buf[from..to). */
size_t re_html_tag_end(const char *buf, size_t lt, size_t len);
int re_html_tag_attr(const char *buf, size_t from, size_t to, const char *name, int icase,
                     size_t *voff, size_t *vlen);
/* extract_html.c: a page (also an XHTML document found by the feed reader). */
re_status re_extract_html(extract_ctx *x);
/* extract_json.c: buf[start..end) validated as JSON and its claims collected (JSON-LD blocks
 * in HTML too). */
re_status re_extract_json_span(extract_ctx *x, size_t start, size_t end, int sidecar);

#endif
