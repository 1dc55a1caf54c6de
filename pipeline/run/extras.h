/* SPDX-License-Identifier: GPL-3.0-or-later */
/* extras.h - the files published beside an episode's audio but the sidecar, written from what
 * the render knows once the audio is made: transcripts (VTT, SRT, JSON), chapters, the HTML and
 * Markdown pages, and the copy of the script's own cover art. */
#ifndef RE_RUN_EXTRAS_H
#define RE_RUN_EXTRAS_H

#include "cover.h"
#include "outputs.h"
#include "render.h"
#include "transcript.h"

/* Writes each file of `outputs` but the audio and the sidecar (those the set does not hold are
 * skipped) from facts, the transcript and the cover; the pages name the audio and the VTT
 * transcript beside output_path by file name. A failure is an error at the file's target
 * ("cannot write", "out of memory") and its status; the set is then to be discarded. */
re_status re_render_write_extras(output_set *outputs, const char *output_path,
                                 const re_render_facts *facts, const re_transcript *transcript,
                                 const episode_cover *cover, re_diagnostics *diag);

#endif
