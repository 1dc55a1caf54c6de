# SPDX-License-Identifier: GPL-3.0-or-later
"""A listener: how well a speech recognizer trained on human speech understands each shipped
voice profile (docs/listener.md).

Every voices/*.voice of the repository (found by globbing, so a profile added later is judged
too) speaks the sentences of tests/data/listener/sentences.txt, one paragraph each with a
second of exact silence between them, rendered to a WAV without loudness normalization. sox
resamples it to 16 kHz mono, the runs of exact zeros of 0.8 s or more cut it into one utterance
per sentence, and Debian's pocketsphinx with its stock US-English acoustic model, language model
and dictionary (nothing in it knows our voices) decodes each utterance on its own. The word
error rate (Levenshtein distance over words, both sides lower-cased and stripped of
punctuation) is printed per profile; a profile of the flite engine must stay at or under 25 %.
espeak-ng's profiles measure about 90 %: their figure is printed, not judged. Nothing is timed."""
import array
import concurrent.futures
import glob
import itertools
import os
import re
import subprocess
import tempfile

from common import SRC, Case, main, run, write

SENTENCES = os.path.join(SRC, "tests", "data", "listener", "sentences.txt")
VOICES = os.path.join(SRC, "voices")
MODEL = "/usr/share/pocketsphinx/model/en-us"   # Debian's pocketsphinx-en-us
RATE = 16000                 # what the acoustic model was trained on
GAP = 0.8                    # seconds of exact zeros that part two sentences (the script puts 1 s)
PAD = 0.2                    # seconds of that silence kept on each side of an utterance
# per cent; flite's rms measured 13-16 %, awb 20-22 %, slt 23-26 % (docs/listener.md)
FLITE_MAX_WER = 25.0


def sentences():
    with open(SENTENCES, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def profile(path):
    """The keys of a .voice file (`key = value` lines, `#` comment lines)."""
    keys = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                key, value = line.split("=", 1)
                keys[key.strip()] = value.strip()
    return keys


def words(text):
    """Lower case, punctuation (apostrophes too) gone: the same on both sides of the count."""
    return re.sub(r"[^a-z0-9 ]", " ", text.lower().replace("'", "")).split()


def distance(ref, hyp):
    """Levenshtein distance between two lists of words: substitutions, deletions, insertions."""
    prev = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        cur = [i]
        for j, h in enumerate(hyp, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (r != h)))
        prev = cur
    return prev[-1]


def script_for(name, lines):
    """Every sentence as its own paragraph in profile `name`, a 1 s pause line between them (a
    pause alone between paragraphs replaces the paragraph pause)."""
    body = "\n\n[pause 1s]\n\n".join(f"[voice {name}] {line}" for line in lines)
    return "---\ntitle: Listener\n---\n" + body + "\n"


def pcm16k(wav):
    """The WAV resampled by sox to 16 kHz mono signed 16-bit samples, undithered so that the
    exact zeros of a pause stay zeros."""
    out = subprocess.run(["sox", "-D", wav, "-t", "raw", "-r", str(RATE), "-c", "1", "-b", "16",
                          "-e", "signed-integer", "-"], capture_output=True, check=True).stdout
    return array.array("h", out)


def utterances(data):
    """The stretches of sound between runs of exact zeros at least GAP long, each with PAD of
    its silence on either side."""
    gap, pad = round(GAP * RATE), round(PAD * RATE)
    cuts, start = [], None
    for i, x in enumerate(data):   # runs of zeros: (start, end)
        if x == 0:
            if start is None:
                start = i
        elif start is not None:
            if i - start >= gap:
                cuts.append((start, i))
            start = None
    if start is not None and len(data) - start >= gap:
        cuts.append((start, len(data)))
    pieces, begin = [], 0
    for zero_start, zero_end in cuts:
        if zero_start > begin:
            pieces.append(data[max(0, begin - pad):zero_start + pad])
        begin = zero_end
    if begin < len(data):
        pieces.append(data[max(0, begin - pad):])
    return pieces


class Listener:
    """pocketsphinx's default en-us acoustic model, language model and dictionary, with its
    default settings. Each utterance is heard as a stream of its own and decoded whole: the
    front end's noise estimate (`-remove_noise`, on by default) would otherwise carry from one
    utterance to the next, and the same utterance would be heard differently after others;
    the model's cepstral mean is per utterance (`-cmn batch` in its feat.params)."""

    def __init__(self):
        from pocketsphinx import Decoder   # Debian's python3-pocketsphinx
        config = Decoder.default_config()
        config.set_string("-hmm", os.path.join(MODEL, "en-us"))
        config.set_string("-lm", os.path.join(MODEL, "en-us.lm.bin"))
        config.set_string("-dict", os.path.join(MODEL, "cmudict-en-us.dict"))
        config.set_string("-logfn", os.devnull)
        self.decoder = Decoder(config)

    def hear(self, samples):
        self.decoder.start_stream()
        self.decoder.start_utt()
        self.decoder.process_raw(samples.tobytes(), False, True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        return hyp.hypstr if hyp is not None else ""

    def knows(self, word):
        """Whether the word can be heard at all: in the dictionary and in the language model
        (which scores a word it lacks as it scores a phrase that is no word)."""
        lm = self.decoder.get_lm(self.decoder.get_search())
        return (self.decoder.lookup_word(word) is not None
                and lm.prob([word]) > lm.prob(["no such word"]))


class Heard:
    """One profile's render, heard sentence by sentence."""

    def __init__(self, path):
        self.name = os.path.splitext(os.path.basename(path))[0]
        keys = profile(path)
        self.engine = keys.get("engine", "espeak-ng")
        self.voice = keys.get("voice", "?")
        self.error = None
        self.utterances = 0
        self.first = None          # the first utterance's samples, heard again by the test
        self.hyps = []
        self.errors = self.words = 0

    @property
    def wer(self):
        return 100.0 * self.errors / self.words if self.words else float("nan")


_LISTENER = None


def hear_profile(path, lines, folder):
    """Renders the sentences in the profile at `path` and hears them (in a worker process: one
    listener each, loaded once)."""
    global _LISTENER
    if _LISTENER is None:
        _LISTENER = Listener()
    heard = Heard(path)
    script = write(os.path.join(folder, heard.name + ".txt"), script_for(heard.name, lines))
    out = os.path.join(folder, heard.name + ".wav")
    # one process a render: two profiles are rendered and heard at once
    res = run([script, "-o", out, "--voices", VOICES, "--sample-rate", "22050",
               "--loudness", "off", "--no-cache", "-q", "-j", "1"])
    if res.returncode != 0:
        heard.error = f"render failed ({res.returncode}): {res.stderr.strip()}"
        return heard
    pieces = utterances(pcm16k(out))
    heard.utterances = len(pieces)
    if len(pieces) != len(lines):
        heard.error = f"{len(pieces)} utterances for {len(lines)} sentences"
        return heard
    heard.first = pieces[0]
    for line, piece in zip(lines, pieces):
        hyp = _LISTENER.hear(piece)
        heard.hyps.append(hyp)
        heard.errors += distance(words(line), words(hyp))
        heard.words += len(words(line))
    return heard


class ListenerTest(Case):
    @classmethod
    def setUpClass(cls):
        cls.lines = sentences()
        cls.profiles = sorted(glob.glob(os.path.join(VOICES, "*.voice")))
        folder = tempfile.mkdtemp(prefix="re-listener-")
        # two profiles at a time, each in a process of its own (the decoder holds the GIL):
        # decoding is most of the test's time (espeak-ng's profiles about 30 s of CPU each)
        with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
            cls.heard = list(pool.map(hear_profile, cls.profiles, itertools.repeat(cls.lines),
                                      itertools.repeat(folder)))
        cls.print_table()

    @classmethod
    def print_table(cls):
        print(f"\nlistener: pocketsphinx en-us, {len(cls.lines)} sentences, "
              f"{sum(len(words(s)) for s in cls.lines)} words")
        print(f"{'profile':<16} {'engine':<10} {'voice':<10} {'WER %':>6} {'words':>6}")
        for h in cls.heard:
            wer = f"{h.wer:.1f}" if not h.error else "-"
            print(f"{h.name:<16} {h.engine:<10} {h.voice:<10} {wer:>6} {h.words:>6}"
                  + (f"  {h.error}" if h.error else ""))
        if not any(h.engine == "flite" for h in cls.heard):
            print("listener: NO flite profile in voices/: nothing is held to the "
                  f"{FLITE_MAX_WER:g} % limit; espeak-ng's figures are printed only")
        for h in cls.heard:
            missed = [(line, hyp) for line, hyp in zip(cls.lines, h.hyps)
                      if distance(words(line), words(hyp)) > 0]
            if missed:
                print(f"{h.name}: {len(missed)} of {len(cls.lines)} sentences not heard exactly:")
                for line, hyp in missed:
                    print(f"  said: {line}\n  heard: {hyp}")

    def test_sentences_are_plain_words_the_listener_knows(self):
        # nothing a text normalizer would rewrite, every word one a perfect voice can be
        # heard saying: a word outside the dictionary would count against every voice
        self.assertGreaterEqual(len(self.lines), 24)
        self.assertLessEqual(len(self.lines), 30)
        listener = Listener()
        for line in self.lines:
            self.assertRegex(line, r"^[A-Z][a-z ]*[a-z]\.$", line)
            self.assertEqual([w for w in words(line) if not listener.knows(w)], [], line)

    def test_every_profile_is_judged(self):
        self.assertIn("host", [h.name for h in self.heard])
        self.assertIn("guest", [h.name for h in self.heard])
        for h in self.heard:
            with self.subTest(profile=h.name):
                self.assertIsNone(h.error)
                self.assertEqual(h.utterances, len(self.lines))   # one utterance per sentence
                self.assertEqual(h.words, sum(len(words(s)) for s in self.lines))

    def test_decoding_is_repeatable(self):
        # each profile's first utterance again, by another listener in another process, and by
        # that one once more after every other profile's: the same words, so the WER is a figure
        # of the voice, not of the order things were heard in
        listener = Listener()
        for again in range(2):
            for h in self.heard:
                with self.subTest(profile=h.name, again=again):
                    self.assertIsNotNone(h.first, h.error)
                    self.assertEqual(listener.hear(h.first), h.hyps[0])

    def test_flite_profiles_are_understood(self):
        for h in self.heard:
            if h.engine == "flite":
                with self.subTest(profile=h.name, voice=h.voice):
                    self.assertIsNone(h.error)
                    self.assertLessEqual(h.wer, FLITE_MAX_WER, f"{h.name} ({h.voice}): WER "
                                         f"{h.wer:.1f} % over {FLITE_MAX_WER:g} %")

    def test_dates_and_times_are_heard(self):
        # natural-host (flite: the listener hears it best) says dates and a time as a person
        # reads them; the listener must hear the month and the ordinal day ("november
        # thirtieth", not "two thousand twenty six dash eleven dash thirty") and the time on
        # the 12-hour clock ("two p m", not "fourteen zero zero"). Words, not transcripts.
        cases = [("It shipped on 2026-11-30.", ["november", "thirtieth"]),
                 ("The sprint ended on 2026-03-13.", ["march", "thirteenth"]),
                 ("We fixed it on Oct 21st.", ["october"]),
                 ("The call is at 14:00 UTC.", ["two", "p"])]
        lines = [line for line, _ in cases]
        script = write(self.path("dates.txt"), script_for("natural-host", lines))
        out = self.path("dates.wav")
        res = run([script, "-o", out, "--voices", VOICES, "--sample-rate", "22050",
                   "--loudness", "off", "--no-cache", "-q", "-j", "1"])
        self.assertEqual(res.returncode, 0, res.stderr)
        pieces = utterances(pcm16k(out))
        self.assertEqual(len(pieces), len(cases))
        listener = Listener()
        for (line, expected), piece in zip(cases, pieces):
            heard = words(listener.hear(piece))
            with self.subTest(line=line, heard=" ".join(heard)):
                for word in expected:
                    self.assertIn(word, heard)


if __name__ == "__main__":
    main()
