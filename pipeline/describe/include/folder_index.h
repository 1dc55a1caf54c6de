/* SPDX-License-Identifier: GPL-3.0-or-later */
/* folder_index.h - index.html for a folder of published episodes (written by `feed` beside
 * the feed): the show's title and description, a link to the feed, and every episode newest
 * first (the feed's order) with its date, number, length, summary, its own cover
 * (STEM.cover.jpg or .png, RE_ASSET_COVER_*) when it has one, and a link to its page
 * (STEM.html) when it has one, else to its audio. Built like the episode page (a libxml2
 * tree, libxml2's serializer). It states no `Duration:` line: `check MP3 index.html` would
 * judge every episode's against one MP3; lengths are <time datetime="PT…"> elements. */
#ifndef RE_FOLDER_INDEX_H
#define RE_FOLDER_INDEX_H

#include <stdio.h>

#include "feed.h"
#include "status.h"

#define RE_FOLDER_INDEX_NAME "index.html"

/* Writes DIR/index.html atomically (core/output.h), linking the page
 * of each episode whose STEM.html re_feed_scan found listed in its sidecar and unchanged
 * (RE_ASSET_PAGE; a page an earlier render left is not linked, as in the feed). Errors are reported to diag naming the
 * file. */
re_status re_folder_index_publish(const re_feed *feed, const char *dir, const char *feed_name,
                                  re_diagnostics *diag);

#endif
