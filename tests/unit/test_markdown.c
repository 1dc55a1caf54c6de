/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_markdown.c - a Markdown document read as a script: the spoken text, the chapters, the
 * title, the warnings and errors with their FILE:LINE:COL, and explain's outline. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "markdown.h"
#include "script.h"

static void print_diags(const re_diagnostics *d)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "    %s:%u:%u: %s\n", d->items[i].file, d->items[i].line,
                d->items[i].col, d->items[i].message);
}

/* 1 if d holds a message at notes.md:line:col containing `part`; prints the list when not. */
static int has_diag(const re_diagnostics *d, unsigned line, unsigned col, const char *part)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].line == line && d->items[i].col == col && d->items[i].file
            && strcmp(d->items[i].file, "notes.md") == 0 && strstr(d->items[i].message, part))
            return 1;
    fprintf(stderr, "  no diagnostic %u:%u '%s' among:\n", line, col, part);
    print_diags(d);
    return 0;
}

/* The episode's items as one line: speech as its text, "|" between paragraphs, chapters as
 * "#TITLE#", pauses as "<N ms>". Caller frees. */
static char *said(const re_episode *ep)
{
    size_t cap = 64, len = 0;
    char *out = calloc(1, cap);
    for (size_t i = 0; out && i < ep->item_count; i++) {
        const re_item *it = &ep->items[i];
        char piece[4200];
        switch (it->kind) {
        case RE_ITEM_SPEECH: snprintf(piece, sizeof piece, "%s%s", len ? " " : "", it->text); break;
        case RE_ITEM_BREAK: snprintf(piece, sizeof piece, " |"); break;
        case RE_ITEM_CHAPTER: snprintf(piece, sizeof piece, "%s#%s#", len ? " " : "", it->text); break;
        case RE_ITEM_PAUSE:
            snprintf(piece, sizeof piece, " <%llu ms>", (unsigned long long)it->pause_us / 1000);
            break;
        default: snprintf(piece, sizeof piece, " ?"); break;
        }
        size_t n = strlen(piece);
        if (len + n + 1 > cap) {
            while (len + n + 1 > cap)
                cap *= 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                return NULL;
            }
            out = grown;
        }
        memcpy(out + len, piece, n + 1);
        len += n;
    }
    return out;
}

/* Parses `text` as notes.md; checks it is valid with `warnings` warnings, the title and the
 * spoken line (as said() writes it). */
static void expect(const char *text, const char *title, const char *spoken, size_t warnings)
{
    re_episode *ep = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_status status = re_script_parse("notes.md", text, strlen(text), &ep, &d);
    CHECK_INT(status, RE_OK);
    CHECK_INT(d.count, warnings);
    if (status != RE_OK || d.count != warnings) {
        fprintf(stderr, "  document:\n%s\n", text);
        print_diags(&d);
    }
    if (ep) {
        CHECK_STR(ep->title, title);
        char *line = said(ep);
        CHECK_STR(line, spoken);
        free(line);
    }
    re_episode_free(ep);
    re_diagnostics_free(&d);
}

static void test_spoken_text(void)
{
    /* Paragraphs, emphasis, inline code, and a title from the only level-1 heading. */
    expect("# Notes\n\nThe **fast** path, *really*: `make -j2`.\n\nSecond.\n", "Notes",
           "The fast path, really: make -j2. | Second.", 0);
    /* List items are sentences, a full stop supplied; nested lists in order; task items. */
    expect("- one\n- two.\n  - inner\n- [x] done\n", "notes",
           "one. two. inner. done.", 0);
    /* Link text, never its target; a reference definition is not spoken. */
    expect("See [the guide](https://example.org/guide) now.\n\n[1.0]: https://example.org/1\n",
           "notes", "See the guide now.", 0);
    /* GitHub's conventions. */
    expect("* Fix X by @alice in https://github.com/o/r/pull/123 :tada:\n", "notes",
           "Fix X by alice, pull request 123.", 0);
    expect("**Full Changelog**: https://github.com/o/r/compare/v1.2.0...v1.3.0\n", "notes",
           "Full Changelog: changes from v1.2.0 to v1.3.0", 0);
    expect("Closes [#45](https://github.com/o/r/issues/45), see #46.\n", "notes",
           "Closes issue 45, see number 46.", 0);
    /* Struck-through text, raw HTML and comments are not spoken. */
    expect("~~Old~~ New <b>bold</b>.\n\n<!-- a note -->\n\nEnd.\n", "notes",
           "New bold. | End.", 0);
    /* A table as header: cell pairs. */
    expect("| Flag | Meaning |\n|---|---|\n| -v | verbose |\n| -q | |\n", "notes",
           "Flag: -v, Meaning: verbose. Flag: -q.", 0);
    /* Directives work inside paragraphs and items; \[ stays literal. */
    expect("- wait [pause 300ms] here\n- \\[pause 1s] is text\n", "notes",
           "wait <300 ms> here. [pause 1s] is text.", 0);
}

static void test_chapters(void)
{
    /* One level-1 heading first: the title; its level-2 headings are chapters, spoken as
     * their first sentence; deeper headings are sentences of their own. */
    expect("# Changelog\n\n## [1.1.0] - 2026-01-02\n\n### Fixed\n\n- A crash\n\n"
           "## [1.0.0] - 2025-12-01\n\nFirst.\n\n[1.1.0]: https://example.org/1.1.0\n"
           "[1.0.0]: https://example.org/1.0.0\n", "Changelog",
           "#1.1.0 - 2026-01-02# 1.1.0 - 2026-01-02. | Fixed. | A crash. |"
           " #1.0.0 - 2025-12-01# 1.0.0 - 2025-12-01. | First.", 0);
    /* Without one leading level-1 heading, the shallowest level present is the chapter
     * level, and the first level-1 heading is still the title. */
    expect("# One\n\nA.\n\n# Two\n\nB.\n", "One", "#One# One. | A. | #Two# Two. | B.", 0);
    /* Front matter's title wins over the heading. */
    expect("---\ntitle: From the front matter\n---\n# Heading\n\n## Part\n\nText.\n",
           "From the front matter", "#Part# Part. | Text.", 0);
}

static void test_left_out_with_warnings(void)
{
    const char *doc = "# Notes\n\nBefore.\n\n```sh\nmake install\n```\n\n    indented code\n\n"
                      "After.\n";
    expect(doc, "Notes", "Before. | After.", 1);
    re_episode *ep = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", doc, strlen(doc), &ep, &d), RE_OK);
    CHECK(has_diag(&d, 5, 1, "warning: 2 code blocks are left out"));
    re_episode_free(ep);
    re_diagnostics_free(&d);

    /* A table over the size read aloud is left out with a warning at its first line. */
    char big[4096] = "Intro.\n\n| a |\n|---|\n";
    for (int i = 0; i < 21; i++)
        strcat(big, "| x |\n");
    strcat(big, "\nEnd.\n");
    expect(big, "notes", "Intro. | End.", 1);
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", big, strlen(big), &ep, &d), RE_OK);
    CHECK(has_diag(&d, 3, 1, "warning: a table of 21 rows and 1 columns is left out"));
    re_episode_free(ep);
    re_diagnostics_free(&d);
}

static void test_errors_at_the_source(void)
{
    const char *doc = "# Notes\n\n- fine\n- wait [pause 99h] here\n";
    re_episode *ep = (re_episode *)1;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", doc, strlen(doc), &ep, &d), RE_ERR_INPUT);
    CHECK(ep == NULL);
    CHECK(has_diag(&d, 4, 8, "pause"));
    re_diagnostics_free(&d);
}

static void test_outline(void)
{
    const char *doc = "# T\n\n## Part\n\nSay [it](https://example.org).\n\n```\ncode\n```\n";
    re_md_outline outline = { 0 };
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_markdown_outline("notes.md", doc, strlen(doc), &outline, &d), RE_OK);
    CHECK_INT(outline.count, 4);
    if (outline.count == 4) {
        CHECK_INT(outline.blocks[2].line, 5);
        CHECK_STR(outline.blocks[0].kind, "heading 1");
        CHECK_STR(outline.blocks[1].account, "chapter: Part (its title spoken first)");
        CHECK_STR(outline.blocks[2].account,
                  "spoken: Say it. (left out: the link target https://example.org)");
        CHECK_STR(outline.blocks[3].kind, "code block");
        CHECK_INT(outline.blocks[3].line, 7);
    }
    re_md_outline_free(&outline);

    /* link reference definitions, which cmark-gfm takes out of its tree, are accounted for
     * where they are; one inside a code block is code */
    doc = "# T\n\nSee [1.0][].\n\n[1.0]: https://example.org/v1\n\n```\n[x]: y\n```\n"
          "  [2.0]: https://example.org/v2\n";
    outline = (re_md_outline){ 0 };
    CHECK_INT(re_markdown_outline("notes.md", doc, strlen(doc), &outline, &d), RE_OK);
    CHECK_INT(outline.count, 5);
    if (outline.count == 5) {
        CHECK_STR(outline.blocks[2].kind, "link reference definition");
        CHECK_INT(outline.blocks[2].line, 5);
        CHECK_STR(outline.blocks[2].account,
                  "left out: [1.0] (a link's target, not read aloud)");
        CHECK_STR(outline.blocks[3].kind, "code block");
        CHECK_STR(outline.blocks[4].kind, "link reference definition");
        CHECK_INT(outline.blocks[4].line, 10);
        CHECK_INT(outline.blocks[4].col, 3);
    }
    re_md_outline_free(&outline);

    /* cmark-gfm's table extension gives the paragraph it splits from a table no position:
     * it is placed at the table's first line, never at line 0 */
    doc = "Intro.\n\nThe format is a note.\nand a | head |\n|---|---|\n| a | b |\n";
    outline = (re_md_outline){ 0 };
    CHECK_INT(re_markdown_outline("notes.md", doc, strlen(doc), &outline, &d), RE_OK);
    for (size_t i = 0; i < outline.count; i++) {
        CHECK(outline.blocks[i].line > 0);
        CHECK(i == 0 || outline.blocks[i].line >= outline.blocks[i - 1].line);
    }
    CHECK(outline.count >= 3);
    if (outline.count >= 3)
        CHECK_INT(outline.blocks[1].line, 3);
    re_md_outline_free(&outline);
    re_diagnostics_free(&d);
}

int main(void)
{
    test_spoken_text();
    test_chapters();
    test_left_out_with_warnings();
    test_errors_at_the_source();
    test_outline();
    return check_finish("test_markdown");
}
