/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_publish.c - what `feed` reads: the show file and sidecars. The first byte chooses the
 * parser (even: show file, odd: sidecar), the rest is the file. A show that parses holds only
 * valid values; a sidecar that reads holds a title and only plain file names with SHA-256s. */
#include <string.h>

#include "feed.h"
#include "fuzz.h"
#include "sidecar.h"

static void show_file(const char *text, size_t len)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_show show;
    re_show_init(&show);
    re_status status = re_show_parse("fuzz.txt", text, len, &show, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(diag.count == 0);
        FUZZ_ASSERT(!show.guid || re_uuid_valid(show.guid));
        FUZZ_ASSERT(show.explicit_content >= -1 && show.explicit_content <= 1);
        FUZZ_ASSERT(show.locked >= -1 && show.locked <= 1);
        FUZZ_ASSERT(show.disclosure == 0 || show.disclosure == 1);
        FUZZ_ASSERT(!show.subcategory || show.category);
        FUZZ_ASSERT(!show.image || (show.image[0] && show.image[0] != '.'));
    } else {
        FUZZ_ASSERT(status == RE_ERR_NOMEM || diag.count > 0);
    }
    re_show_free(&show);
    re_diagnostics_free(&diag);
}

static void sidecar_file(const char *text, size_t len)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_sidecar side;
    re_sidecar_found found;
    re_status status = re_sidecar_read("fuzz.json", text, len, "mp3", &side, &found, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_FORMAT
                || status == RE_ERR_NOMEM);
    if (status == RE_OK && found == RE_SIDECAR_FOUND) {
        FUZZ_ASSERT(side.title && side.title[0] && side.format && side.sample_rate >= 1);
        FUZZ_ASSERT(side.season == -1 || (side.season >= 1 && side.season <= 999999));
        for (size_t i = 0; i < side.file_count; i++) {
            FUZZ_ASSERT(side.files[i].name[0] && !strchr(side.files[i].name, '/'));
            FUZZ_ASSERT(strlen(side.files[i].sha256) == RE_SHA256_HEX_SIZE - 1);
            FUZZ_ASSERT(re_sidecar_file_find(&side, side.files[i].name) != NULL);
        }
        for (size_t i = 0; i < side.person_count; i++)
            FUZZ_ASSERT(side.persons[i].speaker[0] && side.persons[i].role[0]);
        re_sidecar_free(&side);
    } else {
        FUZZ_ASSERT(side.title == NULL && side.files == NULL);
    }
    re_diagnostics_free(&diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        show_file((const char *)data + 1, size - 1);
    else
        sidecar_file((const char *)data + 1, size - 1);
    return 0;
}
