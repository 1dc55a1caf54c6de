/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed_write.c - the RSS 2.0 feed of a completed channel, written with libxml2's
 * xmlTextWriter (see feed.h, docs/feed.md). */
#define _GNU_SOURCE
#include "feed.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "disclosure.h"
#include "duration.h"
#include "html_tree.h"
#include "notes.h"

typedef struct writer {
    xmlTextWriterPtr w;
    int failed;
} writer;

static void check(writer *x, int rc)
{
    if (rc < 0)
        x->failed = 1;
}

static void start(writer *x, const char *name)
{
    check(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
}

static void end(writer *x)
{
    check(x, xmlTextWriterEndElement(x->w));
}

static void attribute(writer *x, const char *name, const char *value)
{
    check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
}

static void element(writer *x, const char *name, const char *text)
{
    check(x, xmlTextWriterWriteElement(x->w, BAD_CAST name, BAD_CAST text));
}

/* Plain text as HTML: readers take <description> and content:encoded for HTML, so the text's
 * own "<", "&" and quotes are written as character references and read back as written
 * (libxml2 then escapes the result once more for XML). NULL when out of memory. */
static char *html_escaped(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '&' ? 5 : *p == '<' || *p == '>' ? 4 : *p == '"' || *p == '\'' ? 5 : 1;
    char *out = malloc(n + 1), *o = out;
    if (!out)
        return NULL;
    for (const char *p = text; *p; p++) {
        const char *ref = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                        : *p == '"' ? "&#34;" : *p == '\'' ? "&#39;" : NULL;
        if (ref) {
            memcpy(o, ref, strlen(ref));
            o += strlen(ref);
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* content:encoded, the show notes as HTML: the summary as a paragraph, then a Markdown
 * script's document, as the episode page shows it (an image a link to it, no raw HTML). */
static void show_notes(writer *x, const re_feed_episode *e)
{
    char *summary = e->summary ? html_escaped(e->summary) : NULL;
    char *cmark = e->notes ? re_html_from_markdown(e->notes) : NULL, *html = NULL;
    char *notes = cmark ? re_notes_html(cmark) : NULL;   /* its safe part: notes.h */
    free(cmark);
    if ((e->summary && !summary) || (e->notes && !notes)
        || asprintf(&html, "%s%s%s%s", summary ? "<p>" : "", summary ? summary : "",
                    summary ? (notes ? "</p>\n" : "</p>") : "", notes ? notes : "") < 0) {
        html = NULL;
        x->failed = 1;
    } else {
        element(x, "content:encoded", html);
    }
    free(summary);
    free(notes);
    free(html);
}

/* <name>TEXT as HTML</name>. */
static void escaped_element(writer *x, const char *name, const char *text)
{
    char *html = html_escaped(text);
    if (!html)
        x->failed = 1;
    else
        element(x, name, html);
    free(html);
}

/* <name url="BASE/FILE" type="TYPE" .../> for a file beside the audio. */
static void file_link(writer *x, const char *base_url, const char *name, const char *stem,
                      const char *suffix, const char *type, const char *language, const char *rel)
{
    char *file = NULL, *url = NULL;
    if (asprintf(&file, "%s%s", stem, suffix) < 0)
        file = NULL;
    if (!file || !(url = re_feed_url(base_url, file))) {
        free(file);
        x->failed = 1;
        return;
    }
    start(x, name);
    attribute(x, "url", url);
    attribute(x, "type", type);
    if (language)
        attribute(x, "language", language);
    if (rel)
        attribute(x, "rel", rel);
    end(x);
    free(url);
    free(file);
}

static void write_channel_head(writer *x, const re_feed *feed)
{
    const re_show *s = &feed->show;
    char generator[64];
    snprintf(generator, sizeof generator, "render-episode %s", RE_VERSION);
    element(x, "title", s->title);
    element(x, "link", s->link);
    escaped_element(x, "description", s->description);
    element(x, "language", s->language);
    if (s->copyright)
        element(x, "copyright", s->copyright);
    element(x, "generator", generator);
    if (feed->count > 0 && feed->episodes[0].dated)
        element(x, "lastBuildDate", feed->episodes[0].pub_date);
    start(x, "atom:link");
    attribute(x, "href", feed->feed_url);
    attribute(x, "rel", "self");
    attribute(x, "type", "application/rss+xml");
    end(x);
    element(x, "podcast:guid", feed->channel_guid);
    element(x, "podcast:medium", s->medium ? s->medium : "podcast");
    if (s->locked >= 0) {
        start(x, "podcast:locked");
        if (s->owner_email)
            attribute(x, "owner", s->owner_email);
        check(x, xmlTextWriterWriteString(x->w, BAD_CAST(s->locked ? "yes" : "no")));
        end(x);
    }
    if (s->disclosure) {
        start(x, "podcast:txt");
        attribute(x, "purpose", "disclosure");
        check(x, xmlTextWriterWriteString(x->w, BAD_CAST RE_DISCLOSURE_TEXT));
        end(x);
    }
    if (feed->image_url) {
        start(x, "image");
        element(x, "url", feed->image_url);
        element(x, "title", s->title);
        element(x, "link", s->link);
        end(x);
        start(x, "itunes:image");
        attribute(x, "href", feed->image_url);
        end(x);
    }
    if (s->author)
        element(x, "itunes:author", s->author);
    if (s->owner_email) {
        start(x, "itunes:owner");
        if (s->owner_name || s->author)
            element(x, "itunes:name", s->owner_name ? s->owner_name : s->author);
        element(x, "itunes:email", s->owner_email);
        end(x);
    }
    if (s->category) {
        start(x, "itunes:category");
        attribute(x, "text", s->category);
        if (s->subcategory) {
            start(x, "itunes:category");
            attribute(x, "text", s->subcategory);
            end(x);
        }
        end(x);
    }
    if (s->explicit_content >= 0)
        element(x, "itunes:explicit", s->explicit_content ? "true" : "false");
    element(x, "itunes:type", s->serial ? "serial" : "episodic");
}

static void write_item(writer *x, const re_feed *feed, const re_feed_episode *e,
                       const char *base_url)
{
    char number[32], length[32], seconds[32];
    char *guid = re_feed_item_guid(e, feed->channel_guid);
    char *url = re_feed_url(base_url, e->audio_name);
    if (!guid || !url) {
        free(guid);
        free(url);
        x->failed = 1;
        return;
    }
    snprintf(length, sizeof length, "%llu", (unsigned long long)e->bytes);
    snprintf(seconds, sizeof seconds, "%llu",
             (unsigned long long)re_samples_to_seconds(e->samples, e->sample_rate));
    start(x, "item");
    element(x, "title", e->title);
    if (e->summary)
        escaped_element(x, "description", e->summary);
    if (e->summary || e->notes)
        show_notes(x, e);
    if (e->assets & RE_ASSET_PAGE) {
        char *file = NULL, *page = NULL;
        if (asprintf(&file, "%s.html", e->stem) < 0 || !(page = re_feed_url(base_url, file)))
            x->failed = 1;
        else
            element(x, "link", page);
        free(file);
        free(page);
    }
    start(x, "guid");
    attribute(x, "isPermaLink", "false");
    check(x, xmlTextWriterWriteString(x->w, BAD_CAST guid));
    end(x);
    if (e->dated)
        element(x, "pubDate", e->pub_date);
    start(x, "enclosure");
    attribute(x, "url", url);
    attribute(x, "length", length);
    attribute(x, "type", "audio/mpeg");
    end(x);
    element(x, "itunes:duration", seconds);
    const char *author = e->author ? e->author : feed->show.author;
    if (author)
        element(x, "itunes:author", author);
    element(x, "itunes:episodeType", re_episode_type_name(e->type));
    if (e->assets & (RE_ASSET_COVER_JPEG | RE_ASSET_COVER_PNG)) {   /* the episode's own cover */
        char *file = NULL, *image = NULL;
        if (re_feed_cover_name(e, &file) != RE_OK || !(image = re_feed_url(base_url, file))) {
            x->failed = 1;
        } else {
            start(x, "itunes:image");
            attribute(x, "href", image);
            end(x);
        }
        free(file);
        free(image);
    }
    if (e->number > 0) {
        snprintf(number, sizeof number, "%ld", e->number);
        element(x, "itunes:episode", number);
    }
    if (e->season > 0) {
        snprintf(number, sizeof number, "%ld", e->season);
        element(x, "itunes:season", number);
        element(x, "podcast:season", number);
    }
    if (e->number > 0) {
        snprintf(number, sizeof number, "%ld", e->number);
        element(x, "podcast:episode", number);
    }
    for (size_t i = 0; i < e->person_count; i++) {
        start(x, "podcast:person");
        attribute(x, "role", e->persons[i].role);
        attribute(x, "group", "cast");
        check(x, xmlTextWriterWriteString(x->w, BAD_CAST e->persons[i].name));
        end(x);
    }
    if (e->assets & RE_ASSET_VTT)
        file_link(x, base_url, "podcast:transcript", e->stem, ".vtt", "text/vtt", e->language,
                  "captions");
    if (e->assets & RE_ASSET_SRT)
        file_link(x, base_url, "podcast:transcript", e->stem, ".srt", "application/x-subrip",
                  e->language, "captions");
    if (e->assets & RE_ASSET_TRANSCRIPT_JSON)
        file_link(x, base_url, "podcast:transcript", e->stem, ".transcript.json",
                  "application/json", e->language, NULL);
    if (e->assets & RE_ASSET_CHAPTERS)
        file_link(x, base_url, "podcast:chapters", e->stem, ".chapters.json",
                  "application/json+chapters", NULL, NULL);
    end(x);
    free(guid);
    free(url);
}

re_status re_feed_write(FILE *out, const re_feed *feed, const char *base_url)
{
    const re_show *s = &feed->show;
    if (!s->title || !s->description || !s->link || !s->language || !feed->feed_url
        || !re_uuid_valid(feed->channel_guid) || !re_feed_base_url_ok(base_url, NULL))
        return RE_ERR_INVALID;
    for (size_t i = 0; i < feed->count; i++)
        if (!feed->episodes[i].title || !feed->episodes[i].stem || !feed->episodes[i].audio_name
            || feed->episodes[i].sample_rate == 0)
            return RE_ERR_INVALID;
    xmlBufferPtr buf = xmlBufferCreate();
    if (!buf)
        return RE_ERR_NOMEM;
    writer x = { xmlNewTextWriterMemory(buf, 0), 0 };
    if (!x.w) {
        xmlBufferFree(buf);
        return RE_ERR_NOMEM;
    }
    check(&x, xmlTextWriterSetIndent(x.w, 1));
    check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST "  "));
    check(&x, xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL));
    if (feed->missing) {   /* a comment may not hold "--": no option name in it */
        char *note = NULL;
        if (asprintf(&note, " DRAFT, not ready to publish (written by render-episode feed as a "
                     "draft): the channel has no %s ", feed->missing) < 0) {
            x.failed = 1;
        } else {
            check(&x, xmlTextWriterWriteComment(x.w, BAD_CAST note));
            free(note);
        }
    }
    start(&x, "rss");
    attribute(&x, "version", "2.0");
    attribute(&x, "xmlns:itunes", RE_ITUNES_NS);
    attribute(&x, "xmlns:podcast", RE_PODCAST_NS);
    attribute(&x, "xmlns:atom", RE_ATOM_NS);
    attribute(&x, "xmlns:content", RE_CONTENT_NS);
    start(&x, "channel");
    write_channel_head(&x, feed);
    int stopped = 0;   /* each item renders its show notes: a stop is seen between two */
    for (size_t i = 0; i < feed->count && !x.failed && !stopped; i++) {
        stopped = feed->stop && *feed->stop;
        if (!stopped)
            write_item(&x, feed, &feed->episodes[i], base_url);
    }
    check(&x, xmlTextWriterEndDocument(x.w));   /* closes every open element */
    xmlFreeTextWriter(x.w);                     /* flushes into buf */
    re_status st = stopped ? RE_ERR_INTERRUPTED : x.failed ? RE_ERR_NOMEM : RE_OK;
    if (st == RE_OK) {
        size_t n = (size_t)xmlBufferLength(buf);
        if (fwrite(xmlBufferContent(buf), 1, n, out) != n || fflush(out) == EOF || ferror(out))
            st = RE_ERR_WRITE;
    }
    xmlBufferFree(buf);
    return st;
}
