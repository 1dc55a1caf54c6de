/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_abort.c - an LD_PRELOAD shim for tests/e2e/test_long_tokens.py and
 * tests/e2e/test_flite.py: espeak_ng_Synthesize, and flite's flite_synth_text, abort the
 * process (SIGABRT, as espeak-ng 1.51's own buffer overflows do) when the text they are given
 * contains $RE_ABORT_MARKER. Since no known input crashes either engine after the
 * normalizer's cuts, this is how the crash net (a child per paragraph) is still tested, for
 * each engine. Built by the tests themselves with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <espeak-ng/espeak_ng.h>
#include <flite/flite.h>
#include <stdlib.h>
#include <string.h>

static int marked(const char *text)
{
    const char *marker = getenv("RE_ABORT_MARKER");
    return marker && *marker && text && strstr(text, marker);
}

espeak_ng_STATUS espeak_ng_Synthesize(const void *text, size_t size, unsigned int position,
                                      espeak_POSITION_TYPE position_type, unsigned int end_position,
                                      unsigned int flags, unsigned int *unique_identifier,
                                      void *user_data)
{
    typedef espeak_ng_STATUS (*synthesize_fn)(const void *, size_t, unsigned int,
                                              espeak_POSITION_TYPE, unsigned int, unsigned int,
                                              unsigned int *, void *);
    static synthesize_fn real;
    if (!real)
        real = (synthesize_fn)dlsym(RTLD_NEXT, "espeak_ng_Synthesize");
    if (marked((const char *)text))
        abort();
    return real(text, size, position, position_type, end_position, flags, unique_identifier,
                user_data);
}

cst_utterance *flite_synth_text(const char *text, cst_voice *voice)
{
    typedef cst_utterance *(*synth_text_fn)(const char *, cst_voice *);
    static synth_text_fn real;
    if (!real)
        real = (synth_text_fn)dlsym(RTLD_NEXT, "flite_synth_text");
    if (marked(text))
        abort();
    return real(text, voice);
}
