/* SPDX-License-Identifier: GPL-3.0-or-later */
/* run.c - a whole check: measure the MP3, list the sidecar and the named files (each once),
 * read and extract them, judge every claim, fix, and the MP3's warnings (see check.h,
 * re_check_run). */
#include "check_internal.h"
#include "files.h"
#include "output.h"
#include "sidecar.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static re_status add_file(run *r, const char *path, int is_sidecar, int named,
                          const struct stat *st, int shared, int found, long taken)
{
    re_check_report *rep = r->rep;
    for (size_t i = 0; i < rep->file_count; i++)
        if (r->data[i].dev == st->st_dev && r->data[i].ino == st->st_ino) {
            rep->files[i].named |= named;   /* the same file twice: check it once */
            return RE_OK;
        }
    re_check_file *files = realloc(rep->files, (rep->file_count + 1) * sizeof *files);
    if (!files)
        return RE_ERR_NOMEM;
    rep->files = files;
    run_file *data = realloc(r->data, (rep->file_count + 1) * sizeof *data);
    if (!data)
        return RE_ERR_NOMEM;
    r->data = data;
    re_check_file *f = &rep->files[rep->file_count];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(path)))
        return RE_ERR_NOMEM;
    f->is_sidecar = is_sidecar;
    f->named = named;
    f->shared = shared;
    f->kind = is_sidecar ? RE_FILE_SIDECAR : RE_FILE_AUTO;
    r->data[rep->file_count] = (run_file){ NULL, 0, 0, st->st_dev, st->st_ino, found, taken };
    rep->file_count++;
    return RE_OK;
}

/* Adds paths[0..n) as named (or shared) files. Shared files whose claims were extracted
 * already (check DIR's feeds, read once and only when trusted) are not looked at by name. */
static re_status add_named(run *r, const char *const *paths, size_t n, int shared)
{
    re_status s = RE_OK;
    int taken = shared && r->opt->shared_claims;
    for (size_t i = 0; s == RE_OK && i < n; i++) {
        struct stat st;
        if (taken || stat(paths[i], &st) != 0)
            memset(&st, 0, sizeof st);   /* reported when it is read */
        if (st.st_ino == 0) {
            st.st_dev = (dev_t)-1;
            st.st_ino = (ino_t)(r->rep->file_count + 1);
        }
        s = add_file(r, paths[i], 0, 1, &st, shared, shared && r->opt->site, taken ? (long)i : -1);
    }
    return s;
}

/* Moves the claims of src to the end of dst (src is left empty). */
static re_status take_claims(re_claim_list *dst, re_claim_list *src)
{
    for (size_t i = 0; i < src->count; i++) {
        if (re_array_grow(&dst->items, &dst->capacity, dst->count, sizeof *dst->items) != RE_OK) {
            memmove(src->items, src->items + i, (src->count - i) * sizeof *src->items);
            src->count -= i;
            return RE_ERR_NOMEM;
        }
        dst->items[dst->count++] = src->items[i];
    }
    src->count = 0;
    return RE_OK;
}

/* Site mode: the pages the sidecar lists (NAME.html, NAME.md), judged as if named. A page
 * not listed is no page of this MP3's render (NAME.md is then its script, or the user's). */
static re_status add_pages(run *r)
{
    static const char *const page_suffixes[] = { ".html", ".md" };
    re_status s = RE_OK;
    for (size_t i = 0; s == RE_OK && r->side && i < 2; i++) {
        char *path = re_output_sibling(r->opt->mp3_path, page_suffixes[i]);
        struct stat st;
        if (!path)
            return RE_ERR_NOMEM;
        if (re_sidecar_file_find(r->side, base_name(path)) && lstat(path, &st) == 0)
            s = add_file(r, path, 0, 1, &st, 0, 1, -1);
        free(path);
    }
    return s;
}

/* The sidecar (when present) and the named files, each once. */
static re_status list_files(run *r)
{
    const re_check_options *opt = r->opt;
    struct stat st;
    re_status s = RE_OK;
    if (!opt->no_sidecar) {
        char *side = re_sidecar_path(opt->mp3_path);   /* the name render-episode writes */
        struct stat mp3;
        if (!side)
            return RE_ERR_NOMEM;
        if (stat(side, &st) == 0 && S_ISREG(st.st_mode) && stat(opt->mp3_path, &mp3) == 0
            && (st.st_dev != mp3.st_dev || st.st_ino != mp3.st_ino))
            s = add_file(r, side, 1, 0, &st, 0, opt->site, -1);
        free(side);
    }
    if (s == RE_OK && opt->site)
        s = add_pages(r);
    if (s == RE_OK)
        s = add_named(r, opt->files, opt->file_count, 0);
    if (s == RE_OK)
        s = add_named(r, opt->shared_files, opt->shared_count, 1);
    return s;
}

/* What a render writes beside NAME.mp3 and a publisher would put next to it. */
static const char *const companion_suffixes[] = {
    ".vtt", ".srt", ".transcript.json", ".chapters.json", ".html", ".md",
};

/* Reads the MP3's sidecar for the files its render wrote, into r->side when it is ours. */
static re_status load_sidecar(run *r, re_sidecar *side)
{
    char *side_path = re_sidecar_path(r->opt->mp3_path);
    if (!side_path)
        return RE_ERR_NOMEM;
    re_diagnostics ignored;   /* an unreadable sidecar is reported where its claims are read */
    re_diagnostics_init(&ignored, 1);
    memset(side, 0, sizeof *side);
    re_sidecar_found found = RE_SIDECAR_NOT_OURS;
    /* found beside the MP3, not named: another user's sidecar (or their FIFO at its name,
     * which would wait for a writer they control) vouches for no file and is not opened */
    char *buf = NULL;
    size_t len = 0;
    if (re_file_read_trusted(side_path, RE_SIDECAR_MAX_SIZE, RE_READ_ANY, &buf, &len, NULL,
                             &ignored) == RE_OK && buf)
        re_sidecar_read(side_path, buf, len, "mp3", side, &found, &ignored);
    free(buf);
    re_diagnostics_free(&ignored);
    free(side_path);
    if (found == RE_SIDECAR_FOUND)
        r->side = side;
    return RE_OK;
}

/* Whether the companion of this suffix holds times (cues, chapters) that only its render
 * can vouch for. */
static int timed_companion(const char *suffix)
{
    return strcmp(suffix, ".html") != 0 && strcmp(suffix, ".md") != 0;
}

static re_status add_companion(re_check_report *rep, const char *path, int ok)
{
    struct re_check_companion *list = realloc(rep->companions,
                                              (rep->companion_count + 1) * sizeof *list);
    if (!list)
        return RE_ERR_NOMEM;
    rep->companions = list;
    if (!(list[rep->companion_count].path = strdup(path)))
        return RE_ERR_NOMEM;
    list[rep->companion_count++].ok = ok;
    return RE_OK;
}

/* Each companion file beside the MP3 must be one the render that made the MP3 wrote, as it
 * wrote it: otherwise it describes other audio (an earlier render's transcript). A NAME.md
 * the render did not write is not one: it is the episode's Markdown script (rendered where it
 * lies, as most people do) or the user's own file. In site mode a transcript or chapters
 * file that changed is a failure: its times are no longer the render's. */
static re_status check_companions(run *r)
{
    re_check_report *rep = r->rep;
    const re_sidecar *side = r->side;
    re_status s = RE_OK;
    for (size_t i = 0; s == RE_OK && side && side->has_files
                       && i < sizeof companion_suffixes / sizeof companion_suffixes[0]; i++) {
        char *path = re_output_sibling(r->opt->mp3_path, companion_suffixes[i]);
        struct stat st;
        if (!path) {
            s = RE_ERR_NOMEM;
            break;
        }
        const re_sidecar_file *entry = re_sidecar_file_find(side, base_name(path));
        re_sidecar_match match = RE_SIDECAR_GONE;
        uid_t owner = 0;
        int timed = r->opt->site && timed_companion(companion_suffixes[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (!entry && strcmp(companion_suffixes[i], ".md") != 0) {
                rep->strays++;
                s = check_fail(&rep->errors, RE_OK, path, 0, 0, "does not belong to %s: the "
                               "render that made it did not write this file (an earlier "
                               "render's?); remove it or render again", r->mp3_name);
            } else if (!entry) {
                /* the script or the user's file: nothing to judge */
            } else if ((!r->opt->fix || timed)
                       && (match = re_sidecar_file_match(path, entry, &owner)) == RE_SIDECAR_FOREIGN) {
                rep->not_checked += timed;
                s = check_fail(&rep->warnings, RE_OK, path, 0, 0, "%sbelongs to another user "
                               "(uid %ju), who could change it at any time: feed will not "
                               "publish %s with it", timed ? "not checked: it " : "",
                               (uintmax_t)owner, r->mp3_name);
            } else if (timed && match != RE_SIDECAR_GONE) {
                s = add_companion(rep, path, match == RE_SIDECAR_MATCH);
            } else if (!r->opt->fix && match != RE_SIDECAR_MATCH) {
                /* edited (check --fix on a page does that): still this MP3's, but `feed`
                 * will not link it until the episode is rendered again */
                s = check_fail(&rep->warnings, RE_OK, path, 0, 0, "changed since the render "
                               "that made %s (its size or SHA-256 is not the sidecar's): feed "
                               "will not link it", r->mp3_name);
            }
        }
        free(path);
    }
    return s;
}

static int fatal(re_status s)
{
    return s == RE_ERR_NOMEM || s == RE_ERR_INVALID;
}

/* Reads and extracts every listed file. */
static re_status collect(run *r, re_status *input_status)
{
    re_check_report *rep = r->rep;
    for (size_t i = 0; i < rep->file_count; i++) {
        re_check_file *f = &rep->files[i];
        run_file *d = &r->data[i];
        size_t before = rep->claims.count;
        d->first_claim = before;
        uid_t owner = 0;
        if (d->shared >= 0) {
            re_status taken = take_claims(&rep->claims, r->opt->shared_claims[d->shared]);
            if (taken != RE_OK)
                return taken;
            f->kind = RE_FILE_XML;
            f->status = RE_OK;
            f->claim_count = rep->claims.count - before;
            continue;
        }
        re_status s = d->found
            ? re_file_read_trusted(f->path, RE_CHECK_MAX_FILE_SIZE, RE_READ_REGULAR, &d->buf,
                                   &d->len, &owner, &rep->errors)
            : re_file_read(f->path, RE_CHECK_MAX_FILE_SIZE, RE_READ_REGULAR, &d->buf, &d->len,
                           &rep->errors);
        if (s == RE_OK && owner != 0 && !d->buf) {
            /* found, not named: another user's file (or their link) is not ours to judge */
            f->foreign_owner = owner;
            f->status = RE_OK;
            rep->not_checked++;
            s = check_fail(&rep->warnings, RE_OK, f->path, 0, 0, "not checked: it belongs to "
                           "another user (uid %ju), not to you or root", (uintmax_t)owner);
            if (fatal(s))
                return s;
            continue;
        } else if (s == RE_OK) {
            if (f->kind == RE_FILE_AUTO)
                f->kind = re_file_sniff(f->path, d->buf, d->len);
            s = re_claims_extract_items(f->path, d->buf, d->len, f->kind, r->mp3_name, &rep->claims,
                                        &rep->errors, &rep->warnings, &f->feed_items, &f->feed_matched);
        }
        if (fatal(s))
            return s;
        f->status = s;
        f->claim_count = rep->claims.count - before;
        *input_status = check_first_failure(*input_status, s);
    }
    return RE_OK;
}

static re_status mp3_warnings(re_check_report *rep, const char *path)
{
    const re_mp3_measurement *m = &rep->mp3;
    re_status s = RE_OK;
    if (m->truncated)
        s = check_fail(&rep->warnings, RE_OK, path, 0, 0,
                       "truncated or damaged: its Xing/LAME tag announces %lld frames but only "
                       "%llu decode; measured what decodes", (long long)m->tag_frames,
                       (unsigned long long)m->frames);
    else if (m->extra_frames > 0)
        s = check_fail(&rep->warnings, RE_OK, path, 0, 0,
                       "%llu more frames decode after the %lld its Xing/LAME tag announces; not "
                       "counted (junk that looks like audio, or files joined together?)",
                       (unsigned long long)m->extra_frames, (long long)m->tag_frames);
    if (s == RE_OK && m->stopped_at)
        s = check_fail(&rep->warnings, RE_OK, path, 0, 0,
                       "decoding stopped at byte %llu of %llu: %s; measured the %llu frames "
                       "before it", (unsigned long long)m->stopped_at, (unsigned long long)m->bytes,
                       m->stopped_why ? m->stopped_why : "damaged", (unsigned long long)m->frames);
    if (s == RE_OK && !m->has_lame_tag)
        s = check_fail(&rep->warnings, RE_OK, path, 0, 0,
                       "no LAME tag: the measured length includes the encoder delay and padding, "
                       "as players play them");
    return s;
}

re_status re_check_run(const re_check_options *opt, re_check_report *report)
{
    if (!report)
        return RE_ERR_INVALID;
    memset(report, 0, sizeof *report);
    re_claim_list_init(&report->claims);
    re_diagnostics_init(&report->errors, 0);
    re_diagnostics_init(&report->warnings, 0);
    if (!opt || !opt->mp3_path || (opt->file_count && !opt->files))
        return RE_ERR_INVALID;
    if (opt->shared_count && !opt->shared_files)
        return RE_ERR_INVALID;
    run r = { opt, report, NULL, base_name(opt->mp3_path), NULL };
    re_sidecar side;
    memset(&side, 0, sizeof side);
    uid_t owner = 0;
    /* check DIR: the MP3 listed is opened again by name; one swapped in since by another
     * user is not read */
    re_status input = opt->site
        ? re_mp3_measure_trusted(opt->mp3_path, &report->mp3, &owner, &report->errors)
        : re_mp3_measure(opt->mp3_path, &report->mp3, &report->errors);
    if (input != RE_OK)
        return input;
    if (owner != 0) {
        report->not_checked++;
        return check_fail(&report->warnings, RE_OK, opt->mp3_path, 0, 0, "not checked: it "
                          "belongs to another user (uid %ju), not to you or root",
                          (uintmax_t)owner);
    }
    report->measured = 1;
    re_status s = mp3_warnings(report, opt->mp3_path);
    if (s == RE_OK)
        s = re_claims_from_tlen(opt->mp3_path, &report->mp3, &report->claims);
    if (s == RE_OK && !opt->no_sidecar)
        s = load_sidecar(&r, &side);
    if (s == RE_OK)
        s = list_files(&r);
    if (s == RE_OK)
        s = collect(&r, &input);
    if (s == RE_OK && !opt->no_sidecar)
        s = check_companions(&r);
    for (size_t i = 0; s == RE_OK && i < report->claims.count; i++)
        re_claim_judge(&report->claims.items[i], &report->mp3, opt->tolerance_us);
    if (s == RE_OK && opt->fix)
        s = re_fix_all(&r, &input);
    for (size_t i = 0; r.data && i < report->file_count; i++)
        free(r.data[i].buf);
    free(r.data);
    re_sidecar_free(&side);
    return s != RE_OK ? s : input;
}

void re_check_report_free(re_check_report *report)
{
    if (!report)
        return;
    re_mp3_measurement_free(&report->mp3);
    re_claim_list_free(&report->claims);
    for (size_t i = 0; i < report->file_count; i++) {
        free(report->files[i].path);
        free(report->files[i].fix_error);
    }
    free(report->files);
    for (size_t i = 0; i < report->companion_count; i++)
        free(report->companions[i].path);
    free(report->companions);
    re_diagnostics_free(&report->errors);
    re_diagnostics_free(&report->warnings);
    memset(report, 0, sizeof *report);
}

size_t re_check_failed(const re_check_report *report)
{
    size_t n = 0;
    for (size_t i = 0; i < report->claims.count; i++)
        n += !report->claims.items[i].ok && !report->claims.items[i].fixed;
    for (size_t i = 0; i < report->file_count; i++) {
        const re_check_file *f = &report->files[i];
        n += f->named && !f->shared && !f->foreign_owner && f->status == RE_OK
             && f->claim_count == 0;
    }
    for (size_t i = 0; i < report->companion_count; i++)
        n += !report->companions[i].ok;
    return n + report->strays;
}
