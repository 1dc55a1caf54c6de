/* SPDX-License-Identifier: GPL-3.0-or-later */
/* folder_index.c - index.html of a folder of episodes, newest first (see folder_index.h). */
#define _GNU_SOURCE
#include "folder_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datetime.h"
#include "duration.h"
#include "files.h"
#include "html_tree.h"
#include "page_text.h"
#include "output.h"

/* Light and dark from prefers-color-scheme (contrast within WCAG AA in both), and long words
 * wrapped so that nothing scrolls sideways on a phone. */
static const char index_style[] =
    ":root{color-scheme:light dark;--fg:#1f1f1f;--bg:#fff;--muted:#555;--link:#0b57d0}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#121212;--muted:#b8b8b8;"
    "--link:#9ec1ff}}"
    "body{font-family:system-ui,sans-serif;line-height:1.5;max-width:42em;margin:0 auto;"
    "padding:1em;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}"
    "a{color:var(--link)}"
    "header.show{display:flex;flex-wrap:wrap;gap:1em;align-items:center}"
    "header.show .cover{width:9em;height:9em;object-fit:cover;border-radius:.4em}"
    "header.show h1{flex:1 1 12em;min-width:0;margin:0}"
    ".meta{color:var(--muted)}"
    "ol.episodes{list-style:none;padding:0}"
    "ol.episodes article{display:flow-root}"
    "ol.episodes .cover{float:right;width:4.5em;height:4.5em;object-fit:cover;"
    "border-radius:.3em;margin:1em 0 .5em 1em}"
    "ol.episodes h2{margin-bottom:.2em;font-size:1.2em}";

static void build_episode(html_builder *b, xmlNodePtr list, const re_feed_episode *ep,
                          int has_page, const char *language)
{
    xmlNodePtr item = re_html_element(b, list, "li", NULL);
    xmlNodePtr article = re_html_element(b, item, "article", NULL);
    /* the episode's own cover, published beside it (the show's is in the header); alt "":
     * the title next to it, the item's link, names the episode */
    char *cover = NULL, *cover_href = NULL;
    if (re_feed_cover_name(ep, &cover) != RE_OK
        || (cover && !(cover_href = re_html_file_href(cover, NULL))))
        b->failed = 1;
    if (cover_href)
        re_html_cover_image(b, article, cover_href, "", 72);
    free(cover_href);
    free(cover);
    xmlNodePtr heading = re_html_element(b, article, "h2", NULL);
    xmlNodePtr link = re_html_text_element(b, heading, "a", NULL, ep->title);
    char *page = NULL, *href = NULL;
    if ((has_page && asprintf(&page, "%s.html", ep->stem) < 0)
        || !(href = re_html_file_href(page ? page : ep->audio_name, NULL))) {
        free(page);
        b->failed = 1;
        return;
    }
    re_html_attribute(b, link, "href", href);
    free(href);
    free(page);

    xmlNodePtr meta = re_html_element(b, article, "p", "meta");
    const char *sep = "";
    char date[RE_DATE_WORDS_MAX];
    if (ep->published && re_date_in_words(ep->published, language, date) >= 0) {
        xmlNodePtr time = re_html_text_element(b, meta, "time", NULL, date);
        re_html_attribute(b, time, "datetime", ep->published);
        sep = " · ";
    }
    if (ep->number >= 0) {
        char number[48];
        snprintf(number, sizeof number, "%sEpisode %ld", sep, ep->number);
        re_html_raw_text(b, meta, number, strlen(number));
        sep = " · ";
    }
    const char *kind = re_page_episode_type_words(ep->type);
    if (kind) {   /* a trailer or bonus episode says so, as on its page */
        re_html_raw_text(b, meta, sep, strlen(sep));
        re_html_text_element(b, meta, "strong", "type", kind);
        sep = " · ";
    }
    uint64_t seconds = re_samples_to_seconds(ep->samples, ep->sample_rate);
    char iso[RE_DURATION_ISO_MAX], human[96];
    re_duration_format_iso(seconds, iso);
    re_page_duration_words(seconds, human, sizeof human);
    re_html_raw_text(b, meta, sep, strlen(sep));
    xmlNodePtr time = re_html_text_element(b, meta, "time", NULL, human);
    re_html_attribute(b, time, "datetime", iso);
    if (ep->summary && *ep->summary)
        re_html_text_element(b, article, "p", "summary", ep->summary);
}

re_status re_folder_index_write(FILE *out, const re_feed *feed, const unsigned char *has_page,
                                const char *feed_name)
{
    const re_show *show = &feed->show;
    if (!out || !show->title || (feed->count > 0 && !feed->episodes))
        return RE_ERR_INVALID;
    html_builder b;
    if (re_html_document_new(&b, show->language ? show->language : "en-us") != RE_OK)
        return RE_ERR_NOMEM;
    xmlNodePtr head = re_html_element(&b, b.root, "head", NULL);
    xmlNodePtr meta = re_html_element(&b, head, "meta", NULL);
    re_html_attribute(&b, meta, "charset", "utf-8");
    meta = re_html_element(&b, head, "meta", NULL);
    re_html_attribute(&b, meta, "name", "viewport");
    re_html_attribute(&b, meta, "content", "width=device-width, initial-scale=1");
    re_html_text_element(&b, head, "title", NULL, show->title);
    xmlNodePtr icon = re_html_element(&b, head, "link", NULL);   /* no request for /favicon.ico */
    re_html_attribute(&b, icon, "rel", "icon");
    re_html_attribute(&b, icon, "href", "data:,");
    char *feed_href = feed_name ? re_html_file_href(feed_name, NULL) : NULL;
    if (feed_name && !feed_href)
        b.failed = 1;
    if (feed_href) {
        xmlNodePtr alternate = re_html_element(&b, head, "link", NULL);
        re_html_attribute(&b, alternate, "rel", "alternate");
        re_html_attribute(&b, alternate, "type", "application/rss+xml");
        re_html_attribute(&b, alternate, "title", show->title);
        re_html_attribute(&b, alternate, "href", feed_href);
    }
    meta = re_html_element(&b, head, "meta", NULL);
    re_html_attribute(&b, meta, "name", "generator");
    re_html_attribute(&b, meta, "content", "render-episode " RE_VERSION);
    xmlNodePtr style = re_html_element(&b, head, "style", NULL);
    re_html_raw_text(&b, style, index_style, strlen(index_style));

    xmlNodePtr content = re_html_element(&b, re_html_element(&b, b.root, "body", NULL), "main", NULL);
    xmlNodePtr header = re_html_element(&b, content, "header", "show");
    /* the cover when it is a file of the folder (a remote one would be a request elsewhere) */
    char *cover_href = show->image && !strstr(show->image, "://")
                       ? re_html_file_href(show->image, NULL) : NULL;
    if (show->image && !strstr(show->image, "://") && !cover_href)
        b.failed = 1;
    if (cover_href)   /* alt "": the title beside it names the show */
        re_html_cover_image(&b, header, cover_href, "", 144);
    free(cover_href);
    re_html_text_element(&b, header, "h1", NULL, show->title);
    if (show->description)
        re_html_text_element(&b, content, "p", "description", show->description);
    if (feed_href) {
        xmlNodePtr p = re_html_element(&b, content, "p", "feed");
        xmlNodePtr link = re_html_text_element(&b, p, "a", NULL, "Subscribe: the podcast feed (RSS)");
        re_html_attribute(&b, link, "href", feed_href);
    }
    free(feed_href);
    xmlNodePtr list = re_html_element(&b, content, "ol", "episodes");
    for (size_t i = 0; i < feed->count && !b.failed; i++)
        build_episode(&b, list, &feed->episodes[i], has_page && has_page[i],
                      show->language ? show->language : "en-us");
    return re_html_document_write(&b, out);
}

re_status re_folder_index_publish(const re_feed *feed, const char *dir, const char *feed_name,
                                  re_diagnostics *diag)
{
    char *target = re_path_join(dir, RE_FOLDER_INDEX_NAME);
    unsigned char *has_page = calloc(feed->count ? feed->count : 1, 1);
    re_status status = target && has_page ? RE_OK : RE_ERR_NOMEM;
    /* only a page the sidecar lists as written by the render that made the audio, unchanged
     * (re_feed_scan's RE_ASSET_PAGE): a STEM.html left by an earlier render is stale */
    for (size_t i = 0; status == RE_OK && i < feed->count; i++)
        has_page[i] = (feed->episodes[i].assets & RE_ASSET_PAGE) != 0;
    re_output *out = NULL;
    if (status == RE_OK)
        status = re_output_open(target, &out, diag);
    if (status == RE_OK) {
        status = re_folder_index_write(re_output_stream(out), feed, has_page, feed_name);
        if (status == RE_OK) {
            status = re_output_commit(out, diag);
        } else {
            re_output_discard(out);
            re_diag_add(diag, target, 0, 0, "cannot write the index: %s", re_strerror(status));
        }
    } else if (status == RE_ERR_NOMEM) {
        re_diag_add(diag, target ? target : dir, 0, 0, "out of memory");
    }
    free(has_page);
    free(target);
    return status;
}
