/* Reductions: the manifest's image analyses and auto-adjust read an image once into a few numbers. */
#include "medley_internal.h"
#include "medley_sink.h"

/* The image's pixels as doubles in a new buffer of exactly `expected` values (caller frees), or NULL. */
static double *doubles_of(VipsImage *in, size_t expected) {
    VipsImage *cast = NULL;
    if (vips_cast(in, &cast, VIPS_FORMAT_DOUBLE, NULL)) return NULL;
    size_t length = 0;
    double *values = medley_memory_write(cast, &length);
    g_object_unref(cast);
    if (values && length != expected * sizeof(double)) {
        g_free(values);
        vips_error("medley", "unexpected reduction size");
        return NULL;
    }
    return values;
}

int medley_image_band_means(MedleyImage *image, double *means, int capacity) {
    VipsImage *in = IMG(image), *stats = NULL;
    int bands = vips_image_get_bands(in);
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(in, &watch);
    if (!watched || medley_sink_end(watched, watch, vips_stats(watched, &stats, NULL)) != 0) {
        if (stats) g_object_unref(stats);
        return -1;
    }
    /* (bands + 1) rows of 10 columns: row 0 all bands, row b + 1 band b; column 4 the mean. */
    double *values = doubles_of(stats, (size_t)(bands + 1) * 10);
    g_object_unref(stats);
    if (!values) return -1;
    for (int b = 0; b < bands && b < capacity; b++) means[b] = values[(b + 1) * 10 + 4];
    g_free(values);
    return bands;
}

int medley_image_histogram(MedleyImage *image, double *counts, int capacity) {
    VipsImage *in = IMG(image), *hist = NULL;
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR) {
        vips_error("medley", "a histogram of 256 bins needs 8-bit samples");
        return -1;
    }
    int bands = vips_image_get_bands(in);
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(in, &watch);
    if (!watched || medley_sink_end(watched, watch, vips_hist_find(watched, &hist, NULL)) != 0) {
        if (hist) g_object_unref(hist);
        return -1;
    }
    /* 256 × 1 pixels of `bands` bands, interleaved: bin x of band b at x * bands + b. */
    double *values = doubles_of(hist, (size_t)bands * 256);
    g_object_unref(hist);
    if (!values) return -1;
    for (int b = 0; b < bands; b++)
        for (int x = 0; x < 256 && b * 256 + x < capacity; x++) counts[b * 256 + x] = values[x * bands + b];
    g_free(values);
    return bands;
}

MedleyImage *medley_image_luminance(MedleyImage *image) {
    VipsImage *grey = NULL, *out = NULL;
    if (vips_colourspace(IMG(image), &grey, VIPS_INTERPRETATION_B_W, NULL)) return NULL;
    VipsImage *single = NULL;
    int failed = vips_extract_band(grey, &single, 0, NULL);
    g_object_unref(grey);
    if (failed) return NULL;
    failed = vips_cast(single, &out, VIPS_FORMAT_UCHAR, NULL);
    g_object_unref(single);
    return failed ? NULL : HANDLE(out);
}
