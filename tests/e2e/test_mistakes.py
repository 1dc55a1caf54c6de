# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: a new user's mistakes in a script's voices are all reported in one run. An
unknown profile, in the front matter's `voice:` or a `[voice NAME]`, gets a "did you mean"
for the nearest profile in the search path (shipped or --voices), like an unknown
front-matter key; and a bad `voice:` is reported together with the script's parse errors,
not only in the run after they are fixed. Nothing is written, exit status 2.

A new user's first tries, each answered with what to do: a voice named as its speaker is
named ([voice Guest]: profile names are lowercase, and a profile is a NAME.voice file), an
unknown profile says how to define one, a folder given to the render says to use `batch`,
and `batch -o` (the render's option) names batch's `-O DIR`."""
import os

from common import Case, listing, main, run, write


class VoiceMistakes(Case):
    def render(self, text, *extra):
        script = write(self.path("ep.txt"), text)
        res = run([script, "-o", self.path("ep.mp3"), "-q", "--no-cache", *extra])
        return res, [line for line in res.stderr.splitlines() if line.startswith(script + ":")]

    def test_unknown_voice_gets_did_you_mean(self):
        res, lines = self.render("---\ntitle: T\nvoice: hots\n---\nHello.\n\n[voice gust] Hi.\n")
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(len(lines), 2, res.stderr)
        self.assertIn(":3:8: unknown voice profile 'hots' (did you mean 'host'?)", lines[0])
        self.assertIn(":7:1: unknown voice profile 'gust' (did you mean 'guest'?)", lines[1])
        self.assertEqual(listing(self.tmp), ["ep.txt"])

    def test_suggestion_from_a_voices_folder(self):
        voices = self.path("voices")
        os.mkdir(voices)
        write(os.path.join(voices, "narrator.voice"), "voice = en-us\n")
        res, lines = self.render("---\ntitle: T\n---\n[voice narator] Hello.\n",
                                 "--voices", voices)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertIn("unknown voice profile 'narator' (did you mean 'narrator'?)", lines[0])

    def test_nothing_near_no_suggestion(self):
        res, lines = self.render("---\ntitle: T\nvoice: zzzzzzzz\n---\nHello.\n")
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertIn("unknown voice profile 'zzzzzzzz' (looked in:", lines[0])
        self.assertNotIn("did you mean", res.stderr)

    def test_bad_voice_reported_with_the_parse_errors(self):
        res, lines = self.render("---\ntitle: T\nvoice: hots\nsumary: x\n---\n"
                                 "Hello.\n\n[pause 99h]\n")
        self.assertEqual(res.returncode, 2, res.stderr)
        places = sorted(line.split(": ", 1)[0].rsplit(":", 2)[1] for line in lines)
        self.assertEqual(places, ["3", "4", "8"], res.stderr)
        self.assertTrue(any("did you mean 'summary'" in line for line in lines), res.stderr)
        self.assertTrue(any("unknown voice profile 'hots' (did you mean 'host'?)" in line
                            for line in lines), res.stderr)
        self.assertEqual(listing(self.tmp), ["ep.txt"])

    def test_explain_reports_them_too(self):
        script = write(self.path("ep.txt"), "---\ntitle: T\nvoice: gest\n---\nHello.\n")
        res = run(["explain", script])
        self.assertEqual(res.returncode, 2)
        self.assertIn("unknown voice profile 'gest' (did you mean 'guest'?)", res.stderr)


    def test_a_speakers_name_gets_the_profiles(self):
        res, lines = self.render("---\ntitle: T\n---\n[voice Guest] Hi.\n")
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(len(lines), 1, res.stderr)
        self.assertIn(":4:1: invalid voice profile name 'Guest': names are lowercase (did you "
                      "mean '[voice guest]'?); a profile is the file NAME.voice in a --voices "
                      "DIR or the shipped voices/", lines[0])
        res, lines = self.render("---\ntitle: T\nvoice: HOST\n---\nHi.\n")
        self.assertIn(":3:8: invalid voice profile name 'HOST': names are lowercase (did you "
                      "mean 'voice: host'?)", lines[0])
        res, lines = self.render("---\ntitle: T\n---\n[voice Guest.Star] Hi.\n")
        self.assertNotIn("did you mean", res.stderr)
        self.assertIn("a profile is the file NAME.voice in a --voices DIR", res.stderr)
        self.assertEqual(listing(self.tmp), ["ep.txt"])

    def test_unknown_voice_says_how_to_define_it(self):
        res, lines = self.render("---\ntitle: T\n---\n[voice announcer] Hi.\n")
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("; to define it, write announcer.voice (key = value lines: voice, "
                      "speaker, rate...) into a folder given with --voices DIR", lines[0])


class FirstTries(Case):
    def test_a_folder_given_to_the_render_names_batch(self):
        folder = self.path("scripts")
        os.mkdir(folder)
        write(os.path.join(folder, "ep.txt"), "---\ntitle: T\n---\nHello.\n")
        res = run([folder + "/", "-q"])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(res.stderr, f"{folder}/: a folder, not a script; to render every "
                         f"script in it, run: render-episode batch -O OUTDIR {folder}/\n")
        self.assertEqual((listing(self.tmp), listing(folder)), (["scripts"], ["ep.txt"]))

    def test_batch_o_names_capital_o(self):
        res = run(["batch", "-o", self.path("out"), self.tmp])
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("unknown option '-o' (options are case-sensitive: did you mean -O DIR, "
                      "--outdir DIR?)", res.stderr)
        res = run(["-O", self.path("x.mp3"), self.tmp])
        self.assertIn("did you mean -o FILE, --output FILE?", res.stderr)


if __name__ == "__main__":
    main()
