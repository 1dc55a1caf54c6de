/* SPDX-License-Identifier: GPL-3.0-or-later */
/* words.c - binary search in the compiled word set, in the table of the word's first letter (see words.h). */
#include "words.h"

#include <string.h>

#include "text.h"

/* Compares the word that starts at table[at] with key[0..len). */
static int compare_at(const char *table, size_t at, const char *key, size_t len)
{
    size_t i = 0;
    for (; i < len && table[at + i] != ' '; i++)
        if (table[at + i] != key[i])
            return (unsigned char)table[at + i] < (unsigned char)key[i] ? -1 : 1;
    if (i < len)
        return -1;                           /* the table's word is a prefix */
    return table[at + i] == ' ' ? 0 : 1;     /* the key is a prefix */
}

int re_is_word(const char *s, size_t len)
{
    char key[RE_WORDS_MAX];
    if (len < 2 || len > RE_WORDS_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (!re_is_letter(s[i]))
            return 0;
        key[i] = re_is_upper(s[i]) ? (char)(s[i] - 'A' + 'a') : s[i];
    }
    /* The table of key's first letter; words start after each space of [lo, hi), and the
     * search narrows to the one of key. */
    const char *table = re_words_by_letter[key[0] - 'a'].table;
    size_t lo = 1, hi = re_words_by_letter[key[0] - 'a'].size;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        while (mid > lo && table[mid - 1] != ' ')
            mid--;
        int c = compare_at(table, mid, key, len);
        if (c == 0)
            return 1;
        if (c > 0) {
            hi = mid;
        } else {
            const char *space = memchr(table + mid, ' ', hi - mid);
            if (!space)
                return 0;
            lo = (size_t)(space - table) + 1;
        }
    }
    return 0;
}
