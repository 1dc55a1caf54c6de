# SPDX-License-Identifier: GPL-3.0-or-later
"""libcurl and flite are loaded on demand (pipeline/core/curl_lib.h, pipeline/synth/flite.c):
the program does not name them as needed (readelf), a plain espeak-ng render does not even
try to open them (strace), a natural voice loads flite once, in the parent before its speech
children fork, a remote cache loads libcurl, and a library that cannot be loaded is a clear
error naming the package to install, never a crash, a damaged output or a failed plain run."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BIN, main, run, write  # noqa: E402

LAZY = re.compile(r"lib(curl|flite)[^/\"]*\.so")
# one line of a strace -ff file: 'openat(AT_FDCWD, "PATH", FLAGS) = FD' (or "= -1 ENOENT ...")
OPEN = re.compile(r'^(?:openat|open)\((?:AT_FDCWD, )?"([^"]+)".*= (-?\d+)')
PARAGRAPH = ("The release fixes the segment cache and adds a natural voice for the weekly "
             "briefing, so that every listener hears the same words at the same time on every "
             "device they own, and the page says how long the episode is before they press play.")


def strace():
    found = shutil.which("strace")
    if not found:
        raise AssertionError("strace is missing: scripts/setup --test installs it")
    return found


class LazyLibraries(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="re-lazy-")
        self.voices = os.path.join(self.dir, "voices")
        os.makedirs(self.voices)
        write(os.path.join(self.voices, "natural.voice"),
              "engine = flite\nvoice = slt\nspeaker = SLT\n")
        self.plain = write(self.path("plain.txt"), f"---\ntitle: Plain\n---\n{PARAGRAPH}\n")
        self.natural = write(self.path("natural.txt"),
                             f"---\ntitle: Natural\nvoice: natural\n---\n{PARAGRAPH}\n\n"
                             "A second paragraph.\n\nAnd a third one.\n")
        self.caches = 0

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def fresh_cache(self):
        self.caches += 1
        return self.path(f"cache{self.caches}")

    def render(self, script, out, *args, env=None):
        return run([script, "-o", out, "-q", "--voices", self.voices, "--cache",
                    self.fresh_cache(), *args], env=env)

    def traced(self, script, out, *args):
        """Renders under strace -ff, one trace file per process (with one shared file, a call
        that overlaps another process's is split into "unfinished" and "resumed" lines and
        its open would go unseen); (result, the program's pid, [(pid, path, fd)] of every
        open of a libcurl or libflite file, the failed attempts included)."""
        prefix = self.path(f"trace{self.caches}")
        # LeakSanitizer cannot run under ptrace: the sanitizer build would end with exit 1
        env = dict(os.environ, XDG_CACHE_HOME=self.path("xdg"))
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        res = subprocess.run([strace(), "-ff", "-qq", "-e", "trace=openat,open,execve", "-o",
                              prefix, BIN, script, "-o", out, "-q", "--voices", self.voices,
                              "--cache", self.fresh_cache(), *args],
                             capture_output=True, text=True, timeout=600, env=env)
        opens, program = [], None
        for name in sorted(os.listdir(self.dir)):
            if not name.startswith(os.path.basename(prefix) + "."):
                continue
            pid = name.rsplit(".", 1)[1]
            with open(os.path.join(self.dir, name), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if line.startswith("execve("):
                        program = pid   # the one process that started the program
                    m = OPEN.match(line)
                    if m and LAZY.search(os.path.basename(m.group(1))):
                        opens.append((pid, m.group(1), int(m.group(2))))
        self.assertIsNotNone(program, "no trace of the program's start")
        return res, program, opens

    def broken_libraries(self, *names):
        """A folder for LD_LIBRARY_PATH where each name is an empty file: the dynamic linker
        finds it first and cannot load it ("file too short"), as if the package were broken."""
        folder = self.path("broken-libs")
        os.makedirs(folder, exist_ok=True)
        for name in names:
            write(os.path.join(folder, name), "")
        return {"LD_LIBRARY_PATH": folder}

    def test_the_program_does_not_need_them(self):
        dynamic = subprocess.run(["readelf", "-d", BIN], capture_output=True, text=True,
                                 check=True).stdout
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
        self.assertTrue(needed, dynamic)   # the parse found the list: espeak-ng, LAME ...
        self.assertEqual([n for n in needed if LAZY.search(n)], [], needed)

    def test_a_plain_render_opens_neither(self):
        res, _, opens = self.traced(self.plain, self.path("plain.mp3"))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.getsize(self.path("plain.mp3")) > 0)
        self.assertEqual(opens, [])

    def test_a_natural_voice_loads_flite_once_in_the_parent(self):
        res, parent, opens = self.traced(self.natural, self.path("natural.mp3"))
        self.assertEqual(res.returncode, 0, res.stderr)
        loaded = [(pid, os.path.basename(p)) for pid, p, fd in opens if fd >= 0]
        names = sorted(name for _, name in loaded)
        # libflite, its English front end and lexicon, the three voices: each once, all in the
        # parent (three paragraphs, three speech children: none loads them again)
        self.assertEqual(names, sorted(["libflite.so.1", "libflite_usenglish.so.1",
                                        "libflite_cmulex.so.1", "libflite_cmu_us_rms.so.1",
                                        "libflite_cmu_us_slt.so.1", "libflite_cmu_us_awb.so.1"]),
                         loaded)
        self.assertEqual({pid for pid, _ in loaded}, {parent}, loaded)
        self.assertFalse(any("libcurl" in p for _, p, _ in opens), opens)

    def test_a_remote_cache_loads_libcurl(self):
        # no server: the render warns and goes on without the remote cache, libcurl loaded
        res, _, opens = self.traced(self.plain, self.path("remote.mp3"), "--cache-url",
                                    "http://127.0.0.1:9/cache", "--cache-timeout", "5")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("libcurl.so.4", [os.path.basename(p) for _, p, fd in opens if fd >= 0])
        self.assertFalse(any("libflite" in p for _, p, _ in opens), opens)

    def test_libcurl_that_cannot_be_loaded(self):
        env = self.broken_libraries("libcurl.so.4")
        res = self.render(self.plain, self.path("plain.mp3"), env=env)
        self.assertEqual(res.returncode, 0, res.stderr)   # not needed, never touched
        out = write(self.path("kept.mp3"), b"yesterday's episode", "wb")
        res = self.render(self.plain, out, "--cache-url", "http://127.0.0.1:9/cache", env=env)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertRegex(res.stderr, r"--cache-url: cannot load libcurl \(install the package "
                                     r"libcurl4\): .*libcurl\.so\.4: file too short")
        with open(out, "rb") as f:
            self.assertEqual(f.read(), b"yesterday's episode")
        version = run(["--version"], env=env)
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertIn("libcurl: cannot load libcurl (install the package libcurl4)", version.stdout)

    def test_flite_that_cannot_be_loaded(self):
        for broken in ("libflite.so.1", "libflite_cmu_us_awb.so.1"):
            with self.subTest(broken=broken):
                env = self.broken_libraries(broken)
                res = self.render(self.plain, self.path("plain.mp3"), env=env)
                self.assertEqual(res.returncode, 0, res.stderr)
                out = write(self.path("kept.mp3"), b"yesterday's episode", "wb")
                res = self.render(self.natural, out, env=env)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertRegex(res.stderr, r"natural\.txt:\d+:\d+: .*cannot load flite.* \(install "
                                             r"the package libflite1\): .*" + re.escape(broken)
                                             + ": file too short")
                with open(out, "rb") as f:
                    self.assertEqual(f.read(), b"yesterday's episode")
                os.remove(os.path.join(self.path("broken-libs"), broken))


if __name__ == "__main__":
    main()
