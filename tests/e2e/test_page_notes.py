# SPDX-License-Identifier: GPL-3.0-or-later
"""A Markdown script's document as show notes, written by an attacker: the episode page
(`--page`), the Markdown page (`--page-md`) and the feed's `content:encoded` carry no element
that makes a reader's browser or app fetch anything, run anything or leave for a `javascript:`
address.

The notes hold every way we know to ask for a remote file or run a script: Markdown images
(inline, by reference, protocol-relative, empty alt), raw HTML (<img onerror>, <script>,
video/audio/source/picture/srcset, iframe, object, embed, link rel=stylesheet, <style> with
url() and @import, a style attribute, meta refresh, a form with an image input, svg image, a
table background, <base>), and links to javascript:, vbscript:, data: and file: addresses
(inline, autolinks and raw <a>). What we decided: an image in the notes is never shown; it
becomes a link to its address (when that is http, https, mailto or relative), its alt text the
link's words, on both pages and in the feed, so the page keeps its promise of fetching only its
own files, and a podcast app showing the notes loads no third party's pixel either.

The judges are not ours: xmllint (libxml2's HTML parser) turns the page into a tree that
python's ElementTree walks; the Markdown page is read by cmark-gfm's own library with raw
HTML let through (CMARK_OPT_UNSAFE), its HTML by python's html.parser; the feed by
ElementTree, its content:encoded by html.parser. `check` passes on both pages."""
import ctypes
import ctypes.util
import html.parser
import os
import subprocess
import urllib.parse
import xml.etree.ElementTree as ET

from common import Case, main, run, write

TRACKER = "tracker.example"
HOSTILE = f"""---
title: Hostile notes
---
# Notes

A pixel: ![tracking pixel](http://{TRACKER}/pixel.gif?u=1) and ![](https://{TRACKER}/empty.gif).
A reference ![ref image][px], a protocol-relative ![pr](//{TRACKER}/pr.gif "a title"),
a data image ![dot](data:image/gif;base64,R0lGODlhAQABAAAAACw=) and a local ![local](art.png).

[px]: https://{TRACKER}/ref.gif

Links: [safe](https://example.org/a?b=1&c=2), [mail](mailto:a@example.org),
[relative](other.html#x), [js](javascript:alert(1)), [JS](JAVASCRIPT:alert(1)),
[vb](vbscript:msgbox), [data](data:text/html;base64,PHNjcmlwdD4=), [file](file:///etc/passwd),
[tab](java&#9;script:alert(1)), <javascript:alert(2)>, <https://example.org/auto> and
[nested ![inner](http://{TRACKER}/inner.gif)](https://example.org/outer).

<script>alert(3)</script>

<img src="http://{TRACKER}/raw.gif" onerror="alert(4)">

<video poster="http://{TRACKER}/poster.jpg" src="http://{TRACKER}/v.mp4"></video>
<audio src="http://{TRACKER}/a.mp3"></audio>
<picture><source srcset="http://{TRACKER}/s.webp"><img src="x.png" srcset="http://{TRACKER}/s2.png 2x"></picture>
<iframe src="http://{TRACKER}/frame"></iframe>
<object data="http://{TRACKER}/o.swf"></object><embed src="http://{TRACKER}/e.swf">
<link rel="stylesheet" href="http://{TRACKER}/s.css">
<style>@import url(http://{TRACKER}/i.css); body{{background:url(http://{TRACKER}/bg.png)}}</style>
<div style="background-image:url(http://{TRACKER}/div.png)">styled</div>
<meta http-equiv="refresh" content="0;url=http://{TRACKER}/refresh">
<form action="http://{TRACKER}/form"><input type="image" src="http://{TRACKER}/input.png"></form>
<svg><image href="http://{TRACKER}/svg.png"/></svg>
<table background="http://{TRACKER}/table.png"><tr><td>cell</td></tr></table>
<base href="http://{TRACKER}/">

Text with <span onclick="alert(5)">inline html</span>, <a href="javascript:alert(6)">a raw
link</a> and <img src=http://{TRACKER}/inline.gif>.

- [x] done task
- [ ] open task

| a | b |
|---|:-:|
| `x\\|y` | **bold** |

```html
<script>alert(7)</script>
```

Duration: 99 minutes is text, not a claim.
"""

SHOW = """title: Hostile Show
description: Notes from an attacker.
image: https://images.example.net/cover.jpg
category: Technology
explicit: false
guid: 0c3f8d2a-6a3e-5d0b-9a4b-5a8c2f1e7d90
"""

# The images of the notes, as the links they become: (words, address).
IMAGE_LINKS = [("tracking pixel", f"http://{TRACKER}/pixel.gif?u=1"),
               (f"https://{TRACKER}/empty.gif", f"https://{TRACKER}/empty.gif"),
               ("ref image", f"https://{TRACKER}/ref.gif"),
               ("pr", f"//{TRACKER}/pr.gif"),
               ("local", "art.png")]

# Attributes whose value a browser fetches (or submits to, or navigates to by itself).
FETCHING = {"src", "srcset", "poster", "data", "background", "action", "formaction", "ping",
            "codebase", "cite", "longdesc", "manifest", "lowsrc", "dynsrc", "archive",
            "{http://www.w3.org/1999/xlink}href", "xlink:href"}
NEVER = {"iframe", "frame", "object", "embed", "video", "source", "picture", "svg", "image",
         "base", "form", "applet", "portal", "math", "template"}


def safe_link(url):
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    return scheme in ("http", "https", "mailto", "") and url.strip() == url and \
        not any(c in url for c in "\t\n\r\\")


def in_folder(url):
    """A relative address of a file in the page's own folder (a media fragment allowed)."""
    parts = urllib.parse.urlsplit(url)
    return (not parts.scheme and not parts.netloc and not parts.query and parts.path
            and not parts.path.startswith("/") and "/" not in urllib.parse.unquote(parts.path))


class Tags(html.parser.HTMLParser):
    """Every start tag of an HTML text with its attributes, and the words of each <a>."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.links, self._open = [], [], []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "a":
            self._open.append([dict(attrs).get("href"), ""])

    def handle_data(self, data):
        for link in self._open:
            link[1] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._open:
            href, words = self._open.pop()
            self.links.append((" ".join(words.split()), href))


def cmark_html(markdown):
    """The Markdown as cmark-gfm's library (not ours) renders it, raw HTML let through."""
    lib = ctypes.CDLL(ctypes.util.find_library("cmark-gfm") or "libcmark-gfm.so")
    lib.cmark_markdown_to_html.restype = ctypes.c_void_p
    lib.cmark_markdown_to_html.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    libc = ctypes.CDLL(None)
    libc.free.argtypes = [ctypes.c_void_p]
    data = markdown.encode()
    rendered = lib.cmark_markdown_to_html(data, len(data), 1 << 17)   # CMARK_OPT_UNSAFE
    try:
        return ctypes.string_at(rendered).decode("utf-8")
    finally:
        libc.free(rendered)


class PageNotes(Case):
    def setUp(self):
        super().setUp()
        self.out = self.path("site")
        os.mkdir(self.out)
        write(os.path.join(self.out, "show.txt"), SHOW)
        script = write(self.path("hostile.md"), HOSTILE)
        res = run([script, "-o", os.path.join(self.out, "ep.mp3"), "--page", "--page-md", "-q",
                   "--no-cache"])
        self.assertEqual(res.returncode, 0, res.stderr)

    def read(self, name):
        with open(os.path.join(self.out, name), encoding="utf-8") as f:
            return f.read()

    def assert_harmless(self, tags, where, own_files=(), own_scripts=False):
        """No tag of `tags` runs script (but the page's own inline ones, with own_scripts) or
        fetches anything but `own_files` (relative names of files in the page's folder)."""
        for tag, attrs in tags:
            self.assertNotIn(tag, NEVER, f"{where}: <{tag} {attrs}>")
            for name, value in attrs.items():
                self.assertFalse(name.lower().startswith("on"), f"{where}: <{tag} {name}>")
                if name in FETCHING or (name == "href" and tag not in ("a", "link")):
                    self.assertTrue(in_folder(value or ""), f"{where}: <{tag} {name}={value!r}>")
                    self.assertIn(urllib.parse.unquote(value.split("#")[0]), own_files,
                                  f"{where}: <{tag} {name}={value!r}>")
                if name == "style":
                    self.assertNotIn("url(", value.replace(" ", "").lower(), where)
                if name == "href" and tag == "a":
                    self.assertTrue(safe_link(value), f"{where}: <a href={value!r}>")
            if tag == "img":
                self.assertIn(attrs.get("src"), own_files, where)
            if tag == "meta":
                self.assertNotIn("http-equiv", attrs, where)
            if tag == "link":
                self.assertIn((attrs.get("rel"), attrs.get("href")),
                              [("icon", "data:,"), ("alternate", "feed.xml")], where)
            if tag == "script":
                self.assertTrue(own_scripts, f"{where}: a script")
                self.assertNotIn("src", attrs, where)

    def assert_notes_links(self, links, where):
        """The images became links to their addresses, with their alt text; the unsafe links
        are words without an address; the safe ones stay."""
        for words, href in IMAGE_LINKS + [("safe", "https://example.org/a?b=1&c=2"),
                                          ("mail", "mailto:a@example.org"),
                                          ("relative", "other.html#x")]:
            self.assertIn((words, href), links, where)
        for words, href in links:
            self.assertTrue(href and safe_link(href), f"{where}: [{words}]({href!r})")
            self.assertNotIn("alert", href, where)

    def test_html_page_fetches_only_its_own_files(self):
        page = os.path.join(self.out, "ep.html")
        # libxml2's HTML parser as xmllint runs it, into XML python reads
        res = subprocess.run(["xmllint", "--html", "--xmlout", page], capture_output=True,
                             text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        tree = ET.fromstring(res.stdout.encode())
        tags = [(el.tag, dict(el.attrib)) for el in tree.iter()]
        self.assert_harmless(tags, "ep.html", own_files={"ep.mp3", "ep.vtt"}, own_scripts=True)
        for el in tree.iter("style"):
            self.assertNotIn("url(", "".join(el.itertext()), "a style element fetches")
            self.assertNotIn("@import", "".join(el.itertext()))
        scripts = list(tree.iter("script"))
        self.assertEqual(len(scripts), 2)   # the JSON-LD and the player's own
        self.assertFalse(any("alert" in "".join(s.itertext()) for s in scripts))
        notes = [s for s in tree.iter("section") if s.get("class") == "notes"]
        self.assertEqual(len(notes), 1)
        # the same checks by python's own HTML parser, on the file as written
        parsed = Tags(self.read("ep.html"))
        self.assert_harmless(parsed.tags, "ep.html (html.parser)", own_files={"ep.mp3", "ep.vtt"},
                             own_scripts=True)
        self.assert_notes_links(parsed.links, "ep.html")
        boxes = [a for t, a in parsed.tags if t == "input" and a.get("type") == "checkbox"]
        self.assertEqual([("checked" in a, "disabled" in a) for a in boxes],
                         [(True, True), (False, True)])
        res = run(["check", os.path.join(self.out, "ep.mp3"), page])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_markdown_page_carries_only_safe_markdown(self):
        md = self.read("ep.md")
        parsed = Tags(cmark_html(md))
        self.assert_harmless(parsed.tags, "ep.md", own_files=set())
        self.assertNotIn("alert(3)", md.replace("\\", "").split("```html")[0])
        self.assert_notes_links(parsed.links, "ep.md")
        # the notes' own headings are two levels down, under the page's "## Show notes"
        self.assertIn(("h3", {}), parsed.tags)
        # the code block is still code, as written
        self.assertIn("<code class=\"language-html\">&lt;script&gt;alert(7)&lt;/script&gt;",
                      cmark_html(md))
        res = run(["check", os.path.join(self.out, "ep.mp3"), os.path.join(self.out, "ep.md")])
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)

    def test_feed_carries_the_same_safe_notes(self):
        res = run(["feed", self.out, "--base-url", "https://example.org/pod/"])
        self.assertEqual(res.returncode, 0, res.stderr)
        tree = ET.parse(os.path.join(self.out, "feed.xml"))
        (encoded,) = tree.iter("{http://purl.org/rss/1.0/modules/content/}encoded")
        parsed = Tags(encoded.text)
        self.assert_harmless(parsed.tags, "content:encoded", own_files=set())
        self.assert_notes_links(parsed.links, "content:encoded")
        self.assertNotIn("alert(3)", encoded.text)
        self.assertNotIn(("img", {}), [(t, {}) for t, _ in parsed.tags])


if __name__ == "__main__":
    main()
