# SPDX-License-Identifier: GPL-3.0-or-later
"""One namespace: every function and variable our code shares between files starts with re_.

The program links its own functions into one namespace with espeak-ng, flite, LAME, libcurl
and libc; an unprefixed `say` or `find` could collide with any of them and misleads the
structure tools. The judge is binutils' nm, on the built program and on the stage libraries
the unit tests link: every global symbol they define is re_..., apart from what the C
runtime adds (names that begin with '_', main, data_start) and libc's copy-relocated
variables (stdout@GLIBC_...). A function that only its own file uses is `static`, which keeps
it out of this list, and a static function is never named re_... (CONTRIBUTING.md: naming)."""
import glob
import os
import re
import subprocess
import sys
import tempfile
import unittest

from common import BIN, SRC, main

sys.path.insert(0, os.path.join(SRC, "tests", "source"))
from c_text import blank  # noqa: E402

RUNTIME = {"main", "data_start"}


def unprefixed(path):
    """The global symbols path defines that break the rule, and how many it defines."""
    out = subprocess.run(["nm", "-g", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    names = [line.split()[-1] for line in out.splitlines()
             if len(line.split()) == 3 and not line.endswith(":")]
    bad = sorted({n for n in names
                  if not n.startswith(("re_", "_")) and "@" not in n and n not in RUNTIME})
    return bad, len(names)


def static_prefixed(text):
    """The functions text declares static with a name that starts with re_ (comments and
    strings blanked first)."""
    text = blank(text)
    return re.findall(r"\bstatic\b[^;{}()=]*?\b(re_\w+)\s*\(", text)


class Namespace(unittest.TestCase):
    def test_the_program_defines_only_prefixed_globals(self):
        bad, count = unprefixed(BIN)
        self.assertGreater(count, 300, "nm found almost no symbols: is the program stripped?")
        self.assertEqual(bad, [], "give these the re_ prefix, or make them static")

    def test_the_stage_libraries_define_only_prefixed_globals(self):
        libs = glob.glob(os.path.join(os.path.dirname(BIN), "pipeline", "libre_*.a"))
        self.assertGreaterEqual(len(libs), 9, "the stage libraries are not beside the program")
        for lib in libs:
            with self.subTest(lib=os.path.basename(lib)):
                bad, _ = unprefixed(lib)
                self.assertEqual(bad, [], "give these the re_ prefix, or make them static")

    def test_no_static_function_wears_the_prefix(self):
        # re_ says "shared between files": a file-local function named re_... misleads. Read
        # in the .c files (the optimizer inlines most statics, so nm cannot see them all); a
        # header's static inline functions are shared by every file that includes it.
        sources = glob.glob(os.path.join(SRC, "pipeline", "**", "*.c"), recursive=True)
        self.assertGreater(len(sources), 100)
        found = [f"{os.path.relpath(path, SRC)}: {name}" for path in sorted(sources)
                 for name in static_prefixed(open(path, encoding="utf-8").read())]
        self.assertEqual(found, [], "a static function has no re_ prefix")

    def test_the_static_rule_sees_one(self):
        self.assertEqual(static_prefixed("static re_status\nre_add_pause(render *r)\n{"),
                         ["re_add_pause"])
        self.assertEqual(static_prefixed("static int add_pause(void);\n"
                                         "static const char re_names[] = \"x\";\n"
                                         "/* static re_x(y) */ int re_ok(void);"), [])

    def test_the_rule_sees_an_unprefixed_function(self):
        # The judge itself can fail: an object that defines `decide` and a re_ variable, with
        # a static helper, is flagged for `decide` alone.
        with tempfile.TemporaryDirectory() as d:
            src, obj = os.path.join(d, "x.c"), os.path.join(d, "x.o")
            with open(src, "w", encoding="utf-8") as f:
                f.write("static int helper(void) { return 1; }\n"
                        "int re_count = 2;\n"
                        "int decide(void) { return helper() + re_count; }\n")
            subprocess.run(["cc", "-c", "-o", obj, src], check=True)
            self.assertEqual(unprefixed(obj)[0], ["decide"])


if __name__ == "__main__":
    main()
