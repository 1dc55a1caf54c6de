/* SPDX-License-Identifier: GPL-3.0-or-later */
/* artwork.c - a podcast's cover art against Apple's rules: its PNG or JPEG header, then the
 * whole image decoded (libpng, libjpeg-turbo): see artwork.h. */
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
#include <jerror.h>
#include <png.h>

#include "files.h"

typedef struct artwork {
    unsigned width, height;
    int rgb;
    const char *format;
    char why[160];   /* set when the file cannot be decoded: the decoder's own words */
} artwork;

/* The rules a header must pass before anything else of the file is read: they bound what
 * decoding it may cost (a row of at most RE_ARTWORK_MAX_PX pixels, JPEG_MEMORY_LIMIT). */
static int acceptable(const artwork *a)
{
    return a->width == a->height && a->width >= RE_ARTWORK_MIN_PX
           && a->width <= RE_ARTWORK_MAX_PX && a->rgb;
}

/* A library's message into a->why, printable ASCII only (libpng quotes chunk names, which
 * come from the file). */
static void say_why(artwork *a, const char *message)
{
    size_t n = 0;
    for (; message && message[n] && n + 1 < sizeof a->why; n++) {
        unsigned char c = (unsigned char)message[n];
        a->why[n] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    a->why[n] = '\0';
    if (n == 0)
        snprintf(a->why, sizeof a->why, "the decoder gives no reason");
}

/* ---- PNG (libpng) ------------------------------------------------------------------------ */

/* Warnings are about ancillary data (a bad CRC in a text chunk, a colour profile): the image
 * still shows. Errors end the decoding. */
static void png_quiet(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static void png_fail(png_structp png, png_const_charp message)
{
    say_why(png_get_error_ptr(png), message);
    png_longjmp(png, 1);
}

static void png_read_stream(png_structp png, png_bytep data, size_t length)
{
    if (fread(data, 1, length, png_get_io_ptr(png)) != length)
        png_error(png, "the file ends before the image does (cut short?)");
}

/* Reads a PNG's header (IHDR): size and colour type; when they pass the rules, decodes every
 * row (each interlace pass) and reads on to IEND, checking every CRC of the critical chunks.
 * Ancillary chunks are skipped unread (no compressed text or profile is inflated). The
 * memory is one row. a->why is set when it cannot be decoded. */
static void decode_png(FILE *f, artwork *a)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, a, png_fail, png_quiet);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep volatile row = NULL;
    if (!png || !info) {
        say_why(a, "out of memory");
    } else if (setjmp(png_jmpbuf(png)) == 0) {
        png_set_read_fn(png, f, png_read_stream);
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
        png_read_info(png, info);
        int type = png_get_color_type(png, info);
        a->width = png_get_image_width(png, info);
        a->height = png_get_image_height(png, info);
        a->rgb = type == PNG_COLOR_TYPE_RGB || type == PNG_COLOR_TYPE_RGB_ALPHA;
        if (acceptable(a)) {
            int passes = png_set_interlace_handling(png);
            png_read_update_info(png, info);
            if (!(row = malloc(png_get_rowbytes(png, info))))
                png_error(png, "out of memory");
            for (int pass = 0; pass < passes; pass++)
                for (unsigned y = 0; y < a->height; y++)
                    png_read_row(png, row, NULL);
            png_read_end(png, NULL);
        }
    }
    free(row);
    png_destroy_read_struct(png ? &png : NULL, info ? &info : NULL, NULL);
}

/* ---- JPEG (libjpeg-turbo) ------------------------------------------------------------------ */

/* The memory libjpeg may take for one image: a progressive JPEG holds every coefficient of the
 * frame (3 components of 376x376 blocks of 64 16-bit values at 3000 px: 54 MB). More is an
 * error, never a backing file. */
#define JPEG_MEMORY_LIMIT (80L << 20)
/* Scans of a progressive JPEG: an encoder writes about ten (jpegtran 10, mozjpeg fewer than
 * 20); each more costs a pass over every coefficient, so thousands of tiny ones would cost
 * minutes (libjpeg-turbo's own advice is to bound them). 100 scans at 3000 px decode in
 * about 0.4 s. */
#define JPEG_MAX_SCANS 100

typedef struct jpeg_failure {
    struct jpeg_error_mgr mgr;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    artwork *a;
} jpeg_failure;

/* libjpeg's error_exit, which would call exit(): the message, and back to decode_jpeg. */
static void jpeg_fail(j_common_ptr cinfo)
{
    jpeg_failure *failure = (jpeg_failure *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    say_why(failure->a, message);
    longjmp(failure->jump, 1);
}

/* A warning (level -1) is corrupt data that libjpeg decodes around (a premature end, a bad
 * Huffman code, junk before a marker): grey blocks or garbage where the picture was. It ends
 * the decoding as an error would. Trace messages (level >= 0) are not warnings. */
static void jpeg_message(j_common_ptr cinfo, int level)
{
    if (level < 0)
        jpeg_fail(cinfo);
}

static void jpeg_scans(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    jpeg_failure *failure = (jpeg_failure *)cinfo->err;
    if (d->input_scan_number > JPEG_MAX_SCANS) {
        snprintf(failure->a->why, sizeof failure->a->why, "it has more than %d scans",
                 JPEG_MAX_SCANS);
        longjmp(failure->jump, 1);
    }
}

/* Reads a JPEG's header (up to its first scan): size and colour space; when they pass the
 * rules, decodes every scanline and reads on to EOI. a->why is set when it cannot be
 * decoded. */
static void decode_jpeg(FILE *f, artwork *a)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure = { .a = a };
    cinfo.err = jpeg_std_error(&failure.mgr);
    failure.mgr.error_exit = jpeg_fail;
    failure.mgr.emit_message = jpeg_message;
    failure.progress.progress_monitor = jpeg_scans;
    if (setjmp(failure.jump) == 0) {
        jpeg_create_decompress(&cinfo);
        cinfo.mem->max_memory_to_use = JPEG_MEMORY_LIMIT;
        cinfo.progress = &failure.progress;
        jpeg_stdio_src(&cinfo, f);
        if (jpeg_read_header(&cinfo, TRUE) != JPEG_HEADER_OK)
            ERREXIT(&cinfo, JERR_NO_IMAGE);
        a->width = cinfo.image_width;
        a->height = cinfo.image_height;
        a->rgb = cinfo.num_components == 3
                 && (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_RGB);
        if (acceptable(a)) {
            /* every scan's data is entropy-decoded whatever the output scale (that is where
             * damage shows: IDCT and colour conversion cannot fail), so the pixels are made
             * at 1/8 scale, from each block's DC value: a fifth of the time */
            cinfo.scale_num = 1;
            cinfo.scale_denom = 8;
            jpeg_start_decompress(&cinfo);
            JSAMPARRAY row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                                        cinfo.output_width
                                                        * (JDIMENSION)cinfo.output_components,
                                                        1);
            while (cinfo.output_scanline < cinfo.output_height)
                jpeg_read_scanlines(&cinfo, row, 1);
            jpeg_finish_decompress(&cinfo);
        }
    }
    jpeg_destroy_decompress(&cinfo);
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
    if (got == 8 && png_sig_cmp(magic, 0, 8) == 0) {
        a.format = "PNG";
        decode_png(f, &a);
    } else if (got >= 3 && magic[0] == 0xff && magic[1] == 0xd8 && magic[2] == 0xff) {
        a.format = "JPEG";
        decode_jpeg(f, &a);
    } else {
        return re_diag_fail(diag, RE_ERR_INPUT, path, 0, 0, "the cover art must be a JPEG or "
                            "PNG file (Apple Podcasts reads no other)");
    }
    if (a.why[0])
        return re_diag_fail(diag, RE_ERR_INPUT, path, 0, 0, "the cover art is a %s that cannot "
                            "be decoded: %s", a.format, a.why);
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
