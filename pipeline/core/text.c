/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.c - shared text checks (text.h). */
#include "text.h"

#include <stdint.h>
#include <string.h>

#include "hex.h"

void re_trim(const char **s, size_t *len)
{
    while (*len > 0 && re_is_line_blank(**s)) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && re_is_line_blank((*s)[*len - 1]))
        (*len)--;
}

int re_language_valid(const char *s, size_t len)
{
    size_t i = 0;

    while (i < len && re_is_letter(s[i]))
        i++;
    if (i < 2 || i > 3)
        return 0;
    while (i < len) {
        size_t start = ++i;   /* past the '-' */
        if (s[start - 1] != '-')
            return 0;
        while (i < len && re_is_alnum(s[i]))
            i++;
        if (i == start || i - start > 8)
            return 0;
    }
    return 1;
}

size_t re_edit_distance(const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b), row[64];

    if (a_len >= 64 || b_len >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= b_len; j++)
        row[j] = j;
    for (size_t i = 1; i <= a_len; i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b_len; j++) {
            char ca = re_is_upper(a[i - 1]) ? (char)(a[i - 1] + 32) : a[i - 1];
            size_t best = diagonal + (ca != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diagonal = row[j];
            row[j] = best;
        }
    }
    return row[b_len];
}

int re_uuid_valid(const char *text)
{
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? text[i] != '-' : re_hex_value(text[i]) < 0)
            return 0;
    }
    return text[36] == '\0';
}
