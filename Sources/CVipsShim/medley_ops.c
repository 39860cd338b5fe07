/* Geometry and generators, by libvips: crops, turns, affine and mapped resampling, bands, pages. */
#include "medley_internal.h"

MedleyImage *medley_image_autorot(MedleyImage *image) {
    VipsImage *out = NULL;
    if (vips_autorot(IMG(image), &out, NULL)) return NULL;
    return HANDLE(out);
}

MedleyImage *medley_image_crop(MedleyImage *image, int left, int top, int width, int height) {
    VipsImage *out = NULL;
    return vips_crop(IMG(image), &out, left, top, width, height, NULL) ? NULL : HANDLE(out);
}

/* vips_smartcrop: the width × height box of the image its `interesting` strategy picks
 * (2 entropy, 3 attention), as vipsthumbnail --smartcrop does. NULL on error. */
MedleyImage *medley_image_smartcrop(MedleyImage *image, int width, int height, int interesting) {
    VipsImage *out = NULL;
    VipsInteresting chosen = interesting == VIPS_INTERESTING_ENTROPY ? VIPS_INTERESTING_ENTROPY : VIPS_INTERESTING_ATTENTION;
    if (vips_smartcrop(IMG(image), &out, width, height, "interesting", chosen, NULL)) return NULL;
    return HANDLE(out);
}

MedleyImage *medley_image_flip(MedleyImage *image, int horizontal) {
    VipsImage *out = NULL;
    return vips_flip(IMG(image), &out, horizontal ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL, NULL)
        ? NULL : HANDLE(out);
}

MedleyImage *medley_image_rotate(MedleyImage *image, int quarter_turns) {
    static const VipsAngle angles[] = { VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270 };
    VipsImage *out = NULL;
    return vips_rot(IMG(image), &out, angles[((quarter_turns % 4) + 4) % 4], NULL) ? NULL : HANDLE(out);
}

MedleyImage *medley_image_affine(MedleyImage *image, double a, double b, double c, double d,
                                 double odx, double ody, int out_width, int out_height) {
    VipsImage *out = NULL;
    VipsInterpolate *interpolate = vips_interpolate_new("bicubic");
    if (!interpolate) return NULL;
    VipsArrayInt *area = vips_array_int_newv(4, 0, 0, out_width, out_height);
    int failed = vips_affine(IMG(image), &out, a, b, c, d, "interpolate", interpolate, "odx", odx, "ody", ody,
                             "oarea", area, "extend", VIPS_EXTEND_BLACK, NULL);
    g_object_unref(interpolate);
    vips_area_unref(VIPS_AREA(area));
    return failed ? NULL : HANDLE(out);
}

MedleyImage *medley_image_mapim(MedleyImage *image, MedleyImage *index) {
    VipsImage *out = NULL;
    VipsInterpolate *interpolate = vips_interpolate_new("bilinear");
    if (!interpolate) return NULL;
    int failed = vips_mapim(IMG(image), &out, IMG(index), "interpolate", interpolate, NULL);
    g_object_unref(interpolate);
    return failed ? NULL : HANDLE(out);
}

MedleyImage *medley_image_resize(MedleyImage *image, double horizontal, double vertical) {
    VipsImage *out = NULL;
    return vips_resize(IMG(image), &out, horizontal, "vscale", vertical, "kernel", VIPS_KERNEL_LANCZOS3, NULL)
        ? NULL : HANDLE(out);
}

MedleyImage *medley_image_embed(MedleyImage *image, int x, int y, int width, int height) {
    VipsImage *out = NULL;
    return vips_embed(IMG(image), &out, x, y, width, height, "extend", VIPS_EXTEND_BLACK, NULL) ? NULL : HANDLE(out);
}

MedleyImage *medley_image_append_band(MedleyImage *image, double value) {
    VipsImage *out = NULL;
    return vips_bandjoin_const1(IMG(image), &out, value, NULL) ? NULL : HANDLE(out);
}

MedleyImage *medley_image_extract_bands(MedleyImage *image, int first, int count) {
    VipsImage *out = NULL;
    return vips_extract_band(IMG(image), &out, first, "n", count, NULL) ? NULL : HANDLE(out);
}

MedleyImage *medley_image_join_pages(MedleyImage **frames, int count) {
    VipsImage **images = g_new(VipsImage *, count);
    for (int i = 0; i < count; i++) images[i] = IMG(frames[i]);
    VipsImage *joined = NULL, *out = NULL;
    int failed = vips_arrayjoin(images, &joined, count, "across", 1, NULL);
    g_free(images);
    if (failed) return NULL;
    /* The frames keep the animation's fields (delay, loop) from the file; the page height is the
     * frames' new one. */
    failed = vips_copy(joined, &out, NULL);
    g_object_unref(joined);
    if (failed) return NULL;
    vips_image_set_int(out, VIPS_META_PAGE_HEIGHT, vips_image_get_height(IMG(frames[0])));
    vips_image_set_int(out, VIPS_META_N_PAGES, count);
    return HANDLE(out);
}

MedleyImage *medley_image_constant(int width, int height, int bands, const double *values) {
    VipsImage *black = NULL, *out = NULL;
    double ones[4] = { 1, 1, 1, 1 };
    if (vips_black(&black, width, height, "bands", bands, NULL)) return NULL;
    int failed = vips_linear(black, &out, ones, (double *)values, bands, NULL);
    g_object_unref(black);
    if (failed) return NULL;
    VipsImage *cast = NULL;
    failed = vips_cast(out, &cast, VIPS_FORMAT_FLOAT, NULL);
    g_object_unref(out);
    return failed ? NULL : HANDLE(cast);
}

MedleyImage *medley_image_reinterpret(MedleyImage *image, const char *interpretation) {
    int kind = vips_enum_from_nick("medley", VIPS_TYPE_INTERPRETATION, interpretation);
    if (kind < 0) return NULL;
    VipsImage *out = NULL;
    return vips_copy(IMG(image), &out, "interpretation", kind, NULL) ? NULL : HANDLE(out);
}
