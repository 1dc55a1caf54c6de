# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: every option is described once, in its command's option table. `--help` prints
the table's description of each option, word for word, in the table's order; the man page's
entries of every command are what scripts/man-options makes of `COMMAND --list-options` (the
same names, value names and descriptions, in the same order), and the page names no option
that no table has. The checker is shown to fail on a page whose description differs, whose
entry is missing or which has one entry too many."""
import os
import re
import shutil
import subprocess

from common import BIN, SRC, Case, main, run

COMMANDS = ["render", "batch", "check", "feed", "cache", "explain", "voices"]
PAGE = os.path.join(SRC, "docs", "render-episode.1")
SCRIPT = os.path.join(SRC, "scripts", "man-options")
# the program's own, not a command's: `render-episode -V`, `render-episode [COMMAND] --list-options`
PROGRAM_OPTIONS = {"-V", "--version", "--list-options"}
# the examples of OPTION SYNTAX: `--name=VALUE`, a prefix such as `--out`, grouped flags
SYNTAX_EXAMPLES = {"--name", "--out", "-qj4"}
# an option line of a help: "  -r, --sample-rate HZ   ..." or "      --srt   ..." (a
# description's further lines are indented deeper, even one that starts with an --option)
HELP_LINE = re.compile(r"^  (?:(-[A-Za-z]), |    )(--[a-z][a-z0-9-]*)(?: ([A-Z][\w./|]*))?(?:  *(.*))?$")


def table(command):
    """[(long, short or None, value or None, description)] from `COMMAND --list-options`."""
    res = run([command, "--list-options"])
    assert res.returncode == 0 and res.stderr == "", res.stderr
    rows = []
    for line in res.stdout.splitlines():
        fields = line.split("\t")
        assert len(fields) == 6, line
        rows.append((fields[0], None if fields[1] == "-" else fields[1],
                     None if fields[2] == "-" else fields[2], fields[5]))
    return rows


def help_options(text):
    """[(long, short or None, value or None, description)] as the help prints them: an option
    line, then its description's further lines (indented deeper, up to a blank line or the
    next option), joined by one space."""
    rows = []
    current = None
    for line in text.splitlines():
        m = HELP_LINE.match(line)
        if m:
            short, name, value, start = m.groups()
            current = [name, short, value, [start] if start else []]
            rows.append(current)
        elif current and line.startswith("   ") and line.strip():
            current[3].append(line.strip())
        else:
            current = None
    return [(n, s, v, " ".join(d)) for n, s, v, d in rows]


def check_page(page):
    return subprocess.run(["/usr/bin/python3", SCRIPT, "--check", BIN, page], capture_output=True,
                          text=True, timeout=120)


class HelpFromTable(Case):
    def test_help_prints_each_description_of_the_table(self):
        for command in COMMANDS:
            with self.subTest(command=command):
                res = run([command, "--help"])
                self.assertEqual(res.returncode, 0, res.stderr)
                shown = [row for row in help_options(res.stdout) if row[0] not in PROGRAM_OPTIONS]
                rows = table(command)
                self.assertGreaterEqual(len(rows), 2)
                for row in rows:
                    self.assertTrue(row[3], row)   # every option has a description
                self.assertEqual(shown, rows)


class ManPageFromTable(Case):
    def test_the_page_is_what_the_table_makes(self):
        res = check_page(PAGE)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def page_copy(self):
        copy = self.path("render-episode.1")
        shutil.copyfile(PAGE, copy)
        with open(copy, encoding="utf-8") as f:
            return copy, f.read()

    def assertRefused(self, copy, text, needle):
        with open(copy, "w", encoding="utf-8") as f:
            f.write(text)
        res = check_page(copy)
        self.assertEqual(res.returncode, 1, res.stdout + res.stderr)
        self.assertIn(needle, res.stdout)
        self.assertIn("is not what the option table makes", res.stdout)

    def test_a_page_that_differs_is_refused(self):
        copy, page = self.page_copy()
        # one word of one description (render's --srt), the value name of another
        srt = re.search(r"^\\fB\\-\\-srt\\fR\n(.*)$", page, re.M)
        self.assertTrue(srt, "no --srt entry")
        self.assertRefused(copy, page.replace(srt.group(0), srt.group(0).replace("also", "then", 1),
                                              1), "-then write")
        self.assertRefused(copy, page.replace(r"\fB\-\-outdir\fR \fIDIR\fR",
                                              r"\fB\-\-outdir\fR \fIFOLDER\fR", 1), "-\\fB\\-O")
        # an entry missing, an entry the table lacks
        quiet = re.search(r"^\.TP\n\\fB\\-q\\fR, \\fB\\-\\-quiet\\fR\n[^.].*\n", page, re.M)
        self.assertTrue(quiet, "no --quiet entry")
        self.assertRefused(copy, page.replace(quiet.group(0), "", 1), "+\\fB\\-q\\fR, \\fB\\-\\-quiet")
        self.assertRefused(copy, page.replace(quiet.group(0), quiet.group(0)
                                              + ".TP\n\\fB\\-\\-loud\\fR\nshout\n", 1), "-shout")
        # a marker gone: an error that names it
        with open(copy, "w", encoding="utf-8") as f:
            f.write(page.replace('.\\" end of the options of feed\n', ""))
        res = check_page(copy)
        self.assertNotEqual(res.returncode, 0)
        self.assertIn("end of the options of feed", res.stderr)

    def test_the_page_names_no_option_no_table_has(self):
        """Outside the written blocks too: no entry, and no mention, of an option that no
        command has (a removed option left in the prose)."""
        known = PROGRAM_OPTIONS | SYNTAX_EXAMPLES
        for command in COMMANDS:
            for long_name, short, _value, _description in table(command):
                known.add(long_name)
                if short:
                    known.add(short)
        with open(PAGE, encoding="utf-8") as f:
            page = f.read()
        text = page.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
        # not a program's option quoted: "espeak-ng -x", "lame(1)"
        named = set(m.group(1) for m in re.finditer(r"(?<![\w./-])(--?[a-zA-Z][a-z0-9-]*)(?![\w])", text))
        named.discard("-")
        for name in sorted(named):
            with self.subTest(option=name):
                self.assertIn(name, known)


if __name__ == "__main__":
    main()
