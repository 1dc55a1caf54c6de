/* SPDX-License-Identifier: GPL-3.0-or-later */
/* parse_errors.c - error reporting shared by the parsers (parse_errors.h). */
#include "parse_errors.h"

#include <stdarg.h>

void re_parse_error(parse_errors *e, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;

    e->count++;
    va_start(ap, fmt);
    if (re_diag_vadd(e->diag, e->file, line, col, fmt, ap) != RE_OK)
        e->nomem = 1;
    va_end(ap);
}

const char *re_quote(char out[QUOTE_SIZE], const char *s, size_t len)
{
    return re_utf8_quote(out, s, len, QUOTE_MAX);
}
