/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.h - what a batch tells CI: a JSON report and a JUnit XML file (one test case per
 * episode, so CI test views list episodes and show why one failed). */
#ifndef RE_REPORT_H
#define RE_REPORT_H

#include <stdio.h>

#include "batch.h"
#include "status.h"

/* {"episodes": [{script, output, status ("rendered" | "up-to-date" | "failed" | "not-run"), error,
 *  duration, duration_ms, bytes, seconds, segments_synthesized, segments_cached,
 *  segments_remote}],
 *  "rendered": n, "up_to_date": n, "failed": n, "not_run": n}
 * With batch->timed (--timings) each episode also has "timings": {"parse": {"wall_s": s,
 * "cpu_s": s}, "speak", "level", "encode", "measure", "publish"} (null unless it rendered or was
 * up to date), and the root "timings": {"wall_s", "cpu_s" (the batch's, workers included),
 * "steps": re_report_step_sums}. */
re_status re_report_write_json(FILE *out, const re_batch *batch);

/* Each step's times summed over the episodes that rendered or were up to date. */
void re_report_step_sums(const re_batch *batch, re_step_time sum[RE_STEPS]);

/* <testsuites><testsuite name="render-episode batch" tests= failures= time=><testcase
 * classname="render-episode" name=SCRIPT time=>[<failure message=...>errors</failure>]
 * </testcase>...</testsuite></testsuites>, written with libxml2's xmlTextWriter. */
re_status re_report_write_junit(FILE *out, const re_batch *batch);

/* "rendered", "up-to-date", "failed" or "not-run". */
const char *re_episode_state_name(re_episode_state state);

#endif
