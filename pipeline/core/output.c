/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.c - nameless temporary file beside the target, named and renamed on success (see
 * output.h). The data is written to an O_TMPFILE file, which has no name until it is complete,
 * so even SIGKILL leaves nothing behind; only at publish time does it get a hidden name for the
 * instant before the rename. Filesystems without O_TMPFILE get a hidden named file instead. */
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

struct re_output {
    char *named;         /* the target as the caller named it, for messages */
    char *target;        /* the file replaced: named, with its symlinks followed */
    char *dir;
    char *base;
    char *temp;          /* the hidden name (in dir), once it has one */
    int dirfd;           /* the folder, opened once: every name below is looked up in it */
    FILE *stream;
    int nameless;        /* an O_TMPFILE file, not linked yet */
    int prepared;        /* flushed, synced: ready to publish */
    int direct;          /* written into a special file as it is: nothing to rename */
};

static void output_free(re_output *output)
{
    if (output->dirfd >= 0)
        (void)close(output->dirfd);
    free(output->named);
    free(output->target);
    free(output->dir);
    free(output->base);
    free(output->temp);
    free(output);
}

/* A fresh hidden name beside the target: DIR/.NAME.XXXXXXXX.SUFFIX */
static char *hidden_name_in(const char *dir, const char *base, const char *suffix)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        r = (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)base;
    char *name = NULL;
    if (asprintf(&name, "%s%s.%s.%08llx.%s", dir ? dir : "", dir ? "/" : "", base,
                 (unsigned long long)(r & 0xffffffffu), suffix) < 0)
        return NULL;
    return name;
}

/* The temporary file's name in the folder (no folder: it is looked up in output->dirfd). */
static char *hidden_name(const re_output *output)
{
    return hidden_name_in(NULL, output->base, "part");
}

/* Replaces output->temp with a new hidden name: 0, or -1 with errno ENOMEM. */
static int next_hidden_name(re_output *output)
{
    free(output->temp);
    output->temp = hidden_name(output);
    if (output->temp)
        return 0;
    errno = ENOMEM;
    return -1;
}

static int open_file(re_output *output, mode_t mode)
{
    int fd = openat(output->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    if (fd >= 0) {
        output->nameless = 1;
        return fd;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -1;
    for (int attempt = 0; attempt < 16; attempt++) {   /* no O_TMPFILE here: a hidden name */
        if (next_hidden_name(output) != 0)
            return -1;
        fd = openat(output->dirfd, output->temp, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW
                    | O_CLOEXEC, mode);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* Opens an existing special file to write into it as it is (output->direct): the user's own
 * or root's FIFO or character device only. Another user's would make the program wait for a
 * reader that user controls (for ever, or until they read what is written). The file judged is
 * the one opened: looked at through an O_PATH fd, then reopened through /proc. */
static re_status open_direct(re_output *output, const struct stat *st, re_diagnostics *diag)
{
    const char *named = output->named;
    if (!S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode)) {
        re_diag_add(diag, named, 0, 0, "%s is not a file, a pipe or a character device; "
                    "refusing to write to it", named);
        return RE_ERR_WRITE;
    }
    int path_fd = openat(output->dirfd, output->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat now;
    if (path_fd < 0 || fstat(path_fd, &now) != 0) {
        re_diag_add(diag, named, 0, 0, "cannot open %s: %s", named, strerror(errno));
        if (path_fd >= 0)
            (void)close(path_fd);
        return RE_ERR_WRITE;
    }
    if (now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
        (void)close(path_fd);
        re_diag_add(diag, named, 0, 0, "%s changed while it was being opened; refusing to "
                    "write it", named);
        return RE_ERR_WRITE;
    }
    if (!re_owner_trusted(now.st_uid)) {
        (void)close(path_fd);
        re_diag_add(diag, named, 0, 0, "%s is a %s of another user (uid %ju); refusing to "
                    "write into it (remove it, or choose another name)", named,
                    S_ISFIFO(now.st_mode) ? "FIFO" : "device", (uintmax_t)now.st_uid);
        return RE_ERR_WRITE;
    }
    /* a FIFO waits here for its reader; a stop signal ends the wait (no SA_RESTART) */
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", path_fd);
    int fd = open(proc, O_WRONLY | O_CLOEXEC | O_NOCTTY);
    int err = errno;
    (void)close(path_fd);
    if (fd < 0 && err == EINTR)
        return RE_ERR_INTERRUPTED;
    if (fd < 0 || !(output->stream = fdopen(fd, "wb"))) {
        if (fd >= 0)
            err = errno;
        re_diag_add(diag, named, 0, 0, "cannot open %s: %s", named, strerror(err));
        if (fd >= 0)
            close(fd);
        return RE_ERR_WRITE;
    }
    output->direct = 1;
    return RE_OK;
}

re_status re_output_open(const char *target, re_output **out, re_diagnostics *diag)
{
    return re_output_open_special(target, RE_OUTPUT_REFUSE_SPECIAL, out, diag);
}


/* The target a symlink `named` leads to (*resolved, malloc'ed) and that file's identity, when
 * both the link and the file belong to the running user or root. RE_ERR_WRITE with a
 * message otherwise. */
static re_status follow_link(const char *named, const struct stat *link_st, char **resolved,
                             struct stat *target_st, re_diagnostics *diag)
{
    if (!re_owner_trusted(link_st->st_uid)) {
        re_diag_add(diag, named, 0, 0, "%s is a symlink owned by another user (uid %ju); "
                    "refusing to follow it (remove it, or choose another output name)", named,
                    (uintmax_t)link_st->st_uid);
        return RE_ERR_WRITE;
    }
    *resolved = realpath(named, NULL);
    if (!*resolved || stat(*resolved, target_st) != 0) {
        re_diag_add(diag, named, 0, 0, "%s is a symlink that leads nowhere (%s); refusing "
                    "to replace the link", named, strerror(errno));
        free(*resolved);
        *resolved = NULL;
        return RE_ERR_WRITE;
    }
    if (!re_owner_trusted(target_st->st_uid)) {
        re_diag_add(diag, named, 0, 0, "%s is a symlink to %s, which belongs to another user "
                    "(uid %ju); refusing to replace it", named, *resolved,
                    (uintmax_t)target_st->st_uid);
        free(*resolved);
        *resolved = NULL;
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

re_status re_output_open_special(const char *named, re_output_special special, re_output **out,
                                 re_diagnostics *diag)
{
    *out = NULL;
    struct stat st, lst, linked;
    char *resolved = NULL;
    int is_link = lstat(named, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (is_link) {
        re_status status = follow_link(named, &lst, &resolved, &linked, diag);
        if (status != RE_OK)
            return status;
    }
    const char *target = resolved ? resolved : named;
    re_output *output = calloc(1, sizeof *output);
    if (!output) {
        free(resolved);
        return RE_ERR_NOMEM;
    }
    output->dirfd = -1;
    output->named = strdup(named);
    char *dir_copy = strdup(target), *base_copy = strdup(target);
    output->target = resolved ? resolved : strdup(target);
    output->dir = dir_copy ? strdup(dirname(dir_copy)) : NULL;
    output->base = base_copy ? strdup(basename(base_copy)) : NULL;
    free(dir_copy);
    free(base_copy);
    if (!output->named || !output->target || !output->dir || !output->base) {
        output_free(output);
        return RE_ERR_NOMEM;
    }
    /* The folder is opened once; the file is looked up in it without following a link, so a
     * link planted or swapped in after the checks above is replaced, never written through. */
    uid_t owner;
    char *link;
    output->dirfd = re_open_owned(output->dir, O_PATH | O_DIRECTORY, &owner, &link);
    if (output->dirfd < 0 && errno == EPERM && link) {
        re_diag_add(diag, named, 0, 0, "cannot create a file beside %s: %s is a symlink owned "
                    "by another user (uid %ju); refusing to follow it", named, link,
                    (uintmax_t)owner);
        free(link);
        output_free(output);
        return RE_ERR_WRITE;
    }
    if (output->dirfd < 0) {
        re_diag_add(diag, named, 0, 0, "cannot create a file beside %s: %s", named,
                    strerror(errno));
        output_free(output);
        return RE_ERR_WRITE;
    }
    int have_target = fstatat(output->dirfd, output->base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (have_target && (S_ISLNK(st.st_mode)
                        || (is_link && (st.st_dev != linked.st_dev || st.st_ino != linked.st_ino)))) {
        re_diag_add(diag, named, 0, 0, "%s changed while it was being opened (a symlink was "
                    "put in its place); refusing to write it", named);
        output_free(output);
        return RE_ERR_WRITE;
    }
    if (have_target && S_ISDIR(st.st_mode)) {
        re_diag_add(diag, named, 0, 0, "%s is a directory", named);
        output_free(output);
        return RE_ERR_WRITE;
    }
    if (have_target && !S_ISREG(st.st_mode) && special == RE_OUTPUT_REFUSE_SPECIAL) {
        re_diag_add(diag, named, 0, 0, "%s is not a regular file; an episode's files are written "
                    "by renaming complete files into place, so it would be replaced: choose a "
                    "file name", named);
        output_free(output);
        return RE_ERR_WRITE;
    }
    if (have_target && !S_ISREG(st.st_mode)) {
        re_status status = open_direct(output, &st, diag);
        if (status != RE_OK) {
            output_free(output);
            return status;
        }
        *out = output;
        return RE_OK;
    }
    /* A new file is 0666 & ~umask; a replaced one never more than that (an earlier 0777 or
     * 0666 file is not left world-writable or executable), and no more than it was (a file
     * made private stays private). */
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = 0666 & ~mask;
    if (have_target)
        mode &= st.st_mode;
    int fd = open_file(output, mode);
    if (fd < 0) {
        re_diag_add(diag, named, 0, 0, "cannot create a file beside %s: %s", named,
                    strerror(errno));
        output_free(output);
        return RE_ERR_WRITE;
    }
    (void)fchmod(fd, mode);   /* best effort: O_TMPFILE and umask may differ; content matters */
    output->stream = fdopen(fd, "w+b");
    if (!output->stream) {
        re_diag_add(diag, named, 0, 0, "cannot open a file beside %s: %s", named,
                    strerror(errno));
        close(fd);
        if (output->temp)
            unlinkat(output->dirfd, output->temp, 0);
        output_free(output);
        return RE_ERR_WRITE;
    }
    *out = output;
    return RE_OK;
}

FILE *re_output_stream(re_output *output) { return output->stream; }
const char *re_output_target(const re_output *output) { return output->target; }
int re_output_folder(const re_output *output) { return output->dirfd; }

re_status re_output_size(re_output *output, unsigned long long *size, re_diagnostics *diag)
{
    struct stat st;
    if (fflush(output->stream) != 0 || fstat(fileno(output->stream), &st) != 0) {
        re_diag_add(diag, output->named, 0, 0, "cannot write %s: %s", output->named,
                    strerror(errno));
        return RE_ERR_WRITE;
    }
    *size = (unsigned long long)st.st_size;
    return RE_OK;
}

re_status re_output_restart(re_output *output, re_diagnostics *diag)
{
    if (output->direct) {
        re_diag_add(diag, output->named, 0, 0, "cannot rewrite %s: it is not a regular file",
                    output->named);
        return RE_ERR_WRITE;
    }
    if (fflush(output->stream) != 0 || ftruncate(fileno(output->stream), 0) != 0
        || fseeko(output->stream, 0, SEEK_SET) != 0) {
        re_diag_add(diag, output->named, 0, 0, "cannot rewrite %s: %s", output->named,
                    strerror(errno));
        return RE_ERR_WRITE;
    }
    return RE_OK;
}

re_status re_output_prepare(re_output *output, re_diagnostics *diag)
{
    const char *failed = NULL;
    if (fflush(output->stream) != 0 || ferror(output->stream))
        failed = "write";
    else if (!output->direct && fsync(fileno(output->stream)) != 0)
        failed = "sync";
    if (failed) {
        re_diag_add(diag, output->named, 0, 0, "cannot %s %s: %s", failed, output->named,
                    strerror(errno));
        return RE_ERR_WRITE;
    }
    output->prepared = 1;
    return RE_OK;
}

/* Gives a nameless file its hidden name (linkat through /proc, as open(2) documents). */
static int link_nameless(re_output *output)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fileno(output->stream));
    for (int attempt = 0; attempt < 16; attempt++) {
        if (next_hidden_name(output) != 0)
            return -1;
        if (linkat(AT_FDCWD, proc, output->dirfd, output->temp, AT_SYMLINK_FOLLOW) == 0) {
            output->nameless = 0;
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    free(output->temp);
    output->temp = NULL;
    return -1;
}

re_status re_output_publish(re_output *output, re_diagnostics *diag)
{
    if (!output->prepared)
        return RE_ERR_INVALID;
    if (output->direct) {   /* written into as it is: nothing to name or rename */
        int failed = fclose(output->stream) != 0;
        if (failed)
            re_diag_add(diag, output->named, 0, 0, "cannot write %s: %s", output->named,
                        strerror(errno));
        output_free(output);
        return failed ? RE_ERR_WRITE : RE_OK;
    }
    const char *failed = NULL;
    int saved = 0;
    if (output->nameless && link_nameless(output) != 0) {
        failed = "name";
        saved = errno;
    }
    if (fclose(output->stream) != 0 && !failed) {
        failed = "close";
        saved = errno;
    }
    output->stream = NULL;
    if (!failed && renameat(output->dirfd, output->temp, output->dirfd, output->base) != 0) {
        failed = "rename onto";
        saved = errno;
    }
    if (failed) {
        re_diag_add(diag, output->named, 0, 0, "cannot %s %s: %s", failed, output->named,
                    strerror(saved));
        if (output->temp)
            unlinkat(output->dirfd, output->temp, 0);
        output_free(output);
        return RE_ERR_WRITE;
    }
    output_free(output);
    return RE_OK;
}

re_status re_output_commit(re_output *output, re_diagnostics *diag)
{
    re_status status = re_output_prepare(output, diag);
    if (status != RE_OK) {
        re_output_discard(output);
        return status;
    }
    return re_output_publish(output, diag);
}

void re_output_discard(re_output *output)
{
    if (!output)
        return;
    if (output->stream)
        fclose(output->stream);
    if (output->temp && !output->nameless)
        unlinkat(output->dirfd, output->temp, 0);
    output_free(output);
}

char *re_output_sibling(const char *output_path, const char *suffix)
{
    const char *slash = strrchr(output_path, '/');
    const char *dot = strrchr(output_path, '.');
    size_t stem = (dot && (!slash || dot > slash + 1)) ? (size_t)(dot - output_path)
                                                       : strlen(output_path);
    char *path = NULL;
    if (asprintf(&path, "%.*s%s", (int)stem, output_path, suffix) < 0)
        return NULL;
    return path;
}

re_status re_output_backup(const char *target, char **backup)
{
    *backup = NULL;
    if (access(target, F_OK) != 0)
        return RE_OK;
    char *dir_copy = strdup(target), *base_copy = strdup(target);
    re_status status = dir_copy && base_copy ? RE_OK : RE_ERR_NOMEM;
    for (int attempt = 0; status == RE_OK && attempt < 16; attempt++) {
        char *name = hidden_name_in(dirname(dir_copy), basename(base_copy), "old");
        if (!name) {
            status = RE_ERR_NOMEM;
        } else if (link(target, name) == 0) {
            *backup = name;
            break;
        } else {
            free(name);
            if (errno != EEXIST)
                break;   /* no hard links here: publish without a way back, as before */
        }
        strcpy(dir_copy, target);
        strcpy(base_copy, target);
    }
    free(dir_copy);
    free(base_copy);
    return status;
}

void re_output_restore(const char *target, char *backup)
{
    if (backup) {
        (void)rename(backup, target);   /* best effort: nothing better to do on failure */
        free(backup);
    } else {
        unlink(target);
    }
}

void re_output_drop_backup(char *backup)
{
    if (backup)
        unlink(backup);
    free(backup);
}
