/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sample_rate.c - the set of output rates (see sample_rate.h). */
#include "sample_rate.h"

static const unsigned rates[] = { 22050, 44100, 48000 };

int re_rate_supported(unsigned rate)
{
    for (unsigned i = 0; i < sizeof rates / sizeof rates[0]; i++)
        if (rates[i] == rate)
            return 1;
    return 0;
}
