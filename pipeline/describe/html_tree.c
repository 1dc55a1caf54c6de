/* SPDX-License-Identifier: GPL-3.0-or-later */
/* html_tree.c - HTML documents as libxml2 trees, serialized by libxml2 (see html_tree.h). */
#include "html_tree.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLtree.h>
#include <libxml/entities.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlIO.h>

#include "markdown.h"
#include "page_text.h"
#include "url.h"

static void add_child(html_builder *b, xmlNodePtr parent, xmlNodePtr child)
{
    if (b->failed || !child || !parent || !xmlAddChild(parent, child)) {
        xmlFreeNode(child);
        b->failed = 1;
    }
}

re_status re_html_document_new(html_builder *b, const char *lang)
{
    b->failed = 0;
    b->root = NULL;
    b->doc = htmlNewDocNoDtD(NULL, NULL);
    if (!b->doc)
        return RE_ERR_NOMEM;
    b->root = xmlNewDocNode(b->doc, NULL, BAD_CAST "html", NULL);
    if (!b->root || !xmlCreateIntSubset(b->doc, BAD_CAST "html", NULL, NULL)) {
        xmlFreeNode(b->root);
        xmlFreeDoc(b->doc);
        b->doc = NULL;
        b->root = NULL;
        return RE_ERR_NOMEM;
    }
    xmlDocSetRootElement(b->doc, b->root);
    re_html_attribute(b, b->root, "lang", lang);
    return b->failed ? RE_ERR_NOMEM : RE_OK;
}

re_status re_html_document_write(html_builder *b, FILE *out)
{
    /* A UTF-8 buffer without a converter: libxml2's "HTML" output encoding would turn every
     * non-ASCII character into an entity, inside <script> too. */
    xmlOutputBufferPtr buf = b->failed || !b->doc ? NULL : xmlAllocOutputBuffer(NULL);
    if (buf)
        htmlDocContentDumpFormatOutput(buf, b->doc, "UTF-8", 1);
    xmlFreeDoc(b->doc);
    b->doc = NULL;
    b->root = NULL;
    const xmlChar *mem = buf && buf->error == 0 ? xmlOutputBufferGetContent(buf) : NULL;
    size_t size = mem ? xmlOutputBufferGetSize(buf) : 0;
    size_t wrote = size > 0 ? fwrite(mem, 1, size, out) : 0;
    if (buf)
        xmlOutputBufferClose(buf);
    if (size == 0)
        return RE_ERR_NOMEM;
    return wrote != size || ferror(out) || fflush(out) == EOF ? RE_ERR_WRITE : RE_OK;
}

/* libxml2's HTML serializer escapes each text node of an attribute value on its own, and
 * copies a "<!--...-->" within one as it is (a server-side include, to its eyes): a value
 * could then forge the comments that frame the page's slots (page_nav.h). So a value holding
 * '<' is kept as text nodes that each end at a '<', which is then always written "&lt;". */
void re_html_attribute(html_builder *b, xmlNodePtr node, const char *name, const char *value)
{
    if (b->failed)
        return;
    const char *lt = value ? strchr(value, '<') : NULL;
    xmlAttrPtr attr = node ? xmlNewProp(node, BAD_CAST name, lt ? NULL : BAD_CAST value) : NULL;
    if (!attr) {
        b->failed = 1;
        return;
    }
    for (const char *from = value; lt && *from;) {
        const char *cut = strchr(from, '<');
        size_t n = cut ? (size_t)(cut - from) + 1 : strlen(from);
        xmlNodePtr text = n <= INT_MAX ? xmlNewDocTextLen(b->doc, BAD_CAST from, (int)n) : NULL;
        if (!text) {
            b->failed = 1;
            return;
        }
        text->parent = (xmlNodePtr)attr;   /* linked by hand: xmlAddChild would merge them */
        text->prev = attr->last;
        if (attr->last)
            attr->last->next = text;
        else
            attr->children = text;
        attr->last = text;
        from += n;
    }
}

xmlNodePtr re_html_element(html_builder *b, xmlNodePtr parent, const char *name,
                           const char *class_name)
{
    if (b->failed)
        return NULL;
    xmlNodePtr node = xmlNewDocNode(b->doc, NULL, BAD_CAST name, NULL);
    add_child(b, parent, node);
    if (b->failed)
        return NULL;
    if (class_name)
        re_html_attribute(b, node, "class", class_name);
    return node;
}

void re_html_raw_text(html_builder *b, xmlNodePtr parent, const char *s, size_t n)
{
    if (!b->failed && n > 0)
        add_child(b, parent, xmlNewDocTextLen(b->doc, BAD_CAST s, (int)n));
}

void re_html_void_element(html_builder *b, xmlNodePtr parent, const char *name,
                          const char *const *attributes)
{
    if (b->failed)
        return;
    xmlBufferPtr markup = xmlBufferCreate();
    int bad = !markup || xmlBufferCat(markup, BAD_CAST "<") != 0
              || xmlBufferCat(markup, BAD_CAST name) != 0;
    for (size_t i = 0; !bad && attributes[i]; i += 2) {
        xmlChar *value = attributes[i + 1][0] ? xmlEncodeSpecialChars(b->doc,
                                                                      BAD_CAST attributes[i + 1])
                                              : NULL;
        bad = (attributes[i + 1][0] && !value) || xmlBufferCat(markup, BAD_CAST " ") != 0
              || xmlBufferCat(markup, BAD_CAST attributes[i]) != 0
              || (value && (xmlBufferCat(markup, BAD_CAST "=\"") != 0
                            || xmlBufferCat(markup, value) != 0
                            || xmlBufferCat(markup, BAD_CAST "\"") != 0));
        xmlFree(value);
    }
    bad = bad || xmlBufferCat(markup, BAD_CAST ">") != 0;
    xmlNodePtr node = bad ? NULL : xmlNewDocTextLen(b->doc, xmlBufferContent(markup),
                                                    xmlBufferLength(markup));
    if (node)   /* the serializer writes a text node of this name unescaped */
        node->name = xmlStringTextNoenc;
    add_child(b, parent, node);
    xmlBufferFree(markup);
}

void re_html_text(html_builder *b, xmlNodePtr parent, const char *s)
{
    size_t from = 0, n = strlen(s);
    for (size_t i = 0; i < n && !b->failed; i++) {
        if (s[i] != ':' || !re_page_ends_with_duration(s, i))
            continue;
        re_html_raw_text(b, parent, s + from, i - from);
        if (!b->failed)
            add_child(b, parent, xmlNewCharRef(b->doc, BAD_CAST "&#58;"));
        from = i + 1;
    }
    re_html_raw_text(b, parent, s + from, n - from);
}

void re_html_comment(html_builder *b, xmlNodePtr parent, const char *text)
{
    if (!b->failed)
        add_child(b, parent, xmlNewDocComment(b->doc, BAD_CAST text));
}

xmlNodePtr re_html_text_element(html_builder *b, xmlNodePtr parent, const char *name,
                                const char *class_name, const char *s)
{
    xmlNodePtr node = re_html_element(b, parent, name, class_name);
    if (node)
        re_html_text(b, node, s);
    return node;
}

xmlNodePtr re_html_cover_image(html_builder *b, xmlNodePtr parent, const char *src, const char *alt,
                               unsigned px)
{
    char size[16];
    snprintf(size, sizeof size, "%u", px);
    xmlNodePtr img = re_html_element(b, parent, "img", "cover");
    re_html_attribute(b, img, "src", src);
    re_html_attribute(b, img, "alt", alt);
    re_html_attribute(b, img, "width", size);
    re_html_attribute(b, img, "height", size);
    return img;
}

char *re_html_file_href(const char *file_name, const char *suffix)
{
    char *name = re_url_escape(file_name);
    size_t n = name ? strlen(name) : 0, tail = suffix ? strlen(suffix) : 0;
    char *href = name ? realloc(name, n + tail + 1) : NULL;
    if (!href) {
        free(name);
        return NULL;
    }
    memcpy(href + n, suffix ? suffix : "", tail + 1);
    return href;
}

char *re_html_from_markdown(const char *markdown)
{
    return re_markdown_to_html(markdown, strlen(markdown));
}
