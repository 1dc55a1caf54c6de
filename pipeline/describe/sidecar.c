/* sidecar.c - the render's facts as JSON, written with jansson (see sidecar.h). */
#define _GNU_SOURCE
#include "sidecar.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "duration.h"
#include "output.h"

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

static json_t *voices_json(const re_render_facts *f)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < f->voice_count; i++) {
        const re_voice_profile *v = f->voices[i];
        json_t *item = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i}",
                                 "name", v->name, "speaker", v->speaker, "voice", v->engine_voice,
                                 "rate", v->rate, "pitch", v->pitch, "range", v->range,
                                 "volume", v->volume, "word_gap", v->word_gap_ms,
                                 "sentence_pause", v->sentence_pause_ms,
                                 "paragraph_pause", v->paragraph_pause_ms);
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
    failed |= set(root, "author", string_or_null(ep->author));
    failed |= set(root, "language", json_string(ep->language));
    failed |= set(root, "episode", ep->episode_number >= 0
                                       ? json_integer(ep->episode_number) : json_null());
    failed |= set(root, "duration", json_string(iso));
    failed |= set(root, "duration_ms", json_integer((json_int_t)re_samples_to_ms(f->samples, f->sample_rate)));
    failed |= set(root, "samples", json_integer((json_int_t)f->samples));
    failed |= set(root, "sample_rate", json_integer(f->sample_rate));
    failed |= set(root, "bytes", json_integer((json_int_t)f->bytes));
    failed |= set(root, "format", json_string(f->format));
    failed |= set(root, "chapters", chapters_json(f));
    failed |= set(root, "loudness", loudness_json(f));
    failed |= set(root, "voices", voices_json(f));
    failed |= set(root, "engine", json_string(f->engine));
    failed |= set(root, "encoder", json_string(f->encoder));
    failed |= set(root, "generator", json_string(generator));
    failed |= set(root, "inputs_sha256", string_or_null(f->inputs_sha256));
    if (failed) {
        json_decref(root);
        return RE_ERR_NOMEM;
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (rc != 0 || fputc('\n', out) == EOF || ferror(out))
        return RE_ERR_WRITE;
    return RE_OK;
}

char *re_sidecar_path(const char *output_path)
{
    return re_output_sibling(output_path, ".json");
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
