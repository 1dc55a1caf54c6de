/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_say_amounts.c - readings of requirements, durations, money, merge requests and rule
 * codes, as a person reads release notes aloud: what is said, the decision explain shows,
 * and that the words around them (identifiers, shell parameters, decades, GPUs) are left as
 * they were. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "lexicon.h"
#include "normalize.h"

static re_lexicon *shipped;   /* voices/default.lexicon, as an episode gets it */

static re_lexicon *load(void)
{
    const char *dirs[] = { RE_SOURCE_VOICES_DIR };
    re_lexicon_sources src = { .dirs = dirs, .dir_count = 1 };
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_lexicon_build(&src, &lex, &d), RE_OK);
    re_diagnostics_free(&d);
    return lex;
}

static void expect(const char *text, const char *spoken, int line)
{
    char *out = NULL;
    unsigned flags = 99;
    re_status status = re_normalize(shipped, text, &out, &flags);
    check_count++;
    if (status != RE_OK || !out || strcmp(out, spoken) != 0) {
        check_failures++;
        fprintf(stderr, "%s:%d: normalize \"%s\"\n      got \"%s\" (status %d)\n"
                "  expected \"%s\"\n", __FILE__, line, text, out ? out : "(null)", status, spoken);
    }
    free(out);
}

/* The outermost decision taken for `word` in `text` is `what`. */
static void expect_decision(const char *text, const char *word, const char *what, int line)
{
    re_spoken s;
    const char *at = strstr(text, word);
    const char *got = NULL;
    CHECK(at != NULL);
    CHECK_INT(re_normalize_spans(shipped, text, &s), RE_OK);
    for (size_t i = 0; at && i < s.decision_count && !got; i++)
        if (s.decisions[i].text_offset == (size_t)(at - text)
            && s.decisions[i].text_length == strlen(word))
            got = s.decisions[i].what;
    check_count++;
    if (!got || strcmp(got, what) != 0) {
        check_failures++;
        fprintf(stderr, "%s:%d: decision for \"%s\" in \"%s\": got \"%s\", expected \"%s\"\n",
                __FILE__, line, word, text, got ? got : "(none)", what);
    }
    re_spoken_free(&s);
}

#define SAYS(text, spoken) expect(text, spoken, __LINE__)
#define SAME(text) expect(text, text, __LINE__)
#define DECIDES(text, word, what) expect_decision(text, word, what, __LINE__)

static void test_requirements(void)
{
    SAYS("Python >=3.9,<3.13", "Python 3 point 9 or later, before 3 point 13");
    SAYS("requires >=3.9, <3.13.", "requires 3 point 9 or later, before 3 point 13.");
    SAYS("PCRE2 <=10.30 only", "P.C.R.E 2 10 point 30 or earlier only");
    SAYS("Linux >5.2", "Linux later than 5 point 2");
    SAYS("pin ==1.2", "pin exactly 1 point 2");
    SAYS("not !=1.2", "not not 1 point 2");
    SAYS("use ~=1.4", "use 1 point 4 or a compatible later version");
    SAYS("\"^1.2.0\"", "\"1 point 2 point 0 or a compatible later version\"");
    SAYS("~1.2.0", "1 point 2 point 0 or a later patch");
    SAYS("`torch==2.1.0`", "torch exactly 2 point 1 point 0");
    SAYS("uv_build>=0.11.32,<0.13", "uv build 0 point 11 point 32 or later, before 0 point 13");
    SAYS("!=3.11.*, !=3.12.*", "not any 3 point 11, not any 3 point 12");
    SAYS("example>=2.0.0b1", "example 2 point 0 point 0 b 1 or later");
    SAYS("bats >=1.5.0-rc1", "bats 1 point 5 point 0 dash R.C 1 or later");
    DECIDES("Python >=3.9,<3.13", ">=3.9,<3.13", "requirement: its comparisons in words");
    /* left alone: about a number, operators in code, an assignment, an arrow */
    SAYS("~5 minutes", "about 5 minutes");
    SAYS("a > b", "a > b");
    SAME("if x>1.5 then");
    SAYS("x<y", "x<y");
    SAYS("FOO=1", "FOO equals 1");
    SAYS("v1 -> v2", "version 1 to version 2");
}

static void test_durations(void)
{
    SAYS("1h30m", "1 hour 30 minutes");
    SAYS("from 2m49s to 39s", "from 2 minutes 49 seconds to 39 seconds");
    SAYS("1h0m5s", "1 hour 0 minutes 5 seconds");
    SAYS("1m30.5s", "1 minute 30.5 seconds");
    SAYS("a 30s timeout", "a 30 seconds timeout");
    SAYS("retry delay of 1s", "retry delay of 1 second");
    SAYS("timeout=5s", "timeout equals 5 seconds");
    SAYS("250ms", "250 milliseconds");
    SAYS("2.5x faster", "2.5 times faster");
    SAYS("10MB and 512 KiB at 3GHz", "10 megabytes and 512 kibibytes at 3 gigahertz");
    SAME("100% done");
    DECIDES("1h30m", "1h30m", "duration: its units in words");
    /* decades stay decades; identifiers stay identifiers */
    SAME("in the 90s and the 1990s");
    SAME("late 80s");
    SAME("100s of files and 1000s of lines");
    SAME("h1 s3 s390x");
    SAYS("x86_64", "x86 64");
    SAME("30m");
    SAYS("1m1h", "1m1h");
}

static void test_money(void)
{
    SAYS("$4.99", "4 dollars 99 cents");
    SAYS("$1.05", "1 dollar 5 cents");
    SAYS("$1.00", "1 dollar");
    SAYS("$0.50", "50 cents");
    SAYS("$0.01", "1 cent");
    SAYS("$1.2M", "1.2 million dollars");
    SAYS("$300K", "300 thousand dollars");
    SAYS("$2B", "2 billion dollars");
    SAYS("$4.9", "4.9 dollars");
    SAYS("$1,500", "1,500 dollars");
    SAYS("($25.00)", "(25 dollars)");
    SAYS("\xE2\x82\xAC" "10,000", "10,000 euros");
    SAYS("\xE2\x82\xAC" "1", "1 euro");
    SAYS("\xC2\xA3" "5.", "5 pounds.");
    SAYS("\xC2\xA3" "1", "1 pound");
    SAYS("\xC2\xA3" "4.99", "4 pounds 99 pence");
    SAYS("\xC2\xA3" "0.01", "1 penny");
    SAYS("\xC2\xA5" "100", "100 yen");
    DECIDES("costs $4.99", "$4.99", "money: the amount, then its currency");
    /* shell and regular-expression parameters are not money */
    SAME("$1 to rename");
    SAME("sets $0");
    SAME("$10t");
    SAME("$HOME");
    SAME("movb $120, (%rdi)");   /* an assembler's immediate (libfmt9's changelog) */
    SAYS("(Bugzilla #1498, $1499).", "(Bugzilla number one four nine eight, $1499).");
}

static void test_merge_requests(void)
{
    SAYS("See !456.", "See merge request four five six.");
    SAYS("(Closes: !47)", "(Closes: merge request 47)");
    SAYS("group/project!456", "group/project merge request four five six");
    SAYS("and #123", "and number one two three");
    SAYS("!456 and #123", "merge request four five six and number one two three");
    SAYS("MR: !340", "MR: three four zero");
    DECIDES("See !456.", "!456", "merge request: its number");
    SAME("Done!");
    SAME("wow!!");
    SAYS("!= 3", "!= 3");
}

static void test_rule_codes(void)
{
    SAYS("(RUF012)", "(R.U.F zero one two)");
    SAYS("PLC2701", "P.L.C two seven zero one");
    SAYS("SIM118", "S.I.M one one eight");
    SAYS("UP048", "U.P zero four eight");
    SAYS("(E501)", "(E five zero one)");
    SAYS("rule C2701", "rule C two seven zero one");
    SAYS("B006", "B zero zero six");
    SAYS("ignore E501, W605 and F401",
         "ignore E five zero one, W six zero five and F four zero one");
    DECIDES("(RUF012)", "RUF012", "rule code: letters, then its digits one by one");
    /* model names, hashes and years stay as they are */
    SAME("an H100 GPU");
    SAYS("SHA256", "S.H.A 256");
    SAYS("ES2015", "ES 2015");
    SAYS("CVE-2026-1234", "C.V.E 2026 one two three four");
}

static void test_advisories(void)
{
    SAYS("See GHSA-pjjw-68hj-v9mw for", "See G.H.S.A P.J.J.W six eight H.J V nine M.W for");
    DECIDES("(GHSA-8qf3-x8v5-2pj8)", "GHSA-8qf3-x8v5-2pj8",
            "advisory ID: its characters one by one");
    SAYS("GHSA-pjjw-68hj", "G.H.S.A pjjw 68hj");   /* not an advisory ID: parts as before */
}

static void test_other_languages(void)
{
    const char *text = "Python >=3.9,<3.13 $4.99 1h30m !456 (E501)";
    re_spoken s;
    CHECK_INT(re_normalize_spans_for(shipped, text, "de", &s), RE_OK);
    CHECK_STR(s.text, text);
    re_spoken_free(&s);
}

int main(void)
{
    shipped = load();
    if (!shipped)
        return check_finish("test_say_amounts");
    test_requirements();
    test_durations();
    test_money();
    test_merge_requests();
    test_rule_codes();
    test_advisories();
    test_other_languages();
    re_lexicon_free(shipped);
    return check_finish("test_say_amounts");
}
