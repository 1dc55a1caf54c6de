/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_hex.c - the one hex writer and reader: every byte value written in either case,
 * lowercase only checked, either case read, and a short string stopped at its NUL. */
#include <stdio.h>
#include <string.h>

#include "testkit.h"
#include "hex.h"

/* How many of the 256 byte values `encode` writes otherwise than the C library's "%02x" (or,
 * upper, "%02X"), the judge; -1 when the whole is not 512 digits. */
static int wrong_bytes(void (*encode)(const void *, size_t, char *), int upper)
{
    unsigned char all[256];
    char hex[2 * sizeof all + 1], expected[3];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    encode(all, sizeof all, hex);
    if (strlen(hex) != 512)
        return -1;
    int wrong = 0;
    for (int i = 0; i < 256; i++) {
        snprintf(expected, sizeof expected, upper ? "%02X" : "%02x", i);
        wrong += memcmp(hex + 2 * i, expected, 2) != 0;
    }
    return wrong;
}

static void test_encode_every_byte(void)
{
    CHECK_INT(wrong_bytes(re_hex_encode, 0), 0);
    char empty[1] = { 'x' };
    re_hex_encode(NULL, 0, empty);
    CHECK_STR(empty, "");
    char some[7];
    re_hex_encode("\x01\xab\xff", 3, some);
    CHECK_STR(some, "01abff");
}

/* Uppercase, for percent-encoding: every byte as printf's %02X writes it. */
static void test_encode_upper(void)
{
    CHECK_INT(wrong_bytes(re_hex_encode_upper, 1), 0);
    char some[7];
    re_hex_encode_upper("\x01\xab\xff", 3, some);
    CHECK_STR(some, "01ABFF");
}

static void test_valid(void)
{
    CHECK(re_hex_valid("0123456789abcdef", 16));
    CHECK(re_hex_valid("", 0));
    CHECK(!re_hex_valid("0123456789ABCDEF", 16));   /* one spelling: lowercase */
    CHECK(!re_hex_valid("abcg", 4));
    CHECK(!re_hex_valid("ab-c", 4));
    CHECK(!re_hex_valid("abc", 8));                 /* stops at the NUL */
    CHECK(re_hex_valid("abcXYZ", 3));
    int classes_agree = 1;
    for (int c = 1; c < 256; c++)
        classes_agree &= re_is_hex_lower((char)c) == (strchr("0123456789abcdef", c) != NULL);
    CHECK(classes_agree);
}

static void test_value(void)
{
    int wrong = 0;
    for (int c = 1; c < 256; c++) {
        const char *lower = strchr("0123456789abcdef", c), *upper = strchr("0123456789ABCDEF", c);
        int expected = lower ? (int)(lower - "0123456789abcdef")
                       : upper ? (int)(upper - "0123456789ABCDEF") : -1;
        wrong += re_hex_value((char)c) != expected;
    }
    CHECK_INT(wrong, 0);
    CHECK_INT(re_hex_value('\0'), -1);
}

int main(void)
{
    test_encode_every_byte();
    test_encode_upper();
    test_valid();
    test_value();
    return check_finish("test_hex");
}
