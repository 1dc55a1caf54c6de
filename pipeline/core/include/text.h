/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.h - the ASCII character classes and small text checks that every parser shares.
 *
 * Locale-independent on purpose: <ctype.h> answers differently under another LC_CTYPE, and a
 * script must mean the same everywhere. */
#ifndef RE_TEXT_H
#define RE_TEXT_H

#include <stddef.h>

static inline int re_is_digit(char c) { return c >= '0' && c <= '9'; }
static inline int re_is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static inline int re_is_lower(char c) { return c >= 'a' && c <= 'z'; }
static inline int re_is_letter(char c) { return re_is_upper(c) || re_is_lower(c); }
static inline int re_is_alnum(char c) { return re_is_letter(c) || re_is_digit(c); }
/* A space or a tab: what separates words on a line. */
static inline int re_is_blank(char c) { return c == ' ' || c == '\t'; }
/* A blank or the CR of a CRLF line ending: what the line-oriented parsers trim. */
static inline int re_is_line_blank(char c) { return re_is_blank(c) || c == '\r'; }

/* Narrows s[0..*len) past leading and trailing line blanks (space, tab, CR). */
void re_trim(const char **s, size_t *len);

/* A language tag as scripts, sidecars and feeds accept it (a BCP 47 subset): 2-3 letters,
 * then `-` and 1-8 letters or digits, repeated ("en", "en-us", "pt-BR", "zh-Hant-TW"). */
int re_language_valid(const char *s, size_t len);

/* The edit (Levenshtein) distance from a[0..a_len) to the string b, with a's ASCII capitals
 * read as small letters (b is a lowercase name): what "did you mean" suggestions measure.
 * SIZE_MAX when either is 64 bytes or longer. */
size_t re_edit_distance(const char *a, size_t a_len, const char *b);

/* 1 when text is a UUID: 8-4-4-4-12 hex digits (either case). */
int re_uuid_valid(const char *text);

#endif
