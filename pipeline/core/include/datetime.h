/* SPDX-License-Identifier: GPL-3.0-or-later */
/* datetime.h - ISO 8601 dates and date-times as scripts write `published:`, one parser for the
 * script, the ID3 date frames and the feed's RFC 822 dates.
 *
 * Accepted: YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS[.fraction]] followed by Z or +HH:MM / -HH:MM
 * (an offset of at most 14:00). Dates are checked against the calendar (2026-02-29 does not
 * exist), hours 00..23, minutes and seconds 00..59. */
#ifndef RE_DATETIME_H
#define RE_DATETIME_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

typedef struct re_datetime {
    int year, month, day;
    int has_time;                 /* the fields below are 0 without a time of day */
    int hour, minute, second;
    int millisecond;              /* the fraction's first three digits */
    int has_zone;
    int zone_minutes;             /* east of UTC is positive: +05:30 is 330 */
    char zone_sign;               /* '+' or '-' as written ('-' of -00:00 too); '+' for Z */
} re_datetime;

/* Date-times without a zone (2026-07-14T13:00) are accepted only with this flag. */
#define RE_DATETIME_ZONE_OPTIONAL 1u

/* Parses s[0..len) into *out (may be NULL). NULL when valid; else why not, as a phrase for a
 * message ("month 13 is out of range (01..12)"), either a static string or written into
 * reason[0..reason_size). */
const char *re_datetime_parse(const char *s, size_t len, unsigned flags, re_datetime *out,
                              char *reason, size_t reason_size);

#define RE_RFC822_MAX 32   /* "Mon, 30 Nov 2026 09:00:00 +0000" and its NUL */

/* Converts a `published` value (YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS[.fff]] with Z or +-HH:MM)
 * to RFC 822 with a four-digit year and the written offset ("2026-11-30T09:00:00Z" -> "Mon,
 * 30 Nov 2026 09:00:00 +0000"; a date alone is 00:00:00 +0000; fractions are dropped) and
 * the instant in ms since the epoch (instant_ms may be NULL). RE_ERR_INPUT when invalid. */
re_status re_rfc822_from_iso(const char *iso, char out[RE_RFC822_MAX], int64_t *instant_ms);

#define RE_DATE_WORDS_MAX 48   /* "30 de septiembre de 2026", UTF-8, and its NUL */

/* The date of a `published` value as people write it in `language` (a script's language,
 * "en-us", "de", "pt-br": its first subtag chooses): "23 November 2026" (en; en-us
 * "November 23, 2026"), "23. November 2026" (de), "23 novembre 2026" and "1er novembre"
 * (fr), "23 de noviembre de 2026" (es), "23 novembre 2026" and "1º" (it), "23 de novembro
 * de 2026" (pt), "23 november 2026" (nl, sv), "23. november 2026" (da, nb/no), "23 listopada
 * 2026" (pl). The date is the written one, in its own offset (no conversion to UTC). For
 * another language the ISO date "2026-11-23". Returns 1 in words, 0 as the ISO date, -1
 * (out empty) when published is not a valid `published` value. */
int re_date_in_words(const char *published, const char *language,
                     char out[RE_DATE_WORDS_MAX]);

/* Days since 1970-01-01 of a proleptic Gregorian date (negative before). */
long long re_days_from_civil(long long year, int month, int day);

#endif
