/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_datetime.c - ISO 8601 dates and date-times as `published:` is written: every field of
 * what is accepted, the exact reason for what is not, and re_days_from_civil against known
 * dates and against a day-by-day walk through the calendar. */
#include <stdio.h>
#include <string.h>

#include "testkit.h"
#include "datetime.h"

/* Parses s whole; returns the reason (NULL when valid). */
static const char *parse(const char *s, unsigned flags, re_datetime *out, char *reason,
                         size_t reason_size)
{
    return re_datetime_parse(s, strlen(s), flags, out, reason, reason_size);
}

static void valid(const char *s, unsigned flags, int y, int mo, int d, int has_time, int h,
                  int mi, int sec, int ms, int has_zone, int zone_minutes, char zone_sign)
{
    re_datetime t;
    memset(&t, 0x55, sizeof t);
    char reason[128] = "";
    const char *why = parse(s, flags, &t, reason, sizeof reason);
    if (why)
        fprintf(stderr, "refused %s: %s\n", s, why);
    CHECK(why == NULL);
    CHECK_INT(t.year, y);
    CHECK_INT(t.month, mo);
    CHECK_INT(t.day, d);
    CHECK_INT(t.has_time, has_time);
    CHECK_INT(t.hour, h);
    CHECK_INT(t.minute, mi);
    CHECK_INT(t.second, sec);
    CHECK_INT(t.millisecond, ms);
    CHECK_INT(t.has_zone, has_zone);
    CHECK_INT(t.zone_minutes, zone_minutes);
    if (has_zone)
        CHECK_INT(t.zone_sign, zone_sign);
}

/* Refused, with exactly this reason; *out is left as it was. */
static void invalid(const char *s, unsigned flags, const char *expected)
{
    re_datetime t;
    memset(&t, 0x55, sizeof t);
    re_datetime before = t;
    char reason[128] = "";
    const char *why = parse(s, flags, &t, reason, sizeof reason);
    if (!why)
        fprintf(stderr, "accepted: \"%s\"\n", s);
    CHECK_STR(why, expected);
    CHECK(memcmp(&t, &before, sizeof t) == 0);
}

static void test_dates(void)
{
    valid("2026-11-30", 0, 2026, 11, 30, 0, 0, 0, 0, 0, 0, 0, 0);
    valid("2024-02-29", 0, 2024, 2, 29, 0, 0, 0, 0, 0, 0, 0, 0);    /* leap year */
    valid("2000-02-29", 0, 2000, 2, 29, 0, 0, 0, 0, 0, 0, 0, 0);    /* divisible by 400 */
    valid("0000-01-01", 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    valid("9999-12-31", 0, 9999, 12, 31, 0, 0, 0, 0, 0, 0, 0, 0);
    valid("2026-04-30", 0, 2026, 4, 30, 0, 0, 0, 0, 0, 0, 0, 0);

    const char *shape = "expected an ISO 8601 date YYYY-MM-DD or date-time YYYY-MM-DDTHH:MM:SSZ";
    invalid("", 0, shape);
    invalid("2026-11-3", 0, shape);
    invalid("2026-1-30", 0, shape);
    invalid("20261130", 0, shape);
    invalid("2026/11/30", 0, shape);
    invalid("+2026-11-30", 0, shape);
    invalid("-026-11-30", 0, shape);
    invalid("2026-11-30junk", 0, shape);
    invalid("2026-11-30 09:00:00Z", 0, shape);
    invalid("2026-11-30t09:00:00Z", 0, shape);
    invalid("２０２６-11-30", 0, shape);

    invalid("2026-13-01", 0, "month 13 is out of range (01..12)");
    invalid("2026-00-10", 0, "month 00 is out of range (01..12)");
    invalid("2026-02-29", 0, "day 29 does not exist in 2026-02");
    invalid("1900-02-29", 0, "day 29 does not exist in 1900-02");   /* divisible by 100 */
    invalid("2026-04-31", 0, "day 31 does not exist in 2026-04");
    invalid("2026-11-00", 0, "day 00 does not exist in 2026-11");
    invalid("2026-12-32", 0, "day 32 does not exist in 2026-12");

    /* only s[0..len) is read */
    re_datetime t;
    CHECK(re_datetime_parse("2026-11-30Tjunk", 10, 0, &t, NULL, 0) == NULL);
    CHECK_INT(t.day, 30);
    CHECK(re_datetime_parse("2026-11-30", 9, 0, &t, NULL, 0) != NULL);
    /* out may be NULL */
    CHECK(re_datetime_parse("2026-11-30", 10, 0, NULL, NULL, 0) == NULL);
    /* a reason written into a short buffer is cut and terminated there */
    char small[8];
    const char *why = parse("2026-13-01", 0, NULL, small, sizeof small);
    CHECK(why == small);
    CHECK_STR(small, "month 1");
}

static void test_date_times(void)
{
    valid("2026-11-30T09:00:00Z", 0, 2026, 11, 30, 1, 9, 0, 0, 0, 1, 0, '+');
    valid("2026-11-30T09:05Z", 0, 2026, 11, 30, 1, 9, 5, 0, 0, 1, 0, '+');
    valid("2026-07-14T13:00:41.250-05:30", 0, 2026, 7, 14, 1, 13, 0, 41, 250, 1, -330, '-');
    valid("2026-11-30T23:59:59+01:00", 0, 2026, 11, 30, 1, 23, 59, 59, 0, 1, 60, '+');
    valid("2026-11-30T00:00:00-00:00", 0, 2026, 11, 30, 1, 0, 0, 0, 0, 1, 0, '-');
    valid("2026-11-30T00:00+14:00", 0, 2026, 11, 30, 1, 0, 0, 0, 0, 1, 840, '+');
    valid("2026-11-30T00:00-14:00", 0, 2026, 11, 30, 1, 0, 0, 0, 0, 1, -840, '-');
    /* the fraction's first three digits, not rounded */
    valid("2026-11-30T09:00:00.5Z", 0, 2026, 11, 30, 1, 9, 0, 0, 500, 1, 0, '+');
    valid("2026-11-30T09:00:00.05Z", 0, 2026, 11, 30, 1, 9, 0, 0, 50, 1, 0, '+');
    valid("2026-11-30T09:00:00.9999Z", 0, 2026, 11, 30, 1, 9, 0, 0, 999, 1, 0, '+');
    valid("2026-11-30T09:00:00.123456789012345678901234567890Z", 0,
          2026, 11, 30, 1, 9, 0, 0, 123, 1, 0, '+');

    /* a zone is required unless the caller allows none */
    const char *zone_needed = "a date-time needs a time zone, e.g. Z or +02:00";
    invalid("2026-11-30T09:00:00", 0, zone_needed);
    invalid("2026-11-30T09:00", 0, zone_needed);
    valid("2026-07-14T13:00", RE_DATETIME_ZONE_OPTIONAL, 2026, 7, 14, 1, 13, 0, 0, 0, 0, 0, 0);
    valid("2026-07-14T13:00:01.5", RE_DATETIME_ZONE_OPTIONAL, 2026, 7, 14, 1, 13, 0, 1, 500, 0, 0, 0);
    valid("2026-07-14T13:00+02:00", RE_DATETIME_ZONE_OPTIONAL, 2026, 7, 14, 1, 13, 0, 0, 0, 1, 120, '+');

    invalid("2026-11-30T24:00:00Z", 0, "hour 24 is out of range (00..23)");
    invalid("2026-11-30T25:61:61Z", 0, "hour 25 is out of range (00..23)");
    invalid("2026-11-30T09:60Z", 0, "minute 60 is out of range (00..59)");
    invalid("2026-11-30T09:00:60Z", 0, "second 60 is out of range (00..59)");   /* no leap second */
    invalid("2026-11-30T", 0, "not in the form YYYY-MM-DDTHH:MM[:SS]");
    invalid("2026-11-30T09Z", 0, "not in the form YYYY-MM-DDTHH:MM[:SS]");
    invalid("2026-11-30T9:00:00Z", 0, "not in the form YYYY-MM-DDTHH:MM[:SS]");
    invalid("2026-11-30T09:0Z", 0, "not in the form YYYY-MM-DDTHH:MM[:SS]");
    invalid("2026-11-30T09:00:0Z", 0, "the seconds must be two digits");
    invalid("2026-11-30T09:00:", 0, "the seconds must be two digits");
    invalid("2026-11-30T09:00:00.Z", 0, "a decimal point must be followed by digits");
    const char *zone_form = "the time zone must be Z or +HH:MM or -HH:MM";
    invalid("2026-11-30T09:00:00+0100", 0, zone_form);
    invalid("2026-11-30T09:00:00+01", 0, zone_form);
    invalid("2026-11-30T09:00:00z", 0, zone_form);
    invalid("2026-11-30T09:00:00Zjunk", 0, zone_form);
    invalid("2026-11-30T09:00:00 Z", 0, zone_form);
    invalid("2026-11-30T09:00:00,5Z", 0, zone_form);
    invalid("2026-11-30T09:00.5Z", 0, zone_form);
    invalid("2026-11-30T09:00:00+14:01", 0, "the time-zone offset must be at most 14:00");
    invalid("2026-11-30T09:00:00-15:00", 0, "the time-zone offset must be at most 14:00");
    /* the calendar is checked before the time */
    invalid("2026-02-30T24:00:00Z", 0, "day 30 does not exist in 2026-02");
}

/* Known dates (each computed with Python's datetime.date, proleptic Gregorian). */
static void test_days_from_civil(void)
{
    CHECK_INT(re_days_from_civil(1970, 1, 1), 0);
    CHECK_INT(re_days_from_civil(1969, 12, 31), -1);
    CHECK_INT(re_days_from_civil(1970, 1, 2), 1);
    CHECK_INT(re_days_from_civil(2000, 1, 1), 10957);
    CHECK_INT(re_days_from_civil(2000, 3, 1), 11017);
    CHECK_INT(re_days_from_civil(2024, 2, 29), 19782);
    CHECK_INT(re_days_from_civil(2026, 11, 30), 20787);
    CHECK_INT(re_days_from_civil(2038, 1, 19), 24855);
    CHECK_INT(re_days_from_civil(1900, 3, 1), -25508);
    CHECK_INT(re_days_from_civil(1600, 1, 1), -135140);
    CHECK_INT(re_days_from_civil(1582, 10, 15), -141427);
    CHECK_INT(re_days_from_civil(1, 1, 1), -719162);
    CHECK_INT(re_days_from_civil(9999, 12, 31), 2932896);
    /* year 0 is a leap year; years before it count on */
    CHECK_INT(re_days_from_civil(0, 3, 1), -719468);
    CHECK_INT(re_days_from_civil(0, 1, 1), -719528);
    CHECK_INT(re_days_from_civil(-1, 12, 31), -719529);

    /* a walk through every day of 1599-12-31 .. 2401-01-01: each is the day before plus one */
    static const int month_days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    long long expected = re_days_from_civil(1599, 12, 31);
    CHECK_INT(expected, -135141);
    long long wrong = 0, walked = 0;
    for (int y = 1600; y <= 2400; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int days = month_days[m - 1] + (m == 2 && leap);
            for (int d = 1; d <= days; d++) {
                expected++;
                walked++;
                if (re_days_from_civil(y, m, d) != expected && wrong++ < 5)
                    fprintf(stderr, "  %04d-%02d-%02d: %lld, expected %lld\n", y, m, d,
                            re_days_from_civil(y, m, d), expected);
            }
        }
    }
    CHECK_INT(wrong, 0);
    CHECK_INT(walked, 801LL * 365 + 195);   /* 801 years of which 195 leap */
    CHECK_INT(re_days_from_civil(2401, 1, 1), expected + 1);
}

static void check_words(const char *published, const char *language, int expected_kind,
                        const char *expected)
{
    char out[RE_DATE_WORDS_MAX];
    int kind = re_date_in_words(published, language, out);
    CHECK_INT(kind, expected_kind);
    CHECK_STR(out, expected);
}

static void test_date_in_words(void)
{
    /* the written date, in its own offset: 07:30 at +01:00 is still the 23rd */
    check_words("2026-11-23T07:30:00+01:00", "en-gb", 1, "23 November 2026");
    check_words("2026-11-23T00:30:00+01:00", "en", 1, "23 November 2026");
    check_words("2026-11-23T23:59:00-11:00", "en-US", 1, "November 23, 2026");
    check_words("2026-11-23", NULL, 1, "November 23, 2026");   /* the default, en-us */
    check_words("2026-03-01", "de", 1, "1. M\xc3\xa4rz 2026");
    check_words("2026-12-24T18:00:00Z", "de-CH", 1, "24. Dezember 2026");
    check_words("2026-08-01", "fr", 1, "1er ao\xc3\xbbt 2026");
    check_words("2026-02-14", "fr-fr", 1, "14 f\xc3\xa9vrier 2026");
    check_words("2026-09-30", "es", 1, "30 de septiembre de 2026");
    check_words("2026-05-01", "it", 1, "1\xc2\xba maggio 2026");
    check_words("2026-03-07", "pt-br", 1, "7 de mar\xc3\xa7o de 2026");
    check_words("2026-03-07", "nl", 1, "7 maart 2026");
    check_words("2026-08-07", "sv", 1, "7 augusti 2026");
    check_words("2026-03-07", "da", 1, "7. marts 2026");
    check_words("2026-12-07", "nb", 1, "7. desember 2026");
    check_words("2026-10-07", "pl", 1, "7 pa\xc5\xba""dziernika 2026");
    /* languages without a table: the ISO date; "enx" is not English */
    check_words("2026-11-23T07:30:00+01:00", "ja", 0, "2026-11-23");
    check_words("2026-11-23", "cmn", 0, "2026-11-23");
    check_words("2026-11-23", "enx", 0, "2026-11-23");
    /* not a published value */
    check_words("2026-02-29", "en", -1, "");
    check_words("2026-11-23T07:30", "en", -1, "");
    check_words(NULL, "en", -1, "");
}

int main(void)
{
    test_date_in_words();
    test_dates();
    test_date_times();
    test_days_from_civil();
    return check_finish("test_datetime");
}
