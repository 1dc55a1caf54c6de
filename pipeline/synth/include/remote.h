/* SPDX-License-Identifier: GPL-3.0-or-later */
/* remote.h - the segment cache behind an HTTP(S) URL, layered under the local folder
 * (docs/cache.md, "A remote cache"): plain GET and PUT with libcurl, so that nginx with WebDAV,
 * bazel-remote or any server that stores what is PUT and serves it back can share one team's
 * segments between machines that share no folder.
 *
 * Layout: the local cache's, under the URL's path: URL/v1/ab/<64 hex>.seg, each object one
 * entry in the local format (cache.h), checked by re_cache_entry_read like a local file. A
 * corrupt, truncated or foreign object is a miss (the render synthesizes the segment and PUTs
 * a good entry over it).
 *
 * Never fatal: a remote that is down, slow (bounded connect and total timeouts), answers an
 * error, or refuses writes costs speed, never a render. The first such failure adds one
 * warning to the diag passed to that call, and turns the remote off (or only its writes, for
 * a refused PUT) for this handle and for every handle sharing the same re_remote_state (the
 * workers of one batch): one warning per run, and no run waits for a dead server more than
 * once. Credentials (a netrc file, or a bearer token from the environment) are never printed:
 * every message shows the URL without its user name and password.
 *
 * Where it runs: in the process that owns the local cache handle (the render process, or a
 * batch worker), never in the per-paragraph speech children (synth.h), which only speak: a
 * lookup decides whether a child is needed at all, and a child forked per paragraph must stay
 * a copy of a warm engine and nothing else.
 *
 * Life cycle: re_remote_open -> (re_remote_get | re_remote_put)* -> re_remote_free. A handle
 * is for one thread. */
#ifndef RE_REMOTE_H
#define RE_REMOTE_H

#include <signal.h>
#include <stddef.h>

#include "cache.h"
#include "status.h"
#include "synth.h"

/* The environment variables the command line reads (docs/cache.md). */
#define RE_REMOTE_URL_ENV "RENDER_EPISODE_CACHE_URL"
#define RE_REMOTE_TOKEN_ENV "RENDER_EPISODE_CACHE_TOKEN"     /* sent as "Authorization: Bearer" */
#define RE_REMOTE_NETRC_ENV "RENDER_EPISODE_CACHE_NETRC"     /* a netrc file other than ~/.netrc */

#define RE_REMOTE_DEFAULT_TIMEOUT_MS 10000u   /* per request, all of it */
#define RE_REMOTE_CONNECT_TIMEOUT_MS 3000u    /* at most; never more than the total */

/* What every handle of one run shares: whether the remote is still used. Put it in memory
 * that the processes of the run share (mmap MAP_SHARED before fork) so that one worker's
 * finding holds for all; a zeroed struct is "all well". */
typedef struct re_remote_state {
    int flags;       /* RE_REMOTE_OFF, RE_REMOTE_NO_WRITES, RE_REMOTE_WARNED_*; atomic */
    int slow;        /* answers that took RE_REMOTE_SLOW_PERCENT of the timeout or more; atomic */
    int oversized;   /* objects larger than any entry; atomic */
} re_remote_state;

/* A remote that does not pay is turned off like one that is down (one warning): after
 * RE_REMOTE_MAX_SLOW answers that each took at least RE_REMOTE_SLOW_PERCENT % of the request
 * timeout, after RE_REMOTE_MAX_OVERSIZED objects larger than any entry a segment can have
 * (re_cache_max_entry_bytes: refused by their Content-Length, or cut off there), or once one
 * handle's requests (one render, one episode of a batch) have waited RE_REMOTE_WAIT_BUDGET
 * request timeouts in all (each request's timeout is cut to what is left of it): a remote
 * that answers just under the timeout costs a run a few timeouts, not one per segment. */
#define RE_REMOTE_SLOW_PERCENT 50u
#define RE_REMOTE_MAX_SLOW 3
#define RE_REMOTE_MAX_OVERSIZED 3
#define RE_REMOTE_WAIT_BUDGET 4u   /* request timeouts: 40 s at the default 10 s */

#define RE_REMOTE_OFF 1u               /* down or refusing reads: not asked again */
#define RE_REMOTE_NO_WRITES 2u         /* refused a PUT: only read */
#define RE_REMOTE_WARNED_CORRUPT 4u    /* a corrupt object was said once */

typedef struct re_remote_options {
    const char *url;                   /* http:// or https://, the cache's root */
    unsigned timeout_ms;               /* per request; 0 = RE_REMOTE_DEFAULT_TIMEOUT_MS */
    const char *bearer_token;          /* or NULL; never shown */
    const char *netrc_file;            /* or NULL for ~/.netrc (used when present) */
    re_remote_state *state;            /* shared by the run; NULL = this handle's own */
    volatile sig_atomic_t *stop;       /* a raised stop ends a transfer at once; may be NULL */
} re_remote_options;

typedef struct re_remote re_remote;

/* A handle on the remote cache (strings copied). Touches no server. RE_ERR_INPUT with a
 * message (file: the URL as shown) when the URL is not http(s)://HOST/...; RE_ERR_NOMEM. */
re_status re_remote_open(const re_remote_options *options, re_remote **out, re_diagnostics *diag);
void re_remote_free(re_remote *remote);   /* NULL is allowed */

typedef struct re_remote_counters {
    size_t hits;
    size_t misses;       /* includes rejected and failed lookups */
    size_t rejected;     /* objects that were not a valid entry for their key */
    size_t stored;       /* PUTs the server accepted */
    size_t store_failures;
} re_remote_counters;

/* GETs the key's object. *hit = 1 and *out filled (the caller's) for a valid entry; else a
 * miss, with at most one warning in warn (may be NULL) when the remote failed. RE_OK, or
 * RE_ERR_NOMEM, or RE_ERR_INTERRUPTED when stop was raised. */
re_status re_remote_get(re_remote *remote, const re_cache_key *key, unsigned sample_rate,
                        re_speech *out, int *hit, re_diagnostics *warn);

/* PUTs speech as the key's entry. A refusal or failure is a warning in warn (may be NULL),
 * given once per run; RE_OK, or RE_ERR_NOMEM, or RE_ERR_INTERRUPTED. */
re_status re_remote_put(re_remote *remote, const re_cache_key *key, unsigned sample_rate,
                        const re_speech *speech, re_diagnostics *warn);

#endif
