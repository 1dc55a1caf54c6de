/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extract_json.c - JSON and JSON-LD: every "duration" key at any depth; render-episode's
 * sidecar (describe's schema, sidecar.h) also gives duration_ms, samples, sample_rate and
 * bytes. jansson validates and decodes; a token scan finds the byte spans that --fix edits. */
#include "extract.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sidecar.h"

#define JSON_MAX_DEPTH 4096          /* jansson stops at 2048 before we get here */

typedef struct json_scan {
    extract_ctx *x;
    int sidecar;
    size_t key_off, key_len;   /* the last key read in the current object */
    int have_key;
} json_scan;

static int json_is_delim(char c)
{
    return c == ',' || c == ':' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n'
           || c == '\r' || c == '"' || c == '[' || c == '{';
}

static size_t json_string_end(const char *buf, size_t i, size_t end)
{
    for (i++; i < end; i++) {
        if (buf[i] == '\\')
            i++;
        else if (buf[i] == '"')
            return i + 1;
    }
    return end;
}

static int key_is(const json_scan *s, const char *name)
{
    size_t n = strlen(name);
    return s->key_len == n && memcmp(s->x->buf + s->key_off, name, n) == 0;
}

/* The claim kind a key names at this depth, or -1 when its value is not a claim: "duration"
 * anywhere; in a sidecar, also its other length keys (describe's schema) at the top level. */
static int json_claim_kind(const json_scan *s, size_t depth)
{
    static const re_claim_kind sidecar_kinds[RE_SIDECAR_LENGTH_KEYS] = {
        [RE_SIDECAR_DURATION] = RE_CLAIM_DURATION,
        [RE_SIDECAR_DURATION_MS] = RE_CLAIM_MS,
        [RE_SIDECAR_SAMPLES] = RE_CLAIM_SAMPLES,
        [RE_SIDECAR_SAMPLE_RATE] = RE_CLAIM_SAMPLE_RATE,
        [RE_SIDECAR_BYTES] = RE_CLAIM_BYTES,
    };
    if (key_is(s, re_sidecar_length_keys[RE_SIDECAR_DURATION]))
        return RE_CLAIM_DURATION;
    if (!s->sidecar || depth != 1)
        return -1;
    for (int k = 0; k < RE_SIDECAR_LENGTH_KEYS; k++)
        if (key_is(s, re_sidecar_length_keys[k]))
            return (int)sidecar_kinds[k];
    return -1;
}

/* A scalar value token buf[a..b) after a claim key. */
static re_status json_value(json_scan *s, int kind, size_t a, size_t b)
{
    extract_ctx *x = s->x;
    int is_string = x->buf[a] == '"';
    if (!is_string && !re_is_digit(x->buf[a]) && x->buf[a] != '-')
        return RE_OK;   /* true, false, null: no claim */
    const char *text = x->buf + a;
    size_t text_len = b - a, off = a, len = b - a;
    json_t *decoded = NULL;
    if (is_string) {
        json_error_t err;
        decoded = json_loadb(x->buf + a, b - a, JSON_DECODE_ANY, &err);
        if (!decoded || !json_is_string(decoded)) {
            json_decref(decoded);
            return check_fail(x->diag, RE_ERR_INPUT, x->name, 0, 0, "cannot decode a JSON string");
        }
        text = json_string_value(decoded);
        text_len = json_string_length(decoded);
        off = a + 1;
        len = b - a - 2;
    }
    re_claim *c = NULL;
    re_status st = re_extract_add_claim(x, x->buf + s->key_off, s->key_len, off, len, text,
                                        text_len, &c);
    if (st == RE_OK && kind == RE_CLAIM_DURATION)
        re_claim_read_duration(c, text, text_len);
    else if (st == RE_OK)
        re_claim_read_count(c, (re_claim_kind)kind, text, text_len);
    if (st == RE_OK && ((!c->readable && kind == RE_CLAIM_DURATION)
                        || (is_string && kind != RE_CLAIM_DURATION)))
        c->length = 0;   /* no notation to keep, or a count written as a string */
    if (st == RE_OK && c->readable && !is_string && kind == RE_CLAIM_DURATION)
        c->style.clock_fields = 1;
    json_decref(decoded);
    return st;
}

static re_status json_scan_tokens(json_scan *s, size_t pos, size_t end)
{
    const char *buf = s->x->buf;
    char stack[JSON_MAX_DEPTH];
    size_t depth = 0;
    int expect_key = 0;
    while (pos < end) {
        char ch = buf[pos];
        if (ch == '{' || ch == '[') {
            if (depth == JSON_MAX_DEPTH)
                return check_fail(s->x->diag, RE_ERR_INPUT, s->x->name, 0, 0,
                                  "JSON nested too deeply");
            stack[depth++] = ch;
            expect_key = ch == '{';
            s->have_key = 0;
            pos++;
        } else if (ch == '}' || ch == ']') {
            depth -= depth > 0;
            expect_key = 0;
            s->have_key = 0;
            pos++;
        } else if (ch == ',') {
            expect_key = depth > 0 && stack[depth - 1] == '{';
            s->have_key = 0;
            pos++;
        } else if (ch == ':' || ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
            pos++;
        } else {
            size_t e = ch == '"' ? json_string_end(buf, pos, end) : pos + 1;
            while (ch != '"' && e < end && !json_is_delim(buf[e]))
                e++;
            if (expect_key && ch == '"') {
                s->key_off = pos + 1;
                s->key_len = e - pos - 2;
                s->have_key = 1;
                expect_key = 0;
            } else if (s->have_key && depth > 0 && stack[depth - 1] == '{') {
                int kind = json_claim_kind(s, depth);
                s->have_key = 0;
                if (kind >= 0) {
                    re_status st = json_value(s, kind, pos, e);
                    if (st != RE_OK)
                        return st;
                }
            }
            pos = e;
        }
    }
    return RE_OK;
}

static int json_is_sidecar(const json_t *root)
{
    return json_is_object(root)
           && re_sidecar_generator_is_ours(json_string_value(json_object_get(root, "generator")));
}

/* Length of the JSON number at s[0..n) (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?),
 * or 0 when it is not one. */
static size_t json_number_length(const char *s, size_t n)
{
    size_t i = 0;
    if (i < n && s[i] == '-')
        i++;
    if (i < n && s[i] == '0') {
        i++;
    } else if (i < n && s[i] >= '1' && s[i] <= '9') {
        while (i < n && re_is_digit(s[i]))
            i++;
    } else {
        return 0;
    }
    if (i < n && s[i] == '.') {
        size_t digits = ++i;
        while (i < n && re_is_digit(s[i]))
            i++;
        if (i == digits)
            return 0;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        size_t digits = i;
        while (i < n && re_is_digit(s[i]))
            i++;
        if (i == digits)
            return 0;
    }
    return i;
}

/* A copy of buf[0..len) for jansson to judge the structure: a leading byte-order mark made
 * blanks, and every valid number made "0" and blanks. JSON puts no limit on a number's size
 * (RFC 8259), but jansson refuses an integer over 64 bits or 1E400; such a value stays a claim
 * of its own, read (or found unreadable) by the claim readers. Positions are unchanged. */
static char *json_for_jansson(const char *buf, size_t len)
{
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return NULL;
    memcpy(copy, buf, len);
    size_t i = 0;
    if (len >= 3 && memcmp(copy, "\xEF\xBB\xBF", 3) == 0) {
        memset(copy, ' ', 3);
        i = 3;
    }
    while (i < len) {
        if (copy[i] == '"') {
            i = json_string_end(copy, i, len);
        } else if (copy[i] == '-' || re_is_digit(copy[i])) {
            size_t n = json_number_length(copy + i, len - i);
            if (n == 0 || (i + n < len && !json_is_delim(copy[i + n]))) {
                i++;   /* not a number: jansson says where */
                continue;
            }
            copy[i] = '0';
            memset(copy + i + 1, ' ', n - 1);
            i += n;
        } else {
            i++;
        }
    }
    return copy;
}

/* Validates buf[start..end) as JSON and collects its claims. */
re_status re_extract_json_span(extract_ctx *x, size_t start, size_t end, int sidecar)
{
    json_error_t err;
    char *judged = json_for_jansson(x->buf + start, end - start);
    if (!judged)
        return RE_ERR_NOMEM;
    json_t *root = json_loadb(judged, end - start, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err);
    free(judged);
    if (!root) {
        size_t at = start + (err.position > 0 ? (size_t)err.position : 0);
        if (at > end)
            at = end;
        unsigned line, col;
        re_extract_position(x, at, &line, &col);
        return check_fail(x->diag, RE_ERR_INPUT, x->name, line, col, "malformed JSON: %s",
                          err.text);
    }
    json_scan s = { x, sidecar || json_is_sidecar(root), 0, 0, 0 };
    json_decref(root);
    return json_scan_tokens(&s, start, end);
}

static re_status extract_json_file(extract_ctx *x)
{
    return re_extract_json_span(x, 0, x->len, 0);
}

static re_status extract_sidecar_file(extract_ctx *x)
{
    return re_extract_json_span(x, 0, x->len, 1);
}

static int looks_like_json(const char *buf, size_t len)
{
    return len > 0 && (buf[0] == '{' || buf[0] == '[');
}

static const char *const json_suffixes[] = { ".json", ".jsonld", NULL };

const claim_format re_claim_format_json = {
    RE_FILE_JSON, "json", json_suffixes, looks_like_json, extract_json_file
};

/* Only ever asked for: the sidecar found beside the MP3. */
const claim_format re_claim_format_sidecar = {
    RE_FILE_SIDECAR, "sidecar", NULL, NULL, extract_sidecar_file
};
