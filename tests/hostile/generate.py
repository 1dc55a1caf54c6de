#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/hostile/generate.py - the hostile-input corpus and the outcome expected of each.

Every case is a script (bytes, or a recipe for a big one), the command-line arguments to add,
and what must happen: the exit status, a regular expression the messages must match
(FILE:LINE:COL is checked separately), and always: nothing left behind and an existing output
untouched unless the render succeeds. tests/e2e/test_hostile.py runs them all.

    tests/hostile/generate.py            rewrite tests/hostile/corpus/ and expected.json
    tests/hostile/generate.py --check    exit 1 if they are not what this file generates

Small scripts are committed in corpus/ (so they can be read, and seed the script fuzzer);
scripts over 64 KiB are built at test time from their recipe (`big` in expected.json).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
HEAD = b"---\ntitle: Hostile\n---\n"
MAX_COMMITTED = 64 * 1024

# Voice profiles a case can ask for (written to VOICES/ beside the script, passed with --voices).
VOICES = {
    "slow": {"host.voice": b"voice = en-us\nrate = 80\n"},
    "no-engine-voice": {"host.voice": b"voice = xx-nonexistent\n"},
    "control-in-profile": {"host.voice": b"voice = en-us\nspeaker = Ho\x01st\n"},
    "bad-utf8-profile": {"host.voice": b"voice = en-us\nspeaker = Caf\xe9\n"},
    "profile-is-dir": {"host.voice/": b""},
    "escape-in-profile": {"host.voice": b"voice = en-us\n\x1b[31mkey = v\n"},
}


def case(name, category, script, exit, where=None, message="", args=(), voices=None,
         setup=None, note="", says=(), markdown=False):
    """One case. `where` is "LINE:COL", "LINE", "0" (the file itself: FILE: message) or None
    (exit 0, or no position to check); `message` a regex searched in stderr (case-insensitive);
    `setup` names a special arrangement of the script file that test_hostile.py makes; `says`
    lists words that must be spoken (judged against espeak-ng's own phonemes for each word);
    `markdown` names the script ep.md, read as a Markdown document."""
    entry = {"name": name, "category": category, "script": script, "exit": exit, "where": where,
             "message": message, "args": list(args), "voices": voices, "setup": setup,
             "note": note}
    if says:
        entry["says"] = list(says)
    if markdown:
        entry["as"] = "ep.md"
    return entry


def body(text):
    return HEAD + text


# ---- recipes for big scripts (too big to commit) -----------------------------------------

def big_over_default_limit():
    return HEAD + (b"Padding line that is spoken.\n" * (8 * 1024 * 1024 // 29 + 2))


def big_blank_lines():
    return HEAD + b"\n" * (8 * 1024 * 1024 - 200) + b"One sentence after eight megabytes of blank lines.\n"


def big_segments():
    paragraph = b"a [pause 1ms] " * 500 + b"\n\n"
    return HEAD + paragraph * 21


def big_unclosed_front_matter():
    return b"---\n" + b"key: value\n" * 200000


def big_one_giant_line():
    return HEAD + b"word " * (7 * 1024 * 1024 // 5)


def big_many_pauses():
    return HEAD + b"Hi.\n" + b"[pause 1ms]\n" * 600000


def big_many_errors():
    return HEAD + b"bad \x01 byte\n" * 100000


def big_md_giant_line():
    return HEAD + b"word " * (8300000 // 5)


def big_md_list_items():
    return HEAD + b"Intro.\n\n" + b"- a\n" * 110000


def big_md_emphasised_links():
    return HEAD + b"Intro.\n\n" + (b"*[a](b)" * 11 + b"\n") * 3000


BIG = {f.__name__: f for f in (big_over_default_limit, big_blank_lines, big_segments,
                                big_unclosed_front_matter, big_one_giant_line, big_many_pauses,
                                big_many_errors, big_md_giant_line, big_md_list_items,
                                big_md_emphasised_links)}


def cases():
    c = []
    # ---- encoding: only strict UTF-8; the first bad byte is the one error ----------------
    bad = [
        ("overlong-2-byte", b"Caf\xc0\xaf\n", "4:4", "overlong encoding"),
        ("overlong-3-byte", b"Slash \xe0\x80\xaf here\n", "4:7", "overlong encoding"),
        ("overlong-4-byte", b"Slash \xf0\x80\x80\xaf here\n", "4:7", "overlong encoding"),
        ("overlong-nul", b"Hidden \xc0\x80 NUL\n", "4:8", "overlong encoding"),
        ("surrogate", b"Half \xed\xa0\x80 pair\n", "4:6", "surrogate code point"),
        ("above-max", b"Big \xf4\x90\x80\x80\n", "4:5", "code point above U\\+10FFFF"),
        ("five-byte-form", b"Old \xf8\x88\x80\x80\x80 form\n", "4:5", "invalid byte"),
        ("byte-ff", b"Hello \xff there.\n", "4:7", "invalid byte"),
        ("stray-continuation", b"Hello \x80 there.\n", "4:7", "stray continuation byte"),
        ("truncated-at-end", b"Ends in \xe2\x82", "4:9", "truncated sequence"),
        ("truncated-mid-line", b"Euro \xe2\x82 sign\n", "4:6", "truncated sequence"),
        ("nul-in-body", b"Hello\x00world\n", "4:6", "NUL byte"),
    ]
    for name, text, where, msg in bad:
        c.append(case(name, "encoding", body(text), 2, where, "not valid UTF-8: " + msg))
    c.append(case("nul-in-front-matter", "encoding", b"---\ntitle: A\x00B\n---\nHi.\n", 2,
                  "2:9", "not valid UTF-8: NUL byte"))
    c.append(case("utf16-file", "encoding", "---\ntitle: t\n---\nHi.\n".encode("utf-16"), 2,
                  "1:1", "not valid UTF-8"))
    c.append(case("latin1-file", "encoding", b"---\ntitle: Caf\xe9\n---\nHi.\n", 2, "2:11",
                  "not valid UTF-8"))
    c.append(case("bom-then-invalid", "encoding", b"\xef\xbb\xbf---\ntitle: t\n---\n\xfe\n", 2,
                  "4:1", "not valid UTF-8"))

    # ---- control characters: never reach the engine (U+0001 is its command escape) ------
    ctl = [
        ("espeak-command-escape", b"Say \x01" + b"50S loud\n", "4:5", "U\\+0001"),
        ("terminal-escape-in-title", None, "2:8", "U\\+001B"),
        ("delete", b"Hi \x7f there\n", "4:4", "U\\+007F"),
        ("c1-next-line", b"Hi \xc2\x85 there\n", "4:4", "U\\+0085"),
        ("c1-csi", b"Hi \xc2\x9b31m there\n", "4:4", "U\\+009B"),
        ("form-feed", b"Page\x0cbreak\n", "4:5", "U\\+000C"),
        ("vertical-tab", b"Tab\x0bbed\n", "4:4", "U\\+000B"),
        ("backspace-in-heading", b"# Ti\x08tle\nText.\n", "4:5", "U\\+0008"),
    ]
    for name, text, where, msg in ctl:
        script = body(text) if text else b"---\ntitle: \x1b[31mRed\n---\nHi.\n"
        c.append(case(name, "control", script, 2, where, "control character " + msg +
                      " is not allowed"))
    c.append(case("lone-cr-line-endings", "control", b"---\rtitle: t\r---\rHi.\r", 2, "1:4",
                  "carriage return \\(U\\+000D\\) not followed by a line feed"))
    c.append(case("escape-sequence-quoted", "control", b"---\ntitle: t\n\x1b[2Jkey: v\n---\nHi.\n",
                  2, "3:1", "unknown front-matter key '\\\\u001B\\[2Jkey'",
                  note="a message quoting input shows control characters as \\uXXXX, never raw"))
    c.append(case("escape-sequence-in-profile", "control", body(b"Hi.\n"), 2, "0",
                  "unknown key", voices="escape-in-profile",
                  note="the profile's own messages must not carry raw escapes either"))
    c.append(case("fifty-errors-then-stop", "control", body(b"a\x02b\n" * 80), 2, "53:2",
                  "too many errors; only the first 50 are shown"))

    # ---- limits ----------------------------------------------------------------------------
    c.append(case("over-max-size", "limits", body(b"x " * 1000 + b"\n"), 2, "0",
                  "the file is 2024 bytes; the limit is 1000 bytes", args=["--max-size", "1000"]))
    c.append(case("over-default-max-size", "limits", "big_over_default_limit", 2, "0",
                  "the limit is 8388608 bytes"))
    c.append(case("endless-device", "limits", None, 2, "0",
                  "larger than the limit of 4096 bytes", args=["--max-size", "4096"],
                  setup="dev-zero"))
    c.append(case("line-too-long", "limits", body(b"//" + b"x" * 20000 + b"\nHi.\n"), 2,
                  "4:16385", "line is 20002 bytes; the limit is 16384"))
    c.append(case("one-giant-line", "limits", "big_one_giant_line", 2, "4:16385",
                  "line is 7340030 bytes"))
    # Words of any length are spoken (issue 14): what the engine receives is cut into pieces it
    # is measured to survive (docs/robustness.md). These were refused before; they stay here as
    # the inputs that crash espeak-ng 1.51 when given to it whole.
    c.append(case("word-65-characters", "limits", body(b"Long " + b"w" * 65 + b" word.\n"), 0,
                  says=["long", "word"]))
    c.append(case("known-crash-word", "limits", body(b"One.\n\n" + b"s'" * 120 + b"\n"), 0,
                  says=["one"], note="aborts espeak-ng 1.51 whole (from 140 characters): "
                  "spoken in pieces of at most 64"))
    c.append(case("crash-word-curly-quote", "limits", body("s’".encode() * 70 + b"\n"), 0,
                  note="140 characters, 280 bytes: the cut counts characters"))
    c.append(case("long-url", "limits", body(b"See https://example.com/" + b"path/" * 20 +
                                             b"index.html today.\n"), 0, says=["see", "today"]))
    c.append(case("soft-hyphen-joined", "limits",
                  body("s's's's's'\u00ad".encode() * 20 + b"\n"), 0,
                  note="espeak-ng drops U+00AD, joining the pieces: the cut counts it as a "
                  "character, so the joined pieces stay short"))
    c.append(case("paragraph-too-long", "limits", body(b"eight ch " * 1200 + b"\n"), 2, "4:1",
                  "paragraph is 10799 bytes; the limit is 10000"))
    c.append(case("too-many-segments", "limits", "big_segments", 2, "24:1",
                  "more than 10000 segments"))
    chapters = b"".join(b"# Chapter %d\nText.\n" % i for i in range(1, 258))
    c.append(case("too-many-chapters", "limits", body(chapters), 2, "514:1",
                  "this is chapter 256; the limit is 255"))
    voices = b"".join(b"[voice v%d] Hi.\n\n" % i for i in range(1, 70))
    c.append(case("too-many-voices", "limits", body(voices), 2, "132:1",
                  "more than 64 voice profiles"))
    c.append(case("pauses-over-12-hours", "limits", body(b"Hi.\n" + b"[pause 600s]\n" * 73), 2,
                  "77:1", "the pauses add up to more than 12 hours"))
    c.append(case("pause-too-long", "limits", body(b"Wait [pause 11min] no.\n"), 2, "4:6",
                  "malformed pause .*the unit must be ms or s"))
    c.append(case("pause-zero", "limits", body(b"Wait [pause 0ms] no.\n"), 2, "4:6",
                  "pause 0ms is out of range"))
    c.append(case("pause-huge-number", "limits", body(b"[pause " + b"9" * 400 + b"s] Hi.\n"), 2,
                  "4:1", "is out of range: 1ms to 600s"))
    c.append(case("pause-too-precise", "limits", body(b"[pause 1." + b"0" * 300 + b"1s] Hi.\n"),
                  2, "4:1", "is not exact: it is more precise than 1 microsecond"))
    c.append(case("many-pauses", "limits", "big_many_pauses", 2, "10004:1",
                  "more than 10000 segments"))
    c.append(case("hundred-thousand-errors", "limits", "big_many_errors", 2, "53:5",
                  "too many errors"))

    # ---- structure -------------------------------------------------------------------------
    c.append(case("empty-file", "structure", b"", 2, "1:1", "starts with front matter"))
    c.append(case("only-bom", "structure", b"\xef\xbb\xbf", 2, "1:1", "starts with front matter"))
    c.append(case("unclosed-front-matter", "structure", "big_unclosed_front_matter", 2, "1:1",
                  "the front matter is not closed"))
    c.append(case("only-comments", "structure", body(b"// a\n// b\n"), 2, "4:1",
                  "the script has no spoken text"))
    c.append(case("only-pauses", "structure", body(b"[pause 1s]\n\n[pause 2s]\n"), 2, "4:1",
                  "no spoken text"))
    c.append(case("voice-path-traversal", "structure", body(b"[voice ../../etc/passwd] Hi.\n"),
                  2, "4:1", "invalid voice profile name"))
    c.append(case("voice-unclosed", "structure", body(b"[voice host Hi.\n"), 2, "4:1",
                  "malformed voice directive"))
    c.append(case("uppercase-directive", "structure", body(b"[PAUSE 1s] Hi.\n"), 2, "4:1",
                  "directive names are lowercase"))
    c.append(case("unknown-keys", "structure",
                  b"---\n" + b"".join(b"key%d: v\n" % i for i in range(100)) + b"title: t\n---\nHi.\n",
                  2, "2:1", "unknown front-matter key 'key0'"))
    c.append(case("heading-without-audio", "structure", body(b"Hi.\n# Last\n"), 2, "5:1",
                  "chapter 'Last' has no audio"))

    # ---- the engine: a crash or a hang is an error of that paragraph ------------------------
    c.append(case("engine-crash-passes-limits", "engine",
                  body(b"Fine.\n\n" + b" ".join([b"q.z."] * 60) + b"\n"), 0, says=["fine"],
                  note="60 short words: espeak-ng 1.51 joins x.y. abbreviations across spaces "
                  "and aborts from 44; the normalizer ends such a run every 16 letters. The "
                  "crash net itself is tested with an injected abort (test_long_tokens.py)"))
    c.append(case("engine-hang", "engine", body(b" ".join([b"1234567."] * 1100) + b"\n"), 2, "4:1",
                  "the speech engine hung", args=["--segment-timeout", "1"], voices="slow",
                  note="hours of audio at 80 words per minute: cannot finish in 1 s"))
    c.append(case("engine-has-no-such-voice", "engine", body(b"Hi.\n"), 2, "4:1",
                  "espeak-ng has no voice 'xx-nonexistent'", voices="no-engine-voice"))
    c.append(case("control-char-in-profile", "engine", body(b"Hi.\n"), 2, "0",
                  "host.voice:2:13: control character U\\+0001", voices="control-in-profile"))
    c.append(case("bad-utf8-in-profile", "engine", body(b"Hi.\n"), 2, "0",
                  "host.voice:2:14: the text is not valid UTF-8", voices="bad-utf8-profile"))
    c.append(case("profile-is-a-directory", "engine", body(b"Hi.\n"), 2, None,
                  "directory", voices="profile-is-dir"))

    # ---- files -----------------------------------------------------------------------------
    files = [
        ("missing-script", "missing", "cannot open: No such file or directory"),
        ("script-is-directory", "directory",
         "a folder, not a script; to render every script in it, run: render-episode batch"),
        ("dangling-symlink", "dangling-symlink", "cannot open: No such file or directory"),
        ("path-through-a-file", "not-a-directory", "cannot open: Not a directory"),
        ("symlink-loop", "symlink-loop", "cannot open: Too many levels of symbolic links"),
        ("unreadable", "unreadable", "cannot open: Permission denied"),
        ("output-is-the-script", "output-is-script", "ep\\.mp3: this output would overwrite the script itself"),
        ("output-hardlinked-to-script", "output-hardlink", "ep\\.mp3: this output would overwrite the script itself"),
        ("sidecar-is-the-script", "sidecar-is-script", "ep\\.json: this output would overwrite the script itself"),
    ]
    for name, setup, msg in files:
        c.append(case(name, "files", body(b"Hi.\n"), 2, None if setup == "output-hardlink" else "0",
                      msg, setup=setup))

    # ---- hostile but valid: rendered, exit 0 ----------------------------------------------
    # Each with the words that must be heard: markup, escaped directives and odd characters are
    # spoken as text, never obeyed or dropped.
    ok = [
        ("bom-and-crlf", b"\xef\xbb\xbf---\r\ntitle: t\r\n---\r\nHello\r\nthere.\r\n", ["hello", "there"]),
        ("word-of-64", body(b"Long " + b"w" * 64 + b" word.\n"), ["long", "word"]),
        ("cjk-without-spaces", body(("中文没有空格" * 20 + "。\n").encode()), []),
        ("markup-is-text", body(b"<speak><break time=\"10s\"/>&amp; [[h@l'oU]] <audio src=x>\n"),
         ["speak", "break", "time", "audio"]),
        ("format-characters", body("Right\u202eto\u202cleft, zero\u200bwidth, "
                                   "e\u0301\u0301\u0301 and \U0001F600.\n".encode()), ["right", "left", "zero", "width"]),
        ("noncharacters", body("Non \ufffe\uffff \U0010fffe chars.\n".encode()), ["chars"]),
        ("escaped-directives", body(b"Say \\[pause 1s] and \\[voice x] literally.\n"),
         ["say", "pause", "voice", "literally"]),
        ("blank-lines-8mib", "big_blank_lines", ["sentence", "after", "eight", "megabytes"]),
    ]
    for name, script, says in ok:
        c.append(case(name, "valid", script, 0, says=says))

    # ---- issue 14's long tokens: each refused or crashing before, each spoken now -----------
    dotted = "".join(ch + "." for ch in "abcdefghijklmnopqrstuvwxyz" * 2)[:64].encode()
    c.append(case("three-dotted-64", "limits", body(b"Three " + b" ".join([dotted] * 3) + b" here.\n"), 0,
                  says=["three", "here"], note="within the old limit, yet aborted espeak-ng 1.51: "
                  "it joins dotted letters across spaces"))
    c.append(case("pasted-diff-url", "limits",
                  body(b"See https://github.com/pytorch/pytorch/pull/189759/files#diff-"
                       + b"0123456789abcdef" * 2 + b"01234567 for the change.\n"), 0,
                  says=["see", "change"], note="98 characters: was refused"))
    c.append(case("commit-hash-in-prose", "limits",
                  body(b"Commit 12d655d4561a0b9c8e7f6a5b4c3d2e1f0a9b8c7d fixed it.\n"), 0,
                  says=["fixed"]))

    # ---- format 1.1: [lang TAG]...[/lang] spans ---------------------------------------------
    lang = [
        ("lang-nested", b"A [lang de]eins [lang fr]deux[/lang] drei.\n", "4:17",
         "'\\[lang fr\\]' is inside the \\[lang de\\] span opened at 4:3"),
        ("lang-close-without-open", b"B [/lang] here.\n", "4:3", "'\\[/lang\\]' closes no span"),
        ("lang-across-paragraphs", b"C [lang de]offen\n\nweiter[/lang].\n", "4:3",
         "the \\[lang de\\] span is not closed"),
        ("lang-invalid-tag", b"D [lang ../x]x[/lang] y.\n", "4:3", "invalid language tag '\\.\\./x'"),
        ("lang-empty-span", b"E [lang de][/lang] y.\n", "4:3", "the \\[lang de\\] span has no text"),
        ("lang-wrong-case", b"F [Lang de]y[/lang].\n", "4:3", "directive names are lowercase"),
        ("lang-malformed", b"G [lang de x]z[/lang].\n", "4:3", "malformed language span"),
        ("lang-unknown-voice", b"H [lang xx-nope]q[/lang] here.\n", "4:17",
         "\\[lang xx-nope\\]: espeak-ng has no voice 'xx-nope'"),
    ]
    for name, text, where, message in lang:
        c.append(case(name, "structure", body(text), 2, where, message))
    c.append(case("unvoiced-script-left-out", "valid",
                  body("Khmer \u1797\u17b6\u179f\u17b6 then more.\n".encode()), 0, "4:7",
                  "warning: '.*' is left out: espeak-ng has no voice for Khmer text",
                  says=["khmer", "then", "more"]))
    c.append(case("lang-spans-and-escapes", "valid",
                  body("Say [lang de]Guten Tag[/lang] and \\[lang de] literally.\n".encode()), 0,
                  says=["say", "literally"], note="format 1.1; \\[ keeps a literal '['"))
    # ---- sound files (format 1.1): refused at the [sound] or the front-matter value, before
    # anything is spoken; test_hostile.py makes the file each setup names (x.wav beside the
    # script, or outside.wav in the folder above it).
    sounds = [
        ("sound-missing", "sound-missing", "sound file '.*x\\.wav': cannot open: No such file"),
        ("sound-unreadable", "sound-unreadable", "sound file '.*x\\.wav': cannot open: Permission denied"),
        ("sound-not-audio", "sound-not-audio", "sound file '.*x\\.wav': is not audio that libsndfile reads"),
        ("sound-empty", "sound-empty", "sound file '.*x\\.wav': is empty"),
        ("sound-is-a-fifo", "sound-fifo", "sound file '.*x\\.wav': not a regular file"),
        ("sound-is-a-directory", "sound-directory", "sound file '.*x\\.wav': is a directory"),
        ("sound-no-frames", "sound-no-frames", "sound file '.*x\\.wav': holds no samples"),
    ]
    for name, setup, msg in sounds:
        c.append(case(name, "sounds", body(b"Hi.\n\n[sound x.wav]\n\nBye.\n"), 2, "6:1", msg,
                      setup=setup))
    c.append(case("sound-outside-the-tree", "sounds", body(b"Hi. [sound ../outside.wav] Bye.\n"), 2,
                  "4:5", "sound file '../outside.wav' is outside the script's folder",
                  setup="sound-outside"))
    c.append(case("sound-absolute-path", "sounds",
                  b"---\ntitle: Hostile\nintro: /etc/hostname\n---\nHi.\n", 2, "3:8",
                  "sound file '/etc/hostname' is outside the script's folder"))
    c.append(case("sound-symlink-out", "sounds", body(b"Hi.\n[sound link.wav]\n"), 2, "5:1",
                  "sound file 'link.wav' is outside the script's folder", setup="sound-symlink-out"))
    c.append(case("sound-outro-missing", "sounds",
                  b"---\ntitle: Hostile\noutro: gone.flac\n---\nHi.\n", 2, "3:8",
                  "sound file '.*gone\\.flac': cannot open"))
    c.append(case("sound-overlap-longer-than-intro", "sounds",
                  b"---\ntitle: Hostile\nintro: x.wav\nintro_overlap: 5s\n---\nHi.\n", 2, "4:16",
                  "intro_overlap \\(5\\.000 s\\) is longer than the intro", setup="sound-valid"))
    c.append(case("sound-overlap-without-intro", "sounds",
                  b"---\ntitle: Hostile\nintro_overlap: 1s\n---\nHi.\n", 2, "3:16",
                  "intro_overlap needs an intro"))
    c.append(case("sound-malformed", "sounds", body(b"Hi [sound] there.\n"), 2, "4:4",
                  "malformed sound '\\[sound\\]': no file"))
    c.append(case("sound-name-with-blank", "sounds", body(b"Hi [sound my file.wav] there.\n"), 2,
                  "4:4", "a file name cannot hold blanks"))
    c.append(case("sound-cut-out-of-range", "sounds", body(b"Hi [sound x.wav 0.5ms] there.\n"), 2,
                  "4:4", "sound cut 0\\.5ms is out of range"))
    c.append(case("sound-uppercase", "sounds", body(b"Hi [Sound x.wav] there.\n"), 2, "4:4",
                  "directive names are lowercase"))
    c.append(case("sound-every-error-at-once", "sounds",
                  b"---\ntitle: Hostile\nintro: a.wav\noutro: b.wav\n---\nHi [sound c.wav] there.\n",
                  2, "6:4", "(?s)3:8: sound file .*a\\.wav.*6:4: sound file .*c\\.wav.*4:8: sound file .*b\\.wav"))
    c.append(case("sound-valid-insert", "sounds", body(b"Hi. [sound x.wav] Bye.\n"), 0,
                  setup="sound-valid"))
    # ---- the music bed (format 1.1): refused at the `music:` value, before any speech; the
    # same hostile files as the sounds' (x.wav beside the script, outside.wav above it).
    music = [
        ("music-missing", "sound-missing", "music: sound file '.*x\\.wav': cannot open: No such file"),
        ("music-unreadable", "sound-unreadable", "music: sound file '.*x\\.wav': cannot open: Permission denied"),
        ("music-not-audio", "sound-not-audio", "music: sound file '.*x\\.wav': is not audio that libsndfile reads"),
        ("music-is-a-fifo", "sound-fifo", "music: sound file '.*x\\.wav': not a regular file"),
        ("music-is-a-directory", "sound-directory", "music: sound file '.*x\\.wav': is a directory"),
        ("music-no-frames", "sound-no-frames", "music: sound file '.*x\\.wav': holds no samples"),
        ("music-silent", "sound-valid", "music 'x\\.wav' is silent"),
    ]
    for name, setup, msg in music:
        c.append(case(name, "music", b"---\ntitle: Hostile\nmusic: x.wav\n---\nHi.\n", 2, "3:8",
                      msg, setup=setup))
    c.append(case("music-outside-the-tree", "music",
                  b"---\ntitle: Hostile\nmusic: ../outside.wav\n---\nHi.\n", 2, "3:8",
                  "music '../outside.wav' is outside the script's folder", setup="sound-outside"))
    c.append(case("music-absolute-path", "music",
                  b"---\ntitle: Hostile\nmusic: /etc/hostname\n---\nHi.\n", 2, "3:8",
                  "music '/etc/hostname' is outside the script's folder"))
    c.append(case("music-settings-without-a-bed", "music",
                  b"---\ntitle: Hostile\nduck: 6 dB\nfade: 1s\n---\nHi.\n", 2, "3:1",
                  "'duck' is set but there is no music bed"))
    c.append(case("music-level-out-of-range", "music",
                  b"---\ntitle: Hostile\nmusic: x.wav\nmusic_level: 0 LUFS\n---\nHi.\n", 2,
                  "4:14", "music_level must be a loudness from -60 to -5 LUFS"))
    c.append(case("music-and-sound-errors-at-once", "music",
                  b"---\ntitle: Hostile\nintro: a.wav\nmusic: m.wav\n---\nHi [sound c.wav] there.\n",
                  2, "3:8", "(?s)3:8: sound file .*a\\.wav.*6:4: sound file .*c\\.wav.*4:8: music: sound file .*m\\.wav"))

    # ---- Markdown: cmark-gfm is weighed before it runs (it cannot be stopped, and some
    # shapes are superlinear), and what its character references decode to is checked -------
    work = "this block is too much work for the Markdown parser"
    md = [
        ("md-line-too-long", body(b"Intro.\n\n" + b"x" * 16385 + b"\n"), "6:16385",
         "line is 16385 bytes; the limit is 16384"),
        ("md-giant-line", "big_md_giant_line", "4:16385", "line is 8300000 bytes"),
        ("md-image-in-link", body(b"Intro.\n\n" + b"![[]()" * 2730 + b"\n"), "6:1", work),
        ("md-emphasised-links", "big_md_emphasised_links", "6:1", work),
        ("md-table-cells", body(b"Intro.\n\na|b\n-|-\n" + b"|" * 16000 + b"\n"), "6:1", work),
        ("md-delimiter-rows", body(b"Intro.\n\n" + b"-|-\n-|-|-\n" * 600), "6:1", work),
        ("md-www-underscores", body(b"Intro.\n\n" + b"www.a_" * 2730 + b"\n"), "6:1", work),
        ("md-too-many-pieces", "big_md_list_items", "104862:1", "more than 524288 pieces"),
        ("md-escape-reference", body(b"Hello &#27;[31m world.\n"), "4:7", "U\\+001B"),
        ("md-escape-reference-in-title", body(b"# Ti&#x1b;tle\n\nText.\n"), "4:5", "U\\+001B"),
        ("md-bell-reference", body(b"Ring &#7; now.\n"), "4:6", "U\\+0007"),
        ("md-espeak-command-reference", body(b"Say &#1;50S loud.\n"), "4:5", "U\\+0001"),
        ("md-next-line-reference", body(b"Next &#x85; line.\n"), "4:6", "U\\+0085"),
        ("md-reference-in-link-title", body(b"See [it](https://example.org \"&#27;]2;x\").\n"),
         "4:31", "U\\+001B"),
    ]
    for name, script, where, msg in md:
        c.append(case(name, "markdown", script, 2, where, msg, markdown=True))
    c.append(case("md-references-that-are-text", "markdown",
                  body(b"A &#0; B &#x202E;C&#x202C; D &amp; E `&#27;` F.\n"), 0, markdown=True,
                  note="U+0000 is U+FFFD in CommonMark, bidi controls are text, code is not decoded"))
    return c


def script_bytes(entry):
    s = entry["script"]
    if s is None:
        return b""
    if isinstance(s, str):
        return BIG[s]()
    return s


def suffix(entry):
    return ".md" if entry.get("as", "").endswith(".md") else ".txt"


def manifest(all_cases):
    """expected.json: every case with its outcome; small scripts point to corpus/ files."""
    out = []
    for i, e in enumerate(all_cases, 1):
        item = {k: v for k, v in e.items() if k != "script" and v not in (None, "", [])}
        item["exit"] = e["exit"]
        if isinstance(e["script"], str):
            item["big"] = e["script"]
        elif e["script"] is not None:
            item["file"] = f"corpus/{i:03d}-{e['name']}{suffix(e)}"
        out.append(item)
    return out


def expected_files(all_cases):
    files = {}
    for i, e in enumerate(all_cases, 1):
        if isinstance(e["script"], bytes):
            assert len(e["script"]) <= MAX_COMMITTED, e["name"]
            files[f"corpus/{i:03d}-{e['name']}{suffix(e)}"] = e["script"]
    files["expected.json"] = (json.dumps(manifest(all_cases), indent=1, ensure_ascii=True)
                              + "\n").encode()
    return files


def main():
    all_cases = cases()
    names = [e["name"] for e in all_cases]
    assert len(names) == len(set(names)), "duplicate case names"
    files = expected_files(all_cases)
    check = "--check" in sys.argv[1:]
    corpus = os.path.join(HERE, "corpus")
    present = {"corpus/" + f for f in os.listdir(corpus)} if os.path.isdir(corpus) else set()
    stale = sorted(present - set(files))
    wrong = []
    for rel, data in files.items():
        path = os.path.join(HERE, rel)
        try:
            with open(path, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            wrong.append(rel)
            if not check:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data)
    for rel in stale:
        if not check:
            os.unlink(os.path.join(HERE, rel))
    if check and (wrong or stale):
        print("tests/hostile is out of date; run tests/hostile/generate.py:", *(wrong + stale),
              file=sys.stderr)
        return 1
    if not check:
        print(f"{len(all_cases)} cases, {len(files) - 1} corpus files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
