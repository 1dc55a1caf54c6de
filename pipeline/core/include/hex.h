/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hex.h - hexadecimal, owned here once. Lowercase is the one spelling of digests, UUIDs and the
 * nonces in file names; uppercase is only for the percent-encoding of URLs (url.h).
 *
 * Every writer of hex in the library writes it here, and every reader that checks a name or a
 * field for it (a cache entry, a sidecar's SHA-256, an output's temporary name) asks here:
 * what we name and check is lowercase only, so that one value has one spelling. */
#ifndef RE_HEX_H
#define RE_HEX_H

#include <stddef.h>

/* 0-9 or a-f. */
static inline int re_is_hex_lower(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Writes bytes[0..n) as 2n lowercase hex digits and a NUL: out has room for 2n + 1. */
void re_hex_encode(const void *bytes, size_t n, char *out);

/* The same in uppercase, for formats whose own spelling it is and never for what we name or
 * check: a URL's percent-encoding (%C3%A9, RFC 3986's advice and libcurl's encoder). */
void re_hex_encode_upper(const void *bytes, size_t n, char *out);

/* 1 when s[0..len) is all lowercase hex digits (an empty s is). It stops at the first byte
 * that is not one, so a string shorter than len (its NUL is no digit) is safe to pass. */
int re_hex_valid(const char *s, size_t len);

/* The value of one hex digit in either case (0-15), or -1: for reading hex that others wrote,
 * such as a UUID given in capitals. */
int re_hex_value(char c);

#endif
