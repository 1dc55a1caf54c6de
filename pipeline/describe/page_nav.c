/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page_nav.c - the episode page inside its show: the canonical link and share tags in the
 * head, the links to the show's index, feed, previous, next and nearby episodes in the body
 * (see page_nav.h, page.h, docs/feed.md). */
#define _GNU_SOURCE
#include "page_nav.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datetime.h"

static void meta_tag(html_builder *b, xmlNodePtr head, const char *key, const char *name,
                     const char *content)
{
    if (!content)
        return;
    xmlNodePtr meta = re_html_element(b, head, "meta", NULL);
    re_html_attribute(b, meta, key, name);
    re_html_attribute(b, meta, "content", content);
}

void re_page_nav_build_meta(html_builder *b, xmlNodePtr head, const re_page_nav *nav)
{
    re_html_comment(b, head, PAGE_META_OPEN);
    if (nav && nav->canonical_url) {
        xmlNodePtr link = re_html_element(b, head, "link", NULL);
        re_html_attribute(b, link, "rel", "canonical");
        re_html_attribute(b, link, "href", nav->canonical_url);
        /* Open Graph (ogp.me) for chat apps and social sites; Twitter's card reads og:
         * values where its own are absent, but some readers want its own */
        meta_tag(b, head, "property", "og:type", "website");
        meta_tag(b, head, "property", "og:site_name", nav->show);
        meta_tag(b, head, "property", "og:title", nav->title);
        meta_tag(b, head, "property", "og:description", nav->description);
        meta_tag(b, head, "property", "og:url", nav->canonical_url);
        meta_tag(b, head, "property", "og:image", nav->image_url);
        meta_tag(b, head, "property", "og:audio", nav->audio_url);
        if (nav->audio_url)
            meta_tag(b, head, "property", "og:audio:type", "audio/mpeg");
        meta_tag(b, head, "name", "twitter:card", "summary");
        meta_tag(b, head, "name", "twitter:title", nav->title);
        meta_tag(b, head, "name", "twitter:description", nav->description);
        meta_tag(b, head, "name", "twitter:image", nav->image_url);
    }
    re_html_comment(b, head, PAGE_META_CLOSE);
}

/* <a href="FILE">Title</a> and its date in words, with the written value in <time>. */
static void episode_link(html_builder *b, xmlNodePtr parent, const re_page_link *link,
                         const char *rel, const char *language)
{
    char *href = re_html_file_href(link->file, NULL);
    if (!href) {
        b->failed = 1;
        return;
    }
    xmlNodePtr a = re_html_text_element(b, parent, "a", NULL, link->title);
    re_html_attribute(b, a, "href", href);
    if (rel)
        re_html_attribute(b, a, "rel", rel);
    free(href);
    char date[RE_DATE_WORDS_MAX];
    if (link->published && re_date_in_words(link->published, language, date) >= 0) {
        re_html_raw_text(b, parent, " · ", strlen(" · "));
        xmlNodePtr time = re_html_text_element(b, parent, "time", NULL, date);
        re_html_attribute(b, time, "datetime", link->published);
    }
}

void re_page_nav_build_body(html_builder *b, xmlNodePtr parent, const re_page_nav *nav)
{
    re_html_comment(b, parent, PAGE_NAV_OPEN);
    int any = nav && (nav->index_name || nav->feed_name || nav->older || nav->newer
                      || nav->nearby_count > 0);
    if (any) {
        const char *language = nav->language ? nav->language : "en-us";
        xmlNodePtr section = re_html_element(b, parent, "nav", "show-nav");
        re_html_attribute(b, section, "aria-labelledby", "show-nav-title");
        char *heading = NULL;
        if (asprintf(&heading, "More from %s", nav->show ? nav->show : "the show") < 0) {
            b->failed = 1;
            heading = NULL;
        }
        xmlNodePtr h2 = re_html_text_element(b, section, "h2", NULL, heading ? heading : "");
        re_html_attribute(b, h2, "id", "show-nav-title");
        free(heading);
        if (nav->index_name || nav->feed_name) {
            xmlNodePtr p = re_html_element(b, section, "p", "show-links");
            char *href = nav->index_name ? re_html_file_href(nav->index_name, NULL) : NULL;
            if (nav->index_name && !href)
                b->failed = 1;
            if (href) {
                xmlNodePtr a = re_html_text_element(b, p, "a", NULL, "All episodes");
                re_html_attribute(b, a, "href", href);
            }
            free(href);
            href = nav->feed_name ? re_html_file_href(nav->feed_name, NULL) : NULL;
            if (nav->feed_name && !href)
                b->failed = 1;
            if (href) {
                if (nav->index_name)
                    re_html_raw_text(b, p, " · ", strlen(" · "));
                xmlNodePtr a = re_html_text_element(b, p, "a", NULL, "The show's feed (RSS)");
                re_html_attribute(b, a, "href", href);
                re_html_attribute(b, a, "type", "application/rss+xml");
            }
            free(href);
        }
        if (nav->older || nav->newer) {
            xmlNodePtr list = re_html_element(b, section, "ul", "prev-next");
            if (nav->older) {
                xmlNodePtr li = re_html_element(b, list, "li", NULL);
                re_html_raw_text(b, li, "Previous: ", strlen("Previous: "));
                episode_link(b, li, nav->older, "prev", language);
            }
            if (nav->newer) {
                xmlNodePtr li = re_html_element(b, list, "li", NULL);
                re_html_raw_text(b, li, "Next: ", strlen("Next: "));
                episode_link(b, li, nav->newer, "next", language);
            }
        }
        if (nav->nearby_count > 0) {
            char *title = NULL;
            if (asprintf(&title, "Nearby episodes from %s", nav->show ? nav->show
                                                                      : "the show") < 0) {
                b->failed = 1;
                title = NULL;
            }
            xmlNodePtr h3 = re_html_text_element(b, section, "h3", NULL, title ? title : "");
            re_html_attribute(b, h3, "id", "nearby-title");
            free(title);
            xmlNodePtr list = re_html_element(b, section, "ul", "nearby");
            re_html_attribute(b, list, "aria-labelledby", "nearby-title");
            for (size_t i = 0; i < nav->nearby_count && !b->failed; i++)
                episode_link(b, re_html_element(b, list, "li", NULL), &nav->nearby[i], NULL,
                             language);
        }
    }
    re_html_comment(b, parent, PAGE_NAV_CLOSE);
}

/* [*from, *to) of the slot framed by <!--open--> and <!--close--> in s[0..n), the comments
 * included; 0 unless each comment is there exactly once, in that order. */
static int find_slot(const char *s, size_t n, const char *open, const char *close, size_t *from,
                     size_t *to)
{
    char a[64], z[64];
    snprintf(a, sizeof a, "<!--%s-->", open);
    snprintf(z, sizeof z, "<!--%s-->", close);
    const char *first = memmem(s, n, a, strlen(a)), *end = memmem(s, n, z, strlen(z));
    if (!first || !end || end < first)
        return 0;
    const char *after_first = first + strlen(a), *after_end = end + strlen(z);
    if (memmem(after_first, n - (size_t)(after_first - s), a, strlen(a))
        || memmem(after_end, n - (size_t)(after_end - s), z, strlen(z)))
        return 0;
    *from = (size_t)(first - s);
    *to = (size_t)(after_end - s);
    return 1;
}

re_status re_page_with_nav(const char *page, size_t len, const re_page_nav *nav, char **out,
                           size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (!page || !nav)
        return RE_ERR_INVALID;
    size_t meta_from, meta_to, nav_from, nav_to;
    if (!find_slot(page, len, PAGE_META_OPEN, PAGE_META_CLOSE, &meta_from, &meta_to)
        || !find_slot(page, len, PAGE_NAV_OPEN, PAGE_NAV_CLOSE, &nav_from, &nav_to)
        || meta_to > nav_from)
        return RE_ERR_FORMAT;

    /* the slots as the same serializer writes them, in a document of their own */
    char *made = NULL;
    size_t made_len = 0;
    FILE *mem = open_memstream(&made, &made_len);
    html_builder b;
    if (!mem || re_html_document_new(&b, "en") != RE_OK) {
        if (mem)
            fclose(mem);
        free(made);
        return RE_ERR_NOMEM;
    }
    re_page_nav_build_meta(&b, re_html_element(&b, b.root, "head", NULL), nav);
    re_page_nav_build_body(&b, re_html_element(&b, re_html_element(&b, b.root, "body", NULL), "main",
                                               NULL), nav);
    re_status status = re_html_document_write(&b, mem);
    if (fclose(mem) != 0 && status == RE_OK)
        status = RE_ERR_NOMEM;
    size_t new_meta_from = 0, new_meta_to = 0, new_nav_from = 0, new_nav_to = 0;
    if (status == RE_OK
        && (!find_slot(made, made_len, PAGE_META_OPEN, PAGE_META_CLOSE, &new_meta_from,
                       &new_meta_to)
            || !find_slot(made, made_len, PAGE_NAV_OPEN, PAGE_NAV_CLOSE, &new_nav_from,
                          &new_nav_to)))
        status = RE_ERR_FORMAT;   /* not found once each: the page is left as it was */
    size_t meta_n = new_meta_to - new_meta_from, nav_n = new_nav_to - new_nav_from;
    size_t total = status == RE_OK ? len - (meta_to - meta_from) - (nav_to - nav_from) + meta_n
                                     + nav_n : 0;
    char *o = status == RE_OK ? malloc(total ? total : 1) : NULL;
    if (status == RE_OK && !o)
        status = RE_ERR_NOMEM;
    if (status == RE_OK) {
        char *w = o;
        memcpy(w, page, meta_from);
        w += meta_from;
        memcpy(w, made + new_meta_from, meta_n);
        w += meta_n;
        memcpy(w, page + meta_to, nav_from - meta_to);
        w += nav_from - meta_to;
        memcpy(w, made + new_nav_from, nav_n);
        w += nav_n;
        memcpy(w, page + nav_to, len - nav_to);
        *out = o;
        *out_len = total;
    }
    free(made);
    return status;
}
