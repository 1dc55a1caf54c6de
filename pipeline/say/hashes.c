/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hashes.c - commit and object hashes: their first 7 characters one by one, after their
 * algorithm's name when one is written before them. */
#include "normalize_internal.h"

#include "hex.h"

int re_is_hash(const char *s, size_t len)
{
    if (len < 7 || !all_of(s, len, re_is_hex_lower))
        return 0;
    size_t digits = 0;
    for (size_t i = 0; i < len; i++)
        digits += re_is_digit(s[i]);
    return digits > 0 && digits < len;
}

void re_say_hash_start(normalizer *n, const char *s)
{
    re_say_characters(n, s, 7);
}

/* The digest algorithms written before a hash ("sha256:e3b0c442..."). */
static const char *const digest_names[] = { "sha1", "sha224", "sha256", "sha384", "sha512",
                                            "md5", NULL };

int re_say_hash(normalizer *n, const char *s, size_t len)
{
    size_t colon = find(s, len, ":");
    if (colon < len && in_list_fold(s, colon, digest_names)
        && re_is_hash(s + colon + 1, len - colon - 1)) {
        size_t letters = leading(s, colon, re_is_letter);
        re_say_letters(n, s, letters);
        re_says(n, " ");
        re_say(n, s + letters, colon - letters);
        re_says(n, " ");
        re_say_hash_start(n, s + colon + 1);
        re_detail(n, "hash: its algorithm, then its first 7 characters one by one");
        return 1;
    }
    if (!re_is_hash(s, len) && !(n->after_commit && len >= 7 && all_of(s, len, re_is_digit)))
        return 0;
    re_say_hash_start(n, s);
    return 1;
}
