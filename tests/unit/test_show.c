/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_show.c - the show file's keys as the key-file reader reads them (show.h): itunes:type
 * and copyright, the suggestion for a mistyped key, the list of known keys. */
#include <stdio.h>
#include <string.h>

#include "show.h"
#include "testkit.h"

/* Parses text into a fresh show; the status, the diagnostics kept in *d. */
static re_status parse(const char *text, re_show *s, re_diagnostics *d)
{
    re_show_init(s);
    re_diagnostics_init(d, 0);
    return re_show_parse("show.txt", text, strlen(text), s, d);
}

static void test_type_and_copyright(void)
{
    re_show s;
    re_diagnostics d;

    CHECK_INT(parse("title: T\n", &s, &d), RE_OK);
    CHECK_INT(s.serial, 0);
    CHECK(s.copyright == NULL);
    re_show_free(&s);
    re_diagnostics_free(&d);

    CHECK_INT(parse("type: serial\ncopyright:  (c) 2026 Ada  &  Bob <a@b>  \n", &s, &d), RE_OK);
    CHECK_INT(s.serial, 1);
    CHECK_STR(s.copyright, "(c) 2026 Ada  &  Bob <a@b>");   /* as written, trimmed */
    /* a second file giving type: episodic turns it back; one without keeps it */
    CHECK_INT(re_show_parse("more.txt", "title: U\n", 9, &s, &d), RE_OK);
    CHECK_INT(s.serial, 1);
    CHECK_INT(re_show_parse("more.txt", "type: episodic\n", 15, &s, &d), RE_OK);
    CHECK_INT(s.serial, 0);
    CHECK_STR(s.copyright, "(c) 2026 Ada  &  Bob <a@b>");
    re_show_free(&s);
    re_diagnostics_free(&d);

    CHECK_INT(parse("type: Serial\n", &s, &d), RE_ERR_INPUT);
    CHECK(d.count == 1 && d.items[0].line == 1 && d.items[0].col == 7);
    CHECK(d.count == 1 && strcmp(d.items[0].message,
                                 "type must be episodic or serial, not 'Serial'") == 0);
    re_show_free(&s);
    re_diagnostics_free(&d);
}

static void test_unknown_keys(void)
{
    re_show s;
    re_diagnostics d;

    CHECK_INT(parse("titel: T\ncolour: blue\n", &s, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 2);
    if (d.count == 2) {
        CHECK_STR(d.items[0].message, "unknown key 'titel' (did you mean 'title'?)");
        CHECK_STR(d.items[1].message, "unknown key 'colour' (known keys: title, description, "
                  "author, language, link, image, category, explicit, owner_name, owner_email, "
                  "guid, locked, medium, disclosure, type, copyright)");
        CHECK(d.items[1].line == 2 && d.items[1].col == 1);
    }
    CHECK(s.title == NULL);
    re_show_free(&s);
    re_diagnostics_free(&d);
}

int main(void)
{
    test_type_and_copyright();
    test_unknown_keys();
    return check_finish("test_show");
}
