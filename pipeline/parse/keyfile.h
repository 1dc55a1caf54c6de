/* SPDX-License-Identifier: GPL-3.0-or-later */
/* keyfile.h - the one reader of `key: value` files: a script's front matter, voice profiles
 * (`key = value`) and the show file, each described by a table of its keys (private to the
 * parse stage).
 *
 * What the reader does for every file alike: splits a line into key and value (both
 * trimmed), skips blank lines and `#` comments, finds the key in the table, refuses an
 * unknown key (with "did you mean" when a known key is at most 2 edits away, else the list
 * of known keys), a key given twice (naming the line of the first) and an empty value, and
 * hands the value to the key's kind. Every error is reported through parse_errors at
 * FILE:LINE:COL: a line's own errors at the column of its key, a value's at the column of
 * the value.
 *
 * Call order: re_keyfile_init, then re_keyfile_line for each line (or re_keyfile_lines for a whole
 * file), then re_keyfile_where to ask which keys were given. The reader allocates nothing of
 * its own; the values it stores (TEXT and WORD strings) are owned by the target, which must
 * free what a field held before (the reader frees a field's old string when it replaces it). */
#ifndef RE_KEYFILE_H
#define RE_KEYFILE_H

#include <stddef.h>

#include "parse_errors.h"

#define KEYFILE_MAX_KEYS 32

typedef struct keyfile keyfile;
typedef struct keyfile_key keyfile_key;

/* A key's value: text[0..len) is trimmed, not empty and NUL-terminated; it starts at
 * line:col of the file. Valid only during the call that receives it. */
typedef struct keyfile_value {
    const keyfile_key *key;
    const char *text;
    size_t len;
    unsigned line, col;
} keyfile_value;

typedef enum keyfile_kind {
    KEY_TEXT,   /* a string, into the char * at offset (blank runs one space if the syntax says) */
    KEY_INT,    /* a whole number min..max (optional '-'), into the int at offset, rounded down
                 * toward zero to a multiple of step when step > 1 */
    KEY_LONG,   /* the same, into the long at offset */
    KEY_WORD,   /* one of words (NULL-terminated), copied into the char * at offset */
    KEY_BOOL,   /* words[0] (1) or words[1] (0), into the int at offset */
    KEY_CALL,   /* the key's own reader, `read` */
} keyfile_kind;

struct keyfile_key {
    const char *name;
    keyfile_kind kind;
    size_t offset;               /* of the field in the target (not KEY_CALL) */
    long min, max, step;         /* KEY_INT, KEY_LONG */
    const char *const *words;    /* KEY_WORD, KEY_BOOL */
    void (*read)(keyfile *kf, const keyfile_value *value);   /* KEY_CALL */
};

typedef struct keyfile_syntax {
    const keyfile_key *keys;
    size_t key_count;             /* at most KEYFILE_MAX_KEYS */
    char separator;               /* ':' or '=' */
    const char *key_noun;         /* how messages name a key: "front-matter key", "key" */
    const char *pair_hint;        /* how a line looks, in messages: "'key = value'" */
    /* 1: a key is [a-z_]+ at the very start of its line, the separator right after it (an
     * indented line, or a key in another form, is an error); 0: blanks may surround a key. */
    int keys_start_lines;
    int collapse_blanks;          /* KEY_TEXT values: each run of blanks becomes one space */
    int skip_control_lines;       /* lines holding a control character are not read (the
                                   * caller's UTF-8 check reported them) */
    /* Called with every value before its kind reads it; returns 0 after reporting why the
     * value cannot be taken (NULL: every value is taken). */
    int (*accept)(keyfile *kf, const keyfile_value *value);
} keyfile_syntax;

/* The reader's state; members are the reader's own (use the functions). */
struct keyfile {
    const keyfile_syntax *syntax;
    parse_errors *err;
    void *target;                 /* where the keys' offsets point */
    void *context;                /* for KEY_CALL readers and `accept` */
    unsigned line[KEYFILE_MAX_KEYS];   /* where each key was given, 0 = not yet */
    unsigned col[KEYFILE_MAX_KEYS];    /* its key's column */
    unsigned char valued[KEYFILE_MAX_KEYS];   /* given with a value */
};

void re_keyfile_init(keyfile *kf, const keyfile_syntax *syntax, parse_errors *err, void *target,
                     void *context);

/* Reads one line (without its line end; a trailing CR is a blank) numbered `number`. */
void re_keyfile_line(keyfile *kf, const char *line, size_t len, unsigned number);

/* Reads buf[0..len) line by line (LF or CRLF), its first line numbered 1; stops when memory
 * runs out. */
void re_keyfile_lines(keyfile *kf, const char *buf, size_t len);

/* The line where key `name` was given (0 when it was not), its key's column in *col (may be
 * NULL); *valued (may be NULL) is 1 when it had a value. `name` must be in the table. */
unsigned re_keyfile_where(const keyfile *kf, const char *name, unsigned *col, int *valued);

/* What a KEY_CALL reader may use: the context given to re_keyfile_init, the error reporter, and
 * a whole number min..max read with the reader's own messages (1 with *out, 0 after an
 * error). */
void *re_keyfile_context(const keyfile *kf);
parse_errors *re_keyfile_errors(const keyfile *kf);
int keyfile_whole(keyfile *kf, const keyfile_value *value, long min, long max, long *out);

/* Replaces *field with a copy of the value (its blank runs one space if `collapse`); 0 and
 * nomem set when out of memory. */
int re_keyfile_copy(keyfile *kf, char **field, const keyfile_value *value, int collapse);

#endif
