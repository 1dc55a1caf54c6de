# SPDX-License-Identifier: GPL-3.0-or-later
"""flite profiles keep every guarantee espeak-ng's do. Each flite voice (rms, slt, awb) gets a
profile of its own in a temporary folder, with pauses of its own, and is judged by tools we
did not write: python's wave module (the PCM of a --loudness off WAV), ffmpeg and mpg123 (the
MP3), mutagen (ID3), python's json (sidecar, transcript), the flite and espeak-ng programs
(phonemes).

- pauses: between two sentences exactly sentence_pause ms of digital zeros, between paragraphs
  paragraph_pause, `[pause 1.5s]` 1.5 s, in samples of the output rate (22050 and 44100 Hz),
  no other silence of 10 ms or more, no join with a jump of more than 8;
- a paragraph's first sentence is sample for sample that sentence rendered alone;
- cues: the VTT, SRT and transcript JSON (and ffmpeg's reading of the VTT) put together are
  the script's text; each sentence's cues span exactly its sound (between the exact zeros);
  the lines of a long sentence start at flite's word starts, in order, inside the sentence,
  about where the words before them rendered alone end;
- the same MP3 and sidecar bytes twice without a cache, from a cold and a warm cache (the
  warm render calls flite not once: a flite that would abort changes nothing), with -j 1 and
  -j 2, and through batch;
- explain shows the normalized text and flite's phones (as the flite program prints them;
  for "café", those of "cafe": flite reads ASCII, and cues still show the script's text);
- a crash of flite in its child is exit 2 at the paragraph's FILE:LINE:COL with nothing
  written, in render, explain and batch (tests/e2e/preload/engine_abort.c hooks
  flite_synth_text);
- bad flite profiles (word_gap, an unknown voice, an unknown engine) and a lexicon phoneme
  respelling spoken by flite are exit 2 at their FILE:LINE:COL, nothing written;
- espeak-ng and flite in one episode: the sidecar and TSSE name both engines, a [lang de] span
  in a flite paragraph is espeak-ng's own audio, the segment cache keeps the engines apart."""
import array
import json
import os
import re
import shutil
import subprocess
import tempfile
import wave

from common import (SRC, Case, explained, ffmpeg_samples, listing, main, mpg123_samples, mutagen_tags,
                    run, write)

# Each voice's own pauses (ms), so that no voice passes with another's numbers.
FLITE = {"rms": (350, 750), "slt": (420, 900), "awb": (275, 1000)}
RATE_WPM = 155
JUMP_MAX = 8   # the largest sample next to a join (docs/usage.md: no join clicks)
PAUSE_MS = 1500
# The sanitizer build (RE_SANITIZED) looks for memory errors, which each voice at each rate
# finds the same way through our code: there the pause and first-sentence tests take each voice
# at one rate, the rates in turn (docs/testing.md); the optimized build takes every pair.
SANITIZED = bool(os.environ.get("RE_SANITIZED"))
RATES = (22050, 44100)


def rates_for(k):
    """The rates the k-th voice is rendered at: both, or one in turn under the sanitizers."""
    return (RATES[k % len(RATES)],) if SANITIZED else RATES
SHIM_SOURCE = os.path.join(SRC, "tests", "e2e", "preload", "engine_abort.c")


def profiles(folder):
    """The three flite profiles and `es`, espeak-ng's en-us with the same numbers as rms."""
    os.makedirs(folder, exist_ok=True)
    for voice, (sentence, paragraph) in FLITE.items():
        write(os.path.join(folder, f"{voice}.voice"),
              f"# flite's {voice}\nengine = flite\nvoice = {voice}\nspeaker = {voice.upper()}\n"
              f"rate = {RATE_WPM}\nsentence_pause = {sentence}\nparagraph_pause = {paragraph}\n")
    write(os.path.join(folder, "es.voice"),
          f"voice = en-us\nspeaker = ES\nrate = {RATE_WPM}\nsentence_pause = 350\n"
          "paragraph_pause = 750\n")
    return folder


def frames(ms, rate):
    return (ms * rate + 500) // 1000


def samples(path):
    with wave.open(path, "rb") as w:
        return w.getframerate(), array.array("h", w.readframes(w.getnframes()))


def runs_of_zeros(data, min_len):
    """(start, length) of every run of exact zero samples at least min_len long (found in the
    bytes by a regular expression, as in test_sentence_boundaries)."""
    runs = []
    for m in re.finditer(rb"\x00\x00+", data.tobytes()):
        start, end = (m.start() + 1) // 2, m.end() // 2
        if end - start >= min_len:
            runs.append((start, end - start))
    return runs


def sounds(data, rate):
    """(first, end) of each stretch of sound between silences of 10 ms or more."""
    out, pos = [], 0
    for s, n in runs_of_zeros(data, rate // 100):
        if s > pos:
            out.append((pos, s))
        pos = s + n
    if pos < len(data):
        out.append((pos, len(data)))
    return out


TIME = re.compile(r"^(\d\d):(\d\d):(\d\d)\.(\d\d\d) --> (\d\d):(\d\d):(\d\d)\.(\d\d\d)$")


def ms(h, m, s, f):
    return ((int(h) * 60 + int(m)) * 60 + int(s)) * 1000 + int(f)


def vtt_cues(path):
    """[(start ms, end ms, text)] of a WebVTT file, the speaker tag taken off, unescaped."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert lines[0] == "WEBVTT", lines[0]
    cues = []
    for i, line in enumerate(lines):
        m = TIME.match(line)
        if m:
            text = re.sub(r"^<v [^>]*>", "", lines[i + 1])
            text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
            cues.append((ms(*m.groups()[:4]), ms(*m.groups()[4:]), text))
    return cues


def spoken_text(script):
    """The script's spoken words: the body without front matter, directives or line breaks."""
    body = script.split("---\n", 2)[2]
    body = re.sub(r"\[(voice [\w-]+|pause [^\]]+|lang [^\]]+|/lang)\]", " ", body)
    return " ".join(body.split())


def sidecar(path):
    with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
        return json.load(f)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def flite_phones(voice, text):
    """What the flite program says it would speak (-ps), its pauses left out."""
    out = subprocess.run(["flite", "-voice", voice, "-t", text, "-ps", "-o", "none"],
                         capture_output=True, text=True, check=True).stdout
    return [p for p in out.split() if p != "pau"]


def engine_versions():
    """espeak-ng's and flite's versions as their own programs print them."""
    espeak = subprocess.run(["espeak-ng", "--version"], capture_output=True, text=True, check=True).stdout
    flite = subprocess.run(["flite", "--version"], capture_output=True, text=True).stdout   # exit 1
    return (re.search(r"text-to-speech: (\d+\.\d+)", espeak).group(1),
            re.search(r"flite-(\d+\.\d+)", flite).group(1))


def made_sentences():
    out = []
    with open(os.path.join(SRC, "tests", "data", "sentences", "corpus.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            sentence, source = line.rstrip("\n").split("\t")
            if not source.startswith("git "):
                out.append(sentence)
    return out


class Flite(Case):
    @classmethod
    def setUpClass(cls):
        cls.shared = tempfile.mkdtemp(prefix="re-flite-")
        cls.voices = profiles(os.path.join(cls.shared, "voices"))
        cls.shim = os.path.join(cls.shared, "engine_abort.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", cls.shim, SHIM_SOURCE, "-ldl"], check=True)

    def script(self, name, body, voice="rms", extra=""):
        return write(self.path(name), f"---\ntitle: Flite\nvoice: {voice}\n{extra}---\n{body}")

    def render(self, script, out, *args, env=None, ok=True):
        res = run([script, "-o", out, "--voices", self.voices, "-q", *args], env=env)
        if ok:
            self.assertEqual(res.returncode, 0, res.stderr)
        return res

    def wav(self, script, *args):
        out = os.path.splitext(script)[0] + ".wav"
        self.render(script, out, "--loudness", "off", "--no-cache", *args)
        return samples(out)

    def shim_env(self, marker):
        asan = os.environ.get("ASAN_OPTIONS", "")
        return {"LD_PRELOAD": self.shim, "RE_ABORT_MARKER": marker,
                # in the sanitizer build the shim comes before ASan's runtime (test_long_tokens)
                "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}

    def assert_joins_quiet(self, data, runs, where):
        for s, n in runs:
            for x in (data[s - 1] if s > 0 else 0, data[s + n] if s + n < len(data) else 0):
                self.assertLessEqual(abs(x), JUMP_MAX, f"{where}: a jump of {x} at a pause at {s}")
        for x in (data[0], data[-1]):
            self.assertLessEqual(abs(x), JUMP_MAX, f"{where}: a jump of {x} at an end")

    # ---- a. exact pauses -----------------------------------------------------------------

    def test_pauses_are_exact_for_every_voice_and_rate(self):
        body = ("The first sentence is here. A second one follows it. And a third one ends it.\n\n"
                f"A new paragraph starts. [pause {PAUSE_MS / 1000}s] It ends here, after the pause.\n")
        for k, (voice, (sentence, paragraph)) in enumerate(FLITE.items()):
            script = self.script(f"pauses-{voice}.txt", body, voice)
            for rate in rates_for(k):
                with self.subTest(voice=voice, rate=rate):
                    got, data = self.wav(script, "--sample-rate", str(rate))
                    self.assertEqual(got, rate)
                    runs = runs_of_zeros(data, rate // 100)
                    # every silence of 10 ms or more, in order: nothing else inside the speech
                    self.assertEqual([n for _, n in runs],
                                     [frames(sentence, rate), frames(sentence, rate),
                                      frames(paragraph, rate), frames(PAUSE_MS, rate)], runs)
                    self.assertNotEqual(data[0], 0, "the episode starts with its first sound")
                    self.assertNotEqual(data[-1], 0, "the episode ends with its last sound")
                    self.assert_joins_quiet(data, runs, f"{voice} at {rate} Hz")
                    self.assertEqual(sidecar(script)["samples"], len(data))

    # ---- b. a first sentence as it is alone ----------------------------------------------

    def test_first_sentence_is_the_sentence_alone(self):
        made = made_sentences()
        seconds = ["A fix is here.", "It works.", "The first sentence is here."]
        for k, (voice, (sentence_ms, paragraph_ms)) in enumerate(FLITE.items()):
            pairs = [(made[(k * 6 + j) % len(made)], seconds[j % 3]) for j in range(6)]
            alone = self.script(f"alone-{voice}.txt", "".join(f"{a}\n\n" for a, _ in pairs), voice)
            pair = self.script(f"pair-{voice}.txt", "".join(f"{a} {b}\n\n" for a, b in pairs), voice)
            for rate in rates_for(k + 1):
                with self.subTest(voice=voice, rate=rate):
                    _, one = self.wav(alone, "--sample-rate", str(rate))
                    _, two = self.wav(pair, "--sample-rate", str(rate))
                    gap, para = frames(sentence_ms, rate), frames(paragraph_ms, rate)
                    ones, twos = self.paragraphs(one, para), self.paragraphs(two, para)
                    self.assertEqual((len(ones), len(twos)), (len(pairs), len(pairs)))
                    for (a, b), (o0, o1), (t0, t1) in zip(pairs, ones, twos):
                        pauses = [(s, n) for s, n in runs_of_zeros(two[t0:t1], rate // 100)]
                        self.assertEqual(pauses, [(o1 - o0, gap)], f"{a!r} + {b!r}: the pause "
                                         f"starts where {a!r} alone ends, and is the only one")
                        self.assertTrue(two[t0:t0 + o1 - o0] == one[o0:o1],
                                        f"{voice}: {a!r} differs from {a!r} alone")

    def paragraphs(self, data, gap):
        """(first, end) of each paragraph's sound: split at the paragraph pauses."""
        out, start = [], 0
        for s, n in runs_of_zeros(data, gap):
            self.assertEqual(n, gap, "a silence where paragraphs meet")
            out.append((start, s))
            start = s + n
        out.append((start, len(data)))
        return out

    # ---- c. cues -------------------------------------------------------------------------

    LONG = ("The quick brown fox jumps over the lazy dog while seven wise owls watch quietly "
            "from the old oak tree, and PR #189759 fixes torch.compile under AOTAutograd.")

    def test_cues_say_the_script_at_its_sounds(self):
        body = (f"Good morning. {self.LONG}\n\n[voice slt] Thanks! [pause 700ms] I am the "
                "guest & I like (round) brackets.\n\n[voice awb] Short one. Another at the caf\u00e9, "
                "with Zo\u00eb\u2019s \u201ccr\u00e8me br\u00fbl\u00e9e\u201d.\n")
        script = self.script("cues.txt", body, "rms")
        rate, pcm = self.wav(script, "--srt", "--transcript-json")
        cues = vtt_cues(self.path("cues.vtt"))
        expected = spoken_text(read(script).decode())
        # the words, in order, in every format and as ffmpeg reads the VTT
        self.assertEqual(" ".join(" ".join(c[2] for c in cues).split()), expected)
        with open(self.path("cues.transcript.json"), encoding="utf-8") as f:
            segments = json.load(f)["segments"]
        self.assertEqual(" ".join(" ".join(s["body"] for s in segments).split()), expected)
        self.assertEqual([(round(s["startTime"] * 1000), round(s["endTime"] * 1000)) for s in segments],
                         [(a, b) for a, b, _ in cues])
        self.assertEqual([s["speaker"] for s in segments][:2], ["RMS", "RMS"])
        self.assertEqual({s["speaker"] for s in segments}, {"RMS", "SLT", "AWB"})
        with open(self.path("cues.srt"), encoding="utf-8") as f:
            srt = [re.sub(r"^(RMS|SLT|AWB): ", "", b.split("\n", 2)[2]) for b in f.read().strip().split("\n\n")]
        self.assertEqual(" ".join(" ".join(srt).split()), expected)
        out = subprocess.run(["ffmpeg", "-v", "error", "-i", self.path("cues.vtt"), "-f", "srt", "-"],
                             capture_output=True, text=True, check=True).stdout
        heard = [re.sub(r"<[^>]*>", "", b.split("\n", 2)[2]) for b in out.strip().split("\n\n")]
        self.assertEqual(" ".join(" ".join(heard).split()), expected)
        times = re.findall(r"(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)", out)
        self.assertEqual([(ms(*t[:4]), ms(*t[4:])) for t in times], [(a, b) for a, b, _ in cues])
        # times: in order, never overlapping, inside the episode
        last = 0
        for start, end, text in cues:
            self.assertLess(start, end, text)
            self.assertGreaterEqual(start, last, text)
            last = end
        self.assertLessEqual(last, sidecar(script)["duration_ms"])
        # each sentence's cues (its lines meet end to start) span exactly one stretch of sound
        sentences = []
        for start, end, _ in cues:
            if sentences and sentences[-1][1] == start:
                sentences[-1][1] = end
            else:
                sentences.append([start, end])
        stretches = [[s * 1000 // rate, e * 1000 // rate] for s, e in sounds(pcm, rate)]
        self.assertEqual(sentences, stretches)
        self.assertEqual(len(sentences), 6)
        # a sentence's cue starts at its sound: speech within 100 ms of it. (test_transcript
        # asks espeak-ng for speech within 30 ms. flite's sound starts where its first phone
        # does, at a stop's burst rather than its closure; a soft first phone stays near the
        # voice's noise for longer: over the first 30 ms, rms's "Good morning." has an RMS of
        # 74 and slt's "Thanks!" 66, against 200 asked here.)
        for start, _ in sentences:
            s = start * rate // 1000
            window = pcm[s:s + rate // 10]
            rms = (sum(x * x for x in window) / len(window)) ** 0.5
            self.assertGreater(rms, 200, f"no speech in the 100 ms after {start} ms")

    def test_lines_of_a_long_sentence_start_at_its_words(self):
        """The lines of a long sentence start at flite's word starts: in order, inside the
        sentence, and where the text before them, rendered alone, ends (within 0.35 s, as for
        espeak-ng in test_transcript: a line timed by a wrong word is off by seconds)."""
        for voice in FLITE:
            with self.subTest(voice=voice):
                script = self.script(f"long-{voice}.txt", self.LONG + "\n", voice)
                _, pcm = self.wav(script)
                cues = vtt_cues(self.path(f"long-{voice}.vtt"))
                texts = [c[2] for c in cues]
                self.assertGreaterEqual(len(cues), 3, cues)
                self.assertEqual(" ".join(texts), self.LONG)   # split between words only
                for text in texts:
                    self.assertTrue(len(text) <= 65 or " " not in text, text)
                self.assertEqual(cues[0][0], 0)
                self.assertEqual(cues[-1][1], len(pcm) * 1000 // 22050)
                for k in range(1, len(cues)):
                    self.assertEqual(cues[k][0], cues[k - 1][1])
                    self.assertLess(cues[k - 1][0], cues[k][0], "word starts in order")
                    self.assertLess(cues[k][0], cues[k][1])
                    before = " ".join(texts[:k])
                    prefix = self.script(f"long-{voice}-{k}.txt", before + "\n", voice)
                    _, alone = self.wav(prefix)
                    self.assertLess(abs(cues[k][0] - len(alone) * 1000 / 22050), 350,
                                    f"{voice}: line {k + 1} {texts[k]!r} starts at {cues[k][0]} ms; "
                                    f"{before!r} alone lasts {len(alone) * 1000 / 22050:.0f} ms")

    # ---- d. the same bytes ---------------------------------------------------------------

    def test_same_bytes_without_cache_cache_jobs_and_batch(self):
        body = ("# One\n\nThe first paragraph is spoken by rms. It has two sentences.\n\n"
                "[voice slt] The second is slt's, with a pause. [pause 500ms] Done.\n\n"
                "# Two\n\n[voice awb] And awb reads the third one.\n\n"
                "Back to rms for the last words.\n")
        renders = {}

        def outputs(name, *args, env=None):
            folder = self.path(name)
            os.mkdir(folder)
            script = shutil.copy(self.path("d.txt"), os.path.join(folder, "ep.txt"))
            self.render(script, os.path.join(folder, "ep.mp3"), *args, env=env)
            renders[name] = (read(os.path.join(folder, "ep.mp3")), read(os.path.join(folder, "ep.json")))

        self.script("d.txt", body)
        cache = self.path("cache")
        outputs("plain", "--no-cache")
        outputs("again", "--no-cache")
        outputs("cold", "--cache", cache)
        entries = sorted(os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs)
        self.assertEqual(len(entries), 5, "one entry per segment (four paragraphs, one of them "
                         "cut in two by its pause)")
        # warm: every segment from the cache; flite, which aborts on any sentence here (each
        # has an "e") when the shim is loaded, is never called
        res = self.render(self.path("d.txt"), self.path("d.mp3"), "--no-cache",
                          env=self.shim_env("e"), ok=False)
        self.assertEqual(res.returncode, 2, "the shim aborts flite")
        outputs("warm", "--cache", cache, env=self.shim_env("e"))
        self.assertEqual(sorted(os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs), entries)
        outputs("j1", "--no-cache", "-j", "1")
        outputs("j2", "--no-cache", "-j", "2")
        out = self.path("batch")
        res = run(["batch", "-O", out, "--voices", self.voices, "--no-cache", "-q",
                   os.path.join(self.path("plain"), "ep.txt")])
        self.assertEqual(res.returncode, 0, res.stderr)
        renders["batch"] = (read(os.path.join(out, "ep.mp3")), read(os.path.join(out, "ep.json")))
        for name, (mp3, side) in renders.items():
            self.assertEqual(mp3, renders["plain"][0], f"{name}: the MP3 differs")
            self.assertEqual(side, renders["plain"][1], f"{name}: the sidecar differs")
        # and the MP3 is whole: ffmpeg and mpg123 decode the sidecar's samples
        mp3 = os.path.join(self.path("plain"), "ep.mp3")
        side = sidecar(mp3)
        self.assertEqual(ffmpeg_samples(mp3), side["samples"])
        self.assertEqual(mpg123_samples(mp3), side["samples"])
        self.assertEqual([v.get("engine") for v in side["voices"]], ["flite"] * 3)

    # ---- e. explain ----------------------------------------------------------------------

    def test_explain_shows_flites_text_and_phones(self):
        script = self.script("ex.txt", "HEAD moved to 12d655d4561; the build is green.\n\n"
                             "[voice slt] Plain words [lang de]Guten Tag[/lang] here.\n\n"
                             "[voice es] The build is green.\n\n"
                             "[voice rms] At the caf\u00e9, Zo\u00eb\u2019s \u201ccr\u00e8me "
                             "br\u00fbl\u00e9e\u201d \u2014 na\u00efve \u00dcber fun\u2026\n", "awb")
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr, "")
        got = explained(res.stdout)
        self.assertEqual([g[0] for g in got], [f"{script}:5:1", f"{script}:7:13", f"{script}:7:34",
                                                f"{script}:7:51", f"{script}:9:12", f"{script}:11:13"])
        said = "HEAD moved to one two D six five five D; the build is green."
        self.assertEqual(got[0][1], said)
        self.assertEqual(re.split(r"[- ]", got[0][2]), flite_phones("awb", said))
        self.assertEqual(len(got[0][2].split()), len(said.split()))   # one group of phones a word
        self.assertEqual(got[0][3], [(0, "HEAD", "dictionary word, as the engine says it"),
                                     (0, "12d655d4561", "hash: its first 7 characters one by one")])
        self.assertEqual(got[1][1], "Plain words")
        self.assertEqual(re.split(r"[- ]", got[1][2]), flite_phones("slt", "Plain words"))
        # the [lang de] span inside the flite paragraph is espeak-ng's, in its notation
        judge = subprocess.run(["espeak-ng", "-q", "-x", "-v", "de", "Guten Tag"], capture_output=True,
                               text=True, check=True).stdout.strip()
        self.assertEqual(got[2][1:3], ("Guten Tag", judge))
        self.assertEqual(re.split(r"[- ]", got[3][2]), flite_phones("slt", "here."))
        judge = subprocess.run(["espeak-ng", "-q", "-x", "-v", "en-us", "The build is green."],
                               capture_output=True, text=True, check=True).stdout.strip()
        self.assertEqual(got[4][2], judge)
        # flite reads ASCII: the text shown is the script's, the phones those of its letters
        # without their diacritics, and of ASCII quotes and punctuation
        self.assertEqual(got[5][1], "At the caf\u00e9, Zo\u00eb\u2019s \u201ccr\u00e8me br\u00fbl\u00e9e\u201d "
                                    "\u2014 na\u00efve \u00dcber fun\u2026")
        self.assertEqual(re.split(r"[- ]", got[5][2]),
                         flite_phones("rms", "At the cafe, Zoe's \"creme brulee\" , naive Uber fun..."))

    def test_letters_beyond_latin_1_stay_in_their_words(self):
        """Latin letters past Extended-A (Romanian comma-below letters, Vietnamese) fold to
        their base letters too, and a letter with none is left out of its word: no word is
        split where one of them stands."""
        script = self.script("ro.txt", "We met in Bucure\u0219ti \u0219i Timi\u0219oara, at "
                             "Nguy\u1ec5n\u2019s and Stra\u00dfe, near \u01c0Gui.\n", "rms")
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        got = explained(res.stdout)
        self.assertEqual(len(got), 1)
        folded = "We met in Bucuresti si Timisoara, at Nguyen's and Strasse, near Gui."
        self.assertEqual(re.split(r"[- ]", got[0][2]), flite_phones("rms", folded))

    def test_latin_ranges_at_their_edges(self):
        """The two Latin tables flite's text is folded with, U+00C0..U+024F and U+1E00..U+1EFF,
        at their first and last code points (a letter: "bAt", "byt", said as one word) and
        one just outside each end (no Latin letter: a space, so "b t", two letters said one by
        one); inside, the multiplication sign is an x, the division sign a space, sharp s
        "ss". Judged by the flite program's phones of the folded sentence: a letter read in
        its word ("b ae t") and two letters spelled ("b iy t iy") never sound alike."""
        edges = [(0xBF, " "), (0xC0, "A"), (0x24F, "y"), (0x250, " "), (0x1DFF, " "),
                 (0x1E00, "A"), (0x1EFF, "y"), (0x1F00, " "), (0xD7, "x"), (0xF7, " "),
                 (0xDF, "ss"), (0xFF, "y")]
        words = " ".join(f"b{chr(cp)}t" for cp, _ in edges)
        folded = " ".join(f"b{letters}t" for _, letters in edges)
        script = self.script("edges.txt", f"We say {words} now.\n", "rms")
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        got = explained(res.stdout)
        self.assertEqual(len(got), 1)
        self.assertEqual(got[0][1], f"We say {words} now.")   # the normalizer kept them all
        self.assertEqual(re.split(r"[- ]", got[0][2]), flite_phones("rms", f"We say {folded} now."))

    # ---- f. a crash of flite's child -----------------------------------------------------

    def test_a_flite_crash_is_an_error_of_its_paragraph(self):
        folder = self.path("crash")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), "---\ntitle: Crash\nvoice: es\n---\n"
                       "Fine words from espeak-ng.\n\n[voice awb] Fine words from flite.\n\n"
                       "[voice slt] Then kaboomzz here.\n")
        out = write(os.path.join(folder, "ep.mp3"), "yesterday's episode")
        write(os.path.join(folder, "ep.json"), "yesterday's sidecar")
        env = self.shim_env("kaboomzz")
        res = self.render(script, out, "--no-cache", env=env, ok=False)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{script}:9:13: the speech engine crashed on this text (SIGABRT", res.stderr)
        self.assertEqual(listing(folder), ["ep.json", "ep.mp3", "ep.txt"])
        self.assertEqual(read(out), b"yesterday's episode")
        self.assertEqual(read(os.path.join(folder, "ep.json")), b"yesterday's sidecar")
        # explain asks flite for phones in a child too
        res = run(["explain", script, "--voices", self.voices], env=env)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{script}:9:13: the speech engine crashed on this text (SIGABRT", res.stderr)
        # in a batch, the episode fails alone (exit 1), the other renders
        other = write(self.path("other.txt"), "---\ntitle: Other\nvoice: rms\n---\nAll fine here.\n")
        res = run(["batch", "-O", self.path("out"), "--voices", self.voices, "--no-cache", "-q",
                   script, other], env=env)
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn(f"{script}:9:13: the speech engine crashed on this text (SIGABRT", res.stderr)
        self.assertEqual([n for n in listing(self.path("out")) if n.endswith(".mp3")], ["other.mp3"])
        # the shim without its marker in the text changes nothing
        env["RE_ABORT_MARKER"] = "not-in-the-text"
        self.render(script, out, "--no-cache", env=env)
        self.assertEqual(ffmpeg_samples(out), sidecar(out)["samples"])

    # ---- g. what flite cannot do ---------------------------------------------------------

    def test_bad_flite_profiles_are_errors_at_their_place(self):
        cases = {
            "gap": ("engine = flite\nvoice = rms\nword_gap = 20\n", 3, 1,
                    "flite cannot put a gap between words: 'word_gap' is for espeak-ng profiles"),
            "kal": ("engine = flite\nrate = 150\nvoice = kal\n", 3, 9,
                    "flite has no voice 'kal' (its voices: rms, slt, awb)"),
            "late": ("voice = kal\nengine = flite\n", 1, 9, "flite has no voice 'kal'"),
            "festival": ("engine = festival\nvoice = rms\n", 1, 10,
                         "engine 'festival' is not one of espeak-ng, flite"),
        }
        for name, (profile, line, col, message) in cases.items():
            with self.subTest(profile=name):
                folder = self.path(name)
                os.makedirs(os.path.join(folder, "voices"))
                voice = write(os.path.join(folder, "voices", f"{name}.voice"), profile)
                script = write(os.path.join(folder, "ep.txt"),
                               f"---\ntitle: Bad\n---\nHello there.\n\n[voice {name}] Hi.\n")
                res = run([script, "-o", os.path.join(folder, "ep.mp3"), "--voices",
                           os.path.join(folder, "voices"), "-q", "--cache", self.path("cache")])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"{voice}:{line}:{col}: {message}", res.stderr)
                self.assertIn(f"{script}:6:1: voice profile '{name}' is invalid", res.stderr)
                self.assertEqual(listing(folder), ["ep.txt", "voices"])
        self.assertFalse(os.path.exists(self.path("cache")), "nothing spoken")

    def test_a_lexicon_phoneme_respelling_is_refused_in_flite_paragraphs_only(self):
        lexicon = write(self.path("team.lexicon"), "Gloo = [[gl'u:]]\nNCCL = nickel\n")
        script = self.script("ep.txt", "NCCL and Gloo in espeak-ng.\n\n"
                             "[voice rms] NCCL without the other word.\n\n"
                             "[voice slt] We use the Gloo backend here.\n", "es")
        res = self.render(script, self.path("ep.mp3"), "--lexicon", lexicon, "--no-cache", ok=False)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertEqual(res.stderr, f"{script}:9:24: voice profile 'slt' speaks with flite, which "
                         "cannot say the lexicon's phoneme respelling of 'Gloo' ([[...]] is "
                         "espeak-ng's notation): respell it in words (WORD = words) or speak this "
                         "paragraph with an espeak-ng profile\n")
        self.assertEqual(listing(self.tmp), ["ep.txt", "team.lexicon"])
        res = run(["explain", script, "--voices", self.voices, "--lexicon", lexicon])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{script}:9:24: voice profile 'slt' speaks with flite", res.stderr)
        # the same entry in the espeak-ng paragraph, and in a [lang] span of a flite one, works
        self.script("ep.txt", "NCCL and Gloo in espeak-ng.\n\n[voice rms] NCCL and "
                    "[lang de]Gloo ist gut[/lang] here.\n", "es")
        self.render(script, self.path("ep.mp3"), "--lexicon", lexicon, "--no-cache")
        res = run(["explain", script, "--voices", self.voices, "--lexicon", lexicon])
        self.assertEqual(res.returncode, 0, res.stderr)
        got = explained(res.stdout)
        self.assertEqual(got[0][1], "nickel and [[gl'u:]] in espeak-ng.")
        self.assertIn("gl'u:", got[0][2])
        self.assertEqual(got[1][1], "nickel and")                # flite's respelling in words
        self.assertEqual(re.split(r"[- ]", got[1][2]), flite_phones("rms", "nickel and"))
        self.assertEqual(got[2][1], "[[gl'u:]] ist gut")
        self.assertIn("gl'u:", got[2][2])

    # ---- h. two engines in one episode ---------------------------------------------------

    def test_espeak_ng_host_and_flite_guest(self):
        espeak, flite = engine_versions()
        script = self.script("mix.txt", "# Mixed\n\nThe host speaks with espeak-ng.\n\n"
                             "[voice rms] And the guest with flite.\n", "es")
        out = self.path("mix.mp3")
        self.render(script, out, "--no-cache")
        side = sidecar(out)
        self.assertEqual(side["engine"], f"espeak-ng {espeak}, flite {flite}")
        voices = {v["name"]: v for v in side["voices"]}
        self.assertEqual(voices["rms"]["engine"], "flite")
        self.assertEqual(voices["rms"]["voice"], "rms")
        self.assertNotIn("engine", voices["es"])          # espeak-ng's entries read as before
        tsse = mutagen_tags(out)["TSSE"]
        self.assertIn(f"espeak-ng {espeak}", tsse)
        self.assertIn(f"flite {flite}", tsse)
        self.assertEqual(ffmpeg_samples(out), side["samples"])
        cues = vtt_cues(self.path("mix.vtt"))
        self.assertEqual([c[2] for c in cues], ["The host speaks with espeak-ng.",
                                                "And the guest with flite."])
        # one engine alone: only its name
        for voice, engines in (("rms", f"flite {flite}"), ("es", f"espeak-ng {espeak}")):
            self.script("one.txt", "One engine only.\n", voice)
            self.render(self.path("one.txt"), self.path("one.mp3"), "--no-cache")
            self.assertEqual(sidecar(self.path("one.mp3"))["engine"], engines)

    def test_a_lang_span_in_a_flite_paragraph_is_espeak_ngs(self):
        """[lang de] inside a flite paragraph is spoken by espeak-ng's de with the profile's
        numbers: the same samples as the span in an espeak-ng paragraph whose profile has the
        same rate, pitch, range and volume (es and rms here), between the two joins of 160 ms
        (the engine's comma pause) that set it apart."""
        body = "Plain words [lang de]Guten Tag, wie geht es[/lang] here.\n"
        for rate in (22050, 44100):
            with self.subTest(rate=rate):
                spans = {}
                for voice in ("rms", "es"):
                    script = self.script(f"lang-{voice}.txt", body, voice)
                    _, data = self.wav(script, "--sample-rate", str(rate))
                    join = frames(160, rate)
                    joins = [(s, n) for s, n in runs_of_zeros(data, rate // 100) if n == join]
                    self.assertEqual(len(joins), 2, runs_of_zeros(data, rate // 100))
                    self.assert_joins_quiet(data, joins, f"{voice} at {rate} Hz")
                    span = data[joins[0][0] + join:joins[1][0]]
                    self.assertGreater(max(abs(x) for x in span), 3000, "the span is spoken")
                    spans[voice] = span
                    self.assertEqual(sidecar(script)["engine"].split(", ")[0].split()[0], "espeak-ng")
                self.assertEqual(len(spans["rms"]), len(spans["es"]))
                self.assertTrue(spans["rms"] == spans["es"], "the span is espeak-ng's de in both")

    # ---- i. the segment cache ------------------------------------------------------------

    def test_the_cache_keeps_engines_apart(self):
        cache = self.path("cache")

        def entries():
            return sorted(f for _, _, fs in os.walk(cache) for f in fs if f.endswith(".seg"))

        text = "The same words are spoken here.\n"
        cold = {}
        for voice in ("es", "rms"):
            script = self.script(f"{voice}.txt", text, voice)
            self.render(script, self.path(f"{voice}-free.mp3"), "--no-cache")
            self.render(script, self.path(f"{voice}-cold.mp3"), "--cache", cache)
            cold[voice] = read(self.path(f"{voice}-cold.mp3"))
            # the second engine found nothing of the first's: its cold render is its own
            self.assertEqual(cold[voice], read(self.path(f"{voice}-free.mp3")), voice)
        self.assertEqual(len(entries()), 2, "one entry per engine")
        for voice in ("es", "rms"):
            res = self.render(self.path(f"{voice}.txt"), self.path("x.mp3"), "--no-cache",
                              env=self.shim_env("same"), ok=False)
            self.assertEqual(res.returncode, 2, f"the shim aborts {voice}'s engine")
            self.render(self.path(f"{voice}.txt"), self.path(f"{voice}-warm.mp3"), "--cache", cache,
                        env=self.shim_env("same"))   # from the cache: no engine is called
            self.assertEqual(read(self.path(f"{voice}-warm.mp3")), cold[voice], voice)
        self.assertEqual(len(entries()), 2)
        self.assertNotEqual(cold["es"], cold["rms"])


if __name__ == "__main__":
    main()
