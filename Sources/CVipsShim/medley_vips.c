/* See medley_vips.h. Every function here is a thin, non-variadic wrapper; the policy
 * (limits, formats, error messages a person reads) lives in Swift. */
#include "medley_vips.h"

#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

#define IMG(h) ((VipsImage *)(h))
#define HANDLE(i) ((MedleyImage *)(i))

int medley_vips_start(const char *program_name) {
    if (VIPS_INIT(program_name ? program_name : "medley")) return -1;
    /* A batch tool opens each file once: the operation cache would only hold memory and
     * file descriptors for files that never come back. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    return 0;
}

void medley_vips_set_concurrency(int threads) {
    if (threads > 0) vips_concurrency_set(threads);
}

char *medley_vips_take_error(void) {
    const char *text = vips_error_buffer();
    char *copy = strdup(text ? text : "");
    vips_error_clear();
    /* libvips ends messages with a newline; a person reads them inside our own sentence. */
    size_t n = strlen(copy);
    while (n > 0 && (copy[n - 1] == '\n' || copy[n - 1] == ' ')) copy[--n] = '\0';
    return copy;
}

const char *medley_vips_find_loader(const char *path) {
    const char *name = vips_foreign_find_load(path);
    vips_error_clear();
    return name;
}

int medley_vips_has_operation(const char *nickname) {
    return vips_type_find("VipsOperation", nickname) != 0;
}

MedleyImage *medley_image_open(const char *path, int sequential, int fail_on_error) {
    VipsImage *image = vips_image_new_from_file(path,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", fail_on_error ? VIPS_FAIL_ON_TRUNCATED : VIPS_FAIL_ON_NONE,
        NULL);
    return HANDLE(image);
}

void medley_image_unref(MedleyImage *image) {
    if (image) g_object_unref(IMG(image));
}

int medley_image_width(const MedleyImage *image) { return vips_image_get_width(IMG(image)); }
int medley_image_height(const MedleyImage *image) { return vips_image_get_height(IMG(image)); }
int medley_image_bands(const MedleyImage *image) { return vips_image_get_bands(IMG(image)); }
int medley_image_format(const MedleyImage *image) { return (int)vips_image_get_format(IMG(image)); }

const char *medley_image_interpretation(const MedleyImage *image) {
    VipsInterpretation kind = vips_image_get_interpretation(IMG(image));
    const char *name = vips_enum_nick(VIPS_TYPE_INTERPRETATION, kind);
    return name ? name : "unknown";
}

int medley_image_orientation(const MedleyImage *image) {
    int orientation = vips_image_get_orientation(IMG(image));
    return (orientation >= 1 && orientation <= 8) ? orientation : 1;
}

size_t medley_image_icc_length(const MedleyImage *image) {
    const void *data = NULL;
    size_t length = 0;
    if (!vips_image_get_typeof(IMG(image), VIPS_META_ICC_NAME)) return 0;
    if (vips_image_get_blob(IMG(image), VIPS_META_ICC_NAME, &data, &length)) {
        vips_error_clear();
        return 0;
    }
    return length;
}

const char *medley_image_loader(const MedleyImage *image) {
    const char *loader = NULL;
    if (vips_image_get_typeof(IMG(image), VIPS_META_LOADER) &&
        !vips_image_get_string(IMG(image), VIPS_META_LOADER, &loader) && loader)
        return loader;
    vips_error_clear();
    return "";
}

typedef struct {
    medley_field_visitor visit;
    void *ctx;
} FieldWalk;

static void *visit_one_field(VipsImage *image, const char *name, GValue *value, void *a) {
    FieldWalk *walk = (FieldWalk *)a;
    GType type = G_VALUE_TYPE(value);
    if (type == VIPS_TYPE_BLOB || type == VIPS_TYPE_IMAGE || type == VIPS_TYPE_AREA) return NULL;
    char *text = NULL;
    if (type == G_TYPE_STRING) {
        const char *s = g_value_get_string(value);
        text = g_strdup(s ? s : "");
    } else if (type == VIPS_TYPE_REF_STRING) {
        const char *s = vips_value_get_ref_string(value, NULL);
        text = g_strdup(s ? s : "");
    } else {
        GValue as_text = G_VALUE_INIT;
        g_value_init(&as_text, G_TYPE_STRING);
        if (g_value_transform(value, &as_text)) {
            const char *s = g_value_get_string(&as_text);
            text = g_strdup(s ? s : "");
        }
        g_value_unset(&as_text);
    }
    if (text) {
        walk->visit(walk->ctx, name, text);
        g_free(text);
    }
    (void)image;
    return NULL;
}

void medley_image_visit_fields(const MedleyImage *image, medley_field_visitor visit, void *ctx) {
    FieldWalk walk = { visit, ctx };
    vips_image_map(IMG(image), visit_one_field, &walk);
}

MedleyImage *medley_image_autorot(MedleyImage *image) {
    VipsImage *out = NULL;
    if (vips_autorot(IMG(image), &out, NULL)) return NULL;
    return HANDLE(out);
}

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

/* ---- per-row kernels run inside libvips' region pipeline ---- */

typedef struct {
    medley_row_kernel kernel;
    void *ctx;
    void (*release)(void *ctx);
} RowMap;

static void row_map_free(VipsImage *image, void *data) {
    RowMap *map = (RowMap *)data;
    if (map->release) map->release(map->ctx);
    g_free(map);
    (void)image;
}

static int row_map_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *in_region = (VipsRegion *)seq;
    RowMap *map = (RowMap *)b;
    VipsRect *rect = &out_region->valid;
    if (vips_region_prepare(in_region, rect)) return -1;
    int bands = in_region->im->Bands;
    int sample_bytes = (int)VIPS_IMAGE_SIZEOF_ELEMENT(in_region->im);
    for (int y = 0; y < rect->height; y++) {
        map->kernel(map->ctx,
                    VIPS_REGION_ADDR(in_region, rect->left, rect->top + y),
                    VIPS_REGION_ADDR(out_region, rect->left, rect->top + y),
                    rect->width, bands, sample_bytes, rect->left, rect->top + y);
    }
    (void)a;
    (void)stop;
    return 0;
}

MedleyImage *medley_image_map_rows(MedleyImage *image, medley_row_kernel kernel, void *ctx,
                                   void (*release)(void *ctx)) {
    VipsImage *in = IMG(image);
    RowMap *map = g_new0(RowMap, 1);
    map->kernel = kernel;
    map->ctx = ctx;
    map->release = release;

    VipsImage *out = vips_image_new();
    /* Free the closure, and drop our reference to the input, when the output goes. */
    g_signal_connect(out, "close", G_CALLBACK(row_map_free), map);
    g_object_ref(in);
    vips_object_local(out, in);

    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL) ||
        vips_image_generate(out, vips_start_one, row_map_generate, vips_stop_one, in, map)) {
        g_object_unref(out);
        return NULL;
    }
    return HANDLE(out);
}

int medley_image_save(MedleyImage *image, const char *path, int format, int quality, int strip) {
    VipsImage *in = IMG(image);
    int q = quality > 0 ? quality : 0;
    switch (format) {
    case MEDLEY_SAVE_JPEG:
        return q ? vips_jpegsave(in, path, "Q", q, "strip", strip, NULL)
                 : vips_jpegsave(in, path, "strip", strip, NULL);
    case MEDLEY_SAVE_PNG:
        return vips_pngsave(in, path, "strip", strip, NULL);
    case MEDLEY_SAVE_WEBP:
        return q ? vips_webpsave(in, path, "Q", q, "strip", strip, NULL)
                 : vips_webpsave(in, path, "strip", strip, NULL);
    case MEDLEY_SAVE_TIFF:
        return vips_tiffsave(in, path, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE,
                             "strip", strip, NULL);
    case MEDLEY_SAVE_HEIF:
        return q ? vips_heifsave(in, path, "Q", q, "strip", strip, NULL)
                 : vips_heifsave(in, path, "strip", strip, NULL);
    case MEDLEY_SAVE_GIF:
        return vips_gifsave(in, path, "strip", strip, NULL);
    default:
        vips_error("medley", "unknown output format %d", format);
        return -1;
    }
}

void *medley_image_render_to_memory(MedleyImage *image, size_t *length) {
    return vips_image_write_to_memory(IMG(image), length);
}
