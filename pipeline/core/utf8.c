/* SPDX-License-Identifier: GPL-3.0-or-later */
/* utf8.c - strict UTF-8 validation, decoding and encoding, and the text check that every
 * parser runs before it looks at lines. */
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length and validity of the sequence at s[0..avail): 0 with *why set when it is invalid. */
static size_t sequence_length(const unsigned char *s, size_t avail, const char **why)
{
    unsigned char b = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;   /* allowed range of the second byte */

    if (b == 0x00) { *why = "NUL byte"; return 0; }
    if (b < 0x80) return 1;
    if (b < 0xC0) { *why = "stray continuation byte"; return 0; }
    if (b < 0xC2) { *why = "overlong encoding"; return 0; }
    if (b < 0xE0) {
        need = 2;
    } else if (b < 0xF0) {
        need = 3;
        if (b == 0xE0) lo = 0xA0;          /* below is overlong */
        if (b == 0xED) hi = 0x9F;          /* above is a surrogate */
    } else if (b < 0xF5) {
        need = 4;
        if (b == 0xF0) lo = 0x90;          /* below is overlong */
        if (b == 0xF4) hi = 0x8F;          /* above is past U+10FFFF */
    } else if (b < 0xF8) {
        *why = "code point above U+10FFFF";
        return 0;
    } else {
        *why = "invalid byte (0xF8..0xFF never occur in UTF-8)";
        return 0;
    }
    for (size_t i = 1; i < need; i++) {
        if (i >= avail || (s[i] & 0xC0) != 0x80) {
            *why = "truncated sequence";
            return 0;
        }
    }
    if (s[1] < lo || s[1] > hi) {
        if (b == 0xED) *why = "surrogate code point (U+D800..U+DFFF)";
        else if (b == 0xF4) *why = "code point above U+10FFFF";
        else *why = "overlong encoding";
        return 0;
    }
    return need;
}

int re_utf8_check(const char *buf, size_t len, size_t *bad_offset, const char **why)
{
    const unsigned char *s = (const unsigned char *)buf;
    size_t i = 0;

    while (i < len) {
        const char *reason = NULL;
        size_t n = sequence_length(s + i, len - i, &reason);
        if (n == 0) {
            if (bad_offset) *bad_offset = i;
            if (why) *why = reason;
            return 0;
        }
        i += n;
    }
    return 1;
}

size_t re_utf8_decode(const char *s, const char *end, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    const char *reason;
    size_t n = sequence_length(u, (size_t)(end - s), &reason);

    /* The contract says valid input; answer U+FFFD for one byte rather than read past end. */
    if (n == 0) { *cp = 0xFFFD; return 1; }
    switch (n) {
    case 1: *cp = u[0]; break;
    case 2: *cp = ((uint32_t)(u[0] & 0x1F) << 6) | (u[1] & 0x3F); break;
    case 3: *cp = ((uint32_t)(u[0] & 0x0F) << 12) | ((uint32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
        break;
    default: *cp = ((uint32_t)(u[0] & 0x07) << 18) | ((uint32_t)(u[1] & 0x3F) << 12)
                   | ((uint32_t)(u[2] & 0x3F) << 6) | (u[3] & 0x3F);
        break;
    }
    return n;
}

size_t re_utf8_encode(uint32_t cp, char out[4])
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t re_utf8_bom_length(const char *buf, size_t len)
{
    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB
        && (unsigned char)buf[2] == 0xBF)
        return 3;
    return 0;
}

int re_utf8_is_bidi_control(uint32_t cp)
{
    return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

int re_utf8_is_control(uint32_t cp)
{
    if (cp == '\t' || cp == '\n')
        return 0;
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

/* Reports the invalid byte at `bad`: the only error, since nothing after it can be trusted. */
static re_status report_invalid(const char *file, const char *buf, size_t bad, const char *why,
                                re_diagnostics *diag)
{
    unsigned line = 1;
    size_t line_start = 0;

    for (size_t i = 0; i < bad; i++) {
        if (buf[i] == '\n') {
            line++;
            line_start = i + 1;
        }
    }
    if (re_diag_add(diag, file, line, (unsigned)(bad - line_start + 1),
                    "the text is not valid UTF-8: %s", why) != RE_OK)
        return RE_ERR_NOMEM;
    return RE_ERR_INPUT;
}

/* Reports the character cp at line:col if it is not allowed; *problems is set when it is. */
static re_status check_char(const char *file, uint32_t cp, int crlf, unsigned line,
                            unsigned col, int *problems, re_diagnostics *diag)
{
    re_status status = RE_OK;

    if (cp == '\r' && !crlf) {
        *problems = 1;
        status = re_diag_add(diag, file, line, col,
                             "carriage return (U+000D) not followed by a line feed");
    } else if (cp != '\r' && re_utf8_is_control(cp)) {
        *problems = 1;
        status = re_diag_add(diag, file, line, col, "control character U+%04X is not allowed",
                             (unsigned)cp);
    }
    return status == RE_OK ? RE_OK : RE_ERR_NOMEM;
}

re_status re_utf8_check_text(const char *file, const char *buf, size_t len, int *decodable,
                             re_diagnostics *diag)
{
    size_t bad = 0;
    const char *why = NULL;
    unsigned line = 1;
    size_t line_start = 0;
    int problems = 0;

    *decodable = re_utf8_check(buf, len, &bad, &why);
    if (!*decodable)
        return report_invalid(file, buf, bad, why, diag);
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = re_utf8_decode(buf + i, buf + len, &cp);
        if (cp == '\n') {
            line++;
            line_start = i + 1;
        } else {
            int crlf = cp == '\r' && i + 1 < len && buf[i + 1] == '\n';
            if (check_char(file, cp, crlf, line, (unsigned)(i - line_start + 1), &problems,
                           diag) != RE_OK)
                return RE_ERR_NOMEM;
        }
        i += n;
    }
    return problems ? RE_ERR_INPUT : RE_OK;
}

size_t re_utf8_prefix(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    /* Step back over continuation bytes so the cut falls before a lead byte. */
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

const char *re_utf8_quote(char *out, const char *s, size_t len, size_t max)
{
    size_t shown = re_utf8_prefix(s, len, max), n = 0;
    for (size_t i = 0; i < shown;) {
        uint32_t cp;
        size_t step = re_utf8_decode(s + i, s + shown, &cp);
        if (re_utf8_is_control(cp) || re_utf8_is_bidi_control(cp)) {
            snprintf(out + n, 7, "\\u%04X", (unsigned)cp);
            n += 6;
        } else {
            memcpy(out + n, s + i, step);
            n += step;
        }
        i += step;
    }
    strcpy(out + n, shown < len ? "..." : "");
    return out;
}

uint32_t re_utf8_xml_unsafe(const char *s)
{
    const char *end = s + strlen(s);
    while (s < end) {
        uint32_t cp;
        s += re_utf8_decode(s, end, &cp);
        if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE || cp == 0xFFFF)
            return cp;
    }
    return 0;
}

const char *re_utf8_name_problem(const char *name)
{
    size_t len = strlen(name), bad;
    const char *why;
    if (!re_utf8_check(name, len, &bad, &why))
        return "it is not valid UTF-8";
    for (const char *s = name, *end = name + len; s < end;) {
        uint32_t cp;
        s += re_utf8_decode(s, end, &cp);
        if (re_utf8_is_control(cp) || cp == '\t' || cp == '\n')
            return "it holds a control character";
        if (cp == 0xFFFE || cp == 0xFFFF)
            return "it holds a noncharacter (U+FFFE or U+FFFF)";
    }
    return NULL;
}

char *re_utf8_shown(const char *name)
{
    size_t len = strlen(name);
    char *out = malloc(len * 6 + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *s = name, *end = name + len; s < end;) {
        size_t bad;
        const char *why;
        size_t n = 1;
        while (n <= 4 && s + n <= end && !re_utf8_check(s, n, &bad, &why))
            n++;
        uint32_t cp = 0;
        if (n <= 4 && s + n <= end) {
            re_utf8_decode(s, end, &cp);
            if (re_utf8_is_control(cp) || re_utf8_is_bidi_control(cp) || cp == '\t' || cp == '\n'
                || cp == 0xFFFE || cp == 0xFFFF)
                o += sprintf(o, "\\u%04X", (unsigned)cp);
            else {
                memcpy(o, s, n);
                o += n;
            }
            s += n;
        } else {
            o += sprintf(o, "\\x%02X", (unsigned char)*s);
            s++;
        }
    }
    *o = '\0';
    return out;
}

/* Pictographs that are emoji by themselves (see re_utf8_emoji_length). */
static int pictograph(uint32_t cp)
{
    static const struct { uint32_t first, last; } ranges[] = {
        { 0x231A, 0x231B }, { 0x2328, 0x2328 }, { 0x23CF, 0x23CF }, { 0x23E9, 0x23F3 },
        { 0x23F8, 0x23FA }, { 0x2600, 0x2775 }, { 0x2794, 0x27BF }, { 0x2934, 0x2935 },
        { 0x2B05, 0x2B07 }, { 0x2B1B, 0x2B1C }, { 0x2B50, 0x2B50 }, { 0x2B55, 0x2B55 },
        { 0x3030, 0x3030 }, { 0x303D, 0x303D }, { 0x3297, 0x3297 }, { 0x3299, 0x3299 },
        { 0x1F000, 0x1FAFF },
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cp >= ranges[i].first && cp <= ranges[i].last)
            return 1;
    return 0;
}

/* What may follow a pictograph inside one emoji: presentation selectors, the keycap mark,
 * skin tones, tag characters. */
static int emoji_modifier(uint32_t cp)
{
    return cp == 0xFE0E || cp == 0xFE0F || cp == 0x20E3 || (cp >= 0x1F3FB && cp <= 0x1F3FF)
           || (cp >= 0xE0020 && cp <= 0xE007F);
}

size_t re_utf8_emoji_length(const char *s, const char *end)
{
    if (s >= end)
        return 0;
    uint32_t cp, next = 0;
    size_t n = re_utf8_decode(s, end, &cp);
    if (s + n < end)
        re_utf8_decode(s + n, end, &next);
    if (!pictograph(cp) && next != 0xFE0F && !(next == 0x20E3 && cp < 0x80))
        return 0;
    size_t len = n;
    while (s + len < end) {
        size_t m = re_utf8_decode(s + len, end, &cp);
        if (emoji_modifier(cp)) {
            len += m;
            continue;
        }
        if (cp != 0x200D || s + len + m >= end)
            break;
        size_t k = re_utf8_decode(s + len + m, end, &next);
        if (!pictograph(next))
            break;
        len += m + k;   /* a joined pictograph: one emoji */
    }
    return len;
}
