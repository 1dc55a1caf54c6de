/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_lexicon.c - lexicon files: parsing and its errors, whole-word matching, precedence
 * between sources, and the canonical form and digest the segment cache keys on. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testkit.h"
#include "lexicon.h"

static void print_diags(const re_diagnostics *d)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "    %s:%u:%u: %s\n", d->items[i].file, d->items[i].line,
                d->items[i].col, d->items[i].message);
}

/* 1 if d holds a message for file:line:col containing `part`; prints the list when not. */
static int has_diag(const re_diagnostics *d, const char *file, unsigned line, unsigned col,
                    const char *part)
{
    for (size_t i = 0; i < d->count; i++)
        if (strcmp(d->items[i].file, file) == 0 && d->items[i].line == line
            && d->items[i].col == col && strstr(d->items[i].message, part))
            return 1;
    fprintf(stderr, "  no diagnostic %s:%u:%u '%s' among:\n", file, line, col, part);
    print_diags(d);
    return 0;
}

/* A new lexicon holding `text` as one source; NULL (after a failed check) when invalid. */
static re_lexicon *lexicon_of(const char *text)
{
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_lexicon_create(&lex), RE_OK);
    re_status status = re_lexicon_parse(lex, "t.lexicon", text, strlen(text), &d);
    CHECK_INT(status, RE_OK);
    CHECK_INT(d.count, 0);
    if (status != RE_OK) {
        print_diags(&d);
        re_lexicon_free(lex);
        lex = NULL;
    }
    re_diagnostics_free(&d);
    return lex;
}

/* Parses text that must fail with exactly one error at line:col containing part. */
static void expect_error(const char *text, unsigned line, unsigned col, const char *part)
{
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_lexicon_create(&lex), RE_OK);
    CHECK_INT(re_lexicon_parse(lex, "t.lexicon", text, strlen(text), &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 1);
    CHECK(has_diag(&d, "t.lexicon", line, col, part));
    CHECK_INT(re_lexicon_size(lex), 0);
    re_diagnostics_free(&d);
    re_lexicon_free(lex);
}

/* What the lexicon says at text[pos], or NULL when nothing matches there. */
static const char *said_at(const re_lexicon *lex, const char *text, size_t pos, size_t *length)
{
    re_lexicon_hit hit;
    if (!re_lexicon_match(lex, text, strlen(text), pos, &hit))
        return NULL;
    if (length)
        *length = hit.length;
    return hit.replacement;
}

static void test_parse(void)
{
    re_lexicon *lex = lexicon_of("\xEF\xBB\xBF# a comment\r\n"
                                 "\n"
                                 "NCCL = nickel\r\n"
                                 "   # an indented comment\n"
                                 "  Gloo   =   [[gl'u:]]  \n"
                                 "gloo2 ~= glue two\n"
                                 "pull\t request = P.R\n"
                                 "C# = C sharp\n"
                                 "NCCL2 = nickel [[t'u:]]\n"
                                 "a = b = c");
    if (!lex)
        return;
    CHECK_INT(re_lexicon_size(lex), 7);
    re_lexicon_hit hit;
    CHECK(re_lexicon_lookup(lex, "Gloo", 4, &hit));
    CHECK_STR(hit.replacement, "[[gl'u:]]");
    CHECK_INT(hit.phonemes, 1);
    CHECK(re_lexicon_lookup(lex, "NCCL", 4, &hit));
    CHECK_INT(hit.phonemes, 0);
    CHECK(re_lexicon_lookup(lex, "pull request", 12, &hit));
    CHECK_STR(hit.word, "pull request");
    CHECK(re_lexicon_lookup(lex, "C#", 2, &hit));
    CHECK_STR(hit.replacement, "C sharp");
    CHECK(re_lexicon_lookup(lex, "a", 1, &hit));
    CHECK_STR(hit.replacement, "b = c");     /* the word ends at the first '=' */
    CHECK(re_lexicon_lookup(lex, "NCCL2", 5, &hit));
    CHECK_STR(hit.replacement, "nickel [[t'u:]]");
    CHECK_INT(hit.phonemes, 1);
    re_lexicon_free(lex);
}

static void test_parse_errors(void)
{
    expect_error("NCCL nickel\n", 1, 1, "expected 'WORD = replacement', got 'NCCL nickel'");
    expect_error("ok = fine\n  = nothing\n", 2, 3, "expected a WORD before '='");
    expect_error("~= x\n", 1, 1, "expected a WORD before '~='");
    expect_error("NCCL =\n", 1, 1, "'NCCL' has no replacement after '='");
    expect_error("NCCL ~=   \n", 1, 1, "has no replacement after '~='");
    expect_error("A = a\nB = b\nA = c\n", 3, 1, "duplicate entry 'A' (first on line 1)");
    expect_error("gloo ~= a\nGLOO ~= b\n", 2, 1, "duplicate entry 'GLOO' (first on line 1)");
    expect_error("Gloo = [[gl'u:\n", 1, 8, "unclosed '[[' in the replacement of 'Gloo'");
    expect_error("Gloo = [[  ]]\n", 1, 8, "empty phonemes '[[]]'");
    expect_error("Gloo = [[gl\xC3\xBC]]\n", 1, 12, "are not espeak-ng mnemonics");
    /* A span longer than a spoken word may be (found by fuzz_normalize): 67 characters; 64 fit. */
    expect_error("gloo ~= [[g2222222222222222222222222222222222222222222222222222222222l'u:]]\n",
                 1, 9, "are too long: a [[...]] span is at most 64 characters");
    re_lexicon *fits = NULL;
    re_diagnostics df;
    re_diagnostics_init(&df, 0);
    const char *sixty_four = "gloo ~= [[g2222222222222222222222222222222222222222222222222222222l'u:]]\n";
    CHECK_INT(re_lexicon_create(&fits), RE_OK);
    CHECK_INT(re_lexicon_parse(fits, "t.lexicon", sixty_four, strlen(sixty_four), &df), RE_OK);
    CHECK_INT(df.count, 0);
    re_diagnostics_free(&df);
    re_lexicon_free(fits);
    expect_error("Gloo = glue]\n", 1, 12, "']' outside [[...]]");
    expect_error("Gloo = [glue]\n", 1, 8, "'[' outside [[...]]");
    expect_error("NCCL = nick\xC0\xAF\n", 1, 12, "not valid UTF-8: overlong encoding");
    expect_error("NCCL = nick\x01" "el\n", 1, 12, "control character U+0001");
    /* A quoted line never carries a control character into the message. */
    re_lexicon *lex0 = NULL;
    re_diagnostics d0;
    re_diagnostics_init(&d0, 0);
    re_lexicon_create(&lex0);
    const char *escape = "\x1b[31mNCCL nickel\n";
    CHECK_INT(re_lexicon_parse(lex0, "t.lexicon", escape, strlen(escape), &d0), RE_ERR_INPUT);
    CHECK(has_diag(&d0, "t.lexicon", 1, 1, "got '\\u001B[31mNCCL nickel'"));
    for (size_t i = 0; i < d0.count; i++)
        CHECK(strchr(d0.items[i].message, '\x1b') == NULL);
    re_diagnostics_free(&d0);
    re_lexicon_free(lex0);
    char long_word[300];
    memset(long_word, 'x', 201);
    strcpy(long_word + 201, " = y\n");
    expect_error(long_word, 1, 1, "is longer than 200 bytes");

    /* Every error of a source is reported, with its own line. */
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_lexicon_create(&lex);
    const char *text = "good = fine\nbad\nGloo = [[x\n";
    CHECK_INT(re_lexicon_parse(lex, "t.lexicon", text, strlen(text), &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 2);
    CHECK(has_diag(&d, "t.lexicon", 2, 1, "expected"));
    CHECK(has_diag(&d, "t.lexicon", 3, 8, "unclosed"));
    CHECK_INT(re_lexicon_size(lex), 0);   /* an invalid source adds nothing */
    CHECK(!said_at(lex, "good", 0, NULL));
    re_diagnostics_free(&d);
    re_lexicon_free(lex);
}

static void test_whole_words(void)
{
    re_lexicon *lex = lexicon_of("NCCL = nickel\nC++ = cee plus plus\ncaf = x\nv2 = vee two\n");
    if (!lex)
        return;
    size_t n;
    CHECK_STR(said_at(lex, "NCCL2", 0, &n), "nickel");             /* letters meet digits */
    CHECK_INT(n, 4);
    CHECK_STR(said_at(lex, "NCCL's", 0, NULL), "nickel");
    CHECK_STR(said_at(lex, "(NCCL)", 1, NULL), "nickel");
    CHECK_STR(said_at(lex, "x_NCCL", 2, NULL), "nickel");          /* _ ends a word */
    CHECK_STR(said_at(lex, "2NCCL", 1, NULL), "nickel");
    CHECK(!said_at(lex, "NCCLX", 0, NULL));
    CHECK(!said_at(lex, "XNCCL", 1, NULL));
    CHECK(!said_at(lex, "nccl", 0, NULL));                          /* case-sensitive */
    CHECK_STR(said_at(lex, "C++17", 0, NULL), "cee plus plus");    /* ends with a symbol */
    CHECK(!said_at(lex, "BC++", 1, NULL));
    CHECK(!said_at(lex, "caf\xC3\xA9", 0, NULL));                  /* é is a letter */
    CHECK_STR(said_at(lex, "caf\xE2\x80\xA6", 0, NULL), "x");       /* … is not */
    CHECK(!said_at(lex, "v23", 0, NULL));                           /* digits go on */
    CHECK_STR(said_at(lex, "v2.1", 0, NULL), "vee two");
    re_lexicon_hit hit;
    CHECK(!re_lexicon_lookup(lex, "NCCL2", 5, &hit));               /* lookup: all of it */
    CHECK(re_lexicon_lookup(lex, "NCCL", 4, &hit));
    re_lexicon_free(lex);
}

static void test_case_and_longest_match(void)
{
    re_lexicon *lex = lexicon_of("gloo ~= glue\n"
                                 "pull request = P.R\n"
                                 "pull = tug\n"
                                 "AOT = ahead of time\n"
                                 "AOT Autograd = ay oh tee autograd\n"
                                 "NCCL = exact\n"
                                 "nccl ~= loose\n");
    if (!lex)
        return;
    size_t n;
    CHECK_STR(said_at(lex, "Gloo", 0, NULL), "glue");
    CHECK_STR(said_at(lex, "GLOO", 0, NULL), "glue");
    CHECK_STR(said_at(lex, "a pull   request.", 2, &n), "P.R");      /* blanks run */
    CHECK_INT(n, 14);
    CHECK_STR(said_at(lex, "a pull\trequest", 2, NULL), "P.R");
    CHECK_STR(said_at(lex, "a pull requests", 2, NULL), "tug");       /* not whole */
    CHECK_STR(said_at(lex, "pull", 0, NULL), "tug");
    CHECK_STR(said_at(lex, "AOT Autograd!", 0, NULL), "ay oh tee autograd");
    CHECK_STR(said_at(lex, "AOT autograd", 0, NULL), "ahead of time");
    CHECK_STR(said_at(lex, "NCCL", 0, NULL), "exact");   /* same source: exact case first */
    CHECK_STR(said_at(lex, "Nccl", 0, NULL), "loose");
    re_lexicon_free(lex);
}

static re_status add_source(re_lexicon *lex, const char *file, const char *text)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_status status = re_lexicon_parse(lex, file, text, strlen(text), &d);
    re_diagnostics_free(&d);
    return status;
}

static void test_later_sources_win(void)
{
    re_lexicon *lex = NULL;
    re_lexicon_create(&lex);
    CHECK_INT(add_source(lex, "default", "NCCL = nickel\nGloo = glue\nnccl ~= N.C.C.L\n"), RE_OK);
    CHECK_INT(add_source(lex, "script", "NCCL = nickle\nGLOO ~= [[gl'u:]]\n"), RE_OK);
    CHECK_INT(re_lexicon_size(lex), 4);   /* NCCL replaced; GLOO ~= is a new entry */
    CHECK_STR(said_at(lex, "NCCL", 0, NULL), "nickle");
    CHECK_STR(said_at(lex, "nccl", 0, NULL), "N.C.C.L");
    CHECK_STR(said_at(lex, "Gloo", 0, NULL), "[[gl'u:]]");   /* the later source wins a tie */
    CHECK_INT(add_source(lex, "cli", "nccl ~= en see see el\n"), RE_OK);
    CHECK_STR(said_at(lex, "nccl", 0, NULL), "en see see el");
    CHECK_STR(said_at(lex, "NCCL", 0, NULL), "en see see el");
    /* A failed source changes nothing. */
    CHECK_INT(add_source(lex, "bad", "NCCL = x\noops\n"), RE_ERR_INPUT);
    CHECK_STR(said_at(lex, "NCCL", 0, NULL), "en see see el");
    re_lexicon_free(lex);
}

static char *canonical_of(const char *a, const char *b)
{
    re_lexicon *lex = NULL;
    re_lexicon_create(&lex);
    if (a)
        CHECK_INT(add_source(lex, "a", a), RE_OK);
    if (b)
        CHECK_INT(add_source(lex, "b", b), RE_OK);
    size_t len;
    const char *text = re_lexicon_canonical(lex, &len);
    char *copy = malloc(len + 18);
    snprintf(copy, len + 18, "%s|%s", re_lexicon_digest(lex), text);
    re_lexicon_free(lex);
    return copy;
}

/* The cache key: the same content gives the same bytes however it is written; any change
 * to what is said gives other bytes and another digest. */
static void test_canonical_form(void)
{
    char *plain = canonical_of("B = bee\nA = [[eI]]\n", NULL);
    char *noisy = canonical_of("# comment\n\n  A   =   [[eI]]\r\nB\t=\tbee\n", NULL);
    char *split = canonical_of("A = [[eI]]\n", "B = bee\n");
    char *changed = canonical_of("B = bee\nA = [[eI:]]\n", NULL);
    char *folded = canonical_of("B ~= bee\nA = [[eI]]\n", NULL);
    char *overridden = canonical_of("B = bee\nA = [[eI]]\n", "B = bea\n");
    char *empty = canonical_of(NULL, NULL);
    CHECK_STR(noisy, plain);
    CHECK_STR(split, plain);
    CHECK(strcmp(changed, plain) != 0);
    CHECK(strcmp(folded, plain) != 0);
    CHECK(strcmp(overridden, plain) != 0);
    CHECK(strncmp(changed, plain, 16) != 0);   /* the digest too */
    CHECK(strstr(plain, "=\tA\t[[eI]]\n") != NULL);
    CHECK(strstr(folded, "~=\tB\tbee\n") != NULL);
    CHECK_INT(strlen(plain), 16 + 1 + strlen("=\tA\t[[eI]]\n=\tB\tbee\n"));
    CHECK_STR(empty, "cbf29ce484222325|");
    free(plain);
    free(noisy);
    free(split);
    free(changed);
    free(folded);
    free(overridden);
    free(empty);
}

static char tmp_dir[] = "/tmp/re-lexicon-XXXXXX";

static char *tmp_path(const char *name)
{
    char *path;
    if (asprintf(&path, "%s/%s", tmp_dir, name) < 0)
        abort();
    return path;
}

static void write_file(const char *name, const char *text)
{
    char *path = tmp_path(name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(path);
}

/* The digest follows the file's content: a changed lexicon invalidates cached segments, an
 * unchanged one (rewritten with other comments) does not. */
static void test_cache_invalidation(void)
{
    char *path = tmp_path("team.lexicon");
    char digest[3][17];
    const char *versions[] = { "NCCL = nickel\n", "# same words\nNCCL   =  nickel\n",
                               "NCCL = nickle\n" };
    for (int i = 0; i < 3; i++) {
        write_file("team.lexicon", versions[i]);
        re_lexicon *lex = NULL;
        re_diagnostics d;
        re_diagnostics_init(&d, 0);
        re_lexicon_create(&lex);
        CHECK_INT(re_lexicon_load(lex, path, &d), RE_OK);
        snprintf(digest[i], sizeof digest[i], "%s", re_lexicon_digest(lex));
        re_lexicon_free(lex);
        re_diagnostics_free(&d);
    }
    CHECK_STR(digest[0], digest[1]);
    CHECK(strcmp(digest[0], digest[2]) != 0);
    free(path);
}

static void test_resolve(void)
{
    char *out = NULL;
    CHECK_INT(re_lexicon_resolve("episodes/ep1.txt", "terms.lexicon", &out), RE_OK);
    CHECK_STR(out, "episodes/terms.lexicon");
    free(out);
    CHECK_INT(re_lexicon_resolve("ep1.txt", "../terms.lexicon", &out), RE_OK);
    CHECK_STR(out, "../terms.lexicon");
    free(out);
    CHECK_INT(re_lexicon_resolve("/a/b/ep.txt", "/etc/terms.lexicon", &out), RE_OK);
    CHECK_STR(out, "/etc/terms.lexicon");
    free(out);
    CHECK_INT(re_lexicon_resolve("/a/b/ep.txt", "sub/t.lexicon", &out), RE_OK);
    CHECK_STR(out, "/a/b/sub/t.lexicon");
    free(out);
}

/* default.lexicon < the script's `lexicon:` < each --lexicon, in order. */
static void test_build_precedence(void)
{
    char *first = tmp_path("first"), *second = tmp_path("second"), *missing = tmp_path("none");
    mkdir(first, 0755);
    mkdir(second, 0755);
    write_file("second/default.lexicon", "NCCL = default\nGloo = default\nTCCL = default\n"
               "RMA = default\n");
    write_file("first/not-default.lexicon", "NCCL = never\n");
    write_file("episode.lexicon", "NCCL = script\nGloo = script\nTCCL = script\n");
    write_file("one.lexicon", "NCCL = one\nGloo = one\n");
    write_file("two.lexicon", "NCCL = two\n");
    char *script = tmp_path("ep.txt"), *one = tmp_path("one.lexicon"), *two = tmp_path("two.lexicon");
    const char *dirs[] = { missing, first, second };
    const char *paths[] = { one, two };
    re_lexicon_sources src = { .dirs = dirs, .dir_count = 3, .script_path = script,
                               .front_matter = "episode.lexicon", .front_matter_line = 3,
                               .front_matter_col = 10, .paths = paths, .path_count = 2 };
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_lexicon_build(&src, &lex, &d), RE_OK);
    if (lex) {
        CHECK_STR(said_at(lex, "NCCL", 0, NULL), "two");
        CHECK_STR(said_at(lex, "Gloo", 0, NULL), "one");
        CHECK_STR(said_at(lex, "TCCL", 0, NULL), "script");
        CHECK_STR(said_at(lex, "RMA", 0, NULL), "default");
        CHECK_INT(re_lexicon_size(lex), 4);
    }
    re_lexicon_free(lex);
    src.no_default = 1;
    src.front_matter = NULL;
    CHECK_INT(re_lexicon_build(&src, &lex, &d), RE_OK);
    if (lex)
        CHECK(!said_at(lex, "RMA", 0, NULL));
    re_lexicon_free(lex);
    CHECK_INT(d.count, 0);
    re_diagnostics_free(&d);
    free(first);
    free(second);
    free(missing);
    free(script);
    free(one);
    free(two);
}

/* Every source is read and every error reported: each file's own, and the script's
 * `lexicon:` line for a front-matter file that failed. */
static void test_build_errors(void)
{
    write_file("broken.lexicon", "ok = fine\nbroken\n");
    char *script = tmp_path("ep.txt"), *broken = tmp_path("broken.lexicon");
    char *absent = tmp_path("absent.lexicon"), *front = tmp_path("front.lexicon");
    char *default_dir = tmp_path("second");
    const char *dirs[] = { default_dir };
    const char *paths[] = { broken, absent };
    re_lexicon_sources src = { .dirs = dirs, .dir_count = 1, .script_path = script,
                               .front_matter = "front.lexicon", .front_matter_line = 4,
                               .front_matter_col = 10, .paths = paths, .path_count = 2 };
    re_lexicon *lex = (re_lexicon *)1;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    CHECK_INT(re_lexicon_build(&src, &lex, &d), RE_ERR_READ);
    CHECK(lex == NULL);
    CHECK_INT(d.count, 4);
    CHECK(has_diag(&d, front, 0, 0, "cannot open"));
    CHECK(has_diag(&d, script, 4, 10, "lexicon 'front.lexicon' could not be loaded"));
    CHECK(has_diag(&d, broken, 2, 1, "expected 'WORD = replacement'"));
    CHECK(has_diag(&d, absent, 0, 0, "cannot open"));
    re_diagnostics_free(&d);
    free(script);
    free(broken);
    free(absent);
    free(front);
    free(default_dir);
}

/* The shipped default lexicon is valid, and has what the documentation promises. */
static void test_shipped_default(void)
{
    const char *dirs[] = { RE_SOURCE_VOICES_DIR };
    char *path = NULL;
    CHECK_INT(re_lexicon_find_default(dirs, 1, &path), RE_OK);
    CHECK(path && strstr(path, "/voices/default.lexicon"));
    re_lexicon *lex = NULL;
    re_diagnostics d;
    re_diagnostics_init(&d, 0);
    re_lexicon_create(&lex);
    CHECK_INT(re_lexicon_load(lex, path, &d), RE_OK);
    print_diags(&d);
    /* 43 entries since capitals that are dictionary words need none (normalize.h) */
    CHECK(re_lexicon_size(lex) >= 40);
    CHECK_STR(said_at(lex, "NCCL2", 0, NULL), "nickel");
    CHECK_STR(said_at(lex, "CUDA", 0, NULL), "CUDA");
    re_lexicon_free(lex);
    re_diagnostics_free(&d);
    free(path);
}

/* The character ranges that end a word, each at its first and last code point and one
 * outside: "caf" followed by a character of a punctuation or symbol block is a whole word
 * (matched), by a letter of any script it is not. */
static void test_word_end_ranges(void)
{
    re_lexicon *lex = lexicon_of("caf = x\n");
    if (!lex)
        return;
    static const struct { uint32_t cp; int ends; } edges[] = {
        { 0x80, 1 },    { 0xBF, 1 },    { 0xC0, 0 },    { 0xD6, 0 },    { 0xD7, 1 },
        { 0xD8, 0 },    { 0xF6, 0 },    { 0xF7, 1 },    { 0xF8, 0 },
        { 0x1FFF, 0 },  { 0x2000, 1 },  { 0x2BFF, 1 },  { 0x2C00, 0 },  /* punctuation..math */
        { 0x2FFF, 0 },  { 0x3000, 1 },  { 0x303F, 1 },  { 0x3040, 0 },  /* CJK punctuation */
        { 0xD7FF, 0 },  { 0xE000, 1 },  { 0xF8FF, 1 },  { 0xF900, 0 },  /* private use */
        { 0xFE2F, 0 },  { 0xFE30, 1 },  { 0xFE4F, 1 },  { 0xFE50, 0 },  /* CJK compatibility */
        { 0xFEFF, 0 },  { 0xFF00, 1 },  { 0xFF20, 1 },  { 0xFF21, 0 },  /* fullwidth ASCII */
        { 0x1EFFF, 0 }, { 0x1F000, 1 }, { 0x1FAFF, 1 }, { 0x10FFFF, 1 }, /* emoji on */
    };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        uint32_t cp = edges[i].cp;
        char text[16] = "caf";
        unsigned char *p = (unsigned char *)text + 3;
        if (cp < 0x800) {
            *p++ = (unsigned char)(0xC0 | cp >> 6);
        } else if (cp < 0x10000) {
            *p++ = (unsigned char)(0xE0 | cp >> 12);
            *p++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        } else {
            *p++ = (unsigned char)(0xF0 | cp >> 18);
            *p++ = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
            *p++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        }
        *p++ = (unsigned char)(0x80 | (cp & 0x3F));
        *p = '\0';
        const char *said = said_at(lex, text, 0, NULL);
        if ((said != NULL) != edges[i].ends)
            fprintf(stderr, "U+%04X after a word: %s\n", (unsigned)cp,
                    said ? "ends it" : "does not end it");
        CHECK_INT(said != NULL, edges[i].ends);
    }
    re_lexicon_free(lex);
}

int main(void)
{
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_parse();
    test_parse_errors();
    test_whole_words();
    test_word_end_ranges();
    test_case_and_longest_match();
    test_later_sources_win();
    test_canonical_form();
    test_cache_invalidation();
    test_resolve();
    test_build_precedence();
    test_build_errors();
    test_shipped_default();
    char command[64];
    snprintf(command, sizeof command, "rm -rf %s", tmp_dir);
    if (system(command) != 0)
        fprintf(stderr, "could not remove %s\n", tmp_dir);
    return check_finish("test_lexicon");
}
