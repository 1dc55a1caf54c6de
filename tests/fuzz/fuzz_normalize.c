/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_normalize.c - what is said instead of what is written: the lexicon parser and the
 * normalization rules, whose output goes to the engine. Input: a lexicon source, a NUL byte,
 * then a text. The spoken text keeps normalize.h's promises (valid UTF-8, no control
 * character, no run without a space longer than RE_NORMALIZE_MAX_WORD characters, no run of
 * more than RE_NORMALIZE_MAX_LETTER_CHAIN dotted single letters) and the
 * spans map all of it back into the text. */
#include <string.h>

#include "fuzz.h"
#include "lexicon.h"
#include "normalize.h"
#include "utf8.h"

#ifndef FUZZ_WORD_SLACK
#define FUZZ_WORD_SLACK 0   /* -DFUZZ_WORD_SLACK=N: look past a known overrun for other findings */
#endif

/* 1 for valid UTF-8 without control characters; *script_like is set when it could be a
 * SPEECH item's text too (no TAB: the parser makes blanks spaces; words of any length). */
static int clean_text(const char *s, size_t len, int *script_like)
{
    size_t bad;
    const char *why;
    *script_like = 0;
    if (!re_utf8_check(s, len, &bad, &why))
        return 0;
    int like = 1;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += re_utf8_decode(s + i, s + len, &cp);
        if (re_utf8_is_control(cp) || cp == '\n')
            return 0;
        if (cp == '\t')
            like = 0;
    }
    *script_like = like;
    return 1;
}

/* Single letters that each have a dot, in a row with only spaces between ("a.b. c."): what
 * espeak-ng joins into one abbreviation. A letter is an ASCII letter or any non-ASCII
 * character. */
static size_t longest_letter_chain(const char *s, size_t len)
{
    size_t longest = 0, run = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        if (letter && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '.') && i + n < len
            && s[i + n] == '.') {
            longest = ++run > longest ? run : longest;
            i += n + 1;
            continue;
        }
        if ((c != ' ' && c != '.') || (c == ' ' && (i == 0 || s[i - 1] != '.')))
            run = 0;
        i += n;
    }
    return longest;
}

static void check_spoken(const char *spoken)
{
    size_t len = strlen(spoken), run = 0;
    int unused;
    FUZZ_ASSERT(clean_text(spoken, len, &unused));
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += re_utf8_decode(spoken + i, spoken + len, &cp);
        run = cp == ' ' ? 0 : run + 1;
        FUZZ_ASSERT(run <= RE_NORMALIZE_MAX_WORD + FUZZ_WORD_SLACK);
    }
    FUZZ_ASSERT(longest_letter_chain(spoken, len) <= RE_NORMALIZE_MAX_LETTER_CHAIN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *nul = memchr(data, '\0', size);
    size_t lex_len = nul ? (size_t)(nul - (const char *)data) : 0;
    const char *text_start = nul ? nul + 1 : (const char *)data;
    size_t text_len = size - (size_t)(text_start - (const char *)data);

    re_lexicon *lexicon = NULL;
    if (re_lexicon_create(&lexicon) != RE_OK)
        return 0;
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_lexicon_parse(lexicon, "fuzz.lexicon", (const char *)data, lex_len, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    FUZZ_ASSERT(status != RE_ERR_INPUT || diag.count > 0);
    re_diagnostics_free(&diag);

    char *text = malloc(text_len + 1);   /* re_normalize takes a C string */
    if (!text) {
        re_lexicon_free(lexicon);
        return 0;
    }
    memcpy(text, text_start, text_len);
    text[text_len] = '\0';
    int script_like = 0;
    int clean = memchr(text, '\0', text_len) == NULL && clean_text(text, text_len, &script_like);

    re_spoken spoken;
    memset(&spoken, 0, sizeof spoken);
    status = re_normalize_spans(lexicon, text, &spoken);
    if (!clean) {
        FUZZ_ASSERT(status == RE_ERR_INVALID || memchr(text, '\0', text_len));
    } else if (status == RE_OK) {
        if (script_like)   /* the promise is made for what the parser lets through */
            check_spoken(spoken.text);
        size_t spoken_at = 0, text_at = 0;
        for (size_t i = 0; i < spoken.span_count; i++) {
            const re_spoken_span *sp = &spoken.spans[i];
            FUZZ_ASSERT(sp->spoken_offset == spoken_at);
            FUZZ_ASSERT(sp->text_offset >= text_at);
            spoken_at += sp->spoken_length;
            text_at = sp->text_offset + sp->text_length;
            FUZZ_ASSERT(text_at <= strlen(text));
        }
        FUZZ_ASSERT(spoken_at == strlen(spoken.text));
        /* Each decision names a non-empty piece of the text, in the text's order. */
        for (size_t i = 0; i < spoken.decision_count; i++) {
            const re_spoken_decision *d = &spoken.decisions[i];
            FUZZ_ASSERT(d->what != NULL && d->text_length > 0);
            FUZZ_ASSERT(d->text_offset + d->text_length <= strlen(text));
            FUZZ_ASSERT(i == 0 || d->text_offset >= spoken.decisions[i - 1].text_offset);
        }
        FUZZ_ASSERT((spoken.decisions == NULL) == (spoken.decision_count == 0));
        /* The plain call says the same. */
        char *again = NULL;
        unsigned flags = 0;
        FUZZ_ASSERT(re_normalize(lexicon, text, &again, &flags) == RE_OK);
        FUZZ_ASSERT(strcmp(again, spoken.text) == 0 && flags == spoken.text_flags);
        free(again);
    } else {
        FUZZ_ASSERT(status == RE_ERR_NOMEM);
    }
    re_spoken_free(&spoken);
    free(text);
    re_lexicon_free(lexicon);
    return 0;
}
