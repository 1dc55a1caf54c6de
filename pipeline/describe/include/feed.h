/* feed.h - the publish stage: an RSS 2.0 podcast feed (with the iTunes and Podcasting 2.0
 * namespaces) built from the sidecars of the episodes rendered into one folder, and the show
 * file that describes the channel. The formats and the mapping are in docs/feed.md.
 *
 * Life cycle: re_feed_init -> re_show_load into feed->show (optional) -> re_feed_scan (reads
 * the folder, sorts newest first) -> re_feed_complete_channel (defaults, required values) ->
 * re_feed_write -> re_feed_free. The pure parts (re_show_parse, re_feed_episode_read,
 * re_feed_sort, re_feed_url, re_feed_write) work on memory; only
 * re_show_load and re_feed_scan touch the file system. Nothing here prints or exits. */
#ifndef RE_FEED_H
#define RE_FEED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "datetime.h"
#include "status.h"

#define RE_ITUNES_NS "http://www.itunes.com/dtds/podcast-1.0.dtd"
#define RE_PODCAST_NS "https://podcastindex.org/namespace/1.0"

#define RE_SHOW_FILE_NAME "show.txt"          /* looked for in the episodes' folder */
#define RE_SHOW_MAX_SIZE (1u << 20)           /* bytes */

/* ---- the show file ------------------------------------------------------------------------ */

/* The channel's metadata. Every string is owned (free with re_show_free) and NULL when not
 * given. After re_feed_complete_channel, title, description, link and language are set. */
typedef struct re_show {
    char *title;
    char *description;
    char *author;
    char *language;        /* BCP 47, like the script's `language` */
    char *link;            /* http(s) URL of the show's web site */
    char *image;           /* http(s) URL of the cover art */
    char *category;        /* itunes:category text ... */
    char *subcategory;     /* ... and its one nested category (from "Technology > Podcasting") */
    char *owner_name;
    char *owner_email;
    int explicit_content;  /* -1 not given, 0 false, 1 true */
} re_show;

void re_show_init(re_show *show);
void re_show_free(re_show *show);

/* Parses a show file held in memory: UTF-8 `key: value` lines (keys: title, description,
 * author, language, link, image, category, explicit, owner_name, owner_email), blank lines
 * and `#` comment lines. `file` names it in diagnostics. An unknown or duplicate key, a line
 * that is not `key: value`, an empty or invalid value, invalid UTF-8 or a control character
 * is an error at FILE:LINE:COL; all of them are reported (up to the diagnostics limit) and
 * RE_ERR_INPUT returned, with *show unchanged. On RE_OK the values are stored into *show
 * (which must be initialised; values it already holds are replaced). */
re_status re_show_parse(const char *file, const char *buf, size_t len, re_show *show,
                        re_diagnostics *diag);

/* Reads (at most RE_SHOW_MAX_SIZE bytes) and parses the show file at `path`. RE_ERR_READ or
 * RE_ERR_LIMIT with a diagnostic naming the path when it cannot be read. */
re_status re_show_load(const char *path, re_show *show, re_diagnostics *diag);

/* ---- episodes ----------------------------------------------------------------------------- */

/* Files published beside an episode's MP3, found by name (STEM + suffix). */
typedef enum re_feed_asset {
    RE_ASSET_VTT = 1 << 0,              /* STEM.vtt              text/vtt */
    RE_ASSET_SRT = 1 << 1,              /* STEM.srt              application/x-subrip */
    RE_ASSET_TRANSCRIPT_JSON = 1 << 2,  /* STEM.transcript.json  application/json */
    RE_ASSET_CHAPTERS = 1 << 3          /* STEM.chapters.json    application/json+chapters */
} re_feed_asset;


/* One episode, from its sidecar STEM.json. Strings are owned; NULL when the sidecar has null
 * or no such key. */
typedef struct re_feed_episode {
    char *stem;             /* "ep" for ep.json */
    char *audio_name;       /* "ep.mp3" */
    char *sidecar_name;     /* "ep.json" */
    char *title;            /* never NULL */
    char *show, *summary, *author, *language;
    char *published;        /* ISO 8601 as in the sidecar */
    long number;            /* `episode`; -1 when absent */
    uint64_t samples;
    unsigned sample_rate;
    uint64_t bytes;         /* the sidecar's `bytes`; re_feed_scan checks it is the file size */
    int dated;              /* published was given ... */
    int64_t instant_ms;     /* ... and is this many ms after 1970-01-01T00:00:00Z ... */
    char pub_date[RE_RFC822_MAX];   /* ... written as RFC 822 ("" when not dated) */
    unsigned assets;        /* re_feed_asset bits */
} re_feed_episode;

void re_feed_episode_free(re_feed_episode *episode);

typedef enum re_sidecar_kind {
    RE_SIDECAR_NONE,   /* valid JSON, but not a render-episode sidecar: not an episode */
    RE_SIDECAR_MP3,    /* a sidecar of an MP3: an episode */
    RE_SIDECAR_OTHER   /* a sidecar of another format (WAV): not in a feed */
} re_sidecar_kind;

/* Reads one *.json file held in memory; `path` names it in diagnostics and its last component
 * (which must end in ".json", else RE_ERR_INVALID) gives the stem. A JSON object whose
 * "generator" starts with "render-episode" is a sidecar; for an MP3 one, *episode is filled
 * (stem, names, metadata, samples, bytes, the RFC 822 date) and *kind is RE_SIDECAR_MP3.
 * Errors, reported to diag as PATH[:LINE:COL]: RE_ERR_FORMAT when
 * buf is not valid JSON; RE_ERR_INPUT when a sidecar key is missing, has the wrong type or an
 * invalid value (published not an ISO 8601 date or date-time with zone, a control character
 * that XML cannot carry, ...). *episode is zeroed unless RE_OK with RE_SIDECAR_MP3. */
re_status re_feed_episode_read(const char *path, const char *buf, size_t len,
                               re_feed_episode *episode, re_sidecar_kind *kind,
                               re_diagnostics *diag);

/* Newest first by the instant published; episodes without a date after all dated ones; ties
 * (and undated episodes) by file name, byte order. Deterministic. */
void re_feed_sort(re_feed_episode *episodes, size_t count);

/* ---- the feed ----------------------------------------------------------------------------- */

typedef struct re_feed {
    re_show show;                 /* the channel; filled by re_show_load / the caller */
    re_feed_episode *episodes;    /* newest first after re_feed_scan */
    size_t count, capacity;
} re_feed;

void re_feed_init(re_feed *feed);
void re_feed_free(re_feed *feed);

/* Takes ownership of *episode (zeroing it) and appends it. RE_ERR_NOMEM. */
re_status re_feed_add(re_feed *feed, re_feed_episode *episode);

/* Reads every regular, non-hidden *.json file in `dir` except STEM.chapters.json and
 * STEM.transcript.json (in name order), keeps the MP3 sidecars whose STEM.mp3 is a regular
 * file beside them, finds their transcripts and chapters by name, and sorts the result.
 * Errors (RE_ERR_INPUT unless said otherwise; everything is reported before returning):
 * the folder cannot be read (RE_ERR_READ), a *.json file that cannot be read or is not JSON,
 * an invalid sidecar, a stale sidecar (its `bytes` is not the MP3's size), no episode at all.
 * Warnings: an MP3 sidecar whose MP3 is missing, an episode without `published`. */
re_status re_feed_scan(re_feed *feed, const char *dir, re_diagnostics *errors,
                       re_diagnostics *warnings);

/* Fills what the show file left out: title from the episodes' common `show`, language and
 * author from their common values, link = base_url with exactly one trailing '/'. Errors
 * name what to add to the show file, `show_file` (the path to mention): no title (none or
 * different shows), no description, no language (none or different ones). A differing
 * author leaves the channel without one, with a warning. RE_ERR_INPUT when a required value
 * is missing. */
re_status re_feed_complete_channel(re_feed *feed, const char *base_url, const char *show_file,
                                   re_diagnostics *errors, re_diagnostics *warnings);

/* Writes the feed (UTF-8 XML, a final newline) with libxml2's xmlTextWriter: channel, then
 * one item per episode in feed order. Identical inputs give identical bytes. RE_ERR_INVALID
 * if the channel is not complete or base_url is not valid, RE_ERR_NOMEM, RE_ERR_WRITE. */
re_status re_feed_write(FILE *out, const re_feed *feed, const char *base_url);

/* ---- pieces, exposed for tests and other stages ------------------------------------------- */

/* 1 when url is usable as --base-url: http:// or https://, a host, printable ASCII without
 * blanks, quotes, <>\^`{|} and without a query or fragment. Otherwise 0 and *why (may be
 * NULL) says why. */
int re_feed_base_url_ok(const char *url, const char **why);

/* base_url + "/" + file_name percent-encoded (every byte but A-Z a-z 0-9 - . _ ~), with
 * exactly one '/' between them. Malloc'ed; NULL when out of memory. */
char *re_feed_url(const char *base_url, const char *file_name);

/* The item's guid: "render-episode:" + show + ":" + stem, where show is the episode's own
 * `show`, or the channel title when it has none. Malloc'ed; NULL when out of memory. */
char *re_feed_guid(const re_feed_episode *episode, const char *channel_title);

#endif
