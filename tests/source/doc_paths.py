#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/source/doc_paths.py - the documents name only files that are in the tree.

Every path the Markdown documents (docs/*.md, README.md, CONTRIBUTING.md) give into the tree
is there: `pipeline/audio/plan.c` or `pipeline/run/` as written, `tests/e2e/common.py`,
`scripts/bench`; and a stage's file named from its folder, `audio/plan.c` or `core/duration.h`,
in pipeline/STAGE/ or, a header, in pipeline/STAGE/include/. A file split or renamed leaves no
reader looking for what is gone. A component in capitals is a placeholder (`pipeline/STAGE/`),
and a path with `*` a pattern: neither is checked.

Exit status 1 when one is missing, each printed as FILE:LINE. Usage:

    tests/source/doc_paths.py [--root DIR]
"""
import argparse
import glob
import os
import re
import sys

TREE_PATH = re.compile(r'(?<![\w/.-])((?:pipeline|tests|scripts)/[\w./*-]*[\w/*])')


def stage_path(stages):
    names = "|".join(sorted(stages))
    return re.compile(r'(?<![\w/.-])((?:%s)/[\w-]+\.[ch])\b' % names)


def documents(root):
    paths = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    for name in ("README.md", "CONTRIBUTING.md"):
        if os.path.exists(os.path.join(root, name)):
            paths.append(os.path.join(root, name))
    return paths


def placeholder(path):
    return "*" in path or any(part.split(".")[0].isupper() for part in path.split("/"))


def missing(root, text, stage_re):
    for number, line in enumerate(text.split("\n"), 1):
        for m in TREE_PATH.finditer(line):
            path = m.group(1).rstrip(".")
            if not placeholder(path) and not os.path.exists(os.path.join(root, path)):
                yield number, path
        for m in stage_re.finditer(line):
            path = m.group(1)
            stage, name = path.split("/")
            if placeholder(path):
                continue
            if not any(os.path.exists(os.path.join(root, "pipeline", stage, where, name))
                       for where in ("", "include")):
                yield number, path


def main():
    ap = argparse.ArgumentParser(description="the documents name only files that are in the tree")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    root = os.path.abspath(ap.parse_args().root)
    stages = [d for d in os.listdir(os.path.join(root, "pipeline"))
              if os.path.isdir(os.path.join(root, "pipeline", d))]
    stage_re = stage_path(stages)
    problems, count = [], 0
    for doc in documents(root):
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(doc, root)
        for number, path in missing(root, text, stage_re):
            problems.append(f"  {rel}:{number}: names {path}, which is not in the tree")
        count += 1
    if problems:
        print(f"{len(problems)} paths in the documents that are not in the tree:")
        print("\n".join(problems))
        return 1
    print(f"every path named in the {count} documents is in the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
