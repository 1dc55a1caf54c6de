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
    /* Each list item is a paragraph of its own, a full stop supplied; nested lists in
     * order; task items; each paragraph of a loose item its own too. */
    expect("- one\n- two.\n  - inner\n- [x] done\n", "notes",
           "one. | two. | inner. | done.", 0);
    expect("- First, with:\n\n  its second paragraph\n- Next\n\nAfter.\n", "notes",
           "First, with. | its second paragraph. | Next. | After.", 0);
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
           "wait <300 ms> here. | [pause 1s] is text.", 0);
}

static void test_chapters(void)
{
    /* One level-1 heading first: the title; its level-2 headings are chapters, spoken as
     * their first sentence (a version heading as "Version N, DATE"); deeper headings are
     * sentences of their own. */
    expect("# Changelog\n\n## [1.1.0] - 2026-01-02\n\n### Fixed\n\n- A crash\n\n"
           "## [1.0.0] - 2025-12-01\n\nFirst.\n\n[1.1.0]: https://example.org/1.1.0\n"
           "[1.0.0]: https://example.org/1.0.0\n", "Changelog",
           "#1.1.0 - 2026-01-02# Version 1.1.0, 2026-01-02. | Fixed. | A crash. |"
           " #1.0.0 - 2025-12-01# Version 1.0.0, 2025-12-01. | First.", 0);
    /* Without one leading level-1 heading, the shallowest level present is the chapter
     * level, and the first level-1 heading is still the title. */
    expect("# One\n\nA.\n\n# Two\n\nB.\n", "One", "#One# One. | A. | #Two# Two. | B.", 0);
    /* A single release is chaptered by its sections, when it has two or more: the
     * release's heading is then a sentence of its own before them. */
    expect("# Changelog\n\nIntro.\n\n## [1.1.0] - 2026-01-02\n\n### Added\n\n- A flag\n\n"
           "### Fixed\n\n- A crash\n\n[1.1.0]: https://example.org/1.1.0\n",
           "Changelog", "Intro. | Version 1.1.0, 2026-01-02. | #Added# Added. | A flag. |"
           " #Fixed# Fixed. | A crash.", 0);
    expect("## 2.0\n\n### Added\n\nA.\n\n### Fixed\n\nB.\n", "notes",
           "Version 2.0. | #Added# Added. | A. | #Fixed# Fixed. | B.", 0);
    /* One section only: the release stays the one chapter. */
    expect("# Changelog\n\n## 1.1.0\n\n### Fixed\n\n- A crash\n", "Changelog",
           "#1.1.0# Version 1.1.0. | Fixed. | A crash.", 0);
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

    /* a single release's heading says why it is not a chapter */
    doc = "# T\n\n## 1.0\n\n### Added\n\nA.\n\n### Fixed\n\nB.\n";
    outline = (re_md_outline){ 0 };
    CHECK_INT(re_markdown_outline("notes.md", doc, strlen(doc), &outline, &d), RE_OK);
    CHECK_INT(outline.count, 6);
    if (outline.count == 6) {
        CHECK_STR(outline.blocks[1].account,
                  "spoken: Version 1.0 (a sentence of its own: its sections are the chapters)");
        CHECK_STR(outline.blocks[2].account, "chapter: Added (its title spoken first)");
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

/* Parses `text` as notes.md and checks it is refused with a message at line:col holding
 * `part`; the parse must not be what took the time (see the limits' test below). */
static void refused(const char *text, size_t len, unsigned line, unsigned col, const char *part)
{
    re_episode *ep = (re_episode *)1;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", text, len, &ep, &d), RE_ERR_INPUT);
    CHECK(ep == NULL);
    CHECK(has_diag(&d, line, col, part));
    re_diagnostics_free(&d);
}

/* n copies of unit, then tail; caller frees. */
static char *repeat(const char *head, const char *unit, size_t n, const char *tail)
{
    size_t h = strlen(head), u = strlen(unit), t = strlen(tail);
    char *out = malloc(h + u * n + t + 1);
    if (!out)
        return NULL;
    memcpy(out, head, h);
    for (size_t i = 0; i < n; i++)
        memcpy(out + h + i * u, unit, u);
    memcpy(out + h + u * n, tail, t + 1);
    return out;
}

static void test_line_limit(void)
{
    /* as in a .txt script: at the first byte past 16 KiB, before cmark-gfm sees anything */
    char *doc = repeat("# Notes\n\n", "x", 16385, "\n\nAfter.\n");
    refused(doc, strlen(doc), 3, 16385, "line is 16385 bytes; the limit is 16384");
    free(doc);
    doc = repeat("# Notes\n\n```\n", "x", 16384, "\n```\n\nAfter.\n");
    re_episode *ep = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", doc, strlen(doc), &ep, &d), RE_OK);
    re_episode_free(ep);
    re_diagnostics_free(&d);
    free(doc);
    /* in a code block too: the line limit is the file's */
    doc = repeat("Text.\n\n```\n", "y", 20000, "\n```\n");
    refused(doc, strlen(doc), 4, 16385, "line is 20000 bytes");
    free(doc);
}

/* The shapes that make cmark-gfm 0.29.0.gfm.6 superlinear are refused before it runs, at the
 * block that holds them: each of these took it from 0.05 s to over a second at this size. */
static void test_work_limits(void)
{
    char *doc = repeat("Intro.\n\n", "![[]()", 2730, "\n\nAfter.\n");   /* one 16 KiB line */
    refused(doc, strlen(doc), 3, 1, "this block is too much work for the Markdown parser");
    free(doc);
    doc = repeat("Intro.\n\n", "*[a](b)\n", 2000, "\nAfter.\n");   /* a paragraph of lines */
    refused(doc, strlen(doc), 3, 1, "too much work");
    free(doc);
    doc = repeat("Intro.\n\na|b\n-|-\n", "|", 16000, "\n");   /* a row of 16,000 cells */
    refused(doc, strlen(doc), 3, 1, "too much work");
    free(doc);
    doc = repeat("Intro.\n\n", "-|-\n-|-|-\n", 600, "");   /* delimiter rows, re-read */
    refused(doc, strlen(doc), 3, 1, "too much work");
    free(doc);
    doc = repeat("Intro.\n\n", "www.a_", 2730, "\n");   /* autolinks rescanning a line */
    refused(doc, strlen(doc), 3, 1, "too much work");
    free(doc);
    /* blocks each under the limit, too many of them together: at the one that crosses */
    doc = repeat("Intro.\n\n", "*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)"
                 "*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)*[a](b)\n", 90, "\n");
    char *many = repeat("", doc + 8, 120, "");   /* 120 blocks of 90 lines */
    free(doc);
    re_episode *ep = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", many, strlen(many), &ep, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 1);
    CHECK(d.count == 1 && strstr(d.items[0].message, "the document is too much work"));
    CHECK(d.count == 1 && d.items[0].line > 90);
    re_episode_free(ep);
    re_diagnostics_free(&d);
    free(many);
    /* lines and marks: cmark-gfm's nodes, bounded before it makes them */
    doc = repeat("# Notes\n\n", "- a\n", 110000, "");
    refused(doc, strlen(doc), 2 + (524288 - 5) / 5 + 1, 1, "more than 524288 pieces");
    free(doc);
    /* a fenced code block weighs nothing: 100 KiB of dense code and a tight list pass */
    doc = repeat("# Notes\n\n```js\n", "f(a[0], {b: [c, d]})||x;\n", 4000, "```\n\nAfter.\n");
    char *list = repeat(doc, "- [link](https://example.org/a_b_c) by @alice in https://x.org\n",
                        2000, "");
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_script_parse("notes.md", list, strlen(list), &ep, &d), RE_OK);
    if (d.count)
        print_diags(&d);
    re_episode_free(ep);
    re_diagnostics_free(&d);
    free(list);
    free(doc);
    /* but a fence inside what may be an HTML block is not taken for one */
    doc = repeat("<div>\n```\n\n", "![[]()", 2730, "\n");
    refused(doc, strlen(doc), 4, 1, "too much work");
    free(doc);
}

/* A character reference is decoded by cmark-gfm after the text was checked for control
 * characters: one that stands for one is an error where it is written. */
static void test_control_references(void)
{
    const char *doc = "# Notes\n\nHello &#27;[31m world.\n";
    refused(doc, strlen(doc), 3, 7, "stands for control character U+001B");
    doc = "# Ti&#x1b;tle\n\nText.\n";
    refused(doc, strlen(doc), 1, 5, "U+001B");
    doc = "Ring &#7; the bell.\n";
    refused(doc, strlen(doc), 1, 6, "U+0007");
    doc = "- one\n- two &#1;50S loud\n";
    refused(doc, strlen(doc), 2, 7, "U+0001");
    doc = "Next &#x85; line and &#133;.\n";
    refused(doc, strlen(doc), 1, 6, "U+0085");
    doc = "See [it](https://example.org \"a &#27; title\").\n";
    refused(doc, strlen(doc), 1, 33, "U+001B");
    doc = "See [it](https://example.org/&#x9B;31m).\n";
    refused(doc, strlen(doc), 1, 30, "U+009B");
    doc = "Two&NewLine;lines &#13; here.\n";
    refused(doc, strlen(doc), 1, 4, "U+000A");
    doc = "~~~ &#27;\ncode\n~~~\n\nText.\n";
    refused(doc, strlen(doc), 1, 5, "U+001B");
    doc = "| a | b |\n|---|---|\n| x | y&#27; |\n";
    refused(doc, strlen(doc), 3, 8, "U+001B");
    /* cmark-gfm 0.29.0.gfm.6 decodes eight digits in either base, more than CommonMark's */
    doc = "Eight &#00000027;[31m digits.\n";
    refused(doc, strlen(doc), 1, 7, "U+001B");
    doc = "# Hex &#x0000001B;[31m\n\nText.\n";
    refused(doc, strlen(doc), 1, 7, "U+001B");
    /* not control characters: NUL is U+FFFD, bidi controls are text; code is not decoded */
    expect("A &#0; B &#x202E; C `&#27;` D.\n\n```\n&#27;\n```\n", "notes",
           "A \xef\xbf\xbd B \xe2\x80\xae C &#27; D.", 1);
    /* nine digits are no reference: text */
    expect("Nine &#000000027; digits.\n", "notes", "Nine &number 000000027; digits.", 0);
}

static void test_vet(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    const char *notes = "# Notes\n\nFine [text](https://example.org).\n";
    CHECK_INT(re_markdown_vet("ep.json", notes, strlen(notes), &d), RE_OK);
    notes = "# Notes\n\nBell &#7;.\n";
    CHECK_INT(re_markdown_vet("ep.json", notes, strlen(notes), &d), RE_ERR_INPUT);
    CHECK(d.count == 1 && d.items[0].line == 3 && d.items[0].col == 6);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 0);
    notes = "Raw \x1b[31m escape.\n";
    CHECK_INT(re_markdown_vet("ep.json", notes, strlen(notes), &d), RE_ERR_INPUT);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 0);
    char *dense = repeat("", "*[a](b)", 6000, "\n");
    CHECK_INT(re_markdown_vet("ep.json", dense, strlen(dense), &d), RE_ERR_INPUT);
    CHECK(!re_markdown_within_limits(dense, strlen(dense)));
    CHECK(re_markdown_to_html(dense, strlen(dense)) == NULL);
    re_diagnostics_free(&d);
    free(dense);
}

int main(void)
{
    test_spoken_text();
    test_chapters();
    test_left_out_with_warnings();
    test_errors_at_the_source();
    test_outline();
    test_line_limit();
    test_work_limits();
    test_control_references();
    test_vet();
    return check_finish("test_markdown");
}
