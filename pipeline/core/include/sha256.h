/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sha256.h - SHA-256 (FIPS 180-4) from Debian's libnettle, incremental and one-shot, with a hex
 * helper.
 *
 * Used for the segment cache's content addresses and entry checksums and for the digest of a
 * render's inputs. Plain value type, no allocation, no global state: a re_sha256_ctx lives
 * wherever the caller puts it (stack, struct). nettle picks the CPU's SHA instructions itself.
 *
 * Life cycle: re_sha256_init -> re_sha256_update* -> re_sha256_final. After final the
 * context holds nothing useful; init it again to hash another message. */
#ifndef RE_SHA256_H
#define RE_SHA256_H

#include <stddef.h>

#include <nettle/sha2.h>

#define RE_SHA256_SIZE 32                          /* bytes of a digest */
#define RE_SHA256_HEX_SIZE (2 * RE_SHA256_SIZE + 1)  /* lowercase hex + NUL */

typedef struct re_sha256_ctx {
    struct sha256_ctx nettle;
} re_sha256_ctx;

void re_sha256_init(re_sha256_ctx *ctx);
/* Hashes len more bytes of the message; len 0 (with any data, even NULL) is allowed. */
void re_sha256_update(re_sha256_ctx *ctx, const void *data, size_t len);
/* Writes the 32-byte digest; the context must be initialised again before reuse. */
void re_sha256_final(re_sha256_ctx *ctx, unsigned char digest[RE_SHA256_SIZE]);

/* The digest of data[0..len) in one call. */
void re_sha256(const void *data, size_t len, unsigned char digest[RE_SHA256_SIZE]);

/* Writes the digest as 64 lowercase hex digits and a NUL. */
void re_sha256_hex(const unsigned char digest[RE_SHA256_SIZE], char hex[RE_SHA256_HEX_SIZE]);

#endif
