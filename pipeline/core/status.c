/* SPDX-License-Identifier: GPL-3.0-or-later */
/* status.c - strerror and the diagnostics list. */
#define _GNU_SOURCE
#include "status.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *re_strerror(re_status status)
{
    switch (status) {
    case RE_OK: return "success";
    case RE_ERR_NOMEM: return "out of memory";
    case RE_ERR_INVALID: return "invalid argument";
    case RE_ERR_INPUT: return "invalid input";
    case RE_ERR_READ: return "cannot read input";
    case RE_ERR_WRITE: return "cannot write output";
    case RE_ERR_ENGINE: return "speech engine failure";
    case RE_ERR_ENCODER: return "MP3 encoder failure";
    case RE_ERR_FORMAT: return "unrecognised file format";
    case RE_ERR_LIMIT: return "limit exceeded";
    case RE_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown status";
}

void re_diagnostics_init(re_diagnostics *d, size_t limit)
{
    memset(d, 0, sizeof *d);
    d->limit = limit ? limit : RE_DIAG_DEFAULT_LIMIT;
}

void re_diagnostics_free(re_diagnostics *d)
{
    for (size_t i = 0; i < d->count; i++) {
        free(d->items[i].file);
        free(d->items[i].message);
    }
    free(d->items);
    memset(d, 0, sizeof *d);
}

re_status re_array_grow(void *items, size_t *capacity, size_t count, size_t item_size)
{
    void **array = items;
    if (count < *capacity)
        return RE_OK;
    size_t cap = *capacity ? *capacity * 2 : 8;
    void *grown = realloc(*array, cap * item_size);
    if (!grown)
        return RE_ERR_NOMEM;
    *array = grown;
    *capacity = cap;
    return RE_OK;
}

/* Room for one more message: 0 when the list is full (marked truncated), -1 when memory ran out. */
static int make_room(re_diagnostics *d)
{
    if (d->count >= (d->limit ? d->limit : RE_DIAG_DEFAULT_LIMIT)) {
        d->truncated = 1;
        return 0;
    }
    return re_array_grow(&d->items, &d->capacity, d->count, sizeof *d->items) == RE_OK ? 1 : -1;
}

re_status re_diag_vadd(re_diagnostics *d, const char *file, unsigned line, unsigned col,
                       const char *fmt, va_list ap)
{
    if (!d)
        return RE_OK;
    int room = make_room(d);
    if (room <= 0)
        return room == 0 ? RE_OK : RE_ERR_NOMEM;
    char *message = NULL;
    int n = vasprintf(&message, fmt, ap);
    char *name = file ? strdup(file) : NULL;
    if (n < 0 || (file && !name)) {
        free(name);
        if (n >= 0)
            free(message);
        return RE_ERR_NOMEM;
    }
    d->items[d->count++] = (re_diag){ name, line, col, message };
    return RE_OK;
}

re_status re_diag_fail(re_diagnostics *d, re_status status, const char *file, unsigned line,
                       unsigned col, const char *fmt, ...)
{
    if (!d)
        return status;
    va_list ap;
    va_start(ap, fmt);
    re_status added = re_diag_vadd(d, file, line, col, fmt, ap);
    va_end(ap);
    return added == RE_OK ? status : added;
}

re_status re_diag_add(re_diagnostics *d, const char *file, unsigned line, unsigned col,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    re_status status = re_diag_vadd(d, file, line, col, fmt, ap);
    va_end(ap);
    return status;
}

void re_diag_place(re_diagnostics *d, size_t from, const char *file, unsigned line,
                   unsigned col)
{
    for (size_t i = from; d && file && i < d->count; i++) {
        re_diag *item = &d->items[i];
        if (item->file)
            continue;
        if (!(item->file = strdup(file)))
            return;   /* out of memory: this one and the rest stay unplaced */
        item->line = line;
        item->col = col;
    }
}

void re_diag_prefix(re_diagnostics *d, size_t from, const char *fmt, ...)
{
    if (!d || from >= d->count)
        return;
    char *prefix = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&prefix, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    for (size_t i = from; i < d->count; i++) {
        char *message = NULL;
        if (asprintf(&message, "%s%s", prefix, d->items[i].message) < 0)
            break;   /* out of memory: the rest keep the stage's words alone */
        free(d->items[i].message);
        d->items[i].message = message;
    }
    free(prefix);
}

re_status re_diag_move(re_diagnostics *to, re_diagnostics *from)
{
    re_status status = RE_OK;
    for (size_t i = 0; i < from->count; i++) {
        re_diag *item = &from->items[i];
        int room = status == RE_OK && to ? make_room(to) : 0;
        if (room < 0)
            status = RE_ERR_NOMEM;
        if (room > 0) {
            to->items[to->count++] = *item;
        } else {
            free(item->file);
            free(item->message);
        }
    }
    if (from->truncated && to)
        to->truncated = 1;
    from->count = 0;
    from->truncated = 0;
    return status;
}

/* A message's continuation lines (a newline and four spaces: the show file's missing keys, a
 * block to copy) stay lines; every other newline is shown escaped with the rest, so that no
 * line of what is shown starts at the margin but the message's first. */
#define CONTINUATION "\n    "

static char *shown_lines(const char *message)
{
    size_t cap = 1, n = 0;
    char *out = NULL;
    for (const char *at = message;;) {
        const char *end = strstr(at, CONTINUATION);
        size_t len = end ? (size_t)(end - at) : strlen(at);
        char *piece = strndup(at, len), *shown = piece ? re_utf8_shown(piece) : NULL;
        free(piece);
        size_t add = shown ? strlen(shown) + (end ? strlen(CONTINUATION) : 0) : 0;
        char *grown = shown ? realloc(out, cap + n + add) : NULL;
        if (!grown) {
            free(shown);
            free(out);
            return NULL;
        }
        out = grown;
        memcpy(out + n, shown, strlen(shown));
        n += strlen(shown);
        free(shown);
        if (!end)
            break;
        memcpy(out + n, CONTINUATION, strlen(CONTINUATION));
        n += strlen(CONTINUATION);
        at = end + strlen(CONTINUATION);
    }
    out[n] = '\0';
    return out;
}

void re_diag_format(const re_diag *d, char *buf, size_t len)
{
    /* names and quoted input come from outside: what could drive a terminal or reorder the
     * line (controls, bidi overrides, invalid UTF-8) is shown escaped (utf8.h) */
    char *file = re_utf8_shown(d->file ? d->file : "-");
    char *message = shown_lines(d->message);
    if (!file || !message) {
        snprintf(buf, len, "%s", "(a message that could not be shown: out of memory)");
    } else if (d->line && d->col) {
        snprintf(buf, len, "%s:%u:%u: %s", file, d->line, d->col, message);
    } else if (d->line) {
        snprintf(buf, len, "%s:%u: %s", file, d->line, message);
    } else {
        snprintf(buf, len, "%s: %s", file, message);
    }
    free(file);
    free(message);
}
