# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: after `feed`, every episode page is inside its show. A few short episodes are
rendered with --page into a temporary folder with a show file, then `feed --base-url` runs.
Each page, read back by python's html.parser and by xmllint's HTML parser (neither ours):
- links the show's index and feed, and the previous and next episode in the feed's order
  (read from feed.xml by ElementTree), and at most eight nearby episodes, itself left out;
  every link resolves to a file in the folder (a page, or the audio of an episode without one);
- has a canonical link and Open Graph / Twitter tags with absolute URLs under the base URL
  (og:audio the MP3, og:image the show's cover);
- names no other episode's length (titles and dates only), and `check` passes on it (exit 0).
feed twice gives identical bytes; a page edited by hand after feed is refused as stale (exit
2, nothing written); a page rendered again loses its neighbours until feed runs again, which
gives back the same bytes. The Markdown page links its audio and the feed."""
import fcntl
import hashlib
import json
import os
import re
import signal
import subprocess
import time
import urllib.parse
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from common import SRC, Case, env_skip, main, run, write
from test_feed import SHOW   # the channel the feed test publishes (kept valid there)
from test_shared_folders import blocked_flock_waiter

BASE = "https://cdn.example.org/pod/"
# name: published; "no page" is rendered without --page (its links go to its audio)
EPISODES = {
    "ep one": "2026-11-02",
    "ep2": "2026-11-09T08:30:00+01:00",
    "no page": "2026-11-12",
    "ep4": "2026-11-16T08:00:00Z",
    "ep5": "2026-11-20",
}
HTML5_ELEMENTS = ("main", "header", "article", "time", "nav", "section", "footer", "audio",
                  "track")


class PageReader(HTMLParser):
    """The head's canonical link and meta tags, and every link of the show's <nav>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.canonical, self.meta, self.nav_links, self.nav_text = None, {}, [], ""
        self._nav = 0
        self.nearby = []
        self._in_nearby = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and a.get("rel") == "canonical":
            self.canonical = a.get("href")
        if tag == "meta" and (a.get("property") or a.get("name")):
            self.meta[a.get("property") or a.get("name")] = a.get("content")
        if tag == "nav":
            self._nav += 1
        if tag == "ul" and "nearby" in (a.get("class") or ""):
            self._in_nearby = True
        if tag == "a" and self._nav:
            self.nav_links.append((a.get("rel"), a.get("href")))
            if self._in_nearby:
                self.nearby.append(a.get("href"))

    def handle_endtag(self, tag):
        if tag == "nav":
            self._nav -= 1
        if tag == "ul":
            self._in_nearby = False

    def handle_data(self, data):
        if self._nav:
            self.nav_text += data


def read_page(path):
    reader = PageReader()
    with open(path, encoding="utf-8") as f:
        reader.feed(f.read())
    reader.close()
    return reader


def digests(folder):
    out = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


class ShowNav(Case):
    def render(self, out, name, page=True, title=None):
        title = title or f"{name.title()} duration: PT9S <&>"
        script = write(self.path(name + ".txt"),
                       f"---\ntitle: {title}\nshow: Feed Test\n"
                       f"published: {EPISODES[name]}\nsummary: The {name} episode.\n---\n"
                       f"The {name} episode.\n")
        extra = ["--page", "--page-md"] if page else []
        res = run([script, "-o", os.path.join(out, name + ".mp3"), "-q", *extra])
        self.assertEqual(res.returncode, 0, res.stderr)

    def render_folder(self):
        out = self.path("out")
        os.mkdir(out)
        write(os.path.join(out, "show.txt"), SHOW)
        for image in re.findall(r"^image: *(\S+)$", SHOW, re.M):
            res = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i",
                                  "color=c=blue:s=1400x1400", "-frames:v", "1", "-pix_fmt",
                                  "rgb24", os.path.join(out, image)],
                                 capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, res.stderr)
        for name in EPISODES:
            self.render(out, name, page=name != "no page")
        return out

    def feed(self, out):
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 0, res.stderr)
        return res

    def feed_order(self, out):
        """The stems in the feed's order, from each item's enclosure URL."""
        items = ET.parse(os.path.join(out, "feed.xml")).getroot().find("channel").findall("item")
        urls = [i.find("enclosure").get("url") for i in items]
        return [urllib.parse.unquote(u[len(BASE):])[:-len(".mp3")] for u in urls]

    def test_pages_link_their_show(self):
        out = self.render_folder()
        self.feed(out)
        order = self.feed_order(out)
        self.assertEqual(order, ["ep5", "ep4", "no page", "ep2", "ep one"])

        def target(stem):
            return stem + (".mp3" if stem == "no page" else ".html")

        for at, stem in enumerate(order):
            if stem == "no page":
                continue
            with self.subTest(page=stem):
                path = os.path.join(out, stem + ".html")
                page = read_page(path)
                links = [(rel, urllib.parse.unquote(href)) for rel, href in page.nav_links]
                for _, href in links:   # every link is a file of the folder
                    self.assertTrue(os.path.isfile(os.path.join(out, href)), href)
                hrefs = [h for _, h in links]
                self.assertIn("index.html", hrefs)
                self.assertIn("feed.xml", hrefs)
                rels = {rel: href for rel, href in links if rel}
                # previous = older = after it in the feed (newest first); next = newer
                self.assertEqual(rels.get("prev"),
                                 target(order[at + 1]) if at + 1 < len(order) else None)
                self.assertEqual(rels.get("next"), target(order[at - 1]) if at > 0 else None)
                nearby = [urllib.parse.unquote(h) for h in page.nearby]
                self.assertEqual(nearby, [target(s) for s in order if s != stem])
                self.assertLessEqual(len(nearby), 8)
                for h in page.nearby + [h for _, h in page.nav_links]:
                    self.assertNotIn(" ", h)   # percent-encoded
                # titles and dates, never a length of another episode
                text = page.nav_text
                for other in EPISODES:   # their titles hold "duration: PT9S" on purpose
                    text = text.replace(f"{other.title()} duration: PT9S <&>", "TITLE")
                self.assertNotRegex(text, r"\bPT\d|\d+ (min|s)\b|[Dd]uration")
                self.assertEqual(text.count("TITLE"), len(page.nav_links) - 2)
                # absolute URLs under the base
                url = BASE + urllib.parse.quote(stem) + ".html"
                self.assertEqual(page.canonical, url)
                self.assertEqual(page.meta.get("og:url"), url)
                self.assertEqual(page.meta.get("og:audio"), BASE + urllib.parse.quote(stem) + ".mp3")
                self.assertEqual(page.meta.get("og:audio:type"), "audio/mpeg")
                self.assertEqual(page.meta.get("og:image"), BASE + "cover.png")
                self.assertEqual(page.meta.get("twitter:image"), BASE + "cover.png")
                self.assertEqual(page.meta.get("og:title"), f"{stem.title()} duration: PT9S <&>")
                self.assertEqual(page.meta.get("og:description"), f"The {stem} episode.")
                self.assertEqual(page.meta.get("og:site_name"), "Feed Test")
                self.assertEqual(page.meta.get("twitter:card"), "summary")
                # xmllint (libxml2's HTML 4 parser) finds the same, and nothing else wrong
                res = subprocess.run(["xmllint", "--html", "--xpath",
                                      'string(//link[@rel="canonical"]/@href)', path],
                                     capture_output=True, text=True, errors="replace")
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertEqual(res.stdout.strip(), url)
                errors = set(re.findall(r"parser error : (.*)", res.stderr))
                self.assertLessEqual(errors, {f"Tag {t} invalid" for t in HTML5_ELEMENTS},
                                     res.stderr)
                res = subprocess.run(["xmllint", "--html", "--xpath",
                                      'count(//nav//a[@rel="prev" or @rel="next"])', path],
                                     capture_output=True, text=True, errors="replace")
                self.assertEqual(res.stdout.strip(), str(len([r for r in rels if r in
                                                               ("prev", "next")])))
                # every claim check reads still holds, on both pages
                res = run(["check", os.path.join(out, stem + ".mp3"), path,
                           os.path.join(out, stem + ".md")])
                self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
                self.assertNotIn("does not belong", res.stdout + res.stderr)

    def test_feed_twice_gives_the_same_bytes(self):
        out = self.render_folder()
        self.feed(out)
        first = digests(out)
        self.feed(out)
        self.assertEqual(digests(out), first)
        # the sidecar lists the page as feed wrote it
        with open(os.path.join(out, "ep2.json"), encoding="utf-8") as f:
            files = {e["name"]: e for e in json.load(f)["files"]}
        self.assertEqual(files["ep2.html"]["sha256"], first["ep2.html"])

    def test_a_page_edited_after_feed_is_stale(self):
        out = self.render_folder()
        self.feed(out)
        page = os.path.join(out, "ep2.html")
        with open(page, "a", encoding="utf-8") as f:
            f.write("<!-- edited -->\n")
        before = digests(out)
        res = run(["feed", out, "--base-url", BASE])
        self.assertEqual(res.returncode, 2, res.stdout + res.stderr)
        self.assertIn("ep2.html", res.stderr)
        self.assertEqual(digests(out), before)

    def test_rendered_again_then_feed_restores_the_links(self):
        out = self.render_folder()
        self.feed(out)
        after_feed = digests(out)
        self.render(out, "ep2")
        self.assertNotIn('rel="prev"', open(os.path.join(out, "ep2.html"), encoding="utf-8").read())
        self.feed(out)
        self.assertEqual(digests(out), after_feed)
        # and batch's up-to-date check trusts the page feed wrote (nothing rendered again)
        res = run(["batch", "-O", out, "--page", "--page-md", self.path("ep2.txt")])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("1 up to date", res.stdout + res.stderr)
        self.assertEqual(digests(out), after_feed)

    def test_a_title_holding_the_slot_markers(self):
        """A title that holds the comments framing the page's slots cannot forge them: feed
        gives every page its links (the share tags carry the title as it is), and again the
        same bytes."""
        out = self.render_folder()
        forged = "Hi <!--show-nav--> <!--/show-meta--> there"
        self.render(out, "ep4", title=forged)
        self.feed(out)
        first = digests(out)
        order = self.feed_order(out)
        for stem in ("ep5", "ep4", "ep2", "ep one"):
            page = read_page(os.path.join(out, stem + ".html"))
            at = order.index(stem)
            self.assertIn("prev" if at + 1 < len(order) else "next",
                          [rel for rel, _ in page.nav_links], stem)
        self.assertEqual(read_page(os.path.join(out, "ep4.html")).meta["og:title"], forged)
        self.feed(out)
        self.assertEqual(digests(out), first)
        res = run(["check", os.path.join(out, "ep4.mp3"), os.path.join(out, "ep4.html")])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def fail_fs(self, **settings):
        """The environment of a run on a file system that fails (tests/e2e/preload/fail_fs.c,
        built here with the system's cc)."""
        shim = self.path("fail_fs.so")
        if not os.path.exists(shim):
            subprocess.run(["cc", "-shared", "-fPIC", "-o", shim,
                            os.path.join(SRC, "tests", "e2e", "preload", "fail_fs.c"), "-ldl"],
                           check=True)
        # (in the sanitizer build, ASan must let a library be preloaded before it)
        asan = os.environ.get("ASAN_OPTIONS", "")
        return dict(settings, LD_PRELOAD=shim,
                    ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")

    def test_pages_without_the_publishing_lock_say_so(self):
        """On a file system without flock the pages are still given their links, and feed
        says they were written without the publishing lock."""
        out = self.render_folder()
        res = run(["feed", out, "--base-url", BASE], env=self.fail_fs(RE_FAIL_FLOCK="1"))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn('rel="prev"', open(os.path.join(out, "ep5.html"), encoding="utf-8").read())
        lines = [line for line in res.stderr.splitlines()
                 if "without the publishing lock" in line and "pages" in line]
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertTrue(lines[0].startswith(out + "/"), lines[0])
        self.assertNotIn("warning: warning:", res.stderr)

    def test_a_page_and_sidecar_left_apart_are_named(self):
        """The page is replaced, then its sidecar: when the sidecar cannot be replaced the page
        is put back; when that fails too, feed says the two disagree and what to do."""
        out = self.render_folder()
        before = digests(out)
        # the sidecar's replacement fails: the page is put back, the pair as it was
        res = run(["feed", out, "--base-url", BASE],
                  env=self.fail_fs(RE_FAIL_RENAME_TO="ep5.json"))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(digests(out)["ep5.html"], before["ep5.html"])
        self.assertIn("ep5.html: warning: the show's links not written into the page",
                      res.stderr)
        self.assertNotIn("disagree", res.stderr)
        # and the page's restore fails too: the pair disagrees, and feed says so
        res = run(["feed", out, "--base-url", BASE],
                  env=self.fail_fs(RE_FAIL_RENAME_TO="ep5.json", RE_FAIL_LATER_RENAMES="1"))
        self.assertNotEqual(digests(out)["ep5.html"], before["ep5.html"])
        self.assertEqual(digests(out)["ep5.json"], before["ep5.json"])
        self.assertNotIn("left as it was", res.stderr)
        self.assertIn("ep5.html: warning: the show's links written into the page, but its "
                      "sidecar ep5.json could not be updated and the page could not be put "
                      "back", res.stderr)
        self.assertIn("render ep5 again", res.stderr)
        check = run(["check", os.path.join(out, "ep5.mp3"), os.path.join(out, "ep5.html")])
        self.assertIn("ep5.html: warning: changed since the render", check.stderr)

    def test_a_page_with_another_name_is_left_alone(self):
        """A page that is also another file (a hard link) is not rewritten: replacing one
        name would leave the other with the old text; feed warns and the page stays."""
        out = self.render_folder()
        other = self.path("other.html")
        os.link(os.path.join(out, "ep4.html"), other)
        with open(other, "rb") as f:
            data = f.read()
        res = self.feed(out)
        self.assertIn("ep4.html", res.stderr)
        self.assertIn("hard link", res.stderr)
        with open(other, "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertIn('rel="prev"', open(os.path.join(out, "ep5.html"), encoding="utf-8").read())

    def test_another_users_page_is_never_touched(self):
        """As root, a page at an episode's name that belongs to another user (uid 65534) is
        theirs: the episode is not in the feed, its page keeps its bytes and owner, and no
        other page links it."""
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        out = self.render_folder()
        page = os.path.join(out, "ep2.html")
        os.chown(page, 65534, 65534)
        with open(page, "rb") as f:
            data = f.read()
        res = self.feed(out)
        self.assertIn("another user", res.stderr)
        with open(page, "rb") as f:
            self.assertEqual(f.read(), data)
        self.assertEqual(os.stat(page).st_uid, 65534)
        for stem in ("ep one", "ep4", "ep5"):
            links = [urllib.parse.unquote(h) for _, h in read_page(
                os.path.join(out, stem + ".html")).nav_links]
            self.assertIn("index.html", links)
            self.assertNotIn("ep2.html", links)
            self.assertNotIn("ep2.mp3", links)

    def test_nearby_is_the_eight_closest(self):
        """Of eleven episodes, each page lists the eight nearest to it in the feed's order,
        as many before as after it where both sides have them, itself left out."""
        out = self.path("many")
        os.mkdir(out)
        write(os.path.join(out, "show.txt"), SHOW.replace("image: cover.png\n", ""))
        # one batch renders the eleven (one start of the program, not eleven)
        scripts = [write(self.path(f"m{n:02}.txt"), f"---\ntitle: M{n}\nshow: Feed Test\n"
                         f"published: 2026-10-{n + 1:02}\n---\nNumber {n}.\n") for n in range(11)]
        res = run(["batch", "-q", "-O", out, "--page", *scripts])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(sorted(n for n in os.listdir(out) if n.endswith(".html")),
                         [f"m{n:02}.html" for n in range(11)])
        res = run(["feed", out, "--base-url", BASE, "--draft"])
        self.assertEqual(res.returncode, 0, res.stderr)
        order = self.feed_order(out)
        self.assertEqual(order, [f"m{n:02}" for n in range(10, -1, -1)])
        for at, stem in enumerate(order):
            with self.subTest(page=stem):
                nearby = [urllib.parse.unquote(h)[:-len(".html")]
                          for h in read_page(os.path.join(out, stem + ".html")).nearby]
                self.assertEqual(len(nearby), 8)
                self.assertNotIn(stem, nearby)
                positions = [order.index(n) for n in nearby]
                self.assertEqual(positions, sorted(positions))   # the feed's order
                window = sorted(positions + [at])
                self.assertEqual(window, list(range(window[0], window[0] + 9)))   # contiguous
                before, after = at - window[0], window[-1] - at
                if 4 <= at <= len(order) - 5:   # room on both sides: four of each
                    self.assertEqual((before, after), (4, 4))

    def test_pages_wait_for_the_publishing_lock_and_stop_on_a_signal(self):
        """feed writes into the pages only holding the user's publishing lock of the folder
        (the one a render publishes under): while another holds it, feed waits and has
        touched no page; SIGTERM ends the wait (exit 143) with the pages as they were."""
        out = self.render_folder()
        before = {n: d for n, d in digests(out).items() if n.endswith((".html", ".json"))}
        lock = os.path.join(out, ".render-episode-%d.lock" % os.geteuid())
        held = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(held, fcntl.LOCK_SH)
            proc = subprocess.Popen([os.environ["RE_BIN"], "feed", out, "--base-url", BASE, "-q"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            inode = os.stat(lock).st_ino
            waiting = False
            while proc.poll() is None and not waiting:
                waiting = blocked_flock_waiter(proc.pid, inode)
                time.sleep(0.02)   # a poll's pace, not a deadline: the loop ends on an event
            self.assertTrue(waiting, "feed did not wait for the publishing lock")
            now = {n: d for n, d in digests(out).items() if n.endswith((".html", ".json"))}
            self.assertEqual(now, {**before, "index.html": now.get("index.html")})
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 128 + signal.SIGTERM, err)
            self.assertIn(b"were not all given the show's links", err)
            self.assertNotIn(b"nothing was written", err)
        finally:
            os.close(held)
        now = {n: d for n, d in digests(out).items() if n.endswith((".html", ".json"))}
        self.assertEqual(now, {**before, "index.html": now.get("index.html")})
        self.feed(out)   # and with the lock free, the pages get their links
        self.assertIn('rel="prev"', open(os.path.join(out, "ep2.html"), encoding="utf-8").read())

    def test_markdown_page_links_its_audio_and_the_feed(self):
        out = self.render_folder()
        with open(os.path.join(out, "ep one.md"), encoding="utf-8") as f:
            md = f.read()
        links = re.findall(r"\]\(([^)\s]+)\)", md)
        self.assertIn("ep%20one.mp3", links)
        self.assertIn("feed.xml", links)
        self.assertTrue(os.path.isfile(os.path.join(out, urllib.parse.unquote("ep%20one.mp3"))))


if __name__ == "__main__":
    main()
