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
        { "We fixed X, Y, etc. Then we left.", "We fixed X, Y, etc. Then we left." },
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

    CHECK(re_is_abbreviation("Dr", 2, "Smith"));
    CHECK(re_is_abbreviation("(e.g", 4, "this"));
    CHECK(re_is_abbreviation("ETC", 3, NULL));
    CHECK(re_is_abbreviation("No", 2, "5"));
    CHECK(!re_is_abbreviation("No", 2, "It"));
    CHECK(!re_is_abbreviation("B", 1, "Then"));
    CHECK(!re_is_abbreviation("Drive", 5, "Then"));
    return check_finish("test_sentences");
}
