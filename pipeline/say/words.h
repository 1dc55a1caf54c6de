/* SPDX-License-Identifier: GPL-3.0-or-later */
/* words.h - is this an English word? The normalizer's dictionary: a fixed set of English
 * words, those of Debian's wamerican word list (2020.12.07) and of espeak-ng 1.51's English
 * dictionary (en_dict), compiled in so that what is said never depends on the files of the
 * machine it runs on. Regenerate words/ with scripts/make-words (and bump
 * RE_NORMALIZE_RULES_VERSION: it changes what is said). */
#ifndef RE_WORDS_H
#define RE_WORDS_H

#include <stddef.h>

/* Longest word in the set: a longer text is never one. */
#define RE_WORDS_MAX 24

/* The set, a table for each first letter a..z (words/words_a.c ... words_z.c, indexed by
 * words/words_index.c): " word word ... word ", lower-case ASCII letters, sorted; size is its
 * length without the terminating NUL. */
typedef struct re_word_list {
    const char *table;
    size_t size;
} re_word_list;
extern const re_word_list re_words_by_letter[26];

/* 1 when s[0..len) is a word of the set in any ASCII case ("HEAD", "Head", "head"), else 0
 * (also for anything but ASCII letters). */
int re_is_word(const char *s, size_t len);

#endif
