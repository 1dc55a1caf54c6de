/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page_html.c - the episode page in HTML (see page.h, docs/feed.md): a libxml2 HTML tree,
 * written by libxml2's serializer, which does every escape. */
#define _GNU_SOURCE
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#include <jansson.h>
#include <libxml/HTMLparser.h>

#include "disclosure.h"
#include "duration.h"
#include "html_tree.h"
#include "page_text.h"

/* Kept small and without a network fetch; the page reads the same without it. */
static const char page_style[] =
    "body{font-family:system-ui,sans-serif;line-height:1.5;max-width:42em;margin:0 auto;"
    "padding:1em;color:#222;background:#fff}"
    "audio{width:100%}"
    ".meta,.disclosure{color:#555}"
    ".disclosure{font-size:.9em;border-left:3px solid #aaa;padding-left:.6em}"
    ".chapters a{font-variant-numeric:tabular-nums}"
    ".cue.now{background:#ffe58a}";

/* Chapter links seek the player (their href, a media fragment, opens the audio at that time
 * where this does not run); the cue the player is in is highlighted, from the WebVTT track. */
static const char page_script[] =
    "(function () {\n"
    "  \"use strict\";\n"
    "  var audio = document.getElementById(\"player\");\n"
    "  if (!audio) return;\n"
    "  var links = document.querySelectorAll(\"a[data-start]\");\n"
    "  for (var i = 0; i < links.length; i++) {\n"
    "    links[i].addEventListener(\"click\", function (event) {\n"
    "      event.preventDefault();\n"
    "      audio.currentTime = parseFloat(this.getAttribute(\"data-start\"));\n"
    "      var playing = audio.play();\n"
    "      if (playing && playing.catch) playing.catch(function () {});\n"
    "    });\n"
    "  }\n"
    "  var element = audio.querySelector(\"track\");\n"
    "  var track = element && element.track;\n"
    "  if (!track) return;\n"
    "  var current = null;\n"
    "  track.mode = \"hidden\";\n"
    "  track.addEventListener(\"cuechange\", function () {\n"
    "    var active = track.activeCues;\n"
    "    var next = active && active.length\n"
    "      ? document.getElementById(\"cue-\" + active[active.length - 1].id) : null;\n"
    "    if (next === current) return;\n"
    "    if (current) {\n"
    "      current.classList.remove(\"now\");\n"
    "      current.removeAttribute(\"aria-current\");\n"
    "    }\n"
    "    if (next) {\n"
    "      next.classList.add(\"now\");\n"
    "      next.setAttribute(\"aria-current\", \"true\");\n"
    "    }\n"
    "    current = next;\n"
    "  });\n"
    "})();\n";

/* "65.123": seconds with milliseconds, for media fragments and data-start. */
static void seconds_text(uint64_t ms, char *buf, size_t size)
{
    snprintf(buf, size, "%llu.%03llu", (unsigned long long)(ms / 1000),
             (unsigned long long)(ms % 1000));
}

static int json_set(json_t *object, const char *key, json_t *value)
{
    return value ? json_object_set_new(object, key, value) : -1;
}

/* schema.org PodcastEpisode, for search engines; its `duration` is a claim `check` reads. */
static void json_ld(html_builder *b, xmlNodePtr head, const re_episode *ep, const char *iso,
                    const char *audio_href)
{
    json_t *episode = json_object(), *media = json_object();
    int bad = !episode || !media;
    bad = bad || json_set(episode, "@context", json_string("https://schema.org")) != 0;
    bad = bad || json_set(episode, "@type", json_string("PodcastEpisode")) != 0;
    bad = bad || json_set(episode, "name", json_string(ep->title)) != 0;
    if (ep->summary)
        bad = bad || json_set(episode, "description", json_string(ep->summary)) != 0;
    if (ep->published)
        bad = bad || json_set(episode, "datePublished", json_string(ep->published)) != 0;
    if (ep->episode_number >= 0)
        bad = bad || json_set(episode, "episodeNumber", json_integer(ep->episode_number)) != 0;
    if (ep->show) {
        json_t *series = json_object();
        int made = series && json_set(series, "@type", json_string("PodcastSeries")) == 0
                   && json_set(series, "name", json_string(ep->show)) == 0;
        if (!bad && made) {
            bad = json_set(episode, "partOfSeries", series) != 0;   /* takes series */
        } else {
            json_decref(series);
            bad = 1;
        }
    }
    const char *language = ep->language ? ep->language : "en-us";
    bad = bad || json_set(episode, "inLanguage", json_string(language)) != 0;
    bad = bad || json_set(episode, "duration", json_string(iso)) != 0;
    bad = bad || json_set(media, "@type", json_string("AudioObject")) != 0
          || json_set(media, "contentUrl", json_string(audio_href)) != 0
          || json_set(media, "duration", json_string(iso)) != 0;
    bad = bad || json_object_set(episode, "associatedMedia", media) != 0;
    /* "\/" for every slash: the text can never close the script element */
    char *dumped = bad ? NULL : json_dumps(episode, JSON_INDENT(2) | JSON_ESCAPE_SLASH);
    json_decref(media);
    json_decref(episode);
    if (!dumped) {
        b->failed = 1;
        return;
    }
    /* and "\u003c" for every '<' (only strings can hold one): "<!--" and "<script" in a
     * title would put an HTML parser in the script's "double escaped" state, in which the
     * real end tag does not end the script, and the page's body would become its text */
    size_t n = 0, angles = 0;
    for (; dumped[n]; n++)
        angles += dumped[n] == '<';
    char *safe = malloc(n + 5 * angles + 1), *o = safe;
    for (size_t i = 0; safe && i <= n; i++) {
        if (dumped[i] == '<') {
            memcpy(o, "\\u003c", 6);
            o += 6;
        } else {
            *o++ = dumped[i];
        }
    }
    free(dumped);
    if (!safe) {
        b->failed = 1;
        return;
    }
    xmlNodePtr script = html_element(b, head, "script", NULL);
    html_attribute(b, script, "type", "application/ld+json");
    html_raw_text(b, script, safe, strlen(safe));
    free(safe);
}

static void build_head(html_builder *b, xmlNodePtr html, const re_episode *ep, const char *iso,
                       const char *audio_href)
{
    xmlNodePtr head = html_element(b, html, "head", NULL);
    xmlNodePtr meta = html_element(b, head, "meta", NULL);
    html_attribute(b, meta, "charset", "utf-8");
    meta = html_element(b, head, "meta", NULL);
    html_attribute(b, meta, "name", "viewport");
    html_attribute(b, meta, "content", "width=device-width, initial-scale=1");
    html_text_element(b, head, "title", NULL, ep->title);
    xmlNodePtr icon = html_element(b, head, "link", NULL);   /* no request for /favicon.ico */
    html_attribute(b, icon, "rel", "icon");
    html_attribute(b, icon, "href", "data:,");
    if (ep->summary) {
        meta = html_element(b, head, "meta", NULL);
        html_attribute(b, meta, "name", "description");
        html_attribute(b, meta, "content", ep->summary);
    }
    meta = html_element(b, head, "meta", NULL);
    html_attribute(b, meta, "name", "generator");
    html_attribute(b, meta, "content", "render-episode " RE_VERSION);
    xmlNodePtr style = html_element(b, head, "style", NULL);
    html_raw_text(b, style, page_style, strlen(page_style));
    json_ld(b, head, ep, iso, audio_href);
}

/* Show · Episode N · published · author, the parts that are known. */
static void build_meta_line(html_builder *b, xmlNodePtr article, const re_episode *ep)
{
    if (!ep->show && ep->episode_number < 0 && !ep->published && !ep->author)
        return;
    xmlNodePtr p = html_element(b, article, "p", "meta");
    const char *sep = "";
    if (ep->show) {
        html_text(b, p, ep->show);
        sep = " · ";
    }
    if (ep->episode_number >= 0) {
        char number[48];
        snprintf(number, sizeof number, "%sEpisode %ld", sep, ep->episode_number);
        html_raw_text(b, p, number, strlen(number));
        sep = " · ";
    }
    if (ep->published) {
        html_raw_text(b, p, sep, strlen(sep));
        xmlNodePtr time = html_text_element(b, p, "time", NULL, ep->published);
        html_attribute(b, time, "datetime", ep->published);
        sep = " · ";
    }
    if (ep->author) {
        html_raw_text(b, p, sep, strlen(sep));
        html_raw_text(b, p, "by ", 3);
        html_text(b, p, ep->author);
    }
}

/* The speakers' display names, each once, in the order of the profiles. */
static void build_speakers(html_builder *b, xmlNodePtr article, const re_render_facts *facts)
{
    if (facts->voice_count == 0 || !facts->voices)
        return;
    xmlNodePtr p = html_element(b, article, "p", "speakers");
    const char *label = facts->voice_count == 1 ? "Voice: " : "Voices: ";
    html_raw_text(b, p, label, strlen(label));
    size_t shown = 0;
    for (size_t i = 0; i < facts->voice_count; i++) {
        const re_voice_profile *v = facts->voices[i];
        const char *name = v && v->speaker ? v->speaker : v ? v->name : NULL;
        int seen = 0;
        for (size_t j = 0; j < i && name; j++) {
            const re_voice_profile *w = facts->voices[j];
            const char *other = w && w->speaker ? w->speaker : w ? w->name : NULL;
            seen |= other && strcmp(other, name) == 0;
        }
        if (!name || seen)
            continue;
        if (shown++)
            html_raw_text(b, p, ", ", 2);
        html_text_element(b, p, "span", "speaker", name);
    }
}

static void build_chapters(html_builder *b, xmlNodePtr article, const re_render_facts *facts,
                           const char *audio_href)
{
    xmlNodePtr section = html_element(b, article, "section", "chapters");
    html_text_element(b, section, "h2", NULL, "Chapters");
    xmlNodePtr list = html_element(b, section, "ol", NULL);
    for (size_t i = 0; i < facts->chapter_count && !b->failed; i++) {
        uint64_t ms = re_samples_to_ms(facts->chapters[i].start, facts->sample_rate);
        char at[32], seconds[48], href[4096];
        page_clock_text(ms, at, sizeof at);
        seconds_text(ms, seconds, sizeof seconds);
        if ((size_t)snprintf(href, sizeof href, "%s#t=%s", audio_href, seconds) >= sizeof href) {
            b->failed = 1;
            break;
        }
        xmlNodePtr item = html_element(b, list, "li", NULL);
        xmlNodePtr link = html_text_element(b, item, "a", NULL, at);
        html_attribute(b, link, "href", href);
        html_attribute(b, link, "data-start", seconds);
        html_raw_text(b, item, " ", 1);
        html_text(b, item, facts->chapters[i].title ? facts->chapters[i].title : "");
    }
}

/* One paragraph per speaker turn or chapter, opened by the speaker's name when the cue has
 * one; each cue a span whose id is its WebVTT cue identifier ("cue-" N). */
static void build_transcript(html_builder *b, xmlNodePtr article, const re_render_facts *facts,
                             const re_transcript *t)
{
    xmlNodePtr section = html_element(b, article, "section", "transcript");
    html_text_element(b, section, "h2", NULL, "Transcript");
    xmlNodePtr p = NULL;
    size_t chapter = 0;
    for (size_t i = 0; i < t->count && !b->failed; i++) {
        const re_cue *cue = &t->cues[i];
        if (page_cue_opens_paragraph(facts, t, i, &chapter)) {
            p = html_element(b, section, "p", NULL);
            if (cue->speaker) {   /* "Name:", the colon guarded like the name's own text */
                char *label = NULL;
                if (asprintf(&label, "%s:", cue->speaker) < 0) {
                    b->failed = 1;
                    break;
                }
                html_text_element(b, p, "b", "speaker", label);
                free(label);
            }
        }
        if (p && p->children)
            html_raw_text(b, p, " ", 1);
        char id[32], start[48], end[48];
        snprintf(id, sizeof id, "cue-%zu", i + 1);
        seconds_text(re_cue_start_ms(t, cue), start, sizeof start);
        seconds_text(re_cue_end_ms(t, cue), end, sizeof end);
        xmlNodePtr span = html_text_element(b, p, "span", "cue", cue->text ? cue->text : "");
        html_attribute(b, span, "id", id);
        html_attribute(b, span, "data-start", start);
        html_attribute(b, span, "data-end", end);
    }
}

/* Copies a fragment libxml2's HTML parser read into the page: elements with their
 * attributes, text through html_text (its duration rule); comments (cmark-gfm's "raw HTML
 * omitted") are dropped. */
static void copy_fragment(html_builder *b, xmlNodePtr parent, xmlNodePtr node, unsigned depth)
{
    for (; node && !b->failed; node = node->next) {
        if (node->type == XML_TEXT_NODE && node->content) {
            html_text(b, parent, (const char *)node->content);
        } else if (node->type == XML_ELEMENT_NODE && depth < 64) {
            xmlNodePtr copy = html_element(b, parent, (const char *)node->name, NULL);
            for (xmlAttrPtr a = node->properties; a && copy; a = a->next) {
                xmlChar *value = xmlNodeListGetString(node->doc, a->children, 1);
                html_attribute(b, copy, (const char *)a->name, value ? (const char *)value : "");
                xmlFree(value);
            }
            if (copy)
                copy_fragment(b, copy, node->children, depth + 1);
        }
    }
}

/* A Markdown script's document as show notes: cmark-gfm's HTML (raw HTML and unsafe links
 * left out: CMARK_OPT_UNSAFE is off), read back by libxml2's HTML parser into the tree. */
static void build_notes(html_builder *b, xmlNodePtr article, const char *notes)
{
    static const char *const names[] = { "table", "strikethrough", "autolink", "tasklist" };
    cmark_gfm_core_extensions_ensure_registered();
    cmark_parser *reader = cmark_parser_new(CMARK_OPT_DEFAULT);
    if (!reader) {
        b->failed = 1;
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        cmark_syntax_extension *ext = cmark_find_syntax_extension(names[i]);
        if (ext)
            cmark_parser_attach_syntax_extension(reader, ext);
    }
    cmark_parser_feed(reader, notes, strlen(notes));
    cmark_node *doc = cmark_parser_finish(reader);
    char *html = doc ? cmark_render_html(doc, CMARK_OPT_DEFAULT,
                                         cmark_parser_get_syntax_extensions(reader)) : NULL;
    cmark_node_free(doc);
    cmark_parser_free(reader);
    size_t len = html ? strlen(html) : 0;
    char *wrapped = html ? malloc(len + 64) : NULL;
    htmlDocPtr fragment = NULL;
    if (wrapped) {
        int n = snprintf(wrapped, len + 64, "<html><body>%s</body></html>", html);
        fragment = htmlReadMemory(wrapped, n, NULL, "UTF-8", HTML_PARSE_NOERROR
                                  | HTML_PARSE_NOWARNING | HTML_PARSE_NONET);
    }
    xmlNodePtr root = fragment ? xmlDocGetRootElement(fragment) : NULL;
    xmlNodePtr fbody = root ? root->children : NULL;
    while (fbody && (fbody->type != XML_ELEMENT_NODE || strcmp((const char *)fbody->name, "body")))
        fbody = fbody->next;
    if (fbody) {
        xmlNodePtr section = html_element(b, article, "section", "notes");
        html_text_element(b, section, "h2", NULL, "Show notes");
        copy_fragment(b, section, fbody->children, 0);
    } else if (len > 0) {
        b->failed = 1;
    }
    xmlFreeDoc(fragment);
    free(wrapped);
    free(html);
}

static void build_body(html_builder *b, xmlNodePtr html, const re_render_facts *facts,
                       const re_transcript *transcript, const char *iso, const char *audio_href,
                       const char *vtt_href)
{
    const re_episode *ep = facts->episode;
    xmlNodePtr body = html_element(b, html, "body", NULL);
    xmlNodePtr article = html_element(b, html_element(b, body, "main", NULL), "article", NULL);
    html_text_element(b, article, "h1", NULL, ep->title);
    build_meta_line(b, article, ep);
    if (ep->summary && *ep->summary)
        html_text_element(b, article, "p", "summary", ep->summary);

    xmlNodePtr audio = html_element(b, article, "audio", NULL);
    html_attribute(b, audio, "id", "player");
    html_attribute(b, audio, "controls", "");
    html_attribute(b, audio, "preload", "metadata");
    html_attribute(b, audio, "src", audio_href);
    xmlNodePtr track = html_element(b, audio, "track", NULL);
    html_attribute(b, track, "kind", "metadata");
    html_attribute(b, track, "label", "Transcript");
    html_attribute(b, track, "src", vtt_href);
    html_attribute(b, track, "srclang", ep->language ? ep->language : "en-us");
    html_attribute(b, track, "default", "");

    xmlNodePtr files = html_element(b, article, "p", "files");
    xmlNodePtr link = html_text_element(b, files, "a", NULL, "Download the audio");
    html_attribute(b, link, "href", audio_href);
    html_raw_text(b, files, " · ", strlen(" · "));
    link = html_text_element(b, files, "a", NULL, "Transcript (WebVTT)");
    html_attribute(b, link, "href", vtt_href);

    char human[96];
    page_duration_words(re_samples_to_seconds(facts->samples, facts->sample_rate), human,
                        sizeof human);
    xmlNodePtr duration = html_element(b, article, "p", "duration");
    html_raw_text(b, duration, "Duration: ", strlen("Duration: "));
    xmlNodePtr time = html_text_element(b, duration, "time", NULL, iso);
    html_attribute(b, time, "datetime", iso);
    char tail[128];
    snprintf(tail, sizeof tail, " (%s)", human);
    html_raw_text(b, duration, tail, strlen(tail));

    build_speakers(b, article, facts);
    html_text_element(b, article, "p", "disclosure", RE_DISCLOSURE_TEXT);
    if (facts->chapter_count > 0)
        build_chapters(b, article, facts, audio_href);
    if (facts->episode->notes && *facts->episode->notes)
        build_notes(b, article, facts->episode->notes);
    if (transcript && transcript->count > 0)
        build_transcript(b, article, facts, transcript);
    xmlNodePtr script = html_element(b, body, "script", NULL);
    html_raw_text(b, script, page_script, strlen(page_script));
}

re_status re_page_write_html(FILE *out, const re_render_facts *facts,
                             const re_transcript *transcript, const char *audio_name,
                             const char *vtt_name)
{
    if (!out || !facts || !facts->episode || !facts->episode->title || facts->sample_rate == 0
        || (facts->chapter_count > 0 && !facts->chapters) || !audio_name || !vtt_name)
        return RE_ERR_INVALID;
    const re_episode *ep = facts->episode;
    char iso[RE_DURATION_ISO_MAX];
    re_duration_format_iso(re_samples_to_seconds(facts->samples, facts->sample_rate), iso);

    /* the files are named by relative URLs: a name like "javascript:x.mp3" or "a#b.mp3" is
     * still a path to that file */
    char *audio_href = html_file_href(audio_name, NULL), *vtt_href = html_file_href(vtt_name, NULL);
    html_builder b;
    re_status status = audio_href && vtt_href ? html_document_new(&b, ep->language ? ep->language
                                                                                  : "en-us")
                                              : RE_ERR_NOMEM;
    if (status == RE_OK) {
        build_head(&b, b.root, ep, iso, audio_href);
        build_body(&b, b.root, facts, transcript, iso, audio_href, vtt_href);
        status = html_document_write(&b, out);
    }
    free(audio_href);
    free(vtt_href);
    return status;
}
