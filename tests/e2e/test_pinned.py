# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end, pinned: every observable output of six renders and a feed, compared with a
manifest recorded from a known-good build (tests/data/pinned/expected.json).

This test exists so that a change meant to preserve behaviour (a refactor, a file move, a
build change) is proven to preserve it: the decoded audio of every MP3 and of one WAV, the
MP3 stream after the ID3 tag, every ID3 frame, the sidecars, chapters, transcripts, pages,
the feed and what the commands print must all come out exactly as recorded.

What is rendered: samples/weekly-briefing.txt, samples/produced-briefing.txt (intro, inserts,
outro and a music bed, with its samples/sounds/ and samples/music/) and the scripts in tests/data/pinned/
(interview: two speakers, chapters, pauses, a non-ASCII title; release-notes: technical
text and full front matter; short: no headings; long: several chapters and its own
`lexicon:`), each with `--srt --transcript-json --page --page-md --no-cache -q`, one of them also to
a .wav, then `feed` over the folder with tests/data/pinned/show.txt as its show.txt.

What is compared (the manifest), with only these normalizations:
- MP3: sha256 and sample count of the PCM that ffmpeg decodes; sha256 and size of the bytes
  after the ID3v2 tag (the LAME stream); every ID3 frame as mutagen reads it (untranslated
  ID3v2.3 frames, pprint + text encoding, CHAP/CTOC with their sub-frames) except TSSE,
  which names program versions.
- WAV: sha256 and count of the PCM frames read by python's wave module, and its format.
- Sidecars (NAME.json): the file's own text with the `generator` and `inputs_sha256`
  members removed wherever they appear (they name the program version and hash it).
- Every other file (.chapters.json, .vtt, .srt, .transcript.json, .md, .html, feed.xml) and each
  command's stdout/stderr: the text itself, with the temporary folder written as $TMP.
  The feed has no wall-clock time (lastBuildDate is the newest episode's pubDate), so
  nothing is dropped from it.
- The list of files each run leaves in the folder.

    RE_BIN=build/render-episode python3 tests/e2e/test_pinned.py            # compare
    RE_BIN=build/render-episode python3 tests/e2e/test_pinned.py --record   # rewrite

--record rewrites tests/data/pinned/expected.json from the binary in RE_BIN. Use it ONLY
for an intended change of the program's output, never to make this test pass after a
change that was meant to preserve behaviour; the commit that changes expected.json must
say which output changed and why. RE_PINNED_EXPECTED=FILE compares against (or records to)
another manifest instead.
"""
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import wave

import common
from common import SRC, Case, listing, main, run

DATA = os.path.join(SRC, "tests", "data", "pinned")
EXPECTED = os.environ.get("RE_PINNED_EXPECTED") or os.path.join(DATA, "expected.json")
BASE_URL = "https://example.org/pod/"

# output name -> script, relative to the source tree
SCRIPTS = {
    "weekly-briefing": "samples/weekly-briefing.txt",
    "interview": "tests/data/pinned/interview.txt",
    "release-notes": "tests/data/pinned/release-notes.txt",
    "short": "tests/data/pinned/short.txt",
    "long": "tests/data/pinned/long.txt",
    "produced-briefing": "samples/produced-briefing.txt",
}
EXTRA_INPUTS = ["tests/data/pinned/long.lexicon"]   # found by long.txt's `lexicon:` key
EXTRA_DIRS = ["samples/sounds", "samples/music"]    # produced-briefing's intro, inserts, bed
WAV = ("short-wav", "short")                        # also rendered to short-wav.wav
RENDER_OPTIONS = ["--srt", "--transcript-json", "--page", "--page-md", "--no-cache", "-q"]
DROPPED_SIDECAR_KEYS = ("generator", "inputs_sha256")
DROPPED_ID3_FRAMES = ("TSSE",)
TMP_MARK = "$TMP"


# ---- reading what the program wrote ------------------------------------------------------

ID3_CODE = r'''
import sys
from mutagen.id3 import ID3
dropped = set(sys.argv[2].split(","))
tag = ID3(sys.argv[1], translate=False)      # the frames as written (TYER/TDAT/TIME stay)
out = ["ID3v%d.%d.%d size=%d unsynch=%s extended=%s unknown_frames=%d" % (
    tag.version + (tag.size, tag.f_unsynch, tag.f_extended, len(tag.unknown_frames)))]
def frame(f, indent):
    subs = getattr(f, "sub_frames", None)
    lines = f.pprint().split("\n")
    if subs is not None:                     # CHAP/CTOC: its own line, then each sub-frame
        lines = lines[:1]
    out.extend(indent + line for line in lines)
    if hasattr(f, "encoding"):
        out.append(indent + "  encoding=%d" % int(f.encoding))
    for sub in (subs or {}).values():
        frame(sub, indent + "  sub ")
for f in tag.values():                       # in the file's order
    if f.FrameID not in dropped:
        frame(f, "")
sys.stdout.write("\n".join(out) + "\n")
'''


def id3_text(path):
    res = subprocess.run(["/usr/bin/python3", "-c", ID3_CODE, path, ",".join(DROPPED_ID3_FRAMES)],
                         capture_output=True, check=True)
    return res.stdout.decode("utf-8")


def mp3_stream(path):
    """The bytes after the ID3v2 tag (header, syncsafe size, footer when flagged)."""
    with open(path, "rb") as f:
        data = f.read()
    start = 0
    if data[:3] == b"ID3":
        size = 0
        for b in data[6:10]:
            size = (size << 7) | (b & 0x7F)
        start = 10 + size + (10 if data[5] & 0x10 else 0)
    return data[start:]


def wav_pcm(path):
    with wave.open(path, "rb") as w:
        frames = w.readframes(w.getnframes())
        return {"sha256": hashlib.sha256(frames).hexdigest(), "frames": w.getnframes(),
                "channels": w.getnchannels(), "sample_width": w.getsampwidth(),
                "rate": w.getframerate()}


def drop_keys(value):
    if isinstance(value, dict):
        return {k: drop_keys(v) for k, v in value.items() if k not in DROPPED_SIDECAR_KEYS}
    if isinstance(value, list):
        return [drop_keys(v) for v in value]
    return value


MEMBER = re.compile(r'^\s*"(%s)"\s*:\s*("(?:[^"\\]|\\.)*"|null|true|false|-?[0-9][0-9.eE+-]*)\s*(,?)\s*$'
                    % "|".join(DROPPED_SIDECAR_KEYS))


def sidecar_text(text):
    """The sidecar's own text (its formatting pinned too) without the dropped members; when
    its layout is not one member a line, a pretty-printed copy without them."""
    want = drop_keys(json.loads(text))
    kept = []
    for line in text.split("\n"):
        m = MEMBER.match(line)
        if not m:
            kept.append(line)
        elif not m.group(3) and kept:           # it was the last member: no comma before '}'
            kept[-1] = re.sub(r",(\s*)$", r"\1", kept[-1])
    out = "\n".join(kept)
    try:
        if json.loads(out) == want:
            return out
    except ValueError:
        pass
    return "(re-serialized)\n" + json.dumps(want, indent=2, ensure_ascii=False) + "\n"


def text_of(path, tmp):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="backslashreplace")
    return untemp(text, tmp)


def untemp(text, tmp):
    for p in sorted({tmp, os.path.realpath(tmp)}, key=len, reverse=True):
        text = text.replace(p, TMP_MARK)
    return text


def lines(text):
    """Text as a list of lines, exactly reversible ("\n".join), readable in expected.json."""
    return {"text": text.split("\n")}


# ---- one complete run --------------------------------------------------------------------

def build_manifest(tmp):
    """Renders everything into tmp/out and returns the normalized manifest."""
    out, inp = os.path.join(tmp, "out"), os.path.join(tmp, "in")
    for d in (out, inp, os.path.join(tmp, "cache"), os.path.join(tmp, "tmp")):
        os.makedirs(d, exist_ok=True)
    # a fixed now, after every script's date: the feed never depends on the day the test runs
    env = {"XDG_CACHE_HOME": os.path.join(tmp, "cache"), "TMPDIR": os.path.join(tmp, "tmp"),
           "RENDER_EPISODE_NOW": "2027-01-01T00:00:00Z"}
    # the scripts are copied, so that no message or output can depend on the source tree's path
    for rel in list(SCRIPTS.values()) + EXTRA_INPUTS:
        shutil.copyfile(os.path.join(SRC, rel), os.path.join(inp, os.path.basename(rel)))
    for rel in EXTRA_DIRS:
        shutil.copytree(os.path.join(SRC, rel), os.path.join(inp, os.path.basename(rel)))

    manifest = {}
    commands = [(name, [os.path.join(inp, os.path.basename(rel)), "-o", os.path.join(out, name + ".mp3")]
                 + RENDER_OPTIONS) for name, rel in SCRIPTS.items()]
    commands.append((WAV[0], [os.path.join(inp, os.path.basename(SCRIPTS[WAV[1]])),
                              "-o", os.path.join(out, WAV[0] + ".wav")] + RENDER_OPTIONS))
    shutil.copyfile(os.path.join(DATA, "show.txt"), os.path.join(out, "show.txt"))
    commands.append(("feed", ["feed", out, "--base-url", BASE_URL, "-o", os.path.join(out, "feed.xml")]))
    for name, args in commands:
        res = run(args, env=env)
        if res.returncode != 0:
            raise AssertionError(f"render-episode {' '.join(args)} exited {res.returncode}:\n{res.stderr}")
        manifest[f"{name}: stdout"] = lines(untemp(res.stdout, tmp))
        manifest[f"{name}: stderr"] = lines(untemp(res.stderr, tmp))

    manifest["files"] = {"names": listing(out)}
    manifest["tmp files left"] = {"names": sorted(os.listdir(os.path.join(tmp, "tmp")))}
    for fname in listing(out):
        path = os.path.join(out, fname)
        if fname == "show.txt":
            continue
        if fname.endswith(".mp3"):
            pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-"],
                                 capture_output=True, check=True).stdout
            manifest[fname + ": pcm"] = {"sha256": hashlib.sha256(pcm).hexdigest(), "samples": len(pcm) // 2}
            stream = mp3_stream(path)
            manifest[fname + ": stream after ID3"] = {"sha256": hashlib.sha256(stream).hexdigest(),
                                                      "bytes": len(stream)}
            manifest[fname + ": id3"] = lines(id3_text(path))
        elif fname.endswith(".wav"):
            manifest[fname + ": pcm"] = wav_pcm(path)
        elif fname.endswith(".json") and not fname.endswith((".chapters.json", ".transcript.json")):
            manifest[fname] = lines(sidecar_text(text_of(path, tmp)))
        elif fname.endswith((".json", ".vtt", ".srt", ".md", ".html", ".xml")):
            manifest[fname] = lines(text_of(path, tmp))
        else:
            with open(path, "rb") as f:
                manifest[fname + ": sha256"] = {"sha256": hashlib.sha256(f.read()).hexdigest()}
    return manifest


# ---- comparing ---------------------------------------------------------------------------

def render_entry(value):
    if isinstance(value, dict) and set(value) == {"text"}:
        return [line + "\n" for line in value["text"]]
    return [line + "\n" for line in json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True).split("\n")]


def differences(expected, actual):
    """{artifact: unified diff} for every artifact that differs, is missing or is new."""
    out = {}
    for key in sorted(set(expected) | set(actual)):
        if key in expected and key in actual and expected[key] == actual[key]:
            continue
        exp = render_entry(expected[key]) if key in expected else []
        act = render_entry(actual[key]) if key in actual else []
        note = "" if key in expected and key in actual else \
            ("  (missing from this run)\n" if key in expected else "  (new in this run, not in the manifest)\n")
        out[key] = note + "".join(difflib.unified_diff(exp, act, f"expected/{key}", f"actual/{key}", n=3))
    return out


def load_expected():
    with open(EXPECTED, encoding="utf-8") as f:
        return json.load(f)["artifacts"]


def record():
    tmp = tempfile.mkdtemp(prefix="re-pinned-")
    try:
        manifest = build_manifest(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    doc = {"about": "Pinned outputs of tests/e2e/test_pinned.py. Rewritten only by "
                    "`test_pinned.py --record`, for an intended output change explained in its commit.",
           "artifacts": manifest}
    with open(EXPECTED, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False, sort_keys=True)
        f.write("\n")
    print(f"recorded {len(manifest)} artifacts to {EXPECTED}")


class Pinned(Case):
    """The outputs of the current binary equal the recorded manifest, artifact by artifact."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="re-pinned-")
        cls.actual = build_manifest(cls.dir)
        cls.expected = load_expected()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_every_artifact_matches_the_manifest(self):
        diffs = differences(self.expected, self.actual)
        for key, diff in diffs.items():
            print(f"\n==== {key} differs from {EXPECTED}\n{diff}", file=sys.stderr)
        self.assertEqual(sorted(diffs), [], f"{len(diffs)} artifact(s) differ from the pinned manifest "
                         "(diffs above); if the change is intended, re-record with --record and say why")

    def test_manifest_covers_every_kind_of_output(self):
        """A guard against a manifest that pins too little."""
        keys = set(self.expected)
        for name in SCRIPTS:
            for suffix in (".mp3: pcm", ".mp3: id3", ".mp3: stream after ID3", ".json", ".vtt", ".srt",
                           ".transcript.json", ".md", ".html"):
                self.assertIn(name + suffix, keys)
        for key in ("interview.chapters.json", "long.chapters.json", "weekly-briefing.chapters.json",
                    "short-wav.wav: pcm", "feed.xml"):
            self.assertIn(key, keys)
        self.assertNotIn("short.chapters.json", self.expected["files"]["names"])


class Comparison(unittest.TestCase):
    """The comparison itself finds a changed, a missing and a new artifact."""

    def test_differences(self):
        exp = {"a.vtt": {"text": ["WEBVTT", "", "one"]}, "a.mp3: pcm": {"sha256": "00", "samples": 3},
               "gone": {"text": ["x"]}}
        act = {"a.vtt": {"text": ["WEBVTT", "", "two"]}, "a.mp3: pcm": {"sha256": "00", "samples": 4},
               "new": {"text": ["y"]}}
        diffs = differences(exp, act)
        self.assertEqual(sorted(diffs), ["a.mp3: pcm", "a.vtt", "gone", "new"])
        self.assertIn("-one\n+two\n", diffs["a.vtt"])
        self.assertIn('-  "samples": 3,\n+  "samples": 4,\n', diffs["a.mp3: pcm"])
        self.assertEqual(differences(exp, json.loads(json.dumps(exp))), {})

    def test_sidecar_normalization(self):
        text = ('{\n  "title": "T",\n  "generator": "render-episode 0.1.0",\n  "inner": {"a": 1},\n'
                '  "inputs_sha256": "ab"\n}\n')
        self.assertEqual(sidecar_text(text), '{\n  "title": "T",\n  "inner": {"a": 1}\n}\n')


if __name__ == "__main__":
    if "--record" in sys.argv[1:]:
        if not common.BIN or not os.access(common.BIN, os.X_OK):
            print("RE_BIN must name the built render-episode program", file=sys.stderr)
            sys.exit(2)
        record()
        sys.exit(0)
    main()
