/* What an image is (size, bands, format, interpretation, pages) and the metadata fields it carries. */
#include "medley_internal.h"

void medley_image_unref(MedleyImage *image) {
    if (image) g_object_unref(IMG(image));
}

int medley_image_width(const MedleyImage *image) { return vips_image_get_width(IMG(image)); }
int medley_image_height(const MedleyImage *image) { return vips_image_get_height(IMG(image)); }
int medley_image_bands(const MedleyImage *image) { return vips_image_get_bands(IMG(image)); }
int medley_image_format(const MedleyImage *image) { return (int)vips_image_get_format(IMG(image)); }
int medley_image_has_alpha(const MedleyImage *image) { return vips_image_hasalpha(IMG(image)) ? 1 : 0; }
int medley_image_pages(const MedleyImage *image) { return vips_image_get_n_pages(IMG(image)); }
int medley_image_page_height(const MedleyImage *image) { return vips_image_get_page_height(IMG(image)); }

const char *medley_image_interpretation(const MedleyImage *image) {
    VipsInterpretation kind = vips_image_get_interpretation(IMG(image));
    const char *name = vips_enum_nick(VIPS_TYPE_INTERPRETATION, kind);
    return name ? name : "unknown";
}

int medley_image_orientation(const MedleyImage *image) {
    int orientation = vips_image_get_orientation(IMG(image));
    return (orientation >= 1 && orientation <= 8) ? orientation : 1;
}

int medley_image_has_field(const MedleyImage *image, const char *name) {
    return vips_image_get_typeof(IMG(image), name) != 0;
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

const void *medley_image_icc_data(const MedleyImage *image, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (!vips_image_get_typeof(IMG(image), VIPS_META_ICC_NAME)) return NULL;
    if (vips_image_get_blob(IMG(image), VIPS_META_ICC_NAME, &data, length)) {
        vips_error_clear();
        return NULL;
    }
    return data;
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
