/* The saver: every format and option Medley writes, and the one metadata strip before it. */
#include "medley_internal.h"
#include "medley_sink.h"

#include <string.h>

typedef struct {
    GPtrArray *names;
    int keep_icc;
} MetadataWalk;

static void *collect_metadata_name(VipsImage *image, const char *name, GValue *value, void *a) {
    MetadataWalk *walk = (MetadataWalk *)a;
    if (g_str_has_prefix(name, "exif-") || g_str_has_prefix(name, "xmp-") || g_str_has_prefix(name, "iptc-") ||
        g_str_has_prefix(name, "photoshop-") || strcmp(name, VIPS_META_ORIENTATION) == 0 ||
        (!walk->keep_icc && g_str_has_prefix(name, "icc-")))
        g_ptr_array_add(walk->names, g_strdup(name));
    (void)image;
    (void)value;
    return NULL;
}

/* A copy without EXIF, XMP, IPTC and Photoshop fields, and without the ICC profile unless
 * keep_icc. libvips' own strip would drop the profile too, and webpsave 8.14 ignores it (it
 * writes EXIF and XMP even with strip), so stripping happens here for every saver. */
static VipsImage *without_metadata(VipsImage *in, int keep_icc) {
    VipsImage *copy = NULL;
    if (vips_copy(in, &copy, NULL)) return NULL;
    MetadataWalk walk = { g_ptr_array_new_with_free_func(g_free), keep_icc };
    vips_image_map(copy, collect_metadata_name, &walk);
    for (guint i = 0; i < walk.names->len; i++) vips_image_remove(copy, (const char *)g_ptr_array_index(walk.names, i));
    g_ptr_array_unref(walk.names);
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

int medley_image_save(MedleyImage *image, const char *path, const MedleySaveOptions *options) {
    VipsImage *bare = options->strip ? without_metadata(IMG(image), options->keep_icc) : IMG(image);
    if (!bare) return -1;
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(bare, &watch);
    if (options->strip) g_object_unref(bare);
    if (!watched) return -1;
    return medley_sink_end(watched, watch, save_with(watched, path, options));
}
