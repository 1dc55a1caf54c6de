# SPDX-License-Identifier: GPL-3.0-or-later
"""Output faults and signals: a full disk, a write error at any byte, a read-only folder, a
failed final rename, SIGINT/SIGTERM/SIGHUP at every phase. Each ends in exit 2 (or 128+N) with
a message, no partial file, no leftover spool or process, and the previous output intact.

How the faults are made (CI runs as root; without root the mount-based tests are skipped and
the RLIMIT_FSIZE sweep still runs):
- a full disk: the output folder (or TMPDIR, for the spool) is a small tmpfs mounted for the
  test, swept through sizes so that the disk fills during each phase of the render;
- a write error at any byte: RLIMIT_FSIZE with SIGXFSZ ignored makes every write past the limit
  fail with EFBIG - in the spool, the MP3, the sidecar - swept through the render's sizes;
- a failed final rename: a file bind-mounted over the target (rename onto a mount point is
  EBUSY), for the audio and for the sidecar;
- a read-only folder: a tmpfs mounted read-only."""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from common import (ALLOWED_SKIPS, BIN, PIPE_WAITS, SRC, Case, env_skip, listing, main,
                    wait_until_stoppable)

HEAD = "---\ntitle: Faults\n---\n"
# About 40 s of audio: an MP3 of about 300 KiB, a spool of about 1.7 MiB.
SCRIPT = HEAD + "\n\n".join(
    f"Paragraph {i} of the fault test says a few words. [pause 1.5s] And a few more." for i in range(12)) + "\n"
OLD = {"ep.mp3": b"yesterday's episode", "ep.json": b'{"yesterday": true}'}


def can_mount():
    if os.geteuid() != 0:
        return False
    d = tempfile.mkdtemp(prefix="re-mount-probe-")
    try:
        ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", d],
                            capture_output=True).returncode == 0
        if ok:
            subprocess.run(["umount", d], check=True)
        return ok
    finally:
        os.rmdir(d)


MOUNT = can_mount()
needs_mount = unittest.skipUnless(MOUNT, ALLOWED_SKIPS["root-mount"])


def processes_mentioning(text):
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in ps.splitlines() if text in line and "ps -eo" not in line]


class Faults(Case):
    def setUp(self):
        super().setUp()
        self.mounts = []
        self.spool = self.path("spool")
        os.mkdir(self.spool)
        self.script = self.path("ep.txt")
        with open(self.script, "w", encoding="utf-8") as f:
            f.write(SCRIPT)

    def tearDown(self):
        for m in reversed(self.mounts):
            subprocess.run(["umount", "-l", m], capture_output=True)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def mount_tmpfs(self, path, size, *options):
        os.makedirs(path, exist_ok=True)
        opts = ",".join([f"size={size}"] + list(options))
        subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", path], check=True)
        self.mounts.append(path)

    def put_old_outputs(self, folder):
        for name, data in OLD.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)

    def render(self, out, env=None, preexec=None, timeout=120, args=()):
        env = dict(os.environ, TMPDIR=self.spool, XDG_CACHE_HOME=self.path("cache"), **(env or {}))
        res = subprocess.run([BIN, self.script, "-o", out, "-q", *args], capture_output=True,
                             env=env, preexec_fn=preexec, timeout=timeout)
        res.stdout = res.stdout.decode("utf-8", "replace")
        res.stderr = res.stderr.decode("utf-8", "replace")
        self.assert_clean_messages(res.stderr)
        return res

    def assert_clean_messages(self, err):
        """Every line is a whole diagnostic, FILE[:LINE[:COL]]: message, in clean UTF-8: no
        uninitialised buffer, no control character. (libpulse's "ftruncate() failed" under
        RLIMIT_FSIZE is the one line that is not ours: espeak-ng 1.51 initialises it.)"""
        for line in err.splitlines():
            if line == "ftruncate() failed: File too large":
                continue
            self.assertNotIn("\ufffd", line, f"not UTF-8: {line!r}")
            self.assertNotRegex(line, "[\x00-\x08\x0b-\x1f\x7f-\x9f]", f"control character: {line!r}")
            self.assertRegex(line, r"^(\S+(:\d+)*: \S.*|render-episode: .+)$", f"not a diagnostic: {line!r}")

    def assert_clean_failure(self, res, folder, reason):
        """Exit 2 with a message naming the file and the reason; the folder as it was.
        (Under RLIMIT_FSIZE, libpulse - which espeak-ng 1.51 initialises even for synchronous
        output - prints "ftruncate() failed" first: any line may be the diagnostic.)"""
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertRegex(res.stderr, reason)
        self.assertRegex(res.stderr, r"(?m)^/\S+: .*" + reason)
        self.assertEqual(res.stdout, "")
        self.assert_untouched(folder)

    def assert_untouched(self, folder):
        self.assertEqual(sorted(os.listdir(folder)), sorted(OLD), "debris left behind")
        for name, data in OLD.items():
            with open(os.path.join(folder, name), "rb") as f:
                self.assertEqual(f.read(), data, f"{name} was damaged")
        self.assertEqual(os.listdir(self.spool), [], "spool file left behind")
        self.assertEqual(processes_mentioning(self.script), [], "speech processes left behind")

    def assert_success(self, res, folder):
        self.assertEqual(res.returncode, 0, res.stderr)
        names = os.listdir(folder)
        self.assertEqual([n for n in names if n.startswith(".")], [], "temporary files left")
        with open(os.path.join(folder, "ep.json"), encoding="utf-8") as f:
            sidecar = json.load(f)
        self.assertEqual(os.path.getsize(os.path.join(folder, "ep.mp3")), sidecar["bytes"])

    def reference_sizes(self):
        """Bytes of each output of a good render, and of the whole folder."""
        ref = self.path("ref")
        os.mkdir(ref)
        res = self.render(os.path.join(ref, "ep.mp3"))
        self.assertEqual(res.returncode, 0, res.stderr)
        return {n: os.path.getsize(os.path.join(ref, n)) for n in os.listdir(ref)}

    # ---- a full disk ---------------------------------------------------------------------

    @needs_mount
    def test_full_disk_at_every_phase(self):
        """The output folder is a tmpfs just too small, at sizes that make the disk fill while
        the MP3 is encoded, while the sidecar is written, and at the very end."""
        sizes = self.reference_sizes()
        total = sum(sizes.values()) + sum(len(d) for d in OLD.values())
        pages = (total + 4095) // 4096 + len(sizes) + 2
        tried = sorted({3, 4, pages // 4, pages // 2, (3 * pages) // 4, pages - 4, pages - 3,
                        pages - 2, pages - 1, pages, pages + 8})
        outcomes = []
        for n in tried:
            with self.subTest(pages=n):
                folder = self.path(f"disk{n}")
                self.mount_tmpfs(folder, n * 4096)
                self.put_old_outputs(folder)
                res = self.render(os.path.join(folder, "ep.mp3"))
                outcomes.append(res.returncode)
                if res.returncode == 0:
                    self.assert_success(res, folder)
                else:
                    self.assert_clean_failure(res, folder, r"No space left on device")
        self.assertIn(2, outcomes)
        self.assertIn(0, outcomes)   # the sweep reached a size that fits

    @needs_mount
    def test_full_spool_disk(self):
        """TMPDIR (the audio spool) fills while paragraphs are being assembled."""
        folder = self.path("out")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        self.mount_tmpfs(self.spool, 64 * 1024)
        res = self.render(os.path.join(folder, "ep.mp3"))
        self.assert_clean_failure(res, folder, r"spool.*(No space left on device|error)")

    @needs_mount
    def test_read_only_folder(self):
        folder = self.path("ro")
        self.mount_tmpfs(folder, "1m")
        self.put_old_outputs(folder)
        subprocess.run(["mount", "-o", "remount,ro", folder], check=True)
        res = self.render(os.path.join(folder, "ep.mp3"))
        self.assert_clean_failure(res, folder, r"Read-only file system")

    # ---- a write error at any byte -------------------------------------------------------

    def test_write_error_at_any_byte(self):
        """RLIMIT_FSIZE: every write past the limit fails (EFBIG), in whichever file crosses
        it first: a speech process's memory file, or the spool at any point of the speaking
        phase (the spool is the biggest file, so an MP3 render always fails there first;
        MP3 and sidecar write errors are reached by the tmpfs sweep, the output file's own by
        the WAV test below)."""
        sizes = self.reference_sizes()
        biggest = 2 * 22050 * 45   # the spool is the biggest file: 16-bit samples
        limits = [0, 1, 100, 4096, 10000, 40000, sizes["ep.json"] - 1, sizes["ep.mp3"] // 2,
                  sizes["ep.mp3"] - 1, sizes["ep.mp3"], sizes["ep.mp3"] + 1, biggest // 2, biggest * 2]

        folder = self.path("fsize")
        os.mkdir(folder)
        outcomes = []
        for limit in sorted(set(limits)):
            with self.subTest(limit=limit):
                for name in os.listdir(folder):
                    os.unlink(os.path.join(folder, name))
                self.put_old_outputs(folder)

                def limit_writes(limit=limit):
                    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

                res = self.render(os.path.join(folder, "ep.mp3"), preexec=limit_writes)
                outcomes.append(res.returncode)
                if res.returncode == 0:
                    self.assert_success(res, folder)
                else:
                    self.assert_clean_failure(res, folder, r"File too large|could not store its audio")
        self.assertIn(2, outcomes)
        self.assertEqual(outcomes[-1], 0)

    def test_write_error_in_the_wav_file(self):
        """A WAV output is as big as the spool plus its header: limits between the two make
        the WAV file, not the spool, fail - at its first sample, in the middle, at the end."""
        ref = self.path("wavref")
        os.mkdir(ref)
        res = self.render(os.path.join(ref, "ep.wav"))
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(ref, "ep.json"), encoding="utf-8") as f:
            spool = 2 * json.load(f)["samples"]
        wav = os.path.getsize(os.path.join(ref, "ep.wav"))
        self.assertGreater(wav, spool)
        folder = self.path("wav")
        os.mkdir(folder)
        for limit in (spool, spool + 20, wav - 1, wav):
            with self.subTest(limit=limit):
                for name in os.listdir(folder):
                    os.unlink(os.path.join(folder, name))
                for name, data in (("ep.wav", b"yesterday's episode"), ("ep.json", OLD["ep.json"])):
                    with open(os.path.join(folder, name), "wb") as f:
                        f.write(data)

                def limit_writes(limit=limit):
                    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

                res = self.render(os.path.join(folder, "ep.wav"), preexec=limit_writes)
                if limit == wav:
                    self.assertEqual(res.returncode, 0, res.stderr)
                    self.assertEqual(os.path.getsize(os.path.join(folder, "ep.wav")), wav)
                else:
                    self.assertEqual(res.returncode, 2, res.stderr)
                    self.assertRegex(res.stderr, r"(?m)^/\S+ep\.wav: .*(File too large|WAV)")
                    self.assertEqual(sorted(os.listdir(folder)), ["ep.json", "ep.wav"])
                    with open(os.path.join(folder, "ep.wav"), "rb") as f:
                        self.assertEqual(f.read(), b"yesterday's episode")
                    self.assertEqual(os.listdir(self.spool), [])

    # ---- the final rename ----------------------------------------------------------------

    @needs_mount
    def test_final_rename_of_the_audio_fails(self):
        """A file bind-mounted over ep.mp3: everything is written, then rename() fails (EBUSY)."""
        folder = self.path("rename")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        subprocess.run(["mount", "--bind", os.path.join(folder, "ep.mp3"), os.path.join(folder, "ep.mp3")],
                       check=True)
        self.mounts.append(os.path.join(folder, "ep.mp3"))
        res = self.render(os.path.join(folder, "ep.mp3"))
        self.assert_clean_failure(res, folder, r"cannot rename onto .*ep\.mp3: Device or resource busy")

    @needs_mount
    def test_final_rename_of_the_sidecar_fails(self):
        """The sidecar's rename fails after the audio's succeeded: the render fails, so the
        previous ep.mp3 must still be there - a new MP3 beside yesterday's sidecar would be a
        damaged output (the sidecar's durations and bytes would be wrong)."""
        folder = self.path("rename2")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        subprocess.run(["mount", "--bind", os.path.join(folder, "ep.json"), os.path.join(folder, "ep.json")],
                       check=True)
        self.mounts.append(os.path.join(folder, "ep.json"))
        res = self.render(os.path.join(folder, "ep.mp3"))
        self.assert_clean_failure(res, folder, r"ep\.json: Device or resource busy")

    # ---- signals -------------------------------------------------------------------------

    def interrupt_at(self, script_text, sig, code, delay, phase, name="ep.txt"):
        self.script = self.path(name)
        with open(self.script, "w", encoding="utf-8") as f:
            f.write(script_text)
        folder = self.path("sig")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        env = dict(os.environ, TMPDIR=self.spool, XDG_CACHE_HOME=self.path("cache"))
        proc = subprocess.Popen([BIN, self.script, "-o", os.path.join(folder, "ep.mp3"), "-j", "2"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.assertTrue(wait_until_stoppable(proc), "the render ended before it could be interrupted")
        time.sleep(delay)
        self.assertIsNone(proc.poll(), f"the render ended before the {phase} phase could be interrupted")
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, code, err)
        self.assertIn("interrupted", err)
        time.sleep(0.2)
        self.assert_untouched(folder)

    def test_sigterm_while_encoding(self):
        """Speech is quick, 40 minutes of silence take seconds to encode: the signal arrives
        while LAME is running."""
        text = HEAD + "Start.\n\n" + "[pause 600s]\n" * 4 + "\nEnd.\n"
        self.interrupt_at(text, signal.SIGTERM, 143, 2.5, "encoding")

    def test_sigterm_while_parsing_markdown(self):
        """cmark-gfm cannot be interrupted: a signal is seen once it returns, so what it may
        be given is bounded instead (the limits: scripts/bench-markdown's slowest accepted
        document parses in well under a second). 64 blocks of *[a](b) as big as the limits
        let them be - the shape that took minutes at 1 MiB - then their speech: a SIGTERM in
        the parse or right after it ends the render with 143, nothing written."""
        block = "\n".join(("*[a](b)" * 11,) * 43) + "\n\n"
        self.interrupt_at("# Notes\n\n" + block * 64, signal.SIGTERM, 143, 0.2, "parsing",
                          name="ep.md")

    def test_sigterm_while_markdown_would_take_minutes(self):
        """The issue's document: 1 MiB of *[a](b) in one paragraph kept cmark-gfm busy for
        minutes, deaf to SIGTERM (timeout 60 needed SIGKILL). It is refused before cmark-gfm
        sees it now, so a SIGTERM finds the program gone (2) or ends it (143), either long
        before the generous wait below, and nothing is written."""
        folder = self.path("slow")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        self.script = self.path("slow.md")
        with open(self.script, "w", encoding="utf-8") as f:
            f.write("# Notes\n\n" + ("*[a](b)" * 11 + "\n") * 13600)
        proc = subprocess.Popen([BIN, self.script, "-o", os.path.join(folder, "ep.mp3")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, TMPDIR=self.spool,
                                         XDG_CACHE_HOME=self.path("cache")))
        try:
            # Its handlers first (a SIGTERM before them tests how fast it starts), then the
            # half second in which cmark-gfm would have been busy with the document.
            wait_until_stoppable(proc)
            time.sleep(0.5)
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertIn(proc.returncode, (2, 143), err)
        self.assert_untouched(folder)

    def test_sigterm_while_feed_reads_notes(self):
        """feed re-renders each sidecar's show notes with cmark-gfm and never looked at the
        stop flag: 40 episodes whose notes are as heavy as the limits allow kept it busy to
        the end. A SIGTERM now ends it between two episodes: 143, no feed, no index."""
        folder = self.path("feed")
        os.mkdir(folder)
        self.script = self.path("notes.md")
        with open(self.script, "w", encoding="utf-8") as f:
            f.write("# Notes\n\nShort.\n")
        res = self.render(os.path.join(folder, "ep.mp3"))
        self.assertEqual(res.returncode, 0, res.stderr)
        sidecar = json.load(open(os.path.join(folder, "ep.json"), encoding="utf-8"))
        sidecar.pop("files", None)
        notes = ("\n".join(("*[a](b)" * 11,) * 44) + "\n\n") * 64
        for n in range(40):
            shutil.copy(os.path.join(folder, "ep.mp3"), os.path.join(folder, f"ep{n:02d}.mp3"))
            with open(os.path.join(folder, f"ep{n:02d}.json"), "w", encoding="utf-8") as f:
                json.dump(dict(sidecar, notes=notes, guid=f"urn:faults:{n}"), f)
        os.unlink(os.path.join(folder, "ep.mp3"))
        os.unlink(os.path.join(folder, "ep.json"))
        before = sorted(os.listdir(folder))
        proc = subprocess.Popen([BIN, "feed", folder, "--base-url", "https://example.org/p/",
                                 "--draft"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        self.assertTrue(wait_until_stoppable(proc), "feed ended before it could be interrupted")
        time.sleep(1.0)
        self.assertIsNone(proc.poll(), "feed ended before it could be interrupted")
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 143, err)
        self.assertEqual(sorted(os.listdir(folder)), before)

    def test_sighup_while_speaking(self):
        text = HEAD + "\n\n".join(f"Paragraph {i} goes on for a while, saying a few things."
                                  for i in range(400)) + "\n"
        self.interrupt_at(text, signal.SIGHUP, 129, 1.0, "speaking")

    def test_sigint_while_waiting_for_the_script(self):
        """The script is a FIFO nobody writes to: open() blocks until Ctrl-C, which must end
        the program as interrupted (130), not as an unreadable input (2)."""
        fifo = self.path("fifo.txt")
        os.mkfifo(fifo)
        folder = self.path("fifo-out")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        proc = subprocess.Popen([BIN, fifo, "-o", os.path.join(folder, "ep.mp3")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertTrue(wait_until_stoppable(proc, PIPE_WAITS), "the program did not wait for the FIFO")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        self.assertEqual(proc.returncode, 130, err)
        self.assert_untouched(folder)

    def stop_while_reading(self, args, sig, code, writer=None, cwd=None):
        """Starts the program, which blocks reading a pipe or FIFO that a writer holds open (or
        that nobody opens), sends sig, and requires it to end with code long before the writer
        lets go (the writer holds for 60 s; the program gets 30), saying nothing but that it
        was interrupted."""
        proc = subprocess.Popen([BIN, *args], stdin=writer.stdout if writer else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                                env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")))
        try:
            self.assertTrue(wait_until_stoppable(proc, PIPE_WAITS), "the program did not wait for the input")
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if writer:
                writer.kill()
                writer.wait()
        self.assertEqual(proc.returncode, code, err)
        self.assertNotRegex(err, r"cannot open|could not be loaded|Interrupted system call", err)
        return err

    def test_signals_end_every_wait_for_a_pipe_or_fifo(self):
        """A script read from a pipe whose writer is silent, a script, lexicon or show file that
        is a FIFO nobody opens: SIGINT and SIGTERM end each wait at once (render, explain, feed)."""
        folder = self.path("waits")
        os.mkdir(folder)
        os.mkfifo(os.path.join(folder, "words.lexicon"))
        os.mkfifo(os.path.join(folder, "show.txt"))
        with open(os.path.join(folder, "ep.txt"), "w", encoding="utf-8") as f:
            f.write("---\ntitle: T\nlexicon: words.lexicon\n---\nHello.\n")
        out = os.path.join(folder, "out.mp3")
        silent = lambda: subprocess.Popen(["sleep", "60"], stdout=subprocess.PIPE)
        cases = [
            ("script on a silent pipe", ["/dev/stdin", "-o", out], signal.SIGINT, 130, silent),
            ("script on a silent pipe, SIGTERM", ["/dev/stdin", "-o", out], signal.SIGTERM, 143, silent),
            ("front-matter lexicon FIFO", ["ep.txt", "-o", out], signal.SIGINT, 130, None),
            ("explain, lexicon FIFO", ["explain", "ep.txt"], signal.SIGTERM, 143, None),
            ("--lexicon FIFO", ["explain", "--lexicon", "words.lexicon", "ep.txt"], signal.SIGINT, 130, None),
            ("feed, show-file FIFO", ["feed", folder, "--base-url", "https://example.org/",
                                      "--show", "show.txt", "-o", os.path.join(folder, "feed.xml")],
             signal.SIGINT, 130, None),
        ]
        for name, args, sig, code, writer in cases:
            with self.subTest(case=name):
                self.stop_while_reading(args, sig, code, writer() if writer else None, cwd=folder)
        self.assertEqual(sorted(os.listdir(folder)), ["ep.txt", "show.txt", "words.lexicon"])

    def test_fifo_in_the_cache_never_blocks(self):
        """Anyone who can write to a shared cache can put a FIFO where an entry goes: a render
        that needs that segment treats it as a bad entry (and removes it) instead of waiting
        forever, and renders the same bytes."""
        with open(self.script, "w", encoding="utf-8") as f:
            f.write(HEAD + "First paragraph.\n\nSecond paragraph.\n")
        cache = self.path("shared-cache")
        env = dict(os.environ, XDG_CACHE_HOME=self.path("cache-home"))
        first, second = self.path("first.mp3"), self.path("second.mp3")
        res = subprocess.run([BIN, self.script, "-o", first, "--cache", cache, "-q"], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stderr)
        entries = [os.path.join(root, n) for root, _, names in os.walk(cache) for n in names
                   if n.endswith(".seg")]
        self.assertGreater(len(entries), 0)
        for entry in entries:
            os.unlink(entry)
            os.mkfifo(entry)
        res = subprocess.run([BIN, self.script, "-o", second, "--cache", cache, "-q"], env=env,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(first, "rb") as a, open(second, "rb") as b:
            self.assertEqual(a.read(), b.read())
        for entry in entries:
            self.assertFalse(os.path.exists(entry) and not os.path.isfile(entry), entry)

    def test_special_files_and_symlinks_at_output_paths(self):
        """A report, a JUnit file or a feed pointed at a device, a FIFO or a symlink is written
        into it (the link followed); an episode's own files are never put in place of a device
        or a FIFO (refused, exit 2). Nothing a user named is ever replaced by a regular file.
        The devices are made with mknod in a temporary folder, never the machine's own /dev."""
        import stat as st
        import threading
        if os.geteuid() != 0:
            env_skip(self, "root-mknod")
        folder = self.path("special")
        os.mkdir(folder)
        null = os.path.join(folder, "null")
        os.mknod(null, 0o666 | st.S_IFCHR, os.makedev(1, 3))   # a copy of /dev/null
        fifo = os.path.join(folder, "junit.fifo")
        os.mkfifo(fifo)
        real = os.path.join(folder, "real.json")
        with open(real, "w") as f:
            f.write("old\n")
        link = os.path.join(folder, "report-link.json")
        os.symlink("real.json", link)
        scripts = os.path.join(folder, "in")
        os.mkdir(scripts)
        with open(os.path.join(scripts, "ep.txt"), "w") as f:
            f.write(HEAD + "Hello there.\n")
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
        reader.start()
        env = dict(os.environ, XDG_CACHE_HOME=self.path("cache"))
        res = subprocess.run([BIN, "batch", "-O", os.path.join(folder, "out"), scripts, "--report", null,
                              "--junit", fifo, "-q"], capture_output=True, text=True, env=env, timeout=120)
        reader.join(timeout=30)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(st.S_ISCHR(os.lstat(null).st_mode), "the device was replaced")
        self.assertTrue(st.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced")
        self.assertIn(b"<testsuites>", got[0])
        res = subprocess.run([BIN, "batch", "-O", os.path.join(folder, "out"), scripts, "--report", link, "-q"],
                             capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.islink(link), "the symlink was replaced")
        with open(real) as f:
            self.assertIn('"episodes"', f.read())
        # an episode's own files: refused in place of a device, followed through a link
        device_mp3, fifo_mp3 = os.path.join(folder, "dev.mp3"), os.path.join(folder, "pipe.mp3")
        os.mknod(device_mp3, 0o666 | st.S_IFCHR, os.makedev(1, 3))
        os.mkfifo(fifo_mp3)
        for target in (device_mp3, fifo_mp3):
            res = subprocess.run([BIN, os.path.join(scripts, "ep.txt"), "-o", target], capture_output=True,
                                 text=True, env=env, timeout=120)
            self.assertEqual(res.returncode, 2, res.stderr)
            self.assertIn("is not a regular file", res.stderr)
        self.assertTrue(st.S_ISCHR(os.lstat(device_mp3).st_mode))
        self.assertTrue(st.S_ISFIFO(os.lstat(fifo_mp3).st_mode))
        os.symlink("episode.mp3", os.path.join(folder, "ep-link.mp3"))
        res = subprocess.run([BIN, os.path.join(scripts, "ep.txt"), "-o", os.path.join(folder, "ep-link.mp3"),
                              "-q"], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(res.returncode, 2, res.stderr)   # dangling: leads nowhere
        self.assertIn("leads nowhere", res.stderr)
        with open(os.path.join(folder, "episode.mp3"), "wb") as f:
            f.write(b"yesterday")
        res = subprocess.run([BIN, os.path.join(scripts, "ep.txt"), "-o", os.path.join(folder, "ep-link.mp3"),
                              "-q"], capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.islink(os.path.join(folder, "ep-link.mp3")))
        with open(os.path.join(folder, "episode.mp3"), "rb") as f:
            self.assertNotEqual(f.read(), b"yesterday")

    def test_kill_at_each_step_of_publishing(self):
        """SIGKILL at each rename of publishing, before and after it (an LD_PRELOAD shim built
        here): what is left is the old set, the new set, or a mix that `check` reports; and
        the next run leaves exactly the new set, with no hidden .part or .old file."""
        shim = self.path("kill_at_rename.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-o", shim,
                        os.path.join(SRC, "tests", "e2e", "preload", "kill_at_rename.c"), "-ldl"],
                       check=True)
        old_text = HEAD + "# One\n\nYesterday's words.\n"
        new_text = HEAD + "# One\n\nToday's words, which are longer than yesterday's.\n"
        env = dict(os.environ, XDG_CACHE_HOME=self.path("cache"))
        extras = ["--srt", "--transcript-json", "--page", "-q", "--no-cache"]   # renames: publishing only

        def render(folder, text, **more):
            script = os.path.join(folder, "ep.txt")
            with open(script, "w", encoding="utf-8") as f:
                f.write(text)
            return subprocess.run([BIN, script, "-o", os.path.join(folder, "ep.mp3"), *extras],
                                  capture_output=True, text=True, env=dict(env, **more), timeout=120)

        def files(folder):
            out = {}
            for name in sorted(os.listdir(folder)):
                if name != "ep.txt":   # the script: what the run was asked to do
                    with open(os.path.join(folder, name), "rb") as f:
                        out[name] = f.read()
            return out

        sets = {}
        for label, text in (("old", old_text), ("new", new_text)):
            folder = self.path("ref-" + label)
            os.mkdir(folder)
            self.assertEqual(render(folder, text).returncode, 0)
            sets[label] = files(folder)
        published = len(sets["new"])   # each file is renamed into place
        for k in range(1, published + 1):
            for when in ("before", "after"):
                with self.subTest(rename=k, when=when):
                    folder = self.path(f"kill-{k}-{when}")
                    os.mkdir(folder)
                    self.assertEqual(render(folder, old_text).returncode, 0)
                    # (in the sanitizer build, ASan must let a library be preloaded before it)
                    asan = os.environ.get("ASAN_OPTIONS", "")
                    res = render(folder, new_text, LD_PRELOAD=shim, RE_KILL_AT_RENAME=str(k),
                                 RE_KILL_WHEN=when,
                                 ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")
                    self.assertEqual(res.returncode, -signal.SIGKILL, res.stderr)
                    at_rest = {n: b for n, b in files(folder).items() if not n.startswith(".")}
                    if at_rest not in (sets["old"], sets["new"]):
                        checked = subprocess.run([BIN, "check", os.path.join(folder, "ep.mp3"),
                                                  os.path.join(folder, "ep.html")], capture_output=True,
                                                 text=True, env=env)
                        self.assertNotEqual(checked.returncode, 0, "a mixed set that check calls fine")
                    res = render(folder, new_text)
                    self.assertEqual(res.returncode, 0, res.stderr)
                    self.assertEqual(files(folder), sets["new"])   # no debris, every byte new

    def test_sigkill_leaves_no_processes(self):
        """SIGKILL cannot be handled: a hidden .part file may stay, but no speech process
        outlives the program and the previous output is intact."""
        text = HEAD + "\n\n".join(f"Paragraph {i} goes on for a while, saying a few things."
                                  for i in range(400)) + "\n"
        with open(self.script, "w", encoding="utf-8") as f:
            f.write(text)
        folder = self.path("kill")
        os.mkdir(folder)
        self.put_old_outputs(folder)
        proc = subprocess.Popen([BIN, self.script, "-o", os.path.join(folder, "ep.mp3"), "-j", "4"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        proc.kill()
        proc.wait(timeout=10)
        deadline = time.monotonic() + 5
        while processes_mentioning(self.script) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(processes_mentioning(self.script), [])
        for name, data in OLD.items():
            with open(os.path.join(folder, name), "rb") as f:
                self.assertEqual(f.read(), data)
        leftovers = [n for n in os.listdir(folder) if n not in OLD]
        self.assertTrue(all(n.startswith(".ep.") and n.endswith(".part") for n in leftovers), leftovers)

    # ---- standard output -----------------------------------------------------------------

    def test_summary_line_to_a_full_stdout(self):
        """stdout is /dev/full: the outputs are complete and in place; the failure to print
        the summary line is reported, not silent."""
        folder = self.path("stdout")
        os.mkdir(folder)
        env = dict(os.environ, TMPDIR=self.spool, XDG_CACHE_HOME=self.path("cache"))
        with open("/dev/full", "w") as full:
            res = subprocess.run([BIN, self.script, "-o", os.path.join(folder, "ep.mp3")], stdout=full,
                                 stderr=subprocess.PIPE, text=True, env=env, timeout=120)
        self.assertNotEqual(res.returncode, 0)
        self.assertRegex(res.stderr, r"No space left on device")


if __name__ == "__main__":
    main()
