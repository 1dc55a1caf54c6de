/* SPDX-License-Identifier: GPL-3.0-or-later */
/* voice.c - voice profiles: the NAME.voice parser, and the set of folders profiles are
 * looked up in (each profile parsed once and kept for the life of the set). */
#include "voice.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "files.h"
#include "keyfile.h"
#include "parse_errors.h"
#include "text.h"
#include "utf8.h"

#define VOICE_FILE_MAX (64u << 10)   /* a profile is a dozen lines; anything bigger is a mistake */
#define VOICE_NAME_MAX 64

/* State of one profile parse. */
typedef struct profile_parser {
    parse_errors err;
    re_voice_profile *profile;
    unsigned voice_col;   /* the column of the voice's value, for an error found later */
} profile_parser;

int re_voice_name_valid(const char *name)
{
    size_t n = 0;

    for (; name[n]; n++) {
        char c = name[n];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return n >= 1 && n <= VOICE_NAME_MAX;
}

/* espeak-ng voice names are language tags plus a `+variant`; whether it exists is the
 * engine's question, asked later. */
static int engine_voice_valid(const char *s, size_t len)
{
    if (len < 1 || len > VOICE_NAME_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
              || c == '_' || c == '+' || c == '-'))
            return 0;
    }
    return 1;
}

/* By re_voice_engine: the names a profile's `engine` takes. */
static const char *const engines[RE_VOICE_ENGINE_COUNT + 1] = { "espeak-ng", "flite", NULL };
static const char *const flite_voices[] = { "rms", "slt", "awb", NULL };

const char *re_voice_engine_name(re_voice_engine engine)
{
    return engines[engine < RE_VOICE_ENGINE_COUNT ? engine : RE_VOICE_ESPEAK_NG];
}

const char *re_voice_profile_language(const re_voice_profile *profile)
{
    return profile->engine == RE_VOICE_FLITE ? "en-us" : profile->engine_voice;
}

static void read_engine(keyfile *kf, const keyfile_value *v)
{
    profile_parser *p = re_keyfile_context(kf);
    char q[QUOTE_SIZE];

    for (size_t i = 0; engines[i]; i++) {
        if (strlen(engines[i]) == v->len && memcmp(engines[i], v->text, v->len) == 0) {
            p->profile->engine = (re_voice_engine)i;
            return;
        }
    }
    re_parse_error(&p->err, v->line, v->col, "engine '%s' is not one of espeak-ng, flite",
                   re_quote(q, v->text, v->len));
}

/* The voice is checked against the engine once the whole file is read (the engine key may
 * come after it): here only its shape. */
static void read_engine_voice(keyfile *kf, const keyfile_value *v)
{
    profile_parser *p = re_keyfile_context(kf);
    char q[QUOTE_SIZE];

    if (!engine_voice_valid(v->text, v->len))
        re_parse_error(&p->err, v->line, v->col, "voice '%s' is not a voice name (letters, "
                       "digits, '_', '+' and '-', at most 64)", re_quote(q, v->text, v->len));
    else if (re_keyfile_copy(kf, &p->profile->engine_voice, v, 0))
        p->voice_col = v->col;
}

/* The cast roles of the Podcast Taxonomy (podcast:person's `role`), as voice.h lists them. */
static const char *const roles[] = { "host", "co-host", "guest", "guest host", "narrator",
                                     "announcer", "voice actor", "reporter", NULL };

#define INT_KEY(name, field, min, max, step) \
    { name, KEY_INT, offsetof(re_voice_profile, field), min, max, step, NULL, NULL }

/* name, kind, field, range, step (the engine counts the word gap in 10 ms), words, reader */
static const keyfile_key voice_keys[] = {
    { "engine", KEY_CALL, 0, 0, 0, 0, NULL, read_engine },
    { "voice", KEY_CALL, 0, 0, 0, 0, NULL, read_engine_voice },
    { "speaker", KEY_TEXT, offsetof(re_voice_profile, speaker), 0, 0, 0, NULL, NULL },
    { "role", KEY_WORD, offsetof(re_voice_profile, role), 0, 0, 0, roles, NULL },
    INT_KEY("rate", rate, 80, 450, 1),
    INT_KEY("pitch", pitch, 0, 99, 1),
    INT_KEY("range", range, 0, 99, 1),
    INT_KEY("volume", volume, 0, 200, 1),
    INT_KEY("word_gap", word_gap_ms, 0, 1000, 10),
    INT_KEY("sentence_pause", sentence_pause_ms, 0, 10000, 1),
    INT_KEY("paragraph_pause", paragraph_pause_ms, 0, 60000, 1),
};

static const keyfile_syntax voice_syntax = {
    .keys = voice_keys,
    .key_count = sizeof voice_keys / sizeof voice_keys[0],
    .separator = '=',
    .key_noun = "key",
    .pair_hint = "'key = value'",
};

static void profile_defaults(re_voice_profile *profile)
{
    profile->rate = 175;
    profile->pitch = 50;
    profile->range = 50;
    profile->volume = 100;
    profile->word_gap_ms = 0;
    profile->sentence_pause_ms = 400;
    profile->paragraph_pause_ms = 800;
}

/* A flite profile: its voice is one of flite's, and no key asks what flite cannot do. An
 * unknown voice is its value's error (at the value, as keyfile.h has it); word_gap is its
 * key's. */
static void check_flite(keyfile *kf, profile_parser *p)
{
    unsigned col, line = re_keyfile_where(kf, "voice", NULL, NULL);
    const char *voice = p->profile->engine_voice;
    size_t i = 0;
    while (voice && flite_voices[i] && strcmp(flite_voices[i], voice) != 0)
        i++;
    if (voice && !flite_voices[i])
        re_parse_error(&p->err, line, p->voice_col, "flite has no voice '%s' (its voices: %s)",
                       voice, RE_VOICE_FLITE_VOICES);
    if ((line = re_keyfile_where(kf, "word_gap", &col, NULL)) != 0)
        re_parse_error(&p->err, line, col, "flite cannot put a gap between words: 'word_gap' is "
                       "for espeak-ng profiles (a pause between sentences is 'sentence_pause')");
}

void re_voice_profile_clear(re_voice_profile *profile)
{
    if (!profile)
        return;
    free(profile->name);
    free(profile->engine_voice);
    free(profile->speaker);
    free(profile->role);
    memset(profile, 0, sizeof *profile);
}

re_status re_voice_profile_parse(const char *file, const char *buf, size_t len, const char *name,
                                 re_voice_profile *out, re_diagnostics *diag)
{
    profile_parser p = { .err = { .file = file, .diag = diag }, .profile = out };
    int decodable;
    re_status status;

    if (!out || !diag || !name || (!buf && len > 0))
        return RE_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!re_voice_name_valid(name))
        return RE_ERR_INVALID;
    size_t bom = re_utf8_bom_length(buf, len);
    status = re_utf8_check_text(file, buf + bom, len - bom, &decodable, diag);
    if (status == RE_ERR_NOMEM)
        goto fail;
    p.err.count = status == RE_ERR_INPUT;
    if (!decodable)
        goto fail;
    profile_defaults(out);
    keyfile kf;
    re_keyfile_init(&kf, &voice_syntax, &p.err, out, &p);
    re_keyfile_lines(&kf, buf + bom, len - bom);
    if (!re_keyfile_where(&kf, "voice", NULL, NULL) && !p.err.nomem) {
        re_parse_error(&p.err, 0, 0, "the profile has no 'voice' key (the engine's voice, e.g. "
                     "voice = en-us for espeak-ng, voice = rms for flite)");
    }
    if (out->engine == RE_VOICE_FLITE && !p.err.nomem)
        check_flite(&kf, &p);
    if (p.err.nomem) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    status = p.err.count ? RE_ERR_INPUT : RE_OK;
    if (status != RE_OK)
        goto fail;
    out->name = strdup(name);
    if (!out->speaker)
        out->speaker = strdup(name);
    if (!out->name || !out->speaker) {
        status = RE_ERR_NOMEM;
        goto fail;
    }
    return RE_OK;
fail:
    re_voice_profile_clear(out);
    return status == RE_OK ? RE_ERR_INPUT : status;
}

/* A profile looked up once: loaded, or found but broken (so its errors are reported once). */
typedef struct voice_entry {
    char *name;
    char *path;
    re_voice_lookup state;
    re_voice_profile profile;
} voice_entry;

struct re_voice_set {
    char **dirs;
    size_t dir_count;
    char *search_path;       /* dirs joined with ", " for messages */
    voice_entry **entries;   /* pointers, so profiles handed out never move */
    size_t entry_count;
    size_t entry_capacity;
};

re_status re_voice_set_create(re_voice_set **out)
{
    if (!out)
        return RE_ERR_INVALID;
    *out = calloc(1, sizeof **out);
    return *out ? RE_OK : RE_ERR_NOMEM;
}

static char *join_dirs(char **dirs, size_t count)
{
    size_t total = 1;
    char *text;

    for (size_t i = 0; i < count; i++)
        total += strlen(dirs[i]) + 2;
    text = malloc(total);
    if (!text)
        return NULL;
    text[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            strcat(text, ", ");
        strcat(text, dirs[i]);
    }
    return text;
}

re_status re_voice_set_add_dir(re_voice_set *set, const char *dir)
{
    if (!set || !dir || !dir[0])
        return RE_ERR_INVALID;
    char **dirs = realloc(set->dirs, (set->dir_count + 1) * sizeof *dirs);
    if (!dirs)
        return RE_ERR_NOMEM;
    set->dirs = dirs;
    dirs[set->dir_count] = strdup(dir);
    if (!dirs[set->dir_count])
        return RE_ERR_NOMEM;
    char *path_text = join_dirs(dirs, set->dir_count + 1);
    if (!path_text) {
        free(dirs[set->dir_count]);
        return RE_ERR_NOMEM;
    }
    set->dir_count++;
    free(set->search_path);
    set->search_path = path_text;
    return RE_OK;
}

const char *re_voice_set_search_path(const re_voice_set *set)
{
    return set->search_path ? set->search_path : "no folders";
}

static voice_entry *cached_entry(const re_voice_set *set, const char *name)
{
    for (size_t i = 0; i < set->entry_count; i++) {
        if (strcmp(set->entries[i]->name, name) == 0)
            return set->entries[i];
    }
    return NULL;
}

const char *re_voice_set_file(const re_voice_set *set, const char *name)
{
    const voice_entry *entry = cached_entry(set, name);
    return entry ? entry->path : NULL;
}

static void entry_free(voice_entry *entry)
{
    if (!entry)
        return;
    free(entry->name);
    free(entry->path);
    re_voice_profile_clear(&entry->profile);
    free(entry);
}

/* DIR/NAME.voice, without doubling a slash the folder already ends with. */
static char *profile_path(const char *dir, const char *name)
{
    size_t dir_len = strlen(dir);
    const char *sep = dir[dir_len - 1] == '/' ? "" : "/";
    size_t size = dir_len + strlen(name) + sizeof "/.voice";
    char *path = malloc(size);

    if (path)
        snprintf(path, size, "%s%s%s.voice", dir, sep, name);
    return path;
}

/* First DIR/NAME.voice that exists in the search path, or NULL in *path when none does. */
static re_status locate(const re_voice_set *set, const char *name, char **path)
{
    struct stat st;

    *path = NULL;
    for (size_t i = 0; i < set->dir_count; i++) {
        char *candidate = profile_path(set->dirs[i], name);
        if (!candidate)
            return RE_ERR_NOMEM;
        /* Anything there but "no such file" (a directory, no permission) is the profile the
         * user meant, so it is read and its problem reported rather than skipped. */
        if (stat(candidate, &st) == 0 || (errno != ENOENT && errno != ENOTDIR)) {
            *path = candidate;
            return RE_OK;
        }
        free(candidate);
    }
    return RE_OK;
}

re_status re_voice_set_nearest(const re_voice_set *set, const char *name, char *out)
{
    size_t best = 3;   /* more than 2 edits away is not a suggestion */
    out[0] = '\0';
    for (size_t i = 0; i < set->dir_count; i++) {
        DIR *dir = opendir(set->dirs[i]);
        if (!dir)
            continue;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            size_t n = strlen(e->d_name);
            if (n <= 6 || n - 6 > RE_VOICE_NAME_MAX || strcmp(e->d_name + n - 6, ".voice") != 0)
                continue;
            char candidate[RE_VOICE_NAME_MAX + 1];
            memcpy(candidate, e->d_name, n - 6);
            candidate[n - 6] = '\0';
            if (!re_voice_name_valid(candidate) || strcmp(candidate, name) == 0)
                continue;
            size_t d = re_edit_distance(name, strlen(name), candidate);
            if (d < best || (d == best && d < 3 && strcmp(candidate, out) < 0)) {
                best = d;
                memcpy(out, candidate, n - 5);
            }
        }
        closedir(dir);
    }
    return RE_OK;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

re_status re_voice_set_names(const re_voice_set *set, char ***names, size_t *count)
{
    char **list = NULL;
    size_t n = 0, capacity = 0;
    re_status status = RE_OK;
    *names = NULL;
    *count = 0;
    for (size_t i = 0; status == RE_OK && i < set->dir_count; i++) {
        DIR *dir = opendir(set->dirs[i]);
        if (!dir)
            continue;
        struct dirent *e;
        while (status == RE_OK && (e = readdir(dir)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len <= 6 || len - 6 > RE_VOICE_NAME_MAX
                || strcmp(e->d_name + len - 6, ".voice") != 0)
                continue;
            char *name = strndup(e->d_name, len - 6);
            if (name && !re_voice_name_valid(name)) {
                free(name);
                continue;
            }
            status = name ? re_array_grow(&list, &capacity, n, sizeof *list) : RE_ERR_NOMEM;
            if (status == RE_OK)
                list[n++] = name;
            else
                free(name);
        }
        closedir(dir);
    }
    if (n > 1)
        qsort(list, n, sizeof *list, compare_names);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && strcmp(list[kept - 1], list[i]) == 0)
            free(list[i]);
        else
            list[kept++] = list[i];
    }
    if (status != RE_OK) {
        for (size_t i = 0; i < kept; i++)
            free(list[i]);
        free(list);
        return status;
    }
    *names = list;
    *count = kept;
    return RE_OK;
}

static re_status load_entry(const char *name, char *path, voice_entry **out,
                            re_diagnostics *diag)
{
    voice_entry *entry = calloc(1, sizeof *entry);
    char *buf = NULL;
    size_t len = 0;
    re_status status = RE_ERR_NOMEM;

    if (!entry)
        goto fail;
    entry->path = path;
    path = NULL;
    entry->name = strdup(name);
    if (!entry->name)
        goto fail;
    status = re_file_read(entry->path, VOICE_FILE_MAX, RE_READ_ANY, &buf, &len, diag);
    if (status == RE_OK)
        status = re_voice_profile_parse(entry->path, buf, len, name, &entry->profile, diag);
    if (status == RE_ERR_NOMEM)
        goto fail;
    entry->state = status == RE_OK ? RE_VOICE_LOADED : RE_VOICE_BROKEN;
    free(buf);
    *out = entry;
    return RE_OK;
fail:
    free(path);
    free(buf);
    entry_free(entry);
    return status;
}

static re_status remember(re_voice_set *set, voice_entry *entry)
{
    if (set->entry_count == set->entry_capacity) {
        size_t cap = set->entry_capacity ? set->entry_capacity * 2 : 8;
        voice_entry **entries = realloc(set->entries, cap * sizeof *entries);
        if (!entries)
            return RE_ERR_NOMEM;
        set->entries = entries;
        set->entry_capacity = cap;
    }
    set->entries[set->entry_count++] = entry;
    return RE_OK;
}

re_status re_voice_set_find(re_voice_set *set, const char *name, const re_voice_profile **out,
                            re_voice_lookup *how, re_diagnostics *diag)
{
    voice_entry *entry;
    char *path;
    re_status status;

    if (!set || !name || !out || !how || !diag)
        return RE_ERR_INVALID;
    *out = NULL;
    *how = RE_VOICE_BAD_NAME;
    if (!re_voice_name_valid(name))
        return RE_ERR_INPUT;
    entry = cached_entry(set, name);
    if (!entry) {
        *how = RE_VOICE_MISSING;
        status = locate(set, name, &path);
        if (status != RE_OK || !path)
            return status == RE_OK ? RE_ERR_INPUT : status;
        status = load_entry(name, path, &entry, diag);
        if (status == RE_OK && (status = remember(set, entry)) != RE_OK)
            entry_free(entry);
        if (status != RE_OK)
            return status;
    }
    *how = entry->state;
    if (entry->state != RE_VOICE_LOADED)
        return RE_ERR_INPUT;
    *out = &entry->profile;
    return RE_OK;
}

re_status re_voice_set_get(re_voice_set *set, const char *name, const re_voice_profile **out,
                           re_diagnostics *diag)
{
    re_voice_lookup how;
    int was_cached = set && name && cached_entry(set, name);
    re_status status = re_voice_set_find(set, name, out, &how, diag);
    re_status added = RE_OK;

    if (status != RE_ERR_INPUT)
        return status;
    if (how == RE_VOICE_BAD_NAME)
        added = re_diag_add(diag, NULL, 0, 0, "invalid voice profile name '%s' (names are "
                            "a-z, 0-9, '_' and '-', at most 64)", name);
    else if (how == RE_VOICE_MISSING)
        added = re_diag_add(diag, NULL, 0, 0, "unknown voice profile '%s' (looked in: %s)",
                            name, re_voice_set_search_path(set));
    else if (was_cached)   /* its errors were reported when it was read: point back to them */
        added = re_diag_add(diag, cached_entry(set, name)->path, 0, 0,
                            "voice profile '%s' is invalid (see its errors above)", name);
    return added == RE_OK ? RE_ERR_INPUT : RE_ERR_NOMEM;
}

void re_voice_set_free(re_voice_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->dir_count; i++)
        free(set->dirs[i]);
    for (size_t i = 0; i < set->entry_count; i++)
        entry_free(set->entries[i]);
    free(set->dirs);
    free(set->entries);
    free(set->search_path);
    free(set);
}
