/* SPDX-License-Identifier: GPL-3.0-or-later */
/* beneath.c - opening a file beneath a folder, by openat2(RESOLVE_BENEATH) or a walk of its
 * own that keeps every `..` below the first folder, and the confinement of the files a
 * script names to its folder tree (see files.h). */
#define _GNU_SOURCE  /* asprintf, strndup */
#include "files.h"
#include "files_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The real path of `path` (every symlink followed), or of its folder plus its last name when
 * the file does not exist; NULL when neither resolves (errno ENOMEM when memory ran out). Only
 * a guess at which folder a file is beneath: the open that follows it trusts no path. */
static char *real_or_parent(const char *path)
{
    char *real = realpath(path, NULL);
    if (real || errno != ENOENT)
        return real;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup(".");
    char *dir_real = dir ? realpath(dir, NULL) : NULL;
    if (dir_real && asprintf(&real, "%s/%s", dir_real, slash ? slash + 1 : path) < 0)
        real = NULL;
    free(dir);
    free(dir_real);
    return real;
}

/* ---- opening beneath a folder ------------------------------------------------------------- */

/* The walk keeps its own stack of folder descriptors, so `..` climbs the folders it came
 * down through, whatever is renamed meanwhile, and never above the first. */
#define WALK_MAX_LINKS 40   /* the kernel's own limit on symlinks in one lookup */

typedef struct walk {
    int *fds;               /* fds[0] is the caller's folder, not ours to close */
    size_t depth, cap;
} walk;

static void walk_free(walk *w)
{
    for (size_t i = 1; i <= w->depth; i++)
        (void)close(w->fds[i]);
    free(w->fds);
}

/* A link's text followed by what was left of the name: a new malloc'ed name to walk. */
static char *link_then(const char *link, const char *rest)
{
    char *out = NULL;
    if (asprintf(&out, "%s%s%s", link, *rest ? "/" : "", rest) < 0)
        return NULL;
    return out;
}

int re_walk_beneath(int dirfd, const char *rel, int flags)
{
    walk w = { .fds = malloc(16 * sizeof(int)), .cap = 16 };
    char *path = strdup(rel);
    int links = 0, result = -1, err = 0;
    if (!w.fds || !path) {
        free(w.fds);
        free(path);
        errno = ENOMEM;
        return -1;
    }
    w.fds[0] = dirfd;
    const char *p = path;
    if (*p == '/')
        err = EXDEV;   /* an absolute name starts above every folder */
    while (!err) {
        while (*p == '/')
            p++;
        if (!*p) {   /* the name ends at a folder (".", "sub/") */
            result = openat(w.fds[w.depth], ".", flags & ~O_NOFOLLOW);
            err = result < 0 ? errno : 0;
            break;
        }
        char name[NAME_MAX + 1];
        const char *rest = re_path_next_name(p, name);
        if (!rest) {
            err = ENAMETOOLONG;
            break;
        }
        int slashed = rest > p + strlen(name);   /* "file/": the name must be a folder */
        p = rest;
        if (strcmp(name, ".") == 0)
            continue;
        if (strcmp(name, "..") == 0) {
            if (w.depth == 0)
                err = EXDEV;
            else
                (void)close(w.fds[w.depth--]);
            continue;
        }
        struct stat st;
        if (fstatat(w.fds[w.depth], name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            err = errno;
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            char target[PATH_MAX];
            ssize_t len = readlinkat(w.fds[w.depth], name, target, sizeof target - 1);
            if (len < 0 || ++links > WALK_MAX_LINKS) {
                err = len < 0 ? errno : ELOOP;
                break;
            }
            target[len] = '\0';
            if (target[0] == '/') {
                err = EXDEV;   /* an absolute link leaves the folder */
                break;
            }
            char *next = link_then(target, rest);
            if (!next) {
                err = ENOMEM;
                break;
            }
            free(path);
            path = next;
            p = path;
            continue;
        }
        if (!*rest) {
            /* the last name: opened without following, so a link swapped in since is refused */
            result = openat(w.fds[w.depth], name, flags | O_NOFOLLOW);
            err = result < 0 ? errno : 0;
            if (result >= 0 && slashed && !S_ISDIR(st.st_mode)) {
                (void)close(result);
                result = -1;
                err = ENOTDIR;
            }
            break;
        }
        int next = openat(w.fds[w.depth], name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            err = errno;
            break;
        }
        if (w.depth + 1 == w.cap) {
            int *grown = realloc(w.fds, 2 * w.cap * sizeof *grown);
            if (!grown) {
                (void)close(next);
                err = ENOMEM;
                break;
            }
            w.fds = grown;
            w.cap *= 2;
        }
        w.fds[++w.depth] = next;
    }
    walk_free(&w);
    free(path);
    if (result < 0)
        errno = err;
    return result;
}

int re_open_beneath(int dirfd, const char *rel, int flags)
{
    struct open_how how = { .flags = (uint64_t)(unsigned)flags,
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
    for (int attempt = 0; attempt < 16; attempt++) {
        long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
        if (fd >= 0)
            return (int)fd;
        if (errno == ENOSYS || errno == EPERM)   /* before Linux 5.6, or a seccomp filter */
            return re_walk_beneath(dirfd, rel, flags);
        if (errno != EAGAIN)   /* a rename raced a "..": the kernel asks to try again */
            return -1;
    }
    return -1;
}

int re_open_beneath_trusted(int dirfd, const char *rel, int flags, uid_t *owner)
{
    struct stat st;
    if (fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && !re_owner_trusted(st.st_uid)) {
        *owner = st.st_uid;
        errno = EPERM;
        return -1;
    }
    int fd = re_open_beneath(dirfd, rel, flags);
    int foreign = fd >= 0 ? re_fd_foreign(fd, owner) : 0;
    if (foreign != 0) {
        int err = foreign < 0 ? errno : EPERM;
        (void)close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* 1 when errno, from an open beneath a folder, is about a file that is there (or is not): the
 * reason to report. Anything else (EXDEV: it leads out; ELOOP, ENAMETOOLONG: it could not be
 * followed to its end) means the name does not stay beneath the folder. */
static int reportable(int err)
{
    switch (err) {
    case ENOENT: case ENOTDIR: case EACCES: case EISDIR: case ENXIO: case EWOULDBLOCK:
    case EMFILE: case ENFILE: case ENOMEM: case EOVERFLOW: case EIO: case ETXTBSY: case EINTR:
        return 1;
    default:
        return 0;
    }
}

/* Opens rel beneath the folder `root` (resolved as the user gave it): the fd, or -1 with
 * errno (EXDEV and the like when it leads out). */
static int open_under(const char *root, const char *rel, int flags)
{
    int dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        errno = EXDEV;   /* no such folder: nothing is beneath it */
        return -1;
    }
    int fd = re_open_beneath(dirfd, rel, flags);
    int err = errno;
    (void)close(dirfd);
    errno = err;
    return fd;
}

/* `real` relative to the real path of `dir` when it is beneath it ("." for dir itself): a
 * pointer into real, or NULL. */
static const char *beneath(const char *real, const char *dir)
{
    char *root = realpath(dir, NULL);
    if (!root)
        return NULL;
    size_t n = strlen(root);
    const char *rel = NULL;
    if (n == 1 && root[0] == '/')
        rel = real[1] ? real + 1 : ".";
    else if (strncmp(real, root, n) == 0 && real[n] == '/')
        rel = real[n + 1] ? real + n + 1 : ".";
    else if (strncmp(real, root, n) == 0 && real[n] == '\0')
        rel = ".";
    free(root);
    return rel;
}

re_status re_path_open_confined(const char *script_path, const char *path,
                                const char *const *allowed_dirs, size_t n, int flags, int *fd,
                                int *error)
{
    if (!script_path || !path || !fd || !error || (n > 0 && !allowed_dirs))
        return RE_ERR_INVALID;
    *fd = -1;
    *error = 0;
    const char *slash = strrchr(script_path, '/');
    char *script_dir = slash ? strndup(script_path, (size_t)(slash - script_path + 1))
                             : strdup(".");
    if (!script_dir)
        return RE_ERR_NOMEM;
    /* The name as the script gave it, beneath the script's folder (re_path_beside put the
     * folder in front of a relative one): links that stay in the tree are followed. */
    size_t dir_len = slash ? strlen(script_dir) : 0;
    int result = -1, err = EXDEV;
    if (path[0] != '/' || (slash && strncmp(path, script_dir, dir_len) == 0)) {
        const char *rel = slash ? path + dir_len : path;
        if (rel[0] != '/' && rel[0]) {
            result = open_under(script_dir, rel, flags);
            err = result < 0 ? errno : 0;
        }
    }
    /* Else the folder it seems to be beneath (an --allow-path one, or the script's through an
     * absolute name), opened from there: a link swapped in meanwhile cannot lead out. */
    if (result < 0 && !reportable(err)) {
        char *real = real_or_parent(path);
        if (!real && errno == ENOMEM) {
            free(script_dir);
            return RE_ERR_NOMEM;
        }
        for (size_t i = 0; real && result < 0 && !reportable(err) && i <= n; i++) {
            const char *root = i == 0 ? script_dir : allowed_dirs[i - 1];
            const char *rel = beneath(real, root);
            if (rel) {
                result = open_under(root, rel, flags);
                err = result < 0 ? errno : 0;
            }
        }
        free(real);
    }
    free(script_dir);
    if (result >= 0) {
        *fd = result;
        return RE_OK;
    }
    if (err == EINTR)
        return RE_ERR_INTERRUPTED;   /* a stop signal ended the wait for a FIFO's writer */
    if (err == ENOMEM)
        return RE_ERR_NOMEM;
    *error = reportable(err) ? err : 0;
    return RE_OK;
}
