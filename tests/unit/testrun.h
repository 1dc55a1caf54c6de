/* SPDX-License-Identifier: GPL-3.0-or-later */
/* testrun.h - running another program from a unit test (ffmpeg, mpg123, python3 with
 * mutagen, espeak-ng: the tools we did not write that make test input or judge our files),
 * collecting its output, and reading a file whole. */
#ifndef RE_TESTRUN_H
#define RE_TESTRUN_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct bytes {
    unsigned char *data;
    size_t len;
} bytes;

/* Runs argv (no shell), collecting what it writes to `fd`: STDOUT_FILENO (its stderr goes to
 * ours) or STDERR_FILENO (its stdin and stdout are /dev/null). out->data is malloc'ed and
 * NUL-terminated. Returns the exit status, or -1 if it could not be started or was killed. */
static inline int run_collect(char *const argv[], int fd, bytes *out)
{
    int fds[2];
    out->data = NULL;
    out->len = 0;
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        if (fd == STDERR_FILENO) {
            int null = open("/dev/null", O_RDWR);
            if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0)
                _exit(127);
        }
        if (dup2(fds[1], fd) < 0)
            _exit(127);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    size_t capacity = 0;
    int failed = 0;
    for (;;) {
        if (out->len == capacity) {
            size_t grown = capacity ? capacity * 2 : 65536;
            unsigned char *data = realloc(out->data, grown + 1);
            if (!data) {
                failed = 1;
                break;
            }
            out->data = data;
            capacity = grown;
        }
        ssize_t n = read(fds[0], out->data + out->len, capacity - out->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            failed = n < 0;
            break;
        }
        out->len += (size_t)n;
    }
    close(fds[0]);
    if (out->data)
        out->data[out->len] = '\0';
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return -1;
    }
    if (failed || !WIFEXITED(status))
        return -1;
    if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "%s exited with %d\n", argv[0], WEXITSTATUS(status));
    return WEXITSTATUS(status);
}

/* run_collect of its stdout. */
static inline int run_capture(char *const argv[], bytes *out)
{
    return run_collect(argv, STDOUT_FILENO, out);
}

/* The whole file into out (malloc'ed, one spare byte); 0 when it cannot be read. */
static inline int read_file(const char *path, bytes *out)
{
    FILE *f = fopen(path, "rb");
    out->data = NULL;
    out->len = 0;
    if (!f)
        return 0;
    int ok = fseek(f, 0, SEEK_END) == 0;
    long size = ok ? ftell(f) : -1;
    ok = size >= 0 && fseek(f, 0, SEEK_SET) == 0;
    if (ok) {
        out->data = malloc((size_t)size + 1);
        ok = out->data && fread(out->data, 1, (size_t)size, f) == (size_t)size;
        out->len = (size_t)size;
    }
    fclose(f);
    return ok;
}

#endif
