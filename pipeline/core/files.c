/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files.c - whole-file reading and atomic replacement of an existing file (see files.h). */
#define _GNU_SOURCE  /* asprintf, strndup */
#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A path:0:0 diagnostic (when diag is not NULL), and `status`. */
#define file_fail(diag, status, path, ...) re_diag_fail((diag), (status), (path), 0, 0, __VA_ARGS__)

/* ---- reading ------------------------------------------------------------------------------ */

/* Opens path for re_file_read's mode (see files.h): *fd, *size (0 for what is not a regular
 * file) and whether it is one. Each mode keeps the messages it has always used. */
static re_status open_for(const char *path, re_file_read_mode mode, int *fd_out, uint64_t *size,
                          int *regular, re_diagnostics *diag)
{
    int strict = mode == RE_READ_REGULAR;
    /* RE_READ_ANY: a FIFO blocks here until its writer opens it, like any Unix reader; a stop
     * signal ends the wait (exit 130). batch refuses anything that is not a regular file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | (strict ? O_NONBLOCK : 0));
    if (fd < 0 && errno == EINTR)
        return RE_ERR_INTERRUPTED;   /* a stop signal ended the wait for a writer */
    if (fd < 0)
        return file_fail(diag, RE_ERR_READ, path, "cannot open: %s", strerror(errno));
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
    *fd_out = fd;
    *regular = S_ISREG(st.st_mode);
    *size = *regular ? (uint64_t)st.st_size : 0;
    return RE_OK;
}

re_status re_file_open_regular(const char *path, int *fd, uint64_t *size, re_diagnostics *diag)
{
    int regular = 1;
    return open_for(path, RE_READ_REGULAR, fd, size, &regular, diag);
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

/* Writes buf to a new temporary file beside target (its name in *tmp), with target's mode. */
static re_status write_temp(const char *target, const struct stat *st, const char *buf,
                            size_t len, char **tmp, re_diagnostics *diag)
{
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
    if (asprintf(tmp, "%.*s.%s.XXXXXX", (int)dir_len, target, target + dir_len) < 0) {
        *tmp = NULL;
        return RE_ERR_NOMEM;
    }
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        re_status s = file_fail(diag, RE_ERR_WRITE, target, "cannot create a temporary file: %s",
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
        s = file_fail(diag, RE_ERR_WRITE, target, "cannot write %s: %s", *tmp, strerror(err));
    return s;
}

/* Makes the rename durable. Best effort: the new file is in place whatever this returns, so
 * a failure here is not reported. */
static int sync_dir(const char *target)
{
    const char *slash = strrchr(target, '/');
    char *dir = slash ? strndup(target, (size_t)(slash - target) + 1) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    int ok = fd >= 0 && fsync(fd) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    free(dir);
    return ok;
}

/* 1 when the file at `path` holds exactly expected[0..len). */
static int holds(const char *path, const char *expected, size_t len)
{
    char *now = NULL;
    size_t now_len = 0;
    int same = re_file_read(path, len, RE_READ_REGULAR, &now, &now_len, NULL) == RE_OK
               && now_len == len && memcmp(now, expected, len) == 0;
    free(now);
    return same;
}

/* Puts tmp in target's place. With `expected`, only if target still holds it: the two are
 * swapped atomically, the old contents (now under tmp's name) compared, and swapped back when
 * they differ, so an edit saved at any moment before the swap is kept. Where the file system
 * cannot swap (RENAME_EXCHANGE), the comparison is made just before a plain rename. */
static re_status put_in_place(const char *path, const char *target, const char *tmp,
                              const char *expected, size_t expected_len, int *keep_tmp,
                              re_diagnostics *diag)
{
    if (!expected) {
        if (rename(tmp, target) != 0)
            return file_fail(diag, RE_ERR_WRITE, path, "cannot replace: %s", strerror(errno));
        return RE_OK;
    }
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
        if (holds(tmp, expected, expected_len))
            return RE_OK;   /* tmp now names the old file: the caller removes it */
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE) != 0) {
            *keep_tmp = 1;   /* it holds the user's edit */
            return file_fail(diag, RE_ERR_WRITE, path, "changed while being fixed, and the edit "
                             "could not be put back: it is in %s (%s)", tmp, strerror(errno));
        }
        return file_fail(diag, RE_ERR_WRITE, path, "changed while being fixed; left as edited");
    }
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return file_fail(diag, RE_ERR_WRITE, path, "cannot replace: %s", strerror(errno));
    if (!holds(target, expected, expected_len))
        return file_fail(diag, RE_ERR_WRITE, path, "changed while being fixed; left as edited");
    if (rename(tmp, target) != 0)
        return file_fail(diag, RE_ERR_WRITE, path, "cannot replace: %s", strerror(errno));
    return RE_OK;
}

re_status re_file_replace(const char *path, const char *expected, size_t expected_len,
                          const char *buf, size_t len, re_diagnostics *diag)
{
    if (!path || (!buf && len) || (!expected && expected_len))
        return RE_ERR_INVALID;
    char *target = realpath(path, NULL);
    if (!target)
        return file_fail(diag, RE_ERR_WRITE, path, "cannot resolve: %s", strerror(errno));
    struct stat st;
    char *tmp = NULL;
    int keep_tmp = 0;
    re_status s = RE_OK;
    if (stat(target, &st) != 0)
        s = file_fail(diag, RE_ERR_WRITE, path, "cannot stat: %s", strerror(errno));
    else if (st.st_nlink > 1)
        s = file_fail(diag, RE_ERR_WRITE, path, "has %ju hard links; replacing it would leave the "
                      "others with the old text: fix a copy, or remove the other links first",
                      (uintmax_t)st.st_nlink);
    if (s == RE_OK)
        s = write_temp(target, &st, buf, len, &tmp, diag);
    if (s == RE_OK)
        s = put_in_place(path, target, tmp, expected, expected_len, &keep_tmp, diag);
    if (s == RE_OK)
        (void)sync_dir(target);   /* see sync_dir: not an error of the replacement */
    if (tmp && !keep_tmp && unlink(tmp) != 0 && errno != ENOENT && s == RE_OK)
        s = file_fail(diag, RE_ERR_WRITE, path, "cannot remove temporary file %s", tmp);
    free(tmp);
    free(target);
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

/* The real path of `path` (every symlink followed), or of its folder plus its last name when
 * the file does not exist; NULL when neither resolves (errno ENOMEM when memory ran out). */
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

/* 1 when `real` is the folder `dir` (as given, resolved here) or inside it. */
static int within(const char *real, const char *dir)
{
    char *root = realpath(dir, NULL);
    if (!root)
        return 0;
    size_t n = strlen(root);
    int inside = strncmp(real, root, n) == 0
                 && (real[n] == '/' || real[n] == '\0' || (n == 1 && root[0] == '/'));
    free(root);
    return inside;
}

re_status re_path_confined(const char *script_path, const char *path,
                           const char *const *allowed_dirs, size_t n, int *inside)
{
    if (!script_path || !path || !inside || (n > 0 && !allowed_dirs))
        return RE_ERR_INVALID;
    *inside = 1;
    char *real = real_or_parent(path);
    if (!real)
        return errno == ENOMEM ? RE_ERR_NOMEM : RE_OK;
    const char *slash = strrchr(script_path, '/');
    char *script_dir = slash ? strndup(script_path, (size_t)(slash - script_path + 1))
                             : strdup(".");
    if (!script_dir) {
        free(real);
        return RE_ERR_NOMEM;
    }
    int allowed = within(real, script_dir);
    for (size_t i = 0; !allowed && i < n; i++)
        allowed = within(real, allowed_dirs[i]);
    free(real);
    free(script_dir);
    *inside = allowed;
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
