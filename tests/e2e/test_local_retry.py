# SPDX-License-Identifier: GPL-3.0-or-later
"""Issue 18's local retry: when the MP3's decoded true peak passes the ceiling somewhere, only
the frames around that spot are encoded again and spliced in place. A short episode is made
to pass the ceiling with the documented test hook RE_TEST_OVERSHOOT="SECONDS:DB" (the leveled
samples near SECONDS are turned up before the first encode). Judged by ffmpeg's ebur128 true
peak, ffmpeg's and mpg123's gapless sample counts, mutagen's reading of the LAME tag (its
CRCs checked against a CRC-16 computed here, first on a tag LAME wrote itself), and the
bytes: the same on every run and for any -j, and mostly the bytes of the episode without
the overshoot (a full re-encode would change them all)."""
import json
import os
import re
import subprocess

from common import Case, ffmpeg_samples, main, mpg123_samples, run, write

PARAGRAPH = ("This is paragraph number {n} of a test episode about the local retry. It says a "
             "few sentences so that the audio lasts for a while, and the encoder has several "
             "pieces to work with.")
SCRIPT = ("---\ntitle: Local retry\nshow: Tests\npublished: 2026-11-16\n---\n"
          + "\n\n".join(PARAGRAPH.format(n=n) for n in range(1, 8)) + "\n")
HOOK = "RE_TEST_OVERSHOOT"
ENCODES = re.compile(r"^  encodes: (\d+) whole, (\d+) local$", re.M)


def ffmpeg_true_peak(path):
    out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af",
                          "ebur128=peak=true:dualmono=true", "-f", "null", "-"],
                         capture_output=True, text=True, check=True).stderr
    summary = out[out.rindex("Summary:"):]
    return float(re.search(r"True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS", summary).group(1))


def crc16_arc(data, crc=0):
    """CRC-16 as the LAME tag uses it (polynomial 0x8005, reflected, initial 0)."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def lame_tag_crcs(path):
    """(music CRC, tag CRC) as mutagen reads them from the LAME tag, and as computed here over
    the audio frames after the tag frame and over the tag frame's first 190 bytes."""
    from mutagen.mp3._util import XingHeader
    with open(path, "rb") as f:
        data = f.read()
        start = 0
        if data[:3] == b"ID3":
            size = 0
            for b in data[6:10]:            # the ID3v2 size is syncsafe: 7 bits a byte
                size = size << 7 | b
            start = 10 + size
        info = data.index(b"Info", start)
        f.seek(info)
        lame = XingHeader(f).lame_header
    frame_len = 72 * 64000 // 22050          # MPEG-2 layer III, 64 kbps, no padding
    read = (lame.music_crc, lame.header_crc)
    computed = (crc16_arc(data[start + frame_len:]), crc16_arc(data[start:info + 154]))
    return read, computed


class LocalRetry(Case):
    def render(self, name, *extra, hook=None):
        script = write(self.path("ep.txt"), SCRIPT)
        out = self.path(name + ".mp3")
        res = run([script, "-o", out, "--timings", *extra], env={HOOK: hook or ""})
        self.assertEqual(res.returncode, 0, res.stderr)
        m = ENCODES.search(res.stderr)
        self.assertIsNotNone(m, res.stderr)
        with open(self.path(name + ".json"), encoding="utf-8") as f:
            side = json.load(f)
        with open(out, "rb") as f:
            data = f.read()
        return out, data, side, (int(m.group(1)), int(m.group(2)))

    def assert_delivered(self, out, side, samples):
        peak = ffmpeg_true_peak(out)
        self.assertLessEqual(peak, -1.0, f"{out}: true peak {peak} dBTP")
        self.assertLessEqual(side["loudness"]["true_peak_dbtp"], -1.0)
        self.assertLessEqual(abs(side["loudness"]["true_peak_dbtp"] - peak), 0.15)
        self.assertTrue(side["loudness"]["met"])
        self.assertEqual(ffmpeg_samples(out), samples)
        self.assertEqual(mpg123_samples(out), samples)
        self.assertEqual(side["samples"], samples)
        read, computed = lame_tag_crcs(out)
        self.assertEqual(read, computed, f"{out}: LAME tag CRCs")

    def test_an_overshoot_is_re_encoded_in_place(self):
        base_out, base, base_side, base_encodes = self.render("base")
        self.assertEqual(base_encodes, (1, 0))
        samples = base_side["samples"]
        self.assert_delivered(base_out, base_side, samples)

        results = [self.render(f"hook{k}", "-j", j, hook="20:3")
                   for k, j in enumerate(("1", "2", "2"))]
        out, data, side, encodes = results[0]
        # the first encode passed the ceiling, and no second full encode was made
        self.assertEqual(encodes[0], 1, "encoded whole more than once")
        self.assertGreaterEqual(encodes[1], 1, "the hook did not cause a retry")
        for _, other, _, other_encodes in results[1:]:
            self.assertEqual(other, data, "a local retry is not deterministic")
            self.assertEqual(other_encodes, encodes)
        self.assert_delivered(out, side, samples)
        self.assertEqual(len(data), len(base))
        # local: most bytes are those of the episode that did not pass the ceiling (a
        # re-leveled, re-encoded episode shares almost none at the same offsets)
        same = sum(1 for a, b in zip(data, base) if a == b)
        self.assertGreater(same / len(base), 0.75, f"{same} of {len(base)} bytes kept")
        self.assertNotEqual(data, base)

    def test_spots_at_the_start_and_the_end(self):
        # the episode (75 s) is measured in halves into a peak map; after the patch only the
        # tiles around the new frames are decoded again: at the file's first and last
        # second too (the update that reaches the end decodes to it)
        base_out, _, base_side, _ = self.render("ends-base")
        samples = base_side["samples"]
        self.assertGreater(samples, 48 * 22050, "too short for the peak map's halves")
        end = samples / 22050
        for name, hook in (("start", "0.3:3"), ("end", f"{end - 0.4:.2f}:3")):
            out, data, side, encodes = self.render(name, hook=hook)
            self.assertEqual(encodes, (1, 1), name)
            # the sidecar's peak is the patched file's, not the first encode's (over -1)
            self.assert_delivered(out, side, samples)

    def test_serial_encode_still_re_encodes_whole(self):
        out, _, side, encodes = self.render("serial", "--serial-encode", hook="20:0.5")
        self.assertGreaterEqual(encodes[0], 2)
        self.assertEqual(encodes[1], 0)
        base_out, _, base_side, _ = self.render("serial-base", "--serial-encode")
        self.assert_delivered(out, side, base_side["samples"])
        # LAME wrote this tag itself: the CRC computed here agrees with LAME's
        read, computed = lame_tag_crcs(base_out)
        self.assertEqual(read, computed)


if __name__ == "__main__":
    main()
