/* SPDX-License-Identifier: GPL-3.0-or-later */
/* normalize.h - technical-text normalization: what the engine is given to say for a piece of
 * script text, so that "PR 189759" is not read as a quantity and "NCCL" as the lexicon says.
 *
 * First the lexicon is applied (see lexicon.h): every whole-word match is replaced and its
 * replacement is said as written. Then the rules below rewrite what is left, word by word
 * (a "word" is a run of non-blanks, with wrapping brackets, quotes and sentence punctuation
 * kept around it). Each rule is overridden by a lexicon entry for the same word, since the
 * lexicon goes first: `GEMM = GEMM` keeps a word from being spelled. The rules are English
 * (re_normalize_spans_for leaves them out for a voice of another language) and conservative:
 * ordinary prose ("3 people", "in 2026", "1.5 seconds") is left as it is, and a word of the
 * dictionary (words.h: Debian's wamerican list and espeak-ng's English dictionary, compiled
 * in) is never changed, in any capitalization: the engine says HEAD as the word.
 *
 *   reference numbers   after PR, PRs, issue(s), bug(s), ticket(s), commit(s), pull request(s),
 *                       and after `#`: three or more digits are read digit by digit
 *                       ("PR 189759" -> "PR one eight nine seven five nine", "#120345" ->
 *                       "number one two zero three four five"); lists and ranges go on
 *                       ("PRs 1001, 1002 and 1003", "189771 through 189841", "1001-1003")
 *   hashes              7 or more of 0-9a-f with a digit and a letter, alone or after
 *                       sha1: sha224: sha256: sha384: sha512: md5:, and 7 or more digits
 *                       after "commit": the first 7 one by one (12d655d4561 -> "one two
 *                       D six five five D", sha256:2cf24db... -> "S.H.A 256 two C.F ...")
 *   names and numbers   lib1560 -> "lib one five six zero" (a year stays); TEMP-0000000-A2945B
 *                       -> "TEMP zero ... eh two nine four five B"; @{-1} -> "@{ minus 1}"
 *   options             --silent -> "dash dash silent", -v -> "dash v"
 *   versions            v2.1.0 -> "version 2 point 1 point 0"; 2.1.0 -> "2 point 1 point 0";
 *                       separators said: 3.25.0-3 -> "... dash 3", +deb12u1 -> "plus deb 12
 *                       u 1", ~rc1 -> "tilde R.C 1"; after a product name, 3.12 -> "3 point
 *                       12" and 1.05 -> "1 point zero 5" (not before an amount: "1.25 million")
 *   file names          render.c -> "render dot C", README.md -> "README dot M.D",
 *                       src/main.py -> "src slash main dot pie"
 *   identifiers         AOTAutograd -> "A.O.T Autograd", save_for_backward -> "save for
 *                       backward", torch.nn.Module, std::vector -> "std vector"; each part is
 *                       looked up in the lexicon and decided as words in capitals are
 *   capitals            a dictionary word stays (HEAD, INFO, API); others are read as
 *                       dictionary words and short acronyms when they can be (OPENSSL ->
 *                       "OPEN S.S.L"), else 2-4 are spelled (NCCL -> "N.C.C.L", PRs ->
 *                       "P.R.'s"), longer ones when not pronounceable (NVGEMM); Roman numerals
 *                       stay
 *   emoji               not said (the engine would name them), in any voice
 *   URLs                recognized before the lexicon, which may name the site's parts
 *                       (nginx.org -> "engine X dot org"); the site, plus "pull request N", "issue N", "merge request N" or
 *                       "commit" and a hash's first 7 characters for those paths:
 *                       https://github.com/pytorch/pytorch/pull/1 -> "github dot com pull
 *                       request 1"; any other path: the site alone
 *   operators           C++ -> "C plus plus", C# -> "C sharp", a->b -> "a arrow b",
 *                       a lone -> or => -> "to"
 *   numbers with units  3.5 ms -> "3.5 milliseconds", 1 ms -> "1 millisecond", 2x -> "2 times",
 *                       1920x1080 -> "1920 by 1080", 100k -> "100 thousand", ~2x -> "about 2
 *                       times"; 14-second stays (the engine says it well)
 *   ellipsis            "..." or "…" becomes "…", a clause pause in the engine (~240 ms)
 *
 * Pure and deterministic: the same lexicon and text give the same result. */
#ifndef RE_NORMALIZE_H
#define RE_NORMALIZE_H

#include <stddef.h>

#include "lexicon.h"
#include "status.h"

/* Bumped whenever a rule changes what is said: part of any cache key built on the input. */
#define RE_NORMALIZE_RULES_VERSION 7   /* 2: the engine-input cuts; 3: the dictionary decides
                                        * capitals; hashes, options, revisions, URL tails;
                                        * 4: both, no word refused for its length; 5: a first
                                        * letter before a word in capitals (FTRUNCATE ->
                                        * F TRUNCATE); 6: hashes of any length, names with
                                        * numbers, minus, constants in pronounceable pieces,
                                        * URLs before the lexicon, emoji; 7: dates, times,
                                        * the full stops of names and initials, requirements,
                                        * durations, money, merge requests, rule codes,
                                        * advisory IDs, "5s" as seconds */

/* How the engine is to read a spoken text (the synth stage takes these flags). Never as SSML. */
#define RE_TEXT_PLAIN 0u      /* every character is text, [[ included */
#define RE_TEXT_PHONEMES 1u   /* [[...]] spans are espeak-ng phoneme mnemonics: only for texts
                               * whose every other [[ has been escaped by the caller */

/* What the engine receives stays within what espeak-ng 1.51 is measured to survive
 * (docs/robustness.md): no word of a spoken text (a run without a space) is longer than
 * RE_NORMALIZE_MAX_WORD characters, a longer one being split with a space (the engine aborts
 * on some words of 136 characters), and no more than RE_NORMALIZE_MAX_LETTER_CHAIN single
 * letters that each have a dot follow one another ("a.b.c.", "q.z. q.z.": the engine joins
 * them across spaces into one abbreviation and aborts on long ones); the dot of the next is
 * made a space. So no script word of any length is refused; the span map (below) still
 * points every piece at the script's word. */
#define RE_NORMALIZE_MAX_WORD 64
#define RE_NORMALIZE_MAX_LETTER_CHAIN 16

/* Normalizes `text` (valid UTF-8 without control characters, e.g. a SPEECH item's text) with
 * `lexicon` (may be NULL: rules only). *spoken (malloc'ed, owned by the caller) is the text to
 * give the engine: valid UTF-8 without control characters. *text_flags is RE_TEXT_PHONEMES
 * (below) when a lexicon replacement put [[phonemes]] in it; then every [[ or ]] that came
 * from `text` has been split ("[ [", "] ]") so that only the lexicon's spans are phoneme
 * input. Otherwise it is RE_TEXT_PLAIN and brackets from `text` are kept as they were.
 * RE_ERR_INVALID when text is NULL, not valid UTF-8 or holds a control character (or LF). */
re_status re_normalize(const re_lexicon *lexicon, const char *text, char **spoken,
                       unsigned *text_flags);

/* Which bytes of the spoken text say which bytes of the original: for transcripts, which
 * show the script's words at the times the engine says their replacements. */
typedef struct re_spoken_span {
    size_t spoken_offset, spoken_length;
    size_t text_offset, text_length;
} re_spoken_span;

/* What a rule decided for a word, or a part of one, of the original text: for `explain`. */
typedef struct re_spoken_decision {
    size_t text_offset, text_length;
    const char *what;          /* static text, e.g. "dictionary word, as the engine says it" */
    size_t order;              /* the order it was made in (ties in place: the word first) */
} re_spoken_decision;

typedef struct re_spoken {
    char *text;                /* as re_normalize's *spoken */
    unsigned text_flags;       /* as re_normalize's *text_flags */
    re_spoken_span *spans;     /* in order, covering all of text; adjacent, never overlapping */
    size_t span_count;
    re_spoken_decision *decisions;  /* in the order of the text, a word before its parts; */
    size_t decision_count;          /* words no rule touched (ordinary prose) have none */
} re_spoken;

/* re_normalize with the map of spans. Release *out with re_spoken_free (also after a
 * failure, when it is empty). */
re_status re_normalize_spans(const re_lexicon *lexicon, const char *text, re_spoken *out);

/* re_normalize_spans for a text the espeak-ng voice `engine_voice` (a profile's `voice`, e.g.
 * "en-gb+f3", "de"; NULL: English) will speak. The rules are English: for a voice of another
 * language only the lexicon applies, and the rest is given to the engine as written, which
 * reads it its own way (a German voice reading "one eight nine" or "dash dash" would say
 * English words with German sounds). */
re_status re_normalize_spans_for(const re_lexicon *lexicon, const char *text,
                                 const char *engine_voice, re_spoken *out);

/* 1 when `engine_voice` speaks English: "en", "en-*" or "en_*" before any "+variant" (after
 * any "folder/"), "english", or an MBROLA voice speaking English (mb-en1, mb-us1..3,
 * mb-de1-en); NULL counts as English. */
int re_normalize_voice_is_english(const char *engine_voice);
void re_spoken_free(re_spoken *spoken);

#endif
