/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_rank.c - what a reader keeps first of release notes: the rank of a section by its
 * heading, and of a block by the telltales in its own text (script.h, re_rank; the order is
 * docs/script-format.md's, "--max-duration"). */
#include <stddef.h>
#include <string.h>

#include "script_body.h"
#include "text.h"

static char lower(char c)
{
    return re_is_upper(c) ? (char)(c - 'A' + 'a') : c;
}

/* 1 when `word` (lower case) is in s[0..len), in any case, at a word's start; a word of two
 * letters must be the whole word ("CI", not "city"). */
static int has_word(const char *s, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (size_t i = 0; i + n <= len; i++) {
        if (i > 0 && re_is_alnum(s[i - 1]))
            continue;
        size_t k = 0;
        while (k < n && lower(s[i + k]) == word[k])
            k++;
        if (k == n && (n > 2 || i + n == len || !re_is_alnum(s[i + n])))
            return 1;
    }
    return 0;
}

typedef struct rank_word {
    const char *word;
    unsigned char rank;
} rank_word;

/* In this order: a "Security fixes" section is security, "Breaking changes" breaking. */
static const rank_word heading_words[] = {
    { "breaking", RE_RANK_BREAKING },
    { "security", RE_RANK_SECURITY },
    { "vulnerab", RE_RANK_SECURITY },
    { "dependenc", RE_RANK_CHORE }, { "deps", RE_RANK_CHORE }, { "chore", RE_RANK_CHORE },
    { "internal", RE_RANK_CHORE }, { "maintenance", RE_RANK_CHORE }, { "build", RE_RANK_CHORE },
    { "ci", RE_RANK_CHORE }, { "documentation", RE_RANK_CHORE }, { "docs", RE_RANK_CHORE },
    { "refactor", RE_RANK_CHORE }, { "test", RE_RANK_CHORE }, { "misc", RE_RANK_CHORE },
    { "new contributors", RE_RANK_CHORE },
    { "added", RE_RANK_FEATURE }, { "feature", RE_RANK_FEATURE }, { "new", RE_RANK_FEATURE },
    { "enhancement", RE_RANK_FEATURE }, { "highlight", RE_RANK_FEATURE },
    { "fixed", RE_RANK_FIX }, { "fix", RE_RANK_FIX }, { "bug", RE_RANK_FIX },
    { "changed", RE_RANK_CHANGE }, { "change", RE_RANK_CHANGE }, { "removed", RE_RANK_CHANGE },
    { "deprecat", RE_RANK_CHANGE }, { "performance", RE_RANK_CHANGE },
    { "improve", RE_RANK_CHANGE },
};

unsigned char re_md_rank_of_heading(const char *title)
{
    size_t len = strlen(title);
    for (size_t k = 0; k < sizeof heading_words / sizeof heading_words[0]; k++)
        if (has_word(title, len, heading_words[k].word))
            return heading_words[k].rank;
    return RE_RANK_OTHER;
}

/* The text after leading blanks and markup a list item's first word may carry. */
static const char *first_word(const char *s, size_t len, size_t *rest)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '*' || s[i] == '_' || s[i] == '['))
        i++;
    *rest = len - i;
    return s + i;
}

/* `chore:`, `ci(x):`, `build!:`: a conventional commit whose type is housekeeping. */
static int chore_prefix(const char *s, size_t len)
{
    static const char *const types[] = { "chore", "ci", "build", "docs", "test", "tests",
                                         "refactor", "style", "deps" };
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        size_t n = strlen(types[k]);
        if (len <= n)
            continue;
        size_t i = 0;
        while (i < n && lower(s[i]) == types[k][i])
            i++;
        if (i == n && (s[n] == ':' || s[n] == '(' || s[n] == '!'))
            return 1;
    }
    return 0;
}

unsigned char re_md_rank_of_block(const char *text, size_t len, unsigned char section_rank)
{
    size_t rest;
    const char *s = first_word(text, len, &rest);
    if ((rest >= 8 && has_word(s, 8, "breaking")) || has_word(s, rest, "breaking change"))
        return RE_RANK_BREAKING;
    if (has_word(s, rest, "cve-") || has_word(s, rest, "ghsa-"))
        return section_rank < RE_RANK_SECURITY ? section_rank : RE_RANK_SECURITY;
    if (chore_prefix(s, rest) || has_word(s, rest < 24 ? rest : 24, "deps")   /* **deps-dev:** */
        || has_word(s, rest, "dependabot") || has_word(s, rest, "renovate")
        || (rest > 5 && has_word(s, 5, "bump ")) || has_word(s, rest, "update dependency"))
        return RE_RANK_CHORE;
    return section_rank;
}
