/* SPDX-License-Identifier: GPL-3.0-or-later */
/* artwork.h - a podcast's cover art checked against what Apple Podcasts requires: a JPEG or
 * PNG, RGB, square, RE_ARTWORK_MIN_PX..RE_ARTWORK_MAX_PX, that decodes. The header is read
 * first (libpng's png_read_info, libjpeg-turbo's jpeg_read_header); only an image that passes
 * those rules is decoded, whole (every row, to the PNG's IEND or the JPEG's EOI), so that the
 * size, and with it the memory and time of decoding, is bounded before a pixel is read. A
 * decoder's error, and any libjpeg warning (corrupt or missing data), refuses the image. */
#ifndef RE_ARTWORK_H
#define RE_ARTWORK_H

#include <stddef.h>

#include "status.h"

#define RE_ARTWORK_MIN_PX 1400
#define RE_ARTWORK_MAX_PX 3000

/* The file `name` in the folder `dir`, opened beneath it (files.h: a symlink that leads out of
 * the folder is refused, never followed). RE_OK, or RE_ERR_INPUT with one message at dir/name
 * saying what is wrong (it cannot be read, leads out of the folder, is neither a PNG nor a
 * JPEG by its signature, has the wrong size, is grey, indexed or CMYK, or cannot be decoded:
 * cut short, corrupt); RE_ERR_NOMEM. */
re_status re_artwork_check(const char *dir, const char *name, re_diagnostics *diag);

/* The same rules on a file already read (the bytes an MP3 embeds: run/cover.h): RE_OK with
 * *mime "image/jpeg" or "image/png" (mime may be NULL), or RE_ERR_INPUT with one message at
 * path; RE_ERR_NOMEM. */
re_status re_artwork_check_bytes(const unsigned char *bytes, size_t len, const char *path,
                                 const char **mime, re_diagnostics *diag);

#endif
