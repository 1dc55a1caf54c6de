/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_utf8.c - strict UTF-8: the validator agrees with an independent decoder (RFC 3629
 * table 3-7), the decoder and encoder round-trip, and the text checker never crashes. */
#include <string.h>

#include "fuzz.h"
#include "utf8.h"

/* Length of the valid sequence at s, or 0 (RFC 3629; NUL refused as re_utf8_check does). */
static size_t reference_length(const unsigned char *s, size_t left)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c == 0)
        return 0;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (left < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    size_t bad = (size_t)-1, pos = 0;
    const char *why = NULL;
    int valid = re_utf8_check(s, size, &bad, &why);
    while (pos < size) {
        size_t n = reference_length(data + pos, size - pos);
        if (!n)
            break;
        pos += n;
    }
    FUZZ_ASSERT(valid == (pos == size));
    if (!valid) {
        FUZZ_ASSERT(why && why[0] && bad >= pos && bad < size && bad <= pos + 3);
    } else {
        for (size_t i = 0; i < size;) {
            uint32_t cp;
            char again[4];
            size_t n = re_utf8_decode(s + i, s + size, &cp);
            FUZZ_ASSERT(n == reference_length(data + i, size - i));
            FUZZ_ASSERT(re_utf8_encode(cp, again) == n && memcmp(again, s + i, n) == 0);
            i += n;
        }
        for (size_t max = 0; max <= size && max < 8; max++) {
            size_t p = re_utf8_prefix(s, size, max);
            FUZZ_ASSERT(p <= max && (p == size || p == 0 || ((unsigned char)s[p] & 0xC0) != 0x80));
        }
    }
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    int decodable = -1;
    re_status status = re_utf8_check_text("fuzz.txt", s, size, &decodable, &diag);
    FUZZ_ASSERT(decodable == valid);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    FUZZ_ASSERT((status == RE_OK) == (diag.count == 0));
    re_diagnostics_free(&diag);
    return 0;
}
