/*
 * medley_vips.h — the only C surface Medley's Swift code sees of libvips.
 *
 * libvips' public API is variadic (`vips_jpegsave(in, path, "Q", 85, NULL)`) and macro-heavy,
 * which Swift cannot call. These functions take plain arguments and an opaque image handle
 * (a VipsImage* underneath, reference-counted: every function returning a handle returns a
 * new reference that the caller releases with medley_image_unref).
 */
#ifndef MEDLEY_VIPS_H
#define MEDLEY_VIPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct MedleyImage MedleyImage;

/* Starts libvips once per process. Returns 0 on success. */
int medley_vips_start(const char *program_name);

/* Sets the size of libvips' worker pool for each image pipeline. */
void medley_vips_set_concurrency(int threads);

/* The text of the last libvips error on this thread's buffer, then clears it. The caller
 * frees the returned string with free(). Never NULL. */
char *medley_vips_take_error(void);

/* Name of the libvips loader that recognises the file's content ("jpegload", …), or NULL.
 * Sniffs magic bytes; does not decode. The returned string is static. */
const char *medley_vips_find_loader(const char *path);

/* Whether this libvips build has an operation of that nickname (e.g. "heifsave"). */
int medley_vips_has_operation(const char *nickname);

/* Opens a file lazily (header only until pixels are asked for). sequential: stream top to
 * bottom (a pipeline that reads once); otherwise random access. fail_on_error: a damaged
 * or truncated file fails instead of decoding to grey. Returns NULL on error. */
MedleyImage *medley_image_open(const char *path, int sequential, int fail_on_error);
void medley_image_unref(MedleyImage *image);

int medley_image_width(const MedleyImage *image);
int medley_image_height(const MedleyImage *image);
int medley_image_bands(const MedleyImage *image);
/* VipsBandFormat value: 0 uchar, 2 ushort, 6 float, … */
int medley_image_format(const MedleyImage *image);
/* VipsInterpretation nickname: "srgb", "b-w", "rgb16", "grey16", "cmyk", … (static). */
const char *medley_image_interpretation(const MedleyImage *image);
/* EXIF orientation 1…8 (1 when absent). */
int medley_image_orientation(const MedleyImage *image);
/* Size in bytes of the embedded ICC profile, 0 when none. */
size_t medley_image_icc_length(const MedleyImage *image);
/* The loader that opened the image ("jpegload", "pngload", …), or "" (static/internal). */
const char *medley_image_loader(const MedleyImage *image);

/* Calls visit(ctx, name, value) for every metadata field whose value is a string or
 * number-like (EXIF fields are "exif-ifd0-Make" and so on). value is libvips' text form. */
typedef void (*medley_field_visitor)(void *ctx, const char *name, const char *value);
void medley_image_visit_fields(const MedleyImage *image, medley_field_visitor visit, void *ctx);

/* Rotates/flips by the EXIF orientation and resets it to 1. Returns a new handle. */
MedleyImage *medley_image_autorot(MedleyImage *image);
/* Converts to RGB(A) in sRGB coding: 8-bit "srgb" when deep == 0, 16-bit "rgb16" otherwise.
 * Grey becomes three equal channels; alpha is kept. Returns a new handle. */
MedleyImage *medley_image_to_rgb(MedleyImage *image, int deep);

/* A per-row kernel: reads `width` pixels of `bands` interleaved samples (8-bit when
 * sample_bytes == 1, 16-bit native-endian when 2) from `in` and writes the same layout to
 * `out`; (x, y) is the position of the row's first pixel in the image. Called concurrently
 * from libvips worker threads, so it must be reentrant. */
typedef void (*medley_row_kernel)(void *ctx, const void *in, void *out, int width, int bands,
                                  int sample_bytes, int x, int y);
/* A lazy image whose rows are `kernel` applied to `image`'s rows. `release(ctx)` is called
 * once when the new image is freed. Returns a new handle, or NULL (release already called). */
MedleyImage *medley_image_map_rows(MedleyImage *image, medley_row_kernel kernel, void *ctx,
                                   void (*release)(void *ctx));

/* Output formats for medley_image_save. */
enum {
    MEDLEY_SAVE_JPEG = 1,
    MEDLEY_SAVE_PNG = 2,
    MEDLEY_SAVE_WEBP = 3,
    MEDLEY_SAVE_TIFF = 4,
    MEDLEY_SAVE_HEIF = 5,
    MEDLEY_SAVE_GIF = 6,
};
/* Renders and writes the image. quality 1…100 for lossy formats (<= 0: the format's default);
 * strip drops EXIF/ICC/XMP. Returns 0 on success. */
int medley_image_save(MedleyImage *image, const char *path, int format, int quality, int strip);

/* Renders the whole image into a newly malloc'ed buffer of interleaved samples (caller
 * frees). Returns NULL on error. For tests and small images only. */
void *medley_image_render_to_memory(MedleyImage *image, size_t *length);

#endif
