/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_files.c - whole files: re_file_read's limits and its two modes (a FIFO is refused in
 * RE_READ_REGULAR before it could block, and read until its writer closes in RE_READ_ANY),
 * re_file_open_regular, re_file_replace (permissions, symlinks, the old file kept on a
 * failed write, no temporary file left), re_path_join and the folder lister. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testdir.h"
#include "testkit.h"
#include "files.h"

static char dir[256];

static char *path_in(const char *name)
{
    char *p = re_path_join(dir, name);
    if (!p)
        abort();
    return p;
}

/* A new file (the old one, maybe read-only, removed first) with these bytes and mode. */
static void write_file(const char *path, const char *data, size_t len, mode_t mode)
{
    (void)unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || write(fd, data, len) != (ssize_t)len || fchmod(fd, mode) != 0 || close(fd) != 0) {
        perror(path);
        abort();
    }
}

/* The file's bytes as a string (its first 4095). */
static const char *contents(const char *path)
{
    static char buf[4096];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n >= 0 ? buf : "(unreadable)";
}

/* Entries of the test folder other than . and .. */
static int entries(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The single diagnostic: PATH:0:0 with this message. */
static void check_diag(re_diagnostics *d, const char *path, const char *message)
{
    CHECK_INT(d->count, 1);
    if (d->count >= 1) {
        CHECK_STR(d->items[0].file, path);
        CHECK_INT(d->items[0].line, 0);
        CHECK_INT(d->items[0].col, 0);
        CHECK_STR(d->items[0].message, message);
    }
    re_diagnostics_free(d);
    re_diagnostics_init(d, 10);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_files: a read blocked (alarm)\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(1);
}

/* ---- re_file_read ------------------------------------------------------------------------- */

static void test_read_regular_files(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    char *p = path_in("ten.txt");
    write_file(p, "0123456789", 10, 0644);
    for (int mode = RE_READ_ANY; mode <= RE_READ_REGULAR; mode++) {
        char *buf = NULL;
        size_t len = 99;
        CHECK_INT(re_file_read(p, 10, (re_file_read_mode)mode, &buf, &len, &d), RE_OK);
        CHECK_INT(len, 10);
        CHECK(buf && memcmp(buf, "0123456789", 11) == 0);   /* with the NUL after it */
        free(buf);
        CHECK_INT(d.count, 0);

        /* one byte over the limit: refused, *out and *len zeroed */
        buf = (char *)"junk";
        len = 99;
        CHECK_INT(re_file_read(p, 9, (re_file_read_mode)mode, &buf, &len, &d), RE_ERR_LIMIT);
        CHECK(buf == NULL);
        CHECK_INT(len, 0);
        check_diag(&d, p, mode == RE_READ_REGULAR ? "larger than 9 bytes"
                                                  : "the file is 10 bytes; the limit is 9 bytes");
    }

    /* an empty file is a buffer holding just the NUL */
    char *empty = path_in("empty.txt");
    write_file(empty, "", 0, 0644);
    char *buf = NULL;
    size_t len = 99;
    CHECK_INT(re_file_read(empty, 0, RE_READ_REGULAR, &buf, &len, &d), RE_OK);
    CHECK(buf != NULL && buf[0] == '\0');
    CHECK_INT(len, 0);
    free(buf);

    /* NUL bytes inside are kept: the length counts them */
    char *nul = path_in("nul.bin");
    write_file(nul, "a\0b", 3, 0644);
    CHECK_INT(re_file_read(nul, 100, RE_READ_ANY, &buf, &len, &d), RE_OK);
    CHECK_INT(len, 3);
    CHECK(buf && memcmp(buf, "a\0b\0", 4) == 0);
    free(buf);

    /* a symlink to a regular file is that file, in both modes */
    char *link = path_in("link.txt");
    CHECK(symlink("ten.txt", link) == 0);
    CHECK_INT(re_file_read(link, 10, RE_READ_REGULAR, &buf, &len, &d), RE_OK);
    CHECK_INT(len, 10);
    free(buf);

    /* missing, a directory, NULL arguments */
    char *missing = path_in("missing.txt");
    CHECK_INT(re_file_read(missing, 10, RE_READ_ANY, &buf, &len, &d), RE_ERR_READ);
    check_diag(&d, missing, "cannot open: No such file or directory");
    CHECK_INT(re_file_read(missing, 10, RE_READ_ANY, &buf, &len, NULL), RE_ERR_READ);
    CHECK_INT(re_file_read(dir, 1000, RE_READ_ANY, &buf, &len, &d), RE_ERR_READ);
    check_diag(&d, dir, "cannot read: it is a directory, not a file");
    CHECK_INT(re_file_read(dir, 1000, RE_READ_REGULAR, &buf, &len, &d), RE_ERR_READ);
    check_diag(&d, dir, "is a directory, not a file");
    CHECK_INT(re_file_read(NULL, 10, RE_READ_ANY, &buf, &len, &d), RE_ERR_INVALID);
    CHECK_INT(re_file_read(p, 10, RE_READ_ANY, NULL, &len, &d), RE_ERR_INVALID);
    CHECK_INT(re_file_read(p, 10, RE_READ_ANY, &buf, NULL, &d), RE_ERR_INVALID);
    CHECK_INT(d.count, 0);

    /* re_file_open_regular: the descriptor and the size */
    int fd = -1;
    uint64_t size = 0;
    CHECK_INT(re_file_open_regular(p, &fd, &size, &d), RE_OK);
    CHECK_INT(size, 10);
    char first[4] = "";
    CHECK(fd >= 0 && read(fd, first, 3) == 3 && memcmp(first, "012", 3) == 0);
    if (fd >= 0)
        close(fd);
    CHECK_INT(re_file_open_regular(dir, &fd, &size, &d), RE_ERR_READ);
    check_diag(&d, dir, "is a directory, not a file");

    unlink(p);
    unlink(empty);
    unlink(nul);
    unlink(link);
    free(p);
    free(empty);
    free(nul);
    free(link);
    free(missing);
    re_diagnostics_free(&d);
}

static void test_read_devices(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    char *buf = NULL;
    size_t len = 0;
    /* RE_READ_ANY reads a device only until it passes the limit */
    CHECK_INT(re_file_read("/dev/zero", 1000, RE_READ_ANY, &buf, &len, &d), RE_ERR_LIMIT);
    check_diag(&d, "/dev/zero", "the file is larger than the limit of 1000 bytes");
    CHECK(buf == NULL);
    CHECK_INT(re_file_read("/dev/null", 1000, RE_READ_ANY, &buf, &len, &d), RE_OK);
    CHECK_INT(len, 0);
    free(buf);
    /* RE_READ_REGULAR refuses devices */
    CHECK_INT(re_file_read("/dev/null", 1000, RE_READ_REGULAR, &buf, &len, &d), RE_ERR_READ);
    check_diag(&d, "/dev/null", "not a regular file");
    re_diagnostics_free(&d);
}

/* A child that opens the FIFO for writing, writes `count` bytes of 'x' and exits. */
static pid_t fifo_writer(const char *fifo, size_t count)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGPIPE, SIG_DFL);
        int fd = open(fifo, O_WRONLY);
        char block[512];
        memset(block, 'x', sizeof block);
        for (size_t done = 0; fd >= 0 && done < count;) {
            size_t n = count - done < sizeof block ? count - done : sizeof block;
            ssize_t w = write(fd, block, n);
            if (w <= 0)
                _exit(2);
            done += (size_t)w;
        }
        _exit(fd >= 0 ? 0 : 1);
    }
    return pid;
}

static void test_read_fifo(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    char *fifo = path_in("pipe");
    CHECK(mkfifo(fifo, 0600) == 0);
    signal(SIGALRM, on_alarm);
    alarm(10);   /* a blocked read fails the test instead of hanging it */

    /* RE_READ_REGULAR: refused at once, with no writer anywhere */
    char *buf = NULL;
    size_t len = 0;
    double started = now();
    CHECK_INT(re_file_read(fifo, 1000, RE_READ_REGULAR, &buf, &len, &d), RE_ERR_READ);
    CHECK(now() - started < 1.0);
    check_diag(&d, fifo, "not a regular file");
    CHECK(buf == NULL);
    int fd = -1;
    uint64_t size = 0;
    CHECK_INT(re_file_open_regular(fifo, &fd, &size, &d), RE_ERR_READ);
    check_diag(&d, fifo, "not a regular file");

    /* RE_READ_ANY: waits for the writer and reads to its end */
    pid_t writer = fifo_writer(fifo, 700);
    CHECK_INT(re_file_read(fifo, 1000, RE_READ_ANY, &buf, &len, &d), RE_OK);
    CHECK_INT(len, 700);
    CHECK(buf && buf[0] == 'x' && buf[699] == 'x' && buf[700] == '\0');
    free(buf);
    int status = -1;
    waitpid(writer, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* ... but only until it passes the limit */
    writer = fifo_writer(fifo, 100000);
    CHECK_INT(re_file_read(fifo, 1000, RE_READ_ANY, &buf, &len, &d), RE_ERR_LIMIT);
    check_diag(&d, fifo, "the file is larger than the limit of 1000 bytes");
    CHECK(buf == NULL);
    CHECK_INT(len, 0);
    kill(writer, SIGTERM);   /* it may still be blocked writing into the full pipe */
    waitpid(writer, &status, 0);

    alarm(0);
    unlink(fifo);
    free(fifo);
    re_diagnostics_free(&d);
}

/* ---- re_file_replace ---------------------------------------------------------------------- */

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

static void test_replace(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    CHECK_INT(entries(), 0);

    /* content replaced, permission bits kept (including unusual ones), a new inode (renamed
     * over, never rewritten in place), and nothing else left in the folder */
    static const mode_t modes[] = { 0640, 0705, 0600, 0444 };
    char *p = path_in("page.md");
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        write_file(p, "old text, longer than the new one\n", 34, modes[i]);
        struct stat before;
        CHECK(stat(p, &before) == 0);
        CHECK_INT(re_file_replace(p, NULL, 0, "new\n", 4, &d), RE_OK);
        CHECK_STR(contents(p), "new\n");
        CHECK_INT(mode_of(p), modes[i]);
        struct stat after;
        CHECK(stat(p, &after) == 0 && after.st_ino != before.st_ino);
        CHECK_INT(after.st_size, 4);
        CHECK_INT(entries(), 1);
    }
    CHECK_INT(d.count, 0);

    /* empty content is allowed (NULL with length 0 too) */
    CHECK_INT(re_file_replace(p, NULL, 0, NULL, 0, &d), RE_OK);
    CHECK_STR(contents(p), "");
    CHECK_INT(re_file_replace(p, NULL, 0, NULL, 3, &d), RE_ERR_INVALID);
    CHECK_INT(re_file_replace(NULL, NULL, 0, "x", 1, &d), RE_ERR_INVALID);

    /* a symlink stays a symlink to the same place; the file it points to is replaced and
     * keeps its mode */
    write_file(p, "through the link\n", 17, 0620);
    char *subdir = path_in("sub");
    CHECK(mkdir(subdir, 0755) == 0);
    char *link = path_in("sub/link.md");
    CHECK(symlink("../page.md", link) == 0);
    CHECK_INT(re_file_replace(link, NULL, 0, "replaced\n", 9, &d), RE_OK);
    struct stat lst;
    CHECK(lstat(link, &lst) == 0 && S_ISLNK(lst.st_mode));
    char target[64] = "";
    CHECK(readlink(link, target, sizeof target - 1) == 10);
    CHECK_STR(target, "../page.md");
    CHECK_STR(contents(p), "replaced\n");
    CHECK_INT(mode_of(p), 0620);
    CHECK_INT(entries(), 2);   /* page.md and sub/ */
    DIR *sub = opendir(subdir);
    int sub_entries = 0;
    for (struct dirent *e; sub && (e = readdir(sub)) != NULL;)
        sub_entries += e->d_name[0] != '.';
    if (sub)
        closedir(sub);
    CHECK_INT(sub_entries, 1);   /* the link alone: the temporary file was beside the target */

    /* a missing file is not created */
    char *missing = path_in("missing.md");
    CHECK_INT(re_file_replace(missing, NULL, 0, "x", 1, &d), RE_ERR_WRITE);
    check_diag(&d, missing, "cannot resolve: No such file or directory");
    CHECK(access(missing, F_OK) != 0);
    /* a dangling symlink neither */
    char *dangling = path_in("sub/dangling.md");
    CHECK(symlink("nowhere.md", dangling) == 0);
    CHECK_INT(re_file_replace(dangling, NULL, 0, "x", 1, &d), RE_ERR_WRITE);
    check_diag(&d, dangling, "cannot resolve: No such file or directory");

    /* a write that fails (the file size limit, like a full disk): the old file is untouched
     * and the temporary file removed */
    write_file(p, "yesterday\n", 10, 0640);
    struct rlimit old_limit;
    CHECK(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    struct rlimit small = { 4096, old_limit.rlim_max };   /* the soft limit only: restorable */
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    static char big[20000];
    memset(big, 'y', sizeof big);
    re_status st = re_file_replace(p, NULL, 0, big, sizeof big, &d);
    CHECK(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    signal(SIGXFSZ, old_handler);
    CHECK_INT(st, RE_ERR_WRITE);
    CHECK_INT(d.count, 1);
    if (d.count == 1) {
        CHECK_STR(d.items[0].file, p);
        CHECK(strstr(d.items[0].message, "File too large") != NULL);
    }
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 10);
    CHECK_STR(contents(p), "yesterday\n");
    CHECK_INT(mode_of(p), 0640);
    CHECK_INT(entries(), 2);

    unlink(dangling);
    unlink(link);
    rmdir(subdir);
    free(subdir);
    unlink(p);
    free(dangling);
    free(missing);
    free(link);
    free(p);
    re_diagnostics_free(&d);
}

static void test_path_join(void)
{
    char *s;
    CHECK_STR(s = re_path_join("out", "ep.mp3"), "out/ep.mp3");
    free(s);
    CHECK_STR(s = re_path_join("out/", "ep.mp3"), "out/ep.mp3");
    free(s);
    CHECK_STR(s = re_path_join("/", "ep.mp3"), "/ep.mp3");
    free(s);
    CHECK_STR(s = re_path_join("a//", "b"), "a//b");
    free(s);
    CHECK_STR(s = re_path_join("out", "sub/ep.mp3"), "out/sub/ep.mp3");
    free(s);
}

/* With `expected`, only a file that still holds it is replaced; a file with another hard link
 * is never replaced. Each refusal leaves the file and the folder as they were. */
static void test_replace_guarded(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    int before = entries();
    char *p = path_in("guarded.md");
    write_file(p, "as read\n", 8, 0644);
    CHECK_INT(re_file_replace(p, "as read\n", 8, "fixed\n", 6, &d), RE_OK);
    CHECK_STR(contents(p), "fixed\n");
    CHECK_INT(re_file_replace(p, "as read\n", 8, "again\n", 6, &d), RE_ERR_WRITE);
    CHECK_STR(contents(p), "fixed\n");
    CHECK(d.count == 1 && strstr(d.items[0].message, "changed while being fixed"));
    /* the whole file must match: a prefix of it does not */
    CHECK_INT(re_file_replace(p, "fix", 3, "x\n", 2, &d), RE_ERR_WRITE);
    CHECK_STR(contents(p), "fixed\n");
    write_file(p, "one\n", 4, 0644);
    char *other = path_in("guarded-link.md");
    CHECK(link(p, other) == 0);
    CHECK_INT(re_file_replace(p, NULL, 0, "two\n", 4, &d), RE_ERR_WRITE);
    CHECK(d.count == 3 && strstr(d.items[2].message, "has 2 hard links"));
    CHECK_STR(contents(p), "one\n");
    CHECK_STR(contents(other), "one\n");
    CHECK(unlink(other) == 0);
    CHECK(unlink(p) == 0);
    CHECK_INT(entries(), before);
    free(p);
    free(other);
    re_diagnostics_free(&d);
}

/* re_open_beneath and its fallback walk agree on every kind of name: links that stay beneath
 * are followed, a name or link that leads out is EXDEV, a loop ELOOP, a missing file ENOENT. */
static void test_open_beneath(void)
{
    char *root = path_in("beneath"), *outside = path_in("outside.txt");
    CHECK_INT(mkdir(root, 0700), 0);
    write_file(outside, "secret", 6, 0600);
    int dirfd = open(root, O_PATH | O_DIRECTORY);
    CHECK(dirfd >= 0);
    CHECK_INT(mkdirat(dirfd, "a", 0700), 0);
    int fd = openat(dirfd, "f", O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0);
    close(fd);
    CHECK_INT(symlinkat("../f", dirfd, "a/back"), 0);        /* stays beneath */
    CHECK_INT(symlinkat("a/back", dirfd, "chain"), 0);       /* two links, still beneath */
    CHECK_INT(symlinkat("../outside.txt", dirfd, "esc"), 0); /* relative, leads out */
    CHECK_INT(symlinkat(outside, dirfd, "abs"), 0);          /* absolute */
    CHECK_INT(symlinkat("loop", dirfd, "loop"), 0);
    CHECK_INT(symlinkat("a/../..", dirfd, "updir"), 0);
    struct { const char *name; int err; } cases[] = {
        { "f", 0 }, { "a/back", 0 }, { "chain", 0 }, { "a/../f", 0 }, { "./a/./back", 0 },
        { "esc", EXDEV }, { "abs", EXDEV }, { "a/../../outside.txt", EXDEV },
        { "../beneath/f", EXDEV }, { "updir/outside.txt", EXDEV }, { "loop", ELOOP },
        { "missing", ENOENT }, { "a/missing", ENOENT }, { "f/", ENOTDIR }, { "f/x", ENOTDIR },
        { outside, EXDEV },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int walk = 0; walk < 2; walk++) {
            errno = 0;
            fd = walk ? re_walk_beneath(dirfd, cases[i].name, O_RDONLY | O_CLOEXEC)
                      : re_open_beneath(dirfd, cases[i].name, O_RDONLY | O_CLOEXEC);
            int err = fd >= 0 ? 0 : errno;
            if (err != cases[i].err)
                fprintf(stderr, "  %s %s: errno %d, want %d\n", walk ? "walk" : "openat2",
                        cases[i].name, err, cases[i].err);
            CHECK_INT(err, cases[i].err);
            if (fd >= 0) {
                char buf[8] = { 0 };
                CHECK_INT((int)read(fd, buf, sizeof buf), 0);   /* f is empty; outside is not */
                close(fd);
            }
        }
    }
    close(dirfd);
    free(root);
    free(outside);
}

/* re_open_owned against open(2) itself: every path of own links opens the file open() opens
 * (same inode); a link whose owner is neither the running user nor root is EPERM with its
 * path and owner, wherever it is on the way. The foreign links need lchown: as root only. */
static void test_open_owned(void)
{
    char *root = path_in("owned");
    CHECK_INT(mkdir(root, 0700), 0);
    int dirfd = open(root, O_PATH | O_DIRECTORY);
    CHECK(dirfd >= 0);
    CHECK_INT(mkdirat(dirfd, "a", 0700), 0);
    CHECK_INT(mkdirat(dirfd, "a/b", 0700), 0);
    int fd = openat(dirfd, "a/b/f", O_WRONLY | O_CREAT, 0600);
    CHECK(fd >= 0);
    close(fd);
    char abs_b[PATH_MAX];
    snprintf(abs_b, sizeof abs_b, "%s/a/b", root);
    CHECK_INT(symlinkat("a/b", dirfd, "rel"), 0);        /* relative, to a folder */
    CHECK_INT(symlinkat(abs_b, dirfd, "abs"), 0);        /* absolute */
    CHECK_INT(symlinkat("../b/f", dirfd, "a/b/up"), 0);  /* ".." after the link's folder */
    CHECK_INT(symlinkat("rel", dirfd, "chain"), 0);      /* a link to a link */
    CHECK_INT(symlinkat("loop", dirfd, "loop"), 0);
    const char *good[] = { "a/b/f", "rel/f", "abs/f", "chain/f", "a/b/up", "rel/up",
                           "rel/../b/f", "./rel//f", "chain/../../a/b/f" };
    struct stat want, got;
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, good[i]);
        CHECK_INT(stat(path, &want), 0);
        fd = re_open_owned(path, O_RDONLY, NULL, NULL);
        if (fd < 0)
            fprintf(stderr, "  %s: errno %d\n", good[i], errno);
        CHECK(fd >= 0 && fstat(fd, &got) == 0 && got.st_ino == want.st_ino);
        if (fd >= 0)
            close(fd);
    }
    struct { const char *name; int flags, err; } bad[] = {
        { "loop", O_RDONLY, ELOOP }, { "missing", O_RDONLY, ENOENT },
        { "a/b/f/x", O_RDONLY, ENOTDIR }, { "a/b/f/", O_RDONLY, ENOTDIR },
        { "rel", O_RDONLY | O_NOFOLLOW, ELOOP },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", root, bad[i].name);
        errno = 0;
        fd = re_open_owned(path, bad[i].flags, NULL, NULL);
        CHECK_INT(fd < 0 ? errno : 0, bad[i].err);
        if (fd >= 0)
            close(fd);
    }
    /* the folder it ends at, opened as a folder */
    snprintf(path, sizeof path, "%s/rel/", root);
    fd = re_open_owned(path, O_PATH | O_DIRECTORY, NULL, NULL);
    CHECK(fd >= 0 && fstat(fd, &got) == 0 && S_ISDIR(got.st_mode));
    if (fd >= 0)
        close(fd);
    /* /proc's magic links (what /dev/stdin leads to) name no path: the kernel follows them */
    int pipe_fds[2];
    CHECK_INT(pipe(pipe_fds), 0);
    CHECK_INT((int)write(pipe_fds[1], "x", 1), 1);
    snprintf(path, sizeof path, "/proc/self/fd/%d", pipe_fds[0]);
    fd = re_open_owned(path, O_RDONLY, NULL, NULL);
    char got_byte = 0;
    CHECK(fd >= 0 && read(fd, &got_byte, 1) == 1 && got_byte == 'x');
    if (fd >= 0)
        close(fd);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (geteuid() == 0) {
        CHECK_INT(symlinkat("a/b", dirfd, "theirs"), 0);
        CHECK_INT(fchownat(dirfd, "theirs", 65534, 65534, AT_SYMLINK_NOFOLLOW), 0);
        CHECK_INT(symlinkat("../theirs/f", dirfd, "a/mine"), 0);   /* mine, through theirs */
        const char *foreign[][2] = { { "theirs/f", "theirs" }, { "a/mine", "theirs" },
                                     { "chain/../../theirs/f", "theirs" } };
        for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", root, foreign[i][0]);
            uid_t owner = 0;
            char *link = NULL;
            errno = 0;
            fd = re_open_owned(path, O_RDONLY, &owner, &link);
            CHECK_INT(fd < 0 ? errno : 0, EPERM);
            CHECK_INT((int)owner, 65534);
            char expect[PATH_MAX];
            snprintf(expect, sizeof expect, "%s/%s", root, foreign[i][1]);
            CHECK_STR(link ? link : "", expect);
            free(link);
            if (fd >= 0)
                close(fd);
        }
    }
    close(dirfd);
    free(root);
}

static int ends_json(const char *name, void *ctx)
{
    size_t n = strlen(name), m = strlen((const char *)ctx);
    return n >= m && strcmp(name + n - m, (const char *)ctx) == 0;
}

/* The one folder lister: every name but . and .., in byte order whatever the creation order,
 * filtered, capped, names only (a dangling link and a FIFO are listed, never followed or
 * opened), and the caller's fd kept and listed alike twice. */
static void test_dir_list(void)
{
    char *folder = path_in("listing");
    CHECK_INT(mkdir(folder, 0700), 0);
    static const char *const made[] = { "b.json", "a.mp3", ".hidden.json", "B.json",
                                        "a.json", "\xc3\xa9.json", "z" };
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) {
        char *p = re_path_join(folder, made[i]);
        write_file(p, "x", 1, 0600);
        free(p);
    }
    char *link = re_path_join(folder, "gone.json"), *fifo = re_path_join(folder, "pipe.json");
    CHECK_INT(symlink("nowhere/at/all", link), 0);
    CHECK_INT(mkfifo(fifo, 0600), 0);
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(fd >= 0);
    char **names = NULL;
    size_t n = 99;
    CHECK_INT(re_dir_list(fd, NULL, NULL, 0, &names, &n), RE_OK);
    static const char *const all[] = { ".hidden.json", "B.json", "a.json", "a.mp3", "b.json",
                                       "gone.json", "pipe.json", "z", "\xc3\xa9.json" };
    CHECK_INT(n, sizeof all / sizeof all[0]);
    for (size_t i = 0; i < n && i < sizeof all / sizeof all[0]; i++)
        CHECK_STR(names[i], all[i]);
    re_dir_names_free(names, n);
    /* again from the same fd, its position at the end of the first listing: the same names */
    char **json = NULL;
    CHECK_INT(re_dir_list(fd, ends_json, ".json", 0, &json, &n), RE_OK);
    CHECK_INT(n, 7);
    if (n == 7) {
        CHECK_STR(json[0], ".hidden.json");
        CHECK_STR(json[6], "\xc3\xa9.json");
    }
    re_dir_names_free(json, n);
    CHECK_INT(re_dir_list(fd, ends_json, ".json", 7, &json, &n), RE_OK);   /* at the cap */
    re_dir_names_free(json, n);
    json = (char **)1;
    CHECK_INT(re_dir_list(fd, ends_json, ".json", 6, &json, &n), RE_ERR_LIMIT);
    CHECK(json == NULL && n == 0);
    CHECK_INT(re_dir_list(fd, ends_json, ".none", 0, &json, &n), RE_OK);
    CHECK(json == NULL && n == 0);
    CHECK(fcntl(fd, F_GETFD) >= 0);   /* still open, still the caller's */
    close(fd);
    errno = 0;
    CHECK_INT(re_dir_list(-1, NULL, NULL, 0, &json, &n), RE_ERR_READ);
    CHECK_INT(errno, EBADF);
    int not_dir = open(fifo, O_RDONLY | O_NONBLOCK);
    CHECK_INT(re_dir_list(not_dir, NULL, NULL, 0, &json, &n), RE_ERR_READ);
    CHECK_INT(errno, ENOTDIR);
    close(not_dir);
    re_dir_names_free(NULL, 0);
    free(link);
    free(fifo);
    free(folder);
}

int main(void)
{
    if (test_temp_dir(dir, sizeof dir, "files") != 0)
        return 1;
    test_read_regular_files();
    test_read_devices();
    test_read_fifo();
    test_replace();
    test_replace_guarded();
    test_path_join();
    test_dir_list();
    test_open_beneath();
    test_open_owned();
    test_remove_tree(dir);
    return check_finish("test_files");
}
