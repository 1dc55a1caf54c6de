/* SPDX-License-Identifier: GPL-3.0-or-later */
/* up_to_date.h - whether an episode's outputs may be kept as they are (--skip-unchanged, a
 * batch's warm run): the set is complete, the running user's or root's, each file still the
 * bytes its render wrote, and the sidecar says it was made from these inputs. */
#ifndef RE_RUN_UP_TO_DATE_H
#define RE_RUN_UP_TO_DATE_H

#include "outputs.h"
#include "render.h"

/* 1 when the outputs at output_path (of `format`, "mp3" or "wav", the files `choice` names) were
 * made from the inputs whose digest is inputs_sha256 and are unchanged: then *result's samples,
 * sample rate, bytes and duration are the sidecar's and result->up_to_date is 1. 0 otherwise:
 * render again. A sidecar that cannot be read or is not valid says nothing; a file of another
 * user adds a warning to diag (the set is rendered again and published over theirs). */
int re_render_up_to_date(const char *output_path, const char *format, const char *inputs_sha256,
                         const output_choice *choice, re_render_result *result,
                         re_diagnostics *diag);

#endif
