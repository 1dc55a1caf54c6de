/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sentences.c - where a paragraph's sentences end (sentences.h): abbreviations, one-letter
 * last words, quotes, numbers, the engine's small-letter rule and phoneme spans. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "normalize.h"
#include "sentences.h"

/* The sentences of text, joined with " | ". */
static const char *split(const char *text, unsigned flags)
{
    static char out[1024];
    size_t len = strlen(text), pos = 0, o = 0;
    out[0] = '\0';
    while (pos < len && text[pos] == ' ')
        pos++;
    while (pos < len) {
        size_t end = re_sentence_end(text, pos, flags);
        if (end <= pos || end > len)
            return "(no progress)";
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", o ? " | " : "", (int)(end - pos),
                              text + pos);
        pos = end;
        while (pos < len && (text[pos] == ' ' || text[pos] == '\t'))
            pos++;
    }
    return out;
}

/* The two questions sentences.h answers agree: at every blank of text after a stop, `text`
 * cut there ends a sentence (re_ends_sentence, asked where a paragraph is cut into pieces in
 * other voices) exactly when re_sentence_end cuts the paragraph there. 0 when they agree. */
static int disagreements(const char *text)
{
    size_t len = strlen(text), from = 0, wrong = 0;
    char prefix[1024];
    while (from < len) {
        size_t end = re_sentence_end(text, from, RE_TEXT_PLAIN);
        for (size_t j = from; j < end && j < sizeof prefix; j++) {
            if (text[j] != ' ' || j == 0 || text[j - 1] == ' ')
                continue;
            memcpy(prefix, text, j);
            prefix[j] = '\0';
            if (re_ends_sentence(prefix, text + j + 1)) {
                fprintf(stderr, "  ends here, but re_sentence_end goes on: '%s' | '%s'\n",
                        prefix, text + j + 1);
                wrong++;
            }
        }
        if (end < len && end < sizeof prefix) {
            memcpy(prefix, text, end);
            prefix[end] = '\0';
            if (!re_ends_sentence(prefix, text + end + 1)) {
                fprintf(stderr, "  cut here, but does not end: '%s' | '%s'\n", prefix,
                        text + end + 1);
                wrong++;
            }
        }
        from = end;
        while (from < len && text[from] == ' ')
            from++;
    }
    return (int)wrong;
}

int main(void)
{
    static const struct { const char *text, *sentences; } cases[] = {
        { "One. Two.", "One. | Two." },
        { "Dr. Smith fixed it. It works.", "Dr. Smith fixed it. | It works." },
        { "Run chmod u+w B. Then go.", "Run chmod u+w B. | Then go." },
        { "Run chmod u+w B.", "Run chmod u+w B." },
        { "Ask Mr. and Mrs. Jones, Ms. Lee, Prof. X, Lt. Dan, Rev. Green and St. Louis. Done.",
          "Ask Mr. and Mrs. Jones, Ms. Lee, Prof. X, Lt. Dan, Rev. Green and St. Louis. | Done." },
        { "Use e.g. Python or i.e. Rust, vs. Go. Yes.", "Use e.g. Python or i.e. Rust, vs. Go. | Yes." },
        { "We fixed X, Y, etc. Then we left.", "We fixed X, Y, etc. | Then we left." },
        { "We fixed X, Y, etc. and left.", "We fixed X, Y, etc. and left." },
        { "Thanks to Acme Inc. for it. Made by Acme Inc. The next one.",
          "Thanks to Acme Inc. for it. | Made by Acme Inc. | The next one." },
        { "Foo Ltd. and Bar Corp. and Baz Co. agree. Smith et al. showed it. Smith et al. It is.",
          "Foo Ltd. and Bar Corp. and Baz Co. agree. | Smith et al. showed it. | Smith et al. | "
          "It is." },
        { "Jane Doe, Ph.D. students. Out on Jan. 5 and Dec. 24. See Fig. 3, Vol. 2 and Ch. 7.",
          "Jane Doe, Ph.D. students. | Out on Jan. 5 and Dec. 24. | See Fig. 3, Vol. 2 and Ch. 7." },
        { "Due in May. Then June.", "Due in May. | Then June." },
        { "By John F. Smith and J. R. Hacker. Plan B. The fix. Set A. Then go.",
          "By John F. Smith and J. R. Hacker. | Plan B. | The fix. | Set A. | Then go." },
        { "Use approx. Two or e.g. Ten or Dr. No.", "Use approx. Two or e.g. Ten or Dr. No." },
        { "See No. 5 here. No. It is not.", "See No. 5 here. | No. | It is not." },
        { "Version 3.5 is out. Get v1.2. Now!", "Version 3.5 is out. | Get v1.2. | Now!" },
        { "Really? Yes! Fine.", "Really? | Yes! | Fine." },
        { "What?! Oh... I see.", "What?! | Oh... | I see." },
        { "He said \"Stop.\" Then he left.", "He said \"Stop.\" | Then he left." },
        { "(This is it.) Next one.", "(This is it.) | Next one." },
        { "\"git diff rev^!\" did not show it. He said \"Stop!\" and left. \"Go!\" Done.",
          "\"git diff rev^!\" did not show it. | He said \"Stop!\" and left. | \"Go!\" | Done." },
        { "It\xE2\x80\x99s \xE2\x80\x9C" "done.\xE2\x80\x9D Next.",
          "It\xE2\x80\x99s \xE2\x80\x9C" "done.\xE2\x80\x9D | Next." },
        { "A dot. then small letters. And a capital.", "A dot. | then small letters. | And a capital." },
        { "Ein Satz. \xC3\xBC" "ber alles.", "Ein Satz. | \xC3\xBC" "ber alles." },
        { "It is 5 p.m. now, a.k.a. late. At 5 p.m. Then more.",
          "It is 5 p.m. now, a.k.a. late. | At 5 p.m. | Then more." },
        { "Enable it. parse object has been hardened.", "Enable it. | parse object has been hardened." },
        { "Read example.com. 5 items follow.", "Read example.com. | 5 items follow." },
        { "Trailing space.   ", "Trailing space." },
        { "Fine\xE2\x80\xA6 Then more. Wait\xE2\x80\xA6 what?",
          "Fine\xE2\x80\xA6 | Then more. | Wait\xE2\x80\xA6 what?" },
        { "No end", "No end" },
        { "", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = split(cases[i].text, RE_TEXT_PLAIN);
        if (strcmp(got, cases[i].sentences) != 0)
            fprintf(stderr, "  case %zu: \"%s\"\n", i, cases[i].text);
        CHECK_STR(got, cases[i].sentences);
    }
    /* A full stop inside phoneme input ends nothing; outside it, as before. */
    CHECK_STR(split("Say [[h@l'oU. wVn]] now. Next.", RE_TEXT_PHONEMES),
              "Say [[h@l'oU. wVn]] now. | Next.");
    CHECK_STR(split("Say [[x. Y]] now. Next.", RE_TEXT_PLAIN), "Say [[x. | Y]] now. | Next.");

    CHECK(re_is_abbreviation(NULL, 0, "Dr", 2, "Smith"));
    CHECK(re_is_abbreviation("use", 3, "(e.g", 4, "this"));
    CHECK(re_is_abbreviation("Y,", 2, "ETC", 3, "and"));
    CHECK(!re_is_abbreviation("Y,", 2, "ETC", 3, "Then"));
    CHECK(!re_is_abbreviation("Y,", 2, "etc", 3, NULL));
    CHECK(re_is_abbreviation("See", 3, "No", 2, "5"));
    CHECK(!re_is_abbreviation(NULL, 0, "No", 2, "It"));
    CHECK(!re_is_abbreviation("u+w", 3, "B", 1, "Then"));
    CHECK(!re_is_abbreviation("Big", 3, "Drive", 5, "Then"));
    CHECK(re_is_abbreviation("John", 4, "F", 1, "Smith"));
    CHECK(re_is_abbreviation("by", 2, "J", 1, "R. Hacker"));
    CHECK(!re_is_abbreviation("by", 2, "J", 1, "Hacker"));
    CHECK(!re_is_abbreviation("Plan", 4, "B", 1, "The fix"));
    CHECK(re_is_abbreviation("et", 2, "al", 2, "showed"));
    CHECK(!re_is_abbreviation("et", 2, "al", 2, "The"));
    CHECK(!re_is_abbreviation("the", 3, "al", 2, "showed"));
    CHECK(re_is_abbreviation("on", 2, "Nov", 3, "30"));
    CHECK(!re_is_abbreviation("in", 2, "May", 3, "30"));

    /* ... every cut of the cases above and none elsewhere (but 。！？, only a piece's). */
    int wrong = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        wrong += disagreements(cases[i].text);
    CHECK_INT(wrong, 0);

    /* Where a piece of a paragraph in another voice ends: the same rules, and 。！？. */
    CHECK(re_ends_sentence("It works.", "Next"));
    CHECK(re_ends_sentence("Is it? ", "Next"));
    CHECK(re_ends_sentence("\xE5\xA5\xBD\xE3\x80\x82", "Next"));
    CHECK(re_ends_sentence("He said \"Stop.\"", NULL));
    CHECK(!re_ends_sentence("He said \"Stop.\"", "and left"));
    CHECK(!re_ends_sentence("Made by Acme Inc.", "for"));
    CHECK(re_ends_sentence("Made by Acme Inc.", "The"));
    CHECK(!re_ends_sentence("Dr.", "Smith"));
    CHECK(!re_ends_sentence("No end", "Next"));
    CHECK(re_ends_sentence("Wait\xE2\x80\xA6", "Then"));
    CHECK(!re_ends_sentence("Wait\xE2\x80\xA6", "what"));
    return check_finish("test_sentences");
}
