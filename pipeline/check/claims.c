/* SPDX-License-Identifier: GPL-3.0-or-later */
/* claims.c - the claim list, reading claimed values (durations in their notation, counts),
 * the MP3's own TLEN claims, and the check stage's diagnostics. */
#define _GNU_SOURCE  /* vasprintf, strndup */
#include "check_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void re_claim_list_init(re_claim_list *list)
{
    memset(list, 0, sizeof *list);
}

void re_claim_free(re_claim *c)
{
    free(c->file);
    free(c->field);
    free(c->text);
}

void re_claim_list_free(re_claim_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        re_claim_free(&list->items[i]);
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* Appends a zeroed claim with its file, field and text copied; *out points at it. */
re_status re_claim_push(re_claim_list *list, const char *file, const char *field,
                            size_t field_len, const char *text, size_t text_len, re_claim **out)
{
    if (re_array_grow(&list->items, &list->capacity, list->count,
                      sizeof *list->items) != RE_OK)
        return RE_ERR_NOMEM;
    re_claim c;
    memset(&c, 0, sizeof c);
    if (text_len > CLAIM_TEXT_MAX)
        text_len = CLAIM_TEXT_MAX;
    c.file = strdup(file);
    c.field = strndup(field, field_len);
    c.text = strndup(text, text_len);
    if (!c.file || !c.field || !c.text) {
        re_claim_free(&c);
        return RE_ERR_NOMEM;
    }
    list->items[list->count] = c;
    *out = &list->items[list->count++];
    return RE_OK;
}

/* A decimal count: digits only, no sign, no overflow. */
static int parse_count(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!re_is_digit(s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 1;
}

/* Records how the duration text s[0..n) was written (it has already parsed). */
static void read_style(re_claim *c, const char *s, size_t n)
{
    re_claim_style st = { 0, '.', 1, 0, 0 };
    size_t i = 0;
    for (; i < n && s[i] != '.' && s[i] != ','; i++)
        if (s[i] == ':')
            st.clock_fields++;
    if (i < n) {
        st.frac_sep = s[i];
        for (i++; i < n && re_is_digit(s[i]); i++)
            st.frac_digits++;
    }
    while (st.first_width < n && re_is_digit(s[st.first_width]))
        st.first_width++;
    if (st.frac_digits > 18)
        st.frac_digits = 18;
    if (st.first_width > 20)
        st.first_width = 20;
    if (c->notation == RE_NOTATION_ISO) {
        /* PT173S: seconds only although minutes were available (PT45S is just canonical) */
        st.seconds_only = n > 3 && s[1] == 'T' && s[n - 1] == 'S'
                          && c->value.us >= 60 * US_PER_S;
        for (size_t j = 2; st.seconds_only && j + 1 < n; j++)
            st.seconds_only = re_is_digit(s[j]) || s[j] == '.' || s[j] == ',';
    }
    c->style = st;
}

/* Reads a duration value: ISO 8601 when it starts with P, else a clock form or seconds. */
void re_claim_read_duration(re_claim *c, const char *s, size_t n)
{
    c->kind = RE_CLAIM_DURATION;
    c->readable = 0;
    if (n > 0 && s[0] == 'P') {
        c->notation = RE_NOTATION_ISO;
        c->readable = re_duration_parse_iso(s, n, &c->value) == RE_OK;
    } else {
        c->notation = RE_NOTATION_CLOCK;
        c->readable = re_duration_parse_clock(s, n, &c->value) == RE_OK;
    }
    if (c->readable)
        read_style(c, s, n);
}

/* Reads a count claim; MS counts also become a duration with 1 ms precision. */
void re_claim_read_count(re_claim *c, re_claim_kind kind, const char *s, size_t n)
{
    c->kind = kind;
    c->notation = RE_NOTATION_INTEGER;
    c->readable = parse_count(s, n, &c->count);
    if (c->readable && kind == RE_CLAIM_MS) {
        if (c->count > UINT64_MAX / 1000)
            c->readable = 0;
        else
            c->value = (re_duration){ c->count * 1000, 1000 };
    }
}

re_status re_claims_from_tlen(const char *mp3_path, const re_mp3_measurement *m,
                              re_claim_list *out)
{
    if (!mp3_path || !m || !out)
        return RE_ERR_INVALID;
    for (size_t i = 0; i < m->tlen_count; i++) {
        re_claim *c = NULL;
        const char *t = m->tlen[i];
        re_status st = re_claim_push(out, mp3_path, "ID3 TLEN", 8, t, strlen(t), &c);
        if (st != RE_OK)
            return st;
        re_claim_read_count(c, RE_CLAIM_MS, t, strlen(t));
    }
    return RE_OK;
}
