# SPDX-License-Identifier: GPL-3.0-or-later
"""The documentation's shape: README.md is a front door, docs/ has an index, links lead somewhere.

README.md stays at most 200 lines and keeps the two commands for a fresh machine (the test
command is what .ci/run runs) and a stage table naming every folder of pipeline/; every file of
docs/ (the man page included) is linked from docs/README.md, the index; every relative link in
README.md, CONTRIBUTING.md and docs/*.md points at a file of the repository, and a link to a
section of a Markdown page at one of its headings; docs/architecture.md, the maintainer's map,
names every folder under pipeline/. Nothing here runs the program: the pages are the subject."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SRC, Case, main  # noqa: E402

README_MAX_LINES = 200
DOCS = os.path.join(SRC, "docs")
PIPELINE = os.path.join(SRC, "pipeline")
# [text](target) and [label]: target; the target ends at white space or ')'
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def prose(text, spans=True):
    """The text with code blanked: fenced and indented code blocks, and with spans, inline code
    spans. A link written as an example (`[text](url)`) is not a link."""
    out, fence, indented = [], None, False
    for line in text.split("\n"):
        m = re.match(r"\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        # an indented code block starts after a blank line (a list item's continuation does not)
        indented = line.startswith("    ") and (indented or not out or not out[-1].strip())
        if indented:
            out.append("")
            continue
        out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line) if spans else line)
    return "\n".join(out)


def links(path):
    """(line number, target) of every link in a Markdown file."""
    text = prose(read(path))
    for m in LINK.finditer(text):
        target = m.group(1) or m.group(2)
        yield text.count("\n", 0, m.start()) + 1, target


def relative(target):
    return not re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target) and not target.startswith("//")


def anchor_of(heading):
    """The anchor GitHub and cmark-gfm give a heading: inline markup and punctuation dropped,
    lower case, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path):
    seen, out = {}, set()
    for line in prose(read(path), spans=False).split("\n"):
        m = re.match(r"#{1,6} (.*?)\s*#*\s*$", line)
        if m:
            a = anchor_of(m.group(1))
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else f"{a}-{n}")
    return out


def pages():
    yield os.path.join(SRC, "README.md")
    yield os.path.join(SRC, "CONTRIBUTING.md")
    for name in sorted(os.listdir(DOCS)):
        if name.endswith(".md"):
            yield os.path.join(DOCS, name)


def pipeline_folders():
    """Every folder under pipeline/ but the contract headers' include/, as `stage/` or
    `stage/sub/`."""
    out = []
    for folder, dirs, _ in os.walk(PIPELINE):
        dirs[:] = sorted(d for d in dirs if d != "include")
        rel = os.path.relpath(folder, PIPELINE)
        if rel != ".":
            out.append(rel.replace(os.sep, "/") + "/")
    return out


class FrontDoor(Case):
    def test_readme_is_at_most_200_lines(self):
        lines = read(os.path.join(SRC, "README.md")).count("\n")
        self.assertLessEqual(lines, README_MAX_LINES, "README.md is the front door; the manual is in docs/")

    def test_readme_keeps_the_two_commands(self):
        """The demo and the test command, each alone on an indented line; the test command is
        the one CI runs (.ci/run)."""
        text = read(os.path.join(SRC, "README.md"))
        for command in ("scripts/demo", "scripts/test"):
            self.assertTrue(f"\n    {command}\n" in text, f"README.md has no line '    {command}'")
        ci = [line for line in read(os.path.join(SRC, ".ci", "run")).split("\n")
              if line and not line.startswith(("#", "set ", "cd "))]
        self.assertEqual(ci, ["scripts/test"], ".ci/run runs the README's test command")

    def test_readme_stage_table_names_every_stage(self):
        stages = sorted(d for d in os.listdir(PIPELINE) if os.path.isdir(os.path.join(PIPELINE, d)))
        rows = re.findall(r"^\|\s*`(\w+)/`\s*\|", read(os.path.join(SRC, "README.md")), re.M)
        self.assertEqual(sorted(rows), stages, "README's stage table vs pipeline/'s folders")


class Index(Case):
    def test_every_doc_is_in_the_index(self):
        index = os.path.join(DOCS, "README.md")
        linked = {os.path.normpath(os.path.join(DOCS, t.split("#")[0]))
                  for _, t in links(index) if relative(t)}
        for name in sorted(os.listdir(DOCS)):
            if name != "README.md":
                with self.subTest(name=name):
                    self.assertIn(os.path.join(DOCS, name), linked, f"docs/{name} is not in docs/README.md")

    def test_the_man_page_is_linked_from_the_front_door_and_index(self):
        for page in (os.path.join(SRC, "README.md"), os.path.join(DOCS, "README.md")):
            with self.subTest(page=page):
                self.assertIn("render-episode.1", [os.path.basename(t) for _, t in links(page)])


class Links(Case):
    def test_relative_links_lead_to_a_file_and_heading(self):
        checked = 0
        for page in pages():
            self.assertTrue(os.path.exists(page), page)
            for number, target in links(page):
                if not relative(target):
                    continue
                where = f"{os.path.relpath(page, SRC)}:{number}: {target}"
                path, _, anchor = target.partition("#")
                path = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                with self.subTest(link=where):
                    self.assertTrue(os.path.exists(path), f"{where}: no such file")
                    self.assertTrue(os.path.realpath(path).startswith(os.path.realpath(SRC) + os.sep),
                                    f"{where}: outside the repository")
                    if anchor and path.endswith(".md") and os.path.isfile(path):
                        self.assertIn(anchor, anchors(path), f"{where}: no such heading")
                checked += 1
        self.assertGreater(checked, 50)

    def test_the_link_reader_finds_what_it_must(self):
        """The reader itself: a link in prose and a table is read, one in code is not."""
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as f:
            f.write("See [a](a.md#x) and | [b](../b.md) |.\n\n    [c](c.md)\n\n```\n[d](d.md)\n```\n"
                    "x `[e](e.md)` y [f]: f.md\n[g]: g.md\n## The `x` heading: y (1.1)\n")
        got = [t for _, t in links(f.name)]
        self.assertEqual(got, ["a.md#x", "../b.md", "g.md"])
        self.assertEqual(anchors(f.name), {"the-x-heading-y-11"})
        os.unlink(f.name)


class Map(Case):
    def test_architecture_names_every_pipeline_folder(self):
        text = read(os.path.join(DOCS, "architecture.md"))
        for folder in pipeline_folders():
            with self.subTest(folder=folder):
                self.assertTrue(re.search(r"(?<![\w/])" + re.escape(folder), text),
                                f"docs/architecture.md does not name {folder}")


if __name__ == "__main__":
    main()
