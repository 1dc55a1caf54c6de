/* SPDX-License-Identifier: GPL-3.0-or-later */
/* speech.c - a segment's spoken audio released (see speech.h). */
#include "speech.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void re_speech_free(re_speech *speech)
{
    if (speech->mapped)
        munmap(speech->pcm, speech->mapped);
    else
        free(speech->pcm);
    free(speech->events);
    memset(speech, 0, sizeof *speech);
}
