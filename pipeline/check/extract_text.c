/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extract_text.c - `Duration: VALUE` and `Audio duration: VALUE` lines in text and Markdown
 * (fenced code skipped); the line scanner is HTML's too. */
#include "extract.h"

#include <string.h>
#include <strings.h>

#define LOOK_MAX 4096                /* how far the line scanner looks into a tag, and ... */
#define LOOK_BACK 256                /* ... back for the start of a line: linear time even on
                                      * pathological one-line files */

static int is_markup(char c)
{
    return c == '*' || c == '_' || c == '`';
}

/* Skips blanks, emphasis marks, HTML tags and (after the colon) entities such as &nbsp;,
 * without leaving the line. */
static size_t skip_separators(const char *buf, size_t i, size_t len, int entities)
{
    while (i < len) {
        if (re_is_blank(buf[i]) || is_markup(buf[i]) || (entities && buf[i] == '|')) {
            i++;
        } else if (buf[i] == '<') {
            size_t j = i + 1;
            while (j < len && buf[j] != '>' && buf[j] != '\n' && j - i < LOOK_MAX)
                j++;
            if (j >= len || buf[j] != '>')
                return i;
            i = j + 1;
        } else if (entities && buf[i] == '&') {
            size_t j = i + 1;
            while (j < len && j - i < 10 && (re_is_letter(buf[j]) || re_is_digit(buf[j]) || buf[j] == '#'))
                j++;
            if (j >= len || buf[j] != ';' || j == i + 1)
                return i;
            i = j + 1;
        } else {
            return i;
        }
    }
    return i;
}

/* Whether buf[from..to) holds only list markers, quote and heading marks, emphasis, table
 * bars, blanks and HTML tags: a label after that starts its line. */
static int only_markup(const char *buf, size_t from, size_t to)
{
    size_t i = from;
    while (i < to) {
        char c = buf[i];
        if (re_is_blank(c) || is_markup(c) || strchr("-+>#|", c)) {
            i++;
        } else if (c == '<') {
            while (i < to && buf[i] != '>')
                i++;
            if (i == to)
                return 0;
            i++;
        } else if (re_is_digit(c)) {
            while (i < to && re_is_digit(buf[i]))
                i++;
            if (i == to || (buf[i] != '.' && buf[i] != ')'))
                return 0;
            i++;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Matches "duration" or "audio duration" (any case) at i; returns the label's end or 0. */
static size_t match_label(const char *buf, size_t i, size_t len)
{
    size_t j = i;
    if (len - i >= 5 && strncasecmp(buf + i, "audio", 5) == 0) {
        j = i + 5;
        if (j >= len || !re_is_blank(buf[j]))
            return 0;
        while (j < len && re_is_blank(buf[j]))
            j++;
    }
    if (len - j < 8 || strncasecmp(buf + j, "duration", 8) != 0)
        return 0;
    j += 8;
    if (j < len && (re_is_letter(buf[j]) || re_is_digit(buf[j]) || buf[j] == '_'))
        return 0;
    return j;
}

static int is_seconds_word(const char *s, size_t n)
{
    static const char *const words[] = { "s", "sec", "secs", "second", "seconds" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == n && strncasecmp(s, words[i], n) == 0)
            return 1;
    return 0;
}

/* The value token after a label: ISO (P...) is [0-9A-Z.,]+; a number or clock is
 * [0-9:.,]+ and may be followed by a seconds word ("173 s"). Trailing . , : are punctuation.
 * Returns the token's end; *unit_ok is 0 when a non-seconds unit follows a bare number. */
static size_t value_token(const char *buf, size_t v, size_t len, int *unit_ok)
{
    size_t e = v;
    int iso = buf[v] == 'P';
    while (e < len && (re_is_digit(buf[e]) || buf[e] == '.' || buf[e] == ',' || buf[e] == ':'
                       || (iso && buf[e] >= 'A' && buf[e] <= 'Z')))
        e++;
    while (e > v && (buf[e - 1] == '.' || buf[e - 1] == ',' || buf[e - 1] == ':'))
        e--;
    *unit_ok = 1;
    if (!iso && e > v && !memchr(buf + v, ':', e - v)) {
        size_t w = e;
        while (w < len && re_is_blank(buf[w]))
            w++;
        size_t we = w;
        while (we < len && re_is_letter(buf[we]))
            we++;
        if (we > w)   /* "173 s" holds; "3 minutes" and "2m53s" are not read */
            *unit_ok = is_seconds_word(buf + w, we - w) && !(we < len && re_is_digit(buf[we]));
    }
    return e;
}

/* The visible rest of a line from v, for reporting an unreadable value. */
static size_t visible_end(const char *buf, size_t v, size_t len)
{
    size_t e = v;
    while (e < len && buf[e] != '\n' && buf[e] != '\r' && buf[e] != '<' && e - v < CLAIM_TEXT_MAX)
        e++;
    while (e > v && re_is_blank(buf[e - 1]))
        e--;
    return e;
}

/* Whether the label at i starts its line, after markup only (LOOK_BACK bytes at most). */
static int starts_line(const char *buf, size_t i)
{
    size_t from = i;
    while (from > 0 && buf[from - 1] != '\n' && i - from < LOOK_BACK)
        from--;
    if (from > 0 && buf[from - 1] != '\n')
        return 0;
    return only_markup(buf, from, i);
}

/* Tries a label at i. *next is where scanning continues. */
static re_status try_label(extract_ctx *x, size_t i, size_t *next)
{
    const char *buf = x->buf;
    size_t len = x->len;
    *next = i + 1;
    size_t label_end = match_label(buf, i, len);
    if (label_end == 0)
        return RE_OK;
    size_t colon = skip_separators(buf, label_end, len, 0);
    if (colon >= len || buf[colon] != ':')
        return RE_OK;
    size_t v = skip_separators(buf, colon + 1, len, 1);
    *next = colon + 1;
    if (v >= len || buf[v] == '\n' || buf[v] == '\r')
        return RE_OK;
    int unit_ok = 1;
    size_t e = value_token(buf, v, len, &unit_ok);
    int anchored = starts_line(buf, i);
    re_claim probe;
    memset(&probe, 0, sizeof probe);
    if (e > v)
        re_claim_read_duration(&probe, buf + v, e - v);
    int readable = probe.readable && unit_ok;
    if (!readable && !anchored)
        return RE_OK;   /* prose such as "the duration: varies" in the middle of a line */
    re_claim *c = NULL;
    size_t shown_end = readable ? e : visible_end(buf, v, len);
    re_status st = re_extract_add_claim(x, buf + i, label_end - i, v, readable ? e - v : 0, buf + v,
                                        shown_end - v, &c);
    if (st != RE_OK)
        return st;
    if (readable)
        re_claim_read_duration(c, buf + v, e - v);
    else
        c->kind = RE_CLAIM_DURATION;
    *next = e > v ? e : v;
    return RE_OK;
}

/* Not inside a word, nor the end of a hyphenated one ("transition-duration"). */
static int word_start(const char *buf, size_t i)
{
    if (i == 0)
        return 1;
    char p = buf[i - 1];
    if (p == '-' && i >= 2)
        p = buf[i - 2];
    return !(re_is_letter(p) || re_is_digit(p) || p == '_');
}

/* Scans every line for labels, outside the skipped regions. */
re_status re_extract_duration_lines(extract_ctx *x)
{
    size_t i = 0, k = 0;
    while (i < x->len) {
        while (k < x->skip_count && x->skips[k].end <= i)
            k++;
        if (k < x->skip_count && x->skips[k].start <= i) {
            i = x->skips[k].end;
            continue;
        }
        char c = x->buf[i];
        if (c == '<' && x->html) {
            i = re_html_tag_end(x->buf, i, x->len) + 1;
            continue;
        }
        if ((c == 'd' || c == 'D' || c == 'a' || c == 'A') && word_start(x->buf, i)) {
            size_t next;
            re_status st = try_label(x, i, &next);
            if (st != RE_OK)
                return st;
            i = next;
            continue;
        }
        i++;
    }
    return RE_OK;
}

/* Markdown fenced code blocks (``` or ~~~) are skipped: code is not a claim. */
static re_status find_fences(extract_ctx *x)
{
    size_t i = 0, open_at = 0;
    int open = 0;
    while (i < x->len) {
        size_t eol = i;
        while (eol < x->len && x->buf[eol] != '\n')
            eol++;
        size_t j = i;
        while (j < eol && j - i < 3 && x->buf[j] == ' ')
            j++;
        int fence = eol - j >= 3 && (memcmp(x->buf + j, "```", 3) == 0
                                     || memcmp(x->buf + j, "~~~", 3) == 0);
        if (fence && !open) {
            open = 1;
            open_at = i;
        } else if (fence) {
            open = 0;
            re_status st = re_extract_push_span(&x->skips, &x->skip_count, &x->skip_cap, open_at, eol);
            if (st != RE_OK)
                return st;
        }
        i = eol + 1;
    }
    if (open)
        return re_extract_push_span(&x->skips, &x->skip_count, &x->skip_cap, open_at, x->len);
    return RE_OK;
}

static re_status extract_text(extract_ctx *x)
{
    re_status st = find_fences(x);
    if (st == RE_OK)
        st = re_extract_duration_lines(x);
    return st;
}

static const char *const text_suffixes[] = { ".md", ".markdown", ".txt", NULL };

const claim_format re_claim_format_text = {
    RE_FILE_TEXT, "text", text_suffixes, NULL, extract_text
};
