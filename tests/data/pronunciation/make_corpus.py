#!/usr/bin/python3
"""make_corpus.py - how tests/data/pronunciation/corpus.tsv was made (kept for review; the
test reads only the TSV).

    python3 tests/data/pronunciation/make_corpus.py > tests/data/pronunciation/corpus.tsv

Tokens are taken, in file order, from release notes, changelogs and security advisories that
Debian 12 ships under /usr/share/doc (curl's upstream changelog, Debian changelogs and
NEWS.Debian files of curl, git, apt, openssl, ffmpeg, gnupg, openssh, systemd; espeak-ng's
and libxml2's NEWS), each cited as PACKAGE/FILE:LINE; then the hand-picked EXTRA rows from other
changelogs (configuration macros). The expected spoken form of each is
written here from the rule table of docs/pronunciation.md, with this file's own code (not the
program's), and with voices/default.lexicon's entries for whole tokens and parts. Categories:

  word      an ordinary English word (in wamerican or espeak-ng's en_dict, any case): said
            as written, and its
            phonemes must be plain espeak-ng's (the "never worse" rule)
  capitals  capitals that are a dictionary word: as written, phonemes as espeak-ng's
  acronym   capitals that are no word: spelled, or a word and the rest, or as written
  lexicon   a token the shipped default.lexicon says
  hash, option, version, url, cve, constant: the rules of those names
"""
import gzip
import os
import re
import sys

DOC = "/usr/share/doc"
FILES = [
    "curl/changelog.gz", "curl/changelog.Debian.gz", "git/changelog.Debian.gz",
    "git/NEWS.Debian.gz", "apt/changelog.gz", "apt/NEWS.Debian.gz", "openssl/changelog.Debian.gz",
    "openssl/NEWS.Debian.gz", "ffmpeg/changelog.Debian.gz", "espeak-ng/changelog.gz",
    "gnupg/NEWS.Debian.gz", "openssh-client/NEWS.Debian.gz", "systemd/NEWS.Debian.gz",
    "libxml2/NEWS.gz",
]
HERE = os.path.dirname(os.path.abspath(__file__))
LEXICON = os.path.join(HERE, "..", "..", "..", "voices", "default.lexicon")
# The dictionary: the same two sources as the program's compiled table (scripts/make-words).
_MAKE_WORDS = {}
exec(compile(open(os.path.join(HERE, "..", "..", "..", "scripts", "make-words"), encoding="utf-8").read(),
             "make-words", "exec"), _MAKE_WORDS)
WORDS = _MAKE_WORDS["wordlist_words"](_MAKE_WORDS["LIST"]) | \
    _MAKE_WORDS["en_dict_words"](_MAKE_WORDS["en_dict_path"]())
DIGITS = "zero one two three four five six seven eight nine".split()
ROMAN = set("II III IV VI VII VIII IX XI XII XIII XIV XV XVI XVII XVIII XIX XX".split())
ONSETS = set("BL BR CH CL CR DR FL FR GL GR KN PH PL PR SC SH SK SL SM SN SP ST SW TH TR TW WH WR "
             "QU SCH SCR SHR SPL SPR STR THR SQU".split())


def lexicon():
    exact, fold = {}, {}
    for line in open(LEXICON, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(.*?)\s*(~?=)\s*(.*)$", line)
        (fold if m.group(2) == "~=" else exact)[m.group(1) if m.group(2) == "=" else m.group(1).lower()] = m.group(3)
    return exact, fold


EXACT, FOLD = lexicon()


def lookup(token):
    return EXACT.get(token, FOLD.get(token.lower()))


def is_word(s):
    return 2 <= len(s) <= 24 and s.isalpha() and s.isascii() and s.lower() in WORDS


def pronounceable(s):
    vowels = "AEIOUY"
    onset = 0
    while onset < len(s) and s[onset] not in vowels:
        onset += 1
    if onset == len(s) or (onset > 1 and s[:onset] not in ONSETS):
        return False
    run = 0
    for i, c in enumerate(s):
        run = 0 if c in vowels else run + 1
        if run >= 4 or (i >= 2 and c == s[i - 1] == s[i - 2]):
            return False
    return True


def dotted(s):
    return ".".join(s.upper())


def pieces(s):
    """Capitals that are no word as words (4+ letters cost 2, 3 cost 5) and acronyms (3
    letters cost 5, 4 cost 6, 2 cost 7), cheapest first, possibly after a first letter alone
    (cost 5; not A or I) that a word of 4+ follows (FTRUNCATE); None when the rule does not
    cut them."""
    if not (5 <= len(s) <= 24) or is_word(s) or s in ROMAN:
        return None
    as_word = pronounceable(s)
    if as_word and len(s) < 9:
        return None
    best = {0: (0, [], False)}
    if not as_word and s[0] not in "AI":   # a first letter alone, before a word of 4 or more
        best[1] = (5, [s[0]], False)
    for i in range(1, len(s) + 1):
        for j in range(0, i - 1):
            piece = s[j:i]
            word = len(piece) >= 3 and is_word(piece)
            if j == 1 and not (word and len(piece) >= 4):
                continue
            cost = (2 if len(piece) >= 4 else 5) if word else \
                {2: 7, 3: 5, 4: 6}.get(len(piece), 0) if not as_word else 0
            if cost and j in best and (i not in best or best[j][0] + cost < best[i][0]):
                best[i] = (best[j][0] + cost, best[j][1] + [piece], best[j][2] or (word and len(piece) >= 4))
    if len(s) not in best or not best[len(s)][2] or len(best[len(s)][1]) < 2:
        return None
    return best[len(s)][1]


def caps(s, constant=False):
    """How capitals are said (docs/pronunciation.md, "Words in capitals")."""
    cut = pieces(s)
    if cut:
        return " ".join(caps(p, constant) for p in cut)
    if s in ROMAN or is_word(s):
        return s
    if len(s) > 16 or (len(s) > 4 and pronounceable(s)) or (constant and len(s) >= 3 and pronounceable(s)):
        return s
    return dotted(s)


def hash7(h):
    out, i = [], 0
    while i < 7:
        if h[i].isdigit():
            out.append(DIGITS[int(h[i])])
            i += 1
            continue
        j = i
        while j < 7 and not h[j].isdigit():
            j += 1
        out.append("eh" if h[i:j] == "a" else dotted(h[i:j]))
        i = j
    return " ".join(out)


def is_hash(s):
    return 7 <= len(s) <= 40 and re.fullmatch(r"[0-9a-f]+", s) and re.search(r"\d", s) and re.search(r"[a-f]", s)


def reference(n):
    return " ".join(DIGITS[int(c)] for c in n) if len(n) >= 3 else n


def url(u):
    m = re.match(r"^[a-z]+://([^/:?#]+)(.*)$", u)
    host = m.group(1).split("@")[-1]
    if host.startswith("www."):
        host = host[4:]
    said = host.replace(".", " dot ")
    path = re.split(r"[?#]", m.group(2))[0].split("/")
    tails = {"pull": "pull request", "merge_requests": "merge request", "issues": "issue",
             "commit": "commit", "commits": "commit"}
    for a, b in zip(path, path[1:]):
        if a in tails and b:
            if a.startswith("commit") and is_hash(b):
                return f"{said} commit {hash7(b)}"
            if not a.startswith("commit") and b.isdigit():
                return f"{said} {tails[a]} {reference(b)}"
    return said


def component(c):
    return " ".join(DIGITS[int(x)] for x in c) if (len(c) > 1 and c[0] == "0") or len(c) >= 5 else c


def version(v):
    m = re.match(r"^(\d+(?:\.\d+)+)(.*)$", v)
    out = " point ".join(component(c) for c in m.group(1).split("."))
    for part in re.findall(r"[+~-]|\.|[a-z]+|\d+", m.group(2)):
        out += {"+": " plus", "-": " dash", "~": " tilde", ".": " point"}.get(part) or \
            " " + (dotted(part) if part in ("rc", "cu") else part)
    return out


def cve(c):
    parts = c.split("-")
    out = [dotted(parts[0])]
    for i, p in enumerate(parts[1:], 1):
        year = len(p) == 4 and p[:2] in ("19", "20") and i < len(parts) - 1
        out.append(p if year or len(p) < 3 else reference(p))
    return " ".join(out)


def constant(c):
    out = []
    for part in c.split("_"):
        if part:
            out.append(lookup(part) or caps(part, constant=True))
    return " ".join(out)


def option(o):
    dashes = 2 if o.startswith("--") else 1
    return "dash " * dashes + o[dashes:]


PATTERNS = [
    ("url", r"https?://[^\s)>\]\"'<,]+", lambda t: re.search(r"/(pull|issues|commit)/", t) or t.count("/") <= 4),
    ("cve", r"CVE-\d{4}-\d{4,7}", None),
    ("version", r"(?<![\w.])\d+\.\d+(?:\.\d+)+-\d+(?:\+deb\d+u\d+)?(?![\w.+~-])", None),
    ("hash", r"(?<![\w/.-])[0-9a-f]{7,40}(?![\w.-])", is_hash),
    ("option", r"(?<![\w-])--?[a-z][a-z0-9]+(?:-[a-z0-9]+)*(?![\w=-])", lambda t: len(t) > 3),
    ("constant", r"(?<![\w-])[A-Z]{2,}(?:_[A-Z]{2,})+(?![\w-])", None),
    ("capitals", r"(?<![\w-])[A-Z]{2,12}(?![\w'’-])", None),
    ("word", r"(?<![\w'’./-])[a-z]{3,12}(?![\w'’/-])", None),
]
# Added by hand after the picks: configuration macros and build variables whose capitals
# start with one letter before a word (HAVE_FTRUNCATE -> HAVE F TRUNCATE), from other
# changelogs and NEWS files of /usr/share/doc, and CPPFLAGS, which stays an acronym and a word.
EXTRA = [
    ("constant", "HAVE_FTRUNCATE", "curl/changelog.gz:5923"),
    ("constant", "HAVE_WORKING_VFORK", "diffutils/changelog.gz:1375"),
    ("constant", "AC_FUNC_LSTAT", "cscope/changelog.gz:336"),
    ("constant", "CMAKE_INSTALL_PREFIX", "dbus-bin/NEWS.gz:1867"),
    ("constant", "DHAVE_CONFIG_H", "coreutils/changelog.gz:4783"),
    ("constant", "HAVE_WCHAR_H", "binutils/changelog.gz:1332"),
    ("constant", "HAVE_FCLONEFILEAT", "coreutils/changelog.gz:1286"),
    ("constant", "HAVE_PSELECT_NO_EINTR", "dirmngr/changelog.gz:6897"),
    ("constant", "GFORTRAN_FOR_TARGET", "cpp-12/changelog.gz:6446"),
    ("constant", "DEV_BSIZE", "findutils/changelog.gz:6588"),
    ("constant", "DCURL_DISABLE_OPENSSL_AUTO_LOAD_CONFIG", "curl/changelog.gz:6797"),
    ("constant", "BOOT_CFLAGS", "cpp-12/changelog.gz:7610"),
    ("constant", "DB_BTREE", "apt-transport-https/NEWS.Debian.gz:265"),
    ("constant", "PTHREAD_MUTEX_RECURSIVE", "dbus-bin/NEWS.gz:3655"),
    ("constant", "RLIMIT_NOFILE", "dbus-bin/NEWS.gz:456"),
    ("constant", "LSEEK_SCANTYPE", "coreutils/changelog.gz:3697"),
    ("acronym", "CFLAGS", "bash/changelog.gz:7348"),
    ("acronym", "CMAKE", "libevent-2.1-7/changelog.gz:734"),
    ("acronym", "CPPFLAGS", "cpp-12/changelog.gz:1202"),
]
QUOTA = {"url": 28, "cve": 14, "version": 22, "hash": 26, "option": 22, "constant": 22,
         "capitals": 45, "acronym": 30, "word": 120}


def main():
    picked, seen, count = [], set(), {k: 0 for k in QUOTA}
    lines = []
    for name in FILES:
        with gzip.open(os.path.join(DOC, name), "rt", encoding="utf-8", errors="replace") as f:
            lines += [(name, n, line) for n, line in enumerate(f, 1)]
    # Spread the picks over the files: every 7th line first, then the rest.
    order = [x for i, x in enumerate(lines) if i % 7 == 0] + [x for i, x in enumerate(lines) if i % 7]
    for name, n, line in order:
        for category, pattern, keep in PATTERNS:
            for m in re.finditer(pattern, line):
                t = m.group(0).rstrip(".,;:")
                if t in seen or (keep and not keep(t)):
                    continue
                cat = category
                if cat == "capitals" and not is_word(t):
                    cat = "acronym"
                if cat == "word" and (not is_word(t) or lookup(t)):
                    continue
                if cat in ("capitals", "acronym") and lookup(t):
                    cat = "lexicon"
                    if count.get("lexicon", 0) >= 8:
                        continue
                elif count[cat] >= QUOTA[cat]:
                    continue
                seen.add(t)
                count[cat] = count.get(cat, 0) + 1
                if cat == "lexicon":
                    said = lookup(t)
                elif cat in ("word", "capitals"):
                    said = t
                elif cat == "acronym":
                    said = caps(t)
                else:
                    said = {"url": url, "cve": cve, "version": version, "hash": hash7,
                            "option": option, "constant": constant}[cat](t)
                picked.append((cat, t, said, f"{name}:{n}"))
    for cat, t, src in EXTRA:
        if t not in seen:
            seen.add(t)
            picked.append((cat, t, constant(t) if cat == "constant" else caps(t), src))
    print("# token\texpected spoken form\tcategory\tsource (under /usr/share/doc, FILE:LINE)")
    print("# Made by make_corpus.py (see its docstring); reviewed by hand.")
    for cat, t, said, src in picked:
        print(f"{t}\t{said}\t{cat}\t{src}")
    print(count, len(picked), file=sys.stderr)


if __name__ == "__main__":
    main()
