/* SPDX-License-Identifier: GPL-3.0-or-later */
/* normalize.c - technical-text normalization (see normalize.h for the rules).
 *
 * Three steps. The text is cut into chunks: lexicon matches, and the runs of non-blanks
 * between them. Each chunk is said as pieces (text written by a rule, or a lexicon
 * replacement), word by word, with a little context from the words around it (a reference
 * word before a number, a number before a unit). Then the pieces are joined into the spoken
 * text: a space where a replacement would run into a word, and, when phonemes are in play,
 * brackets from the script split so that they cannot form [[ or ]].
 *
 * This file holds the order of work and the rules' order (re_say_core); the rules are in
 * acronyms.c, numbers.c, amounts.c, hashes.c, urls.c and identifiers.c, a word's marks and
 * context in context.c, the pieces in pieces.c and the joining in join.c (normalize_internal.h). */
#include "normalize_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void re_say_core(normalizer *n, const char *s, size_t len)
{
    static const struct rule {
        int (*say)(normalizer *, const char *, size_t);
        const char *decision;
    } rules[] = {
        { re_say_inner_ellipsis, "ellipsis: a pause" },
        { re_say_url, "URL: the site" },
        { re_say_hash, "hash: its first 7 characters one by one" },
        { re_say_date_time, "date: as it is said" },
        { re_say_time, "time of day: on the 12-hour clock, with its zone" },
        { re_say_date_dash, "between two dates: to" },
        { re_say_month, "month: in full beside a day or year" },
        { re_say_day, "day of a month: an ordinal" },
        { re_say_requirement, "requirement: its comparisons in words" },
        { re_say_option, "option: its dashes said" },
        { re_say_reference, "reference number: digit by digit from 3 digits" },
        { re_say_merge_request, "merge request: its number" },
        { re_say_repository_reference, "repository reference" },
        { re_say_money, "money: the amount, then its currency" },
        { re_say_duration, "duration: its units in words" },
        { re_say_number, "number with a unit or multiplier" },
        { re_say_unit, "unit, in words" },
        { re_say_version, "version: its separators said" },
        { re_say_rule_code, "rule code: letters, then its digits one by one" },
        { re_say_advisory, "advisory ID: its characters one by one" },
        { re_say_ticket, "ticket key" },
        { re_say_code, "code: its digits one by one" },
        { re_say_operator, "operator" },
        { re_say_slashed, "path or slashed words" },
        { re_say_dotted, "dotted name: its parts" },
        { re_say_compound, "hyphenated: its parts" },
        { re_say_word, "identifier: its parts" },
    };
    if (len == 0)
        return;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        mark m = re_mark_here(n);
        size_t outer = n->current;
        n->current = re_decide(n, s, len, rules[i].decision);
        int taken = rules[i].say(n, s, len);
        n->current = outer;
        if (taken)
            return;
        re_rollback(n, m);
    }
    if (!re_say_acronym(n, s, len, 0))   /* records why capitals stay as written */
        re_say(n, s, len);
}

static void add_chunk(normalizer *n, int is_match, const re_lexicon_hit *hit, size_t start,
                      size_t end, size_t *previous_end)
{
    if (!re_grow_array(&n->chunks, &n->chunk_capacity, sizeof *n->chunks, n->chunk_count + 1)) {
        n->nomem = 1;
        return;
    }
    chunk *c = &n->chunks[n->chunk_count++];
    *c = (chunk){ .is_match = is_match, .start = start, .end = end, .blanks = *previous_end };
    if (hit)
        c->hit = *hit;
    *previous_end = end;
}

/* The end of the URL that is the word starting at text[pos] (with its brackets and
 * punctuation), or pos when that word is no URL. */
static size_t url_at(const normalizer *n, size_t pos)
{
    size_t end = pos, open, close, host, host_end;
    while (end < n->len && n->text[end] != ' ' && n->text[end] != '\t')
        end++;
    re_split_word(n->text + pos, end - pos, &open, &close);
    if (end - pos <= open + close
        || !re_url_host(n->text + pos + open, end - pos - open - close, &host, &host_end))
        return pos;
    return end;
}

/* Cuts the text into lexicon matches and the runs of non-blanks between them. A URL
 * is one run, whole: no lexicon entry matches inside it (nginx in https://nginx.org/...). */
static void cut(normalizer *n)
{
    size_t pos = 0, word = SIZE_MAX, previous_end = 0;
    while (pos < n->len && !n->nomem) {
        char c = n->text[pos];
        re_lexicon_hit hit;
        int blank = c == ' ' || c == '\t';
        if (!blank && word == SIZE_MAX && (pos == 0 || n->text[pos - 1] == ' '
                                           || n->text[pos - 1] == '\t')) {
            size_t url_end = url_at(n, pos);
            if (url_end > pos) {
                add_chunk(n, 0, NULL, pos, url_end, &previous_end);
                pos = url_end;
                continue;
            }
        }
        int match = !blank && n->lexicon && re_lexicon_match(n->lexicon, n->text, n->len, pos, &hit);
        if ((blank || match) && word != SIZE_MAX) {
            add_chunk(n, 0, NULL, word, pos, &previous_end);
            word = SIZE_MAX;
        }
        if (match) {
            add_chunk(n, 1, &hit, pos, pos + hit.length, &previous_end);
            pos += hit.length;
            continue;
        }
        if (!blank && word == SIZE_MAX)
            word = pos;
        pos += blank ? 1 : char_length((unsigned char)c);
    }
    if (word != SIZE_MAX)
        add_chunk(n, 0, NULL, word, n->len, &previous_end);
}

/* Says each chunk, with one space where the text had blanks between two. */
static void say_all(normalizer *n)
{
    for (size_t i = 0; i < n->chunk_count && !n->nomem; i++) {
        const chunk *c = &n->chunks[i];
        if (i > 0 && c->blanks < c->start) {
            n->source = c->blanks;
            n->source_length = c->start - c->blanks;
            re_new_piece(n, PIECE_SPACE);
        }
        re_say_chunk(n, i);
    }
}

/* Orders a before b: by place in the text, a word before its parts. */
static int decision_order(const void *a, const void *b)
{
    const re_spoken_decision *x = a, *y = b;
    if (x->text_offset != y->text_offset)
        return x->text_offset < y->text_offset ? -1 : 1;
    if (x->text_length != y->text_length)
        return x->text_length > y->text_length ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The decisions still standing, in the order of the text, into out. */
static re_status keep_decisions(const normalizer *n, re_spoken *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < n->decision_count; i++)
        kept += n->decisions[i].what != NULL;
    if (kept == 0)
        return RE_OK;
    out->decisions = malloc(kept * sizeof *out->decisions);
    if (!out->decisions) {
        re_spoken_free(out);
        return RE_ERR_NOMEM;
    }
    for (size_t i = 0; i < n->decision_count; i++)
        if (n->decisions[i].what)
            out->decisions[out->decision_count++] = (re_spoken_decision){
                n->decisions[i].offset, n->decisions[i].length, n->decisions[i].what,
                out->decision_count };
    qsort(out->decisions, out->decision_count, sizeof *out->decisions, decision_order);
    return RE_OK;
}

static int text_valid(const char *text, size_t len)
{
    size_t bad;
    const char *why;
    if (!re_utf8_check(text, len, &bad, &why))
        return 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += re_utf8_decode(text + i, text + len, &cp);
        if (re_utf8_is_control(cp) || cp == '\n' || cp == '\r')
            return 0;
    }
    return 1;
}

int re_normalize_voice_is_english(const char *engine_voice)
{
    if (!engine_voice)
        return 1;
    const char *name = strrchr(engine_voice, '/');   /* "gmw/en-US" */
    name = name ? name + 1 : engine_voice;
    size_t len = strcspn(name, "+");                 /* "en-gb+f3": the variant aside */
    static const char *const mbrola_english[] = { "mb-en1", "mb-us1", "mb-us2", "mb-us3", NULL };
    if (in_list_fold(name, len, mbrola_english) || equals_fold(name, len, "english"))
        return 1;
    if (len > 6 && equals_fold(name, 3, "mb-") && equals_fold(name + len - 3, 3, "-en"))
        return 1;   /* mb-de1-en: an MBROLA voice of another language speaking English */
    return len >= 2 && (name[0] == 'e' || name[0] == 'E') && (name[1] == 'n' || name[1] == 'N')
           && (len == 2 || name[2] == '-' || name[2] == '_');
}

/* en-gb and its accents (en-gb-scotland, en-gb-x-rp ...), whatever the variant. */
static int voice_is_british(const char *engine_voice)
{
    if (!engine_voice)
        return 0;
    const char *name = strrchr(engine_voice, '/');
    name = name ? name + 1 : engine_voice;
    return strlen(name) >= 5 && equals_fold(name, 2, "en") && (name[2] == '-' || name[2] == '_')
           && equals_fold(name + 3, 2, "gb");
}

re_status re_normalize_spans_for(const re_lexicon *lexicon, const char *text,
                                 const char *engine_voice, re_spoken *out)
{
    if (!out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!text || !text_valid(text, strlen(text)))
        return RE_ERR_INVALID;
    normalizer n = { .lexicon = lexicon, .text = text, .len = strlen(text), .sentence_start = 1,
                     .current = SIZE_MAX, .english = re_normalize_voice_is_english(engine_voice),
                     .british = voice_is_british(engine_voice) };
    cut(&n);
    say_all(&n);
    re_status status = n.nomem ? RE_ERR_NOMEM : re_join_pieces(&n, out);
    if (status == RE_OK)
        status = keep_decisions(&n, out);
    free(n.decisions);
    free(n.chunks);
    free(n.arena);
    free(n.pieces);
    return status;
}

re_status re_normalize_spans(const re_lexicon *lexicon, const char *text, re_spoken *out)
{
    return re_normalize_spans_for(lexicon, text, NULL, out);
}

void re_spoken_free(re_spoken *spoken)
{
    if (!spoken)
        return;
    free(spoken->text);
    free(spoken->spans);
    free(spoken->decisions);
    memset(spoken, 0, sizeof *spoken);
}

re_status re_normalize(const re_lexicon *lexicon, const char *text, char **spoken,
                       unsigned *text_flags)
{
    re_spoken result;
    if (!spoken || !text_flags)
        return RE_ERR_INVALID;
    *spoken = NULL;
    *text_flags = RE_TEXT_PLAIN;
    re_status status = re_normalize_spans(lexicon, text, &result);
    if (status != RE_OK)
        return status;
    *spoken = result.text;
    *text_flags = result.text_flags;
    free(result.spans);
    free(result.decisions);
    return RE_OK;
}
