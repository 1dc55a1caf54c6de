/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_writing.c - spans of text in another writing system than the voice's (writing.c). */
#include <stdio.h>
#include <string.h>

#include "testkit.h"
#include "writing.h"

/* The runs of text for voice, written as "text|voice;" (voice "-" for the text's own). */
static void expect_runs(const char *text, const char *voice, const char *expected)
{
    re_writing_run runs[RE_WRITING_MAX_RUNS];
    size_t count = 0;
    re_writing_runs(text, voice, runs, &count);
    char got[2048] = "";
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        CHECK_INT(runs[i].offset, at);   /* in order, covering the text */
        at += runs[i].length;
        size_t used = strlen(got);
        snprintf(got + used, sizeof got - used, "%.*s|%s;", (int)runs[i].length,
                 text + runs[i].offset, runs[i].voice ? runs[i].voice : "-");
    }
    CHECK_INT(at, strlen(text));
    CHECK_STR(got, expected);
}

static void test_scripts_and_voices(void)
{
    expect_runs("Plain English, café and naïve 42.", "en-us", "Plain English, café and naïve 42.|-;");
    expect_runs("The word Привет, мир! means hello.", "en-us",
                "The word |-;Привет, мир!|ru; means hello.|-;");
    /* Han alone is Chinese; with kana anywhere in the text, Japanese kanji, which espeak-ng
     * 1.51's ja voice calls "Chinese letter" one by one: left out (no voice) with its kana;
     * kana alone is ja's. */
    expect_runs("Say 中文 now.", "en-gb+f3", "Say |-;中文|cmn; now.|-;");
    expect_runs("Say 東京 and 日本語のテキスト.", "en-us",
                "Say |-;東京|; and |-;日本語のテキスト.|;");
    expect_runs("セグメンテーション違反です (core dumped)", "en-us",
                "セグメンテーション違反です|; (core dumped)|-;");
    expect_runs("Say セグメンテーション now.", "en-us", "Say |-;セグメンテーション|ja; now.|-;");
    expect_runs("Γεια σου and שלום and 안녕 and مرحبا and สวัสดี and नमस्ते end", "en-us",
                "Γεια σου|el; and |-;שלום|he; and |-;안녕|ko; and |-;مرحبا|ar; and |-;"
                "สวัสดี|th; and |-;नमस्ते|hi; end|-;");
    /* Two scripts side by side are two spans; digits and blanks between one script's
     * characters stay in its span. */
    expect_runs("x Привет 日本 y", "en-us", "x |-;Привет|ru; |-;日本|cmn; y|-;");
    expect_runs("Код 2026 года ok", "en-us", "Код 2026 года|ru; ok|-;");
    /* A voice reads its own script (and Latin); the variant and region do not matter. */
    expect_runs("Привет, Ivan!", "ru", "Привет, Ivan!|-;");
    expect_runs("Привет, Ivan!", "uk+m3", "Привет, Ivan!|-;");
    expect_runs("東京とParis", "ja", "東京|;とParis|-;");   /* ja: its kana, not kanji */
    expect_runs("ひらがなとParis", "ja", "ひらがなとParis|-;");
    expect_runs("中文 and Ελλάδα", "cmn", "中文 and |-;Ελλάδα|el;");
    expect_runs("Sinhala සිංහල and Myanmar မြန်မာ ok", "en-us",
                "Sinhala |-;සිංහල|si; and Myanmar |-;မြန်မာ|my; ok|-;");
    /* One letter of an alphabet is a symbol the voice names; one ideograph is a word. */
    expect_runs("3.5 \u03bcs and \u03c0 and \u0394t and \u03b2-reduction", "en-us",
                "3.5 \u03bcs and \u03c0 and \u0394t and \u03b2-reduction|-;");
    expect_runs("Say \u6771 now", "en-us", "Say |-;\u6771|cmn; now|-;");
    expect_runs("then \"Привет, мир\" in Russian", "en-us",
                "then |-;\"Привет, мир\"|ru; in Russian|-;");   /* the quotes go with it */
    expect_runs("say \u00abмир\u00bb, (\u6771\u4eac) and \u201c\u0393\u03b5\u03b9\u03b1\u201d", "en-us",
                "say |-;\u00abмир\u00bb,|ru; |-;(\u6771\u4eac)|cmn; and |-;"
                "\u201c\u0393\u03b5\u03b9\u03b1\u201d|el;");
    expect_runs("a(b)\"мир", "en-us", "a(b)|-;\"мир|ru;");   /* only right before it */
    expect_runs("", "en-us", "|-;");
    expect_runs("日本", "en-us", "日本|cmn;");
}

/* Scripts no espeak-ng 1.51 voice reads: marked RE_WRITING_NO_VOICE, with their name. */
static void test_no_voice(void)
{
    const char *text = "Khmer ភាសាខ្មែរ ok";
    re_writing_run runs[RE_WRITING_MAX_RUNS];
    size_t count = 0;
    re_writing_runs(text, "en-us", runs, &count);
    CHECK_INT(count, 3);
    CHECK_STR(runs[1].voice, RE_WRITING_NO_VOICE);
    CHECK_STR(runs[1].script, "Khmer");
    CHECK_INT(runs[1].offset, 6);
    CHECK_INT(runs[1].length, strlen("ភាសាខ្មែរ"));
}

/* Too many spans: the text is read whole by its voice, not a process per word. */
static void test_too_many_spans(void)
{
    char text[4096] = "";
    for (int i = 0; i < 40; i++)
        strcat(text, i % 2 ? "мир " : "and ");
    re_writing_run runs[RE_WRITING_MAX_RUNS];
    size_t count = 0;
    re_writing_runs(text, "en-us", runs, &count);
    CHECK_INT(count, 1);
    CHECK(runs[0].voice == NULL);
    CHECK_INT(runs[0].length, strlen(text));
    text[0] = '\0';
    for (int i = 0; i < 15; i++)
        strcat(text, "and мир ");
    re_writing_runs(text, "en-us", runs, &count);
    CHECK_INT(count, 31);
}

int main(void)
{
    test_scripts_and_voices();
    test_no_voice();
    test_too_many_spans();
    return check_finish("test_writing");
}
