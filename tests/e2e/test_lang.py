# SPDX-License-Identifier: GPL-3.0-or-later
"""Script format 1.1's [lang TAG]...[/lang] spans, and text in another writing system than the
voice's (no span needed): spoken by espeak-ng's voice for TAG (judged
by espeak-ng's own program: the phonemes of the span are what `espeak-ng -x -v TAG` gives for
it), with the profile's variant; the MP3 decodes (ffmpeg, mpg123) to the sidecar's count; the
transcripts show the script's text, spans included, in order; the segment cache tells spans
in different languages apart."""
import array
import json
import os
import re
import subprocess
import wave

from common import Case, ffmpeg_pcm, ffmpeg_samples, main, mpg123_samples, run, runs_of_zeros, write

SCRIPT = """---
title: Languages
voice: host
---
The German greeting is [lang de]Guten Morgen, wie geht es dir?[/lang] and we go on in English.

[lang fr]Bonjour tout le monde.[/lang] Then a literal \\[lang de] stays text.
"""
SPOKEN = ("The German greeting is Guten Morgen, wie geht es dir? and we go on in English. "
          "Bonjour tout le monde. Then a literal [lang de] stays text.")


def espeak_phonemes(voice, text):
    return subprocess.run(["espeak-ng", "-q", "-x", "-v", voice, text], capture_output=True,
                          text=True, check=True).stdout.split()


class Spans(Case):
    def setUp(self):
        super().setUp()
        self.voices = self.path("voices")
        os.mkdir(self.voices)
        write(os.path.join(self.voices, "host.voice"),
              "voice = en-gb+f3\nsentence_pause = 350\nparagraph_pause = 800\n")

    def render(self, name, text, *args):
        folder = self.path(name)
        os.makedirs(folder, exist_ok=True)
        script = write(os.path.join(folder, "ep.txt"), text)
        out = os.path.join(folder, "ep.mp3")
        res = run([script, "-o", out, "--voices", self.voices, "-q"] + list(args))
        self.assertEqual(res.returncode, 0, res.stderr)
        return script, out


class LangSpans(Spans):
    def test_spoken_by_the_span_voice_and_transcribed(self):
        script, out = self.render("main", SCRIPT, "--srt", "--transcript-json")
        folder = os.path.dirname(out)
        with open(os.path.join(folder, "ep.json"), encoding="utf-8") as f:
            sidecar = json.load(f)
        self.assertEqual(ffmpeg_samples(out), sidecar["samples"])
        self.assertEqual(mpg123_samples(out), sidecar["samples"])
        # The engine's phonemes for each piece, as explain reports them: the span's are
        # espeak-ng's German (with the variant, which changes no phoneme), not its English.
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        said = {l.split(": ", 1)[1]: lines[i + 1].split() for i, l in enumerate(lines)
                if not l.startswith(" ") and ": " in l}
        german = "Guten Morgen, wie geht es dir?"
        self.assertEqual(said[german], espeak_phonemes("de", german))
        self.assertNotEqual(said[german], espeak_phonemes("en-gb", german))
        self.assertEqual(said["Bonjour tout le monde."], espeak_phonemes("fr", "Bonjour tout le monde."))
        self.assertEqual(said["Then a literal [lang de] stays text."],
                         espeak_phonemes("en-gb", "Then a literal [lang de] stays text."))
        # Every transcript is the script's text, in order, the span's included.
        with open(os.path.join(folder, "ep.vtt"), encoding="utf-8") as f:
            vtt = f.read()
        cues = re.findall(r"\d\d:\d\d:\d\d\.\d\d\d --> [^\n]*\n(.*?)(?:\n\n|\n?$)", vtt, re.S)
        self.assertEqual(" ".join(" ".join(cues).split()), SPOKEN)
        with open(os.path.join(folder, "ep.srt"), encoding="utf-8") as f:
            srt = [b.split("\n", 2)[2] for b in f.read().strip().split("\n\n")]
        self.assertEqual(" ".join(" ".join(srt).split()), SPOKEN)
        with open(os.path.join(folder, "ep.transcript.json"), encoding="utf-8") as f:
            segments = json.load(f)["segments"]
        self.assertEqual(" ".join(" ".join(s["body"] for s in segments).split()), SPOKEN)
        # The span's cue starts after the English before it and ends before the English after.
        starts = {s["body"]: (s["startTime"], s["endTime"]) for s in segments}
        before, span = starts["The German greeting is"], starts[german]
        self.assertLessEqual(before[1], span[0])
        after = next(v for k, v in starts.items() if k.startswith("and we go on"))
        self.assertLessEqual(span[1], after[0])

    def test_pieces_are_parted_by_exact_silences(self):
        """Each piece is spoken anew, its own silences trimmed: between two pieces of a sentence
        there are exactly 160 ms of digital silence (the engine's comma pause), after a
        sentence's end the profile's 350 ms, and the paragraph pause between paragraphs."""
        text = ("---\ntitle: G\nvoice: host\n---\nSay [lang de]Guten Tag[/lang] to them. "
                "[lang fr]Bonjour.[/lang] Then English.\n\nNext paragraph.\n")
        folder = self.path("gaps")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        res = run([script, "-o", os.path.join(folder, "ep.wav"), "--voices", self.voices,
                   "--loudness", "off", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with wave.open(os.path.join(folder, "ep.wav"), "rb") as w:
            rate = w.getframerate()
            data = array.array("h", w.readframes(w.getnframes()))
        runs = [n for _, n in runs_of_zeros(data, rate // 20)]
        gap, sentence, paragraph = (160 * rate + 500) // 1000, (350 * rate + 500) // 1000, (800 * rate + 500) // 1000
        # Say|Guten Tag|to them.|Bonjour.|Then English.|| Next: two gaps mid-sentence, a
        # sentence pause after "them." and after "Bonjour.", one paragraph pause.
        self.assertEqual(runs.count(gap), 2, runs)
        self.assertEqual(runs.count(sentence), 2, runs)
        self.assertEqual(runs.count(paragraph), 1, runs)

    def test_the_cache_tells_languages_apart(self):
        """The same text in a [lang de] and a [lang fr] span: the second render, with the first's
        segment cache, says it in French, sample for sample as a render without the cache."""
        cache = {"XDG_CACHE_HOME": self.path("cache")}
        text = SCRIPT.split("---\n", 2)[0] + "---\ntitle: C\n---\nSay [lang {}]Un deux trois quatre.[/lang] now.\n"
        _, de = self.render("de", text.format("de"))
        env = dict(os.environ, **cache)
        for name, lang in (("de-cached", "de"), ("fr-cached", "fr")):
            folder = self.path(name)
            os.mkdir(folder)
            script = write(os.path.join(folder, "ep.txt"), text.format(lang))
            res = subprocess.run([os.environ["RE_BIN"], script, "-o", os.path.join(folder, "ep.mp3"),
                                  "--voices", self.voices, "-q"], capture_output=True, text=True,
                                 env=env, timeout=300)
            self.assertEqual(res.returncode, 0, res.stderr)
        _, fr = self.render("fr", text.format("fr"), "--no-cache")
        self.assertEqual(ffmpeg_pcm(self.path("fr-cached", "ep.mp3")), ffmpeg_pcm(fr))
        self.assertNotEqual(ffmpeg_pcm(self.path("fr-cached", "ep.mp3")), ffmpeg_pcm(de))


DETECTED = """---
title: Writing systems
voice: host
---
The Russian Привет, мир! means hello world, and カタカナのテキスト is Japanese.

Chinese 中文文本 and Greek Γεια σου κόσμε and Arabic مرحبا بالعالم end here.
"""
SPANS = {"Привет, мир!": "ru", "カタカナのテキスト": "ja", "中文文本": "cmn", "Γεια σου κόσμε": "el",
         "مرحبا بالعالم": "ar"}


class WritingSystems(Spans):
    """Text in another writing system than the voice's, without any [lang]: each span is spoken
    by espeak-ng's voice for its language, never as "Japanese letter" by the English voice."""

    def test_each_span_in_its_language(self):
        script, out = self.render("detect", DETECTED, "--transcript-json")
        folder = os.path.dirname(out)
        with open(os.path.join(folder, "ep.json"), encoding="utf-8") as f:
            self.assertEqual(ffmpeg_samples(out), json.load(f)["samples"])
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        said = {l.split(": ", 1)[1]: lines[i + 1].split() for i, l in enumerate(lines)
                if not l.startswith(" ") and ": " in l}
        for text, voice in SPANS.items():
            self.assertIn(text, said, f"{text} is not a piece of its own: {list(said)}")
            self.assertEqual(said[text], espeak_phonemes(voice, text), text)
        english = espeak_phonemes("en-gb", "カタカナのテキスト")
        self.assertTrue(any("dZ'ap@ni:z" in p for p in english))   # what the English voice says
        for text in SPANS:
            self.assertNotEqual(said[text], espeak_phonemes("en-gb", text), text)
        expected = " ".join(" ".join(DETECTED.split("---\n", 2)[2].split("\n")).split())
        with open(os.path.join(folder, "ep.transcript.json"), encoding="utf-8") as f:
            segments = json.load(f)["segments"]
        self.assertEqual(" ".join(" ".join(s["body"] for s in segments).split()), expected)
        # Each span's cue comes after the one before it: the times follow the text.
        starts = [s["startTime"] for s in segments]
        self.assertEqual(starts, sorted(starts))

    def test_japanese_with_kanji_is_left_out_never_chinese_letter(self):
        # espeak-ng 1.51's ja voice reads kana but says "Chinese letter" (in English) for every
        # kanji: measured here, and the reason such text is left out with a warning. The line
        # is fontconfig's changelog (/usr/share/doc/fontconfig/changelog.gz:18655).
        line = "セグメンテーション違反です (core dumped)"
        self.assertIn("tS'aIni:z", " ".join(espeak_phonemes("ja", "違反")))
        text = f"---\ntitle: J\nvoice: host\n---\nIntro.\n\nIt said {line} and stopped.\n"
        folder = self.path("kanji")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        out = os.path.join(folder, "ep.mp3")
        res = run([script, "-o", out, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(f"{script}:7:9: warning: 'セグメンテーション違反です' is left out: espeak-ng has "
                      "no voice for Japanese kanji text", res.stderr)
        with open(os.path.join(folder, "ep.vtt"), encoding="utf-8") as f:
            vtt = f.read()
        self.assertIn("(core dumped) and stopped.", vtt)
        self.assertNotIn("違反", vtt)
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("tS'aIni:z", res.stdout)   # no "Chinese letter" anywhere
        self.assertNotIn("\u9055", res.stdout)
        # Kana alone is still read by the Japanese voice.
        self.assertEqual(espeak_phonemes("ja", "セグメンテーション")[0].count("l'et@"), 0)

    def test_text_no_voice_reads_is_left_out_with_a_warning(self):
        text = "---\ntitle: K\nvoice: host\n---\nIntro.\n\nKhmer \u1797\u17b6\u179f\u17b6 then more.\n"
        folder = self.path("khmer")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        out = os.path.join(folder, "ep.mp3")
        res = run([script, "-o", out, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(f"{script}:7:7: warning: '\u1797\u17b6\u179f\u17b6' is left out: espeak-ng has no "
                      "voice for Khmer text", res.stderr)
        with open(os.path.join(folder, "ep.json"), encoding="utf-8") as f:
            self.assertEqual(ffmpeg_samples(out), json.load(f)["samples"])
        with open(os.path.join(folder, "ep.vtt"), encoding="utf-8") as f:
            vtt = f.read()
        self.assertIn("Khmer", vtt)
        self.assertIn("then more.", vtt)
        self.assertNotIn("\u1797", vtt)

    def test_a_paragraph_wholly_in_another_writing_system(self):
        # One span that is the whole paragraph is cut like any other: a Russian paragraph is
        # spoken by the Russian voice, a Lao one is left out with its warning (both were once
        # given to the English voice whole).
        russian, lao = "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440", "\u0eaa\u0eb0\u0e9a\u0eb2\u0e8d\u0e94\u0eb5 \u0ea5\u0eb2\u0ea7"
        text = f"---\ntitle: W\nvoice: host\n---\nIntro.\n\n{russian}\n\n{lao}\n\nOutro.\n"
        folder = self.path("whole")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        res = run([script, "-o", os.path.join(folder, "ep.mp3"), "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(f"{script}:9:1: warning: '{lao}' is left out: espeak-ng has no voice for "
                      "Lao text", res.stderr)
        with open(os.path.join(folder, "ep.vtt"), encoding="utf-8") as f:
            self.assertNotIn("\u0eaa", f.read())
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        said = {l.split(": ", 1)[1]: lines[i + 1].split() for i, l in enumerate(lines)
                if not l.startswith(" ") and ": " in l}
        self.assertEqual(said[russian], espeak_phonemes("ru", russian))

    def test_a_script_of_text_no_voice_reads_is_bad_input(self):
        # Every word left out: no sound, a clear error (exit 2), nothing written, no crash.
        text = "---\ntitle: L\nvoice: host\n---\n\u0eaa\u0eb0\u0e9a\u0eb2\u0e8d \ua000\ua001\n"
        folder = self.path("nothing")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        res = run([script, "-o", os.path.join(folder, "ep.mp3"), "--voices", self.voices])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("produced no sound at all", res.stderr)
        self.assertEqual(sorted(os.listdir(folder)), ["ep.txt"])

    def test_a_chapter_whose_text_is_all_left_out_is_bad_input(self):
        # As in the parser, a heading needs audio after it: a chapter of Lao text alone would
        # be a chapter of no length at the episode's end (ffprobe: start = end).
        lao = "\u0eaa\u0eb0\u0e9a\u0eb2"
        text = f"---\ntitle: C\nvoice: host\n---\n# One\n\nHello there.\n\n# End\n\n{lao}\n"
        folder = self.path("chapter")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        res = run([script, "-o", os.path.join(folder, "ep.mp3"), "--voices", self.voices])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{script}:9:1: chapter 'End' has no audio", res.stderr)
        self.assertEqual(sorted(os.listdir(folder)), ["ep.txt"])

    def test_a_paragraph_left_out_takes_its_pause_with_it(self):
        # First, last or between two: the episode is the one without that paragraph, with no
        # paragraph pause at its start or end, nor two in a row (ffmpeg counts the samples).
        lao = "\u0eaa\u0eb0\u0e9a\u0eb2"
        head = "---\ntitle: P\nvoice: host\n---\n"
        plain = self.render("plain", head + "Hello there.\n\nGood bye.\n")[1]
        for name, body in (("first", f"{lao}\n\nHello there.\n\nGood bye.\n"),
                           ("middle", f"Hello there.\n\n{lao}\n\nGood bye.\n"),
                           ("last", f"Hello there.\n\nGood bye.\n\n{lao}\n")):
            out = self.render(name, head + body)[1]
            self.assertEqual(ffmpeg_samples(out), ffmpeg_samples(plain), name)

    def test_a_piece_cut_from_a_paragraph_is_placed_at_its_own_text(self):
        # Each warning names FILE:LINE:COL of its span, not of the paragraph: on a later line
        # of it, after a comment line, after blanks, a '\\[' and text of several bytes a
        # character (columns count bytes, docs/script-format.md).
        khmer, tibetan = "\u1797\u17b6\u179f\u17b6", "\u0f56\u0f7c\u0f51"
        lines = ["Intro line.", "// a comment", "  caf\u00e9 \\[x]   then " + khmer + " and",
                 "// another", "\tmore \u0420\u0443\u0441 then " + tibetan + " end."]
        text = "---\ntitle: P\nvoice: host\n---\n" + "\n".join(lines) + "\n"
        folder = self.path("placed")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), text)
        res = run([script, "-o", os.path.join(folder, "ep.mp3"), "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        for number, line, span, name in ((7, lines[2], khmer, "Khmer"),
                                         (9, lines[4], tibetan, "Tibetan")):
            col = line.encode().index(span.encode()) + 1
            self.assertIn(f"{script}:{number}:{col}: warning: '{span}' is left out: espeak-ng "
                          f"has no voice for {name} text", res.stderr)
        # explain places every piece where its text starts
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        places = [l.split(": ", 1) for l in res.stdout.splitlines()
                  if not l.startswith(" ") and ": " in l]
        russian = "\u0420\u0443\u0441"
        self.assertIn([f"{script}:9:{lines[4].encode().index(russian.encode()) + 1}", russian],
                      places)
        self.assertIn([f"{script}:7:{lines[2].encode().index(b'and') + 1}", "and more"], places)

    def test_a_lang_span_overrides_detection(self):
        text = "---\ntitle: O\nvoice: host\n---\nSay [lang bg]Привет[/lang] now.\n"
        script, _ = self.render("override", text)
        res = run(["explain", script, "--voices", self.voices])
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        said = {l.split(": ", 1)[1]: lines[i + 1].split() for i, l in enumerate(lines)
                if not l.startswith(" ") and ": " in l}
        self.assertEqual(said["Привет"], espeak_phonemes("bg", "Привет"))
        self.assertNotEqual(said["Привет"], espeak_phonemes("ru", "Привет"))


if __name__ == "__main__":
    main()
