/* SPDX-License-Identifier: GPL-3.0-or-later */
/* notes.c - show notes safe to publish: an allowlist copy of cmark-gfm's HTML, serialized as
 * HTML or written as Markdown (see notes.h). */
#define _GNU_SOURCE
#include "notes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/xmlIO.h>

#include "text.h"

/* Elements and attributes deeper than this are left out (cmark-gfm nests no deeper than its
 * input, and the script's Markdown reader refuses more than 32 levels of blocks). */
#define NOTES_MAX_DEPTH 64u

int re_notes_link_allowed(const char *url)
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
        return strcmp(name, "title") == 0;   /* href: re_notes_link_allowed, apart */
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
    if (re_notes_link_allowed(href) && !inside_link(parent)) {
        target = re_html_element(b, parent, "a", NULL);
        re_html_attribute(b, target, "href", href);
        if (title && *title)
            re_html_attribute(b, target, "title", title);
    }
    if (words)
        copy_safe(b, target, words, depth + 1);
    else if (words_text && *words_text)
        re_html_text(b, target, words_text);
}

static void copy_element(html_builder *b, xmlNodePtr parent, xmlNodePtr node, unsigned depth)
{
    const char *name = (const char *)node->name;
    if (strcmp(name, "img") == 0) {   /* never shown: a link to it, with its alt text */
        char *src = attribute_of(node, "src"), *alt = attribute_of(node, "alt");
        char *title = attribute_of(node, "title");
        const char *words = alt && *alt ? alt : re_notes_link_allowed(src) ? src : NULL;
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
            xmlNodePtr box = re_html_element(b, parent, "input", NULL);
            re_html_attribute(b, box, "type", "checkbox");
            for (xmlAttrPtr a = node->properties; a && box; a = a->next)
                if (kept_attribute("input", (const char *)a->name, ""))
                    re_html_attribute(b, box, (const char *)a->name, "");
        }
        xmlFree(type);
    } else if (name_in(name, kept_elements)) {
        xmlNodePtr copy = re_html_element(b, parent, name, NULL);
        for (xmlAttrPtr a = node->properties; a && copy; a = a->next) {
            xmlChar *value = xmlNodeListGetString(node->doc, a->children, 1);
            const char *v = value ? (const char *)value : "";
            if (kept_attribute(name, (const char *)a->name, v))
                re_html_attribute(b, copy, (const char *)a->name, v);
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

/* Copies node and its siblings: text through re_html_text, elements through copy_element;
 * comments (cmark-gfm's "raw HTML omitted") and everything else are dropped. */
static void copy_safe(html_builder *b, xmlNodePtr parent, xmlNodePtr node, unsigned depth)
{
    for (; node && !b->failed && depth < NOTES_MAX_DEPTH; node = node->next) {
        if (node->type == XML_TEXT_NODE && node->content)
            re_html_text(b, parent, (const char *)node->content);
        else if (node->type == XML_ELEMENT_NODE && node->name)
            copy_element(b, parent, node, depth);
    }
}

void re_notes_append(html_builder *b, xmlNodePtr parent, const char *cmark_html)
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
    re_status status = re_html_document_new(b, "und");
    if (status != RE_OK)
        return status;
    *container = re_html_element(b, b->root, "div", NULL);
    re_notes_append(b, *container, cmark_html);
    if (b->failed) {
        xmlFreeDoc(b->doc);
        b->doc = NULL;
        return RE_ERR_NOMEM;
    }
    return RE_OK;
}

char *re_notes_html(const char *cmark_html)
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

/* ---- Markdown ---------------------------------------------------------------------------- */

typedef struct md_text {
    char *s;
    size_t len, cap;
} md_text;

typedef struct md_lines {
    char **items;
    size_t count, cap;
} md_lines;

typedef struct md_writer {
    int shift;       /* heading levels down */
    int in_table;    /* a table cell: '|' escaped in code spans too, breaks are spaces */
    int no_breaks;   /* a heading: breaks are spaces */
    int failed;      /* out of memory */
} md_writer;

static void put(md_writer *w, md_text *t, const char *s, size_t n)
{
    if (w->failed)
        return;
    if (n >= SIZE_MAX / 4 - t->len) {   /* never: a bound the doubling below can rely on */
        w->failed = 1;
        return;
    }
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 128;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *grown = realloc(t->s, cap);
        if (!grown) {
            w->failed = 1;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void put_str(md_writer *w, md_text *t, const char *s)
{
    put(w, t, s, strlen(s));
}

/* Adds a copy of s[0..n) as a line (a trailing blank dropped unless keep_blanks). */
static void add_line(md_writer *w, md_lines *l, const char *s, size_t n, int keep_blanks)
{
    while (!keep_blanks && n > 0 && s[n - 1] == ' ')
        n--;
    if (w->failed)
        return;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **grown = realloc(l->items, cap * sizeof *grown);
        if (!grown) {
            w->failed = 1;
            return;
        }
        l->items = grown;
        l->cap = cap;
    }
    if (!(l->items[l->count] = strndup(s, n)))
        w->failed = 1;
    else
        l->count++;
}

static void free_lines(md_lines *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Each line of text (split at '\n') as a line. */
static void add_text_lines(md_writer *w, md_lines *l, const char *s, int keep_blanks)
{
    while (s && *s) {
        size_t n = strcspn(s, "\n");
        add_line(w, l, s, n, keep_blanks);
        s += n + (s[n] == '\n');
    }
}

/* Whether s[i] is where GitHub's autolinks would start a link of text: the colon of "://"
 * (after http, https or ftp) or the dot of "www.". Such a link runs on to the next blank or
 * '<', over the backtick that opens a code span after it and into what the span held, so the
 * character is escaped and the text stays text, as it was in the notes. */
static int autolink_at(const char *s, size_t i)
{
    if (s[i] == ':')
        return s[i + 1] == '/' && s[i + 2] == '/';
    return s[i] == '.' && i >= 3 && strncasecmp(s + i - 3, "www", 3) == 0;
}

/* Text that reads as text: every character that could open Markdown (emphasis, code, links,
 * images, raw HTML and autolinks, entities, table cells, strike-through) backslash-escaped
 * (a '!' where a link could follow it), and at
 * the start of a line also what would open a block (a list, a heading, a quote, a rule).
 * Line breaks and tabs become spaces; blanks at the start of a line are dropped. */
static void put_escaped(md_writer *w, md_text *t, const char *s, int *line_start)
{
    for (size_t i = 0; s[i] && !w->failed; i++) {
        char c = s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i];
        if (*line_start) {
            if (c == ' ')
                continue;
            *line_start = 0;
            if (c == '-' || c == '+' || c == '=') {
                put(w, t, "\\", 1);
            } else if (re_is_digit(c)) {   /* "1." or "1)" would open an ordered list */
                size_t digits = strspn(s + i, DIGITS);
                put(w, t, s + i, digits);
                i += digits;
                if (s[i] == '.' || s[i] == ')')
                    put(w, t, "\\", 1);
                if (!s[i])
                    break;
                c = s[i];
            }
        }
        if (strchr("\\`*_[]<>#|~", c)
            || (c == '&' && (re_is_alnum(s[i + 1]) || s[i + 1] == '#'))
            || autolink_at(s, i)
            || (c == '!' && (s[i + 1] == '\0' || s[i + 1] == '[')))   /* "![" opens an image */
            put(w, t, "\\", 1);
        put(w, t, &c, 1);
    }
}

/* The text of node's children as it is (for code), the page's "duration" colon as `\:`. */
static void put_plain(md_writer *w, md_text *t, xmlNodePtr node)
{
    for (; node && !w->failed; node = node->next) {
        if (node->type == XML_TEXT_NODE && node->content)
            put_str(w, t, (const char *)node->content);
        else if (node->type == XML_ENTITY_REF_NODE)
            put_str(w, t, "\\:");   /* re_html_text's &#58; after "duration" */
        else if (node->type == XML_ELEMENT_NODE)
            put_plain(w, t, node->children);
    }
}

/* The longest run of c in s. */
static size_t longest_run(const char *s, char c)
{
    size_t best = 0, run = 0;
    for (; s && *s; s++) {
        run = *s == c ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

static void put_code_span(md_writer *w, md_text *t, xmlNodePtr code)
{
    md_text body = { 0 };
    put_plain(w, &body, code->children);
    if (w->failed || !body.s) {
        free(body.s);
        return;
    }
    for (char *p = body.s; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    size_t ticks = longest_run(body.s, '`') + 1;
    if (t->len > 0 && t->s[t->len - 1] == '`')   /* two spans side by side would be one run of */
        put(w, t, " ", 1);                         /* backticks: kept apart by a space */
    int pad = body.s[0] == '`' || body.s[0] == ' ' || body.s[body.len - 1] == '`'
              || body.s[body.len - 1] == ' ';
    for (size_t i = 0; i < ticks; i++)
        put(w, t, "`", 1);
    if (pad)
        put(w, t, " ", 1);
    for (const char *p = body.s; *p; p++) {
        if (*p == '|' && w->in_table)
            put(w, t, "\\", 1);
        put(w, t, p, 1);
    }
    if (pad)
        put(w, t, " ", 1);
    for (size_t i = 0; i < ticks; i++)
        put(w, t, "`", 1);
    free(body.s);
}

/* <address>: a link destination in angle brackets, every byte that could end it or read as
 * an escape percent-encoded, and '&' as "&amp;": cmark-gfm decodes references in a
 * destination or title before its backslash escapes, so "\&#3;" would still be a control. */
static void put_destination(md_writer *w, md_text *t, const char *url)
{
    put(w, t, "<", 1);
    for (const unsigned char *p = (const unsigned char *)url; *p; p++) {
        if (*p <= 0x20 || *p >= 0x7f || strchr("<>\\\"'`", *p)) {
            char hex[4];
            snprintf(hex, sizeof hex, "%%%02X", *p);
            put(w, t, hex, 3);
        } else {
            if (*p == '&')
                put_str(w, t, "&amp;");
            else
                put(w, t, (const char *)p, 1);
        }
    }
    put(w, t, ">", 1);
}

static void put_inlines(md_writer *w, md_text *t, xmlNodePtr node, int *line_start);

/* An emphasis-like span: its markers around its content, or nothing when it is empty. */
static void put_delimited(md_writer *w, md_text *t, xmlNodePtr node, const char *marker,
                          int *line_start)
{
    md_text inner = { 0 };
    int start = 0;
    put_inlines(w, &inner, node->children, &start);
    if (inner.len > 0 && !w->failed) {
        *line_start = 0;
        put_str(w, t, marker);
        put(w, t, inner.s, inner.len);
        put_str(w, t, marker);
    }
    free(inner.s);
}

static void put_link(md_writer *w, md_text *t, xmlNodePtr a, int *line_start)
{
    char *href = attribute_of(a, "href"), *title = attribute_of(a, "title");
    md_text words = { 0 };
    int start = 0;
    put_inlines(w, &words, a->children, &start);
    if (!re_notes_link_allowed(href)) {   /* the safe tree has none such: words alone */
        put(w, t, words.s ? words.s : "", words.len);
    } else {
        *line_start = 0;
        put(w, t, "[", 1);
        if (words.len > 0)
            put(w, t, words.s, words.len);
        else
            put_escaped(w, t, href, &start);
        put(w, t, "](", 2);
        put_destination(w, t, href);
        if (title && *title) {
            put(w, t, " \"", 2);
            for (const char *p = title; *p; p++) {
                char c = *p == '\n' || *p == '\r' ? ' ' : *p;
                if (c == '&') {
                    put_str(w, t, "&amp;");
                    continue;
                }
                if (c == '"' || c == '\\')
                    put(w, t, "\\", 1);
                put(w, t, &c, 1);
            }
            put(w, t, "\"", 1);
        }
        put(w, t, ")", 1);
    }
    free(words.s);
    xmlFree(href);
    xmlFree(title);
}

/* One inline node (and what is inside it) as Markdown. */
static void put_inline(md_writer *w, md_text *t, xmlNodePtr node, int *line_start)
{
    const char *name = node->type == XML_ELEMENT_NODE ? (const char *)node->name : "";
    if (node->type == XML_TEXT_NODE && node->content) {
        put_escaped(w, t, (const char *)node->content, line_start);
    } else if (node->type == XML_ENTITY_REF_NODE) {
        put_str(w, t, "\\:");   /* re_html_text's &#58; after "duration" */
        *line_start = 0;
    } else if (strcmp(name, "em") == 0) {
        put_delimited(w, t, node, "*", line_start);
    } else if (strcmp(name, "strong") == 0) {
        put_delimited(w, t, node, "**", line_start);
    } else if (strcmp(name, "del") == 0) {
        put_delimited(w, t, node, "~~", line_start);
    } else if (strcmp(name, "code") == 0) {
        put_code_span(w, t, node);
        *line_start = 0;
    } else if (strcmp(name, "a") == 0) {
        put_link(w, t, node, line_start);
    } else if (strcmp(name, "br") == 0) {
        put_str(w, t, w->in_table || w->no_breaks ? " " : "\\\n");
        *line_start = !(w->in_table || w->no_breaks);
    } else if (strcmp(name, "input") == 0) {   /* a task list's box */
        put_str(w, t, xmlHasProp(node, BAD_CAST "checked") ? "[x]" : "[ ]");
        *line_start = 0;
    } else if (node->type == XML_ELEMENT_NODE) {
        put_inlines(w, t, node->children, line_start);
    }
}

static void put_inlines(md_writer *w, md_text *t, xmlNodePtr node, int *line_start)
{
    for (; node && !w->failed; node = node->next)
        put_inline(w, t, node, line_start);
}

static int is_block(xmlNodePtr node)
{
    static const char *const blocks[] = { "p", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "pre",
                                          "blockquote", "ul", "ol", "table", "li", NULL };
    return node->type == XML_ELEMENT_NODE && name_in((const char *)node->name, blocks);
}

static void block_lines(md_writer *w, md_lines *out, xmlNodePtr first, unsigned depth);

/* Adds the lines of `from` to out, the first after `first_prefix` and the others after
 * `prefix` (blank lines get `blank`). */
static void add_prefixed(md_writer *w, md_lines *out, const md_lines *from,
                         const char *first_prefix, const char *prefix, const char *blank)
{
    for (size_t i = 0; i < from->count && !w->failed; i++) {
        const char *line = from->items[i];
        md_text t = { 0 };
        put_str(w, &t, *line ? (i == 0 ? first_prefix : prefix) : (i == 0 ? first_prefix : blank));
        put_str(w, &t, line);
        add_line(w, out, t.s ? t.s : "", t.len, 1);
        free(t.s);
    }
    if (from->count == 0) {
        size_t n = strlen(first_prefix);
        while (n > 0 && first_prefix[n - 1] == ' ')
            n--;
        add_line(w, out, first_prefix, n, 1);
    }
}

static void list_lines(md_writer *w, md_lines *out, xmlNodePtr list, int alternate,
                       unsigned depth)
{
    int ordered = strcmp((const char *)list->name, "ol") == 0;
    char *start_text = ordered ? attribute_of(list, "start") : NULL;
    long number = start_text ? strtol(start_text, NULL, 10) : 1;
    xmlFree(start_text);
    int loose = 0;
    for (xmlNodePtr li = list->children; li; li = li->next)
        for (xmlNodePtr c = li->type == XML_ELEMENT_NODE ? li->children : NULL; c; c = c->next)
            loose |= c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, "p") == 0;
    int first = 1;
    for (xmlNodePtr li = list->children; li && !w->failed; li = li->next) {
        if (li->type != XML_ELEMENT_NODE || strcmp((const char *)li->name, "li") != 0)
            continue;
        char marker[32], indent[32];
        if (ordered)
            snprintf(marker, sizeof marker, "%ld%c ", number++, alternate ? ')' : '.');
        else
            snprintf(marker, sizeof marker, "%c ", alternate ? '*' : '-');
        snprintf(indent, sizeof indent, "%*s", (int)strlen(marker), "");
        if (!first && loose)
            add_line(w, out, "", 0, 0);
        first = 0;
        md_lines item = { 0 };
        block_lines(w, &item, li->children, depth + 1);
        add_prefixed(w, out, &item, marker, indent, "");
        free_lines(&item);
    }
}

static void code_block_lines(md_writer *w, md_lines *out, xmlNodePtr pre)
{
    xmlNodePtr code = pre->children;
    while (code && (code->type != XML_ELEMENT_NODE || strcmp((const char *)code->name, "code")))
        code = code->next;
    char *class_name = code ? attribute_of(code, "class") : NULL;
    const char *info = class_name && strncmp(class_name, "language-", 9) == 0
                       ? class_name + 9 : "";
    md_text body = { 0 };
    put_plain(w, &body, code ? code->children : pre->children);
    size_t ticks = longest_run(body.s, '`') + 1;
    if (ticks < 3)
        ticks = 3;
    md_text fence = { 0 };
    for (size_t i = 0; i < ticks; i++)
        put(w, &fence, "`", 1);
    md_text open = { 0 };
    put(w, &open, fence.s ? fence.s : "", fence.len);
    put_str(w, &open, info);
    add_line(w, out, open.s ? open.s : "", open.len, 1);
    if (body.s) {   /* as it is, each line (the last newline is the block's own) */
        if (body.len > 0 && body.s[body.len - 1] == '\n')
            body.s[--body.len] = '\0';
        const char *s = body.s;
        for (;;) {
            size_t n = strcspn(s, "\n");
            add_line(w, out, s, n, 1);
            if (!s[n])
                break;
            s += n + 1;
        }
    }
    add_line(w, out, fence.s ? fence.s : "", fence.len, 1);
    free(open.s);
    free(fence.s);
    free(body.s);
    xmlFree(class_name);
}

/* One row of cells: "| a | b |", padded with empty cells to `columns` (0: as many as it
 * has); returns how many it has. */
static size_t row_line(md_writer *w, md_lines *out, xmlNodePtr tr, size_t columns,
                       int delimiter)
{
    md_text t = { 0 };
    size_t n = 0;
    put(w, &t, "|", 1);
    for (xmlNodePtr cell = tr->children; cell && !w->failed; cell = cell->next) {
        if (cell->type != XML_ELEMENT_NODE || (strcmp((const char *)cell->name, "th")
                                               && strcmp((const char *)cell->name, "td")))
            continue;
        n++;
        if (delimiter) {
            char *align = attribute_of(cell, "align");
            put_str(w, &t, !align ? " --- |" : strcmp(align, "left") == 0 ? " :-- |"
                           : strcmp(align, "center") == 0 ? " :-: |" : " --: |");
            xmlFree(align);
        } else {
            int start = 1;
            put(w, &t, " ", 1);
            put_inlines(w, &t, cell->children, &start);
            put(w, &t, " |", 2);
        }
    }
    for (; n < columns; n++)
        put_str(w, &t, delimiter ? " --- |" : "  |");
    add_line(w, out, t.s ? t.s : "|", t.s ? t.len : 1, 0);
    free(t.s);
    return n;
}

static void table_lines(md_writer *w, md_lines *out, xmlNodePtr table, unsigned depth)
{
    xmlNodePtr rows[2] = { NULL, NULL };   /* thead, tbody (or the table itself) */
    for (xmlNodePtr c = table->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE)
            rows[strcmp((const char *)c->name, "thead") == 0 ? 0 : 1] = c;
    size_t columns = 0;
    int header = 1;
    w->in_table = 1;
    for (int part = 0; part < 2 && depth < NOTES_MAX_DEPTH; part++) {
        xmlNodePtr first = !rows[part] ? NULL
                           : strcmp((const char *)rows[part]->name, "tr") == 0 ? rows[part]
                           : rows[part]->children;
        for (xmlNodePtr tr = first; tr && !w->failed; tr = tr->next) {
            if (tr->type != XML_ELEMENT_NODE || strcmp((const char *)tr->name, "tr"))
                continue;
            size_t n = row_line(w, out, tr, header ? 0 : columns, 0);
            if (header) {   /* the first row is the header: the delimiter row under it */
                columns = n;
                row_line(w, out, tr, 0, 1);
                header = 0;
            }
        }
    }
    w->in_table = 0;
}

static void heading_line(md_writer *w, md_lines *out, xmlNodePtr h)
{
    int level = h->name[1] - '0' + w->shift;
    md_text t = { 0 };
    for (int i = 0; i < (level > 6 ? 6 : level); i++)
        put(w, &t, "#", 1);
    put(w, &t, " ", 1);
    int start = 1;
    w->no_breaks = 1;
    put_inlines(w, &t, h->children, &start);
    w->no_breaks = 0;
    add_line(w, out, t.s ? t.s : "#", t.s ? t.len : 1, 0);
    free(t.s);
}

/* The blocks among node and its siblings as lines, a blank line between two blocks; text and
 * inline elements between blocks (a tight list item's) are a paragraph. */
static void block_lines(md_writer *w, md_lines *out, xmlNodePtr node, unsigned depth)
{
    md_text para = { 0 };
    int line_start = 1, blocks = 0, after_text = 0;
    const char *last_list = "";
    int alternate = 0;
    for (;; node = node->next) {
        if (w->failed || depth >= NOTES_MAX_DEPTH)
            break;
        int block = node && is_block(node);
        if (!node || block) {   /* the paragraph so far ends */
            if (para.len > 0) {
                if (blocks++ > 0)
                    add_line(w, out, "", 0, 0);
                add_text_lines(w, out, para.s, 0);
                last_list = "";
                after_text = 1;
            }
            para.len = 0;
            line_start = 1;
        }
        if (!node)
            break;
        if (!block) {
            put_inline(w, &para, node, &line_start);
            if (para.len > 0 && para.s[strspn(para.s, " ")] == '\0')
                para.len = 0;   /* blanks between blocks */
            continue;
        }
        const char *name = (const char *)node->name;
        /* a tight list item's text and the list under it: no blank line, which would make
         * the list loose (an ordered list may follow text only when it starts at 1) */
        char *first = strcmp(name, "ol") == 0 ? attribute_of(node, "start") : NULL;
        int tight = after_text && (strcmp(name, "ul") == 0
                                   || (strcmp(name, "ol") == 0 && (!first || !strcmp(first, "1"))));
        xmlFree(first);
        after_text = 0;
        if (blocks++ > 0 && !tight)
            add_line(w, out, "", 0, 0);
        if (strcmp(name, "p") == 0) {
            md_text t = { 0 };
            int start = 1;
            put_inlines(w, &t, node->children, &start);
            add_text_lines(w, out, t.s ? t.s : "", 0);
            free(t.s);
        } else if (name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && !name[2]) {
            heading_line(w, out, node);
        } else if (strcmp(name, "hr") == 0) {
            add_line(w, out, "---", 3, 0);
        } else if (strcmp(name, "pre") == 0) {
            code_block_lines(w, out, node);
        } else if (strcmp(name, "blockquote") == 0) {
            md_lines re_quote = { 0 };
            block_lines(w, &re_quote, node->children, depth + 1);
            add_prefixed(w, out, &re_quote, "> ", "> ", ">");
            free_lines(&re_quote);
        } else if (strcmp(name, "ul") == 0 || strcmp(name, "ol") == 0) {
            /* two lists in a row are one list unless their markers differ */
            alternate = strcmp(last_list, name) == 0 ? !alternate : 0;
            list_lines(w, out, node, alternate, depth);
        } else if (strcmp(name, "table") == 0) {
            table_lines(w, out, node, depth);
        } else if (strcmp(name, "li") == 0) {   /* outside a list: its blocks */
            block_lines(w, out, node->children, depth + 1);
        }
        last_list = strcmp(name, "ul") == 0 || strcmp(name, "ol") == 0 ? name : "";
    }
    free(para.s);
}

re_status re_notes_write_markdown(FILE *out, const char *cmark_html, int shift)
{
    html_builder b;
    xmlNodePtr container = NULL;
    re_status status = safe_tree(cmark_html, &b, &container);
    if (status != RE_OK)
        return status;
    md_writer w = { .shift = shift };
    md_lines lines = { 0 };
    block_lines(&w, &lines, container->children, 0);
    for (size_t i = 0; i < lines.count && !w.failed; i++) {
        fputs(lines.items[i], out);
        fputc('\n', out);
    }
    free_lines(&lines);
    xmlFreeDoc(b.doc);
    if (w.failed)
        return RE_ERR_NOMEM;
    return ferror(out) ? RE_ERR_WRITE : RE_OK;
}
