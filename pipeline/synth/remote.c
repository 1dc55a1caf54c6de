/* SPDX-License-Identifier: GPL-3.0-or-later */
/* remote.c - the segment cache over HTTP(S) GET/PUT with libcurl (see remote.h). */
#define _GNU_SOURCE
#include "remote.h"
#include "url.h"
#include "curl_lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct re_remote {
    const re_curl_api *lib;  /* libcurl's functions (curl_lib.h) */
    CURL *curl;
    char *base;              /* the URL as given, without a trailing '/': requests go below it */
    char *shown;             /* the URL without user name and password: the only one printed */
    char *user, *password;   /* from the URL, to keep them out of curl's messages; may be NULL */
    char *token, *netrc_file;
    unsigned timeout_ms;
    re_remote_state own_state;
    re_remote_state *state;
    volatile sig_atomic_t *stop;
    struct curl_slist *put_headers;
    char *request_url;       /* scratch: base/v1/ab/<hex>.seg */
    int body_fd;             /* a memfd holding the object of the current request */
    size_t body_size;
    uint64_t body_cap;       /* the largest entry of the current request's rate */
    int body_too_large;
    uint64_t waited_ms;      /* in all requests of this handle (RE_REMOTE_WAIT_BUDGET) */
    char error[CURL_ERROR_SIZE];
    re_remote_counters counters;
};

static unsigned flags_of(const re_remote *r)
{
    return (unsigned)__atomic_load_n(&r->state->flags, __ATOMIC_SEQ_CST);
}

/* Sets bits in the shared state; 1 when this call set `bit` first (and so says it). */
static int raise_flag(re_remote *r, unsigned bits, unsigned bit)
{
    int before = __atomic_fetch_or(&r->state->flags, (int)bits, __ATOMIC_SEQ_CST);
    return !((unsigned)before & bit);
}

void re_remote_free(re_remote *remote)
{
    if (!remote)
        return;
    if (remote->curl)
        remote->lib->easy_cleanup(remote->curl);
    if (remote->lib)
        remote->lib->slist_free_all(remote->put_headers);
    if (remote->body_fd >= 0)
        close(remote->body_fd);
    free(remote->base);
    free(remote->shown);
    free(remote->user);
    free(remote->password);
    free(remote->token);
    free(remote->netrc_file);
    free(remote->request_url);
    free(remote);
}

/* Checks the URL and makes the two forms we keep: base (as given) and shown (no credentials). */
static re_status parse_url(re_remote *r, const char *url, re_diagnostics *diag)
{
    re_http_url u;
    re_status status = re_http_url_parse(url, &u);
    if (status == RE_OK) {
        size_t n = strlen(u.full);
        while (n > 0 && u.full[n - 1] == '/')
            n--;
        r->base = strndup(u.full, n);
        r->shown = u.shown;
        r->user = u.user;
        r->password = u.password;
        free(u.full);
        if (!r->base)
            status = RE_ERR_NOMEM;
    } else if (status == RE_ERR_INPUT) {
        /* the URL may hold a password: say what is wrong without repeating it */
        status = re_diag_fail(diag, RE_ERR_INPUT, "--cache-url", 0, 0,
                              "not an http:// or https:// URL with a host and no ?query or "
                              "#fragment");
    }
    return status;
}

/* A transfer stops as soon as the run is asked to stop. */
static int on_transfer_progress(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    re_remote *r = context;
    return r->stop && *r->stop ? 1 : 0;
}

re_status re_remote_open(const re_remote_options *options, re_remote **out, re_diagnostics *diag)
{
    *out = NULL;
    /* libcurl is loaded and set up here, at the first remote cache (curl_lib.h) */
    const char *why = NULL;
    const re_curl_api *lib = re_curl(&why);
    if (!lib)
        return re_diag_fail(diag, RE_ERR_READ, NULL, 0, 0, "%s", why);
    re_remote *r = calloc(1, sizeof *r);
    if (!r)
        return RE_ERR_NOMEM;
    r->lib = lib;
    r->body_fd = -1;
    r->state = options->state ? options->state : &r->own_state;
    r->stop = options->stop;
    r->timeout_ms = options->timeout_ms ? options->timeout_ms : RE_REMOTE_DEFAULT_TIMEOUT_MS;
    re_status status = parse_url(r, options->url ? options->url : "", diag);
    if (status != RE_OK)
        goto fail;
    status = RE_ERR_NOMEM;
    if ((options->bearer_token && !(r->token = strdup(options->bearer_token)))
        || (options->netrc_file && !(r->netrc_file = strdup(options->netrc_file))))
        goto fail;
    r->request_url = malloc(strlen(r->base) + RE_SHA256_HEX_SIZE * 2 + 16);
    r->put_headers = r->lib->slist_append(NULL, "Expect:");   /* no 100-continue round trip */
    r->curl = r->lib->easy_init();
    r->body_fd = memfd_create("re-remote-entry", MFD_CLOEXEC);
    if (!r->request_url || !r->put_headers || !r->curl || r->body_fd < 0)
        goto fail;
    CURL *c = r->curl;
    unsigned connect_ms = r->timeout_ms < RE_REMOTE_CONNECT_TIMEOUT_MS ? r->timeout_ms
                                                                        : RE_REMOTE_CONNECT_TIMEOUT_MS;
    int ok = r->lib->easy_setopt(c, CURLOPT_NOSIGNAL, 1L) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)connect_ms) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_ERRORBUFFER, r->error) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_USERAGENT, "render-episode") == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_NOPROGRESS, 0L) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_transfer_progress) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_XFERINFODATA, r) == CURLE_OK;
    if (ok && r->token)
        ok = r->lib->easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BEARER) == CURLE_OK
             && r->lib->easy_setopt(c, CURLOPT_XOAUTH2_BEARER, r->token) == CURLE_OK;
    else if (ok)
        ok = r->lib->easy_setopt(c, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL) == CURLE_OK
             && (!r->netrc_file
                 || r->lib->easy_setopt(c, CURLOPT_NETRC_FILE, r->netrc_file) == CURLE_OK);
    if (!ok)
        goto fail;
    *out = r;
    return RE_OK;

fail:
    re_remote_free(r);
    return status;
}

static void set_request_url(re_remote *r, const re_cache_key *key)
{
    char hex[RE_SHA256_HEX_SIZE];
    re_cache_key_hex(key, hex);
    sprintf(r->request_url, "%s/v1/%.2s/%s.seg", r->base, hex, hex);
    (void)r->lib->easy_setopt(r->curl, CURLOPT_URL, r->request_url);
}

/* What curl said, unless it could repeat a credential (then only the kind of failure). */
static const char *transfer_error(const re_remote *r, CURLcode code)
{
    const char *said = r->error[0] ? r->error : r->lib->easy_strerror(code);
    const char *secrets[] = { r->user, r->password, r->token };
    for (size_t i = 0; i < sizeof secrets / sizeof *secrets; i++)
        if (secrets[i] && secrets[i][0] && strstr(said, secrets[i]))
            return r->lib->easy_strerror(code);
    return said;
}

/* The remote failed: off for the whole run, said once. */
static void give_up(re_remote *r, re_diagnostics *warn, const char *reason)
{
    if (raise_flag(r, RE_REMOTE_OFF, RE_REMOTE_OFF))
        re_diag_add(warn, r->shown, 0, 0, "warning: not using the remote segment cache for the "
                    "rest of this run: %s; rendering with the local cache", reason);
}

/* It answered a read with something else than an object or "not found". */
static void give_up_answer(re_remote *r, re_diagnostics *warn, long http_status)
{
    char reason[64];
    snprintf(reason, sizeof reason, "it answered HTTP %ld to a read", http_status);
    give_up(r, warn, reason);
}

static void give_up_waited(re_remote *r, re_diagnostics *warn)
{
    char reason[112];
    snprintf(reason, sizeof reason, "its answers took %.1f s in all, the most one render waits "
             "for it (%u times --cache-timeout)", (double)r->waited_ms / 1000.0,
             RE_REMOTE_WAIT_BUDGET);
    give_up(r, warn, reason);
}

/* Before a request: its timeout, cut to what is left of the wait budget; 0 when none is left
 * (the remote is then off, said once). */
static int start_request(re_remote *r, re_diagnostics *warn)
{
    uint64_t budget = (uint64_t)RE_REMOTE_WAIT_BUDGET * r->timeout_ms;
    if (r->waited_ms >= budget) {
        give_up_waited(r, warn);
        return 0;
    }
    uint64_t left = budget - r->waited_ms;
    unsigned timeout = left < r->timeout_ms ? (unsigned)left : r->timeout_ms;
    unsigned connect = timeout < RE_REMOTE_CONNECT_TIMEOUT_MS ? timeout : RE_REMOTE_CONNECT_TIMEOUT_MS;
    (void)r->lib->easy_setopt(r->curl, CURLOPT_TIMEOUT_MS, (long)timeout);
    (void)r->lib->easy_setopt(r->curl, CURLOPT_CONNECTTIMEOUT_MS, (long)connect);
    return 1;
}

/* After a request: its time counts against the budget, and a slow answer against the slow
 * ones allowed; the remote is turned off (once, with one warning) when either is spent. */
static void end_request(re_remote *r, re_diagnostics *warn)
{
    curl_off_t us = 0;
    if (r->lib->easy_getinfo(r->curl, CURLINFO_TOTAL_TIME_T, &us) != CURLE_OK || us < 0)
        us = 0;
    uint64_t ms = (uint64_t)us / 1000u;
    r->waited_ms += ms;
    char reason[128];
    if (ms * 100u >= (uint64_t)r->timeout_ms * RE_REMOTE_SLOW_PERCENT
        && __atomic_add_fetch(&r->state->slow, 1, __ATOMIC_SEQ_CST) >= RE_REMOTE_MAX_SLOW) {
        snprintf(reason, sizeof reason, "%d answers took %.1f s or more each (half the "
                 "timeout)", RE_REMOTE_MAX_SLOW, r->timeout_ms * RE_REMOTE_SLOW_PERCENT / 100000.0);
        give_up(r, warn, reason);
    } else if (r->waited_ms >= (uint64_t)RE_REMOTE_WAIT_BUDGET * r->timeout_ms) {
        give_up_waited(r, warn);
    }
}

static size_t on_body(char *data, size_t size, size_t count, void *context)
{
    re_remote *r = context;
    size_t len = size * count;
    if (r->body_size + len > r->body_cap) {
        r->body_too_large = 1;
        return 0;
    }
    for (size_t done = 0; done < len;) {
        ssize_t n = write(r->body_fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        done += (size_t)n;
    }
    r->body_size += len;
    return len;
}

static int reset_body(re_remote *r)
{
    r->body_size = 0;
    r->body_too_large = 0;
    return ftruncate(r->body_fd, 0) == 0 && lseek(r->body_fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* A corrupt object is a miss; said once per run, as it may be the first sign of a foreign
 * server (or of a cache shared with another engine build). */
static void reject(re_remote *r, re_diagnostics *warn, const char *why)
{
    r->counters.rejected++;
    if (raise_flag(r, RE_REMOTE_WARNED_CORRUPT, RE_REMOTE_WARNED_CORRUPT))
        re_diag_add(warn, r->shown, 0, 0, "warning: ignored an object of the remote segment cache "
                    "(%s) that is not a valid entry: %s; the segment is synthesized", r->request_url
                    + strlen(r->base) + 1, why);
}

re_status re_remote_get(re_remote *remote, const re_cache_key *key, unsigned sample_rate,
                        re_speech *out, int *hit, re_diagnostics *warn)
{
    re_remote *r = remote;
    memset(out, 0, sizeof *out);
    *hit = 0;
    if (flags_of(r) & RE_REMOTE_OFF)
        return RE_OK;
    r->counters.misses++;   /* until it is a hit */
    if (reset_body(r) != 0)
        return RE_ERR_NOMEM;
    if (!start_request(r, warn))
        return RE_OK;
    set_request_url(r, key);
    r->error[0] = '\0';
    r->body_cap = re_cache_max_entry_bytes(sample_rate);
    CURL *c = r->curl;
    (void)r->lib->easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->body_cap);
    (void)r->lib->easy_setopt(c, CURLOPT_HTTPGET, 1L);
    (void)r->lib->easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
    (void)r->lib->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    (void)r->lib->easy_setopt(c, CURLOPT_WRITEDATA, r);
    CURLcode code = r->lib->easy_perform(c);
    long http_status = 0;
    (void)r->lib->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http_status);
    if (code == CURLE_ABORTED_BY_CALLBACK && r->stop && *r->stop)
        return RE_ERR_INTERRUPTED;
    end_request(r, warn);
    if ((code == CURLE_WRITE_ERROR && r->body_too_large) || code == CURLE_FILESIZE_EXCEEDED) {
        reject(r, warn, "larger than any entry a segment can have");
        if (__atomic_add_fetch(&r->state->oversized, 1, __ATOMIC_SEQ_CST) >= RE_REMOTE_MAX_OVERSIZED) {
            char reason[96];
            snprintf(reason, sizeof reason, "%d of its objects were larger than any entry a "
                     "segment can have", RE_REMOTE_MAX_OVERSIZED);
            give_up(r, warn, reason);
        }
        return RE_OK;
    }
    if (code != CURLE_OK) {
        give_up(r, warn, transfer_error(r, code));
        return RE_OK;
    }
    if (http_status == 404 || http_status == 410)
        return RE_OK;
    if (http_status != 200) {
        give_up_answer(r, warn, http_status);
        return RE_OK;
    }
    int valid = 0;
    re_status status = re_cache_entry_read(r->body_fd, key, sample_rate, out, &valid);
    if (status != RE_OK)
        return status;
    if (!valid) {
        reject(r, warn, r->body_size == 0 ? "empty" : "wrong size, key or checksum");
        return RE_OK;
    }
    r->counters.misses--;
    r->counters.hits++;
    *hit = 1;
    return RE_OK;
}

/* The body of an answer to a PUT: not needed. */
static size_t on_answer(char *data, size_t size, size_t count, void *context)
{
    (void)data, (void)context;
    return size * count;
}

static size_t on_upload(char *buffer, size_t size, size_t count, void *context)
{
    re_remote *r = context;
    for (;;) {
        ssize_t n = read(r->body_fd, buffer, size * count);
        if (n < 0 && errno == EINTR)
            continue;
        return n < 0 ? CURL_READFUNC_ABORT : (size_t)n;
    }
}

re_status re_remote_put(re_remote *remote, const re_cache_key *key, unsigned sample_rate,
                        const re_speech *speech, re_diagnostics *warn)
{
    re_remote *r = remote;
    if (flags_of(r) & (RE_REMOTE_OFF | RE_REMOTE_NO_WRITES))
        return RE_OK;
    if (reset_body(r) != 0)
        return RE_ERR_NOMEM;
    int fd = dup(r->body_fd);
    if (fd < 0)
        return RE_ERR_NOMEM;
    re_status status = re_cache_entry_write(fd, key, sample_rate, speech);
    struct stat st;
    if (status == RE_OK && (fstat(r->body_fd, &st) != 0 || lseek(r->body_fd, 0, SEEK_SET) != 0))
        status = RE_ERR_WRITE;
    if (status != RE_OK) {
        r->counters.store_failures++;
        return status == RE_ERR_NOMEM ? status : RE_OK;   /* too large or malformed: not stored */
    }
    if (!start_request(r, warn))
        return RE_OK;
    set_request_url(r, key);
    r->error[0] = '\0';
    CURL *c = r->curl;
    (void)r->lib->easy_setopt(c, CURLOPT_UPLOAD, 1L);
    (void)r->lib->easy_setopt(c, CURLOPT_HTTPHEADER, r->put_headers);
    (void)r->lib->easy_setopt(c, CURLOPT_READFUNCTION, on_upload);
    (void)r->lib->easy_setopt(c, CURLOPT_READDATA, r);
    (void)r->lib->easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)st.st_size);
    (void)r->lib->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_answer);
    CURLcode code = r->lib->easy_perform(c);
    long http_status = 0;
    (void)r->lib->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &http_status);
    (void)r->lib->easy_setopt(c, CURLOPT_UPLOAD, 0L);
    if (code == CURLE_ABORTED_BY_CALLBACK && r->stop && *r->stop)
        return RE_ERR_INTERRUPTED;
    end_request(r, warn);
    if (flags_of(r) & RE_REMOTE_OFF) {   /* this answer spent what was left: said there */
        if (code != CURLE_OK)
            r->counters.store_failures++;
        else if (http_status == 200 || http_status == 201 || http_status == 204)
            r->counters.stored++;
        return RE_OK;
    }
    if (code != CURLE_OK) {
        r->counters.store_failures++;
        give_up(r, warn, transfer_error(r, code));
        return RE_OK;
    }
    if (http_status == 200 || http_status == 201 || http_status == 204) {
        r->counters.stored++;
        return RE_OK;
    }
    r->counters.store_failures++;
    if (raise_flag(r, RE_REMOTE_NO_WRITES, RE_REMOTE_NO_WRITES))
        re_diag_add(warn, r->shown, 0, 0, "warning: the remote segment cache refused a write "
                    "(HTTP %ld); reading from it only for the rest of this run", http_status);
    return RE_OK;
}
