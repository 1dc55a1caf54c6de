# SPDX-License-Identifier: GPL-3.0-or-later
"""The cover art an episode carries, judged by tools we did not write.

The script's own `image:` (relative to its folder, confined like every file a script names),
else the show's (`image:` in show.txt in the output's folder, when a file there), is embedded
in the MP3 as an ID3v2.3 APIC frame: front cover (type 3), the MIME type of what it is, the
bytes exactly as given. mutagen reads the frame back, ffprobe the picture stream; mpg123 and
`check` still find the audio exact with a 6 MB tag in front of it. The sidecar lists the
image (name, source, mime, bytes, sha256) and the inputs digest covers it, so that batch
renders again when the cover changes. A bad `image:` is an error at its FILE:LINE:COL before
anything is spoken, with nothing written. The Markdown page (`--page-md`) shows the cover the
HTML page shows, read back by cmark-gfm (the C library, through ctypes) and python's
html.parser. The images are made by ffmpeg (and PNGs python writes with zlib: interlaced,
with alpha, 16-bit). An image no decoder can show (a PNG cut short, a JPEG cut short, a JPEG
whose scan is junk; ffmpeg's decoder reports each) is refused like any other bad image."""
import ctypes
import ctypes.util
import hashlib
import html.parser
import json
import os
import random
import struct
import subprocess
import urllib.parse
import zlib

from common import Case, ffprobe, main, mpg123_samples, mutagen_tags, run, write

SHOW = """title: Covered
description: A show with cover art.
author: Cover Team
language: en-us
image: {image}
category: Technology
explicit: false
guid: 8aa0692c-04e5-512f-ade5-e8788219ab95
"""


def make_image(path, size="1400x1400", pix_fmt="yuvj420p", colour="green", noise=False):
    """Cover art made by ffmpeg (not by us); noise makes a JPEG of several megabytes."""
    src = (f"nullsrc=s={size},geq=r='random(1)*255':g='random(2)*255':b='random(3)*255'"
           if noise else f"color=c={colour}:s={size}")
    res = subprocess.run(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", src,
                          "-frames:v", "1", "-q:v", "1", "-pix_fmt", pix_fmt, path],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    with open(path, "rb") as f:
        return f.read()


def png_bytes(px=1400, colour_type=2, bit_depth=8, interlaced=False):
    """A flat-coloured PNG written here with zlib (ffmpeg writes no interlaced PNG): colour
    type 2 (RGB) or 6 (RGB with alpha), 8 or 16 bits, Adam7-interlaced or not."""
    channels = {2: 3, 6: 4}[colour_type]
    pixel = bytes([0x20, 0x60, 0xa0, 0xff][:channels]) * (bit_depth // 8)
    passes = ([(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
               (1, 0, 2, 2), (0, 1, 1, 2)] if interlaced else [(0, 0, 1, 1)])
    raw = b""
    for x0, y0, dx, dy in passes:
        w, h = (px - x0 + dx - 1) // dx, (px - y0 + dy - 1) // dy
        if w > 0 and h > 0:
            raw += (b"\0" + pixel * w) * h

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff))

    ihdr = struct.pack(">IIBBBBB", px, px, bit_depth, colour_type, 0, 0, 1 if interlaced else 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def undecodable(path):
    """What ffmpeg's decoder (not ours) says of the image: '' when it decodes cleanly."""
    res = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "null", "-"],
                         capture_output=True, text=True)
    return (res.stderr.strip() or ("exit %d" % res.returncode if res.returncode else "")).strip()


def broken_images(folder):
    """The three images of the report: a PNG cut at 200 bytes, a JPEG cut at 400 bytes, and
    a JPEG whose scan data is junk after its first 64 bytes (seeded, so always the same);
    each with what the refusal must say. Their headers are whole: size and colour pass."""
    png = make_image(os.path.join(folder, "whole.png"), "1400x1400", "rgb24")
    jpeg = make_image(os.path.join(folder, "whole.jpg"))
    sos = jpeg.index(b"\xff\xda")
    scan = sos + 2 + struct.unpack(">H", jpeg[sos + 2:sos + 4])[0]
    junk = random.Random(37)
    damaged = (jpeg[:scan + 64] + bytes(junk.randrange(256) for _ in range(len(jpeg) - scan - 66))
               + jpeg[-2:])
    images = {"cut.png": (png[:200], "the cover art is a PNG that cannot be decoded"),
              "cut.jpg": (jpeg[:400], "the cover art is a JPEG that cannot be decoded"),
              "junk.jpg": (damaged, "the cover art is a JPEG that cannot be decoded")}
    for name, (data, _) in images.items():
        write(os.path.join(folder, name), data, "wb")
        assert undecodable(os.path.join(folder, name)), name   # no decoder can show it
    return {name: words for name, (_, words) in images.items()}


def snapshot(folder):
    """Every file of the folder (not its subfolders) by name, with the SHA-256 of its bytes."""
    found = {}
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                found[name] = hashlib.sha256(f.read()).hexdigest()
    return found


def script(image=None):
    extra = f"image: {image}\n" if image else ""
    return f"---\ntitle: Cover test\n{extra}---\nHello there. This episode has a cover.\n"


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def html_images(text):
    """The (src, alt) of every <img> of the HTML text, read by python's parser."""

    class Images(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag == "img":
                a = dict(attrs)
                found.append((a.get("src"), a.get("alt")))

    found = []
    reader = Images()
    reader.feed(text)
    reader.close()
    return found


def markdown_images(path):
    """The (src, alt) of every image of the Markdown file as CommonMark reads it: cmark-gfm's
    own cmark_markdown_to_html (its library, not ours), its HTML read by python's parser."""
    lib = ctypes.CDLL(ctypes.util.find_library("cmark-gfm") or "libcmark-gfm.so")
    lib.cmark_markdown_to_html.restype = ctypes.c_void_p
    lib.cmark_markdown_to_html.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    libc = ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]
    with open(path, "rb") as f:
        text = f.read()
    rendered = lib.cmark_markdown_to_html(text, len(text), 0)   # CMARK_OPT_DEFAULT
    try:
        return html_images(ctypes.string_at(rendered).decode("utf-8"))
    finally:
        libc.free(rendered)


class Cover(Case):
    def setUp(self):
        super().setUp()
        self.cache = self.path("cache")
        self.dir = self.path("src")
        os.mkdir(self.dir)

    def render(self, text, out, *extra, name="ep.txt"):
        src = write(os.path.join(self.dir, name), text)
        return run([src, "-o", out, "--cache", self.cache, "-q", *extra])

    def assert_embedded(self, mp3, data, mime):
        (apic,) = mutagen_tags(mp3)["APIC"]
        self.assertEqual(apic, {"type": 3, "mime": mime, "desc": "", "bytes": len(data),
                                "sha256": hashlib.sha256(data).hexdigest()})
        self.assertEqual(mutagen_tags(mp3)["version"], [2, 3, 0])
        streams = ffprobe(mp3, "-show_streams")["streams"]
        pictures = [s for s in streams if s["codec_type"] == "video"]
        self.assertEqual(len(pictures), 1, streams)
        self.assertEqual(pictures[0]["disposition"]["attached_pic"], 1)
        self.assertEqual(pictures[0]["codec_name"], "mjpeg" if mime == "image/jpeg" else "png")
        self.assertEqual(pictures[0].get("tags", {}).get("comment"), "Cover (front)")

    def test_episode_image_is_embedded_as_given(self):
        for name, pix, mime in (("art/cover.jpg", "yuvj420p", "image/jpeg"),
                                ("cover.png", "rgb24", "image/png")):
            with self.subTest(name=name):
                os.makedirs(os.path.dirname(os.path.join(self.dir, name)), exist_ok=True)
                data = make_image(os.path.join(self.dir, name), "1500x1500", pix)
                out = self.path("ep.mp3")
                res = self.render(script(name), out)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assert_embedded(out, data, mime)
                side = load(self.path("ep.json"))
                self.assertEqual(side["image"], {"name": name, "source": "episode", "mime": mime,
                                                 "bytes": len(data),
                                                 "sha256": hashlib.sha256(data).hexdigest()})

    def test_every_kind_of_valid_png_is_embedded_as_given(self):
        """The whole image is decoded before it is accepted: interlaced, alpha and 16-bit PNGs
        (which ffmpeg decodes cleanly) still go into the tag byte for byte."""
        for name, kw in (("interlaced.png", {"interlaced": True}),
                         ("alpha.png", {"colour_type": 6}),
                         ("deep.png", {"bit_depth": 16, "interlaced": True})):
            with self.subTest(name=name):
                data = png_bytes(**kw)
                write(os.path.join(self.dir, name), data, "wb")
                self.assertEqual(undecodable(os.path.join(self.dir, name)), "")
                out = self.path("ep.mp3")
                res = self.render(script(name), out)
                self.assertEqual(res.returncode, 0, res.stderr)
                self.assert_embedded(out, data, "image/png")

    def test_undecodable_images_are_errors_at_the_image_line(self):
        """Cover art judged by its header only was embedded and published although no decoder
        can show it. Each is refused at the image: value, before speech, with yesterday's
        episode left as it was."""
        cases = broken_images(self.dir)
        out = self.path("ep.mp3")
        good = make_image(os.path.join(self.dir, "good.jpg"))
        res = self.render(script("good.jpg"), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        before = snapshot(self.tmp)
        for value, words in cases.items():
            with self.subTest(image=value):
                cache = self.path("cache-" + value)
                src = write(os.path.join(self.dir, "ep.txt"), script(value))
                res = run([src, "-o", out, "--cache", cache, "-q"])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"ep.txt:3:8: image '{value}': {words}", res.stderr)
                self.assertEqual(snapshot(self.tmp), before)   # nothing written or changed
                self.assertFalse(os.path.exists(cache) and any(
                    files for _, _, files in os.walk(cache)), "something was spoken")
        self.assert_embedded(out, good, "image/jpeg")

    def test_undecodable_show_covers_are_refused_by_render_and_feed(self):
        """The show's cover (show.txt's image: in the output's folder) is decoded too: by a
        render that would embed it, and by `feed`, which would publish it."""
        out_dir = self.path("out")
        os.mkdir(out_dir)
        out = os.path.join(out_dir, "ep.mp3")
        cases = broken_images(out_dir)
        write(os.path.join(out_dir, "show.txt"), SHOW.format(image="whole.png"))
        res = self.render(script(), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        res = run(["feed", out_dir, "--base-url", "https://example.net/covered/"])
        self.assertEqual(res.returncode, 0, res.stderr)
        before = snapshot(out_dir)
        for value, words in cases.items():
            with self.subTest(image=value):
                write(os.path.join(out_dir, "show.txt"), SHOW.format(image=value))
                before["show.txt"] = snapshot(out_dir)["show.txt"]
                res = self.render(script(), out)
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"{os.path.join(out_dir, value)}: {words}", res.stderr)
                res = run(["feed", out_dir, "--base-url", "https://example.net/covered/"])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"{os.path.join(out_dir, value)}: {words}", res.stderr)
                self.assertEqual(snapshot(out_dir), before)

    def test_own_cover_is_published_beside_the_episode(self):
        """STEM.cover.jpg/png: the script's image copied as it is, listed in the sidecar and
        removed by the next render that has no own image (the stale-file rule)."""
        data = make_image(os.path.join(self.dir, "art.png"), "1400x1400", "rgb24")
        out = self.path("ep.mp3")
        res = self.render(script("art.png"), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("ep.cover.png"), "rb") as f:
            self.assertEqual(f.read(), data)
        files = {x["name"]: x for x in load(self.path("ep.json"))["files"]}
        self.assertEqual(files["ep.cover.png"]["sha256"], hashlib.sha256(data).hexdigest())
        # a JPEG next time: the PNG copy is stale and goes
        jpeg = make_image(os.path.join(self.dir, "art.jpg"))
        res = self.render(script("art.jpg"), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertFalse(os.path.exists(self.path("ep.cover.png")))
        with open(self.path("ep.cover.jpg"), "rb") as f:
            self.assertEqual(f.read(), jpeg)
        # no own image: no copy (the show's cover is not copied: it is in the folder)
        res = self.render(script(), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(sorted(n for n in os.listdir(self.tmp) if n.startswith("ep.")),
                         ["ep.json", "ep.mp3", "ep.vtt"])

    def test_own_cover_named_as_its_copy_is_refused(self):
        """image: ep.cover.jpg rendered to ep.mp3 beside it: the copy would replace the input."""
        data = make_image(os.path.join(self.dir, "ep.cover.jpg"))
        out = os.path.join(self.dir, "ep.mp3")
        res = self.render(script("ep.cover.jpg"), out)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("which the episode is made from", res.stderr)
        self.assertFalse(os.path.exists(out))
        with open(os.path.join(self.dir, "ep.cover.jpg"), "rb") as f:
            self.assertEqual(f.read(), data)

    def test_large_tag_keeps_the_audio_exact(self):
        data = make_image(os.path.join(self.dir, "big.jpg"), "3000x3000", "yuvj444p", noise=True)
        self.assertGreater(len(data), 4 << 20)
        out = self.path("big.mp3")
        res = self.render(script("big.jpg"), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_embedded(out, data, "image/jpeg")
        side = load(self.path("big.json"))
        self.assertEqual(mpg123_samples(out), side["samples"])   # the LAME tag's gapless info
        # ffprobe reads the same audio behind the tag as in the same episode without one
        res = self.render(script(), self.path("plain.mp3"))
        self.assertEqual(res.returncode, 0, res.stderr)

        def audio(mp3):
            (stream,) = [s for s in ffprobe(mp3, "-show_streams")["streams"]
                         if s["codec_type"] == "audio"]
            return stream["duration_ts"], stream["duration"], stream["start_time"]

        self.assertEqual(audio(out), audio(self.path("plain.mp3")))
        self.assertEqual(mpg123_samples(self.path("plain.mp3")), side["samples"])
        res = run(["check", out])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn("0 MISMATCH", res.stdout)

    def test_show_cover_when_the_script_has_none(self):
        out_dir = self.path("out")
        os.mkdir(out_dir)
        out = os.path.join(out_dir, "ep.mp3")
        data = make_image(os.path.join(out_dir, "show.png"), "1400x1400", "rgb24")
        write(os.path.join(out_dir, "show.txt"), SHOW.format(image="show.png"))
        res = self.render(script(), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_embedded(out, data, "image/png")
        self.assertEqual(load(os.path.join(out_dir, "ep.json"))["image"]["source"], "show")
        # the episode's own image wins over the show's
        own = make_image(os.path.join(self.dir, "own.jpg"), "1400x1400", "yuvj420p", "blue")
        res = self.render(script("own.jpg"), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_embedded(out, own, "image/jpeg")
        # a remote show image is not fetched: no embedded art, no image in the sidecar
        write(os.path.join(out_dir, "show.txt"),
              SHOW.format(image="https://images.example.net/cover.jpg"))
        res = self.render(script(), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("APIC", mutagen_tags(out))
        self.assertNotIn("image", load(os.path.join(out_dir, "ep.json")))
        # no show file: none either
        os.unlink(os.path.join(out_dir, "show.txt"))
        res = self.render(script(), out)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("APIC", mutagen_tags(out))
        # a show file that is wrong is an error at its line, nothing written
        os.unlink(out)
        write(os.path.join(out_dir, "show.txt"), SHOW.format(image="show.png") + "colour: red\n")
        res = self.render(script(), out)
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(os.path.join(out_dir, "show.txt") + ":9:1: ", res.stderr)
        self.assertFalse(os.path.exists(out))
        # a show file that is a FIFO no one writes is refused, not waited on
        os.unlink(os.path.join(out_dir, "show.txt"))
        os.mkfifo(os.path.join(out_dir, "show.txt"))
        res = run([os.path.join(self.dir, "ep.txt"), "-o", out, "--cache", self.cache, "-q"],
                  timeout=120)   # before: waited for ever
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn(os.path.join(out_dir, "show.txt") + ": cannot read the show file (for the "
                      "cover art): not a regular file", res.stderr)
        self.assertFalse(os.path.exists(out))

    def test_page_in_a_feed_links_the_feed(self):
        """A page rendered beside a show file belongs to that show's feed: it links feed.xml
        (what `feed` writes there) to subscribe, for people (an <a>) and for feed readers (a
        <link rel=alternate>); without a show file it links none. The link is to the file
        `feed` then writes, read back by python's own HTML parser and by feedparser."""
        import html.parser

        import feedparser

        class Links(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.found = []

            def handle_starttag(self, tag, attrs):
                a = dict(attrs)
                if a.get("href") == "feed.xml":
                    self.found.append((tag, a.get("rel"), a.get("type")))

        def feed_links(page):
            parser = Links()
            with open(page, encoding="utf-8") as f:
                parser.feed(f.read())
            return sorted(parser.found, key=str)

        out_dir = self.path("out")
        os.mkdir(out_dir)
        out = os.path.join(out_dir, "ep.mp3")
        write(os.path.join(self.dir, "ep.txt"), script())

        def batch():
            res = run(["batch", "-O", out_dir, "--page", "--cache", self.cache, self.dir])
            self.assertEqual(res.returncode, 0, res.stderr)
            return res.stdout

        self.assertIn("1 rendered", batch())
        self.assertEqual(feed_links(os.path.join(out_dir, "ep.html")), [])
        # the show file's arrival changes the page (a remote cover: no embedded art, so the
        # link is all that changes): batch renders it again, then not
        write(os.path.join(out_dir, "show.txt"),
              SHOW.format(image="https://images.example.net/cover.jpg"))
        self.assertIn("1 rendered", batch())
        self.assertIn("1 up to date", batch())
        self.assertEqual(feed_links(os.path.join(out_dir, "ep.html")),
                         [("a", None, "application/rss+xml"),
                          ("link", "alternate", "application/rss+xml")])
        res = run(["feed", out_dir, "--base-url", "https://example.net/covered/"])
        self.assertEqual(res.returncode, 0, res.stderr)
        parsed = feedparser.parse(os.path.join(out_dir, "feed.xml"))
        self.assertEqual(parsed.feed.title, "Covered")
        self.assertEqual(len(parsed.entries), 1)
        # the page's duration claims still hold (check)
        self.assertEqual(run(["check", out, os.path.join(out_dir, "ep.html")]).returncode, 0)

    def assert_md_cover(self, page, file, alt):
        """page's one image is the file beside it (a relative link to it, whatever its name),
        the very image of the HTML page beside it."""
        (image,) = markdown_images(page)
        with open(os.path.splitext(page)[0] + ".html", encoding="utf-8") as f:
            self.assertEqual(html_images(f.read()), [image])
        src, shown = image
        url = urllib.parse.urlsplit(urllib.parse.urljoin("https://example.org/pod/x.md", src))
        self.assertEqual((url.scheme, url.query, url.fragment), ("https", "", ""), src)
        self.assertEqual(urllib.parse.unquote(url.path), "/pod/" + file)
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(page), file)), file)
        self.assertEqual(shown, alt)

    def assert_no_cover(self, page):
        self.assertEqual(markdown_images(page), [])
        with open(os.path.splitext(page)[0] + ".html", encoding="utf-8") as f:
            self.assertEqual(html_images(f.read()), [])

    def test_markdown_page_shows_the_cover(self):
        """STEM.md shows the cover the HTML page shows: the episode's own (its copy beside the
        page, named after an output that needs escaping), else the show's; none without
        either, and none once the script's image: is gone. `check` still passes on it."""
        out_dir = self.path("out")
        os.mkdir(out_dir)
        stem = "ep (1) [draft] #2"
        out = os.path.join(out_dir, stem + ".mp3")
        page = os.path.join(out_dir, stem + ".md")
        data = make_image(os.path.join(self.dir, "own art.png"), "1400x1400", "rgb24")
        res = self.render(script("own art.png"), out, "--page-md", "--page")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_md_cover(page, stem + ".cover.png", "Cover art of Cover test")
        with open(os.path.join(out_dir, stem + ".cover.png"), "rb") as f:
            self.assertEqual(f.read(), data)
        res = run(["check", out, page])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        # no image: the copy and the image on the page are gone
        res = self.render(script(), out, "--page-md", "--page")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_no_cover(page)
        self.assertFalse(os.path.exists(os.path.join(out_dir, stem + ".cover.png")))
        # the show's cover, a file of the folder with a name that needs escaping
        make_image(os.path.join(out_dir, "show (art) [1].jpg"))
        write(os.path.join(out_dir, "show.txt"), SHOW.format(image="show (art) [1].jpg"))
        res = self.render(script(), out, "--page-md", "--page")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_md_cover(page, "show (art) [1].jpg", "Cover art of Cover test")
        # a remote show image is not shown, as on the HTML page
        write(os.path.join(out_dir, "show.txt"),
              SHOW.format(image="https://images.example.net/cover.jpg"))
        res = self.render(script(), out, "--page-md", "--page")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assert_no_cover(page)

    def test_bad_images_are_errors_at_the_image_line_before_speech(self):
        make_image(self.path("elsewhere.jpg"))
        make_image(os.path.join(self.dir, "small.png"), "1000x1000", "rgb24")
        make_image(os.path.join(self.dir, "grey.png"), "1400x1400", "gray")
        make_image(os.path.join(self.dir, "wide.jpg"), "1500x1400")
        write(os.path.join(self.dir, "text.jpg"), "not a picture, whatever its name says\n")
        os.symlink(self.path("elsewhere.jpg"), os.path.join(self.dir, "link.jpg"))
        cases = {
            "../elsewhere.jpg": "is outside the script's folder",
            "link.jpg": "is outside the script's folder",
            "missing.jpg": "cannot open",
            "small.png": "the cover art is 1000x1000 px",
            "wide.jpg": "the cover art is 1500x1400 px",
            "grey.png": "is a PNG that is not in RGB colour",
            "text.jpg": "the cover art must be a JPEG or PNG",
        }
        for value, words in cases.items():
            with self.subTest(image=value):
                cache = self.path("cache-" + value.replace("/", "_"))
                out = self.path("bad.mp3")
                src = write(os.path.join(self.dir, "bad.txt"), script(value))
                res = run([src, "-o", out, "--cache", cache, "-q"])
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn(f"bad.txt:3:8: image '{value}'", res.stderr)
                self.assertIn(words, res.stderr)
                self.assertEqual(os.listdir(self.tmp).count("bad.mp3"), 0)
                self.assertFalse(os.path.exists(self.path("bad.json")))
                entries = [f for _, _, files in os.walk(cache) for f in files] \
                    if os.path.isdir(cache) else []
                self.assertEqual(entries, [], res.stderr)   # nothing was spoken
        # a WAV carries no cover, but its image: is checked all the same
        src = write(os.path.join(self.dir, "bad.txt"), script("small.png"))
        res = run([src, "-o", self.path("bad.wav"), "--cache", self.cache, "-q"])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("bad.txt:3:8: image 'small.png': the cover art is 1000x1000 px", res.stderr)
        self.assertFalse(os.path.exists(self.path("bad.wav")))
        # --allow-path lets a script name a cover in another folder, as for its other files
        out = self.path("allowed.mp3")
        src = write(os.path.join(self.dir, "ok.txt"), script("../elsewhere.jpg"))
        res = run([src, "-o", out, "--cache", self.cache, "-q", "--allow-path", self.tmp])
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(len(mutagen_tags(out)["APIC"]), 1)

    def test_changed_cover_renders_again_in_batch(self):
        make_image(os.path.join(self.dir, "cover.jpg"))
        src = write(os.path.join(self.dir, "ep.txt"), script("cover.jpg"))
        out = self.path("out")

        def batch():
            report = self.path("report.json")
            res = run(["batch", "-O", out, src, "--cache", self.cache, "-q", "--report", report])
            self.assertEqual(res.returncode, 0, res.stderr)
            (episode,) = load(report)["episodes"]
            return episode["status"]

        self.assertEqual(batch(), "rendered")
        first = load(os.path.join(out, "ep.json"))
        self.assertEqual(batch(), "up-to-date")
        data = make_image(os.path.join(self.dir, "cover.jpg"), colour="red")   # a new cover
        self.assertEqual(batch(), "rendered")
        second = load(os.path.join(out, "ep.json"))
        self.assertNotEqual(first["image"]["sha256"], second["image"]["sha256"])
        self.assertNotEqual(first["inputs_sha256"], second["inputs_sha256"])
        self.assert_embedded(os.path.join(out, "ep.mp3"), data, "image/jpeg")
        self.assertEqual(batch(), "up-to-date")


if __name__ == "__main__":
    main()
