/* SPDX-License-Identifier: GPL-3.0-or-later */
/* engine_abort.c - an LD_PRELOAD shim for tests/e2e/test_long_tokens.py: espeak_ng_Synthesize
 * aborts the process (SIGABRT, as espeak-ng 1.51's own buffer overflows do) when the text it
 * is given contains $RE_ABORT_MARKER. Since no known input crashes the engine after the
 * normalizer's cuts, this is how the crash net (a child per paragraph) is still tested.
 * Built by the test itself with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <espeak-ng/espeak_ng.h>
#include <stdlib.h>
#include <string.h>

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
    const char *marker = getenv("RE_ABORT_MARKER");
    if (marker && *marker && text && strstr((const char *)text, marker))
        abort();
    return real(text, size, position, position_type, end_position, flags, unique_identifier,
                user_data);
}
