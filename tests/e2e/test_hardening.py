# SPDX-License-Identifier: GPL-3.0-or-later
"""End to end: the program is built hardened, as Debian builds its packages, judged by Debian's
hardening-check (devscripts) and readelf (binutils). Registered only for a hardened, optimized,
unsanitized build (tests/CMakeLists.txt): fortification needs the optimizer and is left out
of the sanitizer builds.

Control-flow protection (-fcf-protection) is judged per object: the linker marks a program
IBT/SHSTK-compatible only when every object it links is marked, and the C start files of
Debian 12's glibc (Scrt1.o, crti.o, crtn.o) are not. So hardening-check runs with
--nocfprotection, and this test checks instead that every object file of the program carries
the mark, and that the start files still lack it (when they gain it, the program gains it
and the exception must go)."""
import glob
import os
import subprocess

from common import BIN, Case, main

ITEMS = ["Position Independent Executable", "Stack protected", "Fortify Source functions",
         "Read-only relocations", "Immediate binding"]


def properties(path):
    res = subprocess.run(["readelf", "-n", "-W", path], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return res.stdout


class Hardening(Case):
    def test_hardening_check_passes_every_item(self):
        res = subprocess.run(["hardening-check", "--nocfprotection", BIN],
                             capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        report = dict(line.strip().split(": ", 1) for line in res.stdout.splitlines()[1:]
                      if ": " in line)
        for item in ITEMS:
            with self.subTest(item=item):
                self.assertTrue(report.get(item, "").startswith("yes"), res.stdout)
        # a heuristic over the disassembly: it may not recognize the probes, never "no"
        self.assertFalse(report.get("Stack clash protection", "").startswith("no"), res.stdout)

    def test_every_object_of_the_program_is_marked_for_control_flow_protection(self):
        build = os.path.dirname(os.path.realpath(BIN))
        objects = glob.glob(os.path.join(build, "pipeline", "**", "*.o"), recursive=True)
        self.assertGreater(len(objects), 50)
        for obj in objects:
            with self.subTest(object=os.path.relpath(obj, build)):
                self.assertIn("x86 feature: IBT, SHSTK", properties(obj))

    def test_the_start_files_are_what_keeps_the_mark_off_the_program(self):
        unmarked = []
        for name in ["Scrt1.o", "crti.o", "crtn.o"]:
            path = subprocess.run(["cc", "-print-file-name=" + name], capture_output=True,
                                  text=True).stdout.strip()
            self.assertTrue(os.path.isabs(path), path)
            if "IBT, SHSTK" not in properties(path):
                unmarked.append(name)
        self.assertTrue(unmarked, "the C start files are marked now: drop --nocfprotection")
        self.assertNotIn("IBT, SHSTK", properties(BIN))


if __name__ == "__main__":
    main()
