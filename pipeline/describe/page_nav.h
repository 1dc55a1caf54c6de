/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page_nav.h - the episode page's two slots for its show (page.h's re_page_nav): the head's
 * canonical link and share tags, and the body's navigation. The render writes them with what
 * it knows (a show file beside it: the index); `feed`, which knows the whole show, writes
 * them again (re_page_with_nav). Each slot is framed by two HTML comments that nothing else
 * on the page can hold (every text and attribute is escaped by libxml2's serializer, and the
 * raw JSON-LD has no '<'), so the feed finds and replaces exactly what it wrote before. */
#ifndef RE_PAGE_NAV_H
#define RE_PAGE_NAV_H

#include "html_tree.h"
#include "page.h"

#define PAGE_META_OPEN "show-meta"
#define PAGE_META_CLOSE "/show-meta"
#define PAGE_NAV_OPEN "show-nav"
#define PAGE_NAV_CLOSE "/show-nav"

/* The head's slot at the end of head: the two comments, between them (when nav has a
 * canonical_url) the canonical link and the Open Graph and Twitter tags. */
void re_page_nav_build_meta(html_builder *b, xmlNodePtr head, const re_page_nav *nav);

/* The body's slot at the end of parent: the two comments, between them (when nav links
 * anything) <nav class="show-nav"> with the index and feed, previous and next, and nearby
 * episodes, titles and dates only (no lengths: `check` would read them as this page's). */
void re_page_nav_build_body(html_builder *b, xmlNodePtr parent, const re_page_nav *nav);

#endif
