# SPDX-License-Identifier: GPL-3.0-or-later
"""Batch rendering: every script rendered once, failures isolated, shards partition the work,
outputs byte-identical to single renders whatever -j, reports readable by other tools."""
import json
import os
import random
import subprocess
import xml.etree.ElementTree as ET

from common import (BIN, CACHE_HOME, Case, env_skip, ffmpeg_samples, listing, main, run, wait_until_stoppable,
                    write)


def script(i, extra=""):
    return (f"---\ntitle: Episode {i}\nshow: Batch Show\npublished: 2026-11-{i + 1:02d}\n---\n"
            f"# Part one\n\nThis is episode number {i}. It has two paragraphs.\n\n"
            f"The second paragraph is here, with a pause. [pause 500ms] Done.{extra}\n")


class Batch(Case):
    def setUp(self):
        super().setUp()
        self.scripts = self.path("scripts")
        os.mkdir(self.scripts)
        for i in range(5):
            write(os.path.join(self.scripts, f"ep{i}.txt"), script(i))
        write(os.path.join(self.scripts, "broken.txt"), "---\ntitle: Broken\n---\nBad [pause 0ms] pause.\n")
        write(os.path.join(self.scripts, "notes.md"), "not a script")

    def batch(self, *args):
        return run(["batch", *args])

    def test_renders_all_isolates_failures_and_reports(self):
        out = self.path("out")
        res = self.batch("-j", "2", "-O", out, self.scripts, "--report", self.path("r.json"),
                         "--junit", self.path("j.xml"))
        self.assertEqual(res.returncode, 1, res.stderr)            # one episode failed
        self.assertIn("broken.txt:4:5:", res.stderr)               # FILE:LINE:COL of the bad pause
        for i in range(5):
            self.assertTrue(os.path.exists(os.path.join(out, f"ep{i}.mp3")))
            self.assertTrue(os.path.exists(os.path.join(out, f"ep{i}.json")))
        self.assertFalse(any(n.startswith("broken") for n in listing(out)))
        self.assertFalse(any(n.startswith(".") for n in listing(out)))   # no temporary debris
        self.assertRegex(res.stdout, r"6 episodes: 5 rendered, 0 up to date, 1 failed")
        with open(self.path("r.json"), encoding="utf-8") as f:
            report = json.load(f)
        by_script = {os.path.basename(e["script"]): e for e in report["episodes"]}
        self.assertEqual(by_script["broken.txt"]["status"], "failed")
        self.assertIn("pause", by_script["broken.txt"]["error"])
        ok = by_script["ep0.txt"]
        with open(os.path.join(out, "ep0.json"), encoding="utf-8") as f:
            side = json.load(f)
        self.assertEqual((ok["duration"], ok["duration_ms"], ok["bytes"]),
                         (side["duration"], side["duration_ms"], side["bytes"]))
        subprocess.run(["xmllint", "--noout", self.path("j.xml")], check=True)
        suite = ET.parse(self.path("j.xml")).getroot().find("testsuite")
        self.assertEqual((suite.get("tests"), suite.get("failures")), ("6", "1"))
        failed = [c for c in suite.iter("testcase") if c.find("failure") is not None]
        self.assertEqual(len(failed), 1)
        self.assertIn("broken.txt", failed[0].get("name"))

    def test_markdown_in_a_folder_needs_front_matter(self):
        """In a folder, a *.md is a script only when it starts with front matter (a README.md
        is never rendered by surprise); a .md named on the command line is rendered."""
        folder = self.path("notes")
        os.mkdir(folder)
        write(os.path.join(folder, "README.md"), "# About this folder\n\nNot an episode.\n")
        write(os.path.join(folder, "notes.md"), "---\ntitle: Notes\n---\n## One\n\n- First item\n")
        readme = self.path("README.md")
        write(readme, "# Named\n\nSpoken because it is named.\n")
        out = self.path("out")
        res = self.batch("-O", out, folder)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertRegex(res.stdout, r"1 episodes?: 1 rendered, 0 up to date, 0 failed, 1 skipped\n")
        # the README is not rendered, and said so, with why and what to do
        self.assertIn(f"{folder}/README.md: skipped: Markdown without front matter is not "
                      "taken from a folder (a README); start it with a '---' line and front "
                      "matter, or name the file itself to render it\n", res.stderr)
        self.assertEqual(sorted(n for n in listing(out) if n.endswith(".mp3")), ["notes.mp3"])
        self.assertEqual(ffmpeg_samples(os.path.join(out, "notes.mp3")),
                         json.load(open(os.path.join(out, "notes.json")))["samples"])
        out2 = self.path("out2")
        res = self.batch("-O", out2, readme)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(sorted(n for n in listing(out2) if n.endswith(".mp3")), ["README.mp3"])
        self.assertEqual(json.load(open(os.path.join(out2, "README.json")))["title"], "Named")

    def test_the_show_file_and_what_is_not_a_file_in_a_folder(self):
        """A folder's show.txt is the show's (feed reads it), not a script: left out without a
        word; a *.txt that is not a regular file is listed as skipped, the batch goes on."""
        folder = self.path("show")
        os.mkdir(folder)
        write(os.path.join(folder, "show.txt"), "title: Batch Show\ndescription: d\n")
        write(os.path.join(folder, "ep1.txt"), script(1))
        os.mkdir(os.path.join(folder, "drafts.txt"))
        res = self.batch("-O", self.path("out"), folder)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn("show.txt", res.stderr + res.stdout)
        self.assertIn(f"{folder}/drafts.txt: skipped: not a regular file", res.stderr)
        self.assertRegex(res.stdout, r"1 episodes?: 1 rendered, 0 up to date, 0 failed, 1 skipped\n")

    def test_progress_in_a_log_is_whole_lines(self):
        """--progress with stderr a file (a CI log): one whole line per finished episode, no
        carriage return, no terminal escape."""
        folder = self.path("few")
        os.mkdir(folder)
        for i in range(3):
            write(os.path.join(folder, f"ep{i}.txt"), script(i))
        # bytes, not text: text mode would read a carriage return as a newline
        res = subprocess.run([BIN, "batch", "-j", "1", "-O", self.path("out"), folder,
                              "--progress"], capture_output=True, timeout=300,
                             env=dict(os.environ, XDG_CACHE_HOME=CACHE_HOME))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn(b"\r", res.stderr)
        self.assertNotIn(b"\033", res.stderr)
        self.assertTrue(res.stderr.endswith(b"\n"), res.stderr)
        lines = [line for line in res.stderr.split(b"\n") if b" episodes" in line]
        self.assertEqual([line.split(b" ")[0] for line in lines], [b"1/3", b"2/3", b"3/3"],
                         res.stderr)

    def test_same_bytes_alone_and_with_any_jobs(self):
        os.remove(os.path.join(self.scripts, "broken.txt"))
        for jobs in ("1", "2", "3"):
            res = self.batch("-j", jobs, "-O", self.path("out" + jobs), self.scripts)
            self.assertEqual(res.returncode, 0, res.stderr)
        alone = self.path("alone")
        os.mkdir(alone)
        res = run([os.path.join(self.scripts, "ep3.txt"), "-o", os.path.join(alone, "ep3.mp3")])
        self.assertEqual(res.returncode, 0, res.stderr)
        for name in ("ep3.mp3", "ep3.json", "ep3.vtt", "ep3.chapters.json"):
            blobs = set()
            for d in ("out1", "out2", "out3", "alone"):
                with open(os.path.join(self.path(d), name), "rb") as f:
                    blobs.add(f.read())
            self.assertEqual(len(blobs), 1, name + " differs between -j values or a single render")

    def test_longest_script_starts_first(self):
        """Episodes start longest script first (the batch's tail is then its shortest
        episodes), whatever their names: with -j 1 they run one after another, so the
        filesystem's modification times of the MP3s give the order they ran in; the
        table still lists them by name."""
        folder = self.path("sizes")
        os.mkdir(folder)
        sentence = "This sentence is here to make the script longer than the others. "
        for name, paragraphs in (("a", 1), ("b", 6), ("c", 3), ("d", 2)):
            body = "\n\n".join(f"Paragraph {k}. " + sentence * 2 for k in range(paragraphs))
            write(os.path.join(folder, f"{name}.txt"), f"---\ntitle: {name}\n---\n{body}\n")
        out = self.path("out")
        res = self.batch("-j", "1", "-O", out, folder)
        self.assertEqual(res.returncode, 0, res.stderr)
        ran = sorted("abcd", key=lambda n: os.stat(os.path.join(out, f"{n}.mp3")).st_mtime_ns)
        self.assertEqual(ran, ["b", "c", "d", "a"])
        table = [line.split()[0] for line in res.stdout.splitlines() if line[:1] in "abcd" and line[1:2] == " "]
        self.assertEqual(table, ["a", "b", "c", "d"])

    def test_an_episode_that_outlasts_the_rest_has_the_same_bytes(self):
        """An episode much longer than the others starts with every core for its encoder
        (it will be left running alone); its outputs are byte for byte those of a -j 1
        batch and of a render of its own."""
        folder = self.path("mixed")
        os.mkdir(folder)
        sentence = "A longer paragraph for the episode that outlasts the others in the batch. "
        body = "\n\n".join(f"Part {k}. " + sentence * 3 for k in range(8))
        write(os.path.join(folder, "long.txt"), f"---\ntitle: Long\n---\n{body}\n")
        for i in range(2):
            write(os.path.join(folder, f"short{i}.txt"), script(i))
        for jobs in ("1", "2"):
            res = self.batch("-j", jobs, "-O", self.path("out" + jobs), folder)
            self.assertEqual(res.returncode, 0, res.stderr)
        alone = self.path("alone")
        os.mkdir(alone)
        res = run([os.path.join(folder, "long.txt"), "-o", os.path.join(alone, "long.mp3")])
        self.assertEqual(res.returncode, 0, res.stderr)
        for name in ("long.mp3", "long.json", "long.vtt"):
            blobs = set()
            for d in ("out1", "out2", "alone"):
                with open(os.path.join(self.path(d), name), "rb") as f:
                    blobs.add(f.read())
            self.assertEqual(len(blobs), 1, name + " differs between -j values or a single render")
        with open(os.path.join(self.path("out2"), "long.json"), encoding="utf-8") as f:
            samples = json.load(f)["samples"]
        self.assertEqual(ffmpeg_samples(os.path.join(self.path("out2"), "long.mp3")), samples)

    def test_cache_and_up_to_date(self):
        os.remove(os.path.join(self.scripts, "broken.txt"))
        cache, out = self.path("cache"), self.path("out")
        res = self.batch("-O", out, "--cache", cache, "--report", self.path("cold.json"), self.scripts)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(out, "ep2.mp3"), "rb") as f:
            cold_bytes = f.read()
        # nothing changed: nothing rendered, nothing synthesized
        res = self.batch("-O", out, "--cache", cache, "--report", self.path("warm.json"), self.scripts)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("warm.json"), encoding="utf-8") as f:
            warm = json.load(f)
        self.assertEqual({e["status"] for e in warm["episodes"]}, {"up-to-date"})
        with open(self.path("cold.json"), encoding="utf-8") as f:
            cold = json.load(f)
        self.assertEqual([cold[k] for k in ("rendered", "up_to_date", "failed", "not_run")], [5, 0, 0, 0])
        self.assertEqual([warm[k] for k in ("rendered", "up_to_date", "failed", "not_run")], [0, 5, 0, 0])
        # a file the sidecar lists, edited since: not up to date (the feed would refuse it)
        vtt = os.path.join(out, "ep1.vtt")
        with open(vtt, encoding="utf-8") as f:
            rendered_vtt = f.read()
        write(vtt, rendered_vtt + "\nNOTE edited by hand\n")
        res = self.batch("-O", out, "--cache", cache, "--report", self.path("touched.json"), self.scripts)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("touched.json"), encoding="utf-8") as f:
            touched = {os.path.basename(e["script"]): e["status"] for e in json.load(f)["episodes"]}
        self.assertEqual(touched["ep1.txt"], "rendered")
        self.assertEqual(touched["ep2.txt"], "up-to-date")
        with open(vtt, encoding="utf-8") as f:
            self.assertEqual(f.read(), rendered_vtt)
        # outputs gone but cache warm: re-rendered from the cache alone, same bytes
        out2 = self.path("out2")
        res = self.batch("-O", out2, "--cache", cache, "--report", self.path("cached.json"), self.scripts)
        with open(self.path("cached.json"), encoding="utf-8") as f:
            cached = json.load(f)
        self.assertEqual(sum(e["segments_synthesized"] for e in cached["episodes"]), 0)
        self.assertGreater(sum(e["segments_cached"] for e in cached["episodes"]), 0)
        with open(os.path.join(out2, "ep2.mp3"), "rb") as f:
            self.assertEqual(f.read(), cold_bytes)
        # editing one paragraph re-synthesizes that segment only
        with open(os.path.join(self.scripts, "ep2.txt"), encoding="utf-8") as f:
            text = f.read()
        write(os.path.join(self.scripts, "ep2.txt"), text.replace("It has two paragraphs.", "It has two parts."))
        res = self.batch("-O", out, "--cache", cache, "--report", self.path("edit.json"), self.scripts)
        with open(self.path("edit.json"), encoding="utf-8") as f:
            edit = {os.path.basename(e["script"]): e for e in json.load(f)["episodes"]}
        self.assertEqual(edit["ep2.txt"]["status"], "rendered")
        self.assertEqual(edit["ep2.txt"]["segments_synthesized"], 1)
        self.assertEqual(edit["ep1.txt"]["status"], "up-to-date")
        # a corrupt cache entry is detected and rebuilt, never used
        entries = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs if f.endswith(".seg")]
        self.assertGreater(len(entries), 0)
        for e in entries:
            with open(e, "r+b") as f:
                f.seek(-40, os.SEEK_END)
                f.write(b"\xff" * 8)
        res = self.batch("-j", "1", "-O", self.path("out3"), "--cache", cache, "--report", self.path("bad.json"),
                         self.scripts)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("bad.json"), encoding="utf-8") as f:
            bad = json.load(f)
        # every distinct segment in use is spoken again exactly once (episodes share some
        # segments; one entry is ep2's paragraph from before the edit, no longer used)
        self.assertEqual(sum(e["segments_synthesized"] for e in bad["episodes"]), len(entries) - 1)
        with open(os.path.join(self.path("out3"), "ep1.mp3"), "rb") as a, open(os.path.join(out, "ep1.mp3"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_damaged_or_missing_output_is_rendered_again(self):
        """An episode is up to date only when its files are all there and whole: a truncated
        MP3 (a copy cut short, a full disk) or a missing transcript is rendered again, and
        ffmpeg then decodes exactly the samples the sidecar claims."""
        os.remove(os.path.join(self.scripts, "broken.txt"))
        out = self.path("out")
        res = self.batch("-O", out, self.scripts)
        self.assertEqual(res.returncode, 0, res.stderr)
        mp3 = os.path.join(out, "ep1.mp3")
        with open(mp3, "rb") as f:
            whole = f.read()
        with open(mp3, "r+b") as f:
            f.truncate(len(whole) // 2)
        os.remove(os.path.join(out, "ep3.vtt"))
        res = self.batch("-O", out, "--report", self.path("again.json"), self.scripts)
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(self.path("again.json"), encoding="utf-8") as f:
            status = {os.path.basename(e["script"]): e["status"] for e in json.load(f)["episodes"]}
        self.assertEqual(status, {"ep0.txt": "up-to-date", "ep1.txt": "rendered", "ep2.txt": "up-to-date",
                                  "ep3.txt": "rendered", "ep4.txt": "up-to-date"})
        with open(mp3, "rb") as f:
            self.assertEqual(f.read(), whole)
        with open(os.path.join(out, "ep1.json"), encoding="utf-8") as f:
            self.assertEqual(ffmpeg_samples(mp3), json.load(f)["samples"])
        self.assertTrue(os.path.exists(os.path.join(out, "ep3.vtt")))

    def many(self, count):
        folder = self.path("many")
        os.mkdir(folder)
        long = "\n\n".join(f"Paragraph {k} of this episode says a few things." for k in range(40))
        for i in range(count):
            write(os.path.join(folder, f"m{i:02d}.txt"), f"---\ntitle: M{i}\n---\n{long}\n")
        return folder

    def test_interrupted_batch_reports_what_did_not_run(self):
        import signal
        import time
        folder, out = self.many(8), self.path("out")
        proc = subprocess.Popen([BIN, "batch", "-j", "2", "-O", out, "--no-cache", folder,
                                 "--report", self.path("r.json"), "--junit", self.path("j.xml")],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, XDG_CACHE_HOME=self.path("c")))
        self.assertTrue(wait_until_stoppable(proc), "the batch ended before it could be stopped")
        time.sleep(1.5)
        proc.send_signal(signal.SIGTERM)
        stdout, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 143, err)
        with open(self.path("r.json"), encoding="utf-8") as f:
            report = json.load(f)
        states = [e["status"] for e in report["episodes"]]
        self.assertIn("not-run", states)
        self.assertEqual(report["rendered"] + report["up_to_date"] + report["failed"] + report["not_run"], 8)
        for e in report["episodes"]:
            name = os.path.basename(e["output"])
            self.assertEqual(os.path.exists(os.path.join(out, name)), e["status"] == "rendered", name)
        suite = ET.parse(self.path("j.xml")).getroot().find("testsuite")
        self.assertEqual(int(suite.get("skipped")), states.count("not-run"))
        self.assertFalse(any(n.startswith(".") for n in listing(out)))

    def test_workers_die_with_the_batch(self):
        import signal
        import time
        folder, out = self.many(6), self.path("out")
        proc = subprocess.Popen([BIN, "batch", "-j", "2", "-O", out, "--no-cache", folder],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        time.sleep(0.5)
        before = listing(out) if os.path.exists(out) else []
        time.sleep(2.0)
        after = listing(out) if os.path.exists(out) else []
        self.assertEqual(before, after, "a worker went on writing after the batch was killed")
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
        self.assertNotIn(folder, ps)
        self.assertFalse(any(n.startswith(".") for n in after))

    def test_lexicon_change_resynthesizes_only_what_it_changes(self):
        os.remove(os.path.join(self.scripts, "broken.txt"))
        lexicon = write(self.path("team.lexicon"), "pause ~= pawz\n")
        cache, out = self.path("cache"), self.path("out")
        args = ["-j", "1", "-O", out, "--cache", cache, "--lexicon", lexicon, self.scripts]
        res = self.batch(*args, "--report", self.path("a.json"))
        self.assertEqual(res.returncode, 0, res.stderr)
        # an entry that matches nothing in the scripts: outputs are stale (inputs changed) but
        # every paragraph comes from the cache
        write(lexicon, "pause ~= pawz\nzebra = zeebra\n")
        res = self.batch(*args, "--report", self.path("b.json"))
        with open(self.path("b.json"), encoding="utf-8") as f:
            b = json.load(f)["episodes"]
        self.assertEqual({e["status"] for e in b}, {"rendered"})
        self.assertEqual(sum(e["segments_synthesized"] for e in b), 0)
        # changing how "pause" is said re-synthesizes exactly the paragraphs that contain it
        write(lexicon, "pause ~= paws\n")
        res = self.batch(*args, "--report", self.path("c.json"))
        with open(self.path("c.json"), encoding="utf-8") as f:
            c = json.load(f)["episodes"]
        self.assertEqual(sum(e["segments_synthesized"] for e in c), 1)   # "...with a pause." (shared)
        self.assertGreater(sum(e["segments_cached"] for e in c), 0)

    def test_shards_partition_the_scripts(self):
        os.remove(os.path.join(self.scripts, "broken.txt"))
        seen = []
        for k in (1, 2, 3):
            out = self.path(f"shard{k}")
            res = self.batch("-O", out, "--shard", f"{k}/3", self.scripts)
            self.assertEqual(res.returncode, 0, res.stderr)
            seen += [n for n in listing(out) if n.endswith(".mp3")]
        self.assertEqual(sorted(seen), [f"ep{i}.mp3" for i in range(5)])

    def test_usage_errors(self):
        self.assertEqual(self.batch(self.scripts).returncode, 1)                 # no -O
        self.assertEqual(self.batch("-O", self.path("o"), "--shard", "4/3", self.scripts).returncode, 1)
        res = self.batch("-O", self.path("o"), self.path("missing"))
        self.assertEqual(res.returncode, 2)
        self.assertIn("missing", res.stderr)
        twin = self.path("twin")
        os.mkdir(twin)
        write(os.path.join(twin, "ep1.txt"), script(1))
        res = self.batch("-O", self.path("o"), self.scripts, twin)
        self.assertEqual(res.returncode, 2)
        self.assertIn("same output", res.stderr)


class RefusedReports(Case):
    """A --report or --junit file that cannot be written (its folder missing, a directory,
    another user's link) is found before any episode is rendered: exit 2, an error naming
    it, no episode's file and no report written, the output folder not left behind. A report
    in the output folder that the batch creates is written as before."""

    def setUp(self):
        super().setUp()
        os.mkdir(self.path("in"))
        write(self.path("in", "ep.txt"), script(1))
        write(self.path("in", "ep2.txt"), script(2))
        os.mkdir(self.path("taken"))

    def assertRefused(self, option, target, reason, *other):
        out = self.path("out")
        res = run(["batch", "-O", out, self.path("in"), *other, option, target, "--no-cache"])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertNotIn("episodes:", res.stdout)   # no summary: nothing ran
        self.assertFalse(os.path.exists(out), listing(out) if os.path.isdir(out) else out)
        for name in other[1::2]:
            self.assertFalse(os.path.lexists(name), name)
        self.assertIn(f"{target}: {option}: ", res.stderr)
        self.assertIn(reason, res.stderr)
        return res

    def test_refused_before_anything_is_rendered(self):
        cases = [
            ("--report", self.path("nowhere", "r.json"), "No such file or directory", ()),
            ("--report", self.path("taken"), "is a directory", ()),
            ("--junit", self.path("nowhere", "j.xml"), "No such file or directory",
             ("--report", self.path("r.json"))),
            ("--junit", self.path("taken"), "is a directory", ("--report", self.path("r.json"))),
        ]
        for option, target, reason, other in cases:
            with self.subTest(option=option, target=target):
                self.assertRefused(option, target, reason, *other)

    def test_another_users_link_is_refused_before_anything_is_rendered(self):
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        real = write(self.path("real.json"), "yesterday\n")
        for option, name in (("--report", "r.json"), ("--junit", "j.xml")):
            with self.subTest(option=option):
                link = self.path(name)
                os.symlink(real, link)
                os.lchown(link, 65534, 65534)
                self.assertRefused(option, link, "is a symlink owned by another user (uid 65534)")
                with open(real) as f:
                    self.assertEqual(f.read(), "yesterday\n")
                os.unlink(link)

    def test_a_report_in_the_output_folder_it_creates(self):
        out = self.path("fresh", "out")
        os.mkdir(self.path("fresh"))
        res = run(["batch", "-O", out, self.path("in"), "--report", os.path.join(out, "r.json"),
                   "--junit", os.path.join(out, "j.xml"), "--no-cache"])
        self.assertEqual(res.returncode, 0, res.stderr)
        with open(os.path.join(out, "r.json"), encoding="utf-8") as f:
            self.assertEqual(len(json.load(f)["episodes"]), 2)
        suite = ET.parse(os.path.join(out, "j.xml")).getroot().find("testsuite")
        self.assertEqual(suite.get("tests"), "2")
        self.assertTrue(os.path.exists(os.path.join(out, "ep.mp3")))


class Names(Case):
    """A script whose name is not plain text (ESC, U+0001, byte 0xFF, U+FFFE) is refused before
    anything runs, shown escaped: its raw bytes never reach the terminal or a report."""

    def test_names_that_are_not_text(self):
        folder = self.path("in")
        os.mkdir(folder)
        names = [b"ctl\x1b[31m.txt", b"one\x01.txt", b"bad\xff.txt", "nonchar\ufffe.txt".encode()]
        for name in names + [b"fine.txt"]:
            with open(os.path.join(folder.encode(), name), "w") as f:
                f.write("---\ntitle: T\n---\nHi.\n")
        res = subprocess.run([BIN, "batch", "-O", self.path("out"), folder, "--report", self.path("r.json"),
                              "--junit", self.path("j.xml")], capture_output=True)
        self.assertEqual(res.returncode, 2, res.stderr)
        err = res.stderr.decode("utf-8")   # valid UTF-8 all through
        for shown in ("ctl\\u001B[31m.txt", "one\\u0001.txt", "bad\\xFF.txt", "nonchar\\uFFFE.txt"):
            self.assertIn(shown + ": cannot be an episode's name", err)
        self.assertNotRegex(err, "[\x00-\x08\x0b-\x1f\x7f]")
        self.assertFalse(os.path.exists(self.path("out", "fine.mp3")))   # nothing ran


class Collisions(Case):
    """Two episodes that would share any file (x.txt writes x.chapters.json, and so does
    x.chapters.txt as its sidecar) are refused before anything runs: before, both were
    reported rendered and every later run rendered them again."""

    def test_any_shared_file_is_refused(self):
        folder = self.path("in")
        os.mkdir(folder)
        for name in ("x", "x.chapters", "y", "y.transcript", "z"):
            write(os.path.join(folder, name + ".txt"), "---\ntitle: T\n# H\n---\nHi.\n".replace("# H\n", ""))
        res = run(["batch", "-O", self.path("out"), folder])
        self.assertEqual(res.returncode, 2, res.stderr)
        self.assertIn("x.chapters.txt: would write x.chapters.json, as ", res.stderr)
        self.assertIn("y.transcript.txt: would write y.transcript.json, as ", res.stderr)
        self.assertEqual(res.stderr.count("would write"), 2, res.stderr)
        self.assertFalse(os.path.exists(self.path("out", "z.mp3")))

class Processes(Case):
    """-j N bounds the batch: at most N episodes and N speech processes at once in all (before,
    each of N episodes had N speech processes of its own: 271 processes at -j 16). Counted by
    sampling the process table while it runs: an upper bound, never a timing."""

    @staticmethod
    def children():
        """{ppid: [pid, ...]} of every process, from /proc."""
        kids = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                kids.setdefault(ppid, []).append(int(entry))
        return kids

    def test_j_bounds_the_processes(self):
        folder = self.path("many")
        os.mkdir(folder)
        sentence = "This paragraph goes on for a while so that speaking it takes the engine some time. "
        for i in range(4):
            write(os.path.join(folder, f"e{i}.txt"), "---\ntitle: T\n---\n" + "\n\n".join(
                sentence * 12 for k in range(8)) + "\n")
        proc = subprocess.Popen([BIN, "batch", "-j", "3", "-O", self.path("out"), folder, "--no-cache",
                                 "-q", "--loudness", "off"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        most_speech = 0
        while proc.poll() is None:
            kids = self.children()
            workers = kids.get(proc.pid, [])
            speech = sum(len(kids.get(w, [])) for w in workers)
            most_speech = max(most_speech, speech)
            self.assertLessEqual(len(workers), 3)
            self.assertLessEqual(speech, 3, f"{speech} speech processes under -j 3")
        self.assertEqual(proc.returncode, 0, proc.stderr.read())
        self.assertGreater(most_speech, 0)


def unused_uid():
    """A uid no process on the machine runs as (RLIMIT_NPROC counts every process of the uid,
    not only ours: 65534 is shared with other services), checked in /proc."""
    used = set()
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("Uid:"):
                        used.update(int(u) for u in line.split()[1:])
        except (OSError, ValueError):
            pass
    while True:
        uid = 61000 + random.randrange(3000)
        if uid not in used:
            return uid


class ProcessLimit(Case):
    """Under a process limit (RLIMIT_NPROC, which binds only a user who is not root) a batch
    whose workers cannot start still prints its table and writes its report, each episode
    failed with the reason."""

    def test_refused_workers_are_reported(self):
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        import resource
        folder = self.path("limited")
        os.makedirs(os.path.join(folder, "in"))
        for i in range(3):
            write(os.path.join(folder, "in", f"e{i}.txt"), "---\ntitle: T\n---\nHello there.\n")
        os.chmod(self.tmp, 0o755)
        os.chmod(folder, 0o777)

        uid = unused_uid()

        def as_nobody():
            os.setgid(uid)
            os.setuid(uid)
            resource.setrlimit(resource.RLIMIT_NPROC, (2, 2))   # the program and the engine's thread

        try:
            res = subprocess.run([BIN, "batch", "-j", "2", "-O", "out", "in", "--report", "r.json"],
                                 cwd=folder, preexec_fn=as_nobody, capture_output=True, text=True,
                                 env=dict(os.environ, HOME=folder, XDG_CACHE_HOME=os.path.join(folder, "c")))
        except PermissionError:
            env_skip(self, "unprivileged-user")
        self.assertEqual(res.returncode, 1, res.stderr)
        self.assertIn("3 episodes: 0 rendered, 0 up to date, 3 failed", res.stdout)
        self.assertIn("in/e0.txt: cannot start a worker process: Resource temporarily unavailable", res.stderr)
        with open(os.path.join(folder, "r.json")) as f:
            report = json.load(f)
        self.assertEqual([e["status"] for e in report["episodes"]], ["failed"] * 3)

    def test_a_worker_without_a_process_waits_for_another_to_end(self):
        """-j 4 under a limit of 10 processes: a worker that cannot start its speech process
        while the batch's other workers run is started again when one of them has ended, so
        every episode renders, each byte for byte as without the limit."""
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        import resource
        folder = self.path("busy")
        os.makedirs(os.path.join(folder, "in"))
        for i in range(6):
            write(os.path.join(folder, "in", f"e{i}.txt"),
                  f"---\ntitle: T{i}\n---\nHello there, this is episode {i}. A second sentence.\n")
        os.chmod(self.tmp, 0o755)
        os.chmod(folder, 0o777)
        uid = unused_uid()

        def limited():
            os.setgid(uid)
            os.setuid(uid)
            resource.setrlimit(resource.RLIMIT_NPROC, (10, 10))

        env = dict(os.environ, HOME=folder, XDG_CACHE_HOME=os.path.join(folder, "c"))
        try:
            res = subprocess.run([BIN, "batch", "-j", "4", "-O", "out", "in", "--no-cache"],
                                 cwd=folder, preexec_fn=limited, capture_output=True, text=True,
                                 env=env)
        except PermissionError:
            env_skip(self, "unprivileged-user")
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn("6 episodes: 6 rendered, 0 up to date, 0 failed", res.stdout)
        free = run(["batch", "-j", "1", "-O", "free", "in", "--no-cache"], cwd=folder, env=env)
        self.assertEqual(free.returncode, 0, free.stderr)
        for i in range(6):
            with open(os.path.join(folder, "out", f"e{i}.mp3"), "rb") as a, \
                    open(os.path.join(folder, "free", f"e{i}.mp3"), "rb") as b:
                self.assertEqual(a.read(), b.read(), f"e{i}.mp3")

    def test_no_thread_for_the_engine_is_an_error_not_an_abort(self):
        """espeak-ng 1.51 aborts (an assert in fifo.c) when it cannot start its thread: asked
        first, so a render at the limit ends in exit 2 with the reason, never SIGABRT."""
        if os.geteuid() != 0:
            env_skip(self, "unprivileged-user")
        import resource
        folder = self.path("no-thread")
        os.mkdir(folder)
        write(os.path.join(folder, "ep.txt"), "---\ntitle: T\n---\nHello there.\n")
        os.chmod(self.tmp, 0o755)
        os.chmod(folder, 0o777)

        uid = unused_uid()

        def as_nobody():
            os.setgid(uid)
            os.setuid(uid)
            resource.setrlimit(resource.RLIMIT_NPROC, (1, 1))

        for args in (["ep.txt", "-o", "ep.mp3"], ["batch", "-O", "out", "ep.txt"]):
            with self.subTest(args=args):
                try:
                    # (LeakSanitizer, in the sanitizer build, needs a thread at exit: none to be had)
                    asan = os.environ.get("ASAN_OPTIONS", "")
                    res = subprocess.run([BIN, *args], cwd=folder, preexec_fn=as_nobody, capture_output=True,
                                         text=True, env=dict(os.environ, HOME=folder,
                                                             XDG_CACHE_HOME=os.path.join(folder, "c"),
                                                             ASAN_OPTIONS=(asan + ":" if asan else "")
                                                             + "detect_leaks=0"))
                except PermissionError:
                    env_skip(self, "unprivileged-user")
                self.assertEqual(res.returncode, 2, res.stderr)
                self.assertIn("cannot start the speech engine: it needs a thread", res.stderr)

if __name__ == "__main__":
    main()
