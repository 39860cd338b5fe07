/* Contact sheets: a cell (a thumbnail on the background, its label drawn over), cells joined in rows. */
#include "medley_internal.h"

/* A width × height cell of the background colour (8-bit sRGB), `thumbnail` (8-bit sRGB, no alpha;
 * NULL: an empty cell) placed at (x, y) and `label` (8-bit sRGB + alpha; NULL: none) composited
 * source-over at (label_x, label_y). */
MedleyImage *medley_sheet_cell(MedleyImage *thumbnail, MedleyImage *label, int width, int height,
                               int x, int y, int label_x, int label_y, const double *background) {
    VipsImage *canvas = NULL, *black = NULL, *filled = NULL, *composed = NULL, *out = NULL;
    double ones[3] = { 1, 1, 1 };
    int failed;
    if (thumbnail) {
        VipsArrayDouble *colour = vips_array_double_new(background, 3);
        failed = vips_embed(IMG(thumbnail), &canvas, x, y, width, height,
                            "extend", VIPS_EXTEND_BACKGROUND, "background", colour, NULL);
        vips_area_unref(VIPS_AREA(colour));
    } else {
        failed = vips_black(&black, width, height, "bands", 3, NULL)
            || vips_linear(black, &filled, ones, (double *)background, 3, "uchar", TRUE, NULL)
            || vips_copy(filled, &canvas, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    }
    if (!failed && label) {
        failed = vips_composite2(canvas, IMG(label), &composed, VIPS_BLEND_MODE_OVER,
                                 "x", label_x, "y", label_y, NULL)
            || vips_extract_band(composed, &out, 0, "n", 3, NULL);
    } else if (!failed) {
        out = canvas;
        canvas = NULL;
    }
    if (black) g_object_unref(black);
    if (filled) g_object_unref(filled);
    if (canvas) g_object_unref(canvas);
    if (composed) g_object_unref(composed);
    if (failed && out) { g_object_unref(out); out = NULL; }
    return failed ? NULL : HANDLE(out);
}

/* Cells of one size joined `across` to a row, rows top to bottom; a short last row is filled with
 * the background. */
MedleyImage *medley_sheet_join(MedleyImage **cells, int count, int across, const double *background) {
    VipsImage **images = g_new(VipsImage *, count);
    for (int i = 0; i < count; i++) images[i] = IMG(cells[i]);
    VipsArrayDouble *colour = vips_array_double_new(background, 3);
    VipsImage *out = NULL;
    int failed = vips_arrayjoin(images, &out, count, "across", across, "background", colour, NULL);
    vips_area_unref(VIPS_AREA(colour));
    g_free(images);
    return failed ? NULL : HANDLE(out);
}
