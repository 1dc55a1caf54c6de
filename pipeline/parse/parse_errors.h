/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse_errors.h - what the script, voice-profile and lexicon parsers share to report errors
 * (private to the parse stage). */
#ifndef RE_PARSE_ERRORS_H
#define RE_PARSE_ERRORS_H

#include "status.h"
#include "utf8.h"

/* Bytes of offending input quoted in a message; a control character is shown as \u001B, so a
 * message never carries an escape sequence to the terminal or the CI log that shows it. */
#define QUOTE_MAX 40
#define QUOTE_SIZE RE_UTF8_QUOTE_SIZE(QUOTE_MAX)

typedef struct parse_errors {
    const char *file;       /* the name messages give */
    re_diagnostics *diag;   /* where they go */
    int count;              /* errors reported so far */
    int nomem;              /* set when one could not be stored */
} parse_errors;

/* Reports an error at file:line:col (col 0: the whole line) and counts it. */
void re_parse_error(parse_errors *e, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Copies s[0..len) (valid UTF-8) into out for quoting, shortened with "..." when long. */
const char *re_quote(char out[QUOTE_SIZE], const char *s, size_t len);

#endif
