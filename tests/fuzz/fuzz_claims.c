/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_claims.c - what `check` reads from pages, feeds and JSON files: sniffing, claim
 * extraction (text, HTML, JSON, sidecar, RSS/Atom XML), judging and the --fix rewrite.
 * The first byte picks the kind; the rest is the file. Claims must point inside the file,
 * and a rewrite must keep every byte outside the claims' spans. */
#include <string.h>

#include "check.h"
#include "fuzz.h"

static const char *const names[] = { "page.md", "page.html", "feed.xml", "ep.json", "ep.json",
                                     "notes.txt", "feed.rss", "unknown.bin" };
static const re_file_kind kinds[] = { RE_FILE_TEXT, RE_FILE_HTML, RE_FILE_XML, RE_FILE_JSON,
                                      RE_FILE_SIDECAR, RE_FILE_AUTO, RE_FILE_AUTO, RE_FILE_AUTO };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned pick = data[0] % 8;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    re_file_kind sniffed = re_file_sniff(names[pick], buf, len);
    FUZZ_ASSERT(sniffed != RE_FILE_AUTO && re_file_kind_name(sniffed));

    re_claim_list claims;
    re_claim_list_init(&claims);
    re_diagnostics diag, notes;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_diagnostics_init(&notes, RE_DIAG_DEFAULT_LIMIT);
    re_status status = re_claims_extract(names[pick], buf, len, kinds[pick], "ep.mp3", &claims,
                                         &diag, &notes);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    FUZZ_ASSERT(status != RE_ERR_INPUT || diag.count > 0);

    /* A measurement made up from the input, so judging sees many values. */
    re_mp3_measurement m;
    memset(&m, 0, sizeof m);
    m.samples = (uint64_t)len * 1237u;
    m.sample_rate = 22050;
    m.channels = 1;
    m.bytes = (uint64_t)len * 31u;
    m.tag_frames = -1;
    for (size_t i = 0; i < claims.count; i++) {
        re_claim *c = &claims.items[i];
        FUZZ_ASSERT(c->text && c->field && c->file);
        FUZZ_ASSERT(c->offset <= len && c->length <= len - c->offset);
        re_claim_judge(c, &m, (uint64_t)(data[0] >> 3) * 100000u);
        FUZZ_ASSERT(memchr(c->measured, '\0', sizeof c->measured));
        (void)re_claim_fixable(c);
    }
    char *fixed = NULL;
    size_t fixed_len = 0, fixed_count = 0;
    status = re_claims_fix(buf, len, claims.items, claims.count, &fixed, &fixed_len, &fixed_count);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INVALID || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(fixed && fixed_count <= claims.count);
        if (fixed_count == 0)
            FUZZ_ASSERT(fixed_len == len && memcmp(fixed, buf, len) == 0);
    }
    free(fixed);
    re_claim_list_free(&claims);
    re_diagnostics_free(&diag);
    re_diagnostics_free(&notes);
    return 0;
}
