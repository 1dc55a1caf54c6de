/* SPDX-License-Identifier: GPL-3.0-or-later */
/* plan.c - the loudness plan: pass 1's measurement turned into the leveler's settings, then
 * corrected from measurements of what came out (see loudness.h; docs/loudness.md). */
#include "loudness.h"

#include <math.h>

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

re_status re_loudness_plan_make(const re_loudness *pass1, double target_lufs,
                                double ceiling_dbtp, re_loudness_output output,
                                re_loudness_plan *out)
{
    if (!pass1 || !out || !isfinite(target_lufs) || !isfinite(ceiling_dbtp)
        || target_lufs < RE_LOUDNESS_TARGET_MIN || target_lufs > RE_LOUDNESS_TARGET_MAX
        || ceiling_dbtp < RE_LOUDNESS_CEILING_MIN || ceiling_dbtp > RE_LOUDNESS_CEILING_MAX
        || (output != RE_LOUDNESS_PCM && output != RE_LOUDNESS_MP3))
        return RE_ERR_INVALID;
    int mp3 = output == RE_LOUDNESS_MP3;
    double aim = target_lufs - (mp3 ? RE_LOUDNESS_MP3_LEVEL_DB : 0.0);
    double gain = isfinite(pass1->integrated_lufs) ? aim - pass1->integrated_lufs : 0.0;
    gain = clamp(gain, -RE_LOUDNESS_MAX_GAIN_DB, RE_LOUDNESS_MAX_GAIN_DB);
    double limiter_ceiling = fmax(ceiling_dbtp - (mp3 ? RE_LOUDNESS_MP3_MARGIN_DB
                                                      : RE_LOUDNESS_PCM_MARGIN_DB),
                                  RE_LOUDNESS_CEILING_MIN);
    *out = (re_loudness_plan){
        .target_lufs = target_lufs,
        .ceiling_dbtp = ceiling_dbtp,
        .gain_db = gain,
        .limiter_ceiling_dbtp = limiter_ceiling,
        .leveled_aim_lufs = aim,
        .pass1_true_peak_dbtp = pass1->true_peak_dbtp,
        .first_gain_db = gain,
    };
    /* The limiter takes more loudness the further peaks go over its ceiling. The first dry
     * run starts with a share of what it is expected to take, so that it lands within
     * tolerance more often (each dry run is a pass over the whole episode). */
    double over = pass1->true_peak_dbtp + gain - limiter_ceiling;
    if (isfinite(pass1->integrated_lufs) && over > 0)
        out->gain_db = clamp(gain + fmin(RE_LOUDNESS_LIMITER_LOSS_PER_DB2 * over * over,
                                         RE_LOUDNESS_MAX_EXTRA_GAIN_DB / 2),
                             -RE_LOUDNESS_MAX_GAIN_DB, RE_LOUDNESS_MAX_GAIN_DB);
    return RE_OK;
}

int re_loudness_plan_limits(const re_loudness_plan *plan)
{
    return plan && plan->pass1_true_peak_dbtp + plan->gain_db > plan->limiter_ceiling_dbtp - 0.3;
}

/* Moves the gain so the residual (measured - aimed) goes to 0: a secant step through the last
 * measurement when there is one at a different gain, else a step of slope 1. The limiter makes
 * loudness grow more slowly than gain, so the slope is kept within 0.2 .. 1, and the gain at
 * most RE_LOUDNESS_MAX_EXTRA_GAIN_DB over the first, plus what the encoder was found to drop. */
static void step_gain(re_loudness_plan *plan, double residual)
{
    double slope = 1.0;
    if (plan->have_last && fabs(plan->gain_db - plan->last_gain_db) > 0.01)
        slope = clamp((residual - plan->last_residual_lu) / (plan->gain_db - plan->last_gain_db),
                      0.2, 1.0);
    plan->have_last = 1;
    plan->last_gain_db = plan->gain_db;
    plan->last_residual_lu = residual;
    double gain = plan->gain_db - residual / slope;
    gain = fmin(gain, plan->first_gain_db + RE_LOUDNESS_MAX_EXTRA_GAIN_DB
                      + plan->delivered_shortfall_lu);
    plan->gain_db = clamp(gain, -RE_LOUDNESS_MAX_GAIN_DB, RE_LOUDNESS_MAX_GAIN_DB);
}

int re_loudness_plan_update(re_loudness_plan *plan, const re_loudness *measured,
                            re_loudness_stage stage)
{
    if (!plan || !measured)
        return 0;
    int silent = !isfinite(measured->integrated_lufs);
    if (stage == RE_LOUDNESS_LEVELED) {
        plan->dry_runs++;
        double residual = silent ? 0.0 : measured->integrated_lufs - plan->leveled_aim_lufs;
        if (fabs(residual) <= RE_LOUDNESS_LEVELED_TOLERANCE_LU
            || plan->dry_runs >= RE_LOUDNESS_MAX_DRY_RUNS)
            return 0;
        double before = plan->gain_db;
        step_gain(plan, residual);
        return plan->gain_db != before;
    }
    plan->encodes++;
    double residual = silent ? 0.0 : measured->integrated_lufs - plan->target_lufs;
    double over = measured->true_peak_dbtp - plan->ceiling_dbtp;   /* -inf for silence */
    int loudness_off = fabs(residual) > RE_LOUDNESS_TOLERANCE_LU;
    plan->met = !loudness_off && !(over > 0);
    if (plan->met || plan->encodes >= RE_LOUDNESS_MAX_ENCODES)
        return 0;
    if (plan->encodes == 1) {
        /* The dry runs' measurements were of the leveled PCM: a file that decodes far under
         * them lost what the encoder does not keep (loud audio above its band), which the
         * limiter's cap on extra gain is not about. */
        plan->have_last = 0;
        plan->delivered_shortfall_lu = loudness_off && residual < 0 ? -residual : 0.0;
    }
    if (loudness_off)
        step_gain(plan, residual);
    if (over > 0)
        plan->limiter_ceiling_dbtp = fmax(plan->limiter_ceiling_dbtp - over - 0.3,
                                          RE_LOUDNESS_CEILING_MIN);
    return 1;
}