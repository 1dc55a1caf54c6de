/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script_directives.c - the directives inside a script's paragraphs: [pause], [sound],
 * [voice], [lang] ... [/lang] (docs/script-format.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script_parser.h"
#include "text.h"

/* A pause's duration: s[0..len) is digits[.digits], unit_us the value of one unit. Returns
 * NULL with *us set, or the reason it is not exact to the microsecond. */
const char *re_pause_us(const char *s, size_t len, uint64_t unit_us, uint64_t *us)
{
    const uint64_t cap = 1000000000000ULL;   /* far past the limit, far from overflow */
    uint64_t whole = 0, fraction = 0, scale = unit_us;
    size_t i = 0;

    for (; i < len && s[i] != '.'; i++) {
        if (whole < cap)
            whole = whole * 10 + (uint64_t)(s[i] - '0');
    }
    size_t end = len;
    while (end > i + 1 && s[end - 1] == '0')   /* 1.500s is exactly 1.5s */
        end--;
    for (size_t j = i + 1; j < end; j++) {
        if (scale % 10 != 0)
            return "it is more precise than 1 microsecond";
        scale /= 10;
        fraction = fraction * 10 + (uint64_t)(s[j] - '0');
    }
    *us = (whole < cap ? whole : cap) * unit_us + fraction * scale;
    return NULL;
}

/* Reads a duration `N unit` at s[*at..len) (N at *at): NULL with the number's text in
 * [*num, *num + *num_len), *unit_us and *at past the unit, or why it is malformed. */
const char *re_duration_syntax(const char *s, size_t len, size_t *at, size_t *num,
                                   size_t *num_len, uint64_t *unit_us)
{
    size_t i = *at;

    *num = i;
    while (i < len && re_is_digit(s[i]))
        i++;
    if (i == *num)
        return "the duration must be a plain number like 800 or 1.5";
    if (i < len && s[i] == '.') {
        size_t frac = ++i;
        while (i < len && re_is_digit(s[i]))
            i++;
        if (i == frac)
            return "a decimal point must be followed by digits";
    }
    *num_len = i - *num;
    i = re_skip_blanks(s, len, i);
    if (i == len || s[i] == ']')
        return "no unit (ms or s)";
    if (len - i >= 2 && s[i] == 'm' && s[i + 1] == 's') {
        *unit_us = 1000;
        i += 2;
    } else {
        *unit_us = 1000000;
        i += s[i] == 's';
    }
    if (i < len && !re_is_line_blank(s[i]) && s[i] != ']')
        return "the unit must be ms or s";
    *at = i;
    return NULL;
}

/* The end of a directive whose last argument ends at s[i] (blanks after it skipped): NULL with
 * *used the bytes up to and with its ']', or why it does not end there. */
static const char *directive_close(const char *s, size_t len, size_t i, size_t *used)
{
    if (i == len || !memchr(s + i, ']', len - i))
        return "no closing ']'";
    if (s[i] != ']')
        return "unexpected text before ']'";
    *used = i + 1;
    return NULL;
}

/* Reads `[pause N unit]` at s[0..len) (s[0] is '['). Returns NULL with the duration text
 * in [*num, *num + *num_len) and *unit_us, or why it is malformed. */
static const char *pause_syntax(const char *s, size_t len, size_t *used, size_t *num,
                                size_t *num_len, uint64_t *unit_us)
{
    size_t i = 6;   /* past "[pause" */

    if (i < len && !re_is_line_blank(s[i]) && s[i] != ']')
        return "expected a space after 'pause'";
    i = re_skip_blanks(s, len, i);
    if (i == len || s[i] == ']')
        return "no duration";
    const char *why = re_duration_syntax(s, len, &i, num, num_len, unit_us);
    if (why)
        return why;
    return directive_close(s, len, re_skip_blanks(s, len, i), used);
}

/* Length of the directive text to quote and skip after an error: up to its ']' if any. */
static size_t directive_extent(const char *s, size_t len)
{
    const char *close = memchr(s, ']', len);

    return close ? (size_t)(close - s) + 1 : len;
}

/* The duration s[0..num_len) in units of unit_us, exact to the microsecond and within
 * min_us (1 ms or 0) .. 600 s: 1 with *us, or 0 after an error naming it `what` ("pause"). */
int re_checked_duration_from(parser *p, const char *what, uint64_t min_us, const char *s,
                                 size_t num_len, uint64_t unit_us, unsigned line, unsigned col,
                                 uint64_t *us)
{
    char q[QUOTE_SIZE], value[QUOTE_SIZE + 2];
    snprintf(value, sizeof value, "%s%s", re_quote(q, s, num_len), unit_us == 1000 ? "ms" : "s");
    const char *why = re_pause_us(s, num_len, unit_us, us);
    if (why)
        re_parse_error(&p->err, line, col, "%s %s is not exact: %s", what, value, why);
    else if (*us < min_us || *us > RE_PAUSE_MAX_US)
        re_parse_error(&p->err, line, col, "%s %s is out of range: %s to 600s (10 minutes)", what,
                       value, min_us ? "1ms" : "0s");
    return !why && *us >= min_us && *us <= RE_PAUSE_MAX_US;
}

static int checked_duration(parser *p, const char *what, const char *s, size_t num_len,
                            uint64_t unit_us, unsigned line, unsigned col, uint64_t *us)
{
    return re_checked_duration_from(p, what, RE_PAUSE_MIN_US, s, num_len, unit_us, line, col, us);
}

static size_t parse_pause(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t used = 0, num = 0, num_len = 0;
    uint64_t unit_us = 0, us = 0;
    const char *why = pause_syntax(s, len, &used, &num, &num_len, &unit_us);

    if (why) {
        used = directive_extent(s, len);
        re_parse_error(&p->err, line, col, "malformed pause '%s': %s; write e.g. [pause 800ms] or "
                 "[pause 1.5s]", re_quote(q, s, used), why);
        return used;
    }
    if (checked_duration(p, "pause", s + num, num_len, unit_us, line, col, &us))
        re_add_pause(p, us, line, col);
    return used;
}

/* A sound file played here (format 1.1): like a pause for the paragraph it is in. */
static void add_sound(parser *p, const char *file, size_t file_len, uint64_t cut_us,
                      unsigned line, unsigned col)
{
    char *copy = strndup(file, file_len);
    if (!copy) {
        p->err.nomem = 1;
        return;
    }
    re_finish_piece(p);
    p->para.has_pause = 1;
    re_add_piece(p, (re_item){ RE_ITEM_SOUND, line, col, copy, NULL, cut_us, NULL, NULL, 0 });
}

/* Reads `[sound FILE]` or `[sound FILE N unit]` at s[0..len) (s[0] is '['): NULL with the
 * file in [*file, *file + *file_len) and, with a cut, the duration's text and unit (*num_len
 * 0 without), or why it is malformed. */
static const char *sound_syntax(const char *s, size_t len, size_t *used, size_t *file,
                                size_t *file_len, size_t *num, size_t *num_len,
                                uint64_t *unit_us)
{
    size_t i = 6;   /* past "[sound" */

    if (i < len && !re_is_line_blank(s[i]) && s[i] != ']')
        return "expected a space after 'sound'";
    i = re_skip_blanks(s, len, i);
    if (i == len || s[i] == ']')
        return "no file";
    *file = i;
    while (i < len && !re_is_line_blank(s[i]) && s[i] != ']')
        i++;
    *file_len = i - *file;
    *num_len = 0;
    i = re_skip_blanks(s, len, i);
    if (i < len && s[i] != ']') {
        if (!re_is_digit(s[i]))
            return "unexpected text before ']' (a file name cannot hold blanks or ']')";
        const char *why = re_duration_syntax(s, len, &i, num, num_len, unit_us);
        if (why)
            return why;
        i = re_skip_blanks(s, len, i);
    }
    return directive_close(s, len, i, used);
}

static size_t parse_sound(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t used = 0, file = 0, file_len = 0, num = 0, num_len = 0;
    uint64_t unit_us = 0, cut_us = 0;
    const char *why = sound_syntax(s, len, &used, &file, &file_len, &num, &num_len, &unit_us);

    p->para.started = 1;
    if (why) {
        used = directive_extent(s, len);
        re_parse_error(&p->err, line, col, "malformed sound '%s': %s; write e.g. [sound chime.wav] "
                 "or [sound theme.ogg 2.5s]", re_quote(q, s, used), why);
        return used;
    }
    if (num_len == 0 || checked_duration(p, "sound cut", s + num, num_len, unit_us, line, col,
                                         &cut_us))
        add_sound(p, s + file, file_len, cut_us, line, col);
    return used;
}

static size_t parse_voice(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE], name[PROFILE_NAME_MAX + 1];
    paragraph *para = &p->para;
    size_t start = re_skip_blanks(s, len, 6), end = start;   /* 6: past "[voice" */

    while (end < len && !re_is_line_blank(s[end]) && s[end] != ']')
        end++;
    size_t close = re_skip_blanks(s, len, end);
    if (close == len || s[close] != ']' || end == start) {
        size_t used = directive_extent(s, len);
        re_parse_error(&p->err, line, col, "malformed voice directive '%s': write [voice NAME] at the "
                 "start of a paragraph", re_quote(q, s, used));
        return used;
    }
    if (!re_profile_name(s + start, end - start, name))
        re_profile_name_error(&p->err, line, col, s + start, end - start, "[voice ", "]");
    else if (para->started)
        re_parse_error(&p->err, line, col, "'%s' is not at the start of its paragraph: [voice NAME] must "
                 "start a paragraph", re_quote(q, s, close + 1));
    else {
        memcpy(para->voice, name, sizeof name);
        para->voice_line = line;
        para->voice_col = col;
        re_add_voice_ref(p, name, end - start, line, col);
    }
    para->started = 1;
    return close + 1;
}

/* 1 for a language tag as espeak-ng names its voices: a letter, then letters, digits and
 * '-' ("de", "pt-br", "cmn", "en-GB-scotland"), at most RE_SCRIPT_MAX_LANGUAGE. */
static int language_tag(const char *s, size_t len)
{
    if (len == 0 || len > RE_SCRIPT_MAX_LANGUAGE || !re_is_letter(s[0]))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!re_is_alnum(s[i]) && s[i] != '-')
            return 0;
    return 1;
}

/* After an error in a [lang ...] directive, a span all the same (when none is open), so that
 * its [/lang] is no second error. */
static void open_failed_span(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    paragraph *para = &p->para;

    if (para->lang[0] || !memchr(s, ']', len))
        return;
    re_finish_piece(p);
    strcpy(para->lang, "?");
    para->lang_line = line;
    para->lang_col = col;
    para->lang_has_text = 1;
}

/* [lang TAG]: the text up to [/lang] is spoken with espeak-ng's voice TAG (format 1.1). */
static size_t parse_lang(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE], q2[QUOTE_SIZE];
    paragraph *para = &p->para;
    size_t start = re_skip_blanks(s, len, 5), end = start;   /* 5: past "[lang" */

    while (end < len && !re_is_line_blank(s[end]) && s[end] != ']')
        end++;
    size_t close = re_skip_blanks(s, len, end);
    size_t used = close < len && s[close] == ']' ? close + 1 : directive_extent(s, len);
    int well_formed = close < len && s[close] == ']' && end > start;
    para->started = 1;
    if (!well_formed)
        re_parse_error(&p->err, line, col, "malformed language span '%s': write [lang TAG]...[/lang], "
                 "e.g. [lang de]Guten Tag[/lang]", re_quote(q, s, used));
    else if (!language_tag(s + start, end - start))
        re_parse_error(&p->err, line, col, "invalid language tag '%s' (an espeak-ng voice name: a "
                 "letter, then letters, digits and '-', at most %u)",
                 re_quote(q, s + start, end - start), RE_SCRIPT_MAX_LANGUAGE);
    if (!well_formed || !language_tag(s + start, end - start)) {
        open_failed_span(p, s, len, line, col);
        return used;
    }
    if (para->lang[0]) {
        re_parse_error(&p->err, line, col, "'%s' is inside the [lang %s] span opened at %u:%u: spans "
                 "do not nest; close it with [/lang] first", re_quote(q, s, close + 1),
                 re_quote(q2, para->lang, strlen(para->lang)), para->lang_line, para->lang_col);
        return close + 1;
    }
    re_finish_piece(p);
    memcpy(para->lang, s + start, end - start);
    para->lang[end - start] = '\0';
    para->lang_line = line;
    para->lang_col = col;
    para->lang_has_text = 0;
    return close + 1;
}

/* The length of the run of closing punctuation that s starts with: , . ; : ! ? ) " and the
 * typographic closers U+201D, U+00BB, U+2026 (not ' or U+2019: an apostrophe, as in 's). */
static size_t closing_punctuation(const char *s, size_t len)
{
    static const char *const closers[] = { "\xE2\x80\x9D", "\xC2\xBB", "\xE2\x80\xA6" };
    size_t i = 0;
    for (;;) {
        if (i < len && strchr(",.;:!?)\"", s[i]) && s[i] != '\0') {
            i++;
            continue;
        }
        size_t k = 0;
        for (; k < sizeof closers / sizeof *closers; k++) {
            size_t n = strlen(closers[k]);
            if (len - i >= n && memcmp(s + i, closers[k], n) == 0) {
                i += n;
                break;
            }
        }
        if (k == sizeof closers / sizeof *closers)
            return i;
    }
}

/* The end of a [lang] span's text: an error when it has none, which would say nothing. */
void re_close_lang(parser *p)
{
    char q[QUOTE_SIZE];
    paragraph *para = &p->para;

    re_finish_piece(p);
    if (!para->lang_has_text)
        re_parse_error(&p->err, para->lang_line, para->lang_col, "the [lang %s] span has no text",
                 re_quote(q, para->lang, strlen(para->lang)));
    para->lang[0] = '\0';
}

static size_t parse_lang_end(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t close = re_skip_blanks(s, len, 6);   /* 6: past "[/lang" */

    p->para.started = 1;
    if (close == len || s[close] != ']') {
        size_t used = directive_extent(s, len);
        re_parse_error(&p->err, line, col, "malformed '%s': write [/lang] to end a language span",
                 re_quote(q, s, used));
        return used;
    }
    if (!p->para.lang[0]) {
        re_parse_error(&p->err, line, col, "'[/lang]' closes no span: there is no [lang TAG] open "
                 "before it in this paragraph; write \\[ for a literal '['");
        return close + 1;
    }
    /* Punctuation right after the span ("[lang de]Guten Tag[/lang], everyone") is the span's
     * own: its voice says it (a comma, a stop: a pause), and no transcript cue starts with it. */
    size_t end = close + 1;
    if (p->para.text.len > 0)
        end += closing_punctuation(s + end, len - end);
    if (end > close + 1)
        re_add_text(p, s + close + 1, end - close - 1, line, col + (unsigned)close + 1);
    re_close_lang(p);
    return end;
}

/* 1 if s (starting with '[') names `word` (compared with `cmp`) followed by the end, a
 * blank or ']' - or, for pause, something a mistyped duration starts with. */
static int names_directive(const char *s, size_t len, const char *word,
                           int (*cmp)(const char *, const char *, size_t))
{
    size_t n = strlen(word);

    if (len < n + 1 || cmp(s + 1, word, n) != 0)
        return 0;
    if (len == n + 1 || re_is_line_blank(s[n + 1]) || s[n + 1] == ']')
        return 1;
    return strcmp(word, "pause") == 0
           && (re_is_digit(s[n + 1]) || s[n + 1] == '.' || s[n + 1] == '-' || s[n + 1] == '+');
}

/* Handles a directive at s (s[0] is '['); returns the bytes it used, 0 if it is text. */
size_t re_directive(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];

    if (names_directive(s, len, "pause", strncmp)) {
        p->para.started = 1;
        return parse_pause(p, s, len, line, col);
    }
    if (names_directive(s, len, "voice", strncmp))
        return parse_voice(p, s, len, line, col);
    if (names_directive(s, len, "lang", strncmp))
        return parse_lang(p, s, len, line, col);
    if (names_directive(s, len, "/lang", strncmp))
        return parse_lang_end(p, s, len, line, col);
    if (names_directive(s, len, "sound", strncmp))
        return parse_sound(p, s, len, line, col);
    if (names_directive(s, len, "pause", strncasecmp)
        || names_directive(s, len, "voice", strncasecmp)
        || names_directive(s, len, "sound", strncasecmp)
        || names_directive(s, len, "lang", strncasecmp)
        || names_directive(s, len, "/lang", strncasecmp)) {
        size_t used = directive_extent(s, len);
        re_parse_error(&p->err, line, col, "'%s': directive names are lowercase ([pause ...], "
                 "[voice ...], [lang ...], [/lang], [sound ...]); write \\[ for a literal '['", re_quote(q, s, used));
        if (names_directive(s, len, "lang", strncasecmp))
            open_failed_span(p, s, len, line, col);
        return used;
    }
    return 0;
}

