/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_utf8.c - strict UTF-8 checking, decoding, encoding and the text check of utf8.c. */
#include <stdint.h>
#include <string.h>

#include "testkit.h"
#include "utf8.h"

/* Checks that s (n bytes) is rejected at `offset` with a reason containing `why`. */
static void expect_invalid(const char *s, size_t n, size_t offset, const char *why)
{
    size_t bad = 999;
    const char *reason = NULL;

    CHECK_INT(re_utf8_check(s, n, &bad, &reason), 0);
    CHECK_INT(bad, offset);
    CHECK(reason && strstr(reason, why));
    if (!reason || !strstr(reason, why))
        fprintf(stderr, "  reason was: %s\n", reason ? reason : "(null)");
}

static void expect_valid(const char *s, size_t n)
{
    size_t bad = 999;
    const char *reason = NULL;

    CHECK_INT(re_utf8_check(s, n, &bad, &reason), 1);
}

static void test_check(void)
{
    expect_valid("", 0);
    expect_valid("plain ASCII\ttab\n", 16);
    expect_valid("\x7F", 1);
    expect_valid("\xC2\x80", 2);                  /* U+0080, first 2-byte */
    expect_valid("\xDF\xBF", 2);                  /* U+07FF */
    expect_valid("\xE0\xA0\x80", 3);              /* U+0800, first 3-byte */
    expect_valid("\xED\x9F\xBF", 3);              /* U+D7FF, just below the surrogates */
    expect_valid("\xEE\x80\x80", 3);              /* U+E000, just above */
    expect_valid("\xEF\xBF\xBF", 3);              /* U+FFFF */
    expect_valid("\xF0\x90\x80\x80", 4);          /* U+10000 */
    expect_valid("\xF4\x8F\xBF\xBF", 4);          /* U+10FFFF */
    expect_valid("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x8E\x99", 14);

    expect_invalid("ab\0c", 4, 2, "NUL");
    expect_invalid("a\x80", 2, 1, "stray continuation");
    expect_invalid("\xBF", 1, 0, "stray continuation");
    expect_invalid("xy\xC0\x80", 4, 2, "overlong");
    expect_invalid("\xC1\xBF", 2, 0, "overlong");
    expect_invalid("\xE0\x80\x80", 3, 0, "overlong");
    expect_invalid("\xE0\x9F\xBF", 3, 0, "overlong");
    expect_invalid("\xF0\x8F\xBF\xBF", 4, 0, "overlong");
    expect_invalid("\xED\xA0\x80", 3, 0, "surrogate");
    expect_invalid("\xED\xBF\xBF", 3, 0, "surrogate");
    expect_invalid("\xF4\x90\x80\x80", 4, 0, "above U+10FFFF");
    expect_invalid("\xF5\x80\x80\x80", 4, 0, "above U+10FFFF");
    expect_invalid("\xF8\x80\x80\x80\x80", 5, 0, "invalid byte");
    expect_invalid("\xFF", 1, 0, "invalid byte");
    expect_invalid("ok\xC3", 3, 2, "truncated");
    expect_invalid("\xE2\x82", 2, 0, "truncated");
    expect_invalid("\xE2\x82" "A", 3, 0, "truncated");
    expect_invalid("\xF0\x9F\x8E", 3, 0, "truncated");
}

static void test_decode_encode(void)
{
    static const uint32_t points[] = { 0x41, 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0x20AC, 0xD7FF,
                                       0xE000, 0xFFFF, 0x10000, 0x1F399, 0x10FFFF };
    static const size_t lengths[] = { 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4 };

    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        char buf[4];
        uint32_t cp = 0;
        size_t n = re_utf8_encode(points[i], buf);
        CHECK_INT(n, lengths[i]);
        CHECK_INT(re_utf8_check(buf, n, NULL, NULL), 1);
        CHECK_INT(re_utf8_decode(buf, buf + n, &cp), n);
        CHECK_INT(cp, points[i]);
    }
    uint32_t cp = 0;
    const char *euro = "\xE2\x82\xAC";
    CHECK_INT(re_utf8_decode(euro, euro + 3, &cp), 3);
    CHECK_INT(cp, 0x20AC);
    /* Outside the contract, but it must not read past end. */
    CHECK_INT(re_utf8_decode(euro, euro + 2, &cp), 1);
    CHECK_INT(cp, 0xFFFD);
}

static void test_helpers(void)
{
    CHECK_INT(re_utf8_bom_length("\xEF\xBB\xBFx", 4), 3);
    CHECK_INT(re_utf8_bom_length("\xEF\xBB", 2), 0);
    CHECK_INT(re_utf8_bom_length("abc", 3), 0);

    CHECK_INT(re_utf8_is_control(0x00), 1);
    CHECK_INT(re_utf8_is_control(0x01), 1);
    CHECK_INT(re_utf8_is_control('\t'), 0);
    CHECK_INT(re_utf8_is_control('\n'), 0);
    CHECK_INT(re_utf8_is_control('\r'), 1);
    CHECK_INT(re_utf8_is_control(0x1F), 1);
    CHECK_INT(re_utf8_is_control(' '), 0);
    CHECK_INT(re_utf8_is_control(0x7E), 0);
    CHECK_INT(re_utf8_is_control(0x7F), 1);
    CHECK_INT(re_utf8_is_control(0x80), 1);
    CHECK_INT(re_utf8_is_control(0x85), 1);
    CHECK_INT(re_utf8_is_control(0x9F), 1);
    CHECK_INT(re_utf8_is_control(0xA0), 0);
    CHECK_INT(re_utf8_is_control(0x2028), 0);

    const char *s = "ab\xC3\xA9" "cd";   /* é at bytes 2..3 */
    CHECK_INT(re_utf8_prefix(s, 6, 10), 6);
    CHECK_INT(re_utf8_prefix(s, 6, 4), 4);
    CHECK_INT(re_utf8_prefix(s, 6, 3), 2);    /* never cut é in half */
    CHECK_INT(re_utf8_prefix(s, 6, 2), 2);
    CHECK_INT(re_utf8_prefix(s, 6, 0), 0);
}

/* Runs the text check on s and returns the number of diagnostics. */
static size_t text_check(const char *s, size_t n, re_status *status, int *decodable,
                         re_diagnostics *d)
{
    re_diagnostics_init(d, 0);
    *status = re_utf8_check_text("in.txt", s, n, decodable, d);
    return d->count;
}

static void test_check_text(void)
{
    re_diagnostics d;
    re_status status;
    int decodable;

    CHECK_INT(text_check("a\tb\r\nc\n", 7, &status, &decodable, &d), 0);
    CHECK_INT(status, RE_OK);
    CHECK_INT(decodable, 1);
    re_diagnostics_free(&d);

    /* Every control character and lone CR is reported, with line and byte column. */
    const char *ctl = "ok\x01\n\xC3\xA9\x7F\nx\ry\n\xC2\x85z\r";
    CHECK_INT(text_check(ctl, strlen(ctl), &status, &decodable, &d), 5);
    CHECK_INT(status, RE_ERR_INPUT);
    CHECK_INT(decodable, 1);
    if (d.count == 5) {
        CHECK_STR(d.items[0].file, "in.txt");
        CHECK_INT(d.items[0].line, 1);
        CHECK_INT(d.items[0].col, 3);
        CHECK_STR(d.items[0].message, "control character U+0001 is not allowed");
        CHECK_INT(d.items[1].line, 2);
        CHECK_INT(d.items[1].col, 3);
        CHECK_STR(d.items[1].message, "control character U+007F is not allowed");
        CHECK_INT(d.items[2].line, 3);
        CHECK_INT(d.items[2].col, 2);
        CHECK(strstr(d.items[2].message, "carriage return") != NULL);
        CHECK_INT(d.items[3].line, 4);
        CHECK_INT(d.items[3].col, 1);
        CHECK_STR(d.items[3].message, "control character U+0085 is not allowed");
        CHECK_INT(d.items[4].line, 4);   /* a CR at the very end has no LF after it */
        CHECK_INT(d.items[4].col, 4);
    }
    re_diagnostics_free(&d);

    /* Invalid UTF-8 is one error and nothing else is looked at. */
    const char *bad = "\x01\nab\xE0\x80\x80\x01\n";
    CHECK_INT(text_check(bad, strlen(bad), &status, &decodable, &d), 1);
    CHECK_INT(status, RE_ERR_INPUT);
    CHECK_INT(decodable, 0);
    if (d.count == 1) {
        CHECK_INT(d.items[0].line, 2);
        CHECK_INT(d.items[0].col, 3);
        CHECK_STR(d.items[0].message, "the text is not valid UTF-8: overlong encoding");
    }
    re_diagnostics_free(&d);

    CHECK_INT(text_check("a\0b", 3, &status, &decodable, &d), 1);
    CHECK_INT(decodable, 0);
    if (d.count == 1) {
        CHECK_INT(d.items[0].col, 2);
        CHECK(strstr(d.items[0].message, "NUL byte") != NULL);
    }
    re_diagnostics_free(&d);
}

/* Emoji are pictures with everything that belongs to them; text around them is not. */
static void test_emoji(void)
{
    static const struct { const char *text; size_t length; } cases[] = {
        { "\xF0\x9F\x8E\x83:", 4 },                     /* U+1F383 jack-o-lantern, then ':' */
        { "\xE2\x9C\x85 bringing", 3 },                  /* U+2705 check mark button */
        { "\xE2\x9A\xA0\xEF\xB8\x8F Kernel", 6 },      /* U+26A0 U+FE0F warning */
        { "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD!", 8 },   /* thumbs up, medium skin tone */
        { "\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB x", 11 },   /* woman ZWJ laptop */
        { "1\xEF\xB8\x8F\xE2\x83\xA3 one", 7 },        /* keycap 1 */
        { "\xF0\x9F\x87\xA9\xF0\x9F\x87\xAA", 4 },    /* a regional indicator (of a flag) */
        { "\xE2\x86\x92 to", 0 },                       /* an arrow is no emoji */
        { "\xE2\x9D\xB6", 0 },                           /* a circled digit neither */
        { "\xC2\xA9 2024", 0 },                          /* nor the copyright sign */
        { "\xE0\xA4\x95\xE2\x80\x8D\xE0\xA4\xB7", 0 },   /* Devanagari with a ZWJ */
        { "1 one", 0 },
        { "\xF0\x9F\x98\x8A\xE2\x80\x8D", 4 },        /* a ZWJ at the end is not joined */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *s = cases[i].text;
        CHECK_INT(re_utf8_emoji_length(s, s + strlen(s)), cases[i].length);
    }
}

int main(void)
{
    test_emoji();
    test_check();
    test_decode_encode();
    test_helpers();
    test_check_text();
    return check_finish("test_utf8");
}
