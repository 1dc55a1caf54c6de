/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testkit.h - the tiny assertion kit of the unit tests: a failed CHECK prints where and why
 * and the test exits 1 at the end; main returns check_finish(). */
#ifndef RE_TESTKIT_H
#define RE_TESTKIT_H

#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond) do { check_count++; if (!(cond)) { check_failures++; \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); check_count++; \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) { check_failures++; \
    fprintf(stderr, "%s:%d: CHECK_STR failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
            a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } } while (0)
#define CHECK_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); check_count++; \
    if (a_ != b_) { check_failures++; \
    fprintf(stderr, "%s:%d: CHECK_INT failed: %s = %lld, expected %lld\n", __FILE__, __LINE__, \
            #a, a_, b_); } } while (0)

/* The latest message a stage added to d, or "" when it added none; and d emptied for the next
 * call. (status.h is the library's; every test links it.) */
#include "status.h"

static inline const char *diag_last(const re_diagnostics *d)
{
    return d->count ? d->items[d->count - 1].message : "";
}

static inline void diag_clear(re_diagnostics *d)
{
    re_diagnostics_free(d);
    re_diagnostics_init(d, 0);
}

static inline int check_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
