# SPDX-License-Identifier: GPL-3.0-or-later
"""Every sentence pause is between the sentences, never inside a word, for every voice.

For each espeak-ng variant with en-us and with en-gb (and the two plain voices), a profile with a
sentence pause of 1234 ms and a paragraph pause of 2500 ms renders two WAVs (--loudness off):
one whose paragraphs are pairs of sentences "S1 S2", and one whose paragraphs are each S1 alone.
Nothing here trusts the engine's events or our timeline; the witness is the PCM itself, read
with python's wave module:
  - each pair paragraph holds exactly one silence of exactly the sentence pause, and it starts
    exactly where S1 rendered alone ends: the pair's audio up to the pause is S1-alone's audio,
    sample for sample (tolerance: 0 samples);
  - every join of speech with silence (each end of each pause and of the file) has a sample
    jump of at most 8 (RE_JOIN_JUMP_MAX): no click;
  - every cue of the pair's transcript lies inside one of the two sentences' sound (1 ms, the
    VTT's resolution), and the cues inside S1's sound say exactly S1's words.
The sentences are tests/data/sentences/corpus.tsv (real release-note sentences and made cases:
abbreviations, one-letter last words, quotes, numbers), rotated over the voices so that every
voice speaks ten pairs: more than 2,000 boundaries in all. The voices named where a pause was
once misplaced each speak all the made cases as well."""
import array
import concurrent.futures
import os
import re
import wave

from common import BUSY_RENDER, BUSY_TIMEOUT, SRC, Case, main, run, write

DATA = "/usr/lib/x86_64-linux-gnu/espeak-ng-data"
SENTENCE_MS, PARAGRAPH_MS = 1234, 2500
JUMP_MAX = 8
PAIRS_PER_VOICE = 10
NAMED = ["en-us", "en-gb", "en-gb+f3", "en-us+f2", "en-us+f3", "en-us+f4", "en-us+f5", "en-gb+f4",
         "en-us+m3"]


def corpus():
    made, real = [], []
    with open(os.path.join(SRC, "tests", "data", "sentences", "corpus.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            sentence, source = line.rstrip("\n").split("\t")
            (real if source.startswith("git ") else made).append(sentence)
    return made, real


def variants():
    return sorted(n for n in os.listdir(os.path.join(DATA, "voices", "!v")) if " " not in n)


def runs_of_zeros(data, min_len):
    """(start, length) of every run of exact zero samples at least min_len long: as
    common.runs_of_zeros, found in the bytes by a regular expression (a run of zero bytes
    that starts or ends inside a sample is shortened to whole samples)."""
    raw = data.tobytes()
    runs = []
    for m in re.finditer(rb"\x00\x00+", raw):   # each run once, in linear time
        start, end = (m.start() + 1) // 2, m.end() // 2
        if end - start >= min_len:
            runs.append((start, end - start))
    return runs


def samples(path):
    with wave.open(path, "rb") as w:
        return w.getframerate(), array.array("h", w.readframes(w.getnframes()))


def paragraphs(data, rate, paragraph_ms):
    """(first, last + 1) of each paragraph's sound: split at the paragraph pauses."""
    gap = (paragraph_ms * rate + 500) // 1000
    out, start = [], 0
    for s, n in runs_of_zeros(data, gap):
        if n != gap:
            raise AssertionError(f"a silence of {n} samples where paragraphs meet, not {gap}")
        out.append((start, s))
        start = s + n
    out.append((start, len(data)))
    return out


def vtt_cues(path):
    cues = []
    with open(path, encoding="utf-8") as f:
        blocks = f.read().split("\n\n")
    for b in blocks:
        m = re.search(r"(\d+):(\d+):(\d+)\.(\d+) --> (\d+):(\d+):(\d+)\.(\d+)", b)
        if not m:
            continue
        g = [int(x) for x in m.groups()]
        start = ((g[0] * 60 + g[1]) * 60 + g[2]) * 1000 + g[3]
        end = ((g[4] * 60 + g[5]) * 60 + g[6]) * 1000 + g[7]
        text = b[b.index("\n", m.end()) + 1:] if "\n" in b[m.end():] else ""
        text = re.sub(r"<[^>]*>", "", text).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        cues.append((start, end, " ".join(text.split())))
    return cues


class Boundaries(Case):
    def render(self, job):
        """voice: an engine voice, given a profile with the test's pauses; or "profile:NAME", a
        profile shipped in voices/ (its own pauses), each paragraph in it."""
        voice, pairs = job
        folder = self.path("b-" + voice.replace("+", "_").replace(":", "_"))
        os.mkdir(folder)
        sentence_ms, paragraph_ms, lead, options = SENTENCE_MS, PARAGRAPH_MS, "", ["--voices", folder]
        if voice.startswith("profile:"):
            name = voice.split(":", 1)[1]
            with open(os.path.join(SRC, "voices", f"{name}.voice"), encoding="utf-8") as f:
                keys = dict(line.split("=", 1) for line in f.read().splitlines()
                            if "=" in line and not line.startswith("#"))
            keys = {k.strip(): v.strip() for k, v in keys.items()}
            sentence_ms, paragraph_ms = int(keys["sentence_pause"]), int(keys["paragraph_pause"])
            lead, options = f"[voice {name}] ", []
        else:
            write(os.path.join(folder, "host.voice"),
                  f"voice = {voice}\nrate = 175\npitch = 50\nsentence_pause = {SENTENCE_MS}\n"
                  f"paragraph_pause = {PARAGRAPH_MS}\n")
        head = "---\ntitle: Boundaries\n---\n"
        alone = write(os.path.join(folder, "alone.txt"), head + "".join(f"{lead}{a}\n\n" for a, _ in pairs))
        pair = write(os.path.join(folder, "pair.txt"), head + "".join(f"{lead}{a} {b}\n\n" for a, b in pairs))
        for script in (alone, pair):
            res = run([script, "-o", script[:-4] + ".wav", *options, "--loudness", "off",
                       "-q", "-j", "1", "--no-cache", *BUSY_RENDER], timeout=BUSY_TIMEOUT)
            if res.returncode != 0:
                return [f"{voice}: {os.path.basename(script)}: exit {res.returncode}: {res.stderr.strip()}"]
        rate, one = samples(alone[:-4] + ".wav")
        _, two = samples(pair[:-4] + ".wav")
        gap = (sentence_ms * rate + 500) // 1000
        problems = []
        try:
            ones, twos = paragraphs(one, rate, paragraph_ms), paragraphs(two, rate, paragraph_ms)
        except AssertionError as e:
            return [f"{voice}: {e}"]
        if len(ones) != len(pairs) or len(twos) != len(pairs):
            return [f"{voice}: {len(ones)} and {len(twos)} paragraphs, not {len(pairs)}"]
        cues = vtt_cues(pair[:-4] + ".vtt")
        ms = lambda x: x * 1000 / rate
        for k, ((a, b), (o0, o1), (t0, t1)) in enumerate(zip(pairs, ones, twos)):
            where = f"{voice}: {a!r} + {b!r}"
            length = o1 - o0
            pauses = [(s, n) for s, n in runs_of_zeros(two[t0:t1], min(gap, rate // 10)) if n >= gap]
            if len(pauses) != 1 or pauses[0][1] != gap:
                problems.append(f"{where}: silences {pauses} in the pair, expected one of {gap}")
                continue
            at = pauses[0][0]
            if at != length:
                problems.append(f"{where}: the pause starts at {at}, S1 alone is {length} samples")
                continue
            if two[t0:t0 + length] != one[o0:o1]:
                problems.append(f"{where}: the pair's first sentence differs from S1 alone")
            s2 = t0 + at + gap
            for x, y in ((two[t0], "start"), (two[t0 + at - 1], "end of S1"), (two[s2], "start of S2"),
                         (two[t1 - 1], "end")):
                if abs(x) > JUMP_MAX:
                    problems.append(f"{where}: a jump of {x} at the {y}")
            spans = [(ms(t0), ms(t0 + at)), (ms(s2), ms(t1))]
            inside = [[], []]
            for c0, c1, text in cues:
                if c1 <= ms(t0) - 1 or c0 >= ms(t1) + 1:
                    continue
                which = [i for i, (lo, hi) in enumerate(spans) if c0 >= lo - 1 and c1 <= hi + 1]
                if not which:
                    problems.append(f"{where}: the cue {c0}-{c1} ms {text!r} is not inside one "
                                    f"sentence ({spans[0][0]:.0f}-{spans[0][1]:.0f}, "
                                    f"{spans[1][0]:.0f}-{spans[1][1]:.0f} ms)")
                else:
                    inside[which[0]].append(text)
            if " ".join(inside[0]) != a:
                problems.append(f"{where}: the cues of S1 say {' '.join(inside[0])!r}")
        return problems

    def check(self, jobs):
        boundaries = sum(len(p) for _, p in jobs)
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            results = list(pool.map(self.render, jobs))
        problems = [p for r in results for p in r]
        self.maxDiff = None
        self.assertEqual(problems[:60], [], f"{len(problems)} problems in {boundaries} boundaries")
        return boundaries

    def test_every_variant_with_en_us_and_en_gb(self):
        made, real = corpus()
        sentences = made + real
        voices = ["en-us", "en-gb"] + [f"{lang}+{v}" for lang in ("en-us", "en-gb") for v in variants()]
        if os.environ.get("RE_SANITIZED"):
            # the sanitizer build looks for memory errors, not for the boundaries again: every
            # fifth voice, the made cases first, keeps it to a fifth of the time
            voices = voices[::5]
        jobs = []
        for i, voice in enumerate(voices):
            firsts = [sentences[(i * PAIRS_PER_VOICE + j) % len(sentences)] for j in range(PAIRS_PER_VOICE)]
            seconds = [sentences[(i * PAIRS_PER_VOICE + j + 37) % len(sentences)] for j in range(PAIRS_PER_VOICE)]
            jobs.append((voice, list(zip(firsts, seconds))))
        self.assertGreaterEqual(self.check(jobs), 400 if os.environ.get("RE_SANITIZED") else 2000)

    def test_the_voices_that_misplaced_pauses_on_every_made_case(self):
        made, _ = corpus()
        seconds = ["A fix is here.", "It works.", "The first sentence is here."]
        jobs = [(v, [(a, seconds[k % 3]) for k, a in enumerate(made)])
                for v in NAMED + ["profile:host", "profile:guest", "profile:natural-host"]]
        self.check(jobs)

    def test_no_join_clicks(self):
        """Every join of an episode with both shipped speakers, [lang] spans (joined by the
        engine's comma pause, 160 ms), a written pause, and a square-wave sound (loud from its
        first sample to its last) between gaps: the samples on both sides of each silence that
        the program makes (of one of those lengths, exact zeros) and at the two ends of the
        file are at most 8. At the engine's rate and resampled to 44100 Hz."""
        folder = self.path("joins")
        os.mkdir(folder)
        with wave.open(os.path.join(folder, "sq.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(22050)
            w.writeframes(array.array("h", [6000 if (k // 25) % 2 == 0 else -6000
                                            for k in range(6615)]).tobytes())
        made, real = corpus()
        body = []
        for k, (a, b) in enumerate(zip(made, real)):
            lead = "[voice guest] " if k % 2 else ""
            body.append(f"{lead}{a} We say [lang de]Guten Tag[/lang] and [lang fr]bonjour[/lang]. {b}")
            if k % 5 == 4:
                body.append("[sound sq.wav]")
            if k % 7 == 6:
                body.append("[pause 600ms]")
        script = write(os.path.join(folder, "ep.txt"), "---\ntitle: Joins\n---\n" + "\n\n".join(body) + "\n")
        lengths_ms = [350, 400, 750, 800, 160, 250, 600]   # guest's and host's pauses, piece, gap, written
        for rate in (22050, 44100):
            out = os.path.join(folder, f"ep{rate}.wav")
            res = run([script, "-o", out, "--sample-rate", str(rate), "--loudness", "off", "-q", "--no-cache"])
            self.assertEqual(res.returncode, 0, res.stderr)
            got, data = samples(out)
            self.assertEqual(got, rate)
            lengths = {(ms * rate + 500) // 1000 for ms in lengths_ms}
            joins, clicks = 0, []
            for s, n in runs_of_zeros(data, rate // 200):
                if n not in lengths:
                    continue
                joins += 1
                for x in (data[s - 1], data[s + n] if s + n < len(data) else 0):
                    if abs(x) > JUMP_MAX:
                        clicks.append((s, n, x))
            for x in (data[0], data[-1]):
                if abs(x) > JUMP_MAX:
                    clicks.append(("end", x))
            self.assertGreater(joins, 4 * len(body), rate)
            self.assertEqual(clicks[:20], [], f"{len(clicks)} of {joins} joins click at {rate} Hz")


if __name__ == "__main__":
    main()
