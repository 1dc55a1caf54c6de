# SPDX-License-Identifier: GPL-3.0-or-later
"""The documented ranges of the numeric options, held at both ends and just outside.

The ranges are read from what the program documents, not from the source: `--list-options`
(the option table the help and the man page list, "whole number A..B" or "number A..B") and
the help's "(default ...; A..B)" for --loudness, which the table holds as text. For each: A and
B are taken (the run goes on, to the script it cannot open: exit 2 naming the script, the
option never mentioned), one step outside either end is a usage error naming the option and
its range (exit 1), and nothing is written."""
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


class DocumentedRanges(Case):
    def attempt(self, command, option, value, extra=()):
        args = ([] if command == "render" else [command]) + [option, value, *extra, "missing.txt"]
        if command == "render":
            args += ["-o", "out.mp3"]
        return run(args, cwd=self.tmp)

    def assertTaken(self, command, option, value, extra=()):
        res = self.attempt(command, option, value, extra)
        self.assertEqual(res.returncode, 2, (option, value, res.stderr))
        self.assertIn("missing.txt", res.stderr)
        self.assertNotIn(option, res.stderr)

    def assertRefused(self, command, option, value, low, high, extra=()):
        res = self.attempt(command, option, value, extra)
        self.assertEqual(res.returncode, 1, (option, value, res.stderr))
        self.assertIn(f"{option} needs a", res.stderr)
        self.assertIn(f"from {number(low)} to {number(high)}, not '{value}'", res.stderr)

    def test_every_numeric_option_at_its_ends(self):
        seen = 0
        for command, extra in (("render", {}), ("explain", {"--sample-rate": ["--max-duration", "3m"]})):
            for option, (kind, low, high) in documented_ranges(command).items():
                step = 1 if kind == "whole number" else 0.01
                more = extra.get(option, [])
                with self.subTest(command=command, option=option):
                    seen += 1
                    self.assertTaken(command, option, number(low), more)
                    self.assertTaken(command, option, number(high), more)
                    self.assertRefused(command, option, number(round(low - step, 2)), low, high, more)
                    self.assertRefused(command, option, number(round(high + step, 2)), low, high, more)
        self.assertGreaterEqual(seen, 10)   # render's eight, explain's two
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


if __name__ == "__main__":
    main()
