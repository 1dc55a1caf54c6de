/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lexicon.c - pronunciation lexicons: the `WORD = replacement` parser, precedence between
 * sources, whole-word matching, and the canonical form the segment cache keys on. */
#define _GNU_SOURCE
#include "lexicon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "parse_errors.h"
#include "text.h"
#include "utf8.h"


typedef struct lex_entry {
    char *word;          /* blanks collapsed to single spaces */
    size_t word_len;
    char *replacement;   /* blanks collapsed to single spaces */
    int fold;            /* `~=`: ASCII case-insensitive */
    int phonemes;        /* the replacement holds [[...]] spans */
    unsigned source;     /* order of the source that defined it: later wins ties */
    unsigned line;       /* where it was defined, for duplicate messages */
} lex_entry;

struct re_lexicon {
    lex_entry *entries;
    size_t count, capacity;
    unsigned sources;             /* sources added so far */
    lex_entry **order;            /* entries in the order they are tried, by bucket */
    size_t bucket_start[257];     /* order[bucket_start[b] .. bucket_start[b + 1]) */
    char *canonical;
    size_t canonical_len;
    char digest[17];
    char **files;                 /* the files read into it (re_lexicon_files) */
    size_t file_count;
};

/* One source being parsed: its entries are kept apart until the whole source is valid. */
typedef struct lexicon_parser {
    parse_errors err;
    lex_entry *entries;
    size_t count, capacity;
    unsigned line;
} lexicon_parser;

enum { CLASS_OTHER, CLASS_LETTER, CLASS_DIGIT };

static unsigned char fold(char c)
{
    return (unsigned char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
}

/* Letters, digits, and the rest (punctuation, symbols, `_`): where words end. Non-ASCII
 * characters are letters unless they are in a punctuation or symbol block. */
static int char_class(uint32_t cp)
{
    if (cp < 0x80) {
        if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'))
            return CLASS_LETTER;
        return cp >= '0' && cp <= '9' ? CLASS_DIGIT : CLASS_OTHER;
    }
    if (cp < 0xC0 || cp == 0xD7 || cp == 0xF7                /* Latin-1 punctuation, x, / */
        || (cp >= 0x2000 && cp <= 0x2BFF)                    /* punctuation, arrows, math */
        || (cp >= 0x3000 && cp <= 0x303F)                    /* CJK punctuation */
        || (cp >= 0xE000 && cp <= 0xF8FF)                    /* private use */
        || (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF20)
        || cp >= 0x1F000)                                    /* emoji and pictographs */
        return CLASS_OTHER;
    return CLASS_LETTER;
}

/* Class of the character that ends right before text[pos] (CLASS_OTHER at the start). */
static int class_before(const char *text, size_t pos)
{
    if (pos == 0)
        return CLASS_OTHER;
    size_t start = pos - 1;
    while (start > 0 && ((unsigned char)text[start] & 0xC0) == 0x80)
        start--;
    uint32_t cp;
    re_utf8_decode(text + start, text + pos, &cp);
    return char_class(cp);
}

static int class_at(const char *text, size_t len, size_t pos)
{
    if (pos >= len)
        return CLASS_OTHER;
    uint32_t cp;
    re_utf8_decode(text + pos, text + len, &cp);
    return char_class(cp);
}

/* ---- parsing ---------------------------------------------------------------------- */

/* A copy of s[0..len) with every run of blanks made one space. */
static char *collapse_blanks(const char *s, size_t len, size_t *out_len)
{
    char *copy = malloc(len + 1), *o = copy;

    if (!copy)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (re_is_line_blank(s[i])) {
            if (o > copy && o[-1] == ' ')
                continue;
            *o++ = ' ';
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    *out_len = (size_t)(o - copy);
    return copy;
}

/* Checks the [[...]] spans of a replacement; sets *phonemes when it has any. Text outside
 * the spans may not hold brackets, so that the only [[ a text gets from a lexicon is ours. */
static int check_replacement(lexicon_parser *p, const char *word, const char *s, size_t len,
                             unsigned col, int *phonemes)
{
    char q[QUOTE_SIZE], r[QUOTE_SIZE];
    size_t i = 0;

    *phonemes = 0;
    while (i < len) {
        if (s[i] == '[' && i + 1 < len && s[i + 1] == '[') {
            const char *close = NULL;
            for (size_t j = i + 2; j + 1 < len && !close; j++)
                if (s[j] == ']' && s[j + 1] == ']')
                    close = s + j;
            if (!close) {
                re_parse_error(&p->err, p->line, col + (unsigned)i, "unclosed '[[' in the replacement of '%s': "
                             "write phonemes as [[...]]", re_quote(q, word, strlen(word)));
                return 0;
            }
            const char *inner = s + i + 2;
            size_t inner_len = (size_t)(close - inner);
            re_trim(&inner, &inner_len);
            if (inner_len == 0) {
                re_parse_error(&p->err, p->line, col + (unsigned)i, "empty phonemes '[[]]' in the replacement "
                             "of '%s'", re_quote(q, word, strlen(word)));
                return 0;
            }
            for (size_t k = 0; k < inner_len; k++) {
                unsigned char c = (unsigned char)inner[k];
                if (c < 0x20 || c > 0x7E || c == '[') {
                    re_parse_error(&p->err, p->line, col + (unsigned)(inner + k - s), "phonemes '%s' are not "
                                 "espeak-ng mnemonics: only printable ASCII, e.g. [[gl'u:]]",
                                 re_quote(r, inner, inner_len));
                    return 0;
                }
            }
            size_t span = (size_t)(close - s) + 2 - i;   /* ASCII inside: bytes are characters */
            if (span > RE_LEXICON_PHONEMES_MAX) {
                re_parse_error(&p->err, p->line, col + (unsigned)i, "phonemes '%s' are too long: a [[...]] span is "
                             "at most %d characters; write several, e.g. [[n'Ik@l]] [[kl'Ast@]]",
                             re_quote(r, inner, inner_len), RE_LEXICON_PHONEMES_MAX);
                return 0;
            }
            *phonemes = 1;
            i = (size_t)(close - s) + 2;
        } else if (s[i] == '[' || s[i] == ']') {
            re_parse_error(&p->err, p->line, col + (unsigned)i, "'%c' outside [[...]] in the replacement of "
                         "'%s': brackets only mark phonemes, as in [[gl'u:]]", s[i],
                         re_quote(q, word, strlen(word)));
            return 0;
        } else {
            i++;
        }
    }
    return 1;
}

static int same_word(const lex_entry *a, const char *word, size_t len, int fold_case)
{
    if (a->fold != fold_case || a->word_len != len)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if (a->word[i] != word[i] && !(fold_case && fold(a->word[i]) == fold(word[i])))
            return 0;
    }
    return 1;
}

static void entry_clear(lex_entry *e)
{
    free(e->word);
    free(e->replacement);
    memset(e, 0, sizeof *e);
}

static int push_entry(lex_entry **entries, size_t *count, size_t *capacity, const lex_entry *e)
{
    if (*count == *capacity) {
        size_t cap = *capacity ? *capacity * 2 : 32;
        lex_entry *grown = realloc(*entries, cap * sizeof *grown);
        if (!grown)
            return 0;
        *entries = grown;
        *capacity = cap;
    }
    (*entries)[(*count)++] = *e;
    return 1;
}

/* Stores a checked entry of this source, or reports it as a duplicate. */
static void add_parsed(lexicon_parser *p, const char *word, size_t word_len, int fold_case,
                       const char *repl, size_t repl_len, int phonemes, unsigned col)
{
    char q[QUOTE_SIZE];
    lex_entry e = { .fold = fold_case, .phonemes = phonemes, .line = p->line };

    e.word = collapse_blanks(word, word_len, &e.word_len);
    size_t unused;
    e.replacement = collapse_blanks(repl, repl_len, &unused);
    if (!e.word || !e.replacement) {
        entry_clear(&e);
        p->err.nomem = 1;
        return;
    }
    for (size_t i = 0; i < p->count; i++) {
        if (same_word(&p->entries[i], e.word, e.word_len, fold_case)) {
            re_parse_error(&p->err, p->line, col, "duplicate entry '%s' (first on line %u)",
                         re_quote(q, e.word, e.word_len), p->entries[i].line);
            entry_clear(&e);
            return;
        }
    }
    if (!push_entry(&p->entries, &p->count, &p->capacity, &e)) {
        entry_clear(&e);
        p->err.nomem = 1;
    }
}

static void parse_line(lexicon_parser *p, const char *line, size_t len)
{
    char q[QUOTE_SIZE];
    const char *text = line;
    size_t text_len = len;

    re_trim(&text, &text_len);
    if (text_len == 0 || text[0] == '#')
        return;
    unsigned col = (unsigned)(text - line + 1);
    const char *eq = memchr(text, '=', text_len);
    if (!eq) {
        re_parse_error(&p->err, p->line, col, "expected 'WORD = replacement', got '%s'", re_quote(q, text, text_len));
        return;
    }
    int fold_case = eq > text && eq[-1] == '~';
    const char *word = text, *repl = eq + 1;
    size_t word_len = (size_t)(eq - text) - (fold_case ? 1 : 0);
    size_t repl_len = (size_t)(text + text_len - repl);
    re_trim(&word, &word_len);
    re_trim(&repl, &repl_len);
    if (word_len == 0) {
        re_parse_error(&p->err, p->line, col, "expected a WORD before '%s'", fold_case ? "~=" : "=");
        return;
    }
    if (word_len > RE_LEXICON_WORD_MAX) {
        re_parse_error(&p->err, p->line, col, "the word '%s' is longer than %d bytes", re_quote(q, word, word_len),
                     RE_LEXICON_WORD_MAX);
        return;
    }
    if (repl_len == 0) {
        re_parse_error(&p->err, p->line, col, "'%s' has no replacement after '%s'", re_quote(q, word, word_len),
                     fold_case ? "~=" : "=");
        return;
    }
    unsigned repl_col = (unsigned)(repl - line + 1);
    if (repl_len > RE_LEXICON_REPLACEMENT_MAX) {
        re_parse_error(&p->err, p->line, repl_col, "the replacement of '%s' is longer than %d bytes",
                     re_quote(q, word, word_len), RE_LEXICON_REPLACEMENT_MAX);
        return;
    }
    char word_z[RE_LEXICON_WORD_MAX + 1];
    memcpy(word_z, word, word_len);
    word_z[word_len] = '\0';
    int phonemes;
    if (check_replacement(p, word_z, repl, repl_len, repl_col, &phonemes))
        add_parsed(p, word, word_len, fold_case, repl, repl_len, phonemes, col);
}

static void parse_lines(lexicon_parser *p, const char *buf, size_t len)
{
    size_t pos = 0;

    while (pos < len && !p->err.nomem) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        p->line++;
        parse_line(p, buf + pos, end - pos);
        pos = end + 1;
    }
}

/* ---- the lexicon -------------------------------------------------------------------- */

re_status re_lexicon_create(re_lexicon **out)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return RE_ERR_NOMEM;
    (*out)->canonical = strdup("");
    if (!(*out)->canonical) {
        free(*out);
        *out = NULL;
        return RE_ERR_NOMEM;
    }
    snprintf((*out)->digest, sizeof (*out)->digest, "%016llx", 0xcbf29ce484222325ULL);
    return RE_OK;
}

void re_lexicon_free(re_lexicon *lexicon)
{
    if (!lexicon)
        return;
    for (size_t i = 0; i < lexicon->count; i++)
        entry_clear(&lexicon->entries[i]);
    free(lexicon->entries);
    free(lexicon->order);
    free(lexicon->canonical);
    for (size_t i = 0; i < lexicon->file_count; i++)
        free(lexicon->files[i]);
    free(lexicon->files);
    free(lexicon);
}

const char *const *re_lexicon_files(const re_lexicon *lexicon, size_t *count)
{
    *count = lexicon ? lexicon->file_count : 0;
    return lexicon ? (const char *const *)lexicon->files : NULL;
}

size_t re_lexicon_size(const re_lexicon *lexicon)
{
    return lexicon ? lexicon->count : 0;
}

/* The order entries are tried in: by first byte (folded), longest first, later source
 * first, exact case first; then by bytes, so that the order never depends on qsort. */
static int compare_entries(const void *a_, const void *b_)
{
    const lex_entry *a = *(const lex_entry *const *)a_, *b = *(const lex_entry *const *)b_;
    unsigned char ba = fold(a->word[0]), bb = fold(b->word[0]);

    if (ba != bb)
        return ba < bb ? -1 : 1;
    if (a->word_len != b->word_len)
        return a->word_len > b->word_len ? -1 : 1;
    if (a->source != b->source)
        return a->source > b->source ? -1 : 1;
    if (a->fold != b->fold)
        return a->fold < b->fold ? -1 : 1;
    int c = strcmp(a->word, b->word);
    return c ? c : strcmp(a->replacement, b->replacement);
}

static re_status build_canonical(re_lexicon *lex)
{
    size_t size = 1;
    for (size_t i = 0; i < lex->count; i++)
        size += lex->order[i]->word_len + strlen(lex->order[i]->replacement) + 5;
    char *text = malloc(size), *o = text;
    if (!text)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < lex->count; i++) {
        const lex_entry *e = lex->order[i];
        o += sprintf(o, "%s\t%s\t%s\n", e->fold ? "~=" : "=", e->word, e->replacement);
    }
    *o = '\0';
    free(lex->canonical);
    lex->canonical = text;
    lex->canonical_len = (size_t)(o - text);
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < lex->canonical_len; i++) {
        hash ^= (unsigned char)text[i];
        hash *= 0x100000001b3ULL;
    }
    snprintf(lex->digest, sizeof lex->digest, "%016llx", (unsigned long long)hash);
    return RE_OK;
}

static re_status build_index(re_lexicon *lex)
{
    lex_entry **order = malloc((lex->count ? lex->count : 1) * sizeof *order);

    if (!order)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < lex->count; i++)
        order[i] = &lex->entries[i];
    qsort(order, lex->count, sizeof *order, compare_entries);
    free(lex->order);
    lex->order = order;
    size_t i = 0;
    for (unsigned b = 0; b <= 256; b++) {
        lex->bucket_start[b] = i;
        while (b < 256 && i < lex->count && fold(order[i]->word[0]) == b)
            i++;
    }
    return build_canonical(lex);
}

/* Adds a valid source's entries: one with the same word and marker replaces the old one.
 * Room for all of them is made first, so that no entry can be half added. */
static re_status merge(re_lexicon *lex, lexicon_parser *p)
{
    if (lex->count + p->count > lex->capacity) {
        lex_entry *grown = realloc(lex->entries, (lex->count + p->count) * sizeof *grown);
        if (!grown)
            return RE_ERR_NOMEM;
        lex->entries = grown;
        lex->capacity = lex->count + p->count;
    }
    free(lex->order);               /* it pointed into the old array: matching is off until */
    lex->order = NULL;              /* build_index has run */
    memset(lex->bucket_start, 0, sizeof lex->bucket_start);
    unsigned source = lex->sources++;
    for (size_t i = 0; i < p->count; i++) {
        lex_entry *e = &p->entries[i];
        e->source = source;
        lex_entry *old = NULL;
        for (size_t j = 0; j < lex->count && !old; j++)
            if (same_word(&lex->entries[j], e->word, e->word_len, e->fold))
                old = &lex->entries[j];
        if (old)
            entry_clear(old);
        else
            old = &lex->entries[lex->count++];
        *old = *e;
        memset(e, 0, sizeof *e);    /* now owned by the lexicon */
    }
    return build_index(lex);
}

re_status re_lexicon_parse(re_lexicon *lexicon, const char *file, const char *buf, size_t len,
                           re_diagnostics *diag)
{
    lexicon_parser p = { .err = { .file = file, .diag = diag } };
    int decodable;

    if (!lexicon || !file || !diag || (!buf && len > 0))
        return RE_ERR_INVALID;
    size_t bom = re_utf8_bom_length(buf, len);
    re_status status = re_utf8_check_text(file, buf + bom, len - bom, &decodable, diag);
    if (status == RE_ERR_NOMEM)
        goto done;
    p.err.count = status == RE_ERR_INPUT;
    if (decodable)
        parse_lines(&p, buf + bom, len - bom);
    if (p.err.nomem)
        status = RE_ERR_NOMEM;
    else if (p.err.count)
        status = RE_ERR_INPUT;
    else
        status = merge(lexicon, &p);
done:
    for (size_t i = 0; i < p.count; i++)
        entry_clear(&p.entries[i]);
    free(p.entries);
    return status;
}

/* Parses what was read from `path` and records the file. */
static re_status load_text(re_lexicon *lexicon, const char *path, re_status status, char *buf,
                           size_t len, re_diagnostics *diag)
{
    if (status == RE_OK)
        status = re_lexicon_parse(lexicon, path, buf, len, diag);
    free(buf);
    if (status == RE_OK) {
        char **files = realloc(lexicon->files, (lexicon->file_count + 1) * sizeof *files);
        if (!files || !(files[lexicon->file_count] = strdup(path))) {
            if (files)
                lexicon->files = files;
            return RE_ERR_NOMEM;
        }
        lexicon->files = files;
        lexicon->file_count++;
    }
    return status;
}

re_status re_lexicon_load(re_lexicon *lexicon, const char *path, re_diagnostics *diag)
{
    char *buf = NULL;
    size_t len = 0;

    if (!lexicon || !path || !diag)
        return RE_ERR_INVALID;
    re_status status = re_file_read(path, RE_LEXICON_FILE_MAX, RE_READ_ANY, &buf, &len, diag);
    return load_text(lexicon, path, status, buf, len, diag);
}

/* ---- matching ----------------------------------------------------------------------- */

/* Bytes of text from pos that e's word matches (a space in it matches a run of blanks),
 * or 0. */
static size_t match_word(const lex_entry *e, const char *text, size_t len, size_t pos)
{
    size_t t = pos;

    for (size_t k = 0; k < e->word_len; k++) {
        char c = e->word[k];
        if (c == ' ') {
            if (t >= len || (text[t] != ' ' && text[t] != '\t'))
                return 0;
            while (t < len && (text[t] == ' ' || text[t] == '\t'))
                t++;
            continue;
        }
        if (t >= len || (text[t] != c && !(e->fold && fold(text[t]) == fold(c))))
            return 0;
        t++;
    }
    return t - pos;
}

int re_lexicon_match(const re_lexicon *lexicon, const char *text, size_t len, size_t pos,
                     re_lexicon_hit *hit)
{
    if (!lexicon || !text || pos >= len || !lexicon->order)
        return 0;
    unsigned char b = fold(text[pos]);
    int before = class_before(text, pos);
    for (size_t i = lexicon->bucket_start[b]; i < lexicon->bucket_start[b + 1]; i++) {
        const lex_entry *e = lexicon->order[i];
        int first = class_at(e->word, e->word_len, 0);
        if (first != CLASS_OTHER && first == before)
            continue;
        size_t n = match_word(e, text, len, pos);
        if (n == 0)
            continue;
        int last = class_before(e->word, e->word_len);
        if (last != CLASS_OTHER && last == class_at(text, len, pos + n))
            continue;
        *hit = (re_lexicon_hit){ n, e->word, e->replacement, e->phonemes };
        return 1;
    }
    return 0;
}

int re_lexicon_lookup(const re_lexicon *lexicon, const char *word, size_t len,
                      re_lexicon_hit *hit)
{
    return re_lexicon_match(lexicon, word, len, 0, hit) && hit->length == len;
}

const char *re_lexicon_canonical(const re_lexicon *lexicon, size_t *len)
{
    if (len)
        *len = lexicon ? lexicon->canonical_len : 0;
    return lexicon ? lexicon->canonical : "";
}

const char *re_lexicon_digest(const re_lexicon *lexicon)
{
    return lexicon ? lexicon->digest : "cbf29ce484222325";
}

/* ---- sources ------------------------------------------------------------------------ */

re_status re_lexicon_resolve(const char *script_path, const char *value, char **out)
{
    return re_path_beside(script_path, value, out);
}

re_status re_lexicon_find_default(const char *const *dirs, size_t dir_count, char **out)
{
    struct stat st;

    if (!out || (!dirs && dir_count > 0))
        return RE_ERR_INVALID;
    *out = NULL;
    for (size_t i = 0; i < dir_count; i++) {
        size_t n = strlen(dirs[i]);
        const char *sep = n > 0 && dirs[i][n - 1] == '/' ? "" : "/";
        char *candidate;
        if (asprintf(&candidate, "%s%s" RE_LEXICON_DEFAULT_NAME, dirs[i], sep) < 0)
            return RE_ERR_NOMEM;
        /* Anything there but "no such file" is the file the user meant: read it and report
         * its problem rather than skip it (as voice profiles are found). */
        if (stat(candidate, &st) == 0 || (errno != ENOENT && errno != ENOTDIR)) {
            *out = candidate;
            return RE_OK;
        }
        free(candidate);
    }
    return RE_OK;
}

/* A script's `lexicon:` must name a file in the script's folder tree or an allowed folder: a
 * script from elsewhere must not make the program read (and quote in its errors) any file
 * the user can read. It is opened beneath that folder (files.h), so that neither a link nor a
 * swap made while it is opened leads out; RE_ERR_INPUT, reported at the key, when it does. */
static re_status load_front_matter(re_lexicon *lex, const re_lexicon_sources *src,
                                   re_diagnostics *diag)
{
    char *path = NULL, *buf = NULL;
    size_t len = 0;
    int fd = -1, error = 0;
    re_status status = re_lexicon_resolve(src->script_path, src->front_matter, &path);
    if (status == RE_OK)
        status = re_path_open_confined(src->script_path, path, src->allowed_dirs,
                                       src->allowed_dir_count, O_RDONLY | O_CLOEXEC | O_NOCTTY,
                                       &fd, &error);
    if (status == RE_OK && fd < 0 && !error) {
        free(path);
        return re_diag_add(diag, src->script_path, src->front_matter_line, src->front_matter_col,
                           "lexicon '%s' is outside the script's folder; a script may name only "
                           "files in its own folder tree (allow another folder with --allow-path "
                           "DIR, or give the file with --lexicon)", src->front_matter) == RE_OK
                   ? RE_ERR_INPUT : RE_ERR_NOMEM;
    }
    if (status == RE_OK && fd < 0)
        status = re_diag_fail(diag, RE_ERR_READ, path, 0, 0, "cannot open: %s", strerror(error));
    else if (status == RE_OK)
        status = re_file_read_fd(fd, path, RE_LEXICON_FILE_MAX, RE_READ_ANY, &buf, &len, diag);
    if (status != RE_ERR_NOMEM && status != RE_ERR_INVALID)
        status = load_text(lex, path, status, buf, len, diag);
    if (status != RE_OK && status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED
        && re_diag_add(diag, src->script_path, src->front_matter_line, src->front_matter_col,
                       "lexicon '%s' could not be loaded (see its errors above)",
                       src->front_matter) != RE_OK)
        status = RE_ERR_NOMEM;
    free(path);
    return status;
}

re_status re_lexicon_build(const re_lexicon_sources *sources, re_lexicon **out,
                           re_diagnostics *diag)
{
    re_lexicon *lex = NULL;
    char *default_path = NULL;
    re_status first = RE_OK, status;

    if (!sources || !out || !diag || (sources->front_matter && !sources->script_path))
        return RE_ERR_INVALID;
    *out = NULL;
    status = re_lexicon_create(&lex);
    if (status == RE_OK && !sources->no_default)
        status = re_lexicon_find_default(sources->dirs, sources->dir_count, &default_path);
    if (status == RE_OK && default_path)
        status = re_lexicon_load(lex, default_path, diag);
    /* Every source is read, to report every problem at once, unless memory ran out or a stop
     * signal ended a wait (a FIFO): then nothing more is read. */
    if (status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED) {
        first = status;
        if (sources->front_matter)
            status = load_front_matter(lex, sources, diag);
        if (first == RE_OK)
            first = status;
    }
    for (size_t i = 0; status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED
                       && i < sources->path_count; i++) {
        status = re_lexicon_load(lex, sources->paths[i], diag);
        if (first == RE_OK)
            first = status;
    }
    if (status == RE_ERR_NOMEM || status == RE_ERR_INTERRUPTED)
        first = status;
    free(default_path);
    if (first != RE_OK) {
        re_lexicon_free(lex);
        return first;
    }
    *out = lex;
    return RE_OK;
}
