/* SPDX-License-Identifier: GPL-3.0-or-later */
/* join.c - the pieces joined into the text the engine receives, with its spans back to the
 * script: a space where a replacement meets a word, and the cuts that keep every word and
 * every chain of dotted letters within what espeak-ng 1.51 is measured to survive. */
#include "normalize_internal.h"

#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static int wordish(char c)
{
    return re_is_alnum(c) || (unsigned char)c >= 0x80;
}

/* Where a replacement meets a word, a space: "NCCL2" -> "nickel 2", not "nickel2". And
 * [[ ]] never glued to a bracket. */
static int needs_space(char before, char after)
{
    return ((wordish(before) || before == ']') && (wordish(after) || after == '['))
           || ((before == '[' || before == ']') && after == '[');
}

typedef struct joined {
    char *text;
    size_t len, capacity;
    size_t word_chars;          /* characters since the last space */
    size_t letter_chain;        /* single letters, each with its dot, in a row ("a.b. c.") */
    int phonemes;               /* the text holds lexicon [[...]] spans (RE_TEXT_PHONEMES) */
    int in_phonemes;            /* between [[ and ]] */
    size_t next_span_chars;     /* length of the [[...]] span about to be put, for splitting */
    re_spoken_span *spans;
    size_t span_count, span_capacity;
    int nomem;
} joined;

static void put_byte(joined *j, char c)
{
    if (!re_grow_array(&j->text, &j->capacity, 1, j->len + 2)) {
        j->nomem = 1;
        return;
    }
    j->text[j->len++] = c;
    j->text[j->len] = '\0';
}

/* Characters of the [[...]] span that starts at s[k], or 1 when none starts there. */
static size_t span_chars(const char *s, size_t len, size_t k)
{
    if (k + 1 >= len || s[k] != '[' || s[k + 1] != '[')
        return 1;
    size_t chars = 0;
    for (size_t i = k; i < len; i++) {
        chars += ((unsigned char)s[i] & 0xC0) != 0x80;
        if (i > k + 2 && s[i] == ']' && s[i - 1] == ']')
            return chars;
    }
    return chars;
}

_Static_assert(RE_LEXICON_PHONEMES_MAX <= RE_NORMALIZE_MAX_WORD,
               "a phoneme span is never split, so it must fit in a word");

/* A letter as the engine's abbreviation joining sees it: an ASCII letter or any other
 * character outside ASCII (é, ж, α chain like a, b, c: measured). */
static int chain_letter(char c)
{
    return re_is_letter(c) || (unsigned char)c >= 0x80;
}

/* The last byte of the character before the last one of j's text (a space at the start). */
static char byte_before_last_char(const joined *j)
{
    size_t k = j->len;
    if (k == 0)
        return ' ';
    k--;
    while (k > 0 && ((unsigned char)j->text[k] & 0xC0) == 0x80)
        k--;
    return k ? j->text[k - 1] : ' ';
}

static void put_space(joined *j)
{
    char before = j->len ? j->text[j->len - 1] : ' ';
    put_byte(j, ' ');
    j->word_chars = 0;
    if (before != '.')
        j->letter_chain = 0;
}

/* Appends a byte; keeps what the engine receives within what espeak-ng 1.51 is measured to
 * survive (docs/robustness.md), never inside a [[phoneme]] span:
 * - a word that would pass RE_NORMALIZE_MAX_WORD characters is split with a space: anywhere
 *   outside a span, including just before its [[ (counting the span's length), beside a
 *   bracket of the text and just after a span's ]], never inside one (its closing ]]
 *   included) nor between the two [ that open it;
 * - the engine joins single letters that each have a dot ("a.b.c.", "q.z. q.z.", across
 *   spaces) into one abbreviation and aborts on long ones: the dot of the letter after
 *   RE_NORMALIZE_MAX_LETTER_CHAIN of them becomes a space, which ends the abbreviation.
 * Only a text with lexicon phonemes has spans (join has split the text's own brackets apart);
 * in any other, brackets are plain characters. A space never makes a [[ or a ]], so no split
 * makes or breaks one. */
static void put(joined *j, char c)
{
    int starts_char = ((unsigned char)c & 0xC0) != 0x80;
    char before = j->len ? j->text[j->len - 1] : ' ';
    if (c == ' ') {
        put_space(j);
        return;
    }
    if (starts_char && !j->in_phonemes) {
        char earlier = byte_before_last_char(j);
        if (c == '.' && chain_letter(before) && (earlier == ' ' || earlier == '.')) {
            if (++j->letter_chain > RE_NORMALIZE_MAX_LETTER_CHAIN) {
                put_space(j);
                j->letter_chain = 0;
                return;
            }
        } else if (!(chain_letter(c) && (before == ' ' || before == '.')) && c != '.') {
            j->letter_chain = 0;
        }
    }
    if (starts_char) {
        /* in plain text a bracket is only a character: any run may be split anywhere */
        int opening = j->phonemes && c == '[' && before != '[' && !j->in_phonemes;
        size_t need = opening ? j->next_span_chars : 1;
        int splittable = !j->in_phonemes && !(j->phonemes && c == '[' && before == '[');
        if (splittable && j->word_chars > 0 && j->word_chars + need > RE_NORMALIZE_MAX_WORD)
            put_space(j);
        j->word_chars++;
        if (j->phonemes && c == '[' && before == '[' && !j->in_phonemes)
            j->in_phonemes = 1;
        else if (c == ']' && before == ']' && j->in_phonemes)
            j->in_phonemes = 0;
    }
    put_byte(j, c);
}

static void add_span(joined *j, size_t start, const piece *p)
{
    re_spoken_span *last = j->span_count ? &j->spans[j->span_count - 1] : NULL;
    if (last && last->text_offset == p->source && last->text_length == p->source_length) {
        last->spoken_length = j->len - last->spoken_offset;
        return;
    }
    if (!re_grow_array(&j->spans, &j->span_capacity, sizeof *j->spans, j->span_count + 1)) {
        j->nomem = 1;
        return;
    }
    j->spans[j->span_count++] = (re_spoken_span){ start, j->len - start, p->source,
                                                   p->source_length };
}

re_status re_join_pieces(const normalizer *n, re_spoken *out)
{
    joined j = { 0 };
    int phonemes = 0, after_emoji = 0;
    for (size_t i = 0; i < n->piece_count; i++)
        phonemes |= n->pieces[i].kind == PIECE_LEXICON && n->pieces[i].hit.phonemes;
    j.phonemes = phonemes;
    put_byte(&j, ' ');
    j.len = 0;   /* an empty text is "" */
    if (j.text)
        j.text[0] = '\0';
    for (size_t i = 0; i < n->piece_count && !j.nomem; i++) {
        const piece *p = &n->pieces[i];
        const char *s = p->kind == PIECE_TEXT ? n->arena + p->offset
                        : p->kind == PIECE_LEXICON ? p->hit.replacement : " ";
        size_t len = p->kind == PIECE_TEXT ? p->length : strlen(s), start = j.len;
        const piece *before = i ? &n->pieces[i - 1] : NULL;
        if (len && j.len && before && before->kind != PIECE_SPACE && p->kind != PIECE_SPACE
            && (p->kind == PIECE_LEXICON || before->kind == PIECE_LEXICON)
            && needs_space(j.text[j.len - 1], s[0]))
            put(&j, ' ');
        for (size_t k = 0; k < len; k++) {
            size_t emoji = re_utf8_emoji_length(s + k, s + len);
            if (emoji) {   /* not said: the engine would name it ("party popper") */
                k += emoji - 1;
                after_emoji = 1;
                continue;
            }
            if (s[k] == ' ' && after_emoji && (j.len == 0 || j.text[j.len - 1] == ' '))
                continue;   /* the blank it leaves between two words, or at the start */
            after_emoji = 0;
            if (phonemes && p->kind != PIECE_LEXICON && (s[k] == '[' || s[k] == ']') && j.len
                && (j.text[j.len - 1] == '[' || j.text[j.len - 1] == ']'))
                put(&j, ' ');
            j.next_span_chars = span_chars(s, len, k);
            put(&j, s[k]);
        }
        if (j.len > start)
            add_span(&j, start, p);
    }
    if (j.nomem) {
        free(j.text);
        free(j.spans);
        return RE_ERR_NOMEM;
    }
    out->text = j.text;
    out->text_flags = phonemes ? RE_TEXT_PHONEMES : RE_TEXT_PLAIN;
    out->spans = j.spans;
    out->span_count = j.span_count;
    return RE_OK;
}
