/* SPDX-License-Identifier: GPL-3.0-or-later */
/* dates.c - dates and times as a person reads them out: ISO dates ("2026-11-30" -> "November
 * 30th, 2026"; a British voice: "the 30th of November 2026"), months ("2026-11"), ranges of
 * dates, date-times ("2026-11-30T09:00:00Z"), times of day with their zone ("14:00" -> "2 PM",
 * "17:45+01:00" -> "5:45 PM, UTC plus 1"), and months written short beside a day ("Nov 30" ->
 * "November 30th"). What is not a real date (2026-02-30) or not surely a time is left to the
 * other rules, as before. */
#include "normalize_internal.h"

#include <stdio.h>
#include <string.h>

static const char *const month_names[12] = {
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
};

/* The value of s[0..len), all digits (len <= 4), or -1. */
static int value(const char *s, size_t len)
{
    if (len == 0 || len > 4 || !all_of(s, len, re_is_digit))
        return -1;
    int v = 0;
    for (size_t i = 0; i < len; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

static int days_in(int year, int month)
{
    static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return days[month - 1] + (month == 2 && leap);
}

typedef struct date {
    int year, month, day;   /* day 0: a month ("2026-11") */
} date;

/* "YYYY-MM-DD" at the start of s[0..len), a real day of a year 1000-2999: its length (10),
 * or 0. */
static size_t parse_date(const char *s, size_t len, date *d)
{
    if (len < 10 || s[4] != '-' || s[7] != '-')
        return 0;
    d->year = value(s, 4);
    d->month = value(s + 5, 2);
    d->day = value(s + 8, 2);
    if (d->year < 1000 || d->year > 2999 || d->month < 1 || d->month > 12 || d->day < 1
        || d->day > days_in(d->year, d->month))
        return 0;
    if (len > 10 && re_is_digit(s[10]))
        return 0;
    return 10;
}

/* A whole word that is one date. */
static int is_date(const char *s, size_t len)
{
    date d;
    return s && len == 10 && parse_date(s, len, &d) == 10;
}

/* "30th", "1st", "22nd", "3rd": the ordinal suffix of day. */
static const char *ordinal(int day)
{
    if (day % 100 >= 11 && day % 100 <= 13)
        return "th";
    return day % 10 == 1 ? "st" : day % 10 == 2 ? "nd" : day % 10 == 3 ? "rd" : "th";
}

/* "November 30th, 2026" (British: "the 30th of November 2026"); without_year: "November
 * 30th" (the year said after the end of a range). */
static void say_date(normalizer *n, const date *d, int without_year)
{
    char text[64];
    if (d->day == 0)
        snprintf(text, sizeof text, "%s %d", month_names[d->month - 1], d->year);
    else if (n->british)
        snprintf(text, sizeof text, without_year ? "the %d%s of %s" : "the %d%s of %s %d", d->day,
                 ordinal(d->day), month_names[d->month - 1], d->year);
    else
        snprintf(text, sizeof text, without_year ? "%s %d%s" : "%s %d%s, %d",
                 month_names[d->month - 1], d->day, ordinal(d->day), d->year);
    re_says(n, text);
}

/* ---- times ------------------------------------------------------------------------------- */

typedef struct clock_time {
    int hour, minute, second;   /* second -1: none written */
    int zone;                   /* 0 none, 1 UTC (Z or +00:00), 2 an offset */
    int offset_sign, offset_hour, offset_minute;
} clock_time;

/* A zone after a time: "Z", "+01:00", "-0700", "+05". Its length, or 0 (none: len 0). */
static size_t parse_zone(const char *s, size_t len, clock_time *t)
{
    if (len == 1 && (s[0] == 'Z' || s[0] == 'z')) {
        t->zone = 1;
        return 1;
    }
    if (len < 3 || (s[0] != '+' && s[0] != '-'))
        return 0;
    int h = value(s + 1, 2), m = 0;
    if (len == 6 && s[3] == ':')
        m = value(s + 4, 2);
    else if (len == 5)
        m = value(s + 3, 2);
    else if (len != 3)
        return 0;
    if (h < 0 || h > 14 || m < 0 || m > 59)
        return 0;
    t->zone = h == 0 && m == 0 ? 1 : 2;
    t->offset_sign = s[0] == '+' ? 1 : -1;
    t->offset_hour = h;
    t->offset_minute = m;
    return len;
}

/* "HH:MM", "HH:MM:SS" (a fraction of a second left unsaid), then a zone or nothing: the
 * whole of s[0..len). The hour has one digit only when `short_hour`. */
static int parse_time(const char *s, size_t len, int short_hour, clock_time *t)
{
    memset(t, 0, sizeof *t);
    t->second = -1;
    size_t h = leading(s, len, re_is_digit);
    if ((h != 2 && !(h == 1 && short_hour)) || h + 3 > len || s[h] != ':')
        return 0;
    t->hour = value(s, h);
    t->minute = value(s + h + 1, 2);
    size_t i = h + 3;
    if (t->hour > 23 || t->minute < 0 || t->minute > 59 || (i < len && re_is_digit(s[i])))
        return 0;
    if (i + 3 <= len && s[i] == ':') {
        t->second = value(s + i + 1, 2);
        if (t->second < 0 || t->second > 60)   /* 60: a leap second */
            return 0;
        i += 3;
        if (i < len && s[i] == '.') {
            size_t f = leading(s + i + 1, len - i - 1, re_is_digit);
            if (f == 0)
                return 0;
            i += 1 + f;
        }
    }
    return i == len || parse_zone(s + i, len - i, t) == len - i;
}

static const char *const zone_words[] = {
    "UTC", "GMT", "CET", "CEST", "EET", "EEST", "WET", "BST", "IST", "EST", "EDT", "CST", "CDT",
    "MST", "MDT", "PST", "PDT", "JST", "KST", "AEST", "AEDT", "NZST", NULL,
};
static const char *const half_days[] = { "am", "pm", "a.m", "p.m", "a.m.", "p.m.", NULL };

/* "5:45" of 5 and 45, "9 oh 5" of 9 and 5 (the engine says 9:05 "nine zero five"), "2" of
 * 2 and 0. */
static void say_hour_minute(normalizer *n, int hour, int minute)
{
    char text[32];
    if (minute == 0)
        snprintf(text, sizeof text, "%d", hour);
    else if (minute < 10)
        snprintf(text, sizeof text, "%d oh %d", hour, minute);
    else
        snprintf(text, sizeof text, "%d:%02d", hour, minute);
    re_says(n, text);
}

/* A time of the 24-hour clock as said in English: "2 PM", "9:30 AM", "midnight", "noon",
 * seconds when not 0 ("and 42 seconds"), then its zone ("UTC", ", UTC plus 1"). */
static void say_clock(normalizer *n, const clock_time *t)
{
    char text[48];
    if (t->hour == 0 && t->minute == 0) {
        re_says(n, "midnight");
    } else if (t->hour == 12 && t->minute == 0) {
        re_says(n, "noon");
    } else {
        say_hour_minute(n, t->hour % 12 ? t->hour % 12 : 12, t->minute);
        re_says(n, t->hour < 12 ? " AM" : " PM");
    }
    if (t->second > 0) {
        snprintf(text, sizeof text, " and %d second%s", t->second, t->second == 1 ? "" : "s");
        re_says(n, text);
    }
    if (t->zone == 1) {
        re_says(n, " UTC");
    } else if (t->zone == 2) {
        snprintf(text, sizeof text, ", UTC %s %d", t->offset_sign > 0 ? "plus" : "minus",
                 t->offset_hour);
        re_says(n, text);
        if (t->offset_minute) {
            snprintf(text, sizeof text, ":%02d", t->offset_minute);
            re_says(n, text);
        }
    }
}

/* Whether the chunk being said ends with s[0..len): no closing marks after it. */
static int nothing_after(const normalizer *n, const char *s, size_t len)
{
    return s + len == n->text + n->chunks[n->chunk_index].end;
}

int re_say_time(normalizer *n, const char *s, size_t len)
{
    const char *next;
    size_t next_len;
    re_next_core(n, &next, &next_len);
    int half_day = next && in_list_fold(next, next_len, half_days) && nothing_after(n, s, len);
    int zone_next = next && in_list(next, next_len, zone_words);
    clock_time t;
    if (!parse_time(s, len, half_day || zone_next, &t)
        && !(parse_time(s, len, 1, &t) && t.zone))
        return 0;
    if (half_day) {   /* the 12-hour clock: "3:00 PM" -> "3 PM", the next word says PM */
        if (t.hour < 1 || t.hour > 12 || t.zone || t.second > 0)
            return 0;
        re_detail(n, "time: as the clock is read");
        say_hour_minute(n, t.hour, t.minute);
        return 1;
    }
    say_clock(n, &t);
    return 1;
}

int re_say_date_time(normalizer *n, const char *s, size_t len)
{
    date d, d2;
    if (len == 7 && s[4] == '-') {   /* "2026-11": a month */
        d.year = value(s, 4);
        d.month = value(s + 5, 2);
        d.day = 0;
        if (d.year < 1900 || d.year > 2099 || d.month < 1 || d.month > 12)
            return 0;
        re_detail(n, "date: a month and year");
        say_date(n, &d, 0);
        return 1;
    }
    if (!parse_date(s, len, &d))
        return 0;
    if (len == 10) {
        const char *next, *after;
        size_t next_len, after_len;
        re_next_core(n, &next, &next_len);
        re_word_ahead(n, 2, &after, &after_len);
        clock_time t;
        int range = next && nothing_after(n, s, len) && (equals(next, next_len, "-")
                    || equals(next, next_len, "\xE2\x80\x93") || equals(next, next_len, "\xE2\x80\x94")
                    || equals(next, next_len, "to") || equals(next, next_len, ".."))
                    && is_date(after, after_len) && memcmp(after, s, 4) == 0;
        say_date(n, &d, range);   /* "March 2nd to March 13th, 2026": the year once */
        if (next && nothing_after(n, s, len) && (parse_time(next, next_len, 0, &t)))
            re_says(n, ",");
        return 1;
    }
    const char *rest = s + 10;
    size_t rest_len = len - 10;
    static const char *const joiners[] = { "..", "\xE2\x80\x93", "\xE2\x80\x94", "/", NULL };
    for (const char *const *j = joiners; *j; j++) {
        size_t m = strlen(*j);
        if (rest_len == m + 10 && memcmp(rest, *j, m) == 0 && parse_date(rest + m, 10, &d2)) {
            re_detail(n, "date range: from one day to another");
            say_date(n, &d, d.year == d2.year);
            re_says(n, " to ");
            say_date(n, &d2, 0);
            return 1;
        }
    }
    clock_time t;
    if ((rest[0] == 'T' || rest[0] == 't') && parse_time(rest + 1, rest_len - 1, 0, &t)) {
        re_detail(n, "date and time");
        say_date(n, &d, 0);
        re_says(n, ", ");
        say_clock(n, &t);
        return 1;
    }
    return 0;
}

int re_say_date_dash(normalizer *n, const char *s, size_t len)
{
    const char *next;
    size_t next_len;
    if (!(equals(s, len, "-") || equals(s, len, "\xE2\x80\x93") || equals(s, len, "\xE2\x80\x94")
          || equals(s, len, "..")))
        return 0;
    re_next_core(n, &next, &next_len);
    if (!is_date(n->previous, n->previous_len) || !is_date(next, next_len))
        return 0;
    re_says(n, "to");
    return 1;
}

/* A month written short ("Nov", "Sept"; "May" is a word) or in full, capitalized. Its
 * number 1-12, or 0. */
static int month_of(const char *s, size_t len, int short_only)
{
    static const char *const short_names[] = { "Jan", "Feb", "Mar", "Apr", "", "Jun", "Jul",
                                                "Aug", "Sep", "Oct", "Nov", "Dec" };
    if (!s)
        return 0;
    for (int m = 0; m < 12; m++)
        if ((short_names[m][0] && equals(s, len, short_names[m]))
            || (!short_only && equals(s, len, month_names[m])))
            return m + 1;
    return equals(s, len, "Sept") ? 9 : 0;
}

/* A day of a month: 1-31, a plain number. */
static int day_of(const char *s, size_t len)
{
    int v = len <= 2 ? value(s, len) : -1;
    return v >= 1 && v <= 31 ? v : 0;
}

int re_say_month(normalizer *n, const char *s, size_t len)
{
    int month = month_of(s, len, 1);
    if (!month)
        return 0;
    const char *next;
    size_t next_len;
    re_next_core(n, &next, &next_len);
    size_t digits = next ? leading(next, next_len, re_is_digit) : 0;
    int day_next = digits > 0 && day_of(next, digits)
                   && (digits == next_len || (next_len - digits == 2
                                              && equals(next + digits, 2, ordinal(day_of(next, digits)))));
    int year_next = digits == 4 && next_len == 4 && value(next, 4) >= 1000;
    int day_before = n->after_number && day_of(n->previous, n->previous_len);
    if (!day_next && !year_next && !day_before)
        return 0;
    re_says(n, month_names[month - 1]);
    return 1;
}

int re_say_day(normalizer *n, const char *s, size_t len)
{
    int day = day_of(s, len);
    if (!day || !n->previous_bare || !month_of(n->previous, n->previous_len, 0))
        return 0;
    const char *next;
    size_t next_len;
    re_next_core(n, &next, &next_len);
    if (next && !nothing_after(n, s, len))
        next = NULL;   /* "May 5, 2026": the comma is after the day */
    if (next && (in_list_fold(next, next_len, half_days) || re_is_plain_number(next, next_len)))
        return 0;   /* "June 3 PM", "March 1 2" */
    re_say(n, s, len);
    re_says(n, ordinal(day));
    return 1;
}
