/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cover.c - the cover art an episode carries (see cover.h). */
#define _GNU_SOURCE  /* O_PATH */
#include "cover.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "artwork.h"
#include "files.h"
#include "show.h"

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* The bytes of the open fd (closed here), checked: RE_OK with out's bytes, mime and digest. */
static re_status read_checked(int fd, episode_cover *out, re_diagnostics *diag)
{
    char *bytes = NULL;
    size_t len = 0;
    size_t from = diag->count;
    re_status status = re_file_read_fd(fd, out->path, RE_COVER_MAX_SIZE, RE_READ_REGULAR,
                                       &bytes, &len, diag);
    if (status != RE_OK) {
        re_diag_prefix(diag, from, "cannot read the cover art: ");
        return status == RE_ERR_NOMEM || status == RE_ERR_INTERRUPTED ? status : RE_ERR_INPUT;
    }
    out->bytes = (unsigned char *)bytes;
    out->len = len;
    status = re_artwork_check_bytes(out->bytes, len, out->path, &out->mime, diag);
    if (status == RE_OK) {
        re_sha256(out->bytes, len, out->sha256);
        re_sha256_hex(out->sha256, out->sha256_hex);
        out->present = 1;
    }
    return status;
}

/* The script's `image:`, beneath its folder or an allowed one; errors at the value. */
static re_status own_cover(const re_episode *ep, const char *script_path,
                           const char *const *allowed_dirs, size_t allowed_dir_count,
                           episode_cover *out, re_diagnostics *diag)
{
    int fd = -1, error = 0;
    out->own = 1;
    if (!(out->name = strdup(ep->image)))
        return RE_ERR_NOMEM;
    re_status status = re_path_beside(script_path, ep->image, &out->path);
    if (status == RE_OK)   /* beneath the script's folder or an allowed one (files.h) */
        status = re_path_open_confined(script_path, out->path, allowed_dirs, allowed_dir_count,
                                       OPEN_FLAGS, &fd, &error);
    if (status != RE_OK)
        return status;
    if (fd < 0 && !error)
        return re_diag_fail(diag, RE_ERR_INPUT, ep->file, ep->image_line, ep->image_col,
                            "image '%s' is outside the script's folder; a script may name only "
                            "files in its own folder tree (allow another folder with "
                            "--allow-path DIR)", ep->image);
    if (fd < 0)
        return re_diag_fail(diag, RE_ERR_INPUT, ep->file, ep->image_line, ep->image_col,
                            "image '%s': cannot open: %s", ep->image, strerror(error));
    size_t from = diag->count;
    status = read_checked(fd, out, diag);
    if (status == RE_ERR_INPUT) {   /* said of the file: moved to the script's value */
        for (size_t i = from; i < diag->count; i++) {
            free(diag->items[i].file);
            diag->items[i] = (re_diag){ NULL, 0, 0, diag->items[i].message };
        }
        re_diag_prefix(diag, from, "image '%s': ", ep->image);
        re_diag_place(diag, from, ep->file, ep->image_line, ep->image_col);
    }
    return status;
}

/* A file another user put in the output's folder (not the running user's, not root's): they
 * could have planted it, in a shared folder, to become this episode's cover art, or broken it
 * to fail every render there. Ignored, with a warning naming it and its owner. */
static re_status ignore_foreign(const char *path, uid_t owner, re_diagnostics *diag)
{
    return re_diag_add(diag, path, 0, 0, "warning: ignored: it belongs to another user (uid %ju), "
                       "not to you or root; no cover art is taken from it", (uintmax_t)owner)
           == RE_OK ? RE_OK : RE_ERR_NOMEM;
}

/* The show's local `image:` in the output's folder `dir`, opened beneath it. */
static re_status show_cover(const char *dir, const char *image, episode_cover *out,
                            re_diagnostics *diag)
{
    if (!(out->name = strdup(image)) || !(out->path = re_path_join(dir, image)))
        return RE_ERR_NOMEM;
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    uid_t owner = 0;
    int fd = dirfd < 0 ? -1 : re_open_beneath_trusted(dirfd, image, OPEN_FLAGS, &owner);
    int err = errno;
    if (dirfd >= 0)
        (void)close(dirfd);
    if (fd < 0 && dirfd >= 0 && err == EPERM)
        return ignore_foreign(out->path, owner, diag);
    if (fd < 0 && dirfd >= 0 && (err == EXDEV || err == ELOOP))
        return re_diag_fail(diag, RE_ERR_INPUT, out->path, 0, 0, "cannot read the cover art: "
                            "it leads out of the folder %s (a symlink to elsewhere): the cover "
                            "art must be a file there", dir);
    if (fd < 0)
        return re_diag_fail(diag, RE_ERR_INPUT, out->path, 0, 0, "cannot read the cover art: "
                            "cannot open: %s", strerror(err));
    return read_checked(fd, out, diag);
}

/* The output's folder: "." for a bare name. Malloc'ed. */
static char *folder_of(const char *output_path)
{
    const char *slash = strrchr(output_path, '/');
    if (!slash)
        return strdup(".");
    if (slash == output_path)
        return strdup("/");
    return strndup(output_path, (size_t)(slash - output_path));
}

re_status re_episode_cover_load(const re_episode *ep, const char *script_path,
                                const char *const *allowed_dirs, size_t allowed_dir_count,
                                const char *output_path, episode_cover *out, re_diagnostics *diag)
{
    memset(out, 0, sizeof *out);
    char *dir = folder_of(output_path);
    char *show_path = dir ? re_path_join(dir, RE_SHOW_FILE_NAME) : NULL;
    if (!show_path) {
        free(dir);
        return RE_ERR_NOMEM;
    }
    /* No show file: no cover (a render needs none); one that is there must be right, when it
     * is ours (the script's own cover aside, which needs nothing of it). A regular file only:
     * a render never waits on a FIFO for its cover. Another user's is not our show's at all. */
    re_status status = RE_OK;
    re_show show;
    re_show_init(&show);
    struct stat st;
    int in_feed = 0;
    uid_t owner = 0;
    if (ep->image) {
        int link = lstat(show_path, &st) == 0 && S_ISLNK(st.st_mode);
        if (link && !re_owner_trusted(st.st_uid))
            owner = st.st_uid;
        else if (stat(show_path, &st) == 0 && !re_owner_trusted(st.st_uid))
            owner = st.st_uid;
        else
            in_feed = stat(show_path, &st) == 0 && S_ISREG(st.st_mode);
        status = owner ? ignore_foreign(show_path, owner, diag) : RE_OK;
        if (status == RE_OK)
            status = own_cover(ep, script_path, allowed_dirs, allowed_dir_count, out, diag);
    } else if (lstat(show_path, &st) == 0 || errno != ENOENT) {
        char *text = NULL;
        size_t len = 0;
        size_t from = diag->count;
        status = re_file_read_trusted(show_path, RE_SHOW_MAX_SIZE, RE_READ_REGULAR, &text, &len,
                                      &owner, diag);
        if (status == RE_ERR_READ || status == RE_ERR_LIMIT) {
            re_diag_prefix(diag, from, "cannot read the show file (for the cover art): ");
            status = RE_ERR_INPUT;
        } else if (status == RE_OK && !text) {
            status = ignore_foreign(show_path, owner, diag);
        } else if (status == RE_OK) {
            in_feed = 1;
            status = re_show_parse(show_path, text, len, &show, diag);
        }
        free(text);
        if (status == RE_OK && show.image && !strstr(show.image, "://"))
            status = show_cover(dir, show.image, out, diag);
    }
    re_show_free(&show);
    free(show_path);
    free(dir);
    out->in_feed = in_feed;
    return status;
}

void re_episode_cover_free(episode_cover *cover)
{
    free(cover->path);
    free(cover->name);
    free(cover->bytes);
    memset(cover, 0, sizeof *cover);
}
