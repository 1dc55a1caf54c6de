/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show.h - the show file: the channel's metadata as `key: value` lines (show.txt beside the
 * episodes; format in docs/feed.md), read into a re_show that the feed writer takes.
 *
 * Life cycle: re_show_init -> re_show_load or re_show_parse (any number; each file replaces
 * what it gives) -> re_show_free. re_show_parse works on memory; re_show_load reads the file.
 * Nothing here prints or exits. */
#ifndef RE_SHOW_H
#define RE_SHOW_H

#include <stddef.h>

#include "status.h"

#define RE_SHOW_FILE_NAME "show.txt"          /* looked for in the episodes' folder */
#define RE_SHOW_MAX_SIZE (1u << 20)           /* bytes */

/* The channel's metadata. Every string is owned (free with re_show_free) and NULL when not
 * given. After re_feed_complete_channel, title, description, link and language are set. */
typedef struct re_show {
    char *title;
    char *description;
    char *author;
    char *language;        /* BCP 47, like the script's `language` */
    char *link;            /* http(s) URL of the show's web site */
    char *image;           /* http(s) URL of the cover art, or a file name in the folder */
    char *category;        /* itunes:category text, from Apple's list ... */
    char *subcategory;     /* ... and its one nested category (from "Leisure > Hobbies") */
    char *owner_name;
    char *owner_email;
    char *guid;            /* podcast:guid, a UUID, pinned once */
    char *medium;          /* podcast:medium; NULL is podcast */
    int explicit_content;  /* -1 not given, 0 false, 1 true */
    int locked;            /* podcast:locked: -1 not given, 0 no, 1 yes */
    int disclosure;        /* podcast:txt saying the voices are synthetic: 1 (default) or 0 */
    char *copyright;       /* the channel's copyright, as written */
    int serial;            /* itunes:type: 1 serial, 0 episodic (the default) */
} re_show;

void re_show_init(re_show *show);
void re_show_free(re_show *show);

/* Parses a show file held in memory: UTF-8 `key: value` lines (keys: title, description,
 * author, language, link, image, category, explicit, owner_name, owner_email, guid, locked,
 * medium, disclosure, type (episodic or serial), copyright), blank lines
 * and `#` comment lines. `file` names it in diagnostics. An unknown or duplicate key, a line
 * that is not `key: value`, an empty or invalid value, invalid UTF-8 or a control character
 * is an error at FILE:LINE:COL; all of them are reported (up to the diagnostics limit) and
 * RE_ERR_INPUT returned, with *show unchanged. On RE_OK the values are stored into *show
 * (which must be initialised; values it already holds are replaced). */
re_status re_show_parse(const char *file, const char *buf, size_t len, re_show *show,
                        re_diagnostics *diag);

/* Reads (at most RE_SHOW_MAX_SIZE bytes) and parses the show file at `path`. RE_ERR_READ or
 * RE_ERR_LIMIT with a diagnostic naming the path when it cannot be read. */
re_status re_show_load(const char *path, re_show *show, re_diagnostics *diag);

#endif
