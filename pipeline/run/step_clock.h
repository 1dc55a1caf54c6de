/* SPDX-License-Identifier: GPL-3.0-or-later */
/* step_clock.h - the render's clock for --timings (render.h, re_step_clock): the wall and CPU
 * time since the last charge goes to the step named, so that the steps add up to the whole. */
#ifndef RE_RUN_STEP_CLOCK_H
#define RE_RUN_STEP_CLOCK_H

#include "render.h"

typedef struct step_clock {
    re_step_time *steps;      /* RE_STEPS entries, the render result's */
    re_step_time since;       /* when the current step began */
} step_clock;

static inline void step_clock_charge(step_clock *clock, re_render_step step)
{
    re_step_time now = re_step_clock();
    clock->steps[step].wall_s += now.wall_s - clock->since.wall_s;
    clock->steps[step].cpu_s += now.cpu_s - clock->since.cpu_s;
    clock->since = now;
}

#endif
