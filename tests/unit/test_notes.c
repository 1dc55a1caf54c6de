/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_notes.c - show notes safe to publish (notes.h): which link addresses pass; that the
 * Markdown written for hostile notes, read back by cmark-gfm, holds no raw HTML, no image and
 * no link to another address; and that ordinary notes written as Markdown read back as the
 * same notes (the same safe HTML, blanks aside). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

#include "html_tree.h"
#include "notes.h"
#include "testkit.h"

static void test_link_allowed(void)
{
    static const char *const yes[] = { "https://example.org/a?b=1&c=2", "HTTP://x", "mailto:a@b",
                                       "other.html#x", "#top", "?q=1", "//host/p", "a/b:c",
                                       "./x:y", "%20", NULL };
    static const char *const no[] = { "", "javascript:alert(1)", "JavaScript:x", "vbscript:x",
                                      "data:image/png;base64,AA", "file:///etc/passwd",
                                      "java\tscript:x", " https://x", "https://x y",
                                      "ftp://x", "a\\b", "x:y", "javascript%3Ax:y", NULL };
    for (const char *const *u = yes; *u; u++) {
        if (!re_notes_link_allowed(*u))
            fprintf(stderr, "  refused: %s\n", *u);
        CHECK(re_notes_link_allowed(*u));
    }
    for (const char *const *u = no; *u; u++) {
        if (re_notes_link_allowed(*u))
            fprintf(stderr, "  allowed: %s\n", *u);
        CHECK(!re_notes_link_allowed(*u));
    }
    CHECK(!re_notes_link_allowed(NULL));
}

static char *markdown_of(const char *notes, int shift)
{
    char *html = re_html_from_markdown(notes), *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    CHECK_INT(re_notes_write_markdown(f, html, shift), RE_OK);
    fclose(f);
    free(html);
    return md;
}

/* Counts what Markdown is read as by cmark-gfm (with GitHub's extensions): raw HTML nodes,
 * images, and links whose address is not allowed. */
static void count_unsafe(cmark_node *node, int *html, int *images, int *bad_links)
{
    for (; node; node = cmark_node_next(node)) {
        cmark_node_type type = cmark_node_get_type(node);
        *html += type == CMARK_NODE_HTML_BLOCK || type == CMARK_NODE_HTML_INLINE;
        *images += type == CMARK_NODE_IMAGE;
        if (type == CMARK_NODE_LINK && !re_notes_link_allowed(cmark_node_get_url(node))) {
            fprintf(stderr, "  link to '%s'\n", cmark_node_get_url(node));
            (*bad_links)++;
        }
        count_unsafe(cmark_node_first_child(node), html, images, bad_links);
    }
}

static void check_safe_markdown(const char *notes)
{
    char *md = markdown_of(notes, 2);
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *parser = cmark_parser_new(CMARK_OPT_DEFAULT);
    static const char *const names[] = { "table", "strikethrough", "autolink", "tasklist" };
    for (size_t i = 0; i < 4; i++)
        cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension(names[i]));
    cmark_parser_feed(parser, md, strlen(md));
    cmark_node *doc = cmark_parser_finish(parser);
    int html = 0, images = 0, bad_links = 0;
    count_unsafe(cmark_node_first_child(doc), &html, &images, &bad_links);
    if (html || images || bad_links)
        fprintf(stderr, "  notes:\n%s\n  as Markdown:\n%s\n", notes, md);
    CHECK_INT(html, 0);
    CHECK_INT(images, 0);
    CHECK_INT(bad_links, 0);
    cmark_node_free(doc);
    cmark_parser_free(parser);
    free(md);
}

static void test_hostile_notes(void)
{
    static const char *const hostile[] = {
        "![pixel](http://t.example/p.gif) ![](https://t.example/e.gif)\n",
        "![ref][r]\n\n[r]: //t.example/r.gif\n",
        "[js](javascript:alert(1)) <javascript:alert(2)> [d](data:text/html,x)\n",
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n",
        "Inline <img src=http://t.example/i.gif> and <a href=\"javascript:x\">a</a>.\n",
        "\\<script>alert(1)\\</script> &lt;img src=x&gt; &amp;lt;b&amp;gt; `<code>`\n",
        "&#60;script&#62; &#x3C;img src=x&#x3E; \\&#60;b&#62;\n",
        "\\[x](javascript:y) \\![i](http://t.example/i.gif) [a\\](javascript:y)\n",
        "* * *\n\n- <b>x</b>\n\n1. ![i](http://t.example/1.gif)\n2) two\n\n> <iframe src=x>\n",
        "| a | <img src=x> |\n|---|---|\n| ![i](http://t.example/c.gif) | `x\\|y` |\n",
        "- [x] <script>x</script>\n- [ ] ![i](http://t.example/t.gif)\n",
        "```\n<script>in code</script>\n```\n\n    <img src=indented>\n",
        "line one  \n<img src=x>\\\n# not a heading\n",
        "*<b>*\\*\\_<u>_ ~~<s>~~ [link *<i>*](https://ok.example/ \"t<\\\"i>\")\n",
        "www.example.org/<x> https://a.example/?q=<script> a@b.example\n",
        "[nested ![in](http://t.example/n.gif)](https://ok.example/)\n",
        "1. one\n\n   ```js\n   <script>\n   ```\n\n   > quote <img src=x>\n",
        "<http://ok.example/a<b> <mailto:a@b.example> <https://x.example/\\\">\n",
        "a\n===\n\nb\n---\n\n<!-- c --> <?php x ?> <![CDATA[y]]> <!DOCTYPE z>\n",
        /* text an autolink of GitHub's would run on into a code span's opening backtick */
        "[http://t`<b>`\n",
        "(www.t`<script>x</script>`\n",
        "x ftp://t`<i>` and HTTPS://t`<u>`\n",
        "http://a&#3;e\n",
        "`<b>``<`<b>`\xc0`\n",
        "`<a>`<x>`<i>`<y>`<b>`\n",   /* code spans the dropped HTML left side by side */
        NULL
    };
    for (const char *const *n = hostile; *n; n++)
        check_safe_markdown(*n);
}

/* Blank runs as one space, and none beside a tag: the notes as text and tags. */
static char *squeezed(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (; *s; s++) {
        int blank = *s == ' ' || *s == '\n' || *s == '\t';
        if (blank && (o == out || o[-1] == ' ' || o[-1] == '>'))
            continue;
        if (*s == '<' && o > out && o[-1] == ' ')
            o--;
        *o++ = blank ? ' ' : *s;
    }
    *o = '\0';
    return out;
}

/* Ordinary notes, written as Markdown and read again, are the same notes. */
static void check_round_trip(const char *notes)
{
    char *md = markdown_of(notes, 0);
    char *first = re_html_from_markdown(notes), *again = re_html_from_markdown(md);
    char *a = re_notes_html(first), *b = re_notes_html(again);
    char *sa = squeezed(a), *sb = squeezed(b);
    if (strcmp(sa, sb) != 0)
        fprintf(stderr, "  notes:\n%s\n  as Markdown:\n%s\n  gave:\n%s\n  then:\n%s\n", notes, md,
                sa, sb);
    CHECK_STR(sb, sa);
    free(sa);
    free(sb);
    free(a);
    free(b);
    free(first);
    free(again);
    free(md);
}

static void test_round_trip(void)
{
    static const char *const notes[] = {
        "# Release 2.0\n\n## Added\n\n- A [link](https://example.org/a?b=1&c=2 \"title\") and "
        "`code`\n- **bold** *em* ~~gone~~\n  - nested item\n  - another\n\n"
        "1. first\n2. second\n\n3) third\n\nText with 1. a number, 2) another, a - dash, "
        "x * y, a_b, 5 > 3 < 4, a | b, [brackets], #hash, ~tilde & amp; &amp; &copy;.\n",
        "> A quote\n> with two lines\n>\n> > nested\n\n---\n\n```c\nint main(void) { return 0; }\n"
        "/* ``` in code */\n```\n\n    indented code\n",
        "| Flag | Meaning | Default |\n|:--|:-:|--:|\n| `-v` | verbose, `a\\|b` | off |\n"
        "| `-q` | | on |\n",
        "- [x] done\n- [ ] open\n\nA line  \nbroken, and\nsoft.\n\n"
        "Loose list:\n\n- one\n\n- two\n\n  para in two\n",
        "- a\n- b\n\n* c\n* d\n\n7. seven\n8. eight\n",
        "Emails a@b.example, www.example.org and https://x.example/p?q=1 are linked.\n",
        "Duration: 5 minutes, the duration: 6.\n",
        "Not linked: [http://t and (www.t, both plain text.\n",
        NULL
    };
    for (const char *const *n = notes; *n; n++)
        check_round_trip(*n);
}

/* Headings go `shift` levels down, never past 6. */
static void test_heading_shift(void)
{
    char *md = markdown_of("# One\n\n#### Four\n\n###### Six\n\nSetext\n======\n", 2);
    CHECK_STR(md, "### One\n\n###### Four\n\n###### Six\n\n### Setext\n");
    free(md);
}

int main(void)
{
    test_link_allowed();
    test_hostile_notes();
    test_round_trip();
    test_heading_shift();
    return check_finish("test_notes");
}
