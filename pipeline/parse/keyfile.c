/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keyfile.c - the table-driven `key: value` reader (keyfile.h). */
#include "keyfile.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

void re_keyfile_init(keyfile *kf, const keyfile_syntax *syntax, parse_errors *err, void *target,
                     void *context)
{
    memset(kf, 0, sizeof *kf);
    kf->syntax = syntax;
    kf->err = err;
    kf->target = target;
    kf->context = context;
}

void *re_keyfile_context(const keyfile *kf)
{
    return kf->context;
}

parse_errors *re_keyfile_errors(const keyfile *kf)
{
    return kf->err;
}

static const keyfile_key *find_key(const keyfile_syntax *syntax, const char *key, size_t len)
{
    for (size_t i = 0; i < syntax->key_count; i++) {
        const char *name = syntax->keys[i].name;
        if (strlen(name) == len && memcmp(name, key, len) == 0)
            return &syntax->keys[i];
    }
    return NULL;
}

unsigned re_keyfile_where(const keyfile *kf, const char *name, unsigned *col, int *valued)
{
    const keyfile_key *key = find_key(kf->syntax, name, strlen(name));
    size_t i = key ? (size_t)(key - kf->syntax->keys) : 0;

    if (col)
        *col = key ? kf->col[i] : 0;
    if (valued)
        *valued = key && kf->valued[i];
    return key ? kf->line[i] : 0;
}

/* The known key nearest to an unknown one (case ignored), if at most 2 edits away. */
static const char *suggest_key(const keyfile_syntax *syntax, const char *key, size_t len)
{
    const char *best = NULL;
    size_t best_distance = 3;

    for (size_t i = 0; i < syntax->key_count; i++) {
        size_t d = re_edit_distance(key, len, syntax->keys[i].name);
        if (d < best_distance) {
            best = syntax->keys[i].name;
            best_distance = d;
        }
    }
    return best;
}

/* names[0], names[1] ... joined with ", " into out (cut short, never overrun). */
static const char *joined(char *out, size_t size, const char *const *names, size_t count,
                          size_t stride)
{
    size_t n = 0;

    out[0] = '\0';
    for (size_t i = 0; i < count && n + 1 < size; i++) {
        const char *name = *(const char *const *)((const char *)names + i * stride);
        size_t len = strlen(name), sep = i ? 2 : 0;
        if (n + sep + len + 1 > size)
            break;
        memcpy(out + n, ", ", sep);
        memcpy(out + n + sep, name, len + 1);
        n += sep + len;
    }
    return out;
}

static void unknown_key(keyfile *kf, const char *key, size_t len, unsigned line, unsigned col)
{
    const keyfile_syntax *syntax = kf->syntax;
    const char *near = suggest_key(syntax, key, len);
    char q[QUOTE_SIZE], known[1024];

    if (near)
        re_parse_error(kf->err, line, col, "unknown %s '%s' (did you mean '%s'?)", syntax->key_noun,
                       re_quote(q, key, len), near);
    else
        re_parse_error(kf->err, line, col, "unknown %s '%s' (known keys: %s)", syntax->key_noun,
                       re_quote(q, key, len), joined(known, sizeof known, &syntax->keys[0].name,
                                                  syntax->key_count, sizeof syntax->keys[0]));
}

int re_keyfile_copy(keyfile *kf, char **field, const keyfile_value *value, int collapse)
{
    char *copy = malloc(value->len + 1);
    size_t n = 0;

    if (!copy) {
        kf->err->nomem = 1;
        return 0;
    }
    for (size_t i = 0; i < value->len; i++) {
        if (!collapse || !re_is_line_blank(value->text[i]))
            copy[n++] = value->text[i];
        else if (n > 0 && copy[n - 1] != ' ')
            copy[n++] = ' ';
    }
    copy[n] = '\0';
    free(*field);
    *field = copy;
    return 1;
}

/* Strict whole number: optional '-', then digits, nothing else. Values too large to matter
 * saturate so the range check names them. */
static int parse_whole(const char *s, size_t len, long *out)
{
    size_t i = s[0] == '-';
    long value = 0;

    if (i == len)
        return 0;
    for (; i < len; i++) {
        if (!re_is_digit(s[i]))
            return 0;
        if (value < 1000000000L)
            value = value * 10 + (s[i] - '0');
    }
    *out = s[0] == '-' ? -value : value;
    return 1;
}

int keyfile_whole(keyfile *kf, const keyfile_value *v, long min, long max, long *out)
{
    char q[QUOTE_SIZE];
    long n = 0;

    if (!parse_whole(v->text, v->len, &n)) {
        re_parse_error(kf->err, v->line, v->col, "%s must be a whole number, got '%s'", v->key->name,
                       re_quote(q, v->text, v->len));
        return 0;
    }
    if (n < min || n > max) {
        re_parse_error(kf->err, v->line, v->col, "%s %s is out of range %ld..%ld", v->key->name,
                       re_quote(q, v->text, v->len), min, max);
        return 0;
    }
    *out = n;
    return 1;
}

static void *field(const keyfile *kf, const keyfile_key *key)
{
    return (char *)kf->target + key->offset;
}

static void read_value(keyfile *kf, const keyfile_value *v)
{
    const keyfile_key *key = v->key;
    char q[QUOTE_SIZE], list[512];
    long n = 0;
    size_t count = 0;

    if (kf->syntax->accept && !kf->syntax->accept(kf, v))
        return;
    switch (key->kind) {
    case KEY_TEXT:
        re_keyfile_copy(kf, field(kf, key), v, kf->syntax->collapse_blanks);
        break;
    case KEY_INT:
    case KEY_LONG:
        if (!keyfile_whole(kf, v, key->min, key->max, &n))
            break;
        if (key->step > 1)
            n -= n % key->step;
        if (key->kind == KEY_INT)
            *(int *)field(kf, key) = (int)n;
        else
            *(long *)field(kf, key) = n;
        break;
    case KEY_WORD:
        while (key->words[count] && strcmp(key->words[count], v->text) != 0)
            count++;
        if (key->words[count]) {
            re_keyfile_copy(kf, field(kf, key), v, 0);
            break;
        }
        for (count = 0; key->words[count]; count++)
            ;
        re_parse_error(kf->err, v->line, v->col, "%s '%s' is not one of: %s", key->name,
                       re_quote(q, v->text, v->len),
                       joined(list, sizeof list, key->words, count, sizeof key->words[0]));
        break;
    case KEY_BOOL:
        if (strcmp(v->text, key->words[0]) == 0 || strcmp(v->text, key->words[1]) == 0)
            *(int *)field(kf, key) = strcmp(v->text, key->words[0]) == 0;
        else
            re_parse_error(kf->err, v->line, v->col, "%s must be %s or %s, not '%s'", key->name,
                           key->words[0], key->words[1], re_quote(q, v->text, v->len));
        break;
    case KEY_CALL:
        key->read(kf, v);
        break;
    }
}

/* The key's span in line[0..len) and where its value starts; 0 after reporting a line that
 * is not `key SEPARATOR value`. */
static int split_line(keyfile *kf, const char *line, size_t len, unsigned number, size_t start,
                      const char **key, size_t *key_len, const char **value, size_t *value_len)
{
    const keyfile_syntax *syntax = kf->syntax;
    char q[QUOTE_SIZE];

    if (syntax->keys_start_lines) {
        size_t end = 0;
        if (start > 0) {
            re_parse_error(kf->err, number, 1, "a line must start with its key (`key%c value`)",
                           syntax->separator);
            return 0;
        }
        while (end < len && (re_is_lower(line[end]) || line[end] == '_'))
            end++;
        if (end == 0 || end >= len || line[end] != syntax->separator) {
            re_parse_error(kf->err, number, (unsigned)end + 1, "expected %s", syntax->pair_hint);
            return 0;
        }
        *key = line;
        *key_len = end;
    } else {
        const char *sep = memchr(line + start, syntax->separator, len - start);
        if (!sep || sep == line + start) {
            const char *rest = line + start;
            size_t rest_len = len - start;
            re_trim(&rest, &rest_len);
            re_parse_error(kf->err, number, (unsigned)start + 1, "expected %s, got '%s'",
                           syntax->pair_hint, re_quote(q, rest, rest_len));
            return 0;
        }
        *key = line + start;
        *key_len = (size_t)(sep - *key);
        re_trim(key, key_len);
    }
    *value = *key + *key_len;
    while (**value != syntax->separator)   /* past the blanks a trimmed key left out */
        (*value)++;
    (*value)++;
    *value_len = (size_t)(line + len - *value);
    re_trim(value, value_len);
    return 1;
}

void re_keyfile_line(keyfile *kf, const char *line, size_t len, unsigned number)
{
    const keyfile_syntax *syntax = kf->syntax;
    size_t start = 0;
    const char *key, *value;
    size_t key_len, value_len;

    while (start < len && re_is_line_blank(line[start]))
        start++;
    if (start == len || line[start] == '#')
        return;
    if (!split_line(kf, line, len, number, start, &key, &key_len, &value, &value_len))
        return;
    unsigned col = (unsigned)(key - line) + 1;
    const keyfile_key *k = find_key(syntax, key, key_len);
    if (!k) {
        unknown_key(kf, key, key_len, number, col);
        return;
    }
    size_t i = (size_t)(k - syntax->keys);
    if (kf->line[i]) {
        re_parse_error(kf->err, number, col, "duplicate %s '%s' (first set on line %u)",
                       syntax->key_noun, k->name, kf->line[i]);
        return;
    }
    kf->line[i] = number;
    kf->col[i] = col;
    if (value_len == 0) {
        re_parse_error(kf->err, number, col, "%s '%s' has no value", syntax->key_noun, k->name);
        return;
    }
    kf->valued[i] = 1;
    char *text = malloc(value_len + 1);
    if (!text) {
        kf->err->nomem = 1;
        return;
    }
    memcpy(text, value, value_len);
    text[value_len] = '\0';
    keyfile_value v = { k, text, value_len, number, (unsigned)(value - line) + 1 };
    read_value(kf, &v);
    free(text);
}

static int has_control(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
            return 1;
    return 0;
}

void re_keyfile_lines(keyfile *kf, const char *buf, size_t len)
{
    unsigned number = 0;

    for (size_t pos = 0; pos < len && !kf->err->nomem;) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        size_t n = end - pos;
        if (n > 0 && buf[end - 1] == '\r')
            n--;
        number++;
        if (!kf->syntax->skip_control_lines || !has_control(buf + pos, n))
            re_keyfile_line(kf, buf + pos, n, number);
        pos = end + 1;
    }
}
