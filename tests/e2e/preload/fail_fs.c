/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fail_fs.c - an LD_PRELOAD shim for tests/e2e/test_show_nav.py: a file system that fails
 * where a real one can. RE_FAIL_FLOCK=1: flock() fails with ENOLCK (as on some network file
 * systems). RE_FAIL_RENAME_TO=NAME: a rename whose target is named NAME (its last path
 * component) fails with EIO, and with RE_FAIL_LATER_RENAMES=1 every rename after it too (a
 * disk that went read-only, say).
 * Built by the test itself with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

static int failing;   /* RE_FAIL_LATER_RENAMES: every rename fails from now on */

/* 1 when a rename to `to` must fail (and every later one with it). */
static int fail_rename(const char *to)
{
    const char *name = getenv("RE_FAIL_RENAME_TO"), *later = getenv("RE_FAIL_LATER_RENAMES");
    const char *slash = strrchr(to, '/');
    int fail = failing || (name && strcmp(slash ? slash + 1 : to, name) == 0);
    if (fail && later && strcmp(later, "1") == 0)
        failing = 1;
    if (fail)
        errno = EIO;
    return fail;
}

int flock(int fd, int operation)
{
    static int (*real)(int, int);
    const char *fail = getenv("RE_FAIL_FLOCK");
    if (fail && strcmp(fail, "1") == 0 && (operation & (LOCK_EX | LOCK_SH))) {
        errno = ENOLCK;
        return -1;
    }
    if (!real)
        real = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
    return real(fd, operation);
}

int rename(const char *from, const char *to)
{
    static int (*real)(const char *, const char *);
    if (fail_rename(to))
        return -1;
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    return real(from, to);
}

int renameat(int from_dir, const char *from, int to_dir, const char *to)
{
    static int (*real)(int, const char *, int, const char *);
    if (fail_rename(to))
        return -1;
    if (!real)
        real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
    return real(from_dir, from, to_dir, to);
}

int renameat2(int from_dir, const char *from, int to_dir, const char *to, unsigned flags)
{
    static int (*real)(int, const char *, int, const char *, unsigned);
    if (fail_rename(to))
        return -1;
    if (!real)
        real = (int (*)(int, const char *, int, const char *, unsigned))dlsym(RTLD_NEXT,
                                                                              "renameat2");
    return real(from_dir, from, to_dir, to, flags);
}
