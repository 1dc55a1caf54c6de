# SPDX-License-Identifier: GPL-3.0-or-later
"""The music bed (front matter `music:`, issue 17), judged by tools we did not write.

The bed is generated with sox: a 30 Hz sine, a frequency espeak-ng's speech has no energy at
(its speech alone measures about -80 dB through the judge's filter, 30 dB under the ducked
bed), so ffmpeg can measure the bed alone in the mix: a 26..34 Hz band-pass (four high-pass
and four low-pass stages), applied to the whole file before each region is cut out, then
astats' RMS level of the region. The regions come from the transcript's timeline: under
speech, each cue (less 0.1 s at each end, for the judge's filter to settle); in the gaps, each
long pause after the duck's hold and release and before the next cue's look-ahead, both
outside the fades. Every speech region must measure at least `duck` dB below every gap (less
JUDGE_DB, the judge's own error: what of the speech passes its band, 30 dB under the ducked
bed, adds up to 0.005 dB to a region's level, and the mixer ducks by exactly `duck`): on a WAV
rendered with `--loudness off` and on the normalized MP3.

Also: loudness (ffmpeg's ebur128 meter) on target and true peak under the ceiling on the final
mix; the exact sample count (ffmpeg, mpg123 --gapless) at 22050 and 44100 Hz; `check`
passes; the same bytes for -j1/-j2 and a cold/warm cache; editing the bed renders again; a
missing, undecodable or outside bed is an error at the `music:` line before any speech."""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess

from common import BIN, SRC, Case, ebur128, ffmpeg_samples, main, mpg123_samples, run, write

# The sanitizer build (RE_SANITIZED) looks for memory errors: loops over values that take the
# same code are sampled there (docs/testing.md), the optimized build runs them all.
SANITIZED = bool(os.environ.get("RE_SANITIZED"))

DUCK_HOLD_RELEASE_S = 0.5 + 0.8      # bed.h: RE_BED_HOLD_MS + RE_BED_RELEASE_MS
LOOKAHEAD_S = 0.05                   # bed.h: RE_BED_LOOKAHEAD_MS
JUDGE_DB = 0.05
BAND = ",".join(["highpass=f=26"] * 4 + ["lowpass=f=34"] * 4)

BODY = """# One

Hello there, this is the first paragraph of the show. It has two sentences.

[pause 4s]

And this is the second paragraph, which comes after a long pause in the talk.

[pause 4s]

A third paragraph, so that there are two gaps between speech.

[pause 4s]

The end of the episode.
"""


def script(music="bed.wav", extra=""):
    return f"---\ntitle: Music bed\nmusic: {music}\n{extra}---\n{BODY}"


def sox_tone(path, seconds, freq=30, gain=-6, rate=22050, channels=1):
    subprocess.run(["sox", "-n", "-r", str(rate), "-c", str(channels), path, "synth",
                    str(seconds), "sine", str(freq), "gain", str(gain)], check=True)


def band_rms_db(path, start, end):
    """RMS level (dBFS) of [start, end) s of `path` through the 26..34 Hz band-pass."""
    out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af",
                          f"{BAND},atrim=start={start:.3f}:end={end:.3f},"
                          "astats=measure_overall=RMS_level:measure_perchannel=none",
                          "-f", "null", "-"], capture_output=True, text=True, check=True).stderr
    value = re.findall(r"RMS level dB: (\S+)", out)[-1]
    return float(value)


def difference_rms_db(mix, speech, start, end):
    """RMS level (dBFS) of [start, end) s of mix - speech (two WAVs), computed by ffmpeg."""
    out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", mix, "-i", speech,
                          "-filter_complex", "[0:a][1:a]amerge=inputs=2,pan=mono|c0=c0-c1,"
                          f"atrim=start={start:.3f}:end={end:.3f},"
                          "astats=measure_overall=RMS_level:measure_perchannel=none",
                          "-f", "null", "-"], capture_output=True, text=True, check=True).stderr
    return float(re.findall(r"RMS level dB: (\S+)", out)[-1])



def astats(path):
    """ffmpeg astats' overall "Peak count" and "Flat factor" of `path`."""
    out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af",
                          "astats=measure_perchannel=none", "-f", "null", "-"],
                         capture_output=True, text=True, check=True).stderr
    return {key: float(re.findall(key + r": (\S+)", out)[-1])
            for key in ("Peak count", "Flat factor")}


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def regions(transcript, duration, fade, inserts=()):
    """(speech, gaps): lists of (start, end) s. Speech: the transcript's cues. Gaps: between
    two things that duck the bed (cues, and the sound files the sidecar lists as inserts)."""
    cues = [(c["startTime"], c["endTime"]) for c in transcript["segments"]]
    lo, hi = fade + 0.2, duration - fade - 0.2
    speech = [(a + 0.1, b - 0.1) for a, b in cues if a >= lo and b <= hi and b - a > 0.5]
    busy = sorted(cues + list(inserts))
    gaps = []
    for (_, end), (start, _) in zip(busy, busy[1:]):
        a, b = end + DUCK_HOLD_RELEASE_S + 0.1, start - LOOKAHEAD_S - 0.1
        if b - a > 0.5 and a >= lo and b <= hi:
            gaps.append((a, b))
    return speech, gaps


class Music(Case):
    def setUp(self):
        super().setUp()
        self.dir = self.path("show")
        os.mkdir(self.dir)
        sox_tone(os.path.join(self.dir, "bed.wav"), 60)
        self.cache = self.path("cache")

    def render(self, text, out, *extra, name="ep.txt", expect=0):
        src = write(os.path.join(self.dir, name), text)
        res = run([src, "-o", out, "--cache", self.cache, "-q", *extra])
        self.assertEqual(res.returncode, expect, res.stderr)
        return res

    def test_a_signal_stops_the_bed_loading(self):
        """SIGTERM while the bed is read (a 120 s file at 655350 Hz: seconds of decoding) ends the
        render as a stop, exit 143 and "interrupted", not as a bad bed (exit 2, an error at the
        `music:` line), with nothing written and nothing synthesized."""
        big = os.path.join(self.dir, "big.flac")
        subprocess.run(["sox", "-n", "-r", "655350", "-c", "1", "-b", "16", big, "synth", "120",
                        "sine", "100", "vol", "0.01"], check=True)
        src = write(os.path.join(self.dir, "stop.txt"), script("big.flac"))
        out_dir = self.path("stopped")
        os.mkdir(out_dir)
        proc = subprocess.Popen([BIN, src, "-o", os.path.join(out_dir, "ep.mp3"), "--cache",
                                 self.cache, "-q"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)

        def reading_bed():
            try:
                return any(os.path.basename(os.readlink(f"/proc/{proc.pid}/fd/{fd}")) == "big.flac"
                           for fd in os.listdir(f"/proc/{proc.pid}/fd"))
            except OSError:   # it ended, or an fd closed while listed
                return False

        while proc.poll() is None and not reading_bed():
            pass
        self.assertIsNone(proc.poll(), "it ended before reading the bed")
        proc.send_signal(signal.SIGTERM)
        stderr = proc.communicate()[1]
        self.assertEqual(proc.returncode, 143, stderr)
        self.assertIn("interrupted", stderr)
        self.assertNotIn("music", stderr)
        self.assertEqual(os.listdir(out_dir), [])
        self.assertFalse(os.path.isdir(self.cache)
                         and any(f for _, _, f in os.walk(self.cache)))

    def assert_ducked(self, audio, transcript, duck, fade):
        side = load(os.path.splitext(audio)[0] + ".json")
        rate = side["sample_rate"]
        inserts = [(i["start"] / rate, (i["start"] + i["samples"]) / rate)
                   for i in side.get("inserts", [])]
        speech, gaps = regions(load(transcript), side["samples"] / rate, fade, inserts)
        self.assertGreaterEqual(len(speech), 3, speech)
        self.assertGreaterEqual(len(gaps), 2, gaps)
        under = [band_rms_db(audio, a, b) for a, b in speech]
        between = [band_rms_db(audio, a, b) for a, b in gaps]
        # the bed is there in the gaps, and the gaps agree with each other
        self.assertGreater(min(between), -60, between)
        self.assertLess(max(between) - min(between), 0.5, between)
        for level, (a, b) in zip(under, speech):
            self.assertLessEqual(level, min(between) - duck + JUDGE_DB,
                                 f"{os.path.basename(audio)}: bed under speech {a:.2f}..{b:.2f} s "
                                 f"at {level:.2f} dB, gaps {between}: less than {duck} dB duck")
        return under, between

    def test_duck_measured_on_wav_and_normalized_mp3(self):
        # under the sanitizers (RE_SANITIZED), which look for memory errors, one depth: another
        # is the same code with another number
        for duck in (6,) if SANITIZED else (12, 6):
            with self.subTest(duck=duck):
                text = script(extra=f"duck: {duck} dB\nfade: 1s\n")
                wav = self.path(f"off{duck}.wav")
                self.render(text, wav, "--loudness", "off", "--transcript-json")
                under, between = self.assert_ducked(wav, self.path(f"off{duck}.transcript.json"),
                                                    duck, 1.0)
                # the duck is what was asked, not much deeper, on the exact PCM
                self.assertGreater(max(under), min(between) - duck - 1.0, (under, between))
                mp3 = self.path(f"norm{duck}.mp3")
                self.render(text, mp3, "--transcript-json")
                _, between_mp3 = self.assert_ducked(mp3, self.path(f"norm{duck}.transcript.json"),
                                                    duck, 1.0)
                # normalization turned the bed by the gain it gave the whole mix (less LAME's
                # 0.45 dB level loss): the balance with the speech survived it
                gain = load(self.path(f"norm{duck}.json"))["loudness"]["gain_db"]
                self.assertLessEqual(abs(min(between_mp3) - min(between) - (gain - 0.45)), 0.5,
                                     (between_mp3, between, gain))

    def test_duck_exact_by_subtraction(self):
        """With --loudness off the mix is the speech plus the bed: ffmpeg subtracts a render of
        the same script without the bed, leaving the bed alone, which is exactly `duck` dB
        lower under speech than in the gaps (any sound as the bed: here a chord)."""
        subprocess.run(["sox", "-n", "-r", "48000", "-c", "3", os.path.join(self.dir, "chord.wav"),
                        "synth", "40", "sine", "220", "sine", "277", "sine", "330", "remix", "-",
                        "gain", "-12"], check=True)
        mix, plain = self.path("mix.wav"), self.path("plain.wav")
        self.render(script("chord.wav", "duck: 9 dB\nfade: 1s\n"), mix, "--loudness", "off",
                    "--transcript-json")
        self.render(script().replace("music: bed.wav\n", ""), plain, "--loudness", "off",
                    name="plain.txt")
        side = load(self.path("mix.json"))
        speech, gaps = regions(load(self.path("mix.transcript.json")),
                               side["samples"] / side["sample_rate"], 1.0)
        under = [difference_rms_db(mix, plain, a - 0.09, b + 0.09) for a, b in speech]
        between = [difference_rms_db(mix, plain, a, b) for a, b in gaps]
        self.assertLess(max(between) - min(between), 0.1, between)
        for level in under:
            self.assertAlmostEqual(min(between) - level, 9.0, delta=0.05, msg=(under, between))

    def test_bed_level_relative_to_speech_survives_normalization(self):
        """The bed in the gaps sits music_level - target below the speech's level, before and
        after normalization: measured by ebur128 on the bed alone (a render with a bed and no
        speech is not possible, so the sidecar's own numbers are checked against ffmpeg's)."""
        mp3 = self.path("level.mp3")
        self.render(script(extra="music_level: -30 LUFS\n"), mp3)
        side = load(self.path("level.json"))
        music = side["music"]
        self.assertEqual(music["file"], "bed.wav")
        self.assertEqual(music["level_lufs"], -30.0)
        self.assertEqual(music["duck_db"], 12.0)
        self.assertEqual(music["fade_s"], 2.0)
        with open(os.path.join(self.dir, "bed.wav"), "rb") as f:
            self.assertEqual(music["sha256"], hashlib.sha256(f.read()).hexdigest())
        bed_lufs, _ = ebur128(os.path.join(self.dir, "bed.wav"))
        self.assertLessEqual(abs(bed_lufs - music["bed_lufs"]), 0.2, (bed_lufs, music))
        self.assertAlmostEqual(music["gain_db"], -30.0 + 16.0 + music["speech_lufs"] - music["bed_lufs"],
                               delta=0.02)

    def test_bed_level_in_the_gaps_is_measured(self):
        """Every term of the bed's gain, judged by measurement only: with --loudness off the
        bed alone, in the gaps between speech, sits music_level - target below the speech
        (ffmpeg's ebur128, dual mono as the product measures, on each gap of the mix and on a
        render of the same script without the bed), within 0.3 LU, at three levels (with
        --loudness off the target is -16 all the same, docs/script-format.md)."""
        subprocess.run(["sox", "-n", "-r", "48000", "-c", "2", os.path.join(self.dir, "chord.wav"),
                        "synth", "40", "sine", "220", "sine", "277", "gain", "-20"], check=True)
        plain = self.path("plain.wav")
        self.render(script().replace("music: bed.wav\n", ""), plain, "--loudness", "off",
                    name="plain.txt")
        speech_lufs, _ = ebur128(plain)
        target = -16
        for level in (-30,) if SANITIZED else (-36, -30, -24):   # one level under the sanitizers
            with self.subTest(level=level):
                wav = self.path(f"level{-level}.wav")
                self.render(script("chord.wav", f"music_level: {level} LUFS\nfade: 1s\n"), wav,
                            "--loudness", "off", "--transcript-json")
                side = load(os.path.splitext(wav)[0] + ".json")
                _, gaps = regions(load(os.path.splitext(wav)[0] + ".transcript.json"),
                                  side["samples"] / side["sample_rate"], 1.0)
                self.assertEqual(len(gaps), 3, gaps)
                values = []
                for a, b in gaps:
                    out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", wav, "-af",
                                          f"atrim=start={a:.3f}:end={b:.3f},ebur128=dualmono=true",
                                          "-f", "null", "-"], capture_output=True, text=True,
                                         check=True).stderr
                    summary = out[out.rindex("Summary:"):]
                    values.append(float(re.search(r"I:\s+(-?[\d.]+) LUFS", summary).group(1)))
                self.assertLess(max(values) - min(values), 0.3, values)
                below = speech_lufs - sum(values) / len(values)
                self.assertAlmostEqual(below, target - level, delta=0.3,
                                       msg=(speech_lufs, values, side["music"]))

    def test_true_peak_retry_keeps_the_bed(self):
        """Issue 18's retries on a mix with a bed (RE_TEST_OVERSHOOT, docs/loudness.md): the
        local one splices frames re-encoded from the leveled mix, the full one (--serial-encode)
        levels the mix again; either way the file is under the ceiling (ffmpeg), exact in
        length (mpg123), and the bed in every gap is the bed of the render without the
        overshoot (26..34 Hz band: within 0.1 dB, or moved by the full retry's change of gain):
        a retry made from the speech alone would leave it some 30 dB lower there."""
        src = write(os.path.join(self.dir, "ep.txt"), script(extra="fade: 1s\n"))
        encodes = re.compile(r"^  encodes: (\d+) whole, (\d+) local$", re.M)

        def render(name, hook, *extra):
            out = self.path(name + ".mp3")
            res = run([src, "-o", out, "--cache", self.cache, "--timings", "--transcript-json",
                       *extra], env={"RE_TEST_OVERSHOOT": hook})
            self.assertEqual(res.returncode, 0, res.stderr)
            side = load(self.path(name + ".json"))
            self.assertLessEqual(ebur128(out)[1], -1.0, name)
            self.assertEqual(mpg123_samples(out), side["samples"], name)
            return out, side, tuple(int(n) for n in encodes.search(res.stderr).groups())

        plain, side, _ = render("plain", "")
        transcript = load(self.path("plain.transcript.json"))
        first = transcript["segments"][0]
        at = (first["startTime"] + first["endTime"]) / 2
        speech, gaps = regions(transcript, side["samples"] / side["sample_rate"], 1.0)
        self.assertGreaterEqual(len(gaps), 2, gaps)
        local, _, count = render("local", f"{at:.2f}:2")
        self.assertEqual(count, (1, 1))
        with open(plain, "rb") as f, open(local, "rb") as g:
            a, b = f.read(), g.read()
        self.assertEqual(len(a), len(b))
        self.assertGreater(sum(x == y for x, y in zip(a, b)) / len(a), 0.9)
        for start, end in gaps:
            self.assertAlmostEqual(band_rms_db(local, start, end), band_rms_db(plain, start, end),
                                   delta=0.1, msg=(start, end))
        # the full retry levels the mix again, with the gain its plan ends on (the fake
        # overshoot lowered the limiter's ceiling, so the gain may differ): the bed in the gaps
        # moved by that gain's difference, no more (the limiter does not act on the bed alone)
        serial, serial_side, _ = render("serial", "", "--serial-encode")
        full, full_side, count = render("full", f"{at:.2f}:2", "--serial-encode")
        self.assertEqual(count[1], 0)       # re-encoded whole, once or more (at most 3)
        self.assertGreaterEqual(count[0], 2)
        moved = full_side["loudness"]["gain_db"] - serial_side["loudness"]["gain_db"]
        for start, end in gaps:
            self.assertAlmostEqual(band_rms_db(full, start, end) - band_rms_db(serial, start, end),
                                   moved, delta=0.2, msg=(start, end, moved))

    def test_loudness_peak_and_exact_length_at_each_rate(self):
        for rate in (22050, 44100):
            with self.subTest(rate=rate):
                mp3 = self.path(f"r{rate}.mp3")
                self.render(script(), mp3, "--sample-rate", str(rate))
                side = load(self.path(f"r{rate}.json"))
                self.assertEqual(side["sample_rate"], rate)
                self.assertEqual(ffmpeg_samples(mp3), side["samples"])
                self.assertEqual(mpg123_samples(mp3), side["samples"])
                integrated, peak = ebur128(mp3)
                self.assertLessEqual(abs(integrated + 16.0), 1.0, f"{integrated} LUFS")
                self.assertLessEqual(peak, -1.0, f"true peak {peak} dBTP")
                self.assertTrue(side["loudness"]["met"])
                # the bed keeps the episode's length: the same as without it
                plain = self.path(f"plain{rate}.mp3")
                self.render(script().replace("music: bed.wav\n", ""), plain, "--sample-rate",
                            str(rate), name="plain.txt")
                self.assertEqual(load(self.path(f"plain{rate}.json"))["samples"], side["samples"])
                self.assertNotIn("music", load(self.path(f"plain{rate}.json")))
                res = run(["check", mp3, self.path(f"r{rate}.json")])
                self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_loud_bed_never_saturates_the_normalized_mix(self):
        """music_level -5 over a loud bed: the sum of speech and bed goes past int16 (the
        --loudness off WAV, whose levels are the script's, has flat-topped peaks, astats' peak
        count in the hundreds); normalized, the mix is made with headroom instead, so the
        episode keeps no flattened peaks (astats: flat factor 0, a peak count of a few), and
        the MP3 is on target with its true peak under the ceiling."""
        subprocess.run(["sox", "-R", "-n", "-r", "22050", "-c", "1", os.path.join(self.dir, "loud.wav"),
                        "synth", "60", "pinknoise", "gain", "-6"], check=True)
        text = script("loud.wav", "music_level: -5 LUFS\n")
        off = self.path("off.wav")
        res = self.render(text, off, "--loudness", "off")
        self.assertGreater(astats(off)["Peak count"], 100, "the bed does not saturate the mix: "
                           "the test no longer tests anything")
        # said, at the music: line
        self.assertRegex(res.stderr, r"ep\.txt:3:8: warning: music 'loud\.wav': speech and bed "
                                     r"sum past full scale in [0-9]+ samples")
        wav = self.path("loud.wav")
        res = self.render(text, wav)
        self.assertNotIn("warning", res.stderr)
        stats = astats(wav)
        self.assertEqual(stats["Flat factor"], 0.0, stats)
        self.assertLess(stats["Peak count"], 10, stats)
        mp3 = self.path("loud.mp3")
        self.render(text, mp3)
        integrated, peak = ebur128(mp3)
        self.assertLessEqual(abs(integrated + 16.0), 1.0, f"{integrated} LUFS")
        self.assertLessEqual(peak, -1.0, f"true peak {peak} dBTP")
        self.assertEqual(ffmpeg_samples(mp3), load(self.path("loud.json"))["samples"])

    def test_offset_in_the_bed_is_not_added_to_the_speech(self):
        """A bed with a constant offset (a DC shift of a quarter of full scale under a 30 Hz
        tone): the offset is no sound, and added under the speech it would push the speech
        against full scale on one side. ffmpeg's astats reads the --loudness off mix's DC
        offset as small as the speech's own, and the bed (30 Hz band) is there."""
        shifted = os.path.join(self.dir, "shifted.wav")
        subprocess.run(["sox", "-n", "-r", "22050", "-c", "1", "-b", "16", shifted, "synth", "60",
                        "sine", "30", "gain", "-12", "dcshift", "0.25"], check=True)
        def dc(path):
            out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af",
                                  "astats=measure_perchannel=none", "-f", "null", "-"],
                                 capture_output=True, text=True, check=True).stderr
            return float(re.findall(r"DC offset: (\S+)", out)[-1])
        mix, plain = self.path("shifted.wav"), self.path("plain.wav")
        self.render(script("shifted.wav"), mix, "--loudness", "off")
        self.render(script().replace("music: bed.wav\n", ""), plain, "--loudness", "off",
                    name="plain.txt")
        self.assertLess(abs(dc(mix) - dc(plain)), 0.001, (dc(mix), dc(plain)))
        self.assertGreater(band_rms_db(mix, 1.0, 20.0), -60)

    def test_sample_episode_at_22050_and_44100(self):
        """samples/music-bed.txt (an Ogg Vorbis bed, looped): every length claim exact."""
        sample = os.path.join(SRC, "samples", "music-bed.txt")
        for rate in (22050, 44100):
            with self.subTest(rate=rate):
                mp3 = self.path(f"sample{rate}.mp3")
                res = run([sample, "-o", mp3, "--cache", self.cache, "-q", "--sample-rate", str(rate)])
                self.assertEqual(res.returncode, 0, res.stderr)
                side = load(self.path(f"sample{rate}.json"))
                self.assertEqual(side["music"]["file"], "music/pad.ogg")
                self.assertEqual(ffmpeg_samples(mp3), side["samples"])
                res = run(["check", mp3, self.path(f"sample{rate}.json")])
                self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_produced_episode_with_a_bed(self):
        """Issue 17's whole: an intro (with overlap), two inserts and an outro (the produced
        sample's sounds) and a bed, at 22050 and 44100 Hz: every length claim exact, the bed
        adds no sample, and the duck is measured on the normalized MP3 and a --loudness off
        WAV (the sidechain ducks under the sounds too; the gaps are measured away from them)."""
        shutil.copytree(os.path.join(SRC, "samples", "sounds"), os.path.join(self.dir, "sounds"))
        text = script(extra="fade: 1s\nintro: sounds/intro.ogg\nintro_overlap: 1.5s\n"
                            "outro: sounds/outro.ogg\n")
        text = text.replace("[pause 4s]\n\nAnd this is", "[pause 4s]\n\n[sound sounds/chime.flac]\n\n"
                            "And this is").replace("comes after a long pause",
                                                   "comes after [sound sounds/sting.wav 0.4s] a long pause")
        # Under the sanitizers, 22050 Hz only: the produced sample with its bed at 44100 is
        # rendered there by test_sounds.test_sample_episode, a bed at 44100 by
        # test_loudness_peak_and_exact_length_at_each_rate.
        for rate in (22050,) if SANITIZED else (22050, 44100):
            with self.subTest(rate=rate):
                mp3 = self.path(f"prod{rate}.mp3")
                self.render(text, mp3, "--sample-rate", str(rate), "--transcript-json")
                side = load(self.path(f"prod{rate}.json"))
                self.assertEqual([i["kind"] for i in side["inserts"]], ["intro", "sound", "sound", "outro"])
                self.assertEqual(ffmpeg_samples(mp3), side["samples"])
                self.assertEqual(mpg123_samples(mp3), side["samples"])
                res = run(["check", mp3, self.path(f"prod{rate}.json")])
                self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
                self.assert_ducked(mp3, self.path(f"prod{rate}.transcript.json"), 12, 1.0)
                plain = self.path(f"prodplain{rate}.wav")
                self.render(text.replace("music: bed.wav\n", "").replace("fade: 1s\n", ""), plain, "--sample-rate", str(rate),
                            "--loudness", "off", name="plain.txt")
                self.assertEqual(load(self.path(f"prodplain{rate}.json"))["samples"], side["samples"])
        wav = self.path("prodoff.wav")
        self.render(text, wav, "--loudness", "off", "--transcript-json")
        self.assert_ducked(wav, self.path("prodoff.transcript.json"), 12, 1.0)

    def test_looped_bed_and_stereo_44k_bed(self):
        """A 3 s stereo 44.1 kHz bed under a 22050 Hz episode of about 25 s: looped, read
        through libsndfile and resampled; the gaps keep the bed's level all the way."""
        sox_tone(os.path.join(self.dir, "short.wav"), 3, rate=44100, channels=2)
        wav = self.path("loop.wav")
        self.render(script("short.wav", "fade: 1s\n"), wav, "--loudness", "off", "--transcript-json")
        self.assert_ducked(wav, self.path("loop.transcript.json"), 12, 1.0)

    def test_same_bytes_any_jobs_and_cache(self):
        """-j1 cold, -j2 warm, -j2 cold (another cache), -j1 warm: the same MP3 and sidecar."""
        outs = []
        for i, (jobs, cache) in enumerate((("1", "c1"), ("2", "c1"), ("2", "c2"), ("1", "c2"))):
            self.cache = self.path(cache)
            self.render(script(), self.path(f"same{i}.mp3"), "-j", jobs)
            with open(self.path(f"same{i}.mp3"), "rb") as f:
                mp3 = f.read()
            sidecar = load(self.path(f"same{i}.json"))
            sidecar.pop("files")   # names its own files, same{i}.*
            outs.append((mp3, sidecar))
        for i, out in enumerate(outs[1:], 1):
            self.assertTrue(out[0] == outs[0][0], f"run {i}: MP3 bytes differ")
            self.assertEqual(out[1], outs[0][1], f"run {i}: sidecar differs")

    def test_editing_the_bed_renders_again(self):
        src = write(os.path.join(self.dir, "ep.txt"), script())
        out = self.path("out")

        def batch():
            report = self.path("report.json")
            res = run(["batch", "-O", out, src, "--cache", self.cache, "-q", "--report", report])
            self.assertEqual(res.returncode, 0, res.stderr)
            (episode,) = load(report)["episodes"]
            return episode["status"]

        self.assertEqual(batch(), "rendered")
        first = load(os.path.join(out, "ep.json"))
        self.assertEqual(batch(), "up-to-date")
        sox_tone(os.path.join(self.dir, "bed.wav"), 60, freq=31)   # a different bed
        self.assertEqual(batch(), "rendered")
        second = load(os.path.join(out, "ep.json"))
        self.assertNotEqual(first["music"]["sha256"], second["music"]["sha256"])
        self.assertNotEqual(first["inputs_sha256"], second["inputs_sha256"])
        self.assertEqual(batch(), "up-to-date")

    def test_bad_beds_are_errors_at_the_music_line_before_speech(self):
        outside = self.path("elsewhere.wav")
        sox_tone(outside, 2)
        write(os.path.join(self.dir, "notaudio.wav"), "this is not audio\n")
        silent = os.path.join(self.dir, "silent.wav")
        subprocess.run(["sox", "-n", "-r", "22050", "-c", "1", silent, "trim", "0", "2"], check=True)
        # a bed of one sample: a constant, which is no sound (its offset is taken away)
        one = os.path.join(self.dir, "one.wav")
        subprocess.run(["sox", "-t", "raw", "-r", "22050", "-e", "signed", "-b", "16", "-c", "1",
                        "-", one], input=b"\x20\x4e", check=True)   # 20000
        self.assertEqual(subprocess.run(["soxi", "-s", one], capture_output=True, text=True,
                                        check=True).stdout.strip(), "1")
        cases = {
            "one.wav": "silent",
            "missing.wav": "cannot open",
            "notaudio.wav": "",
            "../elsewhere.wav": "outside the script's folder",
            "silent.wav": "silent",
        }
        for value, words in cases.items():
            with self.subTest(music=value):
                cache = self.path("cache-" + value.replace("/", "_"))
                out = self.path("bad.mp3")
                src = write(os.path.join(self.dir, "bad.txt"), script(value))
                res = run([src, "-o", out, "--cache", cache, "-q"])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"bad.txt:3:8: ", res.stderr)
                self.assertIn(words, res.stderr)
                self.assertFalse(os.path.exists(out))
                # nothing was spoken: the segment cache holds no segment
                entries = [f for _, _, files in os.walk(cache) for f in files] if os.path.isdir(cache) else []
                self.assertEqual(entries, [], res.stderr)

    def test_bed_of_no_samples_at_the_episode_rate_is_an_error(self):
        # one sample at 192 kHz resamples to none at 22050 Hz: the bed's meter was fed nothing
        # forever (a render that never ended, deaf to SIGTERM); it is a silent bed, an error
        tiny = os.path.join(self.dir, "tiny.wav")
        subprocess.run(["sox", "-t", "raw", "-r", "192000", "-e", "signed", "-b", "16", "-c", "1",
                        "-", tiny], input=b"\x20\x4e", check=True)
        out = self.path("tiny.mp3")
        src = write(os.path.join(self.dir, "tiny.txt"), script("tiny.wav"))
        try:   # a generous bound: the error comes before anything is spoken
            res = run([src, "-o", out, "--no-cache", "-q"], timeout=60)
        except subprocess.TimeoutExpired:
            self.fail("a bed of no samples at the episode's rate: the render never ended")
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("tiny.txt:3:8: ", res.stderr)
        self.assertIn("silent", res.stderr)
        self.assertFalse(os.path.exists(out))

    def test_front_matter_errors(self):
        cases = {
            "music_level: -2 LUFS\n": ("4:14", "music_level must be"),
            "duck: 12 dBFS\n": ("4:7", "duck must be"),
            "fade: 2 sec\n": ("4:7", "fade must be"),
            "fade: 61s\n": ("4:7", "fade must be"),
        }
        for extra, (place, words) in cases.items():
            with self.subTest(extra=extra):
                res = self.render(script(extra=extra), self.path("e.mp3"), expect=2, name="e.txt")
                self.assertIn(f"e.txt:{place}: {words}", res.stderr)
        res = self.render("---\ntitle: T\nduck: 6 dB\n---\nHello.\n", self.path("e.mp3"), expect=2,
                          name="e.txt")
        self.assertIn("e.txt:3:1: 'duck' is set but there is no music bed", res.stderr)


if __name__ == "__main__":
    main()
