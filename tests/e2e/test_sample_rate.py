# SPDX-License-Identifier: GPL-3.0-or-later
"""The output sample rate (--sample-rate, front matter `sample_rate:`): at 22050, 44100 and
48000 Hz every length claim is exact as ffprobe, ffmpeg and mpg123 decode it, pauses are
exact in samples of the output rate, loudness is on target by ffmpeg's ebur128 meter, and the
segment cache keeps speech at the engine's rate, so a new rate synthesizes nothing."""
import array
import json
import os
import re
import shutil
import subprocess
import tempfile
import wave

from common import (BIN, SRC, Case, ebur128, ffmpeg_samples, ffprobe, main, mpg123_samples, mutagen_tags,
                    run, runs_of_zeros, write)

SAMPLE = os.path.join(SRC, "samples", "weekly-briefing.txt")
HEAD = "---\ntitle: Rates\n---\n"



def sidecar(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def vtt_starts_ms(path):
    """The start of every cue of a WebVTT file, in ms."""
    with open(path, encoding="utf-8") as f:
        starts = re.findall(r"(\d+):(\d\d):(\d\d)\.(\d\d\d) -->", f.read())
    return [((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(ms) for h, m, s, ms in starts]


def vtt_end_ms(path):
    """The end of the last cue of a WebVTT file, in ms."""
    with open(path, encoding="utf-8") as f:
        ends = re.findall(r"--> (\d+):(\d\d):(\d\d)\.(\d\d\d)", f.read())
    h, m, s, ms = (int(x) for x in ends[-1])
    return ((h * 60 + m) * 60 + s) * 1000 + ms


class Rates(Case):
    # The sample at each rate, rendered once (with a cache of its own) for the three tests that
    # judge the same render: rate -> (the MP3's path, its sidecar).
    samples = {}

    def render(self, script, out, *extra):
        res = run([script, "-o", out, "--cache", self.path("cache"), *extra])
        self.assertEqual(res.returncode, 0, res.stderr)
        return sidecar(os.path.splitext(out)[0] + ".json")

    def sample_at(self, rate):
        if rate not in Rates.samples:
            folder = tempfile.mkdtemp(prefix="re-rates-")
            out = os.path.join(folder, f"ep{rate}.mp3")
            res = run([SAMPLE, "-o", out, "--cache", os.path.join(folder, "cache"), "--sample-rate", str(rate)])
            self.assertEqual(res.returncode, 0, res.stderr)
            Rates.samples[rate] = (out, sidecar(os.path.join(folder, f"ep{rate}.json")))
        return Rates.samples[rate]

    def test_mp3_at_each_rate_is_exact(self):
        for rate, kbps in ((22050, 64), (44100, 96), (48000, 96)):
            with self.subTest(rate=rate):
                out, side = self.sample_at(rate)
                stream = ffprobe(out, "-show_streams")["streams"][0]
                self.assertEqual(int(stream["sample_rate"]), rate)
                self.assertEqual(int(stream["bit_rate"]), kbps * 1000)   # the rate's default
                self.assertEqual(side["sample_rate"], rate)
                self.assertEqual(ffmpeg_samples(out), side["samples"])
                self.assertEqual(mpg123_samples(out), side["samples"])   # LAME tag kept: gapless
                self.assertEqual(int(mutagen_tags(out)["TLEN"]), round(side["samples"] * 1000 / rate))
                self.assertEqual(side["duration_ms"], round(side["samples"] * 1000 / rate))
                chapters = ffprobe(out, "-show_chapters")["chapters"]
                self.assertEqual([round(float(c["start_time"]) * 1000) for c in chapters],
                                 [c["start_ms"] for c in side["chapters"]])
                self.assertEqual(side["chapters"][-1]["end_ms"], side["duration_ms"])
                self.assertLessEqual(vtt_end_ms(out[:-len(".mp3")] + ".vtt"), side["duration_ms"])
                check = run(["check", out])
                self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
                self.assertIn(f"sample_rate: claimed {rate}, measured {rate}: OK", check.stdout)

    def test_same_times_in_seconds_at_every_rate(self):
        # the same speech resampled: durations, chapters and cue times agree to the rounding of
        # each stretch of sound (a few samples)
        renders = [self.sample_at(rate) for rate in (22050, 44100, 48000)]
        sides = [side for _, side in renders]
        ms = [side["duration_ms"] for side in sides]
        self.assertLessEqual(max(ms) - min(ms), 2, ms)
        for side in sides[1:]:
            for a, b in zip(side["chapters"], sides[0]["chapters"]):
                self.assertLessEqual(abs(a["start_ms"] - b["start_ms"]), 2)
        cues = [vtt_starts_ms(out[:-len(".mp3")] + ".vtt") for out, _ in renders]
        self.assertGreater(len(cues[0]), 5)
        for other in cues[1:]:
            self.assertEqual(len(other), len(cues[0]))
            self.assertLessEqual(max(abs(a - b) for a, b in zip(other, cues[0])), 2)

    def test_loudness_on_target_at_44100(self):
        out, side = self.sample_at(44100)
        integrated, peak = ebur128(out)
        self.assertLessEqual(abs(integrated + 16.0), 1.0, f"{integrated} LUFS")
        self.assertLessEqual(peak, -1.0, f"true peak {peak} dBTP")
        self.assertLessEqual(abs(side["loudness"]["true_peak_dbtp"] - peak), 0.15)

    def test_pauses_exact_in_samples_at_44100_and_48000(self):
        vdir = self.path("voices")
        os.mkdir(vdir)
        write(os.path.join(vdir, "host.voice"),
              "voice = en-us\nsentence_pause = 420\nparagraph_pause = 1100\n")
        script = write(self.path("p.txt"), HEAD + "First sentence here. Second sentence here.\n\n"
                       "New paragraph. [pause 1234ms] Two.\n")
        for rate in (44100, 48000):
            with self.subTest(rate=rate):
                out = self.path(f"p{rate}.wav")
                side = self.render(script, out, "--voices", vdir, "-r", str(rate), "--loudness", "off")
                with wave.open(out, "rb") as w:
                    self.assertEqual(w.getframerate(), rate)
                    data = array.array("h", w.readframes(w.getnframes()))
                self.assertEqual(len(data), side["samples"])
                gaps = [n for _, n in runs_of_zeros(data, rate // 5)]
                self.assertEqual(gaps, [round(0.42 * rate), round(1.1 * rate), round(1.234 * rate)])
                self.assertNotEqual(data[0], 0)
                self.assertNotEqual(data[-1], 0)
                soxi = subprocess.run(["soxi", "-r", out], capture_output=True, text=True, check=True)
                self.assertEqual(int(soxi.stdout), rate)

    def test_new_rate_synthesizes_nothing(self):
        folder = self.path("scripts")
        os.mkdir(folder)
        shutil.copy(SAMPLE, folder)
        reports = []
        for rate in ("22050", "44100", "48000"):
            report = self.path(f"r{rate}.json")
            res = run(["batch", "-j", "2", "-O", self.path("out" + rate), "--cache", self.path("cache"),
                       "--sample-rate", rate, "--report", report, folder])
            self.assertEqual(res.returncode, 0, res.stderr)
            reports.append(sidecar(report)["episodes"][0])
            self.assertEqual(sidecar(self.path("out" + rate, "weekly-briefing.json"))["sample_rate"],
                             int(rate))
        self.assertGreater(reports[0]["segments_synthesized"], 0)
        for later in reports[1:]:
            self.assertEqual(later["segments_synthesized"], 0)
            self.assertEqual(later["segments_cached"], reports[0]["segments_synthesized"])

    def test_batch_renders_again_when_the_rate_changes(self):
        folder, out = self.path("scripts"), self.path("out")
        os.mkdir(folder)
        write(os.path.join(folder, "a.txt"), HEAD + "A short episode for the up-to-date check.\n")
        statuses = []
        for rate in ("22050", "44100", "44100"):
            report = self.path("report.json")
            res = run(["batch", "-O", out, "--cache", self.path("cache"), "-r", rate, "--report",
                       report, folder])
            self.assertEqual(res.returncode, 0, res.stderr)
            statuses.append(sidecar(report)["episodes"][0]["status"])
            self.assertEqual(int(ffprobe(os.path.join(out, "a.mp3"), "-show_streams")["streams"][0]["sample_rate"]),
                             int(rate))
        self.assertEqual(statuses, ["rendered", "rendered", "up-to-date"])

    def test_same_bytes_for_any_jobs_and_cache_at_48000(self):
        outs = []
        for name, extra in (("cold", ["-j", "1"]), ("warm", ["-j", "2"]), ("none", ["-j", "2", "--no-cache"])):
            out = self.path(name + ".mp3")
            args = [SAMPLE, "-o", out, "-r", "48000", *extra]
            if "--no-cache" not in extra:
                args += ["--cache", self.path("jcache")]
            res = run(args)
            self.assertEqual(res.returncode, 0, res.stderr)
            with open(out, "rb") as f:
                outs.append(f.read())
        self.assertEqual(len(set(outs)), 1)

    def test_serial_and_parallel_encoders_agree_at_44100(self):
        # Over a minute: several pieces of the parallel encoder. Under the sanitizers, which look
        # for memory errors, not for another length, 8 paragraphs: two pieces (from 5 s on), the
        # same splice and serial code; the sample at 44100 (test_mp3_at_each_rate_is_exact)
        # takes the parallel encoder through many pieces there.
        count, least = (8, 5) if os.environ.get("RE_SANITIZED") else (40, 60)
        paragraphs = "\n\n".join(f"Paragraph {i} is long enough to make several encoder pieces."
                                 for i in range(count))
        script = write(self.path("long.txt"), HEAD + paragraphs + "\n")
        sides = {}
        for name, extra in (("par", []), ("ser", ["--serial-encode"])):
            sides[name] = self.render(script, self.path(name + ".mp3"), "-r", "44100", *extra)
        self.assertGreater(sides["par"]["samples"], 44100 * least)
        self.assertEqual(sides["par"]["samples"], sides["ser"]["samples"])
        for name in ("par", "ser"):
            self.assertEqual(ffmpeg_samples(self.path(name + ".mp3")), sides["par"]["samples"])
            self.assertEqual(mpg123_samples(self.path(name + ".mp3")), sides["par"]["samples"])

    def test_front_matter_rate_and_the_command_line_wins(self):
        script = write(self.path("fm.txt"), "---\ntitle: FM\nsample_rate: 44100\n---\nHello there.\n")
        self.assertEqual(self.render(script, self.path("fm.mp3"))["sample_rate"], 44100)
        self.assertEqual(int(ffprobe(self.path("fm.mp3"), "-show_streams")["streams"][0]["sample_rate"]), 44100)
        self.assertEqual(self.render(script, self.path("cl.mp3"), "-r", "48000")["sample_rate"], 48000)
        self.assertEqual(ffmpeg_samples(self.path("cl.mp3")), sidecar(self.path("cl.json"))["samples"])

    def test_bad_front_matter_rate(self):
        for value in ("32000", "44.1k", "0"):
            with self.subTest(value=value):
                script = write(self.path("bad.txt"), f"---\ntitle: B\nsample_rate: {value}\n---\nHi.\n")
                res = run([script, "-o", self.path("bad.mp3")])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn("bad.txt:3:", res.stderr)
                self.assertIn("sample_rate", res.stderr)
                self.assertFalse(os.path.exists(self.path("bad.mp3")))

    def test_usage_errors(self):
        script = write(self.path("u.txt"), HEAD + "Hi.\n")
        for extra, words in ((["-r", "32000"], "22050, 44100 or 48000"),
                             (["-r", "44.1k"], "--sample-rate"),
                             (["-r", "44100", "-b", "48"], "LAME tag"),
                             (["-r", "48000", "-b", "56"], "LAME tag"),
                             (["-r", "22050", "-b", "48"], "LAME tag")):
            with self.subTest(extra=extra):
                res = run([script, "-o", self.path("u.mp3"), *extra])
                self.assertEqual(res.returncode, 1, res.stderr)
                self.assertIn(words, res.stderr)
                self.assertFalse(os.path.exists(self.path("u.mp3")))

    def test_a_wav_has_no_bitrate_to_refuse(self):
        script = write(self.path("w.txt"), HEAD + "A WAV at 48 kHz.\n")
        side = self.render(script, self.path("w.wav"), "-r", "48000", "-b", "48")
        with wave.open(self.path("w.wav"), "rb") as w:
            self.assertEqual((w.getframerate(), w.getnframes()), (48000, side["samples"]))

    def test_lowest_bitrate_per_rate_keeps_the_tag(self):
        script = write(self.path("l.txt"), HEAD + "The lowest bitrate that keeps the tag.\n")
        for rate, kbps in ((22050, 56), (44100, 56), (48000, 64)):
            with self.subTest(rate=rate):
                out = self.path(f"l{rate}.mp3")
                side = self.render(script, out, "-r", str(rate), "-b", str(kbps))
                self.assertEqual(int(ffprobe(out, "-show_streams")["streams"][0]["bit_rate"]), kbps * 1000)
                self.assertEqual(mpg123_samples(out), side["samples"])
                self.assertEqual(ffmpeg_samples(out), side["samples"])

    def test_script_rate_with_a_bitrate_too_low_is_refused(self):
        script = write(self.path("t.txt"), "---\ntitle: T\nsample_rate: 48000\n---\nHi.\n")
        res = run([script, "-o", self.path("t.mp3"), "-b", "56", "--cache", self.path("cache")])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("LAME tag", res.stderr)
        self.assertFalse(os.path.exists(self.path("t.mp3")))


if __name__ == "__main__":
    main()
