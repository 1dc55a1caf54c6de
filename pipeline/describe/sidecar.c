/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sidecar.c - the render's facts as JSON, written and read back with jansson (see sidecar.h). */
#define _GNU_SOURCE
#include "sidecar.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "datetime.h"
#include "duration.h"
#include "files.h"
#include "hex.h"
#include "markdown.h"
#include "output.h"
#include "text.h"
#include "utf8.h"

static json_t *string_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *chapters_json(const re_render_facts *f)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < f->chapter_count; i++) {
        const re_chapter_mark *c = &f->chapters[i];
        json_t *item = json_pack("{s:s, s:I, s:I}", "title", c->title,
                                 "start_ms", (json_int_t)re_samples_to_ms(c->start, f->sample_rate),
                                 "end_ms", (json_int_t)re_samples_to_ms(c->end, f->sample_rate));
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *inserts_json(const re_render_facts *f)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < f->insert_count; i++) {
        const re_sidecar_insert *in = &f->inserts[i];
        char hex[RE_SHA256_HEX_SIZE];
        re_sha256_hex(in->sha256, hex);
        json_t *item = json_pack("{s:s, s:s, s:I, s:I, s:I, s:s}", "kind", in->kind,
                                 "file", in->file, "start", (json_int_t)in->start,
                                 "samples", (json_int_t)in->samples,
                                 "start_ms", (json_int_t)re_samples_to_ms(in->start, f->sample_rate),
                                 "sha256", hex);
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* The role a voice gets in the sidecar (see re_sidecar_person). */
static const char *sidecar_role(const re_voice_profile *voice, const char *default_voice)
{
    if (voice->role)
        return voice->role;
    return default_voice && strcmp(voice->name, default_voice) == 0 ? "host" : "guest";
}

static json_t *voices_json(const re_render_facts *f)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < f->voice_count; i++) {
        const re_voice_profile *v = f->voices[i];
        json_t *item = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
                                 "name", v->name, "speaker", v->speaker,
                                 "role", sidecar_role(v, f->episode->voice),
                                 "voice", v->engine_voice,
                                 "rate", v->rate, "pitch", v->pitch, "range", v->range,
                                 "volume", v->volume, "word_gap", v->word_gap_ms,
                                 "sentence_pause", v->sentence_pause_ms,
                                 "paragraph_pause", v->paragraph_pause_ms);
        /* said only when it is not espeak-ng, so that sidecars from before flite read alike */
        if (item && v->engine != RE_VOICE_ESPEAK_NG
            && json_object_set_new(item, "engine",
                                   json_string(re_voice_engine_name(v->engine))) != 0) {
            json_decref(item);
            item = NULL;
        }
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *files_json(const re_render_facts *f)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < f->file_count; i++) {
        const re_sidecar_file *file = &f->files[i];
        json_t *item = json_pack("{s:s, s:I, s:s}", "name", file->name,
                                 "bytes", (json_int_t)file->bytes, "sha256", file->sha256);
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* Two decimals, as a JSON number; null for -inf (silence) or no value. */
static json_t *decibels(double value, int present)
{
    if (!present || !isfinite(value))
        return json_null();
    return json_real(round(value * 100.0) / 100.0);
}

static json_t *loudness_json(const re_render_facts *f)
{
    const re_loudness *l = f->loudness;
    const re_loudness_plan *p = f->loudness_plan;
    if (!l)
        return json_null();
    json_t *obj = json_object();
    if (!obj)
        return NULL;
    int failed = 0;
    failed |= json_object_set_new(obj, "integrated_lufs", decibels(l->integrated_lufs, 1));
    failed |= json_object_set_new(obj, "range_lu", decibels(l->range_lu, 1));
    failed |= json_object_set_new(obj, "true_peak_dbtp", decibels(l->true_peak_dbtp, 1));
    failed |= json_object_set_new(obj, "target_lufs", decibels(p ? p->target_lufs : 0, p != NULL));
    failed |= json_object_set_new(obj, "ceiling_dbtp", decibels(p ? p->ceiling_dbtp : 0, p != NULL));
    failed |= json_object_set_new(obj, "gain_db", decibels(p ? p->gain_db : 0, p != NULL));
    failed |= json_object_set_new(obj, "met", p ? json_boolean(p->met) : json_null());
    if (failed) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static int set(json_t *obj, const char *key, json_t *value)
{
    return value ? json_object_set_new(obj, key, value) : -1;
}

static json_t *music_json(const re_sidecar_music *m)
{
    json_t *obj = json_pack("{s:s, s:s}", "file", m->file, "sha256", m->sha256);
    int failed = !obj;
    if (obj) {
        failed |= set(obj, "level_lufs", decibels(m->level_lufs, 1));
        failed |= set(obj, "duck_db", decibels(m->duck_db, 1));
        failed |= set(obj, "fade_s", json_real(round(m->fade_s * 1e6) / 1e6));
        failed |= set(obj, "bed_lufs", decibels(m->bed_lufs, 1));
        failed |= set(obj, "speech_lufs", decibels(m->speech_lufs, 1));
        failed |= set(obj, "gain_db", decibels(m->gain_db, 1));
    }
    if (failed) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

static json_t *image_json(const re_sidecar_image *i)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:s}", "name", i->name, "source", i->source,
                     "mime", i->mime, "bytes", (json_int_t)i->bytes, "sha256", i->sha256);
}

/* The sidecar's JSON text as every writer of it spells it (re_sidecar_write, and
 * re_sidecar_with_file, which refuses a sidecar it would not give back byte for byte), its
 * final newline included: nonzero when the write fails. */
static int sidecar_dump(const json_t *root, FILE *out)
{
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    return rc != 0 || fputc('\n', out) == EOF;
}

re_status re_sidecar_write(FILE *out, const re_render_facts *f)
{
    const re_episode *ep = f->episode;
    char iso[RE_DURATION_ISO_MAX], generator[64];
    re_duration_format_iso(re_samples_to_seconds(f->samples, f->sample_rate), iso);
    snprintf(generator, sizeof generator, "render-episode %s", RE_VERSION);

    json_t *root = json_object();
    if (!root)
        return RE_ERR_NOMEM;
    int failed = 0;
    failed |= set(root, "title", json_string(ep->title));
    failed |= set(root, "show", string_or_null(ep->show));
    failed |= set(root, "published", string_or_null(ep->published));
    failed |= set(root, "summary", string_or_null(ep->summary));
    if (ep->notes && *ep->notes)   /* a Markdown script's document: the feed's show notes */
        failed |= set(root, "notes", json_string(ep->notes));
    failed |= set(root, "author", string_or_null(ep->author));
    failed |= set(root, "language", json_string(ep->language));
    failed |= set(root, "episode", ep->episode_number >= 0
                                       ? json_integer(ep->episode_number) : json_null());
    failed |= set(root, "season", ep->season >= 1 ? json_integer(ep->season) : json_null());
    failed |= set(root, "guid", string_or_null(ep->guid));
    if (ep->type != RE_EPISODE_TYPE_UNSET)   /* absent otherwise: older sidecars stay as they were */
        failed |= set(root, "type", json_string(re_episode_type_name(ep->type)));
    const char *const *key = re_sidecar_length_keys;
    failed |= set(root, key[RE_SIDECAR_DURATION], json_string(iso));
    failed |= set(root, key[RE_SIDECAR_DURATION_MS],
                  json_integer((json_int_t)re_samples_to_ms(f->samples, f->sample_rate)));
    failed |= set(root, key[RE_SIDECAR_SAMPLES], json_integer((json_int_t)f->samples));
    failed |= set(root, key[RE_SIDECAR_SAMPLE_RATE], json_integer(f->sample_rate));
    failed |= set(root, key[RE_SIDECAR_BYTES], json_integer((json_int_t)f->bytes));
    failed |= set(root, "format", json_string(f->format));
    failed |= set(root, "chapters", chapters_json(f));
    if (f->insert_count > 0)
        failed |= set(root, "inserts", inserts_json(f));
    failed |= set(root, "loudness", loudness_json(f));
    if (f->music)
        failed |= set(root, "music", music_json(f->music));
    if (f->image)
        failed |= set(root, "image", image_json(f->image));
    failed |= set(root, "voices", voices_json(f));
    failed |= set(root, "engine", json_string(f->engine));
    failed |= set(root, "encoder", json_string(f->encoder));
    failed |= set(root, "generator", json_string(generator));
    failed |= set(root, "inputs_sha256", string_or_null(f->inputs_sha256));
    failed |= set(root, "files", files_json(f));
    if (failed) {
        json_decref(root);
        return RE_ERR_NOMEM;
    }
    int failed_write = sidecar_dump(root, out);
    json_decref(root);
    if (failed_write || ferror(out))
        return RE_ERR_WRITE;
    return RE_OK;
}

char *re_sidecar_path(const char *output_path)
{
    return re_output_sibling(output_path, ".json");
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct sidecar_reader {
    const char *name;
    json_t *root;
    re_diagnostics *diag;
    int errors;
    int nomem;
} sidecar_reader;

__attribute__((format(printf, 2, 3)))
static void sidecar_error(sidecar_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->errors++;
    if (re_diag_vadd(r->diag, r->name, 0, 0, fmt, ap) != RE_OK)
        r->nomem = 1;
    va_end(ap);
}

/* A string key: copied to *out; NULL (JSON null or absent) allowed unless required. */
static void read_text(sidecar_reader *r, const char *key, int required, char **out)
{
    json_t *v = json_object_get(r->root, key);
    if (!v || json_is_null(v)) {
        if (required)
            sidecar_error(r, "the sidecar has no \"%s\" text", key);
        return;
    }
    if (!json_is_string(v)) {
        sidecar_error(r, "the sidecar's \"%s\" must be a string or null", key);
        return;
    }
    const char *s = json_string_value(v);
    if (strlen(s) != json_string_length(v) || re_utf8_xml_unsafe(s)) {
        sidecar_error(r, "the sidecar's \"%s\" holds a control character that XML cannot carry",
                      key);
        return;
    }
    if (required && *s == '\0') {
        sidecar_error(r, "the sidecar's \"%s\" is empty", key);
        return;
    }
    *out = strdup(s);
    if (!*out)
        r->nomem = 1;
}

/* "notes": a Markdown document that the feed and the page give cmark-gfm, from a file another
 * user may have written: held to what a script's document is held to before it is parsed
 * (markdown.h), its first problem reported. */
static void check_notes(sidecar_reader *r, const char *notes)
{
    re_diagnostics found;
    re_diagnostics_init(&found, 1);
    re_status st = re_markdown_vet("notes", notes, strlen(notes), &found);
    if (st == RE_ERR_NOMEM)
        r->nomem = 1;
    else if (st != RE_OK && found.count > 0)
        sidecar_error(r, "the sidecar's \"%s\" is not Markdown this program renders: at line %u, "
                      "column %u: %s", "notes", found.items[0].line, found.items[0].col,
                      found.items[0].message);
    else if (st != RE_OK)
        sidecar_error(r, "the sidecar's \"%s\" is not Markdown this program renders", "notes");
    re_diagnostics_free(&found);
}

/* An integer key in [min, max]; absent or null gives -1 when allowed. */
static int64_t read_integer(sidecar_reader *r, const char *key, int required, int64_t min,
                            int64_t max)
{
    json_t *v = json_object_get(r->root, key);
    if ((!v || json_is_null(v)) && !required)
        return -1;
    if (!v || !json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        sidecar_error(r, required ? "the sidecar's \"%s\" must be a whole number in range"
                                  : "the sidecar's \"%s\" must be a whole number in range or null",
                      key);
        return -1;
    }
    return json_integer_value(v);
}

/* "voices": each one's speaker and role (a sidecar of an older version has no role: it is
 * read as the host for the first voice, a guest for the others). */
static void read_persons(sidecar_reader *r, re_sidecar *s)
{
    json_t *list = json_object_get(r->root, "voices");
    if (!list || json_is_null(list))
        return;
    size_t n = json_array_size(list);
    if (!json_is_array(list)) {
        sidecar_error(r, "the sidecar's \"%s\" must be a list", "voices");
        return;
    }
    if (n == 0)
        return;
    if (!(s->persons = calloc(n, sizeof *s->persons))) {
        r->nomem = 1;
        return;
    }
    for (size_t i = 0; i < n && !r->nomem; i++) {
        json_t *v = json_array_get(list, i);
        const char *speaker = json_string_value(json_object_get(v, "speaker"));
        json_t *role_v = json_object_get(v, "role");
        const char *role = json_string_value(role_v);
        if (!speaker || !*speaker || re_utf8_xml_unsafe(speaker) || (role_v && !role)
            || (role && (!*role || re_utf8_xml_unsafe(role)))) {
            sidecar_error(r, "the sidecar's \"%s\" needs a speaker text (and a role text) in "
                          "each voice", "voices");
            return;
        }
        re_sidecar_person *p = &s->persons[s->person_count++];
        p->speaker = strdup(speaker);
        p->role = strdup(role ? role : i == 0 ? "host" : "guest");
        if (!p->speaker || !p->role)
            r->nomem = 1;
    }
}

static int sha256_hex_valid(const char *s)
{
    return re_hex_valid(s, RE_SHA256_HEX_SIZE - 1) && s[RE_SHA256_HEX_SIZE - 1] == '\0';
}

/* "files": the written files; each name a plain file name (no '/', not . or ..). */
static void read_files(sidecar_reader *r, re_sidecar *s)
{
    json_t *list = json_object_get(r->root, "files");
    if (!list || json_is_null(list))
        return;
    if (!json_is_array(list)) {
        sidecar_error(r, "the sidecar's \"%s\" must be a list", "files");
        return;
    }
    s->has_files = 1;
    size_t n = json_array_size(list);
    if (n == 0)
        return;
    if (!(s->files = calloc(n, sizeof *s->files))) {
        r->nomem = 1;
        return;
    }
    for (size_t i = 0; i < n && !r->nomem; i++) {
        json_t *v = json_array_get(list, i);
        const char *name = json_string_value(json_object_get(v, "name"));
        const char *hex = json_string_value(json_object_get(v, "sha256"));
        json_t *bytes = json_object_get(v, "bytes");
        if (!name || !*name || strchr(name, '/') || strcmp(name, ".") == 0
            || strcmp(name, "..") == 0 || re_utf8_xml_unsafe(name) || !hex
            || !sha256_hex_valid(hex) || !json_is_integer(bytes) || json_integer_value(bytes) < 0) {
            sidecar_error(r, "the sidecar's \"%s\" needs a file name, whole bytes and a "
                          "SHA-256 in hex in each entry", "files");
            return;
        }
        re_sidecar_file *f = &s->files[s->file_count++];
        f->bytes = (uint64_t)json_integer_value(bytes);
        memcpy(f->sha256, hex, RE_SHA256_HEX_SIZE);
        if (!(f->name = strdup(name)))
            r->nomem = 1;
    }
}

const char *const re_sidecar_length_keys[RE_SIDECAR_LENGTH_KEYS] = {
    [RE_SIDECAR_DURATION] = "duration",
    [RE_SIDECAR_DURATION_MS] = "duration_ms",
    [RE_SIDECAR_SAMPLES] = "samples",
    [RE_SIDECAR_SAMPLE_RATE] = "sample_rate",
    [RE_SIDECAR_BYTES] = "bytes",
};

int re_sidecar_generator_is_ours(const char *generator)
{
    return generator && strncmp(generator, "render-episode", 14) == 0;
}

/* Every key after "format", each problem reported, in the order they are written. */
static void read_fields(sidecar_reader *r, re_sidecar *s)
{
    read_text(r, "title", 1, &s->title);
    read_text(r, "show", 0, &s->show);
    read_text(r, "summary", 0, &s->summary);
    read_text(r, "notes", 0, &s->notes);
    if (s->notes)
        check_notes(r, s->notes);
    read_text(r, "author", 0, &s->author);
    read_text(r, "language", 0, &s->language);
    read_text(r, "published", 0, &s->published);
    s->episode = (long)read_integer(r, "episode", 0, 0, 999999);
    s->season = (long)read_integer(r, "season", 0, 1, 999999);
    read_text(r, "guid", 0, &s->guid);
    char *type = NULL;
    read_text(r, "type", 0, &type);
    if (type && (s->type = re_episode_type_from_name(type, strlen(type))) == RE_EPISODE_TYPE_UNSET)
        sidecar_error(r, "the sidecar's \"%s\" is not full, trailer or bonus", "type");
    free(type);
    const char *const *key = re_sidecar_length_keys;
    int64_t samples = read_integer(r, key[RE_SIDECAR_SAMPLES], 1, 0, INT64_MAX);
    int64_t rate = read_integer(r, key[RE_SIDECAR_SAMPLE_RATE], 1, 1, 1000000);
    int64_t bytes = read_integer(r, key[RE_SIDECAR_BYTES], 1, 0, INT64_MAX);
    s->samples = samples > 0 ? (uint64_t)samples : 0;
    s->sample_rate = rate > 0 ? (unsigned)rate : 0;
    s->bytes = bytes > 0 ? (uint64_t)bytes : 0;
    read_text(r, key[RE_SIDECAR_DURATION], 0, &s->duration);
    read_text(r, "inputs_sha256", 0, &s->inputs_sha256);
    read_persons(r, s);
    read_files(r, s);
    if (s->language && !re_language_valid(s->language, strlen(s->language)))
        sidecar_error(r, "the sidecar's \"%s\" is not a BCP 47 tag like en-us", "language");
    if (s->published) {
        char rfc822[RE_RFC822_MAX];
        s->dated = re_rfc822_from_iso(s->published, rfc822, &s->published_ms) == RE_OK;
        if (!s->dated)
            sidecar_error(r, "the sidecar's \"%s\" is not an ISO 8601 date (2026-11-30) or "
                          "date-time with a zone (2026-11-30T09:00:00Z)", "published");
    }
}

re_status re_sidecar_read(const char *path, const char *buf, size_t len, const char *format,
                          re_sidecar *sidecar, re_sidecar_found *found, re_diagnostics *diag)
{
    memset(sidecar, 0, sizeof *sidecar);
    *found = RE_SIDECAR_NOT_OURS;
    json_error_t jerr;
    /* Any JSON value at the top (RFC 8259), and \u0000 decoded, so that a NUL in a text is
     * judged as a text that cannot be published, not as invalid JSON. */
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL,
                              &jerr);
    if (!root) {
        re_status st = re_diag_add(diag, path, jerr.line > 0 ? (unsigned)jerr.line : 0,
                                   jerr.column > 0 ? (unsigned)jerr.column : 0,
                                   "not valid JSON: %s", jerr.text);
        return st == RE_OK ? RE_ERR_FORMAT : st;
    }
    if (!json_is_object(root)
        || !re_sidecar_generator_is_ours(json_string_value(json_object_get(root, "generator")))) {
        json_decref(root);
        return RE_OK;
    }
    sidecar_reader r = { .name = path, .root = root, .diag = diag };
    re_sidecar s = { .episode = -1, .season = -1 };
    const char *written = json_string_value(json_object_get(root, "format"));
    if (!written) {
        sidecar_error(&r, "the sidecar has no \"%s\" text (mp3 or wav)", "format");
    } else if (format && strcmp(written, format) != 0) {
        json_decref(root);
        *found = RE_SIDECAR_OTHER_FORMAT;
        return RE_OK;
    } else if (!(s.format = strdup(written))) {
        r.nomem = 1;
    }
    read_fields(&r, &s);
    json_decref(root);
    if (r.nomem || r.errors) {
        re_sidecar_free(&s);
        return r.nomem ? RE_ERR_NOMEM : RE_ERR_INPUT;
    }
    *sidecar = s;
    *found = RE_SIDECAR_FOUND;
    return RE_OK;
}

re_status re_sidecar_load(const char *path, const char *format, re_sidecar *sidecar,
                          re_sidecar_found *found, re_diagnostics *diag)
{
    memset(sidecar, 0, sizeof *sidecar);
    *found = RE_SIDECAR_NOT_OURS;
    char *buf = NULL;
    size_t len = 0;
    re_status status = re_file_read(path, RE_SIDECAR_MAX_SIZE, RE_READ_ANY, &buf, &len, diag);
    if (status == RE_OK)
        status = re_sidecar_read(path, buf, len, format, sidecar, found, diag);
    free(buf);
    return status;
}

void re_sidecar_free(re_sidecar *s)
{
    if (!s)
        return;
    free(s->title);
    free(s->show);
    free(s->summary);
    free(s->notes);
    free(s->author);
    free(s->language);
    free(s->published);
    free(s->duration);
    free(s->format);
    free(s->inputs_sha256);
    free(s->guid);
    for (size_t i = 0; i < s->person_count; i++) {
        free(s->persons[i].speaker);
        free(s->persons[i].role);
    }
    free(s->persons);
    for (size_t i = 0; i < s->file_count; i++)
        free(s->files[i].name);
    free(s->files);
    memset(s, 0, sizeof *s);
}

const re_sidecar_file *re_sidecar_file_find(const re_sidecar *sidecar, const char *name)
{
    for (size_t i = 0; i < sidecar->file_count; i++)
        if (strcmp(sidecar->files[i].name, name) == 0)
            return &sidecar->files[i];
    return NULL;
}

re_status re_sidecar_file_digest(int fd, uint64_t *bytes, char hex[RE_SHA256_HEX_SIZE])
{
    unsigned char digest[RE_SHA256_SIZE];
    re_status status = re_fd_sha256(fd, NULL, bytes, digest);
    if (status == RE_OK)
        re_sha256_hex(digest, hex);
    return status;
}

re_sidecar_match re_sidecar_file_match(const char *path, const re_sidecar_file *entry,
                                       uid_t *owner)
{
    struct stat st;
    int fd = re_open_trusted(path, O_RDONLY | O_NOCTTY | O_NONBLOCK, owner);
    if (fd < 0)
        return errno == EPERM ? RE_SIDECAR_FOREIGN : RE_SIDECAR_GONE;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return RE_SIDECAR_GONE;
    }
    re_sidecar_match match = RE_SIDECAR_CHANGED;
    uint64_t bytes = 0;
    char hex[RE_SHA256_HEX_SIZE];
    if ((uint64_t)st.st_size == entry->bytes && re_sidecar_file_digest(fd, &bytes, hex) == RE_OK
        && bytes == entry->bytes && strcmp(hex, entry->sha256) == 0)
        match = RE_SIDECAR_MATCH;
    close(fd);
    return match;
}

re_status re_chapters_json_write(FILE *out, const re_chapter_mark *chapters, size_t count,
                                 unsigned sample_rate)
{
    json_t *list = json_array();
    json_t *root = json_pack("{s:s, s:o}", "version", "1.2.0", "chapters", list);
    if (!root)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < count; i++) {
        double start = (double)re_samples_to_ms(chapters[i].start, sample_rate) / 1000.0;
        json_t *item = json_pack("{s:f, s:s}", "startTime", start, "title", chapters[i].title);
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(root);
            return RE_ERR_NOMEM;
        }
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
    json_decref(root);
    return rc != 0 || fputc('\n', out) == EOF ? RE_ERR_WRITE : RE_OK;
}

/* ---- rewriting one entry of "files" ------------------------------------------------------- */

/* The JSON text of root as re_sidecar_write writes it (with its final newline), malloc'ed. */
static char *sidecar_text(const json_t *root, size_t *len)
{
    char *text = NULL;
    *len = 0;
    FILE *mem = open_memstream(&text, len);
    if (!mem)
        return NULL;
    int failed = sidecar_dump(root, mem);
    if (fclose(mem) != 0 || failed) {
        free(text);
        return NULL;
    }
    return text;
}

re_status re_sidecar_with_file(const char *buf, size_t len, const char *name, uint64_t bytes,
                               const char *sha256, char **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    if (!buf || !name || !sha256 || strlen(sha256) != RE_SHA256_HEX_SIZE - 1)
        return RE_ERR_INVALID;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
    if (!root)
        return RE_ERR_FORMAT;
    /* only a sidecar that this writer gives back byte for byte: then nothing but the entry
     * changes */
    size_t again_len = 0;
    char *again = sidecar_text(root, &again_len);
    re_status status = !again ? RE_ERR_NOMEM
                       : again_len != len || memcmp(again, buf, len) != 0 ? RE_ERR_FORMAT : RE_OK;
    free(again);
    json_t *files = json_object_get(root, "files"), *entry = NULL;
    size_t i;
    json_array_foreach(files, i, entry) {
        const char *entry_name = json_string_value(json_object_get(entry, "name"));
        if (entry_name && strcmp(entry_name, name) == 0)
            break;
    }
    if (status == RE_OK && (!json_is_array(files) || i >= json_array_size(files)
                            || !json_is_integer(json_object_get(entry, "bytes"))
                            || !json_is_string(json_object_get(entry, "sha256"))))
        status = RE_ERR_FORMAT;
    if (status == RE_OK
        && (json_object_set_new(entry, "bytes", json_integer((json_int_t)bytes)) != 0
            || json_object_set_new(entry, "sha256", json_string(sha256)) != 0))
        status = RE_ERR_NOMEM;
    if (status == RE_OK && !(*out = sidecar_text(root, out_len)))
        status = RE_ERR_NOMEM;
    json_decref(root);
    return status;
}
