/* SPDX-License-Identifier: GPL-3.0-or-later */
/* outputs.c - an episode's files: opened together, published all or nothing (see outputs.h). */
#define _GNU_SOURCE
#include "outputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "feed.h"
#include "files.h"
#include "hex.h"

/* Each file's name beside OUT (NULL: OUT itself). */
static const char *const suffix_of[OUTPUT_KINDS] = {
    [OUTPUT_AUDIO] = NULL, [OUTPUT_VTT] = ".vtt", [OUTPUT_SRT] = ".srt",
    [OUTPUT_TRANSCRIPT_JSON] = ".transcript.json", [OUTPUT_CHAPTERS] = ".chapters.json",
    [OUTPUT_PAGE] = ".html", [OUTPUT_PAGE_MD] = ".md", [OUTPUT_COVER_JPEG] = ".cover.jpg",
    [OUTPUT_COVER_PNG] = ".cover.png", [OUTPUT_SIDECAR] = ".json",
};

/* The order files are opened in, so that the first one refused is the one named. */
static const output_kind open_order[OUTPUT_KINDS] = {
    OUTPUT_AUDIO, OUTPUT_SIDECAR, OUTPUT_VTT, OUTPUT_SRT, OUTPUT_TRANSCRIPT_JSON, OUTPUT_CHAPTERS,
    OUTPUT_PAGE, OUTPUT_PAGE_MD, OUTPUT_COVER_JPEG, OUTPUT_COVER_PNG,
};

struct output_set {
    const char *output_path;
    output_inputs inputs;
    output_choice choice;
    re_output *files[OUTPUT_KINDS];   /* NULL for files not in the set, or gone */
};

int output_wanted(const output_choice *choice, output_kind kind)
{
    switch (kind) {
    case OUTPUT_AUDIO: case OUTPUT_VTT: case OUTPUT_SIDECAR: return 1;
    case OUTPUT_SRT: return choice->srt;
    case OUTPUT_TRANSCRIPT_JSON: return choice->transcript_json;
    case OUTPUT_CHAPTERS: return choice->chapters;
    case OUTPUT_PAGE: return choice->page;
    case OUTPUT_PAGE_MD: return choice->page_md;
    case OUTPUT_COVER_JPEG: return choice->cover_jpeg;
    case OUTPUT_COVER_PNG: return choice->cover_png;
    case OUTPUT_KINDS: break;
    }
    return 0;
}

const char *re_output_suffix(output_kind kind)
{
    return kind < OUTPUT_KINDS ? suffix_of[kind] : NULL;
}

static char *path_of(const char *output_path, output_kind kind)
{
    return suffix_of[kind] ? re_output_sibling(output_path, suffix_of[kind]) : strdup(output_path);
}

/* Which of the inputs (the script first) the existing file at `path` is, or -1. */
static int input_at(const output_inputs *inputs, const char *path)
{
    struct stat in_st, out_st;
    if (stat(path, &out_st) != 0)
        return -1;
    for (size_t i = 0; i < inputs->count; i++)
        if (stat(inputs->paths[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev
            && in_st.st_ino == out_st.st_ino)
            return (int)i;
    return -1;
}

/* No output may replace an input: the script, a lexicon or a voice profile, under any name. */
static re_status refuse_inputs(const char *path, const output_inputs *inputs, re_diagnostics *diag)
{
    int i = input_at(inputs, path);
    if (i == 0)
        return re_diag_fail(diag, RE_ERR_WRITE, path, 0, 0, "this output would overwrite the "
                            "script itself; choose another output name");
    if (i > 0)
        return re_diag_fail(diag, RE_ERR_WRITE, path, 0, 0, "this output would overwrite %s, "
                            "which the episode is made from; choose another output name",
                            inputs->paths[i]);
    return RE_OK;
}

/* 1 when `name` is what output.c names a file of `base` for an instant while publishing:
 * .BASE.XXXXXXXX.part (the new file just before its rename) or .BASE.XXXXXXXX.old (the
 * backup of yesterday's file). */
static int publishing_debris(const char *name, const char *base)
{
    size_t n = strlen(base);
    if (name[0] != '.' || strncmp(name + 1, base, n) != 0 || name[1 + n] != '.')
        return 0;
    const char *hex = name + 2 + n;
    if (!re_hex_valid(hex, 8))
        return 0;
    return strcmp(hex + 8, ".part") == 0 || strcmp(hex + 8, ".old") == 0;
}

/* What a run killed while publishing (SIGKILL, a power cut) left beside the file at `path`:
 * removed by the next run that writes it. */
static void remove_debris(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    const char *base = slash ? slash + 1 : path;
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *entry;
    while (d && (entry = readdir(d)) != NULL)
        if (publishing_debris(entry->d_name, base))
            (void)unlinkat(dirfd(d), entry->d_name, 0);
    if (d)
        closedir(d);
    free(dir);
}

static re_status open_one(output_set *set, output_kind kind,
                          re_diagnostics *diag)
{
    char *path = path_of(set->output_path, kind);
    if (!path)
        return RE_ERR_NOMEM;
    re_status status = refuse_inputs(path, &set->inputs, diag);
    if (status == RE_OK) {
        remove_debris(path);
        status = re_output_open(path, &set->files[kind], diag);
    }
    free(path);
    return status;
}

re_status re_output_set_open(const char *output_path, const output_inputs *inputs,
                             const output_choice *choice, output_set **out, re_diagnostics *diag)
{
    *out = NULL;
    output_set *set = calloc(1, sizeof *set);
    if (!set)
        return RE_ERR_NOMEM;
    set->output_path = output_path;
    set->inputs = *inputs;
    set->choice = *choice;
    re_status status = RE_OK;
    for (int k = 0; status == RE_OK && k < OUTPUT_KINDS; k++)
        if (output_wanted(choice, open_order[k]))
            status = open_one(set, open_order[k], diag);
    if (status != RE_OK) {
        re_output_set_free(set);
        return status;
    }
    *out = set;
    return RE_OK;
}

re_output *re_output_set_file(output_set *set, output_kind kind)
{
    return set->files[kind];
}

/* 1 when the regular file at `path` starts the way our chapters JSON starts (describe's
 * re_chapters_json_write) and is no input: a file we may take back. */
static int ours_to_remove(const char *path, const output_inputs *inputs)
{
    static const char start[] = "{\n  \"version\": \"1.2.0\",\n  \"chapters\": [";
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1
        || !re_owner_trusted(st.st_uid) || input_at(inputs, path) >= 0)
        return 0;
    char head[sizeof start - 1];
    FILE *f = fopen(path, "rb");
    int same = f && fread(head, 1, sizeof head, f) == sizeof head
               && memcmp(head, start, sizeof head) == 0;
    if (f)
        fclose(f);
    return same;
}

/* A chapters file from an earlier render of a script that has no headings any more would
 * publish chapters the audio does not have: removed, but only when it is one we wrote (never
 * the script, whatever it is named, nor another file, link or special file). */
static void remove_stale(const output_set *set, output_kind kind)
{
    char *path = re_output_sibling(set->output_path, suffix_of[kind]);
    if (path && ours_to_remove(path, &set->inputs))
        unlink(path);
    free(path);
}

static const char *base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The folder `path` is in, opened to act beneath it (openat, unlinkat); -1 when it cannot be. */
static int open_folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    free(dir);
    return fd;
}

/* The sidecar `name` (shown as `path`) in the folder `dir`, of `format` (NULL: any), when it
 * is a regular file of ours or root's, never followed or waited on (another user's lists
 * nothing to remove and claims no episode): 1 with *side filled, for re_sidecar_free. */
static int read_folder_sidecar(int dir, const char *name, const char *path, const char *format,
                               re_sidecar *side)
{
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char *buf = NULL;
    int found = 0;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && re_owner_trusted(st.st_uid)
        && st.st_size > 0 && (uint64_t)st.st_size <= RE_SIDECAR_MAX_SIZE
        && (buf = malloc((size_t)st.st_size))) {
        size_t len = (size_t)st.st_size, got = 0;
        ssize_t n = 1;
        while (got < len && (n = pread(fd, buf + got, len - got, (off_t)got)) > 0)
            got += (size_t)n;
        re_sidecar_found kind = RE_SIDECAR_NOT_OURS;
        found = got == len && re_sidecar_read(path, buf, len, format, side, &kind, NULL) == RE_OK
                && kind == RE_SIDECAR_FOUND;
    }
    if (fd >= 0)
        (void)close(fd);
    free(buf);
    return found;
}

/* OUT's sidecar as the previous render left it, read beneath the folder `dir` without
 * following a symlink: 1 when it is one of ours that lists the files that render wrote (then
 * *previous is filled, for re_sidecar_free), else 0 (none, not ours, of an older version, or
 * another user's file: what it lists is never removed). */
static int read_previous(const output_set *set, int dir, re_sidecar *previous)
{
    char *path = path_of(set->output_path, OUTPUT_SIDECAR);
    int found = path && read_folder_sidecar(dir, base_of(path), path, NULL, previous);
    if (found && !previous->has_files) {
        re_sidecar_free(previous);
        found = 0;
    }
    free(path);
    return found;
}

/* The file at `path` (named `name` in the folder `dir`), which the previous render wrote as
 * `entry` says: removed when it is still exactly that file (a regular file with one name, no
 * input, those bytes), else kept with a warning saying why. Never follows a symlink. */
static re_status remove_if_unchanged(int dir, const char *path, const re_sidecar_file *entry,
                                     const output_inputs *inputs, re_diagnostics *diag)
{
    const char *name = base_of(path);
    struct stat st, opened;
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return RE_OK;   /* gone already */
    const char *why = NULL;
    if (!S_ISREG(st.st_mode)) {
        why = "it is no longer a regular file (a symlink, a folder...)";
    } else if (!re_owner_trusted(st.st_uid)) {
        why = "it belongs to another user";
    } else if (st.st_nlink != 1) {
        why = "it has another name too (a hard link)";
    } else if (input_at(inputs, path) >= 0) {
        why = "it is one of the files this episode is made from";
    } else {
        int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        uint64_t bytes = 0;
        char hex[RE_SHA256_HEX_SIZE];
        int same = fd >= 0 && fstat(fd, &opened) == 0 && opened.st_dev == st.st_dev
                   && opened.st_ino == st.st_ino && (uint64_t)opened.st_size == entry->bytes
                   && re_sidecar_file_digest(fd, &bytes, hex) == RE_OK
                   && bytes == entry->bytes && strcmp(hex, entry->sha256) == 0;
        if (fd >= 0)
            (void)close(fd);
        if (!same)
            why = "it changed since (its size or SHA-256 is not what that render's sidecar lists)";
        else if (unlinkat(dir, name, 0) != 0)
            why = strerror(errno);
        else
            return RE_OK;
    }
    return re_diag_add(diag, path, 0, 0, "warning: kept: the previous render wrote it and this "
                       "one does not, but %s", why) == RE_OK ? RE_OK : RE_ERR_NOMEM;
}

/* The companions (every file of the set but OUT and the sidecar) that the previous render
 * wrote, as its sidecar lists them, and this one does not write: removed when unchanged, so
 * that nothing stale is published beside the new audio. */
static re_status remove_previous(const output_set *set, int dir, const re_sidecar *previous,
                                 re_diagnostics *diag)
{
    re_status status = RE_OK;
    for (int k = 0; status == RE_OK && k < OUTPUT_KINDS; k++) {
        if (k == OUTPUT_AUDIO || k == OUTPUT_SIDECAR || output_wanted(&set->choice, k))
            continue;
        char *path = path_of(set->output_path, k);
        if (!path)
            return RE_ERR_NOMEM;
        const re_sidecar_file *entry = re_sidecar_file_find(previous, base_of(path));
        if (entry)
            status = remove_if_unchanged(dir, path, entry, &set->inputs, diag);
        free(path);
    }
    return status;
}

/* ---- the publishing lock ---------------------------------------------------------------- */

/* Two renders publishing the same set one after the other leave one whole set, never one's
 * audio with the other's sidecar: each publishes holding its user's publishing lock of the
 * folder, an exclusive flock on the file .render-episode-UID.lock there. The file is the
 * running user's, mode 0600, so no other user can open it to hold the lock (a lock on the
 * folder itself, which anyone who can open the folder can take, let any local user hang every
 * render into a shared folder), and it is removed by whoever releases it. Whatever else is at
 * its name (another user's file, FIFO or link, planted in a sticky /tmp) is removed, with a
 * warning, and never opened or waited on; only the user's own renders are waited for. */

#define LOCK_ATTEMPTS 16

struct publish_lock {
    int dir;        /* the folder (a dup of the audio output's), or -1 */
    int fd;         /* the lock file, locked; -1 when not held */
    char name[64];
    char *shown;    /* the folder's path + name, for messages */
};

static void lock_release(publish_lock *lock)
{
    struct stat held, now;
    /* removed while still held (and only when it is still the file held): a render waiting
     * for it then finds it gone and makes a new one */
    if (lock->fd >= 0 && fstat(lock->fd, &held) == 0
        && fstatat(lock->dir, lock->name, &now, AT_SYMLINK_NOFOLLOW) == 0
        && held.st_dev == now.st_dev && held.st_ino == now.st_ino)
        (void)unlinkat(lock->dir, lock->name, 0);
    if (lock->fd >= 0)
        (void)close(lock->fd);
    if (lock->dir >= 0)
        (void)close(lock->dir);
    free(lock->shown);
    lock->fd = lock->dir = -1;
    lock->shown = NULL;
}

/* What is at the lock's name, when it is not a lock of ours (st from lstat): removed, with a
 * warning when another user put it there. RE_OK to try again, or RE_ERR_WRITE with a message
 * when it cannot be removed. */
/* Moves another user's entry that cannot be removed (a folder with files in it) from the
 * lock's name to a new hidden name beside it: 1 when moved (*aside names it), else 0. */
static int lock_move_aside(publish_lock *lock, char aside[static 64])
{
    for (int attempt = 0; attempt < 16; attempt++) {
        uint32_t r = 0;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = (uint32_t)getpid() * 2654435761u + (uint32_t)attempt;
        snprintf(aside, 64, "%.40s.theirs.%08x", lock->name, (unsigned)r);
        if (renameat2(lock->dir, lock->name, lock->dir, aside, RENAME_NOREPLACE) == 0)
            return 1;
        if (errno != EEXIST)
            return 0;
    }
    return 0;
}

static re_status lock_clear(publish_lock *lock, const struct stat *st, const char *audio,
                            re_diagnostics *diag)
{
    int removed = unlinkat(lock->dir, lock->name, S_ISDIR(st->st_mode) ? AT_REMOVEDIR : 0) == 0
                  || errno == ENOENT;
    int err = errno;
    int theirs = !re_owner_trusted(st->st_uid);
    if (removed && !theirs)
        return RE_OK;   /* ours, but not one to trust (a wider mode, another name): made anew */
    if (removed)
        return re_diag_add(diag, lock->shown, 0, 0, "warning: removed: another user (uid %ju) "
                           "put it at the name of the publishing lock; the lock is a file of "
                           "your own", (uintmax_t)st->st_uid) == RE_OK ? RE_OK : RE_ERR_NOMEM;
    /* a folder of theirs with files in it: root cannot remove it without going into what
     * they made, and may not leave it there (every render would fail): it is moved aside */
    char aside[64];
    if (theirs && lock_move_aside(lock, aside))
        return re_diag_add(diag, lock->shown, 0, 0, "warning: moved aside to %s: another user "
                           "(uid %ju) put it at the name of the publishing lock; the lock is a "
                           "file of your own", aside, (uintmax_t)st->st_uid) == RE_OK
               ? RE_OK : RE_ERR_NOMEM;
    return re_diag_fail(diag, RE_ERR_WRITE, audio, 0, 0, "cannot take the publishing lock %s: "
                        "what is there %s and cannot be removed (%s); remove it", lock->shown,
                        theirs ? "belongs to another user" : "is not a lock file",
                        strerror(err));
}

/* Opens the lock file (made when missing) when it is one of ours: *fd, or -1 with RE_OK when
 * something else was there and was removed (try again). */
static re_status lock_open(publish_lock *lock, const char *audio, int *fd, re_diagnostics *diag)
{
    *fd = -1;
    struct stat st, opened;
    if (fstatat(lock->dir, lock->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT)
            return re_diag_fail(diag, RE_ERR_WRITE, audio, 0, 0, "cannot take the publishing "
                                "lock %s: %s", lock->shown, strerror(errno));
        *fd = openat(lock->dir, lock->name, O_RDONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0600);
        if (*fd < 0 && errno != EEXIST)
            return re_diag_fail(diag, RE_ERR_WRITE, audio, 0, 0, "cannot take the publishing "
                                "lock %s: %s", lock->shown, strerror(errno));
        return RE_OK;   /* made; or made by another render meanwhile: looked at again */
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) || st.st_nlink != 1)
        return lock_clear(lock, &st, audio, diag);
    *fd = openat(lock->dir, lock->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY
                 | O_CLOEXEC);
    if (*fd >= 0 && (fstat(*fd, &opened) != 0 || opened.st_dev != st.st_dev
                     || opened.st_ino != st.st_ino)) {
        (void)close(*fd);   /* replaced since: looked at again */
        *fd = -1;
    }
    return RE_OK;
}

/* Takes the user's publishing lock in the folder of the audio output: waits for the user's
 * own render holding it (a stop signal ends the wait: no SA_RESTART, RE_ERR_INTERRUPTED). A
 * file system without flock publishes without it, with a warning. */
static re_status lock_take_at(int folder, const char *target, publish_lock *lock,
                              re_diagnostics *diag)
{
    const char *slash = strrchr(target, '/');
    snprintf(lock->name, sizeof lock->name, ".render-episode-%ju.lock", (uintmax_t)geteuid());
    lock->fd = -1;
    lock->dir = fcntl(folder, F_DUPFD_CLOEXEC, 0);
    if (asprintf(&lock->shown, "%.*s%s", slash ? (int)(slash - target + 1) : 0, target,
                 lock->name) < 0)
        lock->shown = NULL;
    if (lock->dir < 0 || !lock->shown) {
        lock_release(lock);
        return RE_ERR_NOMEM;
    }
    for (int attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
        int fd = -1;
        re_status status = lock_open(lock, target, &fd, diag);
        if (status != RE_OK) {
            lock_release(lock);
            return status;
        }
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX) != 0) {
            int err = errno;
            (void)close(fd);
            if (err == ENOLCK || err == EOPNOTSUPP || err == EINVAL) {
                status = re_diag_add(diag, lock->shown, 0, 0, "warning: published without the "
                                     "publishing lock: %s (two renders of this set at once "
                                     "could mix their files)", strerror(err));
                (void)unlinkat(lock->dir, lock->name, 0);
                lock_release(lock);
                return status == RE_OK ? RE_OK : RE_ERR_NOMEM;
            }
            lock_release(lock);
            if (err == EINTR)
                return RE_ERR_INTERRUPTED;
            return re_diag_fail(diag, RE_ERR_WRITE, target, 0, 0, "cannot take the publishing "
                                "lock %s: %s", lock->shown, strerror(err));
        }
        /* the file locked must still be the one at the name: the render that held it removes
         * it on release */
        struct stat held, now;
        if (fstat(fd, &held) == 0 && held.st_nlink == 1
            && fstatat(lock->dir, lock->name, &now, AT_SYMLINK_NOFOLLOW) == 0
            && held.st_dev == now.st_dev && held.st_ino == now.st_ino) {
            lock->fd = fd;
            return RE_OK;
        }
        (void)close(fd);
    }
    lock_release(lock);
    return re_diag_fail(diag, RE_ERR_WRITE, target, 0, 0, "cannot take the publishing lock %s: "
                        "something else was put at its name %d times in a row (another user's "
                        "files?)", lock->shown, LOCK_ATTEMPTS);
}

static re_status lock_take(const re_output *audio, publish_lock *lock, re_diagnostics *diag)
{
    return lock_take_at(re_output_folder(audio), re_output_target(audio), lock, diag);
}

re_status re_output_folder_lock(int folder, const char *target, publish_lock **out,
                                re_diagnostics *diag)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return RE_ERR_NOMEM;
    re_status status = lock_take_at(folder, target, *out, diag);
    if (status != RE_OK) {
        free(*out);
        *out = NULL;
    }
    return status;
}

void re_output_folder_unlock(publish_lock *lock)
{
    if (!lock)
        return;
    lock_release(lock);
    free(lock);
}

re_status re_output_set_publish(output_set *set, volatile sig_atomic_t *stop, re_diagnostics *diag)
{
    re_output *order[OUTPUT_KINDS];
    size_t n = 0;
    for (int k = 0; k < OUTPUT_KINDS; k++)
        if (set->files[k])
            order[n++] = set->files[k];
    for (size_t i = 0; i < n; i++) {
        re_status status = re_output_prepare(order[i], diag);
        if (status != RE_OK)
            return status;
    }
    if (stop && *stop)
        return RE_ERR_INTERRUPTED;
    publish_lock lock = { -1, -1, "", NULL };
    re_status locked = n ? lock_take(order[0], &lock, diag) : RE_OK;
    if (locked != RE_OK)
        return locked;
    if (stop && *stop) {
        lock_release(&lock);
        return RE_ERR_INTERRUPTED;
    }
    /* what the previous render wrote, read before this render's sidecar replaces its own */
    re_sidecar previous;
    int dir = open_folder_of(set->output_path);
    int has_previous = dir >= 0 && read_previous(set, dir, &previous);
    char *targets[OUTPUT_KINDS], *backups[OUTPUT_KINDS];
    re_status status = RE_OK;
    for (size_t i = 0; i < n; i++) {
        targets[i] = strdup(re_output_target(order[i]));
        backups[i] = NULL;
        if (!targets[i])
            status = RE_ERR_NOMEM;
        else if (status == RE_OK)
            status = re_output_backup(targets[i], &backups[i]);
    }
    memset(set->files, 0, sizeof set->files);   /* from here each is published or discarded */
    size_t published = 0;
    for (size_t i = 0; i < n; i++) {
        if (status != RE_OK) {
            re_output_discard(order[i]);
            continue;
        }
        status = re_output_publish(order[i], diag);
        if (status == RE_OK)
            published++;
    }
    /* All or nothing: on a failure, yesterday's files go back where they were. */
    for (size_t i = 0; i < n; i++) {
        if (status != RE_OK && i < published)
            re_output_restore(targets[i], backups[i]);
        else
            re_output_drop_backup(backups[i]);
        free(targets[i]);
    }
    if (status == RE_OK && has_previous)
        status = remove_previous(set, dir, &previous, diag);
    else if (status == RE_OK && !output_wanted(&set->choice, OUTPUT_CHAPTERS))
        remove_stale(set, OUTPUT_CHAPTERS);   /* a sidecar of an older version: no list */
    if (has_previous)
        re_sidecar_free(&previous);
    if (dir >= 0)
        (void)close(dir);
    lock_release(&lock);
    return status;
}

re_status re_output_set_describe(output_set *set, re_sidecar_file **files, size_t *count,
                                 re_diagnostics *diag)
{
    *files = NULL;
    *count = 0;
    re_sidecar_file *list = calloc(OUTPUT_KINDS, sizeof *list);
    if (!list)
        return RE_ERR_NOMEM;
    size_t n = 0;
    re_status status = RE_OK;
    for (int k = 0; status == RE_OK && k < OUTPUT_KINDS; k++) {
        re_output *file = set->files[k];
        if (!file || k == OUTPUT_SIDECAR)
            continue;
        const char *target = re_output_target(file);
        const char *slash = strrchr(target, '/');
        re_sidecar_file *entry = &list[n++];
        if (!(entry->name = strdup(slash ? slash + 1 : target)))
            status = RE_ERR_NOMEM;
        else if (fflush(re_output_stream(file)) == EOF)   /* a full disk shows here first */
            status = re_diag_fail(diag, RE_ERR_WRITE, target, 0, 0, "cannot write: %s",
                                  strerror(errno));
        else if (re_sidecar_file_digest(fileno(re_output_stream(file)), &entry->bytes,
                                        entry->sha256) != RE_OK)
            status = re_diag_fail(diag, RE_ERR_WRITE, target, 0, 0, "cannot read back what was "
                                  "written, to record it in the sidecar: %s", strerror(errno));
    }
    if (status != RE_OK) {
        re_output_files_free(list, n);
        return status;
    }
    *files = list;
    *count = n;
    return RE_OK;
}

void re_output_files_free(re_sidecar_file *files, size_t count)
{
    for (size_t i = 0; files && i < count; i++)
        free(files[i].name);
    free(files);
}

int re_output_set_present(const char *output_path, const output_choice *choice)
{
    int present = 1;
    for (int k = 0; present && k < OUTPUT_KINDS; k++) {
        if (k == OUTPUT_AUDIO || k == OUTPUT_SIDECAR || !output_wanted(choice, k))
            continue;
        char *path = path_of(output_path, k);
        present = path && access(path, F_OK) == 0;
        free(path);
    }
    return present;
}

void re_output_set_free(output_set *set)
{
    if (!set)
        return;
    for (int k = 0; k < OUTPUT_KINDS; k++)
        re_output_discard(set->files[k]);
    free(set);
}

/* ======================================================================================
 * Another set of the same episode
 * ====================================================================================== */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

void re_output_set_warn_claims(const char *output_path, const char *format,
                               const re_episode *episode, re_diagnostics *diag)
{
    if (strcmp(format, "mp3") != 0 || (!episode->guid && episode->episode_number <= 0))
        return;   /* in no feed, or the episode is its file name: no other set can be it */
    re_episode_claim mine = { .guid = episode->guid, .season = episode->season,
                              .number = episode->episode_number, .type = episode->type };
    char *own = path_of(output_path, OUTPUT_SIDECAR);
    int dir = open_folder_of(output_path);
    int listing = dir >= 0 ? dup(dir) : -1;
    DIR *d = listing >= 0 ? fdopendir(listing) : NULL;
    if (!d && listing >= 0)
        (void)close(listing);
    const char *slash = strrchr(output_path, '/');
    size_t folder_len = slash ? (size_t)(slash - output_path) + 1 : 0;
    re_status status = own ? RE_OK : RE_ERR_NOMEM;
    struct dirent *entry;
    while (status == RE_OK && d && (entry = readdir(d)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] == '.' || !ends_with(name, ".json") || ends_with(name, ".chapters.json")
            || ends_with(name, ".transcript.json") || strcmp(name, base_of(own)) == 0)
            continue;
        char *path = NULL;
        if (asprintf(&path, "%.*s%s", (int)folder_len, output_path, name) < 0) {
            status = RE_ERR_NOMEM;
            break;
        }
        re_sidecar side;
        char why[RE_CLAIM_WHY_MAX];
        if (read_folder_sidecar(dir, name, path, "mp3", &side)) {
            re_episode_claim theirs = { .guid = side.guid, .season = side.season,
                                        .number = side.episode, .type = side.type };
            if (re_episode_claims_same(&mine, &theirs, why))
                status = re_diag_add(diag, own, 0, 0, "warning: %s already claims this episode "
                                     "(%s): `feed` refuses the folder while both sets are in "
                                     "it; if that set is this episode under an old name (a "
                                     "renamed script), remove it (%s, its audio and the files "
                                     "beside them)", path, why, name);
            re_sidecar_free(&side);
        }
        free(path);
    }
    if (d)
        closedir(d);
    if (dir >= 0)
        (void)close(dir);
    if (status != RE_OK)   /* the outputs are published: a failure here is at most said */
        (void)re_diag_add(diag, own ? own : output_path, 0, 0, "warning: could not look for "
                          "another set of this episode in the folder (%s); `feed` refuses the "
                          "folder if there is one", re_strerror(status));
    free(own);
}
