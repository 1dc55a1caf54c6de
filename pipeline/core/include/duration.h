/* SPDX-License-Identifier: GPL-3.0-or-later */
/* duration.h - the project's one rule for turning sample counts into durations, and
 * readers for every duration notation that pages and feeds use.
 *
 * Rules (docs/design.md, "Durations"): milliseconds are samples * 1000 / rate rounded down;
 * whole seconds are samples / rate rounded to nearest, half up; a time becomes samples
 * rounded to nearest, half up (re_us_to_frames); ISO 8601 strings are PT{h}H{m}M{s}S with
 * leading zero units left out (PT0S, PT45S, PT2M53S, PT1H0M5S). */
#ifndef RE_DURATION_H
#define RE_DURATION_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#define RE_DURATION_ISO_MAX 32  /* buffer size that holds any formatted duration */

uint64_t re_samples_to_ms(uint64_t samples, unsigned rate);
uint64_t re_samples_to_seconds(uint64_t samples, unsigned rate);     /* nearest, half up */
/* The other way, time to samples at `rate`, for every pause, fade and cut: microseconds to
 * the nearest sample, half up; _down rounds down, for a budget that must not be passed. Exact
 * for every us (no overflow while the result fits). */
uint64_t re_us_to_frames(uint64_t us, unsigned rate);
uint64_t re_us_to_frames_down(uint64_t us, unsigned rate);
/* Writes the ISO 8601 form of a whole number of seconds into buf (RE_DURATION_ISO_MAX bytes). */
void re_duration_format_iso(uint64_t seconds, char *buf);

/* A parsed duration claim: its value and the precision it was written with. */
typedef struct re_duration {
    uint64_t us;          /* value in microseconds (fractions finer than 1 us are rounded) */
    uint64_t unit_us;     /* value of one unit in its last written digit: 1000000 for "PT2M53S"
                           * or "02:53", 1000 for "PT2.345S", 100000 for "PT2.3S" */
} re_duration;

/* Parses an ISO 8601 duration in any valid form: PnW, PnYnMnDTnHnMnS with any subset of
 * units, a decimal fraction (`.` or `,`) on the smallest unit given; years and months are
 * rejected (their length is not fixed) unless zero. Surrounding whitespace is not accepted.
 * RE_ERR_INPUT when not a valid duration. */
re_status re_duration_parse_iso(const char *s, size_t len, re_duration *out);

/* Parses the clock forms used by itunes:duration: "SSS", "MM:SS", "HH:MM:SS", each with an
 * optional decimal fraction on the seconds. Minutes and seconds after a colon must be < 60. */
re_status re_duration_parse_clock(const char *s, size_t len, re_duration *out);

/* Parses a duration as a person types it on a command line: ISO 8601 (PT3M), or numbers
 * with units from large to small, each at most once: 3m, 90s, 2m30s, 1h5m, 1.5s, 250ms; a
 * number alone is seconds. A fraction only on the last number. RE_ERR_INPUT otherwise. */
re_status re_duration_parse_units(const char *s, size_t len, re_duration *out);

#endif
