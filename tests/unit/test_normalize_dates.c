/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_normalize_dates.c - dates, times and the full stops of names as a person reads them:
 * ISO dates and months, ranges, date-times, times with zones, months written short beside a
 * day, abbreviations and initials said without the stop that would end a clause; what is no
 * date (an impossible day, a version, a range of numbers) left as before; and the decision
 * `explain` shows for each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "normalize.h"

/* Checks what `voice` (NULL: en-us) is given to say for `text`. */
static void expect(const char *voice, const char *text, const char *spoken, int line)
{
    re_spoken s;
    re_status status = re_normalize_spans_for(NULL, text, voice, &s);
    check_count++;
    if (status != RE_OK || !s.text || strcmp(s.text, spoken) != 0) {
        check_failures++;
        fprintf(stderr, "%s:%d: normalize \"%s\" (%s)\n      got \"%s\"\n  expected \"%s\"\n",
                __FILE__, line, text, voice ? voice : "en-us", s.text ? s.text : "(null)", spoken);
    }
    re_spoken_free(&s);
}

#define SAYS(text, spoken) expect(NULL, text, spoken, __LINE__)
#define SAME(text) expect(NULL, text, text, __LINE__)
#define GB_SAYS(text, spoken) expect("en-gb+f3", text, spoken, __LINE__)

/* The decision explain shows for the word at `word` of text. */
static const char *decision(const char *text, const char *word)
{
    static char what[128];
    re_spoken s;
    what[0] = '\0';
    if (re_normalize_spans_for(NULL, text, NULL, &s) != RE_OK)
        return "(failed)";
    size_t at = (size_t)(strstr(text, word) - text);
    for (size_t i = 0; i < s.decision_count; i++)
        if (s.decisions[i].text_offset == at && !what[0])
            snprintf(what, sizeof what, "%s", s.decisions[i].what);
    re_spoken_free(&s);
    return what;
}

static void test_dates(void)
{
    SAYS("2026-11-30", "November 30th, 2026");
    SAYS("Released on 2022-10-19.", "Released on October 19th, 2022.");
    SAYS("[1.8.2] - 2022-10-19", "[1 point 8 point 2] - October 19th, 2022");
    SAYS("(2022-04-15)", "(April 15th, 2022)");
    SAYS("2004-02-29 and 2026-01-01, 2026-01-02 or 2026-01-03", "February 29th, 2004 and "
         "January 1st, 2026, January 2nd, 2026 or January 3rd, 2026");
    SAYS("2026-12-11 2026-12-12 2026-12-13", "December 11th, 2026 December 12th, 2026 "
         "December 13th, 2026");
    SAYS("in 2026-11", "in November 2026");
    GB_SAYS("2026-11-30", "the 30th of November 2026");
    GB_SAYS("2026-11", "November 2026");
    /* no real day, or no date at all: as before */
    SAME("2026-02-30");
    SAME("2025-02-29");
    SAME("2026-13-01");
    SAYS("1.2.3 and 10-20 and 2019-2026 and 20261130", "1 point 2 point 3 and 10-20 and 2019-2026 and 20261130");
    SAYS("v1.2.3", "version 1 point 2 point 3");
    /* another language's voice reads it its own way */
    expect("de", "2026-11-30", "2026-11-30", __LINE__);
}

static void test_ranges(void)
{
    SAYS("2026-03-02..2026-03-13", "March 2nd to March 13th, 2026");
    SAYS("2026-03-02 \xE2\x80\x93 2026-03-13", "March 2nd to March 13th, 2026");
    SAYS("2026-03-02 - 2026-03-13", "March 2nd to March 13th, 2026");
    SAYS("2026-03-02 to 2026-03-13", "March 2nd to March 13th, 2026");
    SAYS("2025-12-30..2026-01-02", "December 30th, 2025 to January 2nd, 2026");
    SAYS("2025-12-30 \xE2\x80\x94 2026-01-02", "December 30th, 2025 to January 2nd, 2026");
    GB_SAYS("2026-03-02..2026-03-13", "the 2nd of March to the 13th of March 2026");
    SAME("a - b");
}

static void test_times(void)
{
    SAYS("at 14:00 UTC", "at 2 PM UTC");
    SAYS("09:30", "9:30 AM");
    SAYS("09:05", "9 oh 5 AM");
    SAYS("00:00 and 12:00 and 23:59", "midnight and noon and 11:59 PM");
    SAYS("17:45+01:00", "5:45 PM, UTC plus 1");
    SAYS("08:15-05:30", "8:15 AM, UTC minus 5:30");
    SAYS("13:35Z", "1:35 PM UTC");
    SAYS("00:05:21 UTC.", "12 oh 5 AM and 21 seconds UTC.");
    SAYS("10:00:00+00:00", "10 AM UTC");
    SAYS("at 3:00 PM", "at 3 PM");
    SAYS("at 9:05 a.m.", "at 9 oh 5 a.m.");
    SAYS("9:30 CET", "9:30 AM CET");
    /* not surely a time: a one-digit hour alone, a ratio, a bad minute, a line and column */
    SAME("It took 1:30 and 16:9 screens, 24:00 and 12:60, main.c:12:30.");
    SAME("She said, \"I'll be there at 9:30.\" We waited.");
}

static void test_date_times(void)
{
    SAYS("2026-11-30T09:00:00Z", "November 30th, 2026, 9 AM UTC");
    SAYS("2004-02-29T16:21:42", "February 29th, 2004, 4:21 PM and 42 seconds");
    SAYS("2004-02-29T16:21:42.333-07:00", "February 29th, 2004, 4:21 PM and 42 seconds, UTC "
         "minus 7");
    SAYS("2026-11-30 14:00 UTC", "November 30th, 2026, 2 PM UTC");
    SAME("2026-02-30T09:00:00Z");
}

static void test_months(void)
{
    SAYS("Nov 30th", "November 30th");
    SAYS("on Nov 30, 2026", "on November 30th, 2026");
    SAYS("Nov. 30", "November 30th");
    SAYS("30 Nov 2026", "30 November 2026");
    SAYS("since Jan 1st, 1970", "since January 1st, 1970");
    SAYS("Sept 2026", "September 2026");
    SAYS("on November 30 we ship", "on November 30th we ship");
    SAYS("May 5, 2026", "May 5th, 2026");
    SAME("It's November 30th, 2026, and we ship.");
    SAME("In May, 5 tests failed; in June 3 PM meetings; Jan and Nov agreed.");
    SAME("Mar 40 and Dec 32nd");
}

static void test_abbreviations(void)
{
    SAYS("Thanks to Acme Inc. for it.", "Thanks to Acme Inc for it.");
    SAYS("from Acme Inc. The next", "from Acme Inc. The next");
    SAYS("Foo Ltd. and Bar Corp. agree", "Foo limited and Bar Corp agree");
    SAYS("By John F. Smith and J. R. Hacker.", "By John F Smith and J R Hacker.");
    SAYS("Plan B. The fix", "Plan B. The fix");
    SAYS("Smith et al. showed", "Smith et al showed");
    SAYS("Jane Doe, Ph.D. students", "Jane Doe, P.H.D students");
    SAYS("See Fig. 3, Vol. 2 and Ch. 7.", "See figure 3, volume 2 and chapter 7.");
    SAYS("X, Y, etc. Then", "X, Y, etc. Then");
    SAYS("X, Y, etc. and", "X, Y, etc and");
}

static void test_decisions(void)
{
    CHECK_STR(decision("on 2026-11-30.", "2026"), "date: as it is said");
    CHECK_STR(decision("in 2026-11", "2026"), "date: a month and year");
    CHECK_STR(decision("2026-03-02..2026-03-13", "2026"), "date range: from one day to another");
    CHECK_STR(decision("2026-11-30T09:00:00Z", "2026"), "date and time");
    CHECK_STR(decision("at 14:00 UTC", "14"), "time of day: on the 12-hour clock, with its zone");
    CHECK_STR(decision("at 3:00 PM", "3"), "time: as the clock is read");
    CHECK_STR(decision("2026-03-02 \xE2\x80\x93 2026-03-13", "\xE2\x80\x93"), "between two dates: to");
    CHECK_STR(decision("Nov 30th", "Nov"), "month: in full beside a day or year");
    CHECK_STR(decision("November 30", "30"), "day of a month: an ordinal");
    CHECK_STR(decision("John F. Smith", "F."), "initial: its full stop ends no sentence");
    CHECK_STR(decision("Acme Inc. for", "Inc."), "abbreviation: its full stop ends no sentence");
    CHECK_STR(decision("Fig. 3", "Fig."), "abbreviation: in words, its full stop ends no sentence");
}

int main(void)
{
    test_dates();
    test_ranges();
    test_times();
    test_date_times();
    test_months();
    test_abbreviations();
    test_decisions();
    return check_finish("test_normalize_dates");
}
