/* SPDX-License-Identifier: GPL-3.0-or-later */
/* amounts.c - what release notes write in symbols and a person reads out in words:
 * requirements (>=3.9,<3.13), durations (1h30m), money ($4.99, €10,000), GitLab merge
 * requests (!456), lint rule codes (RUF012, E501) and GitHub advisory IDs. */
#include "normalize_internal.h"

#include <string.h>

/* ---- requirements ------------------------------------------------------------------------ */

/* Comparisons as a person says them of versions; the longer operators first. "~" is npm's
 * "patch releases of" and takes a version of three parts, else it is "about" (context.c). */
static const struct comparison {
    const char *op;
    const char *before, *after;
} comparisons[] = {
    { ">=", "", " or later" },
    { "<=", "", " or earlier" },
    { "==", "exactly ", "" },
    { "!=", "not ", "" },
    { "~=", "", " or a compatible later version" },
    { ">", "later than ", "" },
    { "<", "before ", "" },
    { "^", "", " or a compatible later version" },
    { "~", "", " or a later patch" },
};

/* The length of a pre-, post- or development-release suffix at s (PEP 440: "b1", "rc2",
 * ".dev0", "-rc1"; semver: "-beta.2", "+build5"), 0 when none. */
static size_t release_suffix(const char *s, size_t len)
{
    static const char *const tags[] = { "alpha", "beta", "rc", "pre", "post", "dev", "a", "b",
                                         "c", NULL };
    if (len == 0)
        return 0;
    if (s[0] == '-' || s[0] == '+') {   /* semver: anything of letters, digits, dots, hyphens */
        size_t i = 1;
        while (i < len && (re_is_alnum(s[i]) || s[i] == '.' || s[i] == '-'))
            i++;
        return i > 1 && i == len && re_is_alnum(s[i - 1]) ? i : 0;
    }
    size_t i = s[0] == '.' ? 1 : 0;
    size_t letters = leading(s + i, len - i, re_is_lower);
    if (letters == 0 || !in_list(s + i, letters, tags))
        return 0;
    i += letters;
    i += leading(s + i, len - i, re_is_digit);
    return i == len ? i : 0;
}

/* A version after an operator: "3.9", "v1.2.0", "3.11.*", "2.0.0b1". Its parts: the number
 * s[0..*number) (after an optional v at *start), a wildcard, and the suffix after. */
static int version_operand(const char *s, size_t len, size_t *start, size_t *number,
                           int *wildcard, size_t *dots)
{
    size_t i = len > 1 && s[0] == 'v' && re_is_digit(s[1]) ? 1 : 0;
    *start = i;
    *dots = 0;
    *wildcard = 0;
    if (i == len || !re_is_digit(s[i]))
        return 0;
    while (i < len
           && (re_is_digit(s[i]) || (s[i] == '.' && i + 1 < len && re_is_digit(s[i + 1])))) {
        *dots += s[i] == '.';
        i++;
    }
    *number = i;
    if (len - i == 2 && s[i] == '.' && s[i + 1] == '*') {
        *wildcard = 1;
        return 1;
    }
    return i == len || release_suffix(s + i, len - i) == len - i;
}

/* One comparison, s[0..len) ("<3.13"): its entry, or NULL. `named`: a name came before it,
 * so a version of one part is one too (torch>=2). */
static const struct comparison *comparison_at(const char *s, size_t len, int named)
{
    for (size_t k = 0; k < sizeof comparisons / sizeof comparisons[0]; k++) {
        size_t op = strlen(comparisons[k].op);
        size_t start, number, dots;
        int wildcard;
        if (len <= op || memcmp(s, comparisons[k].op, op) != 0)
            continue;
        if (!version_operand(s + op, len - op, &start, &number, &wildcard, &dots))
            return NULL;
        if ((dots == 0 && !named) || (comparisons[k].op[0] == '~' && op == 1 && dots < 2))
            return NULL;
        return &comparisons[k];
    }
    return NULL;
}

/* Where the name before the first operator ends ("uv_build" of uv_build>=0.7), 0 when the
 * word starts with an operator, len when it is no requirement. A name has two characters or
 * more: "x>1.5" is a comparison in code, not a package's. */
static size_t requirement_name(const char *s, size_t len)
{
    size_t i = 0;
    if (re_is_letter(s[0]))
        while (i < len && (re_is_alnum(s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.'))
            i++;
    return i == 1 ? len : i;
}

int re_is_requirement(const char *s, size_t len)
{
    size_t name = requirement_name(s, len);
    if (name == len || (name > 0 && !re_is_alnum(s[name - 1])))
        return 0;
    for (size_t i = name; i < len;) {
        size_t j = i + find(s + i, len - i, ",");
        if (!comparison_at(s + i, j - i, name > 0))
            return 0;
        i = j + 1;
        if (j + 1 == len)
            return 0;   /* a comma at the end is the sentence's, outside the core */
    }
    return 1;
}

int re_say_requirement(normalizer *n, const char *s, size_t len)
{
    if (!re_is_requirement(s, len))
        return 0;
    size_t name = requirement_name(s, len);
    if (name) {
        re_say_core(n, s, name);
        re_says(n, " ");
    }
    for (size_t i = name; i < len;) {
        size_t j = i + find(s + i, len - i, ",");
        const struct comparison *c = comparison_at(s + i, j - i, name > 0);
        const char *v = s + i + strlen(c->op);
        size_t v_len = j - i - strlen(c->op), start, number, dots;
        int wildcard;
        version_operand(v, v_len, &start, &number, &wildcard, &dots);
        if (i > name)
            re_says(n, ", ");
        re_says(n, c->before);
        if (wildcard)
            re_says(n, "any ");
        re_say_version_number(n, v + start, number - start);
        if (!wildcard)
            re_say_version_suffix(n, v + number, v_len - number);
        re_says(n, c->after);
        i = j + 1;
    }
    return 1;
}

/* ---- durations --------------------------------------------------------------------------- */

static const struct duration_unit {
    const char *abbreviation, *one, *many;
} duration_units[] = {   /* largest first: a duration's parts go down */
    { "d", "day", "days" },
    { "h", "hour", "hours" },
    { "m", "minute", "minutes" },
    { "s", "second", "seconds" },
    { "ms", "millisecond", "milliseconds" },
};

/* The duration unit at s that a digit or the end follows, by its rank; -1 when none. */
static int duration_unit_at(const char *s, size_t len, size_t *unit_len)
{
    int found = -1;
    for (size_t k = 0; k < sizeof duration_units / sizeof duration_units[0]; k++) {
        size_t m = strlen(duration_units[k].abbreviation);
        if (m <= len && memcmp(s, duration_units[k].abbreviation, m) == 0
            && (m == len || re_is_digit(s[m])) && (found < 0 || m > *unit_len)) {
            found = (int)k;
            *unit_len = m;
        }
    }
    return found;
}

/* Parts of two or more units, each smaller than the one before: "1h30m", "2m49s". */
static int duration_parts(const char *s, size_t len, int say_them, normalizer *n)
{
    size_t i = 0, parts = 0;
    int last = -1;
    while (i < len) {
        size_t digits = leading(s + i, len - i, re_is_digit), unit_len = 0, number = digits;
        if (digits == 0)
            return 0;
        if (i + digits + 1 < len && s[i + digits] == '.' && re_is_digit(s[i + digits + 1]))
            number += 1 + leading(s + i + digits + 1, len - i - digits - 1, re_is_digit);
        int unit = duration_unit_at(s + i + number, len - i - number, &unit_len);
        if (unit <= last)
            return 0;
        if (say_them) {
            if (parts)
                re_says(n, " ");
            re_say(n, s + i, number);
            re_says(n, " ");
            re_says(n, equals(s + i, number, "1") ? duration_units[unit].one
                                              : duration_units[unit].many);
        }
        last = unit;
        parts++;
        i += number + unit_len;
    }
    return parts >= 2;
}

int re_say_duration(normalizer *n, const char *s, size_t len)
{
    if (!is_ascii(s, len) || !duration_parts(s, len, 0, n))
        return 0;
    duration_parts(s, len, 1, n);
    return 1;
}

/* ---- money ------------------------------------------------------------------------------- */

static const struct currency {
    const char *sign;
    const char *one, *many, *minor_one, *minor_many;   /* minor NULL: none */
} currencies[] = {
    { "$", "dollar", "dollars", "cent", "cents" },
    { "\xE2\x82\xAC", "euro", "euros", "cent", "cents" },
    { "\xC2\xA3", "pound", "pounds", "penny", "pence" },
    { "\xC2\xA5", "yen", "yen", NULL, NULL },
};

static const struct { const char *suffix, *word; } multipliers[] = {
    { "K", "thousand" }, { "k", "thousand" }, { "M", "million" }, { "B", "billion" },
    { "bn", "billion" }, { "T", "trillion" },
};

/* Digits, with groups of three after commas ("10,000"): their length, 0 when not so. */
static size_t grouped_digits(const char *s, size_t len)
{
    size_t i = leading(s, len, re_is_digit);
    if (i == 0 || i > 3 || (i < len && s[i] != ','))
        return i;
    while (i + 4 <= len && s[i] == ',' && all_of(s + i + 1, 3, re_is_digit)
           && (i + 4 == len || !re_is_digit(s[i + 4])))
        i += 4;
    return i;
}

/* A whole number said as written without leading zeros: "05" -> "5". */
static void say_whole(normalizer *n, const char *s, size_t len)
{
    while (len > 1 && s[0] == '0') {
        s++;
        len--;
    }
    re_say(n, s, len);
}

int re_say_money(normalizer *n, const char *s, size_t len)
{
    const struct currency *c = NULL;
    size_t sign = 0;
    for (size_t k = 0; k < sizeof currencies / sizeof currencies[0] && !c; k++) {
        sign = strlen(currencies[k].sign);
        if (len > sign && memcmp(s, currencies[k].sign, sign) == 0)
            c = &currencies[k];
    }
    if (!c)
        return 0;
    const char *amount = s + sign;
    size_t rest = len - sign, whole = grouped_digits(amount, rest), number = whole, decimals = 0;
    if (whole == 0)
        return 0;
    if (number + 1 < rest && amount[number] == '.' && re_is_digit(amount[number + 1])) {
        decimals = leading(amount + number + 1, rest - number - 1, re_is_digit);
        number += 1 + decimals;
    }
    const char *multiplier = NULL;
    for (size_t k = 0; k < sizeof multipliers / sizeof multipliers[0] && !multiplier; k++)
        if (equals(amount + number, rest - number, multipliers[k].suffix))
            multiplier = multipliers[k].word;
    if (number != rest && !multiplier)
        return 0;
    /* "$1" is a shell's or a regular expression's parameter, "$120" an assembler's immediate
     * or a tracker's number as often as money: a dollar amount has cents, a thousands comma
     * or a multiplier, else it is left to the engine ("dollar one hundred twenty") */
    if (c->sign[0] == '$' && !decimals && !multiplier && find(amount, whole, ",") == whole)
        return 0;
    if (multiplier) {
        re_say(n, amount, number);
        re_says(n, " ");
        re_says(n, multiplier);
        re_says(n, " ");
        re_says(n, c->many);
        return 1;
    }
    if (decimals == 2 && c->minor_one) {
        const char *cents = amount + whole + 1;
        int no_whole = 1;
        for (size_t k = 0; k < whole; k++)
            no_whole &= amount[k] == '0';
        int no_cents = cents[0] == '0' && cents[1] == '0';
        if (!no_whole || no_cents) {
            say_whole(n, amount, whole);
            re_says(n, " ");
            re_says(n, equals(amount, whole, "1") ? c->one : c->many);
        }
        if (!no_cents) {
            if (!no_whole)
                re_says(n, " ");
            say_whole(n, cents, 2);
            re_says(n, " ");
            re_says(n, equals(cents, 2, "01") ? c->minor_one : c->minor_many);
        }
        return 1;
    }
    re_say(n, amount, number);
    re_says(n, " ");
    re_says(n, equals(amount, number, "1") ? c->one : c->many);
    return 1;
}

/* ---- merge requests and rule codes ------------------------------------------------------- */

int re_say_merge_request(normalizer *n, const char *s, size_t len)
{
    size_t bang = find(s, len, "!");
    if (bang == len || bang + 1 == len || !all_of(s + bang + 1, len - bang - 1, re_is_digit))
        return 0;
    if (bang > 0) {   /* group/project!456: a project's path, with its slash */
        if (!is_ascii(s, bang) || find(s, bang, "/") == bang || !re_is_alnum(s[bang - 1]))
            return 0;
        re_say_core(n, s, bang);
        re_says(n, " ");
    }
    if (!equals_fold(n->previous, n->previous_len, "mr") || bang > 0)
        re_says(n, "merge request ");
    re_say_reference_number(n, s + bang + 1, len - bang - 1);
    return 1;
}

static int is_advisory_char(char c)
{
    return re_is_digit(c) || re_is_lower(c);
}

int re_say_advisory(normalizer *n, const char *s, size_t len)
{
    if (len != 19 || memcmp(s, "GHSA", 4) != 0)
        return 0;
    for (size_t part = 4; part < len; part += 5)
        if (s[part] != '-' || !all_of(s + part + 1, 4, is_advisory_char))
            return 0;
    re_say_letters(n, s, 4);
    for (size_t part = 5; part < len; part += 5) {
        re_says(n, " ");
        re_say_characters(n, s + part, 4);
    }
    return 1;
}

/* Lint rules' prefixes of more than one letter (ruff's linters, pylint's PL*): with three
 * or four digits, always a rule. A single letter (E501 of pycodestyle) is a rule where the
 * words around say so, since model names look the same (H100). */
static const char *const rule_prefixes[] = {
    "AIR", "ANN", "ARG", "ASYNC", "BLE", "COM", "CPY", "DJ", "DOC", "DTZ", "EM", "ERA", "EXE",
    "FA", "FAST", "FBT", "FIX", "FLY", "FURB", "ICN", "INP", "INT", "ISC", "LOG", "NPY", "PD",
    "PERF", "PGH", "PIE", "PL", "PLC", "PLE", "PLR", "PLW", "PT", "PTH", "PYI", "RET", "RSE",
    "RUF", "SIM", "SLF", "SLOT", "TC", "TCH", "TD", "TID", "TRY", "UP", "YTT", NULL,
};

/* Words before a rule code that say it is one ("rule E501", "ignore E501"). */
static const char *const rule_words[] = {
    "rule", "rules", "code", "codes", "lint", "check", "checks", "warning", "warnings", "error",
    "errors", "diagnostic", "diagnostics", "ignore", "select", "noqa", NULL,
};

int re_say_rule_code(normalizer *n, const char *s, size_t len)
{
    size_t letters = leading(s, len, re_is_upper), digits = len - letters;
    if (letters == 0 || letters > 5 || digits < 3 || digits > 4
        || !all_of(s + letters, digits, re_is_digit))
        return 0;
    int known = letters > 1 && in_list(s, letters, rule_prefixes);
    int told = n->after_rule_code || s[letters] == '0'
               || (n->previous && in_list_fold(n->previous, n->previous_len, rule_words))
               || (letters == 1 && s > n->text && s < n->text + n->len && s[-1] == '(');
    if (!known && !(told && (letters == 1 || s[letters] == '0')))
        return 0;
    re_say_letters(n, s, letters);
    re_says(n, " ");
    re_say_digits(n, s + letters, digits);
    n->said_rule_code = 1;
    return 1;
}
