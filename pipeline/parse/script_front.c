/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script_front.c - a script's front matter: the `key: value` lines between the two `---`
 * (docs/script-format.md, "Front matter"). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datetime.h"
#include "script_parser.h"
#include "text.h"
#include "utf8.h"

#define EPISODE_MAX 999999L

static const char *const front_matter_keys[] = {
    "title", "show", "published", "summary", "author", "language", "voice", "episode", "lexicon",
    "season", "guid", "sample_rate", "intro", "outro", "intro_overlap", "music", "music_level",
    "duck", "fade", "sound_gap",
};
enum { KEY_MUSIC = 15, KEY_MUSIC_LEVEL, KEY_DUCK, KEY_FADE, KEY_SOUND_GAP };

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
int profile_name(const char *s, size_t len, char *out)
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
    if (i < len || !(rate == 22050 || rate == 44100 || rate == 48000))
        parse_error(&p->err, line, col, "sample_rate must be 22050, 44100 or 48000, got '%s'",
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
int parse_front_matter(parser *p, line_reader *r, unsigned *closing_line)
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

