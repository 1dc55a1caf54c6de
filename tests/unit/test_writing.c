/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_writing.c - spans of text in another writing system than the voice's (writing.c). */
#include <stdint.h>
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

/* The voice an en-us text gives to two of code point cp between Latin words: the span's
 * voice, "" for no voice, or "-" when cp is no span's (the text's own voice reads it). */
static const char *voice_of(uint32_t cp)
{
    static char text[32];
    char one[5];
    size_t n;
    if (cp < 0x800) {
        one[0] = (char)(0xC0 | cp >> 6), one[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    } else if (cp < 0x10000) {
        one[0] = (char)(0xE0 | cp >> 12), one[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        one[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
    } else {
        one[0] = (char)(0xF0 | cp >> 18), one[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        one[2] = (char)(0x80 | (cp >> 6 & 0x3F)), one[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
    }
    one[n] = '\0';
    snprintf(text, sizeof text, "say %s%s now", one, one);
    re_writing_run runs[RE_WRITING_MAX_RUNS];
    size_t count = 0;
    re_writing_runs(text, "en-us", runs, &count);
    for (size_t i = 0; i < count; i++)
        if (runs[i].voice && runs[i].offset == 4 && runs[i].length == 2 * n)
            return runs[i].voice;
    return count == 1 && !runs[0].voice ? "-" : "?";
}

/* Each Unicode block the rules name (their bounds as Unicode's Blocks.txt gives them; Armenian
 * and Hebrew from their first assigned character), held at its first and last code point and
 * just outside both: a range cut short or run long sends text to the wrong voice. */
static void test_block_edges(void)
{
    static const struct {
        uint32_t first, last;
        const char *voice;
    } blocks[] = {
        { 0x0370, 0x03FF, "el" },  { 0x1F00, 0x1FFF, "el" },    /* Greek and Coptic, Extended */
        { 0x0400, 0x04FF, "ru" },  { 0x0500, 0x052F, "ru" },    /* Cyrillic, Supplement */
        { 0x1C80, 0x1C8F, "ru" },                               /* Cyrillic Extended-C */
        { 0x0531, 0x058F, "hy" },  { 0x0591, 0x05FF, "he" },
        { 0x0600, 0x06FF, "ar" },  { 0x0750, 0x077F, "ar" },    /* Arabic, Supplement */
        { 0xFB50, 0xFDFF, "ar" },  { 0xFE70, 0xFEFF, "ar" },    /* Presentation Forms-A, -B */
        { 0x0700, 0x074F, "" },    { 0x0780, 0x07BF, "" },      /* Syriac, Thaana */
        { 0x0900, 0x097F, "hi" },  { 0x0980, 0x09FF, "bn" },  { 0x0A00, 0x0A7F, "pa" },
        { 0x0A80, 0x0AFF, "gu" },  { 0x0B00, 0x0B7F, "or" },  { 0x0B80, 0x0BFF, "ta" },
        { 0x0C00, 0x0C7F, "te" },  { 0x0C80, 0x0CFF, "kn" },  { 0x0D00, 0x0D7F, "ml" },
        { 0x0D80, 0x0DFF, "si" },  { 0x0E00, 0x0E7F, "th" },  { 0x0E80, 0x0EFF, "" },
        { 0x0F00, 0x0FFF, "" },    { 0x1000, 0x109F, "my" },  { 0x10A0, 0x10FF, "ka" },
        { 0x1100, 0x11FF, "ko" },  { 0x3130, 0x318F, "ko" },  { 0xAC00, 0xD7AF, "ko" },
        { 0x1200, 0x137F, "am" },  { 0x1780, 0x17FF, "" },    { 0x1800, 0x18AF, "" },
        { 0x3040, 0x309F, "ja" },  { 0x30A0, 0x30FF, "ja" },  { 0x31F0, 0x31FF, "ja" },
        { 0xFF66, 0xFF9F, "ja" },                               /* halfwidth katakana */
        { 0x3100, 0x312F, "" },    { 0xA000, 0xA48F, "" },    { 0xA490, 0xA4CF, "" },
        { 0x3400, 0x4DBF, "cmn" }, { 0x4E00, 0x9FFF, "cmn" }, { 0xF900, 0xFAFF, "cmn" },
        { 0x20000, 0x2FFFF, "cmn" }, { 0x30000, 0x3FFFF, "cmn" },   /* planes 2 and 3 */
    };
    size_t count = sizeof blocks / sizeof blocks[0];
    for (size_t i = 0; i < count; i++) {
        uint32_t edges[4] = { blocks[i].first, blocks[i].last, blocks[i].first - 1,
                              blocks[i].last + 1 };
        for (int e = 0; e < 4; e++) {
            const char *expected = "-";   /* outside every block: the text's own voice */
            for (size_t j = 0; j < count; j++)
                if (edges[e] >= blocks[j].first && edges[e] <= blocks[j].last)
                    expected = blocks[j].voice;
            const char *got = voice_of(edges[e]);
            if (strcmp(got, expected) != 0)
                fprintf(stderr, "U+%04X: voice '%s', expected '%s'\n", (unsigned)edges[e], got,
                        expected);
            CHECK_STR(got, expected);
        }
    }
    /* Latin letters beyond ASCII are the voice's own and end a span: U+00C0..U+024F (but
     * U+00D7 and U+00F7, signs) and U+1E00..U+1EFF; U+00BF, U+0250 and U+1DFF just outside
     * are not, and stay in the span they stand inside. */
    static const struct { const char *letter; int own; } latin[] = {
        { "\u00bf", 0 }, { "\u00c0", 1 }, { "\u00d6", 1 }, { "\u00d7", 0 }, { "\u00d8", 1 },
        { "\u00f6", 1 }, { "\u00f7", 0 }, { "\u00f8", 1 }, { "\u024f", 1 }, { "\u0250", 0 },
        { "\u1dff", 0 }, { "\u1e00", 1 }, { "\u1eff", 1 },
    };
    for (size_t i = 0; i < sizeof latin / sizeof latin[0]; i++) {
        char text[64], expected[96];
        snprintf(text, sizeof text, "say мир %s мир ok", latin[i].letter);
        if (latin[i].own)
            snprintf(expected, sizeof expected, "say |-;мир|ru; %s |-;мир|ru; ok|-;", latin[i].letter);
        else
            snprintf(expected, sizeof expected, "say |-;мир %s мир|ru; ok|-;", latin[i].letter);
        expect_runs(text, "en-us", expected);
    }
}

int main(void)
{
    test_scripts_and_voices();
    test_no_voice();
    test_too_many_spans();
    test_block_edges();
    return check_finish("test_writing");
}
