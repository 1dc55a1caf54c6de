/* SPDX-License-Identifier: GPL-3.0-or-later */
/* kill_at_rename.c - an LD_PRELOAD shim for tests/e2e/test_faults.py: the process kills itself
 * with SIGKILL at the Nth rename() or renameat() it makes (RE_KILL_AT_RENAME=N, both counted
 * together: outputs are renamed in their folder's fd, the backups' restore by name), just
 * before it (RE_KILL_WHEN=before) or just after it (after), to stop a render at each step of
 * publishing its files. Built by the test itself with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls;

/* 1 when this call is the one to die at; *after says on which side of it. */
static int kill_here(int *after)
{
    const char *at = getenv("RE_KILL_AT_RENAME"), *when = getenv("RE_KILL_WHEN");
    *after = when && strcmp(when, "after") == 0;
    return at && ++calls == atoi(at);
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    int after, kill_now = kill_here(&after);
    if (kill_now && !after)
        raise(SIGKILL);
    int r = real(from, to);
    if (kill_now && after)
        raise(SIGKILL);
    return r;
}

int renameat(int from_dir, const char *from, int to_dir, const char *to)
{
    static int (*real)(int, const char *, int, const char *);
    if (!real)
        real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    int after, kill_now = kill_here(&after);
    if (kill_now && !after)
        raise(SIGKILL);
    int r = real(from_dir, from, to_dir, to);
    if (kill_now && after)
        raise(SIGKILL);
    return r;
}
