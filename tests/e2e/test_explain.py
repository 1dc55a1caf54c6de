# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: `render-episode explain` shows, for each piece of speech, the text the engine
is given after the lexicon and normalization and the phonemes espeak-ng will use for it;
lexicon sources take precedence in the documented order and their errors name FILE:LINE:COL."""
import os
import re
import subprocess
import unittest

from common import SRC, Case, explained, main, run, write

HEAD = "---\ntitle: Test\n---\n"

# A briefing of the kind the program is for (no test elsewhere has its sentences).
BRIEFING = HEAD + """# Compiler

Welcome back. It's March 3rd, 2026, and 3 people shipped 12 changes in 1.5 days.

The JITCompiler rewrite landed as PR 201544, with follow-ups in PRs 201560, 201561 and 201590. It fixes issue 187004 [pause 300ms] and a long-standing crash in TorchDispatchMode when NCCL2 and MPI ranks disagree.

# Releases

Release v3.2.1 of FlashAttn is out; CUDA 12.6 and Python 3.13 are now required. Kernels run 2.5x faster, about 40 ms per step, on an H100 or an MI300X, measured with torch.cuda.Event timers and std::chrono in C++…

[voice guest] Details are at https://github.com/example/flashattn/releases/tag/v3.2.1 and in docs/build_notes.md; see commit 4e1f2ab and bug #66231.
"""

QUANTITY = re.compile(r"h'VndrI2d|T'aUz@nd|m'Illj@n")   # hundred, thousand, million


def explain(args, **kw):
    return run(["explain"] + list(args), **kw)


def entries(stdout):
    """[(place, spoken text, phonemes)] from explain's output."""
    return [e[:3] for e in explained(stdout)]


class Explain(Case):
    @classmethod
    def setUpClass(cls):
        probe = run(["explain", "--help"])
        if probe.returncode != 0 or "explain" not in probe.stdout:
            raise unittest.SkipTest("main.c does not dispatch 'explain' to re_cli_explain yet")

    def script(self, text, name="ep.txt"):
        return write(self.path(name), text)

    def explain_ok(self, *args, decisions=False):
        res = explain(list(args), cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr, "")
        return explained(res.stdout) if decisions else entries(res.stdout)

    def test_briefing_places_text_and_phonemes(self):
        self.script(BRIEFING)
        got = self.explain_ok("ep.txt")
        places = [p for p, _, _ in got]
        self.assertEqual(places, ["ep.txt:6:1", "ep.txt:8:1", "ep.txt:8:132", "ep.txt:12:1",
                                  "ep.txt:14:15"])
        said = {p: t for p, t, _ in got}
        self.assertEqual(said["ep.txt:6:1"], "Welcome back. It's March 3rd, 2026, and 3 people "
                         "shipped 12 changes in 1.5 days.")
        self.assertIn("The JIT Compiler rewrite", said["ep.txt:8:1"])   # JIT: a lexicon word
        # PR is in the dictionary (wamerican lists it), so the engine says it, letter by letter
        self.assertIn("PR two zero one five four four, with follow-ups in P.R.'s two zero one "
                      "five six zero, two zero one five six one and two zero one five nine zero.",
                      said["ep.txt:8:1"])
        self.assertIn("issue one eight seven zero zero four", said["ep.txt:8:1"])
        self.assertIn("Torch Dispatch Mode when nickel 2 and M.P.I ranks", said["ep.txt:8:132"])
        self.assertIn("Release version 3 point 2 point 1 of Flash Attn", said["ep.txt:12:1"])
        self.assertIn("CUDA 12.6 and Python 3 point 13", said["ep.txt:12:1"])
        self.assertIn("2.5 times faster, about 40 milliseconds per step", said["ep.txt:12:1"])
        self.assertIn("std chrono in C plus plus\u2026", said["ep.txt:12:1"])
        self.assertIn("at github dot com and in docs slash build notes dot M.D;", said["ep.txt:14:15"])
        self.assertIn("bug six six two three one.", said["ep.txt:14:15"])

    def test_no_identifier_is_read_as_a_quantity(self):
        self.script(BRIEFING)
        for place, text, phonemes in self.explain_ok("ep.txt"):
            # The only quantities are the year and the GPU models, said "H one hundred" and
            # "M I three hundred X" as people say them.
            spoken_quantities = QUANTITY.findall(phonemes)
            allowed = sum(word in text for word in ("2026", "H100", "300X"))
            self.assertLessEqual(len(spoken_quantities), allowed, (place, text, phonemes))

    def test_phonemes_are_the_engines(self):
        self.script(HEAD + "PR 189759 and NCCL2.\n\nswap-A-B in C++\n")
        got = self.explain_ok("ep.txt")
        self.assertEqual(got[0][2], "p,i:;'A@ w'Vn 'eIt n'aIn s'Ev@n f'aIv n'aIn_:_: and n'Ik@L t'u:")
        self.assertEqual(got[1][2], "sw'0p ,eIb'i:; In s'i: pl'Vs pl'Vs")

    def test_decisions_word_by_word(self):
        self.script(HEAD + "HEAD moved to 12d655d4561; OPENSSL_INIT_LOAD needs --silent now.\n\n"
                    "Plain words only here.\n")
        got = self.explain_ok("ep.txt", decisions=True)
        self.assertEqual(got[0][1], "HEAD moved to one two D six five five D; OPEN S.S.L INIT "
                                    "LOAD needs dash dash silent now.")
        self.assertEqual(got[0][3], [
            (0, "HEAD", "dictionary word, as the engine says it"),
            (0, "12d655d4561", "hash: its first 7 characters one by one"),
            (0, "OPENSSL_INIT_LOAD", "identifier: its parts"),
            (1, "OPENSSL", "capitals, not in the dictionary: dictionary words and acronyms"),
            (2, "OPEN", "dictionary word, as the engine says it"),
            (2, "SSL", "capitals, not in the dictionary: spelled"),
            (1, "INIT", "capitals, not in the dictionary but pronounceable: as written"),
            (1, "LOAD", "dictionary word, as the engine says it"),
            (0, "--silent", "option: its dashes said"),
        ])
        # HEAD is said as espeak-ng says the word, not spelled
        self.assertTrue(got[0][2].startswith("h'Ed "), got[0][2])
        self.assertEqual(got[1][3], [])   # ordinary prose: nothing decided

    def test_other_language_voice_gets_the_lexicon_only(self):
        # The rules are English; a German voice is given the script's text (the lexicon
        # still applies) and says it as plain espeak-ng -v de does.
        os.mkdir(self.path("voices"))
        write(self.path("voices", "german.voice"), "voice = de\n")
        text = "HEAD ist 12d655d4561 und --silent."
        self.script(HEAD + f"[voice german] {text}\n\n{text}\n\n[voice german] NCCL2 ist da.\n")
        got = self.explain_ok("ep.txt", "--voices", "voices", decisions=True)
        self.assertEqual(got[0][1], text)
        self.assertEqual(got[0][3], [])
        judge = subprocess.run(["espeak-ng", "-q", "-x", "-v", "de", text], capture_output=True,
                               text=True, check=True).stdout.strip()
        self.assertEqual(got[0][2], judge)
        self.assertEqual(got[1][1], "HEAD ist one two D six five five D und dash dash silent.")
        self.assertEqual(got[2][1], "nickel 2 ist da.")
        self.assertEqual(got[2][3], [(0, "NCCL", "lexicon entry")])

    def test_lexicon_option_and_precedence(self):
        write(self.path("a.lexicon"), "# team words\nFlashAttn = flash attention\nNCCL = en cee cee el\n"
                                      "Gloo = [[gl'u:]]\n")
        write(self.path("b.lexicon"), "NCCL = nickle\n")
        self.script(HEAD + "FlashAttn on NCCL2 and Gloo.\n")
        got = self.explain_ok("ep.txt", "--lexicon", "a.lexicon", "--lexicon=b.lexicon")
        self.assertEqual(got[0][1], "flash attention on nickle 2 and [[gl'u:]].")
        self.assertIn("gl'u:", got[0][2])
        got = self.explain_ok("ep.txt", "--lexicon", "b.lexicon", "--lexicon", "a.lexicon")
        self.assertEqual(got[0][1], "flash attention on en cee cee el 2 and [[gl'u:]].")

    def test_script_brackets_are_never_phonemes(self):
        write(self.path("p.lexicon"), "Gloo = [[gl'u:]]\n")
        self.script(HEAD + "Say [[h@'loU]] to Gloo.\n")
        got = self.explain_ok("ep.txt", "--lexicon", "p.lexicon")
        self.assertEqual(got[0][1], "Say [ [h@'loU] ] to [[gl'u:]].")
        self.assertNotIn("h@'loU", got[0][2])   # read as text, not as phonemes
        self.assertIn("gl'u:", got[0][2])
        got = self.explain_ok("ep.txt", "--no-default-lexicon")
        self.assertEqual(got[0][1], "Say [[h@'loU]] to Gloo.")

    def test_default_lexicon_from_voice_folders(self):
        self.script(HEAD + "NCCL and CUDA.\n")
        self.assertEqual(self.explain_ok("ep.txt")[0][1], "nickel and CUDA.")
        self.assertEqual(self.explain_ok("ep.txt", "--no-default-lexicon")[0][1],
                         "N.C.C.L and C.U.D.A.")
        os.mkdir(self.path("voices"))
        write(self.path("voices", "default.lexicon"), "NCCL = the team's nickel\n")
        self.assertEqual(self.explain_ok("ep.txt", "--voices", "voices")[0][1],
                         "the team's nickel and C.U.D.A.")

    def test_front_matter_lexicon(self):
        os.mkdir(self.path("words"))
        write(self.path("words", "team.lexicon"), "NCCL = front matter nickel\n")
        write(self.path("words", "cli.lexicon"), "NCCL = command line nickel\n")
        self.script("---\ntitle: T\nlexicon: team.lexicon\n---\nNCCL here.\n", "words/ep.txt")
        res = explain(["words/ep.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(entries(res.stdout)[0][1], "front matter nickel here.")
        got = self.explain_ok("words/ep.txt", "--lexicon", "words/cli.lexicon")
        self.assertEqual(got[0][1], "command line nickel here.")
        self.script("---\ntitle: T\nlexicon: missing.lexicon\n---\nNCCL here.\n", "words/ep2.txt")
        res = explain(["words/ep2.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertIn("words/missing.lexicon: cannot open", res.stderr)
        self.assertRegex(res.stderr, r"words/ep2\.txt:3:\d+: lexicon 'missing.lexicon' could not be loaded")

    def test_lexicon_errors_name_file_line_col(self):
        write(self.path("bad.lexicon"), "NCCL = nickel\n\nGloo = [[gl'u:\nNCCL = again\nno equals\n")
        self.script(HEAD + "NCCL\n")
        res = explain(["ep.txt", "--lexicon", "bad.lexicon"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertEqual(res.stdout, "")
        self.assertIn("bad.lexicon:3:8: unclosed '[[' in the replacement of 'Gloo'", res.stderr)
        self.assertIn("bad.lexicon:4:1: duplicate entry 'NCCL' (first on line 1)", res.stderr)
        self.assertIn("bad.lexicon:5:1: expected 'WORD = replacement', got 'no equals'", res.stderr)
        res = explain(["ep.txt", "--lexicon", "absent.lexicon"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertIn("absent.lexicon: cannot open: No such file or directory", res.stderr)

    def test_script_errors_exit_2(self):
        self.script(HEAD + "Fine.\n\n[pause 5 min] no\n")
        res = explain(["ep.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertEqual(res.stdout, "")
        self.assertRegex(res.stderr, r"^ep\.txt:6:1: malformed pause")
        self.script(HEAD + "[voice nobody] Hi.\n")
        res = explain(["ep.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2)
        self.assertIn("ep.txt:4:1: unknown voice profile 'nobody'", res.stderr)

    def test_usage_errors_exit_1(self):
        for args in (["--bogus", "ep.txt"], [], ["a.txt", "b.txt"], ["ep.txt", "--lexicon"],
                     ["ep.txt", "--max-size", "12abc"]):
            res = explain(args, cwd=self.tmp)
            self.assertEqual(res.returncode, 1, (args, res.stderr))
            self.assertEqual(res.stdout, "")

    def test_same_output_every_time(self):
        self.script(BRIEFING)
        a = explain(["ep.txt"], cwd=self.tmp)
        b = explain(["ep.txt"], cwd=self.tmp)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)

    def test_sample_episode_is_unchanged_prose(self):
        got = self.explain_ok(os.path.join(SRC, "samples", "weekly-briefing.txt"))
        self.assertTrue(got)
        texts = [t for _, t, _ in got]
        self.assertIn("Pauses are exact. This one lasts one and a half seconds.", texts)



class LexiconReach(Case):
    """A script may name a lexicon only inside its own folder tree (symlinks followed):
    elsewhere is refused at the `lexicon:` key before the file is opened, so none of its lines
    is quoted; --allow-path DIR widens the rule; --lexicon on the command line goes anywhere."""

    SECRET = "SECRET_TOKEN = hunter2 value\n"

    def setUp(self):
        super().setUp()
        for d in ("show", "show/sub", "other"):
            os.mkdir(self.path(d))
        write(self.path("other", ".env"), self.SECRET)
        write(self.path("show", "sub", "ok.lexicon"), "NCCL = nickel\n")
        os.symlink("../other/.env", self.path("show", "link.lexicon"))

    def attempt(self, value, *extra, command="explain"):
        write(self.path("show", "ep.txt"), f"---\ntitle: T\nlexicon: {value}\n---\nNCCL here.\n")
        args = ["explain", *extra, "show/ep.txt"] if command == "explain" else \
            ["show/ep.txt", "-o", "show/out.mp3", "-q", *extra]
        return run(args, cwd=self.tmp)

    def test_outside_is_refused_without_reading_it(self):
        for value in ("../other/.env", os.path.join(self.tmp, "other", ".env"), "link.lexicon",
                      "sub/../../other/.env"):
            for command in ("explain", "render"):
                with self.subTest(value=value, command=command):
                    res = self.attempt(value, command=command)
                    self.assertEqual(res.returncode, 2, res.stderr)
                    self.assertIn("show/ep.txt:3:10: lexicon ", res.stderr)
                    self.assertIn("is outside the script's folder", res.stderr)
                    self.assertNotIn("SECRET", res.stdout + res.stderr)
                    self.assertNotIn("hunter2", res.stdout + res.stderr)
                    self.assertFalse(os.path.exists(self.path("show", "out.mp3")))

    def test_inside_and_allowed(self):
        res = self.attempt("sub/ok.lexicon")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("nickel here.", res.stdout)
        for command in ("explain", "render"):
            with self.subTest(command=command):
                res = self.attempt("../other/.env", "--allow-path", "other", command=command)
                self.assertEqual(res.returncode, 0, res.stderr)
        # The user's own --lexicon is not confined.
        write(self.path("other", "cli.lexicon"), "NCCL = command line nickel\n")
        write(self.path("show", "ep.txt"), "---\ntitle: T\nlexicon: sub/ok.lexicon\n---\nNCCL here.\n")
        res = run(["explain", "--lexicon", "other/cli.lexicon", "show/sub/../ep.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("command line nickel here.", res.stdout)

if __name__ == "__main__":
    main()
