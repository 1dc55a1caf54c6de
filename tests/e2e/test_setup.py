# SPDX-License-Identifier: GPL-3.0-or-later
"""scripts/setup --test installs every program a test runs.

A fresh Debian 12 root (debootstrap) has only the packages of priority `required`; anything
else a test starts (groff for the man page, ps for the batch's process tree, ...) must come
from scripts/setup's lists, or the suite passes only on machines that happen to have it. The
programs are the first words of the tests' own command lines (`subprocess.run(["PROG", ...`,
`Popen(["PROG"`) and the judges started through a variable (listed below); each is traced to
its Debian package with dpkg, and that package must be required or installed, directly or as
a dependency, by what scripts/setup --test asks apt for."""
import glob
import os
import re
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import SRC, main  # noqa: E402

# started through a variable or a helper, not as a literal first word
THROUGH_VARIABLES = ["ffprobe", "mpg123", "nginx", "chromium", "chromedriver", "node", "npm",
                     "valgrind", "cmake", "git", "cc", "lame", "ps", "groff", "strace"]
OURS = {"render-episode", "python3", "/usr/bin/python3", "sh"}


def programs_the_tests_run():
    names = set(THROUGH_VARIABLES)
    files = glob.glob(os.path.join(SRC, "tests", "e2e", "*.py")) + \
        glob.glob(os.path.join(SRC, "tests", "hostile", "*.py")) + [os.path.join(SRC, "scripts", "test")]
    for path in files:
        if os.path.basename(path) == "test_setup.py":
            continue
        text = open(path, encoding="utf-8").read()
        for m in re.finditer(r"subprocess\.(?:run|Popen|check_output|check_call|call)\(\s*\[\s*\"([A-Za-z][\w.+-]*)\"", text):
            names.add(m.group(1))
    return sorted(n for n in names if n not in OURS and not n.endswith((".txt", ".mp3")))


def packages_of(programs):
    """{program: the Debian package that owns it, or None}: each program's candidate paths, in
    order, looked up by one `dpkg -S` for all of them (a start per path read dpkg's file lists
    some fifty times over)."""
    candidates = {}
    for program in programs:
        path = shutil.which(program) or shutil.which(program, path="/usr/sbin:/sbin")
        if path:
            real = os.path.realpath(path)
            candidates[program] = [path, real, real.replace("/usr/", "/", 1), "/bin/" + program,
                                   "/sbin/" + program, "/usr/bin/" + program]
    paths = sorted({c for found in candidates.values() for c in found})
    owner = {}
    if paths:   # exit status 1 when some path is nobody's: the others are still listed
        res = subprocess.run(["dpkg", "-S", *paths], capture_output=True, text=True)
        for line in res.stdout.splitlines():
            packages, sep, path = line.partition(": ")
            if sep and path in paths and not line.startswith("diversion by "):
                owner.setdefault(path, packages.split(",")[0].split(":")[0].strip())
    return {program: next((owner[c] for c in candidates.get(program, []) if c in owner), None)
            for program in programs}


def package_database():
    """Every package dpkg lists, read by one dpkg-query: {name: {field: value}} for the fields
    the test reads (a query per package was some 600 starts). A package of two architectures
    has the dependencies of both."""
    res = subprocess.run(["dpkg-query", "-W",
                          "-f=${Package}\t${Priority}\t${Essential}\t${Depends}\n"],
                         capture_output=True, text=True, check=True)
    database = {}
    for line in res.stdout.splitlines():
        name, priority, essential, depends = (line.split("\t") + ["", "", ""])[:4]
        entry = database.setdefault(name, {"Priority": priority, "Essential": essential,
                                           "Depends": ""})
        entry["Depends"] = ", ".join(d for d in (entry["Depends"], depends) if d)
    return database


DATABASE = {}


def field(package, name):
    if not DATABASE:
        DATABASE.update(package_database())
    return DATABASE.get(package, {}).get(name, "")


def setup_packages():
    text = open(os.path.join(SRC, "scripts", "setup"), encoding="utf-8").read()
    found = set()
    # --test installs the build, test and package lists (the package stage's tools, and
    # hardening-check for e2e.test_hardening)
    for m in re.finditer(r"(?:build|test|package)_packages=\"(.*?)\"", text, re.S):
        found.update(m.group(1).replace("\\\n", " ").split())
    for m in re.finditer(r"test_packages=\"\$test_packages (.*?)\"", text):
        found.update(m.group(1).split())
    return found


def with_dependencies(packages, depth=3):
    seen = set(packages)
    frontier = set(packages)
    for _ in range(depth):
        nxt = set()
        for p in frontier:
            for alt in field(p, "Depends").split(","):
                for choice in alt.split("|"):
                    name = choice.strip().split(" ")[0].split(":")[0]
                    if name and name not in seen:
                        nxt.add(name)
        seen |= nxt
        frontier = nxt
    return seen


class SetupInstallsWhatTestsRun(unittest.TestCase):
    def test_every_program_comes_from_setup_or_the_base_system(self):
        listed = setup_packages()
        self.assertIn("ffmpeg", listed)   # the parse found the lists
        installed = with_dependencies(listed)
        programs = programs_the_tests_run()
        self.assertIn("groff", programs)
        self.assertIn("ps", programs)
        missing = []
        owners = packages_of(programs)
        for program in programs:
            package = owners[program]
            self.assertIsNotNone(package, f"{program}: not installed (run scripts/setup --test)")
            if field(package, "Priority") == "required" or field(package, "Essential") == "yes":
                continue
            if package not in installed:
                missing.append(f"{program} ({package})")
        self.assertEqual(missing, [], "programs the tests run that scripts/setup --test does "
                         "not install")


if __name__ == "__main__":
    main()
