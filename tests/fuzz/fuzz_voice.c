/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_voice.c - the voice-profile parser: any bytes in; a profile that parses is complete
 * and every number is inside its documented range. */
#include <string.h>

#include "fuzz.h"
#include "voice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    re_diagnostics diag;
    re_diagnostics_init(&diag, RE_DIAG_DEFAULT_LIMIT);
    re_voice_profile profile;
    memset(&profile, 0xA5, sizeof profile);   /* the parser must set or clear every field */
    re_status status = re_voice_profile_parse("fuzz.voice", (const char *)data, size, "fuzz",
                                              &profile, &diag);
    FUZZ_ASSERT(status == RE_OK || status == RE_ERR_INPUT || status == RE_ERR_NOMEM);
    if (status == RE_OK) {
        FUZZ_ASSERT(diag.count == 0);
        FUZZ_ASSERT(profile.name && strcmp(profile.name, "fuzz") == 0);
        FUZZ_ASSERT(profile.engine_voice && profile.engine_voice[0] && profile.speaker);
        FUZZ_ASSERT(profile.rate >= 80 && profile.rate <= 450);
        FUZZ_ASSERT(profile.pitch >= 0 && profile.pitch <= 99);
        FUZZ_ASSERT(profile.range >= 0 && profile.range <= 99);
        FUZZ_ASSERT(profile.volume >= 0 && profile.volume <= 200);
        FUZZ_ASSERT(profile.word_gap_ms >= 0 && profile.word_gap_ms <= 1000);
        FUZZ_ASSERT(profile.sentence_pause_ms >= 0 && profile.sentence_pause_ms <= 10000);
        FUZZ_ASSERT(profile.paragraph_pause_ms >= 0 && profile.paragraph_pause_ms <= 60000);
        re_voice_profile_clear(&profile);
    } else {
        FUZZ_ASSERT(status == RE_ERR_NOMEM || diag.count > 0);
        re_voice_profile_clear(&profile);
    }
    re_diagnostics_free(&diag);
    return 0;
}
