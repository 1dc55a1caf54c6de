/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report.c - the batch's JSON report (jansson) and JUnit XML (libxml2). */
#define _GNU_SOURCE   /* strndup */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/xmlwriter.h>

#include "duration.h"
#include "utf8.h"

const char *re_episode_state_name(re_episode_state state)
{
    switch (state) {
    case RE_EPISODE_NOT_RUN: return "not-run";
    case RE_EPISODE_RENDERED: return "rendered";
    case RE_EPISODE_UP_TO_DATE: return "up-to-date";
    case RE_EPISODE_FAILED: return "failed";
    }
    return "unknown";
}

/* An episode's error text as both reports may carry it: each line shown by re_utf8_shown (a
 * control character or a byte of invalid UTF-8 escaped), lines kept. malloc'ed or NULL. */
static char *shown_lines(const char *text)
{
    size_t cap = strlen(text) * 6 + 1, used = 0;
    char *out = malloc(cap);
    while (out) {
        size_t n = strcspn(text, "\n");
        char *line = strndup(text, n);
        char *shown = line ? re_utf8_shown(line) : NULL;
        free(line);
        if (!shown) {
            free(out);
            return NULL;
        }
        used += (size_t)snprintf(out + used, cap - used, "%s%s", shown, text[n] ? "\n" : "");
        free(shown);
        if (!text[n])
            break;
        text += n + 1;
    }
    return out;
}

/* {"parse": {"wall_s": s, "cpu_s": s}, ...} */
static json_t *steps_json(const re_step_time *steps)
{
    json_t *obj = json_object();
    for (int k = 0; obj && k < RE_STEPS; k++) {
        json_t *step = json_pack("{s:f, s:f}", "wall_s", steps[k].wall_s, "cpu_s", steps[k].cpu_s);
        if (!step || json_object_set_new(obj, re_render_step_name((re_render_step)k), step) != 0) {
            json_decref(obj);
            return NULL;
        }
    }
    return obj;
}

static json_t *episode_json(const re_batch_episode *ep, int timed)
{
    int ok = ep->state == RE_EPISODE_RENDERED || ep->state == RE_EPISODE_UP_TO_DATE;
    const re_render_result *r = &ep->result;
    /* batch refuses names that are not plain text; shown anyway, so no name can break JSON */
    char *errors = ep->errors ? shown_lines(ep->errors) : NULL;
    char *script = re_utf8_shown(ep->script), *output = re_utf8_shown(ep->output);
    json_t *item = NULL;
    if ((ep->errors && !errors) || !script || !output)
        goto done;
    item = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:o, s:o, s:f, s:I, s:I, s:I}",
                     "script", script, "output", output,
                     "status", re_episode_state_name(ep->state),
                     "error", errors,
                     "duration", ok ? r->duration : NULL,
                     "duration_ms", ok && r->sample_rate
                                        ? json_integer((json_int_t)re_samples_to_ms(r->samples, r->sample_rate))
                                        : json_null(),
                     "bytes", ok ? json_integer((json_int_t)r->bytes) : json_null(),
                     "seconds", ep->seconds,
                     "segments_synthesized", (json_int_t)r->segments_synthesized,
                     "segments_cached", (json_int_t)r->segments_cached,
                     "segments_remote", (json_int_t)r->segments_remote);
    if (item && timed) {
        json_t *steps = ok ? steps_json(r->steps) : json_null();
        if (!steps || json_object_set_new(item, "timings", steps) != 0) {
            json_decref(item);
            item = NULL;
        }
    }
done:
    free(errors);
    free(script);
    free(output);
    return item;
}

void re_report_step_sums(const re_batch *batch, re_step_time sum[RE_STEPS])
{
    memset(sum, 0, RE_STEPS * sizeof *sum);
    for (size_t i = 0; i < batch->count; i++) {
        const re_batch_episode *ep = &batch->episodes[i];
        if (ep->state != RE_EPISODE_RENDERED && ep->state != RE_EPISODE_UP_TO_DATE)
            continue;
        for (int k = 0; k < RE_STEPS; k++) {
            sum[k].wall_s += ep->result.steps[k].wall_s;
            sum[k].cpu_s += ep->result.steps[k].cpu_s;
        }
    }
}

/* "timings": the batch's wall and CPU (with its workers'), and each step summed over the
 * episodes that ran. */
static int add_timings(json_t *root, const re_batch *batch)
{
    re_step_time sum[RE_STEPS];
    re_report_step_sums(batch, sum);
    json_t *steps = steps_json(sum);
    json_t *timings = steps ? json_pack("{s:f, s:f, s:o}", "wall_s", batch->whole.wall_s,
                                        "cpu_s", batch->whole.cpu_s, "steps", steps) : NULL;
    return timings ? json_object_set_new(root, "timings", timings) : -1;
}

re_status re_report_write_json(FILE *out, const re_batch *batch)
{
    json_t *list = json_array();
    size_t counts[4] = { 0, 0, 0, 0 };
    for (size_t i = 0; list && i < batch->count; i++) {
        json_t *item = episode_json(&batch->episodes[i], batch->timed);
        counts[batch->episodes[i].state]++;
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return RE_ERR_NOMEM;
        }
    }
    json_t *root = json_pack("{s:o, s:I, s:I, s:I, s:I}", "episodes", list,
                             "rendered", (json_int_t)counts[RE_EPISODE_RENDERED],
                             "up_to_date", (json_int_t)counts[RE_EPISODE_UP_TO_DATE],
                             "failed", (json_int_t)counts[RE_EPISODE_FAILED],
                             "not_run", (json_int_t)counts[RE_EPISODE_NOT_RUN]);
    if (!root)
        return RE_ERR_NOMEM;
    if (batch->timed && add_timings(root, batch) != 0) {
        json_decref(root);
        return RE_ERR_NOMEM;
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2));
    json_decref(root);
    return rc != 0 || fputc('\n', out) == EOF ? RE_ERR_WRITE : RE_OK;
}

static int write_case(xmlTextWriterPtr w, const re_batch_episode *ep)
{
    char seconds[32];
    snprintf(seconds, sizeof seconds, "%.3f", ep->seconds);
    char *name = re_utf8_shown(ep->script);
    int rc = !name || xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0
             || xmlTextWriterWriteAttribute(w, BAD_CAST "classname", BAD_CAST "render-episode") < 0
             || xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST name) < 0
             || xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST seconds) < 0 ? -1 : 0;
    free(name);
    if (rc < 0)
        return -1;
    if (ep->state == RE_EPISODE_NOT_RUN) {
        if (xmlTextWriterStartElement(w, BAD_CAST "skipped") < 0
            || xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST "not run: the batch was interrupted") < 0
            || xmlTextWriterEndElement(w) < 0)
            return -1;
    } else if (ep->state == RE_EPISODE_FAILED) {
        char *errors = shown_lines(ep->errors ? ep->errors : re_strerror(ep->status));
        if (!errors)
            return -1;
        /* the first line, cut at 511 bytes on a character boundary */
        char message[512];
        size_t first_line = re_utf8_prefix(errors, strcspn(errors, "\n"), sizeof message - 1);
        snprintf(message, sizeof message, "%.*s", (int)first_line, errors);
        rc = xmlTextWriterStartElement(w, BAD_CAST "failure") < 0
             || xmlTextWriterWriteAttribute(w, BAD_CAST "message", BAD_CAST message) < 0
             || xmlTextWriterWriteString(w, BAD_CAST errors) < 0
             || xmlTextWriterEndElement(w) < 0 ? -1 : 0;
        free(errors);
        if (rc < 0)
            return -1;
    } else {
        char text[256];
        snprintf(text, sizeof text, "%s %s, %llu bytes, %zu segments synthesized, %zu cached\n",
                 re_episode_state_name(ep->state), ep->result.duration, ep->result.bytes,
                 ep->result.segments_synthesized, ep->result.segments_cached);
        if (xmlTextWriterWriteElement(w, BAD_CAST "system-out", BAD_CAST text) < 0)
            return -1;
    }
    return xmlTextWriterEndElement(w);
}

re_status re_report_write_junit(FILE *out, const re_batch *batch)
{
    xmlBufferPtr buffer = xmlBufferCreate();
    xmlTextWriterPtr w = buffer ? xmlNewTextWriterMemory(buffer, 0) : NULL;
    if (!w) {
        xmlBufferFree(buffer);
        return RE_ERR_NOMEM;
    }
    size_t failures = 0, skipped = 0;
    double total = 0;
    for (size_t i = 0; i < batch->count; i++) {
        failures += batch->episodes[i].state == RE_EPISODE_FAILED;
        skipped += batch->episodes[i].state == RE_EPISODE_NOT_RUN;
        total += batch->episodes[i].seconds;
    }
    char tests[32], failed[32], skips[32], seconds[32];
    snprintf(skips, sizeof skips, "%zu", skipped);
    snprintf(tests, sizeof tests, "%zu", batch->count);
    snprintf(failed, sizeof failed, "%zu", failures);
    snprintf(seconds, sizeof seconds, "%.3f", total);
    int rc = xmlTextWriterSetIndent(w, 1);
    if (rc >= 0) rc = xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    if (rc >= 0) rc = xmlTextWriterStartElement(w, BAD_CAST "testsuites");
    if (rc >= 0) rc = xmlTextWriterStartElement(w, BAD_CAST "testsuite");
    if (rc >= 0) rc = xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "render-episode batch");
    if (rc >= 0) rc = xmlTextWriterWriteAttribute(w, BAD_CAST "tests", BAD_CAST tests);
    if (rc >= 0) rc = xmlTextWriterWriteAttribute(w, BAD_CAST "failures", BAD_CAST failed);
    if (rc >= 0) rc = xmlTextWriterWriteAttribute(w, BAD_CAST "errors", BAD_CAST "0");
    if (rc >= 0) rc = xmlTextWriterWriteAttribute(w, BAD_CAST "skipped", BAD_CAST skips);
    if (rc >= 0) rc = xmlTextWriterWriteAttribute(w, BAD_CAST "time", BAD_CAST seconds);
    for (size_t i = 0; rc >= 0 && i < batch->count; i++)
        rc = write_case(w, &batch->episodes[i]);
    if (rc >= 0) rc = xmlTextWriterEndDocument(w);   /* closes every open element */
    xmlFreeTextWriter(w);
    re_status status = RE_OK;
    if (rc < 0)
        status = RE_ERR_NOMEM;
    else if (fwrite(xmlBufferContent(buffer), 1, (size_t)xmlBufferLength(buffer), out)
             != (size_t)xmlBufferLength(buffer))
        status = RE_ERR_WRITE;
    xmlBufferFree(buffer);
    return status;
}
