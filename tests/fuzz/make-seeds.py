#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/fuzz/make-seeds.py - (re)writes the seed corpora in tests/fuzz/corpus/HARNESS/ from
the project's own samples and a few hand-written inputs per construct. Seeds are small:
libFuzzer mutates them; regressions (tests/fuzz/regressions/) are never touched here."""
import glob
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
MAX_SEED = 16 * 1024


def seed_dir(name):
    path = os.path.join(HERE, "corpus", name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def put(folder, data, label=""):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED:
        return
    digest = hashlib.sha1(data).hexdigest()[:12]
    name = f"{label}-{digest}" if label else digest
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def script_seeds():
    d = seed_dir("fuzz_script")
    put(d, read(os.path.join(SRC, "samples", "weekly-briefing.txt")), "sample")
    for path in sorted(glob.glob(os.path.join(SRC, "tests", "hostile", "corpus", "*.txt"))):
        data = read(path)
        if len(data) <= 4096:
            put(d, data, "hostile")
    head = "---\ntitle: T\nshow: S\npublished: 2026-07-14T13:00:41.25+02:00\nlanguage: en-GB\n" \
           "voice: host\nepisode: 7\nsummary: s\nauthor: a\n---\n"
    put(d, head + "# One\nHello, [pause 800ms] world.\n// note\nMore.\n\n[voice guest] Hi. [pause 1.5s]\n"
        "\n[pause 2s]\n\n## Two\n\\[pause 1s] literal \\back\\slash [[x]] <b>&amp;\n", "constructs")
    put(d, "\ufeff---\r\ntitle: CRLF\r\n---\r\nText\r\n\r\n# H\r\nMore\r\n", "crlf")
    put(d, "---\ntitle: T\n---\n" + "中文没有空格。" * 20 + " " + "w" * 64 + "\n", "words")
    put(d, "---\ntitle: T\n---\n" + " ".join(["e.g."] * 50) + "\n", "abbrev")
    put(d, "---\ntitle: T\n---\nA [Pause 1s] [voice] [pause] [pause 1.0000001s] [pause 10min]\n", "errors")
    put(d, "---\ntitle: T\n---\nSay [lang de]Guten [pause 1s] Tag[/lang] \\[lang x] and \u041f\u0440\u0438 "
        "\u65e5\u672c.\n\n[lang fr]a [lang de]b[/lang] [/lang] [Lang x]c[/lang] [lang]d\n", "lang")


def voice_seeds():
    d = seed_dir("fuzz_voice")
    for path in sorted(glob.glob(os.path.join(SRC, "voices", "*.voice"))
                       + glob.glob(os.path.join(SRC, "tests", "data", "voices", "*", "*.voice"))):
        put(d, read(path), os.path.basename(path))
    put(d, "voice = en-gb+f3\nspeaker = Gäst\nrate = 450\npitch = 0\nrange = 99\nvolume = 200\n"
        "word_gap = 1000\nsentence_pause = 10000\nparagraph_pause = 60000\n", "extremes")
    put(d, "# c\nvoice=en-us\nrate = -1\nrate = 12abc\npich = 3\n = x\nvoice\n", "errors")


def duration_seeds():
    d = seed_dir("fuzz_duration")
    for s in ["PT2M53S", "PT173S", "PT1H0M5S", "PT0S", "P1W", "P0Y0M1DT2H", "PT2.345S", "PT2,5S",
              "P1DT0.5H", "PT0.0000001S", "P1Y", "PT", "-PT1S", "02:53", "0:02:53.5", "173",
              "173.25", "1:02:03:04", "59:60", "99999999999999999999", "PT99999999999999999999H"]:
        put(d, s.encode() + bytes(range(0, 12)), "v")
        put(d, s)


def utf8_seeds():
    d = seed_dir("fuzz_utf8")
    for s in [b"plain ascii\n", "café – ünïcödé 中文 😀\n".encode(), b"\xef\xbb\xbfbom\r\n",
              b"\xc0\xaf", b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"a\x00b",
              b"\xe2\x82", b"\x80", b"\xff\xfe", b"ctl \x01 \x1b[0m \x7f \xc2\x85\n", b"cr\rlf\n"]:
        put(d, s)


def claims_seeds():
    d = seed_dir("fuzz_claims")
    pages = [
        (0, "# Episode\n\nDuration: PT2M53S\n**Duration:** PT173S\n| Duration: | 2:53 |\r\n"
            "Duration: 3 minutes\n```\nDuration: PT9M\n```\n"),
        (1, "<!DOCTYPE html>\n<html><head>\n<script type=\"application/ld+json\">\n"
            "{\"@type\": \"PodcastEpisode\", \"associatedMedia\": {\"duration\": \"PT2M53.4S\"}}\n"
            "</script><style>.duration: 5px</style></head><body><!-- Duration: PT9M -->\n"
            "<dl><dt>Duration:</dt><dd>PT2M53S</dd></dl><p>Audio duration:&nbsp;02:53</p></body></html>\n"),
        (2, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" "
            "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">\n<channel><item>"
            "<enclosure type=\"audio/mpeg\" url=\"https://cdn.example/a%20b/ep%2Emp3?x#t\" length='1393664'/>\n"
            "<itunes:duration>2:53</itunes:duration><itunes:duration><![CDATA[173]]></itunes:duration>"
            "</item></channel></rss>\n"),
        (2, "<feed xmlns=\"http://www.w3.org/2005/Atom\" xmlns:i=\"http://www.itunes.com/dtds/podcast-1.0.dtd\">"
            "<entry><link rel=\"enclosure\" href=\"/media/ep.mp3\" length=\"4032\"/>"
            "<i:duration>00:00:01</i:duration></entry></feed>"),
        (2, "<!DOCTYPE rss [<!ENTITY big \"1\">]>\n<rss><channel><item><enclosure url=\"ep.mp3\" "
            "length=\"&big;\"/></item></channel></rss>"),
        (3, "{\"episodes\": [{\"audio\": \"ep.mp3\", \"duration\": \"PT2M53S\"}, {\"duration\": 173.4}]}"),
        (4, "{\"title\": \"T\", \"duration\": \"PT2M53S\", \"duration_ms\": 173456, \"samples\": 3824704, "
            "\"sample_rate\": 22050, \"bytes\": 1393664, \"generator\": \"render-episode 0.1.0\"}"),
        (5, "Length: 173 s, Duration: 173.0 s\nDuration: PT173S and Duration: 0:02:53,\nDuration: PT3M\n"),
        (6, "<rss><channel><item></channel></rss>\n"),
        (7, "[1, 2, {\"duration\": \"\\u0050T1S\"}]"),
    ]
    for kind, text in pages:
        put(d, bytes([kind]) + text.encode(), f"kind{kind}")


def mp3_seeds():
    d = seed_dir("fuzz_mp3")
    for path in sorted(glob.glob(os.path.join(SRC, "tests", "data", "check", "*"))):
        put(d, read(path), os.path.basename(path))
    # A real render of one short sentence, with ID3 (TLEN, CHAP, CTOC) and the LAME tag.
    binary = os.environ.get("RE_BIN")
    if binary and os.access(binary, os.X_OK):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "s.txt")
            with open(script, "w") as f:
                f.write("---\ntitle: Seed\n---\n# One\nHi.\n")
            out = os.path.join(tmp, "s.mp3")
            if subprocess.run([binary, script, "-o", out, "-q"], capture_output=True).returncode == 0:
                put(d, read(out), "render")


def normalize_seeds():
    d = seed_dir("fuzz_normalize")
    lexicons = [read(p) for p in sorted(glob.glob(os.path.join(SRC, "voices", "*.lexicon")))]
    lexicons += [b"NCCL = nickel\ngloo ~= [[gl'u:]]\npull request = P.R\n# c\nX = [[x]] y\n", b""]
    texts = ["PR 189759 and PRs 1001, 1002 through 1003 fixed #120345.",
             "v2.1.0 of render.c, README.md and src/main.py: AOTAutograd, save_for_backward, std::vector.",
             "CI, NVGEMM and WARNING; C++ and C#, a->b => c; 3.5 ms, 1 ms, 2x; https://github.com/a/b/pull/1",
             "Python 3.12 and 1.05; 1.25 million; NCCL2, NCCL's (NCCL) NCCLX; GLOO gloo Gloo; pull  request",
             "中文 " + "w" * 64 + " e.g. i.e. [[not phonemes]] ]] [["]
    for lexicon in lexicons:
        for text in texts:
            put(d, lexicon + b"\0" + text.encode(), "n")


def publish_seeds():
    """fuzz_publish: a byte choosing the parser (0 show file, 1 sidecar), then the file."""
    d = seed_dir("fuzz_publish")
    put(d, b"\0" + read(os.path.join(SRC, "tests", "data", "pinned", "show.txt")), "show")
    put(d, b"\0title: T\ndescription: D\nimage: cover.jpg\ncategory: Leisure > Home & Garden\n"
           b"explicit: true\nguid: 917393e3-1b1e-5cef-ace4-edaa54e1f810\nlocked: yes\n"
           b"medium: audiobook\ndisclosure: false\nowner_email: a@b.org\n", "show-all")
    put(d, b"\0category: Technology > Software How-To\nguid: x\nlocked: maybe\nimage: ../c.jpg\n",
        "show-errors")
    put(d, b"\1" + ('{"title": "T", "language": "en-us", "season": 2, "guid": "urn:x", '
                    '"samples": 22050, "sample_rate": 22050, "bytes": 10, "format": "mp3", '
                    '"voices": [{"speaker": "Host", "role": "host"}, {"speaker": "G"}], '
                    '"generator": "render-episode 0.1.0", "files": [{"name": "ep.mp3", '
                    '"bytes": 10, "sha256": "' + "a" * 64 + '"}]}').encode(), "sidecar")
    put(d, b"\1" + ('{"title": "T", "samples": 1, "sample_rate": 1, "bytes": 1, "format": "mp3", '
                    '"generator": "render-episode", "files": [{"name": "../x", "bytes": -1, '
                    '"sha256": "zz"}], "voices": [{"role": 3}]}').encode(), "sidecar-errors")
    # as the writer writes it (2-space indent, a final newline): feed can rewrite its entry
    written = {"title": "T", "language": "en-us", "samples": 22050, "sample_rate": 22050,
               "bytes": 10, "format": "mp3", "voices": [], "generator": "render-episode 0.1.0",
               "files": [{"name": "ep.mp3", "bytes": 10, "sha256": "a" * 64},
                         {"name": "ep.html", "bytes": 20, "sha256": "b" * 64}]}
    put(d, b"\1" + (json.dumps(written, indent=2) + "\n").encode(), "sidecar-written")
    # an episode page's two show slots, as the render leaves them
    put(d, b"\0<!DOCTYPE html>\n<html><head><title>T</title><!--show-meta--><!--/show-meta-->"
           b"\n</head>\n<body><main><article><p>Duration: PT1S</p></article><!--show-nav-->"
           b"<nav class=\"show-nav\"><a href=\"index.html\">All episodes</a></nav>"
           b"<!--/show-nav--></main></body></html>\n", "page-slots")


def png(px, colour_type=2, interlaced=False):
    """A flat-coloured PNG (RGB or RGBA, 8-bit), written with zlib: about 6 kB at 1400 px."""
    channels = {0: 1, 2: 3, 6: 4}[colour_type]
    passes = ([(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
               (1, 0, 2, 2), (0, 1, 1, 2)] if interlaced else [(0, 0, 1, 1)])
    raw = b"".join((b"\0" + b"\x40" * channels * ((px - x0 + dx - 1) // dx))
                   * ((px - y0 + dy - 1) // dy) for x0, y0, dx, dy in passes if px > x0 and px > y0)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))

    return (b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", struct.pack(">IIBBBBB", px, px, 8, colour_type, 0, 0, int(interlaced)))
            + chunk(b"tEXt", b"Comment\0seed") + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def artwork_seeds():
    """fuzz_artwork: PNGs (RGB, RGBA, interlaced, grey, too small), ffmpeg's JPEGs when ffmpeg
    is there (4:2:0 and 4:4:4), and each cut short."""
    d = seed_dir("fuzz_artwork")
    images = {"rgb.png": png(1400), "rgba.png": png(1400, 6), "adam7.png": png(1400, 2, True),
              "grey.png": png(1400, 0), "small.png": png(64)}
    if shutil.which("ffmpeg"):
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            for pix in ("yuvj420p", "yuvj444p"):
                out = os.path.join(tmp, pix + ".jpg")
                if subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i",
                                   "color=c=0x2060a0:s=1400x1400", "-frames:v", "1",
                                   "-pix_fmt", pix, out], capture_output=True).returncode == 0:
                    images[pix + ".jpg"] = read(out)
    for name, data in sorted(images.items()):
        put(d, data, name)
        put(d, data[:len(data) * 2 // 3], name + "-cut")


def notes_seeds():
    """fuzz_notes: Markdown notes, ordinary (the corpus's release notes, cut to the seed size)
    and hostile (images, raw HTML, javascript: links)."""
    d = seed_dir("fuzz_notes")
    for path in sorted(glob.glob(os.path.join(SRC, "tests", "data", "markdown", "corpus", "*.md")))[:6]:
        put(d, read(path)[:4096], os.path.basename(path))
    put(d, "# T\n\n![pixel](http://t.example/p.gif) ![r][r] [js](javascript:x) <javascript:y>\n\n"
           "[r]: //t.example/r.gif\n\n<script>x</script>\n\n<img src=x onerror=y> <b>b</b>\n", "hostile")
    put(d, "- [x] a `c|d`\n- [ ] ![i](i.png)\n\n| a | b |\n|:-|-:|\n| `x\\|y` | **z** |\n\n"
           "> q\n> > r\n\n```js\n<script>\n```\n\n1) a\n2) b\n\n---\n\nx  \ny\\\nz\n", "blocks")
    put(d, "\\![a](http://t.example/a) \\[b](javascript:c) &#60;d&#62; &amp;e; www.f.example "
           "g@h.example [i *j*](<k l> \"m\") ~~n~~ Duration: 1\n", "escapes")


def main():
    notes_seeds()
    artwork_seeds()
    publish_seeds()
    normalize_seeds()
    script_seeds()
    voice_seeds()
    duration_seeds()
    utf8_seeds()
    claims_seeds()
    mp3_seeds()
    for name in sorted(os.listdir(os.path.join(HERE, "corpus"))):
        print(name, len(os.listdir(os.path.join(HERE, "corpus", name))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
