/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extract_html.c - pages: `Duration:` lines outside comments, script, style, pre and textarea,
 * and the JSON-LD in <script type="application/ld+json">. */
#include "extract.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Finds attribute `name` in the start tag buf[from..to) (from just after the tag name).
 * Values may be quoted or, in HTML, bare. Sets the value's span. */
int re_html_tag_attr(const char *buf, size_t from, size_t to, const char *name, int icase,
                     size_t *voff, size_t *vlen)
{
    size_t i = from, n = strlen(name);
    while (i < to) {
        while (i < to && (re_is_blank(buf[i]) || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '/'))
            i++;
        size_t ns = i;
        while (i < to && !re_is_blank(buf[i]) && buf[i] != '\n' && buf[i] != '\r' && buf[i] != '='
               && buf[i] != '>' && buf[i] != '/')
            i++;
        size_t ne = i;
        while (i < to && (re_is_blank(buf[i]) || buf[i] == '\n' || buf[i] == '\r'))
            i++;
        size_t vs = i, ve = i;
        if (i < to && buf[i] == '=') {
            i++;
            while (i < to && (re_is_blank(buf[i]) || buf[i] == '\n' || buf[i] == '\r'))
                i++;
            if (i < to && (buf[i] == '"' || buf[i] == '\'')) {
                char q = buf[i++];
                vs = i;
                while (i < to && buf[i] != q)
                    i++;
                ve = i;
                if (i < to)
                    i++;
            } else {
                vs = i;
                while (i < to && !re_is_blank(buf[i]) && buf[i] != '\n' && buf[i] != '>')
                    i++;
                ve = i;
            }
        }
        int same = ne - ns == n && (icase ? strncasecmp(buf + ns, name, n) == 0
                                          : strncmp(buf + ns, name, n) == 0);
        if (same) {
            *voff = vs;
            *vlen = ve - vs;
            return 1;
        }
        if (ne == ns && i == ns)
            i++;   /* a stray character: step over it */
    }
    return 0;
}

/* <script>/<style> at lt: records the whole element as skipped and, for an ld+json script,
 * its contents as a JSON block. Returns where scanning continues. */
static re_status raw_element(extract_ctx *x, size_t lt, const char *tag, size_t *next)
{
    size_t n = strlen(tag);
    size_t gt = re_html_tag_end(x->buf, lt, x->len);
    char close[16];
    snprintf(close, sizeof close, "</%s", tag);
    const char *end = gt < x->len ? re_extract_find_ci(x->buf, gt + 1, x->len, close) : NULL;
    size_t content_end = end ? (size_t)(end - x->buf) : x->len;
    size_t elem_end = end ? re_html_tag_end(x->buf, content_end, x->len) : x->len;
    if (elem_end < x->len)
        elem_end++;
    re_status st = re_extract_push_span(&x->skips, &x->skip_count, &x->skip_cap, lt, elem_end);
    size_t voff, vlen;
    if (st == RE_OK && n == 6 && gt < x->len
        && re_html_tag_attr(x->buf, lt + 1 + n, gt, "type", 1, &voff, &vlen)
        && vlen == 19 && strncasecmp(x->buf + voff, "application/ld+json", 19) == 0)
        st = re_extract_push_span(&x->blocks, &x->block_count, &x->block_cap, gt + 1, content_end);
    *next = elem_end;
    return st;
}

static int tag_named(const char *buf, size_t lt, size_t len, const char *tag)
{
    size_t n = strlen(tag);
    return len - lt > n + 1 && strncasecmp(buf + lt + 1, tag, n) == 0
           && (re_is_blank(buf[lt + 1 + n]) || buf[lt + 1 + n] == '>' || buf[lt + 1 + n] == '\n'
               || buf[lt + 1 + n] == '\r' || buf[lt + 1 + n] == '/');
}

static re_status find_html_regions(extract_ctx *x)
{
    size_t i = 0;
    while (i < x->len) {
        const char *lt = memchr(x->buf + i, '<', x->len - i);
        if (!lt)
            break;
        i = (size_t)(lt - x->buf);
        re_status st = RE_OK;
        if (x->len - i >= 4 && memcmp(lt, "<!--", 4) == 0) {
            const char *end = re_extract_find_ci(x->buf, i + 4, x->len, "-->");
            size_t e = end ? (size_t)(end - x->buf) + 3 : x->len;
            st = re_extract_push_span(&x->skips, &x->skip_count, &x->skip_cap, i, e);
            i = e;
        } else if (tag_named(x->buf, i, x->len, "script")) {
            st = raw_element(x, i, "script", &i);
        } else if (tag_named(x->buf, i, x->len, "style")) {
            st = raw_element(x, i, "style", &i);
        } else if (tag_named(x->buf, i, x->len, "pre")) {   /* code, as ``` in Markdown */
            st = raw_element(x, i, "pre", &i);
        } else if (tag_named(x->buf, i, x->len, "textarea")) {
            st = raw_element(x, i, "textarea", &i);
        } else {
            i++;
        }
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

re_status re_extract_html(extract_ctx *x)
{
    x->html = 1;
    re_status st = find_html_regions(x);
    if (st == RE_OK)
        st = re_extract_duration_lines(x);
    for (size_t i = 0; st == RE_OK && i < x->block_count; i++)
        st = re_extract_json_span(x, x->blocks[i].start, x->blocks[i].end, 0);
    return st;
}

static int looks_like_html(const char *buf, size_t len)
{
    return len > 0 && buf[0] == '<';
}

static const char *const html_suffixes[] = { ".html", ".htm", NULL };

const claim_format re_claim_format_html = {
    RE_FILE_HTML, "html", html_suffixes, looks_like_html, re_extract_html
};
