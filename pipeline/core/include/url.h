/* SPDX-License-Identifier: GPL-3.0-or-later */
/* url.h - URLs, owned here once, read through libcurl's URL API (CURLU, loaded on demand:
 * curl_lib.h) and percent-encoded and decoded as its encoder and decoder do: the feed's and
 * the page's links to files, the enclosures check reads back, the checks of the URLs a show
 * file and --base-url give, and the segment cache's --cache-url.
 *
 * Every returned string is malloc'ed and the caller's (free). */
#ifndef RE_URL_H
#define RE_URL_H

#include "status.h"

/* `s` percent-encoded whole: every byte but A-Z a-z 0-9 - . _ ~ (RFC 3986's unreserved
 * characters) as %XX with upper-case hex, so that a file name is one path segment and never
 * reads as a scheme, a query or a fragment. NULL when out of memory. */
char *re_url_escape(const char *s);

/* s[0..len) percent-decoded: each % followed by two hex digits (either case) is the byte they
 * spell, and every other byte, a % without two digits after it too, is kept, as libcurl's
 * curl_easy_unescape does (no '+' for a blank: that is a form's encoding, not a URL's). The
 * result is NUL-terminated and *out_len (may be NULL) its length, which is shorter than
 * strlen's when it holds a %00. Needs no libcurl. NULL when out of memory. */
char *re_url_unescape(const char *s, size_t len, size_t *out_len);

/* base (its trailing slashes dropped) + "/" + re_url_escape(name). NULL when out of memory. */
char *re_url_join(const char *base, const char *name);

/* 1 when c is printable ASCII that may appear in a URL as written in a feed: no blank, quote
 * or <>\^`{|}. */
int re_url_char(char c);

/* Whether `url` is an absolute http:// or https:// URL (scheme in lower case, as written in a
 * feed) with a host, of printable ASCII without blanks, quotes and <>\^`{|}, that libcurl's
 * URL parser accepts; with allow_query 0, also without a query (?) or fragment (#). Returns 1,
 * or 0 with *why (may be NULL) set to a static sentence saying what is wrong (or that libcurl
 * cannot be loaded, naming the package to install). */
int re_url_check(const char *url, int allow_query, const char **why);

/* An http(s) URL with a host and no query or fragment, taken apart by libcurl. */
typedef struct re_http_url {
    char *user, *password;   /* NULL when the URL has none (still percent-encoded) */
    char *full;              /* libcurl's normalized form, credentials included */
    char *shown;             /* the same without credentials or options: safe to print */
} re_http_url;

/* Parses `url` into *out. RE_ERR_INPUT (nothing allocated) when it is not http:// or https://
 * with a host, or has a query or fragment; RE_ERR_NOMEM; RE_ERR_READ when libcurl cannot be
 * loaded (re_curl says why). Free with re_http_url_free. */
re_status re_http_url_parse(const char *url, re_http_url *out);
void re_http_url_free(re_http_url *u);   /* NULL is allowed; zeroes *u */

#endif
