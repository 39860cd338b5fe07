/* See medley_export.h. */
#define _GNU_SOURCE
#include "medley_export.h"
#include "medley_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vips/vips.h>

#define IMG(h) ((VipsImage *)(h))
#define HANDLE(i) ((MedleyImage *)(i))

/* ---- savers ---- */

static void *collect_metadata(VipsImage *image, const char *name, GValue *value, void *a) {
    GPtrArray *names = (GPtrArray *)a;
    if (g_str_has_prefix(name, "exif-") || g_str_has_prefix(name, "xmp-") || g_str_has_prefix(name, "iptc-") ||
        g_str_has_prefix(name, "photoshop-") || strcmp(name, VIPS_META_ORIENTATION) == 0)
        g_ptr_array_add(names, g_strdup(name));
    (void)image;
    (void)value;
    return NULL;
}

/* A copy without EXIF, XMP, IPTC and Photoshop fields, and without the ICC profile unless
 * keep_icc (libvips' own strip would drop the profile too, and webpsave 8.14 ignores it). */
static VipsImage *without_metadata(VipsImage *in, int keep_icc) {
    VipsImage *copy = NULL;
    if (vips_copy(in, &copy, NULL)) return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    vips_image_map(copy, collect_metadata, names);
    if (!keep_icc && vips_image_get_typeof(copy, VIPS_META_ICC_NAME)) g_ptr_array_add(names, g_strdup(VIPS_META_ICC_NAME));
    for (guint i = 0; i < names->len; i++) vips_image_remove(copy, (const char *)g_ptr_array_index(names, i));
    g_ptr_array_unref(names);
    return copy;
}

/* Sets an optional saver argument only when the caller chose it. */
static void set_int(VipsOperation *op, const char *name, int value) {
    if (value >= 0) g_object_set(op, name, value, NULL);
}

static int save_with(VipsImage *in, const char *path, const MedleySaveOptions *o) {
    const char *nickname;
    switch (o->format) {
    case MEDLEY_SAVE_JPEG: nickname = "jpegsave"; break;
    case MEDLEY_SAVE_PNG: nickname = "pngsave"; break;
    case MEDLEY_SAVE_WEBP: nickname = "webpsave"; break;
    case MEDLEY_SAVE_TIFF: nickname = "tiffsave"; break;
    case MEDLEY_SAVE_HEIF: case MEDLEY_SAVE_AVIF: nickname = "heifsave"; break;
    case MEDLEY_SAVE_GIF: nickname = "gifsave"; break;
    case MEDLEY_SAVE_JXL: nickname = "jxlsave"; break;
    default:
        vips_error("medley", "unknown output format %d", o->format);
        return -1;
    }
    VipsOperation *op = vips_operation_new(nickname);
    if (!op) return -1;
    g_object_set(op, "in", in, "filename", path, NULL);
    /* Metadata is removed from the image (without_metadata) and, unless the profile stays, by libvips'
     * strip too: without it jpegsave and heifsave write a fresh EXIF block (resolution, EXIF version). */
    if (o->strip && !o->keep_icc) g_object_set(op, "strip", TRUE, NULL);
    int lossy = o->format != MEDLEY_SAVE_PNG && o->format != MEDLEY_SAVE_TIFF && o->format != MEDLEY_SAVE_GIF;
    if (lossy && o->quality > 0) g_object_set(op, "Q", o->quality, NULL);
    switch (o->format) {
    case MEDLEY_SAVE_JPEG:
        set_int(op, "subsample-mode", o->subsample);
        break;
    case MEDLEY_SAVE_WEBP:
        if (o->lossless >= 0) g_object_set(op, "lossless", o->lossless ? TRUE : FALSE, NULL);
        set_int(op, "effort", o->effort);
        break;
    case MEDLEY_SAVE_TIFF:
        g_object_set(op, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, NULL);
        break;
    case MEDLEY_SAVE_HEIF: case MEDLEY_SAVE_AVIF:
        g_object_set(op, "compression", o->format == MEDLEY_SAVE_AVIF ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1
                                                                      : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
        if (o->lossless >= 0) g_object_set(op, "lossless", o->lossless ? TRUE : FALSE, NULL);
        set_int(op, "effort", o->effort);
        set_int(op, "subsample-mode", o->subsample);
        set_int(op, "bitdepth", o->bitdepth);
        break;
    case MEDLEY_SAVE_JXL:
        if (o->lossless >= 0) g_object_set(op, "lossless", o->lossless ? TRUE : FALSE, NULL);
        set_int(op, "effort", o->effort);
        break;
    default:
        break;
    }
    int failed = vips_object_build(VIPS_OBJECT(op));
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
    return failed ? -1 : 0;
}

int medley_image_save_with(MedleyImage *image, const char *path, const MedleySaveOptions *options) {
    VipsImage *bare = options->strip ? without_metadata(IMG(image), options->keep_icc) : IMG(image);
    if (!bare) return -1;
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(bare, &watch);
    if (options->strip) g_object_unref(bare);
    if (!watched) return -1;
    return medley_sink_end(watched, watch, save_with(watched, path, options));
}

/* ---- ICC profiles from bytes ---- */

/* The bytes in an anonymous memory file; `name` becomes /proc/self/fd/N, which lcms reads like
 * any file. Returns the descriptor (the caller closes it) or -1. */
static int memory_file(const void *data, size_t length, char name[64]) {
    int fd = memfd_create("medley-icc", MFD_CLOEXEC);
    if (fd < 0) {
        vips_error("medley", "cannot hold an ICC profile in memory");
        return -1;
    }
    size_t done = 0;
    while (done < length) {
        ssize_t wrote = write(fd, (const char *)data + done, length - done);
        if (wrote <= 0) {
            close(fd);
            vips_error("medley", "cannot hold an ICC profile in memory");
            return -1;
        }
        done += (size_t)wrote;
    }
    snprintf(name, 64, "/proc/self/fd/%d", fd);
    return fd;
}

/* icc_transform built outside libvips' operation cache: its key holds the memory file's name,
 * which another profile may have next. libvips reads the profile while building. */
static VipsImage *icc_transform(VipsImage *in, const char *output_profile, int embedded) {
    VipsOperation *op = vips_operation_new("icc_transform");
    if (!op) return NULL;
    int depth = vips_image_get_format(in) == VIPS_FORMAT_USHORT ? 16 : 8;
    g_object_set(op, "in", in, "output-profile", output_profile, "embedded", embedded ? TRUE : FALSE,
                 "input-profile", "srgb", "depth", depth, "intent", VIPS_INTENT_RELATIVE, NULL);
    VipsImage *out = NULL;
    if (vips_object_build(VIPS_OBJECT(op)) == 0) g_object_get(op, "out", &out, NULL);
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
    return out;
}

MedleyImage *medley_image_icc_convert(MedleyImage *image, const void *profile, size_t length, int from_embedded) {
    char name[64];
    int fd = memory_file(profile, length, name);
    if (fd < 0) return NULL;
    VipsImage *out = icc_transform(IMG(image), name, from_embedded);
    close(fd);
    return out ? HANDLE(out) : NULL;
}

int medley_icc_check_rgb(const void *profile, size_t length) {
    VipsImage *black = NULL, *rgb = NULL;
    if (vips_black(&black, 1, 1, "bands", 3, NULL)) return -1;
    int failed = vips_cast(black, &rgb, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(black);
    if (failed) return -1;
    MedleyImage *converted = medley_image_icc_convert(HANDLE(rgb), profile, length, 0);
    g_object_unref(rgb);
    if (!converted) return -1;
    size_t bytes = 0;
    void *pixels = vips_image_write_to_memory(IMG(converted), &bytes);
    int bands = vips_image_get_bands(IMG(converted));
    g_object_unref(IMG(converted));
    if (!pixels) return -1;
    g_free(pixels);
    if (bands != 3) {
        vips_error("medley", "the profile gives %d bands, not RGB", bands);
        return -1;
    }
    return 0;
}

MedleyImage *medley_image_with_icc(MedleyImage *image, const void *profile, size_t length) {
    VipsImage *copy = NULL;
    if (vips_copy(IMG(image), &copy, NULL)) return NULL;
    if (length == 0) {
        vips_image_remove(copy, VIPS_META_ICC_NAME);
    } else {
        vips_image_set_blob_copy(copy, VIPS_META_ICC_NAME, profile, length);
    }
    return HANDLE(copy);
}

void *medley_srgb_profile(size_t *length) {
    VipsBlob *blob = NULL;
    *length = 0;
    if (vips_profile_load("srgb", &blob, NULL) || !blob) return NULL;
    size_t size = 0;
    const void *data = vips_blob_get(blob, &size);
    void *copy = size ? malloc(size) : NULL;
    if (copy) {
        memcpy(copy, data, size);
        *length = size;
    }
    vips_area_unref(VIPS_AREA(blob));
    return copy;
}

MedleyImage *medley_image_flatten_onto(MedleyImage *image, double red, double green, double blue) {
    VipsImage *in = IMG(image);
    if (!vips_image_hasalpha(in)) {
        g_object_ref(in);
        return HANDLE(in);
    }
    double scale = vips_image_get_format(in) == VIPS_FORMAT_USHORT ? 65535.0 : 255.0;
    int colours = vips_image_get_bands(in) - 1;
    double values[3] = { red * scale, green * scale, blue * scale };
    if (colours < 3) values[0] = (0.2126 * red + 0.7152 * green + 0.0722 * blue) * scale;
    VipsArrayDouble *background = vips_array_double_new(values, colours < 3 ? 1 : 3);
    VipsImage *flat = NULL, *out = NULL;
    int failed = vips_flatten(in, &flat, "background", background, "max_alpha", scale, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (failed) return NULL;
    /* flatten computes in float for some inputs: back to the stored format. */
    failed = vips_cast(flat, &out, vips_image_get_format(in), NULL);
    g_object_unref(flat);
    return failed ? NULL : HANDLE(out);
}

MedleyImage *medley_image_thumbnail_down(const char *path, int width, int height, int crop, int fail_on_error) {
    VipsImage *out = NULL;
    int failed = vips_thumbnail(path, &out, width, "height", height,
                                "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
                                "size", VIPS_SIZE_DOWN,
                                "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE,
                                "no_rotate", FALSE, NULL);
    return failed ? NULL : HANDLE(out);
}
