/* SPDX-License-Identifier: GPL-3.0-or-later */
/* page_html.c - the episode page in HTML (see page.h, docs/feed.md): a libxml2 HTML tree,
 * written by libxml2's serializer, which does every escape. */
#define _GNU_SOURCE
#include "page.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "disclosure.h"
#include "datetime.h"
#include "duration.h"
#include "html_tree.h"
#include "notes.h"
#include "folder_index.h"
#include "page_nav.h"
#include "page_text.h"

/* Kept small and without a network fetch; the page reads the same without it. Long words,
 * URLs and hashes wrap (overflow-wrap: anywhere), so that nothing scrolls sideways at
 * 320 px; the colours hold WCAG AA contrast in both schemes. */
static const char page_style[] =
    ":root{color-scheme:light dark;--fg:#1f1f1f;--bg:#fff;--muted:#555;--link:#0b57d0;"
    "--line:#c4c4c4;--now:#ffe58a;--now-fg:#1f1f1f;--panel:#f3f3f3}"
    "@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#121212;--muted:#b8b8b8;"
    "--link:#9ec1ff;--line:#5c5c5c;--now:#5a4a00;--now-fg:#fff;--panel:#1e1e1e}}"
    "*{box-sizing:border-box}"
    "body{font-family:system-ui,sans-serif;line-height:1.5;max-width:42em;margin:0 auto;"
    "padding:1em;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}"
    "a{color:var(--link)}"
    "img,video,table,pre{max-width:100%}"
    "pre{overflow-x:auto;white-space:pre-wrap}"
    "table{display:block;overflow-x:auto}"
    "header.episode{display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start}"
    "header.episode .cover{width:9em;height:9em;object-fit:cover;border-radius:.4em}"
    "header.episode .titles{flex:1 1 14em;min-width:0}"
    "h1{margin:.1em 0;font-size:1.6em;line-height:1.25}"
    ".show,.meta,.disclosure,.files,.at{color:var(--muted)}"
    ".show{margin:0;font-weight:600}"
    ".disclosure{font-size:.9em;border-left:3px solid var(--line);padding-left:.6em}"
    "audio{width:100%}"
    ".player{background:var(--panel);border-radius:.5em;padding:.6em .8em;margin:1em 0}"
    ".player .buttons{display:flex;flex-wrap:wrap;gap:.4em;align-items:center}"
    ".player button,.player select{font:inherit;min-height:2.75em;padding:0 .8em;"
    "border:1px solid var(--line);border-radius:.4em;background:var(--bg);color:var(--fg)}"
    ".player button.play{min-width:5.5em;font-weight:600}"
    ".player label{margin-left:auto}"
    ".scrub{position:relative;margin:.6em 0 .2em}"
    ".scrub input{width:100%;margin:0;display:block}"
    ".marks{position:relative;height:.6em}"
    ".mark{position:absolute;top:0;width:2px;height:.6em;background:var(--muted);"
    "margin-left:-1px}"
    ".mark.now{background:var(--link);width:4px;margin-left:-2px}"
    ".status{margin:.2em 0;font-variant-numeric:tabular-nums}"
    ".moment{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.4em 0 0}"
    ".moment input{flex:1 1 12em;min-width:0;font:inherit;color:var(--fg);"
    "background:var(--bg);border:1px solid var(--line)}"
    ".chapters ol{padding-left:1.6em}"
    ".chapters li[aria-current] a{font-weight:700}"
    ".at{font-variant-numeric:tabular-nums}"
    ".transcript h3{font-size:1.05em;margin:1.4em 0 .3em}"
    ".cue a{color:inherit;text-decoration:none}"
    ".cue a:hover,.cue a:focus{text-decoration:underline}"
    ".cue.now{background:var(--now);color:var(--now-fg)}";

/* The custom player over <audio> (shown only when this runs: without it the browser's own
 * controls stay), chapter and cue links that seek it, #t= in the address, the link to this
 * moment, and the cue under the player highlighted and kept in view while playing. */
static const char page_script[] =
    "(function () {\n"
    "  \"use strict\";\n"
    "  var audio = document.getElementById(\"player\");\n"
    "  if (!audio) return;\n"
    "  function $(id) { return document.getElementById(id); }\n"
    "  function clock(t) {\n"
    "    t = Math.floor(t > 0 ? t : 0);\n"
    "    var h = Math.floor(t / 3600), m = Math.floor(t / 60) % 60, s = t % 60;\n"
    "    return (h ? h + \":\" + (m < 10 ? \"0\" : \"\") : \"\") + m + \":\" + (s < 10 ? \"0\" : \"\") + s;\n"
    "  }\n"
    "  var controls = $(\"controls\"), play = $(\"play\"), scrubber = $(\"scrubber\"), speed = $(\"speed\");\n"
    "  var where = $(\"clock\"), chapterNow = $(\"chapter-now\");\n"
    "  var length = parseFloat(scrubber.max), lengthText = where.getAttribute(\"data-length\");\n"
    "  var chapters = Array.prototype.map.call(\n"
    "    document.querySelectorAll(\".chapters a[data-start]\"), function (a) {\n"
    "      return { start: parseFloat(a.getAttribute(\"data-start\")), title: a.textContent,\n"
    "               item: a.parentNode };\n"
    "    });\n"
    "  var marks = document.querySelectorAll(\".mark\");\n"
    "  var follow = true, current = null, chapter = -1, dragging = false;\n"
    "\n"
    "  function start(promise) { if (promise && promise.catch) promise.catch(function () {}); }\n"
    "  function seek(t, andPlay) {\n"
    "    audio.currentTime = Math.max(0, Math.min(t, length));\n"
    "    follow = true;\n"
    "    if (andPlay) start(audio.play());\n"
    "  }\n"
    "  function inView(element) {\n"
    "    var r = element.getBoundingClientRect();\n"
    "    return r.bottom > 0 && r.top < window.innerHeight;\n"
    "  }\n"
    "  function keepInView() {\n"
    "    if (current && follow && !audio.paused && !inView(current))\n"
    "      current.scrollIntoView({ block: \"center\" });\n"
    "  }\n"
    "  function showChapter(t) {\n"
    "    var k = -1;\n"
    "    for (var i = 0; i < chapters.length; i++)\n"
    "      if (chapters[i].start <= t + 0.0005) k = i;\n"
    "    if (k === chapter) return;\n"
    "    if (chapter >= 0) {\n"
    "      chapters[chapter].item.removeAttribute(\"aria-current\");\n"
    "      if (marks[chapter]) marks[chapter].classList.remove(\"now\");\n"
    "    }\n"
    "    if (k >= 0) {\n"
    "      chapters[k].item.setAttribute(\"aria-current\", \"true\");\n"
    "      if (marks[k]) marks[k].classList.add(\"now\");\n"
    "    }\n"
    "    chapter = k;\n"
    "    if (chapterNow) chapterNow.textContent = k >= 0 ? chapters[k].title : \"\";\n"
    "  }\n"
    "  function showTime() {\n"
    "    var t = audio.currentTime;\n"
    "    if (!dragging) scrubber.value = t;\n"
    "    /* the length as the header states it (data-length); the position in whole seconds\n"
    "     * played, and at the end the length itself */\n"
    "    var text = (t >= length - 0.0005 ? lengthText : clock(t)) + \" / \" + lengthText;\n"
    "    where.textContent = text;\n"
    "    scrubber.setAttribute(\"aria-valuetext\", text);\n"
    "    showChapter(t);\n"
    "  }\n"
    "\n"
    "  controls.hidden = false;\n"
    "  audio.controls = false;\n"
    "  play.addEventListener(\"click\", function () {\n"
    "    if (audio.paused) start(audio.play()); else audio.pause();\n"
    "  });\n"
    "  audio.addEventListener(\"play\", function () {\n"
    "    play.textContent = \"Pause\";\n"
    "    follow = true;\n"
    "    keepInView();\n"
    "  });\n"
    "  audio.addEventListener(\"pause\", function () { play.textContent = \"Play\"; });\n"
    "  $(\"back\").addEventListener(\"click\", function () { seek(audio.currentTime - 15); });\n"
    "  $(\"forward\").addEventListener(\"click\", function () { seek(audio.currentTime + 30); });\n"
    "  speed.addEventListener(\"change\", function () { audio.playbackRate = parseFloat(speed.value); });\n"
    "  audio.addEventListener(\"ratechange\", function () { speed.value = String(audio.playbackRate); });\n"
    "  scrubber.addEventListener(\"input\", function () {\n"
    "    dragging = true;\n"
    "    seek(parseFloat(scrubber.value));\n"
    "  });\n"
    "  scrubber.addEventListener(\"change\", function () { dragging = false; showTime(); });\n"
    "  audio.addEventListener(\"timeupdate\", showTime);\n"
    "  audio.addEventListener(\"seeked\", showTime);\n"
    "\n"
    "  /* chapter and cue links seek the player instead of leaving the page */\n"
    "  var links = document.querySelectorAll(\"a[data-start], .cue > a\");\n"
    "  for (var i = 0; i < links.length; i++) {\n"
    "    links[i].addEventListener(\"click\", function (event) {\n"
    "      event.preventDefault();\n"
    "      var at = this.getAttribute(\"data-start\") || this.parentNode.getAttribute(\"data-start\");\n"
    "      seek(parseFloat(at), true);\n"
    "    });\n"
    "  }\n"
    "\n"
    "  /* a link to this moment: the page's address with #t=SECONDS */\n"
    "  var moment = $(\"moment\"), momentUrl = $(\"moment-url\"), momentNote = $(\"moment-note\");\n"
    "  moment.addEventListener(\"click\", function () {\n"
    "    var url = location.href.split(\"#\")[0] + \"#t=\" + audio.currentTime.toFixed(1);\n"
    "    momentUrl.value = url;\n"
    "    momentUrl.hidden = false;\n"
    "    momentUrl.select();\n"
    "    var done = function (ok) {\n"
    "      momentNote.textContent = ok ? \"Copied.\" : \"Copy the selected link.\";\n"
    "    };\n"
    "    if (navigator.clipboard && navigator.clipboard.writeText)\n"
    "      navigator.clipboard.writeText(url).then(function () { done(true); },\n"
    "                                              function () { done(false); });\n"
    "    else done(false);\n"
    "  });\n"
    "\n"
    "  /* #t=SECONDS in the address starts the player there */\n"
    "  function fromAddress() {\n"
    "    var m = /(?:^#|&)t=(\\d+(?:\\.\\d+)?)/.exec(location.hash);\n"
    "    if (!m) return;\n"
    "    var t = parseFloat(m[1]);\n"
    "    if (audio.readyState >= 1) seek(t);\n"
    "    else audio.addEventListener(\"loadedmetadata\", function () { seek(t); }, { once: true });\n"
    "  }\n"
    "  window.addEventListener(\"hashchange\", fromAddress);\n"
    "  fromAddress();\n"
    "\n"
    "  /* the reader who scrolls the cue out of view keeps the scroll; scrolling back to it, or\n"
    "   * any seek, makes the transcript follow the player again */\n"
    "  window.addEventListener(\"scroll\", function () {\n"
    "    if (current) follow = inView(current);\n"
    "  }, { passive: true });\n"
    "\n"
    "  var element = audio.querySelector(\"track\");\n"
    "  var track = element && element.track;\n"
    "  showTime();\n"
    "  if (!track) return;\n"
    "  track.mode = \"hidden\";\n"
    "  track.addEventListener(\"cuechange\", function () {\n"
    "    var active = track.activeCues;\n"
    "    var next = active && active.length\n"
    "      ? $(\"cue-\" + active[active.length - 1].id) : null;\n"
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
    "    keepInView();\n"
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
    xmlNodePtr script = re_html_element(b, head, "script", NULL);
    re_html_attribute(b, script, "type", "application/ld+json");
    re_html_raw_text(b, script, safe, strlen(safe));
    free(safe);
}

static void build_head(html_builder *b, xmlNodePtr html, const re_episode *ep, const char *iso,
                       const char *audio_href, int in_feed)
{
    xmlNodePtr head = re_html_element(b, html, "head", NULL);
    xmlNodePtr meta = re_html_element(b, head, "meta", NULL);
    re_html_attribute(b, meta, "charset", "utf-8");
    meta = re_html_element(b, head, "meta", NULL);
    re_html_attribute(b, meta, "name", "viewport");
    re_html_attribute(b, meta, "content", "width=device-width, initial-scale=1");
    re_html_text_element(b, head, "title", NULL, ep->title);
    xmlNodePtr icon = re_html_element(b, head, "link", NULL);   /* no request for /favicon.ico */
    re_html_attribute(b, icon, "rel", "icon");
    re_html_attribute(b, icon, "href", "data:,");
    if (in_feed) {   /* feed readers and browsers find the show's feed from the page */
        xmlNodePtr feed = re_html_element(b, head, "link", NULL);
        re_html_attribute(b, feed, "rel", "alternate");
        re_html_attribute(b, feed, "type", "application/rss+xml");
        re_html_attribute(b, feed, "href", "feed.xml");
        if (ep->show)
            re_html_attribute(b, feed, "title", ep->show);
    }
    if (ep->summary) {
        meta = re_html_element(b, head, "meta", NULL);
        re_html_attribute(b, meta, "name", "description");
        re_html_attribute(b, meta, "content", ep->summary);
    }
    meta = re_html_element(b, head, "meta", NULL);
    re_html_attribute(b, meta, "name", "generator");
    re_html_attribute(b, meta, "content", "render-episode " RE_VERSION);
    xmlNodePtr style = re_html_element(b, head, "style", NULL);
    re_html_raw_text(b, style, page_style, strlen(page_style));
    json_ld(b, head, ep, iso, audio_href);
    re_page_nav_build_meta(b, head, NULL);   /* filled by `feed`, which knows the page's URL */
}

/* "Show · Episode N", the title, and the date and duration as people write them with their
 * machine values in <time>, and the author. */
static void build_header(html_builder *b, xmlNodePtr article, const re_render_facts *facts,
                         const char *iso)
{
    const re_episode *ep = facts->episode;
    xmlNodePtr header = re_html_element(b, article, "header", "episode");
    if (facts->cover_file) {   /* a file beside the page: nothing is fetched from elsewhere */
        char *href = re_html_file_href(facts->cover_file, NULL), *alt = re_page_cover_alt(ep);
        if (!href || !alt)
            b->failed = 1;
        else
            re_html_cover_image(b, header, href, alt, 144);
        free(href);
        free(alt);
    }
    xmlNodePtr titles = re_html_element(b, header, "div", "titles");
    const char *kind = re_page_episode_type_words(ep->type);
    if (ep->show || ep->episode_number >= 0 || kind) {
        xmlNodePtr p = re_html_element(b, titles, "p", "show");
        if (ep->show)
            re_html_text(b, p, ep->show);
        if (ep->episode_number >= 0) {
            char number[48];
            snprintf(number, sizeof number, "%sEpisode %ld", ep->show ? " · " : "",
                     ep->episode_number);
            re_html_raw_text(b, p, number, strlen(number));
        }
        if (kind) {   /* a trailer or bonus episode says so; a full one is the rule */
            if (ep->show || ep->episode_number >= 0)
                re_html_raw_text(b, p, " · ", strlen(" · "));
            re_html_text_element(b, p, "strong", "type", kind);
        }
    }
    re_html_text_element(b, titles, "h1", NULL, ep->title);
    xmlNodePtr p = re_html_element(b, titles, "p", "meta");
    char date[RE_DATE_WORDS_MAX];
    if (ep->published && re_date_in_words(ep->published, ep->language, date) >= 0) {
        xmlNodePtr time = re_html_text_element(b, p, "time", "published", date);
        re_html_attribute(b, time, "datetime", ep->published);
        re_html_raw_text(b, p, " · ", strlen(" · "));
    }
    char human[96];
    re_page_duration_words(re_samples_to_seconds(facts->samples, facts->sample_rate), human,
                           sizeof human);
    xmlNodePtr time = re_html_text_element(b, p, "time", "length", human);
    re_html_attribute(b, time, "datetime", iso);
    if (ep->author) {
        re_html_raw_text(b, p, " · by ", strlen(" · by "));
        re_html_text(b, p, ep->author);
    }
}

/* The speakers' display names, each once, in the order of the profiles. */
static void build_speakers(html_builder *b, xmlNodePtr article, const re_render_facts *facts)
{
    if (facts->voice_count == 0 || !facts->voices)
        return;
    xmlNodePtr p = re_html_element(b, article, "p", "speakers");
    const char *label = facts->voice_count == 1 ? "Voice: " : "Voices: ";
    re_html_raw_text(b, p, label, strlen(label));
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
            re_html_raw_text(b, p, ", ", 2);
        re_html_text_element(b, p, "span", "speaker", name);
    }
}

/* The chapter's title, or its start time when it has none (a link needs a name). */
static const char *chapter_name(const re_chapter_mark *chapter, const char *at)
{
    return chapter->title && *chapter->title ? chapter->title : at;
}

/* Chapters as a list, each title a link: a media fragment of the audio (`ep.mp3#t=65.123`),
 * which the script turns into a seek; the start time beside it. */
static void build_chapters(html_builder *b, xmlNodePtr article, const re_render_facts *facts,
                           const char *audio_href)
{
    xmlNodePtr section = re_html_element(b, article, "section", "chapters");
    re_html_attribute(b, section, "aria-labelledby", "chapters-title");
    xmlNodePtr h2 = re_html_text_element(b, section, "h2", NULL, "Chapters");
    re_html_attribute(b, h2, "id", "chapters-title");
    xmlNodePtr list = re_html_element(b, section, "ol", NULL);
    for (size_t i = 0; i < facts->chapter_count && !b->failed; i++) {
        uint64_t ms = re_samples_to_ms(facts->chapters[i].start, facts->sample_rate);
        char at[32], seconds[48], href[4096];
        re_page_clock_text(ms, at, sizeof at);
        seconds_text(ms, seconds, sizeof seconds);
        if ((size_t)snprintf(href, sizeof href, "%s#t=%s", audio_href, seconds) >= sizeof href) {
            b->failed = 1;
            break;
        }
        xmlNodePtr item = re_html_element(b, list, "li", NULL);
        xmlNodePtr link = re_html_text_element(b, item, "a", NULL,
                                               chapter_name(&facts->chapters[i], at));
        re_html_attribute(b, link, "href", href);
        re_html_attribute(b, link, "data-start", seconds);
        re_html_raw_text(b, item, " ", 1);
        re_html_text_element(b, item, "span", "at", at);
    }
}

/* The transcript: a heading where each chapter starts, one paragraph per speaker turn or
 * chapter opened by the speaker's name when the cue has one; each cue a span whose id is
 * its WebVTT cue identifier ("cue-" N), holding a link to its time: a media fragment of the
 * audio, as the chapters' (the script seeks the player instead). */
static void build_transcript(html_builder *b, xmlNodePtr article, const re_render_facts *facts,
                             const re_transcript *t, const char *audio_href)
{
    xmlNodePtr section = re_html_element(b, article, "section", "transcript");
    re_html_attribute(b, section, "id", "transcript");
    re_html_attribute(b, section, "aria-labelledby", "transcript-title");
    xmlNodePtr h2 = re_html_text_element(b, section, "h2", NULL, "Transcript");
    re_html_attribute(b, h2, "id", "transcript-title");
    xmlNodePtr p = NULL;
    size_t chapter = 0, headed = 0;   /* headings written: chapters [0, headed) */
    for (size_t i = 0; i < t->count && !b->failed; i++) {
        const re_cue *cue = &t->cues[i];
        int opens = re_page_cue_opens_paragraph(facts, t, i, &chapter);
        for (; facts->chapter_count > 0 && headed <= chapter; headed++) {
            char at[32];
            re_page_clock_text(re_samples_to_ms(facts->chapters[headed].start, facts->sample_rate),
                               at, sizeof at);
            re_html_text_element(b, section, "h3", NULL, chapter_name(&facts->chapters[headed], at));
        }
        if (opens) {
            p = re_html_element(b, section, "p", NULL);
            if (cue->speaker) {   /* "Name:", the colon guarded like the name's own text */
                char *label = NULL;
                if (asprintf(&label, "%s:", cue->speaker) < 0) {
                    b->failed = 1;
                    break;
                }
                re_html_text_element(b, p, "b", "speaker", label);
                free(label);
            }
        }
        if (p && p->children)
            re_html_raw_text(b, p, " ", 1);
        char id[32], start[48], end[48], href[4096];
        snprintf(id, sizeof id, "cue-%zu", i + 1);
        seconds_text(re_cue_start_ms(t, cue), start, sizeof start);
        seconds_text(re_cue_end_ms(t, cue), end, sizeof end);
        if ((size_t)snprintf(href, sizeof href, "%s#t=%s", audio_href, start) >= sizeof href) {
            b->failed = 1;
            break;
        }
        xmlNodePtr span = re_html_element(b, p, "span", "cue");
        re_html_attribute(b, span, "id", id);
        re_html_attribute(b, span, "data-start", start);
        re_html_attribute(b, span, "data-end", end);
        xmlNodePtr link = re_html_text_element(b, span, "a", NULL, cue->text ? cue->text : "");
        re_html_attribute(b, link, "href", href);
    }
}

/* Where the next http:// or https:// URL in s starts (at the start of a word), or NULL. */
static const char *next_url(const char *s, const char *from)
{
    for (const char *p = from; (p = strstr(p, "http")) != NULL; p++) {
        int word_start = p == s || strchr(" \t\n(<\"'", p[-1]) != NULL;
        if (word_start && (strncmp(p, "http://", 7) == 0 || strncmp(p, "https://", 8) == 0))
            return p;
    }
    return NULL;
}

/* Text of the script's summary with every http(s) URL in it a link to itself (the
 * punctuation that ends a sentence, and a closing bracket it did not open, left outside). */
static void text_with_links(html_builder *b, xmlNodePtr parent, const char *s)
{
    const char *p = s;
    while (*p && !b->failed) {
        const char *url = next_url(s, p);
        size_t len = 0;
        if (url) {
            while (url[len] && !strchr(" \t\n\r<>\"", url[len]))
                len++;
            size_t open = 0, close = 0;
            for (size_t i = 0; i < len; i++) {
                open += url[i] == '(';
                close += url[i] == ')';
            }
            while (len > 0 && (strchr(".,;:!?'", url[len - 1])
                               || (url[len - 1] == ')' && close > open))) {
                close -= url[len - 1] == ')';
                len--;
            }
        }
        /* a scheme and nothing after it stays text */
        int linked = url && len > (size_t)(url[4] == 's' ? 8 : 7);
        const char *text_end = !url ? p + strlen(p) : linked ? url : url + len;
        char *text = strndup(p, (size_t)(text_end - p));
        char *href = linked ? strndup(url, len) : NULL;
        if (!text || (linked && !href)) {
            b->failed = 1;
        } else {
            if (*text)
                re_html_text(b, parent, text);
            if (href) {
                xmlNodePtr link = re_html_text_element(b, parent, "a", NULL, href);
                re_html_attribute(b, link, "href", href);
            }
        }
        free(text);
        free(href);
        p = url ? url + len : text_end;   /* past the URL, linked or not */
    }
}

/* The level of a heading element (h1..h6), else 0. */
static int heading_level(xmlNodePtr node)
{
    const char *name = (const char *)node->name;
    return node->type == XML_ELEMENT_NODE && name[0] == 'h' && name[1] >= '1' && name[1] <= '6'
                   && name[2] == '\0' ? name[1] - '0' : 0;
}

/* Bit N set for each heading level N in node, its siblings after it and their descendants. */
static unsigned heading_levels_used(xmlNodePtr node)
{
    unsigned used = 0;
    for (; node; node = node->next)
        used |= (heading_level(node) ? 1u << heading_level(node) : 0)
                | heading_levels_used(node->children);
    return used;
}

/* Renames the headings from node on (document order) to their level in the page: each level
 * the notes use by its rank among them (the highest becomes under + 1, the next under + 2),
 * never deeper than one below the heading before it (*previous) and never past h6. */
static void demote_headings(xmlNodePtr node, unsigned used, int under, int *previous)
{
    for (; node; node = node->next) {
        int level = heading_level(node);
        if (level) {
            int rank = 0;
            for (int l = 1; l < level; l++)
                rank += (used >> l) & 1;
            int page_level = under + 1 + rank;
            if (page_level > *previous + 1)
                page_level = *previous + 1;
            if (page_level > 6)
                page_level = 6;
            char name[3] = { 'h', (char)('0' + page_level), '\0' };
            xmlNodeSetName(node, BAD_CAST name);
            *previous = page_level;
        }
        demote_headings(node->children, used, under, previous);
    }
}

/* A Markdown script's document into the show notes: cmark-gfm's HTML, only its safe part
 * (notes.h: no image, no raw HTML, links to safe addresses only), its headings under the
 * section's own h2 (a document's "# Title" would be a second h1 of the page, and its levels
 * could skip one: the outline the W3C checker and screen readers read). */
static void build_markdown_notes(html_builder *b, xmlNodePtr section, const char *notes)
{
    char *html = section ? re_html_from_markdown(notes) : NULL;
    if (!html) {
        b->failed = 1;
        return;
    }
    xmlNodePtr last = section->last;
    re_notes_append(b, section, html);
    free(html);
    xmlNodePtr first = last ? last->next : section->children;
    int previous = 2;
    demote_headings(first, heading_levels_used(first), 2, &previous);
}

static void add_button(html_builder *b, xmlNodePtr parent, const char *id,
                       const char *class_name, const char *label)
{
    xmlNodePtr button = re_html_text_element(b, parent, "button", class_name, label);
    re_html_attribute(b, button, "type", "button");
    re_html_attribute(b, button, "id", id);
}

/* The player: <audio> with the browser's own controls, and the page's controls (hidden until
 * the script shows them and takes the audio's away): play/pause, back 15 s, forward 30 s,
 * speed, a scrubber with a mark at each chapter's start, the time and current chapter, and
 * the link to this moment. Every control is a labelled native one, so keyboards work. */
static void build_player(html_builder *b, xmlNodePtr article, const re_render_facts *facts,
                         const char *audio_href, const char *vtt_href)
{
    const re_episode *ep = facts->episode;
    xmlNodePtr section = re_html_element(b, article, "section", "listen");
    re_html_attribute(b, section, "aria-label", "Player");
    xmlNodePtr audio = re_html_element(b, section, "audio", NULL);
    re_html_attribute(b, audio, "id", "player");
    re_html_attribute(b, audio, "controls", "");
    re_html_attribute(b, audio, "preload", "metadata");
    re_html_attribute(b, audio, "src", audio_href);
    const char *const track[] = { "kind", "metadata", "label", "Transcript", "src", vtt_href,
                                  "srclang", ep->language ? ep->language : "en-us",
                                  "default", "", NULL };
    re_html_void_element(b, audio, "track", track);

    xmlNodePtr controls = re_html_element(b, section, "div", "player");
    re_html_attribute(b, controls, "id", "controls");
    re_html_attribute(b, controls, "role", "group");
    re_html_attribute(b, controls, "aria-label", "Player controls");
    re_html_attribute(b, controls, "hidden", "");
    xmlNodePtr buttons = re_html_element(b, controls, "div", "buttons");
    add_button(b, buttons, "play", "play", "Play");
    add_button(b, buttons, "back", NULL, "Back 15 s");
    add_button(b, buttons, "forward", NULL, "Forward 30 s");
    xmlNodePtr label = re_html_text_element(b, buttons, "label", NULL, "Speed ");
    re_html_attribute(b, label, "for", "speed");
    xmlNodePtr speed = re_html_element(b, buttons, "select", NULL);
    re_html_attribute(b, speed, "id", "speed");
    static const char *const rates[][2] = { { "0.75", "0.75\xc3\x97" }, { "1", "1\xc3\x97" },
                                            { "1.25", "1.25\xc3\x97" }, { "1.5", "1.5\xc3\x97" },
                                            { "1.75", "1.75\xc3\x97" }, { "2", "2\xc3\x97" } };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        xmlNodePtr option = re_html_text_element(b, speed, "option", NULL, rates[i][1]);
        re_html_attribute(b, option, "value", rates[i][0]);
        if (strcmp(rates[i][0], "1") == 0)
            re_html_attribute(b, option, "selected", "");
    }

    uint64_t length_ms = re_samples_to_ms(facts->samples, facts->sample_rate);
    char length[48];
    seconds_text(length_ms, length, sizeof length);
    xmlNodePtr scrub = re_html_element(b, controls, "div", "scrub");
    xmlNodePtr range = re_html_element(b, scrub, "input", NULL);
    re_html_attribute(b, range, "type", "range");
    re_html_attribute(b, range, "id", "scrubber");
    re_html_attribute(b, range, "aria-label", "Position");
    re_html_attribute(b, range, "min", "0");
    re_html_attribute(b, range, "max", length);
    re_html_attribute(b, range, "step", "any");
    re_html_attribute(b, range, "value", "0");
    xmlNodePtr marks = re_html_element(b, scrub, "div", "marks");
    re_html_attribute(b, marks, "aria-hidden", "true");
    for (size_t i = 0; i < facts->chapter_count && facts->samples > 0; i++) {
        char left[48];
        snprintf(left, sizeof left, "left:%.3f%%",
                 100.0 * (double)facts->chapters[i].start / (double)facts->samples);
        xmlNodePtr mark = re_html_element(b, marks, "span", "mark");
        re_html_attribute(b, mark, "style", left);
    }
    /* the clock's length is the header's (re_page_duration_words): the same whole seconds,
     * rounded half up (re_samples_to_seconds), never the floor a player's clock would take */
    char length_clock[48], clock_text[64];
    re_page_clock_text(re_samples_to_seconds(facts->samples, facts->sample_rate) * 1000,
                       length_clock, sizeof length_clock);
    snprintf(clock_text, sizeof clock_text, "0:00 / %s", length_clock);
    xmlNodePtr status = re_html_element(b, controls, "p", "status");
    xmlNodePtr clock = re_html_text_element(b, status, "span", NULL, clock_text);
    re_html_attribute(b, clock, "id", "clock");
    re_html_attribute(b, clock, "data-length", length_clock);
    if (facts->chapter_count > 0) {
        re_html_raw_text(b, status, " · ", strlen(" · "));
        xmlNodePtr now = re_html_element(b, status, "span", NULL);
        re_html_attribute(b, now, "id", "chapter-now");
        re_html_attribute(b, now, "aria-live", "polite");
    }
    xmlNodePtr moment = re_html_element(b, controls, "p", "moment");
    add_button(b, moment, "moment", NULL, "Copy a link to this moment");
    xmlNodePtr url = re_html_element(b, moment, "input", NULL);
    re_html_attribute(b, url, "type", "text");
    re_html_attribute(b, url, "id", "moment-url");
    re_html_attribute(b, url, "readonly", "");
    re_html_attribute(b, url, "aria-label", "Link to this moment");
    re_html_attribute(b, url, "hidden", "");
    xmlNodePtr note = re_html_element(b, moment, "span", NULL);
    re_html_attribute(b, note, "id", "moment-note");
    re_html_attribute(b, note, "aria-live", "polite");
}

/* The page inside its show, as far as the render knows it: with a show file beside it, a link
 * to the show's index (index.html, which `feed` writes); `feed` fills in the rest
 * (re_page_with_nav). */
static void build_show_nav(html_builder *b, xmlNodePtr main, const re_render_facts *facts)
{
    re_page_nav nav = { .show = facts->episode->show, .language = facts->episode->language,
                        .index_name = facts->in_feed ? RE_FOLDER_INDEX_NAME : NULL };
    re_page_nav_build_body(b, main, &nav);
}

static void build_body(html_builder *b, xmlNodePtr html, const re_render_facts *facts,
                       const re_transcript *transcript, const char *iso, const char *audio_href,
                       const char *vtt_href)
{
    const re_episode *ep = facts->episode;
    xmlNodePtr body = re_html_element(b, html, "body", NULL);
    xmlNodePtr main = re_html_element(b, body, "main", NULL);
    xmlNodePtr article = re_html_element(b, main, "article", NULL);
    build_header(b, article, facts, iso);
    build_player(b, article, facts, audio_href, vtt_href);
    build_speakers(b, article, facts);
    re_html_text_element(b, article, "p", "disclosure", RE_DISCLOSURE_TEXT);
    if (facts->in_feed) {   /* the feed `feed` writes beside the episodes, by its URL there */
        xmlNodePtr p = re_html_element(b, article, "p", "subscribe");
        re_html_text(b, p, "Subscribe: ");
        xmlNodePtr a = re_html_text_element(b, p, "a", NULL, "the show's feed (RSS)");
        re_html_attribute(b, a, "href", "feed.xml");
        re_html_attribute(b, a, "type", "application/rss+xml");
    }
    int has_summary = ep->summary && *ep->summary, has_notes = ep->notes && *ep->notes;
    if (has_summary || has_notes) {   /* the summary, and a Markdown script's document */
        xmlNodePtr section = re_html_element(b, article, "section", "notes");
        re_html_attribute(b, section, "aria-labelledby", "notes-title");
        xmlNodePtr h2 = re_html_text_element(b, section, "h2", NULL, "Show notes");
        re_html_attribute(b, h2, "id", "notes-title");
        if (has_summary)
            text_with_links(b, re_html_element(b, section, "p", "summary"), ep->summary);
        if (has_notes)
            build_markdown_notes(b, section, ep->notes);
    }
    if (facts->chapter_count > 0)
        build_chapters(b, article, facts, audio_href);
    if (transcript && transcript->count > 0)
        build_transcript(b, article, facts, transcript, audio_href);

    /* the files, and the duration as `check` reads it (ISO 8601, and in words) */
    xmlNodePtr footer = re_html_element(b, article, "footer", "files");
    xmlNodePtr files = re_html_element(b, footer, "p", NULL);
    xmlNodePtr link = re_html_text_element(b, files, "a", NULL, "Download the audio");
    re_html_attribute(b, link, "href", audio_href);
    re_html_raw_text(b, files, " · ", strlen(" · "));
    link = re_html_text_element(b, files, "a", NULL, "Transcript (WebVTT)");
    re_html_attribute(b, link, "href", vtt_href);
    char human[96];
    re_page_duration_words(re_samples_to_seconds(facts->samples, facts->sample_rate), human,
                           sizeof human);
    xmlNodePtr duration = re_html_element(b, footer, "p", "duration");
    re_html_raw_text(b, duration, "Duration: ", strlen("Duration: "));
    xmlNodePtr time = re_html_text_element(b, duration, "time", NULL, iso);
    re_html_attribute(b, time, "datetime", iso);
    char tail[128];
    snprintf(tail, sizeof tail, " (%s)", human);
    re_html_raw_text(b, duration, tail, strlen(tail));

    build_show_nav(b, main, facts);

    xmlNodePtr script = re_html_element(b, body, "script", NULL);
    re_html_raw_text(b, script, page_script, strlen(page_script));
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
    char *audio_href = re_html_file_href(audio_name, NULL), *vtt_href = re_html_file_href(vtt_name, NULL);
    html_builder b;
    re_status status = audio_href && vtt_href ? re_html_document_new(&b, ep->language ? ep->language
                                                                                  : "en-us")
                                              : RE_ERR_NOMEM;
    if (status == RE_OK) {
        build_head(&b, b.root, ep, iso, audio_href, facts->in_feed);
        build_body(&b, b.root, facts, transcript, iso, audio_href, vtt_href);
        status = re_html_document_write(&b, out);
    }
    free(audio_href);
    free(vtt_href);
    return status;
}
