/* SPDX-License-Identifier: GPL-3.0-or-later */
/* identifiers.c - code as people read it out: snake_case and CamelCase parts, hyphenated
 * words, options with their dashes, operators, and an ellipsis inside a word. */
#include "normalize_internal.h"

#include <string.h>

void re_say_split(normalizer *n, const char *s, size_t len, const char *separator,
                  const char *joiner)
{
    size_t sep = strlen(separator), i = 0;
    int first = 1;
    while (i <= len) {
        size_t j = i + find(s + i, len - i, separator);
        if (j > i) {
            if (!first)
                re_says(n, joiner);
            re_say_core(n, s + i, j - i);
            first = 0;
        }
        i = j + sep;
    }
}

int re_say_operator(normalizer *n, const char *s, size_t len)
{
    if (equals(s, len, "->") || equals(s, len, "=>") || equals(s, len, "\xE2\x86\x92")) {
        re_says(n, "to");
        return 1;
    }
    if (equals(s, len, "&&") || equals(s, len, "||")) {
        re_says(n, s[0] == '&' ? "and" : "or");
        return 1;
    }
    if (len >= 3 && re_is_letter(s[0]) && s[1] == '+' && s[2] == '+'
        && (len == 3 || all_of(s + 3, len - 3, re_is_digit))) {
        char letter = upper(s[0]);
        re_say(n, &letter, 1);
        re_says(n, " plus plus");
        if (len > 3) {
            re_says(n, " ");
            re_say(n, s + 3, len - 3);
        }
        return 1;
    }
    if (len == 2 && re_is_letter(s[0]) && s[1] == '#') {
        char letter = upper(s[0]);
        re_say(n, &letter, 1);
        re_says(n, " sharp");
        return 1;
    }
    if (find(s, len, "::") < len) {
        re_say_split(n, s, len, "::", " ");
        return 1;
    }
    if (find(s, len, "->") < len) {
        re_say_split(n, s, len, "->", " arrow ");
        return 1;
    }
    size_t eq = find(s, len, "=");
    if (eq > 0 && eq + 1 < len && find(s + eq + 1, len - eq - 1, "=") == len - eq - 1
        && s[eq + 1] != '>') {
        re_say_split(n, s, len, "=", " equals ");   /* NCCL_DEBUG=INFO */
        return 1;
    }
    return 0;
}

static int is_option_char(char c)
{
    return re_is_alnum(c) || c == '-' || c == '_' || c == '=' || c == '.' || c == ',' || c == '/';
}

int re_say_option(normalizer *n, const char *s, size_t len)
{
    size_t dashes = s[0] != '-' ? 0 : len > 1 && s[1] == '-' ? 2 : 1;
    if (!dashes || dashes >= len || !re_is_letter(s[dashes])
        || !all_of(s + dashes, len - dashes, is_option_char))
        return 0;
    re_says(n, dashes == 2 ? "dash dash " : "dash ");
    re_say_core(n, s + dashes, len - dashes);
    return 1;
}

static const char *const name_prefixes[] = { "Mc", "Mac", "De", "Di", "Du", "Da", "La", "Le",
                                             "Van", "Von", NULL };

/* Where the next part of a word starts: at a capital after a lower-case letter (PyTorch),
 * before the last capital of a run that a lower-case letter follows (AOTAutograd), and
 * between spelled capitals and digits (NCCL2). A final "s" after capitals is a plural. */
static size_t part_end(const char *s, size_t len, size_t start)
{
    for (size_t i = start + 1; i < len; i++) {
        char a = s[i - 1], b = s[i];
        if (re_is_lower(a) && re_is_upper(b))
            return i;
        if (re_is_upper(a) && re_is_upper(b) && i + 1 < len && re_is_lower(s[i + 1])
            && !(s[i + 1] == 's' && (i + 2 == len || !re_is_lower(s[i + 2]))))
            return i;
        if (re_is_upper(a) && re_is_digit(b) && i - start >= 2 && all_of(s + start, i - start, re_is_upper))
            return i;
    }
    return len;
}

/* One part of an identifier: as the lexicon says, spelled, a number with its unit (8x),
 * or as written. In a constant (MAX_JOBS) pronounceable parts are words. */
static void say_part(normalizer *n, const char *s, size_t len, int constant)
{
    re_lexicon_hit hit;
    if (n->lexicon && re_lexicon_lookup(n->lexicon, s, len, &hit)) {
        re_decide(n, s, len, "lexicon entry");
        re_say_replacement(n, &hit);
        return;
    }
    if (re_is_digit(s[0])) {
        mark m = re_mark_here(n);
        if (re_say_number(n, s, len))
            return;
        re_rollback(n, m);
    }
    if (!re_say_acronym(n, s, len, constant))
        re_say(n, s, len);
}

/* Says the parts of one underscore-free piece; returns how many there were. */
static size_t say_parts(normalizer *n, const char *s, size_t len, int first, int constant)
{
    size_t count = 0, i = 0;
    size_t end = part_end(s, len, 0);
    if (end < len && part_end(s, len, end) == len && in_list(s, end, name_prefixes))
        end = len;   /* McDonald, DeSantis */
    while (i < len) {
        if (!first || count)
            re_says(n, " ");
        say_part(n, s + i, end - i, constant);
        count++;
        i = end;
        end = part_end(s, len, i);
    }
    return count;
}

int re_say_word(normalizer *n, const char *s, size_t len)
{
    size_t base = len;
    if (len > 2 && (s[len - 1] == 's' && s[len - 2] == '\''))
        base = len - 2;
    else if (len > 4 && s[len - 1] == 's' && memcmp(s + len - 4, "\xE2\x80\x99", 3) == 0)
        base = len - 4;
    for (size_t i = 0; i < base; i++)
        if (!re_is_alnum(s[i]) && s[i] != '_')
            return 0;
    size_t pieces = 0, parts = 0, i = 0;
    int underscores = find(s, base, "_") < base, constant = underscores;
    for (size_t k = 0; k < base; k++)
        constant &= !re_is_lower(s[k]);
    mark m = re_mark_here(n);
    while (i < base) {
        size_t j = i;
        while (j < base && s[j] != '_')
            j++;
        if (j > i)
            parts += say_parts(n, s + i, j - i, pieces++ == 0, constant);
        i = j + 1;
    }
    if (parts == 0 || (parts == 1 && !underscores && re_said_as_is(n, m, s, base))) {
        re_rollback(n, m);
        return 0;
    }
    if (parts == 1 && !underscores)
        re_detail(n, NULL);   /* one word: its own decision says it all */
    re_say(n, s + base, len - base);
    return 1;
}

/* Says a run of single capitals joined by hyphens (A-B-C, from s[0] to s[end - 1]) as
 * dotted letters, and returns its end; returns 0 when s does not start one of two or more. */
static size_t say_letter_run(normalizer *n, const char *s, size_t len)
{
    size_t end = 1;
    if (!re_is_upper(s[0]) || (len > 1 && s[1] != '-'))
        return 0;
    while (end + 1 < len && s[end] == '-' && re_is_upper(s[end + 1])
           && (end + 2 == len || s[end + 2] == '-'))
        end += 2;
    if (end == 1)
        return 0;
    for (size_t i = 0; i < end; i += 2) {
        if (i)
            re_says(n, ".");
        re_say(n, s + i, 1);
    }
    return end;
}

int re_say_compound(normalizer *n, const char *s, size_t len)
{
    if (find(s, len, "-") == len || !is_ascii(s, len))
        return 0;
    int digits_only = 1;
    for (size_t i = 0; i < len; i++)
        digits_only &= re_is_digit(s[i]) || s[i] == '-';
    if (digits_only)
        return 0;
    mark m = re_mark_here(n);
    int changed = 0, first = 1;
    size_t i = 0;
    while (i < len) {
        size_t j = i + find(s + i, len - i, "-");
        /* a hyphen after no letter or digit, before a number, is a minus: "@{-1}" */
        int minus = i > 0 && re_is_digit(s[i]) && (i == 1 || !re_is_alnum(s[i - 2]));
        if (j > i) {
            if (!first)
                re_says(n, " ");
            first = 0;
            if (minus) {
                re_says(n, "minus ");
                changed = 1;
            }
            mark part = re_mark_here(n);
            size_t run = say_letter_run(n, s + i, len - i);
            if (run) {
                j = i + run;
                changed = 1;
            } else {
                re_say_core(n, s + i, j - i);
                changed |= !re_said_as_is(n, part, s + i, j - i);
            }
        }
        i = j + 1;
    }
    if (!changed) {
        re_rollback(n, m);
        return 0;
    }
    return 1;
}

int re_say_inner_ellipsis(normalizer *n, const char *s, size_t len)
{
    size_t dots = find(s, len, "..."), mark3 = find(s, len, "\xE2\x80\xA6");
    size_t at = dots < mark3 ? dots : mark3;
    if (at == len)
        return 0;
    size_t after = at;
    while (after < len && dot_or_ellipsis(s + after, len - after))
        after += s[after] == '.' ? 1 : 3;
    re_say_core(n, s, at);
    re_says(n, "\xE2\x80\xA6");
    if (after < len) {
        re_says(n, " ");
        re_say_core(n, s + after, len - after);
    }
    return 1;
}
