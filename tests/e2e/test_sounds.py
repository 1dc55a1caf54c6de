# SPDX-License-Identifier: GPL-3.0-or-later
"""Sound inserts, intro and outro (script format 1.1, issue 17), judged by tools we did not write.

The sound files are made by sox (WAV 44.1 kHz stereo, WAV 22050 Hz mono, FLAC 48 kHz, Ogg
Vorbis) and ffmpeg (an MP3). Every render must keep the sample timeline exact with them in it:
ffmpeg and mpg123 decode the sidecar's sample count at 22050 and 44100 Hz, `check` passes on the
MP3 and its page, ffprobe reads the chapters at the sidecar's times; each insert's samples are in
the episode at the sidecar's offset (bit-exact for a file at the episode's rate, within the
resampler's error for another); no cue or chapter starts inside an insert; editing a sound file
renders the episode again without synthesizing anything; and the bytes are the same for -j1 and
-j2, cold or warm cache."""
import filecmp
import json
import os
import re
import shutil
import signal
import subprocess
import wave

from common import BIN, SRC, Case, ffmpeg_samples, ffprobe, main, mpg123_samples, run, write

SCRIPT = """---
title: Produced
show: Sound tests
intro: sounds/pad.ogg
intro_overlap: 0.4s
outro: sounds/chime.wav
---
# Opening

Welcome to the produced briefing. Two things changed.

# Tools

[sound sounds/tick.wav]

The first change is in the tools. [sound sounds/sting.flac 0.2s] And that was a cut sting.

# Close

[sound sounds/jingle.mp3]

That's all for this week.
"""


def sox(*args):
    subprocess.run(["sox", "-D", *args], check=True, capture_output=True)


def make_sounds(folder):
    """The inputs, each a different format, rate and channel count; -D: no dither, so a sine is a
    sine."""
    os.makedirs(folder, exist_ok=True)
    sox("-n", "-r", "44100", "-c", "2", "-b", "16", os.path.join(folder, "chime.wav"),
        "synth", "0.5", "sine", "440", "vol", "0.4")
    sox("-n", "-r", "22050", "-c", "1", "-b", "16", os.path.join(folder, "tick.wav"),
        "synth", "0.25", "sine", "1000", "vol", "0.3", "fade", "0", "0.25", "0.1")
    sox("-n", "-r", "48000", "-c", "1", os.path.join(folder, "sting.flac"),
        "synth", "0.5", "square", "220", "vol", "0.2")
    sox("-n", "-r", "44100", "-c", "2", os.path.join(folder, "pad.ogg"),
        "synth", "1.2", "sine", "330", "vol", "0.2")
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                    "sine=frequency=660:duration=0.3:sample_rate=44100", "-ac", "1",
                    "-c:a", "libmp3lame", "-b:a", "64k", os.path.join(folder, "jingle.mp3")],
                   check=True, capture_output=True)


def wav_samples(path):
    """(channels, rate, interleaved int16 samples) as python's wave module reads the file."""
    with wave.open(path) as w:
        channels, rate, n = w.getnchannels(), w.getframerate(), w.getnframes()
        data = w.readframes(n)
    return channels, rate, [int.from_bytes(data[i:i + 2], "little", signed=True)
                            for i in range(0, len(data), 2)]


def vtt_starts_ms(path):
    starts = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"(\d+):(\d\d):(\d\d)\.(\d{3}) -->", line)
            if m:
                h, mi, s, ms = map(int, m.groups())
                starts.append(((h * 60 + mi) * 60 + s) * 1000 + ms)
    return starts


class Sounds(Case):
    def setUp(self):
        super().setUp()
        self.folder = self.path("show")
        make_sounds(os.path.join(self.folder, "sounds"))
        self.script = write(os.path.join(self.folder, "ep.txt"), SCRIPT)

    def render(self, out, *extra):
        res = run([self.script, "-o", out, "--cache", self.path("cache"), "-q", *extra])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.splitext(out)[0] + ".json", encoding="utf-8") as f:
            return json.load(f)

    def check_inserts_listed(self, side, rate):
        inserts = side["inserts"]
        self.assertEqual([(i["kind"], i["file"]) for i in inserts],
                         [("intro", "sounds/pad.ogg"), ("sound", "sounds/tick.wav"),
                          ("sound", "sounds/sting.flac"), ("sound", "sounds/jingle.mp3"),
                          ("outro", "sounds/chime.wav")])
        for item in inserts:
            digest = subprocess.run(["sha256sum", os.path.join(self.folder, item["file"])],
                                    capture_output=True, text=True, check=True).stdout.split()[0]
            self.assertEqual(item["sha256"], digest, item["file"])
        # lengths: the file's own length at the episode's rate (rounded half up), as sox counts
        # it (ffmpeg 5's Vorbis decoder ignores the stream's end trim), or ffmpeg for the MP3
        # (sox has no MP3 reader here); the cut sting: its cut
        for item in inserts:
            path = os.path.join(self.folder, item["file"])
            if item["file"] == "sounds/sting.flac":
                want = round(0.2 * rate)
            else:
                source_rate = int(subprocess.run(["soxi", "-r", path], capture_output=True, text=True,
                                                 check=True).stdout) if not path.endswith(".mp3") else 44100
                frames = ffmpeg_samples(path) if path.endswith(".mp3") else int(subprocess.run(
                    ["soxi", "-s", path], capture_output=True, text=True, check=True).stdout)
                want = (frames * rate * 2 + source_rate) // (2 * source_rate)
            self.assertEqual(item["samples"], want, item["file"])
        self.assertEqual(inserts[0]["start"], 0)
        ends = [i["start"] + i["samples"] for i in inserts]
        self.assertEqual(ends[-1], side["samples"])   # the outro ends the episode
        overlap = round(0.4 * rate)   # intro_overlap: the next audio starts under the intro
        for a, b in zip(inserts, inserts[1:]):
            self.assertLessEqual(a["start"] + a["samples"] - (overlap if a["kind"] == "intro" else 0),
                                 b["start"], (a, b))

    def test_mp3_at_two_rates(self):
        for rate in (22050, 44100):
            with self.subTest(rate=rate):
                out = self.path(f"ep{rate}.mp3")
                side = self.render(out, "-r", str(rate), "--page")
                self.assertEqual(side["sample_rate"], rate)
                self.check_inserts_listed(side, rate)
                self.assertEqual(ffmpeg_samples(out), side["samples"])
                self.assertEqual(mpg123_samples(out), side["samples"])
                probe = ffprobe(out, "-show_streams", "-show_chapters")
                self.assertEqual(int(probe["streams"][0]["sample_rate"]), rate)
                chapters = probe["chapters"]
                self.assertEqual([c["tags"]["title"] for c in chapters], ["Opening", "Tools", "Close"])
                self.assertEqual([round(float(c["start_time"]) * 1000) for c in chapters],
                                 [c["start_ms"] for c in side["chapters"]])
                # a heading right before a [sound] starts at the sound
                by_file = {i["file"]: i for i in side["inserts"]}
                for title, file in (("Tools", "sounds/tick.wav"), ("Close", "sounds/jingle.mp3")):
                    chapter = next(c for c in side["chapters"] if c["title"] == title)
                    self.assertEqual(chapter["start_ms"], by_file[file]["start_ms"])
                check = run(["check", out, self.path(f"ep{rate}.html")])
                self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
                self.assertRegex(check.stdout, r"0 MISMATCH")

    def test_cues_and_chapters_never_inside_an_insert(self):
        out = self.path("cues.mp3")
        side = self.render(out)
        rate = side["sample_rate"]
        cues = vtt_starts_ms(self.path("cues.vtt"))
        self.assertGreater(len(cues), 3)
        overlap_ms = 400
        for item in side["inserts"]:
            first = item["start"] * 1000 / rate
            last = (item["start"] + item["samples"]) * 1000 / rate
            if item["kind"] == "intro":   # speech starts over its tail, by design
                last -= overlap_ms
            for t in cues:
                self.assertFalse(first + 1 < t < last - 1, f"cue at {t} ms inside {item}")
            for c in side["chapters"]:
                self.assertFalse(first + 1 < c["start_ms"] < last - 1, f"{c} inside {item}")
        # speech starts exactly intro_overlap before the intro ends (first cue, to the ms)
        intro = side["inserts"][0]
        self.assertAlmostEqual(cues[0], (intro["samples"] * 1000 / rate) - overlap_ms, delta=1.5)

    def test_intro_overlap_at_its_edge(self):
        """The documented edge: an intro_overlap equal to the intro's length is allowed (the
        speech starts with the intro's first sample); one sample's worth more is an error at
        the intro_overlap value, nothing written."""
        sox("-n", "-r", "22050", "-c", "1", "-b", "16", os.path.join(self.folder, "sounds", "half.wav"),
            "synth", "0.5", "sine", "300", "vol", "0.2")
        write(self.script, "---\ntitle: Edge\nintro: sounds/half.wav\nintro_overlap: 500ms\n---\nHi.\n")
        out = self.path("edge.mp3")
        side = self.render(out)
        intro = side["inserts"][0]
        self.assertEqual((intro["kind"], intro["start"], intro["samples"]), ("intro", 0, 11025))
        self.assertEqual(ffmpeg_samples(out), side["samples"])
        write(self.script, "---\ntitle: Edge\nintro: sounds/half.wav\nintro_overlap: 501ms\n---\nHi.\n")
        res = run([self.script, "-o", self.path("past.mp3"), "--no-cache"])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{self.script}:4:16: intro_overlap (0.501 s) is longer than the intro", res.stderr)
        self.assertFalse(os.path.exists(self.path("past.mp3")))

    def test_outro_after_an_intro_longer_than_the_speech(self):
        """An intro_overlap longer than all the speech: the outro still ends the episode, after
        the intro's last sample (it used to be mixed over the intro's tail, which then went on
        after it). ffmpeg's count and check agree with the sidecar."""
        sox("-n", "-r", "22050", "-c", "1", "-b", "16", os.path.join(self.folder, "sounds", "long.wav"),
            "synth", "6", "sine", "300", "vol", "0.2")
        write(self.script, "---\ntitle: Long intro\nintro: sounds/long.wav\nintro_overlap: 5.9s\n"
              "outro: sounds/chime.wav\n---\n# Only\n\nHi.\n")
        out = self.path("long.mp3")
        side = self.render(out, "--page")
        intro, outro = side["inserts"]
        self.assertEqual((intro["kind"], outro["kind"]), ("intro", "outro"))
        self.assertEqual(intro["samples"], 6 * 22050)
        self.assertEqual(outro["start"], intro["samples"])
        self.assertEqual(outro["start"] + outro["samples"], side["samples"])
        self.assertEqual(ffmpeg_samples(out), side["samples"])
        check = run(["check", out, self.path("long.html")])
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_insert_samples_in_a_wav(self):
        """--loudness off: what the assembler wrote is what the file holds. tick.wav (22050 Hz mono)
        is bit-exact in a 22050 Hz episode, but for its first and last 5 ms where it starts or
        ends louder than the join bound (faded: docs/design.md); chime.wav (44.1 kHz stereo, the same sine on both
        channels) in a 22050 Hz episode matches its own every other sample (the ratio is exactly 2,
        and a 440 Hz sine is far inside the passband) within the resampler's error, away from the
        two ends where its filter's ringing is cut and the declick fade is."""
        out = self.path("pcm.wav")
        side = self.render(out, "--loudness", "off")
        channels, rate, episode = wav_samples(out)
        self.assertEqual((channels, rate), (1, 22050))
        self.assertEqual(len(episode), side["samples"])
        self.assertEqual(ffmpeg_samples(out), side["samples"])
        by_file = {i["file"]: i for i in side["inserts"]}

        _, tick_rate, tick = wav_samples(os.path.join(self.folder, "sounds", "tick.wav"))
        self.assertEqual(tick_rate, 22050)
        at = by_file["sounds/tick.wav"]["start"]
        # bit-exact but for its first and last 5 ms (110 samples), faded where the file starts
        # or ends on a sample louder than 8, so that its joins do not click (docs/design.md)
        fade = 110
        self.assertEqual(episode[at + fade:at + len(tick) - fade], tick[fade:-fade])
        for edge, inside in ((at, at + fade), (at + len(tick) - 1, at + len(tick) - 1 - fade)):
            original = tick[edge - at]
            if abs(original) > 8:
                self.assertLessEqual(abs(episode[edge]), 8)
                self.assertEqual(abs(episode[inside]), abs(tick[inside - at]))
            else:
                self.assertEqual(episode[edge], original)

        ch, chime_rate, chime = wav_samples(os.path.join(self.folder, "sounds", "chime.wav"))
        self.assertEqual((ch, chime_rate), (2, 44100))
        left = chime[0::2]
        self.assertEqual(left, chime[1::2])
        at, n = by_file["sounds/chime.wav"]["start"], by_file["sounds/chime.wav"]["samples"]
        self.assertEqual(n, len(left) // 2)
        errors = [abs(episode[at + k] - left[2 * k]) for k in range(n)]
        self.assertLessEqual(max(errors[fade:-fade]), 2)   # past the ringing and the declick fade
        self.assertGreater(max(abs(x) for x in episode[at:at + n]), 10000)   # it is there

        # the cut sting: 0.2 s of it, faded out to nearly nothing at the cut
        sting = by_file["sounds/sting.flac"]
        tail = episode[sting["start"] + sting["samples"] - 20:sting["start"] + sting["samples"]]
        head = episode[sting["start"]:sting["start"] + 200]
        self.assertLess(max(abs(x) for x in tail), max(abs(x) for x in head) / 10)

    def test_same_bytes_for_any_jobs_and_cache(self):
        outs = []
        for name, jobs, cache in (("cold1", "1", "a"), ("warm2", "2", "a"), ("cold2", "2", "b")):
            out = self.path(name, "ep.mp3")
            os.makedirs(os.path.dirname(out))
            res = run([self.script, "-o", out, "-j", jobs, "--cache", self.path(cache), "-q"])
            self.assertEqual(res.returncode, 0, res.stderr)
            outs.append(out)
        for other in outs[1:]:
            self.assertTrue(filecmp.cmp(outs[0], other, shallow=False), other)
            self.assertTrue(filecmp.cmp(outs[0][:-4] + ".json", other[:-4] + ".json", shallow=False))

    def test_editing_a_sound_renders_again_without_synthesizing(self):
        def batch(tag):
            report = self.path(f"report-{tag}.json")
            res = run(["batch", "-O", self.path("out"), self.folder, "--cache", self.path("cache"),
                       "--report", report, "-q"])
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(report, encoding="utf-8") as f:
                (episode,) = json.load(f)["episodes"]
            return episode

        first = batch("first")
        self.assertEqual(first["status"], "rendered")
        self.assertGreater(first["segments_synthesized"], 0)
        self.assertEqual(batch("again")["status"], "up-to-date")
        with open(self.path("out", "ep.json"), encoding="utf-8") as f:
            before = json.load(f)
        sox("-n", "-r", "22050", "-c", "1", "-b", "16",
            os.path.join(self.folder, "sounds", "tick.wav"), "synth", "0.25", "sine", "1200",
            "vol", "0.3")
        edited = batch("edited")
        self.assertEqual(edited["status"], "rendered")
        self.assertEqual(edited["segments_synthesized"], 0)
        with open(self.path("out", "ep.json"), encoding="utf-8") as f:
            after = json.load(f)
        self.assertNotEqual(before["inputs_sha256"], after["inputs_sha256"])
        tick = [i for i in after["inserts"] if i["file"] == "sounds/tick.wav"][0]
        self.assertNotEqual(tick["sha256"],
                            [i for i in before["inserts"] if i["file"] == "sounds/tick.wav"][0]["sha256"])
        self.assertEqual(ffmpeg_samples(self.path("out", "ep.mp3")), after["samples"])
        self.assertEqual(batch("last")["status"], "up-to-date")

    def test_errors_before_anything_is_spoken(self):
        """A bad sound file is an error at the name that named it, exit 2, nothing written and
        nothing synthesized (the cache stays empty)."""
        os.remove(os.path.join(self.folder, "sounds", "jingle.mp3"))
        with open(os.path.join(self.folder, "sounds", "sting.flac"), "wb") as f:
            f.write(b"not a flac file at all")
        out = self.path("bad", "ep.mp3")
        os.makedirs(os.path.dirname(out))
        res = run([self.script, "-o", out, "--cache", self.path("badcache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{self.script}:16:35: sound file", res.stderr)   # the sting, at its '['
        self.assertRegex(res.stderr, re.escape(self.script) + r":20:1: sound file '.*jingle\.mp3': "
                         r"cannot open: No such file")
        self.assertEqual(os.listdir(self.path("bad")), [])
        cache = self.path("badcache")
        self.assertEqual([f for _, _, fs in os.walk(cache) for f in fs] if os.path.isdir(cache) else [], [])

    def test_allow_path_and_literal(self):
        shared = self.path("shared")
        make_sounds(shared)
        write(self.script, SCRIPT.replace("outro: sounds/chime.wav", "outro: ../shared/chime.wav")
              .replace("That's all", "Write \\[sound x.wav] to play a file. That's all"))
        res = run([self.script, "-o", self.path("no.mp3"), "-q"])
        self.assertEqual(res.returncode, 2)
        self.assertIn("is outside the script's folder", res.stderr)
        side = self.render(self.path("yes.mp3"), "--allow-path", shared)
        self.assertEqual(side["inserts"][-1]["file"], "../shared/chime.wav")
        explain = run(["explain", self.script, "--allow-path", shared])
        self.assertEqual(explain.returncode, 0, explain.stderr)
        self.assertIn("Write [sound x", explain.stdout)   # spoken as text, not played

    def test_ogg_opus(self):
        """Ogg Opus (made by ffmpeg's libopus): its pre-skip and end trim honoured, as ffmpeg
        decodes it, at two rates."""
        opus = os.path.join(self.folder, "sounds", "bell.opus")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "sine=frequency=500:duration=0.5:sample_rate=48000", "-c:a", "libopus",
                        "-b:a", "32k", opus], check=True, capture_output=True)
        frames = ffmpeg_samples(opus)   # at the file's 48 kHz
        write(self.script, "---\ntitle: Opus\n---\nHi. [sound sounds/bell.opus] Bye.\n")
        for rate in (22050, 44100):
            with self.subTest(rate=rate):
                out = self.path(f"opus{rate}.wav")
                side = self.render(out, "-r", str(rate), "--loudness", "off")
                (insert,) = side["inserts"]
                self.assertEqual(insert["samples"], (frames * rate * 2 + 48000) // (2 * 48000))
                _, _, episode = wav_samples(out)
                self.assertEqual(len(episode), side["samples"])
                part = episode[insert["start"]:insert["start"] + insert["samples"]]
                self.assertGreater(max(abs(x) for x in part), 3000)

    def test_limits(self):
        """One file: at most 600 s of its own audio and 1 GiB. All the distinct files of an episode: at
        most 60 minutes together (they are held in memory). Both are errors at the name, before
        anything is spoken. 8 kHz 8-bit files keep the inputs small."""
        sounds = os.path.join(self.folder, "long")
        os.makedirs(sounds)
        sox("-n", "-r", "8000", "-c", "1", "-b", "8", os.path.join(sounds, "over.wav"),
            "synth", "600.5", "sine", "100", "vol", "0.1")
        sox("-n", "-r", "8000", "-c", "1", "-b", "8", os.path.join(sounds, "ten.wav"),
            "synth", "600", "sine", "100", "vol", "0.1")
        for k in range(1, 7):   # copies: another name for one file is loaded (and counted) once
            shutil.copy(os.path.join(sounds, "ten.wav"), os.path.join(sounds, f"ten{k}.wav"))
        os.link(os.path.join(sounds, "ten.wav"), os.path.join(sounds, "hard.wav"))
        write(self.script, "---\ntitle: Long\n---\nHi. [sound long/over.wav] Bye.\n")
        res = run([self.script, "-o", self.path("over.mp3"), "--cache", self.path("cache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{self.script}:4:5: sound file", res.stderr)
        self.assertIn("is longer than 600 seconds", res.stderr)
        names = " ".join(f"[sound long/{name}.wav]"
                         for name in ("ten", "hard", "ten1", "ten2", "ten3", "ten4", "ten5", "ten6"))
        write(self.script, f"---\ntitle: Long\n---\nHi.\n{names}\n")
        res = run([self.script, "-o", self.path("total.mp3"), "--cache", self.path("cache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        col = 1 + names.index("[sound long/ten6.wav]")   # the 7th crosses 60 minutes
        self.assertIn(f"{self.script}:5:{col}: sound file 'long/ten6.wav': the episode's sound "
                      "files would hold more than 60 minutes", res.stderr)
        self.assertFalse(os.path.exists(self.path("total.mp3")))
        self.assertFalse(os.path.isdir(self.path("cache")) and any(os.scandir(self.path("cache"))))
        # a sparse file of 2 GiB (made in an instant, read for many seconds): refused by its
        # size before a byte of it is read
        with open(os.path.join(sounds, "sparse.wav"), "wb") as f:
            f.truncate(2 << 30)
        write(self.script, "---\ntitle: Long\n---\nHi. [sound long/sparse.wav] Bye.\n")
        res = run([self.script, "-o", self.path("sparse.mp3"), "--cache", self.path("cache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{self.script}:4:5: sound file '", res.stderr)
        self.assertIn(f"sparse.wav': is {2 << 30} bytes, more than 1073741824 (1 GiB), the limit "
                      "for a sound file", res.stderr)
        self.assertFalse(os.path.exists(self.path("sparse.mp3")))
        # five distinct files of 1 GiB each (sparse, made in an instant): the fifth passes 4 GiB
        # together, an error at its name (the four are refused as not audio by their headers,
        # before their bytes are read)
        for k in range(5):
            with open(os.path.join(sounds, f"gig{k}.wav"), "wb") as f:
                f.truncate(1 << 30)
        write(self.script, "---\ntitle: Long\n---\nHi.\n"
              + "".join(f"[sound long/gig{k}.wav]\n" for k in range(5)))
        res = run([self.script, "-o", self.path("gigs.mp3"), "--cache", self.path("cache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(res.stderr.count("is not audio that libsndfile reads"), 4, res.stderr)
        self.assertIn(f"{self.script}:9:1: sound file '", res.stderr)
        self.assertIn("gig4.wav': the episode's sound files would be more than 4294967296 bytes "
                      "(4 GiB) together here", res.stderr)
        # one 10-minute file played 73 times is more than 12 hours: an error at the 73rd, before
        # anything is spoken (it used to come after 12 hours of audio were assembled and the
        # speech before it synthesized)
        write(self.script, "---\ntitle: Long\n---\nHi.\n" + "[sound long/ten.wav]\n" * 73)
        res = run([self.script, "-o", self.path("twelve.mp3"), "--cache", self.path("cache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{self.script}:{4 + 73}:1: the sound files and pauses add up to more than "
                      "12 hours here", res.stderr)
        self.assertFalse(os.path.exists(self.path("twelve.mp3")))
        self.assertFalse(os.path.isdir(self.path("cache")) and any(os.scandir(self.path("cache"))))

    def test_limits_at_their_edges(self):
        """The limits of what the sound files of one render may hold and decode, at their exact
        edges: six distinct files of exactly 600 s are exactly 60 minutes, held; they spent 3600
        s of the 4200 s decode budget, so a seventh file may still decode its full 600 s: one of
        600.5 s is refused for its own length, not for the budget (the budget it met was exactly
        one file's limit); that refusal spent the rest, and the next file, however short, is
        the one past the budget. 8 kHz 8-bit files keep the inputs small."""
        sounds = os.path.join(self.folder, "edge")
        os.makedirs(sounds)
        sox("-n", "-r", "8000", "-c", "1", "-b", "8", os.path.join(sounds, "ten0.wav"),
            "synth", "600", "sine", "100", "vol", "0.1")
        for k in range(1, 6):
            shutil.copy(os.path.join(sounds, "ten0.wav"), os.path.join(sounds, f"ten{k}.wav"))
        sox("-n", "-r", "8000", "-c", "1", "-b", "8", os.path.join(sounds, "over.wav"),
            "synth", "600.5", "sine", "100", "vol", "0.1")
        sox("-n", "-r", "8000", "-c", "1", "-b", "8", os.path.join(sounds, "blip.wav"),
            "synth", "0.1", "sine", "100", "vol", "0.1")
        names = "\n".join(f"[sound edge/ten{k}.wav]" for k in range(6))
        # exactly 60 minutes: nothing refused, all six loaded (the render then speaks)
        write(self.script, f"---\ntitle: Edge\n---\nHi.\n{names}\n")
        res = run([self.script, "-o", self.path("sixty.wav"), "--loudness", "off", "--no-cache",
                   "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertGreater(ffmpeg_samples(self.path("sixty.wav")), 3600 * 22050)
        # the seventh and eighth files
        write(self.script, f"---\ntitle: Edge\n---\nHi.\n{names}\n[sound edge/over.wav]\n"
              "[sound edge/blip.wav]\n")
        res = run([self.script, "-o", self.path("past.mp3"), "--no-cache"])
        self.assertEqual(res.returncode, 2, res.stderr)
        lines = [l for l in res.stderr.splitlines() if "sound file" in l]
        self.assertEqual(len(lines), 2, res.stderr)
        self.assertIn(f"{self.script}:11:1: sound file '{sounds}/over.wav': is longer than 600 "
                      "seconds, the limit for a sound file", lines[0])
        self.assertIn(f"{self.script}:12:1: sound file '{sounds}/blip.wav': would make the "
                      "episode's sound files decode more than 4200 seconds of audio together",
                      lines[1])
        self.assertFalse(os.path.exists(self.path("past.mp3")))

    def test_high_rate_file_is_never_held_whole(self):
        """A FLAC of 60 s of silence claiming 655350 Hz is 150 kB (a block of silence takes a few
        bytes) but 39 million frames: it is decoded and resampled a chunk at a time, so the render's
        peak memory (the kernel's maxrss of the process and its children, read by python's
        resource module in a child of its own) stays within 100 MB of the same episode's with a
        1 s file (it was 300 MB more when the file was decoded whole, one float a frame)."""
        for name, seconds in (("short", "1"), ("big", "60")):
            sox("-n", "-r", "655350", "-c", "1", "-b", "16",
                os.path.join(self.folder, "sounds", f"{name}.flac"), "synth", seconds, "sine",
                "100", "vol", "0")
        peaks = {}
        for name in ("short", "big"):
            write(self.script, f"---\ntitle: Rate\n---\nHi. [sound sounds/{name}.flac] Bye.\n")
            out = self.path(f"{name}.mp3")
            measure = ("import resource, subprocess, sys\n"
                       "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
                       "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
            res = subprocess.run(["/usr/bin/python3", "-c", measure, BIN, self.script, "-o", out,
                                  "--no-cache", "-q"], capture_output=True, text=True, check=True,
                                 env=dict(os.environ, XDG_CACHE_HOME=self.path("xdg")))
            code, peak_kb = map(int, res.stdout.split())
            self.assertEqual(code, 0, name)
            peaks[name] = peak_kb
            with open(self.path(f"{name}.json"), encoding="utf-8") as f:
                side = json.load(f)
            self.assertEqual(ffmpeg_samples(out), side["samples"])
        # 60 s at 22050 Hz is 2.6 MB of int16
        self.assertLess(peaks["big"] - peaks["short"], 100 * 1024, peaks)
        (insert,) = side["inserts"]
        self.assertEqual(insert["samples"], 60 * 22050)

    def test_a_signal_stops_the_loading(self):
        """SIGTERM while the sound files are read stops the render there: exit 143, "interrupted",
        nothing written, nothing synthesized, and no file after the one being read (or the
        next) is ever opened (the kernel's /proc/PID/fd shows which are open; it used to read all six, 3 s
        each on this machine, before it looked at the signal)."""
        big = os.path.join(self.folder, "sounds", "big0.flac")
        sox("-n", "-r", "655350", "-c", "1", "-b", "16", big, "synth", "120", "sine", "100",
            "vol", "0.001")
        names = [f"big{k}.flac" for k in range(6)]
        for name in names[1:]:
            shutil.copy(big, os.path.join(self.folder, "sounds", name))
        write(self.script, "---\ntitle: Stop\n---\nHi.\n"
              + "".join(f"[sound sounds/{name}]\n" for name in names))
        out = self.path("stop", "ep.mp3")
        os.makedirs(os.path.dirname(out))
        proc = subprocess.Popen([BIN, self.script, "-o", out, "--cache", self.path("stopcache"), "-q"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, XDG_CACHE_HOME=self.path("xdg")))

        def open_sounds():
            seen = set()
            try:
                for fd in os.listdir(f"/proc/{proc.pid}/fd"):
                    target = os.readlink(f"/proc/{proc.pid}/fd/{fd}")
                    if os.path.basename(target) in names:
                        seen.add(os.path.basename(target))
            except OSError:   # it ended, or the fd closed while listed
                pass
            return seen

        seen = set()
        while not seen and proc.poll() is None:
            seen = open_sounds()
        self.assertIsNone(proc.poll(), "it ended before reading a sound file")
        proc.send_signal(signal.SIGTERM)
        while proc.poll() is None:
            seen |= open_sounds()
        stderr = proc.stderr.read()
        proc.wait()
        self.assertEqual(proc.returncode, 143, stderr)
        self.assertIn("interrupted", stderr)
        # the one being read when the signal came (or, when it came as that one closed, the
        # next, which stops at its first chunk)
        self.assertLessEqual(len(seen), 2, seen)
        self.assertEqual(os.listdir(self.path("stop")), [])
        cache = self.path("stopcache")
        self.assertFalse(os.path.isdir(cache) and any(f for _, _, f in os.walk(cache)))

    def test_length_is_what_decodes_not_what_the_header_claims(self):
        """The first 40 kB of a 700 s MP3 (as a download cut short leaves it: its Xing header
        still claims 700 s) plays as the 10 s it holds, about what ffmpeg decodes of it (within
        one MPEG frame: the two read the cut file's gapless trim differently); it used to be
        refused as longer than 600 seconds."""
        whole = self.path("whole.mp3")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "sine=frequency=300:duration=700:sample_rate=22050", "-c:a", "libmp3lame",
                        "-b:a", "32k", whole], check=True, capture_output=True)
        with open(whole, "rb") as f:
            head = f.read(40000)
        cut = write(os.path.join(self.folder, "sounds", "cut.mp3"), head, "wb")
        self.assertGreater(float(ffprobe(cut, "-show_format")["format"]["duration"]), 600)
        write(self.script, "---\ntitle: Cut\n---\nHi. [sound sounds/cut.mp3] Bye.\n")
        side = self.render(self.path("cut.mp3"))
        (insert,) = side["inserts"]
        self.assertLessEqual(abs(insert["samples"] - ffmpeg_samples(cut)), 1152)
        self.assertGreater(insert["samples"], 9 * 22050)
        self.assertEqual(ffmpeg_samples(self.path("cut.mp3")), side["samples"])

    def test_sample_episode(self):
        """samples/produced-briefing.txt (intro under the first words, two kinds of insert, an
        outro, a music bed) at 22050 and 44100 Hz: every duration claim exact by `check`, and the decoders."""
        for rate in ("22050", "44100"):
            with self.subTest(rate=rate):
                out = self.path(f"produced{rate}.mp3")
                res = run([os.path.join(SRC, "samples", "produced-briefing.txt"), "-o", out, "-r", rate,
                           "--page", "--cache", self.path("cache"), "-q"])
                self.assertEqual(res.returncode, 0, res.stderr)
                with open(self.path(f"produced{rate}.json"), encoding="utf-8") as f:
                    side = json.load(f)
                self.assertEqual([i["kind"] for i in side["inserts"]],
                                 ["intro", "sound", "sound", "sound", "outro"])
                self.assertEqual(side["music"]["file"], "music/pad.ogg")
                self.assertEqual(side["music"]["level_lufs"], -26)
                self.assertEqual(ffmpeg_samples(out), side["samples"])
                self.assertEqual(mpg123_samples(out), side["samples"])
                check = run(["check", out, self.path(f"produced{rate}.html")])
                self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
                self.assertIn(f"sample_rate: claimed {rate}, measured {rate}: OK", check.stdout)


class SoundFormats(Case):
    """Only the documented formats, judged by their header, never by their name; a chained Ogg
    refused rather than cut to its first stream; bytes that only look like MPEG frames refused
    rather than played, with none of libmpg123's own messages; a refused file read once."""

    def refused(self, body, *files):
        folder = self.path("show")
        os.makedirs(os.path.join(folder, "sounds"), exist_ok=True)
        for name, make in files:
            make(os.path.join(folder, "sounds", name))
        script = write(os.path.join(folder, "ep.txt"), "---\ntitle: T\n---\n" + body)
        res = run(["ep.txt", "-o", "ep.mp3", "--no-cache"], cwd=folder)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(sorted(os.listdir(folder)), ["ep.txt", "sounds"])
        return res.stderr

    def test_other_containers_are_refused_by_their_header(self):
        def aiff_named_wav(path):
            sox("-n", "-r", "22050", "-c", "1", "-b", "16", "-t", "aiff", path, "synth", "0.3", "sine", "440")

        def au(path):
            sox("-n", "-r", "22050", "-c", "1", "-b", "16", path, "synth", "0.3", "sine", "440")

        def voc(path):
            sox("-n", "-r", "22050", "-c", "1", "-b", "16", path, "synth", "0.3", "sine", "440")

        def adpcm_wav(path):   # a WAV container, but a codec that is not PCM or float
            sox("-n", "-r", "22050", "-c", "1", "-e", "ima-adpcm", path, "synth", "0.3", "sine", "440")

        err = self.refused("Hi. [sound sounds/a.wav] [sound sounds/b.au] [sound sounds/c.voc] "
                           "[sound sounds/d.wav] Bye.\n",
                           ("a.wav", aiff_named_wav), ("b.au", au), ("c.voc", voc),
                           ("d.wav", adpcm_wav))
        self.assertIn("ep.txt:4:5: sound file 'sounds/a.wav': is AIFF", err)
        self.assertIn("sound file 'sounds/b.au': is AU", err)
        self.assertIn("sound file 'sounds/c.voc': is VOC", err)
        self.assertIn("sound file 'sounds/d.wav': is WAV", err)
        self.assertIn("IMA ADPCM", err)
        self.assertEqual(err.count("a sound file is WAV (PCM or float), FLAC, Ogg Vorbis, "
                                   "Ogg Opus or MP3"), 4, err)

    def test_a_chained_ogg_is_refused(self):
        def chained(path):
            first, second = path + ".1.ogg", path + ".2.ogg"
            sox("-n", "-r", "44100", "-c", "2", first, "synth", "1", "sine", "330", "vol", "0.2")
            sox("-n", "-r", "44100", "-c", "1", second, "synth", "0.8", "sine", "550", "vol", "0.2")
            with open(path, "wb") as out:
                for part in (first, second):
                    with open(part, "rb") as f:
                        out.write(f.read())
                    os.unlink(part)
            # the judge: ffmpeg decodes both links (1.8 s), libsndfile would play the first
            self.assertGreater(ffmpeg_samples(path), 1.7 * 44100)

        err = self.refused("Hi. [sound sounds/two.ogg] Bye.\n", ("two.ogg", chained))
        self.assertIn("ep.txt:4:5: sound file 'sounds/two.ogg': is a chained Ogg file: 2 "
                      "streams", err)

    def test_one_ogg_stream_still_plays(self):
        folder = self.path("one")
        os.makedirs(os.path.join(folder, "sounds"))
        sox("-n", "-r", "44100", "-c", "2", os.path.join(folder, "sounds", "one.ogg"), "synth", "1",
            "sine", "330", "vol", "0.2")
        script = write(os.path.join(folder, "ep.txt"), "---\ntitle: T\n---\nHi. [sound sounds/one.ogg] Bye.\n")
        res = run(["ep.txt", "-o", "ep.mp3", "--no-cache", "-q"], cwd=folder)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_a_truncated_ogg_is_an_error_at_its_name(self):
        """Cut inside its headers (1000 bytes: in the sanitizer build, libvorbis's own leak there
        is suppressed by name, tests/lsan.supp, and must not fail the run) or in its audio."""
        folder = self.path("show")
        os.makedirs(os.path.join(folder, "sounds"))
        whole = os.path.join(folder, "whole.ogg")
        sox("-n", "-r", "44100", "-c", "2", whole, "synth", "3", "sine", "330", "vol", "0.2")
        with open(whole, "rb") as f:
            data = f.read()
        os.unlink(whole)
        write(os.path.join(folder, "ep.txt"), "---\ntitle: T\n---\nHi. [sound sounds/cut.ogg] Bye.\n")
        for cut in (1000, len(data) * 2 // 3):
            with self.subTest(cut=cut):
                with open(os.path.join(folder, "sounds", "cut.ogg"), "wb") as f:
                    f.write(data[:cut])
                res = run(["ep.txt", "-o", "ep.mp3", "--no-cache", "-q"], cwd=folder)
                self.assertNotIn("LeakSanitizer", res.stderr)
                # libvorbis decodes what is there (or nothing): an episode, or exit 2 at the name
                self.assertIn(res.returncode, (0, 2), res.stderr)
                if res.returncode == 2 or cut == 1000:
                    self.assertEqual(res.returncode, 2, res.stderr)
                    self.assertIn("ep.txt:4:5: sound file 'sounds/cut.ogg':", res.stderr)
                    self.assertEqual(sorted(os.listdir(folder)), ["ep.txt", "sounds"])
                else:
                    self.assertEqual(res.stderr, "")
                for name in ("ep.mp3", "ep.json", "ep.vtt"):
                    if os.path.exists(os.path.join(folder, name)):
                        os.unlink(os.path.join(folder, name))

    def junk_mp3(self, path):
        """The first frames of a real MP3, then 2 MB of random bytes with an MPEG sync word
        every 300 bytes: libmpg123, asked to, resyncs through it and decodes noise."""
        import random
        real = path + ".real.mp3"
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                        "sine=frequency=660:duration=2:sample_rate=44100", "-ac", "1",
                        "-c:a", "libmp3lame", "-b:a", "64k", real], check=True, capture_output=True)
        with open(real, "rb") as f:
            head = f.read()[:3000]
        os.unlink(real)
        rng = random.Random(27)
        junk = bytearray(rng.randbytes(2_000_000))
        for i in range(0, len(junk) - 1, 300):
            junk[i], junk[i + 1] = 0xFF, 0xFB
        with open(path, "wb") as f:
            f.write(head + bytes(junk))

    def test_junk_after_mp3_frames_is_refused_silently(self):
        err = self.refused("Hi. [sound sounds/junk.mp3] Bye.\n", ("junk.mp3", self.junk_mp3))
        self.assertIn("ep.txt:4:5: sound file 'sounds/junk.mp3': cannot be decoded as an MP3", err)
        self.assertEqual(len(err.splitlines()), 1, err)   # not libmpg123's notes

    def test_a_refused_file_is_read_once(self):
        """A file refused only after its whole decode (601 s: longer than the 600 s limit) is not
        decoded again at its other uses, and what the files of one render decode is bounded
        (4200 s of their own audio) whether or not they load."""
        folder = self.path("show")
        os.makedirs(os.path.join(folder, "sounds"))
        long_file = os.path.join(folder, "sounds", "long.flac")
        sox("-n", "-r", "8000", "-c", "1", long_file, "synth", "601", "sine", "300", "vol", "0.1")
        for i in range(6):
            shutil.copyfile(long_file, os.path.join(folder, "sounds", f"l{i}.flac"))
        body = "Hi. " + " ".join(["[sound sounds/long.flac]"] * 20) + "\n\n" + \
            " ".join(f"[sound sounds/l{i}.flac]" for i in range(6)) + "\n"
        script = write(os.path.join(folder, "ep.txt"), "---\ntitle: T\n---\n" + body)
        res = run(["ep.txt", "-o", "ep.mp3", "--no-cache"], cwd=folder)
        self.assertEqual(res.returncode, 2, res.stderr)
        lines = res.stderr.splitlines()
        self.assertIn("ep.txt:4:5: sound file 'sounds/long.flac': is longer than 600 seconds", lines[0])
        self.assertEqual(sum("'sounds/long.flac': refused at 4:5, not read again" in l for l in lines),
                         19, res.stderr)
        # long.flac spent 600 s of the 4200 s budget (and the chunk that shows it is longer);
        # l0..l4 as much each; l5 finds less than 600 s left
        self.assertEqual([l.split(": ", 2)[1] for l in lines if re.search(r"sounds/l\d", l) and "is longer" in l],
                         [f"sound file 'sounds/l{i}.flac'" for i in range(5)], res.stderr)
        self.assertIn("ep.txt:6:", lines[-1])
        self.assertIn("sound file 'sounds/l5.flac': would make the episode's sound files decode "
                      "more than 4200 seconds of audio together", lines[-1])
        self.assertEqual(sorted(os.listdir(folder)), ["ep.txt", "sounds"])


if __name__ == "__main__":
    main()
