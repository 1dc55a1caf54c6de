# SPDX-License-Identifier: GPL-3.0-or-later
"""The documented ranges of the numeric options, held at both ends and just outside.

The ranges are read from what the program documents, not from the source: `--list-options`
(the option table the help and the man page list, "whole number A..B" or "number A..B") and
the help's "(default ...; A..B)" for --loudness, which the table holds as text. For each: A and
B are taken (the run goes on, to the script it cannot open: exit 2 naming the script, the
option never mentioned), one step outside either end is a usage error naming the option and
its range (exit 1), and nothing is written. The same for what the help states in words: the
shard K/N (1 <= K <= N <= 1000) and the scheduler's index against --shard-count N (0..N-1 for
a Kubernetes indexed Job), and --max-duration (1 ms to 12 hours, in every unit form)."""
import os
import re

from common import Case, main, run


def documented_ranges(command):
    """{option: (kind, low, high)} from `COMMAND --list-options`."""
    res = run([command, "--list-options"])
    assert res.returncode == 0, res.stderr
    ranges = {}
    for line in res.stdout.splitlines():
        name, _, _, kind = line.split("\t")[:4]
        m = re.fullmatch(r"(whole number|number) (-?[\d.]+)\.\.(-?[\d.]+)", kind)
        if m:
            ranges[name] = (m.group(1), float(m.group(2)), float(m.group(3)))
    return ranges


def number(value):
    return str(int(value)) if value == int(value) else repr(value)


# Every scheduler variable --shard auto reads, empty (the program takes empty as unset), so
# that a CI runner's own variables do not choose for the test.
NO_SCHEDULER = {name: "" for name in (
    "CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL",
    "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "JOB_COMPLETION_INDEX",
    "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
    "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "RENDER_EPISODE_SHARD_COUNT")}


def kubernetes(index):
    return dict(NO_SCHEDULER, JOB_COMPLETION_INDEX=str(index))


class DocumentedRanges(Case):
    def attempt(self, command, option, value, extra=(), env=None):
        args = ([] if command == "render" else [command]) + [option, value, *extra, "missing.txt"]
        if command == "render":
            args += ["-o", "out.mp3"]
        if command == "batch":
            args[1:1] = ["-O", "out"]
        return run(args, cwd=self.tmp, env=env or kubernetes(0))

    def assertTaken(self, command, option, value, extra=(), env=None):
        res = self.attempt(command, option, value, extra, env)
        self.assertEqual(res.returncode, 2, (option, value, res.stderr))
        self.assertIn("missing.txt", res.stderr)
        self.assertNotIn(option, res.stderr)
        return res

    def assertRefused(self, command, option, value, low, high, extra=()):
        res = self.attempt(command, option, value, extra)
        self.assertEqual(res.returncode, 1, (option, value, res.stderr))
        self.assertIn(f"{option} needs a", res.stderr)
        self.assertIn(f"from {number(low)} to {number(high)}, not '{value}'", res.stderr)

    def test_every_numeric_option_at_its_ends(self):
        seen = 0
        for command, extra in (("render", {}), ("explain", {"--sample-rate": ["--max-duration", "3m"]}),
                               ("batch", {"--shard-count": ["--shard", "auto"]})):
            for option, (kind, low, high) in documented_ranges(command).items():
                step = 1 if kind == "whole number" else 0.01
                more = extra.get(option, [])
                with self.subTest(command=command, option=option):
                    seen += 1
                    self.assertTaken(command, option, number(low), more)
                    self.assertTaken(command, option, number(high), more)
                    self.assertRefused(command, option, number(round(low - step, 2)), low, high, more)
                    self.assertRefused(command, option, number(round(high + step, 2)), low, high, more)
        self.assertGreaterEqual(seen, 19)   # render's eight, explain's two, batch's nine
        self.assertEqual(os.listdir(self.tmp), [])

    def test_loudness_at_its_ends(self):
        res = run(["--help"])
        m = re.search(r"--loudness LUFS\|off\s+integrated loudness target \(default -16; "
                      r"(-?\d+)\.\.(-?\d+)\)", res.stdout)
        self.assertTrue(m, res.stdout)
        low, high = float(m.group(1)), float(m.group(2))
        self.assertEqual((low, high), (-40, -5))
        for value in (low, high, -16):
            self.assertTaken("render", "--loudness", number(value))
        for value in (low - 0.01, high + 0.01, 0, 40):
            self.assertRefused("render", "--loudness", number(round(value, 2)), low, high)
        self.assertEqual(os.listdir(self.tmp), [])

    def assertUsage(self, res, *said):
        self.assertEqual(res.returncode, 1, res.stderr)
        for text in said:
            self.assertIn(text, res.stderr)
        self.assertNotIn("missing.txt", res.stderr)

    def test_shard_at_its_ends(self):
        """--shard K/N: 1 <= K <= N <= 1000, as the usage error says."""
        for value in ("1/1", "1/1000", "1000/1000", "999/1000", "0001/3"):
            res = self.attempt("batch", "--shard", value)
            self.assertEqual(res.returncode, 2, (value, res.stderr))
            self.assertIn("missing.txt", res.stderr)
        for value in ("0/1", "2/1", "1/0", "0/0", "1/1001", "1001/1001", "1001/1000", "-1/3",
                      "1/-3", "+1/3", "1/+3", " 1/3", "1/3 ", "1.0/3", "1/3.0", "1/", "/3", "1",
                      "4294967297/4294967297", "1/4294967297"):
            with self.subTest(shard=value):
                self.assertUsage(self.attempt("batch", "--shard", value),
                                 "--shard needs K/N with 1 <= K <= N <= 1000", f"not '{value}'")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_scheduler_index_against_the_count(self):
        """A Kubernetes indexed Job numbers its N pods 0..N-1: the first and the last are shards
        1/N and N/N, one past the last (or a negative, or a count the variable contradicts) is a
        usage error naming the variable; RENDER_EPISODE_SHARD_COUNT holds the same range as
        --shard-count."""
        for count in (1, 2, 1000):
            for index in (0, count - 1):
                res = self.assertTaken("batch", "--shard-count", str(count), ["--shard", "auto"],
                                       kubernetes(index))
                self.assertIn(f"shard {index + 1}/{count} from Kubernetes indexed Job: "
                              f"JOB_COMPLETION_INDEX={index}, --shard-count {count}", res.stdout)
            res = self.attempt("batch", "--shard-count", str(count), ["--shard", "auto"],
                               kubernetes(count))
            self.assertUsage(res, f"JOB_COMPLETION_INDEX: {count} is outside 0..{count - 1}")
            self.assertNotIn("shard ", res.stdout)
        for index in ("-1", "+0", "0.0", " 0", "x"):
            with self.subTest(index=index):
                self.assertUsage(self.attempt("batch", "--shard", "auto", env=kubernetes(index)),
                                 "JOB_COMPLETION_INDEX", "is not a whole number")
        for count, taken in (("1", True), ("1000", True), ("0", False), ("1001", False),
                             ("-1", False)):
            env = dict(kubernetes(0), RENDER_EPISODE_SHARD_COUNT=count)
            res = self.attempt("batch", "--shard", "auto", env=env)
            if taken:
                self.assertEqual(res.returncode, 2, (count, res.stderr))
                self.assertIn(f"shard 1/{count} from", res.stdout)
            else:
                self.assertUsage(res, "RENDER_EPISODE_SHARD_COUNT")
        # --shard-count contradicted by the variable, or without --shard auto
        env = dict(kubernetes(0), RENDER_EPISODE_SHARD_COUNT="4")
        self.assertUsage(self.attempt("batch", "--shard-count", "5", ["--shard", "auto"], env),
                         "says 4 runners, --shard-count 5")
        self.assertUsage(self.attempt("batch", "--shard-count", "5", ["--shard", "1/5"]),
                         "--shard-count goes with --shard auto")
        self.assertEqual(os.listdir(self.tmp), [])

    def test_max_duration_at_its_ends(self):
        """--max-duration: from 1 ms to 12 hours, as the usage error says, in every unit form
        (h, m, s, ms, their combinations, a bare number of seconds, ISO 8601 PT...)."""
        inside = ("1ms", "0.001s", "1.5ms", "PT0.001S", "0.001", "12h", "720m", "43200s",
                  "43200000ms", "11h59m59s999ms", "11h59m59.999s", "PT12H", "PT11H59M59.999S",
                  "43200", "3m", "2m30s", "PT3M", "250ms")
        outside = ("0", "0s", "0ms", "0h", "PT0S", "-0s", "0.999ms", "0.0009s", "0.5ms",
                   "PT0.0009S", "0.0001", "1us", "12h1ms", "12h0.001s", "43200.001s",
                   "43200001ms", "720m1ms", "PT12H0.001S", "13h", "-1s", "-1ms", "-12h",
                   "+1s", "1 s", "1S", "1sec", "PT-1S", "")
        for command in ("render", "explain", "batch"):
            for value in inside:
                with self.subTest(command=command, value=value):
                    self.assertTaken(command, "--max-duration", value)
            for value in outside:
                with self.subTest(command=command, value=value):
                    self.assertUsage(self.attempt(command, "--max-duration", value),
                                     f"--max-duration: '{value}' is not a duration from 1 ms to "
                                     "12 hours")
        self.assertEqual(os.listdir(self.tmp), [])


if __name__ == "__main__":
    main()
