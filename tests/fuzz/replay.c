/* SPDX-License-Identifier: GPL-3.0-or-later */
/* replay.c - a main() for the harnesses when there is no libFuzzer (gcc builds): runs
 * LLVMFuzzerTestOneInput once on every file named, or in a folder named, and says how many.
 * A crash or a failed invariant aborts, naming the file first. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        perror(path);
        if (f)
            fclose(f);
        return -1;
    }
    /* Exactly st_size bytes, so that ASan sees any read past the input. */
    size_t len = (size_t)st.st_size;
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf || fread(buf, 1, len, f) != len) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    fprintf(stderr, "replaying %s\n", path);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 1;
}

static int replay(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort), count = 0;
    if (n < 0) {
        perror(path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' && count >= 0) {
            char *child;
            if (asprintf(&child, "%s/%s", path, names[i]->d_name) < 0)
                count = -1;
            else {
                int got = replay(child);
                count = got < 0 ? -1 : count + got;
                free(child);
            }
        }
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    int total = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;   /* libFuzzer options (-runs=0 ...) mean nothing here */
        int got = replay(argv[i]);
        if (got < 0)
            return 1;
        total += got;
    }
    printf("%s: %d inputs replayed\n", argv[0], total);
    return 0;
}
