/* SPDX-License-Identifier: GPL-3.0-or-later */
/* utf8.h - strict UTF-8 validation and decoding for everything we read. */
#ifndef RE_UTF8_H
#define RE_UTF8_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

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

/* Length of a leading UTF-8 byte-order mark (EF BB BF) in buf[0..len): 3 or 0. Callers skip
 * it, so columns count bytes after it. */
size_t re_utf8_bom_length(const char *buf, size_t len);

/* 1 for code points that must never reach a speech engine or a tag: C0 controls other than
 * TAB and LF (U+0001 is espeak-ng's embedded-command escape), DEL, and C1 (U+0080..U+009F).
 * CR is one too; text checks accept it only right before an LF. */
int re_utf8_is_control(uint32_t cp);

/* 1 for the bidirectional embedding, override and isolate controls (U+202A..U+202E,
 * U+2066..U+2069): text that reorders what a terminal or a log viewer shows after it, so that
 * a name could make a message read otherwise than it is. Shown escaped (re_utf8_shown,
 * re_utf8_quote, re_diag_format), never raw. */
int re_utf8_is_bidi_control(uint32_t cp);

/* Checks a text input (after its byte-order mark) before it is split into lines, reporting
 * to diag at file:LINE:COL (1-based, byte columns). Invalid UTF-8 is one error at the first
 * offending byte and nothing else is checked (*decodable is 0); otherwise every control
 * character and every CR not followed by LF is reported (*decodable is 1: the caller may go on
 * parsing to find more errors). Returns RE_OK when clean, RE_ERR_INPUT when something was
 * reported, RE_ERR_NOMEM when a diagnostic could not be stored. */
re_status re_utf8_check_text(const char *file, const char *buf, size_t len, int *decodable,
                             re_diagnostics *diag);

/* Length of the longest prefix of s[0..len) (valid UTF-8) that is at most max bytes and ends
 * on a character boundary: for quoting a short piece of input in a message. */
size_t re_utf8_prefix(const char *s, size_t len, size_t max);

/* Room for a quote of at most `max` input bytes: every byte may become \uXXXX, plus "...". */
#define RE_UTF8_QUOTE_SIZE(max) ((max) * 6 + 4)

/* Writes at most `max` bytes of s[0..len) (never cutting a character) into out, which holds
 * RE_UTF8_QUOTE_SIZE(max) bytes: control and bidi controls are shown as \uXXXX, so quoting input
 * in a message can never put escape sequences on a terminal; "..." marks a cut. s must be
 * valid UTF-8. Returns out. */
const char *re_utf8_quote(char *out, const char *s, size_t len, size_t max);

/* The first code point in s (valid UTF-8) that XML 1.0 cannot carry - C0 controls other than
 * TAB, LF and CR, U+FFFE, U+FFFF - or 0 when there is none. */
uint32_t re_utf8_xml_unsafe(const char *s);

/* Length in bytes of the emoji that starts s[0..end) (valid UTF-8), 0 when none does: a
 * pictograph (U+1F000..U+1FAFF, the symbols and dingbats of U+2600..U+27BF but the circled
 * digits, and the few elsewhere that Unicode gives an emoji form: watch, hourglass, stars,
 * ...), or any character followed by the emoji presentation selector U+FE0F (a keycap "1"
 * U+FE0F U+20E3), with what belongs to it: presentation selectors, skin tones, the keycap
 * mark, tag characters, and further pictographs joined by U+200D (a family, a flag). These
 * are pictures: a voice names them ("party popper") and a listener hears noise. */
size_t re_utf8_emoji_length(const char *s, const char *end);

/* Why a name (a file name or a path) cannot be written as it is into XML, JSON or a terminal
 * line: NULL when it is valid UTF-8 without control characters (re_utf8_is_control, tab and
 * LF included) or the noncharacters U+FFFE and U+FFFF; otherwise a static reason. */
const char *re_utf8_name_problem(const char *name);

/* `name` as a message may show it: valid UTF-8 as it is, a control character (tab and LF
 * too) or a bidi control (re_utf8_is_bidi_control) as \uXXXX, each byte of invalid UTF-8 as
 * \xFF. malloc'ed; NULL when out of memory. */
char *re_utf8_shown(const char *name);

#endif
