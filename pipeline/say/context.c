/* SPDX-License-Identifier: GPL-3.0-or-later */
/* context.c - a word in its sentence: its marks (brackets, quotes, emphasis, punctuation,
 * emoji) apart from its core, an abbreviation said without its full stop, and what each word
 * tells the next (a reference word before a number, a number before its unit, a sentence's
 * end). */
#include "normalize_internal.h"

#include <string.h>

#include "sentences.h"
#include "utf8.h"

static const char *const opening_marks[] = {
    "(", "[", "{", "\"", "'", "`", "*", "\xE2\x80\x9C", "\xE2\x80\x98", "\xC2\xAB", NULL,
};
static const char *const closing_marks[] = {
    ")", "]", "}", "\"", "'", "`", "*", ",", ";", ":", "!", "?", ".", "\xE2\x80\x9D",
    "\xE2\x80\x99", "\xC2\xBB", "\xE2\x80\xA6", NULL,
};

/* Length of the mark of `marks` that s[0..len) starts with (at_end: ends with), or 0. */
static size_t mark_length(const char *s, size_t len, const char *const *marks, int at_end)
{
    for (; *marks; marks++) {
        size_t m = strlen(*marks);
        if (m <= len && memcmp(at_end ? s + len - m : s, *marks, m) == 0)
            return m;
    }
    return 0;
}

/* The length of the emoji that ends s[0..len), 0 when none does. */
static size_t emoji_before(const char *s, size_t len)
{
    for (size_t back = 1; back <= len && back <= 32; back++)
        if (((unsigned char)s[len - back] & 0xC0) != 0x80
            && re_utf8_emoji_length(s + len - back, s + len) == back)
            return back;
    return 0;
}

void re_split_word(const char *s, size_t len, size_t *open, size_t *close)
{
    size_t o = 0, c = 0, m;
    while ((m = mark_length(s + o, len - o, opening_marks, 0))
           || (m = re_utf8_emoji_length(s + o, s + len)))
        o += m;
    while (o + c < len && ((m = mark_length(s + o, len - o - c, closing_marks, 1))
                           || (m = emoji_before(s + o, len - o - c))))
        c += m;
    *open = o;
    *close = c;
}

/* Says marks around a word: emphasis and code marks (* `) are dropped when the word has a
 * core; a run of three or more dots, or of dots and ellipses, becomes one "…". */
static void say_marks(normalizer *n, const char *s, size_t len, int has_core)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i, dots = 0, ellipses = 0;
        while (j < len && dot_or_ellipsis(s + j, len - j)) {
            dots += s[j] == '.';
            ellipses += s[j] != '.';
            j += s[j] == '.' ? 1 : 3;
        }
        if (ellipses || dots >= 3) {
            re_says(n, "\xE2\x80\xA6");
        } else if (j > i) {
            re_say(n, s + i, j - i);
        } else {
            if (!has_core || (s[i] != '*' && s[i] != '`'))
                re_say(n, s + i, 1);
            j = i + 1;
        }
        i = j;
    }
}

static void chunk_core(const normalizer *n, size_t index, const char **s, size_t *len)
{
    const chunk *c = &n->chunks[index];
    size_t open, close;
    *s = n->text + c->start;
    *len = c->end - c->start;
    if (c->is_match)
        return;
    re_split_word(*s, *len, &open, &close);
    *s += open;
    *len -= open + close;
}

void re_word_ahead(const normalizer *n, size_t k, const char **s, size_t *len)
{
    *s = NULL;
    *len = 0;
    if (n->chunk_index + k < n->chunk_count)
        chunk_core(n, n->chunk_index + k, s, len);
}

void re_next_core(const normalizer *n, const char **s, size_t *len)
{
    re_word_ahead(n, 1, s, len);
}

/* What this word tells the next: a reference word makes the next number a reference, and
 * a list or range of them goes on ("1001, 1002 and 1003", "1001 through 1003"); a number
 * may have its unit next; a sentence may end. */
static void remember_word(normalizer *n, const char *core, size_t len, const char *close,
                          size_t close_len)
{
    static const char *const reference_words[] = {
        "pr", "prs", "issue", "issues", "bug", "bugs", "ticket", "tickets", "commit", "commits",
        "pep", "peps", "rfc", "rfcs", "kep", "keps", NULL,
    };
    static const char *const connectors[] = {
        "and", "or", "through", "thru", "to", "&", "-", "\xE2\x80\x93", NULL,
    };
    int sentence_end = 0;
    for (size_t i = 0; i < close_len; i++)
        sentence_end |= close[i] == '.' || close[i] == '!' || close[i] == '?'
                        || (unsigned char)close[i] == 0xE2;   /* … */
    const char *last = core;   /* the last word of a multi-word lexicon match */
    for (size_t i = 0; i < len; i++)
        if (core[i] == ' ')
            last = core + i + 1;
    size_t last_len = (size_t)(core + len - last);
    int comma = close_len > 0 && close[0] == ',';
    int connector = n->after_reference && in_list_fold(core, len, connectors);
    n->reference = in_list_fold(last, last_len, reference_words)
                   || (n->pull && (equals_fold(last, last_len, "request")
                                   || equals_fold(last, last_len, "requests")))
                   || equals_fold(core, len, "pull request") || equals_fold(core, len, "pull requests")
                   || (n->said_reference && comma) || connector;
    n->after_reference = n->said_reference && close_len == 0;
    n->after_rule_code = (n->said_rule_code && !sentence_end)
                         || (n->after_rule_code && in_list_fold(core, len, connectors));
    if (sentence_end)
        n->reference = n->after_reference = 0;
    n->pull = equals_fold(last, last_len, "pull");
    n->after_commit = !sentence_end && close_len == 0 && (equals_fold(last, last_len, "commit")
                                                          || equals_fold(last, last_len, "commits"));
    n->after_number = close_len == 0 && re_is_plain_number(core, len) ? 1 + equals(core, len, "1") : 0;
    n->previous = core;
    n->previous_len = len;
    n->previous_started_sentence = n->sentence_start;
    n->previous_bare = close_len == 0;
    n->sentence_start = sentence_end;
}

/* An abbreviation with its full stop (sentences.h) before another word: said without the
 * stop, which espeak-ng would take for the end of a clause before a capital ("Dr. Smith" is
 * "doctor", a pause, "Smith"), and said in words where the engine would spell it ("vs." is
 * "V S", "e.g." before a capital "E G"). Its other closing marks are said. 0 when s is not one. */
static int say_abbreviation(normalizer *n, const char *core, size_t core_len, size_t close)
{
    static const char *const readings[][2] = {
        { "vs", "versus" }, { "e.g", "for example" }, { "i.e", "that is" }, { "cf", "compare" },
        { "approx", "approximately" }, { "jr", "junior" }, { "sr", "senior" },
        { "lt", "lieutenant" }, { "prof", "professor" }, { "no", "number" },
        { "ltd", "limited" }, { "ph.d", "P.H.D" }, { "fig", "figure" }, { "figs", "figures" },
        { "vol", "volume" }, { "ch", "chapter" }, { "jan", "January" }, { "feb", "February" },
        { "mar", "March" }, { "apr", "April" }, { "jun", "June" }, { "jul", "July" },
        { "aug", "August" }, { "sep", "September" }, { "sept", "September" },
        { "oct", "October" }, { "nov", "November" }, { "dec", "December" },
    };
    const char *next, *stop = core + core_len;
    size_t next_len;
    re_next_core(n, &next, &next_len);
    if (close == 0 || *stop != '.' || (close > 1 && stop[1] == '.') || next_len == 0
        || !re_is_abbreviation(n->previous, n->previous_len, core, core_len, next))
        return 0;
    const char *reading = NULL;
    for (size_t i = 0; i < sizeof readings / sizeof readings[0] && !reading; i++)
        if (equals_fold(core, core_len, readings[i][0]))
            reading = readings[i][1];
    int initial = core_len == 1 && re_is_upper(core[0]);
    re_decide(n, core, core_len + 1,
              initial   ? "initial: its full stop ends no sentence"
              : reading ? "abbreviation: in words, its full stop ends no sentence"
                     : "abbreviation: its full stop ends no sentence");
    if (reading)
        re_says(n, reading);
    else
        re_say(n, core, core_len);
    say_marks(n, stop + 1, close - 1, 1);
    return 1;
}

void re_say_chunk(normalizer *n, size_t index)
{
    const chunk *c = &n->chunks[index];
    const char *s = n->text + c->start;
    size_t len = c->end - c->start, open, close;
    n->chunk_index = index;
    n->source = c->start;
    n->source_length = len;
    n->said_reference = 0;
    n->said_rule_code = 0;
    if (c->is_match) {
        re_decide(n, s, len, "lexicon entry");
        re_say_replacement(n, &c->hit);
        remember_word(n, s, len, "", 0);
        n->after_number = 0;
        return;
    }
    for (size_t i = 0, e; i < len; i += e ? e : char_length((unsigned char)s[i]))
        if ((e = re_utf8_emoji_length(s + i, s + len)))
            re_decide(n, s + i, e, "emoji: not spoken");   /* join leaves it out */
    if (!n->english) {   /* another language: its voice reads the text its own way */
        re_say(n, s, len);
        return;
    }
    re_split_word(s, len, &open, &close);
    const char *core = s + open;
    size_t core_len = len - open - close, call = 0;
    if (close >= 2 && core_len > 0 && memcmp(core + core_len, ".*", 2) == 0
        && re_is_requirement(core, core_len + 2)) {
        core_len += 2;   /* "!=3.11.*": a wildcard, not a full stop and emphasis */
        close -= 2;
    }
    say_marks(n, s, open, core_len > 0);
    if (core_len > 1 && core[core_len - 1] == '(' && close > 0 && core[core_len] == ')')
        call = 1;   /* foo() -> foo */
    if (say_abbreviation(n, core, core_len, close)) {
        remember_word(n, core, core_len, "", 0);
        return;
    }
    if (core_len > 1 && core[0] == '~' && re_is_digit(core[1]) && !re_is_requirement(core, core_len)) {
        re_says(n, "about ");
        re_say_core(n, core + 1, core_len - 1 - call);
    } else {
        re_say_core(n, core, core_len - call);
    }
    say_marks(n, core + core_len + call, close - call, core_len > 0);
    remember_word(n, core, core_len, core + core_len, close);
}
