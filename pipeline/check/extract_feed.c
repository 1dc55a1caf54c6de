/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extract_feed.c - RSS 2.0 (and 1.0) items and Atom entries whose enclosure names the MP3:
 * itunes:duration and the enclosure's length. libxml2, without network, DTD loading or entity
 * substitution; byte offsets are recorded while parsing so values can be rewritten. */
#include "extract.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/SAX2.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>

#define ITUNES_NS "http://www.itunes.com/dtds/podcast-1.0.dtd"
#define ATOM_NS "http://www.w3.org/2005/Atom"
#define RSS1_NS "http://purl.org/rss/1.0/"
#define RDF_NS "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

/* Wraps libxml2's own start-element handler to remember where each start tag ends
 * (the offset of its '>' or "/>"), so that values can be rewritten in place. */
static void on_start_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                             const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                             int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    xmlSAX2StartElementNs(ctx, localname, prefix, uri, nb_namespaces, namespaces, nb_attributes,
                          nb_defaulted, attributes);
    xmlParserCtxtPtr ctxt = ctx;
    long off = xmlByteConsumed(ctxt);
    if (ctxt->node && off >= 0)
        ctxt->node->_private = (void *)(uintptr_t)((unsigned long)off + 1);
}

static int node_offset(const xmlNode *node, size_t len, size_t *off)
{
    uintptr_t v = (uintptr_t)node->_private;
    if (v == 0 || v - 1 >= len)
        return 0;
    *off = (size_t)(v - 1);
    return 1;
}

static int node_is(const xmlNode *node, const char *name, const char *ns)
{
    if (node->type != XML_ELEMENT_NODE || strcmp((const char *)node->name, name) != 0)
        return 0;
    if (!ns)
        return node->ns == NULL;
    return node->ns && node->ns->href && strcmp((const char *)node->ns->href, ns) == 0;
}

static int hex_value(char c)
{
    if (re_is_digit(c))
        return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether the last path segment of url (before any query or fragment), percent-decoded, is
 * exactly `name`. */
static int url_names(const char *url, const char *name)
{
    size_t end = strcspn(url, "?#"), start = end;
    while (start > 0 && url[start - 1] != '/')
        start--;
    size_t n = strlen(name), j = 0;
    for (size_t i = start; i < end; i++, j++) {
        char c = url[i];
        if (c == '%' && end - i > 2 && hex_value(url[i + 1]) >= 0 && hex_value(url[i + 2]) >= 0) {
            c = (char)(hex_value(url[i + 1]) * 16 + hex_value(url[i + 2]));
            i += 2;
        }
        if (j >= n || name[j] != c)
            return 0;
    }
    return j == n;
}

/* The enclosure URL of an RSS <enclosure> or Atom <link rel="enclosure">, else NULL. */
static xmlChar *enclosure_url(const xmlNode *node)
{
    if (node_is(node, "enclosure", NULL))
        return xmlGetNoNsProp(node, (const xmlChar *)"url");
    if (!node_is(node, "link", ATOM_NS))
        return NULL;
    xmlChar *rel = xmlGetNoNsProp(node, (const xmlChar *)"rel");
    int is_enclosure = rel && strcmp((const char *)rel, "enclosure") == 0;
    xmlFree(rel);
    return is_enclosure ? xmlGetNoNsProp(node, (const xmlChar *)"href") : NULL;
}

static int names_mp3(const xmlNode *node, const char *mp3_name)
{
    xmlChar *url = enclosure_url(node);
    int match = url && url_names((const char *)url, mp3_name);
    xmlFree(url);
    return match;
}

/* Claim for the `length` attribute of an enclosure. */
static re_status xml_length_claim(extract_ctx *x, const xmlNode *node)
{
    xmlChar *value = xmlGetNoNsProp(node, (const xmlChar *)"length");
    if (!value)
        return RE_OK;
    size_t vlen = strlen((const char *)value), off = 0, span_off = 0, span_len = 0, lt;
    if (node_offset(node, x->len, &off)) {
        for (lt = off; lt > 0 && x->buf[lt] != '<'; lt--)
            ;
        size_t name_end = lt + 1;
        while (name_end < off && !re_is_blank(x->buf[name_end]) && x->buf[name_end] != '\n'
               && x->buf[name_end] != '\r')
            name_end++;
        if (re_html_tag_attr(x->buf, name_end, off, "length", 0, &span_off, &span_len)
            && (span_len != vlen || memcmp(x->buf + span_off, value, vlen) != 0))
            span_len = 0;   /* written with entities: not rewritable */
    }
    re_claim *c = NULL;
    re_status st = re_extract_add_claim(x, "enclosure length", 16, span_len ? span_off : off, span_len,
                                        (const char *)value, vlen, &c);
    if (st == RE_OK) {
        if (!span_len) {
            c->line = (unsigned)xmlGetLineNo(node);
            c->col = 0;
        }
        re_claim_read_count(c, RE_CLAIM_BYTES, (const char *)value, vlen);
    }
    xmlFree(value);
    return st;
}

/* Claim for an itunes:duration element. */
static re_status xml_duration_claim(extract_ctx *x, const xmlNode *node)
{
    xmlChar *content = xmlNodeGetContent(node);
    if (!content)
        return RE_ERR_NOMEM;
    const char *s = (const char *)content;
    size_t n = strlen(s), a = 0, b = n, off = 0, span_len = 0;
    while (a < b && (re_is_blank(s[a]) || s[a] == '\n' || s[a] == '\r'))
        a++;
    while (b > a && (re_is_blank(s[b - 1]) || s[b - 1] == '\n' || s[b - 1] == '\r'))
        b--;
    size_t end = off + 1 + n;
    if (node_offset(node, x->len, &off) && x->buf[off] == '>' && (end = off + 1 + n) <= x->len
        && memcmp(x->buf + off + 1, s, n) == 0 && (end == x->len || x->buf[end] == '<'))
        span_len = b - a;   /* plain text: rewritable; CDATA or entities are not */
    re_claim *c = NULL;
    re_status st = re_extract_add_claim(x, "itunes:duration", 15, off + 1 + a, span_len, s + a,
                                        b - a, &c);
    if (st == RE_OK) {
        re_claim_read_duration(c, s + a, b - a);
        if (!c->readable)
            c->length = 0;
        if (!span_len) {
            c->line = (unsigned)xmlGetLineNo(node);
            c->col = 0;
        }
    }
    xmlFree(content);
    return st;
}

/* An RSS item or Atom entry: claims only when one of its enclosures names the MP3. */
static re_status xml_item(extract_ctx *x, const xmlNode *item, size_t *matched)
{
    int match = 0;
    for (const xmlNode *n = item->children; n; n = n->next)
        match = match || names_mp3(n, x->mp3_name);
    if (!match)
        return RE_OK;
    (*matched)++;
    for (const xmlNode *n = item->children; n; n = n->next) {
        re_status st = RE_OK;
        if (names_mp3(n, x->mp3_name))
            st = xml_length_claim(x, n);
        else if (node_is(n, "duration", ITUNES_NS))
            st = xml_duration_claim(x, n);
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

static re_status xml_walk(extract_ctx *x, const xmlNode *node, size_t *items, size_t *matched)
{
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        re_status st;
        if (node_is(node, "item", NULL) || node_is(node, "item", RSS1_NS)
            || node_is(node, "entry", ATOM_NS)) {
            (*items)++;
            st = xml_item(x, node, matched);
        } else {
            st = xml_walk(x, node->children, items, matched);
        }
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

/* The first error libxml2 reports (later ones are often consequences of it). */
typedef struct xml_first_error {
    int set;
    int line, col;
    char message[256];
} xml_first_error;

static void on_xml_error(void *user, xmlErrorPtr error)
{
    xmlParserCtxtPtr ctxt = user;
    xml_first_error *first = ctxt ? ctxt->_private : NULL;
    if (!first || first->set || !error || error->level < XML_ERR_ERROR)
        return;
    first->set = 1;
    first->line = error->line;
    first->col = error->int2;
    snprintf(first->message, sizeof first->message, "%s",
             error->message ? error->message : "unknown error");
    first->message[strcspn(first->message, "\n")] = '\0';
}

static re_status xml_parse(extract_ctx *x, xmlDocPtr *doc)
{
    if (x->len > INT_MAX)
        return check_fail(x->diag, RE_ERR_LIMIT, x->name, 0, 0, "too large for the XML parser");
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return RE_ERR_NOMEM;
    xml_first_error first = { 0, 0, 0, "unknown error" };
    ctxt->_private = &first;
    ctxt->sax->startElementNs = on_start_element;
    ctxt->sax->serror = on_xml_error;   /* errors come back to us, never printed */
    /* no network, no DTD loading, no entity substitution */
    *doc = xmlCtxtReadMemory(ctxt, x->buf, (int)x->len, x->name, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING
                             | XML_PARSE_BIG_LINES);
    re_status st = RE_OK;
    if (!*doc)
        st = check_fail(x->diag, RE_ERR_INPUT, x->name,
                        first.line > 0 ? (unsigned)first.line : 0,
                        first.col > 0 ? (unsigned)first.col : 0, "malformed XML: %s",
                        first.message);
    xmlFreeParserCtxt(ctxt);
    return st;
}

static re_status extract_xml(extract_ctx *x)
{
    xmlDocPtr doc = NULL;
    re_status st = xml_parse(x, &doc);
    if (st != RE_OK)
        return st;
    const xmlNode *root = xmlDocGetRootElement(doc);
    if (root && strcasecmp((const char *)root->name, "html") == 0) {
        xmlFreeDoc(doc);
        return re_extract_html(x);   /* XHTML: a page, not a feed */
    }
    size_t items = 0, matched = 0;
    st = xml_walk(x, root, &items, &matched);
    xmlFreeDoc(doc);
    x->items = items;
    x->matched = matched;
    if (st == RE_OK && items > 0 && matched == 0 && x->notes)
        st = check_fail(x->notes, RE_OK, x->name, 0, 0,
                        "none of its %zu feed items has an enclosure named %s", items, x->mp3_name);
    return st;
}

/* ---- check DIR: a folder's feeds ------------------------------------------------------- */

static void on_reader_error(void *user, xmlErrorPtr error)
{
    (void)user;
    (void)error;   /* a file whose start does not read is no feed: nothing to say */
}

int re_feed_root_is_feed(const char *name, const char *buf, size_t len)
{
    if (len > INT_MAX)
        len = INT_MAX;   /* the root element is near the start */
    xmlTextReaderPtr reader = xmlReaderForMemory(buf, (int)len, name, NULL,
                                                 XML_PARSE_NONET | XML_PARSE_NOERROR
                                                 | XML_PARSE_NOWARNING);
    if (!reader)
        return -1;
    xmlTextReaderSetStructuredErrorHandler(reader, on_reader_error, NULL);
    int feed = 0, rc;
    while ((rc = xmlTextReaderRead(reader)) == 1) {
        if (xmlTextReaderNodeType(reader) != XML_READER_TYPE_ELEMENT)
            continue;
        const char *local = (const char *)xmlTextReaderConstLocalName(reader);
        const char *ns = (const char *)xmlTextReaderConstNamespaceUri(reader);
        feed = local && ((strcmp(local, "rss") == 0 && !ns)
                         || (strcmp(local, "feed") == 0 && (!ns || strcmp(ns, ATOM_NS) == 0))
                         || (strcmp(local, "RDF") == 0 && ns && strcmp(ns, RDF_NS) == 0));
        break;
    }
    xmlFreeTextReader(reader);
    return feed;
}

/* The percent-decoded last path segment of url (before any query or fragment), or NULL. */
static char *url_segment(const char *url)
{
    size_t end = strcspn(url, "?#"), start = end, j = 0;
    while (start > 0 && url[start - 1] != '/')
        start--;
    char *out = malloc(end - start + 1);
    if (!out)
        return NULL;
    for (size_t i = start; i < end; i++) {
        char c = url[i];
        if (c == '%' && end - i > 2 && hex_value(url[i + 1]) >= 0 && hex_value(url[i + 2]) >= 0) {
            c = (char)(hex_value(url[i + 1]) * 16 + hex_value(url[i + 2]));
            i += 2;
        }
        out[j++] = c;
    }
    out[j] = '\0';
    return out;
}

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Which of the sorted names[0..n) the enclosure `node` names: its index, n when none, -1 when
 * out of memory. */
static long enclosure_index(const xmlNode *node, const char *const *names, size_t n)
{
    xmlChar *url = enclosure_url(node);
    if (!url)
        return (long)n;
    char *seg = url_segment((const char *)url);
    xmlFree(url);
    if (!seg)
        return -1;
    const char *const *hit = n ? bsearch(&seg, names, n, sizeof *names, by_string) : NULL;
    free(seg);
    return hit ? (long)(hit - names) : (long)n;
}

static re_status site_walk(extract_ctx *x, const xmlNode *node, const char *const *names,
                           size_t n, re_claim_list *lists)
{
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        if (!(node_is(node, "item", NULL) || node_is(node, "item", RSS1_NS)
              || node_is(node, "entry", ATOM_NS))) {
            re_status st = site_walk(x, node->children, names, n, lists);
            if (st != RE_OK)
                return st;
            continue;
        }
        x->items++;
        int any = 0;
        for (const xmlNode *c = node->children; c; c = c->next) {
            long k = enclosure_index(c, names, n);
            if (k < 0)
                return RE_ERR_NOMEM;
            if ((size_t)k == n)
                continue;
            int seen = 0;   /* two enclosures of one item naming the same MP3: once */
            for (const xmlNode *e = node->children; e != c && !seen; e = e->next) {
                long j = enclosure_index(e, names, n);
                if (j < 0)
                    return RE_ERR_NOMEM;
                seen = j == k;
            }
            if (seen)
                continue;
            size_t ignored = 0;
            x->mp3_name = names[k];
            x->out = &lists[k];
            re_status st = xml_item(x, node, &ignored);
            if (st != RE_OK)
                return st;
            any = 1;
        }
        x->matched += any;
    }
    return RE_OK;
}

re_status re_feed_claims_site(const char *name, const char *buf, size_t len,
                              const char *const *mp3_names, size_t n, re_claim_list *lists,
                              size_t *items, size_t *matched, re_diagnostics *diag)
{
    extract_ctx x;
    memset(&x, 0, sizeof x);
    x.name = name;
    x.buf = buf ? buf : "";
    x.len = len;
    x.diag = diag;
    *items = *matched = 0;
    xmlDocPtr doc = NULL;
    re_status st = xml_parse(&x, &doc);
    if (st != RE_OK)
        return st;
    st = site_walk(&x, xmlDocGetRootElement(doc), mp3_names, n, lists);
    xmlFreeDoc(doc);
    if (st != RE_OK) {
        for (size_t k = 0; k < n; k++)
            while (lists[k].count > 0)
                re_claim_free(&lists[k].items[--lists[k].count]);
        return st;
    }
    *items = x.items;
    *matched = x.matched;
    return RE_OK;
}

static int looks_like_feed(const char *buf, size_t len)
{
    static const char *const starts[] = { "<?xml", "<rss", "<feed", "<rdf:RDF" };
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
        if (len >= strlen(starts[k]) && strncmp(buf, starts[k], strlen(starts[k])) == 0)
            return 1;
    return 0;
}

static const char *const feed_suffixes[] = { ".xml", ".rss", ".atom", ".xhtml", NULL };

const claim_format re_claim_format_feed = {
    RE_FILE_XML, "xml", feed_suffixes, looks_like_feed, extract_xml
};
