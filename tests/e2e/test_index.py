# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: `feed` also writes OUTDIR/index.html, the folder's page: read back by python's
html.parser (not ours), it lists every episode newest first (the feed's order), links each
to its page where it has one (`--page`) and to its audio otherwise, percent-encoded by the
serializer, states each length as <time datetime="PT…"> equal to the sidecar's, links the
feed, and escapes the show's text; an episode with its own cover shows it beside its title,
and xmllint reads the index as HTML. With `-o -` (the feed on standard output) nothing is
written into the folder."""
import json
import os
import re
import subprocess
import urllib.parse
from html.parser import HTMLParser

from common import Case, listing, main, run, write
from test_cover import make_image
from test_feed import SHOW   # the channel the feed test publishes (kept valid there)

BASE = "https://cdn.example.org/pod/"
EPISODES = {   # name: (published, with --page)
    "old": ("2026-11-02", True),
    "mid café": ("2026-11-09T08:30:00+01:00", False),
    "new": ("2026-11-16T08:00:00Z", True),
}
ORDER = ["new", "mid café", "old"]
HTML5_ELEMENTS = ("main", "header", "article", "time")   # unknown to libxml2's HTML 4 parser


class IndexReader(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.lang, self.title, self.items, self.feed_links = None, "", [], []
        self._in, self._h2 = [], False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        if tag == "li":
            self.items.append({"href": None, "times": [], "title": "", "images": []})
        if tag == "img" and self.items:
            self.items[-1]["images"].append((a.get("src"), a.get("alt")))
        if tag == "h2":
            self._h2 = True
        if tag == "a" and self._h2 and self.items:
            self.items[-1]["href"] = a.get("href")
        elif tag == "a":
            self.feed_links.append(a.get("href"))
        if tag == "link" and a.get("rel") == "alternate":
            self.feed_links.append(a.get("href"))
        if tag == "time" and self.items:
            self.items[-1]["times"].append(a.get("datetime"))
        self._in.append(tag)

    def handle_endtag(self, tag):
        if tag == "h2":
            self._h2 = False
        if self._in and self._in[-1] == tag:
            self._in.pop()

    def handle_data(self, data):
        if self._h2 and self.items:
            self.items[-1]["title"] += data
        if self._in and self._in[-1] == "title":
            self.title += data


class Index(Case):
    def render_folder(self):
        out = self.path("out")
        os.mkdir(out)
        for name, (published, page) in EPISODES.items():
            script = write(self.path(name + ".txt"),
                           f"---\ntitle: {name.title()} <&> episode\nshow: Feed Test\n"
                           f"published: {published}\n---\nThe {name} episode.\n")
            extra = ["--page"] if page else []
            res = run([script, "-o", os.path.join(out, name + ".mp3"), "-q", *extra])
            self.assertEqual(res.returncode, 0, res.stderr)
        write(os.path.join(out, "show.txt"), SHOW)
        # the feed test's show file; cover art it names as a local file is made by ffmpeg
        for image in re.findall(r"^image: *(\S+)$", SHOW, re.M):
            if "://" not in image:
                res = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i",
                                      "color=c=blue:s=1400x1400", "-frames:v", "1", "-pix_fmt",
                                      "rgb24", os.path.join(out, image)],
                                     capture_output=True, text=True)
                self.assertEqual(res.returncode, 0, res.stderr)
        return out

    def test_index_newest_first_with_links_and_lengths(self):
        out = self.render_folder()
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertTrue(html.startswith("<!DOCTYPE html>"))
        page = IndexReader()
        page.feed(html)
        page.close()
        self.assertEqual(page.lang, "en-us")
        self.assertEqual(page.title, "Feed Test")
        self.assertIn("feed.xml", page.feed_links)
        self.assertEqual([i["title"] for i in page.items],
                         [f"{n.title()} <&> episode" for n in ORDER])
        for item, name in zip(page.items, ORDER):
            with self.subTest(episode=name):
                with open(os.path.join(out, name + ".json"), encoding="utf-8") as f:
                    side = json.load(f)
                target = name + (".html" if EPISODES[name][1] else ".mp3")
                self.assertEqual(urllib.parse.unquote(item["href"]), target)
                self.assertTrue(os.path.exists(os.path.join(out, urllib.parse.unquote(item["href"]))))
                self.assertNotIn(" ", item["href"])   # percent-encoded
                self.assertEqual(item["times"][-1], side["duration"])
                self.assertEqual(item["times"][0], side["published"])
        # the index names several episodes' lengths, none as a `Duration:` claim
        res = run(["check", os.path.join(out, "new.mp3"), os.path.join(out, "index.html")])
        self.assertIn("no duration claim", res.stdout + res.stderr)

    def test_index_shows_an_episode_own_cover(self):
        """An episode rendered with its own image: (copied beside it as STEM.cover.png, under a
        name that needs escaping) shows that file as a small image beside its title, with an
        empty alt (the title next to it is the link that names the episode); the episodes
        without one show none, and neither does it once rendered again without image:.
        xmllint reads the index as HTML with no error but the HTML5 element names its HTML 4
        parser does not know, and counts the images in the list."""
        out = self.render_folder()
        name = "own (cover) [1] #a"
        data = make_image(self.path("art.png"), "1400x1400", "rgb24")
        script = self.path("own.txt")
        text = ("---\ntitle: Own cover\nshow: Feed Test\npublished: 2026-11-20\n{image}---\n"
                "The episode with a cover of its own.\n")

        def index_after(image, images):
            write(script, text.format(image=image))
            res = run([script, "-o", os.path.join(out, name + ".mp3"), "-q", "--page"])
            self.assertEqual(res.returncode, 0, res.stderr)
            res = run(["feed", out, "--base-url", BASE])
            self.assertEqual(res.returncode, 0, res.stderr)
            index = os.path.join(out, "index.html")
            res = subprocess.run(["xmllint", "--html", "--xpath", "count(//ol//li//img)", index],
                                 capture_output=True, text=True, errors="replace")
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(res.stdout.strip(), str(images))
            errors = set(re.findall(r"parser error : (.*)", res.stderr))
            self.assertLessEqual(errors, {f"Tag {t} invalid" for t in HTML5_ELEMENTS}, res.stderr)
            page = IndexReader()
            with open(index, encoding="utf-8") as f:
                page.feed(f.read())
            page.close()
            return {i["title"]: i["images"] for i in page.items}

        images = index_after("image: art.png\n", 1)
        self.assertEqual(list(images), ["Own cover"] + [f"{n.title()} <&> episode" for n in ORDER])
        ((src, alt),) = images.pop("Own cover")
        url = urllib.parse.urlsplit(urllib.parse.urljoin("https://example.org/pod/index.html", src))
        self.assertEqual((url.scheme, url.query, url.fragment), ("https", "", ""), src)
        self.assertEqual(urllib.parse.unquote(url.path), f"/pod/{name}.cover.png")
        with open(os.path.join(out, name + ".cover.png"), "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertEqual(alt, "")
        self.assertEqual(set(map(tuple, images.values())), {()})   # the others: none
        # image: gone: the copy goes (the stale-companion rule), and the image with it
        images = index_after("", 0)
        self.assertFalse(os.path.exists(os.path.join(out, name + ".cover.png")))
        self.assertEqual(set(map(tuple, images.values())), {()})

    def test_feed_on_standard_output_writes_no_index(self):
        out = self.render_folder()
        before = listing(out)
        res = run(["feed", out, "--base-url", BASE, "-o", "-"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(res.stdout.startswith("<?xml"))
        self.assertEqual(listing(out), before)

    def test_index_links_no_page_the_render_did_not_write(self):
        # rendered with --page, then edited by hand, then rendered again without --page: the
        # old new.html is kept (it changed since its render wrote it), but the new sidecar
        # does not list it; the feed links no page for the episode, and neither may the index
        out = self.render_folder()
        with open(os.path.join(out, "new.html"), "a", encoding="utf-8") as f:
            f.write("<!-- edited by hand -->\n")
        script = write(self.path("new.txt"), "---\ntitle: New again\nshow: Feed Test\n"
                       "published: 2026-11-16T08:00:00Z\n---\nThe new text.\n")
        res = run([script, "-o", os.path.join(out, "new.mp3"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("new.html: warning: kept", res.stderr)
        self.assertTrue(os.path.exists(os.path.join(out, "new.html")))
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            page = IndexReader()
            page.feed(f.read())
        hrefs = {i["title"]: urllib.parse.unquote(i["href"]) for i in page.items}
        self.assertEqual(hrefs["New again"], "new.mp3")
        self.assertEqual(hrefs["Old <&> episode"], "old.html")

    def test_index_links_are_paths_whatever_the_file_names(self):
        # a file name with ':' '#' '?' '%' is still a relative link to that very file (not
        # a javascript: URL, a fragment or a query)
        out = self.render_folder()
        for name in ["javascript:alert(1)", "a#b?c%41"]:
            script = write(self.path("x.txt"), f"---\ntitle: T {name}\nshow: Feed Test\n---\n"
                           "Some words.\n")
            res = run([script, "-o", os.path.join(out, name + ".mp3"), "-q", "--page"])
            self.assertEqual(res.returncode, 0, res.stderr)
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
            page = IndexReader()
            page.feed(f.read())
        base = "https://example.org/pod/index.html"
        for item in page.items:
            url = urllib.parse.urlsplit(urllib.parse.urljoin(base, item["href"]))
            with self.subTest(href=item["href"]):
                self.assertEqual((url.scheme, url.query, url.fragment), ("https", "", ""))
                name = urllib.parse.unquote(url.path.rsplit("/", 1)[1])
                self.assertTrue(os.path.isfile(os.path.join(out, name)), name)
        # and so is every link and source on those episodes' own pages (a chapter link's
        # fragment is its only one: a media fragment)
        for name in ["javascript:alert(1)", "a#b?c%41"]:
            refs = []

            class Refs(HTMLParser):
                def handle_starttag(self, tag, attrs):
                    refs.extend(v for k, v in attrs if k in ("href", "src") and v != "data:,")

            with open(os.path.join(out, name + ".html"), encoding="utf-8") as f:
                Refs().feed(f.read())
            self.assertTrue(refs)
            for ref in refs:
                url = urllib.parse.urlsplit(urllib.parse.urljoin(base, ref))
                with self.subTest(page=name, ref=ref):
                    self.assertEqual((url.scheme, url.query), ("https", ""))
                    self.assertIn(url.fragment, ("", "t=0.000"))
                    file = urllib.parse.unquote(url.path.rsplit("/", 1)[1])
                    # the show's cover, which the render embedded, is in the page's header,
                    # and the show's feed beside it is linked to subscribe; feed adds the
                    # page's own URL (canonical), the index and the other episodes' pages
                    # or audio (docs/feed.md, "The page inside its show")
                    others = {n for n in os.listdir(out) if n.endswith((".html", ".mp3"))}
                    self.assertIn(file, {name + ".mp3", name + ".vtt", "cover.png", "feed.xml",
                                         "index.html"} | others)
                    self.assertTrue(os.path.isfile(os.path.join(out, file)), file)

    def test_failed_feed_writes_no_index(self):
        # the feed cannot be written (its folder is missing): "nothing was written" must hold
        # for index.html too
        out = self.render_folder()
        before = listing(out)
        res = run(["feed", out, "--base-url", BASE, "-o", self.path("missing", "feed.xml")])
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("nothing was written", res.stderr)
        self.assertEqual(listing(out), before)

    def test_feed_named_with_o_in_the_folder_is_linked(self):
        # docs/usage.md's and docs/ci.md's command line names the default feed with -o: the index
        # links it all the same; one written elsewhere is not linked
        out = self.render_folder()
        for output, link in [(os.path.join(out, "feed.xml"), "feed.xml"),
                             (os.path.join(out, "..", os.path.basename(out), "pod cast.xml"),
                              "pod%20cast.xml"),
                             (self.path("elsewhere.xml"), None)]:
            with self.subTest(output=output):
                res = run(["feed", out, "--base-url", BASE, "-o", output])
                self.assertEqual(res.returncode, 0, res.stderr)
                with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
                    page = IndexReader()
                    page.feed(f.read())
                self.assertEqual(page.feed_links, [link, link] if link else [])

    def test_an_episode_named_index_keeps_its_page(self):
        # an episode rendered from index.txt with --page has its page at OUTDIR/index.html:
        # feed must not replace it with the folder's index (the feed links that page, and a
        # second feed run would find it changed: stale)
        out = self.render_folder()
        script = write(self.path("index.txt"), "---\ntitle: The index episode\nshow: Feed Test\n"
                       "published: 2026-11-20\n---\nAn episode named index.\n")
        res = run([script, "-o", os.path.join(out, "index.mp3"), "-q", "--page"])
        self.assertEqual(res.returncode, 0, res.stderr)
        page = None
        for attempt in range(2):
            res = run(["feed", out, "--base-url", BASE])
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertIn("index.html", res.stderr)   # the warning says it was not written
            with open(os.path.join(out, "index.html"), "rb") as f:
                now = f.read()
            # still the episode's page (feed wrote its show's links into it, once)
            self.assertIn(b"<h1>The index episode</h1>", now)
            self.assertNotIn(b'class="episodes"', now)
            if page is not None:
                self.assertEqual(now, page)
            page = now


if __name__ == "__main__":
    main()
