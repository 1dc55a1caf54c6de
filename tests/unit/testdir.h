/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testdir.h - a temporary folder for a unit test and its removal (include after defining
 * _GNU_SOURCE or _XOPEN_SOURCE 500, as <ftw.h> wants). */
#ifndef RE_TESTDIR_H
#define RE_TESTDIR_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* A new empty folder $TMPDIR/re-NAME-XXXXXX (or under /tmp) written into dir; 0, or -1 after
 * saying why. */
static inline int test_temp_dir(char *dir, size_t len, const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, len, "%s/re-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

static inline int test_remove_one(const char *path, const struct stat *st, int flag,
                                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes dir and everything in it (symlinks themselves, never what they lead to). */
static inline void test_remove_tree(const char *dir)
{
    nftw(dir, test_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
