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
 *   - after an abbreviation (re_is_abbreviation): "Dr. Smith", "e.g. this", "etc. Then";
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

/* 1 when word[0..len) (without its last full stop, opening brackets and quotes left out) is an
 * abbreviation whose full stop ends no sentence: the engine's own (mr, mrs, dr, lt, prof, rev,
 * st: espeak-ng's en_list marks them `$dot`), ms, jr, sr, vs, etc, cf, approx, e.g, i.e; and
 * no when `next` (the text after the blank, may be NULL) starts with a digit ("No. 5").
 * Letter case is ignored. */
int re_is_abbreviation(const char *word, size_t len, const char *next);

#endif
