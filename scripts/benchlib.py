#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/benchlib.py - what the bench programs (scripts/bench, bench-batch, bench-fleet,
bench-long, bench-music) share: the build they measure, the clock, the machine's name, the
scripts they render, interleaved runs and their medians and ratios, and the floor.

The floor is the work no render can skip, each part alone through our own code
(tests/bench/bench_floor.c): synthesis (every paragraph through the speech path a render uses,
N children at once, no cache, the audio dropped) and encoding (the render's encoder, worker
count and MP3 settings on PCM of the episode's length). Its CPU is the sum of the two; its
wall is the sum too, since a normalized render cannot encode before the last paragraph is
spoken. A batch's floor is the sum of its episodes' floor CPU over the cores.

Not a test: nothing here asserts a time. `scripts/benchlib.py --self-check BENCH_FLOOR` checks
the pure functions below, that every bench program starts (--help), and that the floor tool
speaks and encodes what it is given (ctest source.bench); none of it depends on timing.
"""
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import namedtuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build-bench")
VOICE = ["-v", "en-us", "-s", "170"]      # the default host profile, for espeak-ng rows
GPL3 = "/usr/share/common-licenses/GPL-3"
BENCH_PROGRAMS = ("bench", "bench-batch", "bench-fleet", "bench-long", "bench-music")

# wall and cpu in seconds (cpu: user + system of the process and every descendant it
# waited for), rss: the largest resident set among them in KiB
Timing = namedtuple("Timing", "wall cpu rss")


# -- the build -------------------------------------------------------------------------------

def build(binary=None):
    """(render-episode, bench-floor) of this checkout, built Release in build-bench/; binary,
    when given, is measured instead of build-bench's render-episode (the floor tool is always
    this checkout's)."""
    quiet = {"stdout": subprocess.DEVNULL}
    subprocess.run(["cmake", "-S", ROOT, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release",
                    "-DBUILD_TESTING=ON"], check=True, **quiet)
    subprocess.run(["cmake", "--build", BUILD, "-j", str(os.cpu_count() or 2), "--target",
                    "render-episode", "bench-floor"], check=True, **quiet)
    program = binary or os.path.join(BUILD, "render-episode")
    if not os.access(program, os.X_OK):
        sys.exit(f"bench: no program at {program}")
    return program, os.path.join(BUILD, "bench-floor")


def need(*tools):
    for tool in tools:
        if not shutil.which(tool):
            sys.exit(f"bench: needs {tool} (scripts/setup --test installs it)")


# -- the clock -------------------------------------------------------------------------------

def timed(cmd, stdout=subprocess.DEVNULL, cwd=None, stderr_to=None):
    """Runs cmd (a list; a string goes through sh -c) to its end; its Timing from wait4().
    Its stderr is appended to the list stderr_to when given. A command that fails stops the
    bench with its stderr."""
    if isinstance(cmd, str):
        cmd = ["sh", "-c", cmd]
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=err, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode(errors="replace")
        if proc.returncode != 0:
            sys.exit(f"bench: {' '.join(cmd)} failed ({proc.returncode}):\n{text}")
        if stderr_to is not None:
            stderr_to.append(text)
    return Timing(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)


def interleaved(rows, runs, progress=None):
    """rows: [(label, cmd or callable returning one)]. Run 1 of every row, then run 2, ...,
    so that a shared machine's load falls on all rows alike. {label: [Timing per run]}."""
    results = {label: [] for label, _ in rows}
    for k in range(runs):
        if progress:
            print(f"{progress}: run {k + 1} of {runs} ...", file=sys.stderr)
        for label, cmd in rows:
            results[label].append(timed(cmd() if callable(cmd) else cmd))
    return results


def summed(*runs):
    """Run k of each row added up: [Timing] (rss: the largest). The floor is its parts so:

    >>> summed([Timing(1, 2, 3)], [Timing(4, 5, 6)])
    [Timing(wall=5, cpu=7, rss=6)]
    """
    return [Timing(sum(t.wall for t in ts), sum(t.cpu for t in ts), max(t.rss for t in ts))
            for ts in zip(*runs)]


def median_of(timings, field):
    """
    >>> median_of([Timing(3, 1, 0), Timing(1, 2, 0), Timing(2, 9, 0)], "wall")
    2
    """
    return statistics.median(getattr(t, field) for t in timings)


def paired(rows, base, field):
    """The median of run k's ratio to the base's run k (the same moment's load, mostly).

    >>> paired([Timing(2, 4, 0), Timing(9, 6, 0), Timing(3, 3, 0)],
    ...        [Timing(1, 2, 0), Timing(3, 2, 0), Timing(3, 3, 0)], "wall")
    2.0
    """
    return statistics.median(getattr(r, field) / getattr(b, field) for r, b in zip(rows, base))


def ratio_text(rows, base, field):
    """'paired (of medians)', as the tables print a ratio.

    >>> ratio_text([Timing(2, 4, 0), Timing(4, 4, 0)], [Timing(1, 2, 0), Timing(2, 2, 0)], "cpu")
    '2.000 (2.000)'
    """
    return (f"{paired(rows, base, field):.3f} "
            f"({median_of(rows, field) / median_of(base, field):.3f})")


def verdict(value, limit):
    """
    >>> verdict(1.1, 1.15), verdict(1.2, 1.15)
    ('met', 'MISSED')
    """
    return "met" if value <= limit else "MISSED"


# -- the machine -----------------------------------------------------------------------------

def cpu_model():
    """The CPU's model name as /proc/cpuinfo (or lscpu) gives it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def loadavg():
    with open("/proc/loadavg", encoding="ascii") as f:
        return " ".join(f.read().split()[:3])


def machine():
    """CPUs, model, memory, kernel, and the versions of the reference tools."""
    mem = ""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            mem = f", {int(f.readline().split()[1]) / 1048576:.1f} GiB RAM"
    except OSError:
        pass
    lines = [f"{os.cpu_count()} CPUs ({cpu_model()}){mem}, {platform.system()} {platform.release()}"]
    for tool, flag in (("espeak-ng", "--version"), ("lame", "--version")):
        if shutil.which(tool):
            out = subprocess.run([tool, flag], capture_output=True, text=True).stdout
            lines.append(out.strip().splitlines()[0] if out.strip() else tool)
    return "\n  ".join(lines)


# -- what is rendered ------------------------------------------------------------------------

def write_script(path, text, title="GNU General Public License, version 3", copies=1,
                 front=()):
    """A script: front matter (title, show, and the `key: value` lines of front), then TEXT
    COPIES times over, joined by blank lines."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"---\ntitle: {title}\nshow: Bench\n")
        f.write("".join(f"{line}\n" for line in front))
        f.write("---\n")
        f.write("\n\n".join([text] * copies))


def license_paragraphs(names=("GPL-3", "GPL-2", "LGPL-2.1", "Apache-2.0", "MPL-2.0", "GFDL-1.3",
                              "Artistic", "LGPL-3", "MPL-1.1", "GPL-1", "GFDL-1.2")):
    """The paragraphs of the licenses in /usr/share/common-licenses, in order, each once, on
    one line, with no markup a script reads ('[' ']' and '#'/'//' starts).

    >>> next(license_paragraphs(["GPL-3"])).startswith("GNU GENERAL PUBLIC LICENSE")
    True
    """
    seen = set()
    for name in names:
        with open(os.path.join("/usr/share/common-licenses", name), encoding="utf-8") as f:
            blocks = f.read().split("\n\n")
        for block in blocks:
            text = " ".join(block.split()).replace("[", "(").replace("]", ")")
            if len(text) < 40 or text.startswith(("#", "//")) or text in seen:
                continue
            seen.add(text)
            yield text


def briefing(folder, seconds, names=("Apache-2.0", "MPL-2.0", "LGPL-2.1", "GPL-2")):
    """A produced briefing of about SECONDS of speech in FOLDER/briefing.txt, like
    samples/produced-briefing.txt: an intro under the first words, an outro, a music bed
    ducked under the talk, a chime at each section and a sting inside a sentence, the
    speech from license paragraphs (17 characters a second at the default voice, on GPL-3).
    Returns its path."""
    for sub in ("sounds", "music"):
        shutil.copytree(os.path.join(ROOT, "samples", sub), os.path.join(folder, sub),
                        dirs_exist_ok=True)
    want, body, section, chars = int(seconds * 17), [], 0, 0
    for paragraph in license_paragraphs(names):
        if chars >= want:
            break
        if chars >= section * 1400:          # a section about every 80 s
            section += 1
            body.append(f"# Part {section}\n\n[sound sounds/chime.flac]")
        if section % 3 == 2 and body[-1].startswith("# Part"):
            words = paragraph.split(" ")
            half = len(words) // 2
            paragraph = " ".join(words[:half] + ["[sound sounds/sting.wav 0.4s]"] + words[half:])
        body.append(paragraph)
        chars += len(paragraph)
    path = os.path.join(folder, "briefing.txt")
    write_script(path, "\n\n".join(body), title="A produced briefing",
                 front=("intro: sounds/intro.ogg", "intro_overlap: 1.5s",
                        "outro: sounds/outro.ogg", "music: music/pad.ogg",
                        "music_level: -26 LUFS"))
    return path


def wav_to_raw(wav, raw):
    """The PCM of a 16-bit mono WAV as raw samples (the floor's encoder input); its rate and
    sample count."""
    import wave
    with wave.open(wav, "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            sys.exit(f"bench: {wav} is not 16-bit mono")
        rate, data = w.getframerate(), w.readframes(w.getnframes())
    with open(raw, "wb") as f:
        f.write(data)
    return rate, len(data) // 2


def floor_inputs(program, script, work, name):
    """The floor's encoder input for SCRIPT: the render's own leveled PCM (a WAV render, so
    the same length and level as its MP3's), as raw samples in WORK. (raw path, rate, samples)."""
    wav = os.path.join(work, f"{name}-floor.wav")
    subprocess.run([program, script, "-o", wav, "-q", "--no-cache"], check=True,
                   stdout=subprocess.DEVNULL)
    raw = os.path.join(work, f"{name}-floor.raw")
    rate, samples = wav_to_raw(wav, raw)
    return raw, rate, samples


# -- the self-check (ctest source.bench) -----------------------------------------------------

def self_check(floor):
    import doctest
    failures, _ = doctest.testmod(sys.modules[__name__])
    if failures:
        sys.exit(f"benchlib: {failures} doctest(s) failed")
    for name in BENCH_PROGRAMS:
        res = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", name), "--help"],
                             capture_output=True, text=True)
        if res.returncode != 0 or "usage:" not in res.stdout:
            sys.exit(f"benchlib: scripts/{name} --help failed ({res.returncode}):\n{res.stderr}")
    with tempfile.TemporaryDirectory(prefix="benchlib-") as tmp:
        script = os.path.join(tmp, "two.txt")
        write_script(script, "The first paragraph.\n\nAnd the second one, a little longer.",
                     title="Two paragraphs")
        out = subprocess.run([floor, "speak", "-j", "2", script], check=True,
                             capture_output=True, text=True).stdout
        got = re.search(r"paragraphs=(\d+) frames=(\d+) rate=(\d+)", out)
        if not got or got.group(1) != "2" or int(got.group(2)) < int(got.group(3)):
            sys.exit(f"benchlib: bench-floor speak did not speak two paragraphs: {out!r}")
        raw, mp3 = os.path.join(tmp, "tone.raw"), os.path.join(tmp, "tone.mp3")
        samples = 3 * 22050 + 123
        import array
        import math
        tone = array.array("h", (int(8000 * math.sin(i * 0.0628)) for i in range(samples)))
        if sys.byteorder != "little":
            tone.byteswap()
        with open(raw, "wb") as f:
            tone.tofile(f)
        out = subprocess.run([floor, "encode", "-w", "2", raw, mp3], check=True,
                             capture_output=True, text=True).stdout
        if f"frames={samples} rate=22050 kbps=64 workers=2" not in out:
            sys.exit(f"benchlib: bench-floor encode: {out!r}")
        # the judge: mpg123 decodes exactly the samples given (the LAME tag's gapless info)
        pcm = subprocess.run(["mpg123", "-q", "--gapless", "-s", mp3], check=True,
                             capture_output=True).stdout
        if len(pcm) // 2 != samples:
            sys.exit(f"benchlib: the floor's MP3 decodes to {len(pcm) // 2} samples, not {samples}")
    print("benchlib: self-check passed")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--self-check":
        self_check(sys.argv[2])
    else:
        sys.exit("usage: scripts/benchlib.py --self-check BENCH_FLOOR")
