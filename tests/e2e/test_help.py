# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: help and documentation as a new user meets them. Every subcommand answers
`--help` and `help COMMAND` alike; the man page, formatted by groff (not ours), names every
command and every option the helps list; `cmake --install` into a DESTDIR installs the
program, the man page, README.md, LICENSE, CHANGELOG.md and docs/ under
share/doc/render-episode, and the installed man page points there; `-V` names every library
the program runs with, at the version dpkg reports for the installed package. Each command's
option table (`COMMAND --list-options`) is what its help and the man page list, and the
scanner's rules hold: no abbreviated long options, values attached or apart, grouped short
flags, `-` and `-o-`, `--`, POSIXLY_CORRECT, lists of any length."""
import os
import re
import subprocess

from common import BIN, SRC, Case, main, run

COMMANDS = ["render", "batch", "check", "feed", "cache", "explain", "voices"]
LIBRARIES = {   # -V's name: the Debian package of the shared library
    "espeak-ng": "libespeak-ng1", "flite": "libflite1", "LAME": "libmp3lame0", "libsndfile": "libsndfile1",
    "libmpg123": "libmpg123-0", "libebur128": "libebur128-1", "libsoxr": "libsoxr0",
    "libxml2": "libxml2",
    "jansson": "libjansson4", "nettle": "libnettle8", "libcurl": "libcurl4",
    "libpng": "libpng16-16", "libjpeg-turbo": "libjpeg62-turbo",
}


def man_text(path):
    """The page as groff formats it, warnings on; (text, warnings)."""
    res = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=200n", path],
                         capture_output=True, text=True, env=dict(os.environ, LC_ALL="C.UTF-8"))
    # undo overstriking (bold/underline) and the hyphen forms groff prints
    text = re.sub(r".\x08", "", res.stdout).replace("\u2010", "-").replace("\u2212", "-")
    return text, res.stderr


def upstream(version):
    """'1.51+dfsg-10+deb12u2' -> '1.51'; '2:1.0-1' -> '1.0'."""
    version = version.split(":", 1)[-1].rsplit("-", 1)[0]
    return re.split(r"[+~]", version)[0]


class Help(Case):
    def test_every_command_answers_help_and_help_command(self):
        for cmd in COMMANDS:
            with self.subTest(command=cmd):
                own = run([cmd, "--help"])
                self.assertEqual(own.returncode, 0, own.stderr)
                self.assertEqual(own.stderr, "")
                first = own.stdout.splitlines()[0]
                want = "usage: render-episode [render]" if cmd == "render" else \
                    "usage: render-episode " + cmd
                self.assertTrue(first.startswith(want), first)
                via_help = run(["help", cmd])
                self.assertEqual(via_help.returncode, 0, via_help.stderr)
                self.assertEqual(via_help.stdout, own.stdout)
                self.assertEqual(run([cmd, "-h"]).stdout, own.stdout)
        top = run(["help"])
        self.assertEqual(top.returncode, 0)
        self.assertEqual(top.stdout, run(["--help"]).stdout)
        self.assertIn("help COMMAND", top.stdout)

    def test_render_help_in_the_middle_of_options(self):
        res = run(["render", "-q", "--help"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("--page-md", res.stdout)

    def test_help_for_no_such_command(self):
        res = run(["help", "publish"])
        self.assertEqual(res.returncode, 1)
        self.assertIn("no command 'publish'", res.stderr)
        self.assertEqual(res.stdout, "")

    def test_a_script_named_help_is_still_rendered_with_render(self):
        script = os.path.join(self.tmp, "help")
        with open(script, "w", encoding="utf-8") as f:
            f.write("---\ntitle: Help\n---\nHello.\n")
        res = run(["render", "--", script, "-o", self.path("help.mp3"), "-q", "--no-cache"])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.exists(self.path("help.mp3")))


def option_table(cmd):
    """{long: (short or None, takes a value)} from `CMD --list-options`."""
    res = run([cmd, "--list-options"])
    assert res.returncode == 0 and res.stderr == "", res.stderr
    table = {}
    for line in res.stdout.splitlines():
        long_name, short, value, _kind = line.split("\t")[:4]
        assert long_name.startswith("--") and long_name not in table, line
        table[long_name] = (None if short == "-" else short, value != "-")
    return table


# an option line of a help: "  -r, --sample-rate HZ   ..." or "      --srt   ..." (a
# description's further lines are indented deeper, even one that starts with an --option)
HELP_LINE = re.compile(r"^  (?:(-[A-Za-z]), |    )(--[a-z][a-z0-9-]*)(?: ([A-Z][\w./|]*|auto))?(?: |$)")
PROGRAM_OPTIONS = {"--version": "-V"}   # the program's own (render's help), before any command


class OptionTable(Case):
    def test_help_lists_the_table(self):
        """Each option line of a command's help is an option of its table, with the same short
        name and a value exactly when the table's takes one; each option of the table is in
        the help (most on their own line; --page-md on --page's)."""
        for cmd in COMMANDS:
            with self.subTest(command=cmd):
                table = option_table(cmd)
                self.assertIn("--help", table)
                help_text = run([cmd, "--help"]).stdout
                lines = 0
                for line in help_text.splitlines():
                    m = HELP_LINE.match(line)
                    if not m:
                        continue
                    lines += 1
                    short, name, value = m.groups()
                    if name in PROGRAM_OPTIONS and cmd == "render":
                        self.assertEqual(short, PROGRAM_OPTIONS[name])
                        continue
                    self.assertIn(name, table, line)
                    self.assertEqual(short, table[name][0], line)
                    self.assertEqual(value is not None, table[name][1], line)
                self.assertGreaterEqual(lines, min(4, len(table)))   # the lines were read
                for name, (short, _value) in table.items():
                    self.assertRegex(help_text, r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")
                    if short:
                        self.assertIn(short + ", " + name, help_text)

    def test_man_page_lists_the_table(self):
        text, warnings = man_text(os.path.join(SRC, "docs", "render-episode.1"))
        self.assertEqual(warnings, "")
        self.assertIn("--list-options", text)
        for cmd in COMMANDS:
            for name, (short, _value) in option_table(cmd).items():
                with self.subTest(command=cmd, option=name):
                    self.assertRegex(text, r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")
                    if short:
                        self.assertRegex(text, r"(?<![\w-])" + re.escape(short) + r"(?![\w-])")

    def test_a_command_without_its_word_is_render(self):
        self.assertEqual(run(["--list-options"]).stdout, run(["render", "--list-options"]).stdout)


class OptionSyntax(Case):
    """The scanner's rules, on usage errors (exit 1, nothing written, no render needed)."""

    def usage(self, args, *needles, env=None):
        res = run(args, env=env)
        self.assertEqual(res.returncode, 1, (args, res.stdout, res.stderr))
        for needle in needles:
            self.assertIn(needle, res.stderr, args)
        self.assertEqual(os.listdir(self.tmp), [], args)
        return res.stderr

    def test_long_options_are_never_abbreviated(self):
        """getopt_long would take a unique prefix; a CI script's `--out` must not change
        meaning when another option starting so is added: refused, naming the option."""
        script = self.path("ep.txt")
        self.usage([script, "--out=x.mp3"], "unknown option '--out'", "'--output'",
                   "not abbreviated")
        self.usage([script, "--out", self.path("x.mp3")], "unknown option '--out'")
        self.usage(["batch", "--outd", self.path("o"), script], "render-episode batch:",
                   "unknown option '--outd'", "'--outdir'")
        self.usage(["feed", self.tmp, "--base=https://example.org/"], "unknown option '--base'",
                   "'--base-url'")
        self.usage(["check", "x.mp3", "--tol", "2s"], "unknown option '--tol'")
        self.usage(["cache", "--stat"], "unknown option '--stat'", "'--stats'")
        self.usage(["explain", script, "--lex", "x"], "unknown option '--lex'", "'--lexicon'")
        # a prefix of several: unknown, as getopt_long finds it ambiguous
        self.usage([script, "--ca", "x"], "unknown option '--ca'")

    def test_values_attached_or_apart_and_grouped_flags(self):
        script = self.path("ep.txt")
        for args in ([script, "--bitrate=12abc"], [script, "--bitrate", "12abc"],
                     [script, "-b12abc"], [script, "-b", "12abc"], ["-qb12abc", script],
                     ["batch", "-qO", self.path("o"), script, "--bitrate=12abc"]):
            with self.subTest(args=args):
                self.usage(args, "--bitrate needs a whole number from 8 to 320, not '12abc'")
        self.usage([script, "--bitrate"], "--bitrate needs a value")
        self.usage([script, "-o"], "--output needs a value")
        self.usage([script, "--srt=yes"], "--srt takes no value")
        self.usage([script, "-Z"], "unknown option '-Z'")
        self.usage(["cache", "--prune"], "--prune needs a SIZE")
        self.usage(["cache", "--prune", "1G", "--prune=2G"], "--prune given twice")
        self.usage(["feed", self.tmp, "--show="], "--show needs a file name")

    def test_dash_and_o_dash(self):
        """`-` is an operand (a script named -, read as a file: exit 2, not a usage error);
        `-o-` is -o with the value -."""
        self.usage([self.path("ep.txt"), "-o-"], "the output name must end in .mp3 or .wav: '-'")
        res = run(["-", "-q", "--no-cache"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("-: cannot open", res.stderr)

    def test_double_dash(self):
        """render and explain: `--` makes the next argument the script, and options go on
        after it; check and feed: every argument after `--` is an operand."""
        self.usage(["render", "--", "--weird", "--bitrate=1"], "--bitrate needs a whole number")
        self.usage(["explain", "--", "--weird", "--max-size=0"], "--max-size needs a whole number")
        self.usage(["feed", "--", "--base-url"], "--base-url URL is required")
        res = run(["check", "--", "--json"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2, res.stderr)   # the MP3 named --json, not found
        self.assertIn("--json", res.stderr)

    def test_options_after_operands_even_with_posixly_correct(self):
        """getopt's POSIX mode would stop at the first operand; the scan takes operands in
        order, so the options after the script still count."""
        env = dict(os.environ, POSIXLY_CORRECT="1")
        self.usage([self.path("ep.txt"), "--bitrate", "12abc"], "--bitrate needs a whole number",
                   env=env)
        self.usage(["check", "x.mp3", "--tolerance", "zz"], "'zz' is not a duration", env=env)

    def test_lists_have_no_cap(self):
        """--allow-path (and --lexicon, --voices) as often as given: a lexicon in the 20th
        allowed folder is used."""
        dirs = []
        for i in range(20):
            dirs.append(self.path(f"allowed{i}"))
            os.mkdir(dirs[-1])
        lexicon = os.path.join(dirs[-1], "x.lexicon")
        with open(lexicon, "w", encoding="utf-8") as f:
            f.write("Zork = banana\n")
        os.mkdir(self.path("show"))
        script = self.path("show/ep.txt")
        with open(script, "w", encoding="utf-8") as f:
            f.write(f"---\ntitle: T\nlexicon: {lexicon}\n---\nZork here.\n")
        args = ["explain", script]
        for d in dirs:
            args += ["--allow-path", d]
        res = run(args)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("ep.txt:5:1: banana here.", res.stdout)
        res = run(args[:-2])   # without the 20th: the lexicon is outside every allowed folder
        self.assertEqual(res.returncode, 2)
        self.assertIn("outside the script's folder", res.stderr)


class ManPage(Case):
    def test_man_page_covers_every_command_and_option(self):
        text, warnings = man_text(os.path.join(SRC, "docs", "render-episode.1"))
        self.assertEqual(warnings, "")
        for cmd in COMMANDS + ["help"]:
            self.assertRegex(text, r"render-episode " + cmd + r"\b")
        for cmd in COMMANDS:
            help_text = run([cmd, "--help"]).stdout
            # options of this program (not "espeak-ng -x", which a help quotes)
            options = set(m.group(1) for m in
                          re.finditer(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])\b", help_text)
                          if not help_text[:m.start()].endswith("espeak-ng "))
            self.assertGreater(len(options), 2, cmd)
            for option in sorted(options):
                with self.subTest(command=cmd, option=option):
                    self.assertRegex(text, r"(?<![\w-])" + re.escape(option) + r"(?![\w-])")
        for needed in ("--page", "--page-md", "--srt", "--loudness", "--lexicon", "index.html",
                       "-V"):
            self.assertIn(needed, text)


class Install(Case):
    def test_install_into_destdir(self):
        build = os.path.dirname(os.path.realpath(BIN))
        self.assertTrue(os.path.exists(os.path.join(build, "CMakeCache.txt")),
                        "the program is not at the top of a CMake build folder")
        dest = self.path("dest")
        res = subprocess.run(["cmake", "--install", build, "--prefix", "/usr"],
                             env=dict(os.environ, DESTDIR=dest), capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        files = sorted(os.path.relpath(os.path.join(d, f), dest)
                       for d, _, names in os.walk(dest) for f in names)
        doc = "usr/share/doc/render-episode/"
        self.assertIn("usr/bin/render-episode", files)
        self.assertIn("usr/share/man/man1/render-episode.1", files)
        self.assertIn(doc + "README.md", files)
        shipped = sorted(f for f in os.listdir(os.path.join(SRC, "docs")) if f.endswith(".md"))
        self.assertGreater(len(shipped), 5)
        for name in shipped:
            self.assertIn(doc + "docs/" + name, files)
        for name in ["README.md", "CONTRIBUTING.md", "LICENSE", "CHANGELOG.md"]:
            with self.subTest(name=name), open(os.path.join(dest, doc, name), "rb") as f, \
                    open(os.path.join(SRC, name), "rb") as g:
                self.assertEqual(f.read(), g.read())
        with open(os.path.join(dest, doc, "LICENSE"), encoding="utf-8") as f:
            self.assertIn("GNU GENERAL PUBLIC LICENSE\n                       Version 3", f.read())
        text, warnings = man_text(os.path.join(dest, "usr/share/man/man1/render-episode.1"))
        self.assertEqual(warnings, "")
        # every file the installed page names is installed
        named = set(re.findall(r"/usr/share/[\w./-]+", text))
        self.assertIn("/usr/share/doc/render-episode/README.md", named)
        for path in named:
            with self.subTest(path=path):
                self.assertTrue(os.path.exists(dest + path.rstrip(".")), path)


class Versions(Case):
    def test_version_names_every_library_as_dpkg_reports_it(self):
        res = run(["-V"])
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        self.assertRegex(lines[0], r"^render-episode \d+\.\d+\.\d+$")
        shown = {}
        for line in lines[1:]:
            name, version = line.split(" ", 2)[:2]
            shown[name] = version
        self.assertEqual(set(shown), set(LIBRARIES))
        for name, package in LIBRARIES.items():
            with self.subTest(library=name):
                q = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package],
                                   capture_output=True, text=True)
                self.assertEqual(q.returncode, 0, q.stderr)
                want = upstream(q.stdout)
                got = shown[name]
                # nettle reports only major.minor at run time
                self.assertTrue(want == got or want.startswith(got + "."), (name, got, want))
                self.assertRegex(got, r"^\d+\.\d+")


if __name__ == "__main__":
    main()
