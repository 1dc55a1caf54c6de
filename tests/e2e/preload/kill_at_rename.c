/* SPDX-License-Identifier: GPL-3.0-or-later */
/* kill_at_rename.c - an LD_PRELOAD shim for tests/e2e/test_faults.py: the process kills itself
 * with SIGKILL at the Nth rename() it makes (RE_KILL_AT_RENAME=N), just before it
 * (RE_KILL_WHEN=before) or just after it (after), to stop a render at each step of
 * publishing its files. Built by the test itself with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to)
{
    static int calls;
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    const char *at = getenv("RE_KILL_AT_RENAME"), *when = getenv("RE_KILL_WHEN");
    int kill_now = at && ++calls == atoi(at);
    int after = when && strcmp(when, "after") == 0;
    if (kill_now && !after)
        raise(SIGKILL);
    int r = real(from, to);
    if (kill_now && after)
        raise(SIGKILL);
    return r;
}
