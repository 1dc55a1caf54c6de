# SPDX-License-Identifier: GPL-3.0-or-later
"""A fleet of runners (issue 19): `--shard auto` from each scheduler's variables, and the remote
segment cache against a real nginx with WebDAV on 127.0.0.1. The command lines of docs/ci.md's
GitHub Actions, GitLab and Kubernetes examples are read from that file and run as written, with
the variables set as each system sets them. Every output is compared byte for byte with one
local batch over all the scripts; what was synthesized and what came from the remote is read
from the batch reports, and what reached the server from nginx's own access log and folder."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from common import BIN, SRC, NginxDav, main, write

DOC = os.path.join(SRC, "docs", "ci.md")
SCRIPTS = 8
# Variables that would make --shard auto see a scheduler (the machine running the tests may be
# a CI runner itself): never inherited.
SCHEDULER_VARS = ("CI_NODE_INDEX", "CI_NODE_TOTAL", "CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL",
                  "BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", "JOB_COMPLETION_INDEX",
                  "RENDER_EPISODE_SHARD_COUNT", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN",
                  "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_STEP",
                  "RENDER_EPISODE_CACHE_URL", "RENDER_EPISODE_CACHE_TOKEN", "RENDER_EPISODE_CACHE_NETRC")
WARN_OFF = "not using the remote segment cache for the rest of this run"

# The sanitizer build (RE_SANITIZED) looks for memory errors: an answer's status takes the same
# code as another of its class (stored, refused; a miss, the remote off), so there the edge
# tests send one of each class and body shape (docs/testing.md); the optimized build sends all.
SANITIZED = bool(os.environ.get("RE_SANITIZED"))


def script(i):
    words = " ".join(["fleet"] * (i % 3))
    return (f"---\ntitle: Fleet episode {i}\nshow: Fleet Show\npublished: 2026-12-{i + 1:02d}\n---\n"
            f"# Part {i}\n\nThis is fleet episode number {i}. {words}\n\n"
            f"Its second paragraph, number {i}, ends here.\n")


def doc_sections():
    """{'## heading': [fenced block text, ...]} of docs/ci.md."""
    sections, current, block = {}, None, None
    with open(DOC, encoding="utf-8") as f:
        for line in f:
            if block is not None:
                if line.startswith("```"):
                    sections.setdefault(current, []).append("".join(block))
                    block = None
                else:
                    block.append(line)
            elif line.startswith("```"):
                block = []
            elif line.startswith("## "):
                current = line.strip()
    return sections


def doc_block(heading_start):
    for heading, blocks in doc_sections().items():
        if heading.startswith(heading_start):
            return blocks[0]
    raise AssertionError(f"docs/ci.md has no section '{heading_start}'")


def doc_batch_command(heading_start):
    """The one `render-episode batch` line of a section's example, without its YAML around it."""
    lines = [ln.strip() for ln in doc_block(heading_start).splitlines() if "render-episode batch" in ln]
    assert len(lines) == 1, lines
    return re.sub(r"^(- run: |- )", "", lines[0])


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in SCHEDULER_VARS}
    env["PATH"] = os.path.dirname(os.path.abspath(BIN)) + os.pathsep + env.get("PATH", "")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def start_shell(command, cwd, env):
    """Runs a documented command line as a CI runner's shell would: sh -c, in the job's folder."""
    return subprocess.Popen(["sh", "-c", command], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(processes):
    results = []
    for p in processes:
        out, err = p.communicate(timeout=300)
        results.append((p.returncode, out, err))
    return results


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def outputs_of(folder):
    """{file name: bytes} of the episodes' files in an output folder (reports left out)."""
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))
            if not name.startswith(("report", "junit")) and os.path.isfile(os.path.join(folder, name))}


class Fleet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="re-fleet-")
        cls.scripts = os.path.join(cls.tmp, "scripts")
        os.mkdir(cls.scripts)
        for i in range(SCRIPTS):
            write(os.path.join(cls.scripts, f"ep{i}.txt"), script(i))
        # the reference: one local batch over everything, with a cold cache of its own
        cls.ref_cache = os.path.join(cls.tmp, "ref-cache")
        res = subprocess.run([BIN, "batch", "-j", "2", "-q", "-O", os.path.join(cls.tmp, "ref"), cls.scripts,
                              "--cache", cls.ref_cache, "--report", os.path.join(cls.tmp, "ref.json")],
                             capture_output=True, text=True, env=clean_env(), timeout=300)
        assert res.returncode == 0, res.stderr
        cls.reference = outputs_of(os.path.join(cls.tmp, "ref"))
        cls.ref_report = read_json(os.path.join(cls.tmp, "ref.json"))
        cls.segments = sum(e["segments_synthesized"] for e in cls.ref_report["episodes"])
        assert cls.segments == 2 * SCRIPTS, cls.ref_report   # every paragraph distinct, spoken once
        assert len([n for n in cls.reference if n.endswith(".mp3")]) == SCRIPTS

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="t-", dir=self.tmp)
        self.servers = []

    def tearDown(self):
        for server in self.servers:
            server.stop()

    def nginx(self):
        server = NginxDav(os.path.join(self.dir, "nginx")).start()
        self.servers.append(server)
        return server

    def runner(self, name):
        """A runner's own checkout: scripts/ in it, and its own HOME (so its own default cache)."""
        folder = os.path.join(self.dir, name)
        shutil.copytree(self.scripts, os.path.join(folder, "scripts"))
        return folder

    def assertSameOutputs(self, files):
        self.assertEqual(sorted(files), sorted(self.reference))
        for name, data in files.items():
            self.assertEqual(data, self.reference[name], f"{name} differs from the one local batch")

    def assertEachOnce(self, reports):
        names = [os.path.basename(e["script"]) for r in reports for e in r["episodes"]]
        self.assertEqual(sorted(names), sorted(f"ep{i}.txt" for i in range(SCRIPTS)))   # each once
        for r in reports:
            self.assertEqual(r["failed"], 0)

    def batch(self, *args, env=None):
        return subprocess.run([BIN, "batch", "-q", *args], capture_output=True, text=True,
                              env=env or clean_env(), timeout=300)

    # ---- the three documented fleets ----------------------------------------------------------

    def test_github_actions_matrix_and_merged_reports(self):
        command = doc_batch_command("## GitHub Actions")
        runners = [self.runner(f"gh{k}") for k in (1, 2, 3, 4)]
        procs = []
        for k, folder in enumerate(runners, 1):
            line = command.replace("${{ matrix.shard }}", str(k))
            self.assertNotIn("${{", line)
            procs.append(start_shell(line, folder, clean_env(HOME=folder, XDG_CACHE_HOME=folder)))
        results = finish(procs)
        for rc, out, err in results:
            self.assertEqual(rc, 0, err)
        collected, reports = {}, []
        for k, folder in enumerate(runners, 1):
            out = os.path.join(folder, "out")
            reports.append(read_json(os.path.join(out, f"report-{k}.json")))
            subprocess.run(["xmllint", "--noout", os.path.join(out, f"junit-{k}.xml")], check=True)
            for name, data in outputs_of(out).items():
                self.assertNotIn(name, collected)           # no file made by two runners
                collected[name] = data
        self.assertEachOnce(reports)
        self.assertSameOutputs(collected)                   # the download-artifact step's out/
        # runner 2 again, its cache restored by actions/cache and its outputs gone: no speech
        shutil.rmtree(os.path.join(runners[1], "out"))
        rc, out, err = finish([start_shell(command.replace("${{ matrix.shard }}", "2"), runners[1],
                                           clean_env(HOME=runners[1]))])[0]
        self.assertEqual(rc, 0, err)
        again = read_json(os.path.join(runners[1], "out", "report-2.json"))
        self.assertEqual(sum(e["segments_synthesized"] for e in again["episodes"]), 0)
        self.assertEqual(sum(e["segments_cached"] for e in again["episodes"]), 4)
        # the documented merge of the four reports equals the report of one batch
        merged_dir = os.path.join(self.dir, "merged", "out")
        os.makedirs(merged_dir)
        for k, folder in enumerate(runners, 1):
            shutil.copy(os.path.join(folder, "out", f"report-{k}.json"), merged_dir)
        res = subprocess.run(["sh", "-c", doc_block("## Merging")], cwd=os.path.dirname(merged_dir),
                             capture_output=True, text=True, env=clean_env())
        self.assertEqual(res.returncode, 0, res.stderr)
        merged = read_json(os.path.join(merged_dir, "report.json"))
        self.assertEqual([os.path.basename(e["output"]) for e in merged["episodes"]],
                         [os.path.basename(e["output"]) for e in self.ref_report["episodes"]])
        for key in ("rendered", "up_to_date", "failed", "not_run"):
            self.assertEqual(merged[key], self.ref_report[key], key)
        self.assertEqual([(e["duration_ms"], e["bytes"]) for e in merged["episodes"]],
                         [(e["duration_ms"], e["bytes"]) for e in self.ref_report["episodes"]])

    def test_gitlab_parallel_shares_the_remote_cache(self):
        server = self.nginx()
        url = server.url() + "/team"
        command = doc_batch_command("## GitLab CI")
        self.assertNotIn("--cache-url", command)            # the URL comes from the CI variable

        def fleet(tag):
            runners = [self.runner(f"{tag}{k}") for k in (1, 2, 3, 4)]
            procs = [start_shell(command, folder, clean_env(CI_NODE_INDEX=k, CI_NODE_TOTAL=4,
                                                            RENDER_EPISODE_CACHE_URL=url, HOME=folder))
                     for k, folder in enumerate(runners, 1)]
            collected, reports = {}, []
            for k, (rc, out, err) in enumerate(finish(procs), 1):
                self.assertEqual(rc, 0, err)
                self.assertEqual(out.splitlines()[0],
                                 f"shard {k}/4 from GitLab CI: CI_NODE_INDEX={k}, CI_NODE_TOTAL=4")
                self.assertNotIn("warning", err)
                folder = runners[k - 1]
                reports.append(read_json(os.path.join(folder, "out", f"report-{k}.json")))
                collected.update(outputs_of(os.path.join(folder, "out")))
            self.assertEachOnce(reports)
            self.assertSameOutputs(collected)
            episodes = [e for r in reports for e in r["episodes"]]
            return (sum(e["segments_synthesized"] for e in episodes),
                    sum(e["segments_remote"] for e in episodes))

        # a cold fleet: every paragraph spoken once, by one runner, and stored on the server
        self.assertEqual(fleet("cold"), (self.segments, 0))
        self.assertEqual(len(server.objects("cache/team")), self.segments)
        self.assertEqual(server.requests("PUT"), self.segments)
        # a second fleet with empty local caches: nothing spoken, everything from the server
        self.assertEqual(fleet("warm"), (0, self.segments))
        self.assertEqual(server.requests("PUT"), self.segments)   # nothing stored twice

    def test_kubernetes_indexed_job(self):
        server = self.nginx()
        block = doc_block("## Kubernetes")
        command = doc_batch_command("## Kubernetes")
        completions = int(re.search(r"completions: (\d+)", block).group(1))
        self.assertIn(f"--shard-count {completions}", command)
        work = self.runner("volume")                       # one ReadWriteMany volume for all pods
        pods = []
        for index in range(completions):
            home = os.path.join(self.dir, f"pod{index}")    # each pod's own file system
            os.mkdir(home)
            pods.append(start_shell(command, work, clean_env(
                JOB_COMPLETION_INDEX=index, HOME=home, XDG_CACHE_HOME=os.path.join(home, ".cache"),
                RENDER_EPISODE_CACHE_URL=server.url("cache/k8s"))))
        reports = []
        for index, (rc, out, err) in enumerate(finish(pods)):
            self.assertEqual(rc, 0, err)
            self.assertEqual(out.splitlines()[0], f"shard {index + 1}/{completions} from Kubernetes "
                             f"indexed Job: JOB_COMPLETION_INDEX={index}, --shard-count {completions}")
            reports.append(read_json(os.path.join(work, "out", f"report-{index}.json")))
            self.assertTrue(os.path.isdir(os.path.join(self.dir, f"pod{index}", ".cache", "render-episode")))
        self.assertEachOnce(reports)
        self.assertSameOutputs(outputs_of(os.path.join(work, "out")))
        self.assertEqual(len(server.objects("cache/k8s")), self.segments)

    # ---- a remote that fails: the outputs never change -------------------------------------

    def remote_batch(self, url, *extra, env=None):
        out = os.path.join(self.dir, "out")
        res = self.batch("-j", "1", "-O", out, self.scripts, "--cache", os.path.join(self.dir, "local"),
                         "--cache-url", url, "--report", os.path.join(self.dir, "r.json"), *extra, env=env)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertSameOutputs(outputs_of(out))
        return res, read_json(os.path.join(self.dir, "r.json"))

    def fresh_runner(self):
        """No local cache and no outputs: a new runner."""
        for name in ("local", "out"):
            shutil.rmtree(os.path.join(self.dir, name), ignore_errors=True)

    def test_server_killed_mid_run(self):
        server = self.nginx()
        out = os.path.join(self.dir, "out")
        proc = subprocess.Popen([BIN, "batch", "-q", "-j", "1", "-O", out, self.scripts, "--cache",
                                 os.path.join(self.dir, "local"), "--cache-url", server.url()],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        deadline = time.monotonic() + 120
        while server.requests("PUT") == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        server.signal(signal.SIGKILL)                       # the server dies mid-run
        stored = server.requests("PUT")
        _, err = proc.communicate(timeout=300)
        self.assertEqual(proc.returncode, 0, err)
        self.assertGreater(stored, 0)
        self.assertLess(stored, self.segments)              # it died before the run ended
        self.assertEqual(err.count(WARN_OFF), 1, err)       # said once, the batch went on
        self.assertSameOutputs(outputs_of(out))

    def test_server_stopped_is_a_timeout(self):
        server = self.nginx()
        server.signal(signal.SIGSTOP)                       # accepts connections, never answers
        res, report = self.remote_batch(server.url(), "--cache-timeout", "1")
        self.assertEqual(res.stderr.count(WARN_OFF), 1, res.stderr)
        self.assertIn("imed out", res.stderr)
        self.assertEqual(sum(e["segments_synthesized"] for e in report["episodes"]), self.segments)

    def test_server_answering_500(self):
        server = self.nginx()
        res, report = self.remote_batch(server.url("broken"))
        self.assertEqual(res.stderr.count(WARN_OFF), 1, res.stderr)
        self.assertIn("answered HTTP 500 to a read", res.stderr)
        self.assertEqual(server.requests("GET"), 1)         # not asked again after the failure
        self.assertEqual(server.requests("PUT"), 0)

    def test_server_refusing_writes(self):
        server = self.nginx()
        res, report = self.remote_batch(server.url("readonly"))
        self.assertEqual(res.stderr.count("refused a write (HTTP 403)"), 1, res.stderr)
        self.assertEqual(server.requests("PUT"), 1)          # one refusal, then no more writes
        self.assertEqual(server.requests("GET"), self.segments)   # reads go on
        self.assertEqual(sum(e["segments_synthesized"] for e in report["episodes"]), self.segments)

    def test_corrupt_truncated_and_foreign_objects_are_misses(self):
        server = self.nginx()
        url = server.url("cache/c")
        self.remote_batch(url)
        objects = server.objects("cache/c")
        self.assertEqual(len(objects), self.segments)
        base = os.path.join(server.root, "cache", "c")
        paths = [os.path.join(base, o) for o in objects[:4]]
        with open(paths[0], "r+b") as f:                    # one flipped bit in the audio
            f.seek(os.path.getsize(paths[0]) // 2)
            byte = f.read(1)
            f.seek(-1, os.SEEK_CUR)
            f.write(bytes([byte[0] ^ 1]))
        with open(paths[1], "r+b") as f:                    # truncated
            f.truncate(os.path.getsize(paths[1]) - 100)
        shutil.copy(paths[3], paths[2])                     # another key's entry (foreign)
        self.fresh_runner()
        res, report = self.remote_batch(url)
        self.assertEqual(res.stderr.count("that is not a valid entry"), 1, res.stderr)
        self.assertNotIn(WARN_OFF, res.stderr)
        episodes = report["episodes"]
        self.assertEqual(sum(e["segments_synthesized"] for e in episodes), 3)
        self.assertEqual(sum(e["segments_remote"] for e in episodes), self.segments - 3)
        for obj in objects[:3]:                             # replaced by good entries
            with open(os.path.join(base, obj), "rb") as a, \
                    open(os.path.join(self.dir, "local", obj), "rb") as b:
                self.assertEqual(a.read(), b.read(), obj)

    def test_credentials_work_and_are_never_printed(self):
        server = self.nginx()
        netrc = write(os.path.join(self.dir, "netrc"),
                      f"machine 127.0.0.1 login {server.USER} password {server.PASSWORD}\n")
        env = clean_env(RENDER_EPISODE_CACHE_NETRC=netrc)
        res, _ = self.remote_batch(server.url("private"), env=env)
        self.assertNotIn("warning", res.stderr)
        self.assertEqual(len(server.objects("private")), self.segments)
        self.fresh_runner()
        res, report = self.remote_batch(server.url("private"), env=env)
        self.assertEqual(sum(e["segments_remote"] for e in report["episodes"]), self.segments)
        # wrong credentials: in the URL, or as a bearer token; the run goes on, nothing shows them
        for url, extra_env, secret in (
                (f"http://fleet:wrong-pw-771@127.0.0.1:{server.port}/private", {}, "wrong-pw-771"),
                (server.url("private"), {"RENDER_EPISODE_CACHE_TOKEN": "tok-secret-5521"}, "tok-secret-5521")):
            self.fresh_runner()
            res, report = self.remote_batch(url, env=clean_env(**extra_env))
            self.assertIn("answered HTTP 401 to a read", res.stderr)
            self.assertIn(f"http://127.0.0.1:{server.port}/private", res.stderr)
            everything = res.stdout + res.stderr + json.dumps(report)
            self.assertNotIn(secret, everything)
            self.assertNotIn("fleet:", everything)

    def test_render_uses_the_remote_too(self):
        server = self.nginx()
        script = os.path.join(self.scripts, "ep3.txt")
        for run in ("cold", "warm"):          # warm: the remote filled, the local cache new
            out = os.path.join(self.dir, run, "ep3.mp3")
            os.makedirs(os.path.dirname(out))
            res = subprocess.run([BIN, script, "-o", out, "-q", "--cache", os.path.join(self.dir, run, "cache")],
                                 capture_output=True, text=True, timeout=300,
                                 env=clean_env(RENDER_EPISODE_CACHE_URL=server.url("cache/one")))
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(res.stderr, "")
            self.assertSameOutputs({**self.reference, **outputs_of(os.path.dirname(out))})
        self.assertEqual(server.requests("PUT"), 2)          # its two paragraphs, stored once
        self.assertEqual(server.requests("GET"), 4)          # looked up cold, found warm

    def fake_remote(self, answer):
        """A server of our own on 127.0.0.1 for answers nginx will not give: answer(handler) is
        called for every request; the requests are counted by method, and the bytes each GET's
        answer got out before the client hung up are kept."""
        import http.server
        import threading
        seen = {"GET": 0, "PUT": 0, "sent": []}

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                seen["GET"] += 1
                answer(self)

            def do_PUT(self):
                seen["PUT"] += 1
                length = int(self.headers.get("Content-Length", "0"))
                self.rfile.read(length)
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return f"http://127.0.0.1:{server.server_address[1]}/c", seen

    def test_a_remote_answering_slowly_is_given_up(self):
        """Every answer takes 0.6 s of a 1 s timeout, so none times out: after three slow ones the
        remote is off, with one warning, as for an outage (not one wait per segment)."""
        def slow_miss(handler):
            time.sleep(0.6)
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        url, seen = self.fake_remote(slow_miss)
        res, report = self.remote_batch(url, "--cache-timeout", "1")
        self.assertEqual(res.stderr.count(WARN_OFF), 1, res.stderr)
        self.assertIn("3 answers took 0.5 s or more each", res.stderr)
        self.assertEqual(seen["GET"], 3, res.stderr)
        self.assertEqual(seen["PUT"], 2)   # the first two segments' good entries; then off
        self.assertEqual(sum(e["segments_synthesized"] for e in report["episodes"]), self.segments)

    def test_a_render_waits_for_the_remote_four_timeouts_at_most(self):
        """Answers of 0.4 s to a render of 30 paragraphs, under a 2 s timeout: none is slow (half
        the timeout), but together they pass the wait budget, four timeouts (8 s), within about
        20 answers; the remote is then off with one warning, and the episode is whole."""
        def miss(handler):
            time.sleep(0.4)
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        url, seen = self.fake_remote(miss)
        body = "\n\n".join(f"Paragraph number {i} of the long episode." for i in range(30))
        os.mkdir(os.path.join(self.dir, "in"))
        write(os.path.join(self.dir, "in", "long.txt"), "---\ntitle: Long\n---\n" + body + "\n")
        res = self.batch("-O", os.path.join(self.dir, "out"), os.path.join(self.dir, "in"),
                         "--cache", os.path.join(self.dir, "c"), "--cache-url", url,
                         "--cache-timeout", "2", "--report", os.path.join(self.dir, "r.json"))
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr.count(WARN_OFF), 1, res.stderr)
        self.assertRegex(res.stderr, r"its answers took 8\.\d s in all, the most one render waits "
                         r"for it \(4 times --cache-timeout\)")
        self.assertGreaterEqual(seen["GET"], 3)
        self.assertLessEqual(seen["GET"], 21, res.stderr)   # 8 s / 0.4 s, and the one that passes it
        report = read_json(os.path.join(self.dir, "r.json"))
        self.assertEqual(report["episodes"][0]["segments_synthesized"], 30)

    def test_oversized_objects_are_refused_early_and_given_up(self):
        """Objects claiming 2 GiB (refused by their Content-Length) or streamed without a length
        (cut off at the largest entry a segment can have at 22050 Hz, about 160 MB, not 1 GiB):
        the third turns the remote off."""
        def too_large(handler):
            if seen["GET"] % 2:
                handler.send_response(200)
                handler.send_header("Content-Length", str(2 << 30))
                handler.end_headers()
                return
            handler.send_response(200)
            handler.send_header("Transfer-Encoding", "chunked")
            handler.end_headers()
            chunk = b"x" * (1 << 20)
            sent = 0
            try:
                while sent < (1 << 30) + (64 << 20):
                    handler.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                    sent += len(chunk)
            except OSError:
                pass
            seen["sent"].append(sent)

        url, seen = self.fake_remote(too_large)
        res, report = self.remote_batch(url, "--cache-timeout", "60")
        self.assertEqual(res.stderr.count(WARN_OFF), 1, res.stderr)
        self.assertIn("3 of its objects were larger than any entry a segment can have", res.stderr)
        self.assertEqual(seen["GET"], 3, res.stderr)
        self.assertEqual(seen["PUT"], 2)   # the first two segments' good entries; then off
        deadline = time.monotonic() + 30
        while len(seen["sent"]) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(seen["sent"]), 1)
        # what got out before the client hung up: the cap and the sockets' buffers, far from 1 GiB
        self.assertLess(seen["sent"][0], 200 << 20, seen["sent"])
        self.assertEqual(sum(e["segments_synthesized"] for e in report["episodes"]), self.segments)

    def test_a_stop_ends_a_transfer_to_a_hung_server(self):
        server = self.nginx()
        server.signal(signal.SIGSTOP)
        out = os.path.join(self.dir, "ep.mp3")
        proc = subprocess.Popen([BIN, os.path.join(self.scripts, "ep1.txt"), "-o", out, "-q", "--cache",
                                 os.path.join(self.dir, "c"), "--cache-url", server.url(), "--cache-timeout", "600"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        # the render is waiting for the server (it cannot be anywhere else: the first paragraph's
        # lookup comes before any speech) once nginx's accept queue holds its connection
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline and not self.connected(server):
            time.sleep(0.01)
        self.assertTrue(self.connected(server))   # waiting on the hung server right now
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)   # a hang here is the failure, not a slow run
        self.assertEqual(proc.returncode, 130, err)
        self.assertFalse(os.path.exists(out))

    @staticmethod
    def connected(server):
        """Whether a client holds an established connection to the server's port (the kernel's
        own table, /proc/net/tcp: remote address hex IP:PORT, state 01 = established)."""
        with open("/proc/net/tcp", encoding="ascii") as f:
            rows = [line.split() for line in f.readlines()[1:]]
        return any(int(row[2].split(":")[1], 16) == server.port and row[3] == "01" for row in rows)

    def store_remote(self, put_status, miss_status=404):
        """A server of our own that answers every PUT with put_status (S3 and MinIO answer 200
        with an ETag, nginx 201 or 204) and keeps what it took with a 2xx; a GET is 200 with
        what it keeps, or miss_status."""
        import http.server
        import threading
        seen = {"GET": 0, "PUT": 0, "objects": {}}

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def answer(self, status, body=b"", headers=()):
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                seen["GET"] += 1
                data = seen["objects"].get(self.path)
                if data is None:   # (no body where HTTP allows none)
                    self.answer(miss_status, b"" if miss_status in (204, 304)
                                else b"<Error><Code>NoSuchKey</Code></Error>")
                else:
                    self.answer(200, data)

            def do_PUT(self):
                seen["PUT"] += 1
                data = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if 200 <= put_status < 300:
                    seen["objects"][self.path] = data
                self.answer(put_status, b"" if put_status in (204, 304) else b"done",
                            [("ETag", '"%08x"' % (hash(data) & 0xFFFFFFFF))]
                            + ([("Location", "/elsewhere")] if 300 <= put_status < 400 else []))

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        return f"http://127.0.0.1:{server.server_address[1]}/c", seen

    def one_episode_batch(self, url):
        """One episode (two paragraphs) with a new local cache: its report's episode."""
        folder = os.path.join(self.dir, "one")
        if not os.path.isdir(folder):
            os.mkdir(folder)
            shutil.copy(os.path.join(self.scripts, "ep0.txt"), folder)
        for name in ("local", "out"):
            shutil.rmtree(os.path.join(self.dir, name), ignore_errors=True)
        res = self.batch("-j", "1", "-O", os.path.join(self.dir, "out"), folder, "--cache",
                         os.path.join(self.dir, "local"), "--cache-url", url, "--report",
                         os.path.join(self.dir, "r.json"))
        self.assertEqual(res.returncode, 0, res.stderr)
        return res, read_json(os.path.join(self.dir, "r.json"))["episodes"][0]

    def test_put_answers_at_their_edges(self):
        """docs/cache.md: a PUT answered 200, 201 or 204 is stored (what S3 and MinIO answer is
        200); 202, a redirect, a 4xx or a 5xx is a refused write: one warning, no more writes,
        the reads go on."""
        for status in (200, 204) if SANITIZED else (200, 201, 204):
            with self.subTest(put=status):
                url, seen = self.store_remote(status)
                res, episode = self.one_episode_batch(url)
                self.assertEqual(res.stderr, "")
                self.assertEqual((seen["GET"], seen["PUT"]), (2, 2))
                self.assertEqual(len(seen["objects"]), 2)
                res, episode = self.one_episode_batch(url)     # a new runner: all from the remote
                self.assertEqual(res.stderr, "")
                self.assertEqual(episode["segments_remote"], 2)
                self.assertEqual(episode["segments_synthesized"], 0)
                self.assertEqual(seen["PUT"], 2)
        for status in ((202, 301, 500) if SANITIZED
                       else (202, 205, 301, 307, 400, 403, 405, 413, 500, 507)):
            with self.subTest(put=status):
                url, seen = self.store_remote(status)
                res, episode = self.one_episode_batch(url)
                self.assertEqual(res.stderr.count(f"refused a write (HTTP {status})"), 1, res.stderr)
                self.assertNotIn(WARN_OFF, res.stderr)
                self.assertEqual((seen["GET"], seen["PUT"]), (2, 1))   # reads go on, writes stop
                self.assertEqual(episode["segments_synthesized"], 2)

    def test_get_answers_at_their_edges(self):
        """docs/cache.md: a GET answered 404 or 410 is a miss (no warning, the segment is PUT);
        anything else but 200 turns the remote off, said once."""
        for status in (404,) if SANITIZED else (404, 410):
            with self.subTest(get=status):
                url, seen = self.store_remote(201, miss_status=status)
                res, episode = self.one_episode_batch(url)
                self.assertEqual(res.stderr, "")
                self.assertEqual((seen["GET"], seen["PUT"]), (2, 2))
        for status in (204, 301, 500) if SANITIZED else (204, 301, 400, 403, 405, 409, 500, 503):
            with self.subTest(get=status):
                url, seen = self.store_remote(201, miss_status=status)
                res, episode = self.one_episode_batch(url)
                self.assertEqual(res.stderr.count(WARN_OFF), 1, res.stderr)
                self.assertIn(f"answered HTTP {status} to a read", res.stderr)
                self.assertEqual((seen["GET"], seen["PUT"]), (1, 0))
                self.assertEqual(episode["segments_synthesized"], 2)

    def test_bad_cache_urls_are_usage_errors(self):
        out = os.path.join(self.dir, "out")
        for url in ("ftp://127.0.0.1/x", "not a url", "http://127.0.0.1/x?q=1", "http://", "file:///etc"):
            res = self.batch("-O", out, self.scripts, "--cache-url", url, "--cache", os.path.join(self.dir, "c"))
            self.assertEqual(res.returncode, 1, (url, res.stderr))
            self.assertIn("--cache-url", res.stderr)
        res = self.batch("-O", out, self.scripts, "--cache-url", "http://u:pw-0193@", "--no-cache")
        self.assertEqual(res.returncode, 1)
        res = self.batch("-O", out, self.scripts, env=clean_env(RENDER_EPISODE_CACHE_URL="gopher://u:pw-0193@h/"))
        self.assertEqual(res.returncode, 1)
        self.assertIn("RENDER_EPISODE_CACHE_URL", res.stderr)
        self.assertNotIn("pw-0193", res.stderr)
        self.assertFalse(os.path.exists(out))

    # ---- --shard auto, through the program, for each scheduler --------------------------------

    def test_shard_auto_for_each_scheduler(self):
        cases = [  # (variables, extra options, shard K/N, the episodes it renders)
            ({"CI_NODE_INDEX": 1, "CI_NODE_TOTAL": 4}, [], "1/4", [0, 4]),
            ({"CI_NODE_INDEX": 4, "CI_NODE_TOTAL": 4}, [], "4/4", [3, 7]),
            ({"CIRCLE_NODE_INDEX": 0, "CIRCLE_NODE_TOTAL": 4}, [], "1/4", [0, 4]),
            ({"CIRCLE_NODE_INDEX": 3, "CIRCLE_NODE_TOTAL": 4}, [], "4/4", [3, 7]),
            ({"BUILDKITE_PARALLEL_JOB": 0, "BUILDKITE_PARALLEL_JOB_COUNT": 3}, [], "1/3", [0, 3, 6]),
            ({"BUILDKITE_PARALLEL_JOB": 2, "BUILDKITE_PARALLEL_JOB_COUNT": 3}, [], "3/3", [2, 5]),
            ({"JOB_COMPLETION_INDEX": 0}, ["--shard-count", "4"], "1/4", [0, 4]),
            ({"JOB_COMPLETION_INDEX": 1, "RENDER_EPISODE_SHARD_COUNT": 2}, [], "2/2", [1, 3, 5, 7]),
            ({"SLURM_ARRAY_TASK_ID": 10, "SLURM_ARRAY_TASK_MIN": 10, "SLURM_ARRAY_TASK_MAX": 13,
              "SLURM_ARRAY_TASK_COUNT": 4, "SLURM_ARRAY_TASK_STEP": 1}, [], "1/4", [0, 4]),
            ({"SLURM_ARRAY_TASK_ID": 13, "SLURM_ARRAY_TASK_MIN": 10, "SLURM_ARRAY_TASK_MAX": 13,
              "SLURM_ARRAY_TASK_COUNT": 4}, [], "4/4", [3, 7]),
        ]
        for i, (variables, extra, shard, episodes) in enumerate(cases):
            with self.subTest(variables=variables):
                out = os.path.join(self.dir, f"auto{i}")
                res = self.batch("-O", out, self.scripts, "--shard", "auto", *extra, "--cache", self.ref_cache,
                                 "--report", out + ".json", env=clean_env(**variables))
                self.assertEqual(res.returncode, 0, res.stderr)
                first = res.stdout.splitlines()[0]
                self.assertTrue(first.startswith(f"shard {shard} from "), first)
                for name in variables:
                    if name != "SLURM_ARRAY_TASK_MAX" and name != "SLURM_ARRAY_TASK_STEP":
                        self.assertIn(name, first)          # the variable that chose is named
                rendered = [os.path.basename(e["script"]) for e in read_json(out + ".json")["episodes"]]
                self.assertEqual(rendered, [f"ep{n}.txt" for n in episodes])
                self.assertSameOutputs({**{k: v for k, v in self.reference.items()
                                           if k.split(".")[0] not in {f"ep{n}" for n in episodes}},
                                        **outputs_of(out)})
        refused = [  # (variables, extra options, what the message names)
            ({}, [], "no scheduler"),
            ({"CI_NODE_INDEX": 1, "CI_NODE_TOTAL": 2, "CIRCLE_NODE_INDEX": 0, "CIRCLE_NODE_TOTAL": 2}, [],
             "GitLab CI (CI_NODE_INDEX), CircleCI (CIRCLE_NODE_INDEX)"),
            ({"CI_NODE_INDEX": 0, "CI_NODE_TOTAL": 4}, [], "CI_NODE_INDEX: 0 is outside 1..4"),
            ({"CIRCLE_NODE_INDEX": 4, "CIRCLE_NODE_TOTAL": 4}, [], "CIRCLE_NODE_INDEX: 4 is outside 0..3"),
            ({"JOB_COMPLETION_INDEX": 0}, [], "--shard-count"),
            ({"SLURM_ARRAY_TASK_ID": 3, "SLURM_ARRAY_TASK_MIN": 1, "SLURM_ARRAY_TASK_MAX": 7,
              "SLURM_ARRAY_TASK_COUNT": 4, "SLURM_ARRAY_TASK_STEP": 2}, [], "gaps or a step"),
            ({"CI_NODE_INDEX": 1, "CI_NODE_TOTAL": 4}, ["--shard-count", "3"], "CI_NODE_TOTAL: says 4 runners"),
        ]
        for variables, extra, message in refused:
            with self.subTest(refused=variables):
                out = os.path.join(self.dir, "refused")
                res = self.batch("-O", out, self.scripts, "--shard", "auto", *extra, env=clean_env(**variables))
                self.assertEqual(res.returncode, 1, res.stderr)
                self.assertIn(message, res.stderr)
                self.assertFalse(os.path.exists(out))       # nothing ran
        res = self.batch("-O", self.path_unused(), self.scripts, "--shard-count", "4")
        self.assertEqual(res.returncode, 1)
        self.assertIn("--shard-count goes with --shard auto", res.stderr)

    def path_unused(self):
        return os.path.join(self.dir, "unused")


if __name__ == "__main__":
    main()
