#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test_check.py - end-to-end tests of `render-episode check MP3 [FILE...]`.

MP3s are made here by the lame program and by ffmpeg (CBR and VBR, with and without the
LAME tag, MPEG-1, MPEG-2 and MPEG-2.5) from sine WAVs written with Python's wave module,
and by `render-episode` itself. The true length is judged independently: the WAV's own
sample count, and `ffmpeg -i F -f s16le -` for every file. Pages, feeds and JSON files
with true and false claims are written here too.

Environment: RE_BIN (the built program), RE_SOURCE_DIR (repo root).
"""
import json
import math
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import unittest
import time
import wave

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import judge  # noqa: E402

RE_BIN = os.environ.get("RE_BIN", "render-episode")
RE_SOURCE_DIR = os.environ.get("RE_SOURCE_DIR", ".")

TMP = tempfile.mkdtemp(prefix="re-check-")


def path(name):
    return os.path.join(TMP, name)


def write(name, data):
    p = path(name)
    with open(p, "wb" if isinstance(data, bytes) else "w", newline="" if isinstance(data, str) else None) as f:
        f.write(data)
    return p


def read(p):
    with open(p, "rb") as f:
        return f.read()


def make_wav(name, rate, channels, frames, freq=440.0):
    """A sine WAV with exactly `frames` samples per channel."""
    p = path(name)
    with wave.open(p, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        chunk = bytearray()
        for i in range(frames):
            v = int(12000 * math.sin(2 * math.pi * freq * i / rate))
            chunk += struct.pack("<h", v) * channels
        w.writeframes(bytes(chunk))
    return p


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=300, **kw)


def lame(wav, name, *opts):
    out = path(name)
    r = run(["lame", "--quiet", *opts, wav, out])
    assert r.returncode == 0, r.stderr
    return out


def ffmpeg(wav, name, *opts):
    out = path(name)
    r = run(["ffmpeg", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame", *opts, out])
    assert r.returncode == 0, r.stderr
    return out


def ffmpeg_samples(mp3):
    """Samples per channel that ffmpeg decodes (an independent witness)."""
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", mp3, "-ac", "1", "-f", "s16le", "-"],
                       capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return len(r.stdout) // 2


def check(*args):
    r = run([RE_BIN, "check", *args])
    assert r.returncode < 128, "crashed: %d\n%s" % (r.returncode, r.stderr)
    return r


def check_json(*args):
    r = check("--json", *args)
    return r, json.loads(r.stdout)


def verdicts(stdout):
    """{'FILE:LINE: FIELD': 'OK'|'MISMATCH'} from the text report (FILE as base name)."""
    out = {}
    for line in stdout.splitlines():
        if line.endswith(": OK") or line.endswith(": MISMATCH"):
            where, field = line.split(": ", 2)[:2]
            out["%s: %s" % (os.path.basename(where), field)] = line.rsplit(": ", 1)[1]
    return out


def id3v2_tag(version, frames):
    """A minimal ID3v2.2/2.3/2.4 tag with the given text frames {id: text} (Latin-1)."""
    body = b""
    for fid, text in frames.items():
        data = b"\x00" + text.encode("latin-1")
        if version == 2:
            body += fid.encode() + len(data).to_bytes(3, "big") + data
        elif version == 3:
            body += fid.encode() + len(data).to_bytes(4, "big") + b"\x00\x00" + data
        else:
            n = len(data)
            size = bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
            body += fid.encode() + size + b"\x00\x00" + data
    n = len(body)
    size = bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
    return b"ID3" + bytes([version, 0, 0]) + size + body


# One episode at 22.05 kHz: 1375250 samples = 62.3696 s (62369 ms), which rounds to
# 62 s = PT1M2S. Made once, shared by the claim tests.
EP_FRAMES = 1375250
EP_RATE = 22050


class Episode:
    wav = None
    mp3 = None
    size = 0


def episode():
    if Episode.mp3 is None:
        Episode.wav = make_wav("ep.wav", EP_RATE, 1, EP_FRAMES)
        Episode.mp3 = lame(Episode.wav, "ep.mp3", "-b", "64")
        Episode.size = os.path.getsize(Episode.mp3)
    return Episode.mp3


class Measuring(unittest.TestCase):
    """The measured length equals the WAV fed in (with a LAME tag) and ffmpeg's decode."""

    CASES = [
        # name, rate, channels, frames, encoder, options, has LAME tag, MPEG version
        ("lame-cbr-22k.mp3", 22050, 1, 72765, "lame", ["-b", "64"], True, "2"),
        ("lame-vbr-44k.mp3", 44100, 2, 145530, "lame", ["-V", "4"], True, "1"),
        ("lame-cbr-44k-notag.mp3", 44100, 1, 100000, "lame", ["-t", "-b", "128"], False, "1"),
        ("lame-vbr-22k-notag.mp3", 22050, 1, 66150, "lame", ["-t", "-V", "5"], False, "2"),
        ("lame-cbr-8k.mp3", 8000, 1, 20000, "lame", ["-b", "32"], True, "2.5"),
        ("lame-vbr-48k.mp3", 48000, 2, 120001, "lame", ["-V", "2"], True, "1"),
        ("ffmpeg-cbr-22k.mp3", 22050, 1, 72765, "ffmpeg", ["-b:a", "64k"], True, "2"),
        ("ffmpeg-vbr-44k.mp3", 44100, 2, 145530, "ffmpeg", ["-q:a", "4"], True, "1"),
        ("ffmpeg-cbr-44k-noxing.mp3", 44100, 2, 145530, "ffmpeg",
         ["-b:a", "128k", "-write_xing", "0"], False, "1"),
        ("ffmpeg-vbr-22k-noxing.mp3", 22050, 1, 50000, "ffmpeg",
         ["-q:a", "6", "-write_xing", "0"], False, "2"),
    ]

    def test_encoders(self):
        for name, rate, ch, frames, enc, opts, tagged, version in self.CASES:
            with self.subTest(name):
                wav = make_wav(name + ".wav", rate, ch, frames)
                mp3 = (lame if enc == "lame" else ffmpeg)(wav, name, *opts)
                r, doc = check_json(mp3)
                self.assertEqual(r.returncode, 0, r.stderr)
                m = doc["mp3"]
                self.assertEqual(m["sample_rate"], rate)
                self.assertEqual(m["channels"], ch)
                self.assertEqual(m["bytes"], os.path.getsize(mp3))
                self.assertEqual(m["lame_tag"], tagged)
                self.assertEqual(m["mpeg_version"], version)
                self.assertEqual(m["samples"], ffmpeg_samples(mp3))
                if tagged:
                    self.assertEqual(m["samples"], frames)
                    self.assertNotIn("warning", r.stderr)
                else:
                    self.assertIn("no LAME tag", r.stderr)
                self.assertEqual(m["duration_ms"], m["samples"] * 1000 // rate)

    def test_id3_versions(self):
        """Any ID3v2 version in front: measured the same, TLEN read from each."""
        mp3 = episode()
        audio = read(mp3)
        for version in (2, 3, 4):
            with self.subTest(version=version):
                fid = "TLE" if version == 2 else "TLEN"
                p = write("id3v2%d.mp3" % version, id3v2_tag(version, {fid: "62369"}) + audio)
                r, doc = check_json("--no-sidecar", p)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertEqual(doc["mp3"]["samples"], EP_FRAMES)
                self.assertEqual([c["field"] for c in doc["claims"]], ["ID3 TLEN"])
                self.assertTrue(doc["claims"][0]["ok"])
        p = write("tlen-wrong.mp3", id3v2_tag(4, {"TLEN": "62400"}) + audio)
        r = check("--no-sidecar", p)
        self.assertEqual(r.returncode, 1)
        self.assertIn("ID3 TLEN: claimed 62400, measured 62369 (62.369 s): MISMATCH", r.stdout)


class Claims(unittest.TestCase):
    """True and false claims in every supported place."""

    def setUp(self):
        self.mp3 = episode()

    def test_measurement_line(self):
        r = check("--no-sidecar", self.mp3)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[0],
                         "%s: measured %d samples at 22050 Hz = 62.369 s (PT1M2S), %d bytes"
                         % (self.mp3, EP_FRAMES, Episode.size))

    def test_text_and_markdown(self):
        page = write("page.md",
                     "# Episode 12\n"
                     "Duration: PT1M2S\n"
                     "- Audio duration: 01:02\n"
                     "**Duration:** PT62S\n"
                     "Duration: PT1M2.37S\n"
                     "Duration: PT1M3S\n"
                     "* Audio duration: 1:01\n"
                     "Duration: 62.4 s\n")
        r = check("--no-sidecar", self.mp3, page)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(verdicts(r.stdout), {
            "page.md:2: Duration": "OK", "page.md:3: Audio duration": "OK",
            "page.md:4: Duration": "OK", "page.md:5: Duration": "OK",
            "page.md:6: Duration": "MISMATCH", "page.md:7: Audio duration": "MISMATCH",
            "page.md:8: Duration": "OK"})
        self.assertIn("page.md:6: Duration: claimed PT1M3S, measured PT1M2S (62.369 s): MISMATCH",
                      r.stdout)

    def test_reference_page(self):
        """The real episode page: its two claims are found, on lines 3 and 9."""
        ref = os.path.join(RE_SOURCE_DIR, "tests", "data", "reference", "000_8e381aeef36db348.txt")
        r = check("--no-sidecar", self.mp3, ref)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(sorted(verdicts(r.stdout)), [
            "000_8e381aeef36db348.txt:3: Duration", "000_8e381aeef36db348.txt:9: Audio duration"])

    def test_html_and_json_ld(self):
        page = write("page.html",
                     "<!DOCTYPE html>\n<html><head>\n"
                     "<script type=\"application/ld+json\">\n"
                     "{\"@context\": \"https://schema.org\", \"@type\": \"PodcastEpisode\",\n"
                     " \"associatedMedia\": {\"@type\": \"AudioObject\", \"duration\": \"PT1M2S\"},\n"
                     " \"duration\": \"PT1M5S\"}\n"
                     "</script>\n"
                     "<script>var player = {duration: 999};</script>\n"
                     "</head><body>\n"
                     "<!-- Duration: PT9M -->\n"
                     "<dl><dt>Duration:</dt><dd>PT1M2S</dd></dl>\n"
                     "<p><strong>Audio duration:</strong>&nbsp;01:03</p>\n"
                     "</body></html>\n")
        r = check("--no-sidecar", self.mp3, page)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(verdicts(r.stdout), {
            "page.html:5: duration": "OK", "page.html:6: duration": "MISMATCH",
            "page.html:11: Duration": "OK", "page.html:12: Audio duration": "MISMATCH"})

    def test_valid_json_jansson_cannot_hold(self):
        """JSON sets no size on numbers and allows a byte-order mark to be skipped: a file with
        an integer over 64 bits, 1E400 or a BOM is valid, and its claims are checked."""
        big = write("big.json", '{"id": 123456789012345678901234567890, "duration": "PT1M2S"}\n')
        huge = write("huge.json", '{"scale": 1E400, "duration": "PT2M"}\n')
        bom = write("bom.json", '\ufeff{"duration": "PT1M2S"}\n')
        r = check("--no-sidecar", self.mp3, big, huge, bom)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(verdicts(r.stdout), {
            "big.json:1: duration": "OK", "huge.json:1: duration": "MISMATCH", "bom.json:1: duration": "OK"})
        bad = write("bad.json", '{"duration": "PT1M2S", "n": 01}\n')
        r = check("--no-sidecar", self.mp3, bad)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("bad.json:1:", r.stderr)

    def test_json(self):
        doc = write("meta.json", json.dumps({
            "episode": {"duration": "PT1M2S", "parts": [{"duration": 62.369}]},
            "other": {"duration": 62}, "wrong": {"duration": "PT2M"}}, indent=1) + "\n")
        r, out = check_json("--no-sidecar", self.mp3, doc)
        self.assertEqual(r.returncode, 1)
        self.assertEqual([(c["claimed"], c["ok"]) for c in out["claims"]],
                         [("PT1M2S", True), ("62.369", True), ("62", True), ("PT2M", False)])

    def rss(self, name, items):
        body = "".join(
            "<item><title>%s</title>\n"
            "  <enclosure url=\"%s\" length=\"%s\" type=\"audio/mpeg\"/>\n"
            "  <itunes:duration>%s</itunes:duration>\n</item>\n" % it for it in items)
        return write(name,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">\n"
                     "<channel><title>Show</title>\n" + body + "</channel></rss>\n")

    def test_rss(self):
        size = Episode.size
        feed = self.rss("feed.xml", [
            ("Other", "https://cdn.example/other.mp3", "1", "9:99"),
            ("This", "https://cdn.example/e%70.mp3?src=rss", str(size), "62"),
            ("Again", "/ep.mp3", str(size + 1), "01:03")])
        r = check("--no-sidecar", self.mp3, feed)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(verdicts(r.stdout), {
            "feed.xml:9: enclosure length": "OK", "feed.xml:10: itunes:duration": "OK",
            "feed.xml:13: enclosure length": "MISMATCH", "feed.xml:14: itunes:duration": "MISMATCH"})
        # a feed without an item for this MP3 checks nothing: that is a failure
        none = self.rss("none.xml", [("Other", "https://cdn.example/other.mp3", "1", "62")])
        r = check("--no-sidecar", self.mp3, none)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no duration claim found", r.stdout)
        self.assertIn("none of its 1 feed items has an enclosure named ep.mp3", r.stderr)

    def test_atom(self):
        feed = write("feed.atom",
                     "<feed xmlns=\"http://www.w3.org/2005/Atom\" "
                     "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">\n"
                     "<entry><title>x</title>\n"
                     "<link rel=\"enclosure\" href=\"https://e.example/ep.mp3\" length=\"%d\"/>\n"
                     "<itunes:duration>0:01:02</itunes:duration></entry></feed>\n" % Episode.size)
        r = check("--no-sidecar", self.mp3, feed)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(verdicts(r.stdout), {"feed.atom:3: enclosure length": "OK",
                                              "feed.atom:4: itunes:duration": "OK"})

    def test_sidecar(self):
        d = path("side")
        os.makedirs(d, exist_ok=True)
        mp3 = os.path.join(d, "ep.mp3")
        shutil.copy(self.mp3, mp3)
        facts = {"title": "T", "duration": "PT1M2S", "duration_ms": 62369, "samples": EP_FRAMES,
                 "sample_rate": 22050, "bytes": Episode.size, "chapters": [],
                 "generator": "render-episode 0.1.0"}
        with open(os.path.join(d, "ep.json"), "w") as f:
            json.dump(facts, f, indent=2)
        r = check(mp3)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(len(verdicts(r.stdout)), 5)
        for key, bad in (("samples", EP_FRAMES + 1), ("sample_rate", 44100),
                         ("bytes", Episode.size - 1), ("duration_ms", 62371),
                         ("duration", "PT1M3S")):
            with self.subTest(key):
                wrong = dict(facts)
                wrong[key] = bad
                with open(os.path.join(d, "ep.json"), "w") as f:
                    json.dump(wrong, f, indent=2)
                r = check(mp3)
                self.assertEqual(r.returncode, 1, r.stdout)
                self.assertEqual([k for k, v in verdicts(r.stdout).items() if v == "MISMATCH"],
                                 ["ep.json:%d: %s" % (list(facts).index(key) + 2, key)])
        r = check("--no-sidecar", mp3)
        self.assertEqual(r.returncode, 0)

    def test_several_files(self):
        a = write("a.txt", "Duration: PT1M2S\n")
        b = write("b.txt", "Audio duration: 1:02\nDuration: 62\n")
        r, out = check_json("--no-sidecar", self.mp3, a, b, a)   # a twice: checked once
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(len(out["claims"]), 3)
        self.assertEqual(out["exit"], 0)
        self.assertEqual(out["failed"], 0)
        empty = write("nothing.md", "No claims here.\n")
        r = check("--no-sidecar", self.mp3, a, empty)
        self.assertEqual(r.returncode, 1)
        self.assertIn("nothing.md: no duration claim found", r.stdout)

    def test_tolerance(self):
        page = write("tol.md", "Duration: PT1M3S\n")   # 0.631 s more than measured
        self.assertEqual(check("--no-sidecar", self.mp3, page).returncode, 1)
        r = check("--no-sidecar", "--tolerance", "1s", self.mp3, page)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("within tolerance: OK", r.stdout)
        self.assertEqual(check("--no-sidecar", "--tolerance=PT0.6S", self.mp3, page).returncode, 1)
        self.assertEqual(check("--no-sidecar", "--tolerance", "700ms", self.mp3, page).returncode, 0)
        for bad in ("", "abc", "-1", "1m", "1:2:3:4", "PT"):
            with self.subTest(bad=bad):
                r = check("--tolerance", bad, self.mp3, page)
                self.assertEqual(r.returncode, 1)
                self.assertIn("--tolerance", r.stderr)

    def test_tolerance_at_its_edge_for_each_kind(self):
        """--tolerance in each of its notations, against each kind of claim, just inside and
        just outside, on both sides of the length ffmpeg decodes (62.369614 s at 22050 Hz): a
        sample count is loosened by the samples the tolerance lasts (1 ms is 22.05 samples),
        milliseconds and durations by the time."""
        n = ffmpeg_samples(self.mp3)
        self.assertEqual(n, EP_FRAMES)
        exact = n / EP_RATE

        def holds(key, value, tolerance):
            claims = write("tol.json", json.dumps({key: value, "generator": "render-episode 0.1.0"}))
            r = check("--no-sidecar", "--tolerance", tolerance, self.mp3, claims)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            return r.returncode == 0

        for sign, notations in ((1, ("1ms", "PT0.001S")), (-1, ("0.001", "0.001s"))):
            with self.subTest(sign=sign):
                for tolerance in notations:
                    self.assertTrue(holds("samples", n + sign * 22, tolerance), tolerance)
                    self.assertFalse(holds("samples", n + sign * 23, tolerance), tolerance)
                    self.assertFalse(holds("samples", n + sign * EP_RATE, tolerance), tolerance)
                self.assertTrue(holds("samples", n + sign * EP_RATE, "1s"))
                self.assertFalse(holds("samples", n + sign * (EP_RATE + 1), "1s"))
                # duration_ms: the claim's distance from 62369.614 ms, against the time
                for ms in range(62360, 62380):
                    off = abs(ms - exact * 1000)
                    if 1 < off < 4.9:
                        ceil_ms = int(off) + 1
                        self.assertTrue(holds("duration_ms", ms, f"{ceil_ms}ms"), (ms, off))
                        self.assertFalse(holds("duration_ms", ms, f"{ceil_ms - 1}ms"), (ms, off))
        # a duration: PT1M3S is 630.386 ms over, PT1M1S 1369.614 ms under
        for claim, inside, outside in (("PT1M3S", "631ms", "630ms"), ("PT1M1S", "1370ms", "1369ms"),
                                       ("PT1M3S", "PT0.631S", "PT0.63S"), ("PT1M1S", "1.37", "1.369")):
            with self.subTest(claim=claim, inside=inside):
                self.assertTrue(holds("duration", claim, inside))
                self.assertFalse(holds("duration", claim, outside))
        # a sample rate and a size are never loosened
        self.assertFalse(holds("sample_rate", EP_RATE + 1, "PT1H"))
        self.assertFalse(holds("bytes", Episode.size + 1, "PT1H"))


class Fixing(unittest.TestCase):
    """--fix on stale pages gives pages that pass, with every other byte unchanged."""

    def setUp(self):
        self.mp3 = episode()

    def round_trip(self, name, template, stale, fresh, expect_fixed):
        p = write(name, template.format(*stale))
        os.chmod(p, 0o640)
        r = check("--no-sidecar", self.mp3, p)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        r = check("--no-sidecar", "--fix", self.mp3, p)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stdout.count(": fixed "), expect_fixed, r.stdout)
        self.assertEqual(read(p), template.format(*fresh).encode())   # byte for byte
        self.assertEqual(stat.S_IMODE(os.stat(p).st_mode), 0o640)
        self.assertEqual([f for f in os.listdir(os.path.dirname(p)) if f.startswith("." + name)], [])
        r = check("--no-sidecar", self.mp3, p)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_markdown(self):
        self.round_trip("stale.md",
                        "# Ep\r\nDuration: {}\r\n- Audio duration: {} (approx.)\n"
                        "**Duration:** `{}` and Duration: {}.\nUnrelated: PT5M\n",
                        ["PT2M53S", "02:53", "PT173S", "0:02:53.5"],
                        ["PT1M2S", "01:02", "PT62S", "0:01:02.4"], 4)

    def test_html(self):
        self.round_trip("stale.html",
                        "<html><head><script type=\"application/ld+json\">"
                        "{{\"duration\": \"{}\", \"x\": [1, 2]}}</script></head>\n"
                        "<body><p>Duration: <b>{}</b></p></body></html>\n",
                        ["PT3M", "3:00"], ["PT1M2S", "1:02"], 2)

    def test_json(self):
        self.round_trip("stale.json",
                        "{{\n  \"duration\": \"{}\",\n  \"nested\": {{\"duration\": {}}}\n}}\n",
                        ["PT2M", "61.9"], ["PT1M2S", "62.4"], 2)

    def test_rss(self):
        size = Episode.size
        self.round_trip("stale.rss",
                        "<?xml version=\"1.0\"?>\n<rss xmlns:itunes=\"http://www.itunes.com/dtds/"
                        "podcast-1.0.dtd\"><channel><item>\n"
                        "<enclosure url=\"https://x/ep.mp3\" type=\"audio/mpeg\" length=\"{}\"/>\n"
                        "<itunes:duration>{}</itunes:duration></item></channel></rss>\n",
                        ["1000", "00:03:00"], [str(size), "00:01:02"], 2)

    def test_symlink_and_leftovers(self):
        target = write("real.md", "Duration: PT9S\n")
        link = path("link.md")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink("real.md", link)
        r = check("--no-sidecar", "--fix", self.mp3, link)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(read(target), b"Duration: PT1M2S\n")

    def test_unfixable(self):
        p = write("hand.md", "Duration: about a minute\nDuration: PT9S\n")
        r = check("--no-sidecar", "--fix", self.mp3, p)
        self.assertEqual(r.returncode, 1)
        self.assertIn("hand.md:1: not fixed Duration: not a duration", r.stdout)
        self.assertEqual(read(p), b"Duration: about a minute\nDuration: PT1M2S\n")
        tagged = write("tlen-fix.mp3", id3v2_tag(3, {"TLEN": "1"}) + read(self.mp3))
        before = read(tagged)
        r = check("--no-sidecar", "--fix", tagged)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not fixed ID3 TLEN: the MP3 itself is never rewritten", r.stdout)
        self.assertEqual(read(tagged), before)


class FixAndOthers(unittest.TestCase):
    """--fix never loses what someone else wrote: a file with more than one hard link is refused
    (one name would keep the old text), and an edit saved while check runs is kept."""

    def setUp(self):
        self.mp3 = episode()

    def test_hard_links_refused(self):
        p = write("linked.md", "Duration: PT9S\n")
        other = path("linked-other.md")
        if os.path.exists(other):
            os.unlink(other)
        os.link(p, other)
        r = check("--no-sidecar", "--fix", self.mp3, p)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("linked.md: has 2 hard links", r.stderr)
        # the claim says the real reason, not a guess about how the value was written
        self.assertIn("linked.md:1: not fixed Duration: has 2 hard links; replacing it would "
                      "leave the others with the old text", r.stdout)
        self.assertNotIn("CDATA", r.stdout)
        self.assertEqual(read(p), b"Duration: PT9S\n")
        self.assertEqual(os.stat(p).st_ino, os.stat(other).st_ino)

    def test_an_edit_saved_meanwhile_is_kept(self):
        """An editor saves the page once (temporary file + rename, as editors do) at a moment
        swept across the whole --fix run. Whenever that lands, the file at the end holds the
        edit (fixed or not): never the fixed old text over it."""
        import threading
        folder = tempfile.mkdtemp(dir=TMP)
        page = os.path.join(folder, "page.md")
        old, edit = "Duration: PT9M\nold text\n", "Duration: PT9M\nthe edit\n"
        start = time.monotonic()
        check("--no-sidecar", "--fix", self.mp3, write("timing.md", old))
        run_s = time.monotonic() - start
        # Under the sanitizers (RE_SANITIZED), which look for memory errors, not for the race's
        # window again: 12 moments over the same sweep (each takes the same code), not 60.
        attempts = 12 if os.environ.get("RE_SANITIZED") else 60
        for attempt in range(attempts):
            with open(page, "w") as f:
                f.write(old)
            delay = run_s * 1.2 * attempt / attempts

            def editor():
                time.sleep(delay)
                with open(page + ".edit", "w") as f:
                    f.write(edit)
                os.rename(page + ".edit", page)
            thread = threading.Thread(target=editor)
            thread.start()
            r = check("--no-sidecar", "--fix", self.mp3, page)
            thread.join()
            self.assertIn(r.returncode, (0, 2), r.stderr)
            with open(page) as f:
                final = f.read()
            self.assertIn(final, (edit, edit.replace("PT9M", "PT1M2S")),
                          f"attempt {attempt} (edit after {delay * 1000:.1f} ms): the edit was lost")
            self.assertEqual(sorted(os.listdir(folder)), ["page.md"], "temporary files left")


class BadInputs(unittest.TestCase):
    """Exit 2 with a clear message, never a crash."""

    def setUp(self):
        self.mp3 = episode()

    def test_not_mp3(self):
        data = read(self.mp3)
        cases = {
            "random.mp3": os.urandom(50000),
            "empty.mp3": b"",
            "text.mp3": b"Duration: PT1M2S\n" * 100,
            "wav.mp3": read(Episode.wav)[:20000],
            "id3only.mp3": id3v2_tag(3, {"TIT2": "x"}),
            "head.mp3": data[:300],
        }
        for name, content in cases.items():
            with self.subTest(name):
                r = check(write(name, content))
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("not an MP3", r.stderr)
                self.assertEqual(r.stdout, "")
        for i in range(20):
            r = check(write("rnd%d.bin" % i, os.urandom(1000 * (i + 1))))
            self.assertEqual(r.returncode, 2)
        r = check(path("missing.mp3"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("No such file", r.stderr)
        # a folder is a published site to check (test_check_dir.py): here its broken MP3s
        r = check(TMP)
        self.assertEqual(r.returncode, 2)
        self.assertIn(path("random.mp3") + ": not an MP3", r.stderr)

    def test_truncated(self):
        data = read(self.mp3)
        for name, cut in (("first1000.mp3", 1000), ("half.mp3", len(data) // 2)):
            with self.subTest(name):
                p = write(name, data[:cut])
                r, doc = check_json(p)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertTrue(doc["mp3"]["truncated"])
                self.assertIn("truncated", r.stderr)
                self.assertLess(doc["mp3"]["samples"], EP_FRAMES)
                self.assertGreater(doc["mp3"]["samples"], 0)
        for i in range(10):   # random bytes after the last frame are not counted
            p = write("junk-tail.mp3", data + os.urandom(500 * (i + 1)))
            r, doc = check_json(p)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(doc["mp3"]["samples"], EP_FRAMES)
        p = write("zero-tail.mp3", data + bytes(5000))
        r, doc = check_json(p)
        self.assertEqual(doc["mp3"]["samples"], EP_FRAMES)
        self.assertIn("decoding stopped at byte %d of %d" % (len(data), len(data) + 5000), r.stderr)
        p = write("joined.mp3", data + data)
        r, doc = check_json(p)
        self.assertEqual(r.returncode, 0)
        self.assertEqual(doc["mp3"]["samples"], EP_FRAMES)
        self.assertIn("more frames decode after the", r.stderr)

    def test_bad_files(self):
        cases = {
            "bad.json": ("{\"a\": 1,\n  \"duration\" \"PT1S\"}\n", "bad.json:2:"),
            "bad.xml": ("<rss>\n<channel>\n<item></channel></rss>\n", "bad.xml:3:"),
            "bad.html": ("<p>x</p>\n<script type=\"application/ld+json\">\n{\"duration\": }\n"
                         "</script>\n", "bad.html:3:"),
        }
        for name, (content, where) in cases.items():
            with self.subTest(name):
                r = check("--no-sidecar", self.mp3, write(name, content))
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn(where, r.stderr)
        good = write("good.md", "Duration: PT1M2S\n")
        r = check("--no-sidecar", self.mp3, good, path("nope.md"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("nope.md: cannot open", r.stderr)
        self.assertIn("good.md:1: Duration: claimed PT1M2S", r.stdout)   # the rest is checked
        r = check("--no-sidecar", self.mp3, TMP)
        self.assertEqual(r.returncode, 2)
        r = check("--no-sidecar", self.mp3, self.mp3)                  # an MP3 is no page
        self.assertEqual(r.returncode, 1)

    def test_usage(self):
        for args in ([], ["--bogus", "x.mp3"], ["--tolerance"], ["--json"]):
            with self.subTest(args=args):
                r = check(*args)
                self.assertEqual(r.returncode, 1)
                self.assertIn("render-episode check", r.stderr)
        r = check("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage: render-episode check", r.stdout)


class RenderedByUs(unittest.TestCase):
    """An MP3 rendered by render-episode: its TLEN and sidecar hold, by an independent count."""

    def test_render_then_check(self):
        script = write("script.txt",
                       "---\ntitle: Check test\nshow: Tests\n---\n# Intro\n"
                       "Hello there. This is a short test of the check command.\n\n"
                       "[pause 750ms]\n\nGoodbye.\n")
        out = path("rendered.mp3")
        r = run([RE_BIN, script, "-o", out])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r, doc = check_json(out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        fields = sorted(c["field"] for c in doc["claims"])
        self.assertEqual(fields, ["ID3 TLEN", "bytes", "duration", "duration_ms", "sample_rate",
                                  "samples"])
        self.assertTrue(all(c["ok"] for c in doc["claims"]))
        self.assertTrue(doc["mp3"]["lame_tag"])
        self.assertEqual(doc["mp3"]["samples"], ffmpeg_samples(out))


def main():
    try:
        runner = unittest.TextTestRunner(verbosity=2)
        result = runner.run(unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__]))
        return judge(result, "test_check.py")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
