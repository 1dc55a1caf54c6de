/* SPDX-License-Identifier: GPL-3.0-or-later */
/* guid.c - UUIDv5 (RFC 4122) and the feed's podcast:guid and item GUIDs made with it (see
 * feed.h, docs/feed.md#guids). */
#define _GNU_SOURCE
#include "feed.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha1.h>

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

char *re_feed_item_guid(const re_feed_episode *episode, const char *channel_guid)
{
    if (episode->guid)
        return strdup(episode->guid);
    char uuid[RE_UUID_TEXT_SIZE];
    if (!channel_guid || re_uuid5(channel_guid, episode->stem, uuid) != RE_OK)
        return NULL;
    return strdup(uuid);
}

