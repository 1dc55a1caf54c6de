/* SPDX-License-Identifier: GPL-3.0-or-later */
/* check_internal.h - what the check stage's files share and nobody else sees: diagnostics,
 * the claim list's growth and value readers, and a whole run's state for run.c and fix.c. */
#ifndef RE_CHECK_INTERNAL_H
#define RE_CHECK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "check.h"
#include "sidecar.h"
#include "text.h"

#define US_PER_S 1000000ULL
#define CLAIM_TEXT_MAX 80            /* longer unreadable values are cut in reports */

/* check_fail: core's re_diag_fail (status.h). */
#define check_fail re_diag_fail

/* ---- claims.c: the list and reading values ------------------------------------------------ */

/* Appends a zeroed claim with its file, field and text (cut at CLAIM_TEXT_MAX) copied; *out
 * points at it until the list grows again. */
re_status re_claim_push(re_claim_list *list, const char *file, const char *field, size_t field_len,
                        const char *text, size_t text_len, re_claim **out);
/* Frees what a claim owns (not the claim). */
void re_claim_free(re_claim *c);
/* Reads s[0..n) as a duration (ISO 8601 when it starts with P, else a clock or seconds) into
 * c: kind, notation, readable, value and style. */
void re_claim_read_duration(re_claim *c, const char *s, size_t n);
/* Reads s[0..n) as a decimal count of `kind`; MS counts also become a 1 ms duration. */
void re_claim_read_count(re_claim *c, re_claim_kind kind, const char *s, size_t n);

/* ---- extract.c ------------------------------------------------------------------------------ */

/* re_claims_extract that also says, for a feed, how many items (RSS items, Atom entries) it
 * has and how many of them name the MP3 (0 and 0 for other formats). */
re_status re_claims_extract_items(const char *name, const char *buf, size_t len, re_file_kind kind,
                                  const char *mp3_name, re_claim_list *out, re_diagnostics *diag,
                                  re_diagnostics *notes, size_t *items, size_t *matched);

/* ---- measure.c ----------------------------------------------------------------------------- */

/* re_mp3_measure of an MP3 found in a folder (check DIR): opened only when it, and every
 * symlink on the way, is the running user's or root's; else RE_OK with *owner that user and
 * nothing read or measured (*out zeroed). The file measured is the one judged. */
re_status re_mp3_measure_trusted(const char *path, re_mp3_measurement *out, uid_t *owner,
                                 re_diagnostics *diag);

/* ---- run.c and fix.c: one whole run ------------------------------------------------------- */

typedef struct run_file {
    char *buf;               /* contents, kept for --fix */
    size_t len;
    size_t first_claim;      /* its claims are report->claims.items[first_claim..+claim_count) */
    dev_t dev;
    ino_t ino;
    int found;               /* site mode: found beside the MP3, read only when trusted */
    long shared;             /* its index among opt->shared_claims when its claims were
                              * extracted already (never read here), else -1 */
} run_file;

typedef struct run {
    const re_check_options *opt;
    re_check_report *rep;
    run_file *data;          /* parallel to rep->files */
    const char *mp3_name;
    re_sidecar *side;        /* the MP3's sidecar when it is the running user's or root's and
                              * reads, else NULL */
} run;

/* The first input failure: sofar, unless it is RE_OK. */
static inline re_status check_first_failure(re_status sofar, re_status now)
{
    return sofar != RE_OK ? sofar : now;
}

/* Rewrites the wrong claims of every named file that was read (fix.c); records the first
 * input failure in *input_status. RE_ERR_NOMEM stops at once. */
re_status re_fix_all(run *r, re_status *input_status);

#endif
