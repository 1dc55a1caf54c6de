# SPDX-License-Identifier: GPL-3.0-or-later
"""Loudness on the decoded MP3, judged by ffmpeg's own BS.1770 meter (ebur128 filter, true
peak, dual mono): quiet, loud and mixed-voice scripts reach the target within 1 LU with the
true peak at or under the ceiling, and the sidecar tells the truth about it."""
import json
import os

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
