/* SPDX-License-Identifier: GPL-3.0-or-later */
/* files.h - whole files: opening and reading one into memory, and replacing an existing one
 * atomically. Failures are path:0:0 diagnostics (diag may be NULL: the status alone). Streamed
 * outputs that are new files go through output.h instead. */
#ifndef RE_FILES_H
#define RE_FILES_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sha256.h"
#include "status.h"

/* ---- paths whose links belong to the running user ----------------------------------------- */

/* 1 when what uid owns may be trusted: the running user's (effective uid) or root's. A
 * symlink is followed, and a file found in a folder (a show file, a lock, an episode's set, a
 * FIFO to write into) used, only then. Another user's link or file in a shared folder (a
 * sticky /tmp, a runner's volume) would make the program read or write where that user chose,
 * or take what that user wrote for its own, and fs.protected_symlinks (which would refuse a
 * link in sticky folders) is off on many machines. */
int re_owner_trusted(uid_t uid);

/* The owner of the open file fd: 1 when it is another user (not re_owner_trusted; *owner is
 * set), 0 when it is the running user or root, -1 with errno when fstat fails. */
int re_fd_foreign(int fd, uid_t *owner);

/* Opens `path` as open(path, flags) would (O_CLOEXEC is added), following the symlinks on the
 * way, and the last name's unless flags hold O_NOFOLLOW, only when re_owner_trusted(owner):
 * each name is looked at without following, then opened with O_NOFOLLOW, so a link swapped in
 * between is judged as a link, never opened through. The fd, or -1 with errno: EPERM for a
 * link of another user (its owner in *owner and its path, as walked, in *link, malloc'ed,
 * when they are not NULL; *link is NULL otherwise), ELOOP past 40 links. Every file the
 * program reads by a path the user gave, and the folder of every output, is opened so. */
int re_open_owned(const char *path, int flags, uid_t *owner, char **link);

/* What re_file_read accepts. */
typedef enum re_file_read_mode {
    /* whatever the path opens to: a regular file, or a pipe or device read only until it
     * passes max_size. A FIFO waits for its writer, like any Unix reader (Ctrl-C still ends
     * the wait). Script, voice, lexicon and show files. */
    RE_READ_ANY,
    /* a regular file only: a FIFO, device or socket is refused before it could block, and a
     * file that grows while it is read is an error. check's pages, feeds and JSON files. */
    RE_READ_REGULAR
} re_file_read_mode;

/* Waits for a FIFO's writer or a pipe's data end when a signal handler runs (the program's
 * only handlers are its stop signals, installed without SA_RESTART): RE_ERR_INTERRUPTED, with
 * no message, at once.
 *
 * Reads the whole file `path` (at most max_size bytes) into a new buffer with a NUL after the
 * last byte (*out, free with free(); *len excludes the NUL; both zeroed on failure).
 * RE_ERR_READ (cannot open, a directory, a read error; in RE_READ_REGULAR mode also not a
 * regular file, or changed while read), RE_ERR_LIMIT (larger than max_size; the message names
 * the limit), RE_ERR_NOMEM, RE_ERR_INVALID for NULL arguments. */
re_status re_file_read(const char *path, size_t max_size, re_file_read_mode mode, char **out,
                       size_t *len, re_diagnostics *diag);

/* re_open_owned for a file found in a folder rather than named by the user: also -1 with
 * errno EPERM when the file opened belongs to another user (re_owner_trusted). With EPERM
 * (another user's file, or their symlink on the way), *owner (may be NULL) is that user; any
 * other EPERM of the system is given as EACCES. Give O_NONBLOCK: their FIFO is opened only to
 * be judged, never waited on. */
int re_open_trusted(const char *path, int flags, uid_t *owner);

/* re_file_read of a file found in a folder rather than named by the user (a show file beside
 * the episodes, a sidecar), used only when it is the running user's or root's: when the file,
 * or a symlink on the way to it, belongs to another user, RE_OK with *out NULL, *len 0 and
 * *owner that user, nothing read and nothing waited for (their FIFO is not opened for
 * reading). Else as re_file_read: in RE_READ_ANY mode the user's own FIFO waits for its
 * writer (the very file judged is reopened to wait, never a name swapped in since). *owner
 * may be NULL. */
re_status re_file_read_trusted(const char *path, size_t max_size, re_file_read_mode mode,
                               char **out, size_t *len, uid_t *owner, re_diagnostics *diag);

/* re_file_read of a file already open (re_path_open_confined's fd, opened with O_NONBLOCK in
 * RE_READ_REGULAR mode): the fd is closed in every case; `path` names it in messages. */
re_status re_file_read_fd(int fd, const char *path, size_t max_size, re_file_read_mode mode,
                          char **out, size_t *len, re_diagnostics *diag);

/* Opens a regular file for reading without ever waiting (a FIFO is refused before it could
 * block): *fd (the caller closes it) and its *size. RE_ERR_READ when it cannot be opened or
 * is a directory or not a regular file. */
re_status re_file_open_regular(const char *path, int *fd, uint64_t *size, re_diagnostics *diag);

/* The checks of re_file_open_regular on an fd already open (with O_NONBLOCK, so a FIFO did
 * not block), which is made blocking: *size, or RE_ERR_READ with the fd closed. */
re_status re_file_check_regular(int fd, const char *path, uint64_t *size, re_diagnostics *diag);

/* All n bytes at offset `at` of fd, retrying short transfers and EINTR: RE_OK, or
 * RE_ERR_READ / RE_ERR_WRITE (an error, or the end of the file before n bytes). */
re_status re_pread_all(int fd, void *buf, size_t n, off_t at);
re_status re_pwrite_all(int fd, const void *buf, size_t n, off_t at);

/* The SHA-256 of everything in fd from offset 0 to its end (pread, 64 KiB at a time, EINTR
 * retried; the fd's own position is not moved) and *bytes, how many that was. RE_ERR_READ on
 * a read error; RE_ERR_INTERRUPTED as soon as *stop is raised between two reads (NULL: never);
 * RE_ERR_NOMEM. */
re_status re_fd_sha256(int fd, volatile sig_atomic_t *stop, uint64_t *bytes,
                       unsigned char digest[RE_SHA256_SIZE]);

/* Replaces the existing file at `path` (following symlinks, so a symlink stays one) with
 * buf[0..len) atomically: a temporary file in the same directory, written, given the old
 * file's permission bits (and owner, when allowed), fsync'ed, then put in its place; the
 * directory is synced after. On failure (RE_ERR_WRITE) the old file is untouched and the
 * temporary file removed.
 *
 * With `expected` (check --fix: the contents the new text was made from), only a file that
 * still holds expected[0..expected_len) is replaced, whenever an editor saves it: the new
 * file and the old are swapped in one step (renameat2 RENAME_EXCHANGE), the old compared
 * after the swap and swapped back when it differs ("changed while being fixed; left as
 * edited"). A file system that cannot swap gets a comparison right before a plain rename.
 * A file with more than one hard link is refused: renaming a new file over one name would
 * leave the other names with the old text. */
re_status re_file_replace(const char *path, const char *expected, size_t expected_len,
                          const char *buf, size_t len, re_diagnostics *diag);

/* dir + "/" + name (no second slash when dir ends in one): a malloc'ed path, or NULL when
 * out of memory. */
char *re_path_join(const char *dir, const char *name);

/* ---- a folder's names ---------------------------------------------------------------------- */

/* Whether a listing keeps `name`; ctx is the caller's. */
typedef int (*re_dir_keep)(const char *name, void *ctx);

/* The names in the folder open at dir_fd, the one lister of the library: every entry but "."
 * and "..", those keep(name, ctx) accepts (keep NULL: all), sorted in byte order (strcmp), so
 * that what a caller does with them, and the messages it gives, never depend on the file
 * system's order. Names only: nothing is followed, opened or stat'ed, and the caller opens
 * what it keeps beneath dir_fd (openat, O_NOFOLLOW, re_open_beneath) by its own rules.
 * dir_fd stays open and the caller's: the listing reads a duplicate from the start, so two
 * listings of one fd see the same names. More than `max` kept names (0: no limit) is
 * RE_ERR_LIMIT; a folder that cannot be read RE_ERR_READ (errno says why); RE_ERR_NOMEM. On
 * RE_OK *names (malloc'ed, each name too; NULL when *count is 0) is the caller's, for
 * re_dir_names_free; on failure nothing is. */
re_status re_dir_list(int dir_fd, re_dir_keep keep, void *ctx, size_t max, char ***names,
                      size_t *count);
void re_dir_names_free(char **names, size_t count);   /* NULL is allowed */

/* ---- files a script names (lexicon:, [sound], intro:, outro:, music:) ---------------------- */

/* `value` as a script names it: relative to the script's folder (script_path's), an absolute
 * path as it is. *out is malloc'ed, owned by the caller. RE_ERR_NOMEM, RE_ERR_INVALID. */
re_status re_path_beside(const char *script_path, const char *value, char **out);

/* Opens `rel` beneath the folder dirfd: every step of the lookup, symlinks and ".." included,
 * stays beneath it, so a name or a link that leads out, or one swapped in while the file is
 * opened, is refused (EXDEV) instead of followed; links that stay beneath are followed.
 * openat2 with RESOLVE_BENEATH (Linux 5.6 and later); where the kernel or a seccomp filter
 * has no openat2, re_walk_beneath. The fd (flags as open's), or -1 with errno. */
int re_open_beneath(int dirfd, const char *rel, int flags);

/* re_open_beneath for a file found in a folder rather than named by the user (a show's cover
 * art): also -1 with errno EPERM and *owner set when the file, or a symlink at `rel`, belongs
 * to another user (re_owner_trusted); their file is opened only to be judged (give flags
 * O_NONBLOCK, so that their FIFO is never waited on) and closed. */
int re_open_beneath_trusted(int dirfd, const char *rel, int flags, uid_t *owner);

/* The same by a walk, name by name, each folder opened with O_NOFOLLOW from the one before
 * (a symlink is read and its text walked in its place: an absolute one is EXDEV, more than 40
 * ELOOP), ".." taking back the folder it came from and EXDEV above dirfd. Public for its unit
 * test; re_open_beneath chooses it where it must. */
int re_walk_beneath(int dirfd, const char *rel, int flags);

/* The one way to open a file a script names: it must be beneath the script's folder
 * (script_path's) or one of allowed_dirs[0..n) (--allow-path), so that a script from
 * elsewhere cannot make the program read (and quote in its errors) any file the user can
 * read. `path` is the resolved one (re_path_beside). It is opened (open's `flags`) with
 * re_open_beneath from the folder it is beneath: the script's for a relative name, else the
 * one its real path is in. Symlinks that stay beneath a folder are followed; one that leads
 * out, a name the lookup cannot follow to its end (too long, a loop) and an absolute path
 * elsewhere are "outside", whatever happens to the files while it is opened.
 *
 * RE_OK with *fd open (the caller closes it); or RE_OK with *fd -1 and *error the errno of a
 * file that is beneath but cannot be opened (ENOENT, EACCES, ...), or *error 0 when it is
 * outside. RE_ERR_INTERRUPTED when a stop signal ended the wait for a FIFO's writer (flags
 * without O_NONBLOCK); RE_ERR_NOMEM, RE_ERR_INVALID. */
re_status re_path_open_confined(const char *script_path, const char *path,
                                const char *const *allowed_dirs, size_t n, int flags, int *fd,
                                int *error);

#endif
