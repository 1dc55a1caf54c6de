/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed_internal.h - what the feed's files share inside describe/ (not part of its contract). */
#ifndef RE_FEED_INTERNAL_H
#define RE_FEED_INTERNAL_H

#include "status.h"

/* Apple's limits on a description: at most RE_APPLE_DESCRIPTION_MAX bytes, no blank at
 * either end. A problem counts in *input_errors and goes to errors at `where`, naming `key`;
 * returns RE_ERR_NOMEM only when the message could not be stored. */
re_status re_feed_check_description(const char *where, const char *key, const char *text,
                                    int *input_errors, re_diagnostics *errors);

#endif
