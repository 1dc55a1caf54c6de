/* SPDX-License-Identifier: GPL-3.0-or-later */
/* step_clock.c - the render's steps, named and timed for --timings (see render.h and
 * step_clock.h). */
#include "step_clock.h"

#include <sys/resource.h>
#include <time.h>

const char *re_render_step_name(re_render_step step)
{
    static const char *const names[RE_STEPS] = { "parse", "speak", "level", "encode", "measure",
                                                 "publish" };
    return step < RE_STEPS ? names[step] : NULL;
}

static double seconds_of(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

re_step_time re_step_clock(void)
{
    struct timespec ts;
    struct rusage self, children;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);   /* the speech processes, once reaped */
    return (re_step_time){ (double)ts.tv_sec + (double)ts.tv_nsec / 1e9,
                           seconds_of(self.ru_utime) + seconds_of(self.ru_stime)
                           + seconds_of(children.ru_utime) + seconds_of(children.ru_stime) };
}
