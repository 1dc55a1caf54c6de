# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: a folder rendered from scripts no other test uses becomes a feed that the
judges we did not write read back field by field: python3-feedparser, Podcast Index's own
parser (npm podcast-partytime, tests/js), xmllint; the channel guid is the UUIDv5 that
python's uuid module computes; `check` accepts every item; nothing stale is ever linked;
what Apple requires is enforced (one message, --draft), cover art is checked."""
import html
import html.parser
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import uuid

import feedparser

from common import Case, ffmpeg_samples, listing, main, run, write

BASE = "https://media.example.net/allotment/"
PODCAST_NAMESPACE = uuid.UUID("ead4c236-bf58-58c6-a2c6-a6b28d128cb6")
CHANNEL_GUID = str(uuid.uuid5(PODCAST_NAMESPACE, "media.example.net/allotment/feed.xml"))
DISCLOSURE_WORDS = "voices in this episode are synthetic"

SCRIPTS = {
    "garden-01": ("title: Compost & Clay — Spring Beds\nshow: Allotment Notes\n"
                  "published: 2026-03-02T07:00:00+01:00\nsummary: Turning heavy clay into a "
                  "bed before the frost lifts & the rain: a<b and b>c, <img src=x "
                  "onerror=alert(1)>, \"quoted\" and 'single', &amp; as written.\nauthor: Allotment crew\nlanguage: en-gb\n"
                  "episode: 1\nseason: 2\nimage: art/garden.png\n",
                  "# Beds\n\nClay holds water. Compost opens it up.\n\n"
                  "# Visitors\n\n[voice guest] I brought leaf mould from the orchard.\n"),
    "market-02": ("title: Market Day\nshow: Allotment Notes\npublished: 2026-03-09\n"
                  "summary: Selling the first radishes.\nauthor: Allotment crew\n"
                  "language: en-gb\nepisode: 2\nseason: 2\nguid: urn:allotment:market-2\n",
                  "The stall opens at eight.\n\n[voice cohost] And the radishes sell out by "
                  "nine.\n"),
}
ORDER = ["market-02", "garden-01"]    # newest first

SHOW = ("title: Allotment Notes\n"
        "description: Short notes from a community allotment, read by synthetic voices "
        "(a<b and b>c, <img src=x onerror=alert(1)>, \"rows\" & 'beds', &amp; as written).\n"
        "author: Allotment crew\n"
        "image: cover.jpg\n"
        "category: Leisure > Home & Garden\n"
        "explicit: false\n"
        "owner_email: crew@example.net\n"
        f"guid: {CHANNEL_GUID}\n"
        "locked: yes\n"
        "medium: podcast\n"
        "type: serial\n"
        "copyright: © 2026 Allotment crew & friends <allotment.example.net>\n")


def front_value(text, key):
    """The value of `key:` in a show file or a script's front matter, as written there."""
    return next(line.split(": ", 1)[1] for line in text.splitlines() if line.startswith(key + ":"))


def show_value(key):
    return front_value(SHOW, key)


def script_value(name, key):
    return front_value(SCRIPTS[name][0], key)


class HtmlText(html.parser.HTMLParser):
    """The text a reader shows for an HTML value, and the elements it would make."""

    def __init__(self, value):
        super().__init__(convert_charrefs=True)
        self.text, self.tags, self.links = "", [], []
        self.feed(value)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "a":
            self.links.append(dict(attrs).get("href"))

    def handle_data(self, data):
        self.text += data


def make_image(path, size, pix_fmt):
    """Cover art made by ffmpeg (not by us)."""
    res = subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                          f"color=c=green:s={size}", "-frames:v", "1", "-pix_fmt", pix_fmt, path],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def partytime(feed_path):
    """What podcast-partytime reads, as JSON. A judge, not optional: scripts/setup --test
    installs node and npm, and ctest's fixture setup.npm_judges installs the parser into
    BUILD/js from tests/js/package-lock.json (RE_JS_DIR names that folder)."""
    js = os.environ.get("RE_JS_DIR", "")
    script = os.path.join(js, "partytime.js")
    assert shutil.which("node"), "node is missing: run scripts/setup --test"
    assert os.path.isdir(os.path.join(js, "node_modules", "podcast-partytime")), (
        f"podcast-partytime is not installed in RE_JS_DIR={js!r}: run ctest (its fixture "
        "setup.npm_judges runs npm ci there)")
    res = subprocess.run(["node", script, feed_path], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


class Publish(Case):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="re-judges-")
        cls.out = os.path.join(cls.dir, "out")
        voices = os.path.join(cls.dir, "voices")
        os.mkdir(cls.out)
        os.mkdir(voices)
        write(os.path.join(voices, "cohost.voice"),
              "voice = en-gb\nspeaker = Priya Natarajan\nrole = co-host\nrate = 180\n")
        os.mkdir(os.path.join(cls.dir, "art"))   # garden-01's own cover, copied beside it
        make_image(os.path.join(cls.dir, "art", "garden.png"), "1400x1400", "rgb24")
        for name, (front, body) in SCRIPTS.items():
            script = write(os.path.join(cls.dir, name + ".txt"), "---\n" + front + "---\n" + body)
            res = run([script, "-o", os.path.join(cls.out, name + ".mp3"), "--voices", voices,
                       "--srt", "--transcript-json", "-q"])
            assert res.returncode == 0, res.stderr
        make_image(os.path.join(cls.out, "cover.jpg"), "1500x1500", "yuvj420p")
        write(os.path.join(cls.out, "show.txt"), SHOW)
        cls.res = run(["feed", cls.out, "--base-url", BASE])
        cls.feed = os.path.join(cls.out, "feed.xml")
        cls.sidecars = {}
        for name in SCRIPTS:
            with open(os.path.join(cls.out, name + ".json"), encoding="utf-8") as f:
                cls.sidecars[name] = json.load(f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_written_without_a_word(self):
        self.assertEqual(self.res.returncode, 0, self.res.stderr)
        self.assertEqual(self.res.stderr, "")
        self.assertEqual(self.res.stdout, self.feed + ": 2 episodes\n")

    def test_xmllint_well_formed(self):
        res = subprocess.run(["xmllint", "--noout", self.feed], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_feedparser_reads_every_field(self):
        d = feedparser.parse(self.feed)
        self.assertFalse(d.bozo, d.get("bozo_exception"))
        f = d.feed
        self.assertEqual(f.title, "Allotment Notes")
        # plain text written as HTML: the text a reader shows is the show file's, no element
        self.assertEqual(f.subtitle_detail.type, "text/html")
        shown = HtmlText(f.subtitle)
        self.assertEqual(shown.text, show_value("description"))
        self.assertEqual(shown.tags, [])
        self.assertEqual(f.rights, show_value("copyright"))
        self.assertEqual(f.itunes_type, show_value("type"))
        self.assertEqual(f.language, "en-gb")
        self.assertEqual(f.image.href, BASE + "cover.jpg")
        self.assertEqual([t.term for t in f.tags], ["Leisure", "Home & Garden"])
        self.assertIsNot(f.get("itunes_explicit"), True)
        self.assertEqual(f.author_detail.email, "crew@example.net")
        self.assertIn({"href": BASE + "feed.xml", "rel": "self", "type": "application/rss+xml"},
                      [dict(l) for l in f.links])
        self.assertEqual(f.podcast_guid, CHANNEL_GUID)
        self.assertEqual(f.podcast_medium, "podcast")
        self.assertEqual(f.podcast_locked, {"owner": "crew@example.net"})
        self.assertEqual(f.podcast_txt, {"purpose": "disclosure"})
        self.assertEqual([e.title for e in d.entries],
                         [self.sidecars[n]["title"] for n in ORDER])
        for e, name in zip(d.entries, ORDER):
            side = self.sidecars[name]
            mp3 = os.path.join(self.out, name + ".mp3")
            shown = HtmlText(e.summary)
            self.assertEqual(shown.text, script_value(name, "summary"))
            self.assertEqual(shown.tags, [])
            notes = HtmlText(e.content[0].value)      # content:encoded: the notes as HTML
            self.assertEqual(e.content[0].type, "text/html")
            self.assertEqual(notes.text, script_value(name, "summary"))
            self.assertEqual(notes.tags, ["p"])
            self.assertEqual(e.author, "Allotment crew")
            self.assertEqual(e.itunes_episodetype, "full")
            self.assertEqual(e.itunes_episode, str(side["episode"]))
            self.assertEqual(e.itunes_season, "2")
            self.assertEqual(e.podcast_season, "2")
            self.assertEqual(e.podcast_episode, str(side["episode"]))
            enc = e.enclosures[0]
            self.assertEqual(enc.href, BASE + name + ".mp3")
            self.assertEqual(int(enc.length), os.path.getsize(mp3))
            rate = side["sample_rate"]
            self.assertEqual(int(e.itunes_duration), (2 * ffmpeg_samples(mp3) + rate) // (2 * rate))
            html = name + ".html" in [x["name"] for x in side["files"]]
            self.assertEqual(e.get("link"), BASE + name + ".html" if html else None)
            # the episode's own image: the copy the render published beside it
            self.assertEqual(e.get("image", {}).get("href"),
                             BASE + name + ".cover.png" if "image" in side else None)
        garden = self.sidecars["garden-01"]
        self.assertEqual(garden["image"]["source"], "episode")
        self.assertIn("garden-01.cover.png", [x["name"] for x in garden["files"]])
        self.assertNotIn("image", self.sidecars["market-02"])
        self.assertEqual(d.entries[0].id, "urn:allotment:market-2")
        # episode 1 of season 2: its number, not its file name, makes its guid
        self.assertEqual(d.entries[1].id, str(uuid.uuid5(uuid.UUID(CHANNEL_GUID), "2/1")))

    def test_partytime_reads_every_field(self):
        feed = partytime(self.feed)
        self.assertEqual(feed["title"], "Allotment Notes")
        self.assertEqual(feed["description"], show_value("description"))
        self.assertEqual(feed["copyright"], show_value("copyright"))
        self.assertEqual(feed["itunesType"], show_value("type"))
        self.assertEqual(feed["guid"], CHANNEL_GUID)
        self.assertIs(feed["locked"], True)
        self.assertEqual(feed["podcastOwner"], "crew@example.net")
        self.assertEqual(feed["medium"], "podcast")
        self.assertEqual(len(feed["podcastTxt"]), 1)
        self.assertEqual(feed["podcastTxt"][0]["purpose"], "disclosure")
        self.assertIn(DISCLOSURE_WORDS, feed["podcastTxt"][0]["value"])
        self.assertEqual(feed["itunesImage"], BASE + "cover.jpg")
        self.assertEqual(feed["itunesCategory"], ["Leisure > Home & Garden"])
        self.assertIs(feed["explicit"], False)
        self.assertEqual(feed["pubsub"]["self"], BASE + "feed.xml")
        self.assertEqual(feed["owner"]["email"], "crew@example.net")
        items = feed["items"]
        self.assertEqual([i["title"] for i in items], [self.sidecars[n]["title"] for n in ORDER])
        people = {n: {(p["name"], p["role"].lower()) for p in i["podcastPeople"]}
                  for n, i in zip(ORDER, items)}
        self.assertEqual(people["garden-01"], {("Host", "host"), ("Guest", "guest")})
        self.assertEqual(people["market-02"], {("Host", "host"), ("Priya Natarajan", "co-host")})
        for item, name in zip(items, ORDER):
            side = self.sidecars[name]
            mp3 = os.path.join(self.out, name + ".mp3")
            self.assertEqual(item["enclosure"]["url"], BASE + name + ".mp3")
            self.assertEqual(item["enclosure"]["length"], os.path.getsize(mp3))
            rate = side["sample_rate"]
            self.assertEqual(item["duration"], (2 * ffmpeg_samples(mp3) + rate) // (2 * rate))
            self.assertEqual(item["author"], "Allotment crew")
            summary = script_value(name, "summary")
            self.assertEqual(item["description"], summary)   # its entities decoded once
            self.assertEqual(item["content"], "<p>" + summary + "</p>")
            self.assertEqual(item["itunesEpisode"], side["episode"])
            self.assertEqual(item["itunesSeason"], 2)
            self.assertEqual(item["itunesEpisodeType"], "full")
            own = BASE + name + ".cover.png" if "image" in side else None
            self.assertEqual(item.get("itunesImage"), own)   # the episode's own image
            self.assertEqual(item["podcastSeason"]["number"], 2)
            self.assertEqual(item["podcastEpisode"]["number"], side["episode"])
            urls = sorted(t["url"] for t in item["podcastTranscripts"])
            self.assertEqual(urls, sorted(BASE + name + s for s in (".srt", ".transcript.json",
                                                                    ".vtt")))
        self.assertEqual(items[1]["podcastChapters"]["url"], BASE + "garden-01.chapters.json")
        self.assertNotIn("podcastChapters", items[0])     # market-02 has no headings
        self.assertEqual(items[0]["guid"], "urn:allotment:market-2")
        self.assertEqual(items[1]["guid"], str(uuid.uuid5(uuid.UUID(CHANNEL_GUID), "2/1")))

    def test_check_accepts_the_feed_and_the_files_beside_each_mp3(self):
        for name in SCRIPTS:
            mp3 = os.path.join(self.out, name + ".mp3")
            res = run(["check", mp3, self.feed])
            self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
            self.assertRegex(res.stdout, r"itunes:duration: .*OK")

    def copy_out(self):
        folder = os.path.join(tempfile.mkdtemp(prefix="copy-", dir=self.path()), "out")
        shutil.copytree(self.out, folder)
        os.unlink(os.path.join(folder, "feed.xml"))
        return folder

    def test_missing_guid_names_the_line_to_add(self):
        folder = self.copy_out()
        write(os.path.join(folder, "show.txt"), SHOW.replace(f"guid: {CHANNEL_GUID}\n", "")
              .replace("explicit: false\n", ""))
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2)
        self.assertEqual(res.stderr.count("not ready to publish"), 1, res.stderr)
        self.assertIn("the channel has no explicit, guid,", res.stderr)
        self.assertIn(f"\n    guid: {CHANNEL_GUID}   (podcast:guid of {BASE}feed.xml", res.stderr)
        self.assertNotIn("feed.xml", listing(folder))

    def test_draft(self):
        folder = self.copy_out()
        write(os.path.join(folder, "show.txt"),
              "description: Notes.\nauthor: Allotment crew\n")
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2)
        self.assertIn("the channel has no image, category, explicit, guid, which Apple Podcasts "
                      "and Podcast Index require", res.stderr)
        res = run(["feed", folder, "--base-url", BASE, "--draft"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("warning: a draft feed (--draft)", res.stderr)
        with open(os.path.join(folder, "feed.xml"), encoding="utf-8") as f:
            text = f.read()
        self.assertIn("<!-- DRAFT, not ready to publish (written by render-episode feed as a "
                      "draft): the channel has no image, category, explicit, guid -->", text)
        lint = subprocess.run(["xmllint", "--noout", os.path.join(folder, "feed.xml")],
                              capture_output=True, text=True)
        self.assertEqual(lint.returncode, 0, lint.stderr)
        d = feedparser.parse(os.path.join(folder, "feed.xml"))
        self.assertFalse(d.bozo)
        self.assertEqual(d.feed.podcast_guid, CHANNEL_GUID)   # computed from the URL

    def test_cover_art_is_checked(self):
        cases = [("1000x1000", "rgb24", "cover.png", "is 1000x1000 px"),
                 ("1500x1400", "rgb24", "cover.png", "is 1500x1400 px"),
                 ("1500x1500", "gray", "cover.png", "is a PNG that is not in RGB colour"),
                 ("3002x3002", "yuvj420p", "cover.jpg", "is 3002x3002 px")]
        for size, pix, name, message in cases:
            with self.subTest(size=size, pix=pix):
                folder = self.copy_out()
                make_image(os.path.join(folder, name), size, pix)
                write(os.path.join(folder, "show.txt"),
                      SHOW.replace("image: cover.jpg", "image: " + name))
                res = run(["feed", folder, "--base-url", BASE])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(os.path.join(folder, name) + ": the cover art " + message,
                              res.stderr)
                shutil.rmtree(folder)
        folder = self.copy_out()
        write(os.path.join(folder, "cover.jpg"), "not a picture, whatever its name says\n")
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(os.path.join(folder, "cover.jpg") + ": the cover art must be a JPEG or PNG",
                      res.stderr)
        # a cover that is not a regular file (a FIFO no one writes) is refused, not waited on
        folder = self.copy_out()
        os.unlink(os.path.join(folder, "cover.jpg"))
        os.mkfifo(os.path.join(folder, "cover.jpg"))
        res = run(["feed", folder, "--base-url", BASE], timeout=60)   # before: waited for ever
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(os.path.join(folder, "cover.jpg") + ": cannot read the cover art: "
                      "not a regular file", res.stderr)
        folder = self.copy_out()
        write(os.path.join(folder, "show.txt"), SHOW.replace(
            "image: cover.jpg", "image: https://images.example.net/cover.jpg"))
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("warning: the image is a remote URL, not checked", res.stderr)

    def test_cover_art_at_its_edges(self):
        """Apple's limits at their edges: 1400 and 3000 px squares are published, 1399 and
        3001 px are refused (a PNG and a JPEG each)."""
        for size, ok in ((1400, True), (1399, False), (3000, True), (3001, False)):
            for name, pix in (("cover.png", "rgb24"), ("cover.jpg", "yuvj420p")):
                with self.subTest(size=size, name=name):
                    folder = self.copy_out()
                    # lavfi's colour source makes even sizes only: scaled to the odd ones
                    path = os.path.join(folder, name)
                    made = subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                           "color=c=green:s=1400x1400", "-vf", f"scale={size}:{size}",
                                           "-frames:v", "1", "-pix_fmt", pix, path],
                                          capture_output=True, text=True)
                    self.assertEqual(made.returncode, 0, made.stderr)
                    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height",
                                            "-of", "csv=p=0", path], capture_output=True, text=True)
                    self.assertEqual(probe.stdout.strip(), f"{size},{size}")
                    write(os.path.join(folder, "show.txt"),
                          SHOW.replace("image: cover.jpg", "image: " + name))
                    res = run(["feed", folder, "--base-url", BASE])
                    if ok:
                        self.assertEqual(res.returncode, 0, res.stderr)
                        d = feedparser.parse(os.path.join(folder, "feed.xml"))
                        self.assertEqual(d.feed.image.href, BASE + name)
                    else:
                        self.assertEqual(res.returncode, 2, res.stderr)
                        self.assertIn(f"the cover art is {size}x{size} px; Apple Podcasts wants "
                                      "a square of 1400 to 3000 px", res.stderr)
                    shutil.rmtree(folder)

    def test_apple_description_limit(self):
        folder = self.copy_out()
        write(os.path.join(folder, "show.txt"),
              SHOW.replace("description: Short notes", "description: " + "x" * 4000))
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2)
        self.assertIn("longer than Apple's limit of 4000 bytes", res.stderr)


class MarkdownNotes(Case):
    """A Markdown script's document is its item's show notes: content:encoded holds it as
    cmark-gfm's HTML after the summary, its links kept, its raw HTML left out and its
    javascript: links only words, as feedparser and podcast-partytime read it
    (test_page_notes has every other hostile shape)."""

    NOTES = ("# Release 1.2\n\nSee [the changelog](https://example.org/changes?a=1&b=2) and "
             "**bold** words.\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
             "- one [bad link](javascript:alert(3))\n- two\n")
    SUMMARY = "Notes & <more>."

    def test_notes_are_the_documents_html(self):
        out = self.path("out")
        os.mkdir(out)
        script = write(self.path("notes.md"), "---\ntitle: Notes\nlanguage: en-gb\n"
                       f"published: 2026-04-02\nsummary: {self.SUMMARY}\n---\n" + self.NOTES)
        res = run([script, "-o", os.path.join(out, "notes.mp3"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        write(os.path.join(out, "show.txt"), SHOW.replace("image: cover.jpg\n",
                                                          "image: https://e.net/c.jpg\n"))
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        feed_path = os.path.join(out, "feed.xml")
        lint = subprocess.run(["xmllint", "--noout", feed_path], capture_output=True, text=True)
        self.assertEqual(lint.returncode, 0, lint.stderr)
        link_text, link_target = "the changelog", "https://example.org/changes?a=1&b=2"
        self.assertIn(f"[{link_text}]({link_target})", self.NOTES)   # as the script has it
        d = feedparser.parse(feed_path)
        self.assertFalse(d.bozo)
        value = d.entries[0].content[0].value
        notes = HtmlText(value)
        self.assertEqual(notes.tags[:2], ["p", "h1"])
        self.assertEqual(notes.links, [link_target])   # the javascript: link: its words alone
        for words in (self.SUMMARY, "Release 1.2", link_text, "bold", "bad link", "two"):
            self.assertIn(words, notes.text)
        for made in ("script", "img"):
            self.assertNotIn(made, notes.tags)
        self.assertNotIn("alert", value)
        self.assertEqual(HtmlText(d.entries[0].summary).text, self.SUMMARY)
        item = partytime(feed_path)["items"][0]
        self.assertIn(f'<a href="{link_target}">{link_text}</a>', item["content"])
        self.assertIn("<strong>bold</strong>", item["content"])
        self.assertNotIn("alert", item["content"])
        self.assertTrue(item["content"].startswith("<p>" + self.SUMMARY + "</p>\n<h1>"))


class NothingStale(Case):
    """Render with companions, render again without them: what the first render wrote (its
    sidecar lists each with its SHA-256) and the second does not is removed while unchanged;
    an edited one is kept with a warning, never linked from the feed, and `check` says it
    does not belong; a symlink is never followed nor removed."""

    SCRIPT = "---\ntitle: Seeds\nlanguage: en-gb\npublished: 2026-04-01\n---\n# One\n\n"

    def render_twice(self, first_options, between=None):
        out = self.path("out")
        os.mkdir(out)
        script = self.path("ep.txt")
        write(script, self.SCRIPT + "Sow the beans in April.\n")
        mp3 = os.path.join(out, "ep.mp3")
        res = run([script, "-o", mp3, *first_options, "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        if between:
            between(out)
        write(script, self.SCRIPT + "Sow the broad beans in late March instead.\n")
        return out, mp3, run([script, "-o", mp3, "-q"])

    def test_what_the_last_render_wrote_and_this_one_does_not_is_removed(self):
        out, mp3, res = self.render_twice(["--srt", "--transcript-json", "--page", "--page-md"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr, "")
        self.assertEqual(listing(out), ["ep.chapters.json", "ep.json", "ep.mp3", "ep.vtt"])
        res = run(["check", mp3])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_an_edited_companion_is_kept_and_never_linked(self):
        def edit(out):   # one word changed, the size kept: only the SHA-256 can tell
            path = os.path.join(out, "ep.srt")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("beans", text)
            write(path, text.replace("beans", "BEANS"))
        out, mp3, res = self.render_twice(["--srt", "--transcript-json"], edit)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(os.path.join(out, "ep.srt") + ": warning: kept: the previous render wrote "
                      "it and this one does not, but it changed since", res.stderr)
        self.assertEqual(res.stderr.count("warning"), 1, res.stderr)
        self.assertEqual(listing(out), ["ep.chapters.json", "ep.json", "ep.mp3", "ep.srt",
                                        "ep.vtt"])
        write(os.path.join(out, "show.txt"), SHOW.replace("image: cover.jpg\n",
                                                          "image: https://e.net/c.jpg\n"))
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("ep.srt was not written by the render that made ep.mp3", res.stderr)
        d = feedparser.parse(os.path.join(out, "feed.xml"))
        self.assertFalse(d.bozo)
        text = open(os.path.join(out, "feed.xml"), encoding="utf-8").read()
        self.assertIn(BASE + "ep.vtt", text)
        self.assertNotIn("ep.srt", text)
        self.assertNotIn("ep.transcript.json", text)
        feed = partytime(os.path.join(out, "feed.xml"))
        self.assertEqual([t["url"] for t in feed["items"][0]["podcastTranscripts"]],
                         [BASE + "ep.vtt"])
        res = run(["check", mp3])
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertIn(os.path.join(out, "ep.srt") + ": does not belong to ep.mp3", res.stderr)
        # a file the render wrote, changed since: the feed refuses it, check says so
        with open(os.path.join(out, "ep.vtt"), "a", encoding="utf-8") as f:
            f.write("\n")
        res = run(["feed", out, "--base-url", BASE, "-o", self.path("f2.xml")])
        self.assertEqual(res.returncode, 2)
        self.assertIn("ep.vtt is not what the render wrote", res.stderr)
        res = run(["check", mp3])
        self.assertIn(os.path.join(out, "ep.vtt") + ": warning: changed since the render that "
                      "made ep.mp3", res.stderr)

    def test_a_symlink_named_like_a_companion_is_not_followed(self):
        """ep.html, which the first render wrote, replaced by a symlink to a file outside the
        folder; ep.srt, which it did not write, planted as one: both stay as they are, and
        so do the files they point to."""
        elsewhere = self.path("elsewhere")
        os.mkdir(elsewhere)
        targets = {n: write(os.path.join(elsewhere, n), f"not ours: {n}\n")
                   for n in ("page.html", "subtitles.srt")}

        def plant(out):
            os.unlink(os.path.join(out, "ep.html"))
            os.symlink(targets["page.html"], os.path.join(out, "ep.html"))
            os.symlink(targets["subtitles.srt"], os.path.join(out, "ep.srt"))
        out, mp3, res = self.render_twice(["--page"], plant)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(os.path.join(out, "ep.html") + ": warning: kept: the previous render wrote "
                      "it and this one does not, but it is no longer a regular file", res.stderr)
        self.assertNotIn("ep.srt", res.stderr)
        for name, target in (("ep.html", "page.html"), ("ep.srt", "subtitles.srt")):
            self.assertEqual(os.readlink(os.path.join(out, name)), targets[target])
            with open(targets[target], encoding="utf-8") as f:
                self.assertEqual(f.read(), f"not ours: {target}\n")


if __name__ == "__main__":
    main()
