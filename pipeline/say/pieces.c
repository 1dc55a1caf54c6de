/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pieces.c - what the normalizer says, piece by piece: text written by a rule and lexicon
 * replacements, each with the bytes of the script it stands for; marks to roll back to when a
 * rule turns out not to apply; the decisions recorded for `explain`; digits and letters said
 * one by one. */
#include "normalize_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int re_grow_array(void *array_pointer, size_t *capacity, size_t size, size_t need)
{
    if (need <= *capacity)
        return 1;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < need)
        cap *= 2;
    void *items;
    memcpy(&items, array_pointer, sizeof items);
    void *grown = realloc(items, cap * size);
    if (!grown)
        return 0;
    memcpy(array_pointer, &grown, sizeof grown);
    *capacity = cap;
    return 1;
}

piece *re_new_piece(normalizer *n, piece_kind kind)
{
    if (n->nomem || !re_grow_array(&n->pieces, &n->piece_capacity, sizeof *n->pieces,
                                   n->piece_count + 1)) {
        n->nomem = 1;
        return NULL;
    }
    piece *p = &n->pieces[n->piece_count++];
    *p = (piece){ .kind = kind, .offset = n->arena_len, .source = n->source,
                  .source_length = n->source_length };
    return p;
}

void re_say(normalizer *n, const char *s, size_t len)
{
    if (len == 0 || n->nomem)
        return;
    if (!re_grow_array(&n->arena, &n->arena_capacity, 1, n->arena_len + len)) {
        n->nomem = 1;
        return;
    }
    piece *last = n->piece_count ? &n->pieces[n->piece_count - 1] : NULL;
    if (!last || last->kind != PIECE_TEXT || last->source != n->source
        || last->source_length != n->source_length)
        last = re_new_piece(n, PIECE_TEXT);
    if (!last)
        return;
    memcpy(n->arena + n->arena_len, s, len);
    n->arena_len += len;
    last->length += len;
}

void re_says(normalizer *n, const char *s)
{
    re_say(n, s, strlen(s));
}

void re_say_replacement(normalizer *n, const re_lexicon_hit *hit)
{
    piece *p = re_new_piece(n, PIECE_LEXICON);
    if (p)
        p->hit = *hit;
}

mark re_mark_here(const normalizer *n)
{
    mark m = { n->piece_count, n->arena_len, 0, n->decision_count };
    if (n->piece_count)
        m.last_length = n->pieces[n->piece_count - 1].length;
    return m;
}

void re_rollback(normalizer *n, mark m)
{
    n->piece_count = m.piece_count;
    n->arena_len = m.arena_len;
    n->decision_count = m.decision_count;
    if (n->piece_count)
        n->pieces[n->piece_count - 1].length = m.last_length;
}

size_t re_decide(normalizer *n, const char *s, size_t len, const char *what)
{
    if (n->nomem || s < n->text || s + len > n->text + n->len)
        return SIZE_MAX;
    if (!re_grow_array(&n->decisions, &n->decision_capacity, sizeof *n->decisions,
                       n->decision_count + 1)) {
        n->nomem = 1;
        return SIZE_MAX;
    }
    n->decisions[n->decision_count] = (decision){ (size_t)(s - n->text), len, what };
    return n->decision_count++;
}

void re_detail(normalizer *n, const char *what)
{
    if (n->current < n->decision_count)
        n->decisions[n->current].what = what;
}

int re_said_as_is(const normalizer *n, mark m, const char *s, size_t len)
{
    for (size_t i = m.piece_count; i < n->piece_count; i++)
        if (n->pieces[i].kind != PIECE_TEXT)
            return 0;
    return n->arena_len - m.arena_len == len && memcmp(n->arena + m.arena_len, s, len) == 0;
}

static const char *const digit_names[] = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
};

void re_say_digits(normalizer *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (i)
            re_says(n, " ");
        re_says(n, digit_names[s[i] - '0']);
    }
}

void re_say_letters(normalizer *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char letter = upper(s[i]);
        if (i)
            re_says(n, ".");
        re_say(n, &letter, 1);
    }
}

void re_say_characters(normalizer *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        if (i)
            re_says(n, " ");
        if (re_is_digit(s[i])) {
            re_says(n, digit_names[s[i] - '0']);
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && !re_is_digit(s[j]))
            j++;
        if (j - i == 1 && (s[i] == 'a' || s[i] == 'A')) {
            re_says(n, "eh");
        } else {
            re_say_letters(n, s + i, j - i);
        }
        i = j;
    }
}
