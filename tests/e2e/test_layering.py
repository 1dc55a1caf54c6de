# SPDX-License-Identifier: GPL-3.0-or-later
"""The stage folders hold what docs/architecture.md says they hold, and the build enforces the
layering.

docs/architecture.md's table "The stages and what each owns" lists, for every folder of
pipeline/, the stages it may use. pipeline/CMakeLists.txt links exactly those
(re_stage(... USES ...)). This test holds the two against each other, checks that every source file of pipeline/ is named in the build and
lives in a stage folder, and then shows that the build really refuses a reach across: with a
stage's include path (its own headers and those of the stages it uses, transitively), a
header of any other stage cannot be found."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SRC, main  # noqa: E402

PIPELINE = os.path.join(SRC, "pipeline")


def cmake_stages():
    """{stage: {"sources": [...], "uses": [...]}} from pipeline/CMakeLists.txt, cli included."""
    text = open(os.path.join(PIPELINE, "CMakeLists.txt"), encoding="utf-8").read()
    text = re.sub(r"#[^\n]*", "", text)
    stages = {}
    for m in re.finditer(r"re_stage\((\w+)(.*?)\)", text, re.S):
        name, body = m.group(1), m.group(2)
        parts = re.split(r"\b(SOURCES|USES|LIBS)\b", body)
        fields = {"SOURCES": [], "USES": [], "LIBS": []}
        for key, value in zip(parts[1::2], parts[2::2]):
            fields[key] = value.split()
        stages[name] = {"sources": fields["SOURCES"], "uses": fields["USES"]}
    exe = re.search(r"add_executable\(render-episode(.*?)\)", text, re.S).group(1).split()
    links = re.search(r"target_link_libraries\(render-episode PRIVATE(.*?)\)", text, re.S).group(1)
    stages["cli"] = {"sources": [s.split("/", 1)[1] for s in exe],
                     "uses": [w[3:] for w in links.split() if w.startswith("re_")]}
    return stages


def map_table():
    """{stage: [uses]} from docs/architecture.md's stage table (rows `| `stage/` | ... | uses |`)."""
    text = open(os.path.join(SRC, "docs", "architecture.md"), encoding="utf-8").read()
    table = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*`(\w+)/`\s*\|.*\|\s*([^|]*?)\s*\|\s*$", line)
        if m:
            uses = m.group(2)
            table[m.group(1)] = [] if uses in ("", "—", "-") else [u.strip() for u in uses.split(",")]
    return table


def closure(stages, name):
    seen, todo = set(), [name]
    while todo:
        stage = todo.pop()
        if stage not in seen:
            seen.add(stage)
            todo.extend(stages[stage]["uses"])
    return seen


def external_cflags():
    out = subprocess.run(["pkg-config", "--cflags", "espeak-ng", "sndfile", "libmpg123", "libebur128", "soxr",
                          "libxml-2.0", "jansson", "nettle"], capture_output=True, text=True, check=True)
    return out.stdout.split()


class Layering(unittest.TestCase):
    def test_architecture_table_is_the_build(self):
        stages = cmake_stages()
        table = map_table()
        self.assertEqual(sorted(table), sorted(stages), "docs/architecture.md's folders vs the build's stages")
        for name, stage in stages.items():
            self.assertEqual(sorted(table[name]), sorted(stage["uses"]),
                             f"{name}/: docs/architecture.md says it uses {table[name]}, the build links {stage['uses']}")

    def test_no_layer_cycle(self):
        stages = cmake_stages()
        for name in stages:
            for used in stages[name]["uses"]:
                self.assertNotIn(name, closure(stages, used), f"{name} and {used} use each other")

    def test_every_source_in_a_stage_folder_and_named(self):
        stages = cmake_stages()
        loose = [f for f in os.listdir(PIPELINE) if f.endswith((".c", ".h"))]
        self.assertEqual(loose, [], "source files directly in pipeline/")
        for name, stage in stages.items():
            folder = os.path.join(PIPELINE, name)
            on_disk = sorted(os.path.relpath(os.path.join(d, f), folder)   # words/words_a.c
                             for d, _, files in os.walk(folder) for f in files if f.endswith(".c"))
            self.assertEqual(on_disk, sorted(stage["sources"]), f"{name}/: .c files vs the build's list")
        folders = sorted(d for d in os.listdir(PIPELINE) if os.path.isdir(os.path.join(PIPELINE, d)))
        self.assertEqual(folders, sorted(stages), "pipeline/ folders vs the build's stages")

    def test_build_refuses_a_reach_across(self):
        stages = cmake_stages()
        cflags = external_cflags() + [f"-I{d}" for d in subprocess.run(
            ["sh", "-c", "dirname $(find /usr/include -name lame.h -path '*lame/*' | head -1)"],
            capture_output=True, text=True).stdout.split()]
        headers = {name: sorted(os.listdir(os.path.join(PIPELINE, name, "include")))
                   for name in stages if os.path.isdir(os.path.join(PIPELINE, name, "include"))}
        checked = 0
        with tempfile.TemporaryDirectory() as tmp:
            source = os.path.join(tmp, "probe.c")
            for name in stages:
                visible = closure(stages, name)
                includes = [f"-I{os.path.join(PIPELINE, s, 'include')}" for s in visible if s in headers]
                for other, names in headers.items():
                    header = names[0]
                    with open(source, "w") as f:
                        f.write(f'#include "{header}"\nint probe(void);\nint probe(void) {{ return 0; }}\n')
                    r = subprocess.run(["cc", "-std=gnu11", "-fsyntax-only", *includes, *cflags, source],
                                       capture_output=True, text=True)
                    if other in visible:
                        self.assertEqual(r.returncode, 0, f"{name}/ cannot include {other}'s {header}: {r.stderr}")
                    else:
                        self.assertNotEqual(r.returncode, 0, f"{name}/ can include {other}'s {header}")
                        self.assertIn(f"{header}: No such file", r.stderr)
                    checked += 1
        self.assertGreater(checked, 50)


if __name__ == "__main__":
    main()
