/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_notes.c - a Markdown script's document as published show notes (notes.h): any notes
 * in, and the HTML (the page's and the feed's) holds only the allowlisted elements and
 * attributes, no image and links to allowed addresses only; the Markdown page's notes, read
 * back by cmark-gfm, hold no raw HTML, no image and links to allowed addresses only (and with
 * GitHub's extensions, whose autolinks make links of a text's URLs, none to a harmful
 * scheme). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <libxml/HTMLparser.h>

#include "fuzz.h"
#include "html_tree.h"
#include "notes.h"

static int one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static void check_html_tree(xmlNodePtr node)
{
    static const char *const elements[] = {
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "pre", "code",
        "hr", "br", "em", "strong", "del", "a", "table", "thead", "tbody", "tr", "th", "td",
        "input", "html", "body", NULL
    };
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)node->name;
        FUZZ_ASSERT(one_of(name, elements));
        for (xmlAttrPtr a = node->properties; a; a = a->next) {
            const char *attr = (const char *)a->name;
            xmlChar *value = xmlNodeListGetString(node->doc, a->children, 1);
            const char *v = value ? (const char *)value : "";
            if (strcmp(name, "a") == 0)
                FUZZ_ASSERT(strcmp(attr, "title") == 0
                            || (strcmp(attr, "href") == 0 && re_notes_link_allowed(v)));
            else if (strcmp(name, "input") == 0)
                FUZZ_ASSERT(strcmp(attr, "checked") == 0 || strcmp(attr, "disabled") == 0
                            || (strcmp(attr, "type") == 0 && strcmp(v, "checkbox") == 0));
            else
                FUZZ_ASSERT((strcmp(name, "ol") == 0 && strcmp(attr, "start") == 0)
                            || ((strcmp(name, "th") == 0 || strcmp(name, "td") == 0)
                                && strcmp(attr, "align") == 0)
                            || (strcmp(name, "code") == 0 && strcmp(attr, "class") == 0
                                && strncmp(v, "language-", 9) == 0));
            xmlFree(value);
        }
        check_html_tree(node->children);
    }
}

/* The scheme a browser reads in url (blanks and controls at its start dropped, tabs and line
 * breaks anywhere) is http, https, mailto or ftp (which GitHub's autolinks make of text), or
 * none. */
static int browser_scheme_harmless(const char *url)
{
    char scheme[16];
    size_t n = 0;
    while (*url && (unsigned char)*url <= 0x20)
        url++;
    for (; *url && n + 1 < sizeof scheme; url++) {
        if (*url == '\t' || *url == '\n' || *url == '\r')
            continue;
        if (strchr(":/?#\\", *url))
            break;
        scheme[n++] = (char)(*url | 0x20);
    }
    scheme[n] = '\0';
    if (*url != ':')
        return 1;
    return !strcmp(scheme, "http") || !strcmp(scheme, "https") || !strcmp(scheme, "mailto")
           || !strcmp(scheme, "ftp");
}

/* No raw HTML, no image; every link ours (strict: re_notes_link_allowed), or, with GitHub's
 * extensions, one their autolinking made of text (a harmless scheme). */
static void check_markdown_tree(cmark_node *node, int extensions)
{
    for (; node; node = cmark_node_next(node)) {
        cmark_node_type type = cmark_node_get_type(node);
        FUZZ_ASSERT(type != CMARK_NODE_HTML_BLOCK && type != CMARK_NODE_HTML_INLINE);
        FUZZ_ASSERT(type != CMARK_NODE_IMAGE);
        const char *url = type == CMARK_NODE_LINK ? cmark_node_get_url(node) : NULL;
        if (url && !(extensions ? browser_scheme_harmless(url) : re_notes_link_allowed(url))) {
            fprintf(stderr, "a link to '%s'\n", url);
            FUZZ_ASSERT(!"a link to an address that is not allowed");
        }
        check_markdown_tree(cmark_node_first_child(node), extensions);
    }
}

static void check_markdown(const char *md, size_t len, int extensions)
{
    static const char *const names[] = { "table", "strikethrough", "autolink", "tasklist" };
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *parser = cmark_parser_new(CMARK_OPT_DEFAULT);
    for (size_t i = 0; parser && extensions && i < sizeof names / sizeof names[0]; i++)
        cmark_parser_attach_syntax_extension(parser, cmark_find_syntax_extension(names[i]));
    if (!parser)
        return;
    cmark_parser_feed(parser, md, len);
    cmark_node *doc = cmark_parser_finish(parser);
    check_markdown_tree(doc ? cmark_node_first_child(doc) : NULL, extensions);
    cmark_node_free(doc);
    cmark_parser_free(parser);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *notes = strndup((const char *)data, size);   /* a script's text has no NUL */
    char *cmark = notes ? re_html_from_markdown(notes) : NULL;
    if (!cmark) {
        free(notes);
        return 0;
    }
    char *html = re_notes_html(cmark);
    if (html) {
        htmlDocPtr doc = htmlReadMemory(html, (int)strlen(html), NULL, "UTF-8",
                                        HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING
                                        | HTML_PARSE_NONET);
        if (doc)
            check_html_tree(xmlDocGetRootElement(doc));
        xmlFreeDoc(doc);
    }
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    re_status status = f ? re_notes_write_markdown(f, cmark, 2) : RE_ERR_NOMEM;
    if (f)
        fclose(f);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_NOMEM);
    if (status == RE_OK && md) {
        check_markdown(md, len, 0);
        check_markdown(md, len, 1);
    }
    free(md);
    free(html);
    free(cmark);
    free(notes);
    return 0;
}
