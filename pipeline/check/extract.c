/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extract.c - claims from one file's bytes: the format table, sniffing, and what every format
 * shares (positions, adding claims, skipped regions); see extract.h. */
#include "extract.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 1-based line and byte column of offset `off` (columns after a leading BOM). Claims come
 * mostly in order, so counting resumes where the last call stopped. */
void re_extract_position(extract_ctx *x, size_t off, unsigned *line, unsigned *col)
{
    if (x->pos_line == 0 || off < x->pos_off) {
        x->pos_off = 0;
        x->pos_line = 1;
        x->pos_line_start = 0;
    }
    for (size_t i = x->pos_off; i < off; i++)
        if (x->buf[i] == '\n') {
            x->pos_line++;
            x->pos_line_start = i + 1;
        }
    x->pos_off = off;
    size_t c = off - x->pos_line_start + 1;
    if (x->pos_line == 1 && off >= 3 && memcmp(x->buf, "\xEF\xBB\xBF", 3) == 0)
        c -= 3;
    *line = x->pos_line;
    *col = c > UINT_MAX ? UINT_MAX : (unsigned)c;
}

/* Adds a claim whose value sits at buf[off..off+len) (len 0: not rewritable) and shows
 * as `text`. */
re_status re_extract_add_claim(extract_ctx *x, const char *field, size_t field_len, size_t off,
                               size_t len, const char *text, size_t text_len, re_claim **out)
{
    if (++x->claims > RE_CHECK_MAX_CLAIMS)
        return check_fail(x->diag, RE_ERR_LIMIT, x->name, 0, 0, "more than %u claims in one file",
                          RE_CHECK_MAX_CLAIMS);
    re_status st = re_claim_push(x->out, x->name, field, field_len, text, text_len, out);
    if (st != RE_OK)
        return st;
    re_extract_position(x, off, &(*out)->line, &(*out)->col);
    (*out)->offset = off;
    (*out)->length = len;
    return RE_OK;
}

re_status re_extract_push_span(span **list, size_t *count, size_t *cap, size_t start, size_t end)
{
    if (*count == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        span *grown = realloc(*list, n * sizeof *grown);
        if (!grown)
            return RE_ERR_NOMEM;
        *list = grown;
        *cap = n;
    }
    (*list)[(*count)++] = (span){ start, end };
    return RE_OK;
}

const char *re_extract_find_ci(const char *buf, size_t from, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = from; i + n <= len; i++)
        if (strncasecmp(buf + i, needle, n) == 0)
            return buf + i;
    return NULL;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && strcasecmp(name + n - s, suffix) == 0;
}

/* The formats, in the order content is recognised: JSON ('{' or '['), feeds ("<?xml", "<rss",
 * ...), HTML (another '<'), and text for everything else. */
static const claim_format *const formats[] = {
    &re_claim_format_json, &re_claim_format_sidecar, &re_claim_format_feed, &re_claim_format_html,
    &re_claim_format_text,
};
#define FORMAT_COUNT (sizeof formats / sizeof formats[0])

static const claim_format *format_of(re_file_kind kind)
{
    for (size_t i = 0; i < FORMAT_COUNT; i++)
        if (formats[i]->kind == kind)
            return formats[i];
    return NULL;
}

const char *re_file_kind_name(re_file_kind kind)
{
    const claim_format *f = format_of(kind);
    return kind == RE_FILE_AUTO ? "auto" : f ? f->name : "unknown";
}

re_file_kind re_file_sniff(const char *name, const char *buf, size_t len)
{
    for (size_t k = 0; name && k < FORMAT_COUNT; k++)
        for (const char *const *s = formats[k]->suffixes; s && *s; s++)
            if (has_suffix(name, *s))
                return formats[k]->kind;
    size_t i = len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    while (i < len && (re_is_blank(buf[i]) || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    for (size_t k = 0; k < FORMAT_COUNT; k++)
        if (formats[k]->looks_like && formats[k]->looks_like(buf + i, len - i))
            return formats[k]->kind;
    return RE_FILE_TEXT;
}

/* Stable, so claims at one offset keep their order; lists are short and nearly sorted
 * (only HTML's JSON-LD claims come after the text ones). */
static void sort_by_offset(re_claim *items, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        re_claim c = items[i];
        size_t j = i;
        for (; j > 0 && items[j - 1].offset > c.offset; j--)
            items[j] = items[j - 1];
        items[j] = c;
    }
}

re_status re_claims_extract(const char *name, const char *buf, size_t len, re_file_kind kind,
                            const char *mp3_name, re_claim_list *out, re_diagnostics *diag,
                            re_diagnostics *notes)
{
    size_t items, matched;
    return re_claims_extract_items(name, buf, len, kind, mp3_name, out, diag, notes, &items, &matched);
}

re_status re_claims_extract_items(const char *name, const char *buf, size_t len, re_file_kind kind,
                                  const char *mp3_name, re_claim_list *out, re_diagnostics *diag,
                                  re_diagnostics *notes, size_t *items, size_t *matched)
{
    *items = *matched = 0;
    if (!name || (!buf && len) || !mp3_name || !out)
        return RE_ERR_INVALID;
    if (kind == RE_FILE_AUTO)
        kind = re_file_sniff(name, buf, len);
    extract_ctx x;
    memset(&x, 0, sizeof x);
    x = (extract_ctx){ .name = name, .buf = buf ? buf : "", .len = len, .mp3_name = mp3_name,
                       .out = out, .diag = diag, .notes = notes };
    size_t before = out->count;
    const claim_format *format = format_of(kind);
    re_status st = (format ? format : &re_claim_format_text)->extract(&x);
    *items = x.items;
    *matched = x.matched;
    free(x.skips);
    free(x.blocks);
    if (st != RE_OK)
        while (out->count > before)
            re_claim_free(&out->items[--out->count]);
    else if (out->count > before)   /* no claims: items may still be NULL */
        sort_by_offset(out->items + before, out->count - before);
    return st;
}

/* The end of the tag that starts at buf[lt] == '<' (index of '>', or len), respecting
 * quotes. */
size_t re_html_tag_end(const char *buf, size_t lt, size_t len)
{
    char q = 0;
    for (size_t i = lt + 1; i < len; i++) {
        if (q) {
            if (buf[i] == q)
                q = 0;
        } else if (buf[i] == '"' || buf[i] == '\'') {
            q = buf[i];
        } else if (buf[i] == '>') {
            return i;
        }
    }
    return len;
}
