/* SPDX-License-Identifier: GPL-3.0-or-later */
/* numbers.c - numbers that are not quantities and quantities the engine misreads: versions,
 * reference numbers, codes and ticket keys read digit by digit where people do; numbers with
 * a unit or a multiplier, and units after a number, in words. */
#include "normalize_internal.h"

#include <string.h>

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
    { "s", "second", "seconds", UNIT_ALONE | UNIT_FRACTION },    /* "1990s": is_plural */
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
        re_say_digits(n, s, len);
    else
        re_say(n, s, len);
}

void re_say_version_number(normalizer *n, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && re_is_digit(s[j]))
            j++;
        if (i)
            re_says(n, " point ");
        say_component(n, s + i, j - i);
        i = j + 1;
    }
}

/* Its separators said: "-rc1" -> "dash R.C 1", "+cu121" -> "plus C.U 121", "-3" (a Debian
 * revision) -> "dash 3", "~rc1" -> "tilde R.C 1", "+deb12u1.1" -> "plus deb 12 u 1 point 1". */
void re_say_version_suffix(normalizer *n, const char *s, size_t len)
{
    static const char *const spelled[] = { "rc", "cu", NULL };
    size_t i = 0;
    while (i < len) {
        size_t j = i + 1;
        if (s[i] == '+') {
            re_says(n, " plus");
        } else if (s[i] == '-') {
            re_says(n, " dash");
        } else if (s[i] == '~') {
            re_says(n, " tilde");
        } else if (s[i] == '.') {
            int decimal = i > 0 && re_is_digit(s[i - 1]) && j < len && re_is_digit(s[j]);
            re_says(n, decimal ? " point" : " dot");
        } else if (re_is_alnum(s[i])) {
            int alpha = re_is_letter(s[i]);
            while (j < len && (alpha ? re_is_letter(s[j]) : re_is_digit(s[j])))
                j++;
            re_says(n, " ");
            if (alpha && in_list_fold(s + i, j - i, spelled)) {
                re_say_letters(n, s + i, j - i);
            } else {
                re_say(n, s + i, j - i);
            }
        }
        i = j;
    }
}

int re_say_version(normalizer *n, const char *s, size_t len)
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
        re_says(n, "version ");
    re_say_version_number(n, s + start, i - start);
    re_say_version_suffix(n, s + i, len - i);
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

/* "Python 3.12" -> "3 point 12": two-part numbers whose decimals would be read digit by
 * digit, after a product name and not before an amount or unit. */
static int say_short_version(normalizer *n, const char *s, size_t len)
{
    size_t dot = find(s, len, ".");
    if (dot == len || len - dot - 1 < 2 || !names_a_product(n))
        return 0;
    const char *next;
    size_t next_len;
    re_next_core(n, &next, &next_len);
    if (next && (in_list_fold(next, next_len, amount_words) || find_unit(next, next_len, UNIT_BOTH)))
        return 0;
    re_say_version_number(n, s, len);
    return 1;
}

/* Whether the number s[0..len), an "s" after it, is a plural: a decade ("1990s", "2000s",
 * and "90s" after "the", "early", "late" or "mid") or a count ("100s of files"); else the "s"
 * is seconds ("a 30s timeout"). */
static int is_plural(const normalizer *n, const char *s, size_t len)
{
    static const char *const before[] = { "the", "early", "late", "mid", "mid-", NULL };
    const char *next;
    size_t next_len;
    re_next_core(n, &next, &next_len);
    if (next && equals_fold(next, next_len, "of"))
        return 1;
    if (s[len - 1] != '0')
        return 0;
    if (len == 4)
        return s[0] == '1' || s[0] == '2';
    return len == 2 && n->previous && in_list_fold(n->previous, n->previous_len, before);
}

int re_say_number(normalizer *n, const char *s, size_t len)
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
        re_say(n, s, number);
        re_says(n, " by ");
        re_say(n, rest + by, rest_len - by);
        return 1;
    }
    const struct unit *unit = times ? NULL : find_unit(rest, rest_len, UNIT_ATTACHED | UNIT_FRACTION);
    if (unit && !(unit->where & UNIT_ATTACHED) && !fraction && is_plural(n, s, number))
        unit = NULL;
    if (!times && !unit)
        return 0;
    re_say(n, s, number);
    re_says(n, " ");
    re_says(n, times ? "times" : equals(s, number, "1") ? unit->one : unit->many);
    return 1;
}

int re_say_unit(normalizer *n, const char *s, size_t len)
{
    const struct unit *unit = n->after_number ? find_unit(s, len, UNIT_ALONE) : NULL;
    if (!unit)
        return 0;
    re_says(n, n->after_number == 2 ? unit->one : unit->many);
    return 1;
}

int re_say_reference(normalizer *n, const char *s, size_t len)
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
        re_says(n, "number ");
    re_say_reference_number(n, s + a, a_len);
    if (b_len) {
        re_says(n, " through ");
        re_say_reference_number(n, s + b, b_len);
    }
    n->said_reference = 1;
    return 1;
}

int re_say_repository_reference(normalizer *n, const char *s, size_t len)
{
    size_t hash = len;
    while (hash > 0 && s[hash - 1] != '#')
        hash--;
    if (hash < 2 || !all_of(s + hash, len - hash, re_is_digit) || !is_ascii(s, hash))
        return 0;
    re_say_core(n, s, hash - 1);
    re_says(n, " number ");
    re_say_reference_number(n, s + hash, len - hash);
    return 1;
}

int re_say_code(normalizer *n, const char *s, size_t len)
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
        re_detail(n, "name and number: its digits one by one");
    if (!re_say_acronym(n, s, letters, 0))
        re_say(n, s, letters);
    re_says(n, " ");
    re_say_digits(n, s + letters, len - letters);
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

int re_say_ticket(normalizer *n, const char *s, size_t len)
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
    if (!re_say_acronym(n, s, i, 0))
        re_say(n, s, i);
    while (i < len) {
        size_t j = ++i;
        while (j < len && s[j] != '-')
            j++;
        re_says(n, " ");
        if (!all_of(s + i, j - i, re_is_digit)) {
            re_say_characters(n, s + i, j - i);
            i = j;
            continue;
        }
        int year = j - i == 4 && j < len && (memcmp(s + i, "19", 2) == 0 || memcmp(s + i, "20", 2) == 0);
        if (j - i >= 3 && !year)
            re_say_digits(n, s + i, j - i);
        else
            re_say(n, s + i, j - i);
        i = j;
    }
    return 1;
}

void re_say_reference_number(normalizer *n, const char *s, size_t len)
{
    if (len >= 3)
        re_say_digits(n, s, len);
    else
        re_say(n, s, len);
}

int re_is_plain_number(const char *s, size_t len)
{
    int fraction;
    return len > 0 && number_length(s, len, &fraction) == len;
}
