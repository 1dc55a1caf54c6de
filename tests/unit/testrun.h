/* testrun.h - running another program from a unit test (ffmpeg, mpg123, python3 with
 * mutagen: the tools we did not write that judge our files) and collecting its output. */
#ifndef RE_TESTRUN_H
#define RE_TESTRUN_H

#include <errno.h>
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

/* Runs argv (no shell), collecting its stdout; its stderr goes to ours. Returns the exit
 * status, or -1 if it could not be started or was killed. */
static inline int run_capture(char *const argv[], bytes *out)
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
        if (dup2(fds[1], STDOUT_FILENO) < 0)
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

#endif
