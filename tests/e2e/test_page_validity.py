# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: every episode page (`--page`) and the folder's index.html are valid HTML as the
W3C Nu HTML checker (vnu, npm package vnu-jar from tests/js's lockfile, run on the machine's
Java: Debian's default-jre-headless) reads them: no error at all, and not the warning of a
second h1. The pages: a plain script with chapters and two voices, a Markdown script whose
notes bring their own headings (two `#`, a `###` right under one, a `######`, a heading in a
quote and one in a list item), a script with its own cover, one rendered to a WAV, one with a
file name that must be escaped in every link, and the index `feed` writes over them. vnu
runs once, over all the files together (its start-up is most of its time).

A page's outline is also read back by python's html.parser (not ours): one h1, and no
heading more than one level below the heading before it.

Needs java and ctest's npm_judges fixture (RE_JS_DIR), like the other npm judges."""
import json
import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser

from common import Case, main, run, write
from test_cover import make_image
from test_feed import SHOW

PLAIN = """---
title: Valid pages – café & <friends>
show: Feed Test Show
published: 2026-11-23T07:30:00+01:00
summary: A plain page for the checker.
episode: 3
---
# Opening

Welcome. This episode has two chapters and two voices.

# The end

[voice guest] I am the guest. Thanks for listening.
"""

NOTES = """---
title: Release notes with headings
show: Feed Test Show
published: 2026-11-30
summary: Notes that bring their own headings.
---
# Version 2.0

### Fixed

- A fix, with a [link](https://example.org/fix).

## Added

> # A heading in a quote
>
> Quoted text.

- ## A heading in a list item

| option | meaning |
|---|---|
| `--page` | writes the episode page |

- [x] a task done

# Version 1.0

###### Deep

The first release.
"""

COVERED = """---
title: With its own cover
show: Feed Test Show
published: 2026-11-16
image: own.jpg
---
A short episode with its own cover art.
"""

ODD = """---
title: An odd file name
show: Feed Test Show
published: 2026-11-09
---
The file name has characters every link must escape.
"""

WAV = """---
title: To a WAV
show: Feed Test Show
---
This one is rendered to a WAV file.
"""


def vnu_jar():
    """vnu.jar as installed from tests/js's lockfile into the build folder by ctest's
    npm_judges fixture (RE_JS_DIR)."""
    path = os.path.join(os.environ.get("RE_JS_DIR", ""), "node_modules", "vnu-jar", "build",
                        "dist", "vnu.jar")
    assert os.path.isfile(path), (f"vnu-jar is not installed at {path!r}: run ctest (its "
                                  "fixture setup.npm_judges runs npm ci in BUILD/js)")
    return path


class Outline(HTMLParser):
    """The headings of a document, as levels in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.levels = []

    def handle_starttag(self, tag, attrs):
        if len(tag) == 2 and tag[0] == "h" and tag[1] in "123456":
            self.levels.append(int(tag[1]))


def outline(path):
    reader = Outline()
    with open(path, encoding="utf-8") as f:
        reader.feed(f.read())
    return reader.levels


class PageValidity(Case):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="re-e2e-page-validity-")
        cls.site = os.path.join(cls.tmp, "site")
        os.mkdir(cls.site)
        write(os.path.join(cls.site, "show.txt"), SHOW)
        make_image(os.path.join(cls.site, "cover.png"), pix_fmt="rgb24")   # the show's image:
        make_image(os.path.join(cls.tmp, "own.jpg"))
        cls.pages = []
        for name, text, ext in (("plain", PLAIN, ".txt"), ("notes", NOTES, ".md"),
                                ("covered", COVERED, ".txt"),
                                ('odd "name" & <more>', ODD, ".txt")):
            script = write(os.path.join(cls.tmp, name + ext), text)
            res = run([script, "-o", os.path.join(cls.site, name + ".mp3"), "--page", "-q",
                       "--no-cache"])
            assert res.returncode == 0, res.stderr
            cls.pages.append(os.path.join(cls.site, name + ".html"))
        wav_dir = os.path.join(cls.tmp, "wav")
        os.mkdir(wav_dir)
        script = write(os.path.join(cls.tmp, "wav.txt"), WAV)
        res = run([script, "-o", os.path.join(wav_dir, "wav.wav"), "--page", "-q", "--no-cache"])
        assert res.returncode == 0, res.stderr
        cls.pages.append(os.path.join(wav_dir, "wav.html"))
        res = run(["feed", cls.site, "--base-url", "https://cdn.example.org/pod/"])
        assert res.returncode == 0, res.stderr
        cls.index = os.path.join(cls.site, "index.html")
        # one run of the checker over every file (Java's start-up is most of its time)
        files = cls.pages + [cls.index]
        proc = subprocess.run(["java", "-jar", vnu_jar(), "--format", "json", *files],
                              capture_output=True, text=True, timeout=600)
        cls.vnu_status = proc.returncode
        cls.messages = json.loads(proc.stderr)["messages"]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_every_page_and_the_index_were_checked(self):
        self.assertEqual(len(self.pages), 5)
        for path in self.pages + [self.index]:
            self.assertTrue(os.path.isfile(path), path)
        self.assertFalse([m for m in self.messages if m.get("type") == "non-document-error"],
                         self.messages)

    def test_no_error(self):
        errors = [f"{m.get('url')}:{m.get('lastLine')}: {m.get('message')}"
                  for m in self.messages if m.get("type") == "error"]
        self.assertEqual(errors, [])
        self.assertEqual(self.vnu_status, 0)

    def test_no_second_h1(self):
        warnings = [f"{m.get('url')}:{m.get('lastLine')}: {m.get('message')}"
                    for m in self.messages if m.get("type") == "info" and "h1" in m.get("message", "")]
        self.assertEqual(warnings, [])

    def test_one_h1_and_no_skipped_level(self):
        for path in self.pages + [self.index]:
            levels = outline(path)
            self.assertEqual(levels.count(1), 1, (path, levels))
            self.assertEqual(levels[0], 1, (path, levels))
            for before, level in zip(levels, levels[1:]):
                self.assertLessEqual(level, before + 1, (path, levels))

    def test_the_notes_headings_are_under_show_notes(self):
        levels = outline(os.path.join(self.site, "notes.html"))
        notes = levels[levels.index(2) + 1:]   # after the "Show notes" h2
        # Version 2.0, Fixed (### right under #: one level down), Added, the quote's #, the
        # list item's ##, Version 1.0, Deep (###### right under #: one level down); then
        # the page's own h2 sections (chapters, transcript) follow
        self.assertEqual(notes[:7], [3, 4, 4, 3, 4, 3, 4], levels)


if __name__ == "__main__":
    main()
