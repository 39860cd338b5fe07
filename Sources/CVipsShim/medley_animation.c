/* Animated GIF and WebP from packed RGB frames (medley_animation_save, medley_vips.h): libvips'
 * gifsave (cgif with libimagequant) and webpsave do the quantising and encoding. */
#include "medley_internal.h"
#include "medley_sink.h"

#include <math.h>
#include <string.h>

/* A GIF frame is at most 65535 rows; the clip's palette is quantised from at most this many pixels
 * (every frame's rows, subsampled evenly), as palettegen counts every frame's colours. */
#define PALETTE_PIXELS 1000000

/* One palette for the whole clip: the frames stacked into one picture and quantised once by
 * gifsave (libimagequant), read back from the GIF's "gif-palette" field. */
static int clip_palette(VipsImage *tall, int **palette, int *count) {
    double pixels = (double)tall->Xsize * tall->Ysize;
    int factor = (int)ceil(sqrt(pixels / PALETTE_PIXELS));
    if (factor < 1) factor = 1;
    int yfactor = factor;
    while (tall->Ysize / yfactor > 65535) yfactor++;
    VipsImage *sample = NULL, *bare = NULL, *loaded = NULL;
    void *buffer = NULL;
    size_t length = 0;
    int failed = vips_subsample(tall, &sample, factor, yfactor, NULL);
    if (!failed) failed = vips_copy(sample, &bare, NULL);
    if (!failed) {
        vips_image_remove(bare, VIPS_META_PAGE_HEIGHT);
        vips_image_remove(bare, VIPS_META_N_PAGES);
        vips_image_remove(bare, "delay");
        failed = vips_gifsave_buffer(bare, &buffer, &length, "dither", 0.0, NULL);
    }
    if (!failed) failed = vips_gifload_buffer(buffer, length, &loaded, NULL);
    int *values = NULL, n = 0;
    if (!failed) failed = vips_image_get_array_int(loaded, "gif-palette", &values, &n);
    if (!failed) {
        *palette = g_new(int, n);
        memcpy(*palette, values, sizeof(int) * n);
        *count = n;
    }
    if (sample) g_object_unref(sample);
    if (bare) g_object_unref(bare);
    if (loaded) g_object_unref(loaded);
    g_free(buffer);
    return failed ? -1 : 0;
}

int medley_animation_save(const unsigned char *rgb, int width, int height, int frames, const int *delays, int loop,
                          const MedleyAnimationOptions *options, const char *path) {
    if (width <= 0 || height <= 0 || frames <= 0) { vips_error("medley", "an animation needs frames"); return -1; }
    size_t bytes = (size_t)width * height * frames * 3;
    VipsImage *memory = vips_image_new_from_memory(rgb, bytes, width, height * frames, 3, VIPS_FORMAT_UCHAR);
    if (!memory) return -1;
    VipsImage *tall = NULL;
    int failed = vips_copy(memory, &tall, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(memory);
    if (failed) return -1;
    vips_image_set_int(tall, VIPS_META_PAGE_HEIGHT, height);
    vips_image_set_int(tall, VIPS_META_N_PAGES, frames);
    vips_image_set_array_int(tall, "delay", delays, frames);
    vips_image_set_int(tall, "loop", loop);
    int *palette = NULL, colours = 0;
    if (options->format == MEDLEY_SAVE_GIF && options->clip_palette) {
        if (clip_palette(tall, &palette, &colours)) { g_object_unref(tall); return -1; }
        vips_image_set_array_int(tall, "gif-palette", palette, colours);
        g_free(palette);
    }
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(tall, &watch);
    g_object_unref(tall);
    if (!watched) return -1;
    if (options->format == MEDLEY_SAVE_GIF) {
        failed = vips_gifsave(watched, path, "dither", options->dither, "effort", options->effort,
                              "reuse", options->clip_palette ? TRUE : FALSE,
                              /* A palette per frame: a frame gets its own whenever the last one fits it less well. */
                              "interpalette-maxerror", options->clip_palette ? 3.0 : 0.0,
                              "interframe-maxerror", options->interframe_maxerror, "strip", TRUE, NULL);
    } else {
        failed = options->quality > 100
            ? vips_webpsave(watched, path, "lossless", TRUE, "strip", TRUE, NULL)
            : vips_webpsave(watched, path, "Q", options->quality, "strip", TRUE, NULL);
    }
    return medley_sink_end(watched, watch, failed ? -1 : 0);
}
