/*
 * medley_vips.h — the only C surface Medley's Swift code sees of libvips.
 *
 * libvips' public API is variadic (`vips_jpegsave(in, path, "Q", 85, NULL)`) and macro-heavy,
 * which Swift cannot call. These functions take plain arguments and an opaque image handle
 * (a VipsImage* underneath, reference-counted: every function returning a handle returns a
 * new reference that the caller releases with medley_image_unref).
 *
 * One C file per mechanism, as libvips' own iofuncs/ is; each section below names its file.
 */
#ifndef MEDLEY_VIPS_H
#define MEDLEY_VIPS_H

#include <stddef.h>
#include <stdint.h>

typedef struct MedleyImage MedleyImage;

/* ---- medley_start.c: libvips itself ---- */

/* Starts libvips once per process. Returns 0 on success. */
int medley_vips_start(const char *program_name);
/* Name of the libvips loader that recognises the file's content ("jpegload", …), or NULL.
 * Sniffs magic bytes; does not decode. The returned string is static. */
const char *medley_vips_find_loader(const char *path);
/* Bytes above which libvips decodes a random-access image into a temporary file instead of memory. */
uint64_t medley_vips_disc_threshold(void);

/* Whether libvips' vector (SIMD) paths are on (libvips' default; VIPS_NOVECTOR turns them off). */
int medley_vips_vector_enabled(void);
/* How many of libvips' liborc compiles and frees have gone through Medley's lock (medley_orc.c):
 * more than none once a vector path has run, if the link bound libvips' calls to Medley's. */
long medley_orc_serialised_calls(void);

/* Whether this libvips build has an operation of that nickname (e.g. "heifsave"). */
int medley_vips_has_operation(const char *nickname);

/* ---- medley_sink.c: the workers of each sink (medley_sink.h: why every sink reads through a watch) ---- */

/* Sets the size of libvips' worker pool for each image pipeline. */
void medley_vips_set_concurrency(int threads);
/* The workers libvips gives each sink's pool (vips_concurrency_get). */
int medley_vips_concurrency(void);

/* ---- medley_error.c: libvips' error buffer ---- */

/* The text of the last libvips error on this thread's buffer, then clears it. The caller
 * frees the returned string with free(). Never NULL. */
char *medley_vips_take_error(void);

/* libvips 8.14 keeps one error buffer for the whole process, written by every thread (loaders
 * report from libvips' worker threads, not the caller's): text taken after a failure may hold
 * another item's words, or have lost its own to another thread's clear. Work whose error text
 * must be its own runs between shared_begin/end (many at once); after a failure, it runs again
 * alone between exclusive_begin/end, which waits for all shared work to finish and starts from
 * an empty buffer. */
void medley_vips_shared_begin(void);
void medley_vips_shared_end(void);
void medley_vips_exclusive_begin(void);
void medley_vips_exclusive_end(void);

/* ---- medley_log.c: log messages, per item ---- */

/* GLib and libvips log messages (g_warning: "VIPS: read gave 2 warnings", "not enough data"),
 * collected per item instead of going raw to stderr. begin starts a collection for the calling
 * thread; Medley's kernels carry it onto libvips' worker threads. A message from a thread with
 * no collection goes to the one collection open, or, when several are, to each of them marked as
 * shared; with none open, to GLib's default handler. end calls visit once per distinct message
 * with its count, in the order first seen, and frees the collection. */
typedef struct MedleyLogSink MedleyLogSink;
typedef void (*medley_log_visitor)(void *ctx, const char *message, long count);
MedleyLogSink *medley_log_begin(void);
void medley_log_end(MedleyLogSink *sink, medley_log_visitor visit, void *ctx);

/* The same image (no copy) whose pixels, when computed on libvips' worker threads, log into the
 * calling thread's collection (medley_log_begin): loaders and libvips operations upstream run
 * inside it. Without a collection, the image itself (a new reference). */
MedleyImage *medley_image_attributed(MedleyImage *image);

/* ---- medley_load.c: images from files and memory ---- */

/* Opens a file lazily (header only until pixels are asked for). sequential: stream top to
 * bottom (a pipeline that reads once); otherwise random access. fail_on_error: a damaged
 * or truncated file fails instead of decoding to grey (libvips' fail_on=warning, as `[fail]`). Returns NULL on error. */
MedleyImage *medley_image_open(const char *path, int sequential, int fail_on_error);
/* Every page of a multi-page file (an animated GIF/WebP) as one tall image, frames stacked top to
 * bottom, with the file's page-height, delay and loop fields. Sequential. NULL on error. */
MedleyImage *medley_image_open_pages(const char *path, int sequential, int fail_on_error);
/* Loads a file already shrunk to fit width × height (shrink-on-load for JPEG, WebP…), EXIF
 * orientation applied. crop: fill the box and crop the centre; force: ignore the aspect ratio. */
MedleyImage *medley_image_thumbnail(const char *path, int width, int height, int crop, int force, int fail_on_error,
                                    int intent);
/* (intent, here and below: the rendering intent of a profile conversion — CMYK to sRGB on load — as
 * VipsIntent numbers it: 0 perceptual, 1 relative colorimetric, 2 saturation, 3 absolute colorimetric.) */
/* (crop: 0 none, 1 the centre, 2 entropy, 3 attention: libvips' VipsInteresting.) */
/* vips_thumbnail with size "down": shrinks to fit width × height (crop: fill it and crop the
 * centre) but never enlarges (vipsthumbnail's "WxH>"). EXIF orientation applied. NULL on error. */
MedleyImage *medley_image_thumbnail_down(const char *path, int width, int height, int crop, int fail_on_error,
                                         int intent);
/* vips_thumbnail with no_rotate: the stored pixels shrunk as they are stored (the box is for them), the
 * EXIF orientation tag kept. force: ignore the aspect ratio; enlarge: 0 is size "down". NULL on error. */
MedleyImage *medley_image_thumbnail_stored(const char *path, int width, int height, int crop, int force, int enlarge,
                                           int fail_on_error, int intent);
/* An 8-bit image copied from interleaved pixels (rows packed: width·bands bytes each), with
 * libvips' default interpretation for the band count (3 bands: sRGB). Returns NULL on error. */
MedleyImage *medley_image_from_uchar(const uint8_t *pixels, int width, int height, int bands);
/* A 16-bit image (3 bands: RGB16, sRGB primaries; 1: GREY16) over `pixels` without a copy, e.g. a
 * developed RAW: the image owns them from here on and calls free_pixels(context) once it is closed
 * (its last reference gone). On NULL (an error) they stay the caller's. */
MedleyImage *medley_image_wrap_ushort(const uint16_t *pixels, int width, int height, int bands,
                                      void (*free_pixels)(void *context), void *context);
/* Decodes an image from bytes in memory (header now, pixels when asked for), random access.
 * fail_on_error as for medley_image_open. NULL on error. */
MedleyImage *medley_image_from_buffer(const void *bytes, size_t length, int fail_on_error);
/* The size an image in memory claims in its header (nothing else is decoded). 0 on success. */
int medley_image_buffer_size(const void *bytes, size_t length, int *width, int *height);

/* ---- medley_header.c: what an image is, and its metadata fields ---- */

void medley_image_unref(MedleyImage *image);
/* Pages in the file (1 for a still image) and the height of one page of this image. */
int medley_image_pages(const MedleyImage *image);
int medley_image_page_height(const MedleyImage *image);
int medley_image_width(const MedleyImage *image);
int medley_image_height(const MedleyImage *image);
int medley_image_bands(const MedleyImage *image);
/* VipsBandFormat value: 0 uchar, 2 ushort, 6 float, … */
int medley_image_format(const MedleyImage *image);
/* Whether the last band is alpha, by libvips' rule (band count and interpretation: CMYK's fourth band is K). */
int medley_image_has_alpha(const MedleyImage *image);
/* VipsInterpretation nickname: "srgb", "b-w", "rgb16", "grey16", "cmyk", … (static). */
const char *medley_image_interpretation(const MedleyImage *image);
/* EXIF orientation 1…8 (1 when absent). */
int medley_image_orientation(const MedleyImage *image);
/* Whether the image has a metadata field of that name ("exif-data", "xmp-data", …). */
int medley_image_has_field(const MedleyImage *image, const char *name);
/* Size in bytes of the embedded ICC profile, 0 when none. */
size_t medley_image_icc_length(const MedleyImage *image);
/* The loader that opened the image ("jpegload", "pngload", …), or "" (static/internal). */
const char *medley_image_loader(const MedleyImage *image);

/* Calls visit(ctx, name, value) for every metadata field whose value is a string or
 * number-like (EXIF fields are "exif-ifd0-Make" and so on). value is libvips' text form. */
typedef void (*medley_field_visitor)(void *ctx, const char *name, const char *value);
void medley_image_visit_fields(const MedleyImage *image, medley_field_visitor visit, void *ctx);
/* The embedded ICC profile's bytes (owned by the image; valid while it lives) or NULL. */
const void *medley_image_icc_data(const MedleyImage *image, size_t *length);

/* ---- medley_ops.c: geometry and generators, by libvips ---- */

/* Rotates/flips by the EXIF orientation and resets it to 1. Returns a new handle. */
MedleyImage *medley_image_autorot(MedleyImage *image);
/* All return new handles or NULL. */
MedleyImage *medley_image_crop(MedleyImage *image, int left, int top, int width, int height);
/* vips_smartcrop: the width × height box the strategy picks (2 entropy, 3 attention). NULL on error. */
MedleyImage *medley_image_smartcrop(MedleyImage *image, int width, int height, int interesting);
MedleyImage *medley_image_flip(MedleyImage *image, int horizontal);
MedleyImage *medley_image_rotate(MedleyImage *image, int quarter_turns);
/* Output pixel (X, Y) of an out_width × out_height image samples input (x, y) where
 * [X Y] = [a b; c d]·[x y] + [odx ody]; bicubic, black outside. */
MedleyImage *medley_image_affine(MedleyImage *image, double a, double b, double c, double d,
                                 double odx, double ody, int out_width, int out_height);
/* Output pixel (X, Y) samples the input bilinearly at the position `index` (two float bands: x, y in
 * pixel coordinates, centres at integers) holds for it; black (transparent) outside. */
MedleyImage *medley_image_mapim(MedleyImage *image, MedleyImage *index);
/* Lanczos-3 resampling by the given scale factors. */
MedleyImage *medley_image_resize(MedleyImage *image, double horizontal, double vertical);
/* Frames of one size stacked into an animation (page-height set to a frame's height; delay and
 * loop as the first frame carries them). */
MedleyImage *medley_image_join_pages(MedleyImage **frames, int count);
/* A float image of one colour. values has `bands` entries. */
MedleyImage *medley_image_constant(int width, int height, int bands, const double *values);
/* The same pixels, read as another interpretation ("srgb", "rgb16", …): no conversion. */
MedleyImage *medley_image_reinterpret(MedleyImage *image, const char *interpretation);
/* Places the image at (x, y) in a width × height canvas; outside is 0 (transparent for RGBA). */
MedleyImage *medley_image_embed(MedleyImage *image, int x, int y, int width, int height);
/* Adds a constant band (an opaque alpha), or keeps the first `count` bands. */
MedleyImage *medley_image_append_band(MedleyImage *image, double value);
MedleyImage *medley_image_extract_bands(MedleyImage *image, int first, int count);

/* ---- medley_colour.c: RGB layouts, ICC profiles, flattening ---- */

/* Converts to RGB(A) in sRGB coding: 8-bit "srgb" when deep == 0, 16-bit "rgb16" otherwise.
 * Grey becomes three equal channels; alpha is kept. Returns a new handle. */
MedleyImage *medley_image_to_rgb(MedleyImage *image, int deep);
/* Converts from the embedded ICC profile to sRGB (same bit depth). fallback_profile (a file or
 * one of libvips' built-in names, "cmyk") is used when the image has no profile; NULL: none. */
MedleyImage *medley_image_import_icc(MedleyImage *image, const char *fallback_profile, int intent);
/* The pixels converted into the ICC profile `profile` (length bytes, e.g. a Display P3 profile)
 * and that profile attached, same bit depth, with the rendering intent `intent`. The pixels are read
 * in the image's embedded profile when `from_embedded` and it has one, otherwise as sRGB. The
 * bytes reach lcms through an anonymous memory file (memfd): nothing is written to disc. NULL on error. */
MedleyImage *medley_image_icc_convert(MedleyImage *image, const void *profile, size_t length, int from_embedded, int intent);

/* 0 when lcms accepts the bytes as an RGB output profile (a one-pixel sRGB image converted into
 * it gives three bands); -1 with libvips' error text otherwise. */
int medley_icc_check_rgb(const void *profile, size_t length);

/* The same pixels with `profile` attached as the ICC profile (copied), or none when length is 0. */
MedleyImage *medley_image_with_icc(MedleyImage *image, const void *profile, size_t length);

/* libvips' built-in sRGB profile, malloc'ed (caller frees), or NULL. */
void *medley_srgb_profile(size_t *length);
/* Alpha flattened against white (8-bit images: background 255); images without alpha unchanged. */
MedleyImage *medley_image_flatten_white(MedleyImage *image);
/* Alpha flattened onto (red, green, blue), each 0…1 of the sample range (a grey image takes
 * their Rec. 709 luma); images without alpha unchanged. Same sample format. */
MedleyImage *medley_image_flatten_onto(MedleyImage *image, double red, double green, double blue);

/* ---- medley_save.c: the saver ---- */

/* Output formats. AVIF is heifsave with AV1 compression. */
enum {
    MEDLEY_SAVE_JPEG = 1,
    MEDLEY_SAVE_PNG = 2,
    MEDLEY_SAVE_WEBP = 3,
    MEDLEY_SAVE_TIFF = 4,
    MEDLEY_SAVE_HEIF = 5,
    MEDLEY_SAVE_GIF = 6,
    MEDLEY_SAVE_AVIF = 7,
    MEDLEY_SAVE_JXL = 8,
};

/* Saver options; -1 (or 0 for quality) leaves libvips' default. */
typedef struct {
    int format;      /* MEDLEY_SAVE_* */
    int quality;     /* 1…100 for lossy formats, 0: default */
    int strip;       /* drop EXIF, XMP, IPTC (and the ICC profile unless keep_icc) */
    int keep_icc;    /* with strip: the ICC profile stays */
    int lossless;    /* webp, heif/avif, jxl: 1 lossless, -1 default */
    int effort;      /* webp 0–6, heif/avif 0–9, jxl 3–9; -1 default */
    int subsample;   /* jpeg, heif/avif: 0 auto, 1 on, 2 off; -1 default */
    int bitdepth;    /* heif/avif: 8, 10, 12; -1: libvips' choice (12 for 16-bit input, else 8) */
} MedleySaveOptions;

/* Renders and writes the image with the options. With strip, the metadata is removed from the
 * image first (webpsave of libvips 8.14 ignores its own strip). Returns 0 on success. */
int medley_image_save(MedleyImage *image, const char *path, const MedleySaveOptions *options);

/* ---- medley_animation.c: animated GIF and WebP from frames ---- */

typedef struct {
    int format;                 /* MEDLEY_SAVE_GIF or MEDLEY_SAVE_WEBP */
    int clip_palette;           /* GIF: 1 one palette for every frame (quantised from all of them), 0 one per frame */
    double dither;              /* GIF: 0…1 */
    int effort;                 /* GIF: libimagequant's effort 1…10 */
    double interframe_maxerror; /* GIF: pixels that change less than this stay transparent (0: none) */
    int quality;                /* WebP: 1…100, above 100 lossless */
} MedleyAnimationOptions;

/* `frames` pictures of width × height packed 8-bit RGB one after another in `rgb`, shown `delays[i]`
 * milliseconds each, `loop` times (0: for ever), written to `path` as an animated GIF or WebP.
 * Returns 0, or -1 with a libvips error. */
int medley_animation_save(const unsigned char *rgb, int width, int height, int frames, const int *delays, int loop,
                          const MedleyAnimationOptions *options, const char *path);

/* ---- medley_memory.c: copies to memory ---- */

/* Renders the whole image into a newly malloc'ed buffer of interleaved samples (caller
 * frees). Returns NULL on error. For tests and small images only. */
void *medley_image_render_to_memory(MedleyImage *image, size_t *length);
/* The image computed once into memory (a new image), so it can be read more than once. NULL on error. */
MedleyImage *medley_image_copy_memory(MedleyImage *image);

/* ---- medley_reduce.c: reductions (the manifest's image analyses, auto-adjust) ---- */

/* vips_stats: the mean of each band, written into means (at most capacity). Returns the band
 * count, or -1 on error. Reads every pixel once. */
int medley_image_band_means(MedleyImage *image, double *means, int capacity);
/* vips_hist_find of an 8-bit image: 256 counts per band, band after band (counts[band * 256 + bin]),
 * at most capacity values. Returns the band count, or -1 on error (also when not 8-bit). */
int medley_image_histogram(MedleyImage *image, double *counts, int capacity);
/* Relative luminance as one band of 8-bit grey (vips_colourspace to B_W, then cast to uchar). */
MedleyImage *medley_image_luminance(MedleyImage *image);

/* ---- medley_kernels.c: Swift kernels in libvips' region pipeline ---- */

/* A per-row kernel: reads `width` pixels of `bands` interleaved samples from `in` (in_bytes per
 * sample: 1 uchar, 2 ushort native-endian, 4 float) and writes the same count to `out` (out_bytes
 * per sample); (x, y) places the row's first pixel in the image. Called concurrently from
 * libvips worker threads, so it must be reentrant. */
typedef void (*medley_row_kernel)(void *ctx, const void *in, void *out, int width, int bands,
                                  int in_bytes, int out_bytes, int x, int y);
/* A lazy image whose rows are `kernel` applied to `image`'s rows. out_format is a VipsBandFormat
 * (0 uchar, 2 ushort, 6 float) or -1 to keep the input's. `release(ctx)` is called once when the
 * new image is freed (also on failure). Returns a new handle, or NULL. */
MedleyImage *medley_image_map_rows(MedleyImage *image, int out_format, medley_row_kernel kernel, void *ctx,
                                   void (*release)(void *ctx));

/* Two float RGBA images of one size, row by row (compositing): `first` and `second` rows in, one
 * out. Anything else fails (NULL) before the kernel could see it. */
typedef void (*medley_row_kernel2)(void *ctx, const void *first, const void *second, void *out, int width,
                                   int bands, int x, int y);
MedleyImage *medley_image_map_rows2(MedleyImage *first, MedleyImage *second, medley_row_kernel2 kernel,
                                    void *ctx, void (*release)(void *ctx));

/* A neighbourhood kernel on a float image: output block (x, y, width, height) from the input block
 * that extends `margin` pixels beyond it on every side (edges are extended by copying). `in`
 * points at the input block's top-left; strides are in bytes. */
typedef void (*medley_region_kernel)(void *ctx, const void *in, size_t in_stride, void *out, size_t out_stride,
                                     int width, int height, int bands, int x, int y);
MedleyImage *medley_image_map_regions(MedleyImage *image, int margin, medley_region_kernel kernel, void *ctx,
                                      void (*release)(void *ctx));

/* A one-dimensional resampling kernel on a float image, along x (horizontal) or y: output block
 * (x, y, width, height) from the input span [in_first, in_first + in_count) along the axis (the
 * other axis as the output's), edges extended by copying; `in` points at that span's first
 * sample. Strides are in bytes. */
typedef void (*medley_resample_kernel)(void *ctx, const void *in, size_t in_stride, void *out, size_t out_stride,
                                       int width, int height, int bands, int x, int y, int in_first, int in_count);
/* The image resampled along one axis to out_size pixels, output pixel o centred on input
 * (o + 0.5) / scale − 0.5; the kernel reaches `margin` input pixels either side. */
MedleyImage *medley_image_resample(MedleyImage *image, int horizontal, int out_size, double scale, int margin,
                                   medley_resample_kernel kernel, void *ctx, void (*release)(void *ctx));

/* ---- medley_watermark.c: watermarks and text ---- */

/* Pango markup (the caller escapes text) rendered by vips_text with `font` (a Pango font
 * description, "DejaVu Sans 24": the size in points) at `dpi` (72: a point is a pixel), as 8-bit
 * sRGB + alpha of one colour: red, green, blue 0…255 everywhere, alpha = coverage × alpha/255.
 * NULL on error (an empty text is one). */
MedleyImage *medley_image_text_rgba(const char *markup, const char *font, int dpi,
                                    double red, double green, double blue, double alpha);
/* `mark` (RGB + alpha, 8-bit sRGB), first resized by `scale` (Lanczos-3 on premultiplied
 * colours, so transparent pixels do not darken its edges; 1: as it is), over `image`, the mark's alpha scaled by `opacity`, its
 * top-left corner at (x, y) (outside the image it is clipped). tile: the mark is repeated
 * every (mark width + gap_x, mark height + gap_y) pixels in both directions from (x, y) over the
 * whole image. Source-over (libvips composite2, OVER) in linear light (scRGB) when `linear`,
 * otherwise on the stored sRGB values. The result has `image`'s sample format (8 or 16 bits);
 * grey becomes RGB, alpha is kept. NULL on error. */
MedleyImage *medley_image_watermark(MedleyImage *image, MedleyImage *mark, double scale, int x, int y, double opacity,
                                    int linear, int tile, int gap_x, int gap_y);

/* ---- medley_sheet.c: contact sheets ---- */
/* A width × height cell of the background (three values 0…255, 8-bit sRGB) with `thumbnail`
 * (8-bit sRGB, no alpha; NULL: an empty cell) at (x, y) and `label` (8-bit sRGB + alpha; NULL:
 * none) composited source-over at (label_x, label_y). NULL on error. */
MedleyImage *medley_sheet_cell(MedleyImage *thumbnail, MedleyImage *label, int width, int height,
                               int x, int y, int label_x, int label_y, const double *background);
/* `count` cells of one size in rows of `across` (vips_arrayjoin), a short last row filled with
 * the background. NULL on error. */
MedleyImage *medley_sheet_join(MedleyImage **cells, int count, int across, const double *background);

#endif
