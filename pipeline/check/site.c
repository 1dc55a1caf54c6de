/* SPDX-License-Identifier: GPL-3.0-or-later */
/* site.c - `check DIR`: which files of a published folder are episodes (NAME.mp3) and which
 * are feeds, leaving out with a warning what another user put there (see check.h,
 * re_check_site_scan). */
#include "check_internal.h"
#include "extract.h"
#include "files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && strcasecmp(name + n - s, suffix) == 0;
}

static int is_mp3(const char *name)
{
    return ends_with(name, ".mp3");
}

/* A name that may be a feed: its root element decides (read_feeds). */
static int is_feed(const char *name)
{
    return ends_with(name, ".xml") || ends_with(name, ".rss") || ends_with(name, ".atom");
}

/* Companions that describe one episode: with no NAME.mp3 beside them they are left out, with
 * a warning (a page of an episode removed since, say). Longest suffix first. */
static const char *const episode_suffixes[] = {
    ".transcript.json", ".chapters.json", ".html", ".htm", ".vtt", ".srt",
};

/* Names check would read; others (scripts, show.txt, cover art) are not looked at. */
static int readable_name(const char *name)
{
    static const char *const suffixes[] = {
        ".mp3", ".json", ".html", ".htm", ".md", ".vtt", ".srt", ".xml", ".rss", ".atom",
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (ends_with(name, suffixes[i]))
            return 1;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static re_status push_name(char ***list, size_t *count, const char *name)
{
    char **grown = realloc(*list, (*count + 1) * sizeof *grown);
    if (!grown)
        return RE_ERR_NOMEM;
    *list = grown;
    if (!(grown[*count] = strdup(name)))
        return RE_ERR_NOMEM;
    (*count)++;
    return RE_OK;
}

static void free_names(char **list, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(list[i]);
    free(list);
}

/* Whether a file that check reads may be judged: the running user's or root's, and so is a
 * symlink at its name; a regular file. Else a warning, and 0. A FIFO is never opened. */
static int judge_entry(int dirfd, const char *dir, const char *name, re_check_site *site,
                       re_diagnostics *warnings, re_status *st)
{
    struct stat link, target;
    char *path = re_path_join(dir, name);
    if (!path) {
        *st = RE_ERR_NOMEM;
        return 0;
    }
    const char *why = NULL;
    uid_t owner = 0;
    if (fstatat(dirfd, name, &link, AT_SYMLINK_NOFOLLOW) != 0) {
        free(path);
        return 0;   /* gone since it was listed */
    }
    if (!re_owner_trusted(link.st_uid)) {
        owner = link.st_uid;
    } else if (fstatat(dirfd, name, &target, 0) != 0) {
        why = "a symlink that leads nowhere";
    } else if (!re_owner_trusted(target.st_uid)) {
        owner = target.st_uid;
    } else if (S_ISDIR(target.st_mode)) {
        free(path);
        return 0;   /* subfolders are not looked into */
    } else if (!S_ISREG(target.st_mode)) {
        why = "not a regular file (a FIFO, device or socket is never opened)";
    }
    if (owner != 0 || why) {
        site->not_checked++;
        if (owner != 0)
            *st = check_fail(warnings, RE_OK, path, 0, 0, "not checked: it belongs to another "
                             "user (uid %ju), not to you or root", (uintmax_t)owner);
        else
            *st = check_fail(warnings, RE_OK, path, 0, 0, "not checked: %s", why);
        free(path);
        return 0;
    }
    free(path);
    return 1;
}

/* Whether `name` (an episode companion) has NAME.mp3 (or NAME.MP3) among the MP3s, which
 * are sorted: a binary search, so that a large folder costs n log n. -1 when out of memory. */
static int has_episode(const re_check_site *site, const char *dir, const char *name)
{
    for (size_t i = 0; i < sizeof episode_suffixes / sizeof episode_suffixes[0]; i++) {
        if (!ends_with(name, episode_suffixes[i]))
            continue;
        char *path = re_path_join(dir, name);
        if (!path)
            return -1;
        size_t stem = strlen(path) - strlen(episode_suffixes[i]);
        char *mp3 = realloc(path, stem + 5);
        if (!mp3) {
            free(path);
            return -1;
        }
        int found = 0;
        for (int upper = 0; upper < 2 && !found; upper++) {
            memcpy(mp3 + stem, upper ? ".MP3" : ".mp3", 5);
            found = site->mp3_count > 0
                    && bsearch(&mp3, site->mp3s, site->mp3_count, sizeof *site->mp3s, by_name);
        }
        free(mp3);
        return found;
    }
    return 1;   /* not an episode companion */
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* One warning for a feed that has items but none for some MP3s of the folder (a future
 * episode not in it yet): the first few named. */
static re_status warn_unlisted(re_check_site *site, size_t k, const char *path,
                               re_diagnostics *warnings)
{
    enum { SHOWN = 5 };
    size_t m = site->mp3_count, missing = 0;
    char names[SHOWN * 64 + 32] = "";
    size_t used = 0;
    for (size_t i = 0; i < m; i++) {
        if (site->feed_claims[k * m + i].count > 0)
            continue;
        if (missing++ < SHOWN && used < sizeof names) {
            int w = snprintf(names + used, sizeof names - used, "%s%.60s", used ? ", " : "",
                             base_of(site->mp3s[i]));
            used += w > 0 ? (size_t)w : 0;
        }
    }
    if (missing == 0 || site->feed_matched[k] == 0)
        return RE_OK;   /* all listed; or none: a failure check DIR reports itself */
    return check_fail(warnings, RE_OK, path, 0, 0, "none of its %zu feed items has an enclosure "
                      "named %s%s (%zu of the folder's %zu episodes)", site->feed_items[k],
                      names, missing > SHOWN ? ", ..." : "", missing, m);
}

/* Reads each candidate feed once (only when trusted), keeps those whose root is a feed's, and
 * parses each once into feed_claims; the others are dropped from site->feeds. */
static re_status read_feeds(re_check_site *site, re_diagnostics *errors,
                            re_diagnostics *warnings)
{
    size_t n = site->feed_count, m = site->mp3_count, kept = 0;
    const char **mp3_names = calloc(m + 1, sizeof *mp3_names);
    site->feed_claims = calloc(n * m + 1, sizeof *site->feed_claims);
    site->feed_items = calloc(n + 1, sizeof *site->feed_items);
    site->feed_matched = calloc(n + 1, sizeof *site->feed_matched);
    site->feed_claim_count = calloc(n + 1, sizeof *site->feed_claim_count);
    if (!mp3_names || !site->feed_claims || !site->feed_items || !site->feed_matched
        || !site->feed_claim_count) {
        free(mp3_names);
        return RE_ERR_NOMEM;
    }
    for (size_t i = 0; i < m; i++)
        mp3_names[i] = base_of(site->mp3s[i]);   /* sorted as the paths: one folder */
    re_status st = RE_OK;
    for (size_t k = 0; k < n; k++) {
        char *path = site->feeds[k], *buf = NULL;
        size_t len = 0, items = 0, matched = 0;
        uid_t owner = 0;
        int keep = 0;
        if (st != RE_OK) {
            free(path);
            continue;
        }
        re_status r = re_file_read_trusted(path, RE_CHECK_MAX_FILE_SIZE, RE_READ_REGULAR, &buf,
                                           &len, &owner, errors);
        if (r == RE_OK && !buf && owner != 0) {
            site->not_checked++;
            r = check_fail(warnings, RE_OK, path, 0, 0, "not checked: it belongs to another "
                           "user (uid %ju), not to you or root", (uintmax_t)owner);
        } else if (r == RE_OK) {
            int feed = re_feed_root_is_feed(path, buf ? buf : "", len);
            if (feed < 0)
                r = RE_ERR_NOMEM;
            else if (feed)
                r = re_feed_claims_site(path, buf, len, mp3_names, m, site->feed_claims + kept * m,
                                        &items, &matched, errors);
            keep = feed && r == RE_OK;
        }
        free(buf);
        if (r == RE_ERR_NOMEM || r == RE_ERR_INVALID)
            st = r;
        else if (r != RE_OK && site->input_status == RE_OK)
            site->input_status = r;
        if (!keep) {
            for (size_t i = 0; i < m; i++)
                re_claim_list_free(&site->feed_claims[kept * m + i]);
            free(path);
            continue;
        }
        site->feeds[kept] = path;
        site->feed_items[kept] = items;
        site->feed_matched[kept] = matched;
        for (size_t i = 0; i < m; i++)
            site->feed_claim_count[kept] += site->feed_claims[kept * m + i].count;
        st = warn_unlisted(site, kept, path, warnings);
        kept++;
    }
    site->feed_count = kept;
    free(mp3_names);
    return st;
}

re_status re_check_site_scan(const char *dir, re_check_site *site, re_diagnostics *errors,
                             re_diagnostics *warnings)
{
    if (!site)
        return RE_ERR_INVALID;
    memset(site, 0, sizeof *site);
    if (!dir)
        return RE_ERR_INVALID;
    int fd = re_open_owned(dir, O_RDONLY | O_DIRECTORY, NULL, NULL);
    if (fd < 0)
        return check_fail(errors, RE_ERR_READ, dir, 0, 0, "cannot open the folder: %s",
                          errno == EPERM ? "a symlink on the way belongs to another user"
                                         : strerror(errno));
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return check_fail(errors, RE_ERR_READ, dir, 0, 0, "cannot list the folder: %s",
                          strerror(errno));
    }
    char **names = NULL;
    size_t count = 0;
    re_status st = RE_OK;
    struct dirent *e;
    errno = 0;
    while (st == RE_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !readable_name(e->d_name))
            continue;
        if (count >= RE_CHECK_MAX_DIR_ENTRIES)
            st = check_fail(errors, RE_ERR_LIMIT, dir, 0, 0, "more than %u files to check in "
                            "one folder", RE_CHECK_MAX_DIR_ENTRIES);
        else
            st = push_name(&names, &count, e->d_name);
        errno = 0;
    }
    if (st == RE_OK && errno != 0)
        st = check_fail(errors, RE_ERR_READ, dir, 0, 0, "cannot list the folder: %s",
                        strerror(errno));
    if (count > 1)
        qsort(names, count, sizeof *names, by_name);
    /* the MP3s first, so that the companions can be paired with them */
    for (int pass = 0; pass < 2 && st == RE_OK; pass++)
        for (size_t i = 0; st == RE_OK && i < count; i++) {
            const char *name = names[i];
            int paired;
            if ((pass == 0) != is_mp3(name))
                continue;
            /* an episode's own files are judged where they are read (run.c) */
            int own = pass == 0 || is_feed(name);
            if (own && (!judge_entry(dirfd(d), dir, name, site, warnings, &st) || st != RE_OK))
                continue;
            char *path = re_path_join(dir, name);
            if (!path) {
                st = RE_ERR_NOMEM;
                break;
            }
            if (pass == 0)
                st = push_name(&site->mp3s, &site->mp3_count, path);
            else if (is_feed(name))
                st = push_name(&site->feeds, &site->feed_count, path);
            else if (strcasecmp(name, "index.html") == 0)
                ;   /* the show's listing: no claim of one episode's */
            else if ((paired = has_episode(site, dir, name)) < 0)
                st = RE_ERR_NOMEM;
            else if (!paired) {
                site->not_checked++;
                st = check_fail(warnings, RE_OK, path, 0, 0, "not checked: no episode beside "
                                "it (no MP3 of the same name)");
            }
            free(path);
        }
    free_names(names, count);
    closedir(d);
    if (st == RE_OK)
        st = read_feeds(site, errors, warnings);
    return st;
}

void re_check_site_free(re_check_site *site)
{
    if (!site)
        return;
    free_names(site->mp3s, site->mp3_count);
    for (size_t i = 0; site->feed_claims && i < site->feed_count * site->mp3_count; i++)
        re_claim_list_free(&site->feed_claims[i]);
    free(site->feed_claims);
    free(site->feed_items);
    free(site->feed_matched);
    free(site->feed_claim_count);
    free_names(site->feeds, site->feed_count);
    memset(site, 0, sizeof *site);
}
