/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sha256.c - the library's SHA-256: libnettle's, behind the few calls the stages use. */
#include "sha256.h"

#include "hex.h"

void re_sha256_init(re_sha256_ctx *ctx)
{
    sha256_init(&ctx->nettle);
}

void re_sha256_update(re_sha256_ctx *ctx, const void *data, size_t len)
{
    if (len > 0)
        sha256_update(&ctx->nettle, len, data);
}

void re_sha256_final(re_sha256_ctx *ctx, unsigned char digest[RE_SHA256_SIZE])
{
    sha256_digest(&ctx->nettle, RE_SHA256_SIZE, digest);
}

void re_sha256(const void *data, size_t len, unsigned char digest[RE_SHA256_SIZE])
{
    re_sha256_ctx ctx;
    re_sha256_init(&ctx);
    re_sha256_update(&ctx, data, len);
    re_sha256_final(&ctx, digest);
}

void re_sha256_hex(const unsigned char digest[RE_SHA256_SIZE], char hex[RE_SHA256_HEX_SIZE])
{
    re_hex_encode(digest, RE_SHA256_SIZE, hex);
}
