/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_page.c - the episode page: its exact Markdown, escaping, and that `check` reads exactly
 * its two duration lines and finds them true. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "check.h"
#include "page.h"

#define RATE 22050u

static char *page_of(const re_render_facts *facts, const re_transcript *t, re_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = re_page_write(f, facts, t);
    fclose(f);
    return buf;
}

/* The claims `check` finds in the page (named `name`, whose suffix says its format),
 * judged against `samples`; returns how many hold. */
static size_t claims_holding_in(const char *name, const char *page, uint64_t samples,
                                size_t *count)
{
    re_claim_list claims;
    re_claim_list_init(&claims);
    re_diagnostics diag, notes;
    re_diagnostics_init(&diag, 50);
    re_diagnostics_init(&notes, 50);
    CHECK_INT(re_claims_extract(name, page, strlen(page), RE_FILE_AUTO, "ep.mp3", &claims,
                                &diag, &notes), RE_OK);
    re_mp3_measurement m = { .samples = samples, .sample_rate = RATE, .channels = 1 };
    size_t ok = 0;
    for (size_t i = 0; i < claims.count; i++) {
        re_claim_judge(&claims.items[i], &m, 0);
        ok += claims.items[i].ok;
        if (!claims.items[i].ok)
            fprintf(stderr, "  claim %s:%u '%s' = '%s' does not hold\n", claims.items[i].file,
                    claims.items[i].line, claims.items[i].field, claims.items[i].text);
    }
    *count = claims.count;
    re_claim_list_free(&claims);
    re_diagnostics_free(&diag);
    re_diagnostics_free(&notes);
    return ok;
}

/* `want` claims found in the page, and every one holds. */
static void check_claims_hold(const char *name, const char *page, uint64_t samples, size_t want)
{
    size_t count = 0;
    CHECK_INT(claims_holding_in(name, page, samples, &count), want);
    CHECK_INT(count, want);
}

static void test_full_page(void)
{
    re_episode ep = {
        .title = "Weekly Briefing – Café *Chapters*",
        .summary = "1. What changed: <b>everything</b> & more &amp; stuff",
        .show = "render-episode Weekly",
        .published = "2026-11-30T09:00:00Z",
        .language = "en-us",
        .episode_number = 1,
    };
    re_chapter_mark chapters[] = {
        { "Welcome", 0, RATE * 65 },
        { "The core pipeline", RATE * 65 + RATE - 1, RATE * 3700 },
        { "Audio duration: PT1S", RATE * 3700, RATE * 3723 },
    };
    re_cue cues[] = {
        { 0, RATE / 2, "Host", "It's November 30th.", 0 },
        { RATE, RATE * 2, "Host", "Three things changed.", 0 },
        { RATE * 66, RATE * 67, "Host", "- The duration: 45 seconds.", 0 },
        { RATE * 70, RATE * 71, "Guest", "Thanks.", 0 },
        { RATE * 71, RATE * 72, "Duration", "# not a heading", 0 },
        { RATE * 3701, RATE * 3702, NULL, "12) twelve", 0 },
        { RATE * 3703, RATE * 3704, NULL, "  ---  ", 0 },
    };
    re_transcript t = { RATE, cues, sizeof cues / sizeof cues[0], sizeof cues / sizeof cues[0], 0 };
    re_render_facts facts = { .episode = &ep, .samples = (uint64_t)RATE * 3723, .sample_rate = RATE,
                              .bytes = 123, .format = "mp3", .chapters = chapters,
                              .chapter_count = 3 };
    re_status st;
    char *page = page_of(&facts, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(page,
              "# Weekly Briefing – Café \\*Chapters\\*\n"
              "\n"
              "1\\. What changed: \\<b\\>everything\\</b\\> & more \\&amp; stuff\n"
              "\n"
              "Duration: PT1H2M3S\n"
              "\n"
              "## Episode overview\n"
              "\n"
              "- Show: render-episode Weekly\n"
              "- Published: 2026-11-30T09:00:00Z\n"
              "- Episode: 1\n"
              "- Audio duration: PT1H2M3S\n"
              "\n"
              "## Chapters\n"
              "\n"
              "- 0:00 Welcome\n"
              "- 1:05 The core pipeline\n"
              "- 1:01:40 Audio duration\\: PT1S\n"
              "\n"
              "## Transcript\n"
              "\n"
              "**Host:** It's November 30th.\n"
              "Three things changed.\n"
              "\n"
              "**Host:** - The duration\\: 45 seconds.\n"
              "\n"
              "**Guest:** Thanks.\n"
              "\n"
              "**Duration\\:** \\# not a heading\n"
              "\n"
              "12\\) twelve\n"
              "\\---\n");

    /* `check` reads the two duration lines and nothing from the script's own text */
    check_claims_hold("ep.md", page, facts.samples, 2);
    free(page);
}

static void test_minimal_page(void)
{
    re_episode ep = { .title = "T", .language = "en-us", .episode_number = -1 };
    re_render_facts facts = { .episode = &ep, .samples = RATE / 2 - 1, .sample_rate = RATE };
    re_status st;
    char *page = page_of(&facts, NULL, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(page, "# T\n\nDuration: PT0S\n\n## Episode overview\n\n- Audio duration: PT0S\n");
    check_claims_hold("ep.md", page, facts.samples, 2);
    free(page);

    /* an empty transcript is no section; 1.5 s rounds half up to 2 */
    re_transcript empty = { RATE, NULL, 0, 0, 0 };
    facts.samples = RATE + RATE / 2;
    page = page_of(&facts, &empty, &st);
    CHECK_INT(st, RE_OK);
    CHECK(strstr(page, "Duration: PT2S\n") && !strstr(page, "## Transcript"));
    free(page);
}

/* The cover under the title: its alt text escaped like the script's text, its file one
 * percent-encoded relative link whatever the name holds (test_minimal_page: none without). */
static void test_cover(void)
{
    re_episode ep = { .title = "T", .show = "[Show] *one*", .language = "en-us",
                      .episode_number = -1 };
    re_render_facts facts = { .episode = &ep, .samples = RATE, .sample_rate = RATE,
                              .cover_file = "ep (1) [a]#b.cover.png" };
    re_status st;
    char *page = page_of(&facts, NULL, &st);
    CHECK_INT(st, RE_OK);
    CHECK_STR(page, "# T\n\n![Cover art of \\[Show\\] \\*one\\*]"
                    "(ep%20%281%29%20%5Ba%5D%23b.cover.png)\n\n"
                    "Duration: PT1S\n\n## Episode overview\n\n- Show: \\[Show\\] \\*one\\*\n"
                    "- Audio duration: PT1S\n");
    check_claims_hold("ep.md", page, facts.samples, 2);
    free(page);
}

static void test_errors(void)
{
    re_episode ep = { .title = "T", .episode_number = -1 };
    re_render_facts facts = { .episode = &ep, .samples = 1, .sample_rate = RATE };
    FILE *null = fopen("/dev/null", "w");
    CHECK_INT(re_page_write(null, NULL, NULL), RE_ERR_INVALID);
    re_render_facts no_rate = facts;
    no_rate.sample_rate = 0;
    CHECK_INT(re_page_write(null, &no_rate, NULL), RE_ERR_INVALID);
    re_render_facts no_episode = facts;
    no_episode.episode = NULL;
    CHECK_INT(re_page_write(null, &no_episode, NULL), RE_ERR_INVALID);
    fclose(null);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        CHECK_INT(re_page_write(full, &facts, NULL), RE_ERR_WRITE);
        fclose(full);
    }
}

static char *html_page_of(const re_render_facts *facts, const re_transcript *t, re_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *st = re_page_write_html(f, facts, t, "ep one.mp3", "ep one.vtt");
    fclose(f);
    return buf;
}

/* The HTML page of the same hostile facts: escaped by the serializer, the script's words
 * after "duration" guarded, and `check` finds exactly its own three claims, all true. */
static void test_html_page(void)
{
    re_episode ep = {
        .title = "Café </script> <b>Chapters</b>",
        .summary = "What the duration: 5 seconds & <more>",
        .show = "render-episode Weekly",
        .published = "2026-11-30T09:00:00Z",
        .language = "de-CH",
        .episode_number = 1,
    };
    re_chapter_mark chapters[] = {
        { "Welcome", 0, RATE * 65 },
        { "Audio duration: PT1S", RATE * 65 + 1, RATE * 3723 },
    };
    re_cue cues[] = {
        { 0, RATE / 2, "Host", "It's November 30th.", 0 },
        { RATE * 66, RATE * 67, "Duration", "- The duration: 45 seconds.", 0 },
    };
    re_transcript t = { RATE, cues, 2, 2, 0 };
    re_render_facts facts = { .episode = &ep, .samples = (uint64_t)RATE * 3723, .sample_rate = RATE,
                              .chapters = chapters, .chapter_count = 2 };
    re_status st;
    char *page = html_page_of(&facts, &t, &st);
    CHECK_INT(st, RE_OK);
    const char *start = "<!DOCTYPE html>\n<html lang=\"de-CH\">";
    CHECK(strncmp(page, start, strlen(start)) == 0);
    CHECK(strstr(page, "<h1>Café &lt;/script&gt; &lt;b&gt;Chapters&lt;/b&gt;</h1>") != NULL);
    CHECK(strstr(page, "\"name\": \"Café \\u003c\\/script> \\u003cb>Chapters\\u003c\\/b>\"")
          != NULL);
    CHECK(strstr(page, "<\\/") == NULL);   /* no '<' in the JSON-LD: not even an escaped end tag */
    CHECK(strstr(page, "Duration: <time datetime=\"PT1H2M3S\">PT1H2M3S</time> (1 h 2 min 3 s)")
          != NULL);
    CHECK(strstr(page, "href=\"ep%20one.mp3#t=65.000\" data-start=\"65.000\"") != NULL);
    CHECK(strstr(page, "Audio duration&#58; PT1S") != NULL);
    CHECK(strstr(page, "<b class=\"speaker\">Duration&#58;</b>") != NULL);
    CHECK(strstr(page, "id=\"cue-2\" data-start=\"66.000\" data-end=\"67.000\"") != NULL);
    CHECK(strstr(page, "src=\"ep%20one.vtt\" srclang=\"de-CH\"") != NULL);
    /* the header: show and number, the date in the script's language, the length in words */
    CHECK(strstr(page, "<p class=\"show\">render-episode Weekly · Episode 1</p>") != NULL);
    CHECK(strstr(page, "<time class=\"published\" datetime=\"2026-11-30T09:00:00Z\">"
                       "30. November 2026</time>") != NULL);
    CHECK(strstr(page, "<time class=\"length\" datetime=\"PT1H2M3S\">1 h 2 min 3 s</time>")
          != NULL);
    /* chapter titles are the links; the scrubber marks each chapter's start */
    CHECK(strstr(page, "data-start=\"0.000\">Welcome</a> <span class=\"at\">0:00</span>")
          != NULL);
    CHECK(strstr(page, "<span class=\"mark\" style=\"left:0.000%\"></span><span class=\"mark\" "
                       "style=\"left:1.746%\"></span>\n</div>") != NULL);
    CHECK(strstr(page, "max=\"3723.000\"") != NULL);
    /* the transcript: a heading per chapter, each cue a link to its time in the audio */
    CHECK(strstr(page, "<h3>Welcome</h3>") != NULL);
    CHECK(strstr(page, "<h3>Audio duration&#58; PT1S</h3>") != NULL);
    CHECK(strstr(page, "data-end=\"0.500\"><a href=\"ep%20one.mp3#t=0.000\">It's November "
                       "30th.</a></span>") != NULL);
    /* the page's own controls wait for the script; without it the audio keeps its own */
    CHECK(strstr(page, "<audio id=\"player\" controls=\"\"") != NULL);
    CHECK(strstr(page, "aria-label=\"Player controls\" hidden=\"\"") != NULL);
    check_claims_hold("ep.html", page, facts.samples, 3);
    free(page);

    /* the summary's URLs are links to themselves, the sentence's punctuation left out */
    ep.summary = "Notes (https://example.org/a_(b)) and https://x.org/?q=1&r=2. Not http:// alone.";
    page = html_page_of(&facts, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK(strstr(page, "<p class=\"summary\">Notes (<a href=\"https://example.org/a_(b)\">"
                       "https://example.org/a_(b)</a>) and <a href=\"https://x.org/?q=1&amp;r=2\">"
                       "https://x.org/?q=1&amp;r=2</a>. Not http:// alone.</p>") != NULL);
    free(page);

    FILE *null = fopen("/dev/null", "w");
    CHECK_INT(re_page_write_html(null, &facts, &t, NULL, "ep.vtt"), RE_ERR_INVALID);
    CHECK_INT(re_page_write_html(null, &facts, &t, "ep.mp3", NULL), RE_ERR_INVALID);
    fclose(null);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        CHECK_INT(re_page_write_html(full, &facts, &t, "ep.mp3", "ep.vtt"), RE_ERR_WRITE);
        fclose(full);
    }
}

/* One length everywhere a person reads it: the header's words, the footer's words and the
 * player's clock (data-length, which the page's script shows) come from the same whole
 * seconds, rounded half up, at every rate and at the edges of a second. */
static void test_lengths_agree(void)
{
    static const struct {
        double seconds;
        const char *words, *clock;
    } lengths[] = {
        { 0.4, "0 s", "0:00" },                  { 0.5, "1 s", "0:01" },
        { 59.499, "59 s", "0:59" },              { 59.5, "1 min 0 s", "1:00" },
        { 151.0, "2 min 31 s", "2:31" },         { 151.499, "2 min 31 s", "2:31" },
        { 151.5, "2 min 32 s", "2:32" },         { 151.999, "2 min 32 s", "2:32" },
        { 3599.5, "1 h 0 min 0 s", "1:00:00" },  { 3723.999, "1 h 2 min 4 s", "1:02:04" },
    };
    static const unsigned rates[] = { 22050, 44100, 48000 };
    re_episode ep = { .title = "Lengths", .episode_number = -1 };
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++) {
            /* the sample count nearest to the length, at or past it (151.5 s is exact) */
            uint64_t samples = (uint64_t)(lengths[i].seconds * rates[r] + 0.999999);
            re_render_facts facts = { .episode = &ep, .samples = samples,
                                      .sample_rate = rates[r] };
            re_status st;
            char *page = html_page_of(&facts, NULL, &st);
            CHECK_INT(st, RE_OK);
            char header[128], footer[128], clock[128];
            snprintf(header, sizeof header, "\">%s</time>", lengths[i].words);
            snprintf(footer, sizeof footer, "</time> (%s)</p>", lengths[i].words);
            snprintf(clock, sizeof clock, "id=\"clock\" data-length=\"%s\">0:00 / %s</span>",
                     lengths[i].clock, lengths[i].clock);
            if (!strstr(page, header) || !strstr(page, footer) || !strstr(page, clock))
                fprintf(stderr, "  %.3f s at %u Hz (%llu samples): want %s and %s\n",
                        lengths[i].seconds, rates[r], (unsigned long long)samples,
                        lengths[i].words, lengths[i].clock);
            CHECK(strstr(page, header) != NULL);
            CHECK(strstr(page, footer) != NULL);
            CHECK(strstr(page, clock) != NULL);
            free(page);
        }
    }
}

/* A Markdown script's paragraphs and list items (cues that open a block) are paragraphs of
 * their own in both pages' transcripts; a .txt script's page keeps one paragraph per
 * chapter or speaker turn. */
static void test_blocks(void)
{
    re_episode ep = { .title = "Notes", .language = "en-us", .notes = "- one\n- two\n" };
    re_chapter_mark chapters[] = { { "Fixed", 0, RATE * 4 } };
    re_cue cues[] = {
        { 0, RATE, NULL, "Fixed.", .opens_block = 1 },
        { RATE, RATE * 2, NULL, "A crash when", .opens_block = 1 },
        { RATE * 2, RATE * 3, NULL, "the disk is full.", 0 },
        { RATE * 3, RATE * 4, NULL, "A leak.", .opens_block = 1 },
    };
    re_transcript t = { RATE, cues, 4, 4, 0 };
    re_render_facts facts = { .episode = &ep, .samples = (uint64_t)RATE * 4, .sample_rate = RATE,
                              .format = "mp3", .chapters = chapters, .chapter_count = 1 };
    re_status st;
    char *page = page_of(&facts, &t, &st);
    CHECK_INT(st, RE_OK);
    const char *blocks = "## Transcript\n\nFixed.\n\nA crash when\nthe disk is full.\n\n"
                         "A leak.\n";
    CHECK(page && strstr(page, blocks) != NULL);
    free(page);
    page = html_page_of(&facts, &t, &st);
    CHECK_INT(st, RE_OK);
    CHECK(page && strstr(page, "<h3>Fixed</h3>\n<p><span class=\"cue\" id=\"cue-1\"") != NULL);
    CHECK(page && strstr(page, "Fixed.</a></span></p>\n<p><span class=\"cue\" id=\"cue-2\"")
          != NULL);
    CHECK(page && strstr(page, "full.</a></span></p>\n<p><span class=\"cue\" id=\"cue-4\"")
          != NULL);
    free(page);

    ep.notes = NULL;   /* a .txt script */
    page = page_of(&facts, &t, &st);
    CHECK(page && strstr(page, "## Transcript\n\nFixed.\nA crash when\nthe disk is full.\n"
                               "A leak.\n") != NULL);
    free(page);
    page = html_page_of(&facts, &t, &st);
    CHECK(page && strstr(page, "</p>\n<p>") == NULL);
    free(page);
}

/* feed's navigation: only the two slots change, the rest of the page is kept byte for byte
 * (its claims too), writing it again changes nothing, and a page without its slots (an older
 * version's, or edited) or with a slot twice is refused. */
static void test_show_nav(void)
{
    re_episode ep = { .title = "Nav", .show = "Show <&>", .published = "2026-11-30",
                      .episode_number = -1 };
    re_render_facts facts = { .episode = &ep, .samples = (uint64_t)RATE * 65,
                              .sample_rate = RATE, .in_feed = 1 };
    re_status st;
    char *page = html_page_of(&facts, NULL, &st);
    CHECK_INT(st, RE_OK);
    /* the render alone, with a show file: the index only, and empty head slot */
    CHECK(strstr(page, "<!--show-meta--><!--/show-meta-->") != NULL);
    CHECK(strstr(page, "<a href=\"index.html\">All episodes</a>") != NULL);
    CHECK(strstr(page, "rel=\"prev\"") == NULL);
    re_page_link older = { "Older duration: PT5S", "2026-11-23", "old one.html" };
    re_page_link newer = { "Newer", NULL, "new.mp3" };
    re_page_link near[] = { newer, older };
    re_page_nav nav = { .show = "Show <&>", .index_name = "index.html", .feed_name = "feed.xml",
                        .older = &older, .newer = &newer, .nearby = near, .nearby_count = 2,
                        .canonical_url = "https://ex.org/p/ep%20one.html", .title = "Nav \"1\"",
                        .description = "About <it>", .image_url = "https://ex.org/p/c.png",
                        .audio_url = "https://ex.org/p/ep%20one.mp3" };
    char *out = NULL, *again = NULL;
    size_t out_len = 0, again_len = 0;
    CHECK_INT(re_page_with_nav(page, strlen(page), &nav, &out, &out_len), RE_OK);
    char *text = strndup(out, out_len);
    CHECK(strstr(text, "<link rel=\"canonical\" href=\"https://ex.org/p/ep%20one.html\">") != NULL);
    CHECK(strstr(text, "<meta property=\"og:title\" content='Nav \"1\"'>") != NULL);
    CHECK(strstr(text, "<meta property=\"og:audio\" content=\"https://ex.org/p/ep%20one.mp3\">")
          != NULL);
    CHECK(strstr(text, "<meta name=\"twitter:card\" content=\"summary\">") != NULL);
    CHECK(strstr(text, "Previous: <a href=\"old%20one.html\" rel=\"prev\">Older duration&#58; "
                       "PT5S</a> · <time datetime=\"2026-11-23\">November 23, 2026</time>")
          != NULL);
    CHECK(strstr(text, "Next: <a href=\"new.mp3\" rel=\"next\">Newer</a>\n</li>") != NULL);
    CHECK(strstr(text, "<h3 id=\"nearby-title\">Nearby episodes from Show &lt;&amp;&gt;</h3>")
          != NULL);
    /* outside the slots, the same bytes */
    const char *head_end = strstr(page, "<!--show-meta-->");
    CHECK(strncmp(text, page, (size_t)(head_end - page)) == 0);
    const char *tail = strstr(page, "<!--/show-nav-->");
    CHECK(strcmp(strstr(text, "<!--/show-nav-->"), tail) == 0);
    check_claims_hold("ep.html", text, facts.samples, 3);
    /* idempotent */
    CHECK_INT(re_page_with_nav(out, out_len, &nav, &again, &again_len), RE_OK);
    CHECK(again_len == out_len && memcmp(again, out, out_len) == 0);
    free(again);
    /* no slot, or a slot twice: refused */
    CHECK_INT(re_page_with_nav("<html></html>", 13, &nav, &again, &again_len), RE_ERR_FORMAT);
    char *twice = NULL;
    CHECK(asprintf(&twice, "%s<!--show-nav--><!--/show-nav-->", text) > 0);
    CHECK_INT(re_page_with_nav(twice, strlen(twice), &nav, &again, &again_len), RE_ERR_FORMAT);
    CHECK(again == NULL);
    free(twice);
    free(text);
    free(out);
    free(page);
}

static size_t count_of(const char *s, size_t n, const char *needle)
{
    size_t count = 0, k = strlen(needle);
    for (const char *at = s; (at = memmem(at, n - (size_t)(at - s), needle, k)) != NULL; at += k)
        count++;
    return count;
}

/* A title that holds the slots' markers: the render's page (title, h1, JSON-LD) and the share
 * tags feed writes hold each marker once, as the slot's own; feed finds its slots again. */
static void test_show_nav_forged(void)
{
    char title[] = "Hi <!--show-nav--> <!--/show-nav--> <!--show-meta--><!--/show-meta--> there";
    re_episode ep = { .title = title, .summary = title, .show = "Show", .published = "2026-11-30",
                      .episode_number = -1 };
    re_render_facts facts = { .episode = &ep, .samples = (uint64_t)RATE * 65,
                              .sample_rate = RATE, .in_feed = 1 };
    re_status st;
    char *page = html_page_of(&facts, NULL, &st);
    CHECK_INT(st, RE_OK);
    size_t len = strlen(page);
    const char *markers[] = { "<!--show-nav-->", "<!--/show-nav-->", "<!--show-meta-->",
                              "<!--/show-meta-->" };
    for (size_t i = 0; i < 4; i++)
        CHECK_INT(count_of(page, len, markers[i]), 1);
    re_page_nav nav = { .show = title, .index_name = "index.html", .feed_name = "feed.xml",
                        .canonical_url = "https://ex.org/p/ep.html", .title = title,
                        .description = title, .image_url = "https://ex.org/p/c.png",
                        .audio_url = "https://ex.org/p/ep.mp3" };
    char *out = NULL, *again = NULL;
    size_t out_len = 0, again_len = 0;
    CHECK_INT(re_page_with_nav(page, len, &nav, &out, &out_len), RE_OK);
    for (size_t i = 0; out && i < 4; i++)
        CHECK_INT(count_of(out, out_len, markers[i]), 1);
    if (out) {
        char *text = strndup(out, out_len);
        CHECK(strstr(text, "<meta property=\"og:title\" content=\"Hi &lt;!--show-nav--&gt; "
                           "&lt;!--/show-nav--&gt;") != NULL);
        CHECK(strstr(text, "<meta name=\"twitter:title\" content=\"Hi &lt;!--show-nav") != NULL);
        free(text);
        CHECK_INT(re_page_with_nav(out, out_len, &nav, &again, &again_len), RE_OK);
        CHECK(again_len == out_len && again && memcmp(again, out, out_len) == 0);
    }
    free(again);
    free(out);
    free(page);
}

/* The sidecar's entry for the page, rewritten: every other byte as the writer wrote it; a
 * sidecar the writer would not give back byte for byte (edited by hand), or without the
 * entry, is refused. */
static void test_sidecar_with_file(void)
{
    re_episode ep = { .title = "Nav", .language = "en", .episode_number = -1 };
    re_sidecar_file files[] = { { "ep.mp3", 10, "" }, { "ep.html", 20, "" } };
    memset(files[0].sha256, 'a', 64);
    memset(files[1].sha256, 'b', 64);
    re_render_facts facts = { .episode = &ep, .samples = RATE, .sample_rate = RATE,
                              .format = "mp3", .engine = "e", .encoder = "x", .files = files,
                              .file_count = 2 };
    char *buf = NULL, *out = NULL;
    size_t len = 0, out_len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_INT(re_sidecar_write(f, &facts), RE_OK);
    fclose(f);
    char sha[65];
    memset(sha, 'c', 64);
    sha[64] = '\0';
    CHECK_INT(re_sidecar_with_file(buf, len, "ep.html", 30, sha, &out, &out_len), RE_OK);
    memset(files[1].sha256, 'c', 64);
    files[1].bytes = 30;
    char *want = NULL;
    size_t want_len = 0;
    f = open_memstream(&want, &want_len);
    CHECK_INT(re_sidecar_write(f, &facts), RE_OK);
    fclose(f);
    CHECK(out_len == want_len && memcmp(out, want, want_len) == 0);
    free(out);
    out = NULL;
    CHECK_INT(re_sidecar_with_file(buf, len, "ep.vtt", 30, sha, &out, &out_len), RE_ERR_FORMAT);
    char *edited = strndup(buf, len);
    edited[1] = ' ';   /* "{\n" -> "{ ": the same JSON, other bytes */
    CHECK_INT(re_sidecar_with_file(edited, len, "ep.html", 30, sha, &out, &out_len),
              RE_ERR_FORMAT);
    CHECK(out == NULL);
    free(edited);
    free(want);
    free(buf);
}

int main(void)
{
    test_full_page();
    test_minimal_page();
    test_cover();
    test_errors();
    test_html_page();
    test_lengths_agree();
    test_blocks();
    test_show_nav();
    test_show_nav_forged();
    test_sidecar_with_file();
    return check_finish("test_page");
}
