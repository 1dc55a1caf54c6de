# SPDX-License-Identifier: GPL-3.0-or-later
"""tests/source/c_text.py - C source read as code: comments blanked, and string and character
literals kept or blanked, the line count unchanged. The one reader of C text for the checks of
the sources (source.duplicates, source.sample_io, e2e.test_namespace)."""
import re


def blank(text, keep_strings=False):
    """text with every comment made spaces (newlines kept) and, unless keep_strings, the inside
    of every string and character literal made spaces too (the quotes stay)."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text[i] in "\"'":
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            inside = text[i + 1:j]
            out.append(quote + (inside if keep_strings else re.sub(r"[^\n]", " ", inside))
                       + text[j:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
