/* Swift kernels run inside libvips' region pipeline: per row, per row of two images, per
 * neighbourhood, and one-dimensional resampling. Each kernel's image carries the item's log
 * collection onto libvips' worker threads (medley_log.c). */
#include "medley_internal.h"

#include <math.h>

/* One Swift kernel and its context; freed with the image it produces. */
typedef struct {
    medley_row_kernel rows;
    medley_row_kernel2 rows2;
    medley_region_kernel regions;
    medley_resample_kernel resample;
    int horizontal;      /* resample: along x (1) or y (0) */
    double scale;        /* resample: output pixels per input pixel */
    int input_size;      /* resample: the input's side along the axis */
    int margin;
    void *ctx;
    void (*release)(void *ctx);
    MedleyLogSink *sink;  /* the item's, so that libvips' messages on worker threads reach it */
    int published;        /* set (release) once every field above is; read (acquire) by workers */
} KernelClosure;

/* Runs on a libvips worker thread: messages logged until the matching leave are the item's.
 * The acquire pairs with the release in `generate`: the closure was filled on the item's thread
 * before libvips handed work to its pool, and that hand-off (glib's futex-based GMutex/GCond) is
 * invisible to ThreadSanitizer; this pair states the ordering in a form it sees. */
static MedleyLogSink *enter_item(KernelClosure *closure) {
    (void)__atomic_load_n(&closure->published, __ATOMIC_ACQUIRE);
    return medley_log_enter(closure->sink);
}

static void leave_item(MedleyLogSink *previous) { medley_log_leave(previous); }

static void closure_free(VipsImage *image, void *data) {
    KernelClosure *closure = (KernelClosure *)data;
    if (closure->release) closure->release(closure->ctx);
    medley_log_unref(closure->sink);
    g_free(closure);
    (void)image;
}

static int rows_generate_work(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *in_region = (VipsRegion *)seq;
    KernelClosure *closure = (KernelClosure *)b;
    VipsRect *rect = &out_region->valid;
    if (vips_region_prepare(in_region, rect)) return -1;
    int bands = in_region->im->Bands;
    int in_bytes = (int)VIPS_IMAGE_SIZEOF_ELEMENT(in_region->im);
    int out_bytes = (int)VIPS_IMAGE_SIZEOF_ELEMENT(out_region->im);
    for (int y = 0; y < rect->height; y++) {
        closure->rows(closure->ctx,
                      VIPS_REGION_ADDR(in_region, rect->left, rect->top + y),
                      VIPS_REGION_ADDR(out_region, rect->left, rect->top + y),
                      rect->width, bands, in_bytes, out_bytes, rect->left, rect->top + y);
    }
    (void)a;
    (void)stop;
    return 0;
}

static int rows2_generate_work(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion **in_regions = (VipsRegion **)seq;
    KernelClosure *closure = (KernelClosure *)b;
    VipsRect *rect = &out_region->valid;
    if (vips_region_prepare(in_regions[0], rect) || vips_region_prepare(in_regions[1], rect)) return -1;
    int bands = in_regions[0]->im->Bands;
    for (int y = 0; y < rect->height; y++) {
        closure->rows2(closure->ctx,
                       VIPS_REGION_ADDR(in_regions[0], rect->left, rect->top + y),
                       VIPS_REGION_ADDR(in_regions[1], rect->left, rect->top + y),
                       VIPS_REGION_ADDR(out_region, rect->left, rect->top + y),
                       rect->width, bands, rect->left, rect->top + y);
    }
    (void)a;
    (void)stop;
    return 0;
}

/* The input is the image embedded in a `margin`-wide border of copied edge pixels, so output
 * pixel (x, y) reads input pixels (x .. x + 2·margin, y .. y + 2·margin). */
static int regions_generate_work(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *in_region = (VipsRegion *)seq;
    KernelClosure *closure = (KernelClosure *)b;
    VipsRect *rect = &out_region->valid;
    VipsRect need = { rect->left, rect->top, rect->width + 2 * closure->margin, rect->height + 2 * closure->margin };
    if (vips_region_prepare(in_region, &need)) return -1;
    closure->regions(closure->ctx,
                     VIPS_REGION_ADDR(in_region, need.left, need.top), VIPS_REGION_LSKIP(in_region),
                     VIPS_REGION_ADDR(out_region, rect->left, rect->top), VIPS_REGION_LSKIP(out_region),
                     rect->width, rect->height, in_region->im->Bands, rect->left, rect->top);
    (void)a;
    (void)stop;
    return 0;
}

/* The input is the image with `margin` copied edge pixels at both ends of the axis; an output
 * block needs the input span its pixels' centres reach, plus the margin. */
static int resample_generate_work(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    VipsRegion *in_region = (VipsRegion *)seq;
    KernelClosure *closure = (KernelClosure *)b;
    VipsRect *rect = &out_region->valid;
    int start = closure->horizontal ? rect->left : rect->top;
    int count = closure->horizontal ? rect->width : rect->height;
    int m = closure->margin;
    double low = floor((start + 0.5) / closure->scale - 0.5) - m;
    double high = ceil((start + count - 0.5) / closure->scale - 0.5) + m;
    int first = low < -m ? -m : (int)low;
    int last = high > closure->input_size - 1 + m ? closure->input_size - 1 + m : (int)high;
    if (last < first) last = first;
    VipsRect need = closure->horizontal
        ? (VipsRect){ first + m, rect->top, last - first + 1, rect->height }
        : (VipsRect){ rect->left, first + m, rect->width, last - first + 1 };
    if (vips_region_prepare(in_region, &need)) return -1;
    closure->resample(closure->ctx,
                      VIPS_REGION_ADDR(in_region, need.left, need.top), VIPS_REGION_LSKIP(in_region),
                      VIPS_REGION_ADDR(out_region, rect->left, rect->top), VIPS_REGION_LSKIP(out_region),
                      rect->width, rect->height, in_region->im->Bands, rect->left, rect->top, first, last - first + 1);
    (void)a;
    (void)stop;
    return 0;
}

static int resample_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    MedleyLogSink *previous = enter_item((KernelClosure *)b);
    int result = resample_generate_work(out_region, seq, a, b, stop);
    leave_item(previous);
    return result;
}

static int rows_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    MedleyLogSink *previous = enter_item((KernelClosure *)b);
    int result = rows_generate_work(out_region, seq, a, b, stop);
    leave_item(previous);
    return result;
}

static int rows2_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    MedleyLogSink *previous = enter_item((KernelClosure *)b);
    int result = rows2_generate_work(out_region, seq, a, b, stop);
    leave_item(previous);
    return result;
}

static int regions_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    MedleyLogSink *previous = enter_item((KernelClosure *)b);
    int result = regions_generate_work(out_region, seq, a, b, stop);
    leave_item(previous);
    return result;
}

/* vips_image_generate, after publishing the filled closure to the worker threads (enter_item). */
static int generate(VipsImage *out, VipsStartFn start, VipsGenerateFn work, VipsStopFn stop, void *a,
                    KernelClosure *closure) {
    __atomic_store_n(&closure->published, 1, __ATOMIC_RELEASE);
    return vips_image_generate(out, start, work, stop, a, closure);
}

/* A new image that owns `closure` and keeps its inputs alive. */
static VipsImage *closure_image(KernelClosure *closure, VipsImage **inputs, int count) {
    VipsImage *out = vips_image_new();
    g_signal_connect(out, "close", G_CALLBACK(closure_free), closure);
    for (int i = 0; i < count; i++) {
        g_object_ref(inputs[i]);
        vips_object_local(out, inputs[i]);
    }
    return out;
}

/* NULL when memory is short (g_new0 would abort the process); the context is then released here. */
static KernelClosure *new_closure(void *ctx, void (*release)(void *ctx)) {
    KernelClosure *closure = g_try_new0(KernelClosure, 1);
    if (!closure) {
        if (release) release(ctx);
        vips_error("medley", "out of memory");
        return NULL;
    }
    closure->ctx = ctx;
    closure->release = release;
    closure->sink = medley_log_ref(medley_log_current());
    return closure;
}

MedleyImage *medley_image_map_rows(MedleyImage *image, int out_format, medley_row_kernel kernel, void *ctx,
                                   void (*release)(void *ctx)) {
    VipsImage *in = IMG(image);
    KernelClosure *closure = new_closure(ctx, release);
    if (!closure) return NULL;
    closure->rows = kernel;
    VipsImage *inputs[] = { in };
    VipsImage *out = closure_image(closure, inputs, 1);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, in, NULL)) {
        g_object_unref(out);
        return NULL;
    }
    if (out_format >= 0 && out_format != (int)in->BandFmt) {
        out->BandFmt = (VipsBandFormat)out_format;
        if (out_format == VIPS_FORMAT_FLOAT) out->Type = VIPS_INTERPRETATION_scRGB;
        else if (out_format == VIPS_FORMAT_USHORT) out->Type = VIPS_INTERPRETATION_RGB16;
        else out->Type = VIPS_INTERPRETATION_sRGB;
    }
    if (generate(out, vips_start_one, rows_generate, vips_stop_one, in, closure)) {
        g_object_unref(out);
        return NULL;
    }
    return HANDLE(out);
}

MedleyImage *medley_image_map_rows2(MedleyImage *first, MedleyImage *second, medley_row_kernel2 kernel,
                                    void *ctx, void (*release)(void *ctx)) {
    VipsImage *a = IMG(first), *b = IMG(second);
    KernelClosure *closure = new_closure(ctx, release);
    if (!closure) return NULL;
    closure->rows2 = kernel;
    VipsImage *inputs[] = { a, b };
    VipsImage *out = closure_image(closure, inputs, 2);
    if (a->Xsize != b->Xsize || a->Ysize != b->Ysize || a->Bands != b->Bands || a->Bands != 4 || a->BandFmt != VIPS_FORMAT_FLOAT ||
        b->BandFmt != VIPS_FORMAT_FLOAT) {
        vips_error("medley", "two-input kernels need float RGBA images of one size");
        g_object_unref(out);
        return NULL;
    }
    VipsImage **array = vips_allocate_input_array(out, a, b, NULL);
    if (!array || vips_image_pipeline_array(out, VIPS_DEMAND_STYLE_THINSTRIP, array) ||
        generate(out, vips_start_many, rows2_generate, vips_stop_many, array, closure)) {
        g_object_unref(out);
        return NULL;
    }
    return HANDLE(out);
}

MedleyImage *medley_image_map_regions(MedleyImage *image, int margin, medley_region_kernel kernel, void *ctx,
                                      void (*release)(void *ctx)) {
    VipsImage *in = IMG(image);
    KernelClosure *closure = new_closure(ctx, release);
    if (!closure) return NULL;
    closure->regions = kernel;
    closure->margin = margin;
    VipsImage *padded = NULL;
    if (vips_embed(in, &padded, margin, margin, in->Xsize + 2 * margin, in->Ysize + 2 * margin,
                   "extend", VIPS_EXTEND_COPY, NULL)) {
        closure_free(NULL, closure);
        return NULL;
    }
    VipsImage *inputs[] = { padded };
    VipsImage *out = closure_image(closure, inputs, 1);
    g_object_unref(padded); /* out holds it now */
    /* Wide strips are cheapest when the margin is thin; a wide margin would be re-read for
     * every short strip, so large kernels ask for square tiles instead. */
    VipsDemandStyle style = margin <= 8 ? VIPS_DEMAND_STYLE_FATSTRIP : VIPS_DEMAND_STYLE_SMALLTILE;
    if (vips_image_pipelinev(out, style, padded, NULL)) {
        g_object_unref(out);
        return NULL;
    }
    out->Xsize = in->Xsize;
    out->Ysize = in->Ysize;
    if (generate(out, vips_start_one, regions_generate, vips_stop_one, padded, closure)) {
        g_object_unref(out);
        return NULL;
    }
    return HANDLE(out);
}

MedleyImage *medley_image_resample(MedleyImage *image, int horizontal, int out_size, double scale, int margin,
                                   medley_resample_kernel kernel, void *ctx, void (*release)(void *ctx)) {
    VipsImage *in = IMG(image);
    KernelClosure *closure = new_closure(ctx, release);
    if (!closure) return NULL;
    closure->resample = kernel;
    closure->horizontal = horizontal;
    closure->scale = scale;
    closure->input_size = horizontal ? in->Xsize : in->Ysize;
    closure->margin = margin;
    VipsImage *padded = NULL;
    if (vips_embed(in, &padded, horizontal ? margin : 0, horizontal ? 0 : margin,
                   in->Xsize + (horizontal ? 2 * margin : 0), in->Ysize + (horizontal ? 0 : 2 * margin),
                   "extend", VIPS_EXTEND_COPY, NULL)) {
        closure_free(NULL, closure);
        return NULL;
    }
    VipsImage *inputs[] = { padded };
    VipsImage *out = closure_image(closure, inputs, 1);
    g_object_unref(padded);
    if (vips_image_pipelinev(out, horizontal ? VIPS_DEMAND_STYLE_FATSTRIP : VIPS_DEMAND_STYLE_SMALLTILE, padded, NULL)) {
        g_object_unref(out);
        return NULL;
    }
    out->Xsize = horizontal ? out_size : in->Xsize;
    out->Ysize = horizontal ? in->Ysize : out_size;
    if (generate(out, vips_start_one, resample_generate, vips_stop_one, padded, closure)) {
        g_object_unref(out);
        return NULL;
    }
    return HANDLE(out);
}
