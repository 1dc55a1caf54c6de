# SPDX-License-Identifier: GPL-3.0-or-later
"""Text from outside never reaches a terminal raw: a CI variable that --shard auto reads, a
script's name in the batch table and reports, script text quoted in an error, an argument
quoted in a usage error or in a file's error (invalid UTF-8 shown as \\xFF, byte by byte).
What holds a control character (ESC starts a terminal's escape sequences) or a
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


ESC, CSI = b"\x1b", "\u009b".encode()   # CSI: a C1 control, which a terminal obeys as ESC [


class ShownArguments(Case):
    """Each argument the command line quotes in a message, with ESC, C1 and invalid UTF-8 in
    it: judged on stderr's bytes. Printable UTF-8 is kept as it is."""

    def assertShown(self, args, status, *shown):
        res = subprocess.run([BIN] + list(args), capture_output=True, cwd=self.tmp,
                             env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")), timeout=60)
        self.assertEqual(res.returncode, status, res.stderr)
        for part in shown:
            self.assertIn(part.encode(), res.stderr)
        self.assertNotIn(ESC, res.stderr)
        self.assertNotIn(CSI, res.stderr)
        self.assertIsNone(RAW.search(res.stderr.decode("utf-8")), res.stderr)   # valid UTF-8
        return res

    def test_usage_errors(self):
        """docs/usage.md, "Exit status": a usage error is exit status 1, with the offending
        argument quoted."""
        cases = [
            ([b"--bogus" + ESC + b"[31m"], "unknown option '--bogus\\u001B[31m'"),
            ([b"-" + ESC], "unknown option '-\\u001B'"),
            ([b"--bogus-caf\xc3\xa9" + CSI], "unknown option '--bogus-caf\u00e9\\u009B'"),
            ([b"--bitrate", b"12" + ESC + b"[2J", b"ep.txt"], "not '12\\u001B[2J'"),
            ([b"--sample-rate", b"44\xff\x7f", b"ep.txt"], "not '44\\xFF\\u007F'"),
            ([b"ep.txt", b"-o", b"ep" + CSI + b".ogg"], ": 'ep\\u009B.ogg'"),
            ([b"a.txt", b"b" + ESC + b"]0;x\x07.txt"], "'b\\u001B]0;x\\u0007.txt'"),
            ([b"help", b"ren" + ESC + b"der"], "no command 'ren\\u001Bder'"),
            ([b"batch", b"-O", b"out", b"--shard", b"1/" + ESC], "not '1/\\u001B'"),
            ([b"check", b"--tolerance", b"\xff1s", b"x.mp3"], "'\\xFF1s' is not a duration"),
            ([b"explain", b"a.txt", b"\xc3"], "'\\xC3'"),
            ([b"feed", b"out", b"x" + ESC], "'x\\u001B'"),
            ([b"feed", b"out", b"--base-url", b"ftp://" + ESC + b"[31m"],
             "--base-url 'ftp://\\u001B[31m'"),
            ([b"cache", b"--stats", b"x" + CSI], "unexpected argument 'x\\u009B'"),
        ]
        for args, shown in cases:
            with self.subTest(args=args):
                self.assertShown(args, 1, shown)

    def test_files_that_cannot_be_opened(self):
        """A missing file named on the command line: exit status 2, its name shown escaped."""
        os.mkdir(self.path("out"))
        cases = [
            ([b"no" + ESC + b"[31m.txt"], "no\\u001B[31m.txt: "),
            ([b"explain", b"no\xff.txt"], "no\\xFF.txt: "),
            ([b"batch", b"-O", b"out", b"no" + CSI + b".txt"], "no\\u009B.txt: "),
            ([b"check", b"no" + ESC + b".mp3"], "no\\u001B.mp3: "),
            ([b"feed", b"no" + ESC + b"dir", b"--base-url", b"https://example.org/"],
             "no\\u001Bdir: "),
        ]
        for args, shown in cases:
            with self.subTest(args=args):
                self.assertShown(args, 2, shown)


if __name__ == "__main__":
    main()
