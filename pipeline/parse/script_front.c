/* SPDX-License-Identifier: GPL-3.0-or-later */
/* script_front.c - a script's front matter: the `key: value` lines between the two `---`,
 * read by the key-file reader from the table below (docs/script-format.md). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datetime.h"
#include "keyfile.h"
#include "sample_rate.h"
#include "script_parser.h"
#include "text.h"

#define EPISODE_MAX 999999L

/* A profile name in s[0..len) copied to out (PROFILE_NAME_MAX + 1 bytes) if it is valid. */
int re_profile_name(const char *s, size_t len, char *out)
{
    if (len > PROFILE_NAME_MAX)
        return 0;
    memcpy(out, s, len);
    out[len] = '\0';
    return re_voice_name_valid(out);
}

void re_profile_name_error(parse_errors *e, unsigned line, unsigned col, const char *s, size_t len,
                           const char *prefix, const char *suffix)
{
    char q[QUOTE_SIZE], lower[PROFILE_NAME_MAX + 1];
    int fits = len <= PROFILE_NAME_MAX;
    for (size_t i = 0; fits && i < len; i++)
        lower[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    if (fits)
        lower[len] = '\0';
    if (fits && re_voice_name_valid(lower))   /* [voice Guest]: the speaker's name, not the file's */
        re_parse_error(e, line, col, "invalid voice profile name '%s': names are lowercase (did you "
                       "mean '%s%s%s'?); a profile is the file NAME.voice in a --voices DIR or the "
                       "shipped voices/", re_quote(q, s, len), prefix, lower, suffix);
    else
        re_parse_error(e, line, col, "invalid voice profile name '%s' (names are a-z, 0-9, '_' and "
                       "'-', at most 64); a profile is the file NAME.voice in a --voices DIR or the "
                       "shipped voices/", re_quote(q, s, len));
}

static re_episode *episode_of(keyfile *kf)
{
    return ((parser *)re_keyfile_context(kf))->ep;
}

static void read_published(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE], reason[96];
    const char *why = re_datetime_parse(v->text, v->len, 0, NULL, reason, sizeof reason);

    if (why)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "invalid published date '%s': %s",
                       re_quote(q, v->text, v->len), why);
    else
        re_keyfile_copy(kf, &episode_of(kf)->published, v, 1);
}

static void read_language(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];

    if (re_language_valid(v->text, v->len))
        re_keyfile_copy(kf, &episode_of(kf)->language, v, 1);
    else
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "language '%s' is not a BCP 47 tag like "
                       "en-us, en-GB or de", re_quote(q, v->text, v->len));
}

static void read_voice(keyfile *kf, const keyfile_value *v)
{
    parser *p = re_keyfile_context(kf);
    char name[PROFILE_NAME_MAX + 1];

    if (!re_profile_name(v->text, v->len, name)) {
        re_profile_name_error(&p->err, v->line, v->col, v->text, v->len, "voice: ", "");
        return;
    }
    re_keyfile_copy(kf, &p->ep->voice, v, 0);
    p->ep->voice_line = v->line;
    re_add_voice_ref(p, name, v->len, v->line, v->col);
}

/* An item guid is copied into the feed as it is: printable ASCII, no blanks, at most 200. */
static void read_guid(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    size_t i = 0;

    while (i < v->len && v->text[i] > ' ' && v->text[i] < 0x7f)
        i++;
    if (i < v->len || v->len > 200)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "guid '%s' must be printable ASCII "
                       "without blanks, at most 200 characters", re_quote(q, v->text, v->len));
    else
        re_keyfile_copy(kf, &episode_of(kf)->guid, v, 0);
}

static const char *const type_names[] = {
    [RE_EPISODE_TYPE_UNSET] = "full", [RE_EPISODE_FULL] = "full",
    [RE_EPISODE_TRAILER] = "trailer", [RE_EPISODE_BONUS] = "bonus",
};

const char *re_episode_type_name(re_episode_type type)
{
    return (unsigned)type < sizeof type_names / sizeof type_names[0] ? type_names[type] : "full";
}

re_episode_type re_episode_type_from_name(const char *name, size_t len)
{
    for (int t = RE_EPISODE_FULL; t <= RE_EPISODE_BONUS; t++)
        if (strlen(type_names[t]) == len && memcmp(type_names[t], name, len) == 0)
            return (re_episode_type)t;
    return RE_EPISODE_TYPE_UNSET;
}

/* `type: full|trailer|bonus`, Apple's itunes:episodeType; a near miss is named. */
static void read_type(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    re_episode_type type = re_episode_type_from_name(v->text, v->len);

    if (type != RE_EPISODE_TYPE_UNSET) {
        episode_of(kf)->type = type;
        return;
    }
    const char *near = NULL;
    size_t best = 3;   /* at most 2 edits away, as for keys */
    for (int t = RE_EPISODE_FULL; t <= RE_EPISODE_BONUS; t++) {
        size_t d = re_edit_distance(v->text, v->len, type_names[t]);
        if (d < best) {
            best = d;
            near = type_names[t];
        }
    }
    re_parse_error(re_keyfile_errors(kf), v->line, v->col, "type '%s' is not one of: full, trailer, "
                   "bonus%s%s%s", re_quote(q, v->text, v->len), near ? " (did you mean '" : "",
                   near ? near : "", near ? "'?)" : "");
}

/* The episode's output rate, one of the rates the program renders at. */
static void read_sample_rate(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    unsigned long rate = 0;
    size_t i = 0;

    for (; i < v->len && re_is_digit(v->text[i]) && rate < 1000000; i++)
        rate = rate * 10 + (unsigned long)(v->text[i] - '0');
    if (i < v->len || !re_rate_supported((unsigned)rate))
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "sample_rate must be " RE_RATES_TEXT
                       ", got '%s'", re_quote(q, v->text, v->len));
    else
        episode_of(kf)->sample_rate = (unsigned)rate;
}

/* A file named by the front matter (a lexicon, a sound, the music bed): kept as written with
 * where it stands; resolved against the script's folder, confined and read when rendering. */
static void read_path(keyfile *kf, const keyfile_value *v, char **field, unsigned *line,
                      unsigned *col)
{
    re_keyfile_copy(kf, field, v, 0);
    *line = v->line;
    *col = v->col;
}

static void read_lexicon(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    read_path(kf, v, &ep->lexicon, &ep->lexicon_line, &ep->lexicon_col);
}

/* `intro:`, `outro:` (format 1.1): sound files played before and after everything. */
static void read_intro(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    read_path(kf, v, &ep->intro, &ep->intro_line, &ep->intro_col);
}

static void read_outro(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    read_path(kf, v, &ep->outro, &ep->outro_line, &ep->outro_col);
}

/* `music:` (format 1.1): the music bed (run/music.h). */
static void read_music(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    read_path(kf, v, &ep->music.file, &ep->music.line, &ep->music.col);
}

/* `image:`: the episode's own cover art (run/cover.h), a JPEG or PNG file. */
static void read_image(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    read_path(kf, v, &ep->image, &ep->image_line, &ep->image_col);
}

/* A front-matter duration as a pause writes it (`1.5s`, `800ms`), min_us to 600 s: 1 with
 * *us, or 0 after an error naming the key; `example` is the message's "write e.g.". */
static int front_matter_duration(keyfile *kf, const keyfile_value *v, uint64_t min_us,
                                 const char *example, uint64_t *us)
{
    char q[QUOTE_SIZE];
    size_t at = 0, num = 0, num_len = 0;
    uint64_t unit_us = 0;
    const char *why = re_duration_syntax(v->text, v->len, &at, &num, &num_len, &unit_us);

    if (!why && re_skip_blanks(v->text, v->len, at) != v->len)
        why = "unexpected text after the unit";
    if (why) {
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "%s '%s' is not a duration: %s; write "
                       "e.g. %s", v->key->name, re_quote(q, v->text, v->len), why, example);
        return 0;
    }
    return re_checked_duration_from(re_keyfile_context(kf), v->key->name, min_us, v->text + num,
                                    num_len, unit_us, v->line, v->col, us);
}

/* `intro_overlap:` (format 1.1): a duration as a pause writes it, 1 ms to 600 s. */
static void read_intro_overlap(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    uint64_t us = 0;

    if (front_matter_duration(kf, v, RE_PAUSE_MIN_US, "1.5s or 800ms", &us)) {
        ep->intro_overlap_us = us;
        ep->intro_overlap_line = v->line;
        ep->intro_overlap_col = v->col;
    }
}

/* `sound_gap:` (format 1.1): the silence between speech and a sound file, 0 s (none) to
 * 600 s; the script's own `[pause]` next to a sound replaces it there (render.c). */
static void read_sound_gap(keyfile *kf, const keyfile_value *v)
{
    re_episode *ep = episode_of(kf);
    uint64_t us = 0;

    if (front_matter_duration(kf, v, 0, "0.5s, 250ms or 0s", &us)) {
        ep->sound_gap_us = us;
        ep->sound_gap_line = v->line;
        ep->sound_gap_col = v->col;
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
    size_t u = re_skip_blanks(value, len, i);
    if (u < len && !(len - u == strlen(unit) && strncasecmp(value + u, unit, len - u) == 0))
        return 0;
    *number = strtod(digits, NULL);
    return 1;
}

static void read_music_level(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    double lufs = 0;

    if (!number_with_unit(v->text, v->len, "LUFS", &lufs) || lufs < RE_MUSIC_LEVEL_MIN_LUFS
        || lufs > RE_MUSIC_LEVEL_MAX_LUFS)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "music_level must be a loudness from %g "
                       "to %g LUFS like '-24 LUFS', got '%s'", RE_MUSIC_LEVEL_MIN_LUFS,
                       RE_MUSIC_LEVEL_MAX_LUFS, re_quote(q, v->text, v->len));
    else
        episode_of(kf)->music.level_lufs = lufs;
}

static void read_duck(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    double db = 0;

    if (!number_with_unit(v->text, v->len, "dB", &db) || v->text[0] == '-'
        || db > RE_MUSIC_DUCK_MAX_DB)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "duck must be a level from 0 to %g dB "
                       "like '12 dB', got '%s'", RE_MUSIC_DUCK_MAX_DB, re_quote(q, v->text, v->len));
    else
        episode_of(kf)->music.duck_db = db;
}

/* `fade: 2s`, `1.5s`, `500ms`, `0s`: exact to the microsecond, as a pause. */
static void read_fade(keyfile *kf, const keyfile_value *v)
{
    char q[QUOTE_SIZE];
    const char *value = v->text;
    size_t len = v->len, i = 0;

    while (i < len && re_is_digit(value[i]))
        i++;
    size_t num_len = i;
    if (i > 0 && i < len && value[i] == '.') {
        size_t frac = ++i;
        while (i < len && re_is_digit(value[i]))
            i++;
        num_len = i > frac ? i : 0;
    }
    size_t u = re_skip_blanks(value, len, i);
    uint64_t unit_us = len - u == 2 && memcmp(value + u, "ms", 2) == 0 ? 1000
                     : len - u == 1 && value[u] == 's' ? 1000000 : 0;
    uint64_t us = 0;
    const char *why = num_len && unit_us ? re_pause_us(value, num_len, unit_us, &us)
                                         : "not a duration";
    if (why || us > RE_MUSIC_FADE_MAX_US)
        re_parse_error(re_keyfile_errors(kf), v->line, v->col, "fade must be a duration from 0s to "
                       "%llus like '2s' or '500ms', got '%s'%s%s", RE_MUSIC_FADE_MAX_US / 1000000,
                       re_quote(q, value, len), why && num_len && unit_us ? ": " : "",
                       why && num_len && unit_us ? why : "");
    else
        episode_of(kf)->music.fade_us = us;
}

#define TEXT_KEY(name, field) { name, KEY_TEXT, offsetof(re_episode, field), 0, 0, 0, NULL, NULL }
#define CALL_KEY(name, reader) { name, KEY_CALL, 0, 0, 0, 0, NULL, reader }

/* The keys in the order the "known keys" message lists them. */
static const keyfile_key front_matter_keys[] = {
    TEXT_KEY("title", title),
    TEXT_KEY("show", show),
    CALL_KEY("published", read_published),
    TEXT_KEY("summary", summary),
    TEXT_KEY("author", author),
    CALL_KEY("language", read_language),
    CALL_KEY("voice", read_voice),
    { "episode", KEY_LONG, offsetof(re_episode, episode_number), 0, EPISODE_MAX, 1, NULL, NULL },
    { "season", KEY_LONG, offsetof(re_episode, season), 1, EPISODE_MAX, 1, NULL, NULL },
    CALL_KEY("guid", read_guid),
    CALL_KEY("type", read_type),
    CALL_KEY("image", read_image),
    CALL_KEY("lexicon", read_lexicon),
    CALL_KEY("sample_rate", read_sample_rate),
    CALL_KEY("intro", read_intro),
    CALL_KEY("outro", read_outro),
    CALL_KEY("intro_overlap", read_intro_overlap),
    CALL_KEY("sound_gap", read_sound_gap),
    CALL_KEY("music", read_music),
    CALL_KEY("music_level", read_music_level),
    CALL_KEY("duck", read_duck),
    CALL_KEY("fade", read_fade),
};

static const keyfile_syntax front_matter = {
    .keys = front_matter_keys,
    .key_count = sizeof front_matter_keys / sizeof front_matter_keys[0],
    .separator = ':',
    .key_noun = "front-matter key",
    .pair_hint = "'key: value' in the front matter",
    .collapse_blanks = 1,
};

/* What the keys say together: an intro_overlap needs an intro, a bed's settings a bed. */
static void check_front_matter(parser *p, const keyfile *kf, unsigned closing_line)
{
    static const char *const bed_settings[] = { "music_level", "duck", "fade" };

    if (!p->ep->title && !re_keyfile_where(kf, "title", NULL, NULL) && !p->markdown)
        re_parse_error(&p->err, closing_line, 1, "the front matter has no title: add a line "
                       "'title: ...' before this '---'");
    if (p->ep->intro_overlap_us && !re_keyfile_where(kf, "intro", NULL, NULL))
        re_parse_error(&p->err, p->ep->intro_overlap_line, p->ep->intro_overlap_col, "intro_overlap "
                       "needs an intro: add a line 'intro: FILE'");
    for (size_t i = 0; i < sizeof bed_settings / sizeof bed_settings[0]; i++) {
        unsigned col = 0;
        int valued = 0;
        unsigned line = re_keyfile_where(kf, bed_settings[i], &col, &valued);
        if (valued && !re_keyfile_where(kf, "music", NULL, NULL))
            re_parse_error(&p->err, line, col, "'%s' is set but there is no music bed: add a line "
                           "'music: FILE' or remove it", bed_settings[i]);
    }
}

int re_parse_front_matter(parser *p, line_reader *r, unsigned *closing_line)
{
    line_reader scan = *r;
    const char *line;
    size_t len;

    if (!re_next_line(&scan, &line, &len) || !re_is_delimiter_line(line, len)) {
        re_parse_error(&p->err, 1, 1, "a script starts with front matter: a line '---'");
        return 0;
    }
    /* Find the end first: without it every later line would be misread as a key. */
    int closed = 0;
    while (!closed && re_next_line(&scan, &line, &len))
        closed = re_is_delimiter_line(line, len);
    if (!closed) {
        re_parse_error(&p->err, 1, 1, "the front matter is not closed: add a line '---' after it");
        return 0;
    }
    *closing_line = scan.number;
    keyfile kf;
    re_keyfile_init(&kf, &front_matter, &p->err, p->ep, p);
    re_next_line(r, &line, &len);
    while (re_next_line(r, &line, &len) && r->number < *closing_line) {
        if (!re_line_too_long(p, len, r->number))
            re_keyfile_line(&kf, line, len, r->number);
    }
    check_front_matter(p, &kf, *closing_line);
    return 1;
}
