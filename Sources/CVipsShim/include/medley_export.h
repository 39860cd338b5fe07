/*
 * medley_export.h — the export stage's savers and colour management over libvips: every saver
 * option Medley offers, ICC profiles given as bytes (never as files a pipeline names), and
 * flattening onto a chosen background.
 */
#ifndef MEDLEY_EXPORT_H
#define MEDLEY_EXPORT_H

#include <stddef.h>
#include "medley_vips.h"

/* Formats beyond medley_vips.h's MEDLEY_SAVE_*: AVIF is heifsave with AV1 compression. */
enum {
    MEDLEY_SAVE_AVIF = 7,
    MEDLEY_SAVE_JXL = 8,
};

/* Saver options; -1 (or 0 for quality) leaves libvips' default. */
typedef struct {
    int format;      /* MEDLEY_SAVE_* */
    int quality;     /* 1…100, 0: default */
    int strip;       /* drop EXIF, XMP, IPTC (and the ICC profile unless keep_icc) */
    int keep_icc;    /* with strip: the ICC profile stays */
    int lossless;    /* webp, heif/avif, jxl: 1 lossless, -1 default */
    int effort;      /* webp 0–6, heif/avif 0–9, jxl 3–9; -1 default */
    int subsample;   /* jpeg, heif/avif: 0 auto, 1 on, 2 off; -1 default */
    int bitdepth;    /* heif/avif: 8, 10, 12; -1: libvips' choice (12 for 16-bit input, else 8) */
} MedleySaveOptions;

/* Renders and writes the image with the options. Returns 0 on success. */
int medley_image_save_with(MedleyImage *image, const char *path, const MedleySaveOptions *options);

/* The pixels converted into the ICC profile `profile` (length bytes, e.g. a Display P3 profile)
 * and that profile attached, same bit depth, relative colorimetric intent. The pixels are read
 * in the image's embedded profile when `from_embedded` and it has one, otherwise as sRGB. The
 * bytes reach lcms through an anonymous memory file (memfd): nothing is written to disc. NULL on error. */
MedleyImage *medley_image_icc_convert(MedleyImage *image, const void *profile, size_t length, int from_embedded);

/* 0 when lcms accepts the bytes as an RGB output profile (a one-pixel sRGB image converted into
 * it gives three bands); -1 with libvips' error text otherwise. */
int medley_icc_check_rgb(const void *profile, size_t length);

/* The same pixels with `profile` attached as the ICC profile (copied), or none when length is 0. */
MedleyImage *medley_image_with_icc(MedleyImage *image, const void *profile, size_t length);

/* libvips' built-in sRGB profile, malloc'ed (caller frees), or NULL. */
void *medley_srgb_profile(size_t *length);

/* Alpha flattened onto (red, green, blue), each 0…1 of the sample range (a grey image takes
 * their Rec. 709 luma); images without alpha unchanged. Same sample format. */
MedleyImage *medley_image_flatten_onto(MedleyImage *image, double red, double green, double blue);

/* vips_thumbnail with size "down": shrinks to fit width × height (crop: fill it and crop the
 * centre) but never enlarges (vipsthumbnail's "WxH>"). EXIF orientation applied. NULL on error. */
MedleyImage *medley_image_thumbnail_down(const char *path, int width, int height, int crop, int fail_on_error);

#endif
