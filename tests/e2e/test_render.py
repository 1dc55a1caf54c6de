# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: scripts become MP3/WAV files whose length, tags, chapters and pauses are
judged by ffmpeg, mpg123, mutagen and python's wave module, never by our own reader."""
import array
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
import wave

from common import (BIN, SRC, Case, ffmpeg_samples, ffmpeg_pcm, ffprobe, listing, main,
                    mpg123_samples, mutagen_tags, run, runs_of_zeros, wait_until_stoppable, write)

SAMPLE = os.path.join(SRC, "samples", "weekly-briefing.txt")

HEAD = "---\ntitle: Test\n---\n"


def iso(seconds):
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    if h:
        return f"PT{h}H{m}M{s}S"
    if m:
        return f"PT{m}M{s}S"
    return f"PT{s}S"


def wav_samples(path):
    with wave.open(path, "rb") as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2
        data = array.array("h", w.readframes(w.getnframes()))
        return w.getframerate(), data


class SampleEpisode(Case):
    """The sample episode, rendered once, judged from every side."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.dir = tempfile.mkdtemp(prefix="re-sample-")
        cls.mp3 = os.path.join(cls.dir, "ep.mp3")
        cls.res = run([SAMPLE, "-o", cls.mp3])
        with open(os.path.join(cls.dir, "ep.json"), encoding="utf-8") as f:
            cls.sidecar_text = f.read()
        cls.sidecar = json.loads(cls.sidecar_text)

    def test_exit_and_summary_line(self):
        self.assertEqual(self.res.returncode, 0, self.res.stderr)
        self.assertEqual(listing(self.dir), ["ep.chapters.json", "ep.json", "ep.mp3", "ep.vtt"])
        s = self.sidecar
        ms = s["duration_ms"]
        self.assertRegex(self.res.stdout, re.escape(self.mp3) + r": " + s["duration"]
                         + rf", {ms // 1000}\.{ms % 1000:03d} s, " + str(s["bytes"])
                         + r" bytes, -?\d+\.\d LUFS, -?\d+\.\d dBTP\n")
        self.assertEqual(self.res.stderr, "")   # not a terminal: no progress line

    def test_decoders_return_exact_sample_count(self):
        n = self.sidecar["samples"]
        self.assertGreater(n, 22050 * 20)
        self.assertEqual(ffmpeg_samples(self.mp3), n)
        self.assertEqual(mpg123_samples(self.mp3), n)

    def test_stream_is_mono_64k_at_engine_rate(self):
        info = ffprobe(self.mp3, "-show_streams")["streams"][0]
        self.assertEqual(info["codec_name"], "mp3")
        self.assertEqual(info["channels"], 1)
        self.assertEqual(int(info["sample_rate"]), self.sidecar["sample_rate"])
        self.assertEqual(int(info["bit_rate"]), 64000)

    def test_sidecar_follows_the_duration_rule(self):
        s = self.sidecar
        n, rate = s["samples"], s["sample_rate"]
        self.assertEqual(rate, 22050)
        self.assertEqual(s["duration_ms"], n * 1000 // rate)
        self.assertEqual(s["duration"], iso((2 * n + rate) // (2 * rate)))
        self.assertEqual(s["bytes"], os.path.getsize(self.mp3))
        self.assertEqual(s["title"], "Weekly Briefing – Exact Durations & Café Chapters")
        self.assertEqual(s["published"], "2026-11-30T09:00:00Z")
        self.assertEqual(s["episode"], 1)
        self.assertEqual([v["name"] for v in s["voices"]], ["host", "guest"])
        self.assertIn("render-episode", s["generator"])
        # reproducible: no paths, no render time
        self.assertNotIn(self.dir, self.sidecar_text)
        self.assertNotIn(SRC, self.sidecar_text)
        self.assertEqual(list(s.keys()), [
            "title", "show", "published", "summary", "author", "language", "episode", "season",
            "guid", "duration", "duration_ms", "samples", "sample_rate", "bytes", "format",
            "chapters", "loudness", "voices", "engine", "encoder", "generator", "inputs_sha256",
            "files"])   # no render time
        # every other file this render wrote, with what sha256sum-like tools say of it
        names = [f["name"] for f in s["files"]]
        self.assertEqual(names[0], os.path.basename(self.mp3))
        for f in s["files"]:
            with open(os.path.join(os.path.dirname(self.mp3), f["name"]), "rb") as fh:
                data = fh.read()
            self.assertEqual((f["bytes"], f["sha256"]), (len(data), hashlib.sha256(data).hexdigest()))

    def test_id3_tags_read_back_by_mutagen(self):
        t = mutagen_tags(self.mp3)
        self.assertEqual(t["version"][:2], [2, 3])
        self.assertEqual(t["TIT2"], "Weekly Briefing – Exact Durations & Café Chapters")
        self.assertEqual(t["TIT2.encoding"], 1)   # UTF-16
        self.assertEqual(t["TPE1"], "The render-episode team")
        self.assertEqual(t["TALB"], "render-episode Weekly")
        self.assertEqual(t["TCON"], "Podcast")
        self.assertEqual(int(t["TLEN"]), self.sidecar["duration_ms"])
        self.assertEqual(t["TRCK"], "1")    # the script's `episode: 1`
        self.assertEqual(ffprobe(self.mp3, "-show_format")["format"]["tags"]["track"], "1")
        self.assertTrue(t["COMM"].startswith("What changed in render-episode"))
        self.assertIn("render-episode", t["TSSE"])
        self.assertIn("LAME", t["TSSE"])
        # mutagen rebuilds TDRC from the v2.3 TYER + TDAT + TIME frames: all three are right
        self.assertEqual(t["TDRC"], "2026-11-30 09:00:00")
        with open(self.mp3, "rb") as f:
            f.seek(-128, os.SEEK_END)
            self.assertNotEqual(f.read(3), b"TAG")   # no ID3v1

    def test_chapters_agree_everywhere(self):
        chapters = ffprobe(self.mp3, "-show_chapters")["chapters"]
        side = self.sidecar["chapters"]
        self.assertEqual([c["title"] for c in side], ["Welcome", "The core pipeline", "Wrapping up"])
        self.assertEqual(len(chapters), 3)
        for probe, ours in zip(chapters, side):
            self.assertEqual(probe["tags"]["title"], ours["title"])
            self.assertEqual(round(float(probe["start_time"]) * 1000), ours["start_ms"])
            self.assertEqual(round(float(probe["end_time"]) * 1000), ours["end_ms"])
        self.assertEqual(side[0]["start_ms"], 0)
        self.assertEqual(side[-1]["end_ms"], self.sidecar["duration_ms"])
        t = mutagen_tags(self.mp3)
        self.assertEqual(len(t["CTOC"]), 1)
        self.assertEqual(t["CTOC"][0]["children"], [c["id"] for c in t["CHAP"]])
        self.assertEqual(t["CTOC"][0]["flags"], 3)   # mutagen's CTOCFlags: TOP_LEVEL | ORDERED
        self.assertEqual([c["start"] for c in t["CHAP"]], [c["start_ms"] for c in side])

    def test_rendering_twice_gives_identical_bytes(self):
        again = os.path.join(self.dir, "again")
        os.mkdir(again)
        res = run([SAMPLE, "-o", os.path.join(again, "ep.mp3"), "--jobs", "1"])
        self.assertEqual(res.returncode, 0, res.stderr)
        for name in ("ep.mp3", "ep.json", "ep.vtt", "ep.chapters.json"):
            with open(os.path.join(self.dir, name), "rb") as a, open(os.path.join(again, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name + " differs between renders")


class ExactNumbers(Case):
    """Every number the program writes about time equals one derived here from the audio alone,
    exactly: chapter starts are the speech onsets of the paragraphs that follow the headings
    (found as the ends of the paragraph pauses in a WAV render), TLEN and duration_ms are the
    decoded sample count in whole milliseconds rounded down. No tolerance."""

    SCRIPT = ("---\ntitle: Exact\n---\n# One\n\nFirst paragraph. It has two sentences.\n\n"
              "Second paragraph here.\n\n# Two\n\nThird paragraph, after a heading.\n\n"
              "# Three\n\nFourth and last.\n")
    FIRST_PARAGRAPH_OF_CHAPTER = [0, 2, 3]

    def test_chapters_tlen_and_duration_exact(self):
        script = write(self.path("e.txt"), self.SCRIPT)
        wav, mp3 = self.path("e.wav"), self.path("e.mp3")
        for out in (wav, mp3):
            res = run([script, "-o", out, "--loudness", "off"])
            self.assertEqual(res.returncode, 0, res.stderr)
        rate, data = wav_samples(wav)
        # The host profile's paragraph pause is 750 ms and its sentence pause 350 ms: a silence of
        # 600 ms or more is a paragraph boundary, and the sample after it a paragraph's onset.
        onsets = [0] + [start + length for start, length in runs_of_zeros(data, rate * 6 // 10)
                        if start + length < len(data)]
        self.assertEqual(len(onsets), 4, onsets)
        samples = ffmpeg_samples(mp3)
        self.assertEqual(samples, len(data))
        expected_ms = [onsets[k] * 1000 // rate for k in self.FIRST_PARAGRAPH_OF_CHAPTER]
        duration_ms = samples * 1000 // rate
        with open(self.path("e.json"), encoding="utf-8") as f:
            side = json.load(f)
        self.assertEqual(side["duration_ms"], duration_ms)
        self.assertEqual([c["start_ms"] for c in side["chapters"]], expected_ms)
        self.assertEqual([c["end_ms"] for c in side["chapters"]], expected_ms[1:] + [duration_ms])
        t = mutagen_tags(mp3)
        self.assertEqual(int(t["TLEN"]), duration_ms)
        self.assertNotIn("TRCK", t)         # no `episode:`, no track number
        self.assertEqual([c["start"] for c in t["CHAP"]], expected_ms)
        probe = ffprobe(mp3, "-show_chapters")["chapters"]
        self.assertEqual([round(float(c["start_time"]) * 1000) for c in probe], expected_ms)
        self.assertEqual([round(float(c["end_time"]) * 1000) for c in probe], expected_ms[1:] + [duration_ms])
        with open(self.path("e.chapters.json"), encoding="utf-8") as f:
            podcast = json.load(f)
        self.assertEqual([round(c["startTime"] * 1000) for c in podcast["chapters"]], expected_ms)


    def test_audio_before_the_first_heading_belongs_to_the_first_chapter(self):
        """An introduction before the first heading is in the first chapter, which starts at
        0:00 in the sidecar, the CHAP frames (mutagen), ffprobe and the chapters JSON."""
        script = write(self.path("i.txt"), "---\ntitle: Intro\n---\nAn introduction first.\n\n"
                       "# One\n\nThe first chapter.\n\n# Two\n\nThe second chapter.\n")
        wav, mp3 = self.path("i.wav"), self.path("i.mp3")
        for out in (wav, mp3):
            res = run([script, "-o", out, "--loudness", "off"])
            self.assertEqual(res.returncode, 0, res.stderr)
        rate, data = wav_samples(wav)
        onsets = [start + length for start, length in runs_of_zeros(data, rate * 6 // 10)
                  if start + length < len(data)]
        self.assertEqual(len(onsets), 2, onsets)      # "The first chapter.", "The second chapter."
        duration_ms = ffmpeg_samples(mp3) * 1000 // rate
        expected = [(0, onsets[1] * 1000 // rate), (onsets[1] * 1000 // rate, duration_ms)]
        with open(self.path("i.json"), encoding="utf-8") as f:
            side = json.load(f)
        self.assertEqual([(c["title"], c["start_ms"], c["end_ms"]) for c in side["chapters"]],
                         [("One",) + expected[0], ("Two",) + expected[1]])
        t = mutagen_tags(mp3)
        self.assertEqual([(c["start"], c["end"]) for c in t["CHAP"]], expected)
        probe = ffprobe(mp3, "-show_chapters")["chapters"]
        self.assertEqual([(round(float(c["start_time"]) * 1000), round(float(c["end_time"]) * 1000))
                          for c in probe], expected)
        with open(self.path("i.chapters.json"), encoding="utf-8") as f:
            self.assertEqual([c["startTime"] for c in json.load(f)["chapters"]],
                             [0, expected[1][0] / 1000])


class Pauses(Case):
    """Every pause is exact silence, measured in the decoded WAV by python's wave module."""

    def render_wav(self, body, voices=None):
        script = write(self.path("p.txt"), HEAD + body)
        out = self.path("p.wav")
        args = [script, "-o", out]
        if voices:
            args += ["--voices", voices]
        res = run(args)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("p.json"), encoding="utf-8") as f:
            side = json.load(f)
        rate, data = wav_samples(out)
        self.assertEqual(len(data), side["samples"])
        self.assertEqual(rate, side["sample_rate"])
        return rate, data

    def test_inline_pause_is_exact(self):
        rate, data = self.render_wav("One. [pause 1234ms] Two.\n")
        gaps = [n for _, n in runs_of_zeros(data, rate // 10)]
        self.assertIn(round(1.234 * rate), gaps)
        self.assertNotEqual(data[0], 0)      # starts with sound, no engine padding
        self.assertNotEqual(data[-1], 0)     # ends with sound

    def test_paragraph_and_sentence_pauses_follow_the_profile(self):
        vdir = self.path("voices")
        os.mkdir(vdir)
        write(os.path.join(vdir, "host.voice"),
              "voice = en-us\nsentence_pause = 420\nparagraph_pause = 1100\n")
        rate, data = self.render_wav("First sentence here. Second sentence here.\n\nNew paragraph.\n", vdir)
        gaps = [n for _, n in runs_of_zeros(data, rate // 5)]
        self.assertEqual(gaps, [round(0.42 * rate), round(1.1 * rate)])

    def test_pause_on_its_own_line_replaces_the_paragraph_pause(self):
        rate, data = self.render_wav("Before.\n\n[pause 2s]\n\nAfter.\n")
        gaps = [n for _, n in runs_of_zeros(data, rate // 2)]
        self.assertEqual(gaps, [2 * rate])

    def test_wav_output_matches_sox(self):
        self.render_wav("Short and sweet.\n")
        soxi = subprocess.run(["soxi", "-s", self.path("p.wav")], capture_output=True, text=True, check=True)
        with open(self.path("p.json"), encoding="utf-8") as f:
            self.assertEqual(int(soxi.stdout), json.load(f)["samples"])


class BadInput(Case):
    """Each bad input: exit 2, FILE:LINE:COL on stderr, nothing written, old output intact."""

    CASES = [
        # (script bytes, expected "LINE:COL", words in the message)
        (b"no front matter\n", "1:1", "front matter"),
        (b"---\ntitel: x\n---\nHello.\n", "2:1", "titel"),
        (b"---\nsummary: s\n---\nHello.\n", None, "title"),
        (b"---\ntitle: t\n---\nHello [pause 11min] there.\n", "4:7", "pause"),
        (b"---\ntitle: t\n---\nHello [pause 0ms] there.\n", "4:7", "pause"),
        (b"---\ntitle: t\n---\nHello [pause abc] there.\n", "4:7", "pause"),
        (b"---\ntitle: t\n---\n[voice nobody] Hello.\n", "4:", "nobody"),
        (b"---\ntitle: t\n---\nHello \xff there.\n", "4:7", "UTF-8"),
        (b"---\ntitle: t\n---\nHello \x01 there.\n", "4:7", "control"),
        (b"---\ntitle: t\n---\n// only a comment\n", None, "spoken"),
        (b"---\ntitle: t\npublished: 2023-02-29\n---\nHi.\n", "3:", "published"),
    ]

    def test_each_bad_input(self):
        for i, (text, where, word) in enumerate(self.CASES):
            with self.subTest(case=i, text=text[:40]):
                folder = self.path(f"case{i}")
                os.mkdir(folder)
                script = write(os.path.join(folder, "s.txt"), text, "wb")
                out = os.path.join(folder, "s.mp3")
                res = run([script, "-o", out])
                self.assertEqual(res.returncode, 2, res.stderr)
                if where:
                    self.assertIn(f"{script}:{where}", res.stderr)
                else:
                    self.assertIn(f"{script}:", res.stderr)
                self.assertRegex(res.stderr.lower(), re.escape(word.lower()))
                self.assertEqual(listing(folder), ["s.txt"])

    def test_existing_output_survives_a_failed_render(self):
        out = write(self.path("ep.mp3"), "yesterday's episode")
        write(self.path("ep.json"), "yesterday's sidecar")
        # (an engine crash is tested the same way in test_long_tokens.py, with an injected abort)
        script = write(self.path("bad.txt"), HEAD + "Fine.\n\nThen [pause 11min] this.\n")
        res = run([script, "-o", out])
        self.assertEqual(res.returncode, 2)
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "yesterday's episode")
        with open(self.path("ep.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "yesterday's sidecar")
        self.assertEqual(listing(self.tmp), ["bad.txt", "ep.json", "ep.mp3"])

    def test_output_problems(self):
        script = write(self.path("ok.txt"), HEAD + "Fine.\n")
        res = run([script, "-o", self.path("missing", "ep.mp3")])
        self.assertEqual(res.returncode, 2)
        self.assertIn("missing", res.stderr)
        os.mkdir(self.path("dir.mp3"))
        res = run([script, "-o", self.path("dir.mp3")])
        self.assertEqual(res.returncode, 2)
        self.assertIn("directory", res.stderr)
        same = write(self.path("same.wav"), HEAD + "Fine.\n")
        res = run([same, "-o", same])
        self.assertEqual(res.returncode, 2)
        with open(same, encoding="utf-8") as f:
            self.assertEqual(f.read(), HEAD + "Fine.\n")
        self.assertEqual(listing(self.tmp), ["dir.mp3", "ok.txt", "same.wav"])

    def test_no_output_may_replace_the_script(self):
        script = write(self.path("notes.md"), HEAD + "Fine.\n")
        res = run([script, "-o", self.path("notes.mp3"), "--page-md"])  # notes.md would be the page
        self.assertEqual(res.returncode, 2)
        self.assertIn("overwrite the script", res.stderr)
        with open(script, encoding="utf-8") as f:
            self.assertEqual(f.read(), HEAD + "Fine.\n")
        self.assertEqual(listing(self.tmp), ["notes.md"])

    def test_text_without_sound_is_an_error(self):
        script = write(self.path("dots.txt"), HEAD + "...\n\n[pause 1s]\n\n…\n")
        res = run([script, "-o", self.path("dots.mp3")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("dots.txt:4:1:", res.stderr)
        self.assertEqual(listing(self.tmp), ["dots.txt"])

    def test_missing_script_and_directory(self):
        res = run([self.path("nope.txt"), "-o", self.path("x.mp3")])
        self.assertEqual(res.returncode, 2)
        self.assertIn("nope.txt", res.stderr)
        res = run([self.tmp, "-o", self.path("x.mp3")])
        self.assertEqual(res.returncode, 2)
        self.assertEqual(listing(self.tmp), [])


class Cli(Case):
    def test_help_version_usage(self):
        res = run(["--help"])
        self.assertEqual(res.returncode, 0)
        self.assertIn("usage:", res.stdout)
        res = run(["--version"])
        self.assertEqual(res.returncode, 0)
        self.assertRegex(res.stdout, r"^render-episode \d+\.\d+\.\d+")
        self.assertEqual(run(["--frobnicate"]).returncode, 1)
        self.assertEqual(run([]).returncode, 1)
        res = run([SAMPLE, "--bitrate", "12abc"])
        self.assertEqual(res.returncode, 1)
        self.assertIn("--bitrate", res.stderr)
        res = run([SAMPLE, "-o", self.path("x.ogg")])
        self.assertEqual(res.returncode, 1)

    def test_render_subcommand_is_the_default_command(self):
        """`render-episode render SCRIPT` and `render-episode SCRIPT` write the same bytes; the
        default output name sits beside the script."""
        script = write(self.path("sub.txt"), HEAD + "Said once, rendered twice.\n")
        res = run(["render", script, "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        first = self.path("sub.mp3")
        with open(self.path("sub.json"), encoding="utf-8") as f:
            self.assertEqual(ffmpeg_samples(first), json.load(f)["samples"])
        res = run([script, "-o", self.path("plain.mp3"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(first, "rb") as a, open(self.path("plain.mp3"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_bitrate_too_low_for_the_lame_tag_is_refused(self):
        res = run([SAMPLE, "-o", self.path("x.mp3"), "--bitrate", "48"])
        self.assertEqual(res.returncode, 2)
        self.assertIn("48", res.stderr)
        self.assertEqual(listing(self.tmp), [])

    def test_serial_and_parallel_encoders_agree_on_length_and_tags(self):
        paragraphs = "\n\n".join(f"Paragraph {i} is long enough to make several encoder pieces." for i in range(40))
        script = write(self.path("long.txt"), HEAD + paragraphs + "\n")
        for name, extra in (("par", []), ("ser", ["--serial-encode"])):
            res = run([script, "-o", self.path(name + ".mp3"), *extra])
            self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("par.json"), encoding="utf-8") as a, open(self.path("ser.json"), encoding="utf-8") as b:
            par, ser = json.load(a), json.load(b)
        self.assertGreater(par["samples"], 22050 * 60)        # long enough for parallel pieces
        self.assertEqual(par["samples"], ser["samples"])
        for name in ("par", "ser"):
            self.assertEqual(ffmpeg_samples(self.path(name + ".mp3")), par["samples"])
            self.assertEqual(mpg123_samples(self.path(name + ".mp3")), par["samples"])
        self.assertEqual(mutagen_tags(self.path("par.mp3"))["TLEN"], mutagen_tags(self.path("ser.mp3"))["TLEN"])

    def test_other_bitrate_keeps_exact_length(self):
        script = write(self.path("s.txt"), HEAD + "A short one at a higher bitrate.\n")
        res = run([script, "-o", self.path("s.mp3"), "--bitrate", "128"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("s.json"), encoding="utf-8") as f:
            n = json.load(f)["samples"]
        self.assertEqual(ffmpeg_samples(self.path("s.mp3")), n)
        self.assertEqual(int(ffprobe(self.path("s.mp3"), "-show_streams")["streams"][0]["bit_rate"]), 128000)


class Signals(Case):
    """Ctrl-C and SIGTERM: exit 130/143, no debris, previous output intact, no orphans."""

    def interrupt(self, sig, code):
        paragraphs = "\n\n".join(f"Paragraph number {i} goes on for a while, saying a few things." for i in range(400))
        script = write(self.path("long.txt"), HEAD + paragraphs + "\n")
        out = write(self.path("long.mp3"), "old")
        proc = subprocess.Popen([BIN, script, "-o", out, "--jobs", "2"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        self.assertTrue(wait_until_stoppable(proc), "render finished before it could be interrupted")
        time.sleep(1.0)
        self.assertIsNone(proc.poll(), "render finished before it could be interrupted")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, code, err)
        self.assertIn("interrupted", err)
        self.assertEqual(listing(self.tmp), ["long.mp3", "long.txt"])
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "old")
        time.sleep(0.2)
        ps = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
        self.assertNotIn(script, ps)

    def test_sigkill_leaves_no_debris(self):
        """Even SIGKILL, which nothing can catch, leaves no partial file: outputs have no name
        until they are complete."""
        paragraphs = "\n\n".join(f"Paragraph {i} says a few words, then a few more." for i in range(300))
        script = write(self.path("long.txt"), HEAD + paragraphs + "\n")
        proc = subprocess.Popen([BIN, script, "-o", self.path("long.mp3")], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        proc.kill()
        proc.wait()
        time.sleep(0.3)
        self.assertEqual(listing(self.tmp), ["long.txt"])

    def test_sigint(self):
        self.interrupt(signal.SIGINT, 130)

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM, 143)


if __name__ == "__main__":
    main()
