/* sha256.c - SHA-256 as FIPS 180-4 section 6.2 says (see sha256.h): portable C, and the
 * x86 SHA extensions where the CPU has them (about 6x faster; the segment cache hashes every
 * byte it reads and writes). */
#include "sha256.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_SHA 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t round_constant[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

#define BIG_SIGMA0(x) (rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22))
#define BIG_SIGMA1(x) (rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25))
#define SMALL_SIGMA0(x) (rotr(x, 7) ^ rotr(x, 18) ^ ((x) >> 3))
#define SMALL_SIGMA1(x) (rotr(x, 17) ^ rotr(x, 19) ^ ((x) >> 10))
#define CHOOSE(e, f, g) ((g) ^ ((e) & ((f) ^ (g))))
#define MAJORITY(a, b, c) (((a) & (b)) | ((c) & ((a) | (b))))

/* One round with the working variables named in rotated order instead of moved: eight
 * rounds bring the names back to where they started. */
#define ROUND(a, b, c, d, e, f, g, h, k, w) do {                                \
        uint32_t t1_ = (h) + BIG_SIGMA1(e) + CHOOSE(e, f, g) + (k) + (w);      \
        (d) += t1_;                                                             \
        (h) = t1_ + BIG_SIGMA0(a) + MAJORITY(a, b, c);                          \
    } while (0)

/* One 64-byte block into the state (FIPS 180-4, 6.2.2), unrolled by eight; the message
 * schedule is kept as a 16-word window. */
static void compress(uint32_t state[8], const unsigned char *block)
{
    uint32_t w[16];
    for (int t = 0; t < 16; t++)
        w[t] = load_be32(block + 4 * t);
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t += 8) {
        if (t >= 16)
            for (int i = 0; i < 8; i++) {
                int j = (t + i) & 15;
                w[j] += SMALL_SIGMA1(w[(j + 14) & 15]) + w[(j + 9) & 15] + SMALL_SIGMA0(w[(j + 1) & 15]);
            }
        const uint32_t *k = round_constant + t, *x = w + (t & 15);
        ROUND(a, b, c, d, e, f, g, h, k[0], x[0]);
        ROUND(h, a, b, c, d, e, f, g, k[1], x[1]);
        ROUND(g, h, a, b, c, d, e, f, k[2], x[2]);
        ROUND(f, g, h, a, b, c, d, e, k[3], x[3]);
        ROUND(e, f, g, h, a, b, c, d, k[4], x[4]);
        ROUND(d, e, f, g, h, a, b, c, k[5], x[5]);
        ROUND(c, d, e, f, g, h, a, b, k[6], x[6]);
        ROUND(b, c, d, e, f, g, h, a, k[7], x[7]);
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

static void compress_portable(uint32_t state[8], const unsigned char *data, size_t blocks)
{
    for (; blocks; blocks--, data += 64)
        compress(state, data);
}

#ifdef HAVE_X86_SHA
/* CPUID: SHA (leaf 7, EBX bit 29), SSSE3 and SSE4.1 (leaf 1, ECX bits 9 and 19). */
static int cpu_has_sha(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
        return 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}

/* The same rounds with SHA256RNDS2 (two rounds per instruction) and SHA256MSG1/MSG2 for the
 * message schedule, in groups of four rounds; the state is kept as ABEF / CDGH. */
__attribute__((target("sha,sse4.1,ssse3")))
static void compress_x86(uint32_t state[8], const unsigned char *data, size_t blocks)
{
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&state[0]), 0xB1);
    __m128i cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(tmp, cdgh, 8);
    cdgh = _mm_blend_epi16(cdgh, tmp, 0xF0);
    for (; blocks; blocks--, data += 64) {
        __m128i abef_saved = abef, cdgh_saved = cdgh, m[4];
#pragma GCC unroll 16
        for (int g = 0; g < 16; g++) {
            __m128i *cur = &m[g & 3], *prev = &m[(g + 3) & 3], *next = &m[(g + 1) & 3];
            if (g < 4)
                *cur = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(data + 16 * g)),
                                        byte_swap);
            __m128i k = _mm_loadu_si128((const __m128i *)(const void *)&round_constant[4 * g]);
            __m128i msg = _mm_add_epi32(*cur, k);
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, msg);
            if (g >= 3 && g <= 14) {
                *next = _mm_add_epi32(*next, _mm_alignr_epi8(*cur, *prev, 4));
                *next = _mm_sha256msg2_epu32(*next, *cur);
            }
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(msg, 0x0E));
            if (g >= 1 && g <= 12)
                *prev = _mm_sha256msg1_epu32(*prev, *cur);
        }
        abef = _mm_add_epi32(abef, abef_saved);
        cdgh = _mm_add_epi32(cdgh, cdgh_saved);
    }
    tmp = _mm_shuffle_epi32(abef, 0x1B);
    cdgh = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)(void *)&state[0], _mm_blend_epi16(tmp, cdgh, 0xF0));
    _mm_storeu_si128((__m128i *)(void *)&state[4], _mm_alignr_epi8(cdgh, tmp, 8));
}
#endif

static void compress_blocks(re_sha256_ctx *ctx, const unsigned char *data, size_t blocks)
{
#ifdef HAVE_X86_SHA
    if (ctx->use_cpu) {
        compress_x86(ctx->state, data, blocks);
        return;
    }
#endif
    compress_portable(ctx->state, data, blocks);
}

void re_sha256_init(re_sha256_ctx *ctx)
{
    static const uint32_t initial[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memcpy(ctx->state, initial, sizeof initial);
    ctx->length = 0;
    ctx->used = 0;
#ifdef HAVE_X86_SHA
    ctx->use_cpu = cpu_has_sha();
#else
    ctx->use_cpu = 0;
#endif
}

void re_sha256_init_portable(re_sha256_ctx *ctx)
{
    re_sha256_init(ctx);
    ctx->use_cpu = 0;
}

const char *re_sha256_implementation(const re_sha256_ctx *ctx)
{
    return ctx->use_cpu ? "x86 SHA extensions" : "portable C";
}

void re_sha256_update(re_sha256_ctx *ctx, const void *data, size_t len)
{
    if (len == 0)
        return;   /* data may be NULL then; memcpy must not see it */
    const unsigned char *p = data;
    ctx->length += len;
    if (ctx->used) {
        size_t take = 64 - ctx->used < len ? 64 - ctx->used : len;
        memcpy(ctx->block + ctx->used, p, take);
        ctx->used += take;
        p += take;
        len -= take;
        if (ctx->used < 64)
            return;
        compress_blocks(ctx, ctx->block, 1);
        ctx->used = 0;
    }
    if (len >= 64) {
        compress_blocks(ctx, p, len / 64);
        p += len / 64 * 64;
        len %= 64;
    }
    if (len) {
        memcpy(ctx->block, p, len);
        ctx->used = len;
    }
}

void re_sha256_final(re_sha256_ctx *ctx, unsigned char digest[RE_SHA256_SIZE])
{
    uint64_t bits = ctx->length * 8;
    ctx->block[ctx->used++] = 0x80;
    if (ctx->used > 56) {
        memset(ctx->block + ctx->used, 0, 64 - ctx->used);
        compress_blocks(ctx, ctx->block, 1);
        ctx->used = 0;
    }
    memset(ctx->block + ctx->used, 0, 56 - ctx->used);
    store_be32(ctx->block + 56, (uint32_t)(bits >> 32));
    store_be32(ctx->block + 60, (uint32_t)bits);
    compress_blocks(ctx, ctx->block, 1);
    for (int i = 0; i < 8; i++)
        store_be32(digest + 4 * i, ctx->state[i]);
    memset(ctx, 0, sizeof *ctx);
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
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < RE_SHA256_SIZE; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[2 * RE_SHA256_SIZE] = '\0';
}
