# SPDX-License-Identifier: GPL-3.0-or-later
"""Timed transcripts and JSON chapters: cue times come from the engine's sentence events and
our sample offsets; they are judged against the PCM itself and re-read by ffmpeg."""
import array
import json
import os
import re
import subprocess
import wave

from common import SRC, Case, main, run, write

SCRIPT = """---
title: Transcript test
---
# Opening

[voice host] Good morning. This is the first paragraph, and it has a sentence that is long enough to be split into two cue lines by the writer.

[voice guest] Thanks! [pause 700ms] I am the guest & I like <angle> brackets.

# Closing

[pause 1s]

Short one. Another short one.
"""

TIME = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> (\d\d):(\d\d):(\d\d)\.(\d\d\d)$")


def ms(h, m, s, f):
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(f)


def parse_vtt(text):
    lines = text.split("\n")
    assert lines[0] == "WEBVTT", lines[0]
    cues, i = [], 1
    while i < len(lines):
        m = TIME.match(lines[i])
        if m:
            g = m.groups()
            cues.append((ms(*g[:4]), ms(*g[4:]), lines[i + 1]))
            i += 2
        else:
            i += 1
    return cues


PUNCTUATED = """---
title: Punctuation test
---
"git grep" learned a new trick. It works. "Quoted start" of a sentence.

[voice guest] (Hello) there. Then \u201ccurly quotes\u201d begin here. \u201cCurly start\u201d again. 'Single' ones [pause 300ms] too.

[Bracketed] words, {braces} and \u00abguillemets\u00bb: PR #189759 fixes a graph break in torch.compile when a module calls torch.nn.functional.scaled_dot_product_attention under AOTAutograd.
"""


def spoken_text(script):
    """The script's spoken words: the body without front matter, directives or line breaks."""
    body = script.split("---\n", 2)[2]
    body = re.sub(r"\[(voice \w+|pause [^\]]+)\]", " ", body)
    return " ".join(body.split())


def unescape_vtt(text):
    text = re.sub(r"^<v [^>]*>", "", text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


class CueText(Case):
    """The cues, put together, are the script's text: no word, quote or bracket lost or moved
    to another cue, in every transcript format."""

    def test_cues_are_the_script_text(self):
        script = write(self.path("p.txt"), PUNCTUATED)
        res = run([script, "-o", self.path("p.mp3"), "--srt", "--transcript-json", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        expected = spoken_text(PUNCTUATED)
        with open(self.path("p.vtt"), encoding="utf-8") as f:
            vtt = [unescape_vtt(c[2]) for c in parse_vtt(f.read())]
        with open(self.path("p.srt"), encoding="utf-8") as f:
            blocks = [b.split("\n", 2)[2] for b in f.read().strip().split("\n\n")]
        srt = [re.sub(r"^(Host|Guest): ", "", b) for b in blocks]
        with open(self.path("p.transcript.json"), encoding="utf-8") as f:
            body = [seg["body"] for seg in json.load(f)["segments"]]
        for name, cues in (("vtt", vtt), ("srt", srt), ("json", body)):
            with self.subTest(format=name):
                self.assertEqual(" ".join(" ".join(cues).split()), expected)
        # ffmpeg, reading the VTT on its own, sees the same texts.
        out = subprocess.run(["ffmpeg", "-v", "error", "-i", self.path("p.vtt"), "-f", "srt", "-"],
                             capture_output=True, text=True, check=True).stdout
        texts = [re.sub(r"<[^>]*>", "", b.split("\n", 2)[2]).replace("\\{", "{").replace("\\}", "}")
                 for b in out.strip().split("\n\n")]   # SRT escapes braces
        self.assertEqual(" ".join(" ".join(texts).split()), expected)
        # An opening quote or bracket starts its cue; it never ends the one before.
        for cue in vtt:
            self.assertNotRegex(cue, r"[\"\u201c(\[{\u00ab]$", cue)


LONG = ("PR #189759 fixes a graph break in torch.compile when a module calls "
        "torch.nn.functional.scaled_dot_product_attention under AOTAutograd.")


class SplitCues(Case):
    """A sentence too long for one cue line is split between the script's words only, into
    lines of at most 65 characters (a longer single word aside), and each line starts when
    its words are spoken: about when the text before it, rendered alone, ends."""

    def seconds(self, name, text):
        script = write(self.path(name + ".txt"), "---\ntitle: Split\n---\n" + text + "\n")
        res = run([script, "-o", self.path(name + ".wav"), "--loudness", "off", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path(name + ".json"), encoding="utf-8") as f:
            side = json.load(f)
        return side["samples"] / side["sample_rate"]

    def test_split_between_words_and_timed_by_them(self):
        self.seconds("long", LONG)
        with open(self.path("long.vtt"), encoding="utf-8") as f:
            cues = parse_vtt(f.read())
        self.assertGreaterEqual(len(cues), 3, cues)
        texts = [c[2] for c in cues]
        self.assertEqual(" ".join(texts), LONG)        # never split inside a word
        for text in texts:
            self.assertTrue(len(text) <= 65 or " " not in text, text)
        for k in range(1, len(cues)):
            before = " ".join(texts[:k])
            alone = self.seconds(f"before{k}", before)
            # The engine lengthens a sentence's last word a little: 0.35 s covers that; a line
            # timed by the wrong word is off by seconds.
            self.assertLess(abs(cues[k][0] / 1000 - alone), 0.35,
                            f"cue {k + 1} '{texts[k]}' starts at {cues[k][0]} ms; '{before}' alone lasts {alone:.3f} s")


class Transcripts(Case):
    def setUp(self):
        super().setUp()
        script = write(self.path("t.txt"), SCRIPT)
        res = run([script, "-o", self.path("t.wav"), "--srt", "--transcript-json"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("t.vtt"), encoding="utf-8") as f:
            self.vtt = f.read()
        self.cues = parse_vtt(self.vtt)
        with open(self.path("t.json"), encoding="utf-8") as f:
            self.side = json.load(f)
        with wave.open(self.path("t.wav"), "rb") as w:
            self.rate = w.getframerate()
            self.pcm = array.array("h", w.readframes(w.getnframes()))

    def test_files_written(self):
        self.assertEqual(sorted(os.listdir(self.tmp)),
                         ["t.chapters.json", "t.json", "t.srt", "t.transcript.json", "t.txt", "t.vtt", "t.wav"])

    def test_cues_ordered_non_overlapping_within_audio(self):
        self.assertGreaterEqual(len(self.cues), 7)
        last_end = 0
        for start, end, _ in self.cues:
            self.assertLess(start, end)
            self.assertGreaterEqual(start, last_end)
            last_end = end
        self.assertLessEqual(last_end, self.side["duration_ms"])

    def test_cue_starts_are_speech_onsets(self):
        rate, pcm = self.rate, self.pcm
        prev_end = 0
        for start, end, text in self.cues:
            s = start * rate // 1000
            window = pcm[s:s + rate * 30 // 1000]
            rms = (sum(x * x for x in window) / len(window)) ** 0.5
            self.assertGreater(rms, 200, f"no speech right after cue start {start} ms: {text}")
            if start - prev_end >= 100:
                # a cue after a pause: the pause is silence right up to the cue start
                gap = pcm[(prev_end + 1) * rate // 1000: s - 1]   # cue times are whole ms, rounded down
                self.assertEqual(max(abs(x) for x in gap), 0, f"sound inside the pause before {text}")
            prev_end = end
        # and the last voiced sample of the episode is inside the last cue
        last_sound = max(i for i in range(len(pcm) - 1, len(pcm) - rate, -1) if pcm[i] != 0)
        self.assertLessEqual(last_sound * 1000 // rate, self.cues[-1][1])

    def test_speakers_and_escaping(self):
        self.assertIn("<v Host>Good morning.", self.vtt)
        self.assertIn("<v Guest>Thanks!", self.vtt)
        self.assertIn("I am the guest &amp; I like &lt;angle&gt; brackets.", self.vtt)
        for _, _, text in self.cues:
            self.assertLessEqual(len(re.sub(r"<v [^>]*>", "", text)), 70)

    def test_ffmpeg_reads_the_same_cues(self):
        """ffmpeg's WebVTT demuxer re-reads our file; its SRT output must carry our times."""
        srt = subprocess.run(["ffmpeg", "-v", "error", "-i", self.path("t.vtt"), "-f", "srt", "-"],
                             capture_output=True, text=True, check=True).stdout
        times = re.findall(r"(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)", srt)
        self.assertEqual([(ms(*t[:4]), ms(*t[4:])) for t in times], [(a, b) for a, b, _ in self.cues])

    def test_srt_and_json_agree_with_vtt(self):
        with open(self.path("t.srt"), encoding="utf-8") as f:
            srt = f.read()
        times = re.findall(r"(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)", srt)
        self.assertEqual([(ms(*t[:4]), ms(*t[4:])) for t in times], [(a, b) for a, b, _ in self.cues])
        with open(self.path("t.transcript.json"), encoding="utf-8") as f:
            tj = json.load(f)
        self.assertEqual(tj["version"], "1.0.0")
        self.assertEqual([(round(s["startTime"] * 1000), round(s["endTime"] * 1000)) for s in tj["segments"]],
                         [(a, b) for a, b, _ in self.cues])
        self.assertEqual(tj["segments"][0]["speaker"], "Host")

    def test_json_chapters_agree_with_sidecar(self):
        with open(self.path("t.chapters.json"), encoding="utf-8") as f:
            chapters = json.load(f)
        self.assertEqual(chapters["version"], "1.2.0")
        self.assertEqual([(round(c["startTime"] * 1000), c["title"]) for c in chapters["chapters"]],
                         [(c["start_ms"], c["title"]) for c in self.side["chapters"]])
        times = [c["startTime"] for c in chapters["chapters"]]
        self.assertEqual(times, sorted(times))

    def test_stale_chapters_file_is_removed(self):
        write(self.path("t.txt"), "---\ntitle: No chapters now\n---\nJust text.\n")
        res = run([self.path("t.txt"), "-o", self.path("t.wav")])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertFalse(os.path.exists(self.path("t.chapters.json")))

    def test_no_input_is_removed_as_stale(self):
        """The script itself named ep.chapters.json, or a file of someone else's there, is never
        taken for a stale chapters file: only one we wrote is removed."""
        script = "---\ntitle: No headings\n---\nJust text.\n"
        write(self.path("ep.chapters.json"), script)
        res = run([self.path("ep.chapters.json"), "-o", self.path("ep.mp3"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("ep.chapters.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), script)
        write(self.path("own.chapters.json"), '{"mine": true}\n')
        write(self.path("own.txt"), script)
        res = run([self.path("own.txt"), "-o", self.path("own.mp3"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("own.chapters.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), '{"mine": true}\n')

    def test_no_output_replaces_an_input(self):
        """A lexicon named like the sidecar, or a voice profile hard-linked where the transcript
        goes: refused (exit 2), both intact, nothing written."""
        lexicon = "NCCL = nickel\n"
        write(self.path("ep.json"), lexicon)
        write(self.path("ep.txt"), "---\ntitle: T\nlexicon: ep.json\n---\nNCCL here.\n")
        res = run([self.path("ep.txt"), "-o", self.path("ep.mp3"), "-q"])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("would overwrite", res.stderr)
        with open(self.path("ep.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), lexicon)
        self.assertFalse(os.path.exists(self.path("ep.mp3")))
        os.mkdir(self.path("voices"))
        profile = "voice = en-us\nspeaker = Host\n"
        write(self.path("voices", "host.voice"), profile)
        write(self.path("two.txt"), "---\ntitle: T\n---\nHello.\n")
        os.link(self.path("voices", "host.voice"), self.path("two.vtt"))
        res = run([self.path("two.txt"), "-o", self.path("two.mp3"), "--voices", self.path("voices"), "-q"])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("host.voice, which the episode is made from", res.stderr)
        with open(self.path("voices", "host.voice"), encoding="utf-8") as f:
            self.assertEqual(f.read(), profile)


if __name__ == "__main__":
    main()
