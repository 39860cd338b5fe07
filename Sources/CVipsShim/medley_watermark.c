/* Watermarks and text: a mark composited over an image, text rendered by Pango. */
#include "medley_internal.h"

MedleyImage *medley_image_text_rgba(const char *markup, const char *font, int dpi,
                                    double red, double green, double blue, double alpha) {
    VipsImage *mask = NULL;
    if (vips_text(&mask, markup, "font", font, "dpi", dpi, NULL)) return NULL;
    VipsImage *black = NULL, *colour = NULL, *coverage = NULL, *joined = NULL, *out = NULL;
    double ones[3] = { 1, 1, 1 }, rgb[3] = { red, green, blue };
    double scale = alpha / 255.0, zero = 0;
    int failed = vips_black(&black, vips_image_get_width(mask), vips_image_get_height(mask), "bands", 3, NULL)
        || vips_linear(black, &colour, ones, rgb, 3, "uchar", TRUE, NULL)
        || vips_linear(mask, &coverage, &scale, &zero, 1, "uchar", TRUE, NULL)
        || vips_bandjoin2(colour, coverage, &joined, NULL)
        || vips_copy(joined, &out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    if (black) g_object_unref(black);
    if (colour) g_object_unref(colour);
    if (coverage) g_object_unref(coverage);
    if (joined) g_object_unref(joined);
    g_object_unref(mask);
    return failed ? NULL : HANDLE(out);
}

/* Releases every image in a list that is set. */
static void unref_all(VipsImage **images, int count) {
    for (int i = 0; i < count; i++) if (images[i]) g_object_unref(images[i]);
}

MedleyImage *medley_image_watermark(MedleyImage *image, MedleyImage *mark, double scale, int x, int y, double opacity,
                                    int linear, int tile, int gap_x, int gap_y) {
    VipsImage *in = IMG(image);
    int deep = vips_image_get_format(in) == VIPS_FORMAT_USHORT;
    int had_alpha = vips_image_hasalpha(in);
    int width = vips_image_get_width(in), height = vips_image_get_height(in);
    VipsBandFormat format = deep ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR;
    VipsInterpretation stored = deep ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB;
    enum { RGB, PRE, SIZED, UNPRE, FADED, CELL, ROW, TILED, PATCH, LINEAR, SCALED, BLEND, UNSCALED, BACK, CAST, COLOURS, COUNT };
    VipsImage *t[COUNT] = { NULL };
    /* The faded alpha is rounded to 8 bits (the cast to uchar truncates: + 0.5). */
    double keep[4] = { 1, 1, 1, opacity }, none[4] = { 0, 0, 0, 0 }, half[4] = { 0, 0, 0, 0.5 };
    VipsImage *sized = IMG(mark);
    if (scale != 1) {
        if (vips_premultiply(sized, &t[PRE], NULL)
            || vips_resize(t[PRE], &t[SIZED], scale, "kernel", VIPS_KERNEL_LANCZOS3, NULL)
            || vips_unpremultiply(t[SIZED], &t[UNPRE], NULL)) {
            unref_all(t, COUNT);
            return NULL;
        }
        sized = t[UNPRE];
    }
    if (vips_colourspace(in, &t[RGB], stored, NULL)
        || vips_linear(sized, &t[FADED], keep, half, 4, "uchar", TRUE, NULL)) {
        unref_all(t, COUNT);
        return NULL;
    }
    VipsImage *overlay = t[FADED];
    int at_x = x, at_y = y;
    if (tile) {
        /* One cell (the mark and its gap, transparent), repeated to cover the image with a cell
         * corner at (x, y), then cut to the image. */
        int cell_w = vips_image_get_width(overlay) + gap_x, cell_h = vips_image_get_height(overlay) + gap_y;
        int phase_x = ((x % cell_w) + cell_w) % cell_w, phase_y = ((y % cell_h) + cell_h) % cell_h;
        if (vips_embed(overlay, &t[CELL], 0, 0, cell_w, cell_h, "extend", VIPS_EXTEND_BLACK, NULL)
            || vips_replicate(t[CELL], &t[ROW], width / cell_w + 2, height / cell_h + 2, NULL)
            || vips_crop(t[ROW], &t[TILED], (cell_w - phase_x) % cell_w, (cell_h - phase_y) % cell_h,
                         width, height, NULL)) {
            unref_all(t, COUNT);
            return NULL;
        }
        overlay = t[TILED];
        at_x = 0;
        at_y = 0;
    }
    VipsInterpretation space = linear ? VIPS_INTERPRETATION_scRGB : stored;
    /* Only the part of the image under the mark is composited (in float when in linear light),
     * then put back in place: the rest of the image passes through untouched. */
    int left = at_x > 0 ? at_x : 0, top = at_y > 0 ? at_y : 0;
    int right = at_x + vips_image_get_width(overlay), bottom = at_y + vips_image_get_height(overlay);
    if (right > width) right = width;
    if (bottom > height) bottom = height;
    VipsImage *out = NULL;
    if (right <= left || bottom <= top) {
        /* The mark lies wholly outside: nothing to draw. */
        out = t[RGB];
        t[RGB] = NULL;
        unref_all(t, COUNT);
        return HANDLE(out);
    }
    int colours = had_alpha ? 4 : 3;
    if (vips_crop(t[RGB], &t[PATCH], left, top, right - left, bottom - top, NULL)) {
        unref_all(t, COUNT);
        return NULL;
    }
    VipsImage *under = t[PATCH];
    /* libvips carries a 16-bit alpha into scRGB as alpha / 256 (opaque: 255.996, beyond the 255 its
     * blend takes as opaque) and back as × 256: rescale it to 0…255 exactly, and back after. */
    int rescale = linear && deep && had_alpha;
    double in_alpha[4] = { 1, 1, 1, 256.0 / 257.0 }, out_alpha[4] = { 1, 1, 1, 257.0 / 256.0 };
    if (rescale && (vips_colourspace(t[PATCH], &t[LINEAR], VIPS_INTERPRETATION_scRGB, NULL)
                    || vips_linear(t[LINEAR], &t[SCALED], in_alpha, none, 4, NULL))) {
        unref_all(t, COUNT);
        return NULL;
    }
    if (rescale) under = t[SCALED];
    if (vips_composite2(under, overlay, &t[BLEND], VIPS_BLEND_MODE_OVER, "x", at_x - left, "y", at_y - top,
                        "compositing_space", space, NULL)
        || (rescale && vips_linear(t[BLEND], &t[UNSCALED], out_alpha, none, 4, NULL))) {
        unref_all(t, COUNT);
        return NULL;
    }
    if (vips_colourspace(rescale ? t[UNSCALED] : t[BLEND], &t[BACK], stored, NULL)
        || vips_cast(t[BACK], &t[CAST], format, NULL)
        /* composite2 always adds an alpha band: an opaque image stays opaque. */
        || vips_extract_band(t[CAST], &t[COLOURS], 0, "n", colours, NULL)
        || vips_insert(t[RGB], t[COLOURS], &out, left, top, NULL)) {
        unref_all(t, COUNT);
        return NULL;
    }
    unref_all(t, COUNT);
    return HANDLE(out);
}
