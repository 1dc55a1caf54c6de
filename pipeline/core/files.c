/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files.c - paths whose links belong to the running user, whole-file reading, atomic
 * replacement of an existing file and a folder's names (see files.h; opening beneath a folder
 * is in beneath.c). */
#define _GNU_SOURCE  /* asprintf, strndup */
#include "files.h"
#include "files_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

/* A path:0:0 diagnostic (when diag is not NULL), and `status`. */
#define file_fail(diag, status, path, ...) re_diag_fail((diag), (status), (path), 0, 0, __VA_ARGS__)

const char *re_path_next_name(const char *p, char name[NAME_MAX + 1])
{
    const char *end = strchr(p, '/');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    name[0] = '\0';
    if (n > NAME_MAX)
        return NULL;
    memcpy(name, p, n);
    name[n] = '\0';
    const char *rest = p + n;
    while (*rest == '/')
        rest++;
    return rest;
}

/* ---- paths whose links belong to the running user ---------------------------------------- */

#define OWNED_MAX_LINKS 40

int re_owner_trusted(uid_t uid)
{
    return uid == geteuid() || uid == 0;
}

int re_fd_foreign(int fd, uid_t *owner)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    if (re_owner_trusted(st.st_uid))
        return 0;
    if (owner)
        *owner = st.st_uid;
    return 1;
}

/* Appends "/" (when needed) and the n bytes of name to the malloc'ed *s. 0, or -1 (ENOMEM). */
static int append_name(char **s, const char *name, size_t n)
{
    size_t len = strlen(*s);
    int slash = len > 0 && (*s)[len - 1] != '/';
    char *grown = realloc(*s, len + (size_t)slash + n + 1);
    if (!grown)
        return -1;
    if (slash)
        grown[len++] = '/';
    memcpy(grown + len, name, n);
    grown[len + n] = '\0';
    *s = grown;
    return 0;
}

/* Takes the last name off the walked path s ("a/b" -> "a", "/a" -> "/"), for a "..": 1, or 0
 * when there is none to take ("", "/", a path ending in ".."), and ".." is to be added. */
static int walk_up(char *s)
{
    char *last = strrchr(s, '/');
    const char *name = last ? last + 1 : s;
    if (!*s || strcmp(s, "/") == 0 || strcmp(name, "..") == 0)
        return 0;
    if (!last)
        s[0] = '\0';
    else
        last[last == s ? 1 : 0] = '\0';
    return 1;
}

int re_open_owned(const char *path, int flags, uid_t *owner, char **link)
{
    if (owner)
        *owner = 0;
    if (link)
        *link = NULL;
    char *todo = strdup(path), *walked = strdup(*path == '/' ? "/" : "");
    int cur = open(*path == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int fd = -1, err = 0, links = 0;
    if (!todo || !walked)
        err = ENOMEM;
    else if (cur < 0)
        err = errno;
    const char *p = todo;
    while (!err) {
        while (*p == '/')
            p++;
        if (!*p) {   /* the name ends at a folder ("/", "sub/") */
            fd = openat(cur, ".", (flags & ~O_NOFOLLOW) | O_CLOEXEC);
            err = fd < 0 ? errno : 0;
            break;
        }
        char name[NAME_MAX + 1];
        const char *rest = re_path_next_name(p, name);
        size_t n = strlen(name);
        if (!rest) {
            err = ENAMETOOLONG;
            break;
        }
        int last = !*rest;
        int last_flags = flags | (rest > p + n ? O_DIRECTORY : 0);   /* "name/" is a folder */
        struct stat st;
        int kernel = 0;   /* a link the kernel follows: /proc's magic links */
        if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
            if (fstatat(cur, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                err = errno;
                break;
            }
            int follow = S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW));
            if (follow) {
                if (!re_owner_trusted(st.st_uid)) {
                    err = EPERM;
                    if (owner)
                        *owner = st.st_uid;
                    if (link && append_name(&walked, name, n) == 0) {
                        *link = walked;
                        walked = NULL;
                    }
                    break;
                }
                struct statfs fs;
                kernel = fstatfs(cur, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
            }
            if (follow && !kernel) {
                char target[PATH_MAX];
                ssize_t len = readlinkat(cur, name, target, sizeof target - 1);
                if (len <= 0 || ++links > OWNED_MAX_LINKS) {
                    err = len < 0 ? errno : len == 0 ? ENOENT : ELOOP;
                    break;
                }
                target[len] = '\0';
                char *next = NULL;
                if (asprintf(&next, "%s%s%s", target, rest > p + n ? "/" : "", rest) < 0) {
                    err = ENOMEM;
                    break;
                }
                free(todo);
                todo = next;
                p = todo;
                if (target[0] == '/') {   /* an absolute link: the walk starts again at / */
                    int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
                    if (root < 0) {
                        err = errno;
                        break;
                    }
                    (void)close(cur);
                    cur = root;
                    walked[0] = '\0';
                    if (append_name(&walked, "/", 1) != 0) {
                        err = ENOMEM;
                        break;
                    }
                }
                continue;
            }
        }
        /* Opened without following: a link swapped in since the check above is not opened
         * through; it is looked at again, as a link, on the next turn. A magic link of /proc
         * (/dev/stdin's /proc/self/fd/0: "pipe:[N]" is no path) is the kernel's to follow;
         * /proc's links belong to the process's own user or root. */
        int nofollow = kernel ? 0 : O_NOFOLLOW;
        int next = last ? openat(cur, name, last_flags | nofollow | O_CLOEXEC)
                        : openat(cur, name, O_PATH | O_DIRECTORY | nofollow | O_CLOEXEC);
        struct stat now;
        if (next >= 0 && !kernel && !(last && (flags & O_NOFOLLOW)) && fstat(next, &now) == 0
            && S_ISLNK(now.st_mode)) {
            (void)close(next);
            next = -1;
            errno = ELOOP;
        }
        if (next < 0 && !kernel && (errno == ELOOP || errno == ENOTDIR) && !(last && (flags & O_NOFOLLOW))
            && ++links <= OWNED_MAX_LINKS && fstatat(cur, name, &now, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISLNK(now.st_mode))
            continue;   /* it became a link: judged as one */
        if (next < 0) {
            err = errno;
            break;
        }
        if (last) {
            fd = next;
            break;
        }
        (void)close(cur);
        cur = next;
        int taken = strcmp(name, "..") == 0 && walk_up(walked);
        if (!taken && strcmp(name, ".") != 0 && append_name(&walked, name, n) != 0) {
            err = ENOMEM;
            break;
        }
        p = rest;
    }
    if (cur >= 0)
        (void)close(cur);
    free(todo);
    free(walked);
    if (fd < 0)
        errno = err;
    return fd;
}

/* ---- reading ------------------------------------------------------------------------------ */

/* Checks an fd opened for re_file_read's mode (see files.h): *size (0 for what is not a
 * regular file) and whether it is one; the fd is closed on failure. Each mode keeps the
 * messages it has always used. */
static re_status check_opened(int fd, const char *path, re_file_read_mode mode, uint64_t *size,
                              int *regular, re_diagnostics *diag)
{
    int strict = mode == RE_READ_REGULAR;
    struct stat st;
    re_status status = RE_OK;
    if (fstat(fd, &st) != 0)
        status = file_fail(diag, RE_ERR_READ, path, "%s: %s",
                           strict ? "cannot stat" : "cannot read", strerror(errno));
    else if (S_ISDIR(st.st_mode))
        status = file_fail(diag, RE_ERR_READ, path, "%s",
                           strict ? "is a directory, not a file"
                                  : "cannot read: it is a directory, not a file");
    else if (strict && !S_ISREG(st.st_mode))
        status = file_fail(diag, RE_ERR_READ, path, "not a regular file");
    else if (strict && fcntl(fd, F_SETFL, 0) != 0)   /* blocking reads from here on */
        status = file_fail(diag, RE_ERR_READ, path, "cannot read: %s", strerror(errno));
    if (status != RE_OK) {
        (void)close(fd);   /* already failing: the first reason is the one to report */
        return status;
    }
    *regular = S_ISREG(st.st_mode);
    *size = *regular ? (uint64_t)st.st_size : 0;
    return RE_OK;
}

/* Opens path for re_file_read's mode: *fd, *size and whether it is a regular file. */
static re_status open_for(const char *path, re_file_read_mode mode, int *fd_out, uint64_t *size,
                          int *regular, re_diagnostics *diag)
{
    int strict = mode == RE_READ_REGULAR;
    /* RE_READ_ANY: a FIFO blocks here until its writer opens it, like any Unix reader; a stop
     * signal ends the wait (exit 130). batch refuses anything that is not a regular file. */
    uid_t owner;
    char *link;
    int fd = re_open_owned(path, O_RDONLY | (strict ? O_NONBLOCK : 0), &owner, &link);
    if (fd < 0 && errno == EINTR)
        return RE_ERR_INTERRUPTED;   /* a stop signal ended the wait for a writer */
    if (fd < 0 && errno == EPERM && link) {
        re_status status = file_fail(diag, RE_ERR_READ, path, "cannot open: %s is a symlink "
                                     "owned by another user (uid %ju); refusing to follow it",
                                     link, (uintmax_t)owner);
        free(link);
        return status;
    }
    if (fd < 0)
        return file_fail(diag, RE_ERR_READ, path, "cannot open: %s", strerror(errno));
    re_status status = check_opened(fd, path, mode, size, regular, diag);
    if (status == RE_OK)
        *fd_out = fd;
    return status;
}

re_status re_file_open_regular(const char *path, int *fd, uint64_t *size, re_diagnostics *diag)
{
    int regular = 1;
    return open_for(path, RE_READ_REGULAR, fd, size, &regular, diag);
}

re_status re_file_check_regular(int fd, const char *path, uint64_t *size, re_diagnostics *diag)
{
    int regular = 1;
    return check_opened(fd, path, RE_READ_REGULAR, size, &regular, diag);
}

/* Reads fd to its end into a NUL-terminated buffer of initial capacity cap (>= 2), growing it
 * as needed; stops early with *over set once more than `limit` bytes came, so a huge pipe is
 * never read whole. RE_ERR_READ keeps the read's errno. */
static re_status read_to_end(int fd, size_t limit, size_t cap, char **out, size_t *len,
                             int *over)
{
    size_t used = 0;
    char *buf = malloc(cap);
    re_status status = RE_OK;
    *over = 0;
    if (!buf)
        return RE_ERR_NOMEM;
    while (used <= limit) {
        if (cap - used < 2) {
            char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                status = RE_ERR_NOMEM;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t want = cap - used - 1;
        if (want > limit + 1 - used)
            want = limit + 1 - used;
        ssize_t got = read(fd, buf + used, want);
        if (got < 0 && errno == EINTR) {
            status = RE_ERR_INTERRUPTED;   /* a stop signal ended the wait for a pipe's data */
            break;
        }
        if (got < 0) {
            status = RE_ERR_READ;
            break;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    if (status == RE_OK && used > limit)
        *over = 1;
    if (status != RE_OK || *over) {
        int saved = errno;   /* free must not hide the read error's reason */
        free(buf);
        errno = saved;
        return status;
    }
    buf[used] = '\0';
    *out = buf;
    *len = used;
    return RE_OK;
}

/* re_file_read once the file is open and checked (the fd is closed here). */
static re_status read_opened(int fd, const char *path, uint64_t size, int regular,
                             size_t max_size, re_file_read_mode mode, char **out, size_t *len,
                             re_diagnostics *diag)
{
    re_status st = RE_OK;
    /* Each mode keeps the words it has always used for the limit. */
    if (size > max_size && mode == RE_READ_REGULAR)
        st = file_fail(diag, RE_ERR_LIMIT, path, "larger than %zu bytes", max_size);
    else if (size > max_size)
        st = file_fail(diag, RE_ERR_LIMIT, path, "the file is %ju bytes; the limit is %zu bytes",
                       (uintmax_t)size, max_size);
    int over = 0;
    if (st == RE_OK) {
        /* a regular file is read in one go, and must not grow past the size it had */
        size_t limit = mode == RE_READ_REGULAR ? (size_t)size : max_size;
        st = read_to_end(fd, limit, regular ? (size_t)size + 2 : 4096, out, len, &over);
        if (st == RE_ERR_READ)
            st = file_fail(diag, RE_ERR_READ, path, "cannot read: %s", strerror(errno));
    }
    if (over && mode == RE_READ_REGULAR)
        st = file_fail(diag, RE_ERR_READ, path, "changed while being read");
    else if (over)
        st = file_fail(diag, RE_ERR_LIMIT, path, "the file is larger than the limit of %zu bytes",
                       max_size);
    if (close(fd) != 0 && st == RE_OK)
        st = file_fail(diag, RE_ERR_READ, path, "cannot close: %s", strerror(errno));
    if (st != RE_OK) {
        free(*out);
        *out = NULL;
        *len = 0;
    }
    return st;
}

re_status re_file_read(const char *path, size_t max_size, re_file_read_mode mode, char **out,
                       size_t *len, re_diagnostics *diag)
{
    if (!path || !out || !len)
        return RE_ERR_INVALID;
    *out = NULL;
    *len = 0;
    int fd = -1, regular = 1;
    uint64_t size = 0;
    re_status st = open_for(path, mode, &fd, &size, &regular, diag);
    if (st != RE_OK)
        return st;
    return read_opened(fd, path, size, regular, max_size, mode, out, len, diag);
}

int re_open_trusted(const char *path, int flags, uid_t *owner)
{
    uid_t who = 0;
    char *link = NULL;
    int fd = re_open_owned(path, flags, &who, &link);
    int foreign = fd >= 0 ? re_fd_foreign(fd, &who) : 0;
    int err = errno;
    if (fd >= 0 && foreign != 0) {
        (void)close(fd);
        fd = -1;
        err = foreign < 0 ? err : EPERM;
    } else if (fd < 0 && err == EPERM && !link) {
        err = EACCES;   /* EPERM from the system, not another user's link */
    }
    free(link);
    if (fd < 0 && err == EPERM && owner)
        *owner = who;
    errno = err;
    return fd;
}

re_status re_file_read_trusted(const char *path, size_t max_size, re_file_read_mode mode,
                               char **out, size_t *len, uid_t *owner, re_diagnostics *diag)
{
    if (!path || !out || !len)
        return RE_ERR_INVALID;
    *out = NULL;
    *len = 0;
    /* never waits here: a FIFO is judged by its owner before anyone's writer is waited for */
    int fd = re_open_trusted(path, O_RDONLY | O_NONBLOCK | O_NOCTTY, owner);
    if (fd < 0 && errno == EPERM)
        return RE_OK;   /* another user's file, or their link on the way: theirs */
    if (fd < 0)
        return file_fail(diag, RE_ERR_READ, path, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        (void)close(fd);
        return file_fail(diag, RE_ERR_READ, path, "cannot stat: %s", strerror(err));
    }
    if (mode == RE_READ_ANY && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        /* the user's own FIFO: this very file reopened to wait for its writer, as any Unix
         * reader would (a stop signal ends the wait) */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        int waited = open(proc, O_RDONLY | O_NOCTTY | O_CLOEXEC);
        int err = errno;
        (void)close(fd);
        if (waited < 0 && err == EINTR)
            return RE_ERR_INTERRUPTED;
        if (waited < 0)
            return file_fail(diag, RE_ERR_READ, path, "cannot open: %s", strerror(err));
        fd = waited;
    } else if (fcntl(fd, F_SETFL, 0) != 0) {   /* blocking reads from here on */
        int err = errno;
        (void)close(fd);
        return file_fail(diag, RE_ERR_READ, path, "cannot read: %s", strerror(err));
    }
    return re_file_read_fd(fd, path, max_size, mode, out, len, diag);
}

re_status re_file_read_fd(int fd, const char *path, size_t max_size, re_file_read_mode mode,
                          char **out, size_t *len, re_diagnostics *diag)
{
    if (fd < 0 || !path || !out || !len)
        return RE_ERR_INVALID;
    *out = NULL;
    *len = 0;
    int regular = 1;
    uint64_t size = 0;
    re_status st = check_opened(fd, path, mode, &size, &regular, diag);
    if (st != RE_OK)
        return st;
    return read_opened(fd, path, size, regular, max_size, mode, out, len, diag);
}

/* ---- atomic replacement ------------------------------------------------------------------- */

static re_status write_all(int fd, const char *buf, size_t len)
{
    size_t n = 0;
    while (n < len) {
        ssize_t w = write(fd, buf + n, len - n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return RE_ERR_WRITE;
        n += (size_t)w;
    }
    return RE_OK;
}

/* The file being replaced: its folder (opened by re_open_owned, all work done beneath it), its
 * name there, and the folder's path for messages. */
typedef struct replaced {
    const char *path;   /* as the caller named it */
    int dir;
    char *dir_path;
    char *base;
} replaced;

/* Writes buf to a new hidden file beside the target (its name in *tmp), with the target's mode
 * and owner. */
static re_status write_temp(const replaced *t, const struct stat *st, const char *buf,
                            size_t len, char **tmp, re_diagnostics *diag)
{
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    int fd = -1;
    *tmp = NULL;
    for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            memset(r, attempt, sizeof r);
        char suffix[7];
        for (size_t i = 0; i < 6; i++)
            suffix[i] = letters[r[i] % (sizeof letters - 1)];
        suffix[6] = '\0';
        free(*tmp);
        if (asprintf(tmp, ".%s.%s", t->base, suffix) < 0) {
            *tmp = NULL;
            return RE_ERR_NOMEM;
        }
        fd = openat(t->dir, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        re_status s = file_fail(diag, RE_ERR_WRITE, t->path, "cannot create a temporary file: %s",
                                strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return s;
    }
    re_status s = write_all(fd, buf, len);
    if (s == RE_OK && fchmod(fd, st->st_mode & 07777) != 0)
        s = RE_ERR_WRITE;
    if (s == RE_OK && (st->st_uid != geteuid() || st->st_gid != getegid())
        && fchown(fd, st->st_uid, st->st_gid) != 0 && errno != EPERM)
        s = RE_ERR_WRITE;
    if (s == RE_OK && fsync(fd) != 0)
        s = RE_ERR_WRITE;
    int err = errno;
    if (close(fd) != 0 && s == RE_OK) {
        s = RE_ERR_WRITE;
        err = errno;
    }
    if (s != RE_OK)
        s = file_fail(diag, RE_ERR_WRITE, t->path, "cannot write %s/%s: %s", t->dir_path, *tmp,
                      strerror(err));
    return s;
}

/* Makes the rename durable. Best effort: the new file is in place whatever this returns, so
 * a failure here is not reported. */
static int sync_dir(int dir)
{
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int ok = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    return ok;
}

/* 1 when the regular file `name` in the folder dir holds exactly expected[0..len). */
static int holds(int dir, const char *name, const char *expected, size_t len)
{
    char *now = NULL;
    size_t now_len = 0;
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    int same = fd >= 0 && re_file_read_fd(fd, name, len, RE_READ_REGULAR, &now, &now_len, NULL)
                          == RE_OK
               && now_len == len && memcmp(now, expected, len) == 0;
    free(now);
    return same;
}

/* Puts tmp in the target's place. With `expected`, only if the target still holds it: the two
 * are swapped atomically, the old contents (now under tmp's name) compared, and swapped back
 * when they differ, so an edit saved at any moment before the swap is kept. Where the file
 * system cannot swap (RENAME_EXCHANGE), the comparison is made just before a plain rename. */
static re_status put_in_place(const replaced *t, const char *tmp, const char *expected,
                              size_t expected_len, int *keep_tmp, re_diagnostics *diag)
{
    if (!expected) {
        if (renameat(t->dir, tmp, t->dir, t->base) != 0)
            return file_fail(diag, RE_ERR_WRITE, t->path, "cannot replace: %s", strerror(errno));
        return RE_OK;
    }
    if (renameat2(t->dir, tmp, t->dir, t->base, RENAME_EXCHANGE) == 0) {
        if (holds(t->dir, tmp, expected, expected_len))
            return RE_OK;   /* tmp now names the old file: the caller removes it */
        if (renameat2(t->dir, tmp, t->dir, t->base, RENAME_EXCHANGE) != 0) {
            *keep_tmp = 1;   /* it holds the user's edit */
            return file_fail(diag, RE_ERR_WRITE, t->path, "changed while being fixed, and the "
                             "edit could not be put back: it is in %s/%s (%s)", t->dir_path, tmp,
                             strerror(errno));
        }
        return file_fail(diag, RE_ERR_WRITE, t->path, "changed while being fixed; left as edited");
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return file_fail(diag, RE_ERR_WRITE, t->path, "cannot replace: %s", strerror(errno));
    if (!holds(t->dir, t->base, expected, expected_len))
        return file_fail(diag, RE_ERR_WRITE, t->path, "changed while being fixed; left as edited");
    if (renameat(t->dir, tmp, t->dir, t->base) != 0)
        return file_fail(diag, RE_ERR_WRITE, t->path, "cannot replace: %s", strerror(errno));
    return RE_OK;
}

/* Finds the file `path` names as re_open_owned does (the symlinks of the running user and root
 * followed, another user's refused, anywhere in the path), and opens its real folder the same
 * way: *st is the file's, and t names it in that folder. */
static re_status find_replaced(const char *path, replaced *t, struct stat *st,
                               re_diagnostics *diag)
{
    uid_t owner;
    char *link;
    int file = re_open_owned(path, O_PATH, &owner, &link);
    if (file < 0 && errno == EPERM && link) {
        re_status s = file_fail(diag, RE_ERR_WRITE, path, "cannot replace: %s is a symlink owned "
                                "by another user (uid %ju); refusing to follow it", link,
                                (uintmax_t)owner);
        free(link);
        return s;
    }
    if (file < 0)
        return file_fail(diag, RE_ERR_WRITE, path, "cannot resolve: %s", strerror(errno));
    char proc[64], real[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", file);
    ssize_t n = fstat(file, st) == 0 ? readlink(proc, real, sizeof real - 1) : -1;
    int err = errno;
    (void)close(file);
    if (n <= 0 || real[0] != '/')
        return file_fail(diag, RE_ERR_WRITE, path, "cannot resolve: %s",
                         strerror(n < 0 ? err : ENOENT));
    real[n] = '\0';
    char *slash = strrchr(real, '/');
    t->base = strdup(slash + 1);
    t->dir_path = slash == real ? strdup("/") : strndup(real, (size_t)(slash - real));
    if (!t->base || !t->dir_path)
        return RE_ERR_NOMEM;
    /* the real path, walked again: a folder on it swapped since for another user's link is
     * refused, never followed */
    t->dir = re_open_owned(t->dir_path, O_PATH | O_DIRECTORY, &owner, &link);
    if (t->dir < 0 && errno == EPERM && link) {
        re_status s = file_fail(diag, RE_ERR_WRITE, path, "cannot replace: %s is a symlink owned "
                                "by another user (uid %ju); refusing to follow it", link,
                                (uintmax_t)owner);
        free(link);
        return s;
    }
    struct stat now;
    if (t->dir < 0 || fstatat(t->dir, t->base, &now, AT_SYMLINK_NOFOLLOW) != 0)
        return file_fail(diag, RE_ERR_WRITE, path, "cannot resolve: %s", strerror(errno));
    if (now.st_dev != st->st_dev || now.st_ino != st->st_ino)
        return file_fail(diag, RE_ERR_WRITE, path, "changed while being fixed (it was moved or "
                         "replaced); left as it is");
    return RE_OK;
}

re_status re_file_replace(const char *path, const char *expected, size_t expected_len,
                          const char *buf, size_t len, re_diagnostics *diag)
{
    if (!path || (!buf && len) || (!expected && expected_len))
        return RE_ERR_INVALID;
    replaced t = { path, -1, NULL, NULL };
    struct stat st;
    char *tmp = NULL;
    int keep_tmp = 0;
    re_status s = find_replaced(path, &t, &st, diag);
    if (s == RE_OK && !S_ISREG(st.st_mode))
        s = file_fail(diag, RE_ERR_WRITE, path, "cannot replace: not a regular file");
    else if (s == RE_OK && st.st_nlink > 1)
        s = file_fail(diag, RE_ERR_WRITE, path, "has %ju hard links; replacing it would leave the "
                      "others with the old text: fix a copy, or remove the other links first",
                      (uintmax_t)st.st_nlink);
    if (s == RE_OK)
        s = write_temp(&t, &st, buf, len, &tmp, diag);
    if (s == RE_OK)
        s = put_in_place(&t, tmp, expected, expected_len, &keep_tmp, diag);
    if (s == RE_OK)
        (void)sync_dir(t.dir);   /* see sync_dir: not an error of the replacement */
    if (tmp && !keep_tmp && unlinkat(t.dir, tmp, 0) != 0 && errno != ENOENT && s == RE_OK)
        s = file_fail(diag, RE_ERR_WRITE, path, "cannot remove temporary file %s/%s", t.dir_path,
                      tmp);
    if (t.dir >= 0)
        (void)close(t.dir);
    free(tmp);
    free(t.dir_path);
    free(t.base);
    return s;
}

char *re_path_join(const char *dir, const char *name)
{
    char *path = NULL;
    size_t n = strlen(dir);
    if (asprintf(&path, "%s%s%s", dir, n > 0 && dir[n - 1] == '/' ? "" : "/", name) < 0)
        return NULL;
    return path;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void re_dir_names_free(char **names, size_t count)
{
    for (size_t i = 0; names && i < count; i++)
        free(names[i]);
    free(names);
}

re_status re_dir_list(int dir_fd, re_dir_keep keep, void *ctx, size_t max, char ***names,
                      size_t *count)
{
    *names = NULL;
    *count = 0;
    int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int err = errno;
        if (fd >= 0)
            (void)close(fd);
        errno = err;
        return RE_ERR_READ;
    }
    rewinddir(d);   /* the duplicate shares the caller's position, wherever it was left */
    char **list = NULL;
    size_t n = 0, capacity = 0;
    re_status status = RE_OK;
    int err = 0;
    while (status == RE_OK) {
        errno = 0;
        struct dirent *entry = readdir(d);
        if (!entry) {
            err = errno;
            status = err ? RE_ERR_READ : RE_OK;
            break;
        }
        const char *name = entry->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || (keep && !keep(name, ctx)))
            continue;
        if (max && n >= max)
            status = RE_ERR_LIMIT;
        else if (re_array_grow(&list, &capacity, n, sizeof *list) != RE_OK
                 || !(list[n] = strdup(name)))
            status = RE_ERR_NOMEM;
        else
            n++;
    }
    closedir(d);
    if (status != RE_OK) {
        re_dir_names_free(list, n);
        errno = err;
        return status;
    }
    if (n > 1)
        qsort(list, n, sizeof *list, by_name);
    *names = list;
    *count = n;
    return RE_OK;
}

re_status re_path_beside(const char *script_path, const char *value, char **out)
{
    if (!script_path || !value || !out)
        return RE_ERR_INVALID;
    const char *slash = strrchr(script_path, '/');
    int dir_len = value[0] == '/' || !slash ? 0 : (int)(slash - script_path + 1);
    if (asprintf(out, "%.*s%s", dir_len, script_path, value) < 0) {
        *out = NULL;
        return RE_ERR_NOMEM;
    }
    return RE_OK;
}

re_status re_pread_all(int fd, void *buf, size_t n, off_t at)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = pread(fd, p, n, at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return RE_ERR_READ;
        p += got;
        at += got;
        n -= (size_t)got;
    }
    return RE_OK;
}

re_status re_fd_sha256(int fd, volatile sig_atomic_t *stop, uint64_t *bytes,
                       unsigned char digest[RE_SHA256_SIZE])
{
    enum { CHUNK = 1 << 16 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf)
        return RE_ERR_NOMEM;
    re_sha256_ctx ctx;
    re_sha256_init(&ctx);
    uint64_t total = 0;
    re_status status = RE_OK;
    for (;;) {
        if (stop && *stop) {
            status = RE_ERR_INTERRUPTED;
            break;
        }
        ssize_t got = pread(fd, buf, CHUNK, (off_t)total);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            status = RE_ERR_READ;
        if (got <= 0)
            break;
        re_sha256_update(&ctx, buf, (size_t)got);
        total += (uint64_t)got;
    }
    re_sha256_final(&ctx, digest);
    free(buf);
    *bytes = total;
    return status;
}

re_status re_pwrite_all(int fd, const void *buf, size_t n, off_t at)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t put = pwrite(fd, p, n, at);
        if (put < 0 && errno == EINTR)
            continue;
        if (put <= 0)
            return RE_ERR_WRITE;
        p += put;
        at += put;
        n -= (size_t)put;
    }
    return RE_OK;
}
