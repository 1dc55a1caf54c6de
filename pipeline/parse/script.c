/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script.c - the episode script parser: front matter, then paragraphs, headings and
 * directives turned into a flat list of items (format: docs/script-format.md). */
#include "script.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datetime.h"
#include "files.h"
#include "markdown.h"
#include "parse_errors.h"
#include "sample_rate.h"
#include "script_body.h"
#include "text.h"
#include "utf8.h"

#define PROFILE_NAME_MAX 64
#define EPISODE_MAX 999999L

static const char *const front_matter_keys[] = {
    "title", "show", "published", "summary", "author", "language", "voice", "episode", "lexicon",
    "season", "guid", "sample_rate", "intro", "outro", "intro_overlap", "music", "music_level",
    "duck", "fade", "sound_gap",
};
enum { KEY_MUSIC = 15, KEY_MUSIC_LEVEL, KEY_DUCK, KEY_FADE, KEY_SOUND_GAP };
#define FRONT_MATTER_KEY_COUNT (sizeof front_matter_keys / sizeof front_matter_keys[0])

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
    unsigned key_line[FRONT_MATTER_KEY_COUNT];   /* where each key was set, 0 = not yet */
    unsigned key_col[FRONT_MATTER_KEY_COUNT];
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
} parser;

typedef struct line_reader {
    const char *buf;
    size_t len, pos;
    unsigned number;
} line_reader;

static size_t skip_blanks(const char *s, size_t len, size_t i)
{
    while (i < len && re_is_line_blank(s[i]))
        i++;
    return i;
}

/* A new string of s[0..len) with each run of blanks made one space (s is trimmed). */
static char *collapse_blanks(const char *s, size_t len)
{
    char *out = malloc(len + 1);
    size_t n = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (!re_is_line_blank(s[i]))
            out[n++] = s[i];
        else if (n > 0 && out[n - 1] != ' ')
            out[n++] = ' ';
    }
    out[n] = '\0';
    return out;
}

/* Next line without its LF and without the CR of a CRLF; 0 at the end of the text. */
static int next_line(line_reader *r, const char **line, size_t *len)
{
    if (r->pos >= r->len)
        return 0;
    const char *start = r->buf + r->pos;
    const char *nl = memchr(start, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;

    r->pos += n + 1;
    r->number++;
    if (n > 0 && start[n - 1] == '\r')
        n--;
    *line = start;
    *len = n;
    return 1;
}

/* A line over the limit is an error at the first byte past it, and is not read further. */
static int line_too_long(parser *p, size_t len, unsigned number)
{
    if (len <= RE_SCRIPT_MAX_LINE)
        return 0;
    parse_error(&p->err, number, RE_SCRIPT_MAX_LINE + 1, "line is %zu bytes; the limit is %u (is a line "
             "break missing?)", len, RE_SCRIPT_MAX_LINE);
    return 1;
}

static int is_delimiter_line(const char *line, size_t len)
{
    return len >= 3 && memcmp(line, "---", 3) == 0 && skip_blanks(line, len, 3) == len;
}

/* ---- storage ---------------------------------------------------------------------------- */

static int grow(void **array, size_t *cap, size_t count, size_t size)
{
    if (count < *cap)
        return 1;
    size_t new_cap = *cap ? *cap * 2 : 16;
    void *bigger = realloc(*array, new_cap * size);
    if (!bigger)
        return 0;
    *array = bigger;
    *cap = new_cap;
    return 1;
}

static int text_append(text_buf *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *bigger = realloc(t->data, cap);
        if (!bigger)
            return 0;
        t->data = bigger;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    return 1;
}

static void push_item(parser *p, re_item item)
{
    re_episode *ep = p->ep;

    if (!grow((void **)&ep->items, &p->item_cap, ep->item_count, sizeof *ep->items)) {
        free(item.text);
        free(item.language);
        p->err.nomem = 1;
        return;
    }
    ep->items[ep->item_count++] = item;
}

static void add_voice_ref(parser *p, const char *name, size_t len, unsigned line, unsigned col)
{
    re_episode *ep = p->ep;
    char *copy = strndup(name, len);

    if (!copy || !grow((void **)&ep->voice_refs, &p->ref_cap, ep->voice_ref_count,
                       sizeof *ep->voice_refs)) {
        free(copy);
        p->err.nomem = 1;
        return;
    }
    ep->voice_refs[ep->voice_ref_count++] = (re_voice_ref){ copy, line, col };
}

/* The episode's copy of a profile name used by speech, added to `voices` on first use;
 * NULL after an error (too many profiles, reported at line:col) or when out of memory. */
static const char *intern_voice(parser *p, const char *name, unsigned line, unsigned col)
{
    re_episode *ep = p->ep;

    for (size_t i = 0; i < ep->voice_count; i++) {
        if (strcmp(ep->voices[i], name) == 0)
            return ep->voices[i];
    }
    if (ep->voice_count >= RE_SCRIPT_MAX_VOICES) {
        if (!p->too_many_voices)
            parse_error(&p->err, line, col, "more than %u voice profiles speak in this script; the "
                     "limit is %u", RE_SCRIPT_MAX_VOICES, RE_SCRIPT_MAX_VOICES);
        p->too_many_voices = 1;
        return NULL;
    }
    char *copy = strdup(name);
    if (!copy || !grow((void **)&ep->voices, &p->voice_cap, ep->voice_count,
                       sizeof *ep->voices)) {
        free(copy);
        p->err.nomem = 1;
        return NULL;
    }
    ep->voices[ep->voice_count++] = copy;
    return copy;
}

/* ---- front matter ----------------------------------------------------------------------- */

static const char *duration_syntax(const char *s, size_t len, size_t *at, size_t *num,
                                   size_t *num_len, uint64_t *unit_us);
static int checked_duration(parser *p, const char *what, const char *s, size_t num_len,
                            uint64_t unit_us, unsigned line, unsigned col, uint64_t *us);
static int checked_duration_from(parser *p, const char *what, uint64_t min_us, const char *s,
                                 size_t num_len, uint64_t unit_us, unsigned line, unsigned col,
                                 uint64_t *us);

/* The known key nearest to an unknown one (case ignored), if at most 2 edits away. */
static const char *suggest_key(const char *key, size_t len)
{
    const char *best = NULL;
    size_t best_distance = 3;

    for (size_t i = 0; i < FRONT_MATTER_KEY_COUNT; i++) {
        size_t d = re_edit_distance(key, len, front_matter_keys[i]);
        if (d < best_distance) {
            best = front_matter_keys[i];
            best_distance = d;
        }
    }
    return best;
}

static int find_key(const char *key, size_t len)
{
    for (size_t i = 0; i < FRONT_MATTER_KEY_COUNT; i++) {
        if (strlen(front_matter_keys[i]) == len && memcmp(front_matter_keys[i], key, len) == 0)
            return (int)i;
    }
    return -1;
}

/* A profile name in s[0..len) copied to out (PROFILE_NAME_MAX + 1 bytes) if it is valid. */
static int profile_name(const char *s, size_t len, char *out)
{
    if (len > PROFILE_NAME_MAX)
        return 0;
    memcpy(out, s, len);
    out[len] = '\0';
    return re_voice_name_valid(out);
}

static void set_text_field(parser *p, char **field, const char *value, size_t len)
{
    free(*field);
    *field = collapse_blanks(value, len);
    if (!*field)
        p->err.nomem = 1;
}

static void set_published(parser *p, const char *value, size_t len, unsigned line,
                          unsigned col)
{
    char q[QUOTE_SIZE], reason[96];
    const char *why = re_datetime_parse(value, len, 0, NULL, reason, sizeof reason);

    if (why)
        parse_error(&p->err, line, col, "invalid published date '%s': %s", quote(q, value, len), why);
    else
        set_text_field(p, &p->ep->published, value, len);
}

/* A whole number key (episode, season) within lowest..EPISODE_MAX, or an error naming it. */
static void set_whole_number(parser *p, const char *key, long lowest, long *field, const char *value,
                             size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    long number = 0;
    size_t i = 0;

    for (; i < len && re_is_digit(value[i]); i++) {
        if (number <= EPISODE_MAX)
            number = number * 10 + (value[i] - '0');
    }
    if (i < len || number < lowest || number > EPISODE_MAX)
        parse_error(&p->err, line, col, "%s must be a whole number %ld..%ld, got '%s'", key, lowest,
                 (long)EPISODE_MAX, quote(q, value, len));
    else
        *field = number;
}

/* An item guid is copied into the feed as it is: printable ASCII, no blanks, at most 200. */
static void set_guid(parser *p, const char *value, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t i = 0;

    while (i < len && value[i] > ' ' && value[i] < 0x7f)
        i++;
    if (i < len || len > 200)
        parse_error(&p->err, line, col, "guid '%s' must be printable ASCII without blanks, at "
                 "most 200 characters", quote(q, value, len));
    else
        set_text_field(p, &p->ep->guid, value, len);
}

/* The episode's output rate, one of the rates the program renders at. */
static void set_sample_rate(parser *p, const char *value, size_t len, unsigned line,
                            unsigned col)
{
    char q[QUOTE_SIZE];
    unsigned long rate = 0;
    size_t i = 0;

    for (; i < len && re_is_digit(value[i]) && rate < 1000000; i++)
        rate = rate * 10 + (unsigned long)(value[i] - '0');
    if (i < len || !re_rate_supported((unsigned)rate))
        parse_error(&p->err, line, col, "sample_rate must be " RE_RATES_TEXT ", got '%s'",
                 quote(q, value, len));
    else
        p->ep->sample_rate = (unsigned)rate;
}

/* `intro:`, `outro:` (format 1.1): a sound file, relative to the script's folder, found and
 * read when rendering starts. */
static void set_sound_file(parser *p, char **field, unsigned *field_line, unsigned *field_col,
                           const char *value, size_t len, unsigned line, unsigned col)
{
    free(*field);
    *field = strndup(value, len);
    if (!*field)
        p->err.nomem = 1;
    *field_line = line;
    *field_col = col;
}

/* A front-matter duration as a pause writes it (`1.5s`, `800ms`), min_us to 600 s: 1 with
 * *us, or 0 after an error naming the key `what`; `example` is the message's "write e.g.". */
static int front_matter_duration(parser *p, const char *what, uint64_t min_us,
                                 const char *example, const char *value, size_t len,
                                 unsigned line, unsigned col, uint64_t *us)
{
    char q[QUOTE_SIZE];
    size_t at = 0, num = 0, num_len = 0;
    uint64_t unit_us = 0;
    const char *why = duration_syntax(value, len, &at, &num, &num_len, &unit_us);

    if (!why && skip_blanks(value, len, at) != len)
        why = "unexpected text after the unit";
    if (why) {
        parse_error(&p->err, line, col, "%s '%s' is not a duration: %s; write e.g. %s", what,
                    quote(q, value, len), why, example);
        return 0;
    }
    return checked_duration_from(p, what, min_us, value + num, num_len, unit_us, line, col, us);
}

/* `intro_overlap:` (format 1.1): a duration as a pause writes it, 1 ms to 600 s. */
static void set_intro_overlap(parser *p, const char *value, size_t len, unsigned line,
                              unsigned col)
{
    uint64_t us = 0;
    if (front_matter_duration(p, "intro_overlap", RE_PAUSE_MIN_US, "1.5s or 800ms", value, len,
                              line, col, &us)) {
        p->ep->intro_overlap_us = us;
        p->ep->intro_overlap_line = line;
        p->ep->intro_overlap_col = col;
    }
}

/* `sound_gap:` (format 1.1): the silence between speech and a sound file, 0 s (none) to
 * 600 s; the script's own `[pause]` next to a sound replaces it there (render.c). */
static void set_sound_gap(parser *p, const char *value, size_t len, unsigned line, unsigned col)
{
    uint64_t us = 0;
    if (front_matter_duration(p, "sound_gap", 0, "0.5s, 250ms or 0s", value, len, line, col,
                              &us)) {
        p->ep->sound_gap_us = us;
        p->ep->sound_gap_line = line;
        p->ep->sound_gap_col = col;
    }
}

/* A plain decimal number with an optional sign, then optionally blanks and `unit` (case
 * ignored): "-24 LUFS", "-24", "12 dB". 1 with *number set, 0 when it is not one. */
static int number_with_unit(const char *value, size_t len, const char *unit, double *number)
{
    char digits[32];
    size_t i = value[0] == '-' || value[0] == '+';
    size_t start = i;
    while (i < len && re_is_digit(value[i]))
        i++;
    if (i == start)
        return 0;
    if (i < len && value[i] == '.') {
        size_t frac = ++i;
        while (i < len && re_is_digit(value[i]))
            i++;
        if (i == frac)
            return 0;
    }
    if (i >= sizeof digits)
        return 0;
    memcpy(digits, value, i);
    digits[i] = '\0';
    size_t u = skip_blanks(value, len, i);
    if (u < len && !(len - u == strlen(unit) && strncasecmp(value + u, unit, len - u) == 0))
        return 0;
    *number = strtod(digits, NULL);
    return 1;
}

static void set_music_level(parser *p, const char *value, size_t len, unsigned line,
                            unsigned col)
{
    char q[QUOTE_SIZE];
    double lufs = 0;
    if (!number_with_unit(value, len, "LUFS", &lufs) || lufs < RE_MUSIC_LEVEL_MIN_LUFS
        || lufs > RE_MUSIC_LEVEL_MAX_LUFS)
        parse_error(&p->err, line, col, "music_level must be a loudness from %g to %g LUFS like "
                    "'-24 LUFS', got '%s'", RE_MUSIC_LEVEL_MIN_LUFS, RE_MUSIC_LEVEL_MAX_LUFS,
                    quote(q, value, len));
    else
        p->ep->music.level_lufs = lufs;
}

static void set_duck(parser *p, const char *value, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    double db = 0;
    if (!number_with_unit(value, len, "dB", &db) || value[0] == '-' || db > RE_MUSIC_DUCK_MAX_DB)
        parse_error(&p->err, line, col, "duck must be a level from 0 to %g dB like '12 dB', got "
                    "'%s'", RE_MUSIC_DUCK_MAX_DB, quote(q, value, len));
    else
        p->ep->music.duck_db = db;
}

static const char *pause_us(const char *s, size_t len, uint64_t unit_us, uint64_t *us);

/* `fade: 2s`, `1.5s`, `500ms`, `0s`: exact to the microsecond, as a pause. */
static void set_fade(parser *p, const char *value, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t i = 0;
    while (i < len && re_is_digit(value[i]))
        i++;
    size_t num_len = i;
    if (i > 0 && i < len && value[i] == '.') {
        size_t frac = ++i;
        while (i < len && re_is_digit(value[i]))
            i++;
        num_len = i > frac ? i : 0;
    }
    size_t u = skip_blanks(value, len, i);
    uint64_t unit_us = len - u == 2 && memcmp(value + u, "ms", 2) == 0 ? 1000
                     : len - u == 1 && value[u] == 's' ? 1000000 : 0;
    uint64_t us = 0;
    const char *why = num_len && unit_us ? pause_us(value, num_len, unit_us, &us)
                                         : "not a duration";
    if (why || us > RE_MUSIC_FADE_MAX_US)
        parse_error(&p->err, line, col, "fade must be a duration from 0s to %llus like '2s' or "
                    "'500ms', got '%s'%s%s", RE_MUSIC_FADE_MAX_US / 1000000, quote(q, value, len),
                    why && num_len && unit_us ? ": " : "", why && num_len && unit_us ? why : "");
    else
        p->ep->music.fade_us = us;
}

static void set_voice(parser *p, const char *value, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE], name[PROFILE_NAME_MAX + 1];

    if (!profile_name(value, len, name)) {
        parse_error(&p->err, line, col, "invalid voice profile name '%s' (names are a-z, 0-9, '_' and "
                 "'-', at most 64)", quote(q, value, len));
        return;
    }
    set_text_field(p, &p->ep->voice, name, len);
    p->ep->voice_line = line;
    add_voice_ref(p, name, len, line, col);
}

static void set_key(parser *p, int key, const char *value, size_t len, unsigned line,
                    unsigned col)
{
    char q[QUOTE_SIZE];
    re_episode *ep = p->ep;

    switch (key) {
    case 0: set_text_field(p, &ep->title, value, len); break;
    case 1: set_text_field(p, &ep->show, value, len); break;
    case 2: set_published(p, value, len, line, col); break;
    case 3: set_text_field(p, &ep->summary, value, len); break;
    case 4: set_text_field(p, &ep->author, value, len); break;
    case 5:
        if (re_language_valid(value, len))
            set_text_field(p, &ep->language, value, len);
        else
            parse_error(&p->err, line, col, "language '%s' is not a BCP 47 tag like en-us, en-GB or de",
                     quote(q, value, len));
        break;
    case 6: set_voice(p, value, len, line, col); break;
    case 7:
        set_whole_number(p, "episode", 0, &p->ep->episode_number, value, len, line, col);
        break;
    case 9:
        set_whole_number(p, "season", 1, &p->ep->season, value, len, line, col);
        break;
    case 10: set_guid(p, value, len, line, col); break;
    case 11: set_sample_rate(p, value, len, line, col); break;
    case 12: set_sound_file(p, &ep->intro, &ep->intro_line, &ep->intro_col, value, len, line, col); break;
    case 13: set_sound_file(p, &ep->outro, &ep->outro_line, &ep->outro_col, value, len, line, col); break;
    case 14: set_intro_overlap(p, value, len, line, col); break;
    case KEY_MUSIC:   /* a path, resolved, confined and read when rendering (run/music.h) */
        free(ep->music.file);
        ep->music.file = strndup(value, len);
        if (!ep->music.file)
            p->err.nomem = 1;
        ep->music.line = line;
        ep->music.col = col;
        break;
    case KEY_MUSIC_LEVEL: set_music_level(p, value, len, line, col); break;
    case KEY_DUCK: set_duck(p, value, len, line, col); break;
    case KEY_FADE: set_fade(p, value, len, line, col); break;
    case KEY_SOUND_GAP: set_sound_gap(p, value, len, line, col); break;
    default:   /* lexicon: a path, resolved against the script's folder when the lexicon loads */
        free(ep->lexicon);
        ep->lexicon = strndup(value, len);
        if (!ep->lexicon)
            p->err.nomem = 1;
        ep->lexicon_line = line;
        ep->lexicon_col = col;
        break;
    }
}

static void unknown_key(parser *p, const char *key, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    const char *near = suggest_key(key, len);

    if (near)
        parse_error(&p->err, line, col, "unknown front-matter key '%s' (did you mean '%s'?)",
                 quote(q, key, len), near);
    else
        parse_error(&p->err, line, col, "unknown front-matter key '%s' (known keys: title, show, "
                 "published, summary, author, language, voice, episode, season, guid, lexicon, sample_rate, "
                 "intro, outro, intro_overlap, sound_gap, music, music_level, duck, fade)",
                 quote(q, key, len));
}

static void front_matter_line(parser *p, const char *line, size_t len, unsigned number)
{
    char q[QUOTE_SIZE];
    size_t start = skip_blanks(line, len, 0);
    const char *key = line + start, *colon = memchr(key, ':', len - start);
    unsigned col = (unsigned)start + 1;

    if (start == len || key[0] == '#')
        return;
    if (!colon || colon == key) {
        parse_error(&p->err, number, col, "expected 'key: value' in the front matter, got '%s'",
                 quote(q, key, len - start));
        return;
    }
    size_t key_len = (size_t)(colon - key);
    const char *value = colon + 1;
    size_t value_len = (size_t)(line + len - value);
    re_trim(&key, &key_len);
    re_trim(&value, &value_len);
    int k = find_key(key, key_len);
    if (k < 0) {
        unknown_key(p, key, key_len, number, col);
    } else if (p->key_line[k]) {
        parse_error(&p->err, number, col, "duplicate front-matter key '%s' (first set on line %u)",
                 front_matter_keys[k], p->key_line[k]);
    } else if (value_len == 0) {
        p->key_line[k] = number;
        parse_error(&p->err, number, col, "front-matter key '%s' has no value", front_matter_keys[k]);
    } else {
        p->key_line[k] = number;
        p->key_col[k] = col;
        set_key(p, k, value, value_len, number, (unsigned)(value - line) + 1);
    }
}

/* Reads the front matter; returns 1 when the body can be parsed (r then stands after the
 * closing line, *closing_line is its number). */
static int parse_front_matter(parser *p, line_reader *r, unsigned *closing_line)
{
    line_reader scan = *r;
    const char *line;
    size_t len;

    if (!next_line(&scan, &line, &len) || !is_delimiter_line(line, len)) {
        parse_error(&p->err, 1, 1, "a script starts with front matter: a line '---'");
        return 0;
    }
    /* Find the end first: without it every later line would be misread as a key. */
    int closed = 0;
    while (!closed && next_line(&scan, &line, &len))
        closed = is_delimiter_line(line, len);
    if (!closed) {
        parse_error(&p->err, 1, 1, "the front matter is not closed: add a line '---' after it");
        return 0;
    }
    *closing_line = scan.number;
    next_line(r, &line, &len);
    while (next_line(r, &line, &len) && r->number < *closing_line) {
        if (!line_too_long(p, len, r->number))
            front_matter_line(p, line, len, r->number);
    }
    if (!p->ep->title && !p->key_line[0] && !p->markdown)
        parse_error(&p->err, *closing_line, 1, "the front matter has no title: add a line "
                 "'title: ...' before this '---'");
    if (p->ep->intro_overlap_us && !p->key_line[12])
        parse_error(&p->err, p->ep->intro_overlap_line, p->ep->intro_overlap_col, "intro_overlap "
                    "needs an intro: add a line 'intro: FILE'");
    for (int k = KEY_MUSIC_LEVEL; k <= KEY_FADE; k++)
        if (p->key_col[k] && !p->key_line[KEY_MUSIC])
            parse_error(&p->err, p->key_line[k], p->key_col[k], "'%s' is set but there is no "
                        "music bed: add a line 'music: FILE' or remove it", front_matter_keys[k]);
    return 1;
}

/* ---- paragraphs ------------------------------------------------------------------------- */

static void add_piece(parser *p, re_item item)
{
    paragraph *para = &p->para;

    if (p->halted || ++p->segments > RE_SCRIPT_MAX_SEGMENTS) {
        /* One engine process per speech segment: past the limit the script is not read on. */
        if (!p->halted)
            parse_error(&p->err, item.line, item.col, "the script has more than %u segments (pieces of "
                     "speech and pauses); the limit is %u: split it into several episodes "
                     "(the rest of the script was not read)", RE_SCRIPT_MAX_SEGMENTS,
                     RE_SCRIPT_MAX_SEGMENTS);
        p->halted = 1;
        free(item.text);
        free(item.language);
        return;
    }
    if (!grow((void **)&para->pieces, &para->piece_cap, para->piece_count,
              sizeof *para->pieces)) {
        free(item.text);
        free(item.language);
        p->err.nomem = 1;
        return;
    }
    para->pieces[para->piece_count++] = item;
}

/* Ends the speech piece being collected, if it has any text. */
static void finish_piece(parser *p)
{
    paragraph *para = &p->para;

    para->pending_space = 0;
    if (para->text.len == 0)
        return;
    char *text = strndup(para->text.data, para->text.len);
    if (!text) {
        p->err.nomem = 1;
        return;
    }
    char *language = NULL;
    if (para->lang[0] && !(language = strdup(para->lang))) {
        free(text);
        p->err.nomem = 1;
        return;
    }
    para->speech_bytes += para->text.len;
    para->has_speech = 1;
    para->lang_has_text |= para->lang[0] != '\0';
    para->text.len = 0;
    add_piece(p, (re_item){ RE_ITEM_SPEECH, para->piece_line, para->piece_col, text, NULL, 0,
                            language });
}

static void add_text(parser *p, const char *s, size_t n, unsigned line, unsigned col)
{
    paragraph *para = &p->para;
    int ok = 1;

    if (para->text.len == 0) {
        para->piece_line = line;
        para->piece_col = col;
    } else if (para->pending_space) {
        ok = text_append(&para->text, " ", 1);
    }
    para->pending_space = 0;
    para->started = 1;
    if (!ok || !text_append(&para->text, s, n))
        p->err.nomem = 1;
}

static void add_pause(parser *p, uint64_t us, unsigned line, unsigned col)
{
    if (p->pause_total_us <= RE_EPISODE_MAX_US && p->pause_total_us + us > RE_EPISODE_MAX_US)
        parse_error(&p->err, line, col, "the pauses add up to more than %llu hours here, the longest "
                 "episode that can be rendered", RE_EPISODE_MAX_US / 3600000000ULL);
    p->pause_total_us += us;
    finish_piece(p);
    p->para.has_pause = 1;
    add_piece(p, (re_item){ RE_ITEM_PAUSE, line, col, NULL, NULL, us, NULL });
}

/* ---- directives ------------------------------------------------------------------------- */

/* A pause's duration: s[0..len) is digits[.digits], unit_us the value of one unit. Returns
 * NULL with *us set, or the reason it is not exact to the microsecond. */
static const char *pause_us(const char *s, size_t len, uint64_t unit_us, uint64_t *us)
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
static const char *duration_syntax(const char *s, size_t len, size_t *at, size_t *num,
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
    i = skip_blanks(s, len, i);
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
    i = skip_blanks(s, len, i);
    if (i == len || s[i] == ']')
        return "no duration";
    const char *why = duration_syntax(s, len, &i, num, num_len, unit_us);
    if (why)
        return why;
    return directive_close(s, len, skip_blanks(s, len, i), used);
}

/* Length of the directive text to quote and skip after an error: up to its ']' if any. */
static size_t directive_extent(const char *s, size_t len)
{
    const char *close = memchr(s, ']', len);

    return close ? (size_t)(close - s) + 1 : len;
}

/* The duration s[0..num_len) in units of unit_us, exact to the microsecond and within
 * min_us (1 ms or 0) .. 600 s: 1 with *us, or 0 after an error naming it `what` ("pause"). */
static int checked_duration_from(parser *p, const char *what, uint64_t min_us, const char *s,
                                 size_t num_len, uint64_t unit_us, unsigned line, unsigned col,
                                 uint64_t *us)
{
    char q[QUOTE_SIZE], value[QUOTE_SIZE + 2];
    snprintf(value, sizeof value, "%s%s", quote(q, s, num_len), unit_us == 1000 ? "ms" : "s");
    const char *why = pause_us(s, num_len, unit_us, us);
    if (why)
        parse_error(&p->err, line, col, "%s %s is not exact: %s", what, value, why);
    else if (*us < min_us || *us > RE_PAUSE_MAX_US)
        parse_error(&p->err, line, col, "%s %s is out of range: %s to 600s (10 minutes)", what,
                    value, min_us ? "1ms" : "0s");
    return !why && *us >= min_us && *us <= RE_PAUSE_MAX_US;
}

static int checked_duration(parser *p, const char *what, const char *s, size_t num_len,
                            uint64_t unit_us, unsigned line, unsigned col, uint64_t *us)
{
    return checked_duration_from(p, what, RE_PAUSE_MIN_US, s, num_len, unit_us, line, col, us);
}

static size_t parse_pause(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t used = 0, num = 0, num_len = 0;
    uint64_t unit_us = 0, us = 0;
    const char *why = pause_syntax(s, len, &used, &num, &num_len, &unit_us);

    if (why) {
        used = directive_extent(s, len);
        parse_error(&p->err, line, col, "malformed pause '%s': %s; write e.g. [pause 800ms] or "
                 "[pause 1.5s]", quote(q, s, used), why);
        return used;
    }
    if (checked_duration(p, "pause", s + num, num_len, unit_us, line, col, &us))
        add_pause(p, us, line, col);
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
    finish_piece(p);
    p->para.has_pause = 1;
    add_piece(p, (re_item){ RE_ITEM_SOUND, line, col, copy, NULL, cut_us, NULL });
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
    i = skip_blanks(s, len, i);
    if (i == len || s[i] == ']')
        return "no file";
    *file = i;
    while (i < len && !re_is_line_blank(s[i]) && s[i] != ']')
        i++;
    *file_len = i - *file;
    *num_len = 0;
    i = skip_blanks(s, len, i);
    if (i < len && s[i] != ']') {
        if (!re_is_digit(s[i]))
            return "unexpected text before ']' (a file name cannot hold blanks or ']')";
        const char *why = duration_syntax(s, len, &i, num, num_len, unit_us);
        if (why)
            return why;
        i = skip_blanks(s, len, i);
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
        parse_error(&p->err, line, col, "malformed sound '%s': %s; write e.g. [sound chime.wav] "
                 "or [sound theme.ogg 2.5s]", quote(q, s, used), why);
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
    size_t start = skip_blanks(s, len, 6), end = start;   /* 6: past "[voice" */

    while (end < len && !re_is_line_blank(s[end]) && s[end] != ']')
        end++;
    size_t close = skip_blanks(s, len, end);
    if (close == len || s[close] != ']' || end == start) {
        size_t used = directive_extent(s, len);
        parse_error(&p->err, line, col, "malformed voice directive '%s': write [voice NAME] at the "
                 "start of a paragraph", quote(q, s, used));
        return used;
    }
    if (!profile_name(s + start, end - start, name))
        parse_error(&p->err, line, col, "invalid voice profile name '%s' (names are a-z, 0-9, '_' and "
                 "'-', at most 64)", quote(q, s + start, end - start));
    else if (para->started)
        parse_error(&p->err, line, col, "'%s' is not at the start of its paragraph: [voice NAME] must "
                 "start a paragraph", quote(q, s, close + 1));
    else {
        memcpy(para->voice, name, sizeof name);
        para->voice_line = line;
        para->voice_col = col;
        add_voice_ref(p, name, end - start, line, col);
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
    finish_piece(p);
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
    size_t start = skip_blanks(s, len, 5), end = start;   /* 5: past "[lang" */

    while (end < len && !re_is_line_blank(s[end]) && s[end] != ']')
        end++;
    size_t close = skip_blanks(s, len, end);
    size_t used = close < len && s[close] == ']' ? close + 1 : directive_extent(s, len);
    int well_formed = close < len && s[close] == ']' && end > start;
    para->started = 1;
    if (!well_formed)
        parse_error(&p->err, line, col, "malformed language span '%s': write [lang TAG]...[/lang], "
                 "e.g. [lang de]Guten Tag[/lang]", quote(q, s, used));
    else if (!language_tag(s + start, end - start))
        parse_error(&p->err, line, col, "invalid language tag '%s' (an espeak-ng voice name: a "
                 "letter, then letters, digits and '-', at most %u)",
                 quote(q, s + start, end - start), RE_SCRIPT_MAX_LANGUAGE);
    if (!well_formed || !language_tag(s + start, end - start)) {
        open_failed_span(p, s, len, line, col);
        return used;
    }
    if (para->lang[0]) {
        parse_error(&p->err, line, col, "'%s' is inside the [lang %s] span opened at %u:%u: spans "
                 "do not nest; close it with [/lang] first", quote(q, s, close + 1),
                 quote(q2, para->lang, strlen(para->lang)), para->lang_line, para->lang_col);
        return close + 1;
    }
    finish_piece(p);
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
static void close_lang(parser *p)
{
    char q[QUOTE_SIZE];
    paragraph *para = &p->para;

    finish_piece(p);
    if (!para->lang_has_text)
        parse_error(&p->err, para->lang_line, para->lang_col, "the [lang %s] span has no text",
                 quote(q, para->lang, strlen(para->lang)));
    para->lang[0] = '\0';
}

static size_t parse_lang_end(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    char q[QUOTE_SIZE];
    size_t close = skip_blanks(s, len, 6);   /* 6: past "[/lang" */

    p->para.started = 1;
    if (close == len || s[close] != ']') {
        size_t used = directive_extent(s, len);
        parse_error(&p->err, line, col, "malformed '%s': write [/lang] to end a language span",
                 quote(q, s, used));
        return used;
    }
    if (!p->para.lang[0]) {
        parse_error(&p->err, line, col, "'[/lang]' closes no span: there is no [lang TAG] open "
                 "before it in this paragraph; write \\[ for a literal '['");
        return close + 1;
    }
    /* Punctuation right after the span ("[lang de]Guten Tag[/lang], everyone") is the span's
     * own: its voice says it (a comma, a stop: a pause), and no transcript cue starts with it. */
    size_t end = close + 1;
    if (p->para.text.len > 0)
        end += closing_punctuation(s + end, len - end);
    if (end > close + 1)
        add_text(p, s + close + 1, end - close - 1, line, col + (unsigned)close + 1);
    close_lang(p);
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
static size_t directive(parser *p, const char *s, size_t len, unsigned line, unsigned col)
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
        parse_error(&p->err, line, col, "'%s': directive names are lowercase ([pause ...], "
                 "[voice ...], [lang ...], [/lang], [sound ...]); write \\[ for a literal '['", quote(q, s, used));
        if (names_directive(s, len, "lang", strncasecmp))
            open_failed_span(p, s, len, line, col);
        return used;
    }
    return 0;
}

/* ---- body ------------------------------------------------------------------------------- */

/* Reads s[0..len), which stands at line:col, into the open paragraph; with `directives`,
 * `[` may start a directive and `\[` is a literal '['. */
static void read_text(parser *p, const char *s, size_t len, unsigned line, unsigned col,
                      int directives)
{
    paragraph *para = &p->para;
    size_t i = 0;

    while (i < len && !p->err.nomem && !p->halted) {
        char c = s[i];
        size_t used = 0;
        if (re_is_line_blank(c)) {
            para->pending_space = 1;
            used = 1;
        } else if (directives && c == '\\' && i + 1 < len && s[i + 1] == '[') {
            add_text(p, "[", 1, line, col + (unsigned)i);
            used = 2;
        } else if (directives && c == '[') {
            used = directive(p, s + i, len - i, line, col + (unsigned)i);
        }
        if (used == 0) {
            add_text(p, &c, 1, line, col + (unsigned)i);
            used = 1;
        }
        i += used;
    }
}

static void open_paragraph(parser *p, unsigned line, unsigned col)
{
    if (!p->para.open) {
        p->para.open = 1;
        p->para.line = line;
        p->para.col = col;
    }
}

/* Reads one line of paragraph text from column i (its first non-blank). */
static void paragraph_line(parser *p, const char *line, size_t len, size_t i, unsigned number)
{
    open_paragraph(p, number, (unsigned)i + 1);
    p->para.pending_space = 1;   /* lines are joined with a space */
    read_text(p, line + i, len - i, number, (unsigned)i + 1, 1);
}

/* A heading waits for the next audio; one still waiting has none, which is an error. */
static void chapter_without_audio(parser *p)
{
    char q[QUOTE_SIZE];

    if (!p->chapter)
        return;
    parse_error(&p->err, p->chapter_line, p->chapter_col, "chapter '%s' has no audio: a heading must "
             "be followed by text or a pause", quote(q, p->chapter, strlen(p->chapter)));
    free(p->chapter);
    p->chapter = NULL;
}

static void flush_chapter(parser *p)
{
    if (!p->chapter)
        return;
    push_item(p, (re_item){ RE_ITEM_CHAPTER, p->chapter_line, p->chapter_col, p->chapter,
                            NULL, 0, NULL });
    p->chapter = NULL;
}

/* `#`..`######`, a blank, then the title; 0 if the line is not a heading. */
static int heading_level(const char *s, size_t len)
{
    size_t n = 0;

    while (n < len && s[n] == '#')
        n++;
    return n >= 1 && n <= 6 && n < len && re_is_line_blank(s[n]) ? (int)n : 0;
}

static void chapter(parser *p, const char *title, size_t title_len, unsigned line,
                    unsigned col)
{
    if (++p->chapters == RE_SCRIPT_MAX_CHAPTERS + 1)
        parse_error(&p->err, line, col, "this is chapter %u; the limit is %u (the MP3's chapter table "
                 "holds no more)", p->chapters, RE_SCRIPT_MAX_CHAPTERS);
    chapter_without_audio(p);
    p->chapter = collapse_blanks(title, title_len);
    p->chapter_line = line;
    p->chapter_col = col;
    if (!p->chapter)
        p->err.nomem = 1;
}

static void heading(parser *p, const char *s, size_t len, int level, unsigned line,
                    unsigned col)
{
    const char *title = s + level;
    size_t title_len = len - (size_t)level;

    re_trim(&title, &title_len);
    if (title_len == 0) {
        parse_error(&p->err, line, col, "a heading needs a title after '%.*s '", level, s);
        return;
    }
    chapter(p, title, title_len, line, col);
}

static const char *paragraph_voice(parser *p)
{
    const paragraph *para = &p->para;
    const char *name = para->voice[0] ? para->voice : p->ep->voice;

    if (!para->voice[0] && !p->ep->voice_line && !p->default_ref_added) {
        p->default_ref_added = 1;   /* the built-in default is named nowhere in the script */
        add_voice_ref(p, name, strlen(name), 0, 0);
    }
    return para->voice[0] ? intern_voice(p, name, para->voice_line, para->voice_col)
                          : intern_voice(p, name, para->line, para->col);
}

/* Moves the paragraph's pieces to the episode, with the BREAK and CHAPTER before them. A
 * BREAK is placed at the line that ended the paragraph before it, so item positions never
 * go backwards. */
static void emit_paragraph(parser *p, unsigned ended_by)
{
    paragraph *para = &p->para;
    const char *voice = NULL;

    if (para->has_speech) {
        if (p->last_voice && !p->pause_since_speech)
            push_item(p, (re_item){ RE_ITEM_BREAK, p->last_end_line, 1, NULL,
                                    p->last_voice, 0, NULL });
        voice = paragraph_voice(p);
        p->last_voice = voice;
        p->last_end_line = ended_by;
        p->pause_since_speech = 0;
    } else if (para->has_pause) {
        p->pause_since_speech = p->last_voice != NULL;
    }
    flush_chapter(p);
    for (size_t i = 0; i < para->piece_count; i++) {
        if (para->pieces[i].kind == RE_ITEM_SPEECH)
            para->pieces[i].voice = voice;
        push_item(p, para->pieces[i]);
    }
    para->piece_count = 0;
}

/* Ends the open paragraph, if any; `ended_by` is the line that ended it. */
static void end_paragraph(parser *p, unsigned ended_by)
{
    char q[QUOTE_SIZE];
    paragraph *para = &p->para;

    if (!para->open)
        return;
    if (para->lang[0]) {
        parse_error(&p->err, para->lang_line, para->lang_col, "the [lang %s] span is not closed: "
                 "end it with [/lang] in the same paragraph (a span never crosses a blank line "
                 "or a heading)", quote(q, para->lang, strlen(para->lang)));
        para->lang_has_text = 1;   /* one error for it is enough */
        close_lang(p);
    }
    finish_piece(p);
    if (para->voice[0] && !para->has_speech && !para->has_pause)
        parse_error(&p->err, para->voice_line, para->voice_col, "'[voice %s]' is alone in its paragraph: "
                 "it sets the voice of its own paragraph only, so put the text after it",
                 quote(q, para->voice, strlen(para->voice)));
    if (para->speech_bytes > RE_SCRIPT_MAX_PARAGRAPH)
        parse_error(&p->err, para->line, para->col, "paragraph is %zu bytes; the limit is %u: split it "
                 "with a blank line", para->speech_bytes, RE_SCRIPT_MAX_PARAGRAPH);
    if (para->has_speech || para->has_pause)
        emit_paragraph(p, ended_by);
    text_buf text = para->text;
    re_item *pieces = para->pieces;
    size_t piece_cap = para->piece_cap;
    memset(para, 0, sizeof *para);   /* keep the buffers for the next paragraph */
    para->text = text;
    para->text.len = 0;
    para->pieces = pieces;
    para->piece_cap = piece_cap;
}

static void body_line(parser *p, const char *line, size_t len, unsigned number)
{
    size_t i = skip_blanks(line, len, 0);
    int level;

    if (i == len) {
        end_paragraph(p, number);
    } else if (len - i >= 2 && line[i] == '/' && line[i + 1] == '/') {
        /* a comment: skipped, and the paragraph goes on */
    } else if ((level = heading_level(line + i, len - i)) > 0) {
        end_paragraph(p, number);
        heading(p, line + i, len - i, level, number, (unsigned)i + 1);
    } else {
        paragraph_line(p, line, len, i, number);
    }
}

/* ---- the body as the Markdown reader builds it (script_body.h) ------------------------ */

void body_span(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    open_paragraph(p, line, col);
    read_text(p, s, len, line, col, 1);
}

void body_literal(parser *p, const char *s, size_t len, unsigned line, unsigned col)
{
    open_paragraph(p, line, col);
    read_text(p, s, len, line, col, 0);
}

void body_space(parser *p)
{
    p->para.pending_space = 1;
}

void body_end_sentence(parser *p)
{
    text_buf *t = &p->para.text;

    if (t->len == 0)
        return;
    char last = t->data[t->len - 1];
    if (last == ':' || last == ';' || last == ',')
        t->data[t->len - 1] = '.';
    else if (last != '.' && last != '!' && last != '?' && !text_append(t, ".", 1))
        p->err.nomem = 1;
    p->para.pending_space = 1;
}

size_t body_paragraph_bytes(const parser *p)
{
    return p->para.speech_bytes + p->para.text.len;
}

void body_end_paragraph(parser *p, unsigned ended_by)
{
    end_paragraph(p, ended_by);
}

void body_heading(parser *p, const char *title, size_t len, unsigned line, unsigned col)
{
    end_paragraph(p, line);
    chapter(p, title, len, line, col);
}

parse_errors *body_errors(parser *p)
{
    return &p->err;
}

re_episode *body_episode(parser *p)
{
    return p->ep;
}

re_md_outline *body_outline(parser *p)
{
    return p->outline;
}

int body_stopped(const parser *p)
{
    return p->halted || p->err.nomem;
}

static int has_speech(const re_episode *ep)
{
    for (size_t i = 0; i < ep->item_count; i++) {
        if (ep->items[i].kind == RE_ITEM_SPEECH)
            return 1;
    }
    return 0;
}

static void parse_body(parser *p, line_reader *r, unsigned closing_line)
{
    const char *line;
    size_t len;

    while (!p->err.nomem && !p->halted && next_line(r, &line, &len)) {
        if (!line_too_long(p, len, r->number))
            body_line(p, line, len, r->number);
    }
    end_paragraph(p, r->number + 1);
    if (!p->halted)
        chapter_without_audio(p);
    if (!has_speech(p->ep))
        parse_error(&p->err, closing_line + 1, 1, "the script has no spoken text");
}

/* A Markdown document: front matter only when its first line is `---`; the title, when the
 * front matter gives none, is the first level-1 heading (markdown.c), else the file name. */
static void parse_markdown(parser *p, line_reader *r)
{
    const char *line;
    size_t len;
    line_reader first = *r;
    unsigned closing_line = 0;

    if (next_line(&first, &line, &len) && is_delimiter_line(line, len)
        && !parse_front_matter(p, r, &closing_line))
        return;
    if (p->err.nomem)
        return;
    size_t body_len = r->pos < r->len ? r->len - r->pos : 0;
    if (!(p->ep->notes = strndup(r->buf + r->pos, body_len))) {
        p->err.nomem = 1;
        return;
    }
    re_markdown_body(p, r->buf + r->pos, body_len, r->number + 1);
    if (!p->ep->title && !p->err.nomem) {
        const char *base = strrchr(p->err.file, '/');
        base = base ? base + 1 : p->err.file;
        const char *dot = strrchr(base, '.');
        size_t n = dot && dot > base ? (size_t)(dot - base) : strlen(base);
        if (!(p->ep->title = strndup(base, n)))
            p->err.nomem = 1;
    }
    if (!p->halted)
        chapter_without_audio(p);
    if (!p->err.nomem && !has_speech(p->ep))
        parse_error(&p->err, closing_line + 1, 1, "the document has no spoken text");
}

/* ---- public ----------------------------------------------------------------------------- */

int re_script_is_markdown(const char *path)
{
    size_t n = path ? strlen(path) : 0;

    return (n > 3 && strcasecmp(path + n - 3, ".md") == 0)
           || (n > 9 && strcasecmp(path + n - 9, ".markdown") == 0);
}

static re_episode *episode_new(const char *file)
{
    re_episode *ep = calloc(1, sizeof *ep);

    if (!ep)
        return NULL;
    ep->episode_number = -1;
    ep->season = -1;
    ep->file = strdup(file);
    ep->language = strdup("en-us");
    ep->voice = strdup("host");
    ep->music = (re_music_spec){ .level_lufs = RE_MUSIC_DEFAULT_LEVEL_LUFS,
                                 .duck_db = RE_MUSIC_DEFAULT_DUCK_DB,
                                 .fade_us = RE_MUSIC_DEFAULT_FADE_US };
    ep->sound_gap_us = RE_SOUND_GAP_DEFAULT_US;
    if (!ep->file || !ep->language || !ep->voice) {
        re_episode_free(ep);
        return NULL;
    }
    return ep;
}

void re_episode_free(re_episode *episode)
{
    if (!episode)
        return;
    for (size_t i = 0; i < episode->item_count; i++) {
        free(episode->items[i].text);
        free(episode->items[i].language);
    }
    for (size_t i = 0; i < episode->voice_count; i++)
        free(episode->voices[i]);
    for (size_t i = 0; i < episode->voice_ref_count; i++)
        free(episode->voice_refs[i].name);
    free(episode->items);
    free(episode->voices);
    free(episode->voice_refs);
    free(episode->file);
    free(episode->title);
    free(episode->show);
    free(episode->published);
    free(episode->summary);
    free(episode->guid);
    free(episode->author);
    free(episode->language);
    free(episode->voice);
    free(episode->lexicon);
    free(episode->intro);
    free(episode->outro);
    free(episode->music.file);
    free(episode->notes);
    free(episode);
}

static void parser_free(parser *p)
{
    for (size_t i = 0; i < p->para.piece_count; i++)
        free(p->para.pieces[i].text);
    free(p->para.pieces);
    free(p->para.text.data);
    free(p->chapter);
}

/* re_script_parse; with keep_partial, an episode that failed with RE_ERR_INPUT is handed out
 * too (re_script_parse_partial). */
static re_status parse_script(const char *file, const char *buf, size_t len, re_episode **out,
                              re_diagnostics *diag, int keep_partial, re_md_outline *outline)
{
    parser p = { .err = { .file = file ? file : "-", .diag = diag }, .outline = outline };
    line_reader r = { 0 };
    unsigned closing_line = 0;
    int decodable = 0;
    re_status status;

    if (!out || !diag || (!buf && len > 0))
        return RE_ERR_INVALID;
    *out = NULL;
    size_t bom = buf ? re_utf8_bom_length(buf, len) : 0;
    r.buf = buf ? buf + bom : "";
    r.len = len - bom;
    status = re_utf8_check_text(p.err.file, r.buf, r.len, &decodable, diag);
    if (status != RE_OK && (status == RE_ERR_NOMEM || !decodable))
        return status;
    p.err.count = status == RE_ERR_INPUT;
    p.ep = episode_new(p.err.file);
    if (!p.ep)
        return RE_ERR_NOMEM;
    p.markdown = re_script_is_markdown(p.err.file);
    if (p.markdown)
        parse_markdown(&p, &r);
    else if (parse_front_matter(&p, &r, &closing_line) && !p.err.nomem)
        parse_body(&p, &r, closing_line);
    parser_free(&p);
    status = p.err.nomem ? RE_ERR_NOMEM : p.err.count ? RE_ERR_INPUT : RE_OK;
    if (status != RE_OK && !(status == RE_ERR_INPUT && keep_partial)) {
        re_episode_free(p.ep);
        return status;
    }
    *out = p.ep;
    return status;
}

re_status re_script_parse(const char *file, const char *buf, size_t len, re_episode **out,
                          re_diagnostics *diag)
{
    return parse_script(file, buf, len, out, diag, 0, NULL);
}

re_status re_script_parse_partial(const char *file, const char *buf, size_t len,
                                  re_episode **out, re_diagnostics *diag)
{
    return parse_script(file, buf, len, out, diag, 1, NULL);
}

re_status re_markdown_outline(const char *file, const char *buf, size_t len, re_md_outline *out,
                              re_diagnostics *diag)
{
    re_episode *episode = NULL;

    if (!out || !re_script_is_markdown(file))
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    re_status status = parse_script(file, buf, len, &episode, diag, 0, out);
    re_episode_free(episode);
    return status;
}

void re_md_outline_free(re_md_outline *outline)
{
    if (!outline)
        return;
    for (size_t i = 0; i < outline->count; i++) {
        free(outline->blocks[i].kind);
        free(outline->blocks[i].account);
    }
    free(outline->blocks);
    memset(outline, 0, sizeof *outline);
}

re_status re_script_load(const char *path, size_t max_size, re_episode **out,
                         re_diagnostics *diag)
{
    char *buf = NULL;
    size_t len = 0;
    re_status status;

    if (!path || !out || !diag)
        return RE_ERR_INVALID;
    *out = NULL;
    status = re_file_read(path, max_size, RE_READ_ANY, &buf, &len, diag);
    if (status == RE_OK)
        status = re_script_parse(path, buf, len, out, diag);
    free(buf);
    return status;
}

/* Past the blanks, line breaks and comment lines that the parser read as one space between
 * two words of a paragraph: *pos moves on, *line and *line_start follow it. */
static void skip_joining_space(const char *buf, size_t len, size_t *pos, unsigned *line,
                               size_t *line_start)
{
    for (;;) {
        *pos = skip_blanks(buf, len, *pos);
        if (*pos < len && buf[*pos] == '\n') {
            *line_start = ++*pos;
            ++*line;
            size_t i = skip_blanks(buf, len, *pos);
            if (len - i >= 2 && buf[i] == '/' && buf[i + 1] == '/') {   /* a comment line */
                const char *nl = memchr(buf + i, '\n', len - i);
                *pos = nl ? (size_t)(nl - buf) : len;
            }
            continue;
        }
        return;
    }
}

void re_script_locate(const char *buf, size_t len, const re_item *item, size_t offset,
                      unsigned *line, unsigned *col)
{
    *line = item->line;
    *col = item->col;
    if (!buf || !item->text || item->line == 0 || item->col == 0)
        return;
    size_t bom = re_utf8_bom_length(buf, len);
    buf += bom;
    len -= bom;
    size_t pos = 0, line_start = 0;
    for (unsigned n = 1; n < item->line; n++) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl)
            return;
        pos = line_start = (size_t)(nl - buf) + 1;
    }
    pos += item->col - 1;
    unsigned at_line = item->line;
    const char *text = item->text;
    for (size_t t = 0; t < offset; t++) {
        if (text[t] == '\0' || pos >= len)
            return;
        if (text[t] == ' ' && (re_is_line_blank(buf[pos]) || buf[pos] == '\n')) {
            skip_joining_space(buf, len, &pos, &at_line, &line_start);
        } else if (text[t] == '[' && buf[pos] == '\\' && pos + 1 < len && buf[pos + 1] == '[') {
            pos += 2;
        } else if (buf[pos] == text[t]) {
            pos++;
        } else {
            return;   /* not the text this item was read from */
        }
    }
    *line = at_line;
    *col = (unsigned)(pos - line_start) + 1;
}

re_status re_episode_check_voices(const re_episode *episode, re_voice_set *voices,
                                  re_diagnostics *diag)
{
    int failed = 0;
    char near[RE_VOICE_NAME_MAX + 1];

    if (!episode || !voices || !diag)
        return RE_ERR_INVALID;
    for (size_t i = 0; i < episode->voice_ref_count; i++) {
        const re_voice_ref *ref = &episode->voice_refs[i];
        const re_voice_profile *profile;
        re_voice_lookup how;
        re_status status = re_voice_set_find(voices, ref->name, &profile, &how, diag);
        if (status == RE_OK)
            continue;
        if (status != RE_ERR_INPUT)
            return status;
        failed = 1;
        if (how == RE_VOICE_BROKEN)
            status = re_diag_add(diag, episode->file, ref->line, ref->col, "voice profile '%s' "
                                 "is invalid (see its errors above)", ref->name);
        else if ((status = re_voice_set_nearest(voices, ref->name, near)) == RE_OK)
            status = re_diag_add(diag, episode->file, ref->line, ref->col, "unknown voice "
                                 "profile '%s'%s%s%s (looked in: %s)", ref->name,
                                 near[0] ? " (did you mean '" : "", near, near[0] ? "'?)" : "",
                                 re_voice_set_search_path(voices));
        if (status != RE_OK)
            return RE_ERR_NOMEM;
    }
    return failed ? RE_ERR_INPUT : RE_OK;
}
