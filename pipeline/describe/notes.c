/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notes.c - show notes safe to publish: an allowlist copy of cmark-gfm's HTML (see notes.h). */
#define _GNU_SOURCE
#include "notes.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xmlIO.h>


/* Elements and attributes deeper than this are left out (cmark-gfm nests no deeper than its
 * input, and the script's Markdown reader refuses more than 32 levels of blocks). */
#define NOTES_MAX_DEPTH 64u

int notes_link_allowed(const char *url)
{
    if (!url || !*url)
        return 0;
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p <= 0x20 || *p == 0x7f || *p == '\\')
            return 0;
    size_t scheme = strcspn(url, ":/?#");
    if (url[scheme] != ':')
        return 1;   /* a relative reference: a path, query or fragment */
    return (scheme == 4 && strncasecmp(url, "http", 4) == 0)
           || (scheme == 5 && strncasecmp(url, "https", 5) == 0)
           || (scheme == 6 && strncasecmp(url, "mailto", 6) == 0);
}

/* ---- the safe copy ----------------------------------------------------------------------- */

static int name_in(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

/* What cmark-gfm writes for Markdown (with the table, strikethrough, autolink and task-list
 * extensions), images aside. */
static const char *const kept_elements[] = {
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "ul", "ol", "li", "pre", "code",
    "hr", "br", "em", "strong", "del", "a", "table", "thead", "tbody", "tr", "th", "td", NULL
};
/* Elements whose content is not text to show. */
static const char *const dropped_elements[] = {
    "script", "style", "template", "textarea", "title", "noscript", "iframe", "frame",
    "frameset", "object", "embed", "applet", "svg", "math", "select", "head", "audio", "video",
    "picture", "source", "track", "canvas", "map", "base", "link", "meta", NULL
};

static int only(const char *s, const char *chars)
{
    return *s && s[strspn(s, chars)] == '\0';
}

#define DIGITS "0123456789"
#define WORD_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" DIGITS

/* The attributes cmark-gfm gives an element, with values of its forms. */
static int kept_attribute(const char *element, const char *name, const char *value)
{
    if (strcmp(element, "a") == 0)
        return strcmp(name, "title") == 0;   /* href: notes_link_allowed, apart */
    if (strcmp(element, "ol") == 0)
        return strcmp(name, "start") == 0 && only(value, DIGITS) && strlen(value) <= 9;
    if (strcmp(element, "th") == 0 || strcmp(element, "td") == 0)
        return strcmp(name, "align") == 0 && (strcmp(value, "left") == 0
                                              || strcmp(value, "center") == 0
                                              || strcmp(value, "right") == 0);
    if (strcmp(element, "code") == 0)
        return strcmp(name, "class") == 0 && strncmp(value, "language-", 9) == 0
               && only(value + 9, WORD_CHARS "_+#.-");
    if (strcmp(element, "input") == 0)
        return strcmp(name, "checked") == 0 || strcmp(name, "disabled") == 0;
    return 0;
}

static char *attribute_of(xmlNodePtr node, const char *name)
{
    return (char *)xmlGetProp(node, BAD_CAST name);
}

static void copy_safe(html_builder *b, xmlNodePtr parent, xmlNodePtr node, unsigned depth);

/* Whether an element holds only blanks (a paragraph that held only raw HTML). */
static int blank(xmlNodePtr element)
{
    for (xmlNodePtr c = element->children; c; c = c->next)
        if (c->type != XML_TEXT_NODE || (c->content && ((const char *)c->content)[strspn(
                                             (const char *)c->content, " \t\r\n")]))
            return 0;
    return 1;
}

static int inside_link(xmlNodePtr node)
{
    for (; node; node = node->parent)
        if (node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, "a") == 0)
            return 1;
    return 0;
}

/* A link to an allowed address, its words text; otherwise (or inside another link, which
 * HTML and Markdown do not nest) the words alone. */
static void link_or_words(html_builder *b, xmlNodePtr parent, const char *href, const char *title,
                          xmlNodePtr words, const char *words_text, unsigned depth)
{
    xmlNodePtr target = parent;
    if (notes_link_allowed(href) && !inside_link(parent)) {
        target = html_element(b, parent, "a", NULL);
        html_attribute(b, target, "href", href);
        if (title && *title)
            html_attribute(b, target, "title", title);
    }
    if (words)
        copy_safe(b, target, words, depth + 1);
    else if (words_text && *words_text)
        html_text(b, target, words_text);
}

static void copy_element(html_builder *b, xmlNodePtr parent, xmlNodePtr node, unsigned depth)
{
    const char *name = (const char *)node->name;
    if (strcmp(name, "img") == 0) {   /* never shown: a link to it, with its alt text */
        char *src = attribute_of(node, "src"), *alt = attribute_of(node, "alt");
        char *title = attribute_of(node, "title");
        const char *words = alt && *alt ? alt : notes_link_allowed(src) ? src : NULL;
        link_or_words(b, parent, src, title, NULL, words, depth);
        xmlFree(src);
        xmlFree(alt);
        xmlFree(title);
    } else if (strcmp(name, "a") == 0) {
        char *href = attribute_of(node, "href"), *title = attribute_of(node, "title");
        link_or_words(b, parent, href, title, node->children, NULL, depth);
        xmlFree(href);
        xmlFree(title);
    } else if (strcmp(name, "input") == 0) {   /* a task list's box, and nothing else */
        char *type = attribute_of(node, "type");
        if (type && strcasecmp(type, "checkbox") == 0) {
            xmlNodePtr box = html_element(b, parent, "input", NULL);
            html_attribute(b, box, "type", "checkbox");
            for (xmlAttrPtr a = node->properties; a && box; a = a->next)
                if (kept_attribute("input", (const char *)a->name, ""))
                    html_attribute(b, box, (const char *)a->name, "");
        }
        xmlFree(type);
    } else if (name_in(name, kept_elements)) {
        xmlNodePtr copy = html_element(b, parent, name, NULL);
        for (xmlAttrPtr a = node->properties; a && copy; a = a->next) {
            xmlChar *value = xmlNodeListGetString(node->doc, a->children, 1);
            const char *v = value ? (const char *)value : "";
            if (kept_attribute(name, (const char *)a->name, v))
                html_attribute(b, copy, (const char *)a->name, v);
            xmlFree(value);
        }
        if (copy)
            copy_safe(b, copy, node->children, depth + 1);
        if (copy && strcmp(name, "p") == 0 && blank(copy)) {   /* raw HTML's paragraph */
            xmlUnlinkNode(copy);
            xmlFreeNode(copy);
        }
    } else if (!name_in(name, dropped_elements)) {   /* its text, in its place */
        copy_safe(b, parent, node->children, depth + 1);
    }
}

/* Copies node and its siblings: text through html_text, elements through copy_element;
 * comments (cmark-gfm's "raw HTML omitted") and everything else are dropped. */
static void copy_safe(html_builder *b, xmlNodePtr parent, xmlNodePtr node, unsigned depth)
{
    for (; node && !b->failed && depth < NOTES_MAX_DEPTH; node = node->next) {
        if (node->type == XML_TEXT_NODE && node->content)
            html_text(b, parent, (const char *)node->content);
        else if (node->type == XML_ELEMENT_NODE && node->name)
            copy_element(b, parent, node, depth);
    }
}

void notes_append(html_builder *b, xmlNodePtr parent, const char *cmark_html)
{
    size_t len = cmark_html ? strlen(cmark_html) : 0;
    char *wrapped = NULL;
    htmlDocPtr fragment = NULL;
    int n = asprintf(&wrapped, "<html><body>%s</body></html>", cmark_html ? cmark_html : "");
    if (n > 0)
        fragment = htmlReadMemory(wrapped, n, NULL, "UTF-8", HTML_PARSE_NOERROR
                                  | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    xmlNodePtr root = fragment ? xmlDocGetRootElement(fragment) : NULL;
    xmlNodePtr body = root ? root->children : NULL;
    while (body && (body->type != XML_ELEMENT_NODE || strcmp((const char *)body->name, "body")))
        body = body->next;
    if (body)
        copy_safe(b, parent, body->children, 0);
    else if (len > 0)
        b->failed = 1;
    xmlFreeDoc(fragment);
    free(n > 0 ? wrapped : NULL);
}

/* The safe notes under a <div> of a document of their own; RE_OK or RE_ERR_NOMEM (then
 * nothing to free). */
static re_status safe_tree(const char *cmark_html, html_builder *b, xmlNodePtr *container)
{
    re_status status = html_document_new(b, "und");
    if (status != RE_OK)
        return status;
    *container = html_element(b, b->root, "div", NULL);
    notes_append(b, *container, cmark_html);
    if (b->failed) {
        xmlFreeDoc(b->doc);
        b->doc = NULL;
        return RE_ERR_NOMEM;
    }
    return RE_OK;
}

char *notes_html(const char *cmark_html)
{
    html_builder b;
    xmlNodePtr container = NULL;
    if (safe_tree(cmark_html, &b, &container) != RE_OK)
        return NULL;
    xmlOutputBufferPtr buf = xmlAllocOutputBuffer(NULL);
    for (xmlNodePtr node = container->children; buf && node; node = node->next)
        htmlNodeDumpFormatOutput(buf, b.doc, node, "UTF-8", 1);
    char *html = NULL;
    if (buf && buf->error == 0) {
        const xmlChar *mem = xmlOutputBufferGetContent(buf);
        html = strndup(mem ? (const char *)mem : "", xmlOutputBufferGetSize(buf));
    }
    if (buf)
        xmlOutputBufferClose(buf);
    xmlFreeDoc(b.doc);
    return html;
}
