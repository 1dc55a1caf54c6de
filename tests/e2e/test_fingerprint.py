# SPDX-License-Identifier: GPL-3.0-or-later
"""batch's up-to-date decision, input by input: an episode is rendered again exactly when its
outputs would change.

For every input a user can change (each voice-profile key of each speaker, each front-matter
key, each lexicon file, each render option) the test makes the change in a copy of a folder
whose episode is up to date, then asks two things independently:
  - would the outputs change? (a fresh render with the change, compared byte for byte with
    the fresh render without it: the set of files and every file's bytes)
  - does `batch` render the episode again, or call it up to date?
and requires the answers to agree. An input that changes an output byte but is left out of
the fingerprint (a stale episode published as "up to date") fails, and so does an option that
changes nothing but forces a render. Cases expected to change the outputs are marked, so that
a change that silently stops mattering (a profile key the renderer ignores) fails too."""
import filecmp
import json
import os
import shutil

from common import SRC, Case, main, run, write

SCRIPT = """---
title: Fingerprint
show: Tests
author: The team
published: 2026-11-30T09:00:00Z
summary: Which inputs matter.
language: en-us
episode: 3
lexicon: team.lexicon
---
# Start

Hello there. NCCL is fast, and GPU work is faster.

[voice guest] Thanks. One more sentence. And another.
"""

PROFILE = {
    "host": {"voice": "en-us", "speaker": "Host", "rate": "170", "pitch": "50", "range": "50",
             "volume": "100", "word_gap": "0", "sentence_pause": "350", "paragraph_pause": "750"},
    "guest": {"voice": "en-gb", "speaker": "Guest", "rate": "165", "pitch": "60", "range": "50",
              "volume": "100", "word_gap": "0", "sentence_pause": "350", "paragraph_pause": "750"},
}
# A different value for every profile key: each changes the audio or the sidecar.
PROFILE_CHANGES = {"voice": "en-gb-x-rp", "speaker": "Someone", "rate": "190", "pitch": "40",
                   "range": "30", "volume": "80", "word_gap": "20", "sentence_pause": "500",
                   "paragraph_pause": "900"}


def write_profile(folder, name, values):
    write(os.path.join(folder, f"{name}.voice"), "".join(f"{k} = {v}\n" for k, v in values.items()))


class Fingerprint(Case):
    def setUp(self):
        super().setUp()
        self.base = self.path("base")
        os.makedirs(os.path.join(self.base, "in"))
        os.makedirs(os.path.join(self.base, "voices"))
        write(os.path.join(self.base, "in", "ep.txt"), SCRIPT)
        write(os.path.join(self.base, "in", "team.lexicon"), "NCCL = nickel\n")
        write(os.path.join(self.base, "cli.lexicon"), "GPU = graphics unit\n")
        write(os.path.join(self.base, "voices", "default.lexicon"), "fast = quick\n")
        for name, values in PROFILE.items():
            write_profile(os.path.join(self.base, "voices"), name, values)
        self.options = ["--voices", "voices", "--lexicon", "cli.lexicon", "-j", "2", "-q"]
        res = self.batch(self.base, "out")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(self.status(self.base), "rendered")
        self.reference = os.path.join(self.base, "out")

    def batch(self, folder, outdir, *extra):
        return run(["batch", "-O", outdir, "in", "--report",
                    os.path.join(folder, "report.json"), *self.options, *extra], cwd=folder)

    def status(self, folder):
        with open(os.path.join(folder, "report.json"), encoding="utf-8") as f:
            report = json.load(f)
        (episode,) = report["episodes"]
        return episode["status"]

    def same_outputs(self, a, b):
        names_a, names_b = sorted(os.listdir(a)), sorted(os.listdir(b))
        if names_a != names_b:
            return False
        return all(filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False) for n in names_a)

    def case(self, name, change=None, extra=(), changes_output=None):
        """Applies change(folder) and extra options to a copy of the up-to-date base; checks that
        batch re-renders exactly when a fresh render's outputs differ from the base's."""
        folder = self.path("case-" + name)
        shutil.copytree(self.base, folder)
        if change:
            change(folder)
        fresh = run(["batch", "-O", "fresh", "in", *self.options, *extra],
                    cwd=folder)
        self.assertEqual(fresh.returncode, 0, f"{name}: {fresh.stderr}")
        differs = not self.same_outputs(os.path.join(folder, "fresh"), self.reference)
        res = self.batch(folder, "out", *extra)
        self.assertEqual(res.returncode, 0, f"{name}: {res.stderr}")
        rendered = self.status(folder) == "rendered"
        if changes_output is not None:
            self.assertEqual(differs, changes_output, f"{name}: the outputs {'did not change' if changes_output else 'changed'}")
        self.assertEqual(rendered, differs,
                         f"{name}: the outputs {'change' if differs else 'do not change'}, "
                         f"but batch {'rendered the episode' if rendered else 'called it up to date'}")
        if rendered:
            self.assertTrue(self.same_outputs(os.path.join(folder, "out"), os.path.join(folder, "fresh")),
                            f"{name}: batch's outputs differ from a fresh render's")

    def test_nothing_changed(self):
        self.case("unchanged", changes_output=False)

    def test_every_profile_key_of_every_speaker(self):
        # Under the sanitizers (RE_SANITIZED), which look for memory errors, every key once, of
        # the host and the guest in turn: a key is read and hashed the same way for any speaker.
        pairs = [(speaker, key) for speaker in PROFILE for key in PROFILE_CHANGES]
        if os.environ.get("RE_SANITIZED"):
            speakers = list(PROFILE)
            pairs = [(speakers[i % len(speakers)], key) for i, key in enumerate(PROFILE_CHANGES)]
        for speaker, key in pairs:
            def change(folder, speaker=speaker, key=key, value=PROFILE_CHANGES[key]):
                values = dict(PROFILE[speaker], **{key: value})
                write_profile(os.path.join(folder, "voices"), speaker, values)
            with self.subTest(speaker=speaker, key=key):
                self.case(f"{speaker}-{key}", change, changes_output=True)

    def test_profile_comment_and_order_do_not_matter(self):
        def change(folder):
            values = PROFILE["host"]
            text = "# reordered, with a comment\n" + "".join(
                f"{k} = {values[k]}\n" for k in reversed(list(values)))
            write(os.path.join(folder, "voices", "host.voice"), text)
        self.case("profile-reordered", change, changes_output=False)

    def test_every_front_matter_key(self):
        edits = {
            "title": ("title: Fingerprint", "title: Fingerprint two"),
            "show": ("show: Tests", "show: Other show"),
            "author": ("author: The team", "author: Someone else"),
            "published": ("2026-11-30T09:00:00Z", "2026-12-01T09:00:00Z"),
            "summary": ("summary: Which inputs matter.", "summary: Another summary."),
            "language": ("language: en-us", "language: en-gb"),
            "episode": ("episode: 3", "episode: 4"),
            "voice": ("episode: 3\n", "episode: 3\nvoice: guest\n"),
            "lexicon": ("lexicon: team.lexicon\n", ""),
        }
        for key, (old, new) in edits.items():
            def change(folder, old=old, new=new):
                path = os.path.join(folder, "in", "ep.txt")
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                self.assertIn(old, text)
                write(path, text.replace(old, new, 1))
            with self.subTest(key=key):
                self.case(f"front-{key}", change, changes_output=True)

    def test_a_comment_in_the_script_does_not_matter(self):
        def change(folder):
            path = os.path.join(folder, "in", "ep.txt")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            write(path, text.replace("# Start\n", "# Start\n// a note for the writer\n"))
        self.case("script-comment", change)

    def test_every_lexicon(self):
        for name, path, text in [("front-matter", ("in", "team.lexicon"), "NCCL = nickel library\n"),
                                 ("option", ("cli.lexicon",), "GPU = graphics card\n"),
                                 ("default", ("voices", "default.lexicon"), "fast = speedy\n")]:
            with self.subTest(lexicon=name):
                self.case(f"lexicon-{name}", lambda folder, path=path, text=text:
                          write(os.path.join(folder, *path), text), changes_output=True)

    def test_options_that_change_outputs(self):
        for extra in (["-b", "96"], ["--quality", "7"], ["--serial-encode"], ["--srt"],
                      ["--transcript-json"], ["--page"], ["--page-md"], ["--loudness", "-18"], ["--loudness", "off"],
                      ["--true-peak", "-2"], ["--no-default-lexicon"]):
            with self.subTest(option=" ".join(extra)):
                self.case("opt" + "".join(extra), extra=extra, changes_output=True)

    def test_options_that_change_nothing(self):
        for extra in (["-j", "1"], ["--no-cache"], ["--max-size", "100000"],
                      ["--segment-timeout", "60"], ["--progress"]):
            with self.subTest(option=" ".join(extra)):
                self.case("opt" + "".join(extra), extra=extra, changes_output=False)

    def test_profiles_moved_to_another_folder(self):
        def change(folder):
            shutil.copytree(os.path.join(folder, "voices"), os.path.join(folder, "voices2"))
        self.options = ["--voices", "voices2", "--lexicon", "cli.lexicon", "-j", "2", "-q"]
        self.case("voices-moved", change, changes_output=False)


if __name__ == "__main__":
    main()
