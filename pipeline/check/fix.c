/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fix.c - --fix: wrong claims rewritten in their own notation, every other byte kept; the new
 * contents checked again and the file replaced atomically only if it did not change meanwhile. */
#include "check_internal.h"
#include "files.h"

#include <stdlib.h>
#include <string.h>

int re_claim_fixable(const re_claim *claim)
{
    return claim && claim->length > 0 && (claim->readable || claim->kind != RE_CLAIM_DURATION);
}

static int by_offset(const void *a, const void *b)
{
    const re_claim *x = *(const re_claim *const *)a, *y = *(const re_claim *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

re_status re_claims_fix(const char *buf, size_t len, const re_claim *claims, size_t n,
                        char **out, size_t *out_len, size_t *fixed)
{
    if ((!buf && len) || (!claims && n) || !out || !out_len || !fixed)
        return RE_ERR_INVALID;
    *out = NULL;
    *fixed = 0;
    const re_claim **todo = malloc((n ? n : 1) * sizeof *todo);
    if (!todo)
        return RE_ERR_NOMEM;
    size_t count = 0, size = len;
    for (size_t i = 0; i < n; i++) {
        const re_claim *c = &claims[i];
        if (c->ok || !re_claim_fixable(c) || c->offset + c->length > len)
            continue;
        todo[count++] = c;
        size += strlen(c->measured);
    }
    qsort(todo, count, sizeof *todo, by_offset);
    re_status st = RE_OK;
    for (size_t i = 1; i < count; i++)
        if (todo[i - 1]->offset + todo[i - 1]->length > todo[i]->offset)
            st = RE_ERR_INVALID;
    char *res = st == RE_OK ? malloc(size + 1) : NULL;
    if (st == RE_OK && !res)
        st = RE_ERR_NOMEM;
    if (st == RE_OK) {
        size_t from = 0, w = 0;
        for (size_t i = 0; i < count; i++) {
            memcpy(res + w, buf + from, todo[i]->offset - from);
            w += todo[i]->offset - from;
            size_t mlen = strlen(todo[i]->measured);
            memcpy(res + w, todo[i]->measured, mlen);
            w += mlen;
            from = todo[i]->offset + todo[i]->length;
        }
        memcpy(res + w, buf + from, len - from);
        w += len - from;
        res[w] = '\0';
        *out = res;
        *out_len = w;
        *fixed = count;
    }
    free(todo);
    return st;
}

/* After rewriting, the file must yield the same claims, each fixed one now holding; else the
 * rewrite is not written. */
static re_status verify_fix(run *r, size_t index, const char *buf, size_t len)
{
    const re_check_file *f = &r->rep->files[index];
    const re_claim *old = &r->rep->claims.items[r->data[index].first_claim];
    re_claim_list again;
    re_claim_list_init(&again);
    re_diagnostics scratch;
    re_diagnostics_init(&scratch, 1);
    re_status s = re_claims_extract(f->path, buf, len, f->kind, r->mp3_name, &again, &scratch,
                                    NULL);
    if (s == RE_OK && again.count != f->claim_count)
        s = RE_ERR_INVALID;
    for (size_t i = 0; s == RE_OK && i < again.count; i++) {
        re_claim_judge(&again.items[i], &r->rep->mp3, r->opt->tolerance_us);
        if (!old[i].ok && re_claim_fixable(&old[i]) && !again.items[i].ok)
            s = RE_ERR_INVALID;
    }
    re_claim_list_free(&again);
    re_diagnostics_free(&scratch);
    return s;
}

static re_status fix_file(run *r, size_t index)
{
    re_check_report *rep = r->rep;
    re_check_file *f = &rep->files[index];
    run_file *d = &r->data[index];
    re_claim *claims = &rep->claims.items[d->first_claim];
    char *out = NULL;
    size_t out_len = 0, fixed = 0, from = rep->errors.count;
    re_status s = re_claims_fix(d->buf, d->len, claims, f->claim_count, &out, &out_len, &fixed);
    if (s == RE_OK && fixed > 0 && verify_fix(r, index, out, out_len) != RE_OK)
        s = check_fail(&rep->errors, RE_ERR_WRITE, f->path, 0, 0,
                       "internal error: the rewritten file does not check; left unchanged");
    /* replaced only if it still holds what was read, whenever an edit is saved (files.h) */
    if (s == RE_OK && fixed > 0)
        s = re_file_replace(f->path, d->buf, d->len, out, out_len, &rep->errors);
    if (s != RE_OK && s != RE_ERR_NOMEM) {
        free(f->fix_error);   /* the claims' "not fixed" lines say this, not a guess */
        f->fix_error = strdup(rep->errors.count > from
                              ? rep->errors.items[rep->errors.count - 1].message
                              : "the file could not be replaced (see the errors)");
        if (!f->fix_error)
            s = RE_ERR_NOMEM;
    }
    if (s == RE_OK) {
        f->fixed_count = fixed;
        for (size_t i = 0; fixed > 0 && i < f->claim_count; i++)
            claims[i].fixed = !claims[i].ok && re_claim_fixable(&claims[i]);
    }
    free(out);
    return s;
}

re_status re_fix_all(run *r, re_status *input_status)
{
    for (size_t i = 0; i < r->rep->file_count; i++) {
        if (!r->rep->files[i].named || r->rep->files[i].status != RE_OK)
            continue;
        re_status s = fix_file(r, i);
        if (s == RE_ERR_NOMEM)
            return s;
        *input_status = check_first_failure(*input_status, s);
    }
    return RE_OK;
}
