/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fingerprint.c - the inputs digest (see fingerprint.h for what it covers). */
#include "fingerprint.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "normalize.h"

static void digest_field(re_sha256_ctx *ctx, const char *name, const void *data, size_t len)
{
    uint64_t n = len;
    re_sha256_update(ctx, name, strlen(name) + 1);
    re_sha256_update(ctx, &n, sizeof n);
    re_sha256_update(ctx, data, len);
}

static void digest_string(re_sha256_ctx *ctx, const char *name, const char *value)
{
    digest_field(ctx, name, value ? value : "", value ? strlen(value) : 0);
}

static void digest_int(re_sha256_ctx *ctx, const char *name, long long value)
{
    char text[32];
    snprintf(text, sizeof text, "%lld", value);
    digest_string(ctx, name, text);
}

static void digest_profiles(re_sha256_ctx *ctx, const re_prepared *p)
{
    for (size_t i = 0; i < p->episode->voice_count; i++) {
        const re_voice_profile *v = p->profiles[i];
        digest_string(ctx, "profile", v->name);
        if (v->engine != RE_VOICE_ESPEAK_NG)   /* absent for espeak-ng keeps older fingerprints */
            digest_string(ctx, "engine", re_voice_engine_name(v->engine));
        digest_string(ctx, "voice", v->engine_voice);
        digest_string(ctx, "speaker", v->speaker);
        if (v->role)   /* the sidecar's persons; absent keeps older fingerprints */
            digest_string(ctx, "role", v->role);
        const int values[] = { v->rate, v->pitch, v->range, v->volume, v->word_gap_ms,
                               v->sentence_pause_ms, v->paragraph_pause_ms };
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++)
            digest_int(ctx, "value", values[k]);
    }
}

void re_fingerprint(const re_fingerprint_inputs *in, char hex[RE_SHA256_HEX_SIZE])
{
    re_sha256_ctx ctx;
    re_sha256_init(&ctx);
    digest_string(&ctx, "format", "render-episode inputs v1");
    digest_string(&ctx, "version", RE_VERSION);
    digest_string(&ctx, "engine", in->engine);
    digest_string(&ctx, "encoder", in->encoder);
    digest_string(&ctx, "output", in->format);
    digest_int(&ctx, "quality", in->mp3_quality);
    digest_int(&ctx, "serial-encode", in->serial_encode);
    char loudness[64];
    snprintf(loudness, sizeof loudness, "%s %.2f %.2f", in->loudness_off ? "off" : "on",
             in->loudness_target, in->true_peak);
    digest_string(&ctx, "loudness", loudness);
    size_t lexicon_len = 0;
    const char *lexicon = re_lexicon_canonical(in->prepared->lexicon, &lexicon_len);
    digest_field(&ctx, "lexicon", lexicon, lexicon_len);
    digest_int(&ctx, "normalize", RE_NORMALIZE_RULES_VERSION);
    digest_int(&ctx, "extras", (long long)(in->write_srt | in->write_transcript_json << 1
                                           | in->write_page << 2
                                           | in->write_page_md << 3));
    digest_field(&ctx, "script", in->prepared->script_bytes, in->prepared->script_len);
    digest_profiles(&ctx, in->prepared);
    for (size_t i = 0; i < in->sound_count; i++)
        digest_field(&ctx, "sound", in->sound_digests[i], RE_SHA256_SIZE);
    if (in->music_sha256)   /* absent keeps the digests of episodes without a bed */
        digest_field(&ctx, "music", in->music_sha256, RE_SHA256_SIZE);
    if (in->cover_sha256)   /* absent keeps the digests of episodes without a cover */
        digest_field(&ctx, "cover", in->cover_sha256, RE_SHA256_SIZE);
    if (in->in_feed && in->write_page)   /* the page's subscribe link; absent as before */
        digest_field(&ctx, "in_feed", "1", 1);
    if (in->max_duration_us)   /* a cut episode; absent keeps the digests of the others */
        digest_int(&ctx, "max_duration_us", (long long)in->max_duration_us);
    unsigned char digest[RE_SHA256_SIZE];
    re_sha256_final(&ctx, digest);
    re_sha256_hex(digest, hex);
}
