/* SPDX-License-Identifier: GPL-3.0-or-later */
/* acronyms.c - words in capitals: a dictionary word stays as the engine says it; others are
 * read as dictionary words and short acronyms when they can be, spelled, or left to the engine
 * (normalize.h, "capitals"). */
#include "normalize_internal.h"

#include <stdint.h>
#include <string.h>

#include "words.h"

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
        re_decide(n, s, len, sayable ? "capitals, not in the dictionary: acronyms and "
                                    "pronounceable pieces"
                          : cuts[0] == 1 ? "capitals, not in the dictionary: a letter, then "
                                           "dictionary words and acronyms"
                                         : "capitals, not in the dictionary: dictionary words "
                                           "and acronyms");
        for (size_t k = 0, at = 0; k < pieces; at = cuts[k++]) {
            if (k)
                re_says(n, " ");
            if (!say_caps(n, s + at, cuts[k] - at, constant))
                re_say(n, s + at, cuts[k] - at);
        }
        return 1;
    }
    caps_reading reading = read_caps(s, len, constant);
    if (reading == CAPS_NONE)
        return 0;
    re_decide(n, s, len, caps_decision(reading));
    if (reading != CAPS_SPELLED)
        return 0;
    re_say_letters(n, s, len);
    return 1;
}

int re_say_acronym(normalizer *n, const char *s, size_t len, int constant)
{
    if (len >= 3 && s[len - 1] == 's' && all_of(s, len - 1, re_is_upper) && !re_is_word(s, len)) {
        /* not a word (HEADs, IDs are): 2-4 capitals are an acronym even when the dictionary
         * has them (PR, CPU), as their plural (PRs) is not in it; longer ones are read as
         * their singular is (OPENSSLs -> OPEN S.S.L's) */
        if (len - 1 > 4) {
            if (!say_caps(n, s, len - 1, constant))
                return 0;
            re_says(n, "'s");
            return 1;
        }
        if (read_caps(s, len - 1, constant) == CAPS_ROMAN)
            return 0;
        re_decide(n, s, len, "plural of capitals, not in the dictionary: spelled");
        re_say_letters(n, s, len - 1);
        re_says(n, ".'s");
        return 1;
    }
    return say_caps(n, s, len, constant);
}
