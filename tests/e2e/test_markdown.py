# SPDX-License-Identifier: GPL-3.0-or-later
"""Markdown release notes as scripts: a GitHub-generated release body and 21 real release
notes (tests/data/markdown/corpus, sources in SOURCES.tsv) rendered and judged by ffmpeg,
ffprobe, mpg123 --gapless and python's own reading of the VTT and the source."""
import json
import os
import re
import subprocess

from common import BIN, SRC, Case, ffmpeg_samples, ffprobe, main, mpg123_samples, run, write

CORPUS = os.path.join(SRC, "tests", "data", "markdown", "corpus")

RELEASE = """## What's Changed
* Faster **startup** by @alice in https://github.com/acme/tool/pull/123
* Fix `--verbose` output by @bob-smith in https://github.com/acme/tool/pull/124 :tada:
* ~~Dropped~~ Kept the old flag

## New Contributors
* @carol made their first contribution in https://github.com/acme/tool/pull/125

```sh
make install
```

| Flag | Meaning |
|---|---|
| -v | verbose |

**Full Changelog**: https://github.com/acme/tool/compare/v1.2.0...v1.3.0
"""


def vtt_text(path):
    out = []
    for block in open(path, encoding="utf-8").read().split("\n\n")[1:]:
        lines = [l for l in block.split("\n") if l and "-->" not in l and not l.isdigit()]
        out.append(" ".join(re.sub(r"^<v [^>]*>", "", l) for l in lines))
    return " ".join(out)


def chapter_headings(text):
    """The chapter headings, read from the source by lines (ATX headings outside fences):
    one level-1 heading first makes its subheadings' shallowest level the chapters; when
    that level has one heading (a single release) and the next level two or more (its
    sections), those are the chapters."""
    levels, fence, lines = [], False, text.split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^ {0,3}(```|~~~)", line):
            fence = not fence
        m = None if fence else re.match(r"^ {0,3}(#{1,6})(\s|$)", line)
        if m:
            levels.append(len(m.group(1)))
        elif (not fence and i + 1 < len(lines) and re.match(r"^ {0,3}(=+|-+) *$", lines[i + 1])
              and re.match(r"^ {0,3}[^\s>*+#-]", line)
              and (i == 0 or not lines[i - 1].strip() or lines[i - 1].lstrip().startswith("#"))):
            levels.append(1 if "=" in lines[i + 1] else 2)   # a setext heading
    if levels and levels[0] == 1 and levels.count(1) == 1:
        levels = levels[1:]
    if not levels:
        return 0
    top = min(levels)
    deeper = [level for level in levels if level > top]
    if levels.count(top) == 1 and deeper and deeper.count(min(deeper)) >= 2:
        return deeper.count(min(deeper))
    return levels.count(top)


FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")
ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( +|$)(.*)$")


def code_and_items(text):
    """Read from the source by lines, without a Markdown parser: the lines of each fenced code
    block, and the text of each list item (its first line and the lines that continue it, up
    to a blank line, the next item or another block). Lines in HTML blocks are skipped."""
    code, items, lines = [], [], text.split("\n")
    fence, html, item = None, False, None
    for line in lines:
        line = re.sub(r"^( *[-*+] +)(?=(`{3,}|~{3,}))", lambda m: " " * len(m.group(1)), line)
        if fence:
            close = FENCE.match(line)
            if close and close.group(2)[0] == fence[0] and len(close.group(2)) >= len(fence) \
                    and not line[close.end():].strip():
                fence = None
            else:
                code.append(line)
            continue
        m = FENCE.match(line)
        if m:
            fence, item = m.group(2), None
            continue
        if html or re.match(r"^ {0,3}<(/?[A-Za-z]|!--)", line):
            html, item = bool(line.strip()), None   # an HTML block ends at a blank line
            continue
        m = ITEM.match(line)
        if m and not re.match(r"^ {0,3}([-*_])( *\1){2,} *$", line):
            item = [m.group(4)]
            items.append(item)
        elif item is not None and line.strip() and not re.match(r"^ {0,3}(#|>|\|)", line):
            item.append(line.strip())
        else:
            item = None
    return code, [" ".join(i) for i in items]


# What the briefing says otherwise (tests/e2e/test_briefing.py judges it): a commit type
# said as a word, and the items said together (dependency updates, first contributions).
COMMIT_TYPE = re.compile(r"^(\*\*)?((feat|feature|fix|bugfix|perf|refactor|docs?|tests?|build|ci|"
                         r"chore|style|revert|deps|security)(\([^()\s]{1,40}\))?!?|"
                         r"BREAKING CHANGES?|BREAKING):(\*\*)?( |$)", re.I)
SAID_TOGETHER = re.compile(r"^\S*\s*(bump|update|upgrade)\s.*\sto\s+v?\d|"
                           r"made their first contribution", re.I)


def spoken_words(item):
    """The words of a list item a listener hears: inline code, link targets, bare URLs,
    images, raw HTML, struck-through text, emoji shortcodes and reference numbers taken out,
    then every word of three letters or more (none of an item said together with others, none
    of a commit type said as a word)."""
    item = re.sub(r"^\[[ xX]\] ", "", item)
    if SAID_TOGETHER.search(item):
        return []
    item = COMMIT_TYPE.sub("", item)
    item = re.sub(r"`+[^`]*`+", " ", item)
    item = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", item)
    item = re.sub(r"\]\([^)]*\)", "] ", item)
    item = re.sub(r"\]\[[^\]]*\]", "] ", item)
    item = re.sub(r"<[^>]*>", " ", item)
    item = re.sub(r"(https?|ftp)://\S+|www\.\S+|\S+@\S+\.\S+", " ", item)
    item = re.sub(r"~~.*?~~", " ", item)
    item = re.sub(r":[a-z0-9_+-]+:", " ", item)
    item = re.sub(r"\\.", " ", item)
    return [w for w in re.findall(r"(?<![\w./@#-])[A-Za-z]{3,}(?![\w./@-])", item)]


class MarkdownTest(Case):
    def render(self, src, name):
        out = self.path(name + ".mp3")
        r = run([src, "-o", out, "--page"])
        self.assertEqual(r.returncode, 0, r.stderr)
        return out

    def judge_audio(self, mp3):
        sidecar = json.load(open(mp3[:-4] + ".json"))
        self.assertEqual(ffmpeg_samples(mp3), sidecar["samples"])
        self.assertEqual(mpg123_samples(mp3), sidecar["samples"])
        r = run(["check", mp3, mp3[:-4] + ".html"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def no_markup(self, said, source):
        for mark in ("*", "`", "|", "](", "~~", "<!--"):
            self.assertNotIn(mark, said)
        for url in re.findall(r"\]\(([^)\s]+)", source):
            self.assertNotIn(url, said)

    def items_and_code(self, said, text):
        """Every list item's words are heard, and no line of a code block is."""
        code, items = code_and_items(text)
        heard = set(re.findall(r"[A-Za-z]+", said))
        for item in items:
            for word in spoken_words(item):
                self.assertIn(word, heard, item)
        for line in code:
            if len(line.strip()) >= 6:
                self.assertNotIn(line.strip(), said)
        return code, items

    def test_release_body(self):
        src = self.path("release.md")
        write(src, RELEASE)
        mp3 = self.render(src, "ep")
        said = vtt_text(self.path("ep.vtt"))
        self.no_markup(said, RELEASE)
        self.assertNotIn("http", said)
        self.assertNotIn("@", said)
        self.assertNotIn("tada", said)
        self.assertNotIn("Dropped", said)
        self.assertNotIn("make install", said)
        for words in ("by alice, pull request 123", "by bob-smith, pull request 124",
                      "changes from v1.2.0 to v1.3.0", "Flag: -v, Meaning: verbose",
                      "Kept the old flag."):
            self.assertIn(words, said)
        code, items = self.items_and_code(said, RELEASE)
        self.assertEqual((code, len(items)), (["make install"], 4))
        self.assertEqual(len(ffprobe(mp3, "-show_chapters")["chapters"]), 2)
        self.judge_audio(mp3)
        html = open(self.path("ep.html"), encoding="utf-8").read()
        self.assertIn('href="https://github.com/acme/tool/pull/123"', html)
        self.assertIn("<code class=\"language-sh\">make install\n</code>", html)
        r = run(["explain", src])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(src + ":9:1: [code block] left out", r.stdout)
        self.assertIn(src + ":13:1: [table] spoken: Flag: -v, Meaning: verbose.", r.stdout)
        self.assertIn(src + ":9:1: warning: 1 code block is left out", r.stderr)

    def test_sample_changelog(self):
        """samples/CHANGELOG.md, which scripts/demo renders: one chapter per release, every
        list item heard, its code block not."""
        src = os.path.join(SRC, "samples", "CHANGELOG.md")
        text = open(src, encoding="utf-8").read()
        mp3 = self.render(src, "changelog")
        said = vtt_text(self.path("changelog.vtt"))
        self.no_markup(said, text)
        code, items = self.items_and_code(said, text)
        self.assertEqual((len(code), len(items)), (1, 15))
        self.assertEqual(chapter_headings(text), 4)
        self.assertEqual([c["tags"]["title"] for c in ffprobe(mp3, "-show_chapters")["chapters"]],
                         ["Unreleased", "1.3.0 - 2026-11-30", "1.2.0 - 2026-10-12",
                          "1.1.0 - 2026-09-01"])
        self.judge_audio(mp3)

    def test_bad_directive_in_list_item(self):
        src = self.path("bad.md")
        write(src, "# Notes\n\n- fine\n- wait [pause 99h] here\n")
        r = run([src, "-o", self.path("ep.mp3")])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(src + ":4:8: ", r.stderr)
        self.assertEqual(os.listdir(self.tmp), ["bad.md"])

    def test_control_references_reach_nothing(self):
        """A character reference to ESC or BEL is decoded by cmark-gfm after the text's check:
        it reached the terminal through explain and the MP3's title through a level-1
        heading, and a paragraph failed with 'FILE: invalid argument'. Each is an error at the
        reference, exit 2, and no output of any kind carries the character."""
        cases = [("# Re&#27;]0;owned&#7;lease\n\nText.\n", "1:5"),
                 ("# Notes\n\nSay &#x1b;[2J hello.\n", "3:5"),
                 ("# Notes\n\n- see [it](https://example.org \"&#27;[31m\")\n", "3:33")]
        for text, where in cases:
            with self.subTest(text=text):
                src = write(self.path("refs.md"), text)
                for args in (["explain", src], [src, "-o", self.path("refs.mp3"), "--page"]):
                    r = subprocess.run([BIN] + args, capture_output=True, timeout=300)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertIn(f"{src}:{where}: ".encode(), r.stderr)
                    self.assertIn(b"stands for control character U+001B", r.stderr)
                    for stream in (r.stdout, r.stderr):
                        self.assertNotRegex(stream, b"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
                self.assertEqual(sorted(os.listdir(self.tmp)), ["refs.md"])

    def test_hostile_notes_in_a_sidecar(self):
        """feed re-renders the notes a sidecar keeps, and a sidecar is a file another user may
        have written: a reference to ESC, or 720 kB of a shape cmark-gfm needs minutes for, is
        a sidecar error (exit 2, nothing written); a render --page beside such a sidecar is not
        misled by it and writes its own page."""
        folder = self.path("pub")
        os.mkdir(folder)
        src = write(os.path.join(folder, "ep.md"), RELEASE)
        mp3 = os.path.join(folder, "ep.mp3")
        r = run([src, "-o", mp3, "--page"])
        self.assertEqual(r.returncode, 0, r.stderr)
        sidecar = json.load(open(mp3[:-4] + ".json", encoding="utf-8"))
        hostile = {"escape": "Bell &#7; and &#27;]0;title\n",
                   "superlinear": ("*[a](b)" * 11 + "\n") * 9400}
        for name, notes in hostile.items():
            with self.subTest(notes=name):
                planted = dict(sidecar, notes=notes)
                write(mp3[:-4] + ".json", json.dumps(planted))
                before = sorted(os.listdir(folder))
                r = run(["feed", folder, "--base-url", "https://example.org/p/", "--draft"],
                        timeout=600)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn('the sidecar\'s "notes" is not Markdown this program renders',
                              r.stderr)
                self.assertEqual(sorted(os.listdir(folder)), before)
                r = run([src, "-o", mp3, "--page"], timeout=600)
                self.assertEqual(r.returncode, 0, r.stderr)
                page = open(mp3[:-4] + ".html", encoding="utf-8").read()
                self.assertNotIn("\x1b", page)
                self.assertNotIn("*[a](b)", page)
                self.assertEqual(json.load(open(mp3[:-4] + ".json", encoding="utf-8"))["notes"],
                                 sidecar["notes"])

    def test_corpus(self):
        files = sorted(f for f in os.listdir(CORPUS) if f.endswith(".md"))
        self.assertGreaterEqual(len(files), 20)
        cited = open(os.path.join(CORPUS, "SOURCES.tsv"), encoding="utf-8").read()
        if os.environ.get("RE_SANITIZED"):
            # the sanitizer build looks for memory errors: every third file is enough for that
            files = files[::3]
        for name in files:
            with self.subTest(name=name):
                self.assertIn(name + "\t", cited)
                src = os.path.join(CORPUS, name)
                text = open(src, encoding="utf-8").read()
                mp3 = self.render(src, name[:-3])
                said = vtt_text(mp3[:-4] + ".vtt")
                self.no_markup(said, text)
                for link_text in re.findall(r"(?<!!)\[([A-Za-z][A-Za-z ]{3,})\]\(", text):
                    self.assertIn(link_text, said)
                self.items_and_code(said, text)
                self.assertEqual(len(ffprobe(mp3, "-show_chapters")["chapters"]),
                                 chapter_headings(text))
                self.judge_audio(mp3)


if __name__ == "__main__":
    main()
