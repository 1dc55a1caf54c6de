/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_artwork.c - cover art (artwork.h): any bytes in, and the verdict is RE_OK with a MIME
 * type that matches the file's signature and no message, or one clean message; never a crash,
 * a leak, an exit() from libjpeg or a decode beyond the size rules. */
#include <string.h>

#include "artwork.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    const char *mime = NULL;
    re_status status = re_artwork_check_bytes(data, size, "fuzz.img", &mime, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(diag.count == 0 && mime);
        if (strcmp(mime, "image/png") == 0)
            FUZZ_ASSERT(size >= 8 && memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0);
        else
            FUZZ_ASSERT(strcmp(mime, "image/jpeg") == 0 && size >= 3
                        && memcmp(data, "\xff\xd8\xff", 3) == 0);
    } else if (status == RE_ERR_INPUT) {
        FUZZ_ASSERT(diag.count == 1);
        const char *m = diag.items[0].message;
        FUZZ_ASSERT(m && m[0] && strcmp(diag.items[0].file, "fuzz.img") == 0);
        for (const unsigned char *c = (const unsigned char *)m; *c; c++)
            FUZZ_ASSERT(*c >= 0x20 && *c < 0x7f);
    }
    re_diagnostics_free(&diag);
    return 0;
}
