/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sentences.h - where the sentences of a paragraph end, decided from its text.
 *
 * The speech stage speaks each sentence of a paragraph by a call of its own (synth.h), so that
 * the pause between two sentences is placed from the audio of the first sentence alone: where
 * its sound ends, never where an event of the engine guessed it did (docs/design.md, "Sentence
 * boundaries"). This module says where those calls are cut.
 *
 * A sentence ends after `.`, `!`, `?` or `…` (a run of them, then any closing brackets and
 * quotes) followed by a blank, except:
 *   - after an abbreviation or an initial (re_is_abbreviation): "Dr. Smith", "e.g. this",
 *     "Acme Inc. for", "Jan. 5", "John F. Smith", "J. R. Hacker"; but "from Acme Inc. The next",
 *     "X, Y, etc. Then" end;
 *   - after single letters joined by dots ("a.k.a.", "p.m.") or a `…` before a word that
 *     starts with a small letter ("at 5 p.m. today", "wait… what"; before a capital it is an
 *     end). espeak-ng 1.51 does
 *     not end a clause at any full stop before a small letter (readclause.c: "this dot is
 *     probably from an abbreviation"), but in release notes a sentence often starts with a
 *     command or an identifier ("`npm` now ...", spoken "npm now"), so only these do here;
 *   - before a word that starts with a small letter when closing marks came between: a
 *     quoted `"git diff rev^!" did not show` or `he said "Stop!" and left` goes on;
 *   - inside [[ ]] phoneme input, when the text has it (RE_TEXT_PHONEMES).
 * So a one-letter last word stays with its sentence ("Run chmod u+w B." ends after the B.).
 *
 * Pure and deterministic: the same text gives the same cuts. */
#ifndef RE_SENTENCES_H
#define RE_SENTENCES_H

#include <stddef.h>

/* Where the sentence that starts at text[from] ends: one past its last character (its final
 * punctuation and closing marks), or the end of the text. `text_flags` as re_normalize's
 * (normalize.h). The next sentence starts at the first non-blank from there. */
size_t re_sentence_end(const char *text, size_t from, unsigned text_flags);

/* 1 when the full stop after word[0..len) (opening brackets and quotes left out) ends no
 * sentence, `previous` (may be NULL) being the word before it and `next` (may be NULL: the
 * end) the text after the blank. Letter case is ignored in the lists:
 *   - never an end: titles before a name (mr, mrs, ms, dr, lt, prof, rev, st: espeak-ng's
 *     en_list marks most of them `$dot`) and vs, cf, approx, e.g, i.e;
 *   - an end only before a capital (or a mark, or nothing): inc, ltd, corp, co, etc, et al,
 *     jr, sr, ph.d, the months but May (jan ... dec, sept), fig, figs, vol, ch: "Acme Inc.
 *     for", "Jan. 5", "Fig. 3" go on, "from Acme Inc. The next release" ends; a firm's name
 *     before a capital ("Acme Inc. CEO") is taken for an end, the rarer case in release notes;
 *   - no, only before a digit ("No. 5");
 *   - an initial: one capital before a word with a capital that is no common first word of a
 *     sentence (the, it, we, fixed, added ...: "Plan B. The fix" ends), after a word with a
 *     capital or before another initial: "John F. Smith", "J. R. Hacker". */
int re_is_abbreviation(const char *previous, size_t previous_len, const char *word, size_t len,
                       const char *next);

/* 1 when `text` ends with the end of a sentence, `next` (may be NULL) following it: as
 * re_sentence_end decides, and after 。！？ (used where a paragraph is cut into pieces in
 * other voices, to give the pause of a sentence's end, or the shorter one of a piece). */
int re_ends_sentence(const char *text, const char *next);

#endif
