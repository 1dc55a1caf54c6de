# SPDX-License-Identifier: GPL-3.0-or-later
"""Air around sound files: the sound gap between speech and a sound (`sound_gap:`, 250 ms by
default), measured in the decoded audio.

Every render here is a --loudness off WAV, decoded by ffmpeg to raw PCM. The sound files are
16-bit mono at the episode's rate, so they are played bit-exact, and none of their samples is 0:
each one is found in the decoded episode by its own bytes (not by the sidecar), and the gap on
each side is the run of exact zero samples between it and the speech next to it (the speech
ends and starts on a sample that is not 0: the engine's own silence is trimmed, as for every
pause). The sidecar's insert starts, the chapters and the cues must agree with what was found."""
import array
import json
import os
import re
import wave

from common import Case, ffmpeg_pcm, main, run, write

DEFAULT_GAP_S = 0.25


def frames(seconds, rate):
    """A duration in samples as the program counts it: to the nearest sample, half up."""
    return int(seconds * 1000000 * rate + 500000) // 1000000


def make_sound(path, period, seconds, rate):
    """A square wave of `period` samples, +-6000: no sample is 0, and each period makes a
    different file, so each sound is found by its own bytes."""
    n = frames(seconds, rate)
    data = b"".join((6000 if (k // (period // 2)) % 2 == 0 else -6000).to_bytes(2, "little", signed=True)
                    for k in range(n))
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(data)
    return data


def declicked(sound, rate):
    """The sound as the episode must hold it: a first or last sample louder than 8 (of 32767)
    is faded over 5 ms, smoothstep weights k^2 (3d - 2k) / d^3 with d = F + 1 for the k-th
    sample from the edge, truncated, a non-zero sample kept at +-1 (docs/design.md, "No
    clicks")."""
    x = list(array.array("h", sound))
    fade = min(frames(0.005, rate), 256, len(x) // 2)
    d = fade + 1

    def w(v, k):
        y = abs(v) * k * k * (3 * d - 2 * k) // (d * d * d)
        y = y if y or not v else 1
        return y if v >= 0 else -y
    if abs(x[0]) > 8:
        x[:fade] = [w(v, k + 1) for k, v in enumerate(x[:fade])]
    if abs(x[-1]) > 8:
        x[len(x) - fade:] = [w(v, fade - k) for k, v in enumerate(x[len(x) - fade:])]
    return array.array("h", x).tobytes()


def zeros_before(pcm, at):
    """The exact zero samples just before sample `at` of the int16 PCM bytes."""
    k = at
    while k > 0 and pcm[2 * (k - 1):2 * k] == b"\0\0":
        k -= 1
    return at - k


def zeros_after(pcm, at):
    """The exact zero samples from sample `at` on."""
    k, n = at, len(pcm) // 2
    while k < n and pcm[2 * k:2 * k + 2] == b"\0\0":
        k += 1
    return k - at


def vtt_cues_ms(path):
    cues = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"(\d+):(\d\d):(\d\d)\.(\d{3}) --> (\d+):(\d\d):(\d\d)\.(\d{3})", line)
            if m:
                v = list(map(int, m.groups()))
                cues.append((((v[0] * 60 + v[1]) * 60 + v[2]) * 1000 + v[3],
                             ((v[4] * 60 + v[5]) * 60 + v[6]) * 1000 + v[7]))
    return cues


class SoundGap(Case):
    def setUp(self):
        super().setUp()
        self.folder = self.path("show")
        os.makedirs(os.path.join(self.folder, "sounds"))

    def sounds(self, rate, *names):
        """Makes each named sound (0.3 s; the intro and outro 0.5 s) and returns their bytes."""
        made = {}
        for k, name in enumerate(names):
            seconds = 0.5 if name in ("intro", "outro") else 0.3
            made[name] = declicked(make_sound(os.path.join(self.folder, "sounds", f"{name}.wav"),
                                              20 + 6 * k, seconds, rate), rate)
        return made

    def render(self, front, body, rate=22050, name="ep"):
        """Renders the script; returns (decoded PCM bytes, sidecar, VTT path)."""
        script = write(os.path.join(self.folder, f"{name}.txt"),
                       f"---\ntitle: Gap\nsample_rate: {rate}\n{front}---\n{body}")
        out = self.path(f"{name}.wav")
        res = run([script, "-o", out, "--loudness", "off", "--cache", self.path("cache"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path(f"{name}.json"), encoding="utf-8") as f:
            side = json.load(f)
        pcm = ffmpeg_pcm(out)
        self.assertEqual(len(pcm) // 2, side["samples"])
        return pcm, side, self.path(f"{name}.vtt")

    def find(self, pcm, sound):
        """The sample where the sound's bytes are in the episode (exactly once)."""
        at = pcm.find(sound)
        self.assertGreaterEqual(at, 0, "the sound is not in the episode bit-exact")
        self.assertEqual(at % 2, 0)
        self.assertEqual(pcm.find(sound, at + 1), -1, "the sound is in the episode twice")
        return at // 2

    def gaps(self, pcm, sound):
        """(zeros before, start, zeros after) of a sound in the episode."""
        start = self.find(pcm, sound)
        end = start + len(sound) // 2
        return zeros_before(pcm, start), start, zeros_after(pcm, end)

    def assert_speech_at(self, pcm, sample):
        self.assertNotEqual(pcm[2 * sample:2 * sample + 2], b"\0\0", f"no sound at {sample}")

    def test_default_gap_around_inserts_intro_and_outro(self):
        """250 ms of exact silence between speech and each sound, on both sides: an insert in
        a sentence, one alone in its paragraph after a heading (its chapter starts at the sound),
        the intro (before the first words) and the outro (after the last), at 22050 and 44100 Hz.
        The sidecar's insert starts are where the sounds are; the chapter after the heading starts
        at its sound; the cue after each sound starts at the speech after the gap."""
        body = ("# One\n\nThe first words. [sound sounds/sting.wav] And the second part.\n\n"
                "# Two\n\n[sound sounds/chime.wav]\n\nThe last words.\n")
        for rate in (22050, 44100):
            with self.subTest(rate=rate):
                made = self.sounds(rate, "intro", "sting", "chime", "outro")
                pcm, side, vtt = self.render("intro: sounds/intro.wav\noutro: sounds/outro.wav\n",
                                             body, rate, f"ep{rate}")
                gap = frames(DEFAULT_GAP_S, rate)
                found = {}
                for name in ("intro", "sting", "chime", "outro"):
                    before, start, after = self.gaps(pcm, made[name])
                    found[name] = start
                    end = start + len(made[name]) // 2
                    if name == "intro":
                        self.assertEqual(start, 0)
                    else:
                        self.assertEqual(before, gap, f"{name}: silence before it")
                        self.assert_speech_at(pcm, start - gap - 1)
                    if name == "outro":
                        self.assertEqual(end, len(pcm) // 2)   # it ends the episode
                    else:
                        self.assertEqual(after, gap, f"{name}: silence after it")
                        self.assert_speech_at(pcm, end + gap)
                self.assertEqual([(i["kind"], i["start"]) for i in side["inserts"]],
                                 [("intro", 0), ("sound", found["sting"]), ("sound", found["chime"]),
                                  ("outro", found["outro"])])
                two = next(c for c in side["chapters"] if c["title"] == "Two")
                self.assertEqual(two["start_ms"], side["inserts"][2]["start_ms"])
                self.assertEqual(two["start_ms"], found["chime"] * 1000 // rate)
                starts = [s for s, _ in vtt_cues_ms(vtt)]
                for name in ("intro", "sting", "chime"):
                    speech = (found[name] + len(made[name]) // 2 + gap) * 1000 / rate
                    self.assertTrue(any(abs(t - speech) <= 1 for t in starts),
                                    f"no cue starts at the speech after {name} ({speech} ms): {starts}")
                for start, end in vtt_cues_ms(vtt):   # no cue reaches into a sound
                    for name in ("sting", "chime", "outro"):
                        first = found[name] * 1000 / rate
                        last = first + len(made[name]) // 2 * 1000 / rate
                        self.assertFalse(start < last - 1 and end > first + 1,
                                         f"cue {start}-{end} over {name} {first}-{last}")

    def test_sound_gap_front_matter(self):
        """`sound_gap: 0.5s` is the gap on every side; `sound_gap: 0s` joins sound and speech."""
        body = "Before the sound. [sound sounds/sting.wav] After the sound.\n"
        for value, seconds in (("0.5s", 0.5), ("80ms", 0.08), ("0s", 0)):
            with self.subTest(sound_gap=value):
                made = self.sounds(22050, "intro", "sting", "outro")
                pcm, _, _ = self.render(f"intro: sounds/intro.wav\noutro: sounds/outro.wav\n"
                                        f"sound_gap: {value}\n", body, name="gap" + value)
                gap = frames(seconds, 22050)
                self.assertEqual(self.gaps(pcm, made["intro"])[2], gap)
                before, _, after = self.gaps(pcm, made["sting"])
                self.assertEqual((before, after), (gap, gap))
                self.assertEqual(self.gaps(pcm, made["outro"])[0], gap)

    def test_a_written_pause_is_the_gap(self):
        """A [pause] next to a sound is the silence on that side, not added to the gap; the
        other side keeps the gap. For the intro a leading pause, for the outro a trailing one."""
        made = self.sounds(22050, "intro", "sting", "outro")
        pcm, _, _ = self.render("intro: sounds/intro.wav\noutro: sounds/outro.wav\n",
                                "[pause 1s]\n\nWords first. [pause 700ms] [sound sounds/sting.wav] "
                                "Then more words. [pause 100ms]\n")
        self.assertEqual(self.gaps(pcm, made["intro"])[2], 22050)
        before, _, after = self.gaps(pcm, made["sting"])
        self.assertEqual((before, after), (frames(0.7, 22050), frames(DEFAULT_GAP_S, 22050)))
        self.assertEqual(self.gaps(pcm, made["outro"])[0], frames(0.1, 22050))
        # and on the other side of the insert, with sound_gap set: still the pause
        pcm, _, _ = self.render("sound_gap: 2s\n", "Words first. [sound sounds/sting.wav] "
                                "[pause 300ms] Then more words.\n", name="after")
        before, _, after = self.gaps(pcm, made["sting"])
        self.assertEqual((before, after), (frames(2, 22050), frames(0.3, 22050)))

    def test_paragraph_edges_and_sounds_together(self):
        """A sound that ends a paragraph is followed by the paragraph pause (750 ms for host),
        which is its air: the gap is not added to it, but it is at least the gap
        (`sound_gap: 1s`). Two sounds next to each other play back to back; the gap is on the
        outside of the pair."""
        made = self.sounds(22050, "sting", "chime")
        body = "A paragraph ends with a sound. [sound sounds/sting.wav]\n\nThe next paragraph.\n"
        pcm, _, _ = self.render("", body, name="edge")
        self.assertEqual(self.gaps(pcm, made["sting"]), (frames(DEFAULT_GAP_S, 22050),
                                                         self.find(pcm, made["sting"]),
                                                         frames(0.75, 22050)))
        pcm, _, _ = self.render("sound_gap: 1s\n", body.replace("[sound sounds/sting.wav]\n\n",
                                                                  "\n\n[sound sounds/sting.wav] "),
                                name="edge2")
        before, _, after = self.gaps(pcm, made["sting"])
        self.assertEqual((before, after), (22050, 22050))
        pcm, _, _ = self.render("", "Two sounds. [sound sounds/sting.wav][sound sounds/chime.wav] "
                                "Then words.\n", name="pair")
        before, sting, between = self.gaps(pcm, made["sting"])
        self.assertEqual((before, between), (frames(DEFAULT_GAP_S, 22050), 0))
        self.assertEqual(self.find(pcm, made["chime"]), sting + len(made["sting"]) // 2)
        self.assertEqual(self.gaps(pcm, made["chime"])[2], frames(DEFAULT_GAP_S, 22050))

    def test_intro_overlap_keeps_its_meaning(self):
        """With intro_overlap the first words start under the intro's tail: no gap there, the
        first cue at intro length minus the overlap."""
        self.sounds(22050, "intro")
        _, side, vtt = self.render("intro: sounds/intro.wav\nintro_overlap: 200ms\n",
                                   "Over the tail.\n")
        intro = side["inserts"][0]
        first_cue = vtt_cues_ms(vtt)[0][0]
        self.assertAlmostEqual(first_cue, intro["samples"] * 1000 / 22050 - 200, delta=1.5)

    def test_errors(self):
        """A bad sound_gap is an error at its value's FILE:LINE:COL, exit 2, nothing written."""
        for value, message in (("1.5", "sound_gap '1.5' is not a duration: no unit"),
                               ("601s", "sound_gap 601s is out of range: 0s to 600s"),
                               ("-1s", "sound_gap '-1s' is not a duration"),
                               ("0.5s later", "sound_gap '0.5s later' is not a duration: "
                                              "unexpected text after the unit"),
                               ("0.0000001s", "sound_gap 0.0000001s is not exact")):
            with self.subTest(value=value):
                script = write(os.path.join(self.folder, "bad.txt"),
                               f"---\ntitle: Bad\nsound_gap: {value}\n---\nHi.\n")
                out = self.path("bad", "ep.mp3")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                res = run([script, "-o", out, "-q"])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"{script}:3:12: {message}", res.stderr)
                self.assertEqual(os.listdir(self.path("bad")), [])


if __name__ == "__main__":
    main()
