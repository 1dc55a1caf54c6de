/* SPDX-License-Identifier: GPL-3.0-or-later */
/* url.c - URLs: percent-encoding, decoding and joining here, checking and parsing through
 * libcurl's URL parser, loaded on demand (curl_lib.h) (see url.h). */
#define _GNU_SOURCE   /* strndup */
#include "url.h"

#include <stdlib.h>
#include <string.h>

#include "curl_lib.h"
#include "hex.h"

char *re_url_escape(const char *s)
{
    /* libcurl's curl_easy_escape, byte for byte, without loading libcurl on every page: an
     * encoder is no parser (the parsing stays libcurl's, below) */
    size_t n = strlen(s);
    if (n > (size_t)(0x7fffffff / 3))
        return NULL;
    char *encoded = malloc(3 * n + 1), *out = encoded;
    if (!encoded)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')
            || *p == '-' || *p == '.' || *p == '_' || *p == '~') {
            *out++ = (char)*p;
        } else {
            *out++ = '%';
            re_hex_encode_upper(p, 1, out);
            out += 2;
        }
    }
    *out = '\0';
    return encoded;
}

char *re_url_unescape(const char *s, size_t len, size_t *out_len)
{
    char *decoded = malloc(len + 1);
    if (!decoded)
        return NULL;
    size_t j = 0;
    for (size_t i = 0; i < len; i++) {
        int high = s[i] == '%' && len - i > 2 ? re_hex_value(s[i + 1]) : -1;
        int low = high >= 0 ? re_hex_value(s[i + 2]) : -1;
        if (low >= 0) {
            decoded[j++] = (char)(high << 4 | low);
            i += 2;
        } else {
            decoded[j++] = s[i];
        }
    }
    decoded[j] = '\0';
    if (out_len)
        *out_len = j;
    return decoded;
}

char *re_url_join(const char *base, const char *name)
{
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        n--;
    char *tail = re_url_escape(name);
    char *url = tail ? malloc(n + 1 + strlen(tail) + 1) : NULL;
    if (url) {
        memcpy(url, base, n);
        url[n] = '/';
        strcpy(url + n + 1, tail);
    }
    free(tail);
    return url;
}

int re_url_char(char c)
{
    return c > ' ' && c < 0x7f && !strchr("\"<>\\^`{|}", c);
}

/* libcurl's parser agrees: a port in range, a host it can read. */
static int curl_reads(const re_curl_api *curl, const char *url)
{
    CURLU *u = curl->url();
    if (!u)
        return 0;
    char *host = NULL;
    int ok = curl->url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK
             && curl->url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && host[0];
    curl->free(host);
    curl->url_cleanup(u);
    return ok;
}

int re_url_check(const char *url, int allow_query, const char **why)
{
    const char *host = NULL;
    if (strncmp(url, "https://", 8) == 0)
        host = url + 8;
    else if (strncmp(url, "http://", 7) == 0)
        host = url + 7;
    const char *reason = NULL;
    if (!host)
        reason = "it must start with http:// or https://";
    else if (*host == '\0' || *host == '/' || *host == '?' || *host == '#')
        reason = "it has no host name";
    for (const char *p = url; !reason && *p; p++) {
        if (!re_url_char(*p))
            reason = "it may hold only printable ASCII without blanks, quotes and <>\\^`{|} "
                     "(percent-encode the others)";
        else if (!allow_query && (*p == '?' || *p == '#'))
            reason = "a base URL cannot have a query (?) or fragment (#)";
    }
    const re_curl_api *curl = reason ? NULL : re_curl(&reason);   /* or why it cannot load */
    if (curl && !curl_reads(curl, url))
        reason = "libcurl cannot read it as a URL (a port out of range, a host it cannot parse)";
    if (why)
        *why = reason;
    return reason == NULL;
}

/* A part of the URL as our own string (malloc'ed), or NULL when it has none. */
static char *url_part(const re_curl_api *curl, CURLU *u, CURLUPart part)
{
    char *value = NULL, *copy = NULL;
    if (curl->url_get(u, part, &value, 0) == CURLUE_OK && value)
        copy = strdup(value);
    curl->free(value);
    return copy;
}

re_status re_http_url_parse(const char *url, re_http_url *out)
{
    memset(out, 0, sizeof *out);
    const re_curl_api *curl = re_curl(NULL);
    if (!curl)
        return RE_ERR_READ;
    CURLU *u = curl->url();
    if (!u)
        return RE_ERR_NOMEM;
    re_status status = RE_OK;
    char *scheme = NULL, *host = NULL, *query = NULL, *fragment = NULL, *text = NULL;
    if (curl->url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK
        || curl->url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK
        || curl->url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK || !host[0]
        || (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)) {
        status = RE_ERR_INPUT;
    } else if (curl->url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK
               || curl->url_get(u, CURLUPART_FRAGMENT, &fragment, 0) == CURLUE_OK) {
        status = RE_ERR_INPUT;
    }
    if (status == RE_OK) {
        out->user = url_part(curl, u, CURLUPART_USER);
        out->password = url_part(curl, u, CURLUPART_PASSWORD);
        out->full = url_part(curl, u, CURLUPART_URL);
        (void)curl->url_set(u, CURLUPART_USER, NULL, 0);
        (void)curl->url_set(u, CURLUPART_PASSWORD, NULL, 0);
        (void)curl->url_set(u, CURLUPART_OPTIONS, NULL, 0);
        if (curl->url_get(u, CURLUPART_URL, &text, 0) == CURLUE_OK && text)
            out->shown = strdup(text);
        if (!out->full || !out->shown) {
            re_http_url_free(out);
            status = RE_ERR_NOMEM;
        }
    }
    curl->free(scheme);
    curl->free(host);
    curl->free(query);
    curl->free(fragment);
    curl->free(text);
    curl->url_cleanup(u);
    return status;
}

void re_http_url_free(re_http_url *u)
{
    if (!u)
        return;
    free(u->user);
    free(u->password);
    free(u->full);
    free(u->shown);
    memset(u, 0, sizeof *u);
}
