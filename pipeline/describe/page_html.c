/* page_html.c - the episode page in HTML (see page.h, docs/feed.md): a libxml2 HTML tree,
 * written by libxml2's serializer, which does every escape. */
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <libxml/xmlIO.h>

#include "disclosure.h"
#include "duration.h"
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

typedef struct page_builder {
    xmlDocPtr doc;
    int failed;   /* an allocation failed: every later call does nothing */
} page_builder;

static void attribute(page_builder *b, xmlNodePtr node, const char *name, const char *value)
{
    if (!b->failed && !xmlNewProp(node, BAD_CAST name, BAD_CAST value))
        b->failed = 1;
}

static void add_child(page_builder *b, xmlNodePtr parent, xmlNodePtr child)
{
    if (b->failed || !child || !parent || !xmlAddChild(parent, child)) {
        xmlFreeNode(child);
        b->failed = 1;
    }
}

/* A new element at the end of parent (with a class when class_name is not NULL); NULL once
 * anything failed. */
static xmlNodePtr element(page_builder *b, xmlNodePtr parent, const char *name,
                          const char *class_name)
{
    if (b->failed)
        return NULL;
    xmlNodePtr node = xmlNewDocNode(b->doc, NULL, BAD_CAST name, NULL);
    add_child(b, parent, node);
    if (b->failed)
        return NULL;
    if (class_name)
        attribute(b, node, "class", class_name);
    return node;
}

static void raw_text(page_builder *b, xmlNodePtr parent, const char *s, size_t n)
{
    if (!b->failed && n > 0)
        add_child(b, parent, xmlNewDocTextLen(b->doc, BAD_CAST s, (int)n));
}

/* Text from the script: a colon right after the word "duration" is written as the character
 * reference &#58;, so that the page's only duration claims are its own (docs/check.md). */
static void text(page_builder *b, xmlNodePtr parent, const char *s)
{
    size_t from = 0, n = strlen(s);
    for (size_t i = 0; i < n && !b->failed; i++) {
        if (s[i] != ':' || !page_ends_with_duration(s, i))
            continue;
        raw_text(b, parent, s + from, i - from);
        if (!b->failed)
            add_child(b, parent, xmlNewCharRef(b->doc, BAD_CAST "&#58;"));
        from = i + 1;
    }
    raw_text(b, parent, s + from, n - from);
}

static xmlNodePtr text_element(page_builder *b, xmlNodePtr parent, const char *name,
                               const char *class_name, const char *s)
{
    xmlNodePtr node = element(b, parent, name, class_name);
    if (node)
        text(b, node, s);
    return node;
}

/* "2 min 53 s", "1 h 0 min 5 s", "45 s". */
static void human_duration(uint64_t seconds, char *buf, size_t size)
{
    unsigned long long s = (unsigned long long)seconds;
    if (s >= 3600)
        snprintf(buf, size, "%llu h %llu min %llu s", s / 3600, s / 60 % 60, s % 60);
    else if (s >= 60)
        snprintf(buf, size, "%llu min %llu s", s / 60, s % 60);
    else
        snprintf(buf, size, "%llu s", s);
}

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
static void json_ld(page_builder *b, xmlNodePtr head, const re_episode *ep, const char *iso,
                    const char *audio_name)
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
        bad = bad || !series || json_set(series, "@type", json_string("PodcastSeries")) != 0
              || json_set(series, "name", json_string(ep->show)) != 0;
        bad = bad || json_set(episode, "partOfSeries", series) != 0;
    }
    bad = bad || json_set(episode, "inLanguage", json_string(ep->language ? ep->language : "en-us")) != 0;
    bad = bad || json_set(episode, "duration", json_string(iso)) != 0;
    bad = bad || json_set(media, "@type", json_string("AudioObject")) != 0
          || json_set(media, "contentUrl", json_string(audio_name)) != 0
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
    xmlNodePtr script = element(b, head, "script", NULL);
    attribute(b, script, "type", "application/ld+json");
    raw_text(b, script, dumped, strlen(dumped));
    free(dumped);
}

static void build_head(page_builder *b, xmlNodePtr html, const re_episode *ep, const char *iso,
                       const char *audio_name)
{
    xmlNodePtr head = element(b, html, "head", NULL);
    xmlNodePtr meta = element(b, head, "meta", NULL);
    attribute(b, meta, "charset", "utf-8");
    meta = element(b, head, "meta", NULL);
    attribute(b, meta, "name", "viewport");
    attribute(b, meta, "content", "width=device-width, initial-scale=1");
    text_element(b, head, "title", NULL, ep->title);
    xmlNodePtr icon = element(b, head, "link", NULL);   /* no request for /favicon.ico */
    attribute(b, icon, "rel", "icon");
    attribute(b, icon, "href", "data:,");
    if (ep->summary) {
        meta = element(b, head, "meta", NULL);
        attribute(b, meta, "name", "description");
        attribute(b, meta, "content", ep->summary);
    }
    meta = element(b, head, "meta", NULL);
    attribute(b, meta, "name", "generator");
    attribute(b, meta, "content", "render-episode " RE_VERSION);
    xmlNodePtr style = element(b, head, "style", NULL);
    raw_text(b, style, page_style, strlen(page_style));
    json_ld(b, head, ep, iso, audio_name);
}

/* Show · Episode N · published · author, the parts that are known. */
static void build_meta_line(page_builder *b, xmlNodePtr article, const re_episode *ep)
{
    if (!ep->show && ep->episode_number < 0 && !ep->published && !ep->author)
        return;
    xmlNodePtr p = element(b, article, "p", "meta");
    const char *sep = "";
    if (ep->show) {
        text(b, p, ep->show);
        sep = " · ";
    }
    if (ep->episode_number >= 0) {
        char number[48];
        snprintf(number, sizeof number, "%sEpisode %ld", sep, ep->episode_number);
        raw_text(b, p, number, strlen(number));
        sep = " · ";
    }
    if (ep->published) {
        raw_text(b, p, sep, strlen(sep));
        xmlNodePtr time = text_element(b, p, "time", NULL, ep->published);
        attribute(b, time, "datetime", ep->published);
        sep = " · ";
    }
    if (ep->author) {
        raw_text(b, p, sep, strlen(sep));
        raw_text(b, p, "by ", 3);
        text(b, p, ep->author);
    }
}

/* The speakers' display names, each once, in the order of the profiles. */
static void build_speakers(page_builder *b, xmlNodePtr article, const re_render_facts *facts)
{
    if (facts->voice_count == 0 || !facts->voices)
        return;
    xmlNodePtr p = element(b, article, "p", "speakers");
    const char *label = facts->voice_count == 1 ? "Voice: " : "Voices: ";
    raw_text(b, p, label, strlen(label));
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
            raw_text(b, p, ", ", 2);
        text_element(b, p, "span", "speaker", name);
    }
}

static void build_chapters(page_builder *b, xmlNodePtr article, const re_render_facts *facts,
                           const char *audio_name)
{
    xmlNodePtr section = element(b, article, "section", "chapters");
    text_element(b, section, "h2", NULL, "Chapters");
    xmlNodePtr list = element(b, section, "ol", NULL);
    for (size_t i = 0; i < facts->chapter_count && !b->failed; i++) {
        uint64_t ms = re_samples_to_ms(facts->chapters[i].start, facts->sample_rate);
        char at[32], seconds[48], href[4096];
        page_clock_text(ms, at, sizeof at);
        seconds_text(ms, seconds, sizeof seconds);
        if ((size_t)snprintf(href, sizeof href, "%s#t=%s", audio_name, seconds) >= sizeof href) {
            b->failed = 1;
            break;
        }
        xmlNodePtr item = element(b, list, "li", NULL);
        xmlNodePtr link = text_element(b, item, "a", NULL, at);
        attribute(b, link, "href", href);
        attribute(b, link, "data-start", seconds);
        raw_text(b, item, " ", 1);
        text(b, item, facts->chapters[i].title ? facts->chapters[i].title : "");
    }
}

static int same_speaker(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* One paragraph per speaker turn or chapter, opened by the speaker's name when the cue has
 * one; each cue a span whose id is its WebVTT cue identifier ("cue-" N). */
static void build_transcript(page_builder *b, xmlNodePtr article, const re_render_facts *facts,
                             const re_transcript *t)
{
    xmlNodePtr section = element(b, article, "section", "transcript");
    text_element(b, section, "h2", NULL, "Transcript");
    xmlNodePtr p = NULL;
    size_t chapter = 0;
    for (size_t i = 0; i < t->count && !b->failed; i++) {
        const re_cue *cue = &t->cues[i];
        int new_chapter = 0;
        while (chapter + 1 < facts->chapter_count
               && cue->start >= facts->chapters[chapter + 1].start) {
            chapter++;
            new_chapter = 1;
        }
        if (i == 0 || new_chapter || !same_speaker(cue->speaker, t->cues[i - 1].speaker)) {
            p = element(b, section, "p", NULL);
            if (cue->speaker) {
                xmlNodePtr who = text_element(b, p, "b", "speaker", cue->speaker);
                raw_text(b, who, ":", 1);
            }
        }
        if (p && p->children)
            raw_text(b, p, " ", 1);
        char id[32], start[48], end[48];
        snprintf(id, sizeof id, "cue-%zu", i + 1);
        seconds_text(re_cue_start_ms(t, cue), start, sizeof start);
        seconds_text(re_cue_end_ms(t, cue), end, sizeof end);
        xmlNodePtr span = text_element(b, p, "span", "cue", cue->text ? cue->text : "");
        attribute(b, span, "id", id);
        attribute(b, span, "data-start", start);
        attribute(b, span, "data-end", end);
    }
}

static void build_body(page_builder *b, xmlNodePtr html, const re_render_facts *facts,
                       const re_transcript *transcript, const char *iso, const char *audio_name,
                       const char *vtt_name)
{
    const re_episode *ep = facts->episode;
    xmlNodePtr body = element(b, html, "body", NULL);
    xmlNodePtr article = element(b, element(b, body, "main", NULL), "article", NULL);
    text_element(b, article, "h1", NULL, ep->title);
    build_meta_line(b, article, ep);
    if (ep->summary && *ep->summary)
        text_element(b, article, "p", "summary", ep->summary);

    xmlNodePtr audio = element(b, article, "audio", NULL);
    attribute(b, audio, "id", "player");
    attribute(b, audio, "controls", "");
    attribute(b, audio, "preload", "metadata");
    attribute(b, audio, "src", audio_name);
    xmlNodePtr track = element(b, audio, "track", NULL);
    attribute(b, track, "kind", "metadata");
    attribute(b, track, "label", "Transcript");
    attribute(b, track, "src", vtt_name);
    attribute(b, track, "srclang", ep->language ? ep->language : "en-us");
    attribute(b, track, "default", "");

    xmlNodePtr files = element(b, article, "p", "files");
    xmlNodePtr link = text_element(b, files, "a", NULL, "Download the audio");
    attribute(b, link, "href", audio_name);
    raw_text(b, files, " · ", strlen(" · "));
    link = text_element(b, files, "a", NULL, "Transcript (WebVTT)");
    attribute(b, link, "href", vtt_name);

    char human[96];
    human_duration(re_samples_to_seconds(facts->samples, facts->sample_rate), human, sizeof human);
    xmlNodePtr duration = element(b, article, "p", "duration");
    raw_text(b, duration, "Duration: ", strlen("Duration: "));
    xmlNodePtr time = text_element(b, duration, "time", NULL, iso);
    attribute(b, time, "datetime", iso);
    char tail[128];
    snprintf(tail, sizeof tail, " (%s)", human);
    raw_text(b, duration, tail, strlen(tail));

    build_speakers(b, article, facts);
    text_element(b, article, "p", "disclosure", RE_DISCLOSURE_TEXT);
    if (facts->chapter_count > 0)
        build_chapters(b, article, facts, audio_name);
    if (transcript && transcript->count > 0)
        build_transcript(b, article, facts, transcript);
    xmlNodePtr script = element(b, body, "script", NULL);
    raw_text(b, script, page_script, strlen(page_script));
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

    page_builder b = { htmlNewDocNoDtD(NULL, NULL), 0 };
    if (!b.doc)
        return RE_ERR_NOMEM;
    xmlNodePtr html = xmlNewDocNode(b.doc, NULL, BAD_CAST "html", NULL);
    if (!html || !xmlCreateIntSubset(b.doc, BAD_CAST "html", NULL, NULL)) {
        xmlFreeNode(html);
        xmlFreeDoc(b.doc);
        return RE_ERR_NOMEM;
    }
    xmlDocSetRootElement(b.doc, html);
    attribute(&b, html, "lang", ep->language ? ep->language : "en-us");
    build_head(&b, html, ep, iso, audio_name);
    build_body(&b, html, facts, transcript, iso, audio_name, vtt_name);

    /* A UTF-8 buffer without a converter: libxml2's "HTML" output encoding would turn every
     * non-ASCII character into an entity, inside the JSON-LD script too. */
    xmlOutputBufferPtr buf = b.failed ? NULL : xmlAllocOutputBuffer(NULL);
    if (buf)
        htmlDocContentDumpFormatOutput(buf, b.doc, "UTF-8", 1);
    xmlFreeDoc(b.doc);
    const xmlChar *mem = buf && buf->error == 0 ? xmlOutputBufferGetContent(buf) : NULL;
    size_t size = mem ? xmlOutputBufferGetSize(buf) : 0;
    size_t wrote = size > 0 ? fwrite(mem, 1, size, out) : 0;
    if (buf)
        xmlOutputBufferClose(buf);
    if (size == 0)
        return RE_ERR_NOMEM;
    return wrote != size || ferror(out) || fflush(out) == EOF ? RE_ERR_WRITE : RE_OK;
}
