/* SPDX-License-Identifier: GPL-3.0-or-later */
/* curl_lib.h - libcurl, loaded on demand: the one place the program reaches libcurl.
 *
 * The program is not linked with libcurl: its closure (OpenSSL, GnuTLS, Kerberos, LDAP,
 * libssh2, librtmp, nghttp2 ... some 28 libraries) cost every run about 17 ms of start-up,
 * and only the remote segment cache and the URL checks of a show file and --base-url use it.
 * re_curl() loads "libcurl.so.4" with dlopen the first time it is called, resolves the
 * functions below, and runs curl_global_init: every use of libcurl goes through the table it
 * returns (url.c, remote.c, the CLI's -V).
 *
 * Threads: curl_global_init must not race with another thread's libcurl calls. Here it is
 * the first call into the library in the process, made inside pthread_once, so no thread can
 * call libcurl before it has returned, whichever thread loads first (a batch worker, the
 * main thread). A forked child inherits the loaded library and its global state. */
#ifndef RE_CURL_LIB_H
#define RE_CURL_LIB_H

#include <curl/curl.h>

/* The functions we call, with the types curl.h gives them. */
typedef struct re_curl_api {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_version_info) *version_info;
    __typeof__(curl_free) *free;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
    __typeof__(curl_url) *url;
    __typeof__(curl_url_set) *url_set;
    __typeof__(curl_url_get) *url_get;
    __typeof__(curl_url_cleanup) *url_cleanup;
} re_curl_api;

/* The loaded library's functions, loading it (once per process, thread-safe) on the first
 * call. NULL when it cannot be loaded or set up: then *why (when why is not NULL) says why in
 * a sentence naming the package to install and dlerror()'s words (static; the same every
 * later call). */
const re_curl_api *re_curl(const char **why);

#endif
