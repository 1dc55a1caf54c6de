# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: one version number. CMakeLists.txt's project(VERSION), as CMake itself recorded it
in the build's CMakeCache.txt, is what --version prints, what the sidecar's and the feed's
"generator" say, what the installed man page's header names (groff formats it), and the
version of the Debian package (dpkg-parsechangelog reads debian/changelog)."""
import json
import os
import re
import subprocess
import xml.etree.ElementTree as ET

from common import BIN, SRC, Case, main, run, write
from test_help import man_text


def project_version():
    build = os.path.dirname(os.path.realpath(BIN))
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
        found = re.search(r"^CMAKE_PROJECT_VERSION:STATIC=(.+)$", f.read(), re.M)
    assert found, "CMakeCache.txt has no CMAKE_PROJECT_VERSION"
    return found.group(1)


class Version(Case):
    def setUp(self):
        super().setUp()
        self.version = project_version()
        self.assertRegex(self.version, r"^\d+\.\d+\.\d+$")

    def test_version_option(self):
        for option in ["--version", "-V"]:
            with self.subTest(option=option):
                res = run([option])
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertEqual(res.stdout.splitlines()[0], "render-episode " + self.version)

    def test_debian_changelog_names_the_same_version(self):
        res = subprocess.run(["dpkg-parsechangelog", "-l", os.path.join(SRC, "debian", "changelog"),
                              "-S", "Version"], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout.strip(), self.version)

    def test_installed_man_page_names_the_version(self):
        build = os.path.dirname(os.path.realpath(BIN))
        dest = self.path("dest")
        res = subprocess.run(["cmake", "--install", build, "--prefix", "/usr"],
                             env=dict(os.environ, DESTDIR=dest), capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        text, warnings = man_text(os.path.join(dest, "usr/share/man/man1/render-episode.1"))
        self.assertEqual(warnings, "")
        footer = [line for line in text.splitlines() if line.strip()][-1]
        self.assertRegex(footer, r"^render-episode " + re.escape(self.version) + r"\s")
        self.assertNotRegex(text, r"@[A-Z_]+@")   # no CMake variable left unsubstituted ("@names" is text)

    def test_sidecar_and_feed_generator(self):
        script = write(self.path("ep.txt"), "---\ntitle: Version\nshow: Versions\nsummary: One version.\n---\nOne version.\n")
        out = self.path("out")
        os.mkdir(out)
        res = run([script, "-o", os.path.join(out, "ep.mp3"), "--no-cache", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(out, "ep.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["generator"], "render-episode " + self.version)
        write(os.path.join(out, "show.txt"), "title: Versions\ndescription: One version.\n")
        res = run(["feed", out, "--base-url", "https://example.org/pod/", "-o",
                   self.path("feed.xml"), "--draft"])
        self.assertEqual(res.returncode, 0, res.stderr)
        generator = ET.parse(self.path("feed.xml")).getroot().find("channel/generator")
        self.assertIsNotNone(generator)
        self.assertEqual(generator.text, "render-episode " + self.version)


if __name__ == "__main__":
    main()
