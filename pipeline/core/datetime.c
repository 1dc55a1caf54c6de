/* SPDX-License-Identifier: GPL-3.0-or-later */
/* datetime.c - ISO 8601 dates and date-times (datetime.h). */
#include "datetime.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "text.h"

/* Value of s[0..n) if it is exactly n digits, else -1. */
static long fixed_digits(const char *s, size_t n)
{
    long value = 0;

    for (size_t i = 0; i < n; i++) {
        if (!re_is_digit(s[i]))
            return -1;
        value = value * 10 + (s[i] - '0');
    }
    return value;
}

static int days_in_month(long year, long month)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

    return month == 2 && leap ? 29 : days[month - 1];
}

/* HH:MM[:SS[.fraction]] then Z or +-HH:MM at s[0..len). */
static const char *parse_time(const char *s, size_t len, unsigned flags, re_datetime *t,
                              char *reason, size_t reason_size)
{
    long hour = len >= 5 && s[2] == ':' ? fixed_digits(s, 2) : -1;
    long minute = hour >= 0 ? fixed_digits(s + 3, 2) : -1;
    long second = 0, millisecond = 0;
    size_t i = 5;

    if (minute < 0)
        return "not in the form YYYY-MM-DDTHH:MM[:SS]";
    if (i < len && s[i] == ':') {
        second = i + 3 <= len ? fixed_digits(s + i + 1, 2) : -1;
        if (second < 0)
            return "the seconds must be two digits";
        i += 3;
        if (i < len && s[i] == '.') {
            size_t digits = i + 1;
            long scale = 100;
            while (digits < len && re_is_digit(s[digits])) {
                millisecond += (s[digits] - '0') * scale;
                scale /= 10;
                digits++;
            }
            if (digits == i + 1)
                return "a decimal point must be followed by digits";
            i = digits;
        }
    }
    if (hour > 23 || minute > 59 || second > 59) {
        snprintf(reason, reason_size, "%s %.2s is out of range (00..%s)",
                 hour > 23 ? "hour" : minute > 59 ? "minute" : "second",
                 hour > 23 ? s : minute > 59 ? s + 3 : s + 6, hour > 23 ? "23" : "59");
        return reason;
    }
    t->has_time = 1;
    t->hour = (int)hour;
    t->minute = (int)minute;
    t->second = (int)second;
    t->millisecond = (int)millisecond;
    if (i == len)
        return (flags & RE_DATETIME_ZONE_OPTIONAL) ? NULL
                                                   : "a date-time needs a time zone, e.g. Z or +02:00";
    t->zone_sign = '+';
    if (s[i] == 'Z' && i + 1 == len) {
        t->has_zone = 1;
        return NULL;
    }
    long zone_hour = (s[i] == '+' || s[i] == '-') && len - i == 6 && s[i + 3] == ':'
                     ? fixed_digits(s + i + 1, 2) : -1;
    long zone_minute = zone_hour >= 0 ? fixed_digits(s + i + 4, 2) : -1;
    if (zone_minute < 0)
        return "the time zone must be Z or +HH:MM or -HH:MM";
    if (zone_minute > 59 || zone_hour * 60 + zone_minute > 14 * 60)
        return "the time-zone offset must be at most 14:00";
    t->has_zone = 1;
    t->zone_sign = s[i];
    t->zone_minutes = (int)((s[i] == '-' ? -1 : 1) * (zone_hour * 60 + zone_minute));
    return NULL;
}

const char *re_datetime_parse(const char *s, size_t len, unsigned flags, re_datetime *out,
                              char *reason, size_t reason_size)
{
    re_datetime t;
    memset(&t, 0, sizeof t);
    long year = len >= 10 && s[4] == '-' && s[7] == '-' ? fixed_digits(s, 4) : -1;
    long month = year >= 0 ? fixed_digits(s + 5, 2) : -1;
    long day = month >= 0 ? fixed_digits(s + 8, 2) : -1;

    if (day < 0 || (len > 10 && s[10] != 'T'))
        return "expected an ISO 8601 date YYYY-MM-DD or date-time YYYY-MM-DDTHH:MM:SSZ";
    if (month < 1 || month > 12) {
        snprintf(reason, reason_size, "month %.2s is out of range (01..12)", s + 5);
        return reason;
    }
    if (day < 1 || day > days_in_month(year, month)) {
        snprintf(reason, reason_size, "day %.2s does not exist in %.7s", s + 8, s);
        return reason;
    }
    t.year = (int)year;
    t.month = (int)month;
    t.day = (int)day;
    if (len > 10) {
        const char *why = parse_time(s + 11, len - 11, flags, &t, reason, reason_size);
        if (why)
            return why;
    }
    if (out)
        *out = t;
    return NULL;
}

/* Howard Hinnant's days_from_civil. */
long long re_days_from_civil(long long y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

re_status re_rfc822_from_iso(const char *iso, char out[RE_RFC822_MAX], int64_t *instant_ms)
{
    static const char *const day_names[] = { "Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed" };
    static const char *const month_names[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    re_datetime t;
    char reason[128];
    if (re_datetime_parse(iso, strlen(iso), 0, &t, reason, sizeof reason))
        return RE_ERR_INPUT;
    int zone = t.zone_minutes < 0 ? -t.zone_minutes : t.zone_minutes;
    int64_t days = re_days_from_civil(t.year, t.month, t.day);
    int weekday = (int)(((days % 7) + 7) % 7);
    char text[80];   /* every field is range-checked: the text is 31 bytes */
    snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d %c%02d%02d",
             day_names[weekday], t.day, month_names[t.month - 1], t.year, t.hour, t.minute,
             t.second, t.has_zone ? t.zone_sign : '+', zone / 60, zone % 60);
    snprintf(out, RE_RFC822_MAX, "%.31s", text);
    if (instant_ms) {
        int64_t local = days * 86400 + t.hour * 3600 + t.minute * 60 + t.second;
        *instant_ms = (local - (int64_t)t.zone_minutes * 60) * 1000 + t.millisecond;
    }
    return RE_OK;
}

/* How a language writes a date: its month names and where day, month and year go. */
typedef enum { DAY_DOT_MONTH, DAY_MONTH, DAY_DE_MONTH_DE, MONTH_DAY_COMMA } date_order;

typedef struct date_words {
    const char *code;           /* a language's first subtag, "en-us" for the US order */
    date_order order;
    const char *first_day;      /* how day 1 is written ("1er"), or NULL for "1" */
    const char *months[12];
} date_words;

static const date_words date_languages[] = {
    { "en-us", MONTH_DAY_COMMA, NULL, { "January", "February", "March", "April", "May",
      "June", "July", "August", "September", "October", "November", "December" } },
    { "en", DAY_MONTH, NULL, { "January", "February", "March", "April", "May", "June",
      "July", "August", "September", "October", "November", "December" } },
    { "de", DAY_DOT_MONTH, NULL, { "Januar", "Februar", "M\xc3\xa4rz", "April", "Mai", "Juni",
      "Juli", "August", "September", "Oktober", "November", "Dezember" } },
    { "fr", DAY_MONTH, "1er", { "janvier", "f\xc3\xa9vrier", "mars", "avril", "mai", "juin",
      "juillet", "ao\xc3\xbbt", "septembre", "octobre", "novembre", "d\xc3\xa9""cembre" } },
    { "es", DAY_DE_MONTH_DE, NULL, { "enero", "febrero", "marzo", "abril", "mayo", "junio",
      "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre" } },
    { "it", DAY_MONTH, "1\xc2\xba", { "gennaio", "febbraio", "marzo", "aprile", "maggio",
      "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre" } },
    { "pt", DAY_DE_MONTH_DE, NULL, { "janeiro", "fevereiro", "mar\xc3\xa7o", "abril", "maio",
      "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro" } },
    { "nl", DAY_MONTH, NULL, { "januari", "februari", "maart", "april", "mei", "juni",
      "juli", "augustus", "september", "oktober", "november", "december" } },
    { "sv", DAY_MONTH, NULL, { "januari", "februari", "mars", "april", "maj", "juni",
      "juli", "augusti", "september", "oktober", "november", "december" } },
    { "da", DAY_DOT_MONTH, NULL, { "januar", "februar", "marts", "april", "maj", "juni",
      "juli", "august", "september", "oktober", "november", "december" } },
    { "nb", DAY_DOT_MONTH, NULL, { "januar", "februar", "mars", "april", "mai", "juni",
      "juli", "august", "september", "oktober", "november", "desember" } },
    { "no", DAY_DOT_MONTH, NULL, { "januar", "februar", "mars", "april", "mai", "juni",
      "juli", "august", "september", "oktober", "november", "desember" } },
    { "pl", DAY_MONTH, NULL, { "stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca",
      "lipca", "sierpnia", "wrze\xc5\x9bnia", "pa\xc5\xba""dziernika", "listopada",
      "grudnia" } },
};

/* The table's entry for a language tag: "en-us" (any case) exactly, else its first subtag. */
static const date_words *date_language(const char *language)
{
    const char *tag = language ? language : "en-us";
    size_t primary = strcspn(tag, "-_");
    for (size_t i = 0; i < sizeof date_languages / sizeof date_languages[0]; i++) {
        const char *code = date_languages[i].code;
        size_t n = strlen(code);
        int whole = strchr(code, '-') != NULL;
        if (whole ? strncasecmp(tag, code, n) == 0 && (tag[n] == '\0' || tag[n] == '-')
                  : primary == n && strncasecmp(tag, code, n) == 0)
            return &date_languages[i];
    }
    return NULL;
}

int re_date_in_words(const char *published, const char *language,
                     char out[RE_DATE_WORDS_MAX])
{
    re_datetime t;
    char reason[128];
    out[0] = '\0';
    if (!published || re_datetime_parse(published, strlen(published), 0, &t, reason,
                                        sizeof reason))
        return -1;
    const date_words *w = date_language(language);
    if (!w) {
        snprintf(out, RE_DATE_WORDS_MAX, "%04d-%02d-%02d", t.year, t.month, t.day);
        return 0;
    }
    char day[8];
    if (t.day == 1 && w->first_day)
        snprintf(day, sizeof day, "%s", w->first_day);
    else
        snprintf(day, sizeof day, "%d", t.day);
    const char *month = w->months[t.month - 1];
    switch (w->order) {
    case DAY_DOT_MONTH: snprintf(out, RE_DATE_WORDS_MAX, "%s. %s %d", day, month, t.year); break;
    case DAY_MONTH: snprintf(out, RE_DATE_WORDS_MAX, "%s %s %d", day, month, t.year); break;
    case DAY_DE_MONTH_DE:
        snprintf(out, RE_DATE_WORDS_MAX, "%s de %s de %d", day, month, t.year);
        break;
    case MONTH_DAY_COMMA: snprintf(out, RE_DATE_WORDS_MAX, "%s %s, %d", month, day, t.year); break;
    }
    return 1;
}
