# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end, in a real browser: the episode page (`--page`) and the folder's index.html as a
listener meets them, in headless Chromium driven through chromedriver's W3C WebDriver, served
from 127.0.0.1 with byte ranges (test_browser's server and driver).

At 320, 390 and 1280 CSS px wide (Chromium's own device-metrics emulation, so that
`innerWidth` is exactly that): nothing scrolls sideways (`document.documentElement.scrollWidth
<= innerWidth`) on a page with a long URL and a hash in its text, a Markdown page and the
index; axe-core (npm, tests/js's lockfile; injected by the test, never part of the page)
reports no violation of WCAG 2.0/2.1 A and AA on any of them, in the light colour scheme and,
at 390 px, the dark one; a screenshot of each is kept in the build folder (RE_ARTIFACTS_DIR). The
player's own controls play and pause (by keyboard too), skip back 15 s and forward 30 s,
change the speed, and seek by the scrubber, and the current chapter (its name, its mark on
the scrubber, its list item) follows; opening the page with `#t=` starts the player there;
"link to this moment" gives the page's URL with `#t=`; while playing, the highlighted cue is
scrolled into the viewport, and once the reader scrolls away it is not scrolled back. With the
page's scripts off (Chromium's switch), the browser's own controls are the player and the
transcript is all there. Nothing is fetched but the pages' own
files (the page, its MP3, its WebVTT, the cover): not by our server's log alone, but by
Chromium's own log of every request to any host, with show notes whose Markdown images and raw
HTML would each make a request elsewhere.

Skipped, with ALLOWED_SKIPS["chromium"], where chromium or chromedriver is not installed."""
import functools
import http.server
import json
import os
import re
import subprocess
import tempfile
import threading
import unittest

from common import ALLOWED_SKIPS, env_skip, main, run, write
from test_browser import CHROMEDRIVER, CHROMIUM, WAIT_S, RangeHandler, WebDriver, free_port, wait_for

WIDTHS = (320, 390, 1280)
HEIGHT = 720
LONG_URL = ("https://example.org/releases/2026/11/render-episode-0.1.0-with-a-very-long-path/"
            "that-has-no-break-in-it/at-all/index.html?query=value&other=another-value")
HASH = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

EPISODE = f"""---
title: The page test – café & <friends>
show: Page Test Weekly
language: en-gb
published: 2026-11-23T07:30:00+01:00
summary: Read the notes at {LONG_URL} and check {HASH}.
author: The render-episode team
episode: 7
---
# Opening

Welcome to the page test. This episode has three chapters and two voices.

The first chapter is short. It says only a few things. Then it ends.

# The long middle

[voice guest] I am the guest. The hash of the release is {HASH}.

[voice guest] The address is {LONG_URL}.

[voice guest] I say a few more sentences, so that the transcript is longer than a phone screen.
Every sentence is a cue. Every cue is a link. The player highlights the one it plays.

[voice guest] One more paragraph from the guest. It has two sentences.

# The end

That is the end of the episode. Thanks for listening, and see you next week.

One last sentence, after the thanks, to close the episode.
"""

NOTES = f"""---
title: Release notes
show: Page Test Weekly
published: 2026-11-30
language: de
image: notes-art.jpg
---
# Version 2.0

- A [link to the project](https://example.org/project) and a bare URL: {LONG_URL}
- The checksum `{HASH}` in code.

| option | meaning |
|---|---|
| `--page` | writes the episode page |

# Version 1.0

The first release.
"""

# Show notes that would make a browser fetch from elsewhere: Markdown images and every raw
# HTML element and attribute that loads something (test_page_notes has the whole list).
TRACKER = "http://tracker.example"
HOSTILE = f"""---
title: Hostile notes
show: Page Test Weekly
published: 2026-11-16
---
# Tracked

A pixel ![tracking pixel]({TRACKER}/pixel.gif), ![by reference][px] and
![protocol-relative](//tracker.example/pr.gif).

[px]: https://tracker.example/ref.gif

<img src="{TRACKER}/raw.gif" srcset="{TRACKER}/2x.gif 2x" onerror="fetch('{TRACKER}/js')">
<video poster="{TRACKER}/poster.jpg" src="{TRACKER}/v.mp4"></video>
<audio src="{TRACKER}/a.mp3" autoplay></audio>
<picture><source srcset="{TRACKER}/s.webp"><img src="{TRACKER}/p.png"></picture>
<iframe src="{TRACKER}/frame"></iframe><object data="{TRACKER}/o"></object>
<embed src="{TRACKER}/e"><link rel="stylesheet" href="{TRACKER}/s.css">
<link rel="preload" as="image" href="{TRACKER}/preload.png">
<style>@import url({TRACKER}/i.css); body{{background:url({TRACKER}/bg.png)}}</style>
<div style="background-image:url({TRACKER}/div.png)">styled</div>
<meta http-equiv="refresh" content="0;url={TRACKER}/refresh">
<svg><image href="{TRACKER}/svg.png"/></svg>
<table background="{TRACKER}/table.png"><tr><td>cell</td></tr></table>

Text with <img src={TRACKER}/inline.gif> and a [link](https://example.org/) to follow.
"""

SHOW = ("title: Page Test Weekly\n"
        "language: en-gb\n"
        "description: A weekly show for the browser test, with a long URL: " + LONG_URL + "\n"
        "image: cover.png\n"
        "category: Technology\n"
        "explicit: false\n"
        "guid: 5d4e0a8c-5a1b-5c37-9b2e-1b9a5c1c2f3d\n")

AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def axe_source():
    """axe-core as installed from tests/js's lockfile into the build folder by ctest's
    npm_judges fixture (RE_JS_DIR)."""
    path = os.path.join(os.environ.get("RE_JS_DIR", ""), "node_modules", "axe-core",
                        "axe.min.js")
    assert os.path.isfile(path), (f"axe-core is not installed at {path!r}: run ctest (its "
                                  "fixture setup.npm_judges runs npm ci in BUILD/js)")
    with open(path, encoding="utf-8") as f:
        return f.read()


class PageBrowser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not CHROMIUM or not CHROMEDRIVER:
            raise unittest.SkipTest(ALLOWED_SKIPS["chromium"])
        cls.tmp = tempfile.mkdtemp(prefix="re-e2e-page-browser-")
        cls.out = os.path.join(cls.tmp, "site")
        os.mkdir(cls.out)
        # the show's cover (ep's page shows it) and the notes' own image: (published beside
        # the notes as notes.cover.jpg), both there before the renders
        cls.cover(os.path.join(cls.out, "cover.png"), "0x2060a0", "rgb24")
        cls.cover(os.path.join(cls.tmp, "notes-art.jpg"), "0xa04020", "yuvj420p")
        write(os.path.join(cls.out, "show.txt"), SHOW)
        for name, text in (("ep", EPISODE), ("notes", NOTES), ("hostile", HOSTILE)):
            script = write(os.path.join(cls.tmp, name + (".txt" if name == "ep" else ".md")),
                           text)
            res = run([script, "-o", os.path.join(cls.out, name + ".mp3"), "--page", "-q",
                       "--no-cache"])
            assert res.returncode == 0, res.stderr
        res = run(["feed", cls.out, "--base-url", "https://cdn.example.org/pod/"])
        assert res.returncode == 0, res.stderr
        with open(os.path.join(cls.out, "ep.json"), encoding="utf-8") as f:
            cls.side = json.load(f)
        cls.artifacts = os.environ.get("RE_ARTIFACTS_DIR") or os.path.join(cls.tmp, "shots")
        os.makedirs(cls.artifacts, exist_ok=True)

        cls.requested = []
        handler = type("Handler", (RangeHandler,), {"requested": cls.requested})
        cls.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=cls.out))
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()
        port = free_port()
        cls.driver_proc = subprocess.Popen([CHROMEDRIVER, f"--port={port}"],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           env=dict(os.environ, TMPDIR=cls.tmp))
        cls.wd = WebDriver(port)
        wait_for(cls.driver_ready, "chromedriver answering")
        cls.wd.start(network_log=True)
        cls.base = f"http://127.0.0.1:{cls.server.server_address[1]}/"

    @staticmethod
    def cover(path, colour, pix_fmt):
        res = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i",
                              f"color=c={colour}:s=1400x1400", "-frames:v", "1", "-pix_fmt",
                              pix_fmt, path], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr

    @classmethod
    def driver_ready(cls):
        try:
            return cls.wd.call("GET", "/status").get("ready")
        except (OSError, AssertionError):
            return False

    @classmethod
    def tearDownClass(cls):
        cls.wd.quit()
        cls.driver_proc.terminate()
        try:
            cls.driver_proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            cls.driver_proc.kill()
            cls.driver_proc.wait()
        cls.server.shutdown()
        cls.server.server_close()
        subprocess.run(["rm", "-rf", cls.tmp], check=False)

    def setUp(self):
        if not CHROMIUM or not CHROMEDRIVER:
            env_skip(self, "chromium")

    # -- the browser ------------------------------------------------------------------------

    def cdp(self, cmd, params):
        return self.wd.call("POST", self.wd.s("/goog/cdp/execute"), {"cmd": cmd, "params": params})

    def open(self, name, width=390, scheme="light"):
        """Loads site/NAME at WIDTH CSS px (HEIGHT tall) in the colour scheme; for an episode
        page, waits until the player has its metadata and the track its cues."""
        self.cdp("Emulation.setDeviceMetricsOverride", {"width": width, "height": HEIGHT,
                                                        "deviceScaleFactor": 1, "mobile": False})
        self.cdp("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": scheme}]})
        self.wd.get("about:blank")
        self.wd.get(self.base + name)
        self.assertEqual(self.wd.js("return innerWidth;"), width)
        if name.split("#")[0] == "index.html":
            return
        loaded = self.wd.js_async(
            "var done = arguments[arguments.length - 1], a = document.getElementById('player');"
            "var deadline = Date.now() + arguments[0] * 1000;"
            "(function poll() {"
            "  var t = a.textTracks[0];"
            "  if (a.readyState >= 1 && t && t.cues && t.cues.length) done({duration: a.duration});"
            "  else if (Date.now() > deadline) done({error: a.error && a.error.code});"
            "  else setTimeout(poll, 50);"
            "})();", WAIT_S)
        self.assertNotIn("error", loaded, loaded)

    def screenshot(self, label):
        import base64
        png = base64.b64decode(self.wd.call("GET", self.wd.s("/screenshot")))
        with open(os.path.join(self.artifacts, label + ".png"), "wb") as f:
            f.write(png)

    def player(self, expression):
        return self.wd.js("var a = document.getElementById('player'); return " + expression + ";")

    def click(self, css):
        found = self.wd.elements(css)
        self.assertEqual(len(found), 1, css)
        self.wd.click(found[0])

    def keys(self, css, text):
        found = self.wd.elements(css)
        self.assertEqual(len(found), 1, css)
        self.wd.call("POST", self.wd.s(f"/element/{found[0]}/value"), {"text": text})

    # -- the tests --------------------------------------------------------------------------

    def test_no_sideways_scroll_and_no_axe_violation(self):
        axe = axe_source()
        for name in ("ep.html", "notes.html", "index.html"):
            for width in WIDTHS:
                for scheme in ("light", "dark") if width == 390 else ("light",):
                    with self.subTest(page=name, width=width, scheme=scheme):
                        self.open(name, width, scheme)
                        sizes = self.wd.js("return [document.documentElement.scrollWidth,"
                                           " innerWidth];")
                        self.assertLessEqual(sizes[0], sizes[1], f"{name} scrolls sideways")
                        self.screenshot(f"{name.split('.')[0]}-{width}-{scheme}")
                        self.wd.js(axe + "\nreturn 1;")
                        result = self.wd.js_async(
                            "var done = arguments[arguments.length - 1];"
                            "axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}})"
                            ".then(function (r) { done(r.violations.map(function (v) {"
                            "  return v.id + ': ' + v.nodes.map(function (n) {"
                            "    return n.target.join(' '); }).join(', '); })); },"
                            " function (e) { done(['axe failed: ' + e]); });", AXE_TAGS)
                        self.assertEqual(result, [], f"{name} at {width} px, {scheme}")

    def test_without_the_script_the_browser_controls_play(self):
        # the page's scripts off (Chromium's own switch; WebDriver's scripts still run)
        self.cdp("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            for name in ("ep.html", "notes.html"):
                with self.subTest(page=name):
                    self.open(name)
                    self.assertEqual(self.wd.js(
                        "var cues = document.querySelectorAll('.cue'), shown = 0;"
                        "for (var i = 0; i < cues.length; i++)"
                        "  shown += cues[i].getBoundingClientRect().height > 0;"
                        "return [document.getElementById('player').controls,"
                        " document.getElementById('controls').hidden,"
                        " document.getElementById('controls').getBoundingClientRect().height,"
                        " shown === cues.length && shown > 0];"), [True, True, 0, True])
        finally:
            self.cdp("Emulation.setScriptExecutionDisabled", {"value": False})
        self.open("ep.html")   # with it, the page's own controls instead
        self.assertEqual(self.wd.js(
            "return [document.getElementById('player').controls,"
            " document.getElementById('controls').hidden];"), [False, False])

    def test_play_pause_skip_speed_and_scrubber(self):
        self.open("ep.html")
        length = self.side["samples"] / self.side["sample_rate"]
        self.assertGreater(length, 40)
        self.player("(a.muted = true)")
        self.click("#play")
        # the label follows the player's play and pause events, which come after its state
        # changes: waited for, like the state, never read at one instant
        label = lambda: self.wd.js("return document.getElementById('play').textContent;")
        wait_for(lambda: self.player("!a.paused") and label() == "Pause",
                 "playing, and the button says Pause, after Play")
        self.keys("#play", "\ue007")   # Enter on the focused button
        wait_for(lambda: self.player("a.paused") and label() == "Play",
                 "paused, and the button says Play, after Enter on Pause")

        self.player("(a.currentTime = 2)")
        wait_for(lambda: self.player("a.currentTime") == 2, "at 2 s")
        self.click("#forward")
        wait_for(lambda: abs(self.player("a.currentTime") - 32) < 1e-6, "forward 30 s")
        self.click("#back")
        wait_for(lambda: abs(self.player("a.currentTime") - 17) < 1e-6, "back 15 s")
        self.click("#back")
        self.click("#back")
        wait_for(lambda: self.player("a.currentTime") == 0, "back to the start, not before it")

        self.click("#speed option[value='1.5']")
        wait_for(lambda: self.player("a.playbackRate") == 1.5, "the speed at 1.5")
        self.click("#speed option[value='0.75']")
        wait_for(lambda: self.player("a.playbackRate") == 0.75, "the speed at 0.75")

        self.keys("#scrubber", "\ue010")   # End
        wait_for(lambda: abs(self.player("a.currentTime") - length) < 0.001, "the scrubber's end")
        self.keys("#scrubber", "\ue011")   # Home
        wait_for(lambda: self.player("a.currentTime") == 0, "the scrubber's start")

    def test_the_clock_states_the_headers_length(self):
        # one length on the page: the player's clock says what the header says ("2 min 32 s"
        # is 2:32, never the 2:31 a floor would make of 151.6 s), from the start to the end
        self.open("ep.html")
        words = self.wd.js("return document.querySelector('header time.length').textContent;")
        units = {unit: int(n) for n, unit in re.findall(r"(\d+) (h|min|s)\b", words)}
        seconds = units.get("h", 0) * 3600 + units.get("min", 0) * 60 + units["s"]
        shown = (f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600
                 else f"{seconds // 60}:{seconds % 60:02d}")
        samples, rate = self.side["samples"], self.side["sample_rate"]
        self.assertEqual(seconds, samples // rate + (2 * (samples % rate) >= rate))   # half up
        clock = lambda: self.wd.js("return document.getElementById('clock').textContent;")
        wait_for(lambda: clock() == "0:00 / " + shown, f"the clock at 0:00 / {shown}")
        self.keys("#scrubber", "\ue010")   # End
        wait_for(lambda: clock() == f"{shown} / {shown}", f"the clock at {shown} / {shown}")
        self.keys("#scrubber", "\ue011")   # Home

    def test_the_current_chapter_follows_the_player(self):
        self.open("ep.html")
        chapters = self.side["chapters"]
        self.assertEqual(len(chapters), 3)
        marks = self.wd.js("return Array.prototype.map.call(document.querySelectorAll('.mark'),"
                           " function (m) { return parseFloat(m.style.left); });")
        length_ms = self.side["samples"] * 1000 / self.side["sample_rate"]
        self.assertEqual(len(marks), 3)
        for left, chapter in zip(marks, chapters):
            # at the chapter's start, to the millisecond the sidecar rounds it to
            self.assertAlmostEqual(left * length_ms / 100, chapter["start_ms"], delta=1)
        links = self.wd.elements("section.chapters a[data-start]")
        self.player("(a.muted = true, window.seeks = [],"
                    " a.addEventListener('seeking', function () { seeks.push(a.currentTime); }))")
        for k in (1, 2, 0):
            with self.subTest(chapter=chapters[k]["title"]):
                self.wd.click(links[k])
                wait_for(lambda: self.wd.js(
                    "return document.getElementById('chapter-now').textContent;")
                    == chapters[k]["title"], "the chapter's name under the player")
                self.assertAlmostEqual(self.wd.js("return seeks[seeks.length - 1];"),
                                       chapters[k]["start_ms"] / 1000, delta=1e-6)
                self.assertEqual(self.wd.js(
                    "var m = document.querySelectorAll('.mark'), n = [];"
                    "for (var i = 0; i < m.length; i++) if (m[i].classList.contains('now'))"
                    " n.push(i);"
                    "var li = document.querySelectorAll('.chapters li'), c = [];"
                    "for (i = 0; i < li.length; i++) if (li[i].hasAttribute('aria-current'))"
                    " c.push(i);"
                    "return [n, c];"), [[k], [k]])
                self.player("a.pause()")

    def test_t_in_the_address_starts_there_and_a_moment_link_gives_it(self):
        self.open("ep.html#t=12.5")
        wait_for(lambda: abs(self.player("a.currentTime") - 12.5) < 1e-6, "the player at 12.5 s")
        self.player("(a.currentTime = 21.4)")
        wait_for(lambda: abs(self.player("a.currentTime") - 21.4) < 1e-6, "at 21.4 s")
        self.click("#moment")
        shown = wait_for(lambda: self.wd.js(
            "var u = document.getElementById('moment-url'); return !u.hidden && u.value;"),
            "the moment's link shown")
        self.assertEqual(shown, self.base + "ep.html#t=21.4")
        self.open("ep.html#t=21.4")   # the link opened: the player starts there
        wait_for(lambda: abs(self.player("a.currentTime") - 21.4) < 1e-6, "the player at 21.4 s")

    def test_cue_links_seek(self):
        self.open("ep.html")
        cues = self.wd.js("return Array.prototype.map.call(document.querySelectorAll('.cue'),"
                          " function (s) { return [s.id, +s.dataset.start,"
                          " s.querySelector('a').getAttribute('href')]; });")
        self.assertGreater(len(cues), 10)
        self.player("(a.muted = true, window.seeks = [],"
                    " a.addEventListener('seeking', function () { seeks.push(a.currentTime); }))")
        for cue_id, start, href in cues[-1:2:-4]:
            with self.subTest(cue=cue_id):
                self.assertEqual(href, f"ep.mp3#t={start:.3f}")
                before = self.wd.js("return seeks.length;")
                self.click(f"#{cue_id} a")
                wait_for(lambda: self.wd.js("return seeks.length;") > before, "a seek")
                self.assertAlmostEqual(self.wd.js("return seeks[seeks.length - 1];"), start,
                                       delta=1e-6)
                self.player("a.pause()")
                self.assertEqual(self.wd.js("return location.href;"), self.base + "ep.html")

    def test_the_playing_cue_is_kept_in_view_until_the_reader_scrolls_away(self):
        self.open("ep.html", 320)
        cues = self.wd.js("return Array.prototype.map.call(document.querySelectorAll('.cue'),"
                          " function (s) { return [s.id, +s.dataset.start, +s.dataset.end]; });")
        in_view = ("var r = document.getElementById(arguments[0]).getBoundingClientRect();"
                   "return r.top >= 0 && r.bottom <= innerHeight;")
        late = cues[-3]
        self.wd.js("scrollTo(0, 0);")
        self.assertFalse(self.wd.js(in_view, late[0]), "the late cue starts out of view")
        self.player("(a.muted = true, a.currentTime = arguments[0])".replace(
            "arguments[0]", str(late[1] + 0.05)))
        self.click("#play")
        wait_for(lambda: self.wd.js("var n = document.querySelector('.cue.now');"
                                    "return n && n.id === arguments[0];", late[0]),
                 "the late cue highlighted")
        wait_for(lambda: self.wd.js(in_view, late[0]), "the highlighted cue in view")
        self.screenshot("ep-320-playing")
        # the reader scrolls back to the top: the next cues are highlighted, not scrolled to
        self.wd.js("window.scrolled = false;"
                   "addEventListener('scroll', function () { scrolled = true; }, {once: true});"
                   "scrollTo(0, 0);")
        wait_for(lambda: self.wd.js("return scrolled;"), "the reader's scroll")
        for nxt in cues[-2:]:
            wait_for(lambda: self.wd.js("var n = document.querySelector('.cue.now');"
                                        "return n && n.id === arguments[0];", nxt[0]),
                     f"{nxt[0]} highlighted while playing")
            self.assertEqual(self.wd.js("return scrollY;"), 0)
            self.assertFalse(self.wd.js(in_view, nxt[0]))
        self.player("a.pause()")

    def test_the_cover_is_in_the_header(self):
        """The show's cover on ep's page, the script's own (its copy beside it) on the notes':
        an <img> with alt text, loaded from the page's folder."""
        for name, src in (("ep.html", "cover.png"), ("notes.html", "notes.cover.jpg")):
            with self.subTest(page=name):
                self.open(name)
                img = self.wd.js_async(
                    "var done = arguments[arguments.length - 1];"
                    "var i = document.querySelector('header.episode img.cover');"
                    "if (!i) { done(null); return; }"
                    "(function poll() { if (i.complete) done({src: i.getAttribute('src'),"
                    " alt: i.alt, width: i.naturalWidth, height: i.naturalHeight});"
                    " else setTimeout(poll, 50); })();")
                self.assertEqual(img, {"src": src, "alt": "Cover art of Page Test Weekly",
                                       "width": 1400, "height": 1400})

    def test_no_request_leaves_the_folder(self):
        """Every request Chromium makes for the pages (to any host: its own log of them, not
        our server's) is for a file of the pages' folder. The hostile notes' images are links
        to their addresses instead, with their alt text."""
        self.wd.requests()   # what earlier tests asked for
        for name in ("hostile.html", "notes.html", "ep.html", "index.html"):
            with self.subTest(page=name):
                self.open(name)
                self.wd.js_async("var done = arguments[arguments.length - 1];"
                                 "if (document.readyState === 'complete') done(1);"
                                 "else addEventListener('load', function () { done(1); });")
                asked = self.wd.requests()
                self.assertIn(self.base + name, asked)
                for url in asked:
                    if url.startswith("data:"):   # inline (the player's own icons): no fetch
                        continue
                    self.assertTrue(url.startswith(self.base)
                                    and "/" not in url[len(self.base):].split("#")[0], url)
        self.open("hostile.html")
        links = self.wd.js("return Array.prototype.map.call("
                           "document.querySelectorAll('section.notes a'),"
                           " function (a) { return [a.textContent, a.getAttribute('href')]; });")
        for link in (["tracking pixel", TRACKER + "/pixel.gif"],
                     ["by reference", "https://tracker.example/ref.gif"],
                     ["protocol-relative", "//tracker.example/pr.gif"]):
            self.assertIn(link, links)
        self.assertEqual(self.wd.js("return document.querySelectorAll("
                                    "'section.notes img, section.notes [style]').length;"), 0)

    def test_zz_nothing_else_is_fetched(self):
        # last (by name): after every other test of the class has loaded its pages
        self.open("ep.html")
        self.open("notes.html")
        self.open("index.html")
        asked = {p.split("?")[0].split("#")[0] for p in self.requested}
        self.assertLessEqual(asked, {"/ep.html", "/ep.mp3", "/ep.vtt", "/notes.html",
                                     "/notes.mp3", "/notes.vtt", "/index.html", "/cover.png",
                                     "/notes.cover.jpg", "/hostile.html", "/hostile.mp3",
                                     "/hostile.vtt"})
        self.assertIn("/cover.png", asked)
        self.assertIn("/notes.cover.jpg", asked)


if __name__ == "__main__":
    main()
