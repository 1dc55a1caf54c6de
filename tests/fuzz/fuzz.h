/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz.h - what every harness shares: the libFuzzer entry point and an invariant check that
 * aborts (so libFuzzer, or the replay driver under ASan, reports the input). */
#ifndef RE_FUZZ_H
#define RE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); abort(); } } while (0)

#endif
