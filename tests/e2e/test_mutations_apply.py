# SPDX-License-Identifier: GPL-3.0-or-later
"""Every deliberate bug of tests/mutations.json can still be planted: its `find` text occurs
exactly once in its file. scripts/mutate runs only three of them per commit (CI's rotation),
so a refactor that moves a mutation's code would otherwise be noticed only on the day the
rotation picks it ("DOES NOT APPLY"). This test is the everyday guard; it reads sources only."""
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


if __name__ == "__main__":
    main()
