/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli_check.c - `render-episode check MP3 [FILE...]` and `check DIR`: options, the report on
 * stdout (text or --json), diagnostics on stderr, and the exit status (0 every claim holds,
 * 1 a claim does not hold or a FILE has none, or a usage error, 2 an input cannot be read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

#include "check.h"
#include "cli.h"
#include "duration.h"
#include "utf8.h"

static const char check_usage[] =
    "usage: render-episode check MP3 [FILE...] [--json] [--fix] [--tolerance DURATION]\n"
    "                            [--no-sidecar]\n"
    "       render-episode check DIR [--json] [--tolerance DURATION]\n"
    "\n"
    "Decodes MP3 to measure its true length and checks every claim about it: the MP3's\n"
    "ID3 TLEN, the sidecar MP3-name.json beside it, and in each FILE (page, feed, JSON)\n"
    "`Duration:` lines, JSON/JSON-LD \"duration\", RSS/Atom itunes:duration and enclosure\n"
    "length.\n"
    "\n"
    "With a folder (DIR), checks the published site: each NAME.mp3 there with its own\n"
    "sidecar, pages (NAME.html, NAME.md), transcripts and chapters (as rendered), and\n"
    "every feed's item whose enclosure names it; a summary counts files, claims and\n"
    "mismatches. Another user's files there are not checked (a warning says so).\n"
    "\n"
    "  --json                 print the report as one JSON document\n"
    "  --fix                  rewrite wrong claims in the FILEs in place (atomically)\n"
    "  --tolerance DURATION   also accept durations this close: PT0.5S, 0.5, 2s, 250ms\n"
    "  --no-sidecar           do not read MP3-name.json beside the MP3\n"
    "  -h, --help             this help\n"
    "\n"
    "Exit status: 0 every claim holds, 1 a claim does not hold, a FILE holds no claim, or\n"
    "a usage error, 2 an input cannot be read or is not an MP3 / not valid JSON or XML.\n";

typedef struct check_cli {
    re_check_options opt;
    const char **files;
    int json;
    const char *dir;            /* check DIR: the folder (opt.mp3_path is then each MP3) */
} check_cli;

/* A duration for --tolerance: ISO 8601, seconds or a clock time, or a number with "s" or
 * "ms". Returns 0 when it is not one. */
static int parse_tolerance(const char *s, uint64_t *us)
{
    size_t n = strlen(s);
    re_duration d;
    if (n > 0 && s[0] == 'P') {
        if (re_duration_parse_iso(s, n, &d) != RE_OK)
            return 0;
        *us = d.us;
        return 1;
    }
    int ms = n > 2 && strcmp(s + n - 2, "ms") == 0;
    if (ms)
        n -= 2;
    else if (n > 1 && s[n - 1] == 's')
        n--;
    if ((ms && memchr(s, ':', n)) || re_duration_parse_clock(s, n, &d) != RE_OK)
        return 0;
    *us = ms ? d.us / 1000 : d.us;
    return 1;
}

static int take_tolerance(const char *command, const cli_option *option, const char *value,
                          void *base)
{
    (void)option;
    check_cli *cli = base;
    if (parse_tolerance(value, &cli->opt.tolerance_us))
        return 0;
    return re_cli_usage_error(command, "--tolerance: '%s' is not a duration (try PT0.5S, 0.5, 2s "
                              "or 250ms)", value);
}

static int take_operand(void *context, const char *arg)
{
    check_cli *cli = context;
    if (!cli->opt.mp3_path)
        cli->opt.mp3_path = arg;
    else
        cli->files[cli->opt.file_count++] = arg;
    return 0;
}

#define K(member) CLI_AT(check_cli, member)
static const cli_option check_options[] = {
    { "json", 0, CLI_FLAG, K(json) },
    { "fix", 0, CLI_FLAG, K(opt.fix) },
    { "tolerance", 0, CLI_CALL, K(opt.tolerance_us), .value_name = "DURATION",
      .needs = "a DURATION", .check = take_tolerance },
    { "no-sidecar", 0, CLI_FLAG, K(opt.no_sidecar) },
    CLI_HELP_OPTION,
};
#undef K

static int has_suffix_ci(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcasecmp(name + n - k, suffix) == 0;
}

/* A page, feed, transcript or JSON file named where the MP3 goes (the operands swapped, or
 * the MP3 forgotten): a usage error that says what to type. */
static int swapped_operands(const check_cli *cli)
{
    static const char *const not_audio[] = {
        ".html", ".htm", ".md", ".markdown", ".txt", ".xml", ".rss", ".atom", ".json",
        ".jsonld", ".vtt", ".srt",
    };
    const char *first = cli->opt.mp3_path;
    int page = 0;
    for (size_t i = 0; i < sizeof not_audio / sizeof not_audio[0]; i++)
        page |= has_suffix_ci(first, not_audio[i]);
    if (!page)
        return CLI_GO_ON;
    for (size_t i = 0; i < cli->opt.file_count; i++)
        if (has_suffix_ci(cli->files[i], ".mp3"))
            return re_cli_usage_error("check", "check takes the audio first: render-episode check "
                                      "%s %s", cli->files[i], first);
    return re_cli_usage_error("check", "%s is not an MP3: check takes the audio first "
                              "(render-episode check ep.mp3 %s), or a published folder "
                              "(render-episode check DIR)", first, first);
}

/* Parses argv (argv[0] is "check"); options may come before or after the operands. Returns
 * CLI_GO_ON, or an exit status. */
static int parse_args(int argc, char **argv, check_cli *cli)
{
    cli_group groups[] = { CLI_GROUP(check_options, cli) };
    cli_command command = { .name = "check", .help = { check_usage }, .groups = groups,
                            .group_count = 1, .operand = take_operand, .context = cli };
    int rc = re_cli_scan(&command, argc, argv);
    if (rc == CLI_GO_ON && !cli->opt.mp3_path)
        return re_cli_usage_error("check", "%s", "which MP3? usage: render-episode check MP3 [FILE...], "
                                  "or render-episode check DIR for a published folder");
    if (rc != CLI_GO_ON)
        return rc;
    struct stat st;
    const char *first = cli->opt.mp3_path;
    if (stat(first, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (cli->opt.file_count > 0)
            return re_cli_usage_error("check", "check DIR takes no FILE ('%s'): to check files "
                                      "against one MP3, name it first: render-episode check "
                                      "ep.mp3 FILE...", cli->files[0]);
        if (cli->opt.fix || cli->opt.no_sidecar)
            return re_cli_usage_error("check", "%s cannot be used with a folder: name the MP3 and "
                                      "its files (render-episode check ep.mp3 ep.html %s)",
                                      cli->opt.fix ? "--fix" : "--no-sidecar",
                                      cli->opt.fix ? "--fix" : "--no-sidecar");
        cli->dir = first;
        return rc;
    }
    return swapped_operands(cli);
}

/* ---- text output ---------------------------------------------------------------------- */

/* A copy of s that is safe to print and valid UTF-8: control bytes and bidi controls
 * (re_utf8_is_bidi_control) become '?', and so does every non-ASCII byte of text that is not
 * valid UTF-8. NULL when out of memory. */
static char *printable(const char *s)
{
    size_t n = strlen(s), bad = 0, o = 0;
    const char *why = NULL;
    int valid = re_utf8_check(s, n, &bad, &why);
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp = 0;
        if (valid && c >= 0x80 && re_utf8_decode(s + i, s + n, &cp) == 3
            && re_utf8_is_bidi_control(cp)) {
            p[o++] = '?';
            i += 2;
            continue;
        }
        p[o++] = (c < 0x20 || c == 0x7f || (!valid && c >= 0x80)) ? '?' : (char)c;
    }
    p[o] = '\0';
    return p;
}

static void print_location(FILE *out, const char *file, unsigned line)
{
    if (line > 0)
        fprintf(out, "%s:%u", file, line);
    else
        fputs(file, out);
}

static void seconds_text(const re_mp3_measurement *m, char *buf, size_t size)
{
    uint64_t ms = re_samples_to_ms(m->samples, m->sample_rate);
    snprintf(buf, size, "%llu.%03llu s", (unsigned long long)(ms / 1000),
             (unsigned long long)(ms % 1000));
}

static void print_measurement(const char *path, const re_mp3_measurement *m)
{
    char secs[48], iso[RE_DURATION_ISO_MAX];
    seconds_text(m, secs, sizeof secs);
    re_duration_format_iso(re_samples_to_seconds(m->samples, m->sample_rate), iso);
    printf("%s: measured %llu samples at %u Hz = %s (%s), %llu bytes\n", path,
           (unsigned long long)m->samples, m->sample_rate, secs, iso,
           (unsigned long long)m->bytes);
}

static int print_claim(const re_claim *c, const re_mp3_measurement *m)
{
    char *text = printable(c->text), *field = printable(c->field), secs[48] = "";
    if (!text || !field) {
        free(text);
        free(field);
        return -1;
    }
    if (c->kind == RE_CLAIM_DURATION || c->kind == RE_CLAIM_MS) {
        char s[40];
        seconds_text(m, s, sizeof s);
        snprintf(secs, sizeof secs, " (%s)", s);
    }
    print_location(stdout, c->file, c->line);
    if (c->readable)
        printf(": %s: claimed %s", field, text);
    else
        printf(": %s: claimed \"%s\" (%s)", field, text,
               c->kind == RE_CLAIM_DURATION ? "not a duration" : "not a whole number");
    printf(", measured %s%s%s: %s\n", c->measured, secs,
           c->within_tolerance ? ", within tolerance" : "", c->ok ? "OK" : "MISMATCH");
    free(text);
    free(field);
    return 0;
}

static void print_diags(const re_diagnostics *d, const char *kind)
{
    for (size_t i = 0; i < d->count; i++)
        re_cli_print_diagnostic(&d->items[i], kind);
    if (d->truncated)
        fprintf(stderr, "render-episode check: more %smessages were left out\n", kind);
}

/* Why --fix left a wrong claim as it was. */
static const char *not_fixed_reason(const re_check_report *rep, const re_claim *c)
{
    const re_check_file *f = NULL;
    for (size_t i = 0; i < rep->file_count; i++)
        if (strcmp(rep->files[i].path, c->file) == 0)
            f = &rep->files[i];
    if (!f)
        return "the MP3 itself is never rewritten";
    if (!f->named)
        return "found beside the MP3; name it as a FILE to fix it";
    if (!c->readable && c->kind == RE_CLAIM_DURATION)
        return "not a duration it can read; fix it by hand";
    if (f->fix_error)
        return f->fix_error;   /* the file could not be replaced: the real reason */
    return "written with CDATA, entities or as a JSON string; fix it by hand";
}

static int print_fixes(const re_check_report *rep, size_t *fixed)
{
    for (size_t i = 0; i < rep->claims.count; i++) {
        const re_claim *c = &rep->claims.items[i];
        if (c->ok)
            continue;
        char *field = printable(c->field), *text = printable(c->text);
        if (field && text) {
            print_location(stdout, c->file, c->line);
            if (c->fixed)
                printf(": fixed %s: %s -> %s\n", field, text, c->measured);
            else
                printf(": not fixed %s: %s\n", field, not_fixed_reason(rep, c));
        }
        free(field);
        free(text);
        if (!field || !text)
            return -1;
        *fixed += c->fixed;
    }
    return 0;
}

static int print_companions(const re_check_report *rep, const char *mp3_path)
{
    for (size_t i = 0; i < rep->companion_count; i++) {
        char *path = printable(rep->companions[i].path), *mp3 = printable(mp3_path);
        if (path && mp3)
            printf("%s: size and SHA-256 as the render of %s wrote them: %s\n", path, mp3,
                   rep->companions[i].ok ? "OK" : "MISMATCH");
        free(path);
        free(mp3);
        if (!path || !mp3)
            return -1;
    }
    return 0;
}

/* One report's lines; the closing count line unless `site` (check DIR counts at the end). */
static int print_text(const re_check_report *rep, const check_cli *cli, const char *mp3_path,
                      int site)
{
    if (rep->measured)
        print_measurement(mp3_path, &rep->mp3);
    size_t ok = 0, fixed = 0;
    for (size_t i = 0; i < rep->claims.count; i++) {
        if (print_claim(&rep->claims.items[i], &rep->mp3) != 0)
            return -1;
        ok += rep->claims.items[i].ok;
    }
    if (print_companions(rep, mp3_path) != 0)
        return -1;
    if (cli->opt.fix && print_fixes(rep, &fixed) != 0)
        return -1;
    for (size_t i = 0; i < rep->file_count; i++)
        if (rep->files[i].named && !rep->files[i].shared && !rep->files[i].foreign_owner
            && rep->files[i].status == RE_OK && rep->files[i].claim_count == 0)
            printf("%s: no duration claim found (%s)\n", rep->files[i].path,
                   re_file_kind_name(rep->files[i].kind));
    if (rep->measured && !site) {
        printf("render-episode check: %zu claim%s, %zu OK, %zu MISMATCH", rep->claims.count,
               rep->claims.count == 1 ? "" : "s", ok, rep->claims.count - ok);
        if (cli->opt.fix)
            printf(", %zu fixed", fixed);
        printf("\n");
    }
    return 0;
}

/* ---- JSON output ---------------------------------------------------------------------- */

static json_t *json_text(const char *s)
{
    char *p = printable(s);
    json_t *j = p ? json_string(p) : NULL;
    free(p);
    return j;
}

static json_t *measurement_json(const char *path, const re_mp3_measurement *m)
{
    char iso[RE_DURATION_ISO_MAX];
    uint64_t ms = re_samples_to_ms(m->samples, m->sample_rate);
    re_duration_format_iso(re_samples_to_seconds(m->samples, m->sample_rate), iso);
    json_t *tag_frames = m->tag_frames >= 0 ? json_integer((json_int_t)m->tag_frames) : json_null();
    return json_pack("{s:o, s:I, s:i, s:i, s:f, s:s, s:I, s:I, s:s, s:I, s:o, s:b, s:b}",
                     "file", json_text(path), "samples", (json_int_t)m->samples,
                     "sample_rate", (int)m->sample_rate, "channels", (int)m->channels,
                     "seconds", (double)ms / 1000.0, "duration", iso,
                     "duration_ms", (json_int_t)ms, "bytes", (json_int_t)m->bytes,
                     "mpeg_version",
                     m->mpeg_version == 25 ? "2.5" : m->mpeg_version == 2 ? "2" : "1",
                     "frames", (json_int_t)m->frames, "tag_frames", tag_frames,
                     "lame_tag", m->has_lame_tag, "truncated", m->truncated);
}

static const char *kind_name(re_claim_kind kind)
{
    switch (kind) {
    case RE_CLAIM_DURATION: return "duration";
    case RE_CLAIM_MS: return "milliseconds";
    case RE_CLAIM_SAMPLES: return "samples";
    case RE_CLAIM_SAMPLE_RATE: return "sample_rate";
    case RE_CLAIM_BYTES: return "bytes";
    }
    return "unknown";
}

static json_t *claim_json(const re_claim *c)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:b, s:s, s:b, s:b, s:b}",
                     "file", json_text(c->file),
                     "line", c->line ? json_integer(c->line) : json_null(),
                     "col", c->col ? json_integer(c->col) : json_null(),
                     "field", json_text(c->field), "kind", kind_name(c->kind),
                     "claimed", json_text(c->text), "readable", c->readable,
                     "measured", c->measured, "ok", c->ok,
                     "within_tolerance", c->within_tolerance, "fixed", c->fixed);
}

static json_t *file_json(const re_check_file *f)
{
    return json_pack("{s:o, s:s, s:b, s:b, s:b, s:I, s:I}", "path", json_text(f->path),
                     "kind", re_file_kind_name(f->kind), "sidecar", f->is_sidecar,
                     "named", f->named, "read", f->status == RE_OK,
                     "claims", (json_int_t)f->claim_count, "fixed", (json_int_t)f->fixed_count);
}

static json_t *diags_json(const re_diagnostics *d)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < d->count; i++) {
        const re_diag *g = &d->items[i];
        json_t *item = json_pack("{s:o, s:o, s:o, s:o}",
                                 "file", json_text(g->file ? g->file : "-"),
                                 "line", g->line ? json_integer(g->line) : json_null(),
                                 "col", g->col ? json_integer(g->col) : json_null(),
                                 "message", json_text(g->message));
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *claims_json(const re_check_report *rep)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < rep->claims.count; i++) {
        json_t *item = claim_json(&rep->claims.items[i]);
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *files_json(const re_check_report *rep)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < rep->file_count; i++) {
        json_t *item = file_json(&rep->files[i]);
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *companions_json(const re_check_report *rep)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < rep->companion_count; i++) {
        json_t *item = json_pack("{s:o, s:b}", "path", json_text(rep->companions[i].path),
                                 "ok", rep->companions[i].ok);
        if (!item || json_array_append_new(list, item) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* One report as a JSON object; with `site`, also its companions. */
static json_t *report_json(const re_check_report *rep, const char *mp3_path, int exit_code,
                           int site)
{
    json_t *mp3 = rep->measured ? measurement_json(mp3_path, &rep->mp3) : json_null();
    json_t *doc = json_pack("{s:o, s:o, s:o, s:o, s:o, s:I, s:i}", "mp3", mp3,
                            "claims", claims_json(rep), "files", files_json(rep),
                            "errors", diags_json(&rep->errors),
                            "warnings", diags_json(&rep->warnings),
                            "failed", (json_int_t)re_check_failed(rep), "exit", exit_code);
    if (doc && site && json_object_set_new(doc, "companions", companions_json(rep)) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

static int print_json_doc(json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(15)) : NULL;
    json_decref(doc);
    if (!text)
        return -1;
    int rc = puts(text) < 0 ? -1 : 0;
    free(text);
    return rc;
}

/* ---- the command ---------------------------------------------------------------------- */

static int exit_code_for(re_status status, const re_check_report *rep)
{
    if (status != RE_OK)
        return RE_EXIT_FAILURE;
    return re_check_failed(rep) > 0 ? RE_EXIT_MISMATCH : RE_EXIT_OK;
}

/* ---- check DIR -------------------------------------------------------------------------- */

/* What check DIR adds up over its episodes. */
typedef struct site_totals {
    size_t files, claims, ok, failed, not_checked;
    int exit_code;
} site_totals;

/* Each feed was read and parsed once by the scan, and is counted once (judge_feeds). */
static void add_up(site_totals *t, const re_check_report *rep, int exit_code)
{
    t->files += rep->measured;
    for (size_t i = 0; i < rep->file_count; i++) {
        const re_check_file *f = &rep->files[i];
        if (!f->shared)
            t->files += f->status == RE_OK && !f->foreign_owner;
    }
    t->files += rep->companion_count;
    t->claims += rep->claims.count + rep->companion_count;
    for (size_t i = 0; i < rep->claims.count; i++)
        t->ok += rep->claims.items[i].ok;
    for (size_t i = 0; i < rep->companion_count; i++)
        t->ok += rep->companions[i].ok;
    t->failed += re_check_failed(rep);
    t->not_checked += rep->not_checked;
    if (exit_code > t->exit_code)
        t->exit_code = exit_code;
}

/* A feed that says nothing about any MP3 of the folder checks nothing: a failure. Its items
 * whose enclosure names no MP3 of the folder are not checked: a warning in `diag`. */
static void judge_feeds(site_totals *t, const re_check_site *site, json_t *warnings,
                        re_diagnostics *diag, const char *dir)
{
    for (size_t k = 0; k < site->feed_count; k++) {
        t->files++;
        if (site->feed_items[k] > site->feed_matched[k]) {
            size_t n = site->feed_items[k] - site->feed_matched[k];
            t->not_checked += n;
            re_diag_fail(diag, RE_OK, site->feeds[k], 0, 0, "not checked: %zu of its %zu items "
                         "name no MP3 in %s (by their enclosure's file name)", n,
                         site->feed_items[k], dir);
        }
        if (site->feed_claim_count[k] > 0)
            continue;
        t->failed++;
        if (t->exit_code < RE_EXIT_MISMATCH)
            t->exit_code = RE_EXIT_MISMATCH;
        char *path = printable(site->feeds[k]);
        if (warnings)
            json_array_append_new(warnings, json_pack("{s:s?}", "no_claims", path));
        else if (path)
            printf("%s: no item whose enclosure names an MP3 of this folder\n", path);
        free(path);
    }
}

static int check_site(check_cli *cli)
{
    re_diagnostics errors, warnings;
    re_diagnostics_init(&errors, 0);
    re_diagnostics_init(&warnings, 0);
    re_check_site site;
    re_status status = re_check_site_scan(cli->dir, &site, &errors, &warnings);
    print_diags(&errors, "");
    print_diags(&warnings, "warning: ");
    site_totals t = { .not_checked = site.not_checked };
    re_claim_list **shared = calloc(site.feed_count + 1, sizeof *shared);
    json_t *episodes = cli->json ? json_array() : NULL, *empty = cli->json ? json_array() : NULL;
    int broken = !shared || (cli->json && (!episodes || !empty));
    if (status != RE_OK)
        t.exit_code = status == RE_ERR_NOMEM ? RE_EXIT_FAILURE : re_cli_exit_status(status);
    else if (site.input_status != RE_OK)
        t.exit_code = re_cli_exit_status(site.input_status);   /* a feed that does not read */
    cli->opt.site = 1;
    cli->opt.shared_files = (const char *const *)site.feeds;
    cli->opt.shared_count = site.feed_count;
    cli->opt.shared_claims = shared;
    for (size_t i = 0; status == RE_OK && !broken && i < site.mp3_count; i++) {
        cli->opt.mp3_path = site.mp3s[i];
        for (size_t k = 0; k < site.feed_count; k++)   /* each feed's items about this MP3 */
            shared[k] = &site.feed_claims[k * site.mp3_count + i];
        re_check_report rep;
        re_status s = re_check_run(&cli->opt, &rep);
        if (s == RE_ERR_NOMEM || s == RE_ERR_INVALID)
            fprintf(stderr, "render-episode check: %s\n", re_strerror(s));
        print_diags(&rep.errors, "");
        print_diags(&rep.warnings, "warning: ");
        int rc = exit_code_for(s, &rep);
        add_up(&t, &rep, rc);
        if (cli->json)
            broken |= json_array_append_new(episodes, report_json(&rep, site.mp3s[i], rc, 1)) != 0;
        else
            broken |= print_text(&rep, cli, site.mp3s[i], 1) != 0;
        re_check_report_free(&rep);
        if (s == RE_ERR_NOMEM || s == RE_ERR_INVALID)
            break;
    }
    if (status == RE_OK && !broken && site.mp3_count == 0) {
        t.failed++;
        if (!cli->json)
            printf("%s: no episode (NAME.mp3) to check\n", cli->dir);
    }
    size_t noted = warnings.count;
    if (!broken)
        judge_feeds(&t, &site, cli->json ? empty : NULL, &warnings, cli->dir);
    for (size_t i = noted; i < warnings.count; i++)
        re_cli_print_diagnostic(&warnings.items[i], "warning: ");
    if (t.failed > 0 && t.exit_code < RE_EXIT_MISMATCH)
        t.exit_code = RE_EXIT_MISMATCH;
    if (broken)
        t.exit_code = RE_EXIT_FAILURE;
    int printed = 0;
    if (broken) {
        printed = -1;
    } else if (cli->json) {
        json_t *doc = json_pack("{s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:i}",
                                "dir", json_text(cli->dir), "episodes", episodes,
                                "feeds_without_claims", empty,
                                "episode_count", (json_int_t)site.mp3_count,
                                "files_checked", (json_int_t)t.files,
                                "claims", (json_int_t)t.claims,
                                "mismatches", (json_int_t)(t.claims - t.ok),
                                "failed", (json_int_t)t.failed,
                                "not_checked", (json_int_t)t.not_checked,
                                "errors", diags_json(&errors), "warnings", diags_json(&warnings),
                                "exit", t.exit_code);
        episodes = empty = NULL;
        printed = print_json_doc(doc);
    } else {
        char *dir = printable(cli->dir);
        size_t other = t.failed > t.claims - t.ok ? t.failed - (t.claims - t.ok) : 0;
        printf("render-episode check: %s: %zu episode%s, %zu file%s checked, %zu claim%s, "
               "%zu OK, %zu MISMATCH", dir ? dir : "DIR", site.mp3_count,
               site.mp3_count == 1 ? "" : "s", t.files, t.files == 1 ? "" : "s", t.claims,
               t.claims == 1 ? "" : "s", t.ok, t.claims - t.ok);
        if (other > 0)
            printf(", %zu other failure%s", other, other == 1 ? "" : "s");
        if (t.not_checked > 0)
            printf(", %zu not checked", t.not_checked);
        printf("\n");
        free(dir);
    }
    json_decref(episodes);
    json_decref(empty);
    if (printed != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "render-episode check: cannot write the report\n");
        t.exit_code = RE_EXIT_FAILURE;
    }
    free(shared);
    re_check_site_free(&site);
    re_diagnostics_free(&errors);
    re_diagnostics_free(&warnings);
    return t.exit_code;
}

int re_cli_check(int argc, char **argv)
{
    check_cli cli;
    memset(&cli, 0, sizeof cli);
    cli.files = calloc((size_t)(argc > 0 ? argc : 1), sizeof *cli.files);
    if (!cli.files) {
        fprintf(stderr, "render-episode check: out of memory\n");
        return RE_EXIT_FAILURE;
    }
    int rc = parse_args(argc, argv, &cli);
    if (rc != CLI_GO_ON) {
        free(cli.files);
        return rc;
    }
    cli.opt.files = cli.files;
    if (cli.dir) {
        rc = check_site(&cli);
        free(cli.files);
        return rc;
    }
    re_check_report rep;
    re_status status = re_check_run(&cli.opt, &rep);
    if (status == RE_ERR_NOMEM || status == RE_ERR_INVALID)
        fprintf(stderr, "render-episode check: %s\n", re_strerror(status));
    print_diags(&rep.errors, "");
    print_diags(&rep.warnings, "warning: ");
    rc = exit_code_for(status, &rep);
    int printed = cli.json ? print_json_doc(report_json(&rep, cli.opt.mp3_path, rc, 0))
                           : print_text(&rep, &cli, cli.opt.mp3_path, 0);
    if (printed != 0 || fflush(stdout) != 0) {
        fprintf(stderr, "render-episode check: cannot write the report\n");
        rc = RE_EXIT_FAILURE;
    }
    re_check_report_free(&rep);
    free(cli.files);
    return rc;
}
