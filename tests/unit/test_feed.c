/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_feed.c - the feed stage: RFC 822 dates, URLs, the show file, sidecars, sorting,
 * channel defaults, escaping, and the written XML read back by libxml2 and by check. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "testkit.h"
#include "check.h"
#include "disclosure.h"
#include "feed.h"
#include "sha256.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static void rfc(const char *iso, const char *expect, int64_t expect_ms)
{
    char out[RE_RFC822_MAX] = "";
    int64_t ms = 12345;
    CHECK_INT(re_rfc822_from_iso(iso, out, &ms), RE_OK);
    CHECK_STR(out, expect);
    CHECK_INT(ms, expect_ms);
}

static void rfc_bad(const char *iso)
{
    char out[RE_RFC822_MAX];
    re_status st = re_rfc822_from_iso(iso, out, NULL);
    if (st != RE_ERR_INPUT)
        fprintf(stderr, "accepted: %s\n", iso);
    CHECK_INT(st, RE_ERR_INPUT);
}

/* a macro, so that the compiler checks the format against asprintf's arguments */
#define SIDECAR_FMT \
    "{\n  \"title\": \"%s\",\n  \"show\": %s,\n  \"published\": %s,\n  \"summary\": \"Sum & more\",\n" \
    "  \"author\": \"The team\",\n  \"language\": \"en-us\",\n  \"episode\": %s,\n" \
    "  \"duration\": \"PT2S\",\n  \"duration_ms\": 1500,\n  \"samples\": %s,\n" \
    "  \"sample_rate\": 22050,\n  \"bytes\": %s,\n  \"format\": \"%s\",\n  \"chapters\": [],\n" \
    "  \"voices\": [],\n  \"engine\": \"espeak-ng 1.51\",\n  \"encoder\": \"LAME\",\n" \
    "  \"generator\": \"render-episode 0.1.0\"\n}\n"

static char *sidecar(const char *title, const char *show, const char *published, const char *episode,
                     const char *samples, const char *bytes, const char *format)
{
    char *s = NULL;
    if (asprintf(&s, SIDECAR_FMT, title, show, published, episode, samples, bytes, format) < 0)
        return NULL;
    return s;
}

static re_status read_episode(const char *name, const char *json, re_feed_episode *e,
                              re_sidecar_kind *kind, re_diagnostics *d)
{
    return re_feed_episode_read(name, json, strlen(json), e, kind, d);
}

static int has_message(const re_diagnostics *d, unsigned line, unsigned col, const char *part)
{
    for (size_t i = 0; i < d->count; i++)
        if (d->items[i].line == line && d->items[i].col == col && strstr(d->items[i].message, part))
            return 1;
    return 0;
}

static void dump(const re_diagnostics *d)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "  %s:%u:%u: %s\n", d->items[i].file, d->items[i].line, d->items[i].col,
                d->items[i].message);
}

/* ---- dates -------------------------------------------------------------------------------- */

static void test_rfc822(void)
{
    rfc("2026-11-30T09:00:00Z", "Mon, 30 Nov 2026 09:00:00 +0000", 1796029200000LL);
    rfc("2026-07-14", "Tue, 14 Jul 2026 00:00:00 +0000", 1783987200000LL);
    rfc("2026-07-14T13:00:41.250-05:30", "Tue, 14 Jul 2026 13:00:41 -0530", 1784053841250LL);
    rfc("2026-11-30T09:00+01:00", "Mon, 30 Nov 2026 09:00:00 +0100", 1796025600000LL);
    rfc("2024-02-29", "Thu, 29 Feb 2024 00:00:00 +0000", 1709164800000LL);
    rfc("2000-03-01", "Wed, 01 Mar 2000 00:00:00 +0000", 951868800000LL);
    rfc("1970-01-01T00:00:00Z", "Thu, 01 Jan 1970 00:00:00 +0000", 0);
    rfc("1969-12-31T23:59:59Z", "Wed, 31 Dec 1969 23:59:59 +0000", -1000);
    rfc("0999-06-15T12:00:00+14:00", "Sat, 15 Jun 0999 12:00:00 +1400", -30627511200000LL);
    rfc("2026-01-01T00:00:00.9999Z", "Thu, 01 Jan 2026 00:00:00 +0000", 1767225600999LL);

    rfc_bad("");
    rfc_bad("2026-11-3");
    rfc_bad("2023-02-29");
    rfc_bad("2026-13-01");
    rfc_bad("2026-04-31");
    rfc_bad("2026-11-30T09:00:00");        /* no zone */
    rfc_bad("2026-11-30 09:00:00Z");
    rfc_bad("2026-11-30T24:00:00Z");
    rfc_bad("2026-11-30T09:60Z");
    rfc_bad("2026-11-30T09:00:60Z");
    rfc_bad("2026-11-30T09:00:00.Z");
    rfc_bad("2026-11-30T09:00:00+14:01");
    rfc_bad("2026-11-30T09:00:00+0100");
    rfc_bad("2026-11-30T09:00:00Zjunk");
    rfc_bad("2026-11-30junk");
    rfc_bad("+2026-11-30");
}

/* ---- URLs and guids ----------------------------------------------------------------------- */

static void test_urls(void)
{
    char *u = re_feed_url("https://example.org/pod/", "ep.mp3");
    CHECK_STR(u, "https://example.org/pod/ep.mp3");
    free(u);
    u = re_feed_url("https://example.org/pod", "ep.mp3");
    CHECK_STR(u, "https://example.org/pod/ep.mp3");
    free(u);
    u = re_feed_url("https://example.org/pod///", "ep.mp3");
    CHECK_STR(u, "https://example.org/pod/ep.mp3");
    free(u);
    u = re_feed_url("http://example.org", "Café & co #1?.mp3");
    CHECK_STR(u, "http://example.org/Caf%C3%A9%20%26%20co%20%231%3F.mp3");
    free(u);
    u = re_feed_url("http://example.org", "a-b_c.d~e.transcript.json");
    CHECK_STR(u, "http://example.org/a-b_c.d~e.transcript.json");
    free(u);

    const char *why = NULL;
    CHECK(re_feed_base_url_ok("https://example.org", &why) && why == NULL);
    CHECK(re_feed_base_url_ok("http://example.org:8080/a%20b/", NULL));
    CHECK(!re_feed_base_url_ok("ftp://example.org/", &why) && why != NULL);
    CHECK(!re_feed_base_url_ok("example.org/pod", NULL));
    CHECK(!re_feed_base_url_ok("https://", NULL));
    CHECK(!re_feed_base_url_ok("https:///path", NULL));
    CHECK(!re_feed_base_url_ok("https://example.org/a b", NULL));
    CHECK(!re_feed_base_url_ok("https://example.org/?x=1", NULL));
    CHECK(!re_feed_base_url_ok("https://example.org/#top", NULL));
    CHECK(!re_feed_base_url_ok("https://example.org/\"x", NULL));
    CHECK(!re_feed_base_url_ok("https://exämple.org/", NULL));

    /* podcast:guid: the namespace's own examples (docs/1.0.md#guid); scheme and trailing
     * slashes do not count */
    char uuid[RE_UUID_TEXT_SIZE];
    re_feed_podcast_guid("https://mp3s.nashownotes.com/pc20rss.xml", uuid);
    CHECK_STR(uuid, "917393e3-1b1e-5cef-ace4-edaa54e1f810");
    re_feed_podcast_guid("http://podnews.net/rss//", uuid);
    CHECK_STR(uuid, "9b024349-ccf0-5f69-a609-6b82873eab3c");
    CHECK(re_uuid_valid("917393e3-1b1e-5cef-ace4-edaa54e1f810"));
    CHECK(!re_uuid_valid("917393e3-1b1e-5cef-ace4-edaa54e1f81"));
    CHECK(!re_uuid_valid("917393e3x1b1e-5cef-ace4-edaa54e1f810"));
    CHECK(!re_uuid_valid("917393e3-1b1e-5cef-ace4-edaa54e1f8100"));
    CHECK_INT(re_uuid5("not a uuid", "x", uuid), RE_ERR_INVALID);

    /* item guids: UUIDv5 of the stem in the channel's namespace, or the script's own */
    re_feed_episode e = { .stem = "ep2", .number = -1, .season = -1 };
    char *g = re_feed_item_guid(&e, "11111111-2222-5333-8444-555555555555");
    CHECK_STR(g, "f62f46b8-7dfa-56f6-83d6-35ab6ccabb3e");   /* python3 uuid.uuid5 */
    free(g);
    e.guid = "my-own-guid";
    g = re_feed_item_guid(&e, "11111111-2222-5333-8444-555555555555");
    CHECK_STR(g, "my-own-guid");
    free(g);
    e.guid = NULL;
    CHECK(re_feed_item_guid(&e, "nope") == NULL);
    /* a numbered episode: "SEASON/EPISODE" (0: no season), the type after a trailer's or a
     * bonus episode's; its stem plays no part (python3 uuid.uuid5) */
    static const struct { long season; re_episode_type type; const char *uuid; } numbered[] = {
        { -1, RE_EPISODE_TYPE_UNSET, "125ba248-6ab5-5c25-9b80-a09a3a58c66d" },   /* 0/3 */
        { 2, RE_EPISODE_TYPE_UNSET, "9dd322ff-d4b2-5432-9e39-2ec531fc7d1d" },    /* 2/3 */
        { 2, RE_EPISODE_FULL, "9dd322ff-d4b2-5432-9e39-2ec531fc7d1d" },          /* 2/3 */
        { 2, RE_EPISODE_BONUS, "59eba6cc-d449-54c2-9501-a915c6b41756" },         /* 2/3/bonus */
        { 2, RE_EPISODE_TRAILER, "c8680faf-f5b2-5df3-8e59-f3e21f1caf7d" },       /* 2/3/trailer */
    };
    for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
        re_feed_episode n = { .stem = i % 2 ? "renamed" : "ep3", .number = 3,
                              .season = numbered[i].season, .type = numbered[i].type };
        g = re_feed_item_guid(&n, "11111111-2222-5333-8444-555555555555");
        CHECK_STR(g, numbered[i].uuid);
        free(g);
        n.guid = "pinned";
        g = re_feed_item_guid(&n, "11111111-2222-5333-8444-555555555555");
        CHECK_STR(g, "pinned");
        free(g);
    }
}

/* ---- one episode, one item ---------------------------------------------------------------- */

/* A set of STEM.json in the feed, claiming episode NUMBER (no season) and GUID when given. */
static void add_claiming_set(re_feed *feed, const char *stem, long number, const char *guid)
{
    re_feed_episode e = { .number = number, .season = -1, .dated = 0 };
    e.stem = strdup(stem);
    CHECK(asprintf(&e.sidecar_name, "%s.json", stem) > 0);
    e.title = strdup(stem);
    e.guid = guid ? strdup(guid) : NULL;
    CHECK_INT(re_feed_add(feed, &e), RE_OK);
}

static void test_claims(void)
{
    char why[RE_CLAIM_WHY_MAX];
    re_episode_claim a = { .season = 1, .number = 5 }, b = a;
    CHECK(re_episode_claims_same(&a, &b, why));
    CHECK_STR(why, "episode 5 of season 1");
    b.season = 2;
    CHECK(!re_episode_claims_same(&a, &b, why));
    b.season = 1;
    b.type = RE_EPISODE_FULL;   /* no type: is a full episode */
    CHECK(re_episode_claims_same(&a, &b, why));
    b.type = RE_EPISODE_BONUS;   /* a bonus episode may share its episode's number */
    CHECK(!re_episode_claims_same(&a, &b, why));
    a.type = RE_EPISODE_BONUS;
    CHECK(re_episode_claims_same(&a, &b, why));
    CHECK_STR(why, "the bonus episode for episode 5 of season 1");
    a = (re_episode_claim){ .season = -1, .number = 7 };
    b = a;
    CHECK(re_episode_claims_same(&a, &b, why));
    CHECK_STR(why, "episode 7 (no season)");
    a.number = b.number = 0;   /* no number in the feed: no claim */
    CHECK(!re_episode_claims_same(&a, &b, why));
    b.number = -1;
    a.number = -1;   /* unnumbered, no guid: each set is its file */
    CHECK(!re_episode_claims_same(&a, &b, why));
    a.guid = b.guid = "urn:x";
    CHECK(re_episode_claims_same(&a, &b, why));
    CHECK_STR(why, "the guid 'urn:x' (the script's guid:)");
    b.guid = "urn:y";
    a.item_guid = b.item_guid = "same";
    CHECK(re_episode_claims_same(&a, &b, why));
    CHECK_STR(why, "the item guid 'same'");

    /* the feed: one error per set that repeats an episode, at the later sidecar, against the
     * first set of each claim it shares */
    re_feed feed;
    re_feed_init(&feed);
    feed.dir = "out";
    snprintf(feed.channel_guid, sizeof feed.channel_guid, "%s",
             "11111111-2222-5333-8444-555555555555");
    static const struct { const char *stem; long number; const char *guid; } sets[] = {
        { "a", 1, NULL }, { "b", 2, NULL }, { "c", 1, NULL },   /* c repeats a's number */
        { "d", -1, "urn:d" }, { "e", -1, "urn:d" },              /* e repeats d's guid */
        { "f", 3, "urn:f" }, { "g", 3, NULL },                   /* g: f pinned, same number */
        { "h", -1, "125ba248-6ab5-5c25-9b80-a09a3a58c66d" }, { "i", 3, NULL },  /* h: 0/3 */
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        add_claiming_set(&feed, sets[i].stem, sets[i].number, sets[i].guid);
    re_diagnostics err;
    re_diagnostics_init(&err, 50);
    CHECK_INT(re_feed_check_identities(&feed, &err), RE_ERR_INPUT);
    static const struct { const char *file, *message; } expected[] = {
        { "out/c.json", "the same episode as a.json: both claim episode 1 (no season)" },
        { "out/e.json", "the same episode as d.json: both claim the guid 'urn:d'" },
        { "out/h.json", "the same episode as g.json: both claim the item guid" },
        { "out/i.json", "the same episode as g.json: both claim episode 3 (no season)" },
        { "out/g.json", "the same episode as f.json: both claim episode 3 (no season)" },
        { "out/i.json", "the same episode as f.json: both claim episode 3 (no season)" },
    };
    CHECK_INT((long)err.count, (long)(sizeof expected / sizeof expected[0]));
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        int seen = 0;
        for (size_t i = 0; i < err.count; i++)
            seen |= strcmp(err.items[i].file, expected[k].file) == 0
                    && strstr(err.items[i].message, expected[k].message) != NULL
                    && strstr(err.items[i].message, "remove the set that is no longer that "
                                                    "episode") != NULL;
        if (!seen)
            dump(&err);
        CHECK(seen);
    }
    re_diagnostics_free(&err);
    /* without the repeats, the feed passes */
    re_feed_episode_free(&feed.episodes[8]);
    re_feed_episode_free(&feed.episodes[7]);
    re_feed_episode_free(&feed.episodes[6]);
    re_feed_episode_free(&feed.episodes[4]);
    re_feed_episode_free(&feed.episodes[2]);
    feed.episodes[2] = feed.episodes[3];
    feed.episodes[3] = feed.episodes[5];
    feed.count = 4;
    re_diagnostics_init(&err, 50);
    CHECK_INT(re_feed_check_identities(&feed, &err), RE_OK);
    CHECK_INT((long)err.count, 0);
    re_diagnostics_free(&err);
    re_feed_free(&feed);
}

/* Every set of a repeated episode is named, also when a match through another rule comes
 * first in its run: a (5, guid X), b (6, guid X), c (6) names b against a and c against b;
 * o (5, guid Y), q (6, guid Y) and p (6) name q against o and against p. */
static void test_identity_runs(void)
{
    re_feed feed;
    re_feed_init(&feed);
    feed.dir = "out";
    snprintf(feed.channel_guid, sizeof feed.channel_guid, "%s",
             "11111111-2222-5333-8444-555555555555");
    static const struct { const char *stem; long number; const char *guid; } sets[] = {
        { "a", 5, "urn:x" }, { "b", 6, "urn:x" }, { "c", 6, NULL },
        { "o", 15, "urn:y" }, { "p", 16, NULL }, { "q", 16, "urn:y" },
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        add_claiming_set(&feed, sets[i].stem, sets[i].number, sets[i].guid);
    re_diagnostics err;
    re_diagnostics_init(&err, 50);
    CHECK_INT(re_feed_check_identities(&feed, &err), RE_ERR_INPUT);
    static const struct { const char *file, *message; } expected[] = {
        { "out/b.json", "the same episode as a.json: both claim the guid 'urn:x'" },
        { "out/c.json", "the same episode as b.json: both claim episode 6 (no season)" },
        { "out/q.json", "the same episode as o.json: both claim the guid 'urn:y'" },
        { "out/q.json", "the same episode as p.json: both claim episode 16 (no season)" },
    };
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        int seen = 0;
        for (size_t i = 0; i < err.count; i++)
            seen |= strcmp(err.items[i].file, expected[k].file) == 0
                    && strstr(err.items[i].message, expected[k].message) != NULL;
        if (!seen)
            dump(&err);
        CHECK(seen);
    }
    CHECK_INT((long)err.count, (long)(sizeof expected / sizeof expected[0]));
    re_diagnostics_free(&err);
    re_feed_free(&feed);
}

/* ---- the schedule ------------------------------------------------------------------------- */

static void test_schedule(void)
{
    re_feed feed;
    re_feed_init(&feed);
    feed.dir = "out";
    static const struct { const char *stem; const char *published; } sets[] = {
        { "later", "2026-12-01T11:00:00+01:00" }, { "now", "2026-12-01T09:00:00Z" },
        { "earlier", "2026-11-30" }, { "undated", NULL },
    };
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        re_feed_episode e = { .number = -1, .season = -1 };
        e.stem = strdup(sets[i].stem);
        CHECK(asprintf(&e.sidecar_name, "%s.json", sets[i].stem) > 0);
        e.title = strdup(sets[i].stem);
        if (sets[i].published) {
            e.published = strdup(sets[i].published);
            e.dated = re_rfc822_from_iso(e.published, e.pub_date, &e.instant_ms) == RE_OK;
        }
        CHECK_INT(re_feed_add(&feed, &e), RE_OK);
    }
    re_feed_sort(feed.episodes, feed.count);
    int64_t now = feed.episodes[1].instant_ms;   /* 2026-12-01T09:00:00Z */
    re_diagnostics warn;
    re_diagnostics_init(&warn, 50);
    size_t left = 9;
    CHECK_INT(re_feed_leave_out_future(&feed, now + 3599999, &left, &warn), RE_OK);
    CHECK_INT((long)left, 1);
    CHECK_INT((long)feed.count, 3);
    CHECK_STR(feed.episodes[0].stem, "now");       /* the order is kept */
    CHECK_STR(feed.episodes[1].stem, "earlier");
    CHECK_STR(feed.episodes[2].stem, "undated");   /* undated: never held back */
    CHECK_INT((long)warn.count, 1);
    CHECK_STR(warn.items[0].file, "out/later.json");
    CHECK(has_message(&warn, 0, 0, "not in the feed yet: it is published "
                      "2026-12-01T11:00:00+01:00, later than now (2026-12-01T09:59:59Z)"));
    re_diagnostics_free(&warn);
    re_diagnostics_init(&warn, 50);
    CHECK_INT(re_feed_leave_out_future(&feed, now, &left, &warn), RE_OK);   /* exactly now: in */
    CHECK_INT((long)left, 0);
    CHECK_INT((long)feed.count, 3);
    CHECK_INT(re_feed_leave_out_future(&feed, now - 1, &left, &warn), RE_OK);
    CHECK_INT((long)left, 1);
    CHECK_INT((long)feed.count, 2);
    CHECK_STR(feed.episodes[0].stem, "earlier");
    re_diagnostics_free(&warn);
    re_feed_free(&feed);
}

/* ---- the show file ------------------------------------------------------------------------ */

static void test_show_valid(void)
{
    const char *text =
        "\xEF\xBB\xBF# The channel\r\n"
        "title: Café Weekly\r\n"
        "\n"
        "description: What changed & why <really>.\n"
        "author: The team\n"
        "language: en-GB\n"
        "link: https://example.org/\n"
        "image: https://example.org/cover.jpg?v=2\n"
        "category: Leisure > Home & Garden\n"
        "explicit: false\n"
        "owner_name:   Ada   \n"
        "owner_email: ada@example.org\n"
        "   # an indented comment\n";
    re_show s;
    re_show_init(&s);
    re_diagnostics d;
    re_diagnostics_init(&d, 50);
    CHECK_INT(re_show_parse("show.txt", text, strlen(text), &s, &d), RE_OK);
    dump(&d);
    CHECK_STR(s.title, "Café Weekly");
    CHECK_STR(s.description, "What changed & why <really>.");
    CHECK_STR(s.author, "The team");
    CHECK_STR(s.language, "en-GB");
    CHECK_STR(s.link, "https://example.org/");
    CHECK_STR(s.image, "https://example.org/cover.jpg?v=2");
    CHECK_STR(s.category, "Leisure");
    CHECK_STR(s.subcategory, "Home & Garden");
    CHECK_INT(s.explicit_content, 0);
    CHECK_STR(s.owner_name, "Ada");
    CHECK_STR(s.owner_email, "ada@example.org");

    /* a second file replaces what it gives and keeps the rest */
    const char *more = "category: Education\nexplicit: true\n";
    CHECK_INT(re_show_parse("more.txt", more, strlen(more), &s, &d), RE_OK);
    CHECK_STR(s.category, "Education");
    CHECK(s.subcategory == NULL);
    CHECK_INT(s.explicit_content, 1);
    CHECK_STR(s.title, "Café Weekly");
    re_show_free(&s);
    re_show_free(&s);   /* twice is harmless */

    re_show_init(&s);
    CHECK_INT(re_show_parse("empty.txt", "", 0, &s, &d), RE_OK);
    CHECK(s.title == NULL && s.explicit_content == -1);
    CHECK(s.guid == NULL && s.medium == NULL && s.locked == -1 && s.disclosure == 1);
    CHECK_INT(d.count, 0);

    /* Podcasting 2.0 keys and a local image */
    const char *p20 = "guid: 917393E3-1b1e-5cef-ace4-edaa54e1f810\nlocked: yes\nmedium: audiobook\n"
                      "disclosure: false\nimage: cover art.png\ncategory: TV & Film > After Shows\n";
    CHECK_INT(re_show_parse("p20.txt", p20, strlen(p20), &s, &d), RE_OK);
    dump(&d);
    CHECK_STR(s.guid, "917393E3-1b1e-5cef-ace4-edaa54e1f810");
    CHECK_INT(s.locked, 1);
    CHECK_STR(s.medium, "audiobook");
    CHECK_INT(s.disclosure, 0);
    CHECK_STR(s.image, "cover art.png");
    CHECK_STR(s.subcategory, "After Shows");
    CHECK_INT(s.serial, 0);
    CHECK(s.copyright == NULL);
    const char *channel = "type: serial\ncopyright: © 2026 Ada & Bob <a@b>\n";
    CHECK_INT(re_show_parse("type.txt", channel, strlen(channel), &s, &d), RE_OK);
    CHECK_INT(s.serial, 1);
    CHECK_STR(s.copyright, "© 2026 Ada & Bob <a@b>");
    const char *episodic = "type: episodic\n";
    CHECK_INT(re_show_parse("type2.txt", episodic, strlen(episodic), &s, &d), RE_OK);
    CHECK_INT(s.serial, 0);
    re_show_free(&s);
    re_diagnostics_free(&d);

    /* each refused alone, with its reason */
    static const struct { const char *line, *message; } refused[] = {
        { "category: Technology > Software How-To", "is not one of Apple's subcategories" },
        { "category: Podcasting", "is not one of Apple's categories" },
        { "category: technology", "is not one of Apple's categories" },
        { "guid: render-episode:Show:ep1", "is not a UUID" },
        { "locked: true", "locked must be yes or no" },
        { "medium: radio", "medium 'radio' is not one of" },
        { "medium: podcastL", "is not one of" },
        { "disclosure: off", "disclosure must be true or false" },
        { "type: Serial", "type must be episodic or serial, not 'Serial'" },
        { "type: weekly", "type must be episodic or serial, not 'weekly'" },
        { "image: ../cover.jpg", "neither an http(s) URL nor the name of a file" },
        { "image: art/cover.jpg", "neither an http(s) URL nor the name of a file" },
        { "image: .cover.jpg", "neither an http(s) URL nor the name of a file" },
        { "image: ftp://e.org/c.jpg", "must start with http:// or https://" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        re_show_init(&s);
        re_diagnostics_init(&d, 50);
        CHECK_INT(re_show_parse("one.txt", refused[i].line, strlen(refused[i].line), &s, &d),
                  RE_ERR_INPUT);
        CHECK(d.count == 1 && strstr(d.items[0].message, refused[i].message));
        if (d.count != 1 || !strstr(d.items[0].message, refused[i].message))
            dump(&d);
        re_show_free(&s);
        re_diagnostics_free(&d);
    }
}

static void test_show_errors(void)
{
    const char *text =
        "title: One\n"                         /* 1 */
        "title: Two\n"                         /* 2 duplicate */
        "colour: blue\n"                       /* 3 unknown */
        "description:\n"                       /* 4 empty */
        " author: indented\n"                  /* 5 */
        "language: english!\n"                 /* 6 */
        "explicit: yes\n"                      /* 7 */
        "link: www.example.org\n"              /* 8 */
        "category: A > B > C\n"                /* 9 */
        "owner_email: nobody\n"                /* 10 */
        "Title: Caps\n"                        /* 11 */
        "just text\n"                          /* 12 */
        "image: https://example.org/a b.jpg\n" /* 13 */
        "category: > Sub\n"                    /* 14 duplicate, checked first */
        "type: trailer\n";                     /* 15 */
    re_show s;
    re_show_init(&s);
    s.title = strdup("kept");
    re_diagnostics d;
    re_diagnostics_init(&d, 50);
    CHECK_INT(re_show_parse("show.txt", text, strlen(text), &s, &d), RE_ERR_INPUT);
    CHECK_STR(s.title, "kept");          /* unchanged on failure */
    CHECK(has_message(&d, 2, 1, "duplicate key 'title' (first set on line 1)"));
    CHECK(has_message(&d, 3, 1, "unknown key 'colour'"));
    CHECK(has_message(&d, 4, 1, "key 'description' has no value"));
    CHECK(has_message(&d, 5, 1, "must start with its key"));
    CHECK(has_message(&d, 6, 11, "language 'english!' is not a BCP 47 tag"));
    CHECK(has_message(&d, 7, 11, "explicit must be true or false, not 'yes'"));
    CHECK(has_message(&d, 8, 7, "must start with http:// or https://"));
    CHECK(has_message(&d, 9, 11, "one level"));
    CHECK(has_message(&d, 10, 14, "owner_email 'nobody'"));
    CHECK(has_message(&d, 11, 1, "expected `key: value`"));
    CHECK(has_message(&d, 12, 5, "expected `key: value`"));
    CHECK(has_message(&d, 13, 8, "printable ASCII"));
    CHECK(has_message(&d, 15, 7, "type must be episodic or serial, not 'trailer'"));
    CHECK(has_message(&d, 14, 1, "duplicate key 'category'"));
    CHECK_INT(d.count, 14);
    if (d.count != 14)
        dump(&d);
    for (size_t i = 0; i < d.count; i++)
        CHECK_STR(d.items[i].file, "show.txt");
    re_diagnostics_free(&d);

    /* invalid UTF-8 and control characters are positioned too */
    re_diagnostics_init(&d, 50);
    const char *bad = "title: ok\ndescription: caf\xC3\n";
    CHECK_INT(re_show_parse("show.txt", bad, strlen(bad), &s, &d), RE_ERR_INPUT);
    CHECK(d.count == 1 && d.items[0].line == 2 && d.items[0].col == 17);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 50);
    const char *ctl = "title: a\x01z\ncategory: A >\n";
    CHECK_INT(re_show_parse("show.txt", ctl, strlen(ctl), &s, &d), RE_ERR_INPUT);
    CHECK(d.count == 2 && d.items[0].line == 1 && d.items[0].col == 9);
    CHECK(has_message(&d, 2, 11, "a name on each side"));
    re_diagnostics_free(&d);
    re_show_free(&s);

    re_diagnostics_init(&d, 50);
    CHECK_INT(re_show_load("/nonexistent/show.txt", &s, &d), RE_ERR_READ);
    CHECK(d.count == 1 && strcmp(d.items[0].file, "/nonexistent/show.txt") == 0);
    re_diagnostics_free(&d);
}

/* ---- sidecars ----------------------------------------------------------------------------- */

static void test_episode_read(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 50);
    re_feed_episode e;
    re_sidecar_kind kind;
    char *json = sidecar("Café \\\"One\\\"", "\"Weekly\"", "\"2026-11-30T09:00:00Z\"", "7",
                         "33076", "12345", "mp3");
    CHECK_INT(read_episode("some/dir/ep 1.json", json, &e, &kind, &d), RE_OK);
    CHECK_INT(kind, RE_SIDECAR_MP3);
    CHECK_STR(e.stem, "ep 1");
    CHECK_STR(e.audio_name, "ep 1.mp3");
    CHECK_STR(e.sidecar_name, "ep 1.json");
    CHECK_STR(e.title, "Café \"One\"");
    CHECK_STR(e.show, "Weekly");
    CHECK_STR(e.summary, "Sum & more");
    CHECK_STR(e.author, "The team");
    CHECK_STR(e.language, "en-us");
    CHECK_STR(e.published, "2026-11-30T09:00:00Z");
    CHECK_INT(e.number, 7);
    CHECK_INT(e.samples, 33076);
    CHECK_INT(e.sample_rate, 22050);
    CHECK_INT(e.bytes, 12345);
    CHECK(e.dated);
    CHECK_INT(e.instant_ms, 1796029200000LL);
    CHECK_STR(e.pub_date, "Mon, 30 Nov 2026 09:00:00 +0000");
    CHECK_INT(e.assets, 0);
    re_feed_episode_free(&e);
    free(json);

    json = sidecar("T", "null", "null", "null", "1", "2", "mp3");
    CHECK_INT(read_episode("x.json", json, &e, &kind, &d), RE_OK);
    CHECK(kind == RE_SIDECAR_MP3 && e.show == NULL && e.published == NULL && !e.dated
          && e.number == -1 && e.pub_date[0] == '\0');
    re_feed_episode_free(&e);
    free(json);

    json = sidecar("T", "null", "null", "null", "1", "2", "wav");
    CHECK_INT(read_episode("x.json", json, &e, &kind, &d), RE_OK);
    CHECK_INT(kind, RE_SIDECAR_OTHER);
    free(json);

    const char *other = "{\"version\": \"1.2.0\", \"chapters\": []}";
    CHECK_INT(read_episode("x.json", other, &e, &kind, &d), RE_OK);
    CHECK_INT(kind, RE_SIDECAR_NONE);
    CHECK_INT(read_episode("x.json", "[1, 2]", &e, &kind, &d), RE_OK);
    CHECK_INT(kind, RE_SIDECAR_NONE);
    CHECK_INT(d.count, 0);

    CHECK_INT(read_episode("x.json", "{\n  \"title\": ,\n}", &e, &kind, &d), RE_ERR_FORMAT);
    CHECK(d.count == 1 && d.items[0].line == 2 && strstr(d.items[0].message, "not valid JSON"));
    re_diagnostics_free(&d);

    struct { const char *what; char *json; const char *message; } bad[] = {
        { "date", sidecar("T", "null", "\"2026-11-30T09:00:00\"", "1", "1", "1", "mp3"), "\"published\"" },
        { "date", sidecar("T", "null", "\"30 Nov 2026\"", "1", "1", "1", "mp3"), "\"published\"" },
        { "episode", sidecar("T", "null", "null", "\"1\"", "1", "1", "mp3"), "\"episode\"" },
        { "episode", sidecar("T", "null", "null", "1000000", "1", "1", "mp3"), "\"episode\"" },
        { "samples", sidecar("T", "null", "null", "1", "-1", "1", "mp3"), "\"samples\"" },
        { "samples", sidecar("T", "null", "null", "1", "1.5", "1", "mp3"), "\"samples\"" },
        { "bytes", sidecar("T", "null", "null", "1", "1", "null", "mp3"), "\"bytes\"" },
        { "title", sidecar("", "null", "null", "1", "1", "1", "mp3"), "\"title\" is empty" },
        { "control", sidecar("a\\u0001b", "null", "null", "1", "1", "1", "mp3"), "control character" },
        { "show", sidecar("T", "42", "null", "1", "1", "1", "mp3"), "\"show\" must be a string" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        re_diagnostics_init(&d, 50);
        CHECK_INT(read_episode("bad.json", bad[i].json, &e, &kind, &d), RE_ERR_INPUT);
        CHECK(d.count == 1 && strstr(d.items[0].message, bad[i].message));
        if (d.count != 1 || !strstr(d.items[0].message, bad[i].message)) {
            fprintf(stderr, "case %zu (%s):\n", i, bad[i].what);
            dump(&d);
        }
        CHECK(e.title == NULL && e.stem == NULL);
        re_diagnostics_free(&d);
        free(bad[i].json);
    }

    re_diagnostics_init(&d, 50);
    const char *no_rate = "{\"generator\": \"render-episode 0.1.0\", \"format\": \"mp3\", \"title\": \"T\"}";
    CHECK_INT(read_episode("out/bad.json", no_rate, &e, &kind, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 3);    /* samples, sample_rate, bytes: each names the path */
    for (size_t i = 0; i < d.count; i++)
        CHECK_STR(d.items[i].file, "out/bad.json");
    CHECK_INT(read_episode("out/.json", no_rate, &e, &kind, &d), RE_ERR_INVALID);
    CHECK_INT(read_episode("out/x.txt", no_rate, &e, &kind, &d), RE_ERR_INVALID);
    re_diagnostics_free(&d);
}

/* ---- sorting ------------------------------------------------------------------------------ */

static void test_sort(void)
{
    re_feed_episode e[6] = {
        { .sidecar_name = "b.json" },                                               /* undated */
        { .sidecar_name = "old.json", .dated = 1, .instant_ms = 1000 },
        { .sidecar_name = "a.json" },                                               /* undated */
        { .sidecar_name = "tie-z.json", .dated = 1, .instant_ms = 5000 },
        { .sidecar_name = "tie-a.json", .dated = 1, .instant_ms = 5000 },
        { .sidecar_name = "before-epoch.json", .dated = 1, .instant_ms = -5 },
    };
    re_feed_sort(e, 6);
    const char *expect[] = { "tie-a.json", "tie-z.json", "old.json", "before-epoch.json",
                             "a.json", "b.json" };
    for (size_t i = 0; i < 6; i++)
        CHECK_STR(e[i].sidecar_name, expect[i]);

    /* instants, not texts: 10:00+02:00 is before 09:00Z */
    char early[RE_RFC822_MAX], late[RE_RFC822_MAX];
    re_feed_episode f[2] = { { .sidecar_name = "x.json", .dated = 1 },
                             { .sidecar_name = "y.json", .dated = 1 } };
    CHECK_INT(re_rfc822_from_iso("2026-11-30T10:00:00+02:00", early, &f[0].instant_ms), RE_OK);
    CHECK_INT(re_rfc822_from_iso("2026-11-30T09:00:00Z", late, &f[1].instant_ms), RE_OK);
    re_feed_sort(f, 2);
    CHECK_STR(f[0].sidecar_name, "y.json");
}

/* ---- channel defaults --------------------------------------------------------------------- */

static void add_episode(re_feed *feed, const char *name, const char *show, const char *author,
                        const char *language)
{
    re_feed_episode e = { .number = -1, .sample_rate = 22050, .samples = 22050 };
    e.sidecar_name = strdup(name);
    e.stem = strndup(name, strlen(name) - 5);
    if (asprintf(&e.audio_name, "%s.mp3", e.stem) < 0)
        e.audio_name = NULL;
    e.title = strdup(name);
    e.show = show ? strdup(show) : NULL;
    e.author = author ? strdup(author) : NULL;
    e.language = language ? strdup(language) : NULL;
    CHECK_INT(re_feed_add(feed, &e), RE_OK);
    CHECK(e.title == NULL);
}

/* What Apple and Podcast Index require, so that a test of other values passes; the remote
 * image adds one warning (not checked). */
static void publishable(re_feed *feed)
{
    feed->show.image = strdup("https://e.org/c.jpg");
    feed->show.category = strdup("Technology");
    feed->show.explicit_content = 0;
    feed->show.guid = strdup("11111111-2222-5333-8444-555555555555");
}

static void test_channel_defaults(void)
{
    re_feed feed;
    re_diagnostics err, warn;
    re_feed_init(&feed);
    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    add_episode(&feed, "a.json", "Weekly", "Ada", "en-us");
    add_episode(&feed, "b.json", NULL, "Ada", NULL);
    feed.show.description = strdup("D");
    publishable(&feed);
    CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p", "dir/show.txt", &err, &warn), RE_OK);
    CHECK_STR(feed.show.title, "Weekly");
    CHECK_STR(feed.show.author, "Ada");
    CHECK_STR(feed.show.language, "en-us");
    CHECK_STR(feed.show.link, "https://e.org/p/");
    CHECK_STR(feed.feed_url, "https://e.org/p/feed.xml");
    CHECK_STR(feed.channel_guid, "11111111-2222-5333-8444-555555555555");
    CHECK_STR(feed.image_url, "https://e.org/c.jpg");
    CHECK(feed.missing == NULL);
    CHECK_INT(err.count, 0);
    CHECK(warn.count == 1 && has_message(&warn, 0, 0, "the image is a remote URL, not checked"));
    re_diagnostics_free(&warn);
    re_diagnostics_init(&warn, 50);
    re_feed_free(&feed);

    /* the show file wins; differing episodes are then no problem */
    re_feed_init(&feed);
    add_episode(&feed, "a.json", "One", "Ada", "en-us");
    add_episode(&feed, "b.json", "Two", "Bob", "de");
    feed.show.title = strdup("T");
    feed.show.description = strdup("D");
    feed.show.language = strdup("fr");
    feed.show.author = strdup("Me");
    feed.show.link = strdup("https://site.example/");
    publishable(&feed);
    CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p", "show.txt", &err, &warn), RE_OK);
    CHECK_STR(feed.show.title, "T");
    CHECK_STR(feed.show.link, "https://site.example/");
    CHECK_INT(err.count + warn.count, 1);
    re_feed_free(&feed);
    re_diagnostics_free(&warn);
    re_diagnostics_init(&warn, 50);

    /* differing shows and languages, no description: errors naming what to add */
    re_feed_init(&feed);
    add_episode(&feed, "a.json", "One", "Ada", "en-us");
    add_episode(&feed, "b.json", "Two", "Bob", "de");
    publishable(&feed);
    CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p", "dir/show.txt", &err, &warn),
              RE_ERR_INPUT);
    CHECK_INT(err.count, 3);
    CHECK(has_message(&err, 0, 0, "different shows ('One' in a.json, 'Two' in b.json): add `title: ...`"));
    CHECK(has_message(&err, 0, 0, "no description: add `description: ...`"));
    CHECK(has_message(&err, 0, 0, "different languages"));
    CHECK(err.count > 0 && strcmp(err.items[0].file, "dir/show.txt") == 0);
    CHECK_INT(warn.count, 2);
    CHECK(has_message(&warn, 0, 0, "different authors"));
    CHECK(feed.show.author == NULL);
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);

    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    re_feed_init(&feed);
    add_episode(&feed, "a.json", NULL, NULL, NULL);
    feed.show.description = strdup("D");
    publishable(&feed);
    CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p", "show.txt", &err, &warn),
              RE_ERR_INPUT);
    CHECK(has_message(&err, 0, 0, "no title: add `title: ...`"));
    CHECK(has_message(&err, 0, 0, "no language: add `language: ...`"));
    CHECK_INT(err.count, 2);
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);

    /* nothing of what Apple and Podcast Index require: one message naming each, with the
     * line to add (the guid computed from the feed's URL); --draft makes it a warning */
    for (int draft = 0; draft <= 1; draft++) {
        re_diagnostics_init(&err, 50);
        re_diagnostics_init(&warn, 50);
        re_feed_init(&feed);
        add_episode(&feed, "a.json", "S", NULL, "en-us");
        feed.show.description = strdup("D");
        feed.feed_name = "rss.xml";
        feed.draft = draft;
        CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p//", "show.txt", &err, &warn),
                  draft ? RE_OK : RE_ERR_INPUT);
        re_diagnostics *said = draft ? &warn : &err;
        CHECK_INT(said->count, 1);
        CHECK(has_message(said, 0, 0, "the channel has no image, category, explicit, guid, "
                                      "which Apple Podcasts and Podcast Index require"));
        /* python3: uuid.uuid5(UUID('ead4c236-...'), 'e.org/p/rss.xml') */
        CHECK(has_message(said, 0, 0, "\n    guid: 985fbba3-1b5b-5feb-8abb-c0011f688103"));
        CHECK(has_message(said, 0, 0, "\n    explicit: false"));
        CHECK_INT(err.count + warn.count, 1);
        if (draft) {
            CHECK_STR(feed.missing, "image, category, explicit, guid");
            CHECK_STR(feed.channel_guid, "985fbba3-1b5b-5feb-8abb-c0011f688103");
        }
        re_feed_free(&feed);
        re_diagnostics_free(&err);
        re_diagnostics_free(&warn);
    }

    /* Apple's limits on the description */
    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    re_feed_init(&feed);
    add_episode(&feed, "a.json", "S", NULL, "en-us");
    publishable(&feed);
    feed.show.description = calloc(1, 4002);
    memset(feed.show.description, 'x', 4001);
    CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p", "show.txt", &err, &warn),
              RE_ERR_INPUT);
    CHECK(err.count == 1 && has_message(&err, 0, 0, "the description is longer than Apple's "
                                                    "limit of 4000 bytes (4001 bytes)"));
    feed.show.description[4000] = '\0';
    re_diagnostics_free(&err);
    re_diagnostics_init(&err, 50);
    CHECK_INT(re_feed_complete_channel(&feed, "https://e.org/p", "show.txt", &err, &warn), RE_OK);
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);
}

/* ---- writing ------------------------------------------------------------------------------ */

static char *write_feed(const re_feed *feed, const char *base, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    CHECK_INT(re_feed_write(f, feed, base), RE_OK);
    fclose(f);
    return buf;
}

static const xmlNode *child(const xmlNode *node, const char *name, const char *ns)
{
    for (const xmlNode *n = node ? node->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0
            && ((!ns && !n->ns) || (ns && n->ns && strcmp((const char *)n->ns->href, ns) == 0)))
            return n;
    return NULL;
}

static int text_is(const xmlNode *node, const char *expect)
{
    if (!node)
        return 0;
    xmlChar *t = xmlNodeGetContent(node);
    int same = t && strcmp((const char *)t, expect) == 0;
    if (!same)
        fprintf(stderr, "  text '%s' != '%s'\n", t ? (const char *)t : "(null)", expect);
    xmlFree(t);
    return same;
}

static int attr_is(const xmlNode *node, const char *name, const char *expect)
{
    if (!node)
        return 0;
    xmlChar *t = xmlGetNoNsProp(node, BAD_CAST name);
    int same = t && strcmp((const char *)t, expect) == 0;
    if (!same)
        fprintf(stderr, "  %s='%s' != '%s'\n", name, t ? (const char *)t : "(null)", expect);
    xmlFree(t);
    return same;
}

static void test_write(void)
{
    static const char tricky[] = "Café & <Friends> \"quoted\" 'single' ]]> 日本語 — ✓";
    re_feed feed;
    re_feed_init(&feed);
    feed.show.title = strdup(tricky);
    feed.show.description = strdup("A & B < C");
    feed.show.language = strdup("en-us");
    feed.show.link = strdup("https://example.org/?a=1&b=2");
    feed.show.author = strdup("Ada & Bob");
    feed.show.image = strdup("https://example.org/c.jpg");
    feed.show.category = strdup("Technology");
    feed.show.subcategory = strdup("Software How-To");
    feed.show.explicit_content = 0;
    feed.show.owner_email = strdup("ada@example.org");
    feed.show.locked = 0;
    feed.show.medium = strdup("audiobook");
    feed.feed_url = strdup("https://cdn.example.org/pod/feed.xml");
    feed.image_url = strdup("https://example.org/c.jpg");
    strcpy(feed.channel_guid, "11111111-2222-5333-8444-555555555555");

    re_diagnostics d;
    re_diagnostics_init(&d, 50);
    re_sidecar_kind kind;
    re_feed_episode e;
    char *json = sidecar("Épisode <1> & \\\"all\\\"", "\"Weekly\"", "\"2026-11-23\"", "1",
                         "33076", "4000", "mp3");
    CHECK_INT(read_episode("ep 1.json", json, &e, &kind, &d), RE_OK);
    e.assets = RE_ASSET_VTT | RE_ASSET_SRT | RE_ASSET_TRANSCRIPT_JSON | RE_ASSET_CHAPTERS
               | RE_ASSET_PAGE;
    e.season = 3;
    CHECK_INT(re_feed_add(&feed, &e), RE_OK);
    free(json);
    json = sidecar("Two", "null", "\"2026-11-30T09:00:00Z\"", "0", "66150", "8000", "mp3");
    CHECK_INT(read_episode("ep2.json", json, &e, &kind, &d), RE_OK);
    CHECK_INT(re_feed_add(&feed, &e), RE_OK);
    free(json);
    re_feed_sort(feed.episodes, feed.count);

    size_t len = 0, len2 = 0;
    char *xml = write_feed(&feed, "https://cdn.example.org/pod/", &len);
    char *again = write_feed(&feed, "https://cdn.example.org/pod/", &len2);
    CHECK(len == len2 && memcmp(xml, again, len) == 0);   /* byte-identical */
    free(again);
    CHECK(strncmp(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\"", 56) == 0);
    CHECK(xml[len - 1] == '\n');
    CHECK(strstr(xml, "<title>Café &amp; &lt;Friends&gt; &quot;quoted&quot; 'single' ]]&gt; 日本語 — ✓"
                      "</title>"));
    CHECK(strstr(xml, "xmlns:itunes=\"" RE_ITUNES_NS "\""));
    CHECK(strstr(xml, "xmlns:podcast=\"" RE_PODCAST_NS "\""));
    CHECK(strstr(xml, "<itunes:duration>2</itunes:duration>"));     /* 33076 / 22050 = 1.5 -> 2 */
    CHECK(strstr(xml, "<itunes:duration>3</itunes:duration>"));
    CHECK(!strstr(xml, "<itunes:episode>0</itunes:episode>"));      /* 0 is not an episode number */
    if (getenv("TEST_FEED_PRINT"))
        fputs(xml, stdout);

    xmlDocPtr doc = xmlReadMemory(xml, (int)len, "feed.xml", NULL, XML_PARSE_NONET);
    CHECK(doc != NULL);
    const xmlNode *rss = xmlDocGetRootElement(doc);
    CHECK(rss && strcmp((const char *)rss->name, "rss") == 0 && attr_is(rss, "version", "2.0"));
    const xmlNode *ch = child(rss, "channel", NULL);
    CHECK(text_is(child(ch, "title", NULL), tricky));
    /* plain text as HTML: the XML holds "A &amp; B &lt; C", the text a reader shows */
    CHECK(text_is(child(ch, "description", NULL), "A &amp; B &lt; C"));
    CHECK(text_is(child(ch, "type", RE_ITUNES_NS), "episodic"));    /* the default */
    CHECK(child(ch, "copyright", NULL) == NULL);
    CHECK(text_is(child(ch, "link", NULL), "https://example.org/?a=1&b=2"));
    CHECK(text_is(child(ch, "language", NULL), "en-us"));
    CHECK(text_is(child(ch, "lastBuildDate", NULL), "Mon, 30 Nov 2026 09:00:00 +0000"));
    CHECK(text_is(child(ch, "author", RE_ITUNES_NS), "Ada & Bob"));
    CHECK(attr_is(child(ch, "image", RE_ITUNES_NS), "href", "https://example.org/c.jpg"));
    CHECK(text_is(child(child(ch, "image", NULL), "url", NULL), "https://example.org/c.jpg"));
    const xmlNode *cat = child(ch, "category", RE_ITUNES_NS);
    CHECK(attr_is(cat, "text", "Technology"));
    CHECK(attr_is(child(cat, "category", RE_ITUNES_NS), "text", "Software How-To"));
    CHECK(text_is(child(ch, "explicit", RE_ITUNES_NS), "false"));
    CHECK(text_is(child(ch, "guid", RE_PODCAST_NS), "11111111-2222-5333-8444-555555555555"));
    CHECK(text_is(child(ch, "medium", RE_PODCAST_NS), "audiobook"));
    CHECK(text_is(child(ch, "locked", RE_PODCAST_NS), "no"));
    CHECK(attr_is(child(ch, "locked", RE_PODCAST_NS), "owner", "ada@example.org"));
    CHECK(text_is(child(ch, "txt", RE_PODCAST_NS), RE_DISCLOSURE_TEXT));
    CHECK(attr_is(child(ch, "txt", RE_PODCAST_NS), "purpose", "disclosure"));
    const xmlNode *self = child(ch, "link", "http://www.w3.org/2005/Atom");
    CHECK(attr_is(self, "href", "https://cdn.example.org/pod/feed.xml") && attr_is(self, "rel", "self"));
    const xmlNode *owner = child(ch, "owner", RE_ITUNES_NS);
    CHECK(text_is(child(owner, "name", RE_ITUNES_NS), "Ada & Bob"));
    CHECK(text_is(child(owner, "email", RE_ITUNES_NS), "ada@example.org"));

    const xmlNode *items[3] = { NULL, NULL, NULL };
    size_t n = 0;
    for (const xmlNode *it = ch ? ch->children : NULL; it; it = it->next)
        if (it->type == XML_ELEMENT_NODE && strcmp((const char *)it->name, "item") == 0 && n < 3)
            items[n++] = it;
    CHECK_INT(n, 2);
    /* newest first */
    CHECK(text_is(child(items[0], "title", NULL), "Two"));
    CHECK(text_is(child(items[0], "pubDate", NULL), "Mon, 30 Nov 2026 09:00:00 +0000"));
    CHECK(text_is(child(items[0], "guid", NULL), "f62f46b8-7dfa-56f6-83d6-35ab6ccabb3e"));
    CHECK(child(items[0], "link", NULL) == NULL);
    CHECK(child(items[0], "season", RE_ITUNES_NS) == NULL);
    CHECK(child(items[0], "episode", RE_PODCAST_NS) == NULL);
    CHECK(child(items[0], "episode", RE_ITUNES_NS) == NULL);
    CHECK(child(items[0], "transcript", RE_PODCAST_NS) == NULL);
    const xmlNode *first = items[1];
    CHECK(text_is(child(first, "title", NULL), "Épisode <1> & \"all\""));
    CHECK(text_is(child(first, "description", NULL), "Sum &amp; more"));
    CHECK(text_is(child(first, "encoded", RE_CONTENT_NS), "<p>Sum &amp; more</p>"));
    const xmlNode *guid = child(first, "guid", NULL);
    /* episode 1 of season 3: python3 uuid.uuid5(channel, "3/1") */
    CHECK(text_is(guid, "8e87b3fe-f365-57ca-848d-696932826c6e") && attr_is(guid, "isPermaLink", "false"));
    CHECK(text_is(child(first, "link", NULL), "https://cdn.example.org/pod/ep%201.html"));
    CHECK(text_is(child(first, "author", RE_ITUNES_NS), "The team"));
    CHECK(text_is(child(first, "episodeType", RE_ITUNES_NS), "full"));
    CHECK(text_is(child(first, "season", RE_ITUNES_NS), "3"));
    CHECK(text_is(child(first, "season", RE_PODCAST_NS), "3"));
    CHECK(text_is(child(first, "episode", RE_PODCAST_NS), "1"));
    CHECK(text_is(child(first, "pubDate", NULL), "Mon, 23 Nov 2026 00:00:00 +0000"));
    const xmlNode *enc = child(first, "enclosure", NULL);
    CHECK(attr_is(enc, "url", "https://cdn.example.org/pod/ep%201.mp3"));
    CHECK(attr_is(enc, "length", "4000"));
    CHECK(attr_is(enc, "type", "audio/mpeg"));
    CHECK(text_is(child(first, "duration", RE_ITUNES_NS), "2"));
    CHECK(text_is(child(first, "episode", RE_ITUNES_NS), "1"));
    const char *types[] = { "text/vtt", "application/x-subrip", "application/json" };
    const char *urls[] = { "https://cdn.example.org/pod/ep%201.vtt",
                           "https://cdn.example.org/pod/ep%201.srt",
                           "https://cdn.example.org/pod/ep%201.transcript.json" };
    size_t t = 0;
    for (const xmlNode *c = first ? first->children : NULL; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE || strcmp((const char *)c->name, "transcript") != 0)
            continue;
        CHECK(c->ns && strcmp((const char *)c->ns->href, RE_PODCAST_NS) == 0);
        CHECK(t < 3 && attr_is(c, "type", types[t]) && attr_is(c, "url", urls[t])
              && attr_is(c, "language", "en-us"));
        t++;
    }
    CHECK_INT(t, 3);
    const xmlNode *chapters = child(first, "chapters", RE_PODCAST_NS);
    CHECK(attr_is(chapters, "url", "https://cdn.example.org/pod/ep%201.chapters.json"));
    CHECK(attr_is(chapters, "type", "application/json+chapters"));
    xmlFreeDoc(doc);

    /* `render-episode check`'s reader finds exactly our two claims for this MP3, and they
     * hold against a measurement that agrees with the sidecar */
    re_claim_list claims;
    re_claim_list_init(&claims);
    re_diagnostics notes;
    re_diagnostics_init(&notes, 50);
    CHECK_INT(re_claims_extract("feed.xml", xml, len, RE_FILE_AUTO, "ep 1.mp3", &claims, &d, &notes),
              RE_OK);
    CHECK_INT(claims.count, 2);
    re_mp3_measurement m = { .samples = 33076, .sample_rate = 22050, .channels = 1, .bytes = 4000 };
    for (size_t i = 0; i < claims.count; i++) {
        re_claim_judge(&claims.items[i], &m, 0);
        CHECK(claims.items[i].ok);
        CHECK(strcmp(claims.items[i].field, "enclosure length") == 0
              || strcmp(claims.items[i].field, "itunes:duration") == 0);
    }
    m.samples = 66150;   /* a feed that says 2 s for a 3 s file does not hold */
    re_claim_judge(&claims.items[1], &m, 0);
    CHECK(!claims.items[1].ok);
    re_claim_list_free(&claims);
    re_diagnostics_free(&notes);
    re_diagnostics_free(&d);

    /* an incomplete channel or a bad base URL is the caller's mistake */
    FILE *sink = fopen("/dev/null", "w");
    CHECK_INT(re_feed_write(sink, &feed, "not a url"), RE_ERR_INVALID);
    free(feed.show.description);
    feed.show.description = NULL;
    CHECK_INT(re_feed_write(sink, &feed, "https://e.org"), RE_ERR_INVALID);
    fclose(sink);
    free(xml);
    re_feed_free(&feed);
}

/* ---- a folder ----------------------------------------------------------------------------- */

static void put(const char *dir, const char *name, const char *text, size_t len)
{
    char *path = NULL;
    CHECK(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(text, 1, len, f);
        fclose(f);
    }
    free(path);
}

/* A sidecar whose "files" lists the named files (NULL-terminated) as they are now in dir;
 * listed == NULL writes a sidecar of an older version, without the list. */
static void put_sidecar_listing(const char *dir, const char *name, const char *published,
                                size_t bytes, const char *format, const char *const *listed)
{
    char b[32];
    snprintf(b, sizeof b, "%zu", bytes);
    char *json = sidecar(name, "\"Weekly\"", published, "3", "22050", b, format);
    char *list = strdup("");
    for (size_t i = 0; listed && listed[i]; i++) {
        char *path = NULL, *data = NULL, *more = NULL;
        size_t len = 0;
        CHECK(asprintf(&path, "%s/%s", dir, listed[i]) > 0);
        FILE *f = fopen(path, "rb");
        CHECK(f != NULL);
        FILE *m = open_memstream(&data, &len);
        int c;
        while (f && (c = fgetc(f)) != EOF)
            fputc(c, m);
        fclose(m);
        if (f)
            fclose(f);
        unsigned char digest[RE_SHA256_SIZE];
        char hex[RE_SHA256_HEX_SIZE];
        re_sha256(data, len, digest);
        re_sha256_hex(digest, hex);
        CHECK(asprintf(&more, "%s%s{\"name\": \"%s\", \"bytes\": %zu, \"sha256\": \"%s\"}", list,
                       i ? ", " : "", listed[i], len, hex) > 0);
        free(list);
        list = more;
        free(data);
        free(path);
    }
    /* the object ends "...0.1.0\"\n}\n": the list goes in before its "\n}" */
    char *end = strrchr(json, '}'), *full = NULL;
    if (listed)
        CHECK(asprintf(&full, "%.*s,\n  \"files\": [%s]\n}\n", (int)(end - json - 1), json,
                       list) > 0);
    else
        full = strdup(json);
    put(dir, name, full, strlen(full));
    free(full);
    free(list);
    free(json);
}

static void put_sidecar(const char *dir, const char *name, const char *published, size_t bytes,
                        const char *format)
{
    char audio[64];
    snprintf(audio, sizeof audio, "%.*s.%s", (int)(strlen(name) - 5), name, format);
    const char *const listed[] = { audio, NULL };
    char *path = NULL;
    struct stat st;
    CHECK(asprintf(&path, "%s/%s", dir, audio) > 0);
    int there = stat(path, &st) == 0;
    free(path);
    put_sidecar_listing(dir, name, published, bytes, format, there ? listed : NULL);
}

static void unlink_in(const char *dir, const char *name)
{
    char *path = NULL;
    CHECK(asprintf(&path, "%s/%s", dir, name) > 0);
    CHECK(unlink(path) == 0);
    free(path);
}

static void remove_tree(const char *dir)
{
    char *cmd = NULL;
    if (asprintf(&cmd, "rm -rf '%s'", dir) > 0 && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
}

static void test_scan(void)
{
    char dir[] = "/tmp/re-test-feed-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char audio[1000];
    memset(audio, 0xAA, sizeof audio);
    put(dir, "new.mp3", audio, 1000);
    put(dir, "new.vtt", "WEBVTT\n", 7);
    put(dir, "new.chapters.json", "{\"version\": \"1.2.0\", \"chapters\": []}", 36);
    put(dir, "new.html", "<p>page</p>", 11);
    const char *const new_files[] = { "new.mp3", "new.vtt", "new.chapters.json", "new.html", NULL };
    put_sidecar_listing(dir, "new.json", "\"2026-11-30T09:00:00Z\"", 1000, "mp3", new_files);
    put(dir, "new.srt", "1\n", 2);   /* left by an earlier render: not linked */
    put(dir, "old.mp3", audio, 500);
    put(dir, "old.srt", "1\n", 2);
    put(dir, "old.transcript.json", "{}", 2);
    put(dir, "old.vtt", "WEBVTT\n", 7);
    const char *const old_files[] = { "old.mp3", "old.srt", "old.transcript.json", "old.vtt", NULL };
    put_sidecar_listing(dir, "old.json", "\"2026-11-01\"", 500, "mp3", old_files);
    unlink_in(dir, "old.vtt");        /* written, then gone: not linked */
    put(dir, "undated.mp3", audio, 10);
    put_sidecar_listing(dir, "undated.json", "null", 10, "mp3", NULL);   /* an older version */
    put_sidecar(dir, "gone.json", "\"2026-12-01\"", 10, "mp3");          /* no gone.mp3 */
    put_sidecar(dir, "speech.json", "\"2026-12-01\"", 10, "wav");        /* a WAV render */
    put(dir, "speech.wav", audio, 10);
    put(dir, "show.json", "{\"title\": \"not an episode\"}", 27);
    put(dir, ".hidden.json", "not json", 8);
    put(dir, "notes.txt", "x", 1);

    re_feed feed;
    re_feed_init(&feed);
    re_diagnostics err, warn;
    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    CHECK_INT(re_feed_scan(&feed, dir, &err, &warn), RE_OK);
    dump(&err);
    CHECK_INT(err.count, 0);
    CHECK_INT(feed.count, 3);
    if (feed.count == 3) {
        CHECK_STR(feed.episodes[0].stem, "new");
        CHECK_INT(feed.episodes[0].assets, RE_ASSET_VTT | RE_ASSET_CHAPTERS | RE_ASSET_PAGE);
        CHECK_INT(feed.episodes[0].bytes, 1000);
        CHECK_STR(feed.episodes[1].stem, "old");
        CHECK_INT(feed.episodes[1].assets, RE_ASSET_SRT | RE_ASSET_TRANSCRIPT_JSON);
        CHECK_STR(feed.episodes[2].stem, "undated");
        CHECK_INT(feed.episodes[2].assets, 0);
    }
    CHECK_INT(warn.count, 5);
    CHECK(has_message(&warn, 0, 0, "gone.mp3 is missing"));
    CHECK(has_message(&warn, 0, 0, "no \"published\" date"));
    CHECK(has_message(&warn, 0, 0, "new.srt was not written by the render that made new.mp3"));
    CHECK(has_message(&warn, 0, 0, "old.vtt, which the render wrote, is gone"));
    CHECK(has_message(&warn, 0, 0, "written by an older render-episode"));
    if (warn.count != 5)
        dump(&warn);
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);

    /* a transcript changed after the render is stale: an error, never linked */
    put(dir, "new.vtt", "WEBVTT\n\n", 8);
    re_feed_init(&feed);
    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    CHECK_INT(re_feed_scan(&feed, dir, &err, &warn), RE_ERR_INPUT);
    CHECK(err.count == 1 && has_message(&err, 0, 0, "new.vtt is not what the render wrote"));
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);
    put(dir, "new.vtt", "WEBVTT\n", 7);

    /* a stale sidecar and a broken JSON file: errors, everything reported */
    put(dir, "old.mp3", audio, 499);
    put(dir, "broken.json", "{\"generator\": ", 14);
    re_feed_init(&feed);
    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    CHECK_INT(re_feed_scan(&feed, dir, &err, &warn), RE_ERR_INPUT);
    CHECK_INT(err.count, 2);
    CHECK(has_message(&err, 0, 0, "the sidecar is stale: it says 500 bytes, but old.mp3 has 499"));
    CHECK(err.count == 2 && strstr(err.items[0].file, "/broken.json")
          && strstr(err.items[0].message, "not valid JSON") && err.items[0].line == 1);
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);

    /* nothing to publish */
    remove_tree(dir);
    CHECK(mkdir(dir, 0700) == 0);
    re_feed_init(&feed);
    re_diagnostics_init(&err, 50);
    re_diagnostics_init(&warn, 50);
    CHECK_INT(re_feed_scan(&feed, dir, &err, &warn), RE_ERR_INPUT);
    CHECK(err.count == 1 && strstr(err.items[0].message, "no rendered MP3 episode"));
    re_diagnostics_free(&err);
    re_diagnostics_init(&err, 50);
    remove_tree(dir);
    CHECK_INT(re_feed_scan(&feed, dir, &err, &warn), RE_ERR_READ);
    CHECK(err.count == 1 && strstr(err.items[0].message, "cannot read the folder"));
    re_feed_free(&feed);
    re_diagnostics_free(&err);
    re_diagnostics_free(&warn);
}

int main(void)
{
    test_rfc822();
    test_urls();
    test_show_valid();
    test_show_errors();
    test_episode_read();
    test_sort();
    test_claims();
    test_identity_runs();
    test_schedule();
    test_channel_defaults();
    test_write();
    test_scan();
    xmlCleanupParser();
    return check_finish("test_feed");
}
