# SPDX-License-Identifier: GPL-3.0-or-later
"""A changelog of one release, as its reader sees its structure. polkit 122's NEWS.md
(tests/data/markdown/corpus/polkit-NEWS.md: Debian 12's polkitd 122-3, SOURCES.tsv) is one
`## polkit 122` with three `###` sections; rendered with --srt --transcript-json --page
--page-md:

- it is chaptered by its three sections, each starting where its title is spoken: ffprobe's
  chapters, mutagen's CHAP and CTOC frames, the chapters JSON and the page's chapter list;
- each of its paragraphs, headings and list items (nested ones too) is a block of its own:
  one <p> of the page's transcript (python's html.parser), one paragraph of the Markdown
  page's, and its own cues in the WebVTT and SRT files (as ffmpeg's subtitle decoder reads
  them) and the transcript JSON: no cue holds words of two blocks.

The blocks are read from the source by lines, without a Markdown parser."""
import html.parser
import json
import os
import re
import subprocess

from common import SRC, Case, ffprobe, main, mutagen_tags, run

SOURCE = os.path.join(SRC, "tests", "data", "markdown", "corpus", "polkit-NEWS.md")
CHAPTERS = ["Highlights:", "Build requirements", "Changes since polkit 121:"]


def sentence(text):
    """A heading or list item as spoken: it ends a sentence (':', ';', ',' become '.')."""
    if text[-1] in ":;,":
        return text[:-1] + "."
    return text if text[-1] in ".!?" else text + "."


def source_blocks(text):
    """The blocks of a document of headings, lists and plain paragraphs: their text."""
    blocks, paragraph = [], []
    for line in text.split("\n") + [""]:
        heading = re.match(r"^#{1,6} +(.*)$", line)
        item = re.match(r"^ *[-*+] +(.*)$", line)
        if paragraph and (not line.strip() or heading or item):
            blocks.append(" ".join(paragraph))
            paragraph = []
        if heading or item:
            blocks.append(sentence((heading or item).group(1).strip()))
        elif line.strip():
            paragraph.append(line.strip())
    return blocks


class PageBlocks(html.parser.HTMLParser):
    """The page's transcript: the text of each <p> (its cues' texts, one space apart) and the
    data-start of each cue's paragraph; and the titles of its chapter list."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.starts, self.chapters = [], [], []
        self.section, self.cue, self.link = None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("class")
        elif self.section == "transcript" and tag == "p":
            self.blocks.append([])
            self.starts.append(None)
        elif self.section == "transcript" and tag == "span" and a.get("class") == "cue":
            self.cue = ""
            if self.starts[-1] is None:
                self.starts[-1] = float(a["data-start"])
        elif self.section == "chapters" and tag == "a":
            self.link = ""

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None
        elif tag == "span" and self.cue is not None:
            self.blocks[-1].append(self.cue)
            self.cue = None
        elif tag == "a" and self.link is not None:
            self.chapters.append(self.link)
            self.link = None

    def handle_data(self, data):
        if self.cue is not None:
            self.cue += data
        elif self.link is not None:
            self.link += data


def ffmpeg_cue_texts(path):
    """The text of each cue of a subtitle file, as ffmpeg demuxes and decodes it."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "srt", "-"],
                         capture_output=True, text=True, check=True).stdout
    return [block.split("\n", 2)[2].replace("\\{", "{").replace("\\}", "}")
            for block in out.strip().split("\n\n")]


def md_unescape(text):
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def words(text):
    return " ".join(text.split())


class MarkdownStructure(Case):
    def setUp(self):
        super().setUp()
        self.blocks = source_blocks(open(SOURCE, encoding="utf-8").read())
        self.out = self.path("polkit.mp3")
        r = run([SOURCE, "-o", self.out, "--srt", "--transcript-json", "--page", "--page-md"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.page = PageBlocks()
        self.page.feed(open(self.out[:-4] + ".html", encoding="utf-8").read())
        self.page.close()

    def test_chapters_are_its_sections(self):
        probed = ffprobe(self.out, "-show_chapters")["chapters"]
        self.assertEqual([c["tags"]["title"] for c in probed], CHAPTERS)
        tags = mutagen_tags(self.out)
        self.assertEqual([c["title"] for c in tags["CHAP"]], CHAPTERS)
        self.assertEqual(len(tags["CTOC"]), 1)
        self.assertEqual(tags["CTOC"][0]["children"], [c["id"] for c in tags["CHAP"]])
        listed = json.load(open(self.out[:-4] + ".chapters.json", encoding="utf-8"))["chapters"]
        self.assertEqual([c["title"] for c in listed], CHAPTERS)
        self.assertEqual(self.page.chapters, CHAPTERS)
        # each chapter after the first starts where its title is spoken: the start of its
        # own block (the first takes the episode's start, the release's heading with it)
        starts = dict(zip((words(" ".join(b)) for b in self.page.blocks), self.page.starts))
        for title, chapter in zip(CHAPTERS[1:], listed[1:]):
            self.assertEqual(round(chapter["startTime"], 3), starts[sentence(title)], title)
        self.assertEqual(listed[0]["startTime"], 0)

    def test_each_block_its_own(self):
        self.assertEqual(len(self.blocks), 38)   # 4 headings, 32 list items, 2 paragraphs
        self.assertEqual([words(" ".join(b)) for b in self.page.blocks], self.blocks)
        md = open(self.out[:-4] + ".md", encoding="utf-8").read()
        transcript = md.split("\n## Transcript\n", 1)[1]
        paragraphs = [words(md_unescape(p)) for p in transcript.split("\n\n") if p.strip()]
        self.assertEqual(paragraphs, self.blocks)
        segments = json.load(open(self.out[:-4] + ".transcript.json", encoding="utf-8"))
        for name, cues in (("vtt", ffmpeg_cue_texts(self.out[:-4] + ".vtt")),
                           ("srt", ffmpeg_cue_texts(self.out[:-4] + ".srt")),
                           ("json", [s["body"] for s in segments["segments"]])):
            with self.subTest(transcript=name):
                # the cues, in order, make up the blocks one after another
                k, sofar = 0, ""
                for cue in cues:
                    sofar = words(sofar + " " + cue)
                    self.assertLess(k, len(self.blocks), cue)
                    self.assertTrue(self.blocks[k].startswith(sofar), (cue, self.blocks[k]))
                    if sofar == self.blocks[k]:
                        k, sofar = k + 1, ""
                self.assertEqual((k, sofar), (len(self.blocks), ""))


if __name__ == "__main__":
    main()
