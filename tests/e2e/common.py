# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared helpers of the end-to-end tests: run the built program, and ask independent tools
(ffmpeg/ffprobe, mpg123, mutagen, sox, python's wave module) what it wrote."""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

BIN = os.environ.get("RE_BIN", "")
SRC = os.environ.get("RE_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


# Every temporary file and folder of a test process (the tests' own mkdtemp calls included)
# goes into one folder removed when the process ends, unless RE_KEEP_TMP is set: left behind,
# a day of test runs filled the disk (80 GB of /tmp/re-*, mostly segment caches).
_ROOT = tempfile.mkdtemp(prefix="re-test-")
os.chmod(_ROOT, 0o755)   # tests that run the program as another user reach their folders
if not os.environ.get("RE_KEEP_TMP"):
    atexit.register(shutil.rmtree, _ROOT, ignore_errors=True)
tempfile.tempdir = _ROOT

# Each test process gets its own segment cache, so tests never share or pollute ~/.cache.
CACHE_HOME = tempfile.mkdtemp(prefix="re-cache-home-")


# Tests that render many voices at once (one render per core) on a machine that may be busy
# with other work: no render there is judged by its time. Each render gets a --segment-timeout
# and a guard against a hang of 15 minutes: over 100 times what one of those renders takes
# beside eight other builds and test runs on 2 cores (e2e.test_voices: 204 voices, two at a
# time, in 571 s), and short enough that one hung speech process (a sanitizer build's child
# once hung in its allocator's lock) costs CI a quarter of an hour, not the hour the whole
# test may take.
BUSY_RENDER = ["--segment-timeout", "900"]
BUSY_TIMEOUT = 900


def run(args, env=None, timeout=300, **kw):
    """Runs render-episode with args; returns CompletedProcess with text output."""
    full_env = dict(os.environ, XDG_CACHE_HOME=CACHE_HOME)
    full_env.update(env or {})
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=timeout,
                          env=full_env, **kw)


def write(path, text, mode="w"):
    with open(path, mode, encoding=None if "b" in mode else "utf-8", newline="" if "b" not in mode else None) as f:
        f.write(text)
    return path


def runs_of_zeros(data, min_len):
    """(start, length) of every run of exact zero samples at least min_len long."""
    runs, start = [], None
    for i, x in enumerate(data):
        if x == 0:
            if start is None:
                start = i
        elif start is not None:
            if i - start >= min_len:
                runs.append((start, i - start))
            start = None
    if start is not None and len(data) - start >= min_len:
        runs.append((start, len(data) - start))
    return runs


def ffmpeg_samples(path):
    """Samples per channel decoded by ffmpeg (honours the LAME tag's delay and padding)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-"],
                         capture_output=True, check=True).stdout
    return len(out) // 2


def ffmpeg_pcm(path):
    return subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-"],
                          capture_output=True, check=True).stdout


def mpg123_samples(path):
    out = subprocess.run(["mpg123", "-q", "--gapless", "-s", path], capture_output=True, check=True).stdout
    return len(out) // 2


def ebur128(path):
    """ffmpeg's EBU R128 reading of a file as a listener gets it (dual mono, as the product
    measures): (integrated LUFS, true peak dBFS)."""
    out = subprocess.run(["ffmpeg", "-nostats", "-hide_banner", "-i", path, "-af",
                          "ebur128=peak=true:dualmono=true", "-f", "null", "-"],
                         capture_output=True, text=True, check=True).stderr
    summary = out[out.rindex("Summary:"):]
    integrated = float(re.search(r"I:\s+(-?[\d.]+) LUFS", summary).group(1))
    peak = float(re.search(r"True peak:\s+Peak:\s+(-?[\d.]+|-inf) dBFS", summary).group(1))
    return integrated, peak


def ffprobe(path, *what):
    out = subprocess.run(["ffprobe", "-v", "error", *what, "-of", "json", path],
                         capture_output=True, check=True, text=True).stdout
    return json.loads(out)


def mutagen_tags(path):
    """The ID3 frames as mutagen reads them: {frame id: text or value}."""
    code = r'''
import json, sys
from mutagen.id3 import ID3
t = ID3(sys.argv[1])
out = {"version": list(t.version)}
for key, frame in t.items():
    fid = frame.FrameID
    if fid == "CHAP":
        out.setdefault("CHAP", []).append({"id": frame.element_id, "start": frame.start_time,
            "end": frame.end_time, "title": str(frame.sub_frames.get("TIT2", ""))})
    elif fid == "CTOC":
        out.setdefault("CTOC", []).append({"id": frame.element_id, "flags": int(frame.flags),
            "children": list(frame.child_element_ids)})
    elif fid == "COMM":
        out["COMM"] = str(frame.text[0])
    elif fid == "APIC":
        import hashlib
        out.setdefault("APIC", []).append({"type": int(frame.type), "mime": frame.mime,
            "desc": frame.desc, "bytes": len(frame.data),
            "sha256": hashlib.sha256(frame.data).hexdigest()})
    elif hasattr(frame, "text"):
        out[fid] = str(frame.text[0])
        out[fid + ".encoding"] = int(frame.encoding)
print(json.dumps(out))
'''
    res = subprocess.run(["/usr/bin/python3", "-c", code, path], capture_output=True, text=True, check=True)
    return json.loads(res.stdout)


def listing(folder):
    return sorted(os.listdir(folder))


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="re-e2e-")

    def path(self, *names):
        return os.path.join(self.tmp, *names)


# The only skips a run may have: a test that needs what some machines lack by design. Each
# is asked for with env_skip(test, KEY); any other skip (a "not yet" guard, a missing judge,
# a missing reference file) fails the run. Counted skips are appended to $RE_SKIP_LOG, which
# scripts/test prints in its summary.
ALLOWED_SKIPS = {
    "root-mount": "needs root and mount -t tmpfs (CI has both)",
    "unprivileged-user": "cannot run the program as an unprivileged user from this folder",
    "root-mknod": "needs root to make a device node (mknod) in a temporary folder",
    "chromium": "needs chromium and chromedriver (Debian packages chromium, chromium-driver; "
                "scripts/setup --test installs them)",
}


def wait_until_stoppable(proc, waiting_in=None, limit=120):
    """Waits until proc has installed its handlers for SIGHUP, SIGINT and SIGTERM (its
    /proc/PID/status SigCgt) and, with waiting_in, until its main thread sleeps in one of
    those kernel functions (/proc/PID/wchan: 'wait_for_partner' is open() of a FIFO nobody
    opens, 'anon_pipe_read' or 'pipe_read' a read of a silent pipe). A signal sent earlier
    would test how fast the program starts, not how it stops: on a loaded machine, or under
    ASan, a sleep of half a second was not always enough. `limit` bounds a program that never
    gets there (the test then fails on its own assertion); it is not a deadline the test
    measures."""
    import time
    wanted = (1 << 0) | (1 << 1) | (1 << 14)   # bits of signals 1, 2 and 15
    deadline = time.monotonic() + limit
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            with open(f"/proc/{proc.pid}/status", encoding="ascii") as f:
                caught = next(int(line.split()[1], 16) for line in f if line.startswith("SigCgt:"))
            with open(f"/proc/{proc.pid}/wchan", encoding="ascii") as f:
                where = f.read().strip()
        except (OSError, StopIteration):   # it ended while read
            break
        if caught & wanted == wanted and (waiting_in is None or where in waiting_in):
            return True
        time.sleep(0.01)
    return False


PIPE_WAITS = ("wait_for_partner", "anon_pipe_read", "pipe_read", "pipe_wait")


def env_skip(test, key):
    test.skipTest(ALLOWED_SKIPS[key])


def judge(result, name):
    """Prints the 'N passed, N failed, N skipped' line for a unittest result, counting an
    unlisted skip as a failure; returns the exit status."""
    failed = len(result.failures) + len(result.errors)
    listed = set(ALLOWED_SKIPS.values())
    unlisted = [(t, why) for t, why in result.skipped if why not in listed]
    for test, why in unlisted:
        print(f"UNLISTED SKIP (fails the run): {test.id()}: {why}", file=sys.stderr)
    log = os.environ.get("RE_SKIP_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            for test, why in result.skipped:
                f.write(f"{name}\t{test.id()}\t{why}\n")
    failed += len(unlisted)
    skipped = len(result.skipped) - len(unlisted)
    print(f"{result.testsRun - failed - skipped} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


def main():
    """Runs the module's tests and ends with the plain 'N passed, N failed' line."""
    if not BIN or not os.access(BIN, os.X_OK):
        print("RE_BIN must name the built render-episode program", file=sys.stderr)
        sys.exit(2)
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules["__main__"])
    # scripts/mutate needs only the first failure of a test to call a mutation caught.
    failfast = os.environ.get("RE_FAILFAST") == "1"
    result = unittest.TextTestRunner(verbosity=2, failfast=failfast).run(suite)
    sys.exit(judge(result, os.path.basename(sys.argv[0])))


class NginxDav:
    """A real nginx (Debian's nginx-light, WebDAV PUT) on 127.0.0.1 and a free port, run as the
    test's user with every path (config, pid, logs, temporary bodies, the stored objects) in
    `folder`. Locations: /cache/ stores what is PUT and serves it back; /broken/ answers 500
    to everything; /readonly/ serves GET but refuses PUT (403); /private/ is /cache/ behind
    basic auth (user "fleet", password "s3cret-pw")."""

    USER, PASSWORD = "fleet", "s3cret-pw"

    def __init__(self, folder):
        import socket
        self.folder = folder
        self.root = os.path.join(folder, "www")
        for sub in ("www/cache", "www/readonly", "www/private", "body", "logs"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        with open(os.path.join(folder, "htpasswd"), "w", encoding="utf-8") as f:
            f.write(f"{self.USER}:{{PLAIN}}{self.PASSWORD}\n")
        user = "user root root;\n" if os.geteuid() == 0 else ""
        temp = "".join(f"  {kind}_temp_path {folder}/body;\n"
                       for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        dav = "dav_methods PUT; create_full_put_path on; dav_access user:rw group:r all:r;"
        config = (f"{user}worker_processes 1;\npid {folder}/nginx.pid;\n"
                  f"error_log {folder}/logs/error.log warn;\n"
                  "events { worker_connections 256; }\n"
                  "http {\n"
                  f"  access_log {folder}/logs/access.log;\n{temp}"
                  "  default_type application/octet-stream;\n  client_max_body_size 1g;\n"
                  f"  server {{\n    listen 127.0.0.1:{self.port};\n    root {self.root};\n"
                  f"    location /cache/ {{ {dav} }}\n"
                  "    location /broken/ { return 500; }\n"
                  "    location /readonly/ { limit_except GET HEAD { deny all; } }\n"
                  f"    location /private/ {{ {dav} auth_basic cache; "
                  f"auth_basic_user_file {folder}/htpasswd; }}\n"
                  "  }\n}\n")
        self.config = os.path.join(folder, "nginx.conf")
        with open(self.config, "w", encoding="utf-8") as f:
            f.write(config)
        self.process = None

    def url(self, location="cache"):
        return f"http://127.0.0.1:{self.port}/{location}"

    def start(self):
        import socket
        import time
        import shutil
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"   # /usr/sbin: not on every user's PATH
        self.process = subprocess.Popen(
            [nginx, "-p", self.folder, "-c", self.config, "-e", f"{self.folder}/logs/error.log",
             "-g", "daemon off; master_process on;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        for _ in range(500):
            if self.process.poll() is not None:
                raise RuntimeError("nginx did not start: " + self.process.stderr.read().decode())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("nginx did not listen")

    def signal(self, sig):
        """Sends sig to nginx's own process group (its master and worker)."""
        os.killpg(self.process.pid, sig)

    def stop(self):
        import signal
        if self.process:
            for sig in (signal.SIGCONT, signal.SIGKILL):
                try:
                    self.signal(sig)
                except ProcessLookupError:   # already gone (a test killed it)
                    pass
            self.process.wait(timeout=30)
        self.process = None

    def requests(self, method):
        """How many requests of this method the access log holds."""
        try:
            with open(os.path.join(self.folder, "logs", "access.log"), encoding="utf-8") as f:
                return sum(1 for line in f if f'"{method} ' in line)
        except FileNotFoundError:
            return 0

    def objects(self, location="cache"):
        """Relative paths of the stored objects under a location."""
        base = os.path.join(self.root, location)
        found = []
        for folder, _, files in os.walk(base):
            found += [os.path.relpath(os.path.join(folder, f), base) for f in files]
        return sorted(found)


_PICTOGRAPHS = ((0x231A, 0x231B), (0x2328, 0x2328), (0x23CF, 0x23CF), (0x23E9, 0x23F3),
                (0x23F8, 0x23FA), (0x2600, 0x2775), (0x2794, 0x27BF), (0x2934, 0x2935),
                (0x2B05, 0x2B07), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50), (0x2B55, 0x2B55),
                (0x3030, 0x3030), (0x303D, 0x303D), (0x3297, 0x3297), (0x3299, 0x3299),
                (0x1F000, 0x1FAFF))
_EMOJI_PARTS = {0xFE0E, 0xFE0F, 0x20E3, 0x200D}


def heard(text):
    """What a transcript file shows of a script's text (docs/pronunciation.md, emoji): every
    emoji (a pictograph, or a character before U+FE0F, with its selectors, skin tones and
    ZWJ-joined pictographs) left out, with the blank after it when one is before it."""
    def pictograph(c):
        return any(a <= ord(c) <= b for a, b in _PICTOGRAPHS)
    out, i = [], 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else ""
        if not (pictograph(c) or nxt == "\ufe0f" or (nxt == "\u20e3" and ord(c) < 0x80)):
            out.append(c)
            i += 1
            continue
        i += 1
        while i < len(text) and (ord(text[i]) in _EMOJI_PARTS or 0x1F3FB <= ord(text[i]) <= 0x1F3FF
                                 or 0xE0020 <= ord(text[i]) <= 0xE007F):
            if text[i] == "\u200d" and not (i + 1 < len(text) and pictograph(text[i + 1])):
                break
            i += 2 if text[i] == "\u200d" else 1
        after = text[i] if i < len(text) else ""
        if (not out or out[-1] == " ") and after == " ":
            i += 1
    return "".join(out).rstrip(" ")


def explained(stdout):
    """[(place, spoken text, phonemes, [(depth, word, decision)])] from explain's output: a
    place line, the phonemes indented by 4, then one "- WORD: decision" line per word a rule
    took, a part of a word indented 2 more under it."""
    lines = stdout.split("\n")
    assert lines[-1] == "", "output ends with a newline"
    out = []
    i = 0
    while i < len(lines) - 1:
        m = re.match(r"^(.+?:\d+:\d+): (.*)$", lines[i])
        assert m, lines[i]
        # (no phonemes only when nothing is spoken: a paragraph of emoji)
        assert lines[i + 1].startswith("    ") and (lines[i + 1].strip() or not m.group(2)), lines[i + 1]
        assert not lines[i + 1].startswith("    - "), lines[i + 1]
        decisions = []
        i += 2
        while i < len(lines) - 1 and lines[i].startswith("    "):
            d = re.match(r"^    ((?:  )*)- (.+?): ([a-zA-Z].*)$", lines[i])
            assert d, lines[i]
            decisions.append((len(d.group(1)) // 2, d.group(2), d.group(3)))
            i += 1
        out.append((m.group(1), m.group(2), lines[i - len(decisions) - 1][4:], decisions))
    return out
