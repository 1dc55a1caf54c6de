/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lexicon.h - pronunciation lexicons: how to say the words the engine reads wrongly.
 *
 * A lexicon file holds `WORD = replacement` lines; a line whose first non-blank character is
 * `#` is a comment, blank lines are ignored. The replacement is a respelling in plain words
 * (`NCCL = nickel`), espeak-ng phoneme mnemonics in double brackets (`Gloo = [[gl'u:]]`), or
 * a mix (`NCCL2 = nickel [[t'u:]]`). `=` matches WORD with exactly its case; `~=` matches it
 * in any ASCII case (`gloo ~= [[gl'u:]]` also says "Gloo" and "GLOO"). WORD may hold several
 * words (`pull request = P.R`): one space in it matches any run of blanks in the text.
 *
 * Matching is whole-word: a match may not continue a run of letters or a run of digits
 * outside it, so `NCCL` matches in "NCCL2", "NCCL's" and "(NCCL)" but not in "NCCLX" or
 * "XNCCL". Letters are ASCII letters and every non-ASCII character that is not punctuation
 * or a symbol; digits are 0-9; everything else (including `_`, `-` and `'`) ends a word. At
 * each place the longest WORD wins; between equally long ones the one from the later source,
 * then the exact-case one.
 *
 * Sources are added in order of precedence (see re_lexicon_build): an entry for the same
 * WORD with the same marker in a later source replaces the earlier one; the same WORD twice
 * in one source is an error. Errors name FILE:LINE:COL.
 *
 * Life cycle: re_lexicon_create -> re_lexicon_parse / re_lexicon_load (any number) ->
 * lookups (re_lexicon_match, thread-safe on a lexicon no longer being added to) ->
 * re_lexicon_free. Or all at once: re_lexicon_build. */
#ifndef RE_LEXICON_H
#define RE_LEXICON_H

#include <stddef.h>

#include "status.h"

#define RE_LEXICON_FILE_MAX (1u << 20)        /* bytes per lexicon file */
#define RE_LEXICON_WORD_MAX 200               /* bytes of WORD */
#define RE_LEXICON_REPLACEMENT_MAX 1000       /* bytes of a replacement */
/* Characters of one [[...]] span, brackets included. The spoken text never splits a phoneme
 * span, so this keeps it within normalize.h's longest word (RE_NORMALIZE_MAX_WORD). */
#define RE_LEXICON_PHONEMES_MAX 64
#define RE_LEXICON_DEFAULT_NAME "default.lexicon"

typedef struct re_lexicon re_lexicon;

/* An empty lexicon (it matches nothing). Free with re_lexicon_free. */
re_status re_lexicon_create(re_lexicon **out);
void re_lexicon_free(re_lexicon *lexicon);

/* Parses one source held in memory (`file` names it in diagnostics; a leading byte-order
 * mark and CRLF line ends are accepted) and adds its entries above every earlier source's.
 * RE_ERR_INPUT with every problem in diag (up to its limit) when the source is invalid; then
 * none of its entries is added and the lexicon is as it was. */
re_status re_lexicon_parse(re_lexicon *lexicon, const char *file, const char *buf, size_t len,
                           re_diagnostics *diag);

/* Reads `path` (at most RE_LEXICON_FILE_MAX bytes) and parses it. A file that cannot be read
 * is RE_ERR_READ (or RE_ERR_LIMIT) with a PATH:0:0 diagnostic. */
re_status re_lexicon_load(re_lexicon *lexicon, const char *path, re_diagnostics *diag);

/* The files loaded into the lexicon, in order (owned by it): the render never writes over
 * them. NULL with *count 0 for none. */
const char *const *re_lexicon_files(const re_lexicon *lexicon, size_t *count);

/* Number of entries in effect (after replacements). */
size_t re_lexicon_size(const re_lexicon *lexicon);

/* One match of an entry in a text. */
typedef struct re_lexicon_hit {
    size_t length;              /* bytes of the text matched */
    const char *word;           /* the entry's WORD (blanks collapsed) */
    const char *replacement;    /* what to say instead; owned by the lexicon */
    int phonemes;               /* 1 when the replacement holds [[...]] spans */
} re_lexicon_hit;

/* The best entry matching text[pos..len) at pos, whole-word within text[0..len) (valid
 * UTF-8, pos on a character boundary). Returns 1 and fills *hit, or 0 when none matches. */
int re_lexicon_match(const re_lexicon *lexicon, const char *text, size_t len, size_t pos,
                     re_lexicon_hit *hit);

/* The best entry matching all of word[0..len) and nothing else (for the parts of an
 * identifier the normalizer splits). Returns 1 and fills *hit, or 0. */
int re_lexicon_lookup(const re_lexicon *lexicon, const char *word, size_t len,
                      re_lexicon_hit *hit);

/* The lexicon's content in a canonical form: one line per entry in effect, in the order
 * entries are tried, `=` or `~=`, a tab, WORD, a tab, the replacement. Comments, blank lines,
 * spacing around `=`, replaced entries and file names leave no trace, so two lexicons that
 * say the same say it in the same bytes. For the segment cache key. Owned by the lexicon;
 * valid until the next parse. *len may be NULL. Never NULL ("" when empty). */
const char *re_lexicon_canonical(const re_lexicon *lexicon, size_t *len);

/* A 64-bit FNV-1a hash of the canonical form as 16 lowercase hex digits: a stable short name
 * of the content, for messages and quick comparison. Owned by the lexicon, as above. */
const char *re_lexicon_digest(const re_lexicon *lexicon);

/* Where an episode's lexicon entries come from, lowest precedence first:
 *   1. DIR/default.lexicon, from the first of `dirs` that has one (the voice-profile folders:
 *      each --voices DIR, then the shipped voices/), unless no_default;
 *   2. the script's front-matter `lexicon:` value, relative to the script's folder;
 *   3. each --lexicon FILE, in command-line order. */
typedef struct re_lexicon_sources {
    const char *const *dirs;
    size_t dir_count;
    int no_default;
    const char *script_path;        /* the script: the folder front_matter is relative to */
    const char *front_matter;       /* the raw `lexicon:` value, or NULL when absent */
    unsigned front_matter_line;     /* its place in the script, for messages */
    unsigned front_matter_col;
    const char *const *paths;       /* --lexicon FILEs */
    size_t path_count;
    /* A script may name a lexicon only inside its own folder tree (symlinks followed) or one
     * of these folders (--allow-path); --lexicon FILEs are the user's own and go anywhere. */
    const char *const *allowed_dirs;
    size_t allowed_dir_count;
} re_lexicon_sources;

/* Loads every source into a new lexicon. Every source is read even after one fails, so all
 * errors are reported at once: each file's own at FILE:LINE:COL, and for a front-matter file
 * that fails, one more at the script's `lexicon:` line. On failure *out is NULL and the
 * status is that of the first failure (RE_ERR_INPUT, RE_ERR_READ, RE_ERR_LIMIT, NOMEM). */
re_status re_lexicon_build(const re_lexicon_sources *sources, re_lexicon **out,
                           re_diagnostics *diag);

/* The path of a front-matter `lexicon:` value: as is when absolute, else in the folder of
 * script_path. *out is malloc'ed, owned by the caller. */
re_status re_lexicon_resolve(const char *script_path, const char *value, char **out);

/* The first DIR/default.lexicon that exists among dirs, or NULL in *out when none does.
 * *out is malloc'ed, owned by the caller. */
re_status re_lexicon_find_default(const char *const *dirs, size_t dir_count, char **out);

#endif
