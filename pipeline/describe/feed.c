/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed.c - the feed's URLs and the channel completed from the show file (parse/show.c) and the
 * episodes (see feed.h, docs/feed.md); guid.c makes the GUIDs, feed_scan.c reads the folder,
 * feed_write.c writes the RSS. */
#define _GNU_SOURCE
#include "feed.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artwork.h"
#include "datetime.h"
#include "feed_internal.h"
#include "files.h"
#include "text.h"
#include "url.h"
#include "utf8.h"

int re_feed_base_url_ok(const char *url, const char **why)
{
    return re_url_check(url, 0, why);
}

char *re_feed_url(const char *base_url, const char *file_name)
{
    return re_url_join(base_url, file_name);
}

/* ======================================================================================
 * The channel's defaults
 * ====================================================================================== */

/* The value every episode that has one agrees on: *value (NULL when none has it); returns 0
 * and sets *a, *b to two disagreeing episodes when they differ. */
static int common_value(const re_feed *feed, size_t field_offset, const char **value,
                        const re_feed_episode **a, const re_feed_episode **b)
{
    *value = NULL;
    const re_feed_episode *first = NULL;
    for (size_t i = 0; i < feed->count; i++) {
        const re_feed_episode *e = &feed->episodes[i];
        const char *v = *(char *const *)((const char *)e + field_offset);
        if (!v)
            continue;
        if (!first) {
            first = e;
            *value = v;
        } else if (strcmp(v, *value) != 0) {
            *a = first;
            *b = e;
            return 0;
        }
    }
    return 1;
}

/* Defaults one channel field from the episodes. Returns -1 when they disagree. */
static int default_from_episodes(const re_feed *feed, char **field, size_t offset,
                                 const re_feed_episode **a, const re_feed_episode **b,
                                 int *nomem)
{
    const char *value;
    if (*field)
        return 0;
    if (!common_value(feed, offset, &value, a, b))
        return -1;
    if (value && !(*field = strdup(value)))
        *nomem = 1;
    return 0;
}

re_status re_feed_name_channel(re_feed *feed, const char *base_url)
{
    free(feed->feed_url);
    if (!(feed->feed_url = re_feed_url(base_url, feed->feed_name ? feed->feed_name : "feed.xml")))
        return RE_ERR_NOMEM;
    char computed[RE_UUID_TEXT_SIZE];
    re_feed_podcast_guid(feed->feed_url, computed);
    snprintf(feed->channel_guid, sizeof feed->channel_guid, "%s",
             feed->show.guid ? feed->show.guid : computed);
    return RE_OK;
}

/* The feed's URL, the channel guid, the artwork, and what Apple and Podcast Index require:
 * image, category, explicit, guid (one message naming each one missing and its line). */
static re_status complete_publishing(re_feed *feed, const char *base_url, const char *show_file,
                                     int *missing, re_diagnostics *errors,
                                     re_diagnostics *warnings)
{
    re_show *s = &feed->show;
    free(feed->image_url);
    free(feed->missing);
    feed->image_url = feed->missing = NULL;
    if (re_feed_name_channel(feed, base_url) != RE_OK)
        return RE_ERR_NOMEM;
    char computed[RE_UUID_TEXT_SIZE];   /* the guid: line suggested when the show has none */
    re_feed_podcast_guid(feed->feed_url, computed);

    re_status st = RE_OK;
    if (s->image && strstr(s->image, "://")) {
        if (!(feed->image_url = strdup(s->image)))
            return RE_ERR_NOMEM;
        st = re_diag_add(warnings, show_file, 0, 0, "the image is a remote URL, not checked: "
                         "make sure it is a %u to %u px square RGB JPEG or PNG",
                         RE_ARTWORK_MIN_PX, RE_ARTWORK_MAX_PX);
    } else if (s->image) {
        if (!(feed->image_url = re_feed_url(base_url, s->image)))
            return RE_ERR_NOMEM;
        st = re_artwork_check(feed->dir ? feed->dir : ".", s->image, errors);
        if (st == RE_ERR_INPUT) {
            (*missing)++;
            st = RE_OK;
        }
    }
    if (st != RE_OK)
        return st;

    /* What a directory would refuse the feed for: one message naming each, with its line. */
    char *names = NULL, *lines = NULL;
    struct { int absent; const char *name, *line; } required[] = {
        { !s->image, "image", "image: cover.jpg   (a 1400-3000 px square RGB JPEG or PNG here, "
                              "or its https:// URL)" },
        { !s->category, "category", "category: Technology   (from Apple's list, "
                                    "docs/feed.md)" },
        { s->explicit_content < 0, "explicit", "explicit: false" },
        { !s->guid, "guid", NULL },
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (!required[i].absent)
            continue;
        char *more_names = NULL, *more_lines = NULL;
        int a = asprintf(&more_names, "%s%s%s", names ? names : "", names ? ", " : "",
                         required[i].name);
        int b = required[i].line
                ? asprintf(&more_lines, "%s\n    %s", lines ? lines : "", required[i].line)
                : asprintf(&more_lines, "%s\n    guid: %s   (podcast:guid of %s; keep it for "
                           "the show's life)", lines ? lines : "", computed, feed->feed_url);
        free(names);
        free(lines);
        names = a < 0 ? NULL : more_names;
        lines = b < 0 ? NULL : more_lines;
        if (!names || !lines) {
            free(names);
            free(lines);
            return RE_ERR_NOMEM;
        }
    }
    if (names) {
        re_diagnostics *to = feed->draft ? warnings : errors;
        st = re_diag_add(to, show_file, 0, 0, "%s: the channel has no %s, which Apple Podcasts "
                         "and Podcast Index require; add to the show file:%s", feed->draft
                         ? "a draft feed (--draft)" : "not ready to publish", names, lines);
        if (!feed->draft) {
            (*missing)++;
        } else {
            feed->missing = names;   /* the draft comment names them */
            names = NULL;
        }
    }
    free(names);
    free(lines);
    return st;
}

re_status re_feed_complete_channel(re_feed *feed, const char *base_url, const char *show_file,
                                   re_diagnostics *errors, re_diagnostics *warnings)
{
    re_show *s = &feed->show;
    const re_feed_episode *a = NULL, *b = NULL;
    int nomem = 0, missing = 0;
    re_status st = RE_OK;

    if (default_from_episodes(feed, &s->title, offsetof(re_feed_episode, show), &a, &b,
                              &nomem) < 0) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the episodes name different shows ('%s' in "
                         "%s, '%s' in %s): add `title: ...` to the show file", a->show,
                         a->sidecar_name, b->show, b->sidecar_name);
    } else if (!s->title && !nomem) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the channel has no title: add `title: ...` "
                         "to the show file (or `show:` to the episodes' scripts)");
    }
    if (st == RE_OK && !s->description) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the channel has no description: add "
                         "`description: ...` to the show file");
    }
    if (st == RE_OK && default_from_episodes(feed, &s->language,
                                             offsetof(re_feed_episode, language), &a, &b,
                                             &nomem) < 0) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the episodes are in different languages "
                         "('%s' in %s, '%s' in %s): add `language: ...` to the show file",
                         a->language, a->sidecar_name, b->language, b->sidecar_name);
    } else if (st == RE_OK && !s->language && !nomem) {
        missing++;
        st = re_diag_add(errors, show_file, 0, 0, "the channel has no language: add "
                         "`language: ...` to the show file");
    }
    if (st == RE_OK && default_from_episodes(feed, &s->author, offsetof(re_feed_episode, author),
                                             &a, &b, &nomem) < 0)
        st = re_diag_add(warnings, show_file, 0, 0, "the episodes have different authors ('%s' "
                         "in %s, '%s' in %s): the channel has no itunes:author; add `author: ...` "
                         "to the show file", a->author, a->sidecar_name, b->author,
                         b->sidecar_name);
    if (st == RE_OK && !s->link) {   /* the folder's URL, ending in exactly one '/' */
        size_t n = strlen(base_url);
        while (n > 0 && base_url[n - 1] == '/')
            n--;
        if (asprintf(&s->link, "%.*s/", (int)n, base_url) < 0) {
            s->link = NULL;
            nomem = 1;
        }
    }
    if (st == RE_OK && !nomem && s->description
        && re_feed_check_description(show_file, "description", s->description, &missing, errors) != RE_OK)
        nomem = 1;
    if (st == RE_OK && !nomem)
        st = complete_publishing(feed, base_url, show_file, &missing, errors, warnings);
    if (nomem || (st != RE_OK && st != RE_ERR_INPUT))
        return RE_ERR_NOMEM;
    return missing || st != RE_OK ? RE_ERR_INPUT : RE_OK;
}
