/* sha256.h - SHA-256 (FIPS 180-4), incremental and one-shot, with a hex helper.
 *
 * Used for the segment cache's content addresses and entry checksums. Plain value type, no
 * allocation, no global state (the CPU feature check is stored in the context): a
 * re_sha256_ctx lives wherever the caller puts it (stack, struct).
 *
 * Life cycle: re_sha256_init -> re_sha256_update* -> re_sha256_final. After final the
 * context holds nothing useful; init it again to hash another message. */
#ifndef RE_SHA256_H
#define RE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define RE_SHA256_SIZE 32                          /* bytes of a digest */
#define RE_SHA256_HEX_SIZE (2 * RE_SHA256_SIZE + 1)  /* lowercase hex + NUL */

typedef struct re_sha256_ctx {
    uint32_t state[8];
    uint64_t length;            /* bytes hashed so far */
    unsigned char block[64];    /* a partial block waiting for more bytes */
    size_t used;                /* bytes of block in use, 0..63 */
    int use_cpu;                /* the CPU's SHA instructions (x86 SHA extensions) */
} re_sha256_ctx;

/* Starts a message; uses the CPU's SHA instructions when it has them (asked once per init). */
void re_sha256_init(re_sha256_ctx *ctx);
/* The same, always in portable C: for tests that compare the two. */
void re_sha256_init_portable(re_sha256_ctx *ctx);
/* "x86 SHA extensions" or "portable C": what this context uses. */
const char *re_sha256_implementation(const re_sha256_ctx *ctx);
/* Hashes len more bytes of the message; len 0 (with any data, even NULL) is allowed. */
void re_sha256_update(re_sha256_ctx *ctx, const void *data, size_t len);
/* Pads, writes the 32-byte digest and wipes the context. */
void re_sha256_final(re_sha256_ctx *ctx, unsigned char digest[RE_SHA256_SIZE]);

/* The digest of data[0..len) in one call. */
void re_sha256(const void *data, size_t len, unsigned char digest[RE_SHA256_SIZE]);

/* Writes the digest as 64 lowercase hex digits and a NUL. */
void re_sha256_hex(const unsigned char digest[RE_SHA256_SIZE], char hex[RE_SHA256_HEX_SIZE]);

#endif
