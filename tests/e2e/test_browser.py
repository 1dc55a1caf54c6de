# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end, in a real browser: the episode page (`--page`) loaded by headless Chromium
from a 127.0.0.1 server that answers byte ranges (as a web server does; the browser seeks
audio with them), driven through chromedriver's W3C WebDriver protocol (plain HTTP + JSON).

What Chromium must find: `audio.duration` equal to the sidecar's samples / sample_rate within
1 ms (its MP3 decoder honours the LAME tag's delay and padding); each chapter link, clicked,
seeks the player to the chapter's start (and the page stays where it is); the player's
position set inside each cue highlights that cue's span in the transcript, and only that one;
the highlight follows the player while it plays; and the page asks the server for nothing but
itself, its audio and its WebVTT track.

Skipped, with ALLOWED_SKIPS["chromium"], where chromium or chromedriver is not installed;
`scripts/setup --test` installs both (Debian packages chromium, chromium-driver)."""
import functools
import http.server
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request

from common import Case, env_skip, main, run, write

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")

SCRIPT = """---
title: Browser test – café & <friends> <!--<script>
show: Browser Show
language: en-us
published: 2026-11-30T09:00:00Z
summary: A page for a real browser.
---
# Opening

Welcome to the browser test. It has three chapters and two voices.

# The middle

[voice guest] I am the guest. I say two sentences here.

[pause 1s]

# The end

That is the end of the episode. Thanks for listening.
"""

# How long the test waits for the browser to load or react; a bound on a wait, never a
# measured speed.
WAIT_S = 30


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """A static file server that answers `Range: bytes=A-B` with 206 Partial Content (python's
    own handler answers every request with the whole file, and a browser then cannot seek
    audio it has not downloaded). Records every path asked for."""

    requested = None   # a list, set per server

    def log_message(self, fmt, *args):
        pass

    def send_head(self):
        self.requested.append(self.path)
        rng = self.headers.get("Range")
        path = self.translate_path(self.path)
        if not rng or not os.path.isfile(path):
            return super().send_head()
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng.strip())
        size = os.path.getsize(path)
        if not m or (not m.group(1) and not m.group(2)):
            self.send_error(416)
            return None
        if m.group(1):
            start = int(m.group(1))
            end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
        else:
            start, end = max(0, size - int(m.group(2))), size - 1
        if start >= size or end < start:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.end_headers()
            return None
        f = open(path, "rb")
        f.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        self.range_left = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        left = getattr(self, "range_left", None)
        if left is None:
            return super().copyfile(source, outputfile)
        while left > 0:
            chunk = source.read(min(65536, left))
            if not chunk:
                break
            outputfile.write(chunk)
            left -= len(chunk)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriver:
    """The few W3C WebDriver commands the test needs, over urllib."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.session = None

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=WAIT_S * 2) as r:
                return json.load(r)["value"]
        except urllib.error.HTTPError as e:
            raise AssertionError(f"WebDriver {method} {path}: {e.read().decode(errors='replace')}")

    def start(self, network_log=False):
        """network_log: Chromium logs every request it makes (DevTools' Network events), for
        requests()."""
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": CHROMIUM,
            "args": ["--headless=new", "--no-sandbox", "--mute-audio", "--disable-gpu",
                     "--no-first-run", "--autoplay-policy=no-user-gesture-required"]}}}}
        if network_log:
            caps["capabilities"]["alwaysMatch"]["goog:loggingPrefs"] = {"performance": "ALL"}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def requests(self):
        """The URL of every request the browser made since the last call, to any host (from
        chromedriver's performance log; start(network_log=True))."""
        urls = []
        for entry in self.call("POST", self.s("/se/log"), {"type": "performance"}):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def s(self, path):
        return f"/session/{self.session}{path}"

    def get(self, url):
        self.call("POST", self.s("/url"), {"url": url})

    def js(self, script, *args):
        return self.call("POST", self.s("/execute/sync"), {"script": script, "args": list(args)})

    def js_async(self, script, *args):
        return self.call("POST", self.s("/execute/async"), {"script": script, "args": list(args)})

    def elements(self, css):
        found = self.call("POST", self.s("/elements"), {"using": "css selector", "value": css})
        return [list(e.values())[0] for e in found]

    def click(self, element):
        self.call("POST", self.s(f"/element/{element}/click"), {})

    def quit(self):
        if self.session:
            self.call("DELETE", self.s(""))


def wait_for(predicate, what):
    deadline = time.monotonic() + WAIT_S
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"the browser never got there: {what}")
        time.sleep(0.05)


class Browser(Case):
    @classmethod
    def setUpClass(cls):
        cls.driver_proc = cls.server = None

    def setUp(self):
        super().setUp()
        if not CHROMIUM or not CHROMEDRIVER:
            env_skip(self, "chromium")
        script = write(self.path("ep.txt"), SCRIPT)
        res = run([script, "-o", self.path("ep.mp3"), "--page", "-q", "--no-cache"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("ep.json"), encoding="utf-8") as f:
            self.side = json.load(f)

        self.requested = []
        handler = type("Handler", (RangeHandler,), {"requested": self.requested})
        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(handler, directory=self.tmp))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)

        port = free_port()
        # Chromium's profile and scoped folders go in the test's folder (removed with it).
        self.driver_proc = subprocess.Popen([CHROMEDRIVER, f"--port={port}"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            env=dict(os.environ, TMPDIR=self.path()))
        self.addCleanup(self.stop_driver)
        self.wd = WebDriver(port)
        wait_for(lambda: self.driver_ready(), "chromedriver answering")
        self.wd.start()
        self.addCleanup(self.wd.quit)
        self.page_url = f"http://127.0.0.1:{self.server.server_address[1]}/ep.html"
        self.wd.get(self.page_url)
        # the player's metadata and the track's cues are loaded
        self.loaded = self.wd.js_async(
            "var done = arguments[arguments.length - 1], a = document.getElementById('player');"
            "var deadline = Date.now() + arguments[0] * 1000;"
            "(function poll() {"
            "  var t = a.textTracks[0];"
            "  if (a.readyState >= 1 && t && t.cues && t.cues.length)"
            "    done({duration: a.duration, cues: t.cues.length, mode: t.mode});"
            "  else if (Date.now() > deadline) done({error: a.error && a.error.code,"
            "    readyState: a.readyState, track: t && t.mode});"
            "  else setTimeout(poll, 50);"
            "})();", WAIT_S)
        self.assertNotIn("error", self.loaded, self.loaded)

    def driver_ready(self):
        try:
            return self.wd.call("GET", "/status").get("ready")
        except (OSError, AssertionError):
            return False

    def stop_driver(self):
        self.driver_proc.terminate()
        try:
            self.driver_proc.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.driver_proc.kill()
            self.driver_proc.wait()

    def test_duration_is_the_sidecars(self):
        expected = self.side["samples"] / self.side["sample_rate"]
        self.assertAlmostEqual(self.loaded["duration"], expected, delta=0.001)
        with open(self.path("ep.vtt"), encoding="utf-8") as f:
            self.assertEqual(self.loaded["cues"], f.read().count(" --> "))
        self.assertEqual(self.loaded["mode"], "hidden")   # the page's script took the track

    def test_the_title_is_text_everywhere(self):
        # "<!--<script>" in the JSON-LD would put an HTML5 parser in the script's "double
        # escaped" state, where the real </script> does not end it: the page's body would
        # become part of that script (no player, no transcript)
        title = "Browser test – café & <friends> <!--<script>"
        found = self.wd.js("var ld = document.querySelector('script[type=\"application/ld+json\"]');"
                           "return {ld: JSON.parse(ld.text).name, h1: document.querySelector('h1')"
                           ".textContent, title: document.title,"
                           " scripts: document.querySelectorAll('script').length};")
        self.assertEqual(found, {"ld": title, "h1": title, "title": title, "scripts": 2})

    def test_chapter_links_seek(self):
        chapters = self.side["chapters"]
        self.assertEqual(len(chapters), 3)
        links = self.wd.elements("section.chapters a[data-start]")
        self.assertEqual(len(links), len(chapters))
        self.wd.js("window.seeks = [];"
                   "var a = document.getElementById('player');"
                   "a.addEventListener('seeking', function () { seeks.push(a.currentTime); });")
        # last to first, so that every click moves the player
        for k in reversed(range(len(chapters))):
            with self.subTest(chapter=chapters[k]["title"]):
                before = self.wd.js("return seeks.length;")
                self.wd.click(links[k])
                wait_for(lambda: self.wd.js("return seeks.length;") > before, "a seek")
                at = self.wd.js("return seeks[seeks.length - 1];")
                self.assertAlmostEqual(at, chapters[k]["start_ms"] / 1000, delta=1e-6)
                self.assertEqual(self.wd.js("return location.href;"), self.page_url)

    def test_cue_under_the_player_is_highlighted(self):
        cues = self.wd.js("return Array.prototype.map.call(document.querySelectorAll('.cue'),"
                          " function (s) { return [s.id, +s.dataset.start, +s.dataset.end]; });")
        self.assertEqual(len(cues), self.loaded["cues"])
        self.wd.js("document.getElementById('player').pause();")
        for cue_id, start, end in cues:
            with self.subTest(cue=cue_id):
                self.wd.js("document.getElementById('player').currentTime = arguments[0];",
                           (start + end) / 2)
                now = wait_for(lambda: self.wd.js(
                    "var n = document.querySelectorAll('.cue.now');"
                    "return n.length === 1 && n[0].id === arguments[0] ? [n[0].id,"
                    " n[0].getAttribute('aria-current')] : null;", cue_id), f"{cue_id} highlighted")
                self.assertEqual(now, [cue_id, "true"])

    def test_highlight_follows_playback(self):
        """Played (muted) from just before the end of the first cue, the highlight moves on
        to the next cue by itself: the player drives it, not a seek."""
        cues = self.wd.js("return Array.prototype.map.call(document.querySelectorAll('.cue'),"
                          " function (s) { return [s.id, +s.dataset.start, +s.dataset.end]; });")
        first, second = cues[0], cues[1]
        self.wd.js("var a = document.getElementById('player'); a.muted = true;"
                   "a.currentTime = arguments[0];", first[2] - 0.2)
        wait_for(lambda: self.wd.js("var n = document.querySelector('.cue.now');"
                                    "return n && n.id === arguments[0];", first[0]),
                 "the first cue highlighted")
        played = self.wd.js_async("var done = arguments[arguments.length - 1];"
                         "document.getElementById('player').play().then(function () { done(1); },"
                         " function (e) { done(String(e)); });")
        self.assertEqual(played, 1)
        wait_for(lambda: self.wd.js("var n = document.querySelector('.cue.now');"
                                    "return n && n.id === arguments[0];", second[0]),
                 "the highlight moving to the second cue while playing")
        self.assertFalse(self.wd.js("return document.getElementById('player').paused;"))

    def test_nothing_else_is_fetched(self):
        self.wd.js("document.getElementById('player').currentTime = 1.5;")
        asked = {p.split("?")[0] for p in self.requested}
        self.assertEqual(asked, {"/ep.html", "/ep.mp3", "/ep.vtt"})


if __name__ == "__main__":
    main()
