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

static int is_opening(char c)
{
    return c != '\0' && strchr("([{\"'`*", c) != NULL;
}

/* s[0..len) in lower case into out (of size `size`), 0 when it does not fit. */
static int lower_copy(const char *s, size_t len, char *out, size_t size)
{
    if (len >= size)
        return 0;
    for (size_t i = 0; i < len; i++)
        out[i] = re_is_upper(s[i]) ? (char)(s[i] - 'A' + 'a') : s[i];
    out[len] = '\0';
    return 1;
}

/* The word that starts at s (its opening marks left out), up to a blank or the end: its
 * length, with *start moved past the marks. */
static size_t word_at(const char **start)
{
    const char *s = *start;
    while (is_opening(*s))
        s++;
    *start = s;
    size_t len = 0;
    while (s[len] && !is_blank(s[len]))
        len++;
    return len;
}

/* Words that start a sentence after a one-letter word with a full stop ("Plan B. The fix"),
 * where a name would follow an initial ("John F. Smith"). */
static int starts_sentences(const char *word, size_t len)
{
    static const char *const starters[] = {
        "a", "an", "the", "this", "that", "these", "those", "it", "its", "we", "you", "i",
        "they", "he", "she", "there", "here", "in", "on", "at", "for", "if", "when", "now",
        "also", "but", "and", "or", "so", "then", "as", "to", "with", "from", "by", "after",
        "before", "all", "some", "no", "not", "see", "use", "run", "note", "thanks", "fixed",
        "added", "removed", "changed", "updated", "improved", "deprecated", "security", NULL,
    };
    size_t n = 0;
    while (n < len && re_is_letter(word[n]))
        n++;
    char lower[16];
    if (!lower_copy(word, n, lower, sizeof lower))
        return 0;
    for (const char *const *s = starters; *s; s++)
        if (strcmp(lower, *s) == 0)
            return 1;
    return 0;
}

/* One capital letter, with or without its full stop: "F", "J.". */
static int is_initial(const char *word, size_t len)
{
    return (len == 1 || (len == 2 && word[1] == '.')) && re_is_upper(word[0]);
}

int re_is_abbreviation(const char *previous, size_t previous_len, const char *word, size_t len,
                       const char *next)
{
    /* Never an end: titles before a name (the engine's own: espeak-ng's en_list marks mr, mrs,
     * dr, lt, prof, rev and st `$dot`) and the Latin ones inside a sentence. */
    static const char *const never[] = {
        "mr", "mrs", "ms", "dr", "lt", "prof", "rev", "st", "vs", "cf", "approx", "e.g", "i.e",
        NULL,
    };
    /* An end before a capital, else none: names of firms, lists, degrees, months and
     * numbered things ("Acme Inc. for", "Jan. 5", "Fig. 3", but "from Acme Inc. The"). */
    static const char *const before_capital[] = {
        "inc", "ltd", "corp", "co", "etc", "jr", "sr", "ph.d", "jan", "feb", "mar", "apr",
        "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "fig", "figs", "vol", "ch",
        NULL,
    };
    while (len > 0 && is_opening(word[0])) {
        word++;
        len--;
    }
    char lower[8];
    if (len == 0 || !lower_copy(word, len, lower, sizeof lower))
        return 0;
    const char *after = next ? next : "";
    size_t after_len = word_at(&after);
    int capital_next = after_len > 0 && re_is_upper(after[0]);
    for (const char *const *a = never; *a; a++)
        if (strcmp(lower, *a) == 0)
            return 1;
    int may_end = strcmp(lower, "al") == 0 && previous && previous_len == 2 && lower_copy(previous, 2, lower, sizeof lower) && strcmp(lower, "et") == 0;
    for (const char *const *a = before_capital; *a && !may_end; a++)
        may_end = strcmp(lower, *a) == 0;
    if (may_end)
        return after_len > 0 && !capital_next;
    if (strcmp(lower, "no") == 0)
        return after_len > 0 && re_is_digit(after[0]);
    if (!is_initial(word, len) || !capital_next || starts_sentences(after, after_len))
        return 0;
    size_t next_letters = 0;
    while (next_letters < after_len && re_is_letter(after[next_letters]))
        next_letters++;
    if (next_letters < 2 && !is_initial(after, after_len))
        return 0;   /* "B. A" */
    return is_initial(after, after_len)
           || (previous && previous_len > 0 && re_is_upper(previous[0]));
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

/* The word before text[at] (a blank between): its start and length (0 when none). */
static size_t word_before(const char *text, size_t at, const char **word)
{
    size_t end = at;
    while (end > 0 && is_blank(text[end - 1]))
        end--;
    size_t start = end;
    while (start > 0 && !is_blank(text[start - 1]))
        start--;
    while (start < end && is_opening(text[start]))
        start++;
    *word = text + start;
    return end - start;
}

/* Whether the punctuation text[punct..marks) with its closing marks to text[end) ends the
 * sentence that started at text[from], when `next` (no blank first; may be "") follows. */
static int ends_at(const char *text, size_t from, size_t punct, size_t marks, size_t end,
                   const char *next)
{
    if (!next || !*next)
        return 1;
    int ellipsis = strncmp(text + punct, "\xE2\x80\xA6", 3) == 0;
    int one_stop = (marks - punct == 1 && text[punct] == '.') || (ellipsis && marks - punct == 3);
    if (end > marks && starts_lower((const unsigned char *)next))
        return 0;   /* a quoted "Stop!" or `rev^!` inside a sentence that goes on */
    if (!one_stop)
        return 1;
    size_t word = punct;
    while (word > from && !is_blank(text[word - 1]))
        word--;
    while (word < punct && is_opening(text[word]))
        word++;
    const char *previous;
    size_t previous_len = word_before(text, word, &previous);
    return !(re_is_abbreviation(previous, previous_len, text + word, punct - word, next)
             || ((ellipsis || dotted_letters(text + word, punct - word))
                 && starts_lower((const unsigned char *)next)));
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
        size_t m, marks = j;
        while ((m = closing_mark(text + j)) > 0)
            j += m;
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
        if (ends_at(text, from, punct, marks, j, text + next))
            return j;
        i = j;
    }
    return len;
}

/* The length of the closing mark that ends s[0..len), or 0. */
static size_t closing_mark_before(const char *s, size_t len)
{
    if (len >= 1 && strchr(")]}\"'", s[len - 1]))
        return 1;
    if (len >= 3 && (memcmp(s + len - 3, "\xE2\x80\x9D", 3) == 0
                     || memcmp(s + len - 3, "\xE2\x80\x99", 3) == 0))
        return 3;
    if (len >= 2 && memcmp(s + len - 2, "\xC2\xBB", 2) == 0)
        return 2;
    return 0;
}

int re_ends_sentence(const char *text, const char *next)
{
    static const char *const wide[] = { "\xE3\x80\x82", "\xEF\xBC\x81", "\xEF\xBC\x9F" };
    size_t end = strlen(text), m;
    while (end > 0 && is_blank(text[end - 1]))
        end--;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)   /* 。！？ */
        if (end >= 3 && memcmp(text + end - 3, wide[i], 3) == 0)
            return 1;
    size_t marks = end;
    while ((m = closing_mark_before(text, marks)) > 0)
        marks -= m;
    size_t punct = marks;
    for (;;) {
        if (punct > 0 && (text[punct - 1] == '.' || text[punct - 1] == '!' || text[punct - 1] == '?'))
            punct--;
        else if (punct >= 3 && memcmp(text + punct - 3, "\xE2\x80\xA6", 3) == 0)
            punct -= 3;
        else
            break;
    }
    if (punct == marks)
        return 0;
    while (next && is_blank(*next))
        next++;
    return ends_at(text, 0, punct, marks, end, next);
}
