/* SPDX-License-Identifier: GPL-3.0-or-later */
/* show_pages.c - `feed` writes the show's navigation into the episode pages and keeps their
 * sidecars' lists true (see show_pages.h, docs/feed.md "The page inside its show"). */
#define _GNU_SOURCE
#include "show_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"
#include "outputs.h"
#include "page.h"
#include "sha256.h"
#include "sidecar.h"

/* A page or sidecar is read whole: at most what `check` reads of a page (its
 * RE_CHECK_MAX_FILE_SIZE), since a larger page could not be checked anyway; the page of a
 * 2.5-hour episode is 0.5 MB. */
#define SHOW_PAGE_MAX_SIZE (64u << 20)

/* Reads `name` in the folder when it is a regular file of the running user's or root's with
 * one name, never following a symlink or waiting on a FIFO: *buf, *len. Otherwise a warning
 * at `path` saying why the page is left as it was, and RE_ERR_INPUT. */
static re_status read_own(int dir, const char *name, const char *path, char **buf, size_t *len,
                          re_diagnostics *warnings)
{
    *buf = NULL;
    *len = 0;
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    const char *why = NULL;
    if (fd < 0 || fstat(fd, &st) != 0)
        why = errno == ELOOP ? "it is a symlink now" : strerror(errno);
    else if (!S_ISREG(st.st_mode))
        why = "it is no longer a regular file";
    else if (!re_owner_trusted(st.st_uid))
        why = "it belongs to another user";
    else if (st.st_nlink != 1)
        why = "it has another name too (a hard link)";
    if (why) {
        if (fd >= 0)
            (void)close(fd);
        return re_diag_add(warnings, path, 0, 0, "the show's links not written into the page: %s",
                           why) == RE_OK ? RE_ERR_INPUT : RE_ERR_NOMEM;
    }
    re_status status = re_file_read_fd(fd, path, SHOW_PAGE_MAX_SIZE, RE_READ_REGULAR, buf, len,
                                       warnings);
    return status == RE_ERR_NOMEM ? status : status != RE_OK ? RE_ERR_INPUT : RE_OK;
}

/* The link to episode e of the feed: its page when the feed links it, else its audio. */
typedef struct show_links {
    re_page_link *links;
    char **files;
    size_t count;
} show_links;

static void links_free(show_links *l)
{
    for (size_t i = 0; l->files && i < l->count; i++)
        free(l->files[i]);
    free(l->files);
    free(l->links);
}

static re_status links_make(const re_feed *feed, show_links *l)
{
    l->count = feed->count;
    l->links = calloc(feed->count ? feed->count : 1, sizeof *l->links);
    l->files = calloc(feed->count ? feed->count : 1, sizeof *l->files);
    if (!l->links || !l->files)
        return RE_ERR_NOMEM;
    for (size_t i = 0; i < feed->count; i++) {
        const re_feed_episode *e = &feed->episodes[i];
        if (e->assets & RE_ASSET_PAGE) {
            if (asprintf(&l->files[i], "%s.html", e->stem) < 0) {
                l->files[i] = NULL;
                return RE_ERR_NOMEM;
            }
        } else if (!(l->files[i] = strdup(e->audio_name))) {
            return RE_ERR_NOMEM;
        }
        l->links[i] = (re_page_link){ e->title, e->published, l->files[i] };
    }
    return RE_OK;
}

/* The up to RE_PAGE_NEARBY_MAX episodes nearest to episode `at` in the feed's order (itself
 * left out), taken alternately after and before it, listed in the feed's order. */
static size_t nearby_range(size_t count, size_t at, size_t *from)
{
    size_t before = 0, after = 0;
    while (before + after < RE_PAGE_NEARBY_MAX && (at > before || at + after + 1 < count)) {
        if (at + after + 1 < count)
            after++;
        if (before + after < RE_PAGE_NEARBY_MAX && at > before)
            before++;
    }
    *from = at - before;
    return before + after + 1;   /* itself included: skipped by the caller */
}

/* The page of episode `at` with the show's links: *out, *out_len. */
static re_status page_for(const re_feed *feed, const show_links *l, size_t at, const char *page,
                          size_t len, const char *base_url, const char *index_name,
                          const char *feed_name, char **out, size_t *out_len)
{
    const re_feed_episode *e = &feed->episodes[at];
    re_page_link nearby[RE_PAGE_NEARBY_MAX];
    size_t from = 0, span = nearby_range(feed->count, at, &from), n = 0;
    for (size_t i = from; i < from + span; i++)
        if (i != at && n < RE_PAGE_NEARBY_MAX)
            nearby[n++] = l->links[i];
    char *cover = NULL, *page_url = re_feed_url(base_url, l->files[at]);
    char *audio_url = re_feed_url(base_url, e->audio_name), *cover_url = NULL;
    re_status status = page_url && audio_url ? re_feed_cover_name(e, &cover) : RE_ERR_NOMEM;
    if (status == RE_OK && cover && !(cover_url = re_feed_url(base_url, cover)))
        status = RE_ERR_NOMEM;
    re_page_nav nav = {
        .show = feed->show.title,
        .language = e->language ? e->language : feed->show.language,
        .index_name = index_name,
        .feed_name = feed_name,
        .older = at + 1 < feed->count ? &l->links[at + 1] : NULL,   /* newest first */
        .newer = at > 0 ? &l->links[at - 1] : NULL,
        .nearby = nearby,
        .nearby_count = n,
        .canonical_url = page_url,
        .title = e->title,
        .description = e->summary && *e->summary ? e->summary : feed->show.description,
        .image_url = cover_url ? cover_url : feed->image_url,
        .audio_url = audio_url,
    };
    if (status == RE_OK)
        status = re_page_with_nav(page, len, &nav, out, out_len);
    free(cover);
    free(cover_url);
    free(page_url);
    free(audio_url);
    return status;
}

/* Episode `at`'s page and sidecar, read again under the lock, and replaced when its links
 * change. RE_OK (written or nothing to do, *wrote says which), RE_ERR_INPUT (left as it was,
 * with a warning), RE_ERR_NOMEM. */
static re_status update_page(const re_feed *feed, const show_links *l, size_t at, int dir,
                             const char *dir_path, const char *base_url, const char *index_name,
                             const char *feed_name, int *wrote, re_diagnostics *warnings)
{
    const re_feed_episode *e = &feed->episodes[at];
    const char *page_name = l->files[at];
    *wrote = 0;
    char *page_path = re_path_join(dir_path, page_name);
    char *sidecar_path = re_path_join(dir_path, e->sidecar_name);
    char *page = NULL, *sidecar_text = NULL, *new_page = NULL, *new_sidecar = NULL;
    size_t page_len = 0, sidecar_len = 0, new_page_len = 0, new_sidecar_len = 0;
    re_sidecar sidecar = { 0 };
    re_sidecar_found found = RE_SIDECAR_NOT_OURS;
    re_status status = page_path && sidecar_path ? RE_OK : RE_ERR_NOMEM;
    if (status == RE_OK)
        status = read_own(dir, e->sidecar_name, sidecar_path, &sidecar_text, &sidecar_len,
                          warnings);
    if (status == RE_OK)
        status = read_own(dir, page_name, page_path, &page, &page_len, warnings);
    if (status == RE_OK) {
        re_status read = re_sidecar_read(sidecar_path, sidecar_text, sidecar_len, "mp3",
                                         &sidecar, &found, warnings);
        status = read == RE_ERR_NOMEM ? read : read != RE_OK ? RE_ERR_INPUT : RE_OK;
    }
    /* the page its sidecar lists, still: a render that published meanwhile wrote both anew */
    const re_sidecar_file *entry = status == RE_OK && found == RE_SIDECAR_FOUND
                                   ? re_sidecar_file_find(&sidecar, page_name) : NULL;
    char hex[RE_SHA256_HEX_SIZE];
    unsigned char digest[RE_SHA256_SIZE];
    if (status == RE_OK) {
        re_sha256(page, page_len, digest);
        re_sha256_hex(digest, hex);
    }
    if (status == RE_OK && (!entry || entry->bytes != page_len || strcmp(entry->sha256, hex) != 0))
        status = re_diag_add(warnings, page_path, 0, 0, "the show's links not written into the "
                             "page: it changed since the feed read it (a render published "
                             "meanwhile?): run feed again") == RE_OK ? RE_ERR_INPUT
                                                                     : RE_ERR_NOMEM;
    if (status == RE_OK) {
        status = page_for(feed, l, at, page, page_len, base_url, index_name, feed_name,
                          &new_page, &new_page_len);
        if (status == RE_ERR_FORMAT)
            status = re_diag_add(warnings, page_path, 0, 0, "the show's links not written into "
                                 "the page: it has no place for them, or not once each (made "
                                 "by an older render-episode?): render it again") == RE_OK
                     ? RE_ERR_INPUT : RE_ERR_NOMEM;
    }
    int same = status == RE_OK && new_page_len == page_len
               && memcmp(new_page, page, page_len) == 0;
    if (status == RE_OK && !same) {
        re_sha256(new_page, new_page_len, digest);
        re_sha256_hex(digest, hex);
        status = re_sidecar_with_file(sidecar_text, sidecar_len, page_name, new_page_len, hex,
                                      &new_sidecar, &new_sidecar_len);
        if (status == RE_ERR_FORMAT)
            status = re_diag_add(warnings, sidecar_path, 0, 0, "the show's links not written "
                                 "into %s: this sidecar is not as this version writes it (an "
                                 "older render-episode's?): render it again", page_name) == RE_OK
                     ? RE_ERR_INPUT : RE_ERR_NOMEM;
    }
    /* the page first, then the sidecar that lists it; each only while it holds what was read,
     * and the page put back when the sidecar cannot be replaced */
    if (status == RE_OK && !same) {
        re_diagnostics why;
        re_diagnostics_init(&why, 4);
        re_status put = re_file_replace(page_path, page, page_len, new_page, new_page_len, &why);
        re_status back = RE_OK;
        if (put == RE_OK) {
            put = re_file_replace(sidecar_path, sidecar_text, sidecar_len, new_sidecar,
                                  new_sidecar_len, &why);
            if (put != RE_OK)
                back = re_file_replace(page_path, new_page, new_page_len, page, page_len, NULL);
        }
        if (back != RE_OK) {   /* the new page beside the sidecar of the old one */
            status = re_diag_add(warnings, page_path, 0, 0, "the show's links written into the "
                                 "page, but its sidecar %s could not be updated and the page "
                                 "could not be put back (%s): the two disagree (check warns, "
                                 "feed no longer links the page): render %s again", e->sidecar_name,
                                 why.count ? why.items[0].message : re_strerror(put), e->stem)
                     == RE_OK ? RE_ERR_INPUT : RE_ERR_NOMEM;
        } else if (put == RE_ERR_NOMEM) {
            status = put;
        } else if (put != RE_OK) {
            status = re_diag_add(warnings, page_path, 0, 0, "the show's links not written into "
                                 "the page: %s", why.count ? why.items[0].message
                                 : re_strerror(put)) == RE_OK ? RE_ERR_INPUT : RE_ERR_NOMEM;
        } else {
            *wrote = 1;
        }
        re_diagnostics_free(&why);
    }
    if (found == RE_SIDECAR_FOUND)
        re_sidecar_free(&sidecar);
    free(page);
    free(sidecar_text);
    free(new_page);
    free(new_sidecar);
    free(page_path);
    free(sidecar_path);
    return status;
}

re_status re_show_pages_publish(const re_feed *feed, const char *dir, const char *base_url,
                                const char *index_name, const char *feed_name,
                                volatile sig_atomic_t *stop, size_t *updated,
                                re_diagnostics *warnings)
{
    *updated = 0;
    size_t pages = 0, first = 0;
    for (size_t i = feed->count; i-- > 0;)
        if (feed->episodes[i].assets & RE_ASSET_PAGE) {
            pages++;
            first = i;
        }
    if (pages == 0)
        return RE_OK;
    show_links links = { 0 };
    re_status status = links_make(feed, &links);
    int folder = status == RE_OK ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (status == RE_OK && folder < 0)
        status = re_diag_add(warnings, dir, 0, 0, "the show's links not written into the pages: "
                             "%s", strerror(errno)) == RE_OK ? RE_OK : RE_ERR_NOMEM;
    publish_lock *lock = NULL;
    if (folder >= 0) {
        char *shown = re_path_join(dir, links.files[first]);
        re_diagnostics why;
        re_diagnostics_init(&why, 4);
        status = shown ? re_output_folder_lock(folder, shown, &lock, &why) : RE_ERR_NOMEM;
        for (size_t i = 0; status == RE_OK && i < why.count; i++) {   /* no flock there */
            const char *said = why.items[i].message, *prefix = "warning: ";
            if (strncmp(said, prefix, strlen(prefix)) == 0)
                said += strlen(prefix);
            status = re_diag_add(warnings, why.items[i].file, 0, 0, "the show's links in the "
                                 "pages %s", said);
        }
        if (status != RE_OK && status != RE_ERR_NOMEM && status != RE_ERR_INTERRUPTED)
            status = re_diag_add(warnings, dir, 0, 0, "the show's links not written into the "
                                 "pages: %s", why.count ? why.items[0].message
                                 : re_strerror(status)) == RE_OK ? RE_OK : RE_ERR_NOMEM;
        re_diagnostics_free(&why);
        free(shown);
    }
    for (size_t i = 0; lock && status == RE_OK && i < feed->count; i++) {
        if (!(feed->episodes[i].assets & RE_ASSET_PAGE))
            continue;
        if (stop && *stop) {
            status = RE_ERR_INTERRUPTED;
            break;
        }
        int wrote = 0;
        re_status one = update_page(feed, &links, i, folder, dir, base_url, index_name,
                                    feed_name, &wrote, warnings);
        if (one == RE_ERR_NOMEM)
            status = one;
        *updated += (size_t)wrote;
    }
    re_output_folder_unlock(lock);
    if (folder >= 0)
        (void)close(folder);
    links_free(&links);
    return status;
}
