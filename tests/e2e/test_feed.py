# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: episodes rendered into a folder become an RSS feed that xmllint accepts, that
python's xml.etree reads back item by item (order, enclosure sizes, durations from ffmpeg's
decode), and that `render-episode check` confirms; and the episode page (`--page`) passes
`check` too."""
import email.utils
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import uuid
import xml.etree.ElementTree as ET
from datetime import datetime
from html.parser import HTMLParser

from common import BIN, Case, ffmpeg_samples, listing, main, run, write

ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"
PODCAST = "https://podcastindex.org/namespace/1.0"
BASE = "https://cdn.example.org/pod/"

SCRIPTS = {
    # name: (front matter, body); published instants: b (07:30Z) < c (08:00Z) < ... a is oldest
    "a": ("title: First & <one>\nshow: Feed Test\npublished: 2026-11-02\nepisode: 1\n"
          "summary: The first one, with \"quotes\" & <angles>.\nauthor: The team\n",
          "# Start\n\nHello from the first episode.\n"),
    "b café": ("title: Café — второй\nshow: Feed Test\npublished: 2026-11-09T08:30:00+01:00\n"
               "episode: 2\nauthor: The team\n",
               "# One\n\nThe second episode.\n\n# Two\n\n[voice guest] And a guest.\n"),
    "c": ("title: Third\nshow: Feed Test\npublished: 2026-11-09T08:00:00Z\nepisode: 3\n"
          "author: The team\n",
          "Third and newest.\n"),
}
ORDER = ["c", "b café", "a"]   # newest first

# podcast:guid of BASE + feed.xml, as the Podcasting 2.0 namespace defines it
GUID = str(uuid.uuid5(uuid.UUID("ead4c236-bf58-58c6-a2c6-a6b28d128cb6"), "cdn.example.org/pod/feed.xml"))
SHOW = ("# the channel\n"
        "description: Small episodes for the feed test.\n"
        "image: cover.png\n"
        "category: Education > How To\n"
        "explicit: false\n"
        "owner_email: team@example.org\n"
        f"guid: {GUID}\n")




def seconds_half_up(samples, rate):
    return (2 * samples + rate) // (2 * rate)


def items_of(path):
    root = ET.parse(path).getroot()
    return root, root.find("channel"), root.find("channel").findall("item")


class Feed(Case):
    """Three episodes rendered once; the feed built from their folder."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="re-feed-")
        cls.out = os.path.join(cls.dir, "out")
        os.mkdir(cls.out)
        for name, (front, body) in SCRIPTS.items():
            script = write(os.path.join(cls.dir, name + ".txt"), "---\n" + front + "---\n" + body)
            extra = ["--srt", "--transcript-json"] if name == "a" else []
            res = run([script, "-o", os.path.join(cls.out, name + ".mp3"), "-q"] + extra)
            assert res.returncode == 0, res.stderr
        # cover art made by ffmpeg: a 1400 px square RGB PNG
        res = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i",
                              "color=c=blue:s=1400x1400", "-frames:v", "1", "-pix_fmt", "rgb24",
                              os.path.join(cls.out, "cover.png")], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        write(os.path.join(cls.out, "show.txt"), SHOW)
        write(os.path.join(cls.out, "other.json"), '{"not": "a sidecar"}')
        cls.feed = os.path.join(cls.out, "feed.xml")
        cls.res = run(["feed", cls.out, "--base-url", BASE])
        cls.sidecars = {}
        for name in SCRIPTS:
            with open(os.path.join(cls.out, name + ".json"), encoding="utf-8") as f:
                cls.sidecars[name] = json.load(f)

    def test_exit_and_summary_line(self):
        self.assertEqual(self.res.returncode, 0, self.res.stderr)
        self.assertEqual(self.res.stdout, self.feed + ": 3 episodes\n")
        self.assertEqual(self.res.stderr, "")
        self.assertNotIn(".feed.xml", " ".join(listing(self.out)))   # no temporary file left

    def test_xmllint_accepts_it(self):
        res = subprocess.run(["xmllint", "--noout", self.feed], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_namespaces_and_channel(self):
        with open(self.feed, encoding="utf-8") as f:
            text = f.read()
        self.assertTrue(text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"'))
        self.assertIn(f'xmlns:itunes="{ITUNES}"', text)
        self.assertIn(f'xmlns:podcast="{PODCAST}"', text)
        root, channel, _ = items_of(self.feed)
        self.assertEqual(root.tag, "rss")
        self.assertEqual(channel.findtext("title"), "Feed Test")           # from the episodes
        self.assertEqual(channel.findtext("link"), BASE)                   # defaults to the base
        self.assertEqual(channel.findtext("description"), "Small episodes for the feed test.")
        self.assertEqual(channel.findtext("language"), "en-us")
        self.assertEqual(channel.findtext(f"{{{ITUNES}}}author"), "The team")
        self.assertEqual(channel.find(f"{{{ITUNES}}}image").get("href"), BASE + "cover.png")
        cat = channel.find(f"{{{ITUNES}}}category")
        self.assertEqual(cat.get("text"), "Education")
        self.assertEqual(cat.find(f"{{{ITUNES}}}category").get("text"), "How To")
        self.assertEqual(channel.findtext(f"{{{PODCAST}}}guid"), GUID)
        self.assertEqual(channel.findtext(f"{{{ITUNES}}}explicit"), "false")
        self.assertEqual(channel.find(f"{{{ITUNES}}}owner").findtext(f"{{{ITUNES}}}email"),
                         "team@example.org")

    def test_items_newest_first_with_true_sizes_and_durations(self):
        _, channel, items = items_of(self.feed)
        self.assertEqual(len(items), 3)
        published = []
        for item, name in zip(items, ORDER):
            side = self.sidecars[name]
            mp3 = os.path.join(self.out, name + ".mp3")
            self.assertEqual(item.findtext("title"), side["title"])
            enc = item.find("enclosure")
            self.assertEqual(enc.get("url"), BASE + name.replace(" ", "%20").replace("é", "%C3%A9")
                             + ".mp3")
            self.assertEqual(enc.get("type"), "audio/mpeg")
            self.assertEqual(int(enc.get("length")), os.path.getsize(mp3))
            decoded = ffmpeg_samples(mp3)                     # not our own reader
            self.assertEqual(int(item.findtext(f"{{{ITUNES}}}duration")),
                             seconds_half_up(decoded, side["sample_rate"]))
            self.assertEqual(item.findtext(f"{{{ITUNES}}}episode"), str(side["episode"]))
            guid = item.find("guid")
            self.assertEqual(guid.get("isPermaLink"), "false")
            # a numbered episode is its number in its show (season 0: none), whatever its file
            self.assertEqual(guid.text, str(uuid.uuid5(uuid.UUID(GUID), f"0/{side['episode']}")))
            when = email.utils.parsedate_to_datetime(item.findtext("pubDate"))
            iso = side["published"]
            expected = datetime.fromisoformat(iso + "T00:00:00+00:00" if len(iso) == 10
                                              else iso.replace("Z", "+00:00"))
            self.assertEqual(when, expected)
            self.assertRegex(item.findtext("pubDate"),
                             r"^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d [+-]\d{4}$")
            # the weekday too, as python's email package writes this instant in this zone
            self.assertEqual(item.findtext("pubDate"), email.utils.format_datetime(expected))
            published.append(when)
        self.assertEqual(published, sorted(published, reverse=True))
        self.assertEqual(channel.findtext("lastBuildDate"), items[0].findtext("pubDate"))
        # the description is HTML (so says RSS): the plain summary, escaped once for HTML
        self.assertEqual(items[2].findtext("description"),
                         'The first one, with &#34;quotes&#34; &amp; &lt;angles&gt;.')

    def test_transcripts_and_chapters_that_exist(self):
        _, _, items = items_of(self.feed)
        by_name = dict(zip(ORDER, items))
        links = {(t.get("type"), t.get("url")) for t in by_name["a"].findall(f"{{{PODCAST}}}transcript")}
        self.assertEqual(links, {("text/vtt", BASE + "a.vtt"), ("application/x-subrip", BASE + "a.srt"),
                                 ("application/json", BASE + "a.transcript.json")})
        chapters = by_name["a"].find(f"{{{PODCAST}}}chapters")
        self.assertEqual(chapters.get("url"), BASE + "a.chapters.json")
        self.assertEqual(chapters.get("type"), "application/json+chapters")
        self.assertEqual([t.get("url") for t in by_name["c"].findall(f"{{{PODCAST}}}transcript")],
                         [BASE + "c.vtt"])
        self.assertIsNone(by_name["c"].find(f"{{{PODCAST}}}chapters"))   # no headings

    def test_check_accepts_every_item(self):
        for name in SCRIPTS:
            res = run(["check", os.path.join(self.out, name + ".mp3"), self.feed])
            self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
            self.assertRegex(res.stdout, r"enclosure length: .*OK")
            self.assertRegex(res.stdout, r"itunes:duration: .*OK")

    def test_check_catches_a_wrong_duration(self):
        with open(self.feed, encoding="utf-8") as f:
            text = f.read()
        _, _, items = items_of(self.feed)
        seconds = items[0].findtext(f"{{{ITUNES}}}duration")
        wrong = text.replace(f"<itunes:duration>{seconds}</itunes:duration>",
                             f"<itunes:duration>{int(seconds) + 5}</itunes:duration>", 1)
        self.assertNotEqual(wrong, text)
        stale = write(self.path("stale.xml"), wrong)
        res = run(["check", os.path.join(self.out, ORDER[0] + ".mp3"), stale])
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)

    def test_same_inputs_same_bytes(self):
        os.mkdir(self.path("again"))
        again = self.path("again", "feed.xml")   # the name is in atom:link rel="self"
        res = run(["feed", self.out, "--base-url", BASE.rstrip("/"), "-o", again, "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout, "")
        with open(self.feed, "rb") as f1, open(again, "rb") as f2:
            self.assertEqual(f1.read(), f2.read())

    def test_standard_output(self):
        res = run(["feed", self.out, "--base-url", BASE, "-o", "-"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.feed, encoding="utf-8") as f:
            self.assertEqual(res.stdout, f.read())

    def copy_out(self, *names):
        folder = self.path("copy")
        os.mkdir(folder)
        for n in names:
            shutil.copy(os.path.join(self.out, n), folder)
        return folder

    def test_stale_sidecar_is_an_error_and_nothing_is_written(self):
        folder = self.copy_out("a.mp3", "a.json", "show.txt")
        with open(os.path.join(folder, "a.mp3"), "ab") as f:
            f.write(b"\0")
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2)
        self.assertIn("a.json: the sidecar is stale", res.stderr)
        self.assertNotIn("feed.xml", listing(folder))

    def test_show_file_errors_are_positioned(self):
        folder = self.copy_out("a.mp3", "a.json")
        show = write(self.path("show-bad.txt"), "title: T\ncolour: blue\nexplicit: maybe\n")
        res = run(["feed", folder, "--base-url", BASE, "--show", show])
        self.assertEqual(res.returncode, 2)
        self.assertIn(show + ":2:1: unknown key 'colour'", res.stderr)
        self.assertIn(show + ":3:11: explicit must be true or false", res.stderr)
        self.assertEqual(listing(folder), ["a.json", "a.mp3"])

    def test_missing_description_names_what_to_add(self):
        folder = self.copy_out("a.mp3", "a.json")
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2)
        self.assertIn(os.path.join(folder, "show.txt") + ": the channel has no description: "
                      "add `description: ...`", res.stderr)

    def test_episode_without_audio_is_left_out_with_a_warning(self):
        folder = self.copy_out("a.mp3", "a.json", "c.json", "show.txt", "cover.png")
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("c.json: warning: c.mp3 is missing; not in the feed", res.stderr)
        _, _, items = items_of(os.path.join(folder, "feed.xml"))
        self.assertEqual([i.findtext("title") for i in items], ["First & <one>"])

    def test_names_xml_cannot_carry_are_refused(self):
        """An episode whose file name holds ESC, U+0001, byte 0xFF or U+FFFE would go raw into
        the feed's URLs and GUID (malformed XML): refused, shown escaped, nothing written."""
        for raw, shown in ((b"a\x1b", "a\\u001B"), (b"a\x01", "a\\u0001"), (b"a\xff", "a\\xFF"),
                           ("a\ufffe".encode(), "a\\uFFFE")):
            with self.subTest(name=shown):
                folder = self.copy_out("a.mp3", "a.json", "show.txt", "cover.png")
                for ext in (b".mp3", b".json"):
                    os.rename(os.path.join(folder.encode(), b"a" + ext), os.path.join(folder.encode(), raw + ext))
                res = subprocess.run([BIN, "feed", folder, "--base-url", BASE], capture_output=True,
                                     env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")))
                self.assertEqual(res.returncode, 2, res.stderr)
                err = res.stderr.decode("utf-8")
                self.assertIn(shown + ".json: cannot be published", err)
                self.assertNotRegex(err, "[\x00-\x08\x0b-\x1f\x7f]")
                self.assertNotIn("feed.xml", os.listdir(folder))
                shutil.rmtree(folder)

    def test_first_unpublishable_name_in_byte_order(self):
        """Of several names XML cannot carry, the one refused is the first in byte order, not
        the file system's: made in the order m, a, z (a folder lists them as made, or the
        other way round, or by a hash), the message names a, and a only."""
        folder = self.copy_out("a.mp3", "a.json", "show.txt", "cover.png")
        for raw in (b"m\x01", b"a\x01", b"z\x01"):
            shutil.copy(os.path.join(folder, "a.json"), os.path.join(folder.encode(), raw + b".json"))
        res = subprocess.run([BIN, "feed", folder, "--base-url", BASE], capture_output=True,
                             env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")))
        self.assertEqual(res.returncode, 2, res.stderr)
        err = res.stderr.decode("utf-8")
        self.assertIn("a\\u0001.json: cannot be published", err)
        self.assertNotIn("m\\u0001", err)
        self.assertNotIn("z\\u0001", err)
        self.assertNotIn("feed.xml", os.listdir(folder))

    def test_usage_errors(self):
        for args in (["feed", self.out], ["feed", "--base-url", BASE],
                     ["feed", self.out, "--base-url", "ftp://x.org/"],
                     ["feed", self.out, "--base-url", BASE + "?x=1"],
                     ["feed", self.out, "--base-url", BASE, "--bogus"]):
            res = run(args)
            self.assertEqual(res.returncode, 1, args)
            self.assertIn("render-episode feed", res.stderr)

    def test_empty_folder(self):
        folder = self.path("empty")
        os.mkdir(folder)
        res = run(["feed", folder, "--base-url", BASE])
        self.assertEqual(res.returncode, 2)
        self.assertIn("no rendered MP3 episode", res.stderr)


class Page(Case):
    """`render --page` writes ep.html, the episode page, and `--page-md` ep.md, the show notes
    in Markdown; `check` confirms both."""

    def test_page_shape_and_check(self):
        script = write(self.path("ep.txt"),
                       "---\ntitle: Page *test* & more\nshow: Feed Test\n"
                       "published: 2026-11-30T09:00:00Z\nsummary: What the duration: is.\n---\n"
                       "# Welcome\n\nThe duration: forty seconds, they said.\n\n"
                       "# Second part\n\n[voice guest] A guest speaks.\n")
        mp3 = self.path("ep.mp3")
        res = run([script, "-o", mp3, "--page-md", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertFalse(os.path.exists(self.path("ep.html")))
        with open(self.path("ep.md"), encoding="utf-8") as f:
            page = f.read()
        with open(self.path("ep.json"), encoding="utf-8") as f:
            side = json.load(f)
        lines = page.splitlines()
        self.assertEqual(lines[0], r"# Page \*test\* & more")
        self.assertIn("Duration: " + side["duration"], lines)
        self.assertIn("## Episode overview", lines)
        self.assertIn("- Show: Feed Test", lines)
        self.assertIn("- Published: 2026-11-30T09:00:00Z", lines)
        self.assertIn("- Audio duration: " + side["duration"], lines)
        self.assertIn("## Chapters", lines)
        self.assertIn("- 0:00 Welcome", lines)
        start = side["chapters"][1]["start_ms"] // 1000
        self.assertIn(f"- {start // 60}:{start % 60:02d} Second part", lines)
        self.assertIn("## Transcript", lines)
        self.assertIn(r"The duration\: forty seconds, they said.", page)
        res = run(["check", mp3, self.path("ep.md")])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertEqual(len(re.findall(r"ep\.md:\d+: ", res.stdout)), 2, res.stdout)

    def test_html_page(self):
        """The HTML page, read back by python's html.parser (not ours): lang, title, the
        player and its track, the duration, chapter links as media fragments, one span per
        WebVTT cue, the speakers, the disclosure; escaped text; and `check` confirms it."""
        script = write(self.path("ep.txt"),
                       "---\ntitle: <b>Page</b> & \"more\" – café\nshow: Feed Test\n"
                       "language: en-gb\npublished: 2026-11-30T09:00:00Z\n"
                       "summary: What the duration: 5 seconds is </script>.\n---\n"
                       "# Welcome\n\nDuration: 9 seconds, they said.\n\n"
                       "# Second part\n\n[voice guest] A guest speaks. Then a second sentence.\n")
        mp3 = self.path("ep.mp3")
        res = run([script, "-o", mp3, "--page", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertFalse(os.path.exists(self.path("ep.md")))
        with open(self.path("ep.html"), encoding="utf-8") as f:
            html = f.read()
        with open(self.path("ep.json"), encoding="utf-8") as f:
            side = json.load(f)
        with open(self.path("ep.vtt"), encoding="utf-8") as f:
            vtt_ids = re.findall(r"^(\d+)\n\d\d:", f.read(), re.M)
        page = PageReader()
        page.feed(html)
        page.close()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        self.assertEqual(page.first["html"]["lang"], "en-gb")
        self.assertEqual(page.text_of["title"], '<b>Page</b> & "more" – café')
        self.assertEqual(page.text_of["h1"], '<b>Page</b> & "more" – café')
        self.assertIn("<h1>&lt;b&gt;Page&lt;/b&gt; &amp; ", html)   # escaped by the serializer
        self.assertEqual(page.first["audio"]["src"], "ep.mp3")
        self.assertEqual(page.first["track"]["src"], "ep.vtt")
        self.assertEqual(page.first["track"]["srclang"], "en-gb")
        self.assertIn("Duration: " + side["duration"], page.text)
        self.assertEqual(page.first["time_duration"]["datetime"], side["duration"])
        starts = [c["start_ms"] for c in side["chapters"]]
        hrefs = [a["href"] for a in page.links if a.get("data-start")]
        self.assertEqual(hrefs, [f"ep.mp3#t={ms // 1000}.{ms % 1000:03d}" for ms in starts])
        self.assertEqual([c["id"] for c in page.cues], ["cue-" + i for i in vtt_ids])
        self.assertGreaterEqual(len(vtt_ids), 3)
        self.assertIn("Voices: Host, Guest", page.text)
        self.assertIn("The voices in this episode are synthetic", page.text)
        self.assertIn("Guest:", page.text)
        self.assertEqual(page.scripts, 2)   # the JSON-LD and the player's script, nothing fetched
        self.assertEqual(page.external, [])
        ld = json.loads(page.ld_json)
        self.assertEqual(ld["duration"], side["duration"])
        self.assertEqual(ld["summary" if "summary" in ld else "description"],
                         "What the duration: 5 seconds is </script>.")
        res = run(["check", mp3, self.path("ep.html")])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        # its own three claims only: the Duration line and the two JSON-LD durations; the
        # script's "Duration: 9 seconds" and "duration: 5 seconds" are not claims
        self.assertEqual(len(re.findall(r"ep\.html:\d+: ", res.stdout)), 3, res.stdout)


class PageReader(HTMLParser):
    """What the tests read from a page: attributes of the first element of each kind, the
    text of title and h1, all visible text, links, cue spans, scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.first, self.text_of, self.links, self.cues, self.external = {}, {}, [], [], []
        self.scripts, self.ld_json, self.text, self._open, self._in_script = 0, "", "", [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        key = "time_duration" if tag == "time" and a.get("datetime", "").startswith("P") else tag
        self.first.setdefault(key, a)
        if tag == "a":
            self.links.append(a)
        if tag == "span" and "cue" in a.get("class", "").split():
            self.cues.append(a)
        if tag in ("script", "link", "img", "iframe") and not (a.get("src") or a.get("href")
                                                                 or "data:").startswith("data:"):
            self.external.append(a)
        if tag == "script":
            self.scripts += 1
            self._in_script = a.get("type", "")
        if tag in ("title", "h1"):
            self._open.append(tag)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None
        if self._open and self._open[-1] == tag:
            self._open.pop()

    def handle_data(self, data):
        if self._in_script == "application/ld+json":
            self.ld_json += data
        elif self._in_script is None:
            self.text += data
            for tag in self._open:
                self.text_of[tag] = self.text_of.get(tag, "") + data


if __name__ == "__main__":
    main()
