# SPDX-License-Identifier: GPL-3.0-or-later
"""No token of any length is refused (issue 14): tokens that abort espeak-ng 1.51 when it is
given them whole (three 64-character dotted words, `s'` repeated, `q.z.` repeated) and a seeded
sweep of long tokens of every class (URLs, hashes, identifiers, digits, punctuation, dotted
letters, other scripts) render with exit 0 into an MP3 that ffmpeg and mpg123 decode to the
sidecar's sample count, and every transcript shows each token exactly as the script wrote it.
The crash net behind the cuts (a child per paragraph) is tested with an injected abort."""
import json
import os
import random
import re
import string
import subprocess

from common import SRC, Case, ffmpeg_samples, main, mpg123_samples, run, write
from common import heard as heard_text

DOTTED = "".join(c + "." for c in string.ascii_lowercase * 2)[:64]
KILLERS = [
    " ".join([DOTTED] * 3),                                            # aborted 1.51 whole
    "https://github.com/pytorch/pytorch/pull/189759/files#diff-" + "0123456789abcdef" * 2
    + "01234567",                                                      # 98 characters
    "12d655d4561a0b9c8e7f6a5b4c3d2e1f0a9b8c7d",                        # a commit
    "s'" * 120,                                                        # aborted 1.51 from 140
    "s\u2019" * 70,
    " ".join(["q.z."] * 60),                                           # aborted 1.51 from 44
    "OPENSSL_" + "_".join(["VERY_LONG_CONFIGURATION_OPTION_NAME"] * 5),
    "torch." + ".".join(["nn", "functional", "scaled_dot_product_attention"] * 4),
    "1234567890" * 30,
    "!?-_=+*&^%$#@" * 15,
    "s's's's's'\u00ad" * 20,
]


def token_classes(rng):
    """Makers of long tokens, each class one kind of thing people paste."""
    hexd = "0123456789abcdef"
    pick = lambda alphabet, n: "".join(rng.choice(alphabet) for _ in range(n))
    return {
        "url": lambda n: "https://example.org/" + pick(string.ascii_lowercase + "/-_.?=&#%0123456789", n),
        "hash": lambda n: pick(hexd, n),
        "identifier": lambda n: pick(string.ascii_letters + string.digits + "_.:-/", n),
        "capitals": lambda n: "_".join(pick(string.ascii_uppercase, rng.randint(1, 9)) for _ in range(n // 4))[:n],
        "digits": lambda n: pick(string.digits, n),
        "punctuation": lambda n: pick(string.punctuation.replace("[", ""), n),
        "dotted-letters": lambda n: "".join(rng.choice(string.ascii_letters) + "." for _ in range(n))[:n],
        "dotted-other": lambda n: "".join(rng.choice("\u00e9\u00fc\u00df\u00f8\u03b1\u03b2\u0436\u0449") + "."
                                          for _ in range(n))[:n],
        "apostrophes": lambda n: "".join(rng.choice(["s'", "x'", "s\u2019", "'"]) for _ in range(n))[:n],
        "base64": lambda n: pick(string.ascii_letters + string.digits + "+/=", n),
        "cyrillic": lambda n: "".join(chr(rng.randint(0x430, 0x44F)) for _ in range(n)),
        "marks-and-emoji": lambda n: "".join(rng.choice(["e\u0301", "\U0001F600", "\u00ad", "a", "."])
                                             for _ in range(n)),
    }


def script_of(paragraphs):
    return "---\ntitle: Long tokens\n---\n" + "\n\n".join(f"Before {p} after." for p in paragraphs) + "\n"


def cue_texts(path):
    """The cue texts of a WebVTT file, unescaped, as ffmpeg would read them."""
    with open(path, encoding="utf-8") as f:
        blocks = f.read().split("\n\n")[1:]
    texts = []
    for block in blocks:
        lines = block.strip().split("\n")
        at = next(i for i, line in enumerate(lines) if "-->" in line)
        texts.append("\n".join(lines[at + 1:]).replace("&lt;", "<").replace("&gt;", ">")
                     .replace("&amp;", "&"))
    return texts


class LongTokens(Case):
    def render_and_judge(self, name, paragraphs):
        folder = self.path(name)
        os.mkdir(folder)
        text = script_of(paragraphs)
        script = write(os.path.join(folder, "ep.txt"), text)
        out = os.path.join(folder, "ep.mp3")
        res = run([script, "-o", out, "--srt", "--transcript-json", "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(folder, "ep.json"), encoding="utf-8") as f:
            samples = json.load(f)["samples"]
        self.assertGreater(samples, 0)
        self.assertEqual(ffmpeg_samples(out), samples)
        self.assertEqual(mpg123_samples(out), samples)
        # The transcripts put together are the script's text; each token is in one cue, whole.
        # (emoji are not heard, and not in the transcripts: common.heard)
        expected = " ".join(" ".join(heard_text(f"Before {p} after.") for p in paragraphs).split())
        vtt = cue_texts(os.path.join(folder, "ep.vtt"))
        with open(os.path.join(folder, "ep.srt"), encoding="utf-8") as f:
            srt = [b.split("\n", 2)[2] for b in f.read().strip().split("\n\n")]
        with open(os.path.join(folder, "ep.transcript.json"), encoding="utf-8") as f:
            body = [seg["body"] for seg in json.load(f)["segments"]]
        for fmt, cues in (("vtt", vtt), ("srt", srt), ("json", body)):
            self.assertEqual(" ".join(" ".join(cues).split()), expected, fmt)
        tokens = [heard_text(t) for p in paragraphs for t in p.split()]
        tokens = [t for t in tokens if t]
        words = [w for cue in vtt for w in cue.split()]
        for token in tokens:
            self.assertIn(token, words, f"{name}: {token!r} is not a word of any cue")
        # ffmpeg reads the same VTT, with every token in it.
        out = subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(folder, "ep.vtt"), "-f", "srt", "-"],
                             capture_output=True, text=True, check=True).stdout
        heard = " ".join(re.sub(r"<[^>]*>", "", b.split("\n", 2)[2]) for b in out.strip().split("\n\n"))
        for token in tokens:
            if "{" not in token and "}" not in token and "\\" not in token:   # SRT escapes these
                self.assertIn(token, heard.split(), token)
        return samples

    def test_the_killers_render(self):
        samples = self.render_and_judge("killers", KILLERS)
        # Spoken, not skipped: more than a second of audio per killer paragraph.
        self.assertGreater(samples, 22050 * len(KILLERS))

    def test_sweep_of_long_tokens(self):
        rng = random.Random(14)
        classes = token_classes(rng)
        paragraphs = []
        for name, make in classes.items():
            tokens = [make(n) for n in (65, 100, 150, 260, 400)]
            paragraphs.append(" ".join(tokens))
            paragraphs.append(" ".join([make(64)] * 3))
        self.render_and_judge("sweep", paragraphs)

    def test_an_engine_crash_is_still_an_error_of_its_paragraph(self):
        """The net behind the cuts: a speech child that aborts ends the render with exit 2 at the
        paragraph, nothing written, yesterday's outputs untouched."""
        shim = self.path("engine_abort.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", shim,
                        os.path.join(SRC, "tests", "e2e", "preload", "engine_abort.c"), "-ldl"],
                       check=True)
        script = write(self.path("ep.txt"), "---\ntitle: t\n---\nFine.\n\nThen kaboomzz here.\n")
        out = write(self.path("ep.mp3"), "yesterday's episode")
        write(self.path("ep.json"), "yesterday's sidecar")
        asan = os.environ.get("ASAN_OPTIONS", "")
        env = dict(os.environ, LD_PRELOAD=shim, RE_ABORT_MARKER="kaboomzz",
                   XDG_CACHE_HOME=self.path("cache"),   # a fresh cache: every paragraph spoken
                   # in the sanitizer build the shim comes before ASan's runtime, as in test_faults
                   ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")
        res = subprocess.run([os.environ["RE_BIN"], script, "-o", out], capture_output=True, text=True,
                             env=env, timeout=300)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"{script}:6:1: the speech engine crashed on this text (SIGABRT", res.stderr)
        self.assertEqual(sorted(n for n in os.listdir(self.tmp) if n != "cache"),
                         ["engine_abort.so", "ep.json", "ep.mp3", "ep.txt"])
        with open(out, encoding="utf-8") as f:
            self.assertEqual(f.read(), "yesterday's episode")
        # Without the marker the same shim changes nothing: the render succeeds.
        env["RE_ABORT_MARKER"] = "not-in-the-text"
        res = subprocess.run([os.environ["RE_BIN"], script, "-o", out], capture_output=True, text=True,
                             env=env, timeout=300)
        self.assertEqual(res.returncode, 0, res.stderr)


if __name__ == "__main__":
    main()
