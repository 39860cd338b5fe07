/* Animated GIF and WebP from packed RGB frames (medley_animation_save, medley_vips.h). A GIF with one
 * palette for the clip: libimagequant quantises, the kernel here dithers, cgif writes; a GIF with a
 * palette per frame: libvips' gifsave (cgif with libimagequant); WebP: libvips' webpsave. */
#include "medley_internal.h"
#include "medley_sink.h"

#include <cgif.h>
#include <errno.h>
#include <libimagequant.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The clip's palette is quantised from at most this many pixels (every frame, subsampled evenly),
 * as palettegen counts every frame's colours. */
#define PALETTE_PIXELS 1000000
/* Nearest palette entry per colour at 6 bits a channel (2^18 entries, filled as colours appear). */
#define LUT_BITS 6
/* Error diffusion: an error carried to a pixel smaller than this (RGB distance, of 255) is not added: a
 * flat area stays one colour instead of a pattern (smaller files; tuned on a 720p clip against
 * ffmpeg's frames blurred by σ = 1 px: 45.2 dB, ffmpeg's paletteuse 42.2, libimagequant's remap 43.8). */
#define QUIET_ERROR 4.0f
/* Each error is diffused at 15/16 of its size, so small errors do not pile up into streaks. */
#define DIFFUSED (15.0f / 16.0f)

/* ---- `palette: clip` GIFs: one palette (libimagequant, once), each frame dithered to it by the
 * kernel below, written by cgif. libvips' gifsave would remap every frame through libimagequant
 * (half of the whole job's CPU time, perf on a 720p clip); the remap is a table lookup here. ---- */

typedef struct {
    unsigned char rgb[256 * 3];
    int count;
    int16_t *lut; /* 2^(3 × LUT_BITS) entries, -1 until asked */
} ClipPalette;

/* libimagequant's palette of the frames (255 colours at most: cgif needs a free index to make
 * unchanged pixels transparent, as palettegen reserves one). 0, or -1 with a libvips error. */
static int quantise_clip(const unsigned char *rgb, int width, int height, int frames, int effort, ClipPalette *out) {
    double pixels = (double)width * height * frames;
    int factor = (int)ceil(sqrt(pixels / PALETTE_PIXELS));
    if (factor < 1) factor = 1;
    size_t rows = ((size_t)height * frames + factor - 1) / factor, columns = ((size_t)width + factor - 1) / factor;
    unsigned char *rgba = g_try_malloc(rows * columns * 4);
    if (!rgba) { vips_error("medley", "out of memory for the clip's palette"); return -1; }
    for (size_t row = 0; row < rows; row++) {
        const unsigned char *line = rgb + row * factor * (size_t)width * 3;
        unsigned char *to = rgba + row * columns * 4;
        for (size_t column = 0; column < columns; column++) {
            const unsigned char *pixel = line + column * factor * 3;
            to[column * 4] = pixel[0]; to[column * 4 + 1] = pixel[1]; to[column * 4 + 2] = pixel[2]; to[column * 4 + 3] = 255;
        }
    }
    liq_attr *attr = liq_attr_create();
    liq_image *image = NULL;
    liq_result *result = NULL;
    int failed = attr == NULL;
    if (!failed) {
        liq_set_max_colors(attr, 255);
        /* libvips' effort 1…10 is libimagequant's speed 10…1. */
        liq_set_speed(attr, effort < 1 ? 10 : effort > 10 ? 1 : 11 - effort);
        image = liq_image_create_rgba(attr, rgba, (int)columns, (int)rows, 0);
        failed = image == NULL || liq_image_quantize(image, attr, &result) != LIQ_OK;
    }
    if (!failed) {
        const liq_palette *palette = liq_get_palette(result);
        out->count = palette->count > 255 ? 255 : (int)palette->count;
        for (int i = 0; i < out->count; i++) {
            out->rgb[i * 3] = palette->entries[i].r;
            out->rgb[i * 3 + 1] = palette->entries[i].g;
            out->rgb[i * 3 + 2] = palette->entries[i].b;
        }
        failed = out->count < 1;
    }
    if (result) liq_result_destroy(result);
    if (image) liq_image_destroy(image);
    if (attr) liq_attr_destroy(attr);
    g_free(rgba);
    if (failed) vips_error("medley", "libimagequant could not quantise the clip's colours");
    return failed ? -1 : 0;
}

/* The palette entry nearest (RGB distance) to the centre of the colour's 6-bit cell. */
static inline int nearest(ClipPalette *palette, int r, int g, int b) {
    int key = (r >> (8 - LUT_BITS)) << (2 * LUT_BITS) | (g >> (8 - LUT_BITS)) << LUT_BITS | (b >> (8 - LUT_BITS));
    int found = palette->lut[key];
    if (found >= 0) return found;
    int half = 1 << (7 - LUT_BITS), mask = ~((1 << (8 - LUT_BITS)) - 1);
    int cr = (r & mask) + half, cg = (g & mask) + half, cb = (b & mask) + half;
    int best = INT_MAX;
    for (int i = 0; i < palette->count; i++) {
        const unsigned char *entry = palette->rgb + i * 3;
        int dr = cr - entry[0], dg = cg - entry[1], db = cb - entry[2];
        int distance = dr * dr + dg * dg + db * db;
        if (distance < best) { best = distance; found = i; }
    }
    palette->lut[key] = (int16_t)found;
    return found;
}

static inline int clamp_byte(float value) { return value <= 0 ? 0 : value >= 255 ? 255 : (int)(value + 0.5f); }

/* One frame to palette indices: Floyd–Steinberg error diffusion scaled by `amount` (0: nearest
 * colour), serpentine, quiet errors left out (QUIET_ERROR). `errors` holds two rows of (width + 2) × 3 floats. */
static void dither_frame(const unsigned char *rgb, int width, int height, float amount, ClipPalette *palette,
                         float *errors, unsigned char *indices) {
    size_t stride = ((size_t)width + 2) * 3;
    float *current = errors, *next = errors + stride;
    memset(current, 0, sizeof(float) * stride);
    for (int y = 0; y < height; y++) {
        memset(next, 0, sizeof(float) * stride);
        int forward = (y & 1) == 0, step = forward ? 1 : -1;
        for (int i = 0; i < width; i++) {
            int x = forward ? i : width - 1 - i;
            const unsigned char *pixel = rgb + ((size_t)y * width + x) * 3;
            float *here = current + (size_t)(x + 1) * 3;
            float pending = here[0] * here[0] + here[1] * here[1] + here[2] * here[2];
            int r, g, b;
            if (pending < QUIET_ERROR * QUIET_ERROR) { r = pixel[0]; g = pixel[1]; b = pixel[2]; }
            else { r = clamp_byte(pixel[0] + here[0]); g = clamp_byte(pixel[1] + here[1]); b = clamp_byte(pixel[2] + here[2]); }
            int index = nearest(palette, r, g, b);
            const unsigned char *entry = palette->rgb + index * 3;
            indices[(size_t)y * width + x] = (unsigned char)index;
            if (amount <= 0) continue;
            float error[3] = {(r - entry[0]) * amount, (g - entry[1]) * amount, (b - entry[2]) * amount};
            float *ahead = here + step * 3, *below = next + (size_t)(x + 1) * 3;
            for (int c = 0; c < 3; c++) {
                ahead[c] += error[c] * (7.0f / 16);
                below[c - step * 3] += error[c] * (3.0f / 16);
                below[c] += error[c] * (5.0f / 16);
                below[c + step * 3] += error[c] * (1.0f / 16);
            }
        }
        float *swap = current; current = next; next = swap;
    }
}

static const char *cgif_reason(int code) {
    switch (code) {
    case CGIF_EWRITE: return "writing failed";
    case CGIF_EALLOC: return "out of memory";
    case CGIF_ECLOSE: return "closing the file failed";
    case CGIF_EOPEN: return "cannot open the file";
    case CGIF_EINDEX: return "a colour index outside the palette";
    default: return "cgif failed";
    }
}

/* `loop`: plays (0 for ever), as libvips' GIF "loop". */
static int save_clip_gif(const unsigned char *rgb, int width, int height, int frames, const int *delays, int loop,
                         const MedleyAnimationOptions *options, const char *path) {
    if (width > 65535 || height > 65535) {
        vips_error("medley", "a GIF is at most 65535 pixels a side, not %d × %d", width, height);
        return -1;
    }
    ClipPalette palette = {.count = 0};
    if (quantise_clip(rgb, width, height, frames, options->effort, &palette)) return -1;
    size_t cells = (size_t)1 << (3 * LUT_BITS), area = (size_t)width * height;
    palette.lut = g_try_malloc(cells * sizeof(int16_t));
    float *errors = g_try_malloc(sizeof(float) * ((size_t)width + 2) * 3 * 2);
    unsigned char *indices = g_try_malloc(area);
    CGIF *gif = NULL;
    int failed = !palette.lut || !errors || !indices;
    if (failed) vips_error("medley", "out of memory for a %d × %d GIF", width, height);
    if (!failed) {
        memset(palette.lut, 0xff, cells * sizeof(int16_t));
        CGIF_Config config = {0};
        config.pGlobalPalette = palette.rgb;
        config.numGlobalPaletteEntries = (uint16_t)palette.count;
        config.path = path;
        config.attrFlags = CGIF_ATTR_IS_ANIMATED | (loop == 1 ? CGIF_ATTR_NO_LOOP : 0);
        config.width = (uint16_t)width;
        config.height = (uint16_t)height;
        config.numLoops = loop > 1 ? (uint16_t)MIN(loop - 1, 65535) : CGIF_INFINITE_LOOP;
        errno = 0;
        gif = cgif_newgif(&config);
        if (!gif) {
            vips_error("medley", "cannot create %s: %s", path, errno ? g_strerror(errno) : "cgif failed");
            failed = 1;
        }
    }
    float amount = options->dither < 0 ? 0 : options->dither > 1 ? 1 : (float)options->dither;
    amount *= DIFFUSED;
    for (int frame = 0; !failed && frame < frames; frame++) {
        dither_frame(rgb + area * 3 * frame, width, height, amount, &palette, errors, indices);
        CGIF_FrameConfig config = {0};
        config.pImageData = indices;
        /* Pixels the frame before already shows become transparent, the frame only the rectangle that changed. */
        config.genFlags = CGIF_FRAME_GEN_USE_TRANSPARENCY | CGIF_FRAME_GEN_USE_DIFF_WINDOW;
        long long centiseconds = ((long long)delays[frame] + 5) / 10;
        config.delay = (uint16_t)(centiseconds < 0 ? 0 : centiseconds > 65535 ? 65535 : centiseconds);
        errno = 0;
        int result = cgif_addframe(gif, &config);
        if (result != CGIF_OK) {
            vips_error("medley", "cannot write %s: %s", path, errno ? g_strerror(errno) : cgif_reason(result));
            failed = 1;
        }
    }
    if (gif) {
        errno = 0;
        int result = cgif_close(gif);
        if (!failed && result != CGIF_OK) {
            vips_error("medley", "cannot write %s: %s", path, errno ? g_strerror(errno) : cgif_reason(result));
            failed = 1;
        }
    }
    g_free(palette.lut);
    g_free(errors);
    g_free(indices);
    return failed ? -1 : 0;
}

int medley_animation_save(const unsigned char *rgb, int width, int height, int frames, const int *delays, int loop,
                          const MedleyAnimationOptions *options, const char *path) {
    if (width <= 0 || height <= 0 || frames <= 0) { vips_error("medley", "an animation needs frames"); return -1; }
    if (options->format == MEDLEY_SAVE_GIF && options->clip_palette)
        return save_clip_gif(rgb, width, height, frames, delays, loop, options, path);
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
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(tall, &watch);
    g_object_unref(tall);
    if (!watched) return -1;
    if (options->format == MEDLEY_SAVE_GIF) {
        failed = vips_gifsave(watched, path, "dither", options->dither, "effort", options->effort,
                              /* A palette per frame: a frame gets its own whenever the last one fits it less well. */
                              "interpalette-maxerror", 0.0,
                              "interframe-maxerror", options->interframe_maxerror, "strip", TRUE, NULL);
    } else {
        failed = options->quality > 100
            ? vips_webpsave(watched, path, "lossless", TRUE, "strip", TRUE, NULL)
            : vips_webpsave(watched, path, "Q", options->quality, "strip", TRUE, NULL);
    }
    return medley_sink_end(watched, watch, failed ? -1 : 0);
}
