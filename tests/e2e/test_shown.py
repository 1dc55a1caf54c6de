# SPDX-License-Identifier: GPL-3.0-or-later
"""Text from outside never reaches a terminal raw: a CI variable that --shard auto reads, a
script's name in the batch table and reports, script text quoted in an error. What holds a control character (ESC starts a terminal's escape sequences) or a
bidirectional override or isolate (U+202A..U+202E, U+2066..U+2069, which make a line read in
another order than it is written) is shown as \\uXXXX. Judged on the bytes of the program's
standard output and error, and by python's json for the report."""
import json
import os
import re
import subprocess

from common import BIN, Case, main, run
from common import write as write_file


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return write_file(path, text)

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
RLO = "\u202e"


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CI_", "CIRCLE_", "BUILDKITE_", "SLURM_", "JOB_COMPLETION", "RENDER_EPISODE_"))}
    env.update(extra)
    return env


class Shown(Case):
    def assertClean(self, text):
        self.assertIsNone(RAW.search(text), repr(text))

    def test_a_ci_variable_with_an_escape_sequence(self):
        folder = self.path("ci")
        write(os.path.join(folder, "in", "a.txt"), "---\ntitle: T\n---\nHello.\n")
        res = subprocess.run([BIN, "batch", "--shard", "auto", "-O", "out", "in"], cwd=folder,
                             capture_output=True, text=True,
                             env=clean_env(CI_NODE_INDEX="\x1b[2J\x1b[31m1", CI_NODE_TOTAL="2"))
        self.assertNotEqual(res.returncode, 0, res.stderr)
        self.assertIn("CI_NODE_INDEX: '\\u001B[2J\\u001B[31m1' is not a whole number", res.stderr)
        self.assertClean(res.stdout + res.stderr)

    def test_a_bidi_override_in_a_script_name(self):
        folder = self.path("names")
        name = f"a{RLO}txt.mp3"
        write(os.path.join(folder, "in", name + ".txt"), "---\ntitle: T\n---\nHello.\n")
        res = run(["batch", "-O", "out", "in", "--report", "r.json", "--no-cache"], cwd=folder)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("a\\u202Etxt.mp3  rendered", res.stdout)
        self.assertClean(res.stdout + res.stderr)
        with open(os.path.join(folder, "r.json"), encoding="utf-8") as f:
            report = json.load(f)
        self.assertIn("a\\u202Etxt.mp3", report["episodes"][0]["script"])
        self.assertNotIn(RLO, json.dumps(report, ensure_ascii=False))
        # the file itself keeps its name
        self.assertTrue(os.path.exists(os.path.join(folder, "out", name + ".mp3")))

    def test_script_text_quoted_in_an_error(self):
        folder = self.path("quoted")
        write(os.path.join(folder, "ep.txt"), f"---\ntitle: T\nk{RLO}ey: 1\n---\nHello.\n")
        res = run(["ep.txt", "-o", "ep.mp3"], cwd=folder)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("ep.txt:3:1: unknown front-matter key 'k\\u202Eey'", res.stderr)
        self.assertClean(res.stdout + res.stderr)

    def test_a_script_name_in_an_error_and_a_failed_episode(self):
        folder = self.path("failed")
        name = f"b{RLO}x"
        write(os.path.join(folder, "in", name + ".txt"), "---\ntitle: T\nnope: 1\n---\nHello.\n")
        res = run(["batch", "-O", "out", "in", "--no-cache"], cwd=folder)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("in/b\\u202Ex.txt:3:1: unknown front-matter key 'nope'", res.stderr)
        self.assertIn("b\\u202Ex  FAILED", res.stdout)
        self.assertClean(res.stdout + res.stderr)


if __name__ == "__main__":
    main()
