# SPDX-License-Identifier: GPL-3.0-or-later
"""Every transcript format says exactly what is spoken (issue 14): rendered with --srt
--transcript-json --page, the cues of the WebVTT file and of the SRT file (each re-read by
ffmpeg's own subtitle demuxer and decoder), of the transcript JSON (python's json) and of the
episode page (python's html.parser), put together, are the script's spoken text, whitespace
aside: its words and punctuation as written, without front matter, headings, comment lines
or directives, `\\[` as `[`, and without the text no voice reads (Khmer, Tibetan), which is
left out with a warning and is not spoken (docs/pronunciation.md). The scripts mix what
cuts a paragraph into pieces: [lang] spans, other writing systems, tokens over 64
characters, hashes, URLs, options and constants; the four formats agree cue by cue on text,
times and speakers, every long token stays whole in one cue, and no cue ends with an
opening quote or bracket."""
import html.parser
import json
import random
import re
import subprocess

from common import Case, main, run, write

KHMER = "\u1797\u17b6\u179f\u17b6\u1781\u17d2\u1798\u17c2\u179a"
TIBETAN = "\u0f56\u0f7c\u0f51\u0f0b\u0f61\u0f72\u0f42"

FIXED = """---
title: Formats & spans
---
# Release notes

Version 3.25.0-3 landed in commit 0f3a9c2e81b4d5f6a7b8c9d0e1f2a3b4c5d6e7f8, see https://github.com/pytorch/pytorch/pull/189759/files#diff-8f14e45fceea167a5a36dedd4bea2543a9c2e81b4d5f6a7b8c9d0e1f2a3b4c5 for details. Run it with --silent & <care>.

[voice guest] The greeting [lang de]Guten Tag, liebe H\u00f6rer[/lang] came first, then "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440" in Russian and \u3053\u3093\u306b\u3061\u306f in Japanese; the Khmer KHMER word is dropped. Hash 12d655d4561 and HAVE_FTRUNCATE too.

// a comment line, not spoken
A path \\[literal] a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z ends [pause 400ms] the episode.
""".replace("KHMER", KHMER)

# Pieces the generated script is drawn from (a fixed seed: the same script on every run).
WORDS = ("the", "release", "fixes", "a", "crash", "when", "parsing", "headers", "and", "now",
         "builds", "on", "arm64", "with", "clang", "after", "review")
TOKENS = ("e3b0c44298fc1c149afbf4c8996fb92427ae41e4", "https://lists.debian.org/debian-security-announce/2024/msg00123.html",
          "https://gitlab.com/group/project/-/merge_requests/4711", "CVE-2024-45490",
          "--no-verify-peer", "OPENSSL_NO_DEPRECATED_3_0", "v2.1.0-rc1", "1.2.3~beta+dfsg-4",
          "curl_easy_setopt()", "torch.nn.functional.scaled_dot_product_attention",
          "x" * 30 + "." + "y" * 40, "HAVE_FDATASYNC", "(\u201cquoted\u201d)", "\u00abguillemets\u00bb")
SPANS = ("[lang fr]la mise \u00e0 jour[/lang]", "[lang it]grazie mille[/lang]",
         "\u0393\u03b5\u03b9\u03b1 \u03c3\u03bf\u03c5", "\u00ab\u041f\u0440\u0438\u0432\u0435\u0442\u00bb",
         "(\u6771\u4eac)", "\uc548\ub155\ud558\uc138\uc694", TIBETAN, KHMER)


def generated(seed):
    rng = random.Random(seed)
    paragraphs = []
    for p in range(4):
        words = []
        for _ in range(rng.randint(18, 30)):
            r = rng.random()
            words.append(rng.choice(TOKENS) if r < 0.2 else rng.choice(SPANS) if r < 0.35
                         else rng.choice(WORDS))
        words[-1] += "."
        voice = "[voice guest] " if p % 2 else ""
        lines = [" ".join(words[i:i + 7]) for i in range(0, len(words), 7)]
        paragraphs.append(voice + "\n".join(lines).replace(" and ", " and [pause 250ms] ", 1))
    return "---\ntitle: Generated\n---\n# Part one\n\n" + "\n\n".join(paragraphs) + "\n"


def spoken_text(script):
    """What the voices say, whitespace collapsed: read from the script by this test's own
    rules (script-format.md), not the program's."""
    body = script.split("---\n", 2)[2]
    lines = [l for l in body.split("\n")
             if not re.match(r"\s*(//|#{1,6}\s)", l)]
    text = " ".join(lines)
    text = re.sub(r"\[(voice [a-z0-9_-]+|pause [^\]]+|lang [^\]]+|/lang)\]", " ", text)
    text = text.replace("\\[", "[")
    # No voice reads Khmer or Tibetan: left out, with the quotes and brackets right before
    # and the punctuation right after (up to a blank), which are not spoken either.
    text = re.sub(r"\S*[\u1780-\u17ff\u0f00-\u0fff]\S*", " ", text)
    return " ".join(text.split())


def bare(text):
    """Whitespace aside."""
    return "".join(text.split())


def ffmpeg_cues(path):
    """(start ms, end ms, text) of each cue of a subtitle file, as ffmpeg demuxes and decodes
    it (re-encoded as SRT by ffmpeg, which escapes braces)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "srt", "-"],
                         capture_output=True, text=True, check=True).stdout
    cues = []
    for block in out.strip().split("\n\n"):
        number, times, text = block.split("\n", 2)
        m = re.fullmatch(r"(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)", times)
        g = [int(x) for x in m.groups()]
        text = text.replace("\\{", "{").replace("\\}", "}")
        cues.append((((g[0] * 60 + g[1]) * 60 + g[2]) * 1000 + g[3],
                     ((g[4] * 60 + g[5]) * 60 + g[6]) * 1000 + g[7], text))
    return cues


class PageCues(html.parser.HTMLParser):
    """The page's transcript: (speaker of the paragraph, data-start, data-end, text) per cue."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.cues, self.speaker, self.in_speaker, self.cue, self.in_transcript = [], None, 0, None, 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "transcript" in a.get("class", "").split():
            self.in_transcript = 1
        elif self.in_transcript and tag == "b" and "speaker" in a.get("class", "").split():
            self.in_speaker, self.speaker = 1, ""
        elif self.in_transcript and tag == "span" and "cue" in a.get("class", "").split():
            self.cue = [self.speaker, a["data-start"], a["data-end"], ""]

    def handle_endtag(self, tag):
        if tag == "section":
            self.in_transcript = 0
        elif tag == "b" and self.in_speaker:
            self.in_speaker = 0
            self.speaker = self.speaker.rstrip(":").strip()
        elif tag == "span" and self.cue:
            self.cues.append(tuple(self.cue))
            self.cue = None

    def handle_data(self, data):
        if self.in_speaker:
            self.speaker += data
        elif self.cue:
            self.cue[3] += data


class TranscriptFormats(Case):
    def render(self, name, script):
        path = write(self.path(name + ".txt"), script)
        res = run([path, "-o", self.path(name + ".mp3"), "--srt", "--transcript-json", "--page"])
        self.assertEqual(res.returncode, 0, res.stderr)
        return path, res.stderr

    def check_formats(self, name, script):
        path, stderr = self.render(name, script)
        expected = spoken_text(script)
        # Text no voice reads is left out, and said so at the span's own place: each warning's
        # FILE:LINE:COL (a byte column) is where its quoted text starts in the script.
        lines = script.split("\n")
        warned = re.findall(r"^(.*):(\d+):(\d+): warning: '(.*?)(?:\.\.\.)?' is left out: "
                            r"espeak-ng has no voice for (Khmer|Tibetan) text$", stderr, re.M)
        self.assertEqual(len(warned), len(stderr.splitlines()), stderr)
        for file, line_no, col, quoted, _ in warned:
            self.assertEqual(file, path)
            line = lines[int(line_no) - 1].encode()
            self.assertEqual(line[int(col) - 1:].decode()[:len(quoted)], quoted)
        for text in (KHMER, TIBETAN):
            if text in script:   # its first place is warned about
                first = next((i + 1, l) for i, l in enumerate(lines) if text in l)
                col = first[1].encode().index(text.encode()) + 1
                self.assertIn((path, str(first[0]), str(col)), [w[:3] for w in warned])
        vtt = ffmpeg_cues(self.path(name + ".vtt"))
        srt = ffmpeg_cues(self.path(name + ".srt"))
        with open(self.path(name + ".transcript.json"), encoding="utf-8") as f:
            segments = json.load(f)["segments"]
        page = PageCues()
        with open(self.path(name + ".html"), encoding="utf-8") as f:
            page.feed(f.read())
        page.close()
        speakers = {s["speaker"] for s in segments}
        self.assertTrue(speakers)
        srt_texts, srt_speakers = [], []
        for _, _, text in srt:   # each SRT cue names its speaker: "Host: ..."
            m = re.match(r"([^:]+): (.*)", text, re.S)
            self.assertTrue(m and m.group(1) in speakers, text)
            srt_speakers.append(m.group(1))
            srt_texts.append(m.group(2))
        texts = {
            "vtt": [t for _, _, t in vtt],
            "srt": srt_texts,
            "json": [s["body"] for s in segments],
            "page": [c[3] for c in page.cues],
        }
        for fmt, cues in texts.items():
            with self.subTest(format=fmt):
                self.assertGreater(len(cues), 3)
                self.assertEqual(bare("".join(cues)), bare(expected))
                if fmt != "srt":   # SRT writes "< care>" for "<care>" (its readers' tags)
                    self.assertEqual(" ".join(" ".join(cues).split()), expected)
                for cue in cues:   # an opening quote or bracket starts its cue
                    self.assertNotRegex(cue.strip(), r"(^|\s)[\"\u201c\u00ab(\[{]+$", cue)
        # The four agree cue by cue: text, times (ms) and speaker.
        json_ms = [(round(s["startTime"] * 1000), round(s["endTime"] * 1000)) for s in segments]
        page_ms = [(round(float(c[1]) * 1000), round(float(c[2]) * 1000)) for c in page.cues]
        self.assertEqual(texts["vtt"], texts["json"])
        self.assertEqual([bare(t) for t in texts["srt"]], [bare(t) for t in texts["json"]])
        self.assertEqual([" ".join(t.split()) for t in texts["page"]],
                         [" ".join(t.split()) for t in texts["json"]])
        self.assertEqual([(a, b) for a, b, _ in vtt], json_ms)
        self.assertEqual([(a, b) for a, b, _ in srt], json_ms)
        self.assertEqual(page_ms, json_ms)
        self.assertEqual(srt_speakers, [s["speaker"] for s in segments])
        self.assertEqual([c[0] for c in page.cues], [s["speaker"] for s in segments])
        # Cues follow each other and never overlap.
        for (a0, a1), (b0, b1) in zip(json_ms, json_ms[1:]):
            self.assertLessEqual(a0, a1)
            self.assertLessEqual(a1, b0)
        # A token the engine is given in pieces (over 64 characters, a URL, a hash) is shown
        # whole, as written, in one cue.
        words = expected.split()
        long_ones = [w.rstrip(".,;") for w in words if len(w) > 64 or "://" in w
                     or re.fullmatch(r"[0-9a-f]{7,40}[.,]?", w)]
        self.assertTrue(long_ones)
        for token in long_ones:
            self.assertTrue(any(token in cue.split() or token + "." in cue.split()
                                or token + "," in cue.split() for cue in texts["json"]), token)
        return segments

    def test_fixed_script(self):
        segments = self.check_formats("fixed", FIXED)
        self.assertEqual({s["speaker"] for s in segments}, {"Host", "Guest"})
        bodies = [s["body"] for s in segments]
        self.assertIn("Guten Tag, liebe H\u00f6rer", bodies)   # a [lang] span is a cue of its own
        self.assertIn("\"\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440\"", bodies)

    def test_generated_scripts(self):
        for seed in (14, 1414):
            with self.subTest(seed=seed):
                self.check_formats(f"gen{seed}", generated(seed))


if __name__ == "__main__":
    main()
