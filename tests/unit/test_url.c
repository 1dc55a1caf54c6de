/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_url.c - core's URLs: percent-encoding and decoding, joining a base and a file name,
 * the feed's URL check and the cache URL taken apart (url.c, through libcurl). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "testkit.h"
#include "url.h"

static void expect_escape(const char *in, const char *want)
{
    char *got = re_url_escape(in);
    CHECK_STR(got, want);
    free(got);
}

static void test_escape(void)
{
    expect_escape("", "");
    expect_escape("AZaz09-._~", "AZaz09-._~");   /* RFC 3986's unreserved characters */
    expect_escape("a b/c?d#e%f", "a%20b%2Fc%3Fd%23e%25f");
    expect_escape("ep:1+2&x=y;z,w'\"", "ep%3A1%2B2%26x%3Dy%3Bz%2Cw%27%22");
    expect_escape("caf\xc3\xa9 \xe2\x80\x94", "caf%C3%A9%20%E2%80%94");   /* upper-case hex */
    expect_escape("\x01\x7f\xff", "%01%7F%FF");
}

/* libcurl, for the functions ours must equal; NULL (a failed check) when it cannot be opened. */
static void *open_libcurl(void)
{
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    CHECK(lib != NULL);
    return lib;
}

/* lib's function `name` into *fn, a function pointer of the caller's type (NULL when absent). */
static void curl_function(void *lib, const char *name, void *fn)
{
    void *found = dlsym(lib, name);
    memcpy(fn, &found, sizeof found);
}

/* Every byte but NUL, in order, as one string. */
static void every_byte(char all[256])
{
    for (int c = 1; c < 256; c++)
        all[c - 1] = (char)c;
    all[255] = '\0';
}

/* The encoder is ours (a page never loads libcurl) but must be libcurl's curl_easy_escape byte
 * for byte, the one it replaced: every byte alone, and all of them in one string. */
static void test_escape_is_libcurls(void)
{
    void *lib = open_libcurl();
    if (!lib)
        return;
    char *(*curl_escape)(void *, const char *, int);
    void (*curl_release)(void *);
    curl_function(lib, "curl_easy_escape", &curl_escape);
    curl_function(lib, "curl_free", &curl_release);
    CHECK(curl_escape != NULL && curl_release != NULL);
    char all[256];
    every_byte(all);
    for (int i = 0; i < 256; i++) {
        char one[2] = { all[i], '\0' };
        const char *in = i < 255 ? one : all;
        char *ours = re_url_escape(in), *theirs = curl_escape(NULL, in, (int)strlen(in));
        CHECK_STR(ours, theirs);
        free(ours);
        curl_release(theirs);
    }
    dlclose(lib);
}

static void expect_unescape(const char *in, const char *want, size_t want_len)
{
    size_t len = 99;
    char *got = re_url_unescape(in, strlen(in), &len);
    CHECK(got != NULL);
    CHECK_INT(len, want_len);
    CHECK(got && memcmp(got, want, want_len + 1) == 0);
    free(got);
}

/* The decoder needs no libcurl: run first, before test_escape_is_libcurls loads it. */
static void test_unescape(void)
{
    expect_unescape("", "", 0);
    expect_unescape("ep%201.mp3", "ep 1.mp3", 8);
    expect_unescape("caf%C3%a9", "caf\xc3\xa9", 5);           /* either case */
    expect_unescape("a+b", "a+b", 3);                         /* no form encoding */
    expect_unescape("%", "%", 1);                             /* no two digits: kept */
    expect_unescape("%4", "%4", 2);
    expect_unescape("%4g%g4", "%4g%g4", 6);
    expect_unescape("%%41", "%A", 2);
    expect_unescape("%2541", "%41", 3);                       /* decoded once */
    expect_unescape("ep.mp3%00.txt", "ep.mp3\0.txt", 11);     /* the length tells */
    size_t len = 0;
    char *got = re_url_unescape("ab%41cd", 5, &len);          /* stops at len */
    CHECK_STR(got, "abA");
    CHECK_INT(len, 3);
    free(got);
    got = re_url_unescape("%41", 3, NULL);                    /* out_len may be NULL */
    CHECK_STR(got, "A");
    free(got);
    CHECK(dlopen("libcurl.so.4", RTLD_NOW | RTLD_NOLOAD) == NULL);
}

/* libcurl's curl_easy_unescape as the judge: every "%" followed by every pair from a set of
 * digits, non-digits and edges, and every byte escaped and read back. */
static void test_unescape_is_libcurls(void)
{
    void *lib = open_libcurl();
    if (!lib)
        return;
    char *(*curl_unescape)(void *, const char *, int, int *);
    void (*curl_release)(void *);
    curl_function(lib, "curl_easy_unescape", &curl_unescape);
    curl_function(lib, "curl_free", &curl_release);
    CHECK(curl_unescape != NULL && curl_release != NULL);
    static const char edges[] = "09afAFgG/%x \xff";
    int wrong = 0;
    for (size_t a = 0; a < sizeof edges; a++)       /* the NUL too: a string that ends early */
        for (size_t b = 0; b < sizeof edges; b++) {
            char in[6] = { 'x', '%', edges[a], edges[b], 'y', '\0' };
            int theirs_len = 0;
            size_t ours_len = 0, n = strlen(in);
            char *ours = re_url_unescape(in, n, &ours_len);
            char *theirs = curl_unescape(NULL, in, (int)n, &theirs_len);
            wrong += !ours || !theirs || ours_len != (size_t)theirs_len
                     || memcmp(ours, theirs, ours_len) != 0;
            free(ours);
            curl_release(theirs);
        }
    CHECK_INT(wrong, 0);
    char all[256];
    every_byte(all);
    char *escaped = re_url_escape(all);
    size_t len = 0;
    char *back = escaped ? re_url_unescape(escaped, strlen(escaped), &len) : NULL;
    CHECK(back && len == 255 && memcmp(back, all, 256) == 0);
    free(escaped);
    free(back);
    dlclose(lib);
}

static void expect_join(const char *base, const char *name, const char *want)
{
    char *got = re_url_join(base, name);
    CHECK_STR(got, want);
    free(got);
}

static void test_join(void)
{
    expect_join("https://example.org/pod", "ep 1.mp3", "https://example.org/pod/ep%201.mp3");
    expect_join("https://example.org/pod//", "feed.xml", "https://example.org/pod/feed.xml");
    expect_join("https://example.org", "a/b", "https://example.org/a%2Fb");
}

static void expect_check(const char *url, int allow_query, int ok, const char *why_has)
{
    const char *why = "unset";
    CHECK_INT(re_url_check(url, allow_query, &why), ok);
    if (ok)
        CHECK(why == NULL);
    else
        CHECK(why && strstr(why, why_has));
    if (!ok && (!why || !strstr(why, why_has)))
        fprintf(stderr, "  %s: reason was %s\n", url, why ? why : "(null)");
}

static void test_check(void)
{
    expect_check("https://example.org/pod", 0, 1, NULL);
    expect_check("http://example.org:8080/pod/", 0, 1, NULL);
    expect_check("https://example.org/art.png?v=2#x", 1, 1, NULL);
    expect_check("https://example.org/?v=2", 0, 0, "query");
    expect_check("https://example.org/#top", 0, 0, "fragment");
    expect_check("ftp://example.org/", 0, 0, "http:// or https://");
    expect_check("HTTPS://example.org/", 0, 0, "http:// or https://");
    expect_check("example.org/pod", 0, 0, "http:// or https://");
    expect_check("https://", 0, 0, "no host");
    expect_check("https:///pod", 0, 0, "no host");
    expect_check("https://example.org/a b", 0, 0, "printable ASCII");
    expect_check("https://example.org/a\"b", 0, 0, "printable ASCII");
    expect_check("https://example.org/caf\xc3\xa9", 0, 0, "printable ASCII");
    /* what only libcurl's parser finds */
    expect_check("https://example.org:99999/pod", 0, 0, "libcurl");
    expect_check("https://example.org:12ab/pod", 0, 0, "libcurl");
    CHECK_INT(re_url_check("https://example.org/", 0, NULL), 1);   /* why may be NULL */
}

static void test_http_url(void)
{
    re_http_url u;
    CHECK_INT(re_http_url_parse("https://ci:s3cret@cache.example:8443/seg/", &u), RE_OK);
    CHECK_STR(u.user, "ci");
    CHECK_STR(u.password, "s3cret");
    CHECK_STR(u.full, "https://ci:s3cret@cache.example:8443/seg/");
    CHECK_STR(u.shown, "https://cache.example:8443/seg/");
    re_http_url_free(&u);
    CHECK(u.full == NULL && u.shown == NULL);

    CHECK_INT(re_http_url_parse("http://cache.example", &u), RE_OK);
    CHECK(u.user == NULL && u.password == NULL);
    CHECK_STR(u.shown, "http://cache.example/");   /* libcurl's normalized form */
    re_http_url_free(&u);

    const char *refused[] = { "ftp://cache.example/", "https://cache.example/?a=1",
                              "https://cache.example/#x", "http://", "not a url", "" };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        CHECK_INT(re_http_url_parse(refused[i], &u), RE_ERR_INPUT);
        CHECK(u.full == NULL && u.shown == NULL && u.user == NULL);
    }
    re_http_url_free(NULL);
}

int main(void)
{
    test_unescape();
    test_escape();
    test_escape_is_libcurls();
    test_unescape_is_libcurls();
    test_join();
    test_check();
    test_http_url();
    return check_finish("test_url");
}
