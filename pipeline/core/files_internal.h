/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files_internal.h - what files.c and beneath.c share, and no other file uses. */
#ifndef RE_CORE_FILES_INTERNAL_H
#define RE_CORE_FILES_INTERNAL_H

#include <limits.h>

/* The first name of path p (which does not start with '/') into name; the rest of the path
 * after it and its slashes, or NULL when the name is longer than NAME_MAX. */
const char *re_path_next_name(const char *p, char name[NAME_MAX + 1]);

#endif
