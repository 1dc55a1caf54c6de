#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""test_check_dir.py - end-to-end tests of `render-episode check DIR`, a published folder.

Three episodes of different lengths are rendered with every companion (--page, --page-md,
--srt, --transcript-json, chapters) into one folder and `feed` publishes them with a base
URL. `check DIR` must pair each page, sidecar, transcript and feed item with its own MP3
(the explicit `check 01.mp3 *.html` judges them all against one, as asked); then one claim
of each kind is tampered with in a copy and must fail, naming that file only. The measured
lengths are compared with what ffmpeg decodes. Also: a Markdown script rendered where it lies
is never taken for the episode's `--page-md` companion, arguments given the wrong way round
get a message that says what to type, and files another user (uid 65534) plants in a shared
published folder are reported as not checked, a FIFO among them never waited on.

Environment: RE_BIN (the built program), RE_SOURCE_DIR (repo root).
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import Case, env_skip, ffmpeg_samples, main, run, write  # noqa: E402
from test_shared_folders import NOBODY, as_nobody  # noqa: E402

BASE = "https://cdn.example.org/pod/"
TEXT = "The build is green again and the release is on its way. "
SCRIPTS = {   # name: (episode number, sentences): lengths a few seconds apart
    "01": (1, 1),
    "02": (2, 3),
    "03": (3, 6),
}
SHOW = ("description: Small episodes for the check test.\n"
        "image: cover.png\n"
        "category: Technology\n"
        "explicit: false\n"
        "guid: 8c2b0a55-4a55-5d6a-9a3c-1d2d7a6f1e01\n")
SUMMARY = re.compile(r"^render-episode check: (.*): (\d+) episodes?, (\d+) files? checked, "
                     r"(\d+) claims?, (\d+) OK, (\d+) MISMATCH(?:, (\d+) other failures?)?"
                     r"(?:, (\d+) not checked)?$")


def check(*args, timeout=300):
    r = run(["check", *args], timeout=timeout)
    assert r.returncode < 128, "crashed: %d\n%s" % (r.returncode, r.stderr)
    return r


def summary(stdout):
    """(episodes, files, claims, ok, mismatch, other, not_checked) from the last line."""
    m = SUMMARY.match(stdout.splitlines()[-1])
    assert m, stdout
    return tuple(int(g or 0) for g in m.groups()[1:])


def failing(stdout):
    """The report lines that end in MISMATCH."""
    return [line for line in stdout.splitlines() if line.endswith(": MISMATCH")]


class Site(Case):
    """One published folder, rendered once; each test tampers with its own copy."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="re-check-dir-")
        os.chmod(cls.dir, 0o755)
        cls.pub = os.path.join(cls.dir, "pub")
        os.mkdir(cls.pub)
        for name, (number, sentences) in SCRIPTS.items():
            script = write(os.path.join(cls.dir, name + ".txt"),
                           "---\ntitle: Episode %s\nshow: Check Show\nepisode: %d\n"
                           "published: 2026-11-0%dT08:00:00Z\n---\n# Start\n\n%s\n\n# End\n\n"
                           "That was all.\n" % (name, number, number, TEXT * sentences))
            r = run([script, "-o", os.path.join(cls.pub, name + ".mp3"), "-q", "--page",
                     "--page-md", "--srt", "--transcript-json"])
            assert r.returncode == 0, r.stderr
        r = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i",
                            "color=c=blue:s=1400x1400", "-frames:v", "1", "-pix_fmt", "rgb24",
                            os.path.join(cls.pub, "cover.png")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        write(os.path.join(cls.pub, "show.txt"), SHOW)
        r = run(["feed", cls.pub, "--base-url", BASE])
        assert r.returncode == 0, r.stderr

    def copy(self):
        dest = self.path("site")
        shutil.copytree(self.pub, dest)
        return dest

    def edit(self, path, old, new, count=1):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(old, text, path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, count))

    def test_every_claim_holds_each_file_against_its_own_episode(self):
        r = check(self.pub)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(failing(r.stdout), [])
        episodes, files, claims, ok, mismatch, other, not_checked = summary(r.stdout)
        # per episode: the MP3, its sidecar, .html, .md, .vtt, .srt, .transcript.json,
        # .chapters.json; and the feed once
        self.assertEqual((episodes, files, mismatch, other, not_checked), (3, 3 * 8 + 1, 0, 0, 0))
        self.assertEqual(claims, ok)
        claim_lines = [line for line in r.stdout.splitlines() if line.endswith(": OK")]
        self.assertEqual(len(claim_lines), claims)
        for name in SCRIPTS:   # each kind of file is judged, and only against its own MP3
            for suffix in (".json", ".html", ".md", ".vtt", ".srt", ".transcript.json",
                           ".chapters.json"):
                self.assertTrue(any(line.startswith(os.path.join(self.pub, name + suffix) + ":")
                                    for line in claim_lines), (name, suffix, r.stdout))
        # two feed claims (enclosure length, itunes:duration) per episode
        self.assertEqual(sum(line.startswith(os.path.join(self.pub, "feed.xml:"))
                             for line in claim_lines), 6)
        # the measurement is ffmpeg's
        for name in SCRIPTS:
            mp3 = os.path.join(self.pub, name + ".mp3")
            self.assertIn("%s: measured %d samples" % (mp3, ffmpeg_samples(mp3)), r.stdout)

    def test_explicit_form_still_judges_every_file_against_the_one_mp3(self):
        pages = [os.path.join(self.pub, n + ".html") for n in SCRIPTS]
        r = check(os.path.join(self.pub, "01.mp3"), *pages)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        bad = {line.split(":")[0] for line in failing(r.stdout)}
        self.assertEqual(bad, set(pages[1:]))

    def assert_one_file_fails(self, site, path, mismatches=1):
        r = check(site)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        bad = failing(r.stdout)
        self.assertEqual(len(bad), mismatches, r.stdout)
        for line in bad:
            self.assertTrue(line.startswith(path + ":"), line)
        episodes, files, claims, ok, mismatch, other, _ = summary(r.stdout)
        self.assertEqual((episodes, files, mismatch, other), (3, 25, mismatches, 0))
        self.assertEqual(claims - ok, mismatches)
        return r

    def test_a_page_duration_changed(self):
        site = self.copy()
        page = os.path.join(site, "02.html")
        with open(page, encoding="utf-8") as f:
            text = f.read()
        claimed = re.search(r'Duration: <time datetime="(PT\d+S)">', text).group(1)
        wrong = "PT%dS" % (int(claimed[2:-1]) + 7)
        self.edit(page, 'Duration: <time datetime="%s">%s<' % (claimed, claimed),
                  'Duration: <time datetime="%s">%s<' % (claimed, wrong))
        r = self.assert_one_file_fails(site, page)
        self.assertIn("claimed %s, measured %s" % (wrong, claimed), r.stdout)

    def test_a_markdown_page_duration_changed(self):
        site = self.copy()
        page = os.path.join(site, "03.md")
        with open(page, encoding="utf-8") as f:
            claimed = re.search(r"^Duration: (PT\d+S)$", f.read(), re.M).group(1)
        self.edit(page, "Duration: " + claimed, "Duration: PT1H")
        self.assert_one_file_fails(site, page)

    def test_a_feed_items_duration_changed(self):
        site = self.copy()
        feed = os.path.join(site, "feed.xml")
        with open(feed, encoding="utf-8") as f:
            text = f.read()
        item = re.search(r'<enclosure url="%s01\.mp3"[^>]*/>\s*<itunes:duration>(\d+)<' % re.escape(BASE),
                         text)
        self.assertIsNotNone(item, text)
        start, end = item.span(1)
        with open(feed, "w", encoding="utf-8") as f:
            f.write(text[:start] + str(int(item.group(1)) + 60) + text[end:])
        r = self.assert_one_file_fails(site, feed)
        self.assertIn("itunes:duration: claimed %d," % (int(item.group(1)) + 60), r.stdout)

    def test_other_xml_is_no_feed(self):
        """A sitemap (or any XML whose root is not <rss>, <feed> or <rdf:RDF>) beside the feed
        is no feed: not a failure, even when it does not parse."""
        site = self.copy()
        sitemap = write(os.path.join(site, "sitemap.xml"),
                        '<?xml version="1.0" encoding="UTF-8"?>\n'
                        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                        '  <url><loc>%s01.html</loc></url>\n</urlset>\n' % BASE)
        lint = subprocess.run(["xmllint", "--noout", sitemap], capture_output=True, text=True)
        self.assertEqual(lint.returncode, 0, lint.stderr)   # well-formed, by a tool not ours
        write(os.path.join(site, "config.xml"), "<config><unclosed>\n")
        r = check(site)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("sitemap.xml", r.stdout + r.stderr)
        self.assertNotIn("config.xml", r.stdout + r.stderr)
        self.assertEqual(summary(r.stdout), summary(check(self.pub).stdout))

    def test_a_malformed_feed_is_read_and_reported_once(self):
        """An XML file whose root is <rss> is a feed: malformed, it fails (exit 2), with one
        error however many episodes the folder holds (each feed is parsed once)."""
        site = self.copy()
        old = write(os.path.join(site, "old.rss"),
                    '<?xml version="1.0"?>\n<rss version="2.0"><channel><item>\n')
        r = check(site)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(r.stderr.count(old + ":"), 1, r.stderr)
        self.assertIn("malformed XML", r.stderr)
        self.assertEqual(summary(r.stdout)[:2], (3, 25))   # the others are still checked

    def test_episodes_not_in_the_feed_get_one_warning(self):
        """Episodes the feed has no item for yet (future ones): one warning for the feed,
        naming them, not one per episode."""
        site = self.copy()
        for name in ("04", "05"):
            shutil.copy(os.path.join(site, "01.mp3"), os.path.join(site, name + ".mp3"))
        r = check(site)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        feed = os.path.join(site, "feed.xml")
        lines = [line for line in r.stderr.splitlines() if line.startswith(feed + ":")]
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertIn("04.mp3, 05.mp3", lines[0])
        self.assertIn("2 of the folder's 5 episodes", lines[0])
        # the feed's claims are still judged, each against its own MP3, the feed counted once
        self.assertEqual(summary(r.stdout)[:2], (5, 25 + 2))

    def test_a_cue_time_changed(self):
        site = self.copy()
        vtt = os.path.join(site, "01.vtt")
        self.edit(vtt, "00:00:00.000 -->", "00:00:00.100 -->")
        r = self.assert_one_file_fails(site, vtt)
        self.assertIn(vtt + ": size and SHA-256 as the render of ", r.stdout)

    def test_chapters_changed(self):
        site = self.copy()
        chapters = os.path.join(site, "02.chapters.json")
        self.edit(chapters, '"title": "End"', '"title": "Fin"')
        self.assert_one_file_fails(site, chapters)

    def test_another_episodes_transcript_in_its_place(self):
        site = self.copy()
        shutil.copy(os.path.join(site, "01.srt"), os.path.join(site, "03.srt"))
        self.assert_one_file_fails(site, os.path.join(site, "03.srt"))

    def test_a_page_without_its_episode_is_named(self):
        site = self.copy()
        os.rename(os.path.join(site, "03.mp3"), os.path.join(site, "old-03.mp3.bak"))
        r = check(site)
        self.assertIn(os.path.join(site, "03.html") + ": warning: not checked: no episode beside it",
                      r.stderr)
        # the feed's item for 03.mp3 is about no MP3 here: not checked; the other two hold
        self.assertIn(os.path.join(site, "feed.xml") + ": warning: not checked: 1 of its 3 items "
                      "name no MP3 in " + site, r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(failing(r.stdout), [])
        episodes, files, claims, ok, mismatch, other, not_checked = summary(r.stdout)
        # 03.html, .vtt, .srt, .transcript.json, .chapters.json and the feed's item
        self.assertEqual((episodes, files, mismatch, not_checked), (2, 2 * 8 + 1, 0, 6))

    def test_an_empty_folder_checks_nothing(self):
        r = check(self.path())
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(self.path() + ": no episode (NAME.mp3) to check", r.stdout)

    def test_json_report(self):
        import json
        r = check("--json", self.pub)
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual((doc["episode_count"], doc["files_checked"], doc["mismatches"],
                          doc["failed"], doc["exit"]), (3, 25, 0, 0, 0))
        self.assertEqual([os.path.basename(e["mp3"]["file"]) for e in doc["episodes"]],
                         ["01.mp3", "02.mp3", "03.mp3"])
        self.assertEqual(len(doc["episodes"][0]["companions"]), 4)

    def test_dir_takes_no_file_and_no_fix(self):
        r = check(self.pub, os.path.join(self.pub, "01.html"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("check DIR takes no FILE", r.stderr)
        r = check("--fix", self.pub)
        self.assertEqual(r.returncode, 1)
        self.assertIn("--fix cannot be used with a folder", r.stderr)


class Mistakes(Case):
    def test_swapped_operands_say_what_to_type(self):
        r = check("ep.html", "ep.mp3")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("check takes the audio first: render-episode check ep.mp3 ep.html", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_a_page_alone_says_what_to_type(self):
        r = check("ep.html")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("ep.html is not an MP3: check takes the audio first", r.stderr)
        self.assertIn("render-episode check DIR", r.stderr)


class MarkdownScript(Case):
    """A Markdown script rendered where it lies: CHANGELOG.md beside CHANGELOG.mp3 and its
    page is the script, not the --page-md companion (the render did not write it)."""

    def test_script_beside_its_outputs(self):
        folder = self.path("notes")
        os.mkdir(folder)
        script = os.path.join(folder, "CHANGELOG.md")
        shutil.copy(os.path.join(os.environ.get("RE_SOURCE_DIR", "."), "samples", "CHANGELOG.md"),
                    script)
        with open(script, "rb") as f:
            before = f.read()
        r = run([script, "-q", "--page", "--max-duration", "40s"])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(script, "rb") as f:
            self.assertEqual(f.read(), before)   # the render did not touch its script
        mp3, page = os.path.join(folder, "CHANGELOG.mp3"), os.path.join(folder, "CHANGELOG.html")
        r = check(mp3, page)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("CHANGELOG.md", r.stdout + r.stderr)
        r = check(folder)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("CHANGELOG.md", r.stdout + r.stderr)
        self.assertEqual(summary(r.stdout)[:2], (1, 5))   # mp3, json, html, vtt, chapters

    def test_a_page_md_of_a_txt_script_is_still_checked(self):
        folder = self.path("ep")
        os.mkdir(folder)
        script = write(os.path.join(folder, "ep.txt"), "---\ntitle: Ep\n---\n# One\n\nHello there.\n")
        r = run([script, "-q", "--page-md"])
        self.assertEqual(r.returncode, 0, r.stderr)
        page = os.path.join(folder, "ep.md")
        self.edit_md(page)
        r = check(folder)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertTrue(failing(r.stdout) and all(line.startswith(page + ":")
                                                  for line in failing(r.stdout)), r.stdout)

    def edit_md(self, page):
        with open(page, encoding="utf-8") as f:
            text = f.read()
        with open(page, "w", encoding="utf-8") as f:
            f.write(re.sub(r"^Duration: PT\d+S$", "Duration: PT9M", text, flags=re.M))


class SharedFolder(Case):
    """Another user's files in a shared (sticky, world-writable) published folder."""

    def setUp(self):
        super().setUp()
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        os.chmod(self.tmp, 0o755)

    def test_another_users_files_are_not_checked(self):
        folder = self.path("shared")
        os.mkdir(folder)
        script = write(self.path("ep.txt"), "---\ntitle: Ep\n---\n# One\n\nHello there.\n")
        r = run([script, "-q", "--page", "-o", os.path.join(folder, "ep.mp3")])
        self.assertEqual(r.returncode, 0, r.stderr)
        os.chmod(folder, 0o1777)

        def plant():
            os.mkfifo(os.path.join(folder, "zz.mp3"))        # would wait for a writer
            os.mkfifo(os.path.join(folder, "feed.xml"))
            with open(os.path.join(folder, "evil.mp3"), "wb") as f:
                f.write(b"\xff\xfb" + b"\0" * 1000)
            os.symlink("/etc/shadow", os.path.join(folder, "link.html"))
        self.assertTrue(as_nobody(plant))
        r = check(folder, timeout=120)   # a bound on a hang, not a timing
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for name in ("zz.mp3", "feed.xml", "evil.mp3"):
            self.assertIn("%s: warning: not checked: it belongs to another user (uid %d)"
                          % (os.path.join(folder, name), NOBODY), r.stderr)
        self.assertNotIn("shadow", r.stdout + r.stderr)
        episodes, files, claims, ok, mismatch, other, not_checked = summary(r.stdout)
        self.assertEqual((episodes, mismatch, other, not_checked), (1, 0, 0, 4))

    def test_another_users_page_at_an_episodes_name(self):
        folder = self.path("shared")
        os.mkdir(folder)
        script = write(self.path("ep.txt"), "---\ntitle: Ep\n---\n# One\n\nHello there.\n")
        r = run([script, "-q", "--page", "-o", os.path.join(folder, "ep.mp3")])
        self.assertEqual(r.returncode, 0, r.stderr)
        os.chmod(folder, 0o1777)
        os.remove(os.path.join(folder, "ep.html"))

        def plant():
            os.mkfifo(os.path.join(folder, "ep.html"))
        self.assertTrue(as_nobody(plant))
        r = check(folder, timeout=120)
        self.assertIn(os.path.join(folder, "ep.html") + ": warning: not checked: it belongs to "
                      "another user (uid %d)" % NOBODY, r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(summary(r.stdout)[-1], 1)


if __name__ == "__main__":
    main()
