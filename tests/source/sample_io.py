#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/source/sample_io.py - the orchestration folder never touches the episode's samples.

pipeline/run/ keeps the order of work; every pass over samples belongs to pipeline/audio/ (a
processor run by the spool pass, spool_pass.h) and the encoders to pipeline/encode/. This check
reads every pipeline/run/*.c and *.h with comments and the contents of string and character
literals blanked (so a comment or a message that names `int16_t` or `pread` trips nothing) and
reports, as FILE:LINE: what, every place that reaches the samples:

  - a sample type: `int16_t` anywhere, a `float` pointer or array;
  - a call that reads, writes or meters samples: libsndfile's sf_read* / sf_write* /
    sf_readf* / sf_writef*, re_spool_read / re_spool_write (and their _at forms),
    re_loudness_meter_feed, re_sound_fade_out;
  - the spool's raw descriptor, re_spool_fd(), anywhere but as the first member of a
    `(re_mp3_pcm){ ... }` or `(re_wav_pcm){ ... }` handed to an encoder (run/ connects the
    two stages, it reads nothing);
  - pread / pwrite / read / write / mmap / re_pread_all / re_pwrite_all whose arguments name a
    spool or a sound;
  - a sound's sample array or a speech's pcm indexed, or a sound's copied with memcpy /
    memmove / memset.

Exit status 1 when anything is found. --self-test runs the rules on made-up snippets first
(each rule must fire on its bad snippet, and none on the same words in comments and strings).
Usage:

    tests/source/sample_io.py [--root DIR] [--self-test]
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from c_text import blank  # noqa: E402


def call_args(code, open_paren):
    """The text between the parenthesis at open_paren and its match."""
    depth, i = 0, open_paren
    while i < len(code):
        if code[i] == "(":
            depth += 1
        elif code[i] == ")":
            depth -= 1
            if depth == 0:
                return code[open_paren + 1:i]
        i += 1
    return code[open_paren + 1:]


SAMPLE_TYPE = re.compile(r"\bint16_t\b|\bfloat\s*(\*|\w+\s*\[)")
SAMPLE_CALL = re.compile(r"\b(sf_(read|write|readf|writef)_\w+|re_spool_(read|write)(_at)?"
                         r"|re_loudness_meter_feed|re_sound_fade_out)\s*\(")
SPOOL_FD = re.compile(r"\bre_spool_fd\s*\(")
HANDED_TO_ENCODER = re.compile(r"\(\s*re_(mp3|wav)_pcm\s*\)\s*\{\s*$")
IO_CALL = re.compile(r"\b(pread|pwrite|read|write|mmap|re_pread_all|re_pwrite_all)\s*\(")
SAMPLES_INDEXED = re.compile(r"\b(samples|pcm)\s*\[")
SAMPLES_COPIED = re.compile(r"\b(memcpy|memmove|memset)\s*\(")


def findings(code):
    """[(line, what)] for one file's blanked text."""
    found = []

    def at(pos, what):
        found.append((code.count("\n", 0, pos) + 1, what))

    for m in SAMPLE_TYPE.finditer(code):
        at(m.start(), f"sample type `{m.group(0).strip()}`")
    for m in SAMPLE_CALL.finditer(code):
        at(m.start(), f"sample call {m.group(1)}()")
    for m in SPOOL_FD.finditer(code):
        if not HANDED_TO_ENCODER.search(code[max(0, m.start() - 80):m.start()]):
            at(m.start(), "the spool's raw descriptor re_spool_fd() used, not handed to the encoder")
    for m in IO_CALL.finditer(code):
        if code[:m.start()].rstrip().endswith(("->", ".")):
            continue   # a member named read or write
        args = call_args(code, m.end() - 1)
        if re.search(r"spool|sound", args, re.I):
            at(m.start(), f"{m.group(1)}() on a spool or sound")
    for m in SAMPLES_INDEXED.finditer(code):
        at(m.start(), f"a sound's or a speech's {m.group(1)} indexed")
    for m in SAMPLES_COPIED.finditer(code):
        if re.search(r"\bsamples\b", call_args(code, m.end() - 1)):
            at(m.start(), f"a sound's samples in {m.group(1)}()")
    return sorted(found)


def check(root):
    folder = os.path.join(root, "pipeline", "run")
    bad = []
    for name in sorted(os.listdir(folder)):
        if name.endswith((".c", ".h")):
            with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                code = blank(f.read())
            bad += [f"pipeline/run/{name}:{line}: {what}" for line, what in findings(code)]
    return bad


SELF_TEST_BAD = {
    "int16_t": "static void f(int16_t *pcm) { (void)pcm; }",
    "float pointer": "static void f(float *x) { (void)x; }",
    "float array": "static void f(void) { float buf[64]; (void)buf; }",
    "sf_readf_short": "n = sf_readf_short(sf, buf, 64);",
    "re_spool_read": "status = re_spool_read(spool, pcm, 64, &got, diag);",
    "re_spool_write": "status = re_spool_write(out, pcm, n, diag);",
    "meter feed": "status = re_loudness_meter_feed(meter, pcm, n);",
    "fade out": "re_sound_fade_out(cut, frames, fade);",
    "spool fd": "int fd = re_spool_fd(d->leveled);",
    "spool fd to a helper": "status = gain_window(re_spool_fd(d->leveled), a, b);",
    "pread on a spool": "got = pread(spool_fd, p, want, at);",
    "pwrite_all on a spool": "status = re_pwrite_all(fd_of(d->spool), p, n, at);",
    "indexed": "sum += sound->samples[i];",
    "speech indexed": "if (speech->pcm[k] != 0) return 1;",
    "copied": "memcpy(cut, sound->samples, frames * 2);",
}
SELF_TEST_GOOD = """
/* int16_t samples are read with pread(spool_fd) and sf_readf_short(); memcpy(samples[0]) */
// re_spool_fd(d->leveled) and re_spool_read(spool, pcm) and float *x
static const char *message = "cannot pread the spool's int16_t samples[i]: float *x";
static char quote = '[';
status = re_mp3_encode_fd(&enc, (re_mp3_pcm){ re_spool_fd(input), re_spool_frames(input) }, &f);
n = pread(w->result_fd, &wr, sizeof wr, 0);
insert->samples = frames;
status = re_spool_pass_run(&pass, diag);
ssize_t n = file->read(file, buf);
"""


def self_test():
    failures = []
    for name, snippet in SELF_TEST_BAD.items():
        if not findings(blank(snippet)):
            failures.append(f"rule did not fire: {name}: {snippet}")
    for line, what in findings(blank(SELF_TEST_GOOD)):
        failures.append(f"fired on harmless code, line {line}: {what}")
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        failures = self_test()
        for f in failures:
            print(f"self-test: {f}")
        if failures:
            return 1
    bad = check(args.root)
    for b in bad:
        print(b)
    if bad:
        print(f"{len(bad)} place(s) in pipeline/run/ touch the samples: move them into pipeline/audio/ "
              "(a processor run by the spool pass, spool_pass.h) or pipeline/encode/")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
