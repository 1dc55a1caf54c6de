/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_report_names.c - the batch reports stay well-formed whatever a name holds. Linux file
 * names are bytes: a script may be named with a control character or with bytes that are not
 * UTF-8, and its FILE:LINE:COL errors carry the name. batch refuses such names before it runs
 * anything; the reports show them escaped all the same (each check here failed before). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include "testkit.h"
#include "report.h"

static int junit_parses(const re_batch *b)
{
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    re_status st = re_report_write_junit(f, b);
    fclose(f);
    xmlDocPtr doc = st == RE_OK ? xmlReadMemory(buf, (int)len, "junit.xml", NULL, XML_PARSE_NONET) : NULL;
    int ok = doc != NULL;
    xmlFreeDoc(doc);
    free(buf);
    return ok;
}

static re_status json_status(const re_batch *b)
{
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    re_status st = re_report_write_json(f, b);
    fclose(f);
    free(buf);
    return st;
}

int main(void)
{
    re_batch_episode ep = { .name = "x", .output = "out/x.mp3", .state = RE_EPISODE_FAILED,
                            .status = RE_ERR_INPUT };
    re_batch b = { .episodes = &ep, .count = 1 };

    /* 1. a control character in a script's name: the JUnit file is not well-formed XML
     *    (libxml2's writer passes U+0001 through raw; XML 1.0 cannot carry it at all) */
    ep.script = "s/ctl\x01.txt";
    ep.errors = "s/ctl\x01.txt:1:1: a script starts with front matter: a line '---'";
    CHECK(junit_parses(&b));

    /* 2. a name that is not UTF-8: the JSON report is not written at all (json_pack fails:
     *    `batch --report` says "report.json: out of memory" and exits 2), and the JUnit file
     *    holds the raw bytes in a document declared UTF-8 */
    ep.script = "s/bad\xff.txt";
    ep.errors = "s/bad\xff.txt:1:1: a script starts with front matter: a line '---'";
    CHECK_INT(json_status(&b), RE_OK);
    CHECK(junit_parses(&b));

    /* 3. the failure message (the first error line) is cut at 511 bytes, in the middle of a
     *    UTF-8 character when one straddles the cut: not well-formed ("Input is not proper
     *    UTF-8") */
    char errors[800] = "xy:1:1: ";
    for (int i = 0; i < 300; i++)
        strcat(errors, "\xc3\xa9");   /* é */
    strcat(errors, "\nsecond line");
    ep.script = "s/long.txt";
    ep.errors = errors;
    CHECK(junit_parses(&b));
    return check_finish("test_report_names");
}
