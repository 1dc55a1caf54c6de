/* SPDX-License-Identifier: GPL-3.0-or-later */
/* feed.h - the publish stage: an RSS 2.0 podcast feed (with the iTunes and Podcasting 2.0
 * namespaces) built from the sidecars of the episodes rendered into one folder and the show
 * file that describes the channel (read by show.h). The formats and the mapping are in
 * docs/feed.md.
 *
 * Life cycle: re_feed_init -> re_show_load into feed->show (optional) -> re_feed_scan (reads
 * the folder, sorts newest first) -> re_feed_name_channel (the channel guid) ->
 * re_feed_check_identities (every episode) -> re_feed_leave_out_future (optional) ->
 * re_feed_complete_channel (defaults from the episodes left, required values) ->
 * re_feed_write -> re_feed_free. The pure parts (re_feed_episode_read, re_feed_sort,
 * re_feed_url, re_feed_write) work on memory; only re_feed_scan touches the file system.
 * Nothing here prints or exits. */
#ifndef RE_FEED_H
#define RE_FEED_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "artwork.h"
#include "datetime.h"
#include "script.h"
#include "show.h"
#include "status.h"
#include "text.h"

#define RE_ITUNES_NS "http://www.itunes.com/dtds/podcast-1.0.dtd"
#define RE_PODCAST_NS "https://podcastindex.org/namespace/1.0"
#define RE_ATOM_NS "http://www.w3.org/2005/Atom"
#define RE_CONTENT_NS "http://purl.org/rss/1.0/modules/content/"

/* podcast:guid is a UUIDv5 in this namespace of the feed's URL without its scheme and
 * trailing slashes (the Podcasting 2.0 namespace, docs/1.0.md#guid). */
#define RE_PODCAST_GUID_NAMESPACE "ead4c236-bf58-58c6-a2c6-a6b28d128cb6"
#define RE_UUID_TEXT_SIZE 37                  /* 36 characters and a NUL */

/* The environment variable `feed` takes now from, when set (an ISO 8601 date-time with a
 * zone): the schedule of a test or a preview does not depend on the clock. */
#define RE_NOW_ENV "RENDER_EPISODE_NOW"

/* Apple's limits, checked before a directory finds them. */
#define RE_APPLE_DESCRIPTION_MAX 4000         /* bytes of a channel or item description */

/* ---- episodes ----------------------------------------------------------------------------- */

/* Files published beside an episode's MP3 (STEM + suffix), linked only when the sidecar lists
 * them as written by the same render and they are still those bytes. */
typedef enum re_feed_asset {
    RE_ASSET_VTT = 1 << 0,              /* STEM.vtt              text/vtt */
    RE_ASSET_SRT = 1 << 1,              /* STEM.srt              application/x-subrip */
    RE_ASSET_TRANSCRIPT_JSON = 1 << 2,  /* STEM.transcript.json  application/json */
    RE_ASSET_CHAPTERS = 1 << 3,         /* STEM.chapters.json    application/json+chapters */
    RE_ASSET_PAGE = 1 << 4,             /* STEM.html             the item's <link> */
    RE_ASSET_COVER_JPEG = 1 << 5,       /* STEM.cover.jpg        the item's itunes:image */
    RE_ASSET_COVER_PNG = 1 << 6         /* STEM.cover.png        (the script's own image:) */
} re_feed_asset;

/* One voice of an episode: podcast:person. */
typedef struct re_feed_person {
    char *name;
    char *role;
} re_feed_person;


/* One episode, from its sidecar STEM.json. Strings are owned; NULL when the sidecar has null
 * or no such key. */
typedef struct re_feed_episode {
    char *stem;             /* "ep" for ep.json */
    char *audio_name;       /* "ep.mp3" */
    char *sidecar_name;     /* "ep.json" */
    char *title;            /* never NULL */
    char *show, *summary, *author, *language;
    char *notes;            /* a Markdown script's document (the sidecar's), or NULL */
    char *published;        /* ISO 8601 as in the sidecar */
    long number;            /* `episode`; -1 when absent */
    long season;            /* `season`; -1 when absent */
    char *guid;             /* the script's `guid:`; NULL: derived (re_feed_item_guid) */
    re_episode_type type;   /* the script's `type:` (itunes:episodeType; unset: full) */
    re_feed_person *persons;   /* distinct speakers with their roles */
    size_t person_count;
    uint64_t samples;
    unsigned sample_rate;
    uint64_t bytes;         /* the sidecar's `bytes`; re_feed_scan checks it is the file size */
    int dated;              /* published was given ... */
    int64_t instant_ms;     /* ... and is this many ms after 1970-01-01T00:00:00Z ... */
    char pub_date[RE_RFC822_MAX];   /* ... written as RFC 822 ("" when not dated) */
    unsigned assets;        /* re_feed_asset bits */
    int has_files;          /* the sidecar lists the files its render wrote */
    struct re_sidecar_file *files;   /* those (owned) */
    size_t file_count;
} re_feed_episode;

void re_feed_episode_free(re_feed_episode *episode);

/* The file name of the episode's own cover published beside it (STEM.cover.jpg or
 * STEM.cover.png: its RE_ASSET_COVER_JPEG or _PNG), malloc'ed into *name; *name is NULL when
 * the episode has none. RE_ERR_NOMEM. */
re_status re_feed_cover_name(const re_feed_episode *episode, char **name);

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
    /* set by the caller before re_feed_complete_channel: */
    const char *dir;              /* the folder (a local image is read there); NULL: "." */
    const char *feed_name;        /* the feed's file name under the base URL; NULL: feed.xml */
    int draft;                    /* write even when a required channel value is missing */
    volatile sig_atomic_t *stop;  /* raised by a signal handler: re_feed_scan and re_feed_write
                                   * end between two episodes (RE_ERR_INTERRUPTED); may be NULL */
    /* set by re_feed_complete_channel: */
    char *feed_url;               /* atom:link rel=self */
    char channel_guid[RE_UUID_TEXT_SIZE];   /* the show's guid, or computed (a draft) */
    char *missing;                /* a draft: what it lacks ("image, category"), else NULL */
    char *image_url;              /* the artwork's URL (a local file's under the base URL) */
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

/* Sets the feed's URL (base_url + feed_name) and the channel guid (the show's `guid:`, else
 * computed from that URL), which the item guids derive from: enough for
 * re_feed_check_identities before the channel is complete. re_feed_complete_channel does it
 * too. RE_ERR_NOMEM. */
re_status re_feed_name_channel(re_feed *feed, const char *base_url);

/* Fills what the show file left out: title from the episodes' common `show`, language and
 * author from their common values (of the episodes in feed->episodes: leave out the ones not
 * published yet first, so that they do not shape the channel), link = base_url with exactly one trailing '/', the feed's
 * URL and the channel guid. Errors name what to add to the show file, `show_file` (the path
 * to mention): no title (none or different shows), no description, no language (none or
 * different ones); a description or an episode's summary over Apple's 4,000 bytes or with
 * blanks at either end; a local image that is not a 1400..3000 px square RGB JPEG or PNG.
 * What Apple and Podcast Index require (image, category, explicit, guid) is one error naming
 * each missing value and the line to add; with feed->draft it is a warning and the feed is
 * marked a draft (feed->missing). A differing author leaves the channel without one, and a
 * remote image is not checked, each with a warning. RE_ERR_INPUT when something is wrong. */
re_status re_feed_complete_channel(re_feed *feed, const char *base_url, const char *show_file,
                                   re_diagnostics *errors, re_diagnostics *warnings);

/* Writes the feed (UTF-8 XML, a final newline) with libxml2's xmlTextWriter: channel, then
 * one item per episode in feed order. Identical inputs give identical bytes. RE_ERR_INVALID
 * if the channel is not complete or base_url is not valid, RE_ERR_NOMEM, RE_ERR_WRITE,
 * RE_ERR_INTERRUPTED when feed->stop was raised (nothing is written then). */
re_status re_feed_write(FILE *out, const re_feed *feed, const char *base_url);

/* ---- pieces, exposed for tests and other stages ------------------------------------------- */

/* 1 when url is usable as --base-url: http:// or https://, a host, printable ASCII without
 * blanks, quotes, <>\^`{|} and without a query or fragment. Otherwise 0 and *why (may be
 * NULL) says why. */
int re_feed_base_url_ok(const char *url, const char **why);

/* base_url + "/" + file_name percent-encoded (every byte but A-Z a-z 0-9 - . _ ~), with
 * exactly one '/' between them. Malloc'ed; NULL when out of memory. */
char *re_feed_url(const char *base_url, const char *file_name);

/* The item's guid, from the episode's identity (docs/feed.md#guids): the script's `guid:`
 * when it has one; else, for a numbered episode (1 or more), the UUIDv5 of its key "SEASON/EPISODE" (0 for
 * no season; "/trailer" or "/bonus" after it for those types) in the namespace of the
 * channel's guid, so that renaming its files keeps it; else the UUIDv5 of the file stem
 * there. Malloc'ed; NULL when out of memory or when channel_guid is not a UUID. */
char *re_feed_item_guid(const re_feed_episode *episode, const char *channel_guid);

/* What an episode claims to be, for telling two sets of files that are one episode. */
typedef struct re_episode_claim {
    const char *guid;       /* the script's `guid:`, or NULL */
    long season, number;    /* -1 when absent; number 0 is no number, as in the feed */
    re_episode_type type;
    const char *item_guid;  /* the feed item's guid when known (re_feed_item_guid), or NULL */
} re_episode_claim;

#define RE_CLAIM_WHY_MAX 320

/* 1 when a and b are the same episode, and then *why says what they share ("episode 3 of
 * season 1", "the guid X"): the same `guid:`, the same item guid, or the same episode
 * number in the same season (or both without one) and of the same type (a trailer or bonus
 * may share the number of the full episode it goes with). 0 otherwise. */
int re_episode_claims_same(const re_episode_claim *a, const re_episode_claim *b,
                           char why[RE_CLAIM_WHY_MAX]);

/* Refuses a feed in which two sets of files claim the same episode (re_episode_claims_same,
 * with their item guids): sets that share an item guid (or a `guid:`), and sets that share a
 * season, number and type, each form a run; every set of a run after its first (in name
 * order) gets one error at its sidecar naming the run's first and what to do, so every set
 * of a repeated episode is named. feed->channel_guid must be set (re_feed_complete_channel).
 * RE_ERR_INPUT when there is one, RE_ERR_NOMEM. */
re_status re_feed_check_identities(const re_feed *feed, re_diagnostics *errors);

/* Leaves out the episodes whose `published` instant is later than now_ms (ms after the epoch),
 * each named with a warning saying when it will appear; *left counts them. The feed keeps its
 * order. RE_ERR_NOMEM. */
re_status re_feed_leave_out_future(re_feed *feed, int64_t now_ms, size_t *left,
                                   re_diagnostics *warnings);

/* UUIDv5 (RFC 4122, SHA-1) of `name` in the namespace given as UUID text, written as 36
 * lowercase characters. RE_ERR_INVALID when namespace_text is not a UUID. */
re_status re_uuid5(const char *namespace_text, const char *name, char out[RE_UUID_TEXT_SIZE]);

/* podcast:guid of the feed at `feed_url`: re_uuid5 of RE_PODCAST_GUID_NAMESPACE and the URL
 * without its scheme ("https://") and trailing slashes. */
void re_feed_podcast_guid(const char *feed_url, char out[RE_UUID_TEXT_SIZE]);


#endif
