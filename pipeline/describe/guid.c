/* SPDX-License-Identifier: GPL-3.0-or-later */
/* guid.c - UUIDv5 (RFC 4122) and the feed's podcast:guid and item GUIDs made with it (see
 * feed.h, docs/feed.md#guids). */
#define _GNU_SOURCE
#include "feed.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha1.h>

#include "files.h"
#include "hex.h"
#include "text.h"

re_status re_uuid5(const char *namespace_text, const char *name, char out[RE_UUID_TEXT_SIZE])
{
    unsigned char ns[16], digest[SHA1_DIGEST_SIZE];
    if (!re_uuid_valid(namespace_text))
        return RE_ERR_INVALID;
    for (int i = 0, k = 0; i < 36; i++)
        if (namespace_text[i] != '-') {
            ns[k / 2] = (unsigned char)(k % 2 ? ns[k / 2] | re_hex_value(namespace_text[i])
                                              : re_hex_value(namespace_text[i]) << 4);
            k++;
        }
    struct sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, sizeof ns, ns);
    sha1_update(&ctx, strlen(name), (const uint8_t *)name);
    sha1_digest(&ctx, sizeof digest, digest);
    digest[6] = (unsigned char)((digest[6] & 0x0f) | 0x50);   /* version 5 */
    digest[8] = (unsigned char)((digest[8] & 0x3f) | 0x80);   /* RFC 4122 variant */
    static const size_t groups[] = { 4, 2, 2, 2, 6 };   /* bytes of the 8-4-4-4-12 digits */
    char *o = out;
    for (size_t g = 0, at = 0; g < sizeof groups / sizeof groups[0]; at += groups[g++]) {
        if (g)
            *o++ = '-';
        re_hex_encode(digest + at, groups[g], o);   /* ends in a NUL, overwritten by the next */
        o += 2 * groups[g];
    }
    return RE_OK;
}

void re_feed_podcast_guid(const char *feed_url, char out[RE_UUID_TEXT_SIZE])
{
    const char *rest = strstr(feed_url, "://");
    rest = rest ? rest + 3 : feed_url;
    size_t n = strlen(rest);
    while (n > 0 && rest[n - 1] == '/')
        n--;
    char *name = strndup(rest, n);
    if (!name || re_uuid5(RE_PODCAST_GUID_NAMESPACE, name, out) != RE_OK)
        out[0] = '\0';
    free(name);
}

/* A numbered episode's key in its show: "SEASON/EPISODE" (season 0: none), then "/trailer" or
 * "/bonus". A '/' is in no file stem, so no key is ever some episode's stem. */
static void numbered_key(const re_feed_episode *e, char *key, size_t size)
{
    snprintf(key, size, "%ld/%ld%s%s", e->season > 0 ? e->season : 0, e->number,
             e->type == RE_EPISODE_TRAILER || e->type == RE_EPISODE_BONUS ? "/" : "",
             e->type == RE_EPISODE_TRAILER || e->type == RE_EPISODE_BONUS
             ? re_episode_type_name(e->type) : "");
}

char *re_feed_item_guid(const re_feed_episode *episode, const char *channel_guid)
{
    if (episode->guid)
        return strdup(episode->guid);
    char uuid[RE_UUID_TEXT_SIZE], key[64];
    if (episode->number > 0)   /* 0 is not an episode number in the feed either */
        numbered_key(episode, key, sizeof key);
    if (!channel_guid
        || re_uuid5(channel_guid, episode->number > 0 ? key : episode->stem, uuid) != RE_OK)
        return NULL;
    return strdup(uuid);
}

/* A trailer or bonus may carry the number of the full episode it goes with; no `type:` is a
 * full episode. */
static int same_kind(re_episode_type a, re_episode_type b)
{
    return (a == RE_EPISODE_TYPE_UNSET ? RE_EPISODE_FULL : a)
           == (b == RE_EPISODE_TYPE_UNSET ? RE_EPISODE_FULL : b);
}

int re_episode_claims_same(const re_episode_claim *a, const re_episode_claim *b,
                           char why[RE_CLAIM_WHY_MAX])
{
    if (a->guid && b->guid && strcmp(a->guid, b->guid) == 0) {
        snprintf(why, RE_CLAIM_WHY_MAX, "the guid '%.200s' (the script's guid:)", a->guid);
        return 1;
    }
    if (a->number > 0 && a->number == b->number && a->season == b->season
        && same_kind(a->type, b->type)) {
        const char *kind = a->type == RE_EPISODE_TRAILER ? "the trailer for "
                           : a->type == RE_EPISODE_BONUS ? "the bonus episode for " : "";
        if (a->season > 0)
            snprintf(why, RE_CLAIM_WHY_MAX, "%sepisode %ld of season %ld", kind, a->number,
                     a->season);
        else
            snprintf(why, RE_CLAIM_WHY_MAX, "%sepisode %ld (no season)", kind, a->number);
        return 1;
    }
    if (a->item_guid && b->item_guid && strcmp(a->item_guid, b->item_guid) == 0) {
        snprintf(why, RE_CLAIM_WHY_MAX, "the item guid '%.200s'", a->item_guid);
        return 1;
    }
    return 0;
}

typedef struct claimant {
    const re_feed_episode *episode;
    re_episode_claim claim;
    char *item_guid;
} claimant;

static int by_item_guid(const void *x, const void *y)
{
    const claimant *a = *(claimant *const *)x, *b = *(claimant *const *)y;
    int c = strcmp(a->item_guid, b->item_guid);
    return c ? c : strcmp(a->episode->sidecar_name, b->episode->sidecar_name);
}

/* Season, number, kind: equal for two sets that claim one numbered episode. */
static int number_order(const claimant *a, const claimant *b)
{
    long ka[3] = { a->claim.season, a->claim.number, same_kind(a->claim.type, RE_EPISODE_FULL)
                                                     ? RE_EPISODE_FULL : a->claim.type };
    long kb[3] = { b->claim.season, b->claim.number, same_kind(b->claim.type, RE_EPISODE_FULL)
                                                     ? RE_EPISODE_FULL : b->claim.type };
    for (int i = 0; i < 3; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static int by_number(const void *x, const void *y)
{
    const claimant *a = *(claimant *const *)x, *b = *(claimant *const *)y;
    int c = number_order(a, b);
    return c ? c : strcmp(a->episode->sidecar_name, b->episode->sidecar_name);
}

static int same_item_guid(const claimant *a, const claimant *b)
{
    return strcmp(a->item_guid, b->item_guid) == 0;
}

static int same_number(const claimant *a, const claimant *b)
{
    return number_order(a, b) == 0;
}

/* A run is a range of `sorted` equal under same_run: every set in it claims what its first
 * claims, so each set after the first is named against the first (both in name order). A
 * pair that `named_already` says an earlier pass named is skipped. Runs are told by their key,
 * not by re_episode_claims_same with the run's first, so that a match through another rule
 * never hides the rest of a run. */
static re_status report_runs(const re_feed *feed, claimant **sorted, size_t n,
                             int (*same_run)(const claimant *, const claimant *),
                             int (*named_already)(const claimant *, const claimant *),
                             int *found, re_diagnostics *errors)
{
    size_t first = 0;
    for (size_t i = 1; i < n; i++) {
        char why[RE_CLAIM_WHY_MAX];
        if (!same_run(sorted[first], sorted[i])) {
            first = i;
            continue;
        }
        if ((named_already && named_already(sorted[first], sorted[i]))
            || !re_episode_claims_same(&sorted[first]->claim, &sorted[i]->claim, why))
            continue;
        *found = 1;
        const re_feed_episode *a = sorted[first]->episode, *b = sorted[i]->episode;
        char *path = re_path_join(feed->dir ? feed->dir : ".", b->sidecar_name);
        re_status st = path ? re_diag_add(errors, path, 0, 0, "the same episode as %s: both "
                                          "claim %s, and a feed carries each episode once; "
                                          "remove the set that is no longer that episode (such "
                                          "as the one a render left under a script's old name: "
                                          "its NAME.mp3, NAME.json and the files beside them) "
                                          "and run feed again",
                                          a->sidecar_name, why)
                            : RE_ERR_NOMEM;
        free(path);
        if (st != RE_OK)
            return st;
    }
    return RE_OK;
}

re_status re_feed_check_identities(const re_feed *feed, re_diagnostics *errors)
{
    size_t n = feed->count;
    if (n < 2)
        return RE_OK;
    claimant *all = calloc(n, sizeof *all);
    claimant **sorted = calloc(n, sizeof *sorted);
    re_status st = all && sorted ? RE_OK : RE_ERR_NOMEM;
    for (size_t i = 0; st == RE_OK && i < n; i++) {
        const re_feed_episode *e = &feed->episodes[i];
        all[i].episode = e;
        if (!(all[i].item_guid = re_feed_item_guid(e, feed->channel_guid)))
            st = RE_ERR_NOMEM;
        all[i].claim = (re_episode_claim){ .guid = e->guid, .season = e->season,
                                           .number = e->number, .type = e->type,
                                           .item_guid = all[i].item_guid };
        sorted[i] = &all[i];
    }
    int found = 0;
    if (st == RE_OK) {
        qsort(sorted, n, sizeof *sorted, by_item_guid);   /* a guid: or an item guid twice */
        st = report_runs(feed, sorted, n, same_item_guid, NULL, &found, errors);
    }
    if (st == RE_OK) {
        size_t numbered = 0;   /* one number twice in a season, one set pinned by guid: */
        for (size_t i = 0; i < n; i++)
            if (all[i].claim.number > 0)
                sorted[numbered++] = &all[i];
        qsort(sorted, numbered, sizeof *sorted, by_number);
        /* a pair with one item guid was named by the first pass, against its run's first */
        st = report_runs(feed, sorted, numbered, same_number, same_item_guid, &found, errors);
    }
    for (size_t i = 0; all && i < n; i++)
        free(all[i].item_guid);
    free(all);
    free(sorted);
    return st != RE_OK ? st : found ? RE_ERR_INPUT : RE_OK;
}

