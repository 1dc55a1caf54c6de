/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_keyfile.c - the key-file reader on its own: line syntax in both forms, kinds and
 * their ranges, duplicates, unknown keys with "did you mean", and the FILE:LINE:COL of each
 * error. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keyfile.h"
#include "testkit.h"

typedef struct sample {
    char *name;
    int count;
    long big;
    char *colour;
    int on;
    char *called;
    unsigned called_line, called_col;
} sample;

static void read_called(keyfile *kf, const keyfile_value *v)
{
    sample *s = re_keyfile_context(kf);
    free(s->called);
    s->called = strdup(v->text);
    s->called_line = v->line;
    s->called_col = v->col;
}

static const char *const colours[] = { "red", "green", "light blue", NULL };
static const char *const yes_no[] = { "yes", "no" };

static const keyfile_key keys[] = {
    { .name = "name", .kind = KEY_TEXT, .offset = offsetof(sample, name) },
    { .name = "count", .kind = KEY_INT, .offset = offsetof(sample, count), .min = -5, .max = 90,
      .step = 10 },
    { .name = "big", .kind = KEY_LONG, .offset = offsetof(sample, big), .min = 1, .max = 999999 },
    { .name = "colour", .kind = KEY_WORD, .offset = offsetof(sample, colour), .words = colours },
    { .name = "on", .kind = KEY_BOOL, .offset = offsetof(sample, on), .words = yes_no },
    { .name = "called", .kind = KEY_CALL, .read = read_called },
};

static const keyfile_syntax spaced = {
    .keys = keys, .key_count = sizeof keys / sizeof keys[0], .separator = '=',
    .key_noun = "key", .pair_hint = "'key = value'", .collapse_blanks = 1,
};

static const keyfile_syntax strict = {
    .keys = keys, .key_count = sizeof keys / sizeof keys[0], .separator = ':',
    .key_noun = "setting", .pair_hint = "`key: value`", .keys_start_lines = 1,
    .skip_control_lines = 1,
};

static void sample_free(sample *s)
{
    free(s->name);
    free(s->colour);
    free(s->called);
    memset(s, 0, sizeof *s);
}

/* Reads text with syntax into *s; the number of errors, kept in *d. */
static int read_text(const keyfile_syntax *syntax, const char *text, sample *s, re_diagnostics *d,
                     keyfile *kf)
{
    parse_errors err = { .file = "k.txt", .diag = d };
    memset(s, 0, sizeof *s);
    s->count = -1;
    re_diagnostics_init(d, 0);
    re_keyfile_init(kf, syntax, &err, s, s);
    re_keyfile_lines(kf, text, strlen(text));
    CHECK(!err.nomem);
    return err.count;
}

/* Exactly one error, at line:col, its message exactly `message`. */
static void expect_error(const keyfile_syntax *syntax, const char *text, unsigned line,
                         unsigned col, const char *message)
{
    sample s;
    re_diagnostics d;
    keyfile kf;

    CHECK_INT(read_text(syntax, text, &s, &d, &kf), 1);
    CHECK_INT(d.count, 1);
    if (d.count == 1) {
        CHECK_STR(d.items[0].file, "k.txt");
        CHECK_INT(d.items[0].line, line);
        CHECK_INT(d.items[0].col, col);
        CHECK_STR(d.items[0].message, message);
    }
    for (size_t i = 0; d.count != 1 && i < d.count; i++)
        fprintf(stderr, "    %u:%u: %s\n", d.items[i].line, d.items[i].col, d.items[i].message);
    re_diagnostics_free(&d);
    sample_free(&s);
}

static void test_values(void)
{
    sample s;
    re_diagnostics d;
    keyfile kf;
    const char *text = "# a comment\r\n"
                       "\n"
                       "  name  =  Ada \t  Lovelace  \r\n"
                       "count=-5\n"
                       "   # indented comment\n"
                       "big = 999999\n"
                       "colour = light blue\n"
                       "on = no\n"
                       "called =  a = b  \n";

    CHECK_INT(read_text(&spaced, text, &s, &d, &kf), 0);
    CHECK_STR(s.name, "Ada Lovelace");            /* blank runs collapsed */
    CHECK_INT(s.count, 0);                         /* -5 rounded toward zero to a step of 10 */
    CHECK_INT(s.big, 999999);
    CHECK_STR(s.colour, "light blue");
    CHECK_INT(s.on, 0);
    CHECK_STR(s.called, "a = b");                 /* the first separator splits */
    CHECK_INT(s.called_line, 9);
    CHECK_INT(s.called_col, 11);
    unsigned col = 0;
    int valued = 0;
    CHECK_INT(re_keyfile_where(&kf, "name", &col, &valued), 3);
    CHECK_INT(col, 3);
    CHECK_INT(valued, 1);
    CHECK_INT(re_keyfile_where(&kf, "on", NULL, NULL), 8);
    sample_free(&s);
    re_diagnostics_free(&d);

    /* a step rounds down; the last of the range is taken */
    CHECK_INT(read_text(&spaced, "count = 89\non = yes\n", &s, &d, &kf), 0);
    CHECK_INT(s.count, 80);
    CHECK_INT(s.on, 1);
    CHECK_INT(re_keyfile_where(&kf, "big", &col, &valued), 0);
    CHECK_INT(valued, 0);
    sample_free(&s);
    re_diagnostics_free(&d);

    /* the strict form keeps blanks as written and takes a key only at the line's start */
    CHECK_INT(read_text(&strict, "name:  Ada   L\ncount: 90\n", &s, &d, &kf), 0);
    CHECK_STR(s.name, "Ada   L");
    CHECK_INT(s.count, 90);
    sample_free(&s);
    re_diagnostics_free(&d);
}

static void test_ranges(void)
{
    expect_error(&spaced, "count = 91\n", 1, 9, "count 91 is out of range -5..90");
    expect_error(&spaced, "count = -6\n", 1, 9, "count -6 is out of range -5..90");
    expect_error(&spaced, "big = 0\n", 1, 7, "big 0 is out of range 1..999999");
    expect_error(&spaced, "big = 99999999999999999999\n", 1, 7,
                 "big 99999999999999999999 is out of range 1..999999");
    expect_error(&spaced, "count = 12abc\n", 1, 9, "count must be a whole number, got '12abc'");
    expect_error(&spaced, "count = -\n", 1, 9, "count must be a whole number, got '-'");
    expect_error(&spaced, "count = 1.5\n", 1, 9, "count must be a whole number, got '1.5'");
    expect_error(&spaced, "colour = Red\n", 1, 10,
                 "colour 'Red' is not one of: red, green, light blue");
    expect_error(&spaced, "on = true\n", 1, 6, "on must be yes or no, not 'true'");
}

static void test_line_errors(void)
{
    /* duplicates: the second is refused, naming the first's line, even when the first had
     * no value */
    expect_error(&spaced, "name = a\n\nname = b\n", 3, 1,
                 "duplicate key 'name' (first set on line 1)");
    sample s;
    re_diagnostics d;
    keyfile kf;
    CHECK_INT(read_text(&spaced, "name =\n  name = b\n", &s, &d, &kf), 2);
    CHECK(d.count == 2 && d.items[0].line == 1 && d.items[0].col == 1
          && strcmp(d.items[0].message, "key 'name' has no value") == 0);
    CHECK(d.count == 2 && d.items[1].line == 2 && d.items[1].col == 3
          && strcmp(d.items[1].message, "duplicate key 'name' (first set on line 1)") == 0);
    CHECK(s.name == NULL);
    sample_free(&s);
    re_diagnostics_free(&d);

    /* unknown keys: a near one is suggested (capitals read as small letters), else the list */
    expect_error(&spaced, "colur = red\n", 1, 1, "unknown key 'colur' (did you mean 'colour'?)");
    expect_error(&spaced, "\tCOUNT = 1\n", 1, 2, "unknown key 'COUNT' (did you mean 'count'?)");
    expect_error(&spaced, "weight = 1\n", 1, 1,
                 "unknown key 'weight' (known keys: name, count, big, colour, on, called)");
    expect_error(&spaced, "x\x1b[2J = 1\n", 1, 1,
                 "unknown key 'x\\u001B[2J' (known keys: name, count, big, colour, on, called)");
    /* no separator, or nothing before it */
    expect_error(&spaced, "  name Ada\n", 1, 3, "expected 'key = value', got 'name Ada'");
    expect_error(&spaced, "= 1\n", 1, 1, "expected 'key = value', got '= 1'");

    /* the strict form: a key starts its line, lowercase, the separator right after it */
    expect_error(&strict, " name: a\n", 1, 1, "a line must start with its key (`key: value`)");
    expect_error(&strict, "Name: a\n", 1, 1, "expected `key: value`");
    expect_error(&strict, "name : a\n", 1, 5, "expected `key: value`");
    expect_error(&strict, "on: yes\non: no\n", 2, 1,
                 "duplicate setting 'on' (first set on line 1)");
    expect_error(&strict, "nam: a\n", 1, 1, "unknown setting 'nam' (did you mean 'name'?)");
    /* a line holding a control character is left to the caller's UTF-8 check */
    CHECK_INT(read_text(&strict, "name: a\x01z\ncount: 1000\n", &s, &d, &kf), 1);
    CHECK(s.name == NULL);
    CHECK(d.count == 1 && d.items[0].line == 2 && d.items[0].col == 8);
    sample_free(&s);
    re_diagnostics_free(&d);
}

int main(void)
{
    test_values();
    test_ranges();
    test_line_errors();
    return check_finish("test_keyfile");
}
