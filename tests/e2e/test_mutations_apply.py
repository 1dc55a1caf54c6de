# SPDX-License-Identifier: GPL-3.0-or-later
"""Every deliberate bug of tests/mutations.json can still be planted: its `find` text occurs
exactly once in its file. scripts/mutate runs only three of them per commit (CI's rotation),
so a refactor that moves a mutation's code would otherwise be noticed only on the day the
rotation picks it ("DOES NOT APPLY"). This test is the everyday guard; it reads sources only.
It also holds what scripts/mutate refuses to start without: every mutation's file lies in its
stage's folder, and no two mutations share a name; and every test a mutation names is a test's
exact name, whose program scripts/mutate can build."""
import json
import os
import unittest

from common import SRC, main


class MutationsApply(unittest.TestCase):
    def test_every_find_text_occurs_once(self):
        with open(os.path.join(SRC, "tests", "mutations.json"), encoding="utf-8") as f:
            data = json.load(f)
        mutations = data["mutations"] if isinstance(data, dict) else data
        self.assertGreater(len(mutations), 0)
        wrong = []
        for m in mutations:
            with open(os.path.join(SRC, m["file"]), encoding="utf-8") as f:
                count = f.read().count(m["find"])
            if count != 1:
                wrong.append(f"{m['name']}: {m['file']} holds its find text {count} times")
        self.assertEqual(wrong, [], "\n".join(wrong))

    def test_every_mutation_is_in_its_stage(self):
        """scripts/mutate stops before its first mutation when one names a file outside its
        stage's folder or a name twice: the whole list would go unrun."""
        with open(os.path.join(SRC, "tests", "mutations.json"), encoding="utf-8") as f:
            mutations = json.load(f)["mutations"]
        wrong = [f"{m['name']}: {m['file']} is not in pipeline/{m['stage']}/"
                 for m in mutations if not m["file"].startswith(f"pipeline/{m['stage']}/")]
        self.assertEqual(wrong, [], "\n".join(wrong))
        names = [m["name"] for m in mutations]
        self.assertEqual(sorted({n for n in names if names.count(n) > 1}), [])

    def test_every_caught_by_names_a_test(self):
        """scripts/mutate builds the program of each test a mutation names (a unit test's own,
        render-episode for an end-to-end one) before running it: a name that is not exactly a
        test's, such as a ctest pattern ("unit.test_mp3$"), names no build target, and the
        mutation is reported DOES NOT BUILD on the day the rotation picks it."""
        with open(os.path.join(SRC, "tests", "mutations.json"), encoding="utf-8") as f:
            mutations = json.load(f)["mutations"]
        files = {"unit": ("unit", ".c"), "e2e": ("e2e", ".py")}
        wrong = []
        for m in mutations:
            for test in m.get("caught_by") or []:
                kind, _, name = test.partition(".")
                folder, ext = files.get(kind, (None, None))
                if not folder or not os.path.isfile(os.path.join(SRC, "tests", folder, name + ext)):
                    wrong.append(f"{m['name']}: caught_by {test!r} is not a test's exact name")
        self.assertEqual(wrong, [], "\n".join(wrong))


if __name__ == "__main__":
    main()
