/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_status.c - the diagnostics list: adding without a file, placing, prefixing, moving a
 * thread's list into its caller's, and the limit through all of them. */
#include "status.h"
#include "testkit.h"

static const char *formatted(const re_diagnostics *d, size_t i)
{
    static char line[512];
    re_diag_format(&d->items[i], line, sizeof line);
    return line;
}

static void test_unplaced_and_placed(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_diag_add(&d, "a.txt", 1, 2, "named"), RE_OK);
    size_t from = d.count;
    CHECK_INT(re_diag_add(&d, NULL, 0, 0, "cannot write the spool file: %s", "disk full"), RE_OK);
    CHECK_INT(re_diag_add(&d, "cache", 0, 0, "warning: kept"), RE_OK);
    CHECK(d.items[1].file == NULL);
    CHECK_STR(formatted(&d, 1), "-: cannot write the spool file: disk full");
    re_diag_place(&d, from, "ep.txt", 4, 62);
    CHECK_STR(formatted(&d, 0), "a.txt:1:2: named");
    CHECK_STR(formatted(&d, 1), "ep.txt:4:62: cannot write the spool file: disk full");
    CHECK_STR(formatted(&d, 2), "cache: warning: kept");   /* a named message keeps its file */
    re_diag_place(&d, d.count, "other", 1, 1);   /* an empty range */
    re_diagnostics_free(&d);
}

static void test_prefix(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_diag_add(&d, "x", 0, 0, "before"), RE_OK);
    size_t from = d.count;
    CHECK_INT(re_diag_add(&d, NULL, 0, 0, "espeak-ng has no voice 'xx'"), RE_OK);
    re_diag_prefix(&d, from, "voice profile '%s': ", "guest");
    re_diag_place(&d, from, "ep.txt", 7, 13);
    CHECK_STR(formatted(&d, 0), "x: before");
    CHECK_STR(formatted(&d, 1), "ep.txt:7:13: voice profile 'guest': espeak-ng has no voice 'xx'");
    re_diag_prefix(&d, d.count, "nothing to prefix");
    re_diagnostics_free(&d);
}

static void test_move_and_limit(void)
{
    re_diagnostics to, thread;
    re_diagnostics_init(&to, 3);
    re_diagnostics_init(&thread, 0);
    CHECK_INT(re_diag_add(&to, "a", 0, 0, "first"), RE_OK);
    CHECK_INT(re_diag_add(&thread, NULL, 0, 0, "second"), RE_OK);
    CHECK_INT(re_diag_add(&thread, NULL, 0, 0, "third"), RE_OK);
    CHECK_INT(re_diag_add(&thread, NULL, 0, 0, "fourth"), RE_OK);
    CHECK_INT(re_diag_move(&to, &thread), RE_OK);
    CHECK_INT(to.count, 3);
    CHECK(to.truncated);
    CHECK_STR(to.items[1].message, "second");
    CHECK_STR(to.items[2].message, "third");
    CHECK_INT(thread.count, 0);
    CHECK_INT(re_diag_add(&thread, NULL, 0, 0, "again"), RE_OK);   /* still usable */
    CHECK_INT(thread.count, 1);
    CHECK_INT(re_diag_move(NULL, &thread), RE_OK);                 /* dropped */
    CHECK_INT(thread.count, 0);
    re_diagnostics_free(&thread);
    re_diagnostics_free(&to);
}

static void test_zeroed_list(void)
{
    re_diagnostics d = { 0 };   /* as good as re_diagnostics_init(&d, 0) */
    CHECK_INT(re_diag_add(&d, NULL, 0, 0, "kept"), RE_OK);
    CHECK_INT(d.count, 1);
    CHECK(!d.truncated);
    re_diagnostics_free(&d);
}

static void test_null_list(void)
{
    CHECK_INT(re_diag_add(NULL, NULL, 0, 0, "nobody listens"), RE_OK);
    re_diag_place(NULL, 0, "f", 1, 1);
    re_diag_prefix(NULL, 0, "p");
}

/* Continuation lines (a newline and four spaces) stay lines; any other newline, and every
 * control inside a line, is shown escaped: no shown line starts at the margin but the first. */
static void test_lines_shown(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_diag_add(&d, "show.txt", 0, 0, "add to the show file:\n    explicit: false\n"
                          "    guid: x"), RE_OK);
    CHECK_INT(re_diag_add(&d, "a\nb.txt", 0, 0, "not\nok: \x1b[31m\n   three"), RE_OK);
    CHECK_INT(re_diag_add(&d, "c", 0, 0, "\n    \x1b\n    \n    "), RE_OK);
    CHECK_STR(formatted(&d, 0), "show.txt: add to the show file:\n    explicit: false\n    guid: x");
    CHECK_STR(formatted(&d, 1), "a\\u000Ab.txt: not\\u000Aok: \\u001B[31m\\u000A   three");
    CHECK_STR(formatted(&d, 2), "c: \n    \\u001B\n    \n    ");
    re_diagnostics_free(&d);
}

int main(void)
{
    test_unplaced_and_placed();
    test_prefix();
    test_lines_shown();
    test_move_and_limit();
    test_zeroed_list();
    test_null_list();
    return check_finish("test_status");
}
