# SPDX-License-Identifier: GPL-3.0-or-later
"""Release notes told as a briefing (docs/script-format.md, "Release notes"): real notes
(tests/data/markdown/briefing, sources in its SOURCES.tsv; rows of readings.tsv citing them)
through `render-episode explain`, judged by what its outline says is spoken and left out,
by the text the engine is given (no commit hash in it, fewer words), and one rendered: its
transcript (read back by ffmpeg) says the briefing, its page's show notes keep every item."""
import os
import re
import subprocess

from common import SRC, Case, explained, ffmpeg_samples, main, run, write

DATA = os.path.join(SRC, "tests", "data", "markdown")
BRIEFING = os.path.join(DATA, "briefing")
OUTLINE = re.compile(r"^(.+?):(\d+):(\d+): \[([^\]]+)\] (.*)$")
HASH = re.compile(r"(?<![0-9a-z])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9a-z])")


def explain(path):
    """(outline, speech): explain's accounts [(line, kind, account)] and its pieces of speech
    [(place, text, phonemes, decisions)]."""
    r = run(["explain", path])
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    accounts = [OUTLINE.match(l) for l in lines]
    outline = [(int(m.group(2)), m.group(4), m.group(5)) for m in accounts if m]
    rest = "\n".join(l for l, m in zip(lines, accounts) if not m)
    return outline, explained(rest)


def said(account):
    """What explain's account of a block says the reader gives the engine ('' for nothing)."""
    m = re.match(r"^chapter: .* \(said first as '(.*)'\)$", account)
    if m:
        return m.group(1)
    m = re.match(r"^chapter: (.*) \(its title spoken first\)$", account)
    if m:
        return m.group(1)
    m = re.match(r"^spoken: (.*?)(?: \((?:left out|for \d+ items?;|a sentence of its own).*)?$",
                 account)
    return m.group(1) if m else ""


class BriefingTest(Case):
    def test_readings(self):
        """Each row of readings.tsv, alone in a document: what the reader says of it, and the
        cited line is where the row says, as it says."""
        lines = open(os.path.join(BRIEFING, "readings.tsv"), encoding="utf-8").read()
        rows = [l.split("\t") for l in lines.split("\n")[1:] if l]   # under its header line
        self.assertGreaterEqual(len(rows), 20)
        for markdown, expected, source, cited in rows:
            with self.subTest(source=source, expected=expected):
                name, line = source.rsplit(":", 1)
                text = open(os.path.join(DATA, name), encoding="utf-8").read().split("\n")
                self.assertEqual(text[int(line) - 1], cited)
                src = write(self.path("row.md"), "# Notes\n\n" + markdown.replace("\\n", "\n")
                            + "\n")
                outline, _ = explain(src)
                got = [said(a) for _, _, a in outline[1:]]
                self.assertEqual(" | ".join(g for g in got if g), expected)

    def test_conventional_changelog(self):
        """yargs' CHANGELOG.md: no commit hash reaches the engine, each commit link is listed as
        left out, a commit type is said as a word, the breaking changes announced."""
        src = os.path.join(BRIEFING, "yargs-CHANGELOG.md")
        text = open(src, encoding="utf-8").read()
        links = re.findall(r"\]\((https://github\.com/yargs/yargs/commit/[0-9a-f]{40})\)", text)
        self.assertEqual(len(links), 25)
        outline, speech = explain(src)
        accounts = "\n".join(a for _, _, a in outline)
        for url in links:
            self.assertIn(f"the commit link {url} (not read aloud)", accounts)
        spoken = " ".join(t for _, t, _, _ in speech)
        self.assertEqual(HASH.findall(spoken), [])
        for _, _, _, decisions in speech:
            self.assertEqual([d for d in decisions if d[2].startswith("hash:")], [])
        self.assertNotIn("fix:", spoken)
        self.assertIn("Fixed: use entry point", spoken)
        self.assertIn("Breaking changes.", spoken)
        self.assertIn("Dependencies: update dependency yargs-parser", spoken)
        # the commit links taken out by hand: the engine is given the same words, so the
        # reader left out those and nothing else
        bare = write(self.path("bare.md"), re.sub(r" \(\[[0-9a-f]{7}\]\([^)]*\)\)", "", text))
        _, bare_speech = explain(bare)
        self.assertEqual([t for _, t, _, _ in bare_speech], [t for _, t, _, _ in speech])
        print(f"yargs-CHANGELOG.md: {len(spoken.split())} words given to the engine")

    def test_generated_release_notes(self):
        """create-pull-request's v7.0.0 notes: its three runs of dependabot updates said as one
        sentence each, with their counts, every item of them accounted for; the one new
        contributor named once; rendered, the transcript says the briefing and the page keeps
        every item."""
        src = os.path.join(BRIEFING, "create-pull-request-v7.0.0.md")
        text = open(src, encoding="utf-8").read()
        items = [l for l in text.split("\n") if l.startswith("* ")]
        runs, count = [], 0
        for item in items:   # runs of bumps, counted from the source
            if re.match(r"^\* build\(deps(-dev)?\): bump ", item):
                count += 1
            else:
                runs, count = runs + [count] if count else runs, 0
        self.assertEqual(runs, [14, 2, 3])
        outline, speech = explain(src)
        spoken = " ".join(t for _, t, _, _ in speech)
        accounts = "\n".join(a for _, _, a in outline)
        said_runs = [int(m) for m in re.findall(r"dependency updates.* \(for (\d+) items; ",
                                                 accounts)]
        self.assertEqual(said_runs, runs)
        left = [a for _, _, a in outline if re.match(r"^left out: .* \(said with the item at line "
                                                      r"\d+\)$", a)]
        self.assertEqual(len(left), sum(runs) - len(runs))
        self.assertIn("Fourteen dependency updates, among them types/node to 18.19.44, ts-jest "
                      "to 29.2.4 and prettier to 3.3.3.", [said(a) for _, _, a in outline])
        self.assertEqual(spoken.count("dependency updates"), 3)
        self.assertNotIn("bump", spoken.lower())
        self.assertNotIn("made their first contribution", spoken)
        self.assertEqual(spoken.count("rustycl0ck"), 1)

        mp3 = self.path("notes.mp3")
        r = run([src, "-o", mp3, "--page"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreater(ffmpeg_samples(mp3), 0)
        vtt = subprocess.run(["ffmpeg", "-v", "error", "-i", mp3[:-4] + ".vtt", "-f", "webvtt",
                              "-"], capture_output=True, text=True, check=True).stdout
        vtt = re.sub(r"\s+", " ", vtt)
        self.assertIn("Fourteen dependency updates", vtt)
        self.assertNotIn("bump", vtt.lower())
        page = open(mp3[:-4] + ".html", encoding="utf-8").read()
        for n in re.findall(r"/pull/(\d+)", text):
            self.assertIn(f"/pull/{n}", page)
        self.assertEqual(page.count("bump "), sum(runs))

    def test_a_txt_script_reads_its_hashes(self):
        """A hash in a hand-written .txt script was put there to be heard: it is still read by
        the normalizer's hash rule; only a Markdown document's are left out."""
        for name, expect in (("ep.txt", True), ("ep.md", False)):
            with self.subTest(name=name):
                src = write(self.path(name), "---\ntitle: T\n---\nThe fix is in commit 7f42848.\n")
                _, speech = explain(src)
                decisions = [d for _, _, _, ds in speech for d in ds if d[2].startswith("hash:")]
                self.assertEqual(bool(decisions), expect, speech)


if __name__ == "__main__":
    main()
