/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script_parser.h - the state of one script parse, shared by the files that read its parts:
 * script.c (lines, storage, paragraphs, the body, the public calls), script_front.c (the
 * front matter) and script_directives.c ([pause], [sound], [voice], [lang]) (private to the
 * parse stage). */
#ifndef RE_SCRIPT_PARSER_H
#define RE_SCRIPT_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "markdown.h"
#include "parse_errors.h"
#include "script.h"

#define PROFILE_NAME_MAX 64

typedef struct text_buf {
    char *data;
    size_t len, cap;
} text_buf;

/* The paragraph being read: its pieces are emitted as items when it ends. */
typedef struct paragraph {
    int open;
    unsigned line, col;          /* where it starts */
    int started;                 /* text or a directive seen: [voice] no longer allowed */
    char voice[PROFILE_NAME_MAX + 1];  /* "" = the front-matter default */
    unsigned voice_line, voice_col;
    text_buf text;               /* the speech piece being collected */
    unsigned piece_line, piece_col;
    int pending_space;
    size_t speech_bytes;
    int has_speech, has_pause;
    char lang[RE_SCRIPT_MAX_LANGUAGE + 1];  /* the open [lang TAG] span's TAG, "" = none */
    unsigned lang_line, lang_col;
    int lang_has_text;           /* the open span has text so far */
    re_item *pieces;
    size_t piece_count, piece_cap;
} paragraph;

typedef struct parser {
    parse_errors err;
    re_episode *ep;
    size_t item_cap, voice_cap, ref_cap;
    paragraph para;
    const char *last_voice;      /* profile of the last paragraph with speech, NULL before */
    unsigned last_end_line;      /* the blank line or heading that ended it */
    int pause_since_speech;      /* a pause-only paragraph stands after it */
    char *chapter;               /* a heading waiting for its first audio */
    unsigned chapter_line, chapter_col;
    int default_ref_added;
    size_t segments;             /* SPEECH and PAUSE items so far */
    unsigned chapters;           /* headings so far */
    uint64_t pause_total_us;     /* the script's own pauses so far */
    int too_many_voices;         /* reported once */
    int halted;                  /* a limit ended the body early: the rest is not read */
    int markdown;                /* a Markdown document (markdown.c reads its body) */
    re_md_outline *outline;      /* where markdown.c accounts for each block, or NULL */
    re_item_unit *units;         /* Markdown: the blocks of the speech piece being collected */
    size_t unit_count, unit_cap, section_cap;
    re_item_unit unit_now;       /* the block being read (a piece after a [pause] goes on */
    int unit_open;               /* with it) */
} parser;

typedef struct line_reader {
    const char *buf;
    size_t len, pos;
    unsigned number;
} line_reader;

/* ---- lines (script.c) --------------------------------------------------------------------- */

/* The first index at or after i in s[0..len) that is not a line blank. */
size_t re_skip_blanks(const char *s, size_t len, size_t i);

/* A new string of s[0..len) with each run of blanks made one space (s is trimmed). */
char *collapse_blanks(const char *s, size_t len);

/* Next line without its LF and without the CR of a CRLF; 0 at the end of the text. */
int re_next_line(line_reader *r, const char **line, size_t *len);

/* A line over the limit is an error at the first byte past it, and is not read further. */
int re_line_too_long(parser *p, size_t len, unsigned number);

/* A `---` line. */
int re_is_delimiter_line(const char *line, size_t len);

/* ---- storage and paragraphs (script.c) ---------------------------------------------------- */

/* Records a profile name as named at line:col (for the voice check). */
void re_add_voice_ref(parser *p, const char *name, size_t len, unsigned line, unsigned col);

/* Adds an item to the open paragraph (counted against the segment limit). */
void re_add_piece(parser *p, re_item item);

/* Ends the speech piece being collected, if it has any text. */
void re_finish_piece(parser *p);

/* Appends text to the piece being collected, which starts at line:col if it is new. */
void re_add_text(parser *p, const char *s, size_t n, unsigned line, unsigned col);

/* A pause of us microseconds at line:col. */
void re_add_pause(parser *p, uint64_t us, unsigned line, unsigned col);

/* ---- the front matter (script_front.c) ---------------------------------------------------- */

/* Reads the front matter; returns 1 when the body can be parsed (r then stands after the
 * closing line, *closing_line is its number). */
int re_parse_front_matter(parser *p, line_reader *r, unsigned *closing_line);

/* A profile name in s[0..len) copied to out (PROFILE_NAME_MAX + 1 bytes) if it is valid. */
int re_profile_name(const char *s, size_t len, char *out);

/* The error for the invalid profile name s[0..len), which says how a profile is defined, and
 * when the name in lowercase is a valid one, suggests it written as prefix NAME suffix
 * ("[voice ", "]"). */
void re_profile_name_error(parse_errors *e, unsigned line, unsigned col, const char *s, size_t len,
                           const char *prefix, const char *suffix);

/* ---- directives (script_directives.c) ----------------------------------------------------- */

/* A pause's duration: s[0..len) is digits[.digits], unit_us the value of one unit. Returns
 * NULL with *us set, or the reason it is not exact to the microsecond. */
const char *re_pause_us(const char *s, size_t len, uint64_t unit_us, uint64_t *us);

/* Reads a duration `N unit` at s[*at..len) (N at *at): NULL with the number's text in
 * [*num, *num + *num_len), *unit_us and *at past the unit, or why it is malformed. */
const char *re_duration_syntax(const char *s, size_t len, size_t *at, size_t *num,
                               size_t *num_len, uint64_t *unit_us);

/* The duration s[0..num_len) in units of unit_us, exact to the microsecond and within
 * min_us (1 ms or 0) .. 600 s: 1 with *us, or 0 after an error naming it `what` ("pause"). */
int re_checked_duration_from(parser *p, const char *what, uint64_t min_us, const char *s,
                             size_t num_len, uint64_t unit_us, unsigned line, unsigned col,
                             uint64_t *us);

/* The end of a [lang] span's text: an error when it has none, which would say nothing. */
void re_close_lang(parser *p);

/* Handles a directive at s (s[0] is '['); returns the bytes it used, 0 if it is text. */
size_t re_directive(parser *p, const char *s, size_t len, unsigned line, unsigned col);

#endif
