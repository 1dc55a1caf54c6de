# SPDX-License-Identifier: GPL-3.0-or-later
"""The hostile-input corpus (tests/hostile/): every input ends in a correct episode or in exit 2
with a message naming FILE:LINE:COL; never a signal, never a hang, never a partial file, never
a damaged earlier output, never a leftover process or spool file."""
import importlib.util
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
import unittest
import wave

from common import BIN, SRC, Case, env_skip, ffmpeg_samples, listing, main

HOSTILE = os.path.join(SRC, "tests", "hostile")
OLD_AUDIO = b"yesterday's episode"
OLD_SIDECAR = b'{"yesterday": true}'
CASE_TIMEOUT = 120   # seconds; the slowest case (8 MiB of input) takes about one


def load_generator():
    spec = importlib.util.spec_from_file_location("hostile_generate", os.path.join(HOSTILE, "generate.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = load_generator()


def snapshot(folder):
    """Every file under folder with its bytes (symlinks as their target)."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                out[rel] = "-> " + os.readlink(path)
            elif stat.S_ISFIFO(os.lstat(path).st_mode):   # opening it would wait for a writer
                out[rel] = "fifo"
            elif os.path.isdir(path):
                out[rel] = "dir"
            else:
                try:
                    with open(path, "rb") as f:
                        out[rel] = f.read()
                except OSError as e:
                    out[rel] = f"unreadable: {e.errno}"
    return out


def processes_mentioning(text):
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if text in line and "ps -eo" not in line]


class Hostile(Case):
    """One subtest per case of tests/hostile/expected.json."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(HOSTILE, "expected.json"), encoding="utf-8") as f:
            cls.expected = json.load(f)
        cls.cases = {c["name"]: c for c in GEN.cases()}

    def test_corpus_is_current(self):
        res = subprocess.run(["/usr/bin/python3", os.path.join(HOSTILE, "generate.py"), "--check"],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_corpus_size_and_outcomes(self):
        self.assertGreaterEqual(len(self.expected), 40)
        for item in self.expected:
            self.assertIn(item["exit"], (0, 2), item["name"])
            if item["exit"] == 2:
                self.assertTrue(item.get("message"), item["name"])
            if "file" in item:
                self.assertTrue(os.path.isfile(os.path.join(HOSTILE, item["file"])), item["file"])

    def prepare(self, item, folder):
        """Writes the case's script and profiles; returns (script path, extra args)."""
        script = os.path.join(folder, item.get("as", "ep.txt"))
        out = os.path.join(folder, "ep.mp3")
        args = ["-o", out]
        data = None
        if "file" in item:
            with open(os.path.join(HOSTILE, item["file"]), "rb") as f:
                data = f.read()
        elif "big" in item:
            data = GEN.BIG[item["big"]]()
        setup = item.get("setup")
        if setup == "dev-zero":
            script = "/dev/zero"
        if setup in ("output-is-script", "sidecar-is-script"):
            script = os.path.join(folder, "ep.mp3" if setup == "output-is-script" else "ep.json")
        if data is not None and setup not in ("missing", "directory", "dangling-symlink",
                                              "not-a-directory", "symlink-loop", "dev-zero"):
            with open(script, "wb") as f:
                f.write(data)
        if setup == "missing":
            pass
        elif setup == "directory":
            os.mkdir(script)
        elif setup == "dangling-symlink":
            os.symlink(os.path.join(folder, "nowhere.txt"), script)
        elif setup == "not-a-directory":
            with open(os.path.join(folder, "plain"), "wb") as f:
                f.write(data)
            script = os.path.join(folder, "plain", "ep.txt")
        elif setup == "symlink-loop":
            os.symlink(os.path.join(folder, "loop-b"), os.path.join(folder, "loop-a"))
            os.symlink(os.path.join(folder, "loop-a"), os.path.join(folder, "loop-b"))
            script = os.path.join(folder, "loop-a")
        elif setup == "unreadable":
            os.chmod(script, 0)
        elif setup == "output-hardlink":
            os.link(script, out)
        elif setup is not None and setup.startswith("sound-"):
            self.make_sound(setup, folder)
        elif setup is not None and setup not in ("output-is-script", "sidecar-is-script", "dev-zero"):
            self.fail(f"unknown setup {setup}")
        if setup not in ("output-is-script", "output-hardlink"):
            with open(out, "wb") as f:
                f.write(OLD_AUDIO)
        if setup != "sidecar-is-script":
            with open(os.path.join(folder, "ep.json"), "wb") as f:
                f.write(OLD_SIDECAR)
        if item.get("voices"):
            voices = os.path.join(folder, "voices")
            os.mkdir(voices)
            for name, text in GEN.VOICES[item["voices"]].items():
                if name.endswith("/"):
                    os.mkdir(os.path.join(voices, name[:-1]))
                else:
                    with open(os.path.join(voices, name), "wb") as f:
                        f.write(text)
            args += ["--voices", voices]
        return script, args + item.get("args", [])

    @staticmethod
    def write_wav(path, frames):
        """A short 16-bit mono WAV at 22050 Hz (a valid sound file)."""
        with wave.open(path, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(22050)
            w.writeframes(b"\x10\x00" * frames)

    def make_sound(self, setup, folder):
        """The sound file a "sound-*" case names: x.wav beside the script, made hostile."""
        x = os.path.join(folder, "x.wav")
        if setup == "sound-missing":
            return
        if setup in ("sound-valid", "sound-unreadable"):
            self.write_wav(x, 2205)
            if setup == "sound-unreadable":
                os.chmod(x, 0)
        elif setup == "sound-not-audio":
            with open(x, "wb") as f:
                f.write(b"RIFF but not really a WAV file, only text pretending to be one.\n" * 4)
        elif setup == "sound-empty":
            open(x, "wb").close()
        elif setup == "sound-fifo":
            os.mkfifo(x)
        elif setup == "sound-directory":
            os.mkdir(x)
        elif setup == "sound-no-frames":
            self.write_wav(x, 0)
        elif setup in ("sound-outside", "sound-symlink-out"):
            outside = os.path.join(os.path.dirname(folder), "outside.wav")
            self.write_wav(outside, 2205)
            if setup == "sound-symlink-out":
                os.symlink(outside, os.path.join(folder, "link.wav"))
        else:
            self.fail(f"unknown setup {setup}")

    def run_case(self, item, base):
        folder = os.path.join(base, "case")
        tmp = os.path.join(base, "tmp")
        os.mkdir(folder)
        os.mkdir(tmp)
        script, args = self.prepare(item, folder)
        before = snapshot(folder)
        env = dict(os.environ, TMPDIR=tmp, XDG_CACHE_HOME=os.path.join(base, "cache"), LC_ALL="C")
        unprivileged = item.get("setup") in ("unreadable", "sound-unreadable") and os.geteuid() == 0
        if unprivileged:   # root reads a mode-000 file: ask as nobody instead
            os.chmod(base, 0o755)
            os.chmod(folder, 0o777)
            os.chmod(tmp, 0o777)
        start = time.monotonic()
        try:
            res = subprocess.run([BIN, script] + args, capture_output=True, timeout=CASE_TIMEOUT, env=env,
                                 user=65534 if unprivileged else None)
        except PermissionError:   # the build is in a folder that nobody may not enter
            env_skip(self, "unprivileged-user")
        elapsed = time.monotonic() - start
        err = res.stderr.decode("utf-8", "replace")
        name = item["name"]

        self.assertGreaterEqual(res.returncode, 0, f"{name}: killed by a signal\n{err}")
        self.assertEqual(res.returncode, item["exit"], f"{name}: {err}")
        if item.get("message"):
            self.assertRegex(err, re.compile(item["message"], re.I), name)
        where = item.get("where")
        if where == "0":
            self.assertIn(f"{script}: ", err, name)
        elif where:
            self.assertIn(f"{script}:{where}:", err, name)
        # The first line is a diagnostic, never a stray message; no line is a control sequence.
        if item["exit"] == 2:
            self.assertRegex(err.splitlines()[0], r"^\S.*: \S", name)
            self.assertNotRegex(err, "[\x00-\x08\x0b-\x1f\x7f-\x9f]", name)
        if item["exit"] == 2:
            self.assertEqual(res.stdout, b"", name)
        self.assertEqual(os.listdir(tmp), [], f"{name}: left files in TMPDIR")
        self.assertEqual(processes_mentioning(folder), [], f"{name}: left processes")

        after = snapshot(folder)
        if item["exit"] == 0:
            self.assertNotIn(b"yesterday", after["ep.mp3"], name)
            with open(os.path.join(folder, "ep.json"), encoding="utf-8") as f:
                samples = json.load(f)["samples"]
            self.assertEqual(ffmpeg_samples(os.path.join(folder, "ep.mp3")), samples, name)
            debris = [n for n in after if n.endswith(".part") or n.startswith(".")]
            self.assertEqual(debris, [], name)
            self.assertEqual(set(before) - set(after), set(), name)
            if item.get("says"):
                self.check_spoken(item, script, samples, env)
        else:
            self.assertEqual(sorted(after), sorted(before), f"{name}: files changed")
            for rel, data in before.items():
                self.assertEqual(after[rel], data, f"{name}: {rel} was modified")
        return elapsed

    def check_spoken(self, item, script, samples, env):
        """What the episode says, judged by espeak-ng's own program: each expected word's phonemes
        (espeak-ng -x, the word alone) are among the phonemes `explain` reports, and the audio
        lasts about as long as espeak-ng reading the same spoken text as plain text (markup
        obeyed, or words dropped, would make it much shorter)."""
        name = item["name"]
        res = subprocess.run([BIN, "explain", script], capture_output=True, env=env, timeout=CASE_TIMEOUT)
        self.assertEqual(res.returncode, 0, f"{name}: explain: {res.stderr!r}")
        lines = res.stdout.decode("utf-8").splitlines()
        spoken = " ".join(l.split(": ", 1)[1] for l in lines if not l.startswith(" ") and ": " in l)
        phonemes = " ".join(l.strip() for l in lines if l.startswith(" "))
        for word in item["says"]:
            alone = subprocess.run(["espeak-ng", "-q", "-x", "-v", "en-us", word], capture_output=True,
                                   text=True, check=True).stdout.strip()
            self.assertIn(alone, phonemes, f"{name}: '{word}' ({alone}) is not spoken: {phonemes}")
        wav = subprocess.run(["espeak-ng", "-v", "en-us", "-s", "170", "--stdout", spoken],
                             capture_output=True, check=True).stdout
        reference = (len(wav) - 44) // 2
        self.assertGreater(samples, 0.6 * reference,
                           f"{name}: {samples} samples, espeak-ng reads the text in {reference}")
        self.assertLess(samples, 1.6 * reference,
                        f"{name}: {samples} samples, espeak-ng reads the text in {reference}")

    def test_every_case(self):
        times = []
        for item in self.expected:
            with self.subTest(case=item["name"]):
                base = tempfile.mkdtemp(prefix="re-hostile-")
                try:
                    times.append((self.run_case(item, base), item["name"]))
                finally:
                    for root, dirs, _ in os.walk(base):
                        for d in dirs:
                            os.chmod(os.path.join(root, d), 0o755)
                    shutil.rmtree(base, ignore_errors=True)
        slowest = sorted(times, reverse=True)[:3]
        print("slowest cases:", ", ".join(f"{n} {t:.2f} s" for t, n in slowest))

    def test_big_inputs_stay_linear(self):
        """Parsing is linear: 8 MiB of the worst shapes is refused within a few seconds and
        within a bounded amount of memory (a few times the input)."""
        for recipe in ("big_one_giant_line", "big_many_pauses", "big_many_errors",
                       "big_unclosed_front_matter"):
            with self.subTest(recipe=recipe):
                script = self.path(recipe + ".txt")
                with open(script, "wb") as f:
                    f.write(GEN.BIG[recipe]())
                start = time.monotonic()
                proc = subprocess.Popen([BIN, script, "-o", self.path("x.mp3")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _, status, usage = os.wait4(proc.pid, 0)
                proc.returncode = os.waitstatus_to_exitcode(status)
                seconds = time.monotonic() - start
                self.assertEqual(proc.returncode, 2, recipe)
                self.assertLess(seconds, 5.0, recipe)
                self.assertLess(usage.ru_maxrss, 200 * 1024, recipe)   # KiB

    def test_big_markdown_refused_before_parsing(self):
        """A Markdown document over a limit is refused before cmark-gfm builds anything: one
        8.3 MB line took 1.34 GB of memory before it was refused, 60,000 list items most of a
        minute. The peak memory stays that of reading the file (no time is asserted: the
        measured times are in docs/robustness.md, from scripts/bench-markdown)."""
        for recipe in ("big_md_giant_line", "big_md_list_items", "big_md_emphasised_links"):
            with self.subTest(recipe=recipe):
                script = self.path(recipe + ".md")
                with open(script, "wb") as f:
                    f.write(GEN.BIG[recipe]())
                proc = subprocess.Popen([BIN, script, "-o", self.path("x.mp3")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                _, status, usage = os.wait4(proc.pid, 0)
                err = proc.stderr.read().decode()
                proc.stderr.close()
                self.assertEqual(os.waitstatus_to_exitcode(status), 2, err)
                self.assertLess(usage.ru_maxrss, 64 * 1024, recipe)   # KiB
                self.assertFalse(os.path.exists(self.path("x.mp3")), recipe)


if __name__ == "__main__":
    main()
