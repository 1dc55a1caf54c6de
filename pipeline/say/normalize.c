/* SPDX-License-Identifier: GPL-3.0-or-later */
/* normalize.c - technical-text normalization (see normalize.h for the rules).
 *
 * Three steps. The text is cut into chunks: lexicon matches, and the runs of non-blanks
 * between them. Each chunk is said as pieces (text written by a rule, or a lexicon
 * replacement), word by word, with a little context from the words around it (a reference
 * word before a number, a number before a unit). Then the pieces are joined into the spoken
 * text: a space where a replacement would run into a word, and, when phonemes are in play,
 * brackets from the script split so that they cannot form [[ or ]]. */
#include "normalize.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "sentences.h"
#include "text.h"
#include "utf8.h"
#include "words.h"

/* ---- output pieces ------------------------------------------------------------------ */

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
    int nomem;
    size_t source, source_length;   /* what the pieces being said stand for */
    /* What the words before this one tell about it. */
    int reference;                  /* this word may be a reference number */
    int after_reference;            /* the word before was one (a range or list may go on) */
    int pull;                       /* the word before was "pull" (of "pull request") */
    int after_commit;               /* the word before was "commit" or "commits" */
    int said_reference;             /* this word was read as a reference number */
    int after_number;               /* the word before was a number: 1, or 2 when it was "1" */
    int sentence_start;             /* this word starts a sentence */
    const char *previous;           /* the word before (core), for versions after a name */
    size_t previous_len;
    int previous_started_sentence;
    size_t chunk_index;
} normalizer;

/* A point to come back to when a rule turns out not to apply. */
typedef struct mark {
    size_t piece_count, arena_len, last_length, decision_count;
} mark;

/* Makes room for `need` items of `size` bytes in the array whose pointer is at
 * array_pointer (a T **, passed as void * so that one function serves every T). */
static int grow(void *array_pointer, size_t *capacity, size_t size, size_t need)
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

static piece *new_piece(normalizer *n, piece_kind kind)
{
    if (n->nomem || !grow(&n->pieces, &n->piece_capacity, sizeof *n->pieces,
                          n->piece_count + 1)) {
        n->nomem = 1;
        return NULL;
    }
    piece *p = &n->pieces[n->piece_count++];
    *p = (piece){ .kind = kind, .offset = n->arena_len, .source = n->source,
                  .source_length = n->source_length };
    return p;
}

/* Says s[0..len) as text: appended to the last piece when that one says the same source. */
static void say(normalizer *n, const char *s, size_t len)
{
    if (len == 0 || n->nomem)
        return;
    if (!grow(&n->arena, &n->arena_capacity, 1, n->arena_len + len)) {
        n->nomem = 1;
        return;
    }
    piece *last = n->piece_count ? &n->pieces[n->piece_count - 1] : NULL;
    if (!last || last->kind != PIECE_TEXT || last->source != n->source
        || last->source_length != n->source_length)
        last = new_piece(n, PIECE_TEXT);
    if (!last)
        return;
    memcpy(n->arena + n->arena_len, s, len);
    n->arena_len += len;
    last->length += len;
}

static void says(normalizer *n, const char *s)
{
    say(n, s, strlen(s));
}

static void say_replacement(normalizer *n, const re_lexicon_hit *hit)
{
    piece *p = new_piece(n, PIECE_LEXICON);
    if (p)
        p->hit = *hit;
}

static mark mark_here(const normalizer *n)
{
    mark m = { n->piece_count, n->arena_len, 0, n->decision_count };
    if (n->piece_count)
        m.last_length = n->pieces[n->piece_count - 1].length;
    return m;
}

static void rollback(normalizer *n, mark m)
{
    n->piece_count = m.piece_count;
    n->arena_len = m.arena_len;
    n->decision_count = m.decision_count;
    if (n->piece_count)
        n->pieces[n->piece_count - 1].length = m.last_length;
}

/* Records what was decided for s[0..len) (a part of the text); returns its index, or SIZE_MAX
 * (out of memory, or s is not in the text). */
static size_t decide(normalizer *n, const char *s, size_t len, const char *what)
{
    if (n->nomem || s < n->text || s + len > n->text + n->len)
        return SIZE_MAX;
    if (!grow(&n->decisions, &n->decision_capacity, sizeof *n->decisions, n->decision_count + 1)) {
        n->nomem = 1;
        return SIZE_MAX;
    }
    n->decisions[n->decision_count] = (decision){ (size_t)(s - n->text), len, what };
    return n->decision_count++;
}

/* Says more exactly what the rule being tried decided (NULL: nothing worth showing). */
static void detail(normalizer *n, const char *what)
{
    if (n->current < n->decision_count)
        n->decisions[n->current].what = what;
}

/* 1 when what was said since m is exactly s[0..len) as text. */
static int said_as_is(const normalizer *n, mark m, const char *s, size_t len)
{
    for (size_t i = m.piece_count; i < n->piece_count; i++)
        if (n->pieces[i].kind != PIECE_TEXT)
            return 0;
    return n->arena_len - m.arena_len == len && memcmp(n->arena + m.arena_len, s, len) == 0;
}

/* ---- characters and words ----------------------------------------------------------- */

static char upper(char c) { return re_is_lower(c) ? (char)(c - 'a' + 'A') : c; }

/* How many of s[0..len)'s first characters pass test. */
static size_t leading(const char *s, size_t len, int (*test)(char))
{
    size_t i = 0;
    while (i < len && test(s[i]))
        i++;
    return i;
}

static int all_of(const char *s, size_t len, int (*test)(char))
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!test(s[i]))
            return 0;
    return 1;
}

static int is_ascii(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

static int equals(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(s, word, len) == 0;
}

static int equals_fold(const char *s, size_t len, const char *lower_word)
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

static int in_list(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (equals(s, len, *list))
            return 1;
    return 0;
}

static int in_list_fold(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (equals_fold(s, len, *list))
            return 1;
    return 0;
}

static size_t find(const char *s, size_t len, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= len; i++)
        if (memcmp(s + i, needle, m) == 0)
            return i;
    return len;
}

static const char *const digit_names[] = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
};

/* "189759" -> "one eight nine seven five nine". */
static void say_digits(normalizer *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (i)
            says(n, " ");
        says(n, digit_names[s[i] - '0']);
    }
}

/* Capitals as dotted letters, which the engine always spells: "RMA" -> "R.M.A". */
static void say_letters(normalizer *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (i)
            says(n, ".");
        say(n, s + i, 1);
    }
}

/* ---- acronyms ----------------------------------------------------------------------- */

static const char *const roman_numerals[] = {
    "II", "III", "IV", "VI", "VII", "VIII", "IX", "XI", "XII", "XIII", "XIV", "XV", "XVI",
    "XVII", "XVIII", "XIX", "XX", NULL,
};

/* Consonant clusters an English word may start with. */
static const char *const onsets[] = {
    "BL", "BR", "CH", "CL", "CR", "DR", "FL", "FR", "GL", "GR", "KN", "PH", "PL", "PR", "SC",
    "SH", "SK", "SL", "SM", "SN", "SP", "ST", "SW", "TH", "TR", "TW", "WH", "WR", "QU", "SCH",
    "SCR", "SHR", "SPL", "SPR", "STR", "THR", "SQU", NULL,
};

static int is_vowel(char c)
{
    return strchr("AEIOUY", c) != NULL;
}

/* Whether a word in capitals could be read as an English word (WARNING, DEBUG) rather than
 * spelled (NVGEMM, HTTPS): it has a vowel, starts like an English word, and has no run of
 * four consonants or of one letter three times. */
static int pronounceable(const char *s, size_t len)
{
    size_t onset = 0, run = 0;
    while (onset < len && !is_vowel(s[onset]))
        onset++;
    if (onset == len || (onset > 1 && !in_list(s, onset, onsets)))
        return 0;
    for (size_t i = 0; i < len; i++) {
        run = is_vowel(s[i]) ? 0 : run + 1;
        if (run >= 4 || (i >= 2 && s[i] == s[i - 1] && s[i] == s[i - 2]))
            return 0;
    }
    return 1;
}

/* How a word in capitals (2 or more) is read. The dictionary decides first: a word of it,
 * in any case, is said as the engine says it (HEAD, FIND, NEWS), so the rules are never worse
 * than the engine on a word. Other capitals are spelled when there are 2-4 of them (NCCL,
 * TLS), or more that are not pronounceable (NVGEMM); in a constant (MAX_JOBS) a
 * pronounceable part of 3 or more is a word (INIT); longer pronounceable runs and runs of
 * more than 16 are left to the engine; Roman numerals stay. */
typedef enum caps_reading {
    CAPS_NONE,          /* not a run of capitals */
    CAPS_ROMAN,         /* as written: a Roman numeral */
    CAPS_WORD,          /* as written: a dictionary word */
    CAPS_PRONOUNCEABLE, /* as written: pronounceable, not in the dictionary */
    CAPS_SPELLED,       /* letter by letter */
} caps_reading;

static caps_reading read_caps(const char *s, size_t len, int constant)
{
    if (len < 2 || !all_of(s, len, re_is_upper))
        return CAPS_NONE;
    if (in_list(s, len, roman_numerals))
        return CAPS_ROMAN;
    if (re_is_word(s, len))
        return CAPS_WORD;
    if (len > 16 || (len > 4 && pronounceable(s, len))
        || (constant && len >= 3 && pronounceable(s, len)))
        return CAPS_PRONOUNCEABLE;
    return CAPS_SPELLED;
}

static const char *caps_decision(caps_reading reading)
{
    switch (reading) {
    case CAPS_ROMAN: return "Roman numeral, as written";
    case CAPS_WORD: return "dictionary word, as the engine says it";
    case CAPS_PRONOUNCEABLE: return "capitals, not in the dictionary but pronounceable: as written";
    case CAPS_SPELLED: return "capitals, not in the dictionary: spelled";
    default: return NULL;
    }
}

/* Capitals that are no word, read as a run of dictionary words (3 letters or more) and short
 * acronyms (2-4 letters, spelled): OPENSSL -> OPEN SSL, CURLSSLBACKEND -> CURL SSL BACKEND,
 * CPPFLAGS -> CPP FLAGS. The cheapest reading wins: a word of 4 or more costs 2, of 3 costs 5
 * (short ones are often names or abbreviations), an acronym of 3 costs 5, of 4 costs 6, of 2
 * costs 7; so OPEN + SSL (7) beats OPENS + SL (9) and CURL KH MATCH beats CUR LKH MATCH.
 * Capitals the engine can say as a word (pronounceable) are cut only when they are 9 or more
 * and all words (GETPEERNAME, not GOAWAY); others need a word of 4 or more (not MB ED TLS).
 * Those others may also start with one letter, said alone, when a word of 4 or more follows
 * it: FTRUNCATE -> F TRUNCATE, FDATASYNC -> F DATA SYNC (config macros: HAVE_FTRUNCATE); the
 * letter costs 5, and is never A or I, which the engine would read as words ("a truncate").
 * Fills cuts[] with the end of each piece and returns how many, or 0 for no reading in pieces. */
#define CAPS_PIECES_MAX 24
#define CAPS_LETTER_COST 5
#define CAPS_SAYABLE_COST 4
static size_t caps_pieces(const char *s, size_t len, int sayable, size_t cuts[CAPS_PIECES_MAX])
{
    if (len < 5 || len > CAPS_PIECES_MAX || !all_of(s, len, re_is_upper) || re_is_word(s, len)
        || in_list(s, len, roman_numerals))
        return 0;
    int said_as_word = pronounceable(s, len);
    if (said_as_word && len < 9)
        return 0;
    /* best[i]: the least cost of reading s[0..i), from[i]: where its last piece starts;
     * long_word[i]: that reading has a word of 4 or more */
    unsigned best[CAPS_PIECES_MAX + 1];
    size_t from[CAPS_PIECES_MAX + 1];
    int long_word[CAPS_PIECES_MAX + 1];
    best[0] = 0;
    long_word[0] = 0;
    /* a first piece of one letter (CAPS_LETTER_COST), read on only by a word of 4 or more */
    int letter_first = !said_as_word && s[0] != 'A' && s[0] != 'I';
    for (size_t i = 1; i <= len; i++) {
        best[i] = i == 1 && letter_first ? CAPS_LETTER_COST : UINT32_MAX;
        from[i] = 0;
        long_word[i] = 0;
        for (size_t j = 0; j + 2 <= i; j++) {   /* pieces of 2 or more */
            size_t size = i - j;
            int word = size >= 3 && re_is_word(s + j, size);
            /* sayable: a piece of 4 or more the engine can pronounce reads like a word */
            int said = sayable && !word && size >= 4 && pronounceable(s + j, size);
            if (j == 1 && !((word || said) && size >= 4))
                continue;
            unsigned cost = said ? CAPS_SAYABLE_COST : word ? (size >= 4 ? 2 : 5)
                            : size <= 4 && !said_as_word ? (size == 3 ? 5 : size == 4 ? 6 : 7) : 0;
            if (cost && best[j] != UINT32_MAX && best[j] + cost < best[i]) {
                best[i] = best[j] + cost;
                from[i] = j;
                long_word[i] = long_word[j] || ((word || said) && size >= 4);
            }
        }
    }
    if (best[len] == UINT32_MAX || !long_word[len])
        return 0;
    size_t count = 0, ends[CAPS_PIECES_MAX];
    for (size_t i = len; i > 0; i = from[i])
        ends[count++] = i;
    if (count < 2)
        return 0;
    for (size_t k = 0; k < count; k++)
        cuts[k] = ends[count - 1 - k];
    return count;
}

/* Says capitals as their reading; returns 0 when they are said as written (and nothing was
 * said). Each reading is recorded. */
static int say_caps(normalizer *n, const char *s, size_t len, int constant)
{
    size_t cuts[CAPS_PIECES_MAX];
    size_t pieces = caps_pieces(s, len, 0, cuts);
    int sayable = 0;
    if (!pieces && constant && read_caps(s, len, constant) == CAPS_SPELLED) {
        /* A part of a constant that would be spelled whole (ADDRCONFIG of AI_ADDRCONFIG):
         * the pieces the engine can pronounce are read as words (ADDR CONFIG). */
        pieces = caps_pieces(s, len, 1, cuts);
        sayable = pieces > 0;
    }
    if (pieces) {
        decide(n, s, len, sayable ? "capitals, not in the dictionary: acronyms and "
                                    "pronounceable pieces"
                          : cuts[0] == 1 ? "capitals, not in the dictionary: a letter, then "
                                           "dictionary words and acronyms"
                                         : "capitals, not in the dictionary: dictionary words "
                                           "and acronyms");
        for (size_t k = 0, at = 0; k < pieces; at = cuts[k++]) {
            if (k)
                says(n, " ");
            if (!say_caps(n, s + at, cuts[k] - at, constant))
                say(n, s + at, cuts[k] - at);
        }
        return 1;
    }
    caps_reading reading = read_caps(s, len, constant);
    if (reading == CAPS_NONE)
        return 0;
    decide(n, s, len, caps_decision(reading));
    if (reading != CAPS_SPELLED)
        return 0;
    say_letters(n, s, len);
    return 1;
}

/* Says an acronym ("NCCL" -> "N.C.C.L", "PRs" -> "P.R.'s") or records why a word in capitals is
 * said as written (HEAD). Returns 0 when the word is said as written (nothing was said). */
static int say_acronym(normalizer *n, const char *s, size_t len, int constant)
{
    if (len >= 3 && s[len - 1] == 's' && all_of(s, len - 1, re_is_upper) && !re_is_word(s, len)) {
        /* not a word (HEADs, IDs are): 2-4 capitals are an acronym even when the dictionary
         * has them (PR, CPU), as their plural (PRs) is not in it; longer ones are read as
         * their singular is (OPENSSLs -> OPEN S.S.L's) */
        if (len - 1 > 4) {
            if (!say_caps(n, s, len - 1, constant))
                return 0;
            says(n, "'s");
            return 1;
        }
        if (read_caps(s, len - 1, constant) == CAPS_ROMAN)
            return 0;
        decide(n, s, len, "plural of capitals, not in the dictionary: spelled");
        say_letters(n, s, len - 1);
        says(n, ".'s");
        return 1;
    }
    return say_caps(n, s, len, constant);
}

/* ---- units -------------------------------------------------------------------------- */

enum { UNIT_ALONE = 1, UNIT_ATTACHED = 2, UNIT_BOTH = 3, UNIT_FRACTION = 4 };

static const struct unit {
    const char *abbreviation;
    const char *one, *many;
    int where;                  /* UNIT_ALONE: "3 ms"; UNIT_ATTACHED: "3ms" */
} units[] = {
    { "ms", "millisecond", "milliseconds", UNIT_BOTH },
    { "us", "microsecond", "microseconds", UNIT_ATTACHED },
    { "\xC2\xB5s", "microsecond", "microseconds", UNIT_BOTH },   /* micro sign */
    { "\xCE\xBCs", "microsecond", "microseconds", UNIT_BOTH },   /* Greek mu */
    { "ns", "nanosecond", "nanoseconds", UNIT_BOTH },
    { "s", "second", "seconds", UNIT_ALONE | UNIT_FRACTION },    /* "1990s" is a decade */
    { "sec", "second", "seconds", UNIT_BOTH },
    { "secs", "seconds", "seconds", UNIT_BOTH },
    { "min", "minute", "minutes", UNIT_BOTH },
    { "mins", "minutes", "minutes", UNIT_BOTH },
    { "h", "hour", "hours", UNIT_ATTACHED },
    { "hr", "hour", "hours", UNIT_BOTH },
    { "hrs", "hours", "hours", UNIT_BOTH },
    { "KB", "kilobyte", "kilobytes", UNIT_BOTH },
    { "kB", "kilobyte", "kilobytes", UNIT_BOTH },
    { "MB", "megabyte", "megabytes", UNIT_BOTH },
    { "GB", "gigabyte", "gigabytes", UNIT_BOTH },
    { "TB", "terabyte", "terabytes", UNIT_BOTH },
    { "PB", "petabyte", "petabytes", UNIT_BOTH },
    { "KiB", "kibibyte", "kibibytes", UNIT_BOTH },
    { "MiB", "mebibyte", "mebibytes", UNIT_BOTH },
    { "GiB", "gibibyte", "gibibytes", UNIT_BOTH },
    { "TiB", "tebibyte", "tebibytes", UNIT_BOTH },
    { "KB/s", "kilobyte per second", "kilobytes per second", UNIT_BOTH },
    { "MB/s", "megabyte per second", "megabytes per second", UNIT_BOTH },
    { "GB/s", "gigabyte per second", "gigabytes per second", UNIT_BOTH },
    { "TB/s", "terabyte per second", "terabytes per second", UNIT_BOTH },
    { "kbps", "kilobit per second", "kilobits per second", UNIT_BOTH },
    { "Mbps", "megabit per second", "megabits per second", UNIT_BOTH },
    { "Gbps", "gigabit per second", "gigabits per second", UNIT_BOTH },
    { "Hz", "hertz", "hertz", UNIT_BOTH },
    { "kHz", "kilohertz", "kilohertz", UNIT_BOTH },
    { "MHz", "megahertz", "megahertz", UNIT_BOTH },
    { "GHz", "gigahertz", "gigahertz", UNIT_BOTH },
    { "TFLOPS", "teraflops", "teraflops", UNIT_BOTH },
    { "GFLOPS", "gigaflops", "gigaflops", UNIT_BOTH },
    { "k", "thousand", "thousand", UNIT_ATTACHED },
    { "K", "thousand", "thousand", UNIT_ATTACHED },
    { "M", "million", "million", UNIT_ATTACHED },
};

static const struct unit *find_unit(const char *s, size_t len, int where)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if ((units[i].where & where) && equals(s, len, units[i].abbreviation))
            return &units[i];
    return NULL;
}

/* Words after a number that make it an amount, not a version ("1.25 million"). */
static const char *const amount_words[] = {
    "thousand", "million", "billion", "trillion", "percent", "%", "times", "x", "second",
    "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month",
    "months", "year", "years", "point", "points", "per", "dollars", "euros", "pounds",
    "degrees", "meters", "kilometers", "miles", "kg", "km", "m", "cm", "mm", "am", "pm", NULL,
};

/* ---- the rules, each on one word's core --------------------------------------------- */

static void say_core(normalizer *n, const char *s, size_t len);
static void say_characters(normalizer *n, const char *s, size_t len);
static size_t char_length(unsigned char lead);

/* A number: digits with at most one decimal part. */
static size_t number_length(const char *s, size_t len, int *fraction)
{
    size_t i = 0;
    *fraction = 0;
    while (i < len && re_is_digit(s[i]))
        i++;
    if (i > 0 && i + 1 < len && s[i] == '.' && re_is_digit(s[i + 1])) {
        *fraction = 1;
        for (i++; i < len && re_is_digit(s[i]); i++)
            ;
    }
    return i;
}

/* A version component: as a number, unless a leading zero or its length makes it a code. */
static void say_component(normalizer *n, const char *s, size_t len)
{
    if ((len > 1 && s[0] == '0') || len >= 5)
        say_digits(n, s, len);
    else
        say(n, s, len);
}

/* "2.1.0" -> "2 point 1 point 0", "12.04" -> "12 point zero four". */
static void say_version_number(normalizer *n, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && re_is_digit(s[j]))
            j++;
        if (i)
            says(n, " point ");
        say_component(n, s + i, j - i);
        i = j + 1;
    }
}

/* Its separators said: "-rc1" -> "dash R.C 1", "+cu121" -> "plus C.U 121", "-3" (a Debian
 * revision) -> "dash 3", "~rc1" -> "tilde R.C 1", "+deb12u1.1" -> "plus deb 12 u 1 point 1". */
static void say_version_suffix(normalizer *n, const char *s, size_t len)
{
    static const char *const spelled[] = { "rc", "cu", NULL };
    size_t i = 0;
    while (i < len) {
        size_t j = i + 1;
        if (s[i] == '+') {
            says(n, " plus");
        } else if (s[i] == '-') {
            says(n, " dash");
        } else if (s[i] == '~') {
            says(n, " tilde");
        } else if (s[i] == '.') {
            int decimal = i > 0 && re_is_digit(s[i - 1]) && j < len && re_is_digit(s[j]);
            says(n, decimal ? " point" : " dot");
        } else if (re_is_alnum(s[i])) {
            int alpha = re_is_letter(s[i]);
            while (j < len && (alpha ? re_is_letter(s[j]) : re_is_digit(s[j])))
                j++;
            says(n, " ");
            if (alpha && in_list_fold(s + i, j - i, spelled)) {
                for (size_t k = i; k < j; k++) {
                    char letter = upper(s[k]);
                    if (k > i)
                        says(n, ".");
                    say(n, &letter, 1);
                }
            } else {
                say(n, s + i, j - i);
            }
        }
        i = j;
    }
}

/* v2.1.0, 2.1.0, 2.1.0-rc1, 3.25.0-3+deb12u1, v2. */
static int say_version(normalizer *n, const char *s, size_t len)
{
    size_t start = s[0] == 'v' && len > 1 && re_is_digit(s[1]) ? 1 : 0;
    size_t i = start, dots = 0;
    while (i < len && (re_is_digit(s[i]) || (s[i] == '.' && i > start && i + 1 < len
                                          && re_is_digit(s[i + 1]) && re_is_digit(s[i - 1])))) {
        dots += s[i] == '.';
        i++;
    }
    if (i == start || (!start && dots < 2))
        return 0;
    if (i < len && s[i] != '-' && s[i] != '+' && s[i] != '~')
        return 0;
    for (size_t j = i; j < len; j++)
        if (!re_is_alnum(s[j]) && s[j] != '-' && s[j] != '+' && s[j] != '.' && s[j] != '~')
            return 0;
    if (start)
        says(n, "version ");
    say_version_number(n, s + start, i - start);
    say_version_suffix(n, s + i, len - i);
    return 1;
}

/* Whether the word before names a product, so that "3.12" after it is a version: a name
 * with capitals inside (PyTorch, CUDA), a capitalized word inside a sentence (Python), a
 * name with digits or a hyphen (espeak-ng), or "version", "release". */
static int names_a_product(const normalizer *n)
{
    static const char *const words[] = { "version", "release", "python", "rust", "node", NULL };
    const char *s = n->previous;
    size_t len = n->previous_len;
    if (!s || len == 0 || !is_ascii(s, len))
        return 0;
    if (in_list_fold(s, len, words))
        return 1;
    int letters = 0, inner_capital = 0, digit_or_hyphen = 0;
    for (size_t i = 0; i < len; i++) {
        letters += re_is_letter(s[i]);
        inner_capital |= i > 0 && re_is_upper(s[i]);
        digit_or_hyphen |= re_is_digit(s[i]) || s[i] == '-';
    }
    if (!letters)
        return 0;
    return inner_capital || digit_or_hyphen || (re_is_upper(s[0]) && !n->previous_started_sentence);
}

static void next_core(const normalizer *n, const char **s, size_t *len);

/* "Python 3.12" -> "3 point 12": two-part numbers whose decimals would be read digit by
 * digit, after a product name and not before an amount or unit. */
static int say_short_version(normalizer *n, const char *s, size_t len)
{
    size_t dot = find(s, len, ".");
    if (dot == len || len - dot - 1 < 2 || !names_a_product(n))
        return 0;
    const char *next;
    size_t next_len;
    next_core(n, &next, &next_len);
    if (next && (in_list_fold(next, next_len, amount_words) || find_unit(next, next_len, UNIT_BOTH)))
        return 0;
    say_version_number(n, s, len);
    return 1;
}

/* Numbers with a unit or a multiplier attached: 3.5ms, 2x, 1920x1080, 100k; and short
 * versions after a product name. Plain numbers are left to the engine. */
static int say_number(normalizer *n, const char *s, size_t len)
{
    int fraction;
    size_t number = number_length(s, len, &fraction);
    if (number == 0)
        return 0;
    const char *rest = s + number;
    size_t rest_len = len - number;
    if (rest_len == 0)
        return fraction && say_short_version(n, s, len);
    int times = equals(rest, rest_len, "x") || equals(rest, rest_len, "\xC3\x97");
    size_t by = rest[0] == 'x' ? 1 : (rest_len > 2 && memcmp(rest, "\xC3\x97", 2) == 0 ? 2 : 0);
    if (!times && by && all_of(rest + by, rest_len - by, re_is_digit) && !fraction) {
        say(n, s, number);
        says(n, " by ");
        say(n, rest + by, rest_len - by);
        return 1;
    }
    const struct unit *unit = times ? NULL : find_unit(rest, rest_len, UNIT_ATTACHED | UNIT_FRACTION);
    if (unit && !(unit->where & UNIT_ATTACHED) && !fraction)
        unit = NULL;
    if (!times && !unit)
        return 0;
    say(n, s, number);
    says(n, " ");
    says(n, times ? "times" : equals(s, number, "1") ? unit->one : unit->many);
    return 1;
}

/* A unit written apart from the number before it: "3.5 ms", "1 ms". */
static int say_unit(normalizer *n, const char *s, size_t len)
{
    const struct unit *unit = n->after_number ? find_unit(s, len, UNIT_ALONE) : NULL;
    if (!unit)
        return 0;
    says(n, n->after_number == 2 ? unit->one : unit->many);
    return 1;
}

/* Reference numbers: "#120345", and numbers after a reference word; "1001-1003" ranges. */
static int say_reference(normalizer *n, const char *s, size_t len)
{
    static const char *const dashes[] = { "-", "\xE2\x80\x93", "\xE2\x80\x94", NULL };
    int hash = s[0] == '#';
    size_t i = hash, a = i;
    while (i < len && re_is_digit(s[i]))
        i++;
    size_t a_len = i - a, b = i, b_len = 0;
    if (a_len == 0 || (!hash && !n->reference))
        return 0;
    if (i < len) {
        size_t dash = 0;
        for (const char *const *d = dashes; *d && !dash; d++)
            if (len - i > strlen(*d) && memcmp(s + i, *d, strlen(*d)) == 0)
                dash = strlen(*d);
        b = i + dash + (i + dash < len && s[i + dash] == '#');
        b_len = len - b;
        if (!dash || !all_of(s + b, b_len, re_is_digit))
            return 0;
    }
    if (!n->reference)
        says(n, "number ");
    if (a_len >= 3)
        say_digits(n, s + a, a_len);
    else
        say(n, s + a, a_len);
    if (b_len) {
        says(n, " through ");
        if (b_len >= 3)
            say_digits(n, s + b, b_len);
        else
            say(n, s + b, b_len);
    }
    n->said_reference = 1;
    return 1;
}

/* "rust-lang/rust#124165" -> "rust-lang/rust number one two four one six five". */
static int say_repository_reference(normalizer *n, const char *s, size_t len)
{
    size_t hash = len;
    while (hash > 0 && s[hash - 1] != '#')
        hash--;
    if (hash < 2 || !all_of(s + hash, len - hash, re_is_digit) || !is_ascii(s, hash))
        return 0;
    say_core(n, s, hash - 1);
    says(n, " number ");
    if (len - hash >= 3)
        say_digits(n, s + hash, len - hash);
    else
        say(n, s + hash, len - hash);
    return 1;
}

/* A code of a few letters and five or more digits (D157341, T12345) is an identifier, read
 * digit by digit; shorter ones are model names the engine says as people do (H100). So is a
 * name in lower case with a number of four digits or more (lib1560, a test's name: the
 * engine says "lib one thousand five hundred sixty"), unless the four are a year (vs2022). */
static int say_code(normalizer *n, const char *s, size_t len)
{
    size_t letters = leading(s, len, re_is_letter), digits = len - letters;
    if (letters == 0 || digits < 4 || !all_of(s + letters, digits, re_is_digit))
        return 0;
    int year = digits == 4 && (memcmp(s + letters, "19", 2) == 0 || memcmp(s + letters, "20", 2) == 0);
    int code = letters <= 3 && digits >= 5;
    int named = all_of(s, letters, re_is_lower) && !year;
    if (!code && !named)
        return 0;
    if (!code)
        detail(n, "name and number: its digits one by one");
    if (!say_acronym(n, s, letters, 0))
        say(n, s, letters);
    says(n, " ");
    say_digits(n, s + letters, len - letters);
    return 1;
}

/* A part of a ticket key after its first number: digits, or capitals and digits with a digit
 * ("A2945B" of TEMP-0000000-A2945B, Debian's temporary security IDs). */
static int ticket_code(const char *s, size_t len)
{
    int digit = 0;
    for (size_t i = 0; i < len; i++) {
        if (!re_is_digit(s[i]) && !re_is_upper(s[i]))
            return 0;
        digit |= re_is_digit(s[i]);
    }
    return digit;
}

/* Ticket keys and the like: "CVE-2024-3094" -> "C.V.E 2024 three zero nine four",
 * "UTF-8" -> "U.T.F 8", "TEMP-0000000-A2945B" -> "TEMP zero ... zero eh two nine four
 * five B". A year inside stays a year. */
static int say_ticket(normalizer *n, const char *s, size_t len)
{
    size_t i = leading(s, len, re_is_upper);
    if (i < 2 || i == len || s[i] != '-' || i + 1 == len || !re_is_digit(s[i + 1]))
        return 0;
    for (size_t j = i + 1, part = 0; j <= len; j++) {
        if (j < len && s[j] != '-')
            continue;
        size_t from = part ? part : i + 1;
        if (j == from || (part == 0 ? !all_of(s + from, j - from, re_is_digit)
                                    : !ticket_code(s + from, j - from)))
            return 0;
        part = j + 1;
    }
    if (!say_acronym(n, s, i, 0))
        say(n, s, i);
    while (i < len) {
        size_t j = ++i;
        while (j < len && s[j] != '-')
            j++;
        says(n, " ");
        if (!all_of(s + i, j - i, re_is_digit)) {
            say_characters(n, s + i, j - i);
            i = j;
            continue;
        }
        int year = j - i == 4 && j < len && (memcmp(s + i, "19", 2) == 0 || memcmp(s + i, "20", 2) == 0);
        if (j - i >= 3 && !year)
            say_digits(n, s + i, j - i);
        else
            say(n, s + i, j - i);
        i = j;
    }
    return 1;
}

/* Splits s at every `separator` and says the parts joined by `joiner`. */
static void say_split(normalizer *n, const char *s, size_t len, const char *separator,
                      const char *joiner)
{
    size_t sep = strlen(separator), i = 0;
    int first = 1;
    while (i <= len) {
        size_t j = i + find(s + i, len - i, separator);
        if (j > i) {
            if (!first)
                says(n, joiner);
            say_core(n, s + i, j - i);
            first = 0;
        }
        i = j + sep;
    }
}

/* C++, C#, ->, =>, ::, &&, ||. */
static int say_operator(normalizer *n, const char *s, size_t len)
{
    if (equals(s, len, "->") || equals(s, len, "=>") || equals(s, len, "\xE2\x86\x92")) {
        says(n, "to");
        return 1;
    }
    if (equals(s, len, "&&") || equals(s, len, "||")) {
        says(n, s[0] == '&' ? "and" : "or");
        return 1;
    }
    if (len >= 3 && re_is_letter(s[0]) && s[1] == '+' && s[2] == '+'
        && (len == 3 || all_of(s + 3, len - 3, re_is_digit))) {
        char letter = upper(s[0]);
        say(n, &letter, 1);
        says(n, " plus plus");
        if (len > 3) {
            says(n, " ");
            say(n, s + 3, len - 3);
        }
        return 1;
    }
    if (len == 2 && re_is_letter(s[0]) && s[1] == '#') {
        char letter = upper(s[0]);
        say(n, &letter, 1);
        says(n, " sharp");
        return 1;
    }
    if (find(s, len, "::") < len) {
        say_split(n, s, len, "::", " ");
        return 1;
    }
    if (find(s, len, "->") < len) {
        say_split(n, s, len, "->", " arrow ");
        return 1;
    }
    size_t eq = find(s, len, "=");
    if (eq > 0 && eq + 1 < len && find(s + eq + 1, len - eq - 1, "=") == len - eq - 1
        && s[eq + 1] != '>') {
        say_split(n, s, len, "=", " equals ");   /* NCCL_DEBUG=INFO */
        return 1;
    }
    return 0;
}

/* ---- hashes and options ----------------------------------------------------------- */

/* A commit or object hash: 7 or more characters 0-9 a-f (an abbreviated commit, a SHA-1 of
 * 40, a SHA-256 of 64, a SHA-512 of 128), at least one a digit and one a letter. */
static int is_hash(const char *s, size_t len)
{
    if (len < 7 || !all_of(s, len, re_is_hex_lower))
        return 0;
    size_t digits = 0;
    for (size_t i = 0; i < len; i++)
        digits += re_is_digit(s[i]);
    return digits > 0 && digits < len;
}

/* Letters and digits one by one: "12d655d" -> "one two D six five five D", "A2945B" -> "eh
 * two nine four five B". Letters side by side are dotted (D.E), the form the engine always
 * spells; a lone "a" is "eh", since the engine reads a lone "A" as the article. */
static void say_characters(normalizer *n, const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        if (i)
            says(n, " ");
        if (re_is_digit(s[i])) {
            says(n, digit_names[s[i] - '0']);
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && !re_is_digit(s[j]))
            j++;
        if (j - i == 1 && (s[i] == 'a' || s[i] == 'A')) {
            says(n, "eh");
        } else {
            for (size_t k = i; k < j; k++) {
                char letter = upper(s[k]);
                if (k > i)
                    says(n, ".");
                say(n, &letter, 1);
            }
        }
        i = j;
    }
}

/* A hash's first 7 characters one by one, whatever its length: a listener tells hashes
 * apart by their start, and 64 characters one by one take about 25 s. */
static void say_hash_start(normalizer *n, const char *s)
{
    say_characters(n, s, 7);
}

/* The digest algorithms written before a hash ("sha256:e3b0c442..."). */
static const char *const digest_names[] = { "sha1", "sha224", "sha256", "sha384", "sha512",
                                            "md5", NULL };

/* A hash, alone or after its algorithm ("sha256:..." -> "S.H.A 256 E three B zero C four
 * four"); after "commit", 7 or more digits are a hash too (a commit named by digits only,
 * "commit 995151807658"). */
static int say_hash(normalizer *n, const char *s, size_t len)
{
    size_t colon = find(s, len, ":");
    if (colon < len && in_list_fold(s, colon, digest_names)
        && is_hash(s + colon + 1, len - colon - 1)) {
        size_t letters = leading(s, colon, re_is_letter);
        for (size_t i = 0; i < letters; i++) {
            char letter = upper(s[i]);
            if (i)
                says(n, ".");
            say(n, &letter, 1);
        }
        says(n, " ");
        say(n, s + letters, colon - letters);
        says(n, " ");
        say_hash_start(n, s + colon + 1);
        detail(n, "hash: its algorithm, then its first 7 characters one by one");
        return 1;
    }
    if (!is_hash(s, len) && !(n->after_commit && len >= 7 && all_of(s, len, re_is_digit)))
        return 0;
    say_hash_start(n, s);
    return 1;
}

static int is_option_char(char c)
{
    return re_is_alnum(c) || c == '-' || c == '_' || c == '=' || c == '.' || c == ',' || c == '/';
}

/* Command-line options with their dashes, as people read them out: "--silent" -> "dash dash
 * silent", "-v" -> "dash v", "--jobs=4" -> "dash dash jobs equals 4". */
static int say_option(normalizer *n, const char *s, size_t len)
{
    size_t dashes = s[0] != '-' ? 0 : len > 1 && s[1] == '-' ? 2 : 1;
    if (!dashes || dashes >= len || !re_is_letter(s[dashes])
        || !all_of(s + dashes, len - dashes, is_option_char))
        return 0;
    says(n, dashes == 2 ? "dash dash " : "dash ");
    say_core(n, s + dashes, len - dashes);
    return 1;
}

/* ---- URLs, paths and file names ----------------------------------------------------- */

/* Digits of a reference: one by one from three ("189759" -> "one eight nine ..."). */
static void say_reference_number(normalizer *n, const char *s, size_t len)
{
    if (len >= 3)
        say_digits(n, s, len);
    else
        say(n, s, len);
}

/* What a host says of a URL's path: "pull request N" (.../pull/N, GitLab's merge_requests),
 * "issue N" (.../issues/N), "commit" and a hash's first 7 characters (.../commit/HASH,
 * .../commits/HASH); 0 (nothing said) for any other path. */
static int say_url_tail(normalizer *n, const char *s, size_t len)
{
    static const struct tail {
        const char *segment, *spoken, *decision;
        int hash;
    } tails[] = {
        { "pull", "pull request", "URL: the site and the pull request", 0 },
        { "merge_requests", "merge request", "URL: the site and the merge request", 0 },
        { "issues", "issue", "URL: the site and the issue", 0 },
        { "commit", "commit", "URL: the site and the commit's first 7 characters", 1 },
        { "commits", "commit", "URL: the site and the commit's first 7 characters", 1 },
    };
    size_t end = 0;
    while (end < len && s[end] != '?' && s[end] != '#')
        end++;
    for (size_t i = 0; i < end;) {
        size_t j = i + find(s + i, end - i, "/");
        size_t k = j + 1 + (j < end ? find(s + j + 1, end - j - 1, "/") : 0);
        if (k > end)
            k = end;
        const char *next = s + j + 1;
        size_t next_len = j < end ? k - j - 1 : 0;
        for (size_t t = 0; next_len && t < sizeof tails / sizeof tails[0]; t++) {
            if (!equals(s + i, j - i, tails[t].segment))
                continue;
            if (tails[t].hash ? !is_hash(next, next_len) : !all_of(next, next_len, re_is_digit))
                continue;
            says(n, " ");
            says(n, tails[t].spoken);
            says(n, " ");
            if (tails[t].hash)
                say_hash_start(n, next);
            else
                say_reference_number(n, next, next_len);
            detail(n, tails[t].decision);
            return 1;
        }
        i = j + 1;
    }
    return 0;
}

/* Whether s[0..len) is a URL ("scheme://host..." or "www.host..."): 1 with its host (no
 * user, no "www.") at s[*host..*end), else 0. */
static int url_host(const char *s, size_t len, size_t *host_start, size_t *host_end)
{
    size_t scheme = find(s, len, "://"), host;
    if (scheme < len && scheme > 0 && all_of(s, scheme, re_is_letter))
        host = scheme + 3;
    else if (len > 4 && equals_fold(s, 4, "www."))
        host = 0;
    else
        return 0;
    size_t end = host;
    while (end < len && !strchr("/:?#", s[end]))
        end++;
    size_t at = find(s + host, end - host, "@");
    if (at < end - host)
        host += at + 1;
    if (end - host > 4 && equals_fold(s + host, 4, "www."))
        host += 4;
    if (end == host || !is_ascii(s + host, end - host))
        return 0;
    *host_start = host;
    *host_end = end;
    return 1;
}

/* https://github.com/pytorch/pytorch/pull/1 -> "github dot com pull request 1";
 * https://example.org/a/b -> "example dot org". A name of the host that the lexicon has is
 * said as it says ("nginx dot org" with nginx = engine X): the lexicon names the site, the
 * URL rule reads the URL (the text is cut so that no entry matches inside a URL). */
static int say_url(normalizer *n, const char *s, size_t len)
{
    size_t host, end;
    if (!url_host(s, len, &host, &end))
        return 0;
    for (size_t i = host; i < end;) {
        size_t j = i + find(s + i, end - i, ".");
        re_lexicon_hit hit;
        if (i > host)
            says(n, " dot ");
        if (j > i && n->lexicon && re_lexicon_lookup(n->lexicon, s + i, j - i, &hit)) {
            decide(n, s + i, j - i, "lexicon entry");
            say_replacement(n, &hit);
        } else {
            say(n, s + i, j - i);
        }
        i = j + (j < end);
        if (i == end && j < end)
            says(n, " dot ");   /* a host ending in a dot */
    }
    size_t path = end;
    while (path < len && s[path] == ':')   /* a port: not said */
        for (path++; path < len && re_is_digit(s[path]); path++)
            ;
    if (path < len && s[path] == '/')
        say_url_tail(n, s + path + 1, len - path - 1);
    return 1;
}

static const struct extension {
    const char *name, *spoken;
} extensions[] = {
    { "c", "C" }, { "h", "H" }, { "cc", "C.C" }, { "cpp", "C.P.P" }, { "cxx", "C.X.X" },
    { "hpp", "H.P.P" }, { "cu", "C.U" }, { "cuh", "C.U.H" }, { "py", "pie" },
    { "pyi", "P.Y.I" }, { "pyx", "P.Y.X" }, { "ipynb", "I.P.Y.N.B" }, { "md", "M.D" },
    { "rst", "R.S.T" }, { "txt", "text" }, { "json", "json" }, { "yaml", "yaml" },
    { "yml", "Y.M.L" }, { "toml", "toml" }, { "ini", "I.N.I" }, { "cfg", "config" },
    { "js", "J.S" }, { "mjs", "M.J.S" }, { "ts", "T.S" }, { "tsx", "T.S.X" }, { "jsx", "J.S.X" },
    { "rs", "R.S" }, { "java", "java" }, { "kt", "K.T" }, { "rb", "R.B" }, { "php", "P.H.P" },
    { "swift", "swift" }, { "lua", "lua" }, { "sh", "S.H" }, { "bash", "bash" },
    { "zsh", "Z.S.H" }, { "sql", "S.Q.L" }, { "html", "H.T.M.L" }, { "css", "C.S.S" },
    { "xml", "X.M.L" }, { "svg", "S.V.G" }, { "csv", "C.S.V" }, { "tsv", "T.S.V" },
    { "pdf", "P.D.F" }, { "png", "P.N.G" }, { "jpg", "J.P.G" }, { "gif", "gif" },
    { "mp3", "M.P 3" }, { "mp4", "M.P 4" }, { "wav", "wave" }, { "ogg", "ogg" },
    { "flac", "flac" }, { "log", "log" }, { "lock", "lock" }, { "zip", "zip" },
    { "gz", "G.Z" }, { "tgz", "T.G.Z" }, { "tar", "tar" }, { "xz", "X.Z" }, { "whl", "wheel" },
    { "dll", "D.L.L" }, { "exe", "E.X.E" }, { "pt", "P.T" }, { "pth", "P.T.H" },
    { "onnx", "onyx" }, { "safetensors", "safe tensors" }, { "cmake", "C make" },
    { "diff", "diff" }, { "patch", "patch" }, { "proto", "proto" }, { "lexicon", "lexicon" },
    { "voice", "voice" }, { "vtt", "V.T.T" }, { "srt", "S.R.T" },
};

static const struct extension *find_extension(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (equals(s, len, extensions[i].name))
            return &extensions[i];
    return NULL;
}

static int is_name_char(char c)
{
    return re_is_alnum(c) || c == '_' || c == '-';
}

/* A file name: a known extension after a name. */
static int is_file_name(const char *s, size_t len)
{
    size_t dot = len;
    while (dot > 0 && s[dot - 1] != '.')
        dot--;
    if (dot < 2 || !find_extension(s + dot, len - dot))
        return 0;
    for (size_t i = 0; i + 1 < dot; i++)
        if (!is_name_char(s[i]) && !(s[i] == '.' && i > 0 && s[i - 1] != '.'))
            return 0;
    return 1;
}

/* File names (render.c -> "render dot C", .md -> "dot M.D") and dotted identifiers with a
 * part to rewrite (torch.nn.AOTModule). Abbreviations (e.g, U.S, Ph.D) are left alone: some
 * part must have 3 letters. */
static int say_dotted(normalizer *n, const char *s, size_t len)
{
    size_t dot = len;
    while (dot > 0 && s[dot - 1] != '.')
        dot--;
    if (dot == 0 || dot == len || !is_ascii(s, len))
        return 0;
    const struct extension *ext = find_extension(s + dot, len - dot);
    if (ext && (dot == 1 || is_file_name(s, len))) {
        detail(n, "file name: its parts and its extension");
        if (dot > 1) {
            say_split(n, s, dot - 1, ".", " dot ");
            says(n, " ");
        }
        says(n, "dot ");
        says(n, ext->spoken);
        return 1;
    }
    size_t part_len = 0, longest = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || s[i] == '.') {
            if (part_len == 0 || re_is_digit(s[i - part_len]))
                return 0;
            longest = part_len > longest ? part_len : longest;
            part_len = 0;
        } else if (re_is_alnum(s[i]) || s[i] == '_') {
            part_len++;
        } else {
            return 0;
        }
    }
    if (longest < 3)
        return 0;
    /* The engine says "torch.compile" well; only an identifier with a part to rewrite
     * (torch.nn.AOTModule) is taken apart, and a missing space (it.The) is left alone. */
    int changed = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i + find(s + i, len - i, ".");
        if (i)
            says(n, " dot ");
        mark part = mark_here(n);
        say_core(n, s + i, j - i);
        changed |= !said_as_is(n, part, s + i, j - i);
        i = j + 1;
    }
    return changed;
}

/* src/main.py -> "src slash main dot pie", /usr/lib -> "slash usr slash lib"; other
 * slashes (CI/CD, and/or) keep their slash and have their parts said. */
static int say_slashed(normalizer *n, const char *s, size_t len)
{
    if (find(s, len, "/") == len || !is_ascii(s, len))
        return 0;
    size_t last = len;
    while (last > 0 && s[last - 1] != '/')
        last--;
    int path = s[0] == '/' || (len > 2 && (memcmp(s, "./", 2) == 0 || memcmp(s, "~/", 2) == 0))
               || (len > 3 && memcmp(s, "../", 3) == 0) || is_file_name(s + last, len - last);
    if (!path) {
        say_split(n, s, len, "/", "/");
        return 1;
    }
    size_t i = s[0] == '/', parts = 0;
    if (i)
        says(n, "slash");
    while (i < len) {
        size_t j = i + find(s + i, len - i, "/");
        if (j > i) {
            says(n, parts ? " slash " : s[0] == '/' ? " " : "");
            if (equals(s + i, j - i, "~"))
                says(n, "home");
            else if (equals(s + i, j - i, ".") || equals(s + i, j - i, ".."))
                says(n, j - i == 1 ? "dot" : "dot dot");
            else
                say_core(n, s + i, j - i);
            parts++;
        }
        i = j + 1;
    }
    return 1;
}

/* ---- identifiers -------------------------------------------------------------------- */

static const char *const name_prefixes[] = { "Mc", "Mac", "De", "Di", "Du", "Da", "La", "Le",
                                             "Van", "Von", NULL };

/* Where the next part of a word starts: at a capital after a lower-case letter (PyTorch),
 * before the last capital of a run that a lower-case letter follows (AOTAutograd), and
 * between spelled capitals and digits (NCCL2). A final "s" after capitals is a plural. */
static size_t part_end(const char *s, size_t len, size_t start)
{
    for (size_t i = start + 1; i < len; i++) {
        char a = s[i - 1], b = s[i];
        if (re_is_lower(a) && re_is_upper(b))
            return i;
        if (re_is_upper(a) && re_is_upper(b) && i + 1 < len && re_is_lower(s[i + 1])
            && !(s[i + 1] == 's' && (i + 2 == len || !re_is_lower(s[i + 2]))))
            return i;
        if (re_is_upper(a) && re_is_digit(b) && i - start >= 2 && all_of(s + start, i - start, re_is_upper))
            return i;
    }
    return len;
}

/* One part of an identifier: as the lexicon says, spelled, a number with its unit (8x),
 * or as written. In a constant (MAX_JOBS) pronounceable parts are words. */
static void say_part(normalizer *n, const char *s, size_t len, int constant)
{
    re_lexicon_hit hit;
    if (n->lexicon && re_lexicon_lookup(n->lexicon, s, len, &hit)) {
        decide(n, s, len, "lexicon entry");
        say_replacement(n, &hit);
        return;
    }
    if (re_is_digit(s[0])) {
        mark m = mark_here(n);
        if (say_number(n, s, len))
            return;
        rollback(n, m);
    }
    if (!say_acronym(n, s, len, constant))
        say(n, s, len);
}

/* Says the parts of one underscore-free piece; returns how many there were. */
static size_t say_parts(normalizer *n, const char *s, size_t len, int first, int constant)
{
    size_t count = 0, i = 0;
    size_t end = part_end(s, len, 0);
    if (end < len && part_end(s, len, end) == len && in_list(s, end, name_prefixes))
        end = len;   /* McDonald, DeSantis */
    while (i < len) {
        if (!first || count)
            says(n, " ");
        say_part(n, s + i, end - i, constant);
        count++;
        i = end;
        end = part_end(s, len, i);
    }
    return count;
}

/* Identifiers: snake_case and CamelCase parts, acronyms, plurals and possessives. */
static int say_word(normalizer *n, const char *s, size_t len)
{
    size_t base = len;
    if (len > 2 && (s[len - 1] == 's' && s[len - 2] == '\''))
        base = len - 2;
    else if (len > 4 && s[len - 1] == 's' && memcmp(s + len - 4, "\xE2\x80\x99", 3) == 0)
        base = len - 4;
    for (size_t i = 0; i < base; i++)
        if (!re_is_alnum(s[i]) && s[i] != '_')
            return 0;
    size_t pieces = 0, parts = 0, i = 0;
    int underscores = find(s, base, "_") < base, constant = underscores;
    for (size_t k = 0; k < base; k++)
        constant &= !re_is_lower(s[k]);
    mark m = mark_here(n);
    while (i < base) {
        size_t j = i;
        while (j < base && s[j] != '_')
            j++;
        if (j > i)
            parts += say_parts(n, s + i, j - i, pieces++ == 0, constant);
        i = j + 1;
    }
    if (parts == 0 || (parts == 1 && !underscores && said_as_is(n, m, s, base))) {
        rollback(n, m);
        return 0;
    }
    if (parts == 1 && !underscores)
        detail(n, NULL);   /* one word: its own decision says it all */
    say(n, s + base, len - base);
    return 1;
}

/* Says a run of single capitals joined by hyphens (A-B-C, from s[0] to s[end - 1]) as
 * dotted letters, and returns its end; returns 0 when s does not start one of two or more. */
static size_t say_letter_run(normalizer *n, const char *s, size_t len)
{
    size_t end = 1;
    if (!re_is_upper(s[0]) || (len > 1 && s[1] != '-'))
        return 0;
    while (end + 1 < len && s[end] == '-' && re_is_upper(s[end + 1])
           && (end + 2 == len || s[end + 2] == '-'))
        end += 2;
    if (end == 1)
        return 0;
    for (size_t i = 0; i < end; i += 2) {
        if (i)
            says(n, ".");
        say(n, s + i, 1);
    }
    return end;
}

/* Hyphenated words: parts said apart when one of them needs it (2-GPU -> "2 G.P.U",
 * swap-A-B -> "swap A.B"); all-digit ones (dates) and plain words are left alone. */
static int say_compound(normalizer *n, const char *s, size_t len)
{
    if (find(s, len, "-") == len || !is_ascii(s, len))
        return 0;
    int digits_only = 1;
    for (size_t i = 0; i < len; i++)
        digits_only &= re_is_digit(s[i]) || s[i] == '-';
    if (digits_only)
        return 0;
    mark m = mark_here(n);
    int changed = 0, first = 1;
    size_t i = 0;
    while (i < len) {
        size_t j = i + find(s + i, len - i, "-");
        /* a hyphen after no letter or digit, before a number, is a minus: "@{-1}" */
        int minus = i > 0 && re_is_digit(s[i]) && (i == 1 || !re_is_alnum(s[i - 2]));
        if (j > i) {
            if (!first)
                says(n, " ");
            first = 0;
            if (minus) {
                says(n, "minus ");
                changed = 1;
            }
            mark part = mark_here(n);
            size_t run = say_letter_run(n, s + i, len - i);
            if (run) {
                j = i + run;
                changed = 1;
            } else {
                say_core(n, s + i, j - i);
                changed |= !said_as_is(n, part, s + i, j - i);
            }
        }
        i = j + 1;
    }
    if (!changed) {
        rollback(n, m);
        return 0;
    }
    return 1;
}

/* 1 when s[0..len) starts with a dot or an ellipsis character (…). */
static int dot_or_ellipsis(const char *s, size_t len)
{
    return s[0] == '.' || (len >= 3 && memcmp(s, "\xE2\x80\xA6", 3) == 0);
}

/* "wait...what" -> "wait… what". */
static int say_inner_ellipsis(normalizer *n, const char *s, size_t len)
{
    size_t dots = find(s, len, "..."), mark3 = find(s, len, "\xE2\x80\xA6");
    size_t at = dots < mark3 ? dots : mark3;
    if (at == len)
        return 0;
    size_t after = at;
    while (after < len && dot_or_ellipsis(s + after, len - after))
        after += s[after] == '.' ? 1 : 3;
    say_core(n, s, at);
    says(n, "\xE2\x80\xA6");
    if (after < len) {
        says(n, " ");
        say_core(n, s + after, len - after);
    }
    return 1;
}

/* Tries each rule in turn, recording the one that takes the word; what no rule takes is
 * said as written (and, for capitals, why). */
static void say_core(normalizer *n, const char *s, size_t len)
{
    static const struct rule {
        int (*say)(normalizer *, const char *, size_t);
        const char *decision;
    } rules[] = {
        { say_inner_ellipsis, "ellipsis: a pause" },
        { say_url, "URL: the site" },
        { say_hash, "hash: its first 7 characters one by one" },
        { say_option, "option: its dashes said" },
        { say_reference, "reference number: digit by digit from 3 digits" },
        { say_repository_reference, "repository reference" },
        { say_number, "number with a unit or multiplier" },
        { say_unit, "unit, in words" },
        { say_version, "version: its separators said" },
        { say_ticket, "ticket key" },
        { say_code, "code: its digits one by one" },
        { say_operator, "operator" },
        { say_slashed, "path or slashed words" },
        { say_dotted, "dotted name: its parts" },
        { say_compound, "hyphenated: its parts" },
        { say_word, "identifier: its parts" },
    };
    if (len == 0)
        return;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        mark m = mark_here(n);
        size_t outer = n->current;
        n->current = decide(n, s, len, rules[i].decision);
        int taken = rules[i].say(n, s, len);
        n->current = outer;
        if (taken)
            return;
        rollback(n, m);
    }
    if (!say_acronym(n, s, len, 0))   /* records why capitals stay as written */
        say(n, s, len);
}

/* ---- words in their sentence -------------------------------------------------------- */

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

/* A word's opening and closing marks: brackets, quotes, emphasis, sentence punctuation, and
 * emoji (which are not said). */
static void split_word(const char *s, size_t len, size_t *open, size_t *close)
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
            says(n, "\xE2\x80\xA6");
        } else if (j > i) {
            say(n, s + i, j - i);
        } else {
            if (!has_core || (s[i] != '*' && s[i] != '`'))
                say(n, s + i, 1);
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
    split_word(*s, *len, &open, &close);
    *s += open;
    *len -= open + close;
}

/* The core of the word after the one being said, or NULL at the end. */
static void next_core(const normalizer *n, const char **s, size_t *len)
{
    *s = NULL;
    *len = 0;
    if (n->chunk_index + 1 < n->chunk_count)
        chunk_core(n, n->chunk_index + 1, s, len);
}

static int is_plain_number(const char *s, size_t len)
{
    int fraction;
    return len > 0 && number_length(s, len, &fraction) == len;
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
    if (sentence_end)
        n->reference = n->after_reference = 0;
    n->pull = equals_fold(last, last_len, "pull");
    n->after_commit = !sentence_end && close_len == 0 && (equals_fold(last, last_len, "commit")
                                                          || equals_fold(last, last_len, "commits"));
    n->after_number = close_len == 0 && is_plain_number(core, len) ? 1 + equals(core, len, "1") : 0;
    n->previous = core;
    n->previous_len = len;
    n->previous_started_sentence = n->sentence_start;
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
    };
    const char *next, *stop = core + core_len;
    size_t next_len;
    next_core(n, &next, &next_len);
    if (close == 0 || *stop != '.' || (close > 1 && stop[1] == '.') || next_len == 0
        || !re_is_abbreviation(core, core_len, next))
        return 0;
    const char *reading = NULL;
    for (size_t i = 0; i < sizeof readings / sizeof readings[0] && !reading; i++)
        if (equals_fold(core, core_len, readings[i][0]))
            reading = readings[i][1];
    decide(n, core, core_len + 1, reading ? "abbreviation: in words, its full stop ends no sentence"
                                          : "abbreviation: its full stop ends no sentence");
    if (reading)
        says(n, reading);
    else
        say(n, core, core_len);
    say_marks(n, stop + 1, close - 1, 1);
    return 1;
}

static void say_chunk(normalizer *n, size_t index)
{
    const chunk *c = &n->chunks[index];
    const char *s = n->text + c->start;
    size_t len = c->end - c->start, open, close;
    n->chunk_index = index;
    n->source = c->start;
    n->source_length = len;
    n->said_reference = 0;
    if (c->is_match) {
        decide(n, s, len, "lexicon entry");
        say_replacement(n, &c->hit);
        remember_word(n, s, len, "", 0);
        n->after_number = 0;
        return;
    }
    for (size_t i = 0, e; i < len; i += e ? e : char_length((unsigned char)s[i]))
        if ((e = re_utf8_emoji_length(s + i, s + len)))
            decide(n, s + i, e, "emoji: not spoken");   /* join leaves it out */
    if (!n->english) {   /* another language: its voice reads the text its own way */
        say(n, s, len);
        return;
    }
    split_word(s, len, &open, &close);
    const char *core = s + open;
    size_t core_len = len - open - close, call = 0;
    say_marks(n, s, open, core_len > 0);
    if (core_len > 1 && core[core_len - 1] == '(' && close > 0 && core[core_len] == ')')
        call = 1;   /* foo() -> foo */
    if (say_abbreviation(n, core, core_len, close)) {
        remember_word(n, core, core_len, "", 0);
        return;
    }
    if (core_len > 1 && core[0] == '~' && re_is_digit(core[1])) {
        says(n, "about ");
        say_core(n, core + 1, core_len - 1 - call);
    } else {
        say_core(n, core, core_len - call);
    }
    say_marks(n, core + core_len + call, close - call, core_len > 0);
    remember_word(n, core, core_len, core + core_len, close);
}

/* ---- cutting and joining ------------------------------------------------------------ */

static void add_chunk(normalizer *n, int is_match, const re_lexicon_hit *hit, size_t start,
                      size_t end, size_t *previous_end)
{
    if (!grow(&n->chunks, &n->chunk_capacity, sizeof *n->chunks, n->chunk_count + 1)) {
        n->nomem = 1;
        return;
    }
    chunk *c = &n->chunks[n->chunk_count++];
    *c = (chunk){ .is_match = is_match, .start = start, .end = end, .blanks = *previous_end };
    if (hit)
        c->hit = *hit;
    *previous_end = end;
}

static size_t char_length(unsigned char lead)
{
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

/* The end of the URL that is the word starting at text[pos] (with its brackets and
 * punctuation), or pos when that word is no URL. */
static size_t url_at(const normalizer *n, size_t pos)
{
    size_t end = pos, open, close, host, host_end;
    while (end < n->len && n->text[end] != ' ' && n->text[end] != '\t')
        end++;
    split_word(n->text + pos, end - pos, &open, &close);
    if (end - pos <= open + close
        || !url_host(n->text + pos + open, end - pos - open - close, &host, &host_end))
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
            new_piece(n, PIECE_SPACE);
        }
        say_chunk(n, i);
    }
}

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
    if (!grow(&j->text, &j->capacity, 1, j->len + 2)) {
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
    if (!grow(&j->spans, &j->span_capacity, sizeof *j->spans, j->span_count + 1)) {
        j->nomem = 1;
        return;
    }
    j->spans[j->span_count++] = (re_spoken_span){ start, j->len - start, p->source,
                                                   p->source_length };
}

/* Joins the pieces into the spoken text and its spans. */
static re_status join(const normalizer *n, re_spoken *out)
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

re_status re_normalize_spans_for(const re_lexicon *lexicon, const char *text,
                                 const char *engine_voice, re_spoken *out)
{
    if (!out)
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!text || !text_valid(text, strlen(text)))
        return RE_ERR_INVALID;
    normalizer n = { .lexicon = lexicon, .text = text, .len = strlen(text), .sentence_start = 1,
                     .current = SIZE_MAX, .english = re_normalize_voice_is_english(engine_voice) };
    cut(&n);
    say_all(&n);
    re_status status = n.nomem ? RE_ERR_NOMEM : join(&n, out);
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
