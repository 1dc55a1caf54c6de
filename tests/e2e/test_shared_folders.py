# SPDX-License-Identifier: GPL-3.0-or-later
"""The program run as root in folders that others can write, as CI jobs run it: no file a
script names is read from outside its folder tree however the name or its links are made or
swapped, no output follows a link another user planted, no cache folder or entry of another
user is trusted, outputs never keep a wider mode than 0666 & ~umask, and two renders of the
same output never leave a mixed set.

"Another user" is uid 65534 (nobody), acting through a child that drops to it; where the
program cannot run as one (not root), the test is skipped with ALLOWED_SKIPS'
"unprivileged-user"."""
import fcntl
import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import time
import wave

from common import Case, env_skip, ffmpeg_samples, main, mutagen_tags, run, write

NOBODY = 65534


def tone_wav(path, seconds, rate=22050):
    """A 16-bit mono WAV of a 440 Hz square-ish tone: `seconds` long."""
    frames = int(seconds * rate)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join((3000 if (i // 25) % 2 else -3000).to_bytes(2, "little", signed=True)
                               for i in range(frames)))


def as_nobody(fn):
    """Runs fn() in a child with uid and gid 65534; True when it returned normally."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            fn()
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


class RootCase(Case):
    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        os.chmod(self.tmp, 0o755)

    def shared(self, *names):
        """A sticky world-writable folder (like /tmp) in the test's folder."""
        folder = self.path(*names)
        os.makedirs(folder, exist_ok=True)
        os.chmod(folder, 0o1777)
        return folder


# ---- what a script names: confined however its links are made -------------------------------

SECRET = "SECRET_TOKEN = hunter2 value\n"


def deep_links(show):
    """Two symlinks in `show` that lead 20 levels of 250-character folders deep (a path longer
    than PATH_MAX, so realpath fails on it), and the name that climbs from there out of the
    tree: 'L/M/' + '../' * 21."""
    names = ["%02d" % i + "d" * 248 for i in range(20)]
    fd = os.open(show, os.O_RDONLY | os.O_DIRECTORY)
    try:
        cur = os.dup(fd)
        for name in names:
            os.mkdir(name, dir_fd=cur)
            nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=cur)
            os.close(cur)
            cur = nxt
        os.close(cur)
        os.symlink("/".join(names[:10]), "L", dir_fd=fd)
        cur = os.open("/".join(names[:10]), os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.symlink("/".join(names[10:]), "M", dir_fd=cur)
        os.close(cur)
    finally:
        os.close(fd)
    return "L/M/" + "../" * 21


class DeepLinks(Case):
    """realpath's ENAMETOOLONG once counted as inside: a name through two long links that
    climbs out read the lexicon outside (quoting it) and played the sound outside."""

    def setUp(self):
        super().setUp()
        os.mkdir(self.path("show"))
        os.mkdir(self.path("other"))
        write(self.path("other", "secret.lexicon"), SECRET)
        tone_wav(self.path("other", "long.wav"), 3.0)
        self.climb = deep_links(self.path("show"))

    def test_lexicon_through_long_links_is_outside(self):
        write(self.path("show", "ep.txt"),
              f"---\ntitle: T\nlexicon: {self.climb}other/secret.lexicon\n---\nNCCL here.\n")
        for args in (["explain", "show/ep.txt"], ["show/ep.txt", "-o", "show/out.mp3", "-q"]):
            with self.subTest(args=args[0]):
                res = run(args, cwd=self.tmp)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn("show/ep.txt:3:10: lexicon ", res.stderr)
                self.assertIn("is outside the script's folder", res.stderr)
                self.assertNotIn("hunter2", res.stdout + res.stderr)
                self.assertFalse(os.path.exists(self.path("show", "out.mp3")))

    def test_sound_through_long_links_is_outside(self):
        write(self.path("show", "ep.txt"),
              f"---\ntitle: T\n---\nHi.\n\n[sound {self.climb}other/long.wav]\n")
        res = run(["show/ep.txt", "-o", "show/out.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("show/ep.txt:6:1: sound file ", res.stderr)
        self.assertIn("is outside the script's folder", res.stderr)
        self.assertFalse(os.path.exists(self.path("show", "out.mp3")))

    def test_intro_outro_music_through_long_links_are_outside(self):
        """Every other sound a script names goes through the same confined open: the intro, the
        outro and the music bed, each through the climbing name, is an error at its value and
        no audio of it is played (nothing is written)."""
        for key, col in (("intro", 8), ("outro", 8), ("music", 8)):
            with self.subTest(key=key):
                write(self.path("show", "ep.txt"),
                      f"---\ntitle: T\n{key}: {self.climb}other/long.wav\n---\nHi.\n")
                res = run(["show/ep.txt", "-o", "show/out.mp3", "-q"], cwd=self.tmp)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"show/ep.txt:3:{col}: ", res.stderr)
                self.assertIn("is outside the script's folder", res.stderr)
                self.assertFalse(os.path.exists(self.path("show", "out.mp3")))

    def test_long_links_that_stay_inside_are_followed(self):
        tone_wav(self.path("show", "short.wav"), 0.2)
        write(self.path("show", "ep.txt"),
              f"---\ntitle: T\n---\nHi.\n\n[sound {self.climb[:-3]}short.wav]\n")
        res = run(["show/ep.txt", "-o", "show/out.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)


SWAPPER = r"""
import os, sys
folder, name, inside, outside = sys.argv[1:5]
tmp = os.path.join(folder, ".swap")
link = os.path.join(folder, name)
while True:
    for target in (inside, outside):
        os.symlink(target, tmp)
        os.replace(tmp, link)
"""


# Opens raced by the swapper: the optimized build tries often, to meet the race's window; the
# sanitizer build (RE_SANITIZED) looks for memory errors, which the same open takes the same way
# through our code each time, and tries a fifth as often (each start under ASan costs about a
# second): explains of the swapped lexicon, renders of the swapped sound.
EXPLAINS, RENDERS = (20, 5) if os.environ.get("RE_SANITIZED") else (100, 25)


class SwappedLink(Case):
    """A symlink swapped between the check and the open was followed: the file that is opened
    must be the one that was judged. A second process swaps the link between a file inside and
    one outside as fast as it can while the program opens it, a bounded number of times: on a
    correct build the outside file is never read, whatever the timing."""

    def setUp(self):
        super().setUp()
        os.mkdir(self.path("show"))
        os.mkdir(self.path("other"))
        write(self.path("other", "secret.lexicon"), SECRET)
        write(self.path("show", "inside.lexicon"), "NCCL = nickel\n")
        tone_wav(self.path("other", "long.wav"), 3.0)
        tone_wav(self.path("show", "short.wav"), 0.1)

    def swapping(self, name, inside, outside):
        proc = subprocess.Popen([sys.executable, "-c", SWAPPER, self.path("show"), name, inside,
                                 outside])
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        while not os.path.lexists(self.path("show", name)):
            pass
        return proc

    def test_lexicon_swapped_to_outside_is_never_read(self):
        write(self.path("show", "ep.txt"), "---\ntitle: T\nlexicon: link.lexicon\n---\nNCCL here.\n")
        self.swapping("link.lexicon", "inside.lexicon", "../other/secret.lexicon")
        outcomes = set()
        for _ in range(EXPLAINS):
            res = run(["explain", "show/ep.txt"], cwd=self.tmp)
            self.assertNotIn("hunter2", res.stdout + res.stderr)
            self.assertNotIn("SECRET", res.stdout + res.stderr)
            outcomes.add(res.returncode)
        self.assertLessEqual(outcomes, {0, 2})

    def test_sound_swapped_to_outside_is_never_played(self):
        write(self.path("show", "ep.txt"), "---\ntitle: T\n---\nHi.\n\n[sound link.wav]\n")
        self.swapping("link.wav", "short.wav", "../other/long.wav")
        for i in range(RENDERS):
            out = self.path("show", "out%d.mp3" % i)
            res = run(["show/ep.txt", "-o", out, "-q"], cwd=self.tmp)
            if res.returncode == 0:
                # the speech of "Hi." and 0.1 s, never the 3 s tone
                self.assertLess(ffmpeg_samples(out), 2.5 * 22050, "the outside sound was played")
            else:
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn("is outside the script's folder", res.stderr)


class CoverArtLinks(Case):
    """The show's cover art (`image:` in show.txt) is opened beneath the episodes' folder like
    every other named file: a link out of it, plain or through the long links whose climb
    realpath cannot follow, is refused at the file's name; a link that stays inside is read."""

    SHOW = ("title: Links\ndescription: Cover art behind links.\nauthor: Crew\nimage: cover.png\n"
            "category: Technology\nexplicit: false\nowner_email: crew@example.net\n"
            "guid: 0d5b7a3e-7d3b-5a3f-9a2e-1f0c2b3d4e5f\n")

    def setUp(self):
        super().setUp()
        self.out = self.path("out")
        os.mkdir(self.out)
        os.mkdir(self.path("other"))
        os.mkdir(self.path("out", "art"))
        for folder in (self.path("other"), self.path("out", "art")):
            made = subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                                   "color=c=green:s=1400x1400", "-frames:v", "1", "-pix_fmt",
                                   "rgb24", os.path.join(folder, "cover.png")],
                                  capture_output=True, text=True)
            self.assertEqual(made.returncode, 0, made.stderr)
        write(self.path("ep.txt"), "---\ntitle: One\npublished: 2026-11-30\n---\nHi.\n")
        res = run([self.path("ep.txt"), "-o", self.path("out", "ep.mp3"), "-q"])
        self.assertEqual(res.returncode, 0, res.stderr)
        write(self.path("out", "show.txt"), self.SHOW)
        self.climb = deep_links(self.out)

    def feed(self, target):
        if os.path.lexists(self.path("out", "cover.png")):
            os.unlink(self.path("out", "cover.png"))
        os.symlink(target, self.path("out", "cover.png"))
        return run(["feed", self.out, "--base-url", "https://example.net/links/"])

    def test_cover_linked_outside_is_refused(self):
        for target in (self.path("other", "cover.png"), "../other/cover.png",
                       self.climb + "other/cover.png"):
            with self.subTest(target=target[:40]):
                res = self.feed(target)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(self.path("out", "cover.png") + ": cannot read the cover art: it "
                              f"leads out of the folder {self.out} (a symlink to elsewhere)",
                              res.stderr)
                self.assertFalse(os.path.exists(self.path("out", "feed.xml")))

    def test_cover_linked_inside_is_read(self):
        res = self.feed("art/cover.png")
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("out", "feed.xml"), encoding="utf-8") as f:
            self.assertIn('href="https://example.net/links/cover.png"', f.read())


# ---- outputs: another user's links are not followed; modes; one whole set --------------------

EPISODE = "---\ntitle: T\n---\nHello there.\n"


class ForeignOutputLinks(RootCase):
    """In a sticky world-writable output folder, a link another user plants at an output's
    name made root overwrite the file it points to (the program resolved the link itself and
    renamed onto the target, so protected_symlinks did not help)."""

    def setUp(self):
        super().setUp()
        self.out = self.shared("out")
        write(self.path("ep.txt"), EPISODE)
        self.victim = write(self.path("victim.txt"), "precious\n")

    def test_link_planted_by_another_user_is_not_followed(self):
        for name in ("ep.json", "ep.vtt", "ep.mp3"):
            with self.subTest(name=name):
                link = os.path.join(self.out, name)
                self.assertTrue(as_nobody(lambda: os.symlink(self.victim, link)))
                res = run(["ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"out/{name}: out/{name} is a symlink owned by another user "
                              f"(uid {NOBODY})", res.stderr)
                with open(self.victim, encoding="utf-8") as f:
                    self.assertEqual(f.read(), "precious\n")
                self.assertEqual(os.readlink(link), self.victim)
                self.assertEqual(os.stat(self.victim).st_uid, 0)
                os.unlink(link)

    def test_own_link_to_another_users_file_is_not_followed(self):
        theirs = os.path.join(self.out, "theirs.json")
        self.assertTrue(as_nobody(lambda: write(theirs, "their file\n")))
        os.symlink("theirs.json", os.path.join(self.out, "ep.json"))
        res = run(["ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("which belongs to another user", res.stderr)
        with open(theirs, encoding="utf-8") as f:
            self.assertEqual(f.read(), "their file\n")

    def test_own_link_to_own_file_is_followed(self):
        os.mkdir(self.path("real"))
        write(self.path("real", "ep.json"), "{}")
        os.symlink("../real/ep.json", os.path.join(self.out, "ep.json"))
        res = run(["ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(os.path.islink(os.path.join(self.out, "ep.json")))
        with open(self.path("real", "ep.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["title"], "T")


class ForeignLinksOnTheWay(RootCase):
    """A link another user plants on the way to a file, not only at an output's own name, was
    followed (fs.protected_symlinks, which refuses that in sticky folders, is off on many
    machines, this one included): the script read through a planted `ep.txt` (root's private
    file spoken, or quoted in errors), and `-o shared/sub/ep.mp3` or `batch -O shared/out`
    through a planted folder link wrote root's files where that user chose. Root's and one's
    own links are followed as before."""

    def setUp(self):
        super().setUp()
        self.shared_dir = self.shared("shared")
        os.mkdir(self.path("private"), 0o700)
        self.secret = write(self.path("private", "secret.txt"),
                            "---\ntitle: Secret\n---\nThe private line hunter2 [voice nosuch] here.\n")
        os.mkdir(self.path("scripts"))
        write(self.path("scripts", "ep.txt"), EPISODE)

    def plant(self, name, target):
        link = os.path.join(self.shared_dir, name)
        self.assertTrue(as_nobody(lambda: os.symlink(target, link)))
        return link

    def test_script_through_a_planted_link_is_not_read(self):
        for args in (["shared/ep.txt", "-o", "ep.mp3"], ["explain", "shared/ep.txt"],
                     ["batch", "-O", "out", "shared/ep.txt"]):
            with self.subTest(command=args[0]):
                if not os.path.lexists(os.path.join(self.shared_dir, "ep.txt")):
                    self.plant("ep.txt", self.secret)
                res = run(args, cwd=self.tmp)
                self.assertNotEqual(res.returncode, 0, res.stderr)
                self.assertIn("shared/ep.txt is a symlink owned by another user (uid "
                              f"{NOBODY}); refusing to follow it", res.stdout + res.stderr)
                self.assertNotIn("hunter2", res.stdout + res.stderr)
                self.assertNotIn("voice", res.stderr)   # not parsed: nothing of it is quoted
                self.assertFalse(os.path.exists(self.path("ep.mp3")))

    def test_folder_through_a_planted_link_is_not_written(self):
        self.plant("sub", self.path("private"))
        res = run(["scripts/ep.txt", "-o", "shared/sub/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("shared/sub is a symlink owned by another user (uid "
                      f"{NOBODY}); refusing to follow it", res.stderr)
        res = run(["batch", "-O", "shared/sub", "scripts", "-q"], cwd=self.tmp)
        self.assertNotEqual(res.returncode, 0, res.stderr)
        self.assertIn("shared/sub is a symlink owned by another user", res.stderr)
        self.assertEqual(os.listdir(self.path("private")), ["secret.txt"])

    def test_own_links_on_the_way_are_followed(self):
        os.mkdir(self.path("real"))
        os.symlink(self.path("real"), os.path.join(self.shared_dir, "mine"))
        os.symlink("../scripts/ep.txt", os.path.join(self.shared_dir, "ep.txt"))
        res = run(["shared/ep.txt", "-o", "shared/mine/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(sorted(os.listdir(self.path("real"))), ["ep.json", "ep.mp3", "ep.vtt"])


class ReplacedModes(Case):
    """An output that replaced a 0666/0777 file stayed world-writable (and executable)."""

    def test_replaced_outputs_are_never_wider_than_a_new_file(self):
        write(self.path("ep.txt"), EPISODE)
        names = ("ep.mp3", "ep.json", "ep.vtt")
        for wide in (0o777, 0o666):
            with self.subTest(mode=oct(wide)):
                for name in names:
                    write(self.path(name), "old")
                    os.chmod(self.path(name), wide)
                res = run(["ep.txt", "-o", "ep.mp3", "-q"], cwd=self.tmp,
                          preexec_fn=lambda: os.umask(0o022))
                self.assertEqual(res.returncode, 0, res.stderr)
                for name in names:
                    self.assertEqual(stat.S_IMODE(os.stat(self.path(name)).st_mode), 0o644, name)


def blocked_flock_waiter(pid, inode):
    """True when /proc/locks shows `pid` waiting for a FLOCK on the file with this inode."""
    with open("/proc/locks", encoding="ascii") as f:
        for line in f:
            fields = line.split()
            if "->" not in fields:
                continue
            rest = fields[fields.index("->") + 1:]
            if rest[0] == "FLOCK" and rest[3] == str(pid) and rest[4].split(":")[-1] == str(inode):
                return True
    return False


class OneWholeSet(Case):
    """Two renders to the same output both exited 0 and left one's MP3 with the other's
    sidecar: a render publishes its set holding its user's publishing lock of the output
    folder (an exclusive flock on a file of its own there, docs/robustness.md)."""

    def sidecar_matches(self, folder):
        return sidecar_matches(self, folder)

    def test_render_waits_for_its_users_lock(self):
        os.mkdir(self.path("out"))
        write(self.path("ep.txt"), EPISODE)
        lock = self.path("out", ".render-episode-%d.lock" % os.geteuid())
        held = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        # a shared lock: an exclusive one would make a render that took only a shared lock
        # (and so would publish beside another) wait too, and the test could not tell
        fcntl.flock(held, fcntl.LOCK_SH)
        proc = subprocess.Popen([os.environ["RE_BIN"], "ep.txt", "-o", "out/ep.mp3", "-q"],
                                cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")))
        inode = os.stat(lock).st_ino
        waiting = False
        while proc.poll() is None and not waiting:
            waiting = blocked_flock_waiter(proc.pid, inode)
            time.sleep(0.02)   # a poll's pace, not a deadline: the loop ends on an event
        published = [n for n in os.listdir(self.path("out")) if not n.startswith(".")]
        os.close(held)
        out, err = proc.communicate()
        self.assertTrue(waiting, f"the render did not wait for its lock: {published}")
        self.assertEqual(published, [], "files were published while the lock was held")
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(self.sidecar_matches(self.path("out")), {"ep.mp3", "ep.vtt"})
        self.assertEqual(sorted(os.listdir(self.path("out"))), ["ep.json", "ep.mp3", "ep.vtt"])

    def test_two_renders_of_one_output_leave_one_whole_set(self):
        write(self.path("a.txt"), "---\ntitle: A\n---\nThe first episode, rather long. " * 1
              + "It says more words than the other one does.\n")
        write(self.path("b.txt"), "---\ntitle: B\n---\nThe second.\n")
        os.mkdir(self.path("out"))
        for _ in range(6):
            procs = [subprocess.Popen([os.environ["RE_BIN"], script, "-o", "out/ep.mp3", "-q"],
                                      cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")))
                     for script in ("a.txt", "b.txt")]
            for proc in procs:
                _, err = proc.communicate()
                self.assertEqual(proc.returncode, 0, err)
            self.sidecar_matches(self.path("out"))


# ---- the segment cache: no foreign links, folders or entries ---------------------------------

def forge_silence(data):
    """A cache entry (docs/cache.md's layout) with every sample 0 and a valid checksum."""
    frames = int.from_bytes(data[16:24], "little")
    events = int.from_bytes(data[24:32], "little")
    head = data[:64 + 24 * events]
    body = head + bytes(2 * frames)
    return body + hashlib.sha256(body).digest()


def entries(folder):
    found = []
    for root, _, files in os.walk(folder):
        found += [os.path.join(root, f) for f in files if f.endswith(".seg")]
    return found


def peak(path):
    pcm = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-"],
                         capture_output=True, check=True).stdout
    return max(abs(int.from_bytes(pcm[i:i + 2], "little", signed=True))
               for i in range(0, len(pcm), 2))


class SharedCache(RootCase):
    def setUp(self):
        super().setUp()
        write(self.path("ep.txt"), EPISODE)

    def test_fan_out_links_planted_by_another_user_are_refused(self):
        """Symlinks planted as the fan-out folders made root write entries elsewhere, and
        cache --prune delete matching files there."""
        cache = self.shared("cache")
        victim = self.path("victim")
        os.mkdir(victim)
        precious = write(os.path.join(victim, "ab" * 32 + ".seg"), "precious")

        def plant():
            os.mkdir(os.path.join(cache, "v1"), 0o755)
            for i in range(256):
                os.symlink(victim, os.path.join(cache, "v1", "%02x" % i))
        self.assertTrue(as_nobody(plant))
        res = run(["ep.txt", "-o", "ep.mp3", "--cache", cache], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("is a symlink", res.stderr)
        self.assertEqual(os.listdir(victim), [os.path.basename(precious)])
        res = run(["cache", "--prune", "0", "--cache", cache], cwd=self.tmp)
        self.assertTrue(os.path.exists(precious), res.stdout + res.stderr)

    def test_entries_forged_by_another_user_are_not_used(self):
        """Entries forged by another local user, with valid checksums, became root's audio
        with exit 0 and no warning."""
        seed = self.path("seed")
        res = run(["ep.txt", "-o", "seed.mp3", "--cache", seed], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertGreater(peak(self.path("seed.mp3")), 1000)
        cache = self.shared("cache")
        forged = {}
        for entry in entries(seed):
            with open(entry, "rb") as f:
                forged[os.path.relpath(entry, seed)] = forge_silence(f.read())
        self.assertTrue(forged)

        def plant():
            for rel, data in forged.items():
                os.makedirs(os.path.join(cache, os.path.dirname(rel)), 0o755, exist_ok=True)
                with open(os.path.join(cache, rel), "wb") as f:
                    f.write(data)
        self.assertTrue(as_nobody(plant))
        res = run(["ep.txt", "-o", "ep.mp3", "--cache", cache], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertGreater(peak(self.path("ep.mp3")), 1000, "the forged silence was used")
        self.assertEqual(res.stderr.count(f"belongs to another user (uid {NOBODY})"), 1,
                         res.stderr)

    def test_world_writable_cache_folder_is_refused(self):
        cache = self.path("open")
        os.mkdir(cache)
        os.chmod(cache, 0o777)
        res = run(["ep.txt", "-o", "ep.mp3", "--cache", cache], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("can write to it and it is not sticky", res.stderr)
        self.assertEqual(entries(cache), [])


# ---- what another user plants in a shared output folder: no lock, set, show file or FIFO -----

def nobody_holding(test, setup):
    """Runs setup() in a child with uid and gid 65534 that then keeps what setup opened (a
    lock, a FIFO's other end) until the test ends; returns once setup has run."""
    ready_r, ready_w = os.pipe()
    hold_r, hold_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(ready_r)
            os.close(hold_w)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            kept = setup()   # noqa: F841 (held open until the test ends)
            os.write(ready_w, b"1")
            os.read(hold_r, 1)
        finally:
            os._exit(0)
    os.close(ready_w)
    os.close(hold_r)

    def release():
        os.close(hold_w)
        os.waitpid(pid, 0)
    test.addCleanup(release)
    started = os.read(ready_r, 1) == b"1"
    os.close(ready_r)
    test.assertTrue(started, "the other user's child did not get ready")


def sidecar_matches(test, folder, stem="ep"):
    """The names the sidecar lists, each checked against the file's bytes."""
    with open(os.path.join(folder, stem + ".json"), encoding="utf-8") as f:
        files = json.load(f)["files"]
    for entry in files:
        with open(os.path.join(folder, entry["name"]), "rb") as f:
            test.assertEqual(hashlib.sha256(f.read()).hexdigest(), entry["sha256"],
                             f"{entry['name']} is not the file the sidecar describes")
    return {e["name"] for e in files}


def make_png(path):
    made = subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                           "color=c=green:s=1400x1400", "-frames:v", "1", "-pix_fmt", "rgb24",
                           path], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    with open(path, "rb") as f:
        return f.read()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def plant_files(files):
    """fn for as_nobody: writes each (path, bytes) of files."""
    def plant():
        for path, data in files:
            with open(path, "wb") as f:
                f.write(data)
    return plant


LOCK = ".render-episode-%d.lock"   # the publishing lock of a user in a folder (docs/robustness.md)


class ForeignLocks(RootCase):
    """Publishing waited without limit for an exclusive flock on the output folder, which
    anyone who can open the folder can hold: any local user could hang every render into a
    shared folder (or any 0755 one). The lock is now a file of the running user's own, mode
    0600, that no other user can open, hold or put in its place."""

    def setUp(self):
        super().setUp()
        self.out = self.shared("out")
        os.mkdir(self.path("scripts"))
        write(self.path("scripts", "ep.txt"), EPISODE)

    def renders(self):
        for args in (["scripts/ep.txt", "-o", "out/ep.mp3"], ["batch", "-O", "out", "scripts"]):
            res = run(args, cwd=self.tmp, timeout=60)   # before: waited for ever
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(sidecar_matches(self, self.out), {"ep.mp3", "ep.vtt"})
            for name in ("ep.mp3", "ep.json", "ep.vtt"):
                os.unlink(os.path.join(self.out, name))
            yield res

    def test_another_users_lock_on_the_folder_holds_no_render(self):
        def hold():
            fd = os.open(self.out, os.O_RDONLY | os.O_DIRECTORY)
            fcntl.flock(fd, fcntl.LOCK_EX)
            return fd
        nobody_holding(self, hold)
        for _ in self.renders():
            pass

    def test_a_lock_file_another_user_planted_is_not_used(self):
        """Another user's file (held locked) or link at the lock's name is removed, never
        waited for, opened or followed; a warning names it."""
        lock = os.path.join(self.out, LOCK % 0)
        victim = write(self.path("victim.txt"), "precious\n")
        for planted in ("file", "link"):
            with self.subTest(planted=planted):
                if os.path.lexists(lock):
                    os.unlink(lock)

                def hold():
                    if planted == "link":
                        os.symlink(victim, lock)
                        return None
                    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    return fd
                nobody_holding(self, hold)
                first = next(self.renders())
                self.assertIn(f"out/{LOCK % 0}: warning: removed: another user (uid {NOBODY}) "
                              "put it at the name of the publishing lock", first.stderr)
                self.assertFalse(os.path.lexists(lock), os.listdir(self.out))
                with open(victim, encoding="utf-8") as f:
                    self.assertEqual(f.read(), "precious\n")

    def test_a_folder_another_user_planted_at_the_lock_is_moved_aside(self):
        """A folder with a file in it cannot be removed, even by root: planted at the lock's
        name it failed every render into the shared folder. It is moved aside, whole."""
        lock = os.path.join(self.out, LOCK % 0)

        def plant():
            os.mkdir(lock, 0o755)
            write(os.path.join(lock, "x"), "theirs\n")
        self.assertTrue(as_nobody(plant))
        first = next(self.renders())
        self.assertRegex(first.stderr, rf"out/{re.escape(LOCK % 0)}: warning: moved aside to "
                                       rf"{re.escape(LOCK % 0)}\.theirs\.[0-9a-f]{{8}}: another "
                                       rf"user \(uid {NOBODY}\) put it at the name")
        aside = [n for n in os.listdir(self.out) if n.startswith(LOCK % 0 + ".theirs.")]
        self.assertEqual(len(aside), 1, os.listdir(self.out))
        with open(os.path.join(self.out, aside[0], "x"), encoding="utf-8") as f:
            self.assertEqual(f.read(), "theirs\n")
        self.assertFalse(os.path.lexists(lock))

    def test_a_folder_the_user_cannot_read_is_still_locked(self):
        """A folder the program could not open for reading (write and search only: 0333) was
        published into without any lock, silently: the user's own lock is still taken there
        (a render of that user holding it is waited for)."""
        folder = self.path("wx")
        os.mkdir(folder)
        os.makedirs(self.path("home", "cache"))
        for path in (folder, self.path("home"), self.path("home", "cache")):
            os.chown(path, NOBODY, NOBODY)
        os.chmod(folder, 0o333)

        def hold():
            fd = os.open(os.path.join(folder, LOCK % NOBODY), os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(fd, fcntl.LOCK_SH)
            return fd
        nobody_holding(self, hold)

        def drop():
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        proc = subprocess.Popen([os.environ["RE_BIN"], "scripts/ep.txt", "-o", "wx/ep.mp3", "-q"],
                                cwd=self.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=drop,
                                env=dict(os.environ, HOME=self.path("home"),
                                         XDG_CACHE_HOME=self.path("home", "cache")))
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        inode = os.stat(os.path.join(folder, LOCK % NOBODY)).st_ino
        waiting = False
        while proc.poll() is None and not waiting:
            waiting = blocked_flock_waiter(proc.pid, inode)
            time.sleep(0.02)   # a poll's pace, not a deadline: the loop ends on an event
        published = [n for n in os.listdir(folder) if not n.startswith(".")]
        if not waiting:
            self.fail(f"the render did not take its lock in the folder: {proc.communicate()}")
        self.assertEqual(published, [], "files were published while the lock was held")


class ForeignSetIsNotUpToDate(RootCase):
    """Another user rendered the same script into the shared folder first, swapped in their
    own MP3 and patched the sidecar's hash: root's batch said "up-to-date" and kept their
    audio as its episode. A set whose files another user owns is never up to date: it is
    rendered again and replaced (root may replace them in a sticky folder, and then that user
    can no longer change them)."""

    def test_a_set_another_user_swapped_is_rendered_again(self):
        os.mkdir(self.path("scripts"))
        write(self.path("scripts", "ep.txt"), EPISODE)
        write(self.path("other.txt"), "---\ntitle: Theirs\n---\nSomething else entirely, "
                                      "said by somebody else.\n")
        res = run(["batch", "-O", "seed", "scripts", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        res = run(["other.txt", "-o", "theirs.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        theirs = read_bytes(self.path("theirs.mp3"))
        with open(self.path("seed", "ep.json"), encoding="utf-8") as f:
            sidecar = json.load(f)
        sidecar["bytes"] = len(theirs)
        for entry in sidecar["files"]:
            if entry["name"] == "ep.mp3":
                entry["sha256"] = hashlib.sha256(theirs).hexdigest()
                entry["bytes"] = len(theirs)
        out = self.shared("out")
        self.assertTrue(as_nobody(plant_files([
            (os.path.join(out, "ep.mp3"), theirs),
            (os.path.join(out, "ep.vtt"), read_bytes(self.path("seed", "ep.vtt"))),
            (os.path.join(out, "ep.json"), json.dumps(sidecar, indent=2).encode())])))
        res = run(["batch", "-O", "out", "scripts"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("1 episodes: 1 rendered, 0 up to date, 0 failed", res.stdout)
        self.assertIn(f"out/ep.json: warning: not up to date: it belongs to another user "
                      f"(uid {NOBODY})", res.stderr)
        self.assertNotEqual(read_bytes(os.path.join(out, "ep.mp3")), theirs)
        self.assertEqual(read_bytes(os.path.join(out, "ep.mp3")),
                         read_bytes(self.path("seed", "ep.mp3")))
        for name in ("ep.mp3", "ep.json", "ep.vtt"):
            self.assertEqual(os.stat(os.path.join(out, name)).st_uid, 0, name)
        sidecar_matches(self, out)
        res = run(["batch", "-O", "out", "scripts"], cwd=self.tmp)
        self.assertIn("1 episodes: 0 rendered, 1 up to date, 0 failed", res.stdout)


SHOW_FILE = ("title: Planted\ndescription: A show someone else describes.\nauthor: Them\n"
             "image: cover.png\ncategory: Technology\nexplicit: false\n"
             "owner_email: them@example.net\nguid: 0d5b7a3e-7d3b-5a3f-9a2e-1f0c2b3d4e5f\n")


class PlantedInTheOutputFolder(RootCase):
    """Files another user put in a shared output folder were trusted as root's: their
    show.txt and cover became root's MP3 cover, a broken one failed every render there, and
    `feed` published an episode they planted. A file there that belongs to another user
    (not the running user, not root) is ignored with a warning naming it and its owner, by
    render, batch and feed alike."""

    def setUp(self):
        super().setUp()
        self.out = self.shared("out")
        os.mkdir(self.path("scripts"))
        write(self.path("scripts", "ep.txt"), "---\ntitle: Ours\npublished: 2026-11-30\n---\n"
                                              "Our own words.\n")
        self.png = make_png(self.path("cover.png"))

    def renders(self):
        """A render, then a batch (each writes the set anew)."""
        for args in (["scripts/ep.txt", "-o", "out/ep.mp3", "-q"],
                     ["batch", "-O", "out", "scripts", "-q"]):
            for name in ("ep.mp3", "ep.json", "ep.vtt"):
                if os.path.exists(os.path.join(self.out, name)):
                    os.unlink(os.path.join(self.out, name))
            yield args[0], run(args, cwd=self.tmp, timeout=60)

    def assert_no_cover(self):
        with open(os.path.join(self.out, "ep.json"), encoding="utf-8") as f:
            self.assertNotIn("image", json.load(f))
        self.assertNotIn("APIC", mutagen_tags(os.path.join(self.out, "ep.mp3")))

    def test_planted_show_file_and_cover_are_ignored(self):
        self.assertTrue(as_nobody(plant_files([
            (os.path.join(self.out, "show.txt"), SHOW_FILE.encode()),
            (os.path.join(self.out, "cover.png"), self.png)])))
        for command, res in self.renders():
            with self.subTest(command=command):
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertIn(f"out/show.txt: warning: ignored: it belongs to another user (uid "
                              f"{NOBODY})", res.stderr)
                self.assert_no_cover()

    def test_own_show_file_with_a_planted_cover_has_no_cover(self):
        write(os.path.join(self.out, "show.txt"), SHOW_FILE)
        self.assertTrue(as_nobody(plant_files([(os.path.join(self.out, "cover.png"), self.png)])))
        for command, res in self.renders():
            with self.subTest(command=command):
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assertIn(f"out/cover.png: warning: ignored: it belongs to another user (uid "
                              f"{NOBODY})", res.stderr)
                self.assert_no_cover()
        # the user's own cover there is the episode's, as before
        os.unlink(os.path.join(self.out, "cover.png"))
        write(os.path.join(self.out, "cover.png"), self.png, "wb")
        res = run(["scripts/ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("APIC", mutagen_tags(os.path.join(self.out, "ep.mp3")))

    def test_a_broken_planted_show_file_fails_no_render(self):
        for planted in ("colour: red\n", "FIFO"):
            with self.subTest(planted=planted):
                show = os.path.join(self.out, "show.txt")
                if os.path.lexists(show):
                    os.unlink(show)
                self.assertTrue(as_nobody(
                    (lambda: os.mkfifo(show)) if planted == "FIFO"
                    else plant_files([(show, planted.encode())])))
                for command, res in self.renders():
                    self.assertEqual(res.returncode, 0, res.stderr)
                    self.assertIn(f"out/show.txt: warning: ignored: it belongs to another user "
                                  f"(uid {NOBODY})", res.stderr)
                    self.assert_no_cover()

    def test_feed_leaves_out_an_episode_another_user_planted(self):
        res = run(["scripts/ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        write(os.path.join(self.out, "show.txt"), SHOW_FILE)
        write(os.path.join(self.out, "cover.png"), self.png, "wb")
        write(self.path("evil.txt"), "---\ntitle: Planted episode\npublished: 2026-12-01\n---\n"
                                     "Words someone else chose.\n")
        os.mkdir(self.path("theirs"))
        res = run(["evil.txt", "-o", "theirs/evil.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertTrue(as_nobody(plant_files([
            (os.path.join(self.out, name), read_bytes(self.path("theirs", name)))
            for name in ("evil.mp3", "evil.json", "evil.vtt")])))
        res = run(["feed", "out", "--base-url", "https://example.net/show/"], cwd=self.tmp,
                  timeout=60)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(f"out/evil.json: warning: not in the feed: it belongs to another user "
                      f"(uid {NOBODY})", res.stderr)
        feed = read_bytes(os.path.join(self.out, "feed.xml")).decode()
        self.assertIn("Ours", feed)
        self.assertNotIn("Planted episode", feed)
        self.assertNotIn("evil", read_bytes(os.path.join(self.out, "index.html")).decode())
        # an episode of ours with a companion of theirs is left out too
        os.unlink(os.path.join(self.out, "ep.vtt"))
        self.assertTrue(as_nobody(plant_files([(os.path.join(self.out, "ep.vtt"),
                                                read_bytes(self.path("theirs", "evil.vtt")))])))
        res = run(["feed", "out", "--base-url", "https://example.net/show/"], cwd=self.tmp)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"out/ep.json: warning: not in the feed: ep.vtt belongs to another user "
                      f"(uid {NOBODY})", res.stderr)

    def test_feed_ignores_a_planted_show_file(self):
        """Without the show file (it is not ours) the channel has no title or description:
        an error, with the warning that says why; nothing of theirs is published."""
        res = run(["scripts/ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        show = os.path.join(self.out, "show.txt")
        for planted in ("file", "FIFO"):
            with self.subTest(planted=planted):
                if os.path.lexists(show):
                    os.unlink(show)
                self.assertTrue(as_nobody(
                    (lambda: os.mkfifo(show)) if planted == "FIFO"
                    else plant_files([(show, SHOW_FILE.encode())])))
                res = run(["feed", "out", "--base-url", "https://example.net/show/", "--draft"],
                          cwd=self.tmp, timeout=60)   # a FIFO, before: waited for ever
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"out/show.txt: warning: ignored: it belongs to another user (uid "
                              f"{NOBODY})", res.stderr)
                self.assertIn("the channel has no title", res.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.out, "feed.xml")))


class ForeignFifos(RootCase):
    """Another user's FIFO at --report or feed -o made root's batch or feed wait for a reader
    that user controls (for ever, or until they read root's report). The user's own FIFO is
    still written into as it is (a CI pipe); another user's is refused before any work."""

    def setUp(self):
        super().setUp()
        self.out = self.shared("out")
        os.mkdir(self.path("scripts"))
        write(self.path("scripts", "ep.txt"), EPISODE)

    def test_another_users_fifo_at_report_is_refused(self):
        for option in ("--report", "--junit"):
            with self.subTest(option=option):
                fifo = os.path.join(self.out, "r.xml")
                if os.path.lexists(fifo):
                    os.unlink(fifo)
                self.assertTrue(as_nobody(lambda: os.mkfifo(fifo, 0o666)))
                res = run(["batch", "-O", "out", "scripts", option, "out/r.xml"], cwd=self.tmp,
                          timeout=60)   # before: waited for ever
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"out/r.xml: {option}: out/r.xml is a FIFO of another user (uid "
                              f"{NOBODY}); refusing to write into it", res.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.out, "ep.mp3")))

    def test_another_users_fifo_at_feed_output_is_refused(self):
        res = run(["scripts/ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        write(os.path.join(self.out, "show.txt"), SHOW_FILE)
        make_png(os.path.join(self.out, "cover.png"))
        fifo = os.path.join(self.out, "feed.xml")
        self.assertTrue(as_nobody(lambda: os.mkfifo(fifo, 0o666)))
        res = run(["feed", "out", "--base-url", "https://example.net/show/", "--draft", "-o",
                   "out/feed.xml"], cwd=self.tmp, timeout=60)   # before: waited for ever
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(f"out/feed.xml: out/feed.xml is a FIFO of another user (uid {NOBODY}); "
                      "refusing to write into it", res.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "index.html")))

    def test_another_users_fifo_at_the_sidecar_holds_no_check(self):
        """check reads the sidecar beside the MP3 to judge its companion files: another
        user's FIFO at its name made root's check wait for a writer that user controls."""
        res = run(["scripts/ep.txt", "-o", "out/ep.mp3", "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        os.unlink(os.path.join(self.out, "ep.json"))
        self.assertTrue(as_nobody(lambda: os.mkfifo(os.path.join(self.out, "ep.json"), 0o666)))
        res = run(["check", "out/ep.mp3"], cwd=self.tmp, timeout=60)   # before: waited for ever
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertTrue(stat.S_ISFIFO(os.lstat(os.path.join(self.out, "ep.json")).st_mode))

    def test_own_fifo_is_written_into(self):
        fifo = os.path.join(self.out, "r.json")
        os.mkfifo(fifo)
        proc = subprocess.Popen([os.environ["RE_BIN"], "batch", "-O", "out", "scripts", "-q",
                                 "--report", "out/r.json"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=dict(os.environ, XDG_CACHE_HOME=self.path("cache")))
        with open(fifo, encoding="utf-8") as f:
            report = json.load(f)
        _, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(report["episodes"][0]["status"], "rendered")


SWAP_PAGE = "# Notes\n\nDuration: 0:09\n"


class FixThroughForeignLinks(RootCase):
    """check --fix read the page refusing other users' links, then resolved it again for the
    replacement with realpath(), which follows every link: a folder another user swapped for
    a link meanwhile made root replace a file elsewhere. The replacement is made in the
    folder reached by the same rules as the read."""

    def test_a_folder_swapped_for_a_link_after_the_read_is_not_followed(self):
        shared = self.shared("shared")
        pub = os.path.join(shared, "pub")
        self.assertTrue(as_nobody(lambda: os.mkdir(pub, 0o777)))
        os.makedirs(self.path("private", "pub"))
        victim = write(self.path("private", "pub", "notes.md"), SWAP_PAGE)
        write(self.path("ep.txt"), EPISODE)
        res = run(["ep.txt", "-o", os.path.join(pub, "ep.mp3"), "-q"], cwd=self.tmp)
        self.assertEqual(res.returncode, 0, res.stderr)
        write(os.path.join(pub, "notes.md"), SWAP_PAGE)
        # the sidecar's name is a FIFO of root's: check waits there for a writer after it has
        # read the page and before it fixes it, which is when the folder is swapped
        os.unlink(os.path.join(pub, "ep.json"))
        os.mkfifo(os.path.join(pub, "ep.json"))
        proc = subprocess.Popen([os.environ["RE_BIN"], "check", "shared/pub/ep.mp3",
                                 "shared/pub/notes.md", "--fix"], cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        with open(os.path.join(pub, "ep.json"), "w", encoding="utf-8") as fifo:
            def swap():
                os.rename(pub, pub + ".old")
                os.symlink(self.path("private", "pub"), pub)
            self.assertTrue(as_nobody(swap))
            fifo.write("{}")
        out, err = proc.communicate(timeout=120)
        with open(victim, encoding="utf-8") as f:
            self.assertEqual(f.read(), SWAP_PAGE, "the file behind the other user's link was "
                                                  "replaced")
        self.assertEqual(proc.returncode, 2, out + err)
        self.assertIn(f"shared/pub is a symlink owned by another user (uid {NOBODY})", out + err)


if __name__ == "__main__":
    main()
