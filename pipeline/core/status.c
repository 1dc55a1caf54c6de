/* status.c - strerror and the diagnostics list. */
#define _GNU_SOURCE
#include "status.h"

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

re_status re_diag_vadd(re_diagnostics *d, const char *file, unsigned line, unsigned col,
                       const char *fmt, va_list ap)
{
    if (d->count >= d->limit) {
        d->truncated = 1;
        return RE_OK;
    }
    if (re_array_grow(&d->items, &d->capacity, d->count, sizeof *d->items) != RE_OK)
        return RE_ERR_NOMEM;
    char *message = NULL;
    int n = vasprintf(&message, fmt, ap);
    char *name = strdup(file ? file : "-");
    if (n < 0 || !name) {
        free(name);
        if (n >= 0)
            free(message);
        return RE_ERR_NOMEM;
    }
    d->items[d->count++] = (re_diag){ name, line, col, message };
    return RE_OK;
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

void re_diag_format(const re_diag *d, char *buf, size_t len)
{
    if (d->line && d->col)
        snprintf(buf, len, "%s:%u:%u: %s", d->file, d->line, d->col, d->message);
    else if (d->line)
        snprintf(buf, len, "%s:%u: %s", d->file, d->line, d->message);
    else
        snprintf(buf, len, "%s: %s", d->file, d->message);
}
