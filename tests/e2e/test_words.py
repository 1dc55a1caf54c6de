# SPDX-License-Identifier: GPL-3.0-or-later
"""The normalizer's dictionary (pipeline/say/words/) is exactly what scripts/make-words
makes of Debian's wamerican word list and espeak-ng's en_dict, so "is this a word" can be
traced to public files, and a word of either in capitals is left to the engine: `explain`
shows the engine's own phonemes for it (judged by the espeak-ng program), not spelled
letters."""
import os
import re
import subprocess

from common import SRC, Case, main, run, write

WORDLIST = "/usr/share/dict/american-english"


class Words(Case):
    def test_table_is_the_generated_one(self):
        self.assertTrue(os.path.exists(WORDLIST), "scripts/setup --test installs wamerican")
        made = self.path("words")
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "scripts", "make-words"), "--out",
                        made], check=True)
        committed = os.path.join(SRC, "pipeline", "say", "words")
        self.assertEqual(sorted(os.listdir(made)), sorted(os.listdir(committed)))
        self.assertEqual(len(os.listdir(made)), 27)   # a table a letter, and the index
        for name in sorted(os.listdir(made)):
            with open(os.path.join(made, name), encoding="utf-8") as a, \
                    open(os.path.join(committed, name), encoding="utf-8") as b:
                self.assertEqual(a.read(), b.read(), f"{name}: regenerate with scripts/make-words")

    def test_list_words_in_capitals_are_the_engines(self):
        # Words of the list, chosen by position (every 997th of those 4-8 letters long), not
        # by hand; each said alone in capitals must get plain espeak-ng's phonemes for it.
        with open(WORDLIST, encoding="utf-8") as f:
            words = [w.strip() for w in f if re.fullmatch(r"[a-z]{4,8}", w.strip())]
        picked = [w.upper() for w in words[::997]]
        # and words only espeak-ng's dictionary has (every 25th, 3-8 letters)
        make_words = {}
        exec(open(os.path.join(SRC, "scripts", "make-words"), encoding="utf-8").read(), make_words)
        engine_only = sorted(w for w in make_words["en_dict_words"](make_words["en_dict_path"]())
                             - set(words) if re.fullmatch(r"[a-z]{3,8}", w))
        picked += [w.upper() for w in engine_only[::25]]
        self.assertGreater(len(picked), 60)
        write(self.path("ep.txt"), "---\ntitle: T\n---\n" + "\n\n".join(picked) + "\n")
        res = run(["explain", "--no-default-lexicon", "ep.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.split("\n")
        got = {}
        for i, line in enumerate(lines):
            m = re.match(r"^ep\.txt:\d+:1: (\S+)$", line)
            if m:
                got[m.group(1)] = (lines[i + 1].strip(), lines[i + 2].strip())
        for w in picked:
            with self.subTest(word=w):
                self.assertIn(w, got)   # said as written
                engine = subprocess.run(["espeak-ng", "-q", "-x", "-v", "en-us", w],
                                        capture_output=True, text=True, check=True).stdout.strip()
                self.assertEqual(got[w][0], engine)
                self.assertEqual(got[w][1], f"- {w}: dictionary word, as the engine says it")


if __name__ == "__main__":
    main()
