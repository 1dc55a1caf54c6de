/* SPDX-License-Identifier: GPL-3.0-or-later */
/* duration.c - the project's sample-count-to-duration rule and the ISO 8601 and clock
 * readers (see duration.h). Pure arithmetic: no I/O, no allocation. */
#include "duration.h"

#include "text.h"

#include <stdio.h>
#include <string.h>

#define US_PER_S 1000000ULL

/* Overflow-checked helpers: return 0 when the result does not fit. */
static int mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

static int add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return 0;
    *out = a + b;
    return 1;
}

uint64_t re_samples_to_ms(uint64_t samples, unsigned rate)
{
    if (rate == 0)
        return 0;
    /* split so that samples * 1000 cannot overflow */
    return samples / rate * 1000 + samples % rate * 1000 / rate;
}

uint64_t re_samples_to_seconds(uint64_t samples, unsigned rate)
{
    if (rate == 0)
        return 0;
    uint64_t whole = samples / rate;
    uint64_t rest = samples % rate;
    /* half up: a remainder of exactly half a second rounds up */
    return whole + (rest * 2 >= rate ? 1 : 0);
}

uint64_t re_us_to_frames(uint64_t us, unsigned rate)
{
    /* split so that us * rate cannot overflow; the sum is the same as (us * rate + 500000) /
     * 1000000, which the audio stages used before this was here */
    return us / US_PER_S * rate + (us % US_PER_S * rate + US_PER_S / 2) / US_PER_S;
}

uint64_t re_us_to_frames_down(uint64_t us, unsigned rate)
{
    return us / US_PER_S * rate + us % US_PER_S * rate / US_PER_S;
}

void re_duration_format_iso(uint64_t seconds, char *buf)
{
    uint64_t h = seconds / 3600, m = seconds / 60 % 60, s = seconds % 60;
    if (h > 0)
        snprintf(buf, RE_DURATION_ISO_MAX, "PT%lluH%lluM%lluS", (unsigned long long)h,
                 (unsigned long long)m, (unsigned long long)s);
    else if (m > 0)
        snprintf(buf, RE_DURATION_ISO_MAX, "PT%lluM%lluS", (unsigned long long)m,
                 (unsigned long long)s);
    else
        snprintf(buf, RE_DURATION_ISO_MAX, "PT%lluS", (unsigned long long)s);
}

/* One decimal number as written: integer part and an optional fraction, kept as digits so
 * the value can be scaled exactly by its unit. */
typedef struct number {
    uint64_t whole;          /* integer part; `overflow` when it did not fit */
    uint64_t frac;           /* up to 18 fraction digits as an integer ... */
    unsigned frac_digits;    /* ... and how many of them were kept */
    int has_frac;            /* a fraction separator was present */
    int overflow;
} number;

/* Reads digits [sep digits] at s[*pos]. `seps` lists the accepted fraction separators.
 * Returns 0 when there is no digit at *pos or the separator is not followed by a digit. */
static int read_number(const char *s, size_t len, size_t *pos, const char *seps, number *n)
{
    size_t i = *pos;
    *n = (number){ 0 };
    if (i >= len || !re_is_digit(s[i]))
        return 0;
    for (; i < len && re_is_digit(s[i]); i++)
        if (!mul_u64(n->whole, 10, &n->whole)
            || !add_u64(n->whole, (uint64_t)(s[i] - '0'), &n->whole))
            n->overflow = 1;
    int is_sep = 0;
    for (const char *p = seps; i < len && *p; p++)
        if (s[i] == *p)
            is_sep = 1;
    if (is_sep) {
        i++;
        if (i >= len || !re_is_digit(s[i]))
            return 0;
        n->has_frac = 1;
        for (; i < len && re_is_digit(s[i]); i++) {
            if (n->frac_digits < 18) {   /* digits past the 18th are far below 1 us: dropped */
                n->frac = n->frac * 10 + (uint64_t)(s[i] - '0');
                n->frac_digits++;
            }
        }
    }
    *pos = i;
    return 1;
}

static uint64_t pow10_u64(unsigned k)
{
    uint64_t p = 1;
    while (k-- > 0)
        p *= 10;
    return p;
}

/* value = n * unit_us, with the fraction rounded half up to whole microseconds. Also the
 * value of one unit in n's last digit (at least 1 us). Returns 0 on overflow. */
static int scale_number(const number *n, uint64_t unit_us, uint64_t *value, uint64_t *last_unit)
{
    if (n->overflow || !mul_u64(n->whole, unit_us, value))
        return 0;
    *last_unit = unit_us;
    if (!n->has_frac)
        return 1;
    uint64_t den = pow10_u64(n->frac_digits);
    unsigned __int128 num = (unsigned __int128)n->frac * unit_us;
    uint64_t frac_us = (uint64_t)((num + den / 2) / den);
    uint64_t step = unit_us / den;
    *last_unit = step > 0 ? step : 1;
    return add_u64(*value, frac_us, value);
}

typedef struct iso_unit {
    char designator;
    uint64_t us;        /* 0: years and months, whose length is not fixed */
    int time_part;      /* after the T */
} iso_unit;

static const iso_unit ISO_UNITS[] = {
    { 'Y', 0, 0 }, { 'M', 0, 0 }, { 'D', 86400 * US_PER_S, 0 },
    { 'H', 3600 * US_PER_S, 1 }, { 'M', 60 * US_PER_S, 1 }, { 'S', US_PER_S, 1 },
};
#define ISO_UNIT_COUNT (sizeof ISO_UNITS / sizeof ISO_UNITS[0])

/* PnW: a number of weeks and nothing else. */
static re_status parse_iso_weeks(const char *s, size_t len, re_duration *out)
{
    size_t pos = 1;
    number n;
    if (!read_number(s, len, &pos, ".,", &n) || pos + 1 != len || s[pos] != 'W')
        return RE_ERR_INPUT;
    uint64_t value, unit;
    if (!scale_number(&n, 7 * 86400 * US_PER_S, &value, &unit))
        return RE_ERR_INPUT;
    *out = (re_duration){ value, unit };
    return RE_OK;
}

/* Finds the next unit after `from` (an index into ISO_UNITS) that matches designator c in the
 * current part; returns ISO_UNIT_COUNT when there is none. */
static size_t next_unit(size_t from, char c, int time_part)
{
    for (size_t u = from; u < ISO_UNIT_COUNT; u++)
        if (ISO_UNITS[u].designator == c && ISO_UNITS[u].time_part == time_part)
            return u;
    return ISO_UNIT_COUNT;
}

re_status re_duration_parse_iso(const char *s, size_t len, re_duration *out)
{
    if (!s || !out || len < 3 || s[0] != 'P')
        return RE_ERR_INPUT;
    if (s[len - 1] == 'W')
        return parse_iso_weeks(s, len, out);
    uint64_t total = 0, last_unit = 0;
    size_t pos = 1, unit = 0, components = 0;
    int time_part = 0, seen_fraction = 0, time_components = 0;
    while (pos < len) {
        if (s[pos] == 'T') {
            if (time_part)
                return RE_ERR_INPUT;
            time_part = 1;
            pos++;
            continue;
        }
        number n;
        if (seen_fraction || !read_number(s, len, &pos, ".,", &n) || pos >= len)
            return RE_ERR_INPUT;
        size_t u = next_unit(unit, s[pos], time_part);
        if (u == ISO_UNIT_COUNT)
            return RE_ERR_INPUT;
        pos++;
        unit = u + 1;
        components++;
        time_components += time_part;
        seen_fraction = n.has_frac;   /* a fraction only on the last component */
        uint64_t value = 0, step;
        if (ISO_UNITS[u].us == 0) {
            if (n.whole != 0 || n.frac != 0 || n.overflow)
                return RE_ERR_INPUT;   /* years and months have no fixed length */
            step = 0;
        } else if (!scale_number(&n, ISO_UNITS[u].us, &value, &step)) {
            return RE_ERR_INPUT;
        }
        if (!add_u64(total, value, &total))
            return RE_ERR_INPUT;
        last_unit = step;
    }
    if (components == 0 || (time_part && time_components == 0))
        return RE_ERR_INPUT;
    /* "P0Y" alone: its last unit has no fixed length; call it whole days */
    *out = (re_duration){ total, last_unit ? last_unit : 86400 * US_PER_S };
    return RE_OK;
}

re_status re_duration_parse_clock(const char *s, size_t len, re_duration *out)
{
    if (!s || !out || len == 0)
        return RE_ERR_INPUT;
    number parts[3];
    size_t count = 0, pos = 0;
    for (;;) {
        if (count == 3 || !read_number(s, len, &pos, ".", &parts[count]))
            return RE_ERR_INPUT;
        count++;
        if (pos == len)
            break;
        if (s[pos] != ':' || parts[count - 1].has_frac)
            return RE_ERR_INPUT;
        pos++;
    }
    uint64_t total = 0;
    for (size_t i = 0; i + 1 < count; i++) {
        if (i > 0 && parts[i].whole >= 60)
            return RE_ERR_INPUT;
        uint64_t unit_s = (count - 1 - i == 2) ? 3600 : 60, v;
        if (parts[i].overflow || !mul_u64(parts[i].whole, unit_s * US_PER_S, &v)
            || !add_u64(total, v, &total))
            return RE_ERR_INPUT;
    }
    const number *sec = &parts[count - 1];
    if (count > 1 && sec->whole >= 60)
        return RE_ERR_INPUT;
    uint64_t value, unit;
    if (!scale_number(sec, US_PER_S, &value, &unit) || !add_u64(total, value, &total))
        return RE_ERR_INPUT;
    *out = (re_duration){ total, unit };
    return RE_OK;
}

re_status re_duration_parse_units(const char *s, size_t len, re_duration *out)
{
    if (!s || !out || len == 0)
        return RE_ERR_INPUT;
    if (s[0] == 'P')
        return re_duration_parse_iso(s, len, out);
    static const struct { const char *name; uint64_t us; } units[] = {
        { "h", 3600 * US_PER_S }, { "ms", 1000 }, { "m", 60 * US_PER_S }, { "s", US_PER_S },
    };
    size_t pos = 0, last = sizeof units / sizeof units[0];   /* units go from large to small */
    uint64_t total = 0, unit = 0;
    int any = 0;
    while (pos < len) {
        number n;
        if (!read_number(s, len, &pos, ".", &n))
            return RE_ERR_INPUT;
        size_t u = 0;
        while (u < sizeof units / sizeof units[0]) {
            size_t k = strlen(units[u].name);
            if (pos + k <= len && memcmp(s + pos, units[u].name, k) == 0
                && (pos + k == len || re_is_digit(s[pos + k])))
                break;
            u++;
        }
        if (u == sizeof units / sizeof units[0]) {
            if (pos != len || any)   /* a bare number: seconds, alone */
                return RE_ERR_INPUT;
            u = 3;
        } else {
            pos += strlen(units[u].name);
        }
        uint64_t order = u == 0 ? 0 : u == 2 ? 1 : u == 3 ? 2 : 3;   /* h m s ms */
        uint64_t value;
        if ((any && order <= last) || (n.has_frac && pos != len)
            || !scale_number(&n, units[u].us, &value, &unit) || !add_u64(total, value, &total))
            return RE_ERR_INPUT;
        last = order;
        any = 1;
    }
    *out = (re_duration){ total, unit };
    return RE_OK;
}
