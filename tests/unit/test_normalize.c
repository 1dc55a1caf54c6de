/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_normalize.c - technical-text normalization: a table of tricky inputs and what is
 * said for them, prose that must come out unchanged, lexicon entries overriding the rules,
 * phoneme spans and the brackets around them, spans back to the script, and for a subset
 * the phonemes espeak-ng actually uses. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "lexicon.h"
#include "normalize.h"
#include "synth.h"
#include "utf8.h"

static const char team_entries[] = "Gloo = [[gl'u:]]\n"
                                   "GEMM = gem\n"
                                   "NVGEMM = N.V gem\n"
                                   "PR = pull request\n"
                                   "C++ = see plus plus\n"
                                   "nccl ~= nickle\n"
                                   "Richard Zou = Rikard Zo\n"
                                   "Autograd = auto grad\n"
                                   "v2.1.0 = vee two one oh\n";

static re_lexicon *shipped;   /* voices/default.lexicon, as an episode gets it */
static re_lexicon *custom;    /* shipped, then a team's entries above it */

static re_lexicon *load(const char *extra)
{
    const char *dirs[] = { RE_SOURCE_VOICES_DIR };
    re_lexicon_sources src = { .dirs = dirs, .dir_count = 1 };
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_lexicon_build(&src, &lex, &d), RE_OK);
    if (lex && extra)
        CHECK_INT(re_lexicon_parse(lex, "team.lexicon", extra, strlen(extra), &d), RE_OK);
    for (size_t i = 0; i < d.count; i++)
        fprintf(stderr, "  %s:%u:%u: %s\n", d.items[i].file, d.items[i].line, d.items[i].col,
                d.items[i].message);
    re_diagnostics_free(&d);
    return lex;
}

/* Checks what is said for `text`, and whether it holds phonemes. */
static void expect_with(const re_lexicon *lex, const char *text, const char *spoken,
                        unsigned flags, int line)
{
    char *out = NULL;
    unsigned got_flags = 99;
    re_status status = re_normalize(lex, text, &out, &got_flags);
    check_count++;
    if (status != RE_OK || !out || strcmp(out, spoken) != 0 || got_flags != flags) {
        check_failures++;
        fprintf(stderr, "%s:%d: normalize \"%s\"\n      got \"%s\" (flags %u, status %d)\n"
                "  expected \"%s\" (flags %u)\n", __FILE__, line, text, out ? out : "(null)",
                got_flags, status, spoken, flags);
    }
    free(out);
}

#define SAYS(text, spoken) expect_with(shipped, text, spoken, RE_TEXT_PLAIN, __LINE__)
#define SAME(text) expect_with(shipped, text, text, RE_TEXT_PLAIN, __LINE__)
#define TEAM_SAYS(text, spoken, flags) expect_with(custom, text, spoken, flags, __LINE__)

static void test_references(void)
{
    SAYS("PR 189759 stops detaching", "PR one eight nine seven five nine stops detaching");
    SAYS("PRs 189771 through 189841", "P.R.'s one eight nine seven seven one through one eight "
         "nine eight four one");
    SAYS("#120345", "number one two zero three four five");
    SAYS("tied to issue 94990.", "tied to issue nine four nine nine zero.");
    SAYS("(PR #189759),", "(PR one eight nine seven five nine),");
    SAYS("PRs 1001, 1002 and 1003", "P.R.'s one zero zero one, one zero zero two and one zero "
         "zero three");
    SAYS("issues 1001\xE2\x80\x93" "1003", "issues one zero zero one through one zero zero three");
    SAYS("see #120345-#120350", "see number one two zero three four five through one two zero "
         "three five zero");
    SAYS("pull request 12345", "pull request one two three four five");
    SAYS("bug 42 and PR 7", "bug 42 and PR 7");
    SAYS("#1 priority", "number 1 priority");
    SAYS("PR 2026", "PR two zero two six");
    SAME("see PR 12. In 2026 we");
    SAYS("commit 1234567 reverted it", "commit one two three four five six seven reverted it");
    SAYS("rust-lang/rust#124165 lands", "rust-lang/rust number one two four one six five lands");
    SAYS("(PEP 703)", "(PEP seven zero three)");   /* pep: a word */
    SAYS("reverted D157341", "reverted D one five seven three four one");
    SAME("We fixed 2 issues and 300 bugs in 2026.");
    SAYS("commit 3f2a9c1 fixed it", "commit three F two eh nine C one fixed it");
}

static void test_versions_and_numbers(void)
{
    SAYS("v2.1.0", "version 2 point 1 point 0");
    SAYS("2.1.0", "2 point 1 point 0");
    SAYS("v2.1.0-rc1", "version 2 point 1 point 0 dash R.C 1");
    SAYS("2.5.0+cu121", "2 point 5 point 0 plus C.U 121");
    SAYS("Python 3.12 is out", "Python 3 point 12 is out");
    SAYS("espeak-ng 1.51", "espeak-ng 1 point 51");
    SAYS("PyTorch 2.10", "Py Torch 2 point 10");
    SAYS("on Ubuntu 22.04", "on Ubuntu 22 point zero four");
    SAME("Approximately 1.25 of them");   /* a capital at a sentence start names nothing */
    SAYS("the v2 API", "the version 2 API");
    SAME("CUDA 12.4");
    SAME("in March 1.25 million");
    SAME("Version 3.5 seconds");
    SAYS("2x faster", "2 times faster");
    SAYS("~2x", "about 2 times");
    SAYS("3.5 ms", "3.5 milliseconds");
    SAYS("1 ms", "1 millisecond");
    SAYS("3.5ms", "3.5 milliseconds");
    SAYS("1.5s", "1.5 seconds");
    SAYS("a 30 s timeout", "a 30 seconds timeout");
    SAYS("1920x1080", "1920 by 1080");
    SAYS("128K context", "128 thousand context");
    SAYS("10GB/s", "10 gigabytes per second");
    SAYS("2.4GHz", "2.4 gigahertz");
    SAYS("7 \xC2\xB5s", "7 microseconds");
    SAME("avoiding a 14-second stall");
    SAME("the 1990s");
    SAYS("5s", "5 seconds");   /* a duration (numbers.c reads "the 90s" as a decade) */
}

static void test_identifiers(void)
{
    SAYS("NCCL2", "nickel 2");
    SAYS("AOTAutograd", "A.O.T Autograd");
    SAYS("std::vector", "std vector");
    SAYS("save_for_backward", "save for backward");
    SAYS("__init__", "init");
    SAYS("ProcessGroupNCCL", "Process Group nickel");
    SAYS("NCCL_DEBUG=INFO", "nickel DEBUG equals INFO");
    SAYS("CUDA_VISIBLE_DEVICES", "CUDA VISIBLE DEVICES");
    SAYS("OMP_NUM_THREADS=8", "OMP NUM THREADS equals 8");   /* words in a constant */
    SAYS("LD_LIBRARY_PATH", "L.D LIBRARY PATH");
    SAYS("8xH100", "8 times H100");
    SAYS("RISC-V", "risk five");
    SAYS("torch.nn.AOTModule", "torch dot nn dot A.O.T Module");
    SAYS("`foo_bar()`", "foo bar");
    SAYS("macOS", "mac OS");
    SAYS("SQLite", "SQ Lite");   /* sq: in the dictionary */
    SAYS("OpenAI", "Open AI");
    SAYS("x86_64", "x86 64");
    SAYS("LaTeX", "lay tech");
    SAYS("k8s", "kubernetes");
    SAME("torch.compile");
    SAME("McDonald's");
    SAME("A100 and H100");
}

static void test_acronyms(void)
{
    SAYS("the NVGEMM backend", "the N.V.G.E.M.M backend");
    SAYS("GPUs", "G.P.U.'s");
    SAYS("CI keeps migrating", "C.I keeps migrating");
    SAME("a URL's host");
    SAYS("one-sided RMA window", "one-sided R.M.A window");
    SAYS("CVE-2024-3094", "C.V.E 2024 three zero nine four");
    SAYS("UTF-8", "UTF 8");   /* utf: in espeak-ng's dictionary, which spells it */
    SAYS("GPT-4", "G.P.T 4");
    SAME("a 2-GPU node");
    SAYS("swap-A-B tiling", "swap A.B tiling");
    SAYS("CI/CD", "C.I slash CD");   /* CI: a lexicon entry; then a word starting with / */
    SAME("This is NOT a drill");
    SAYS("OK, so", "okay, so");
    SAME("small-M decode shapes");
    SAME("World War II");
    SAME("WARNING: keep out");
    SAME("GEMM and CUDA");
}

static void test_urls_files_operators(void)
{
    SAYS("https://github.com/pytorch/pytorch/pull/1", "github dot com pull request 1");
    SAYS("see www.example.com/page.", "see example dot com.");
    SAYS("render.c", "render dot C");
    SAYS("README.md", "README dot M.D");
    SAYS("src/main.py", "src slash main dot pie");
    SAYS("file.tar.gz", "file dot tar dot G.Z");
    SAYS("./configure", "dot slash configure");
    SAYS("/usr/lib", "slash usr slash lib");
    SAYS("C++", "C plus plus");
    SAYS("into C++.", "into C plus plus.");
    SAYS("C++17", "C plus plus 17");
    SAYS("C#", "C sharp");
    SAYS("ptr->next", "ptr arrow next");
    SAYS("A -> B", "A to B");
    SAYS("ready && tested", "ready and tested");
    SAYS("cached || rebuilt", "cached or rebuilt");
    SAYS("**bold** text", "bold text");
    SAYS("e.g. this, i.e", "for example this, i.e");   /* an abbreviation before a word */
    SAME("a.k.a. the U.S. team");
}

static void test_ellipsis(void)
{
    SAME("And a\xE2\x80\xA6");
    SAYS("CI keeps migrating...", "C.I keeps migrating\xE2\x80\xA6");
    SAYS("wait...what", "wait\xE2\x80\xA6 what");
    SAYS("so.... fine", "so\xE2\x80\xA6 fine");
    SAME("a 14-second\xE2\x80\xA6 Third");
    SAME("Really.. ok");
}

/* Ordinary English is left exactly as written, numbers in normal use included. */
static void test_prose_unchanged(void)
{
    SAME("It's November 30th, 2026, and this is your render-episode briefing. Three things "
         "changed this week.");
    SAME("In 2026, 3 people spent 1.5 seconds each, about 20% of the time, on the 1980s "
         "archive.");
    /* but for the full stop of an abbreviation before a word, which the engine would take for
     * the end of a clause ("Doctor." then "Smith") */
    SAYS("She said, \"I'll be there at 9:30.\" We waited; nobody came \xE2\x80\x94 not even "
         "Dr. Smith (the host).", "She said, \"I'll be there at 9:30.\" We waited; nobody came "
         "\xE2\x80\x94 not even Dr Smith (the host).");
    SAYS("Mr. O'Brien paid $4.99 for 2 coffees on July 4th, 1976, and then left at 10 a.m. "
         "sharp.", "Mr O'Brien paid 4 dollars 99 cents for 2 coffees on July 4th, 1976, and then "
         "left at 10 a.m. sharp.");
    SAME("Is it 3 or 4? Maybe 1,000,000! The answer: 42.");
    SAME("The team won 3-2 in the semi-final, their first since 1998; a 5-year plan paid off.");
    SAME("Caf\xC3\xA9 owners in S\xC3\xA3o Paulo and their na\xC3\xAFve customers queued for "
         "45 minutes.");
    SAME("A new approach: a 10-minute walk, twice a day, for 12 weeks.");
    SAME("There were 200 issues in 2024 and 150 bugs. Then the issue was settled.");
    SAME("Chapter 1 begins in London, where it rains 200 days a year.");
    SAME("I think the results [1] are promising, as [citation needed] says.");
}

/* The lexicon goes first, so an entry overrides any rule for its word. */
static void test_lexicon_overrides(void)
{
    unsigned P = RE_TEXT_PLAIN, X = RE_TEXT_PHONEMES;
    TEAM_SAYS("shared with Gloo.", "shared with [[gl'u:]].", X);
    TEAM_SAYS("Gloo2", "[[gl'u:]] 2", X);
    TEAM_SAYS("GlooBackend", "[[gl'u:]] Backend", X);   /* parts of identifiers too */
    TEAM_SAYS("PR 189759", "pull request one eight nine seven five nine", P);
    TEAM_SAYS("NVGEMM", "N.V gem", P);
    TEAM_SAYS("GEMM", "gem", P);
    TEAM_SAYS("C++17", "see plus plus 17", P);
    TEAM_SAYS("Richard  Zou is", "Rikard Zo is", P);
    TEAM_SAYS("AOTAutograd", "A.O.T auto grad", P);
    TEAM_SAYS("NCCL's", "nickle's", P);
    TEAM_SAYS("nccl", "nickle", P);
    TEAM_SAYS("v2.1.0", "vee two one oh", P);
    TEAM_SAYS("And a...", "And a\xE2\x80\xA6", P);
}

/* Every entry of a lexicon is applied where its word stands: each one of the shipped
 * default and of a team's, read back from the canonical form. */
static void test_every_entry_applied(const re_lexicon *lex)
{
    char *lines = strdup(re_lexicon_canonical(lex, NULL));
    for (char *line = strtok(lines, "\n"); line; line = strtok(NULL, "\n")) {
        char *word = strchr(line, '\t') + 1, *replacement = strchr(word, '\t') + 1;
        word[-1] = replacement[-1] = '\0';
        char text[512], expected[2048], *out = NULL;
        unsigned flags;
        snprintf(text, sizeof text, "so %s now", word);
        snprintf(expected, sizeof expected, "so %s now", replacement);
        CHECK_INT(re_normalize(lex, text, &out, &flags), RE_OK);
        CHECK_STR(out, expected);
        CHECK_INT(flags, strstr(replacement, "[[") ? RE_TEXT_PHONEMES : RE_TEXT_PLAIN);
        free(out);
    }
    free(lines);
}

/* With phoneme input on, brackets from the script can never form [[ or ]]. */
static void test_brackets(void)
{
    unsigned P = RE_TEXT_PLAIN, X = RE_TEXT_PHONEMES;
    TEAM_SAYS("say [[h@'loU]] now", "say [[h@'loU]] now", P);   /* no phonemes: kept */
    TEAM_SAYS("[[h@'loU]] Gloo ]] [[[", "[ [h@'loU] ] [[gl'u:]] ] ] [ [ [", X);
    TEAM_SAYS("x[[Gloo", "x[ [ [[gl'u:]]", X);
    TEAM_SAYS("(Gloo)]", "([[gl'u:]])]", X);
    TEAM_SAYS("Gloo]", "[[gl'u:]] ]", X);
    TEAM_SAYS("[Gloo]]", "[ [[gl'u:]] ] ]", X);
}

static void test_spans(void)
{
    const char *text = "PRs 189771  through NCCL2, Gloo.";
    re_spoken s;
    CHECK_INT(re_normalize_spans(custom, text, &s), RE_OK);
    CHECK_STR(s.text, "P.R.'s one eight nine seven seven one through nickle 2, [[gl'u:]].");
    CHECK_INT(s.text_flags, RE_TEXT_PHONEMES);
    size_t at = 0;
    for (size_t i = 0; i < s.span_count; i++) {
        CHECK_INT(s.spans[i].spoken_offset, at);
        at += s.spans[i].spoken_length;
    }
    CHECK_INT(at, strlen(s.text));
    /* The reference number maps back to its digits, the match to NCCL, "2," to itself. */
    int found = 0;
    for (size_t i = 0; i < s.span_count; i++) {
        const re_spoken_span *p = &s.spans[i];
        if (strncmp(s.text + p->spoken_offset, "one eight", 9) == 0) {
            CHECK_INT(p->text_offset, 4);
            CHECK_INT(p->text_length, 6);
            found++;
        }
        if (strncmp(s.text + p->spoken_offset, "nickle", 6) == 0) {
            CHECK_INT(p->text_offset, 20);
            CHECK_INT(p->text_length, 4);
            found++;
        }
        if (strncmp(s.text + p->spoken_offset, " 2,", 3) == 0) {
            CHECK_INT(p->text_offset, 24);
            CHECK_INT(p->text_length, 2);
            found++;
        }
    }
    CHECK_INT(found, 3);
    re_spoken_free(&s);
    CHECK_INT(re_normalize_spans(NULL, "", &s), RE_OK);
    CHECK_STR(s.text, "");
    CHECK_INT(s.span_count, 0);
    re_spoken_free(&s);
}

/* Capitals are decided by the dictionary, not by their number: a dictionary word in any
 * case is left to the engine; capitals that are no word are spelled when short or not
 * pronounceable, split into a word and the rest when they hold one. Rules only (no lexicon). */
static void test_dictionary_words(void)
{
    static const struct { const char *text, *spoken; } cases[] = {
        { "HEAD is at FIND INFO NEWS", "HEAD is at FIND INFO NEWS" },
        { "WARNING: LOAD", "WARNING: LOAD" },
        { "NVGEMM", "N.V.G.E.M.M" },
        { "NCCL", "N.C.C.L" },
        { "CUDA", "C.U.D.A" },
        { "OPENSSL", "OPEN S.S.L" },                 /* not OPENS S.L */
        { "OPENSSL_INIT_LOAD", "OPEN S.S.L INIT LOAD" },
        { "SETUPTOOLS", "SETUP TOOLS" },
        { "README", "README" },                      /* pronounceable, under 9 */
        { "CURLSSLBACKEND", "CURL S.S.L BACKEND" },   /* backend: in espeak-ng's dictionary */
        { "GETPEERNAME", "GET PEER NAME" },
        { "GOAWAY", "GOAWAY" },
        { "MBEDTLS", "M.B.E.D.T.L.S" },               /* no word of 4 */
        { "HTTPS", "H.T.T.P.S" },                    /* HTTP + S: the rest is too short */
        { "PRs and CPUs", "P.R.'s and C.P.U.'s" },   /* plurals not in the dictionary */
        { "HEADs", "HEADs" },                        /* heads: a word */
        { "OPENSSLs", "OPEN S.S.L's" },              /* as its singular */
        { "MAX_JOBS", "MAX JOBS" },
        { "QWXZ_QUUX", "Q.W.X.Z QUUX" },
        { "ProcessGroupNCCL", "Process Group N.C.C.L" },
        { "World War II", "World War II" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_with(NULL, cases[i].text, cases[i].spoken, RE_TEXT_PLAIN, __LINE__);
}

/* One letter, then a word of 4 or more: the capitals' first piece may be a single letter. */
static void test_letter_then_word(void)
{
    static const struct { const char *text, *spoken; } cases[] = {
        { "HAVE_FTRUNCATE", "HAVE F TRUNCATE" },
        { "FTRUNCATE", "F TRUNCATE" },
        { "FDATASYNC", "F DATA SYNC" },               /* the rest in pieces of its own */
        { "HAVE_FCLONEFILEAT", "HAVE F CLONE FILE AT" },
        { "CFLAGS", "C FLAGS" },                      /* not C.F LAGS (9 > 7) */
        { "CPPFLAGS", "C.P.P FLAGS" },                /* the acronym and a word are cheaper */
        { "VFORK", "V FORK" },
        { "OPENSSL", "OPEN S.S.L" },                  /* not O PENS S.L */
        { "ASTRINGX", "ASTRINGX" },                   /* pronounceable: as before */
        { "ILENGTHS", "I.L.E.N.G.T.H.S" },            /* never A or I alone: read as words */
        { "ASTRENGTHS", "A.S.T.R.E.N.G.T.H.S" },
        { "ABLOCKS", "ABLOCKS" },
        { "XFAIL", "X FAIL" },
        { "FSYN", "F.S.Y.N" },                        /* SYN: no word of 4 */
        { "FSTATAT", "F.S.T.A.T.A.T" },               /* FSTA TAT is cheaper, without a word
                                                       * of 4: no reading (documented) */
        { "GETPEERNAME", "GET PEER NAME" },
        { "MBEDTLS", "M.B.E.D.T.L.S" },               /* M + BEDTLS: no word */
        { "HTTPS", "H.T.T.P.S" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_with(NULL, cases[i].text, cases[i].spoken, RE_TEXT_PLAIN, __LINE__);
    re_spoken s;
    CHECK_INT(re_normalize_spans(NULL, "FTRUNCATE", &s), RE_OK);
    CHECK_INT(s.decision_count, 2);
    if (s.decision_count == 2) {
        CHECK_STR(s.decisions[0].what, "capitals, not in the dictionary: a letter, then "
                                       "dictionary words and acronyms");
        CHECK_INT(s.decisions[1].text_offset, 1);
        CHECK_INT(s.decisions[1].text_length, 8);
    }
    re_spoken_free(&s);
}

static void test_hashes_options_revisions_urls(void)
{
    SAYS("12d655d4561", "one two D six five five D");
    SAYS("fixed in 3f2a9c1.", "fixed in three F two eh nine C one.");
    SAYS("deadbeef0123456789abcdef0123456789abcdef", "D.E.A.D.B.E.E");   /* 40: first 7 */
    SAYS("at ab12cd3", "at A.B one two C.D three");
    SAME("1234567");              /* no letter: a number */
    SAME("decaded");              /* no digit: a word */
    SAME("ab12cd");               /* 6: too short for a hash */
    SAYS("DEADBEEF1", "DEADBEEF 1");   /* capitals: not a git hash */
    SAYS("--silent", "dash dash silent");
    SAYS("use -v or --jobs=4", "use dash v or dash dash jobs equals 4");
    SAYS("--no-install-recommends", "dash dash no-install-recommends");
    SAME("a -5 degree day -- or so");
    SAYS("3.25.0-3", "3 point 25 point 0 dash 3");
    SAYS("1.2.3-1+deb12u1", "1 point 2 point 3 dash 1 plus deb 12 u 1");
    SAYS("2.0.0~rc1-2", "2 point 0 point 0 tilde R.C 1 dash 2");
    SAYS("1.0.2-1.1", "1 point 0 point 2 dash 1 point 1");
    SAYS("https://github.com/pytorch/pytorch/pull/189759/files#diff-1f2e",
         "github dot com pull request one eight nine seven five nine");
    SAYS("https://github.com/curl/curl/issues/12", "github dot com issue 12");
    SAYS("https://github.com/a/b/commit/12d655d4561aa0",
         "github dot com commit one two D six five five D");
    SAYS("https://gitlab.com/a/b/-/merge_requests/4321",
         "gitlab dot com merge request four three two one");
    SAYS("https://salsa.debian.org/a/b/-/commits/3f2a9c1e",
         "salsa dot debian dot org commit three F two eh nine C one");
    SAYS("https://example.org:8080/pull/x", "example dot org");
    SAYS("https://example.org/docs/issues", "example dot org");
    SAYS("http://bugs.debian.org/1034343", "bugs dot debian dot org");
}

/* Transcripts show the script's token where the engine says its replacement: the spans of a
 * hash, an option and a URL each map their whole spoken form to the whole token. */
static void test_spans_of_new_rules(void)
{
    static const struct { const char *token, *spoken; } cases[] = {
        { "12d655d4561", "one two D six five five D" },
        { "--silent", "dash dash silent" },
        { "https://github.com/a/b/pull/189759/files",
          "github dot com pull request one eight nine seven five nine" },
        { "3.25.0-3", "3 point 25 point 0 dash 3" },
        { "OPENSSL_INIT", "OPEN S.S.L INIT" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[200];
        snprintf(text, sizeof text, "see %s now", cases[i].token);
        re_spoken s;
        CHECK_INT(re_normalize_spans(NULL, text, &s), RE_OK);
        int found = 0;
        for (size_t k = 0; k < s.span_count; k++) {
            const re_spoken_span *p = &s.spans[k];
            if (p->text_offset == 4) {
                CHECK_INT(p->text_length, strlen(cases[i].token));
                CHECK_INT(p->spoken_length, strlen(cases[i].spoken));
                CHECK(strncmp(s.text + p->spoken_offset, cases[i].spoken, p->spoken_length) == 0);
                found++;
            }
        }
        CHECK_INT(found, 1);
        re_spoken_free(&s);
    }
}

/* The rules are English: for a voice of another language only the lexicon applies. */
static void test_other_languages(void)
{
    CHECK(re_normalize_voice_is_english(NULL));
    CHECK(re_normalize_voice_is_english("en"));
    CHECK(re_normalize_voice_is_english("en-us"));
    CHECK(re_normalize_voice_is_english("en-gb+f3"));
    CHECK(re_normalize_voice_is_english("en-gb-x-rp"));
    CHECK(re_normalize_voice_is_english("gmw/en-US"));
    CHECK(re_normalize_voice_is_english("mb-us1"));
    CHECK(re_normalize_voice_is_english("English"));
    CHECK(!re_normalize_voice_is_english("de"));
    CHECK(!re_normalize_voice_is_english("de+m3"));
    CHECK(!re_normalize_voice_is_english("eo"));       /* Esperanto */
    CHECK(!re_normalize_voice_is_english("es"));
    CHECK(!re_normalize_voice_is_english("mb-de1"));
    CHECK(re_normalize_voice_is_english("mb-de1-en"));
    const char *text = "HEAD ist 12d655d4561, PR 189759 mit --silent und NCCL2...";
    re_spoken s;
    CHECK_INT(re_normalize_spans_for(shipped, text, "de", &s), RE_OK);
    CHECK_STR(s.text, "HEAD ist 12d655d4561, PR 189759 mit --silent und nickel 2...");
    CHECK_INT(s.decision_count, 1);   /* the lexicon's NCCL only */
    re_spoken_free(&s);
    CHECK_INT(re_normalize_spans_for(shipped, text, "en-gb+f3", &s), RE_OK);
    CHECK_STR(s.text, "HEAD ist one two D six five five D, PR one eight nine seven five nine mit "
                      "dash dash silent und nickel 2\xE2\x80\xA6");
    re_spoken_free(&s);
}

/* What explain shows: the decision for each word a rule took, word before its parts. */
/* Hashes of any length, numbers inside identifiers, a minus after a bracket. */
static void test_token_rules(void)
{
    /* SHA-256 (sqlite3's changelog), 41 characters, SHA-512: the first 7, not 25 s of numbers */
    SAYS("df5c253c0b3dd24916e4ec7cf77d3db5294cc9fd45ae7b9c5e82ad8197f38a24",
         "D.F five C two five three");
    SAYS("0123456789abcdef0123456789abcdef012345678", "zero one two three four five six");
    SAYS("cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0"
         "ff8318d2877eec2f63b931bd47417a81a538327af927da3e", "C.F eight three E one three");
    SAYS("--hash=sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
         "dash dash hash equals S.H.A 256 two C.F two four D.B");
    SAYS("sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709", "S.H.A 1 D.A three nine eh three E");
    SAYS("(sha512:cf83e1357eefb8bd)", "(S.H.A 512 C.F eight three E one three)");
    SAYS("md5:d41d8cd98f00b204e9800998ecf8427e.", "M.D 5 D four one D eight C.D.");
    SAME("sha256: add support for Nettle");        /* the algorithm alone: the engine's */
    SAME("SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s");   /* base64, not hex */
    /* a commit named by digits only (findutils' changelog): its first 7 too */
    SAYS("removed with commit 995151807658,", "removed with commit nine nine five one five one eight,");
    SAYS("commit 4159567.", "commit four one five nine five six seven.");
    SAYS("commits 123 and 456", "commits one two three and four five six");   /* references */
    SAME("in 1234567890 ways");                     /* not after "commit": a number */
    /* numbers inside identifiers, digit group by digit group */
    SAYS("lib1560: add tests", "lib one five six zero: add tests");
    SAYS("rfc3986", "rfc three nine eight six");
    SAME("release2024");                            /* a year stays a year */
    SAME("H100 and A6000");                         /* model names: the engine's */
    SAYS("TEMP-0000000-A2945B.", "TEMP zero zero zero zero zero zero zero eh two nine four five B.");
    SAYS("CVE-2024-3094", "C.V.E 2024 three zero nine four");
    SAME("UTF-8B");
    /* a minus after a bracket keeps its sign (git's @{-1}); a hyphen between words none */
    SAYS("via @{-1} is", "via @{ minus 1} is");
    SAYS("HEAD@{-2}", "HEAD@{ minus 2}");
    SAME("well-known 2-3");
    /* a part of a constant that would be spelled whole: pronounceable pieces are words */
    SAYS("Use AI_ADDRCONFIG.", "Use AI ADDR CONFIG.");
    SAYS("OPENSSL_INIT_LOAD", "OPEN S.S.L INIT LOAD");   /* as before */
    SAYS("NVGEMM", "N.V.G.E.M.M");                        /* not in a constant: as before */
    /* a URL before the lexicon: the default nginx = engine X names the site only */
    SAYS("See https://nginx.org/en/security_advisories.html today.",
         "See engine X dot org today.");
    SAYS("(https://www.nginx.org/)", "(engine X dot org)");
    SAYS("nginx.org and nginx", "engine X.org and engine X");   /* no URL: the lexicon */
    SAYS("https://github.com/curl/curl/pull/10542", "github dot com pull request one zero five four two");
    /* emoji: not said, in any voice; the text around them is */
    SAYS("CHANGES WITH 252 \xF0\x9F\x8E\x83:", "CHANGES WITH 252 :");
    SAYS("Done \xF0\x9F\x8E\x89 and \xE2\x9C\x85 fixed\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD ok.",
         "Done and fixed ok.");
    SAYS("\xE2\x9A\xA0\xEF\xB8\x8F Kernel versions", "Kernel versions");
    SAYS("\xF0\x9F\x8E\x89", "");
    SAME("\xC2\xA9 2024 \xE2\x9D\xB6");   /* the copyright sign, a circled digit: no emoji */
    re_spoken sp;
    CHECK_INT(re_normalize_spans_for(shipped, "Hallo \xF0\x9F\x91\x8B Welt", "de", &sp), RE_OK);
    CHECK_STR(sp.text, "Hallo Welt");
    CHECK_INT(sp.decision_count, 1);
    if (sp.decision_count == 1) {
        CHECK_INT(sp.decisions[0].text_offset, 6);
        CHECK_INT(sp.decisions[0].text_length, 4);
        CHECK_STR(sp.decisions[0].what, "emoji: not spoken");
    }
    re_spoken_free(&sp);
}

static void test_decisions(void)
{
    re_spoken s;
    const char *text = "HEAD at 12d655d4561 with OPENSSL_INIT and plain words";
    CHECK_INT(re_normalize_spans(NULL, text, &s), RE_OK);
    static const struct { const char *word, *what; } want[] = {
        { "HEAD", "dictionary word, as the engine says it" },
        { "12d655d4561", "hash: its first 7 characters one by one" },
        { "OPENSSL_INIT", "identifier: its parts" },
        { "OPENSSL", "capitals, not in the dictionary: dictionary words and acronyms" },
        { "OPEN", "dictionary word, as the engine says it" },
        { "SSL", "capitals, not in the dictionary: spelled" },
        { "INIT", "capitals, not in the dictionary but pronounceable: as written" },
    };
    CHECK_INT(s.decision_count, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < s.decision_count && i < sizeof want / sizeof want[0]; i++) {
        const re_spoken_decision *d = &s.decisions[i];
        CHECK_INT(d->text_length, strlen(want[i].word));
        CHECK(strncmp(text + d->text_offset, want[i].word, d->text_length) == 0);
        CHECK_STR(d->what, want[i].what);
    }
    re_spoken_free(&s);
    CHECK_INT(re_normalize_spans(shipped, "Plain words, nothing else.", &s), RE_OK);
    CHECK_INT(s.decision_count, 0);
    CHECK(s.decisions == NULL);
    re_spoken_free(&s);
}

static void test_bad_input(void)
{
    char *out = (char *)1;
    unsigned flags;
    CHECK_INT(re_normalize(shipped, "nick\x01" "el", &out, &flags), RE_ERR_INVALID);
    CHECK(out == NULL);
    CHECK_INT(re_normalize(shipped, "caf\xC3", &out, &flags), RE_ERR_INVALID);
    CHECK_INT(re_normalize(shipped, "two\nlines", &out, &flags), RE_ERR_INVALID);
    CHECK_INT(re_normalize(shipped, NULL, &out, &flags), RE_ERR_INVALID);
    CHECK_INT(re_normalize(NULL, "  PR 123  ", &out, &flags), RE_OK);   /* rules only */
    CHECK_STR(out, "PR one two three");
    free(out);
}

/* No spoken word is longer than the engine can take, whatever the lexicon runs into. */
/* The longest run without a space, in characters (normalize.h's "word"). */
static size_t longest_word(const char *s)
{
    size_t word = 0, longest = 0;
    for (; *s; s++) {
        word = *s == ' ' ? 0 : word + (((unsigned char)*s & 0xC0) != 0x80);
        longest = word > longest ? word : longest;
    }
    return longest;
}

/* In phoneme mode, every [[ and ]] of the result belongs to a lexicon span `span`. */
static int only_lexicon_spans_of(const char *s, const char *span)
{
    for (size_t i = 0; s[i]; i++) {
        if (strncmp(s + i, span, strlen(span)) == 0) {
            i += strlen(span) - 1;
            continue;
        }
        if ((s[i] == '[' && s[i + 1] == '[') || (s[i] == ']' && s[i + 1] == ']'))
            return 0;
    }
    return 1;
}

static int only_lexicon_spans(const char *s)
{
    return only_lexicon_spans_of(s, "[[gl'u:]]");
}

/* The longest run of single letters that each have a dot, with only spaces between ("a.b.c.",
 * "q.z. q.z."): what espeak-ng 1.51 joins into one abbreviation. A letter is an ASCII letter
 * or any character outside ASCII. */
static size_t longest_letter_chain(const char *s)
{
    size_t longest = 0, run = 0, i = 0, n = strlen(s);
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        int letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
        int single = letter && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '.');
        if (single && i + len < n && s[i + len] == '.') {
            run++;
            longest = run > longest ? run : longest;
            i += len + 1;
            continue;
        }
        if (c != ' ' && c != '.')
            run = 0;
        else if (c == ' ' && (i == 0 || s[i - 1] != '.'))
            run = 0;
        i += len;
    }
    return longest;
}

/* Whether the spans cover the spoken text in order and each points inside `text`. */
static int spans_cover(const re_spoken *s, const char *text)
{
    size_t at = 0;
    for (size_t i = 0; i < s->span_count; i++) {
        if (s->spans[i].spoken_offset != at
            || s->spans[i].text_offset + s->spans[i].text_length > strlen(text))
            return 0;
        at += s->spans[i].spoken_length;
    }
    return at == strlen(s->text);
}

/* No token of any length is refused; what the engine receives is cut into pieces it survives
 * (measured, docs/robustness.md), and every piece maps back to the script's whole token. */
static void test_engine_safe_pieces(void)
{
    char dotted[65] = "";
    for (int i = 0; i < 32; i++) {
        dotted[2 * i] = (char)('a' + i % 26);
        dotted[2 * i + 1] = '.';
    }
    char text[400];
    snprintf(text, sizeof text, "%s %s %s", dotted, dotted, dotted);
    re_spoken s;
    CHECK_INT(re_normalize_spans(NULL, text, &s), RE_OK);
    CHECK(longest_letter_chain(text) == 96);
    CHECK(longest_letter_chain(s.text) <= RE_NORMALIZE_MAX_LETTER_CHAIN);
    CHECK(longest_word(s.text) <= RE_NORMALIZE_MAX_WORD);
    CHECK(spans_cover(&s, text));
    re_spoken_free(&s);
    /* "q.z. " 60 times: joined across spaces by the engine, cut every 16 letters. */
    text[0] = '\0';
    for (int i = 0; i < 60; i++)
        strcat(text, i ? " q.z." : "q.z.");
    CHECK_INT(re_normalize_spans(NULL, text, &s), RE_OK);
    CHECK(longest_letter_chain(s.text) <= RE_NORMALIZE_MAX_LETTER_CHAIN);
    re_spoken_free(&s);
    /* Where the cut falls, on a lexicon replacement (said as written, whatever the rules):
     * the dot of the 17th letter becomes a space, across the text's own words too. */
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_lexicon_create(&lex);
    const char *entry = "ZQDOTS = a.b.c.d.e.f.g.h.i.j. k.l.m.n.o.p.q.r.s.t.\n";
    CHECK_INT(re_lexicon_parse(lex, "dots.lexicon", entry, strlen(entry), &d), RE_OK);
    CHECK_INT(re_normalize_spans(lex, "See ZQDOTS ZQDOTS now.", &s), RE_OK);
    CHECK_STR(s.text, "See a.b.c.d.e.f.g.h.i.j. k.l.m.n.o.p.q r.s.t. a.b.c.d.e.f.g.h.i.j. "
                      "k.l.m.n o.p.q.r.s.t. now.");
    CHECK_INT(longest_letter_chain(s.text), RE_NORMALIZE_MAX_LETTER_CHAIN);
    CHECK(spans_cover(&s, "See ZQDOTS ZQDOTS now."));
    re_spoken_free(&s);
    re_lexicon_free(lex);
    re_diagnostics_free(&d);
    /* A 300-character token: several pieces, all of them the script's token in the map. */
    memset(text, 'x', 300);
    strcpy(text + 300, " end.");
    CHECK_INT(re_normalize_spans(NULL, text, &s), RE_OK);
    CHECK(longest_word(s.text) <= RE_NORMALIZE_MAX_WORD);
    CHECK(spans_cover(&s, text));
    size_t covered = 0;
    for (size_t i = 0; i < s.span_count; i++)
        if (s.spans[i].text_offset == 0 && s.spans[i].text_length == 300)
            covered += s.spans[i].spoken_length;
    CHECK(covered >= 300 + 300 / RE_NORMALIZE_MAX_WORD);
    re_spoken_free(&s);
    /* Ordinary dotted names are left as they are; e.g. and i.e. before another word are
     * said in words, without the full stop the engine would take for a clause's end. */
    CHECK_INT(re_normalize_spans(NULL, "e.g. i.e. a.k.a. U.S.A.", &s), RE_OK);
    CHECK_STR(s.text, "for example that is a.k.a. U.S.A.");
    re_spoken_free(&s);
    CHECK_INT(re_normalize_spans(NULL, "Dr. Smith and Mr. Lee, vs. Prof. X (No. 5).", &s), RE_OK);
    CHECK_STR(s.text, "Dr Smith and Mr Lee, versus professor X (number 5).");
    re_spoken_free(&s);
    CHECK_INT(re_normalize_spans(NULL, "Ask Dr. Smith. Ask Dr.", &s), RE_OK);
    CHECK_STR(s.text, "Ask Dr Smith. Ask Dr.");   /* the last word keeps its stop */
    re_spoken_free(&s);
}

static void test_word_length(void)
{
    char text[200], replacement[100], entry[128], expected[300];
    memset(text, 'Q', 40);
    strcpy(text + 40, "-NCCL");                     /* 45 characters: one word */
    memset(replacement, 'n', 80);
    replacement[80] = '\0';
    snprintf(entry, sizeof entry, "NCCL = %s\n", replacement);
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_lexicon_create(&lex);
    CHECK_INT(re_lexicon_parse(lex, "long.lexicon", entry, strlen(entry), &d), RE_OK);
    char *out = NULL;
    unsigned flags;
    CHECK_INT(re_normalize(lex, text, &out, &flags), RE_OK);
    /* 40 Q, the hyphen and 23 n fill the word to 64; the other 57 n follow a space. */
    snprintf(expected, sizeof expected, "%.41s%.23s %.57s", text, replacement, replacement);
    CHECK_STR(out, expected);
    free(out);
    /* A long replacement against brackets of the text (found by fuzz_normalize): in plain
     * text a bracket is a character like any other, and the run is split after it. */
    re_lexicon *lex2 = NULL;
    re_lexicon_create(&lex2);
    const char *entry2 = "x='wwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwwww00no\n";
    CHECK_INT(re_lexicon_parse(lex2, "long.lexicon", entry2, strlen(entry2), &d), RE_OK);
    const char *texts[] = { "x]]X!.......cX!X", "[[x]]X!.......cX!X", "x[X!.......cX!X" };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        CHECK_INT(re_normalize(lex2, texts[t], &out, &flags), RE_OK);
        CHECK_INT(flags, RE_TEXT_PLAIN);
        CHECK(longest_word(out) <= RE_NORMALIZE_MAX_WORD);
        free(out);
    }
    re_lexicon_free(lex2);
    /* With lexicon phonemes: a run that reaches 64 at a lone bracket of the text is split
     * after it (found by fuzz_normalize), never inside a span nor between its two [. */
    re_lexicon *lex3 = NULL;
    re_lexicon_create(&lex3);
    const char *entry3 = "X=[[x]]![[x]]!X!X!X\n";
    CHECK_INT(re_lexicon_parse(lex3, "long.lexicon", entry3, strlen(entry3), &d), RE_OK);
    CHECK_INT(re_normalize(lex3, "X!!\\<X!!!X!x.XX[XV]!\\!X!X!!X/X", &out, &flags), RE_OK);
    CHECK_INT(flags, RE_TEXT_PHONEMES);
    CHECK(longest_word(out) <= RE_NORMALIZE_MAX_WORD);
    CHECK(only_lexicon_spans_of(out, "[[x]]"));
    free(out);
    re_lexicon_free(lex3);
    memset(text, 'Q', 17);                          /* 17 capitals: not spelled */
    text[17] = '\0';
    CHECK_INT(re_normalize(lex, text, &out, &flags), RE_OK);
    CHECK_STR(out, text);
    free(out);
    re_lexicon_free(lex);
    re_diagnostics_free(&d);
}



/* Random texts from troublesome pieces: the result is valid UTF-8 without control
 * characters or overlong words, the same twice, and lets no script bracket become phoneme
 * input. */
static void test_random_texts(void)
{
    static const char *const bits[] = {
        "[", "]", "[[", "]]", "Gloo", " ", "a", "1", "23", ".", "...", "-", "_", "A", "PR",
        "#", "\xC3\xA9", "\xE2\x80\xA6", "\xE2\x80\x93", "x", "::", "->", "/", "v2", "NCCL",
        "'s", "(", ")", "~", "=", "C++", "ms", "\xC2\xB5s", "`", "*", ",", "https://", "www.",
    };
    uint32_t seed = 12345;
    for (int round = 0; round < 3000; round++) {
        char text[800] = "";
        int pieces = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 48;
        for (int i = 0; i < pieces; i++) {
            seed = seed * 1103515245u + 12345u;
            strcat(text, bits[(seed >> 16) % (sizeof bits / sizeof bits[0])]);
        }
        char *a = NULL, *b = NULL;
        unsigned fa, fb;
        re_status sa = re_normalize(custom, text, &a, &fa);
        re_status sb = re_normalize(custom, text, &b, &fb);
        size_t bad;
        const char *why;
        int ok = sa == RE_OK && sb == RE_OK && strcmp(a, b) == 0 && fa == fb
                 && re_utf8_check(a, strlen(a), &bad, &why) && (fa == RE_TEXT_PLAIN || only_lexicon_spans(a));
        for (size_t i = 0; ok && a[i]; i++)
            ok = (unsigned char)a[i] >= 0x20 && a[i] != 0x7F;
        ok = ok && longest_word(a) <= RE_NORMALIZE_MAX_WORD
             && longest_letter_chain(a) <= RE_NORMALIZE_MAX_LETTER_CHAIN;
        check_count++;
        if (!ok) {
            check_failures++;
            fprintf(stderr, "random text \"%s\" -> \"%s\" (flags %u)\n", text, a ? a : "", fa);
        }
        free(a);
        free(b);
    }
}

/* What espeak-ng says, for a subset: identifiers never read as quantities, phoneme input
 * used, acronyms spelled, years still years. */
static void test_engine_phonemes(void)
{
    static const struct { const char *text, *phonemes; int team; } cases[] = {
        { "PR 189759", "p,i:;'A@ w'Vn 'eIt n'aIn s'Ev@n f'aIv n'aIn", 0 },
        { "NCCL2", "n'Ik@L t'u:", 0 },
        { "shared with Gloo", "S'e@d wID gl'u:", 1 },
        { "C++", "s'i: pl'Vs pl'Vs", 0 },
        { "swap-A-B", "sw'0p ,eIb'i:", 0 },
        { "AOTAutograd", ",eI,oUt'i:; ,O:t#oUgr'ad", 0 },
        { "RMA", ",A@r,Em'eI", 0 },
        { "v2.1.0", "v'3:Z@n t'u: p'OInt w'Vn p'OInt z'i@roU", 0 },
        { "3.5 ms", "Tr'i: pOInt f'aIv m'IlI2s,Ek@ndz", 0 },
        { "in 2026", "In t'u: T'aUz@nd tw'Ent2i s'Iks", 0 },
    };
    re_engine *engine = NULL;
    re_diagnostics diag;
    re_diagnostics_init(&diag, 0);
    if (getenv("RE_TEST_NO_ENGINE")) {   /* e.g. under valgrind, which lacks pidfd_open */
        fprintf(stderr, "RE_TEST_NO_ENGINE is set: the engine's phonemes are not checked\n");
        return;
    }
    if (re_engine_create(NULL, &engine, &diag) != RE_OK) {
        fprintf(stderr, "cannot start espeak-ng: %s\n", diag_last(&diag));
        re_diagnostics_free(&diag);
        check_failures++;
        return;
    }
    re_voice_profile profile = { .name = "test", .engine_voice = "en-us", .speaker = "Test",
                                 .rate = 175, .pitch = 50, .range = 50, .volume = 100,
                                 .sentence_pause_ms = 400, .paragraph_pause_ms = 800 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *spoken = NULL, *phonemes = NULL;
        unsigned flags;
        CHECK_INT(re_normalize(cases[i].team ? custom : shipped, cases[i].text, &spoken, &flags),
                  RE_OK);
        CHECK_INT(re_engine_phonemes(engine, spoken, flags, &profile, &phonemes, &diag), RE_OK);
        CHECK_STR(phonemes, cases[i].phonemes);
        free(spoken);
        free(phonemes);
    }
    re_engine_free(engine);
    re_diagnostics_free(&diag);
}

int main(void)
{
    shipped = load(NULL);
    custom = load(team_entries);
    if (!shipped || !custom)
        return check_finish("test_normalize");
    test_references();
    test_versions_and_numbers();
    test_identifiers();
    test_acronyms();
    test_urls_files_operators();
    test_ellipsis();
    test_prose_unchanged();
    test_lexicon_overrides();
    test_every_entry_applied(shipped);
    re_lexicon *team = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_lexicon_create(&team);
    CHECK_INT(re_lexicon_parse(team, "team.lexicon", team_entries, strlen(team_entries), &d), RE_OK);
    test_every_entry_applied(team);
    re_lexicon_free(team);
    re_diagnostics_free(&d);
    test_brackets();
    test_spans();
    test_dictionary_words();
    test_letter_then_word();
    test_hashes_options_revisions_urls();
    test_decisions();
    test_token_rules();
    test_spans_of_new_rules();
    test_other_languages();
    test_bad_input();
    test_random_texts();
    test_word_length();
    test_engine_safe_pieces();
    test_engine_phonemes();
    re_lexicon_free(shipped);
    re_lexicon_free(custom);
    return check_finish("test_normalize");
}
