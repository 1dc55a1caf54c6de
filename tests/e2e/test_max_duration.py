# SPDX-License-Identifier: GPL-3.0-or-later
"""--max-duration: real release notes of several releases, each far longer than three minutes
spoken whole, rendered within `--max-duration 3m`, judged by tools we did not write.

The documents: this project's own CHANGELOG.md, and the first 227 lines (twelve releases) of
node-gyp's CHANGELOG.md (github.com/nodejs/node-gyp, as npm 10 ships it in
/usr/lib/node_modules/npm/node_modules/node-gyp/CHANGELOG.md, version 12.4.0), kept in
tests/data/markdown/maxdur/. What must hold:
- the audio fits: ffprobe's duration and the samples ffmpeg decodes are within the limit, and
  the sidecar, the WebVTT transcript and the chapters describe that audio, not the document;
- nothing is lost from the notes: the page's show notes hold every list item cmark-gfm (its
  own library, not ours) finds in the document, exactly as a render without the limit has them;
- `explain --max-duration 3m` names what was left out, and what it names is not heard
  (not in the transcript), and a list that lost items ends with "And N more ...".
A .txt script, a limit no block fits in and a malformed value are refused with nothing
written; a document that fits is rendered byte for byte as without the option."""
import ctypes
import ctypes.util
import json
import os
import re
import shutil
import subprocess

from common import SRC, Case, ffmpeg_samples, ffprobe, main, run, write

LIMIT_S = 180
NODE_GYP = os.path.join(SRC, "tests", "data", "markdown", "maxdur", "node-gyp-CHANGELOG.md")
OURS = os.path.join(SRC, "CHANGELOG.md")


def cmark_list_items(path):
    """List items in the document as cmark-gfm's own library renders it."""
    lib = ctypes.CDLL(ctypes.util.find_library("cmark-gfm") or "libcmark-gfm.so")
    lib.cmark_markdown_to_html.restype = ctypes.c_void_p
    lib.cmark_markdown_to_html.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    with open(path, "rb") as f:
        data = f.read()
    rendered = lib.cmark_markdown_to_html(data, len(data), 0)
    return ctypes.string_at(rendered).decode("utf-8").count("<li>")


def xpath(html_path, expression):
    return subprocess.run(["xmllint", "--html", "--xpath", expression, html_path],
                          capture_output=True, text=True, check=True).stdout


def md_notes(path):
    """The Markdown page's show notes: from its "## Show notes" to the next section."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index("\n## Show notes\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def vtt_text(path):
    with open(path, encoding="utf-8") as f:
        cues = [line for line in f.read().splitlines()
                if line and "-->" not in line and not line.isdigit() and line != "WEBVTT"]
    return " ".join(cues)


def vtt_last_end(path):
    with open(path, encoding="utf-8") as f:
        ends = re.findall(r"--> (\d+):(\d+):(\d+)\.(\d+)", f.read())
    h, m, s, ms = ends[-1]
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


class MaxDuration(Case):
    def render(self, doc, out, *extra):
        proc = run([doc, "-o", out, "-q", "-j", "2", "--page", "--page-md", *extra], timeout=900)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc

    def fits(self, source):
        doc = self.path(os.path.basename(source))
        shutil.copy(source, doc)
        full, cut = self.path("full.mp3"), self.path("cut.mp3")
        self.render(doc, full)
        proc = self.render(doc, cut, "--max-duration", "3m")
        self.assertIn("--max-duration 3m left out", proc.stderr)
        rate = int(ffprobe(cut, "-show_streams")["streams"][0]["sample_rate"])
        whole = float(ffprobe(full, "-show_format")["format"]["duration"])
        self.assertGreater(whole, 2 * LIMIT_S, "the document is not long enough to need a cut")
        # the audio fits, as ffprobe and ffmpeg's decode have it
        self.assertLessEqual(float(ffprobe(cut, "-show_format")["format"]["duration"]), LIMIT_S)
        samples = ffmpeg_samples(cut)
        self.assertLessEqual(samples, LIMIT_S * rate)
        self.assertGreater(samples, LIMIT_S * rate * 2 // 3, "the cut left much of the time unused")
        with open(self.path("cut.json"), encoding="utf-8") as f:
            sidecar = json.load(f)
        self.assertEqual(sidecar["samples"], samples)
        self.assertLessEqual(vtt_last_end(self.path("cut.vtt")), samples / rate + 0.001)
        if os.path.exists(self.path("cut.chapters.json")):
            with open(self.path("cut.chapters.json"), encoding="utf-8") as f:
                for chapter in json.load(f)["chapters"]:
                    self.assertLess(chapter["startTime"], samples / rate)
        # nothing lost from the notes: every list item, as without the limit
        items = cmark_list_items(doc)
        notes = 'count(//section[@class="notes"]//li)'
        self.assertEqual(int(float(xpath(self.path("cut.html"), notes))), items)
        self.assertEqual(xpath(self.path("cut.html"), '//section[@class="notes"]'),
                         xpath(self.path("full.html"), '//section[@class="notes"]'))
        self.assertEqual(md_notes(self.path("cut.md")), md_notes(self.path("full.md")))
        # explain names what was left out, and that is not heard
        ex = run(["explain", "--max-duration", "3m", doc], timeout=900)
        self.assertEqual(ex.returncode, 0, ex.stderr)
        left = [line for line in ex.stdout.splitlines()
                if line.startswith(doc + ": left out for --max-duration 3m: ")]
        self.assertTrue(left, ex.stdout[:2000])
        self.assertTrue(any(re.search(r": \d+ list items? of '", line) for line in left), left)
        heard = vtt_text(self.path("cut.vtt"))
        return left, heard

    def test_own_changelog_fits(self):
        left, heard = self.fits(OURS)
        self.assertRegex(heard, r"And \d+ more [a-z ]+\.")
        # what the explain says is left out of the Unreleased Security list is not heard
        self.assertTrue(any("'Security' in '[Unreleased]'" in line for line in left), left)

    def test_third_party_changelog_fits(self):
        left, heard = self.fits(NODE_GYP)
        # the breaking change of 12.0.0 ranks first: it is heard; the bot bumps are not
        self.assertIn("Breaking changes", heard)   # the briefing's words for the heading
        self.assertNotIn("bump", heard.lower())
        self.assertTrue(any("'Core' in '12.3.0 (2026-04-21)'" in line and "dependencies and chores"
                            in line for line in left), left)

    def test_txt_script_refused(self):
        script = write(self.path("ep.txt"), "---\ntitle: T\n---\nHello there.\n")
        out = write(self.path("ep.mp3"), "yesterday's episode")
        proc = run([script, "-o", out, "-q", "--max-duration", "3m"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--max-duration 3m", proc.stderr)
        self.assertIn("Markdown", proc.stderr)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["ep.mp3", "ep.txt"])
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "yesterday's episode")

    def test_nothing_fits_refused(self):
        doc = write(self.path("notes.md"), "# Notes\n\n## 1.0.0\n\n### Fixed\n\n"
                    "- A crash on start is fixed.\n- The help is clearer.\n")
        proc = run([doc, "-o", self.path("ep.mp3"), "-q", "--max-duration", "300ms"])
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--max-duration 300ms", proc.stderr)
        self.assertEqual(os.listdir(self.tmp), ["notes.md"])

    def test_malformed_duration(self):
        doc = write(self.path("notes.md"), "# Notes\n\nHello.\n")
        for bad in ("3x", "0s", "m3", "3m3m", "13h", "1.5m30s", ""):
            proc = run([doc, "-o", self.path("ep.mp3"), "--max-duration", bad])
            self.assertEqual(proc.returncode, 1, (bad, proc.stderr))
            self.assertIn("--max-duration", proc.stderr)
        self.assertEqual(os.listdir(self.tmp), ["notes.md"])

    def test_batch_takes_it_and_its_change(self):
        """batch passes --max-duration to each episode; the limit is one of the inputs an
        up-to-date episode was made from, so another limit renders it again."""
        doc = write(self.path("notes.md"), "---\ntitle: Notes\n---\n## 1.0.0\n\n### Fixed\n\n"
                    + "".join(f"- Fixed a crash number {i} when the input is empty.\n"
                              for i in range(12)))
        out = self.path("out")

        def batch(limit):
            proc = run(["batch", "-O", out, "-j", "1", "--report", self.path("r.json"),
                        "--max-duration", limit, doc], timeout=900)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(self.path("r.json"), encoding="utf-8") as f:
                report = json.load(f)
            return report["episodes"][0]["status"], ffmpeg_samples(os.path.join(out, "notes.mp3"))

        status, first = batch("20s")
        self.assertEqual(status, "rendered")
        self.assertLessEqual(first, 20 * 22050)
        self.assertEqual(batch("20s")[0], "up-to-date")
        status, second = batch("12s")
        self.assertEqual(status, "rendered")
        self.assertLessEqual(second, 12 * 22050)
        self.assertLess(second, first)

    def test_fitting_document_unchanged(self):
        doc = write(self.path("notes.md"), "# Notes\n\n## 1.0.0\n\n### Fixed\n\n"
                    "- A crash on start is fixed.\n- The help is clearer.\n")
        self.render(doc, self.path("a.mp3"))
        self.render(doc, self.path("b.mp3"), "--max-duration", "PT10M")
        for ext in (".mp3", ".vtt", ".html"):
            with open(self.path("a" + ext), "rb") as f, open(self.path("b" + ext), "rb") as g:
                a, b = f.read(), g.read()
                if ext == ".html":   # the page names its own files
                    a = re.sub(rb'(?<![\w.])a\.(mp3|vtt)', rb'x.\1', a)
                    b = re.sub(rb'(?<![\w.])b\.(mp3|vtt)', rb'x.\1', b)
                self.assertEqual(a, b, ext)


if __name__ == "__main__":
    main()
