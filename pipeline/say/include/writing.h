/* SPDX-License-Identifier: GPL-3.0-or-later */
/* writing.h - text in another writing system than the voice's: which spans of a text are
 * written in a script the voice does not read (Japanese, Chinese, Cyrillic, Greek, Arabic ...
 * in an English voice, which espeak-ng reads as "Japanese letter" once per character), and
 * the espeak-ng voice to speak each with (docs/pronunciation.md has the table):
 *
 *   Han                 cmn; with kana in the text, Japanese kanji: no voice (below)
 *   Hiragana, Katakana  ja             Hangul      ko
 *   Cyrillic            ru             Greek       el
 *   Arabic              ar             Hebrew      he
 *   Thai                th             Devanagari  hi
 *   Georgian            ka             Armenian    hy
 *   Bengali             bn             Tamil       ta
 *   Ethiopic            am             Gujarati    gu
 *   Gurmukhi            pa             Oriya       or
 *   Telugu              te             Kannada     kn
 *   Malayalam           ml             Sinhala     si
 *   Myanmar             my
 *
 * Syriac, Thaana, Lao, Tibetan, Khmer, Mongolian, Yi and Bopomofo have no espeak-ng 1.51
 * voice: their spans get RE_WRITING_NO_VOICE, for the caller to leave out with a warning.
 * Nor has Japanese written with kanji: espeak-ng 1.51's ja voice reads kana but says
 * "Chinese letter" for every Han character, so a span of kana and Han is left out whole
 * (script "Japanese kanji"), and so are the kanji in a ja paragraph; kana alone is ja's.
 *
 * A span runs from the first to the last character of its script, with the blanks,
 * punctuation and digits between them, the punctuation right after it (up to a blank) and
 * the opening quotes and brackets right before it ("«мир»"); the rest around it stays with
 * the voice's text. A voice
 * reads its own script (ru: Cyrillic, uk: Cyrillic, ja: kana and Han, ...) and Latin. Pure. */
#ifndef RE_WRITING_H
#define RE_WRITING_H

#include <stddef.h>

#include "status.h"

typedef struct re_writing_run {
    size_t offset, length;   /* bytes of the text */
    const char *voice;       /* the espeak-ng voice for it, NULL for the text's own voice, or
                              * RE_WRITING_NO_VOICE */
    const char *script;      /* the writing system's name ("Cyrillic") when voice is not NULL */
} re_writing_run;

#define RE_WRITING_NO_VOICE ""   /* no voice reads this span (compare with strcmp) */

/* At most this many runs in a text: one that would have more is read by its own voice,
 * whole (a text alternating scripts character by character is not worth a process each). */
#define RE_WRITING_MAX_RUNS 32

/* Splits `text` (valid UTF-8) read by espeak-ng voice `voice` (e.g. "en-us+f3") into runs
 * that cover it in order, each with the voice to read it. *count is 1 (the whole text, NULL
 * voice) when nothing in it needs another voice. runs has RE_WRITING_MAX_RUNS entries. */
void re_writing_runs(const char *text, const char *voice, re_writing_run *runs, size_t *count);

#endif
