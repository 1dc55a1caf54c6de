/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hex.c - hexadecimal, lowercase unless asked (see hex.h). */
#include "hex.h"

static void encode(const void *bytes, size_t n, char *out, const char digits[16])
{
    const unsigned char *b = bytes;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

void re_hex_encode(const void *bytes, size_t n, char *out)
{
    encode(bytes, n, out, "0123456789abcdef");
}

void re_hex_encode_upper(const void *bytes, size_t n, char *out)
{
    encode(bytes, n, out, "0123456789ABCDEF");
}

int re_hex_valid(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!re_is_hex_lower(s[i]))
            return 0;
    return 1;
}

int re_hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
