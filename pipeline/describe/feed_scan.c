/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed_scan.c - an episodes' folder read for the feed: its sidecars, each MP3 sidecar made a
 * feed item with the files beside it that its render wrote (see feed.h, docs/feed.md). */
#define _GNU_SOURCE
#include "feed.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "datetime.h"
#include "feed_internal.h"
#include "files.h"
#include "sidecar.h"
#include "text.h"
#include "utf8.h"

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ======================================================================================
 * Sidecars
 * ====================================================================================== */

void re_feed_episode_free(re_feed_episode *e)
{
    if (!e)
        return;
    free(e->stem);
    free(e->audio_name);
    free(e->sidecar_name);
    free(e->title);
    free(e->show);
    free(e->summary);
    free(e->notes);
    free(e->author);
    free(e->language);
    free(e->published);
    free(e->guid);
    for (size_t i = 0; i < e->person_count; i++) {
        free(e->persons[i].name);
        free(e->persons[i].role);
    }
    free(e->persons);
    for (size_t i = 0; i < e->file_count; i++)
        free(e->files[i].name);
    free(e->files);
    memset(e, 0, sizeof *e);
}

/* Moves a string out of the sidecar into the episode. */
static char *take(char **from)
{
    char *s = *from;
    *from = NULL;
    return s;
}

/* The schema is read by sidecar.c; here an MP3 sidecar becomes a feed item: its file names
 * and its date as RSS writes it. */
re_status re_feed_episode_read(const char *path, const char *buf, size_t len,
                               re_feed_episode *episode, re_sidecar_kind *kind,
                               re_diagnostics *diag)
{
    memset(episode, 0, sizeof *episode);
    *kind = RE_SIDECAR_NONE;
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!has_suffix(name, ".json") || strlen(name) == 5)
        return RE_ERR_INVALID;
    re_sidecar side;
    re_sidecar_found found;
    re_status status = re_sidecar_read(path, buf, len, "mp3", &side, &found, diag);
    if (status != RE_OK || found != RE_SIDECAR_FOUND) {
        *kind = found == RE_SIDECAR_OTHER_FORMAT ? RE_SIDECAR_OTHER : RE_SIDECAR_NONE;
        return status;
    }
    re_feed_episode e = {
        .title = take(&side.title), .show = take(&side.show), .summary = take(&side.summary),
        .notes = take(&side.notes),
        .author = take(&side.author), .language = take(&side.language),
        .published = take(&side.published), .number = side.episode, .samples = side.samples,
        .sample_rate = side.sample_rate, .bytes = side.bytes, .dated = side.dated,
        .instant_ms = side.published_ms, .season = side.season, .guid = take(&side.guid),
        .type = side.type,
        .has_files = side.has_files, .files = side.files, .file_count = side.file_count,
    };
    side.files = NULL;
    side.file_count = 0;
    int nomem = 0;
    if (side.person_count && !(e.persons = calloc(side.person_count, sizeof *e.persons)))
        nomem = 1;
    for (size_t i = 0; !nomem && i < side.person_count; i++) {
        int seen = 0;   /* one podcast:person per speaker and role */
        for (size_t k = 0; k < e.person_count; k++)
            seen |= strcmp(e.persons[k].name, side.persons[i].speaker) == 0
                    && strcmp(e.persons[k].role, side.persons[i].role) == 0;
        if (seen)
            continue;
        e.persons[e.person_count].name = take(&side.persons[i].speaker);
        e.persons[e.person_count++].role = take(&side.persons[i].role);
    }
    re_sidecar_free(&side);
    if (nomem) {
        re_feed_episode_free(&e);
        return RE_ERR_NOMEM;
    }
    if (e.dated)
        re_rfc822_from_iso(e.published, e.pub_date, NULL);   /* valid: the reader checked it */
    e.sidecar_name = strdup(name);
    e.stem = strndup(name, strlen(name) - 5);
    if (e.stem && asprintf(&e.audio_name, "%s.mp3", e.stem) < 0)
        e.audio_name = NULL;
    if (!e.sidecar_name || !e.stem || !e.audio_name) {
        re_feed_episode_free(&e);
        return RE_ERR_NOMEM;
    }
    *episode = e;
    *kind = RE_SIDECAR_MP3;
    return RE_OK;
}

static int by_recency(const void *a, const void *b)
{
    const re_feed_episode *x = a, *y = b;
    if (x->dated != y->dated)
        return x->dated ? -1 : 1;
    if (x->dated && x->instant_ms != y->instant_ms)
        return x->instant_ms > y->instant_ms ? -1 : 1;
    return strcmp(x->sidecar_name, y->sidecar_name);
}

void re_feed_sort(re_feed_episode *episodes, size_t count)
{
    if (count > 1)
        qsort(episodes, count, sizeof *episodes, by_recency);
}

/* ======================================================================================
 * The folder
 * ====================================================================================== */

void re_feed_init(re_feed *feed)
{
    memset(feed, 0, sizeof *feed);
    re_show_init(&feed->show);
}

void re_feed_free(re_feed *feed)
{
    if (!feed)
        return;
    re_show_free(&feed->show);
    free(feed->feed_url);
    free(feed->image_url);
    free(feed->missing);
    feed->feed_url = feed->image_url = feed->missing = NULL;
    for (size_t i = 0; i < feed->count; i++)
        re_feed_episode_free(&feed->episodes[i]);
    free(feed->episodes);
    feed->episodes = NULL;
    feed->count = feed->capacity = 0;
}

re_status re_feed_add(re_feed *feed, re_feed_episode *episode)
{
    if (re_array_grow(&feed->episodes, &feed->capacity, feed->count,
                      sizeof *feed->episodes) != RE_OK)
        return RE_ERR_NOMEM;
    feed->episodes[feed->count++] = *episode;
    memset(episode, 0, sizeof *episode);
    return RE_OK;
}

static const struct {
    re_feed_asset asset;
    const char *suffix;
} asset_files[] = {
    { RE_ASSET_VTT, ".vtt" },
    { RE_ASSET_SRT, ".srt" },
    { RE_ASSET_TRANSCRIPT_JSON, ".transcript.json" },
    { RE_ASSET_CHAPTERS, ".chapters.json" },
    { RE_ASSET_PAGE, ".html" },
    { RE_ASSET_COVER_JPEG, ".cover.jpg" },
    { RE_ASSET_COVER_PNG, ".cover.png" },
};

re_status re_feed_cover_name(const re_feed_episode *episode, char **name)
{
    *name = NULL;
    unsigned cover = episode->assets & RE_ASSET_COVER_JPEG ? RE_ASSET_COVER_JPEG
                     : episode->assets & RE_ASSET_COVER_PNG;
    for (size_t k = 0; cover && k < sizeof asset_files / sizeof asset_files[0]; k++) {
        if (asset_files[k].asset == cover && asprintf(name, "%s%s", episode->stem,
                                                      asset_files[k].suffix) < 0) {
            *name = NULL;
            return RE_ERR_NOMEM;
        }
    }
    return RE_OK;
}

/* What the listing keeps: a visible NAME.json that is no chapters or transcript file. */
static int sidecar_name(const char *name, void *ctx)
{
    (void)ctx;
    return name[0] != '.' && has_suffix(name, ".json") && strlen(name) > 5
           && !has_suffix(name, ".chapters.json") && !has_suffix(name, ".transcript.json");
}

/* The candidate sidecar names in dir, sorted. */
static re_status list_json(const char *dir, char ***out, size_t *count, re_diagnostics *errors)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    re_status st = fd >= 0 ? re_dir_list(fd, sidecar_name, NULL, 0, out, count) : RE_ERR_READ;
    int err = errno;
    if (fd >= 0)
        (void)close(fd);
    if (st == RE_ERR_READ)
        return re_diag_add(errors, dir, 0, 0, "cannot read the folder: %s", strerror(err))
                       == RE_OK ? RE_ERR_READ : RE_ERR_NOMEM;
    /* Names go into the feed's URLs and GUIDs: one that XML cannot carry as it is (not UTF-8,
     * a control character) is refused, shown escaped: the first in the listing's order. */
    for (size_t i = 0; st == RE_OK && i < *count; i++) {
        const char *problem = re_utf8_name_problem((*out)[i]);
        if (!problem)
            continue;
        char *shown = re_utf8_shown((*out)[i]);
        char *where = shown ? re_path_join(dir, shown) : NULL;
        st = where && re_diag_add(errors, where, 0, 0, "cannot be published: %s; rename the "
                                  "episode's files", problem) == RE_OK ? RE_ERR_INPUT : RE_ERR_NOMEM;
        free(shown);
        free(where);
    }
    if (st != RE_OK) {
        re_dir_names_free(*out, *count);
        *out = NULL;
        *count = 0;
    }
    return st;
}

static int regular_file(const char *dir, const char *name, struct stat *st, re_status *status)
{
    char *path = re_path_join(dir, name);
    if (!path) {
        *status = RE_ERR_NOMEM;
        return 0;
    }
    int ok = stat(path, st) == 0 && S_ISREG(st->st_mode);
    free(path);
    return ok;
}

/* Another user's file (not the running user's, not root's) in the folder is never published
 * as ours: they could change it at any time. The episode whose set holds one is left out, with
 * a warning at its sidecar's `path` naming the file (NULL: the sidecar itself). */
static re_status leave_out(const char *path, const char *name, uid_t owner, int *left_out,
                           re_diagnostics *warnings)
{
    *left_out = 1;
    return re_diag_add(warnings, path, 0, 0, "not in the feed: %s belongs to another user "
                       "(uid %ju), who could change it at any time; only your own files and "
                       "root's are published", name ? name : "it", (uintmax_t)owner) == RE_OK
           ? RE_OK : RE_ERR_NOMEM;
}

/* 1 when the file `name` in dir, or the symlink at its name, belongs to another user (*owner);
 * the digests (re_sidecar_file_match) judge the files they open again, by the same rule. */
static int foreign_file(const char *dir, const char *name, uid_t *owner, re_status *status)
{
    char *path = re_path_join(dir, name);
    struct stat st;
    int foreign = 0;
    if (!path)
        *status = RE_ERR_NOMEM;
    else if (lstat(path, &st) == 0 && (!re_owner_trusted(st.st_uid)
                                        || (S_ISLNK(st.st_mode) && stat(path, &st) == 0
                                            && !re_owner_trusted(st.st_uid)))) {
        *owner = st.st_uid;
        foreign = 1;
    }
    free(path);
    return foreign;
}

/* Which files beside the MP3 the item links: those the sidecar lists as written by the same
 * render, still with those bytes. The MP3 itself must match its entry (else the sidecar is
 * stale: an error); a listed file that changed is an error, a listed one that is gone a
 * warning, and a file by the name of one that the render did not write (left by an earlier
 * render) is not linked, with a warning. A sidecar of an older version, without the list,
 * links no file. */
static re_status episode_files(const char *dir, const char *path, re_feed_episode *e,
                               int *input_errors, int *left_out, re_diagnostics *errors,
                               re_diagnostics *warnings)
{
    if (!e->has_files)
        return re_diag_add(warnings, path, 0, 0, "written by an older render-episode (no "
                           "\"files\" list): its transcripts, chapters and page are not "
                           "linked; render the episode again");
    re_sidecar side = { .files = e->files, .file_count = e->file_count };
    const re_sidecar_file *audio = re_sidecar_file_find(&side, e->audio_name);
    char *audio_path = re_path_join(dir, e->audio_name);
    if (!audio_path)
        return RE_ERR_NOMEM;
    uid_t owner = 0;
    re_sidecar_match audio_match = audio ? re_sidecar_file_match(audio_path, audio, &owner)
                                         : RE_SIDECAR_GONE;
    free(audio_path);
    if (audio_match == RE_SIDECAR_FOREIGN)
        return leave_out(path, e->audio_name, owner, left_out, warnings);
    if (audio_match != RE_SIDECAR_MATCH) {
        (*input_errors)++;
        return re_diag_add(errors, path, 0, 0, "the sidecar is stale: %s is not the file its "
                           "render wrote (%s); render the episode again", e->audio_name,
                           audio ? "its SHA-256 differs" : "the sidecar does not list it");
    }
    re_status status = RE_OK;
    for (size_t k = 0; status == RE_OK && k < sizeof asset_files / sizeof asset_files[0]; k++) {
        char *name = NULL, *file = NULL;
        if (asprintf(&name, "%s%s", e->stem, asset_files[k].suffix) < 0)
            name = NULL;
        if (!name || !(file = re_path_join(dir, name))) {
            free(name);
            return RE_ERR_NOMEM;
        }
        const re_sidecar_file *entry = re_sidecar_file_find(&side, name);
        re_sidecar_match m = entry ? re_sidecar_file_match(file, entry, &owner)
                                   : RE_SIDECAR_GONE;
        struct stat st;
        if (entry && m == RE_SIDECAR_FOREIGN) {
            status = leave_out(path, name, owner, left_out, warnings);
        } else if (entry && m == RE_SIDECAR_MATCH) {
            e->assets |= asset_files[k].asset;
        } else if (entry && m == RE_SIDECAR_CHANGED) {
            (*input_errors)++;
            status = re_diag_add(errors, path, 0, 0, "%s is not what the render wrote (its size "
                                 "or SHA-256 differs from the sidecar's): it is stale; render "
                                 "the episode again", name);
        } else if (entry) {
            status = re_diag_add(warnings, path, 0, 0, "%s, which the render wrote, is gone: "
                                 "not linked", name);
        } else if (regular_file(dir, name, &st, &status)) {
            status = re_diag_add(warnings, path, 0, 0, "%s was not written by the render that "
                                 "made %s (an earlier one?): not linked", name, e->audio_name);
        }
        free(name);
        free(file);
    }
    return status;
}

/* Reads one candidate; appends the episode when it is one. Problems go to the lists. */
static re_status scan_one(re_feed *feed, const char *dir, const char *name, int *input_errors,
                          re_diagnostics *errors, re_diagnostics *warnings)
{
    struct stat st;
    re_status status = RE_OK;
    if (!regular_file(dir, name, &st, &status))
        return status;
    char *path = re_path_join(dir, name), *buf = NULL;
    size_t len = 0;
    if (!path)
        return RE_ERR_NOMEM;
    /* read without waiting: a FIFO swapped in since is not a sidecar; another user's file is
     * not read at all (a broken one of theirs would fail the feed) */
    uid_t owner = 0;
    int left_out = 0;
    status = re_file_read_trusted(path, RE_SIDECAR_MAX_SIZE, RE_READ_REGULAR, &buf, &len, &owner,
                                  errors);
    if (status == RE_OK && !buf) {
        status = leave_out(path, NULL, owner, &left_out, warnings);
        free(path);
        return status;
    }
    re_feed_episode e;
    re_sidecar_kind kind = RE_SIDECAR_NONE;
    if (status == RE_OK)
        status = re_feed_episode_read(path, buf, len, &e, &kind, errors);
    free(buf);
    if (status != RE_OK || kind != RE_SIDECAR_MP3) {
        free(path);
        if (status == RE_ERR_NOMEM)
            return status;
        *input_errors += status != RE_OK;
        return RE_OK;
    }
    if (foreign_file(dir, e.audio_name, &owner, &status)) {
        status = leave_out(path, e.audio_name, owner, &left_out, warnings);
    } else if (status != RE_OK) {
        /* out of memory */
    } else if (!regular_file(dir, e.audio_name, &st, &status)) {
        if (status == RE_OK && re_diag_add(warnings, path, 0, 0, "%s is missing; not in the feed",
                                           e.audio_name) != RE_OK)
            status = RE_ERR_NOMEM;
    } else if ((uint64_t)st.st_size != e.bytes) {
        (*input_errors)++;
        if (re_diag_add(errors, path, 0, 0, "the sidecar is stale: it says %llu bytes, but %s has "
                        "%llu; render the episode again", (unsigned long long)e.bytes,
                        e.audio_name, (unsigned long long)st.st_size) != RE_OK)
            status = RE_ERR_NOMEM;
    } else {
        int before = *input_errors;
        status = episode_files(dir, path, &e, input_errors, &left_out, errors, warnings);
        if (status == RE_OK && !left_out && e.summary)
            status = re_feed_check_description(path, "summary", e.summary, input_errors, errors);
        if (status == RE_OK && !left_out && !e.dated
            && re_diag_add(warnings, path, 0, 0, "no \"published\" date: the item has no pubDate "
                           "and comes last") != RE_OK)
            status = RE_ERR_NOMEM;
        if (status == RE_OK && *input_errors == before && !left_out)
            status = re_feed_add(feed, &e);
    }
    re_feed_episode_free(&e);
    free(path);
    return status;
}

re_status re_feed_scan(re_feed *feed, const char *dir, re_diagnostics *errors,
                       re_diagnostics *warnings)
{
    char **names = NULL;
    size_t n = 0;
    re_status st = list_json(dir, &names, &n, errors);
    if (st != RE_OK)
        return st;
    int input_errors = 0;
    size_t before = feed->count;
    for (size_t i = 0; st == RE_OK && i < n; i++)
        st = feed->stop && *feed->stop ? RE_ERR_INTERRUPTED
                                       : scan_one(feed, dir, names[i], &input_errors, errors, warnings);
    re_dir_names_free(names, n);
    if (st != RE_OK)
        return st;
    re_feed_sort(feed->episodes, feed->count);
    if (input_errors)
        return RE_ERR_INPUT;
    if (feed->count == before) {
        if (re_diag_add(errors, dir, 0, 0, "no rendered MP3 episode here (an episode is NAME.mp3 "
                        "with the sidecar NAME.json that render-episode wrote beside it)") != RE_OK)
            return RE_ERR_NOMEM;
        return RE_ERR_INPUT;
    }
    return RE_OK;
}

/* Apple's limits on a description: at most RE_APPLE_DESCRIPTION_MAX bytes, no blank at
 * either end. An error at `where` names the key. */
re_status re_feed_check_description(const char *where, const char *key, const char *text,
                                   int *input_errors, re_diagnostics *errors)
{
    size_t n = strlen(text);
    const char *problem = NULL;
    if (n > RE_APPLE_DESCRIPTION_MAX)
        problem = "is longer than Apple's limit of 4000 bytes";
    else if (n > 0 && (re_is_blank(text[0]) || re_is_blank(text[n - 1]) || text[0] == '\n'
                       || text[n - 1] == '\n'))
        problem = "starts or ends with a blank, which Apple refuses";
    if (!problem)
        return RE_OK;
    (*input_errors)++;
    return re_diag_add(errors, where, 0, 0, "the %s %s (%zu bytes)", key, problem, n) == RE_OK
           ? RE_OK : RE_ERR_NOMEM;
}

/* ======================================================================================
 * The schedule
 * ====================================================================================== */

re_status re_feed_leave_out_future(re_feed *feed, int64_t now_ms, size_t *left,
                                   re_diagnostics *warnings)
{
    *left = 0;
    char now[32];
    time_t seconds = (time_t)(now_ms >= 0 ? now_ms / 1000 : (now_ms - 999) / 1000);
    struct tm tm;
    if (!gmtime_r(&seconds, &tm) || strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(now, sizeof now, "%" PRId64 " ms after 1970", now_ms);
    size_t kept = 0;
    re_status st = RE_OK;
    for (size_t i = 0; i < feed->count; i++) {
        re_feed_episode *e = &feed->episodes[i];
        if (!e->dated || e->instant_ms <= now_ms) {
            if (kept != i) {
                feed->episodes[kept] = *e;
                memset(e, 0, sizeof *e);
            }
            kept++;
            continue;
        }
        char *path = re_path_join(feed->dir ? feed->dir : ".", e->sidecar_name);
        if (st == RE_OK)
            st = path ? re_diag_add(warnings, path, 0, 0, "not in the feed yet: it is published "
                                    "%s, later than now (%s); it appears in the first feed "
                                    "written from then on (--include-future publishes it now)",
                                    e->published, now)
                      : RE_ERR_NOMEM;
        free(path);
        re_feed_episode_free(e);
        (*left)++;
    }
    feed->count = kept;
    return st;
}
