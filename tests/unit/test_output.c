/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_output.c - atomic outputs: nothing at the target until commit, an existing target kept
 * when the output is discarded or its writing fails, its mode kept when it is replaced, and
 * the two-phase publish with backups putting yesterday's file back after a late failure.
 *
 * The calls that report through re_diagnostics go through the few helpers below: each starts
 * a fresh list, so `said` holds what the last call said. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testdir.h"
#include "testkit.h"
#include "files.h"
#include "output.h"

static char dir[256];
static re_diagnostics said;

/* ---- the calls that report ------------------------------------------------------------------- */

static re_status out_open(const char *target, re_output **out)
{
    diag_clear(&said);
    return re_output_open(target, out, &said);
}

static re_status out_commit(re_output *output)
{
    diag_clear(&said);
    return re_output_commit(output, &said);
}

static re_status out_prepare(re_output *output)
{
    diag_clear(&said);
    return re_output_prepare(output, &said);
}

static re_status out_publish(re_output *output)
{
    diag_clear(&said);
    return re_output_publish(output, &said);
}

static re_status out_restart(re_output *output)
{
    diag_clear(&said);
    return re_output_restart(output, &said);
}

static unsigned long long out_size(re_output *output)
{
    unsigned long long size = 0;
    diag_clear(&said);
    CHECK_INT(re_output_size(output, &size, &said), RE_OK);
    return size;
}

/* ---- helpers ------------------------------------------------------------------------------ */

static char *path_in(const char *name)
{
    char *p = re_path_join(dir, name);
    if (!p)
        abort();
    return p;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen(path, "wb");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0 || chmod(path, mode) != 0) {
        perror(path);
        abort();
    }
}

static const char *contents(const char *path)
{
    static char buf[4096];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return f ? buf : "(missing)";
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_mode & 07777 : (mode_t)-1;
}

/* Entries of the test folder; *hidden counts those whose name starts with a dot. */
static int entries(int *hidden)
{
    DIR *d = opendir(dir);
    int n = 0, h = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        h += e->d_name[0] == '.';
    }
    if (d)
        closedir(d);
    if (hidden)
        *hidden = h;
    return n;
}

static void write_text(re_output *o, const char *text)
{
    CHECK(fputs(text, re_output_stream(o)) != EOF);
}

/* ---- tests -------------------------------------------------------------------------------- */

static void test_new_file(void)
{
    char *target = path_in("ep.mp3");
    re_output *o = NULL;
    CHECK_INT(out_open(target, &o), RE_OK);
    CHECK(o != NULL);
    if (!o)
        return;
    CHECK_STR(re_output_target(o), target);
    write_text(o, "hello, ");
    write_text(o, "world");
    CHECK_INT(out_size(o), 12);
    /* nothing at the target, and no visible name anywhere, until commit */
    CHECK(!exists(target));
    int hidden = 0, n = entries(&hidden);
    CHECK_INT(n, hidden);
    CHECK_INT(out_commit(o), RE_OK);
    CHECK_STR(contents(target), "hello, world");
    CHECK_INT(mode_of(target), 0644);   /* 0666 & ~umask 022 */
    CHECK_INT(entries(&hidden), 1);
    CHECK_INT(hidden, 0);
    unlink(target);
    free(target);
}

static void test_existing_target(void)
{
    char *target = path_in("ep.json");
    write_file(target, "yesterday", 0600);
    struct stat before;
    CHECK(stat(target, &before) == 0);

    /* discarded: the old file is as it was, nothing left beside it */
    re_output *o = NULL;
    CHECK_INT(out_open(target, &o), RE_OK);
    write_text(o, "today, half written");
    CHECK_STR(contents(target), "yesterday");
    re_output_discard(o);
    CHECK_STR(contents(target), "yesterday");
    int hidden = 0;
    CHECK_INT(entries(&hidden), 1);
    CHECK_INT(hidden, 0);
    re_output_discard(NULL);

    /* committed: replaced whole, as a new file, with no more than the old file's mode */
    CHECK_INT(out_open(target, &o), RE_OK);
    write_text(o, "today");
    CHECK_STR(contents(target), "yesterday");
    CHECK_INT(out_commit(o), RE_OK);
    CHECK_STR(contents(target), "today");
    CHECK_INT(mode_of(target), 0600);
    struct stat after;
    CHECK(stat(target, &after) == 0 && after.st_ino != before.st_ino);
    CHECK_INT(entries(&hidden), 1);

    /* an earlier world-writable, executable file: replaced by one of 0666 & ~umask at most */
    static const mode_t wide[] = { 0777, 0666, 04755 };
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        CHECK(chmod(target, wide[i]) == 0);
        CHECK_INT(out_open(target, &o), RE_OK);
        write_text(o, "today");
        CHECK_INT(out_commit(o), RE_OK);
        CHECK_INT(mode_of(target), wide[i] & 0644);
    }

    /* restart: what was written before it is gone */
    CHECK_INT(out_open(target, &o), RE_OK);
    write_text(o, "a first attempt, longer");
    CHECK_INT(out_restart(o), RE_OK);
    CHECK_INT(out_size(o), 0);
    write_text(o, "xy");
    CHECK_INT(out_size(o), 2);
    CHECK_INT(out_commit(o), RE_OK);
    CHECK_STR(contents(target), "xy");

    /* a write that fails (the file size limit, as a full disk would): commit fails, the old
     * file is untouched and no temporary file is left */
    CHECK_INT(out_open(target, &o), RE_OK);
    struct rlimit old_limit;
    CHECK(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    struct rlimit small = { 4096, old_limit.rlim_max };
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
    static char big[20000];
    memset(big, 'z', sizeof big);
    (void)fwrite(big, 1, sizeof big, re_output_stream(o));
    re_status st = out_commit(o);
    CHECK(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
    signal(SIGXFSZ, old_handler);
    CHECK_INT(st, RE_ERR_WRITE);
    CHECK(strstr(diag_last(&said), "File too large") != NULL);
    CHECK(strstr(diag_last(&said), target) != NULL);
    CHECK_STR(said.items[0].file, target);   /* the message names the file it concerns */
    CHECK_STR(contents(target), "xy");
    CHECK_INT(entries(&hidden), 1);
    CHECK_INT(hidden, 0);

    unlink(target);
    free(target);
}

static void test_refused(void)
{
    re_output *o = (re_output *)1;
    /* the target is a directory */
    CHECK_INT(out_open(dir, &o), RE_ERR_WRITE);
    CHECK(o == NULL);
    CHECK(strstr(diag_last(&said), "is a directory") != NULL);
    /* its folder does not exist */
    char *target = path_in("no-such-folder/ep.mp3");
    o = (re_output *)1;
    CHECK_INT(out_open(target, &o), RE_ERR_WRITE);
    CHECK(o == NULL);
    CHECK(strstr(diag_last(&said), "cannot create a file beside") != NULL);
    CHECK(strstr(diag_last(&said), "No such file or directory") != NULL);
    CHECK_INT(entries(NULL), 0);
    free(target);
}

/* Several files that appear together: prepared, backed up, published; a late failure puts
 * the ones already published back as they were. */
static void test_publish_all_or_nothing(void)
{
    char *audio = path_in("ep.mp3"), *sidecar = path_in("ep.json"), *vtt = path_in("ep.vtt");
    write_file(audio, "old audio", 0644);
    re_output *o_audio = NULL, *o_vtt = NULL, *o_sidecar = NULL;
    CHECK_INT(out_open(audio, &o_audio), RE_OK);
    CHECK_INT(out_open(vtt, &o_vtt), RE_OK);
    CHECK_INT(out_open(sidecar, &o_sidecar), RE_OK);
    if (!o_audio || !o_vtt || !o_sidecar)
        return;
    write_text(o_audio, "new audio");
    write_text(o_vtt, "WEBVTT\n");
    write_text(o_sidecar, "{}\n");
    CHECK_INT(out_prepare(o_audio), RE_OK);
    CHECK_INT(out_prepare(o_vtt), RE_OK);
    CHECK_INT(out_prepare(o_sidecar), RE_OK);

    char *audio_backup = (char *)"unset", *vtt_backup = (char *)"unset";
    CHECK_INT(re_output_backup(audio, &audio_backup), RE_OK);
    CHECK_INT(re_output_backup(vtt, &vtt_backup), RE_OK);
    CHECK(audio_backup != NULL);   /* a hidden hard link of yesterday's audio ... */
    CHECK(vtt_backup == NULL);     /* ... and nothing for a file that did not exist */
    if (audio_backup) {
        const char *base = strrchr(audio_backup, '/');
        CHECK(base && base[1] == '.');
        CHECK_STR(contents(audio_backup), "old audio");
    }

    /* the sidecar's target turns into a non-empty folder: its publish will fail */
    CHECK(mkdir(sidecar, 0755) == 0);
    char *inside = path_in("ep.json/keep");
    write_file(inside, "x", 0644);

    CHECK_INT(out_publish(o_audio), RE_OK);
    CHECK_INT(out_publish(o_vtt), RE_OK);
    CHECK_STR(contents(audio), "new audio");
    CHECK_STR(contents(vtt), "WEBVTT\n");
    CHECK_INT(out_publish(o_sidecar), RE_ERR_WRITE);
    CHECK(strstr(diag_last(&said), sidecar) != NULL);

    re_output_restore(audio, audio_backup);
    re_output_restore(vtt, vtt_backup);
    CHECK_STR(contents(audio), "old audio");   /* yesterday's file, back */
    CHECK(!exists(vtt));                       /* the new one, gone again */
    int hidden = 0;
    CHECK_INT(entries(&hidden), 2);            /* ep.mp3 and the folder ep.json */
    CHECK_INT(hidden, 0);

    /* and when every publish succeeds, dropping the backup leaves the new file alone */
    CHECK_INT(out_open(audio, &o_audio), RE_OK);
    write_text(o_audio, "newer audio");
    CHECK_INT(out_prepare(o_audio), RE_OK);
    CHECK_INT(re_output_backup(audio, &audio_backup), RE_OK);
    CHECK(audio_backup != NULL);
    CHECK_INT(out_publish(o_audio), RE_OK);
    re_output_drop_backup(audio_backup);
    re_output_drop_backup(NULL);
    CHECK_STR(contents(audio), "newer audio");
    CHECK_INT(entries(&hidden), 2);
    CHECK_INT(hidden, 0);

    unlink(inside);
    rmdir(sidecar);
    unlink(audio);
    free(inside);
    free(audio);
    free(sidecar);
    free(vtt);
}

static void sibling(const char *path, const char *suffix, const char *expected)
{
    char *s = re_output_sibling(path, suffix);
    CHECK_STR(s, expected);
    free(s);
}

static void test_sibling(void)
{
    sibling("ep.mp3", ".vtt", "ep.vtt");
    sibling("out/ep.mp3", ".chapters.json", "out/ep.chapters.json");
    sibling("out/ep.wav", ".json", "out/ep.json");
    sibling("out/ep.final.mp3", ".json", "out/ep.final.json");
    sibling("out/ep", ".json", "out/ep.json");            /* no extension: appended */
    sibling("out.d/ep", ".json", "out.d/ep.json");        /* a dot in the folder is not one */
    sibling("out/.ep", ".json", "out/.ep.json");          /* nor a hidden file's leading dot */
    sibling("/abs/ep.mp3", ".srt", "/abs/ep.srt");
}

int main(void)
{
    umask(022);
    if (test_temp_dir(dir, sizeof dir, "output") != 0)
        return 1;
    test_new_file();
    test_existing_target();
    test_refused();
    test_publish_all_or_nothing();
    test_sibling();
    test_remove_tree(dir);
    re_diagnostics_free(&said);
    return check_finish("test_output");
}
