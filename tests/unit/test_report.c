/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_report.c - what a batch tells CI: the JSON report read back with jansson (every value,
 * nulls where an episode has none, the counts) and the JUnit XML read back with libxml2
 * (suite counts and time, one test case per episode with its failure, skip or output), both
 * with script names and errors made of the characters that need escaping. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "testkit.h"
#include "report.h"

#define HOSTILE "scripts/<b>&amp; \"it's\" ]]> -- Café – ü.txt"
#define ERRORS "scripts/x.txt:3:1: unknown key \"<foo>\" & more\nscripts/x.txt:4:7: second ]]> error\n"

static re_batch_episode episodes[5];
static re_batch batch = { .episodes = episodes, .count = 5 };

static void make_batch(void)
{
    memset(episodes, 0, sizeof episodes);
    episodes[0] = (re_batch_episode){ .script = "scripts/a.txt", .name = "a", .output = "out/a.mp3",
                                      .state = RE_EPISODE_RENDERED, .seconds = 1.25 };
    episodes[0].result = (re_render_result){ .samples = 3824683, .sample_rate = 22050,
                                             .bytes = 1393664, .duration = "PT2M53S",
                                             .segments_synthesized = 3, .segments_cached = 2,
                                             .segments_remote = 1 };
    episodes[1] = (re_batch_episode){ .script = HOSTILE, .name = "hostile", .output = "out/<b>.mp3",
                                      .state = RE_EPISODE_UP_TO_DATE, .seconds = 0.004 };
    episodes[1].result = (re_render_result){ .samples = 22049, .sample_rate = 22050, .bytes = 512,
                                             .duration = "PT1S", .up_to_date = 1 };
    episodes[2] = (re_batch_episode){ .script = "scripts/x.txt", .name = "x", .output = "out/x.mp3",
                                      .state = RE_EPISODE_FAILED, .status = RE_ERR_INPUT,
                                      .errors = ERRORS, .seconds = 0.01 };
    episodes[3] = (re_batch_episode){ .script = "scripts/crash.txt", .name = "crash",
                                      .output = "out/crash.mp3", .state = RE_EPISODE_FAILED,
                                      .status = RE_ERR_ENGINE, .errors = NULL, .seconds = 2.0 };
    /* a failed episode's partial result is not reported */
    episodes[3].result = (re_render_result){ .samples = 100, .sample_rate = 22050, .bytes = 9,
                                             .duration = "PT0S", .segments_synthesized = 1 };
    episodes[4] = (re_batch_episode){ .script = "scripts/z.txt", .name = "z", .output = "out/z.mp3",
                                      .state = RE_EPISODE_NOT_RUN };
}

static char *written(re_status (*w)(FILE *, const re_batch *), const re_batch *b, re_status *st,
                     size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    *st = w(f, b);
    fclose(f);
    return buf;
}

static void test_state_names(void)
{
    CHECK_STR(re_episode_state_name(RE_EPISODE_RENDERED), "rendered");
    CHECK_STR(re_episode_state_name(RE_EPISODE_UP_TO_DATE), "up-to-date");
    CHECK_STR(re_episode_state_name(RE_EPISODE_FAILED), "failed");
    CHECK_STR(re_episode_state_name(RE_EPISODE_NOT_RUN), "not-run");
    CHECK_STR(re_episode_state_name((re_episode_state)42), "unknown");
}

/* ---- JSON --------------------------------------------------------------------------------- */

static const char *str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_string(v));
    return json_string_value(v);
}

static long long num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    CHECK(json_is_integer(v));
    return json_integer_value(v);
}

static int null(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return v && json_is_null(v);
}

static void test_json(void)
{
    make_batch();
    re_status st;
    size_t len;
    char *text = written(re_report_write_json, &batch, &st, &len);
    CHECK_INT(st, RE_OK);
    CHECK(len > 0 && text[len - 1] == '\n');
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        fprintf(stderr, "not JSON: %s at %d:%d\n", err.text, err.line, err.column);
    CHECK(json_is_object(root));
    if (!root) {
        free(text);
        return;
    }
    CHECK_INT(json_object_size(root), 5);
    CHECK_INT(num(root, "rendered"), 1);
    CHECK_INT(num(root, "up_to_date"), 1);
    CHECK_INT(num(root, "failed"), 2);
    CHECK_INT(num(root, "not_run"), 1);
    json_t *list = json_object_get(root, "episodes");
    CHECK(json_is_array(list) && json_array_size(list) == 5);
    if (json_array_size(list) != 5) {
        json_decref(root);
        free(text);
        return;
    }
    for (size_t i = 0; i < 5; i++) {
        json_t *e = json_array_get(list, i);
        CHECK_INT(json_object_size(e), 11);
        CHECK_STR(str(e, "script"), episodes[i].script);
        CHECK_STR(str(e, "output"), episodes[i].output);
        CHECK_STR(str(e, "status"), re_episode_state_name(episodes[i].state));
        CHECK(json_is_real(json_object_get(e, "seconds")));
        CHECK(json_real_value(json_object_get(e, "seconds")) == episodes[i].seconds);
    }
    json_t *e = json_array_get(list, 0);
    CHECK(null(e, "error"));
    CHECK_STR(str(e, "duration"), "PT2M53S");
    CHECK_INT(num(e, "duration_ms"), 173455);
    CHECK_INT(num(e, "bytes"), 1393664);
    CHECK_INT(num(e, "segments_synthesized"), 3);
    CHECK_INT(num(e, "segments_cached"), 2);
    CHECK_INT(num(e, "segments_remote"), 1);
    e = json_array_get(list, 1);   /* up to date: its outputs' facts */
    CHECK_STR(str(e, "duration"), "PT1S");
    CHECK_INT(num(e, "duration_ms"), 999);
    CHECK_INT(num(e, "bytes"), 512);
    CHECK_INT(num(e, "segments_synthesized"), 0);
    e = json_array_get(list, 2);   /* failed: its errors, no facts */
    CHECK_STR(str(e, "error"), ERRORS);
    CHECK(null(e, "duration") && null(e, "duration_ms") && null(e, "bytes"));
    e = json_array_get(list, 3);
    CHECK(null(e, "error"));
    CHECK(null(e, "duration") && null(e, "duration_ms") && null(e, "bytes"));
    e = json_array_get(list, 4);   /* not run */
    CHECK(null(e, "error") && null(e, "duration") && null(e, "duration_ms") && null(e, "bytes"));
    CHECK_INT(num(e, "segments_cached"), 0);
    json_decref(root);
    free(text);

    /* an empty batch */
    re_batch none = { .episodes = NULL, .count = 0 };
    text = written(re_report_write_json, &none, &st, &len);
    CHECK_INT(st, RE_OK);
    root = json_loadb(text, len, 0, &err);
    CHECK(root && json_array_size(json_object_get(root, "episodes")) == 0
          && json_is_array(json_object_get(root, "episodes")));
    CHECK(root && num(root, "rendered") == 0 && num(root, "failed") == 0);
    json_decref(root);
    free(text);
}

/* ---- JUnit XML ---------------------------------------------------------------------------- */

static xmlNodePtr child(xmlNodePtr parent, const char *name, int nth)
{
    for (xmlNodePtr n = parent ? parent->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0 && nth-- == 0)
            return n;
    return NULL;
}

static int children(xmlNodePtr parent, const char *name)
{
    int count = 0;
    for (xmlNodePtr n = parent ? parent->children : NULL; n; n = n->next)
        count += n->type == XML_ELEMENT_NODE && (!name || strcmp((const char *)n->name, name) == 0);
    return count;
}

/* An attribute's value (owned by a static buffer), or "(none)". */
static const char *attr(xmlNodePtr node, const char *name)
{
    static char buf[4][1024];
    static int slot;
    char *out = buf[slot++ % 4];
    xmlChar *v = node ? xmlGetProp(node, BAD_CAST name) : NULL;
    snprintf(out, sizeof buf[0], "%s", v ? (const char *)v : "(none)");
    xmlFree(v);
    return out;
}

static const char *content(xmlNodePtr node)
{
    static char buf[1024];
    xmlChar *v = node ? xmlNodeGetContent(node) : NULL;
    snprintf(buf, sizeof buf, "%s", v ? (const char *)v : "(none)");
    xmlFree(v);
    return buf;
}

static xmlDocPtr parse_xml(const char *text, size_t len)
{
    xmlDocPtr doc = xmlReadMemory(text, (int)len, "junit.xml", NULL, XML_PARSE_NONET);
    CHECK(doc != NULL);   /* well-formed: libxml2 gives no document otherwise */
    return doc;
}

static void test_junit(void)
{
    make_batch();
    re_status st;
    size_t len;
    char *text = written(re_report_write_junit, &batch, &st, &len);
    CHECK_INT(st, RE_OK);
    CHECK(strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38) == 0);
    xmlDocPtr doc = parse_xml(text, len);
    xmlNodePtr suites = doc ? xmlDocGetRootElement(doc) : NULL;
    CHECK(suites && strcmp((const char *)suites->name, "testsuites") == 0);
    CHECK_INT(children(suites, NULL), 1);
    xmlNodePtr suite = child(suites, "testsuite", 0);
    CHECK_STR(attr(suite, "name"), "render-episode batch");
    CHECK_STR(attr(suite, "tests"), "5");
    CHECK_STR(attr(suite, "failures"), "2");
    CHECK_STR(attr(suite, "errors"), "0");
    CHECK_STR(attr(suite, "skipped"), "1");
    CHECK_STR(attr(suite, "time"), "3.264");   /* 1.25 + 0.004 + 0.01 + 2.0 */
    CHECK_INT(children(suite, NULL), 5);
    CHECK_INT(children(suite, "testcase"), 5);

    static const char *const times[] = { "1.250", "0.004", "0.010", "2.000", "0.000" };
    for (int i = 0; i < 5; i++) {
        xmlNodePtr tc = child(suite, "testcase", i);
        CHECK_STR(attr(tc, "classname"), "render-episode");
        CHECK_STR(attr(tc, "name"), episodes[i].script);   /* escaped, and read back exactly */
        CHECK_STR(attr(tc, "time"), times[i]);
        CHECK_INT(children(tc, NULL), 1);
    }
    /* rendered and up to date: what was made */
    CHECK_STR(content(child(child(suite, "testcase", 0), "system-out", 0)),
              "rendered PT2M53S, 1393664 bytes, 3 segments synthesized, 2 cached\n");
    CHECK_STR(content(child(child(suite, "testcase", 1), "system-out", 0)),
              "up-to-date PT1S, 512 bytes, 0 segments synthesized, 0 cached\n");
    /* failed: the first error line as the message, all of them as the text */
    xmlNodePtr failure = child(child(suite, "testcase", 2), "failure", 0);
    CHECK(failure != NULL);
    CHECK_STR(attr(failure, "message"), "scripts/x.txt:3:1: unknown key \"<foo>\" & more");
    CHECK_STR(content(failure), ERRORS);
    /* failed without error lines: the status says why */
    failure = child(child(suite, "testcase", 3), "failure", 0);
    CHECK_STR(attr(failure, "message"), re_strerror(RE_ERR_ENGINE));
    /* not run: skipped */
    xmlNodePtr skipped = child(child(suite, "testcase", 4), "skipped", 0);
    CHECK(skipped != NULL);
    CHECK_STR(attr(skipped, "message"), "not run: the batch was interrupted");
    xmlFreeDoc(doc);
    free(text);

    /* an empty batch is an empty suite */
    re_batch none = { .episodes = NULL, .count = 0 };
    text = written(re_report_write_junit, &none, &st, &len);
    CHECK_INT(st, RE_OK);
    doc = parse_xml(text, len);
    suite = child(doc ? xmlDocGetRootElement(doc) : NULL, "testsuite", 0);
    CHECK_STR(attr(suite, "tests"), "0");
    CHECK_STR(attr(suite, "failures"), "0");
    CHECK_STR(attr(suite, "time"), "0.000");
    CHECK_INT(children(suite, NULL), 0);
    xmlFreeDoc(doc);
    free(text);
}

int main(void)
{
    test_state_names();
    test_json();
    test_junit();
    xmlCleanupParser();
    return check_finish("test_report");
}
