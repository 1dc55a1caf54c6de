/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sentences.c - where a paragraph's sentences end (sentences.h). */
#include "sentences.h"

#include <string.h>

#include "normalize.h"
#include "text.h"

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int re_is_abbreviation(const char *word, size_t len, const char *next)
{
    static const char *const always[] = {
        "mr", "mrs", "dr", "lt", "prof", "rev", "st",   /* espeak-ng's en_list: $dot */
        "ms", "jr", "sr", "vs", "etc", "cf", "approx", "e.g", "i.e", NULL,
    };
    while (len > 0 && strchr("([{\"'`*", word[0])) {
        word++;
        len--;
    }
    if (len == 0)
        return 0;
    char lower[8];
    if (len >= sizeof lower)
        return 0;
    for (size_t i = 0; i < len; i++)
        lower[i] = re_is_upper(word[i]) ? (char)(word[i] - 'A' + 'a') : word[i];
    lower[len] = '\0';
    for (const char *const *a = always; *a; a++)
        if (strcmp(lower, *a) == 0)
            return 1;
    return strcmp(lower, "no") == 0 && next && re_is_digit(*next);
}

/* Closing marks after a sentence's punctuation: ) ] } " ' ” ’ ». Their length, or 0. */
static size_t closing_mark(const char *s)
{
    if (*s && strchr(")]}\"'", *s))
        return 1;
    if (strncmp(s, "\xE2\x80\x9D", 3) == 0 || strncmp(s, "\xE2\x80\x99", 3) == 0)
        return 3;
    if (strncmp(s, "\xC2\xBB", 2) == 0)
        return 2;
    return 0;
}

/* A lower-case letter starts s: a-z, or Latin-1's and Latin Extended-A's small letters,
 * Greek's and Cyrillic's. */
static int starts_lower(const unsigned char *s)
{
    if (re_is_lower((char)s[0]))
        return 1;
    unsigned cp;
    if (s[0] >= 0xC2 && s[0] < 0xE0 && (s[1] & 0xC0) == 0x80)
        cp = ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
    else
        return 0;
    if (cp >= 0xDF && cp <= 0xFF)
        return cp != 0xF7;
    if (cp >= 0x100 && cp <= 0x17F)
        return (cp & 1) == 1;
    return (cp >= 0x3AC && cp <= 0x3CE) || (cp >= 0x430 && cp <= 0x45F);
}

/* Single letters joined by dots, the last full stop left out: "a.k.a", "p.m", "U.S". */
static int dotted_letters(const char *w, size_t len)
{
    if (len < 3)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (i % 2 ? w[i] != '.' : !re_is_letter(w[i]))
            return 0;
    return len % 2 == 1;
}

size_t re_sentence_end(const char *text, size_t from, unsigned text_flags)
{
    size_t len = strlen(text), i = from;
    int phonemes = (text_flags & RE_TEXT_PHONEMES) != 0;
    while (i < len) {
        if (phonemes && text[i] == '[' && text[i + 1] == '[') {
            const char *close = strstr(text + i + 2, "]]");
            i = close ? (size_t)(close - text) + 2 : len;
            continue;
        }
        char c = text[i];
        int ellipsis = strncmp(text + i, "\xE2\x80\xA6", 3) == 0;
        if (c != '.' && c != '!' && c != '?' && !ellipsis) {
            i++;
            continue;
        }
        size_t punct = i, j = ellipsis ? i + 3 : i;
        while (j < len && (text[j] == '.' || text[j] == '!' || text[j] == '?'))
            j++;
        int one_stop = (j - punct == 1 && c == '.') || (ellipsis && j - punct == 3);
        size_t m, marks = j;
        while ((m = closing_mark(text + j)) > 0)
            j += m;
        int closed = j > marks;
        if (j == len)
            return len;
        if (!is_blank(text[j])) {
            i = j;
            continue;
        }
        size_t next = j;
        while (next < len && is_blank(text[next]))
            next++;
        if (next == len)
            return j;
        if (closed && starts_lower((const unsigned char *)text + next)) {
            i = j;   /* a quoted "Stop!" or `rev^!` inside a sentence that goes on */
            continue;
        }
        if (one_stop) {
            size_t word = punct;
            while (word > from && !is_blank(text[word - 1]))
                word--;
            while (word < punct && strchr("([{\"'`*", text[word]))
                word++;
            if (re_is_abbreviation(text + word, punct - word, text + next)
                || ((ellipsis || dotted_letters(text + word, punct - word))
                    && starts_lower((const unsigned char *)text + next))) {
                i = j;
                continue;
            }
        }
        return j;
    }
    return len;
}
