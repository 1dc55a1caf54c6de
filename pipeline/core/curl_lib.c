/* SPDX-License-Identifier: GPL-3.0-or-later */
/* curl_lib.c - libcurl through dlopen, once per process (see curl_lib.h). */
#include "curl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define CURL_SONAME "libcurl.so.4"
#define CURL_PACKAGE "libcurl4"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static re_curl_api api;
static const re_curl_api *loaded;   /* &api once every function is resolved and set up */
static char failure[512];

/* Each member of re_curl_api and the symbol it is resolved from. */
static const struct {
    size_t offset;
    const char *symbol;
} symbols[] = {
#define CURL_SYMBOL(member, name) { offsetof(re_curl_api, member), #name }
    CURL_SYMBOL(global_init, curl_global_init),
    CURL_SYMBOL(version_info, curl_version_info),
    CURL_SYMBOL(free, curl_free),
    CURL_SYMBOL(easy_init, curl_easy_init),
    CURL_SYMBOL(easy_setopt, curl_easy_setopt),
    CURL_SYMBOL(easy_perform, curl_easy_perform),
    CURL_SYMBOL(easy_getinfo, curl_easy_getinfo),
    CURL_SYMBOL(easy_cleanup, curl_easy_cleanup),
    CURL_SYMBOL(easy_strerror, curl_easy_strerror),
    CURL_SYMBOL(slist_append, curl_slist_append),
    CURL_SYMBOL(slist_free_all, curl_slist_free_all),
    CURL_SYMBOL(url, curl_url),
    CURL_SYMBOL(url_set, curl_url_set),
    CURL_SYMBOL(url_get, curl_url_get),
    CURL_SYMBOL(url_cleanup, curl_url_cleanup),
#undef CURL_SYMBOL
};
_Static_assert(sizeof symbols / sizeof symbols[0] * sizeof(void (*)(void)) == sizeof(re_curl_api),
               "a symbol for every member of re_curl_api");

static void load_curl(void)
{
    void *lib = dlopen(CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(failure, sizeof failure, "cannot load libcurl (install the package %s): %s",
                 CURL_PACKAGE, dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        dlerror();
        void *fn = dlsym(lib, symbols[i].symbol);
        const char *error = dlerror();
        if (error || !fn) {
            snprintf(failure, sizeof failure, "cannot load libcurl (install the package %s): %s",
                     CURL_PACKAGE, error ? error : symbols[i].symbol);
            dlclose(lib);
            return;
        }
        /* POSIX guarantees a data pointer from dlsym converts to the function's pointer */
        memcpy((char *)&api + symbols[i].offset, &fn, sizeof fn);
    }
    /* the first call into the library: see curl_lib.h for why this is the place */
    CURLcode code = api.global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(failure, sizeof failure, "cannot set up libcurl: %s", api.easy_strerror(code));
        return;   /* the library stays mapped: it may hold state we cannot undo */
    }
    loaded = &api;
}

const re_curl_api *re_curl(const char **why)
{
    pthread_once(&curl_once, load_curl);
    if (!loaded && why)
        *why = failure;
    return loaded;
}
