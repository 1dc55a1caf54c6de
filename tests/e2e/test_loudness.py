# SPDX-License-Identifier: GPL-3.0-or-later
"""Loudness on the decoded MP3, judged by ffmpeg's own BS.1770 meter (ebur128 filter, true
peak, dual mono): quiet, loud and mixed-voice scripts reach the target within 1 LU with the
true peak at or under the ceiling, and the sidecar tells the truth about it: also for sound
inserts whose energy the MP3 encoder does not keep (a 10.5 kHz tone, a square wave at half the
sample rate), where every loudness number written must be the decoded file's."""
import json
import os
import re
import subprocess
import wave

from common import Case, ebur128, main, run, write

TEXT = ("Loudness matters to listeners who switch between shows. This briefing checks that "
        "quiet and loud voices both land on the target. [pause 400ms] Numbers like 2026 and "
        "names like Gloo and NCCL are read too.\n\n"
        "A second paragraph adds some length, so that the gated measurement has enough blocks "
        "to work with, and so that the loudness range is meaningful.\n")



class Loudness(Case):
    def voices(self, host_volume, guest_volume):
        d = self.path("voices")
        os.makedirs(d, exist_ok=True)
        write(os.path.join(d, "host.voice"), f"voice = en-us\nvolume = {host_volume}\n")
        write(os.path.join(d, "guest.voice"), f"voice = en-gb+f3\nvolume = {guest_volume}\n")
        return d

    def render(self, name, body, voices, *extra):
        script = write(self.path(name + ".txt"), "---\ntitle: Loudness\n---\n" + body)
        out = self.path(name + ".mp3")
        res = run([script, "-o", out, "--voices", voices, *extra])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path(name + ".json"), encoding="utf-8") as f:
            return out, json.load(f)["loudness"]

    def assert_on_target(self, out, side, target, ceiling=-1.0):
        integrated, peak = ebur128(out)
        self.assertLessEqual(abs(integrated - target), 1.0, f"{out}: {integrated} LUFS")
        self.assertLessEqual(peak, ceiling, f"{out}: true peak {peak} dBTP")
        self.assertTrue(side["met"])
        self.assertEqual(side["target_lufs"], target)
        # our meter and ffmpeg's agree (ffmpeg prints one decimal)
        self.assertLessEqual(abs(side["integrated_lufs"] - integrated), 0.15)
        self.assertLessEqual(abs(side["true_peak_dbtp"] - peak), 0.15)

    def test_quiet_loud_and_mixed_reach_minus_16(self):
        cases = {"quiet": (20, 20, TEXT), "loud": (200, 200, TEXT),
                 "mixed": (25, 200, TEXT + "\n[voice guest] And now a much louder guest joins in, "
                                   "with a sentence or two of her own to make the mix uneven.\n")}
        for name, (hv, gv, body) in cases.items():
            with self.subTest(name):
                out, side = self.render(name, body, self.voices(hv, gv))
                self.assert_on_target(out, side, -16.0)

    def test_other_targets_and_ceiling(self):
        voices = self.voices(100, 100)
        for target in (-19.0, -23.0):
            with self.subTest(target):
                out, side = self.render(f"t{int(-target)}", TEXT, voices, "--loudness", str(target))
                self.assert_on_target(out, side, target)
        out, side = self.render("tp", TEXT, voices, "--true-peak", "-3")
        self.assert_on_target(out, side, -16.0, ceiling=-3.0)

    def test_off_keeps_the_engine_level_and_says_so(self):
        voices = self.voices(30, 30)
        out, side = self.render("off", TEXT, voices, "--loudness", "off")
        integrated, _ = ebur128(out)
        self.assertLess(integrated, -20.0)        # a quiet voice stays quiet
        self.assertIsNone(side["target_lufs"])
        self.assertIsNone(side["met"])
        self.assertLessEqual(abs(side["integrated_lufs"] - integrated), 0.15)

    def render_with_insert(self, name, make_insert, *extra):
        """A script with a sound insert made by make_insert(path), rendered with the stock
        voice: (ffmpeg's integrated LUFS and true peak of the MP3, the sidecar's loudness, the
        program's stdout and stderr)."""
        make_insert(self.path(name + ".wav"))
        script = write(self.path(name + ".txt"),
                       "---\ntitle: Insert\n---\n" + TEXT.split("\n\n")[0] + "\n\n"
                       f"[sound {name}.wav]\n\n" + TEXT.split("\n\n")[1])
        out = self.path(name + ".mp3")
        res = run([script, "-o", out, *extra])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path(name + ".json"), encoding="utf-8") as f:
            side = json.load(f)["loudness"]
        integrated, peak = ebur128(out)
        return integrated, peak, side, res

    def assert_told_truly(self, integrated, peak, side, res, target=-16.0, ceiling=-1.0):
        """The sidecar and the summary line give the decoded file's loudness, and say "met"
        only when ffmpeg finds it within the tolerance (0.5 LU) of the target, under the
        ceiling."""
        self.assertLessEqual(abs(side["integrated_lufs"] - integrated), 0.15,
                             f"sidecar {side['integrated_lufs']}, ffmpeg {integrated} LUFS")
        self.assertLessEqual(abs(side["true_peak_dbtp"] - peak), 0.15)
        summary = re.search(r"(-?[\d.]+) LUFS, (-?[\d.]+) dBTP", res.stdout)
        self.assertIsNotNone(summary, res.stdout)
        self.assertLessEqual(abs(float(summary.group(1)) - integrated), 0.15, res.stdout)
        in_spec = abs(integrated - target) <= 0.5 + 0.05 and peak <= ceiling
        if side["met"]:
            self.assertTrue(in_spec, f"met, but ffmpeg reads {integrated} LUFS, {peak} dBTP")
            self.assertNotIn("not reached", res.stderr)
        else:
            self.assertIn("not reached", res.stderr)

    def test_an_insert_the_encoder_drops_is_not_counted(self):
        """LAME keeps nothing above about 10 kHz at 22050 Hz (the top scale-factor band, which
        it does not code): a loud insert up there counted for the gain before, vanished from the
        MP3, and the file came out 10 to 18 LU under the target while it said -16.0, met."""
        def tone(path):
            subprocess.run(["sox", "-D", "-n", "-r", "22050", "-c", "1", "-b", "16", path,
                            "synth", "8", "sine", "10500", "vol", "0.5"],
                           check=True, capture_output=True)

        def square_at_half_the_rate(path):
            with wave.open(path, "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(22050)
                w.writeframes(b"".join((16000 if i % 2 == 0 else -16000).to_bytes(2, "little", signed=True)
                                       for i in range(22050 * 8)))

        for name, make in (("tone", tone), ("square", square_at_half_the_rate)):
            with self.subTest(name):
                integrated, peak, side, res = self.render_with_insert(name, make)
                self.assert_told_truly(integrated, peak, side, res)
                # and the delivered file reaches the target (the gain is corrected from the
                # decoded file), so the sidecar can say met
                self.assertTrue(side["met"], f"{name}: ffmpeg {integrated} LUFS, {peak} dBTP")
                self.assertLessEqual(abs(integrated - -16.0), 0.55, f"{name}: {integrated} LUFS")

    def test_an_unreachable_target_is_reported_as_missed(self):
        """-5 LUFS under a -20 dBTP ceiling cannot be had: the numbers are still the file's, and
        neither the sidecar nor the summary says met."""
        def quiet_tone(path):
            subprocess.run(["sox", "-D", "-n", "-r", "22050", "-c", "1", "-b", "16", path,
                            "synth", "2", "sine", "1000", "vol", "0.1"],
                           check=True, capture_output=True)
        integrated, peak, side, res = self.render_with_insert(
            "unreachable", quiet_tone, "--loudness", "-5", "--true-peak", "-20")
        self.assert_told_truly(integrated, peak, side, res, target=-5.0, ceiling=-20.0)
        self.assertFalse(side["met"])

    def test_bad_values_are_usage_errors(self):
        script = write(self.path("s.txt"), "---\ntitle: t\n---\nHello.\n")
        for args in (["--loudness", "-3"], ["--loudness", "loud"], ["--true-peak", "1"],
                     ["--loudness", "off", "--true-peak", "-2"], ["--loudness", "-16x"]):
            with self.subTest(args=args):
                res = run([script, *args])
                self.assertEqual(res.returncode, 1, res.stderr)
                self.assertRegex(res.stderr, r"--(loudness|true-peak)")


if __name__ == "__main__":
    main()
