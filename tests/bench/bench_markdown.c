/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_markdown.c - one Markdown document through what a render does with it, each step
 * timed in CPU seconds of this process: the limits on the raw text (re_markdown_within_limits),
 * the whole parse of the script (re_script_parse: the limits again, cmark-gfm, the reader),
 * and the page's HTML of it (re_markdown_to_html).
 *
 *   bench-markdown FILE
 *       prints "within|refused limits S parse S html S" and exits 0 (within the limits) or
 *       1 (refused: the parse and the HTML are then the refusal's time, 0 for the HTML).
 *   bench-markdown --limits FILE
 *       only the limits: exits 0 or 1, prints nothing (for finding the largest document of a
 *       shape that is accepted).
 *
 * Not a product: built with the tests, run by scripts/bench-markdown, which makes the worst
 * documents it knows and times this program from outside (wait4, for the peak memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "markdown.h"
#include "script.h"

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int only_limits = argc == 3 && strcmp(argv[1], "--limits") == 0;
    if (argc != 2 && !only_limits) {
        fprintf(stderr, "usage: bench-markdown [--limits] FILE\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    size_t cap = 1 << 20, len = 0, n;
    char *buf = malloc(cap);
    while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0)
        if ((len += n) == cap && !(buf = realloc(buf, cap *= 2)))
            break;
    fclose(f);
    if (!buf)
        return 2;
    double t0 = cpu_seconds();
    int within = re_markdown_within_limits(buf, len);
    double t1 = cpu_seconds();
    if (only_limits) {
        free(buf);
        return within ? 0 : 1;
    }
    re_diagnostics diag;
    re_diagnostics_init(&diag, 1);
    re_episode *episode = NULL;
    re_script_parse("bench.md", buf, len, &episode, &diag);   /* its outcome: the limits' */
    re_episode_free(episode);
    re_diagnostics_free(&diag);
    double t2 = cpu_seconds();
    char *html = within ? re_markdown_to_html(buf, len) : NULL;
    double t3 = cpu_seconds();
    free(html);
    free(buf);
    printf("%s limits %.3f parse %.3f html %.3f\n", within ? "within" : "refused", t1 - t0,
           t2 - t1, t3 - t2);
    return within ? 0 : 1;
}
