# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: help and documentation as a new user meets them. Every subcommand answers
`--help` and `help COMMAND` alike; the man page, formatted by groff (not ours), names every
command and every option the helps list; `cmake --install` into a DESTDIR installs the
program, the man page, README.md, LICENSE, CHANGELOG.md and docs/ under
share/doc/render-episode, and the installed man page points there; `-V` names every library
the program runs with, at the version dpkg reports for the installed package."""
import os
import re
import subprocess

from common import BIN, SRC, Case, main, run

COMMANDS = ["render", "batch", "check", "feed", "cache", "explain"]
LIBRARIES = {   # -V's name: the Debian package of the shared library
    "espeak-ng": "libespeak-ng1", "LAME": "libmp3lame0", "libsndfile": "libsndfile1",
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
        for name in ["README.md", "LICENSE", "CHANGELOG.md"]:
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
