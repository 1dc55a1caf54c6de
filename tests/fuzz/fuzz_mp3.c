/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_mp3.c - what `check` reads from an MP3: frames (through libmpg123), the Xing/LAME tag
 * and the ID3v2 tag's TLEN frames. The input is the file, given as /proc/self/fd/N of a
 * memory file. Truncated and damaged files are measured, never a crash. */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-mp3", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0) {
            close(fd);
            return 0;
        }
        done += (size_t)n;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_mp3_measurement m;
    re_status status = re_mp3_measure(path, &m, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_FORMAT || status == RE_ERR_READ
                || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(m.bytes == size);
        FUZZ_ASSERT(m.sample_rate > 0 && (m.channels == 1 || m.channels == 2));
        FUZZ_ASSERT(m.stopped_at <= size);
        re_claim_list claims;
        re_claim_list_init(&claims);
        FUZZ_ASSERT(re_claims_from_tlen(path, &m, &claims) != RE_ERR_INVALID);
        for (size_t i = 0; i < claims.count; i++)
            re_claim_judge(&claims.items[i], &m, 0);
        re_claim_list_free(&claims);
    } else {
        FUZZ_ASSERT(diag.count > 0 || status == RE_ERR_NOMEM);
    }
    re_mp3_measurement_free(&m);
    re_diagnostics_free(&diag);
    close(fd);
    return 0;
}
