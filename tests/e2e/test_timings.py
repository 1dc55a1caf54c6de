# SPDX-License-Identifier: GPL-3.0-or-later
"""--timings (issue 18): wall and CPU seconds per step of a render on stderr, and in a batch's
JSON report. Only the presence and shape of the figures are judged (no timed assertion), and
that asking for them changes no byte of any output."""
import hashlib
import json
import os
import re
import shutil

from common import SRC, Case, ffprobe, listing, main, run, write

STEPS = ["parse", "speak", "level", "encode", "measure", "publish"]
ROW = re.compile(r"^  (\w+) +(\d+\.\d{3}) +(\d+\.\d{3})$")


def digests(folder):
    out = {}
    for name in listing(folder):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def timing_rows(stderr):
    """{step: (wall, cpu)} of the table after 'timings:', in the order printed."""
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("timings: "))
    rows = {}
    for line in lines[start + 2:]:
        m = ROW.match(line)
        if not m:
            break
        rows[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return rows


class Timings(Case):
    def sample(self, folder, name="ep.txt"):
        os.makedirs(folder, exist_ok=True)
        return shutil.copy(os.path.join(SRC, "samples", "weekly-briefing.txt"),
                           os.path.join(folder, name))

    def test_render_prints_every_step_and_changes_no_byte(self):
        outputs = {}
        for flag in ("plain", "timed"):
            folder = self.path(flag)
            script = self.sample(folder)
            args = [script, "--no-cache", "-q", "--srt", "--transcript-json", "--page"]
            res = run(args + (["--timings"] if flag == "timed" else []))
            self.assertEqual(res.returncode, 0, res.stderr)
            os.remove(script)
            outputs[flag] = digests(folder)
            if flag == "plain":
                self.assertNotIn("timings", res.stderr)
                continue
            rows = timing_rows(res.stderr)
            self.assertEqual(list(rows), STEPS + ["total"], res.stderr)
            for step, (wall, cpu) in rows.items():
                self.assertGreaterEqual(wall, 0, step)
                self.assertGreaterEqual(cpu, 0, step)
            # the total is the steps' sum (each printed to the millisecond)
            for k in (0, 1):
                self.assertAlmostEqual(rows["total"][k], sum(rows[s][k] for s in STEPS), delta=0.004)
            # a render that synthesized and encoded spent CPU doing it
            self.assertGreater(rows["speak"][1] + rows["encode"][1], 0)
            # the summary line on stdout is still the program's first output there
            self.assertRegex(res.stdout, r"^.*ep\.mp3: PT\d+")
        self.assertEqual(outputs["plain"], outputs["timed"])
        self.assertIn("ep.mp3", outputs["timed"])
        # ffprobe reads the timed render's MP3 as the 49 s episode it is
        info = ffprobe(self.path("timed", "ep.mp3"), "-show_entries", "format=duration")
        self.assertAlmostEqual(float(info["format"]["duration"]), 49.4, delta=0.5)

    def test_batch_report_carries_steps_and_changes_no_byte(self):
        scripts = self.path("scripts")
        self.sample(scripts, "a.txt")
        write(os.path.join(scripts, "b.txt"),
              "---\ntitle: B\n---\nA short second episode, said once.\n\nAnd a second paragraph.\n")
        write(os.path.join(scripts, "bad.txt"), "---\ntitle: Bad\n---\nBad [pause 0ms] pause.\n")
        plain = run(["batch", "-j", "2", "--no-cache", "-O", self.path("plain"), scripts,
                     "--report", self.path("plain.json")])
        timed = run(["batch", "-j", "2", "--no-cache", "-O", self.path("timed"), scripts,
                     "--report", self.path("timed.json"), "--timings"])
        self.assertEqual((plain.returncode, timed.returncode), (1, 1), timed.stderr)  # bad.txt
        self.assertEqual(digests(self.path("plain")), digests(self.path("timed")))
        with open(self.path("plain.json"), encoding="utf-8") as f:
            plain_report = json.load(f)
        with open(self.path("timed.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertNotIn("timings", plain_report)
        self.assertTrue(all("timings" not in e for e in plain_report["episodes"]))
        self.assertNotIn("timings", plain.stderr)

        by_name = {os.path.basename(e["script"]): e for e in report["episodes"]}
        self.assertIsNone(by_name["bad.txt"]["timings"])
        sums = {s: [0.0, 0.0] for s in STEPS}
        for name in ("a.txt", "b.txt"):
            steps = by_name[name]["timings"]
            self.assertEqual(sorted(steps), sorted(STEPS))
            for step in STEPS:
                self.assertEqual(sorted(steps[step]), ["cpu_s", "wall_s"])
                self.assertGreaterEqual(steps[step]["wall_s"], 0)
                self.assertGreaterEqual(steps[step]["cpu_s"], 0)
                sums[step][0] += steps[step]["wall_s"]
                sums[step][1] += steps[step]["cpu_s"]
            self.assertGreater(steps["encode"]["cpu_s"], 0)
        whole = report["timings"]
        self.assertGreater(whole["wall_s"], 0)
        self.assertGreater(whole["cpu_s"], 0)
        for step in STEPS:
            self.assertAlmostEqual(whole["steps"][step]["wall_s"], sums[step][0], places=6)
            self.assertAlmostEqual(whole["steps"][step]["cpu_s"], sums[step][1], places=6)
        # and on stderr: the same sums, then the batch's own wall and CPU
        rows = timing_rows(timed.stderr)
        self.assertEqual(list(rows), STEPS + ["total", "batch"], timed.stderr)
        for step in STEPS:
            self.assertAlmostEqual(rows[step][1], sums[step][1], delta=0.0011)
        self.assertAlmostEqual(rows["batch"][0], whole["wall_s"], delta=0.0011)

        # nothing changed: each episode only reads its sidecar (parse), no other step runs
        again = run(["batch", "-j", "2", "--no-cache", "-O", self.path("timed"), scripts,
                     "--report", self.path("again.json"), "--timings"])
        with open(self.path("again.json"), encoding="utf-8") as f:
            again_report = json.load(f)
        for e in again_report["episodes"]:
            if e["status"] == "up-to-date":
                self.assertEqual([s for s in STEPS if e["timings"][s]["wall_s"] > 0], ["parse"],
                                 again.stderr)
        self.assertEqual(sum(e["status"] == "up-to-date" for e in again_report["episodes"]), 2)


if __name__ == "__main__":
    main()
