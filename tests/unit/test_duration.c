/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_duration.c - the rounding rules both ways, the ISO formatter and the ISO and clock
 * readers. */
#include <string.h>

#include "testkit.h"
#include "duration.h"

static const char *iso(uint64_t seconds)
{
    static char buf[RE_DURATION_ISO_MAX];
    re_duration_format_iso(seconds, buf);
    return buf;
}

/* Parses `s` as ISO 8601; returns the value in us, or UINT64_MAX when it is rejected. */
static uint64_t iso_us(const char *s, uint64_t *unit)
{
    re_duration d = { 0, 0 };
    if (re_duration_parse_iso(s, strlen(s), &d) != RE_OK)
        return UINT64_MAX;
    if (unit)
        *unit = d.unit_us;
    return d.us;
}

static uint64_t clock_us(const char *s, uint64_t *unit)
{
    re_duration d = { 0, 0 };
    if (re_duration_parse_clock(s, strlen(s), &d) != RE_OK)
        return UINT64_MAX;
    if (unit)
        *unit = d.unit_us;
    return d.us;
}

static void test_rounding(void)
{
    const unsigned r = 22050;
    CHECK_INT(re_samples_to_ms(0, r), 0);
    CHECK_INT(re_samples_to_seconds(0, r), 0);
    CHECK_INT(re_samples_to_ms(1, r), 0);                 /* 0.045 ms rounds down */
    CHECK_INT(re_samples_to_ms(22049, r), 999);
    CHECK_INT(re_samples_to_ms(22050, r), 1000);
    CHECK_INT(re_samples_to_ms(3824704, r), 173455);      /* 173.4559 s rounds down */
    /* half a second rounds up; one sample below stays down */
    CHECK_INT(re_samples_to_seconds(11025, r), 1);
    CHECK_INT(re_samples_to_seconds(11024, r), 0);
    CHECK_INT(re_samples_to_seconds(59 * r + 11025, r), 60);
    CHECK_INT(re_samples_to_seconds(59 * r + 11024, r), 59);
    CHECK_INT(re_samples_to_seconds(3599ULL * r + 11025, r), 3600);
    CHECK_INT(re_samples_to_seconds(3599ULL * r + 11024, r), 3599);
    CHECK_INT(re_samples_to_seconds(3600ULL * r, r), 3600);
    CHECK_INT(re_samples_to_seconds(36000ULL * r, r), 36000);
    /* an odd rate: half of 11025 is 5512.5, so 5513 samples is the first that rounds up */
    CHECK_INT(re_samples_to_seconds(5512, 11025), 0);
    CHECK_INT(re_samples_to_seconds(5513, 11025), 1);
    /* no overflow near the top of the range */
    CHECK_INT(re_samples_to_ms(UINT64_MAX, 48000), UINT64_MAX / 48000 * 1000
              + UINT64_MAX % 48000 * 1000 / 48000);
    CHECK_INT(re_samples_to_ms(5, 0), 0);
    CHECK_INT(re_samples_to_seconds(5, 0), 0);
}

static void test_format(void)
{
    const unsigned r = 44100;
    CHECK_STR(iso(0), "PT0S");
    CHECK_STR(iso(45), "PT45S");
    CHECK_STR(iso(60), "PT1M0S");
    CHECK_STR(iso(173), "PT2M53S");
    CHECK_STR(iso(3600), "PT1H0M0S");
    CHECK_STR(iso(3605), "PT1H0M5S");
    CHECK_STR(iso(36000), "PT10H0M0S");
    CHECK_STR(iso(360000), "PT100H0M0S");
    CHECK_STR(iso(re_samples_to_seconds(r / 2, r)), "PT1S");                  /* 0.5 s */
    CHECK_STR(iso(re_samples_to_seconds(r / 2 - 1, r)), "PT0S");
    CHECK_STR(iso(re_samples_to_seconds(59 * r + r / 2, r)), "PT1M0S");        /* 59.5 s */
    CHECK_STR(iso(re_samples_to_seconds(59 * r + r / 2 - 1, r)), "PT59S");
    CHECK_STR(iso(re_samples_to_seconds(3599ULL * r + r / 2, r)), "PT1H0M0S"); /* 3599.5 s */
    CHECK_STR(iso(re_samples_to_seconds(3599ULL * r + r / 2 - 1, r)), "PT59M59S");
    CHECK_STR(iso(re_samples_to_seconds(36000ULL * r, r)), "PT10H0M0S");
    char buf[RE_DURATION_ISO_MAX];
    re_duration_format_iso(UINT64_MAX, buf);   /* the longest possible output fits */
    CHECK(strlen(buf) < RE_DURATION_ISO_MAX);
}

static void test_parse_iso(void)
{
    uint64_t unit = 0;
    CHECK_INT(iso_us("PT173S", &unit), 173000000);
    CHECK_INT(unit, 1000000);
    CHECK_INT(iso_us("PT2M53S", &unit), 173000000);
    CHECK_INT(unit, 1000000);
    CHECK_INT(iso_us("P0DT1H", &unit), 3600000000ULL);
    CHECK_INT(unit, 3600000000ULL);
    CHECK_INT(iso_us("PT1.5S", &unit), 1500000);
    CHECK_INT(unit, 100000);
    CHECK_INT(iso_us("PT0,5S", &unit), 500000);
    CHECK_INT(unit, 100000);
    CHECK_INT(iso_us("PT2M53.456S", &unit), 173456000);
    CHECK_INT(unit, 1000);
    CHECK_INT(iso_us("P1W", &unit), 7ULL * 86400 * 1000000);
    CHECK_INT(unit, 7ULL * 86400 * 1000000);
    CHECK_INT(iso_us("PT1H0M5S", NULL), 3605000000ULL);
    CHECK_INT(iso_us("PT10H0M0S", NULL), 36000000000ULL);
    CHECK_INT(iso_us("P1DT2H3M4S", NULL), (86400ULL + 7384) * 1000000);
    CHECK_INT(iso_us("P0Y0M0DT2M53S", NULL), 173000000);
    CHECK_INT(iso_us("PT0S", NULL), 0);
    CHECK_INT(iso_us("PT1.5M", &unit), 90000000);
    CHECK_INT(unit, 6000000);
    CHECK_INT(iso_us("PT0.0000005S", &unit), 1);                    /* half a us rounds up */
    CHECK_INT(unit, 1);
    CHECK_INT(iso_us("PT0.0000004999S", NULL), 0);
    CHECK_INT(iso_us("PT1.1234567890123456789999S", NULL), 1123457);
    CHECK_INT(iso_us("P0.5W", NULL), 302400000000ULL);
    /* rejected */
    const char *bad[] = { "", "P", "PT", "PT1H2", "1M", "PTS", "P1Y", "P1M", "P1.5Y", "PT1H1H",
                          "PT1S1M", "P1DT", "PT1.5H30M", "PT.5S", "PT1.S", "pt2m53s",
                          " PT1S", "PT1S ", "P1W1D", "P1WT1H", "PT-1S", "PT+1S", "P1D1D",
                          "PT1H1D", "P1TT1S", "PTT1S", "PT99999999999999999999S",
                          "PT18446744073710S", "P1e3D", "PT1:00S" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (iso_us(bad[i], NULL) != UINT64_MAX)
            fprintf(stderr, "accepted invalid ISO duration \"%s\"\n", bad[i]);
        CHECK(iso_us(bad[i], NULL) == UINT64_MAX);
    }
    re_duration d;
    CHECK(re_duration_parse_iso("PT1S", 0, &d) == RE_ERR_INPUT);
    CHECK(re_duration_parse_iso("PT1SX", 4, &d) == RE_OK);   /* only len bytes are read */
}

static void test_parse_clock(void)
{
    uint64_t unit = 0;
    CHECK_INT(clock_us("173", &unit), 173000000);
    CHECK_INT(unit, 1000000);
    CHECK_INT(clock_us("02:53", &unit), 173000000);
    CHECK_INT(clock_us("2:53", NULL), 173000000);
    CHECK_INT(clock_us("00:02:53", NULL), 173000000);
    CHECK_INT(clock_us("1:00:05", NULL), 3605000000ULL);
    CHECK_INT(clock_us("75:00", NULL), 4500000000ULL);       /* minutes before a colon: any */
    CHECK_INT(clock_us("02:53.5", &unit), 173500000);
    CHECK_INT(unit, 100000);
    CHECK_INT(clock_us("173.456", &unit), 173456000);
    CHECK_INT(unit, 1000);
    CHECK_INT(clock_us("0", NULL), 0);
    const char *bad[] = { "", ":", "2:", ":53", "2:60", "1:60:00", "1:2:3:4", "2.5:00", "2:53.",
                          "2:53,5", "-1", "1e2", " 2:53", "2:53 ", "PT2M53S", "2::53", "a",
                          "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (clock_us(bad[i], NULL) != UINT64_MAX)
            fprintf(stderr, "accepted invalid clock duration \"%s\"\n", bad[i]);
        CHECK(clock_us(bad[i], NULL) == UINT64_MAX);
    }
}

static uint64_t units_us(const char *s)
{
    re_duration d = { 0, 0 };
    if (re_duration_parse_units(s, strlen(s), &d) != RE_OK)
        return UINT64_MAX;
    return d.us;
}

/* --max-duration's notation: units from large to small, each once; ISO 8601; seconds alone. */
static void test_parse_units(void)
{
    CHECK_INT(units_us("3m"), 180000000);
    CHECK_INT(units_us("90s"), 90000000);
    CHECK_INT(units_us("2m30s"), 150000000);
    CHECK_INT(units_us("1h5m"), 3900000000ULL);
    CHECK_INT(units_us("1h0m5s"), 3605000000ULL);
    CHECK_INT(units_us("1.5s"), 1500000);
    CHECK_INT(units_us("250ms"), 250000);
    CHECK_INT(units_us("2m500ms"), 120500000);
    CHECK_INT(units_us("45"), 45000000);
    CHECK_INT(units_us("PT3M"), 180000000);
    CHECK_INT(units_us("PT2M30S"), 150000000);
    CHECK_INT(units_us(""), UINT64_MAX);
    CHECK_INT(units_us("m"), UINT64_MAX);
    CHECK_INT(units_us("3x"), UINT64_MAX);
    CHECK_INT(units_us("30s2m"), UINT64_MAX);   /* small before large */
    CHECK_INT(units_us("3m3m"), UINT64_MAX);
    CHECK_INT(units_us("1.5m30s"), UINT64_MAX); /* a fraction only last */
    CHECK_INT(units_us("3 m"), UINT64_MAX);
    CHECK_INT(units_us("3m "), UINT64_MAX);
    CHECK_INT(units_us("2m30"), UINT64_MAX);    /* a bare number only alone */
    CHECK_INT(units_us("-3m"), UINT64_MAX);
    CHECK_INT(units_us("99999999999999999999h"), UINT64_MAX);
}

/* Time to samples: nearest, half up, and rounded down, judged by 128-bit arithmetic over
 * every microsecond of a second at each rate, the exact halves, and times so long that
 * us * rate overflows 64 bits. */
static void test_us_to_frames(void)
{
    static const unsigned rates[] = { 8000, 16000, 22050, 44100, 48000 };
    int wrong = 0;
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++) {
        unsigned rate = rates[k];
        for (uint64_t us = 0; us <= 1000000; us++) {
            unsigned __int128 p = (unsigned __int128)us * rate;
            wrong += re_us_to_frames(us, rate) != (uint64_t)((p + 500000) / 1000000);
            wrong += re_us_to_frames_down(us, rate) != (uint64_t)(p / 1000000);
        }
        uint64_t huge = UINT64_MAX / 1000000 * 999;   /* us * rate is past 2^64 */
        unsigned __int128 p = (unsigned __int128)huge * rate;
        wrong += re_us_to_frames(huge, rate) != (uint64_t)((p + 500000) / 1000000);
        wrong += re_us_to_frames_down(huge, rate) != (uint64_t)(p / 1000000);
    }
    CHECK_INT(wrong, 0);
    CHECK_INT(re_us_to_frames(1500, 22050), 33);          /* 33.075 */
    CHECK_INT(re_us_to_frames(100, 5000), 1);             /* 0.5: half up */
    CHECK_INT(re_us_to_frames_down(100, 5000), 0);
    CHECK_INT(re_us_to_frames(99, 5000), 0);              /* 0.495 */
    CHECK_INT(re_us_to_frames(800000, 22050), 17640);
}

int main(void)
{
    test_rounding();
    test_us_to_frames();
    test_format();
    test_parse_iso();
    test_parse_clock();
    test_parse_units();
    return check_finish("test_duration");
}
