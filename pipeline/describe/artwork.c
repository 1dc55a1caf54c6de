/* SPDX-License-Identifier: GPL-3.0-or-later */
/* artwork.c - a podcast's cover art against Apple's rules, from the PNG or JPEG header alone
 * (libpng, libjpeg-turbo): see artwork.h. */
#define _GNU_SOURCE  /* O_PATH */
#include "artwork.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "files.h"

typedef struct artwork {
    unsigned width, height;
    int rgb;
    const char *format;
} artwork;

static void png_quiet(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static void png_fail(png_structp png, png_const_charp message)
{
    (void)message;
    png_longjmp(png, 1);
}

/* Reads a PNG's header (IHDR): size and colour type. 0 when it is not a readable PNG. */
static int png_header(FILE *f, artwork *a)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, png_fail, png_quiet);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    volatile int ok = 0;
    if (png && info && setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_read_info(png, info);
        int type = png_get_color_type(png, info);
        a->width = png_get_image_width(png, info);
        a->height = png_get_image_height(png, info);
        a->rgb = type == PNG_COLOR_TYPE_RGB || type == PNG_COLOR_TYPE_RGB_ALPHA;
        a->format = "PNG";
        ok = 1;
    }
    png_destroy_read_struct(png ? &png : NULL, info ? &info : NULL, NULL);
    return ok;
}

typedef struct jpeg_failure {
    struct jpeg_error_mgr mgr;
    jmp_buf jump;
} jpeg_failure;

static void jpeg_fail(j_common_ptr cinfo)
{
    longjmp(((jpeg_failure *)cinfo->err)->jump, 1);
}

static void jpeg_quiet(j_common_ptr cinfo, int level)
{
    (void)cinfo;
    (void)level;
}

/* Reads a JPEG's header (up to its first frame): size and colour space. 0 when unreadable. */
static int jpeg_header(FILE *f, artwork *a)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    volatile int ok = 0;
    cinfo.err = jpeg_std_error(&failure.mgr);
    failure.mgr.error_exit = jpeg_fail;
    failure.mgr.emit_message = jpeg_quiet;
    if (setjmp(failure.jump) == 0) {
        jpeg_create_decompress(&cinfo);
        jpeg_stdio_src(&cinfo, f);
        if (jpeg_read_header(&cinfo, TRUE) == JPEG_HEADER_OK) {
            a->width = cinfo.image_width;
            a->height = cinfo.image_height;
            a->rgb = cinfo.num_components == 3
                     && (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_RGB);
            a->format = "JPEG";
            ok = 1;
        }
    }
    jpeg_destroy_decompress(&cinfo);
    return ok;
}

/* Opens name beneath dir without waiting: the fd, or -1 with a message at path. */
static re_status open_beneath(const char *dir, const char *name, const char *path, int *fd,
                              re_diagnostics *diag)
{
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    uid_t owner = 0;
    *fd = dirfd < 0 ? -1 : re_open_beneath_trusted(dirfd, name, O_RDONLY | O_NONBLOCK
                                                                | O_CLOEXEC | O_NOCTTY, &owner);
    int err = errno;
    if (dirfd >= 0)
        (void)close(dirfd);
    if (*fd >= 0)
        return RE_OK;
    if (dirfd >= 0 && err == EPERM)   /* published by URL: they could change it at any time */
        return re_diag_fail(diag, RE_ERR_READ, path, 0, 0, "it belongs to another user (uid "
                            "%ju), not to you or root: the cover art must be your own file",
                            (uintmax_t)owner);
    if (dirfd >= 0 && (err == EXDEV || err == ELOOP))
        return re_diag_fail(diag, RE_ERR_READ, path, 0, 0, "it leads out of the folder %s "
                            "(a symlink to elsewhere): the cover art must be a file there", dir);
    return re_diag_fail(diag, RE_ERR_READ, path, 0, 0, "cannot open: %s", strerror(err));
}

/* The rules on an open stream: RE_OK with *mime ("image/jpeg" or "image/png"; mime may be
 * NULL), or RE_ERR_INPUT with one message at path. */
static re_status check_stream(FILE *f, const char *path, const char **mime, re_diagnostics *diag)
{
    unsigned char magic[8] = { 0 };
    size_t got = fread(magic, 1, sizeof magic, f);
    rewind(f);
    artwork a = { 0 };
    int read = 0;
    if (got == 8 && png_sig_cmp(magic, 0, 8) == 0)
        read = png_header(f, &a);
    else if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff)
        read = jpeg_header(f, &a);
    if (!read)
        return re_diag_fail(diag, RE_ERR_INPUT, path, 0, 0, "the cover art must be a JPEG or "
                            "PNG file (Apple Podcasts reads no other)");
    if (a.width != a.height || a.width < RE_ARTWORK_MIN_PX || a.width > RE_ARTWORK_MAX_PX)
        return re_diag_fail(diag, RE_ERR_INPUT, path, 0, 0, "the cover art is %ux%u px; Apple "
                            "Podcasts wants a square of %u to %u px", a.width, a.height,
                            RE_ARTWORK_MIN_PX, RE_ARTWORK_MAX_PX);
    if (!a.rgb)
        return re_diag_fail(diag, RE_ERR_INPUT, path, 0, 0, "the cover art is a %s that is not "
                            "in RGB colour (grey, indexed or CMYK); Apple Podcasts wants RGB",
                            a.format);
    if (mime)
        *mime = strcmp(a.format, "PNG") == 0 ? "image/png" : "image/jpeg";
    return RE_OK;
}

static re_status check_file(const char *dir, const char *name, const char *path,
                            re_diagnostics *diag)
{
    /* a regular file only (opened without waiting: a FIFO is no cover art to publish) */
    size_t from = diag ? diag->count : 0;
    int fd = -1;
    uint64_t size = 0;
    re_status status = open_beneath(dir, name, path, &fd, diag);
    if (status == RE_OK)
        status = re_file_check_regular(fd, path, &size, diag);
    if (status != RE_OK) {
        if (diag)
            re_diag_prefix(diag, from, "cannot read the cover art: ");
        return status == RE_ERR_NOMEM ? status : RE_ERR_INPUT;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return RE_ERR_NOMEM;
    }
    status = check_stream(f, path, NULL, diag);
    fclose(f);
    return status;
}

re_status re_artwork_check(const char *dir, const char *name, re_diagnostics *diag)
{
    char *path = re_path_join(dir, name);
    if (!path)
        return RE_ERR_NOMEM;
    re_status status = check_file(dir, name, path, diag);
    free(path);
    return status;
}

re_status re_artwork_check_bytes(const unsigned char *bytes, size_t len, const char *path,
                                 const char **mime, re_diagnostics *diag)
{
    static const unsigned char none[1];
    FILE *f = fmemopen((void *)(len ? bytes : none), len ? len : 1, "rb");
    if (!f)
        return RE_ERR_NOMEM;
    re_status status = len ? check_stream(f, path, mime, diag)
                           : re_diag_fail(diag, RE_ERR_INPUT, path, 0, 0, "the cover art must "
                                          "be a JPEG or PNG file (this one is empty)");
    fclose(f);
    return status;
}
