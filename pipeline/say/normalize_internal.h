/* SPDX-License-Identifier: GPL-3.0-or-later */
/* normalize_internal.h - what the normalizer's files share and nobody else sees: the
 * normalizer and its pieces, the small text tests every rule uses, and each file's calls.
 *
 * A rule (re_say_url, re_say_number, ...) takes one word's core, s[0..len): it returns 1 when it has
 * said it, 0 when it does not apply; a rule that returns 0 may have said something, which
 * re_say_core rolls back. */
#ifndef RE_NORMALIZE_INTERNAL_H
#define RE_NORMALIZE_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "normalize.h"
#include "text.h"

/* ---- the normalizer and its pieces ------------------------------------------------------- */

typedef enum piece_kind { PIECE_TEXT, PIECE_LEXICON, PIECE_SPACE } piece_kind;

typedef struct piece {
    piece_kind kind;
    size_t offset, length;          /* TEXT: bytes in the arena */
    re_lexicon_hit hit;             /* LEXICON: the replacement (strings in the lexicon) */
    size_t source, source_length;   /* the bytes of the original text it says */
} piece;

typedef struct chunk {
    int is_match;                   /* a lexicon match, else a run of non-blanks */
    re_lexicon_hit hit;
    size_t start, end;
    size_t blanks;                  /* where the blanks before it start (== start: none) */
} chunk;

typedef struct decision {
    size_t offset, length;          /* the word or part of the original text */
    const char *what;               /* static text; NULL: withdrawn */
} decision;

typedef struct normalizer {
    const re_lexicon *lexicon;
    const char *text;
    size_t len;
    chunk *chunks;
    size_t chunk_count, chunk_capacity;
    char *arena;
    size_t arena_len, arena_capacity;
    piece *pieces;
    size_t piece_count, piece_capacity;
    decision *decisions;            /* what was decided for each word taken by a rule */
    size_t decision_count, decision_capacity;
    size_t current;                 /* the decision of the rule being tried, or SIZE_MAX */
    int english;                    /* the rules apply (an English voice), else the lexicon only */
    int british;                    /* a British voice: "the 30th of November 2026" */
    int nomem;
    size_t source, source_length;   /* what the pieces being said stand for */
    /* What the words before this one tell about it. */
    int reference;                  /* this word may be a reference number */
    int after_reference;            /* the word before was one (a range or list may go on) */
    int pull;                       /* the word before was "pull" (of "pull request") */
    int after_commit;               /* the word before was "commit" or "commits" */
    int said_reference;             /* this word was read as a reference number */
    int said_rule_code;             /* this word was read as a lint rule code */
    int after_rule_code;            /* the word before was one (a list of them may go on) */
    int after_number;               /* the word before was a number: 1, or 2 when it was "1" */
    int sentence_start;             /* this word starts a sentence */
    const char *previous;           /* the word before (core), for versions after a name */
    size_t previous_len;
    int previous_started_sentence;
    int previous_bare;              /* the word before had no closing marks ("May,")*/
    size_t chunk_index;
} normalizer;

/* A point to come back to when a rule turns out not to apply. */
typedef struct mark {
    size_t piece_count, arena_len, last_length, decision_count;
} mark;

/* ---- small text tests -------------------------------------------------------------------- */

static inline char upper(char c) { return re_is_lower(c) ? (char)(c - 'a' + 'A') : c; }

/* How many of s[0..len)'s first characters pass test. */
static inline size_t leading(const char *s, size_t len, int (*test)(char))
{
    size_t i = 0;
    while (i < len && test(s[i]))
        i++;
    return i;
}

static inline int all_of(const char *s, size_t len, int (*test)(char))
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!test(s[i]))
            return 0;
    return 1;
}

static inline int is_ascii(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

static inline int equals(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

static inline int equals_fold(const char *s, size_t len, const char *lower_word)
{
    if (strlen(lower_word) != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = re_is_upper(s[i]) ? (char)(s[i] + 32) : s[i];
        if (c != lower_word[i])
            return 0;
    }
    return 1;
}

static inline int in_list(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (equals(s, len, *list))
            return 1;
    return 0;
}

static inline int in_list_fold(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (equals_fold(s, len, *list))
            return 1;
    return 0;
}

static inline size_t find(const char *s, size_t len, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= len; i++)
        if (memcmp(s + i, needle, m) == 0)
            return i;
    return len;
}

/* 1 when s[0..len) starts with a dot or an ellipsis character (…). */
static inline int dot_or_ellipsis(const char *s, size_t len)
{
    return s[0] == '.' || (len >= 3 && memcmp(s, "\xE2\x80\xA6", 3) == 0);
}

static inline size_t char_length(unsigned char lead)
{
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

/* ---- pieces.c: what is said, piece by piece ---------------------------------------------- */

/* Makes room for `need` items of `size` bytes in the array whose pointer is at
 * array_pointer (a T **, passed as void * so that one function serves every T). */
int re_grow_array(void *array_pointer, size_t *capacity, size_t size, size_t need);

/* A new piece of `kind` for the source being said; NULL (n->nomem set) when out of memory. */
piece *re_new_piece(normalizer *n, piece_kind kind);

/* Says s[0..len) as text: appended to the last piece when that one says the same source. */
void re_say(normalizer *n, const char *s, size_t len);

/* re_say() of a C string. */
void re_says(normalizer *n, const char *s);

/* Says a lexicon entry's replacement (a piece of its own, joined with a space where needed). */
void re_say_replacement(normalizer *n, const re_lexicon_hit *hit);

/* Where the pieces and decisions stand now; re_rollback(n, m) forgets all said since then. */
mark re_mark_here(const normalizer *n);
void re_rollback(normalizer *n, mark m);

/* Records what was decided for s[0..len) (a part of the text); returns its index, or SIZE_MAX
 * (out of memory, or s is not in the text). */
size_t re_decide(normalizer *n, const char *s, size_t len, const char *what);

/* Says more exactly what the rule being tried decided (NULL: nothing worth showing). */
void re_detail(normalizer *n, const char *what);

/* 1 when what was said since m is exactly s[0..len) as text. */
int re_said_as_is(const normalizer *n, mark m, const char *s, size_t len);

/* "189759" -> "one eight nine seven five nine". */
void re_say_digits(normalizer *n, const char *s, size_t len);

/* Letters as dotted capitals, which the engine always spells: "RMA" -> "R.M.A", "rc" ->
 * "R.C". */
void re_say_letters(normalizer *n, const char *s, size_t len);

/* Letters and digits one by one: "12d655d" -> "one two D six five five D", "A2945B" -> "eh
 * two nine four five B". Letters side by side are dotted (D.E), the form the engine always
 * spells; a lone "a" is "eh", since the engine reads a lone "A" as the article. */
void re_say_characters(normalizer *n, const char *s, size_t len);

/* ---- acronyms.c: words in capitals ------------------------------------------------------- */

/* Says an acronym ("NCCL" -> "N.C.C.L", "PRs" -> "P.R.'s") or records why a word in capitals is
 * said as written (HEAD). Returns 0 when the word is said as written (nothing was said). */
int re_say_acronym(normalizer *n, const char *s, size_t len, int constant);

/* ---- numbers.c: numbers, versions, references and units ---------------------------------- */

/* v2.1.0, 2.1.0, 2.1.0-rc1, 3.25.0-3+deb12u1, v2. */
int re_say_version(normalizer *n, const char *s, size_t len);

/* Numbers with a unit or a multiplier attached: 3.5ms, 2x, 1920x1080, 100k; and short
 * versions after a product name. Plain numbers are left to the engine. */
int re_say_number(normalizer *n, const char *s, size_t len);

/* A unit written apart from the number before it: "3.5 ms", "1 ms". */
int re_say_unit(normalizer *n, const char *s, size_t len);

/* Reference numbers: "#120345", and numbers after a reference word; "1001-1003" ranges. */
int re_say_reference(normalizer *n, const char *s, size_t len);

/* "rust-lang/rust#124165" -> "rust-lang/rust number one two four one six five". */
int re_say_repository_reference(normalizer *n, const char *s, size_t len);

/* A code of a few letters and five or more digits (D157341, T12345) is an identifier, read
 * digit by digit; shorter ones are model names the engine says as people do (H100). So is a
 * name in lower case with a number of four digits or more (lib1560, a test's name: the
 * engine says "lib one thousand five hundred sixty"), unless the four are a year (vs2022). */
int re_say_code(normalizer *n, const char *s, size_t len);

/* Ticket keys and the like: "CVE-2024-3094" -> "C.V.E 2024 three zero nine four",
 * "UTF-8" -> "U.T.F 8", "TEMP-0000000-A2945B" -> "TEMP zero ... zero eh two nine four
 * five B". A year inside stays a year. */
int re_say_ticket(normalizer *n, const char *s, size_t len);

/* Digits of a reference: one by one from three ("189759" -> "one eight nine ..."). */
void re_say_reference_number(normalizer *n, const char *s, size_t len);

/* 1 when s[0..len) is digits with at most one decimal part, and nothing else. */
int re_is_plain_number(const char *s, size_t len);

/* ---- dates.c: dates and times ---------------------------------------------------------- */

/* "2026-11-30" -> "November 30th, 2026" (a British voice: "the 30th of November 2026"),
 * "2026-11" -> "November 2026", "2026-03-02..2026-03-13" -> "March 2nd to March 13th, 2026",
 * "2026-11-30T09:00:00Z" -> "November 30th, 2026, 9 AM UTC". Only real days (not 2026-02-30). */
int re_say_date_time(normalizer *n, const char *s, size_t len);

/* A time of day: "14:00" -> "2 PM", "09:30" -> "9:30 AM", "00:00" -> "midnight",
 * "17:45+01:00" -> "5:45 PM, UTC plus 1", "16:21:42" -> "4:21 PM and 42 seconds"; "9:05"
 * before AM or PM -> "9 oh 5", a one-digit hour only there or before a zone (UTC, CET ...). */
int re_say_time(normalizer *n, const char *s, size_t len);

/* A dash (or "..") between two dates: "to". */
int re_say_date_dash(normalizer *n, const char *s, size_t len);

/* A month written short beside a day or a year ("Nov 30th", "30 Nov 2026", "Sep 2026"): in
 * full. */
int re_say_month(normalizer *n, const char *s, size_t len);

/* A day after a month's name: "November 30" -> "November 30th" (not "June 3 PM"). */
int re_say_day(normalizer *n, const char *s, size_t len);

/* "2.1.0" -> "2 point 1 point 0", "12.04" -> "12 point zero four". */
void re_say_version_number(normalizer *n, const char *s, size_t len);

/* A version's suffix with its separators said: "-rc1" -> " dash R.C 1", "b1" -> " b 1". */
void re_say_version_suffix(normalizer *n, const char *s, size_t len);

/* ---- amounts.c: requirements, durations, money, merge requests, rule codes --------------- */

/* 1 when s[0..len) is a requirement: comparisons of versions, after a name or not
 * (">=3.9,<3.13", "torch==2.1.0", "^1.2.0", "~1.2.0", "!=3.11.*"). */
int re_is_requirement(const char *s, size_t len);

/* ">=3.9,<3.13" -> "3 point 9 or later, before 3 point 13"; "torch==2.1.0" -> "torch exactly
 * 2 point 1 point 0"; "^1.2.0" -> "1 point 2 point 0 or a compatible later version". */
int re_say_requirement(normalizer *n, const char *s, size_t len);

/* Durations of two or more units, each smaller: "1h30m" -> "1 hour 30 minutes". */
int re_say_duration(normalizer *n, const char *s, size_t len);

/* "$4.99" -> "4 dollars 99 cents", "$1.2M" -> "1.2 million dollars", "€10,000" -> "10,000
 * euros", "£5" -> "5 pounds", "¥100" -> "100 yen". "$1", "$120" (a shell's parameter, an
 * assembler's immediate) are not money. */
int re_say_money(normalizer *n, const char *s, size_t len);

/* GitLab merge requests: "!456" -> "merge request four five six", "group/project!456" ->
 * "group slash project merge request four five six". */
int re_say_merge_request(normalizer *n, const char *s, size_t len);

/* Lint rule codes: "RUF012" -> "R.U.F zero one two"; a single letter ("E501") where the
 * words around say it is a rule ("(E501)", "rule E501", a list of them) or it has a leading
 * zero ("B006"). */
int re_say_rule_code(normalizer *n, const char *s, size_t len);

/* GitHub advisory IDs, each part's characters one by one: "GHSA-pjjw-68hj-v9mw" ->
 * "G.H.S.A P.J.J.W six eight H.J V nine M.W". */
int re_say_advisory(normalizer *n, const char *s, size_t len);

/* ---- hashes.c: hashes -------------------------------------------------------------------- */

/* A commit or object hash: 7 or more characters 0-9 a-f (an abbreviated commit, a SHA-1 of
 * 40, a SHA-256 of 64, a SHA-512 of 128), at least one a digit and one a letter. */
int re_is_hash(const char *s, size_t len);

/* A hash's first 7 characters one by one, whatever its length: a listener tells hashes
 * apart by their start, and 64 characters one by one take about 25 s. */
void re_say_hash_start(normalizer *n, const char *s);

/* A hash, alone or after its algorithm ("sha256:..." -> "S.H.A 256 E three B zero C four
 * four"); after "commit", 7 or more digits are a hash too (a commit named by digits only,
 * "commit 995151807658"). */
int re_say_hash(normalizer *n, const char *s, size_t len);

/* ---- urls.c: URLs, paths and file names -------------------------------------------------- */

/* Whether s[0..len) is a URL ("scheme://host..." or "www.host..."): 1 with its host (no
 * user, no "www.") at s[*host..*end), else 0. */
int re_url_host(const char *s, size_t len, size_t *host_start, size_t *host_end);

/* https://github.com/pytorch/pytorch/pull/1 -> "github dot com pull request 1";
 * https://example.org/a/b -> "example dot org". A name of the host that the lexicon has is
 * said as it says ("nginx dot org" with nginx = engine X): the lexicon names the site, the
 * URL rule reads the URL (the text is cut so that no entry matches inside a URL). */
int re_say_url(normalizer *n, const char *s, size_t len);

/* File names (render.c -> "render dot C", .md -> "dot M.D") and dotted identifiers with a
 * part to rewrite (torch.nn.AOTModule). Abbreviations (e.g, U.S, Ph.D) are left alone: some
 * part must have 3 letters. */
int re_say_dotted(normalizer *n, const char *s, size_t len);

/* src/main.py -> "src slash main dot pie", /usr/lib -> "slash usr slash lib"; other
 * slashes (CI/CD, and/or) keep their slash and have their parts said. */
int re_say_slashed(normalizer *n, const char *s, size_t len);

/* ---- identifiers.c: identifiers, options and operators ----------------------------------- */

/* Splits s at every `separator` and says the parts joined by `joiner`. */
void re_say_split(normalizer *n, const char *s, size_t len, const char *separator,
                  const char *joiner);

/* C++, C#, ->, =>, ::, &&, ||. */
int re_say_operator(normalizer *n, const char *s, size_t len);

/* Command-line options with their dashes, as people read them out: "--silent" -> "dash dash
 * silent", "-v" -> "dash v", "--jobs=4" -> "dash dash jobs equals 4". */
int re_say_option(normalizer *n, const char *s, size_t len);

/* Identifiers: snake_case and CamelCase parts, acronyms, plurals and possessives. */
int re_say_word(normalizer *n, const char *s, size_t len);

/* Hyphenated words: parts said apart when one of them needs it (2-GPU -> "2 G.P.U",
 * swap-A-B -> "swap A.B"); all-digit ones (dates) and plain words are left alone. */
int re_say_compound(normalizer *n, const char *s, size_t len);

/* "wait...what" -> "wait… what". */
int re_say_inner_ellipsis(normalizer *n, const char *s, size_t len);

/* ---- context.c: a word in its sentence --------------------------------------------------- */

/* A word's opening and closing marks: brackets, quotes, emphasis, sentence punctuation, and
 * emoji (which are not said). */
void re_split_word(const char *s, size_t len, size_t *open, size_t *close);

/* The core of the word after the one being said, or NULL at the end. */
void re_next_core(const normalizer *n, const char **s, size_t *len);

/* The core of the k-th word after the one being said (1: the next), or NULL. */
void re_word_ahead(const normalizer *n, size_t k, const char **s, size_t *len);

/* Says chunk `index` (a lexicon match, or a word with its marks) and remembers what it tells
 * the next word. */
void re_say_chunk(normalizer *n, size_t index);

/* ---- join.c: the spoken text ------------------------------------------------------------- */

/* Joins the pieces into the spoken text and its spans. */
re_status re_join_pieces(const normalizer *n, re_spoken *out);

/* ---- normalize.c: the rules in order ----------------------------------------------------- */

/* Tries each rule in turn, recording the one that takes the word; what no rule takes is
 * said as written (and, for capitals, why). */
void re_say_core(normalizer *n, const char *s, size_t len);

#endif
