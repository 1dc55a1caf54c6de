/* SPDX-License-Identifier: GPL-3.0-or-later */
/* status.h - the one status type, its strerror, and positioned diagnostics for the whole library.
 *
 * Stages never print and never exit: they return an re_status and say what went wrong in an
 * re_diagnostics list, the one channel for messages, which the CLI prints as FILE:LINE:COL.
 * A stage that knows the file its work concerns (a script, an output path, an MP3, a cache
 * folder) names it in each message; one that does not (a spool, an engine job, an encoder)
 * adds its messages with no file, and the caller that knows the place gives it to them with
 * re_diag_place. A thread has a list of its own, moved into its caller's after the join
 * (re_diag_move): a list is not shared between threads. */
#ifndef RE_STATUS_H
#define RE_STATUS_H

#include <stdarg.h>
#include <stddef.h>

typedef enum re_status {
    RE_OK = 0,
    RE_ERR_NOMEM,       /* an allocation failed */
    RE_ERR_INVALID,     /* the caller broke a contract (bad argument, wrong call order) */
    RE_ERR_INPUT,       /* an input (script, voice profile, page, feed) is invalid: see diagnostics */
    RE_ERR_READ,        /* an input could not be read */
    RE_ERR_WRITE,       /* an output could not be written (disk full, permission, rename) */
    RE_ERR_ENGINE,      /* the speech engine failed, crashed or hung */
    RE_ERR_ENCODER,     /* the MP3 encoder failed or refused the settings */
    RE_ERR_FORMAT,      /* a file is not in the expected format (not an MP3, truncated) */
    RE_ERR_LIMIT,       /* a documented limit was exceeded */
    RE_ERR_INTERRUPTED  /* SIGINT or SIGTERM asked us to stop */
} re_status;

/* A static English description; never NULL, also for out-of-range values. */
const char *re_strerror(re_status status);

/* One message about a place in an input. line and col are 1-based; 0 means "not known"
 * (col counts bytes from the start of the line, after a leading byte-order mark). */
typedef struct re_diag {
    char *file;         /* NULL until placed: the stage that said it did not know the file */
    unsigned line;
    unsigned col;
    char *message;
} re_diag;

/* A bounded list of messages. Initialise with re_diagnostics_init (a zeroed list is an empty
 * one with the default limit), release with re_diagnostics_free; items are owned by the list. */
typedef struct re_diagnostics {
    re_diag *items;
    size_t count;
    size_t capacity;
    size_t limit;       /* at most this many are kept ... */
    int truncated;      /* ... and this is set when more were offered */
} re_diagnostics;

#define RE_DIAG_DEFAULT_LIMIT 50

void re_diagnostics_init(re_diagnostics *d, size_t limit);
void re_diagnostics_free(re_diagnostics *d);

/* Appends a printf-formatted message about `file` (NULL: not known here; see re_diag_place).
 * Returns RE_ERR_NOMEM if it could not be stored (the list stays valid); a message past the
 * limit is dropped and sets `truncated`. A NULL list takes nothing: for a caller that wants
 * no messages from a call. */
re_status re_diag_add(re_diagnostics *d, const char *file, unsigned line, unsigned col,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Adds a message (when d is not NULL) and returns `status`, or RE_ERR_NOMEM when the message
 * could not be kept: `return re_diag_fail(diag, RE_ERR_READ, path, 0, 0, "...")`. */
re_status re_diag_fail(re_diagnostics *d, re_status status, const char *file, unsigned line,
                       unsigned col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* The same with a va_list, for a parser's own error function. */
re_status re_diag_vadd(re_diagnostics *d, const char *file, unsigned line, unsigned col,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* Gives every message in [from, count) that has no file this place (file, line, col): how a
 * caller that knows where a stage's work was (the paragraph's SCRIPT:LINE:COL, the output
 * path) points the stage's messages at it. Messages that name a file keep theirs.
 * Placing and prefixing never lose a message: when memory runs out, the messages stay as the
 * stage said them (an unplaced one prints as "-"), so neither returns a status. Both take a
 * NULL list, as re_diag_add does. */
void re_diag_place(re_diagnostics *d, size_t from, const char *file, unsigned line,
                   unsigned col);

/* Puts a printf-formatted prefix before every message in [from, count), for a caller that
 * says what the stage's messages are about ("voice profile 'guest': ...", "warning: ..."). */
void re_diag_prefix(re_diagnostics *d, size_t from, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Moves every message of `from` (a thread's own list, after the join) to the end of `to`, in
 * order, as re_diag_add would add them (the limit and `truncated` included). `from` is left
 * empty and valid. RE_ERR_NOMEM if `to` cannot grow: the messages not moved are dropped, as
 * they all are into a NULL `to`. */
re_status re_diag_move(re_diagnostics *to, re_diagnostics *from);

/* Makes room for one more item in a growing array: when count == *capacity, *items is
 * reallocated to twice the capacity (8 at first) of item_size-byte items. RE_ERR_NOMEM leaves
 * *items and *capacity as they were. */
re_status re_array_grow(void *items, size_t *capacity, size_t count, size_t item_size);

/* Formats one message as "FILE:LINE:COL: message" ("FILE:LINE: ..." without a column,
 * "FILE: ..." without a line, "-" for a file that was never placed) into buf, truncating to
 * len; FILE and message as re_utf8_shown shows them (controls and bidi overrides escaped). */
void re_diag_format(const re_diag *d, char *buf, size_t len);

#endif
