/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show_pages.h - `feed` puts every episode page inside its show: each NAME.html its render
 * wrote (listed in NAME.json, unchanged) gets the links to the show's index and feed, the
 * previous, next and nearby episodes in the feed's order, and the canonical URL and share
 * tags under the base URL (describe's re_page_with_nav); its sidecar's "files" entry for the
 * page is rewritten to the new bytes, so that `check`, `feed` again and the up-to-date check
 * still trust it. docs/feed.md, "The page inside its show". */
#ifndef RE_SHOW_PAGES_H
#define RE_SHOW_PAGES_H

#include <signal.h>
#include <stddef.h>

#include "feed.h"
#include "status.h"

/* For every episode of feed (re_feed_scan'ed from dir, in the feed's order) whose page is
 * linked (RE_ASSET_PAGE): holding the running user's publishing lock of dir, the page and its
 * sidecar are read again through the folder's fd (never followed, never another user's, never
 * a file with another name too), and when the page is still the one its sidecar lists and its
 * navigation differs, each is replaced atomically (the page first), each only while it still
 * holds what was read. index_name and feed_name (may be NULL) are the show's index and feed in
 * dir. A page that cannot be updated is left as it was with its sidecar, with a warning naming
 * it and why; *updated counts the pages written. RE_ERR_INTERRUPTED when *stop (may be NULL)
 * is raised (between two pages), RE_ERR_NOMEM; otherwise RE_OK. */
re_status re_show_pages_publish(const re_feed *feed, const char *dir, const char *base_url,
                                const char *index_name, const char *feed_name,
                                volatile sig_atomic_t *stop, size_t *updated,
                                re_diagnostics *warnings);

#endif
