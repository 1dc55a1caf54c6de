/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sha256.c - the library's SHA-256 (libnettle's) against the FIPS 180-4 example messages,
 * padding boundaries, and incremental hashing split at every position. */
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "sha256.h"

static void start(re_sha256_ctx *ctx)
{
    re_sha256_init(ctx);
}

static void digest_of(const void *data, size_t len, unsigned char digest[RE_SHA256_SIZE])
{
    re_sha256_ctx ctx;
    start(&ctx);
    re_sha256_update(&ctx, data, len);
    re_sha256_final(&ctx, digest);
}

static void hex_of(const void *data, size_t len, char hex[RE_SHA256_HEX_SIZE])
{
    unsigned char digest[RE_SHA256_SIZE];
    digest_of(data, len, digest);
    re_sha256_hex(digest, hex);
}

/* FIPS 180-4 examples (NIST CSRC "SHA256.pdf" and "SHA2_Additional.pdf"). */
static void test_fips_vectors(void)
{
    char hex[RE_SHA256_HEX_SIZE];
    hex_of("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of(NULL, 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    hex_of("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK_INT(strlen(m448) * 8, 448);
    hex_of(m448, strlen(m448), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                       "klmnopqrlmnopqrsmnopqrstnopqrstu";
    CHECK_INT(strlen(m896) * 8, 896);
    hex_of(m896, strlen(m896), hex);
    CHECK_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

static void test_million_a(void)
{
    char *a = malloc(1000000);
    CHECK(a != NULL);
    if (!a)
        return;
    memset(a, 'a', 1000000);
    char hex[RE_SHA256_HEX_SIZE];
    hex_of(a, 1000000, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* the same fed in uneven pieces, as a reader of a file would */
    re_sha256_ctx ctx;
    unsigned char digest[RE_SHA256_SIZE];
    start(&ctx);
    size_t done = 0, piece = 1;
    while (done < 1000000) {
        size_t n = piece < 1000000 - done ? piece : 1000000 - done;
        re_sha256_update(&ctx, a + done, n);
        done += n;
        piece = piece * 3 + 1;
        if (piece > 70000)
            piece = 7;
    }
    re_sha256_final(&ctx, digest);
    re_sha256_hex(digest, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* Lengths around the 55/56 and 64-byte padding boundaries (expected values from Python's
 * hashlib, an independent implementation). */
static void test_padding_boundaries(void)
{
    static const struct { size_t n; const char *hex; } cases[] = {
        { 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
        { 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
        { 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
        { 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
        { 65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0" },
        { 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
        { 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
        { 128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e" },
    };
    char a[128], hex[RE_SHA256_HEX_SIZE];
    memset(a, 'a', sizeof a);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hex_of(a, cases[i].n, hex);
        CHECK_STR(hex, cases[i].hex);
    }
}

/* Every byte value, every split point: incremental == one-shot. */
static void test_incremental_splits(void)
{
    unsigned char data[1024];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)i;
    char hex[RE_SHA256_HEX_SIZE];
    hex_of(data, sizeof data, hex);
    CHECK_STR(hex, "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9");
    unsigned char whole[RE_SHA256_SIZE], parts[RE_SHA256_SIZE];
    int mismatches = 0;
    for (size_t len = 0; len <= 200; len++) {
        digest_of(data, len, whole);
        for (size_t cut = 0; cut <= len; cut++) {
            re_sha256_ctx ctx;
            start(&ctx);
            re_sha256_update(&ctx, data, cut);
            re_sha256_update(&ctx, NULL, 0);
            re_sha256_update(&ctx, data + cut, len - cut);
            re_sha256_final(&ctx, parts);
            mismatches += memcmp(whole, parts, sizeof whole) != 0;
        }
    }
    CHECK_INT(mismatches, 0);
}

/* The one-shot call agrees with the incremental one on data of every length mod 64. */
static void test_one_shot_agrees(void)
{
    unsigned char data[300], a[RE_SHA256_SIZE], b[RE_SHA256_SIZE];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 31 + 7);
    int mismatches = 0;
    for (size_t len = 0; len <= sizeof data; len++) {
        re_sha256(data, len, a);
        re_sha256_ctx ctx;
        re_sha256_init(&ctx);
        re_sha256_update(&ctx, data, len);
        re_sha256_final(&ctx, b);
        mismatches += memcmp(a, b, sizeof a) != 0;
    }
    CHECK_INT(mismatches, 0);
}

int main(void)
{
    test_fips_vectors();
    test_million_a();
    test_padding_boundaries();
    test_incremental_splits();
    test_one_shot_agrees();
    return check_finish("test_sha256");
}
