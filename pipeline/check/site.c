/* SPDX-License-Identifier: GPL-3.0-or-later */
/* site.c - `check DIR`: which files of a published folder are episodes (NAME.mp3) and which
 * are feeds, leaving out with a warning what another user put there (see check.h,
 * re_check_site_scan). */
#include "check_internal.h"
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
    return st;
}

void re_check_site_free(re_check_site *site)
{
    if (!site)
        return;
    free_names(site->mp3s, site->mp3_count);
    free_names(site->feeds, site->feed_count);
    memset(site, 0, sizeof *site);
}
