/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_check.c - the check stage on memory buffers (claims in text, Markdown, HTML, JSON,
 * sidecars, RSS and Atom; judging at each precision; rewriting) and on the small MP3s in
 * tests/data/check (measuring, truncated and junk files). */
#define _GNU_SOURCE  /* testdir.h's nftw */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testkit.h"
#include "testdir.h"
#include "check.h"
#include "duration.h"

static re_claim_list claims;
static re_diagnostics diag, notes;

/* A measurement of `samples` at `rate` and `bytes`. */
static re_mp3_measurement measured(uint64_t samples, unsigned rate, uint64_t bytes)
{
    re_mp3_measurement m;
    memset(&m, 0, sizeof m);
    m.samples = samples;
    m.sample_rate = rate;
    m.channels = 1;
    m.bytes = bytes;
    m.tag_frames = -1;
    return m;
}

/* Extracts claims from a NUL-terminated buffer into the shared list (emptied first). */
static re_status extract(const char *name, const char *text, re_file_kind kind)
{
    re_claim_list_free(&claims);
    re_diagnostics_free(&diag);
    re_diagnostics_free(&notes);
    re_claim_list_init(&claims);
    re_diagnostics_init(&diag, 0);
    re_diagnostics_init(&notes, 0);
    return re_claims_extract(name, text, strlen(text), kind, "ep.mp3", &claims, &diag, &notes);
}

/* Judges claim i against m and returns whether it holds. */
static int holds(size_t i, const re_mp3_measurement *m, uint64_t tolerance_us)
{
    if (i >= claims.count)
        return -1;
    re_claim_judge(&claims.items[i], m, tolerance_us);
    return claims.items[i].ok;
}

static void test_sniff(void)
{
    CHECK_INT(re_file_sniff("a.json", "x", 1), RE_FILE_JSON);
    CHECK_INT(re_file_sniff("a.JSONLD", "x", 1), RE_FILE_JSON);
    CHECK_INT(re_file_sniff("feed.rss", "x", 1), RE_FILE_XML);
    CHECK_INT(re_file_sniff("a.atom", "x", 1), RE_FILE_XML);
    CHECK_INT(re_file_sniff("a.htm", "x", 1), RE_FILE_HTML);
    CHECK_INT(re_file_sniff("a.md", "{", 1), RE_FILE_TEXT);
    CHECK_INT(re_file_sniff("page", "\xEF\xBB\xBF  {\"a\":1}", 12), RE_FILE_JSON);
    CHECK_INT(re_file_sniff("page", "\n[1]", 4), RE_FILE_JSON);
    CHECK_INT(re_file_sniff("page", "<?xml version=\"1.0\"?><rss/>", 27), RE_FILE_XML);
    CHECK_INT(re_file_sniff("page", "<feed xmlns=\"\"/>", 16), RE_FILE_XML);
    CHECK_INT(re_file_sniff("page", "<!DOCTYPE html>", 15), RE_FILE_HTML);
    CHECK_INT(re_file_sniff("page", "Duration: PT1S", 14), RE_FILE_TEXT);
    CHECK_INT(re_file_sniff("page", "", 0), RE_FILE_TEXT);
    /* every name ending the format table knows, and the content starts it has not seen above */
    CHECK_INT(re_file_sniff("a.xml", "x", 1), RE_FILE_XML);
    CHECK_INT(re_file_sniff("a.xhtml", "x", 1), RE_FILE_XML);
    CHECK_INT(re_file_sniff("a.html", "{", 1), RE_FILE_HTML);
    CHECK_INT(re_file_sniff("a.markdown", "<rss", 4), RE_FILE_TEXT);
    CHECK_INT(re_file_sniff("a.txt", "[", 1), RE_FILE_TEXT);
    CHECK_INT(re_file_sniff(NULL, "<rss version=\"2.0\"/>", 20), RE_FILE_XML);
    CHECK_INT(re_file_sniff("page", "<rdf:RDF>", 9), RE_FILE_XML);
    CHECK_INT(re_file_sniff("page", "<rs", 3), RE_FILE_HTML);
    CHECK_STR(re_file_kind_name(RE_FILE_AUTO), "auto");
    CHECK_STR(re_file_kind_name(RE_FILE_TEXT), "text");
    CHECK_STR(re_file_kind_name(RE_FILE_HTML), "html");
    CHECK_STR(re_file_kind_name(RE_FILE_JSON), "json");
    CHECK_STR(re_file_kind_name(RE_FILE_SIDECAR), "sidecar");
    CHECK_STR(re_file_kind_name(RE_FILE_XML), "xml");
    CHECK_STR(re_file_kind_name((re_file_kind)99), "unknown");
}

/* The two claims of the real episode page in shared/reference. */
static void test_reference_page(void)
{
    const char *page =
        "PyTorch: Autograd Overhead Cuts\n"
        "The autograd hot path got surgery.\n"
        "Duration: PT2M53S\n"
        "Episode overview\n"
        "- Show: PyTorch\n"
        "- Published: 2026-07-14T13:00:41Z\n"
        "- Audio duration: PT2M53S\n"
        "Transcript excerpt\n";
    CHECK_INT(extract("page.txt", page, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 2);
    if (claims.count != 2)
        return;
    CHECK_STR(claims.items[0].field, "Duration");
    CHECK_STR(claims.items[0].text, "PT2M53S");
    CHECK_INT(claims.items[0].line, 3);
    CHECK_INT(claims.items[0].col, 11);
    CHECK_INT(claims.items[0].notation, RE_NOTATION_ISO);
    CHECK_INT(claims.items[0].value.us, 173000000);
    CHECK_STR(claims.items[1].field, "Audio duration");
    CHECK_INT(claims.items[1].line, 7);
    CHECK_INT(claims.items[1].col, 19);
    CHECK_INT(memcmp(page + claims.items[1].offset, "PT2M53S", claims.items[1].length), 0);
    /* 173.4 s rounds to 173: both hold; 173.5 s rounds up to 174: both fail */
    re_mp3_measurement m = measured(173ULL * 22050 + 8820, 22050, 1000);
    CHECK_INT(holds(0, &m, 0), 1);
    CHECK_INT(holds(1, &m, 0), 1);
    m = measured(173ULL * 22050 + 11025, 22050, 1000);
    CHECK_INT(holds(0, &m, 0), 0);
    CHECK_STR(claims.items[0].measured, "PT2M54S");
    CHECK_INT(holds(0, &m, 500000), 1);                    /* --tolerance PT0.5S */
    CHECK_INT(claims.items[0].within_tolerance, 1);
    m = measured(173ULL * 22050 + 11024, 22050, 1000);     /* one sample below the half */
    CHECK_INT(holds(0, &m, 0), 1);
}

static void test_markdown_forms(void)
{
    const char *md =
        "# Episode\n"                                   /* 1 */
        "**Duration:** PT173S\n"                        /* 2 */
        "* **Audio duration**: `02:53`\n"               /* 3 */
        "1. duration: 173 s\n"                          /* 4 */
        "> DURATION: 0:02:53.\n"                        /* 5 */
        "| Duration: | 2:53 |\r\n"                      /* 6 */
        "Duration: 3 minutes\n"                         /* 7: unreadable, reported */
        "The running time (duration: 173 seconds) is short.\n"  /* 8: mid-line, read */
        "We measured the duration: it varies.\n"        /* 9: mid-line prose, ignored */
        "Durations: 5, transition-duration: 2s\n"       /* 10: not the label */
        "Duration:\n"                                   /* 11: no value */
        "```\n"
        "Duration: PT9M\n"                              /* in a fenced block: ignored */
        "```\n"
        "Duration: 2m53s\n";                            /* 15: unreadable */
    CHECK_INT(extract("notes.md", md, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 8);
    if (claims.count != 8)
        return;
    const unsigned lines[] = { 2, 3, 4, 5, 6, 7, 8, 15 };
    const char *texts[] = { "PT173S", "02:53", "173", "0:02:53", "2:53", "3 minutes", "173",
                            "2m53s" };
    const int readable[] = { 1, 1, 1, 1, 1, 0, 1, 0 };
    re_mp3_measurement m = measured(173ULL * 44100, 44100, 1);
    for (size_t i = 0; i < 8; i++) {
        CHECK_INT(claims.items[i].line, lines[i]);
        CHECK_STR(claims.items[i].text, texts[i]);
        CHECK_INT(claims.items[i].readable, readable[i]);
        CHECK_INT(holds(i, &m, 0), readable[i]);
        CHECK_INT(re_claim_fixable(&claims.items[i]), readable[i]);
    }
    CHECK_STR(claims.items[1].field, "Audio duration");
    CHECK_STR(claims.items[2].field, "duration");
    CHECK_STR(claims.items[3].field, "DURATION");
}

static void test_html(void)
{
    const char *html =
        "<!DOCTYPE html>\n"
        "<html><head>\n"
        "<script type=\"application/ld+json\">\n"
        "{\"@type\": \"PodcastEpisode\",\n"
        " \"associatedMedia\": {\"duration\": \"PT2M53.4S\"}, \"timeRequired\": \"PT9M\"}\n"
        "</script>\n"
        "<script>var player = {duration: 999};</script>\n"
        "<style>.duration: 5px</style>\n"
        "</head><body>\n"
        "<!-- Duration: PT9M -->\n"
        "<pre>Duration: PT9M</pre><textarea>Duration: 1</textarea>\n"
        "<dl style=\"animation-duration: 2s\"><dt>Duration:</dt><dd>PT2M53S</dd></dl>\n"
        "<p><strong>Audio duration:</strong>&nbsp;02:53</p>\n"
        "</body></html>\n";
    CHECK_INT(extract("ep.html", html, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 3);
    if (claims.count != 3)
        return;
    CHECK_INT(claims.items[0].line, 5);
    CHECK_STR(claims.items[0].text, "PT2M53.4S");
    CHECK_INT(claims.items[0].value.unit_us, 100000);
    CHECK_INT(claims.items[1].line, 12);
    CHECK_STR(claims.items[1].text, "PT2M53S");
    CHECK_INT(claims.items[2].line, 13);
    CHECK_STR(claims.items[2].text, "02:53");
    /* 173.44 s: the tenth-second claim holds within 0.05 s; 173.46 s does not */
    re_mp3_measurement m = measured(17344, 100, 1);
    CHECK_INT(holds(0, &m, 0), 1);
    CHECK_INT(holds(1, &m, 0), 1);
    m = measured(17346, 100, 1);
    CHECK_INT(holds(0, &m, 0), 0);
    CHECK_STR(claims.items[0].measured, "PT2M53.5S");
    /* broken JSON-LD is an input error at its place in the page */
    CHECK_INT(extract("bad.html", "<p>x</p>\n<script type='application/ld+json'>\n"
                      "{\"duration\": }\n</script>\n", RE_FILE_AUTO), RE_ERR_INPUT);
    CHECK_INT(diag.count, 1);
    if (diag.count == 1)
        CHECK_INT(diag.items[0].line, 3);
    CHECK_INT(claims.count, 0);
}

static void test_json(void)
{
    const char *json =
        "{\"episode\": {\"duration\": \"PT2M53S\"},\n"
        " \"parts\": [{\"duration\": 173.456}, {\"duration\": null}, {\"duration\": {\"x\": 1}}],\n"
        " \"note\": \"duration\", \"samples\": 1, \"duration_ms\": 5,\n"
        " \"list\": [\"duration\", 5], \"esc\": {\"duration\": \"PT2M\\u0035" "3S\"}}\n";
    CHECK_INT(extract("ep-ld.json", json, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 3);   /* not samples/duration_ms: this is not our sidecar */
    if (claims.count != 3)
        return;
    CHECK_STR(claims.items[0].text, "PT2M53S");
    CHECK_INT(claims.items[0].line, 1);
    CHECK_STR(claims.items[1].text, "173.456");
    CHECK_INT(claims.items[1].notation, RE_NOTATION_CLOCK);
    CHECK_INT(claims.items[1].value.unit_us, 1000);
    CHECK_STR(claims.items[2].text, "PT2M53S");   /* decoded from the escape */
    re_mp3_measurement m = measured(173457, 1000, 1);   /* 173.457 s */
    CHECK_INT(holds(1, &m, 0), 1);                 /* a millisecond claim: within 1 ms */
    m = measured(173458, 1000, 1);
    CHECK_INT(holds(1, &m, 0), 0);
    CHECK_STR(claims.items[1].measured, "173.458");

    CHECK_INT(extract("bad.json", "{\"a\": 1,\n \"duration\" \"PT1S\"}", RE_FILE_AUTO),
              RE_ERR_INPUT);
    CHECK_INT(diag.count, 1);
    if (diag.count == 1) {
        CHECK_INT(diag.items[0].line, 2);
        CHECK(diag.items[0].col > 0);
    }
    CHECK_INT(extract("dup.json", "{\"duration\": \"PT1S\", \"duration\": \"PT2S\"}", RE_FILE_AUTO),
              RE_ERR_INPUT);
    CHECK_INT(extract("scalar.json", "\"PT1S\"", RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 0);
}

static void test_sidecar(void)
{
    const char *side =
        "{\n"
        "  \"title\": \"T\",\n"
        "  \"duration\": \"PT2M53S\",\n"
        "  \"duration_ms\": 173455,\n"
        "  \"samples\": 3824704,\n"
        "  \"sample_rate\": 22050,\n"
        "  \"bytes\": 1393664,\n"
        "  \"chapters\": [{\"title\": \"a\", \"end_ms\": 173455, \"samples\": 9}],\n"
        "  \"generator\": \"render-episode 0.1.0\"\n"
        "}\n";
    CHECK_INT(extract("ep.json", side, RE_FILE_AUTO), RE_OK);   /* sidecar by its generator */
    CHECK_INT(claims.count, 5);
    if (claims.count != 5)
        return;
    const char *fields[] = { "duration", "duration_ms", "samples", "sample_rate", "bytes" };
    const re_claim_kind kinds[] = { RE_CLAIM_DURATION, RE_CLAIM_MS, RE_CLAIM_SAMPLES,
                                    RE_CLAIM_SAMPLE_RATE, RE_CLAIM_BYTES };
    re_mp3_measurement m = measured(3824704, 22050, 1393664);
    for (size_t i = 0; i < 5; i++) {
        CHECK_STR(claims.items[i].field, fields[i]);
        CHECK_INT(claims.items[i].kind, kinds[i]);
        CHECK_INT(claims.items[i].line, i + 3);
        CHECK_INT(holds(i, &m, 0), 1);
    }
    m = measured(3824705, 22050, 1393665);     /* one sample, one byte more */
    CHECK_INT(holds(1, &m, 0), 0);             /* 173.456009 s: 173455 ms is 1.009 ms off */
    CHECK_STR(claims.items[1].measured, "173456");
    CHECK_INT(holds(2, &m, 0), 0);
    CHECK_STR(claims.items[2].measured, "3824705");
    CHECK_INT(holds(2, &m, 1000), 1);          /* 1 sample is within 1 ms of tolerance */
    CHECK_INT(holds(4, &m, 10000000), 0);      /* bytes are never loosened */
    m = measured(3824704, 44100, 1393664);
    CHECK_INT(holds(3, &m, 0), 0);             /* another sample rate */
    /* the same file named otherwise, read as RE_FILE_SIDECAR explicitly */
    re_claim_list_free(&claims);
    re_claim_list_init(&claims);
    const char *bare = "{\"duration_ms\": \"173455\", \"samples\": -1}";
    CHECK_INT(re_claims_extract("x.json", bare, strlen(bare), RE_FILE_SIDECAR, "ep.mp3", &claims,
                                &diag, NULL), RE_OK);
    CHECK_INT(claims.count, 2);
    if (claims.count == 2) {
        CHECK_INT(claims.items[0].readable, 1);      /* a count written as a string: read, */
        CHECK_INT(re_claim_fixable(&claims.items[0]), 0);   /* but not rewritten */
        CHECK_INT(claims.items[1].readable, 0);
        CHECK_INT(re_claim_fixable(&claims.items[1]), 1);
    }
}

static void test_rss(void)
{
    const char *rss =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">\n"
        "<channel><title>Show</title>\n"
        "<item><title>Other</title>\n"
        "  <enclosure url=\"https://cdn.example/other.mp3\" length=\"5\" type=\"audio/mpeg\"/>\n"
        "  <itunes:duration>99</itunes:duration></item>\n"
        "<item><title>This</title>\n"
        "  <enclosure type=\"audio/mpeg\"\n"
        "     url=\"https://cdn.example/a%20b/ep%2Emp3?src=rss#t\" length='1393664'/>\n"
        "  <itunes:duration>2:53</itunes:duration>\n"
        "  <itunes:duration><![CDATA[173]]></itunes:duration>\n"
        "</item>\n"
        "</channel></rss>\n";
    CHECK_INT(extract("feed.xml", rss, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 3);
    if (claims.count != 3)
        return;
    CHECK_STR(claims.items[0].field, "enclosure length");
    CHECK_STR(claims.items[0].text, "1393664");
    CHECK_INT(claims.items[0].line, 9);
    CHECK_INT(memcmp(rss + claims.items[0].offset, "1393664", 7), 0);
    CHECK_STR(claims.items[1].field, "itunes:duration");
    CHECK_INT(claims.items[1].line, 10);
    CHECK_INT(memcmp(rss + claims.items[1].offset, "2:53", 4), 0);
    CHECK_INT(claims.items[2].length, 0);          /* CDATA: read, not rewritable */
    CHECK_STR(claims.items[2].text, "173");
    re_mp3_measurement m = measured(173ULL * 8000, 8000, 1393664);
    for (size_t i = 0; i < 3; i++)
        CHECK_INT(holds(i, &m, 0), 1);

    /* a feed with no item for this MP3 gives a note and no claim */
    CHECK_INT(extract("other.rss", "<rss><channel><item><enclosure url=\"x.mp3\" length=\"1\"/>"
                      "</item></channel></rss>", RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 0);
    CHECK_INT(notes.count, 1);

    CHECK_INT(extract("broken.xml", "<rss>\n<channel>\n<item></channel></rss>\n", RE_FILE_AUTO),
              RE_ERR_INPUT);
    CHECK_INT(diag.count, 1);
    if (diag.count == 1)
        CHECK_INT(diag.items[0].line, 3);
    /* entities are not expanded, nothing is fetched */
    CHECK_INT(extract("ent.xml", "<!DOCTYPE rss [<!ENTITY big \"1\">]>\n<rss><channel><item>"
                      "<enclosure url=\"ep.mp3\" length=\"&big;\"/></item></channel></rss>",
                      RE_FILE_AUTO), RE_OK);
}

static void test_atom(void)
{
    const char *atom =
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" "
        "xmlns:i=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><entry><title>x</title>"
        "<link rel=\"alternate\" href=\"https://e/ep.mp3\" length=\"1\"/>"
        "<link rel=\"enclosure\" href=\"/media/ep.mp3\" length=\"4032\" type=\"audio/mpeg\"/>"
        "<i:duration>00:00:01</i:duration></entry></feed>";
    CHECK_INT(extract("feed.atom", atom, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 2);
    if (claims.count != 2)
        return;
    CHECK_STR(claims.items[0].text, "4032");
    CHECK_STR(claims.items[1].text, "00:00:01");
    CHECK_INT(claims.items[1].style.clock_fields, 3);
    re_mp3_measurement m = measured(6000, 8000, 4033);
    CHECK_INT(holds(0, &m, 0), 0);
    CHECK_INT(holds(1, &m, 0), 1);   /* 0.75 s rounds to 1 s */
}

/* Wrong claims rewritten in their own notation; every other byte stays. */
static void test_fix(void)
{
    const char *page =
        "Duration: PT2M53S\r\n"
        "- Audio duration: 02:53 (approx.)\n"
        "Length: 173 s, Duration: 173.0 s\n"
        "Duration: PT173S and Duration: 0:02:53,\n"
        "Duration: PT3M\n";
    CHECK_INT(extract("p.md", page, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 6);
    re_mp3_measurement m = measured(3600ULL * 10 * 44100 + 22050, 44100, 1);  /* 10 h 0.5 s */
    for (size_t i = 0; i < claims.count; i++)
        CHECK_INT(holds(i, &m, 0), 0);
    char *out = NULL;
    size_t out_len = 0, fixed = 0;
    CHECK_INT(re_claims_fix(page, strlen(page), claims.items, claims.count, &out, &out_len, &fixed),
              RE_OK);
    CHECK_INT(fixed, 6);
    CHECK_STR(out,
              "Duration: PT10H0M1S\r\n"
              "- Audio duration: 600:01 (approx.)\n"
              "Length: 173 s, Duration: 36000.5 s\n"
              "Duration: PT36001S and Duration: 10:00:01,\n"
              "Duration: PT10H0M1S\n");
    /* the rewritten page holds */
    re_claim_list again;
    re_claim_list_init(&again);
    CHECK_INT(re_claims_extract("p.md", out, out_len, RE_FILE_AUTO, "ep.mp3", &again, &diag, NULL),
              RE_OK);
    CHECK_INT(again.count, 6);
    for (size_t i = 0; i < again.count; i++) {
        re_claim_judge(&again.items[i], &m, 0);
        CHECK_INT(again.items[i].ok, 1);
    }
    re_claim_list_free(&again);
    free(out);
    /* claims that hold are left alone */
    CHECK_INT(extract("ok.md", "Duration: PT1S\n", RE_FILE_AUTO), RE_OK);
    m = measured(44100, 44100, 1);
    CHECK_INT(holds(0, &m, 0), 1);
    CHECK_INT(re_claims_fix("Duration: PT1S\n", 15, claims.items, claims.count, &out, &out_len,
                            &fixed), RE_OK);
    CHECK_INT(fixed, 0);
    CHECK_STR(out, "Duration: PT1S\n");
    free(out);
}

static void test_measured_text(void)
{
    re_mp3_measurement m = measured(173515, 1000, 1);   /* 173.515 s */
    struct { const char *text; const char *measured; } cases[] = {
        { "Duration: PT1S", "PT2M54S" },
        { "Duration: PT1.5S", "PT2M53.5S" },
        { "Duration: PT1,25S", "PT2M53,52S" },
        { "Duration: PT1.000S", "PT2M53.515S" },
        { "Duration: PT1.000000S", "PT2M53.515000S" },
        { "Duration: PT9S", "PT2M54S" },
        { "Duration: PT90S", "PT174S" },
        { "Duration: PT90.0S", "PT173.5S" },
        { "Duration: 1", "174" },
        { "Duration: 0001", "0174" },
        { "Duration: 0:01", "2:54" },
        { "Duration: 00:00:01.0", "00:02:53.5" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(extract("m.txt", cases[i].text, RE_FILE_TEXT), RE_OK);
        CHECK_INT(claims.count, 1);
        if (claims.count != 1)
            continue;
        re_claim_judge(&claims.items[0], &m, 0);
        CHECK_STR(claims.items[0].measured, cases[i].measured);
    }
    /* a coarse claim holds within half its unit: PT3M for 2:53 */
    CHECK_INT(extract("m.txt", "Duration: PT3M", RE_FILE_TEXT), RE_OK);
    CHECK_INT(holds(0, &m, 0), 1);
    m = measured(149999, 1000, 1);
    CHECK_INT(holds(0, &m, 0), 0);
    /* a measurement without a rate (nothing decoded) holds nothing */
    m = measured(0, 0, 0);
    CHECK_INT(holds(0, &m, 0), 0);
}

static void test_tlen(void)
{
    re_mp3_measurement m = measured(173515, 1000, 1);
    char *texts[] = { "173515", "173516", "173517", "abc" };
    m.tlen = texts;
    m.tlen_count = 4;
    re_claim_list_free(&claims);
    re_claim_list_init(&claims);
    CHECK_INT(re_claims_from_tlen("ep.mp3", &m, &claims), RE_OK);
    CHECK_INT(claims.count, 4);
    CHECK_INT(holds(0, &m, 0), 1);
    CHECK_INT(holds(1, &m, 0), 1);
    CHECK_INT(holds(2, &m, 0), 0);
    CHECK_INT(holds(3, &m, 0), 0);
    if (claims.count == 4) {
        CHECK_INT(claims.items[0].line, 0);
        CHECK_INT(re_claim_fixable(&claims.items[0]), 0);   /* the MP3 is never rewritten */
    }
}

static char *data_path(const char *name)
{
    const char *dir = getenv("RE_TEST_DATA");
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/check/%s", dir ? dir : "tests/data", name);
    return buf;
}

static void test_measure(void)
{
    re_mp3_measurement m;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    /* 0.75 s at 8000 Hz, MPEG-2.5 layer III by lame -b 32 with its LAME tag: exact */
    CHECK_INT(re_mp3_measure(data_path("tone-8k-lame.mp3"), &m, &d), RE_OK);
    CHECK_INT(m.samples, 6000);
    CHECK_INT(m.sample_rate, 8000);
    CHECK_INT(m.channels, 1);
    CHECK_INT(m.mpeg_version, 25);
    CHECK_INT(m.bytes, 4032);
    CHECK_INT(m.has_lame_tag, 1);
    CHECK_INT(m.truncated, 0);
    CHECK_INT((int64_t)m.frames, m.tag_frames);
    re_mp3_measurement_free(&m);
    /* the same with `lame -t`: whole frames, delay and padding included */
    CHECK_INT(re_mp3_measure(data_path("tone-8k-notag.mp3"), &m, &d), RE_OK);
    CHECK_INT(m.samples, 13 * 576);
    CHECK_INT(m.has_lame_tag, 0);
    CHECK_INT(m.tag_frames, -1);
    re_mp3_measurement_free(&m);
    /* the first 2000 bytes: what decodes is measured, and flagged */
    CHECK_INT(re_mp3_measure(data_path("tone-8k-truncated.mp3"), &m, &d), RE_OK);
    CHECK_INT(m.truncated, 1);
    CHECK(m.samples > 0 && m.samples < 6000);
    re_mp3_measurement_free(&m);
    CHECK_INT(d.count, 0);
    /* not MP3s */
    CHECK_INT(re_mp3_measure(data_path("random.bin"), &m, &d), RE_ERR_FORMAT);
    CHECK_INT(m.samples, 0);
    CHECK_INT(re_mp3_measure(data_path("missing.mp3"), &m, &d), RE_ERR_READ);
    CHECK_INT(re_mp3_measure(getenv("RE_TEST_DATA") ? getenv("RE_TEST_DATA") : ".", &m, &d),
              RE_ERR_READ);   /* a directory */
    CHECK_INT(d.count, 3);
    re_diagnostics_free(&d);
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%.512s/%.512s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void touch(const char *dir, const char *name)
{
    put(dir, name, "");
}

/* check DIR's listing: MP3s and feeds sorted, the rest paired by name or left out. */
static void test_site_scan(void)
{
    char dir[512], fifo[600], sub[600];
    if (test_temp_dir(dir, sizeof dir, "check-site") != 0) {
        CHECK(0);
        return;
    }
    const char *names[] = { "b.mp3", "a.mp3", "a.json", "a.html", "a.md", "a.vtt",
                            "index.html", "show.txt", "cover.png", "CHANGELOG.md",
                            "old.html", "old.transcript.json", ".a.mp3.tmp", "empty.xml" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        touch(dir, names[i]);
    /* feeds by their root element, whatever the name ends with; a sitemap, an XHTML page or
     * XML that does not start as XML is none, and is left out without a word */
    put(dir, "feed.xml", "<?xml version=\"1.0\"?>\n<!-- a feed -->\n<rss version=\"2.0\">"
        "<channel><item><enclosure url=\"https://x.example/b.mp3\" length=\"9\"/></item>"
        "<item><enclosure url=\"https://x.example/gone.mp3\" length=\"1\"/></item>"
        "<item><enclosure url=\"https://x.example/a.mp3%00.x\" length=\"2\"/></item>"
        "</channel></rss>\n");   /* a %00 names no file, not a.mp3 */
    put(dir, "z.rss", "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><link rel=\"enclosure\" "
        "href=\"/x/%61%2emp3?v=1\" length=\"5\"/></entry><entry><link rel=\"enclosure\" "
        "href=\"b.mp3\" length=\"6\"/></entry></feed>\n");
    put(dir, "sitemap.xml", "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/"
        "schemas/sitemap/0.9\"><url><loc>https://x.example/a.html</loc></url></urlset>\n");
    put(dir, "page.xml", "<html xmlns=\"http://www.w3.org/1999/xhtml\"><body/></html>\n");
    put(dir, "broken.atom", "<config><unclosed>\n");
    put(dir, "bad.rss", "<rss version=\"2.0\"><channel>\n");   /* a feed, malformed */
    snprintf(fifo, sizeof fifo, "%.512s/c.mp3", dir);
    CHECK_INT(mkfifo(fifo, 0600), 0);   /* ours, but never opened */
    snprintf(sub, sizeof sub, "%.512s/sub.mp3", dir);
    CHECK_INT(mkdir(sub, 0700), 0);     /* a folder is not looked into */
    re_check_site site;
    re_diagnostics errors, warnings;
    re_diagnostics_init(&errors, 0);
    re_diagnostics_init(&warnings, 0);
    CHECK_INT(re_check_site_scan(dir, &site, &errors, &warnings), RE_OK);
    CHECK_INT(site.mp3_count, 2);
    if (site.mp3_count == 2) {
        CHECK(strstr(site.mp3s[0], "/a.mp3") != NULL);
        CHECK(strstr(site.mp3s[1], "/b.mp3") != NULL);
    }
    CHECK_INT(site.feed_count, 2);
    if (site.feed_count == 2) {
        CHECK(strstr(site.feeds[0], "/feed.xml") != NULL);
        CHECK(strstr(site.feeds[1], "/z.rss") != NULL);
        /* each parsed once, its items paired with their MP3s: [feed * mp3_count + mp3] */
        CHECK_INT(site.feed_items[0], 3);
        CHECK_INT(site.feed_matched[0], 1);
        CHECK_INT(site.feed_claims[0].count, 0);             /* feed.xml, a.mp3 */
        CHECK_INT(site.feed_claims[1].count, 1);             /* feed.xml, b.mp3 */
        CHECK_INT(site.feed_claims[2].count, 1);             /* z.rss, a.mp3 */
        CHECK_INT(site.feed_claims[3].count, 1);             /* z.rss, b.mp3 */
        if (site.feed_claims[3].count == 1)
            CHECK_STR(site.feed_claims[3].items[0].text, "6");
        CHECK_INT(site.feed_claim_count[0], 1);
        CHECK_INT(site.feed_claim_count[1], 2);
    }
    /* bad.rss: malformed, once; the scan goes on */
    CHECK_INT(errors.count, 1);
    if (errors.count == 1)
        CHECK(strstr(errors.items[0].file, "/bad.rss") != NULL);
    CHECK_INT(site.input_status, RE_ERR_INPUT);
    /* c.mp3 (a FIFO), old.html and old.transcript.json (no old.mp3) */
    CHECK_INT(site.not_checked, 3);
    /* and feed.xml has no item for a.mp3: one warning */
    CHECK_INT(warnings.count, 4);
    for (size_t i = 0; i < warnings.count; i++)
        CHECK(strstr(warnings.items[i].message, "not checked") == warnings.items[i].message
              || (strstr(warnings.items[i].file, "/feed.xml")
                  && strstr(warnings.items[i].message, "named a.mp3 (1 of the folder's 2")));
    re_check_site_free(&site);
    CHECK_INT(re_check_site_scan(fifo, &site, &errors, &warnings), RE_ERR_READ);
    CHECK_INT(site.mp3_count, 0);
    re_diagnostics_free(&errors);
    re_diagnostics_free(&warnings);
    test_remove_tree(dir);
}

/* check DIR reads what it listed only while it is still the running user's or root's: an MP3
 * (or a feed) swapped in since by another user is not read (a run in site mode on another
 * user's files stands for that swap). Needs root to give the files away. */
static void test_site_run_trusts(void)
{
    if (geteuid() != 0) {
        printf("test_check: site-run trust: not root, not run\n");
        return;
    }
    char dir[512], mp3[700], feed[700];
    if (test_temp_dir(dir, sizeof dir, "check-site-trust") != 0) {
        CHECK(0);
        return;
    }
    snprintf(mp3, sizeof mp3, "%.512s/ep.mp3", dir);
    snprintf(feed, sizeof feed, "%.512s/feed.xml", dir);
    FILE *in = fopen(data_path("tone-8k-lame.mp3"), "rb"), *out = fopen(mp3, "wb");
    CHECK(in && out);
    char buf[8192];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK_INT(fwrite(buf, 1, n, out), n);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    put(dir, "feed.xml", "<rss version=\"2.0\"><channel><item><enclosure url=\"ep.mp3\" "
        "length=\"4032\"/></item></channel></rss>\n");
    CHECK_INT(chown(mp3, 65534, 65534), 0);
    CHECK_INT(chown(feed, 65534, 65534), 0);
    const char *feeds[] = { feed };
    re_check_options opt;
    memset(&opt, 0, sizeof opt);
    opt.mp3_path = mp3;
    opt.no_sidecar = 1;
    re_check_report rep;
    /* named (not site mode): the user asked for these files, so they are read */
    opt.shared_files = feeds;
    opt.shared_count = 1;
    CHECK_INT(re_check_run(&opt, &rep), RE_OK);
    CHECK_INT(rep.measured, 1);
    CHECK_INT(rep.claims.count, 1);
    re_check_report_free(&rep);
    /* site mode: neither is read */
    opt.site = 1;
    opt.shared_count = 0;
    CHECK_INT(re_check_run(&opt, &rep), RE_OK);
    CHECK_INT(rep.measured, 0);
    CHECK_INT(rep.not_checked, 1);
    CHECK_INT(rep.warnings.count, 1);
    if (rep.warnings.count == 1)
        CHECK(strstr(rep.warnings.items[0].message, "not checked: it belongs to another user "
                     "(uid 65534)") != NULL);
    re_check_report_free(&rep);
    CHECK_INT(chown(mp3, 0, 0), 0);
    opt.shared_count = 1;
    CHECK_INT(re_check_run(&opt, &rep), RE_OK);
    CHECK_INT(rep.measured, 1);
    CHECK_INT(rep.claims.count, 0);
    CHECK_INT(rep.not_checked, 1);
    CHECK_INT(rep.file_count, 1);
    if (rep.file_count == 1)
        CHECK_INT(rep.files[0].foreign_owner, 65534);
    re_check_report_free(&rep);
    test_remove_tree(dir);
}

/* --tolerance at its edges, for each kind of claim in its own unit, on both sides of the
 * measurement: a count of samples is loosened by the samples the tolerance lasts at the rate
 * (1 ms at 22050 Hz is 22.05 samples: 22 within, 23 not; a whole second off is never within
 * 1 ms), milliseconds and durations by the time; sample rates and sizes never. */
static void test_tolerance_edges(void)
{
    const char *side =
        "{\"duration\": \"PT10S\", \"duration_ms\": 10000, \"samples\": 220500, "
        "\"sample_rate\": 22050, \"bytes\": 1000, \"generator\": \"render-episode 0.1.0\"}";
    CHECK_INT(extract("ep.json", side, RE_FILE_AUTO), RE_OK);
    CHECK_INT(claims.count, 5);
    if (claims.count != 5)
        return;
    const uint64_t n = 220500;   /* 10 s at 22050 Hz */
    for (int sign = -1; sign <= 1; sign += 2) {
        re_mp3_measurement m = measured(n + (uint64_t)(sign * 22), 22050, 1000);
        CHECK_INT(holds(2, &m, 0), 0);
        CHECK_INT(holds(2, &m, 1000), 1);                     /* 22 samples: within 1 ms */
        CHECK_INT(claims.items[2].within_tolerance, 1);
        m = measured(n + (uint64_t)(sign * 23), 22050, 1000);
        CHECK_INT(holds(2, &m, 1000), 0);                     /* 23: 1.04 ms, not */
        m = measured(n + (uint64_t)(sign * 22050), 22050, 1000);
        CHECK_INT(holds(2, &m, 1000), 0);                     /* a whole second: not in 1 ms */
        CHECK_INT(holds(2, &m, 999999), 0);
        CHECK_INT(holds(2, &m, 1000000), 1);                  /* but within 1 s */
        m = measured(n + (uint64_t)(sign * 22051), 22050, 1000);
        CHECK_INT(holds(2, &m, 1000000), 0);
        /* the same counts at 48000 Hz: 1 ms is 48 samples */
        m = measured(n + (uint64_t)(sign * 48), 48000, 1000);
        CHECK_INT(holds(2, &m, 1000), 1);
        m = measured(n + (uint64_t)(sign * 49), 48000, 1000);
        CHECK_INT(holds(2, &m, 1000), 0);
        /* duration_ms 10000: exact within the 1 ms it was rounded down to (22.05 samples);
         * --tolerance 2ms is 44.1 samples: 44 within, 45 not */
        m = measured(n + (uint64_t)(sign * 22), 22050, 1000);
        CHECK_INT(holds(1, &m, 0), 1);
        m = measured(n + (uint64_t)(sign * 23), 22050, 1000);
        CHECK_INT(holds(1, &m, 0), 0);
        m = measured(n + (uint64_t)(sign * 44), 22050, 1000);
        CHECK_INT(holds(1, &m, 1000), 0);
        CHECK_INT(holds(1, &m, 2000), 1);
        m = measured(n + (uint64_t)(sign * 45), 22050, 1000);
        CHECK_INT(holds(1, &m, 2000), 0);
        m = measured(n + (uint64_t)(sign * 22050), 22050, 1000);
        CHECK_INT(holds(1, &m, 1000), 0);                     /* a second off: not in 1 ms */
        CHECK_INT(holds(1, &m, 1000000), 1);
        /* PT10S: whole seconds half up (9.5 s is 10, 10.5 s is 11); beyond, the time to it:
         * 10.75 s is 0.75 s off, within 750 ms and not 749.9 ms */
        m = measured(n + (uint64_t)(sign * 16537), 22050, 1000);   /* 10 -/+ 0.74998 s */
        CHECK_INT(holds(0, &m, 0), 0);
        CHECK_INT(holds(0, &m, 749999), 1);
        m = measured(n + (uint64_t)(sign * 16538), 22050, 1000);   /* 10 -/+ 0.75002 s */
        CHECK_INT(holds(0, &m, 750000), 0);
        CHECK_INT(holds(0, &m, 751000), 1);
    }
    /* a sample rate or a size is never loosened, by any tolerance */
    re_mp3_measurement m = measured(n, 22051, 1001);
    CHECK_INT(holds(3, &m, 1000000000), 0);
    CHECK_INT(holds(4, &m, 1000000000), 0);
    m = measured(n, 22050, 999);
    CHECK_INT(holds(4, &m, 1000000000), 0);
}

int main(void)
{
    re_claim_list_init(&claims);
    re_diagnostics_init(&diag, 0);
    re_diagnostics_init(&notes, 0);
    test_sniff();
    test_reference_page();
    test_markdown_forms();
    test_html();
    test_json();
    test_sidecar();
    test_tolerance_edges();
    test_rss();
    test_atom();
    test_fix();
    test_measured_text();
    test_tlen();
    test_measure();
    test_site_scan();
    test_site_run_trusts();
    re_claim_list_free(&claims);
    re_diagnostics_free(&diag);
    re_diagnostics_free(&notes);
    return check_finish("test_check");
}
