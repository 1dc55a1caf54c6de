/* SPDX-License-Identifier: GPL-3.0-or-later */
/* markdown_brief.c - release notes told as a briefing (markdown_brief.h): the rules that
 * find, in a block's text, what a person reading a changelog aloud skips or says otherwise. */
#define _GNU_SOURCE   /* vasprintf, open_memstream */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "markdown_brief.h"
#include "status.h"
#include "text.h"

/* ---- small text checks ------------------------------------------------------------------ */

static int lower(char c)
{
    return re_is_upper(c) ? c - 'A' + 'a' : c;
}

/* 1 when s[0..len) is word, in any case. */
static int same_fold(const char *s, size_t len, const char *word)
{
    if (strlen(word) != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (lower(s[i]) != word[i])
            return 0;
    return 1;
}

static int hex_lower(char c)
{
    return re_is_digit(c) || (c >= 'a' && c <= 'f');
}

/* The length of the hex digits at s[0..len) when they look like a commit hash: 7 to 40 small
 * hex digits that go from letters to digits or back at least twice (a number, a word, or a
 * name and its number such as ed25519, dec2019 or deadbeef1 is no hash), else 0. */
static size_t hex_run(const char *s, size_t len)
{
    size_t n = 0, switches = 0;
    while (n < len && n <= 40 && hex_lower(s[n])) {
        switches += n > 0 && re_is_digit(s[n]) != re_is_digit(s[n - 1]);
        n++;
    }
    return n >= 7 && n <= 40 && switches >= 2 ? n : 0;
}

/* A word may end at s[0..len): nothing, a blank, a closing mark, or a full stop ending it. */
static int word_ends(const char *s, size_t len)
{
    if (len == 0 || strchr(" \t),;:]!?", s[0]))
        return 1;
    return s[0] == '.' && (len == 1 || re_is_blank(s[1]));
}

static int word_starts(const char *text, size_t at)
{
    return at == 0 || strchr(" \t(,;[", text[at - 1]);
}

/* A commit hash (or, when range, a commit range "a1b2c3d..e4f5a6b", "9fceb02..HEAD") at
 * s[0..len): its length, else 0. */
static size_t hash_at(const char *s, size_t len, int range)
{
    size_t n = hex_run(s, len);
    if (n && !range)
        return word_ends(s + n, len - n) ? n : 0;
    if (!n && range && len >= 4 && memcmp(s, "HEAD", 4) == 0)
        n = 4;
    if (!n || len - n < 3 || s[n] != '.' || s[n + 1] != '.')
        return 0;
    size_t to = n + 2 + (s[n + 2] == '.');
    size_t m = hex_run(s + to, len - to);
    if (!m && len - to >= 4 && memcmp(s + to, "HEAD", 4) == 0 && n != 4)
        m = 4;
    return m && word_ends(s + to + m, len - to - m) ? to + m : 0;
}

/* ---- edits ------------------------------------------------------------------------------ */

static void add_edit(md_edits *e, size_t at, size_t len, const char *with, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add_edit(md_edits *e, size_t at, size_t len, const char *with, const char *fmt, ...)
{
    if (e->nomem || re_array_grow(&e->items, &e->capacity, e->count, sizeof *e->items) != RE_OK) {
        e->nomem = 1;
        return;
    }
    md_edit *x = &e->items[e->count];
    *x = (md_edit){ at, len, with ? strdup(with) : NULL, NULL };
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        if (vasprintf(&x->note, fmt, ap) < 0)
            x->note = NULL, e->nomem = 1;
        va_end(ap);
    }
    if ((with && !x->with) || e->nomem) {
        free(x->with);
        free(x->note);
        e->nomem = 1;
        return;
    }
    e->count++;
}

void re_md_edits_free(md_edits *edits)
{
    for (size_t i = 0; i < edits->count; i++) {
        free(edits->items[i].with);
        free(edits->items[i].note);
    }
    free(edits->items);
    *edits = (md_edits){ 0 };
}

/* ---- conventional commits --------------------------------------------------------------- */

/* A conventional-commit type and what a person says for it (NULL: nothing, the text says
 * what was done). */
static const char *const commit_types[][2] = {
    { "feat", "New" }, { "feature", "New" }, { "fix", "Fixed" }, { "bugfix", "Fixed" },
    { "perf", "Performance" }, { "refactor", "Refactoring" }, { "docs", "Documentation" },
    { "doc", "Documentation" }, { "test", "Tests" }, { "tests", "Tests" }, { "build", "Build" },
    { "ci", "Continuous integration" }, { "chore", NULL }, { "style", "Style" },
    { "revert", "Reverted" }, { "deps", "Dependencies" }, { "security", "Security" },
};

typedef struct commit_prefix {
    size_t end;            /* past the ": ", 0 when there is no prefix */
    const char *word;      /* what the type is said as */
    const char *scope;     /* text[scope, scope + scope_len) */
    size_t scope_len;
    int breaking;
    int dependencies;      /* 1: the scope is the dependencies, 2: the development ones */
} commit_prefix;

static commit_prefix conventional_prefix(const char *text, size_t len)
{
    commit_prefix p = { 0 };
    size_t i = 0;
    while (i < len && re_is_blank(text[i]))
        i++;
    size_t type = i;
    while (i < len && re_is_letter(text[i]))
        i++;
    size_t k = 0, types = sizeof commit_types / sizeof commit_types[0];
    while (k < types && !same_fold(text + type, i - type, commit_types[k][0]))
        k++;
    if (k == types)
        return p;
    if (i < len && text[i] == '(') {
        size_t close = i + 1;
        while (close < len && close - i <= 40 && text[close] != ')' && text[close] != '('
               && !re_is_blank(text[close]))
            close++;
        if (close >= len || text[close] != ')' || close == i + 1)
            return p;
        p.scope = text + i + 1;
        p.scope_len = close - i - 1;
        i = close + 1;
    }
    if (i < len && text[i] == '!') {
        p.breaking = 1;
        i++;
    }
    if (i >= len || text[i] != ':' || (i + 1 < len && !re_is_blank(text[i + 1])))
        return p;
    i++;
    while (i < len && re_is_blank(text[i]))
        i++;
    p.word = commit_types[k][1];
    if (p.scope && (same_fold(p.scope, p.scope_len, "deps")
                    || same_fold(p.scope, p.scope_len, "dependencies")))
        p.dependencies = 1;
    else if (p.scope && (same_fold(p.scope, p.scope_len, "deps-dev")
                         || same_fold(p.scope, p.scope_len, "dev-deps")))
        p.dependencies = 2;
    p.end = i;
    return p;
}

/* The prefix of text (a conventional-commit type or `BREAKING CHANGE:`) as a person says
 * it. */
static void brief_prefix(const char *text, size_t len, md_edits *out)
{
    static const char *const breaking[] = { "BREAKING CHANGES:", "BREAKING CHANGE:",
                                            "BREAKING:" };
    size_t start = 0;
    while (start < len && re_is_blank(text[start]))
        start++;
    for (size_t b = 0; b < sizeof breaking / sizeof breaking[0]; b++) {
        size_t n = strlen(breaking[b]);
        if (len - start >= n && memcmp(text + start, breaking[b], n) == 0
            && (len - start == n || re_is_blank(text[start + n]))) {
            add_edit(out, start, n, "Breaking change:", "the prefix '%s' (said 'Breaking change:')",
                     breaking[b]);
            return;
        }
    }
    commit_prefix p = conventional_prefix(text, len);
    if (!p.end)
        return;
    char said[96];
    if (p.breaking && p.scope)
        snprintf(said, sizeof said, "Breaking change in %.*s: ", (int)p.scope_len, p.scope);
    else if (p.breaking)
        snprintf(said, sizeof said, "Breaking change: ");
    else if (p.dependencies)
        snprintf(said, sizeof said, "%s: ", p.dependencies == 1 ? "Dependencies"
                                                               : "Development dependencies");
    else if (p.word && p.scope)
        snprintf(said, sizeof said, "%s in %.*s: ", p.word, (int)p.scope_len, p.scope);
    else if (p.word)
        snprintf(said, sizeof said, "%s: ", p.word);
    else if (p.scope)
        snprintf(said, sizeof said, "%.*s: ", (int)p.scope_len, p.scope);
    else
        said[0] = '\0';
    size_t written = p.end - start;
    while (written > 0 && re_is_blank(text[start + written - 1]))
        written--;
    size_t said_len = strlen(said);
    while (said_len > 0 && said[said_len - 1] == ' ')
        said_len--;
    if (*said)
        add_edit(out, start, p.end - start, said,
                 "the commit type '%.*s' (said '%.*s')", (int)written, text + start,
                 (int)said_len, said);
    else
        add_edit(out, start, p.end - start, NULL, "the commit type '%.*s' (not said)",
                 (int)written, text + start);
}

/* ---- commit hashes ---------------------------------------------------------------------- */

/* Parentheses at text[at] ('(') holding only commit hashes, commas and blanks, or nothing
 * (a commit link left out): the byte after the ')', else 0. */
static size_t hashes_in_parentheses(const char *text, size_t len, size_t at, unsigned *hashes)
{
    size_t i = at + 1;
    *hashes = 0;
    while (i < len && i - at < 400) {
        size_t n;
        if (text[i] == ')')
            return i + 1;
        if (re_is_blank(text[i]) || text[i] == ',')
            i++;
        else if ((n = hash_at(text + i, len - i, 1)) > 0 || (n = hash_at(text + i, len - i, 0)) > 0)
            i += n, ++*hashes;
        else
            return 0;
    }
    return 0;
}

void re_md_brief_text(const char *text, size_t len, md_edits *out)
{
    brief_prefix(text, len, out);
    size_t done = out->count ? out->items[out->count - 1].at + out->items[out->count - 1].len
                             : 0;   /* the end of the last edit: edits never overlap */
    size_t i = done;
    while (i < len && !out->nomem) {
        size_t end = 0, n;
        unsigned hashes = 0;
        const char *what = NULL;
        if (text[i] == '(' && (i == 0 || re_is_blank(text[i - 1]))
            && (end = hashes_in_parentheses(text, len, i, &hashes)) > 0)
            what = hashes ? "the commit" : NULL;
        else if (word_starts(text, i) && (n = hash_at(text + i, len - i, 1)) > 0)
            end = i + n, what = "the commit range";
        else if (word_starts(text, i) && (n = hash_at(text + i, len - i, 0)) > 0)
            end = i + n, what = "the commit hash";
        if (!end) {
            i++;
            continue;
        }
        if (what && strcmp(what, "the commit hash") == 0 && i >= done + 7
            && strncasecmp(text + i - 7, "commit ", 7) == 0
            && (i == done + 7 || re_is_blank(text[i - 8]) || text[i - 8] == '(')) {
            /* "reverts commit 9fceb02": "reverts an earlier commit", not "reverts commit" */
            add_edit(out, i - 7, end - (i - 7), "an earlier commit", "the commit hash %.*s "
                     "(not read aloud: said 'an earlier commit')", (int)(end - i), text + i);
            i = done = end;
            continue;
        }
        size_t from = i;   /* the blank before it goes with it, or the one after at the start */
        if (from > done && re_is_blank(text[from - 1]))
            from--;
        else if (end < len && re_is_blank(text[end]))
            end++;
        if (what)
            add_edit(out, from, end - from, NULL, "%s %.*s (not read aloud)", what,
                     (int)(end - i), text + i);
        else
            add_edit(out, from, end - from, NULL, NULL);
        i = done = end;
    }
}

/* The lowercase hex digits at s: how many (up to 41). */
static size_t hex_digits(const char *s)
{
    size_t n = 0;
    while (n <= 40 && hex_lower(s[n]))
        n++;
    return n;
}

int re_md_brief_commit_link(const char *url, const char *text, int bare)
{
    const char *c;
    int commit = 0;
    if ((c = strstr(url, "/commit/")) || (c = strstr(url, "/commits/"))) {
        size_t n = hex_digits(c += c[7] == '/' ? 8 : 9);
        commit = n >= 7 && n <= 40 && (!c[n] || strchr("/#?", c[n]));
    } else if ((c = strstr(url, "/compare/"))) {
        size_t n = hex_digits(c += 9);
        commit = n >= 7 && n <= 40 && c[n] == '.' && c[n + 1] == '.';
    }
    size_t len = strlen(text);
    return commit && (bare || (len && (hash_at(text, len, 1) == len || hash_at(text, len, 0) == len
                                       || (hex_digits(text) == len && len >= 7 && len <= 40))));
}

/* ---- links ------------------------------------------------------------------------------ */

/* A `:shortcode:` of an emoji at s (s[0] is ':'): its length, or 0. */
size_t re_md_emoji_shortcode(const char *s, size_t len, int word_start)
{
    if (!word_start)
        return 0;
    size_t i = 1;
    int letters = 0;
    while (i < len && (re_is_lower(s[i]) || re_is_digit(s[i]) || s[i] == '_' || s[i] == '+'
                       || s[i] == '-')) {
        letters |= re_is_lower(s[i]);
        i++;
    }
    if (i == 1 || i >= len || s[i] != ':' || !letters)
        return 0;
    if (i + 1 < len && re_is_alnum(s[i + 1]))
        return 0;
    return i + 1;
}

/* A github.com link to a pull request, an issue or a comparison, as a person reads it:
 * "pull request 123", "issue 45", "changes from v1.2.0 to v1.3.0". 0 when it is none. */
int re_md_github_reference(const char *url, char *out, size_t size, int *is_pull_or_issue)
{
    const char *s = url;
    if (strncmp(s, "https://", 8) == 0)
        s += 8;
    else if (strncmp(s, "http://", 7) == 0)
        s += 7;
    if (strncmp(s, "www.", 4) == 0)
        s += 4;
    if (strncmp(s, "github.com/", 11) != 0)
        return 0;
    s += 11;
    for (int part = 0; part < 2; part++) {   /* OWNER/REPO/ */
        const char *slash = strchr(s, '/');
        if (!slash || slash == s)
            return 0;
        s = slash + 1;
    }
    const char *kinds[][2] = { { "pull/", "pull request" }, { "issues/", "issue" } };
    for (size_t k = 0; k < 2; k++) {
        size_t n = strlen(kinds[k][0]);
        if (strncmp(s, kinds[k][0], n) != 0)
            continue;
        const char *num = s + n, *end = num;
        while (re_is_digit(*end))
            end++;
        if (end == num || end - num > 12 || (*end && *end != '/' && *end != '#' && *end != '?'))
            return 0;
        snprintf(out, size, "%s %.*s", kinds[k][1], (int)(end - num), num);
        *is_pull_or_issue = 1;
        return 1;
    }
    if (strncmp(s, "compare/", 8) == 0) {
        const char *from = s + 8, *dots = strstr(from, "...");
        if (!dots || dots == from || !dots[3])
            return 0;
        const char *to = dots + 3, *end = to + strcspn(to, "/#?");
        if (end == to || dots - from > 100 || end - to > 100)
            return 0;
        snprintf(out, size, "changes from %.*s to %.*s", (int)(dots - from), from,
                 (int)(end - to), to);
        *is_pull_or_issue = 0;
        return 1;
    }
    return 0;
}

/* ---- headings --------------------------------------------------------------------------- */

/* A version at s ("2.4.0", "v1.0.0-rc.1"): its length, else 0. */
static size_t version_at(const char *s)
{
    size_t i = (s[0] == 'v' || s[0] == 'V') && re_is_digit(s[1]);
    size_t dots = 0;
    if (!re_is_digit(s[i]))
        return 0;
    while (re_is_digit(s[i]) || (s[i] == '.' && re_is_digit(s[i + 1])))
        dots += s[i++] == '.';
    if (!dots)
        return 0;
    if ((s[i] == '-' || s[i] == '+') && re_is_alnum(s[i + 1]))
        while (re_is_alnum(s[i]) || s[i] == '.' || s[i] == '-' || s[i] == '+')
            i++;
    return i;
}

static int iso_date_at(const char *s)
{
    for (int k = 0; k < 10; k++)
        if (k == 4 || k == 7 ? s[k] != '-' : !re_is_digit(s[k]))
            return 0;
    return 1;
}

/* Skips blanks, '-', '/', ',', '(' and the en and em dashes between a version and its date. */
static const char *separators(const char *s)
{
    for (;;) {
        if (*s == ' ' || *s == '-' || *s == '/' || *s == ',' || *s == '(' || *s == '\t')
            s++;
        else if ((unsigned char)s[0] == 0xE2 && (unsigned char)s[1] == 0x80
                 && ((unsigned char)s[2] == 0x93 || (unsigned char)s[2] == 0x94))
            s += 3;
        else
            return s;
    }
}

/* Past emoji and other symbols, marks and blanks at the start of a heading. */
static const char *past_symbols(const char *s)
{
    while ((unsigned char)*s >= 0x80 || *s == ' ' || *s == ':')
        s++;
    return s;
}

char *re_md_brief_heading(const char *title, int *nomem)
{
    const char *s = title;
    char *said = NULL;
    int n = 0;
    int bracket = *s == '[';
    size_t v = version_at(s + bracket);
    if (v) {
        const char *version = s + bracket + (re_is_letter(s[bracket]) ? 1 : 0);
        int version_len = (int)(s + bracket + v - version);
        s += bracket + v;
        if (bracket && *s++ != ']')
            return NULL;
        const char *date = separators(s);
        if (!*s)
            n = asprintf(&said, "Version %.*s", version_len, version);
        else if (date != s && iso_date_at(date)) {
            const char *after = date + 10;
            after += *after == ')';
            while (*after == ' ')
                after++;
            if (*after)
                return NULL;
            n = asprintf(&said, "Version %.*s, %.10s", version_len, version, date);
        } else {
            return NULL;
        }
    } else if (same_fold(s + bracket, strlen(s + bracket) - (size_t)bracket, "unreleased")
               && (!bracket || s[strlen(s) - 1] == ']')) {
        n = asprintf(&said, "Unreleased changes");
    } else {
        s = past_symbols(s);
        size_t len = strlen(s);
        while (len > 0 && (s[len - 1] == ':' || s[len - 1] == '!' || s[len - 1] == ' '))
            len--;
        if (!same_fold(s, len, "breaking changes") && !same_fold(s, len, "breaking change"))
            return NULL;
        n = asprintf(&said, "Breaking changes");
    }
    if (n < 0) {
        *nomem = 1;
        return NULL;
    }
    return said;
}

int re_md_brief_is_contributors(const char *title)
{
    const char *s = past_symbols(title);
    return same_fold(s, strlen(s), "new contributors");
}

/* ---- items said together ---------------------------------------------------------------- */

/* Words a dependency bot writes around a package's name ("Update rust crate X"). */
static const char *const package_words[] = { "dependency", "dependencies", "rust", "crate",
                                             "module", "package", "gem", "npm", "docker",
                                             "image", "tag", "digest", "action", "github",
                                             "pip", "helm", "chart", "plugin", "the" };

static int package_word(const char *s, size_t len)
{
    for (size_t k = 0; k < sizeof package_words / sizeof package_words[0]; k++)
        if (same_fold(s, len, package_words[k]))
            return 1;
    return 0;
}

/* The next word of text[*i..len): its start and length (0 at the end). */
static size_t next_word(const char *text, size_t len, size_t *i, const char **word)
{
    while (*i < len && re_is_blank(text[*i]))
        (*i)++;
    size_t start = *i;
    while (*i < len && !re_is_blank(text[*i]))
        (*i)++;
    *word = text + start;
    return *i - start;
}

/* "Bump X from A to B", "chore(deps): update dependency X to vB", "Update rust crate X to B":
 * 1 with the package's name and the version it goes to. */
static int parse_update(const char *text, size_t len, const char **name, size_t *name_len,
                        const char **version, size_t *version_len)
{
    commit_prefix p = conventional_prefix(text, len);
    size_t i = p.end;
    const char *w;
    size_t n = next_word(text, len, &i, &w);
    int bump = same_fold(w, n, "bump");
    if (!bump && !same_fold(w, n, "update") && !same_fold(w, n, "upgrade"))
        return 0;
    int bot_words = p.dependencies != 0;
    *name = NULL;
    for (int words = 0; words < 6; words++) {
        n = next_word(text, len, &i, &w);
        if (n == 0)
            return 0;
        if (same_fold(w, n, "from")) {
            next_word(text, len, &i, &w);   /* the version it was */
            n = next_word(text, len, &i, &w);
            bot_words = 1;
        }
        if (same_fold(w, n, "to"))
            break;
        if (package_word(w, n))
            bot_words = 1;
        else if (*name)
            return 0;   /* two names: not one package */
        else
            *name = w, *name_len = n;
    }
    if (!*name || !(bump || bot_words) || !same_fold(w, n, "to"))
        return 0;
    n = next_word(text, len, &i, &w);
    while (n > 0 && (w[n - 1] == '.' || w[n - 1] == ',' || w[n - 1] == ';'))
        n--;
    if ((w[0] == 'v' || w[0] == 'V') && n > 1 && re_is_digit(w[1]))
        w++, n--;
    if (n == 0 || !re_is_digit(w[0]))
        return 0;
    *version = w;
    *version_len = n;
    return 1;
}

/* "alice made their first contribution in ...": 1 with the name ("[bot]" left out). */
static int parse_contribution(const char *text, size_t len, const char **name, size_t *name_len)
{
    size_t i = 0;
    const char *w;
    size_t n = next_word(text, len, &i, &w);
    static const char said[] = " made their first contribution";
    if (n == 0 || len - i < sizeof said - 1 || memcmp(text + i, said, sizeof said - 1) != 0)
        return 0;
    if (n > 5 && memcmp(w + n - 5, "[bot]", 5) == 0)
        n -= 5;
    *name = w;
    *name_len = n;
    return 1;
}

md_group_kind re_md_brief_kind(const char *text, size_t len)
{
    const char *a, *b;
    size_t an, bn;
    if (parse_update(text, len, &a, &an, &b, &bn))
        return MD_GROUP_UPDATES;
    if (parse_contribution(text, len, &a, &an))
        return MD_GROUP_CONTRIBUTORS;
    return MD_GROUP_NONE;
}

#define MD_GROUP_UPDATES_NAMED 3u       /* packages named in "N dependency updates, among them" */
#define MD_GROUP_CONTRIBUTORS_NAMED 12u /* new contributors named before "and N more" */

int re_md_group_add(md_group *g, const char *text, size_t len)
{
    const char *name = NULL, *version = NULL;
    size_t name_len = 0, version_len = 0;
    md_group_kind kind = MD_GROUP_NONE;
    if (parse_update(text, len, &name, &name_len, &version, &version_len))
        kind = MD_GROUP_UPDATES;
    else if (parse_contribution(text, len, &name, &name_len))
        kind = MD_GROUP_CONTRIBUTORS;
    if (kind == MD_GROUP_NONE || (g->kind != MD_GROUP_NONE && kind != g->kind))
        return 0;
    g->kind = kind;
    g->count++;
    size_t k = 0;
    while (k < g->name_count && (strlen(g->names[k].name) != name_len
                                 || memcmp(g->names[k].name, name, name_len) != 0))
        k++;
    /* one name past those said is kept (it says there are more), no further: a list of
     * thousands of updates is not compared name by name */
    size_t kept = 1 + (kind == MD_GROUP_UPDATES ? MD_GROUP_UPDATES_NAMED
                                               : MD_GROUP_CONTRIBUTORS_NAMED);
    if (k == g->name_count && k == kept) {
        g->unnamed++;
        return 1;
    }
    if (k == g->name_count) {
        if (re_array_grow(&g->names, &g->capacity, g->name_count, sizeof *g->names) != RE_OK
            || !(g->names[k].name = strndup(name, name_len))) {
            g->nomem = 1;
            return 1;
        }
        g->names[k].version = NULL;
        g->name_count++;
    }
    if (version) {
        free(g->names[k].version);
        if (!(g->names[k].version = strndup(version, version_len)))
            g->nomem = 1;
    }
    return 1;
}

unsigned re_md_group_least(md_group_kind kind)
{
    return kind == MD_GROUP_UPDATES ? 2 : 1;
}

/* Counts at the start of a sentence are said as words up to twenty. */
static const char *const count_words[] = { "Zero", "One", "Two", "Three", "Four", "Five",
                                           "Six", "Seven", "Eight", "Nine", "Ten", "Eleven",
                                           "Twelve", "Thirteen", "Fourteen", "Fifteen",
                                           "Sixteen", "Seventeen", "Eighteen", "Nineteen",
                                           "Twenty" };


char *re_md_group_sentence(const md_group *g)
{
    if (g->nomem || g->name_count == 0)
        return NULL;
    char *out = NULL;
    size_t out_len = 0;
    FILE *f = open_memstream(&out, &out_len);
    if (!f)
        return NULL;
    size_t named = g->name_count;
    if (g->kind == MD_GROUP_UPDATES) {
        if (g->count < sizeof count_words / sizeof count_words[0])
            fprintf(f, "%s", count_words[g->count]);
        else
            fprintf(f, "%u", g->count);
        fprintf(f, " dependency update%s", g->count == 1 ? "" : "s");
        if (named > MD_GROUP_UPDATES_NAMED || g->unnamed) {
            named = MD_GROUP_UPDATES_NAMED;
            fprintf(f, ", among them ");
        } else {
            fprintf(f, ": ");
        }
    } else {
        fprintf(f, "New contributor%s: ", named == 1 ? "" : "s");
        if (named > MD_GROUP_CONTRIBUTORS_NAMED)
            named = MD_GROUP_CONTRIBUTORS_NAMED;
    }
    size_t more = g->kind == MD_GROUP_CONTRIBUTORS ? g->name_count - named + g->unnamed : 0;
    for (size_t k = 0; k < named; k++) {
        if (k > 0)
            fprintf(f, k + 1 == named && !more ? " and " : ", ");
        fprintf(f, "%s", g->names[k].name);
        if (g->kind == MD_GROUP_UPDATES && g->names[k].version)
            fprintf(f, " to %s", g->names[k].version);
    }
    if (more)
        fprintf(f, " and %zu more", more);
    fprintf(f, ".");
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

void re_md_group_free(md_group *g)
{
    for (size_t k = 0; k < g->name_count; k++) {
        free(g->names[k].name);
        free(g->names[k].version);
    }
    free(g->names);
    *g = (md_group){ 0 };
}
