# SPDX-License-Identifier: GPL-3.0-or-later
"""The pronunciation corpus: 300+ tokens taken from real release notes, changelogs and security
advisories (tests/data/pronunciation/corpus.tsv, each citing its file under /usr/share/doc),
and rows from upstream release notes cited as PROJECT/PATH:LINE of the project's repository
(ruff's and uv's changelogs), each said alone as a paragraph and checked through
`render-episode explain`:

- the text the engine is given is the expected spoken form of docs/pronunciation.md's rules;
- the decision explain shows for it names the rule that took it;
- "never worse than espeak-ng": for every ordinary English word and every dictionary word in
  capitals, our phonemes are exactly plain espeak-ng's for the same word
  (`espeak-ng -q -x -v VOICE`, the espeak-ng program as judge, one process per voice reading
  one word a line), in every English voice;
- rendered, the transcripts show the script's own tokens, not what the engine was given
  (ffmpeg re-reads the WebVTT file)."""
import os
import re
import subprocess

from common import SRC, Case, explained, heard, main, run, write

CORPUS = os.path.join(SRC, "tests", "data", "pronunciation", "corpus.tsv")
# Every English espeak-ng 1.51 voice that needs no MBROLA.
VOICES = ("en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-gbcwmd", "en-gb-x-rp",
          "en-029")

# The decision explain prints for a token of each category (its first, outermost one).
DECISION = {
    "url": r"URL: the site",
    "cve": r"ticket key$",
    "version": r"version: its separators said$",
    "hash": r"^hash: its (algorithm, then its )?first 7 characters one by one$",
    "option": r"option: its dashes said$",
    "constant": r"identifier: its parts$",
    "capitals": r"dictionary word, as the engine says it$",
    "acronym": r"capitals, not in the dictionary",
    "lexicon": r"lexicon entry$",
    "code": r"name and number: its digits one by one$",
    "minus": r"hyphenated: its parts$",
    "emoji": r"emoji: not spoken$",
    "date": r"^date( range)?(: | and time$)",
    "time": r"^time of day: ",
    "month": r"^month: in full beside a day or year$",
    "requirement": r"^requirement: its comparisons in words$",
    "duration": r"^(duration: its units in words|number with a unit or multiplier)$",
    "merge-request": r"^merge request: its number$",
    "rule-code": r"^rule code: letters, then its digits one by one$",
    "advisory": r"^advisory ID: its characters one by one$",
    "money": r"^money: the amount, then its currency$",
}


def corpus():
    rows = []
    with open(CORPUS, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            token, said, category, source, cited = line.rstrip("\n").split("\t")
            rows.append((token, said, category, source, cited))
    return rows


def engine_phonemes(words, voice):
    """{word: plain espeak-ng's phonemes for it said alone}, from one espeak-ng process: it
    reads one line at a time and writes one line of phonemes for each (a line is a clause, as a
    word alone is; the words are single tokens, none empty or silent). Each line is checked
    against the count, and the first and last word against a call of their own."""
    res = subprocess.run(["espeak-ng", "-q", "-x", "-v", voice], input="\n".join(words) + "\n",
                         capture_output=True, text=True, check=True)
    lines = res.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == len(words) + 1, (voice, len(lines), len(words))
    said = {w: line.strip() for w, line in zip(words, lines)}
    for word in (words[0], words[-1]):   # the pairing: a word alone is said as in the batch
        alone = subprocess.run(["espeak-ng", "-q", "-x", "-v", voice, word], capture_output=True,
                               text=True, check=True).stdout.strip()
        assert said[word] == alone, (voice, word, said[word], alone)
    return said


class PronunciationCorpus(Case):
    @classmethod
    def setUpClass(cls):
        cls.rows = corpus()
        cls.results = {}

    def explain_corpus(self, voice):
        if voice in self.results:
            return self.results[voice]
        os.makedirs(self.path("voices"), exist_ok=True)
        write(self.path("voices", "corpus.voice"), f"voice = {voice}\n")
        body = "\n\n".join(token for token, _, _, _, _ in self.rows)
        write(self.path("ep.txt"), "---\ntitle: Corpus\nvoice: corpus\n---\n" + body + "\n")
        res = run(["explain", "--voices", "voices", "ep.txt"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr, "")
        got = explained(res.stdout)
        self.assertEqual(len(got), len(self.rows))
        self.results[voice] = got
        return got

    def test_corpus_is_real_and_large(self):
        self.assertGreaterEqual(len(self.rows), 300)
        self.assertEqual(len({t for t, _, _, _, _ in self.rows}), len(self.rows), "no duplicates")
        categories = {c for _, _, c, _, _ in self.rows}
        self.assertEqual(categories, set(DECISION) | {"word"})
        for token, _, _, source, cited in self.rows:
            # a changelog, NEWS or README of a Debian package, or a page of its documentation,
            # and the line cited from it, kept in the corpus (a package update moves lines)
            self.assertRegex(source, r"^[a-z0-9.+-]+/([\w.+-]+/)*(changelog|NEWS|README|[\w.-]+\.md)"
                             r"[A-Za-z.]*:\d+$", token)
            self.assertIn(token, cited, source)

    def test_spoken_forms_and_decisions(self):
        got = self.explain_corpus("en-us")
        for (token, said, category, source, _), (place, spoken, _, decisions) in zip(self.rows, got):
            with self.subTest(token=token, source=source):
                self.assertEqual(spoken, said, place)
                if category == "word":
                    self.assertEqual(decisions, [], "ordinary words: no rule takes them")
                else:
                    self.assertTrue(decisions, token)
                    depth, word, what = decisions[0]
                    self.assertEqual(depth, 0)
                    self.assertRegex(what, DECISION[category])
                    # the outermost decisions cover the token (a lexicon word inside a
                    # constant, CURLKHMATCH_OK, is one of them), its closing marks aside
                    # (the "}" of "@{-1}")
                    outer = "".join(w for d, w, _ in decisions if d == 0)
                    if category == "month":   # words read together ("Nov 28"): the first
                        words = [w for d, w, _ in decisions if d == 0]   # is the rule's,
                        self.assertEqual(words[0], token.split()[0], token)   # the rest
                        self.assertLessEqual(set(words), set(token.split()), token)   # words
                        continue
                    self.assertTrue(token.startswith(outer), (outer, token))
                    self.assertFalse(any(c.isalnum() for c in token[len(outer):]), token)

    def test_never_worse_than_espeak_ng(self):
        words = [(i, t) for i, (t, _, c, _, _) in enumerate(self.rows) if c in ("word", "capitals")]
        self.assertGreaterEqual(len(words), 150)
        # the sanitizer build looks for memory errors, which the variants of English take alike
        for voice in VOICES[:2] if os.environ.get("RE_SANITIZED") else VOICES:
            got = self.explain_corpus(voice)
            plain = engine_phonemes([t for _, t in words], voice)
            for i, token in words:
                with self.subTest(voice=voice, token=token):
                    self.assertEqual(got[i][1], token)
                    self.assertEqual(got[i][2], plain[token])

    def test_hashes_are_not_numbers(self):
        # Whatever the voice, no hash is read as a quantity ("twelve", "hundred").
        got = self.explain_corpus("en-gb")
        for (token, _, category, _, _), (_, _, phonemes, _) in zip(self.rows, got):
            if category in ("hash", "code") and ":" not in token:   # (sha256: is "two hundred...")
                with self.subTest(token=token):
                    self.assertNotRegex(phonemes, r"h'VndrI2d|T'aUz@nd|m'Ili@n|tw'Elv|'Ilev@n|t'En")
            if category == "hash":   # the first 7, whatever the length: 7 words, no more
                self.assertLessEqual(len(phonemes.split()), 7 + 3, token)
            if category == "emoji":   # not named ("party popper", "check mark")
                self.assertEqual(phonemes, "", token)
            if category in ("rule-code", "advisory"):   # digit by digit, never a quantity
                self.assertNotRegex(phonemes, r"h'VndrI2d|T'aUz@nd|t'En", token)
            if category == "requirement":   # never "equals" (the > and < dropped)
                self.assertNotRegex(phonemes, r"'i:kw@Lz", token)
            if category == "url":   # never "H T T P S colon ... slash"
                self.assertNotRegex(phonemes, r"k'oUl@n|sl'aS", token)

    def test_transcripts_keep_the_scripts_tokens(self):
        # A paragraph of corpus tokens of every rule, rendered: the cues, re-read by ffmpeg,
        # are exactly the script's text (whitespace aside), so each token is there as written.
        picked = {}
        for token, _, category, _, _ in self.rows:
            if category != "word" and len(picked.get(category, [])) < 2:
                picked.setdefault(category, []).append(token)
        tokens = [t for c in sorted(picked) for t in picked[c]]
        text = "Today: " + ", ".join(tokens) + "."
        write(self.path("r.txt"), "---\ntitle: Tokens\n---\n" + text + "\n")
        res = run([self.path("r.txt"), "-o", self.path("r.mp3"), "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        out = subprocess.run(["ffmpeg", "-v", "error", "-i", self.path("r.vtt"), "-f", "srt", "-"],
                             capture_output=True, text=True, check=True).stdout
        cues = [re.sub(r"<[^>]*>", "", b.split("\n", 2)[2]) for b in out.strip().split("\n\n")]
        cues = [c.replace("\\{", "{").replace("\\}", "}") for c in cues]   # ffmpeg's SRT escapes
        self.assertGreater(len(cues), 1)
        # (emoji are not heard: the transcript leaves them out, common.heard)
        self.assertEqual(" ".join(" ".join(cues).split()), " ".join(heard(text).split()))


if __name__ == "__main__":
    main()
