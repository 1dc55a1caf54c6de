/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_artwork.c - cover art is decoded whole before it is accepted: images written here by
 * libpng and libjpeg (baseline, progressive, interlaced, with alpha, 16-bit, 3000 px) pass;
 * the same images cut at any length, or with junk in place of their data, are refused as
 * images that cannot be decoded; a progressive JPEG of more scans than the limit too. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <png.h>

#include "artwork.h"
#include "testkit.h"

typedef struct image {
    unsigned char *bytes;
    size_t len;
} image;

/* A picture that is not flat (flat colour compresses to almost nothing, and its scans would
 * hide damage in long runs of one code): a gradient with a pattern. */
static unsigned char sample(unsigned x, unsigned y, unsigned c)
{
    return (unsigned char)((x * (c + 1) + y * (3 - c) + ((x ^ y) & 0x1f) * 4) & 0xff);
}

static image png_of(unsigned px, int colour_type, int depth, int interlace)
{
    image out = { 0 };
    FILE *f = open_memstream((char **)&out.bytes, &out.len);
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)) != 0) {
        fprintf(stderr, "libpng failed to write the test image\n");
        exit(1);
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, px, px, depth, colour_type,
                 interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 1);
    png_write_info(png, info);
    unsigned channels = colour_type == PNG_COLOR_TYPE_RGB_ALPHA ? 4
                        : colour_type == PNG_COLOR_TYPE_RGB ? 3 : 1;
    size_t bytes = depth / 8 ? (size_t)depth / 8 : 1;
    unsigned char *row = calloc((size_t)px * channels * bytes, 1);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++) {
        for (unsigned y = 0; y < px; y++) {
            for (unsigned x = 0; x < px; x++)
                for (unsigned c = 0; c < channels; c++)
                    for (size_t b = 0; b < bytes; b++)
                        row[((size_t)x * channels + c) * bytes + b] = sample(x, y, c);
            png_write_row(png, row);
        }
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(row);
    fclose(f);
    return out;
}

/* A JPEG of px x px; scans > 0 writes that many progressive scans (each AC coefficient of
 * each component alone, refined once per bit: see jpeg_many_scans), -1 the standard
 * progression, 0 a baseline JPEG. */
static image jpeg_of(unsigned px, int components, int scans, int subsample)
{
    image out = { 0 };
    struct jpeg_compress_struct cinfo;
    struct jpeg_error_mgr err;
    cinfo.err = jpeg_std_error(&err);
    jpeg_create_compress(&cinfo);
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &out.bytes, &size);
    cinfo.image_width = cinfo.image_height = px;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 90, TRUE);
    if (components == 3 && !subsample)
        for (int c = 0; c < 3; c++)
            cinfo.comp_info[c].h_samp_factor = cinfo.comp_info[c].v_samp_factor = 1;
    jpeg_scan_info *script = NULL;
    if (scans < 0) {
        jpeg_simple_progression(&cinfo);
    } else if (scans > 0) {
        /* DC of all components, then every AC coefficient of every component on its own:
         * first at Al = 2, refined at Al = 1 and 0 */
        script = calloc((size_t)scans, sizeof *script);
        int n = 0;
        script[n++] = (jpeg_scan_info){ 3, { 0, 1, 2, 0 }, 0, 0, 0, 0 };
        for (int al = 2; al >= 0; al--)
            for (int c = 0; c < 3; c++)
                for (int k = 1; k < 64 && n < scans; k++)
                    script[n++] = (jpeg_scan_info){ 1, { c, 0, 0, 0 }, k, k, al == 2 ? 0 : al + 1,
                                                    al };
        cinfo.scan_info = script;
        cinfo.num_scans = n;
    }
    jpeg_start_compress(&cinfo, TRUE);
    unsigned char *row = malloc((size_t)px * (size_t)components);
    while (cinfo.next_scanline < px) {
        for (unsigned x = 0; x < px; x++)
            for (int c = 0; c < components; c++)
                row[(size_t)x * (size_t)components + (size_t)c] = sample(x, cinfo.next_scanline,
                                                                         (unsigned)c);
        JSAMPROW rows[1] = { row };
        jpeg_write_scanlines(&cinfo, rows, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    free(row);
    free(script);
    out.len = size;
    return out;
}

static re_status judge(const unsigned char *bytes, size_t len, const char **why)
{
    static char last[512];
    re_diagnostics d;
    re_diagnostics_init(&d, 10);
    const char *mime = NULL;
    re_status st = re_artwork_check_bytes(bytes, len, "art", &mime, &d);
    snprintf(last, sizeof last, "%s", d.count ? d.items[0].message : "");
    if (why)
        *why = last;
    re_diagnostics_free(&d);
    return st;
}

static void check_accepted(image im, const char *what)
{
    const char *why = NULL;
    re_status st = judge(im.bytes, im.len, &why);
    if (st != RE_OK)
        fprintf(stderr, "  %s refused: %s\n", what, why);
    CHECK_INT(st, RE_OK);
}

/* Every cut (lengths spread over the file, and each of its last 16 bytes) is refused as an
 * image that cannot be decoded; so is the file with junk in place of its data from places
 * spread over it: to its end (the JPEG's EOI kept), or, with junk_to_end 0, for 48 bytes
 * (every PNG chunk has a CRC; JPEG scan data has none, and junk in it may still decode, as
 * garbage, so only a JPEG whose data is junk to its end is sure to be refused). */
static void check_damage_refused(image im, const char *format, size_t data_from, int junk_to_end)
{
    char words[64];
    snprintf(words, sizeof words, "the cover art is a %s that cannot be decoded: ", format);
    size_t refused = 0, tried = 0;
    for (size_t cut = data_from; cut < im.len; cut += cut + 16 >= im.len ? 1 : im.len / 47 + 1) {
        const char *why = NULL;
        tried++;
        if (judge(im.bytes, cut, &why) == RE_ERR_INPUT && strncmp(why, words, strlen(words)) == 0)
            refused++;
        else
            fprintf(stderr, "  %s cut at %zu of %zu: \"%s\"\n", format, cut, im.len, why);
    }
    CHECK_INT(refused, tried);
    CHECK(tried > 40);
    unsigned char *copy = malloc(im.len);
    refused = tried = 0;
    for (size_t at = data_from + 32; at + 64 < im.len; at += im.len / 41 + 1) {
        memcpy(copy, im.bytes, im.len);
        size_t end = junk_to_end ? im.len - 2 : at + 48;
        unsigned seed = (unsigned)at;
        for (size_t i = at; i < end; i++) {   /* junk where the data was */
            seed = seed * 1103515245u + 12345u;
            copy[i] = (unsigned char)(seed >> 16);
        }
        const char *why = NULL;
        tried++;
        if (judge(copy, im.len, &why) == RE_ERR_INPUT && strncmp(why, words, strlen(words)) == 0)
            refused++;
        else
            fprintf(stderr, "  %s junk at %zu of %zu: \"%s\"\n", format, at, im.len, why);
    }
    CHECK_INT(refused, tried);
    CHECK(tried > 20);
    free(copy);
}

static void test_pngs(void)
{
    image plain = png_of(1400, PNG_COLOR_TYPE_RGB, 8, 0);
    check_accepted(plain, "RGB PNG");
    check_damage_refused(plain, "PNG", 8 + 25, 0);   /* the whole IHDR is there */
    free(plain.bytes);
    image im = png_of(1400, PNG_COLOR_TYPE_RGB_ALPHA, 16, 1);
    check_accepted(im, "interlaced 16-bit RGBA PNG");
    check_damage_refused(im, "PNG", 8 + 25, 0);
    free(im.bytes);
    im = png_of(3000, PNG_COLOR_TYPE_RGB, 8, 1);
    check_accepted(im, "3000 px interlaced PNG");
    free(im.bytes);
    /* grey: refused by its header, as before, without decoding */
    im = png_of(1400, PNG_COLOR_TYPE_GRAY, 8, 0);
    const char *why = NULL;
    CHECK_INT(judge(im.bytes, im.len / 2, &why), RE_ERR_INPUT);
    CHECK(strstr(why, "is a PNG that is not in RGB colour") != NULL);
    free(im.bytes);
}

/* Where a JPEG's first scan's data begins: after the SOS segment. */
static size_t first_scan(image im)
{
    for (size_t i = 2; i + 4 < im.len; i++)
        if (im.bytes[i] == 0xff && im.bytes[i + 1] == 0xda)
            return i + 2 + (size_t)(im.bytes[i + 2] << 8 | im.bytes[i + 3]);
    return im.len;
}

static void test_jpegs(void)
{
    image im = jpeg_of(1400, 3, 0, 1);
    check_accepted(im, "baseline 4:2:0 JPEG");
    check_damage_refused(im, "JPEG", first_scan(im), 1);
    free(im.bytes);
    im = jpeg_of(1400, 3, -1, 1);
    check_accepted(im, "progressive JPEG");
    check_damage_refused(im, "JPEG", first_scan(im), 1);
    free(im.bytes);
    /* the most memory an accepted image takes: every coefficient of a 3000 px 4:4:4 frame */
    im = jpeg_of(3000, 3, -1, 0);
    check_accepted(im, "3000 px progressive 4:4:4 JPEG");
    free(im.bytes);
    /* 101 scans, each one valid: more than the limit (3 x 63 x 3 + 1 = 568, all of them) */
    const char *why = NULL;
    for (int scans = 101; scans <= 568; scans += 467) {
        im = jpeg_of(1400, 3, scans, 1);
        CHECK_INT(judge(im.bytes, im.len, &why), RE_ERR_INPUT);
        CHECK_STR(why, "the cover art is a JPEG that cannot be decoded: it has more than 100 "
                       "scans");
        free(im.bytes);
    }
    im = jpeg_of(1400, 3, 100, 1);   /* the limit: fine */
    check_accepted(im, "JPEG of 100 scans");
    free(im.bytes);
    /* grey: refused by its header, before any decoding */
    im = jpeg_of(1400, 1, 0, 1);
    CHECK_INT(judge(im.bytes, first_scan(im) + 10, &why), RE_ERR_INPUT);
    CHECK(strstr(why, "is a JPEG that is not in RGB colour") != NULL);
    free(im.bytes);
}

int main(void)
{
    test_pngs();
    test_jpegs();
    return check_finish("test_artwork");
}
