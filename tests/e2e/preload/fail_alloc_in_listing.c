/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fail_alloc_in_listing.c - an LD_PRELOAD shim for tests/e2e/test_show_identity.py: while the
 * process lists the folder named by RE_FAIL_ALLOC_IN (from its fdopendir to its closedir),
 * every malloc, calloc and realloc fails with ENOMEM (the others pass to the allocator
 * after this one), to run out of memory in the check a
 * render makes after publishing. Built by the test itself with the system's cc. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int failing;
static DIR *watched;

/* The allocator after this one (libc's, or the sanitizer's when it is loaded): resolved at
 * the first call, with a small static arena for what dlsym itself allocates meanwhile (a
 * free of it is ignored). */
static void *(*next_malloc)(size_t);
static void *(*next_calloc)(size_t, size_t);
static void *(*next_realloc)(void *, size_t);
static void (*next_free)(void *);
static int resolving;
static _Alignas(16) char arena[4096];
static size_t arena_used;

static void *from_arena(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (arena_used + n > sizeof arena)
        return NULL;
    void *p = arena + arena_used;
    arena_used += n;
    return p;
}

static void resolve(void)
{
    if (next_free || resolving)
        return;
    resolving = 1;
    next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    next_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    next_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    resolving = 0;
}

void free(void *p)
{
    if ((char *)p >= arena && (char *)p < arena + sizeof arena)
        return;
    resolve();
    if (p)
        next_free(p);
}

void *malloc(size_t n)
{
    resolve();
    if (resolving)
        return from_arena(n);
    if (failing) {
        errno = ENOMEM;
        return NULL;
    }
    return next_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    resolve();
    if (resolving)
        return n && size > sizeof arena / n ? NULL : from_arena(n * size);   /* zeroed: static */
    if (failing) {
        errno = ENOMEM;
        return NULL;
    }
    return next_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    resolve();
    if ((char *)p >= arena && (char *)p < arena + sizeof arena) {   /* never moved out */
        errno = ENOMEM;
        return NULL;
    }
    if (failing) {
        errno = ENOMEM;
        return NULL;
    }
    return next_realloc(p, n);
}

DIR *fdopendir(int fd)
{
    static DIR *(*real)(int);
    if (!real)
        real = (DIR * (*)(int))dlsym(RTLD_NEXT, "fdopendir");
    DIR *d = real(fd);
    const char *folder = getenv("RE_FAIL_ALLOC_IN");
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (d && folder && n > 0) {
        path[n] = '\0';
        if (strcmp(path, folder) == 0) {
            watched = d;
            failing = 1;
        }
    }
    return d;
}

int closedir(DIR *d)
{
    static int (*real)(DIR *);
    if (!real)
        real = (int (*)(DIR *))dlsym(RTLD_NEXT, "closedir");
    if (d == watched) {
        failing = 0;
        watched = NULL;
    }
    return real(d);
}
