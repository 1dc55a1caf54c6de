/* utf8.h - strict UTF-8 validation and decoding for everything we read. */
#ifndef RE_UTF8_H
#define RE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Checks buf[0..len) as strict UTF-8: no overlong forms, no surrogates (U+D800..DFFF),
 * nothing above U+10FFFF, no truncated sequence and no NUL byte. Returns 1 when valid;
 * otherwise 0, with *bad_offset set to the offset of the first offending byte and *why
 * to a static English reason ("overlong encoding", "NUL byte", ...). */
int re_utf8_check(const char *buf, size_t len, size_t *bad_offset, const char **why);

/* Decodes the code point starting at s, which must be valid UTF-8 with at least one byte
 * before end. Returns its length in bytes (1..4) and stores it in *cp. */
size_t re_utf8_decode(const char *s, const char *end, uint32_t *cp);

/* Encodes cp (<= U+10FFFF, not a surrogate) into out; returns the number of bytes (1..4). */
size_t re_utf8_encode(uint32_t cp, char out[4]);

#endif
