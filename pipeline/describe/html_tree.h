/* SPDX-License-Identifier: GPL-3.0-or-later */
/* html_tree.h - the HTML documents of the describe stage (the episode page, the folder's
 * index) are built as a libxml2 tree and written by libxml2's serializer, which does every
 * escape. These helpers keep the building readable: each call appends to a parent, and the
 * first allocation failure turns every later call into a no-op, reported once at the end.
 *
 * Life cycle: re_html_document_new -> re_html_element / re_html_text ... -> re_html_document_write
 * (which frees the document in every case). */
#ifndef RE_HTML_TREE_H
#define RE_HTML_TREE_H

#include <stddef.h>
#include <stdio.h>

#include <libxml/tree.h>

#include "status.h"

typedef struct html_builder {
    xmlDocPtr doc;
    xmlNodePtr root;   /* <html lang=...> */
    int failed;        /* an allocation failed: every later call does nothing */
} html_builder;

/* An HTML5 document (<!DOCTYPE html>) whose root is <html lang="lang">. RE_ERR_NOMEM. */
re_status re_html_document_new(html_builder *b, const char *lang);

/* Writes the document as UTF-8 (no character turned into an entity but the ones that must
 * be), indented by libxml2's formatter, and frees it. RE_ERR_NOMEM when anything failed to
 * build, RE_ERR_WRITE when the stream fails. */
re_status re_html_document_write(html_builder *b, FILE *out);

/* A new element at the end of parent, with class="class_name" unless that is NULL. NULL
 * (and nothing done) once anything failed. */
xmlNodePtr re_html_element(html_builder *b, xmlNodePtr parent, const char *name,
                           const char *class_name);
void re_html_attribute(html_builder *b, xmlNodePtr node, const char *name, const char *value);

/* An HTML5 void element that libxml2's HTML 4 serializer does not know (<track>): it would
 * write an end tag after it, which HTML has not ("Stray end tag"). Written instead as markup
 * of its own at the end of parent: <name a="v" ...>, each value escaped by libxml2
 * (xmlEncodeSpecialChars), an empty value as the bare attribute name. `attributes` is name,
 * value pairs ending in NULL; names are the caller's literals. */
void re_html_void_element(html_builder *b, xmlNodePtr parent, const char *name,
                          const char *const *attributes);

/* Text appended to parent as it is (the serializer escapes it; inside <script> and <style>
 * it is written raw, so it must not contain "</"). */
void re_html_raw_text(html_builder *b, xmlNodePtr parent, const char *s, size_t n);

/* Text from a script or a sidecar: as re_html_raw_text, but a colon right after the word
 * "duration" is written as the character reference &#58;, so that the only duration
 * claims `check` finds in the document are the ones it states itself. */
void re_html_text(html_builder *b, xmlNodePtr parent, const char *s);

/* A relative URL naming the file `file_name` in the page's own folder: every byte but
 * A-Z a-z 0-9 - . _ ~ percent-encoded, so that no file name reads as a scheme
 * ("javascript:"), a query, a fragment or an escape (libxml2's serializer escapes href and src
 * values, but leaves ':' '?' '#' '%' as they are). `suffix` (may be NULL) is appended as it is
 * ("#t=65.000"). Malloc'ed; NULL when out of memory. */
char *re_html_file_href(const char *file_name, const char *suffix);

/* A Markdown document as HTML (re_markdown_to_html: the parse stage owns cmark-gfm): the
 * page's show notes and the feed's content:encoded. NULL when out of memory or when the
 * document is over the Markdown limits (its script or sidecar was vetted before); free() it. */
char *re_html_from_markdown(const char *markdown);

/* A cover image at the end of parent: <img class="cover" src="src" alt="alt" width="px"
 * height="px"> (alt "" when the text beside it already names what it shows). */
xmlNodePtr re_html_cover_image(html_builder *b, xmlNodePtr parent, const char *src, const char *alt,
                               unsigned px);

/* An HTML comment <!--text--> at the end of parent (text must not hold "--"). */
void re_html_comment(html_builder *b, xmlNodePtr parent, const char *text);

/* re_html_element with re_html_text inside. */
xmlNodePtr re_html_text_element(html_builder *b, xmlNodePtr parent, const char *name,
                                const char *class_name, const char *s);

#endif
