/* Colour: RGB working layouts, ICC profiles (embedded, built in, or given as bytes — never as files a
 * pipeline names) and flattening alpha onto a background. */
#define _GNU_SOURCE
#include "medley_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

MedleyImage *medley_image_to_rgb(MedleyImage *image, int deep) {
    VipsImage *out = NULL;
    VipsInterpretation target = deep ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB;
    if (vips_colourspace(IMG(image), &out, target, NULL)) return NULL;
    /* colourspace leaves the sample format alone for some inputs (e.g. 8-bit grey to RGB16
     * keeps uchar): cast so the kernel sees exactly the layout it was promised. */
    VipsBandFormat want = deep ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR;
    if (vips_image_get_format(out) != want) {
        VipsImage *cast = NULL;
        int failed = vips_cast(out, &cast, want, NULL);
        g_object_unref(out);
        if (failed) return NULL;
        out = cast;
    }
    return HANDLE(out);
}

MedleyImage *medley_image_import_icc(MedleyImage *image, const char *fallback_profile, int intent) {
    VipsImage *out = NULL;
    /* Embedded profile → sRGB, so the working space is the same whatever the camera wrote.
     * 16-bit stays 16-bit. */
    int depth = vips_image_get_format(IMG(image)) == VIPS_FORMAT_USHORT ? 16 : 8;
    int failed = fallback_profile
        ? vips_icc_transform(IMG(image), &out, "srgb", "embedded", TRUE, "input_profile", fallback_profile,
                             "depth", depth, "intent", medley_intent(intent), NULL)
        : vips_icc_transform(IMG(image), &out, "srgb", "embedded", TRUE, "depth", depth,
                             "intent", medley_intent(intent), NULL);
    return failed ? NULL : HANDLE(out);
}

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
static VipsImage *icc_transform(VipsImage *in, const char *output_profile, int embedded, int intent) {
    VipsOperation *op = vips_operation_new("icc_transform");
    if (!op) return NULL;
    int depth = vips_image_get_format(in) == VIPS_FORMAT_USHORT ? 16 : 8;
    g_object_set(op, "in", in, "output-profile", output_profile, "embedded", embedded ? TRUE : FALSE,
                 "input-profile", "srgb", "depth", depth, "intent", medley_intent(intent), NULL);
    VipsImage *out = NULL;
    if (vips_object_build(VIPS_OBJECT(op)) == 0) g_object_get(op, "out", &out, NULL);
    vips_object_unref_outputs(VIPS_OBJECT(op));
    g_object_unref(op);
    return out;
}

MedleyImage *medley_image_icc_convert(MedleyImage *image, const void *profile, size_t length, int from_embedded, int intent) {
    char name[64];
    int fd = memory_file(profile, length, name);
    if (fd < 0) return NULL;
    VipsImage *out = icc_transform(IMG(image), name, from_embedded, intent);
    close(fd);
    return out ? HANDLE(out) : NULL;
}

int medley_icc_check_rgb(const void *profile, size_t length) {
    VipsImage *black = NULL, *rgb = NULL;
    if (vips_black(&black, 1, 1, "bands", 3, NULL)) return -1;
    int failed = vips_cast(black, &rgb, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(black);
    if (failed) return -1;
    MedleyImage *converted = medley_image_icc_convert(HANDLE(rgb), profile, length, 0, VIPS_INTENT_RELATIVE);
    g_object_unref(rgb);
    if (!converted) return -1;
    size_t bytes = 0;
    void *pixels = medley_memory_write(IMG(converted), &bytes);
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

MedleyImage *medley_image_flatten_white(MedleyImage *image) {
    VipsImage *in = IMG(image);
    VipsImage *out = NULL;
    if (vips_image_hasalpha(in)) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int failed = vips_flatten(in, &out, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        return failed ? NULL : HANDLE(out);
    }
    g_object_ref(in);
    return HANDLE(in);
}

MedleyImage *medley_image_flatten_onto(MedleyImage *image, double red, double green, double blue) {
    VipsImage *in = IMG(image);
    if (!vips_image_hasalpha(in)) {
        g_object_ref(in);
        return HANDLE(in);
    }
    int deep = vips_image_get_format(in) == VIPS_FORMAT_USHORT;
    double scale = deep ? 65535.0 : 255.0;
    int colours = vips_image_get_bands(in) - 1;
    /* Grey stays grey only on a grey background: on a colour one the picture becomes RGB first, so the
     * transparent parts get that colour (sharp, ImageMagick), not its luminance. */
    VipsImage *rgb = NULL;
    if (colours < 3 && (red != green || green != blue)) {
        MedleyImage *widened = medley_image_to_rgb(image, deep);
        if (!widened) return NULL;
        rgb = IMG(widened);
        in = rgb;
        colours = vips_image_get_bands(in) - 1;
    }
    double values[3] = { red * scale, green * scale, blue * scale };
    VipsArrayDouble *background = vips_array_double_new(values, colours < 3 ? 1 : 3);
    VipsImage *flat = NULL, *out = NULL;
    int failed = vips_flatten(in, &flat, "background", background, "max_alpha", scale, NULL);
    vips_area_unref(VIPS_AREA(background));
    if (failed) {
        if (rgb) g_object_unref(rgb);
        return NULL;
    }
    /* flatten computes in float for some inputs: back to the stored format. */
    failed = vips_cast(flat, &out, vips_image_get_format(in), NULL);
    g_object_unref(flat);
    if (rgb) g_object_unref(rgb);
    return failed ? NULL : HANDLE(out);
}
