#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/source/duplicates.py - logic written twice in pipeline/: runs of non-trivial lines that
stand in two places.

Every pipeline/**/*.c is read as text (generated tables left out). Comments go, white space is
folded, and lines that carry no logic of their own are passed over: braces and other lone
punctuation, #include lines, `else`, `break;`, `continue;`, a bare `return ...;` of one word,
and the like. A run of MIN_LINES or more such lines that stands again, line for line, somewhere
else (in the same file or another) is reported as `a.c:10-24 ~ b.c:40-54`.

Exit status 1 when a run is found that no entry of ALLOWED explains; runs that involve a file
of IN_FLIGHT are printed but do not fail (those files are being split or rewritten on other
branches; remove them from the list once those branches are merged). Usage:

    tests/source/duplicates.py [--root DIR] [--min-lines N]
"""
import argparse
import os
import re
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from c_text import blank  # noqa: E402

MIN_LINES = 5

# Generated files: not code anyone writes.
GENERATED = {f"pipeline/say/words/words_{c}.c" for c in "abcdefghijklmnopqrstuvwxyz"} | {
    "pipeline/say/words/words_index.c"}

# Files other branches are splitting or rewriting this session: their runs are printed, not
# failed. The lead removes each entry once its branch is merged.
IN_FLIGHT = ()

# True boilerplate that stands in several places by design: (file, first line's text) of each
# side, with the reason. An entry explains a run when both of its sides match one.
ALLOWED = [
]

TRIVIAL = re.compile(r"""^(
    [{}()\[\];,]+                      # lone punctuation: } ); };
  | \#\s*(include|endif|else|pragma).* # preprocessor lines that carry no logic
  | else | else\ \{ | \}\ else\ \{ | do\ \{ | \}\ while\ \(0\);
  | break; | continue; | default: | goto\ \w+; | \w+:
  | return(\ [\w.>-]+)?;               # return; return 0; return status; return r->x;
  | (static\ )?(inline\ )?(int|void|size_t|re_status|char|unsigned)\ ?\*?\ ?\w*\(.*\)
)$""", re.X)


def logic_lines(path):
    """[(line number, folded text)] of the lines of path that carry logic."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = blank(f.read(), keep_strings=True)
    lines = []
    for number, line in enumerate(text.split("\n"), 1):
        folded = " ".join(line.split())
        if folded and not TRIVIAL.match(folded):
            lines.append((number, folded))
    return lines


def find_runs(files, min_lines):
    """Maximal runs of >= min_lines logic lines that stand in two places, as
    [((file, first, last), (file, first, last))]."""
    windows = defaultdict(list)          # the texts of min_lines lines -> [(file, index)]
    for name, lines in files.items():
        for k in range(len(lines) - min_lines + 1):
            windows[tuple(t for _, t in lines[k:k + min_lines])].append((name, k))
    pairs = set()
    for places in windows.values():
        if len(places) < 2:
            continue
        for a in range(len(places)):
            for b in range(a + 1, len(places)):
                pairs.add((places[a], places[b]))
    runs, seen = [], set()
    for (fa, ka), (fb, kb) in sorted(pairs):
        if (fa, ka, fb, kb) in seen:
            continue
        la, lb = files[fa], files[fb]
        if fa == fb and abs(ka - kb) < min_lines:
            continue                     # a run overlapping itself (a repeated line)
        # grow to the end while the lines agree
        length = min_lines
        while ka + length < len(la) and kb + length < len(lb) and la[ka + length][1] == lb[kb + length][1]:
            length += 1
        for d in range(length - min_lines + 1):
            seen.add((fa, ka + d, fb, kb + d))
        runs.append(((fa, la[ka][0], la[ka + length - 1][0], la[ka][1]),
                     (fb, lb[kb][0], lb[kb + length - 1][0], lb[kb][1]), length))
    return runs


def allowed(run):
    (fa, _, _, ta), (fb, _, _, tb), _ = run
    for entry in ALLOWED:
        (ea, xa), (eb, xb) = entry[0], entry[1]
        if (fa, ta) == (ea, xa) and (fb, tb) == (eb, xb) or (fa, ta) == (eb, xb) and (fb, tb) == (ea, xa):
            return True
    return False


def in_flight(name):
    return any(name == f or (f.endswith("/") and name.startswith(f)) for f in IN_FLIGHT)


def main():
    ap = argparse.ArgumentParser(description="logic written twice in pipeline/")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--min-lines", type=int, default=MIN_LINES)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    files = {}
    for folder, _, names in os.walk(os.path.join(root, "pipeline")):
        for name in sorted(names):
            if name.endswith(".c"):
                rel = os.path.relpath(os.path.join(folder, name), root)
                if rel not in GENERATED:
                    files[rel] = logic_lines(os.path.join(root, rel))
    runs = find_runs(files, args.min_lines)
    failing = [r for r in runs if not allowed(r) and not in_flight(r[0][0]) and not in_flight(r[1][0])]
    printed = [r for r in runs if r not in failing and not allowed(r)]
    lines = sum(len(v) for v in files.values())
    print(f"{len(files)} files, {lines} lines of logic, runs of {args.min_lines} or more compared")

    def show(r):
        (fa, a1, a2, _), (fb, b1, b2, _), n = r
        return f"  {fa}:{a1}-{a2} ~ {fb}:{b1}-{b2}  ({n} lines)"
    if printed:
        print(f"{len(printed)} in files being split on other branches (not failing):")
        for r in printed:
            print(show(r))
    if failing:
        print(f"{len(failing)} written twice:")
        for r in failing:
            print(show(r))
        return 1
    print("nothing else is written twice")
    return 0


if __name__ == "__main__":
    sys.exit(main())
