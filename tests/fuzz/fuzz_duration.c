/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_duration.c - the duration readers (ISO 8601 and clock forms, as pages and feeds write
 * them) and the duration rule: no crash, no overflow (UBSan), and what is formatted reads back. */
#include <string.h>

#include "duration.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    re_duration d;
    if (re_duration_parse_iso(s, size, &d) == RE_OK)
        FUZZ_ASSERT(d.unit_us > 0);
    if (re_duration_parse_clock(s, size, &d) == RE_OK)
        FUZZ_ASSERT(d.unit_us > 0);

    /* The first bytes as a sample count and a rate: formatting is total, and reads back. */
    uint64_t samples = 0;
    uint32_t rate = 0;
    memcpy(&samples, data, size < 8 ? size : 8);
    if (size > 8)
        memcpy(&rate, data + 8, size - 8 < 4 ? size - 8 : 4);
    rate = rate % 384000 + 1;
    samples %= (uint64_t)1 << 44;   /* any count whose seconds fit in microseconds */
    uint64_t ms = re_samples_to_ms(samples, rate);
    uint64_t seconds = re_samples_to_seconds(samples, rate);
    FUZZ_ASSERT(ms / 1000 <= seconds && seconds <= ms / 1000 + 1);   /* floor <= nearest */
    char iso[RE_DURATION_ISO_MAX];
    re_duration_format_iso(seconds, iso);
    FUZZ_ASSERT(strlen(iso) < RE_DURATION_ISO_MAX);
    FUZZ_ASSERT(re_duration_parse_iso(iso, strlen(iso), &d) == RE_OK);
    FUZZ_ASSERT(d.us == seconds * 1000000 && d.unit_us == 1000000);
    return 0;
}
