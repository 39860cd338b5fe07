/* See medley_vips.h. Every function here is a thin, non-variadic wrapper; the policy
 * (limits, formats, error messages a person reads) lives in Swift. */
#include "medley_vips.h"
#include "medley_sink.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

#define IMG(h) ((VipsImage *)(h))
#define HANDLE(i) ((MedleyImage *)(i))

/* ---- GLib log messages, per item ---- */

struct MedleyLogSink {
    gint refs;
    GMutex lock;
    GHashTable *counts;   /* message → count (a long, owned by the table) */
    GPtrArray *order;     /* messages in the order first seen (owned by counts' keys) */
};

static GPrivate thread_sink;          /* the sink of the item this thread works for */
static GMutex sinks_lock;
static GPtrArray *active_sinks;       /* every sink between begin and end */

static MedleyLogSink *sink_ref(MedleyLogSink *sink) {
    if (sink) g_atomic_int_inc(&sink->refs);
    return sink;
}

static void sink_unref(MedleyLogSink *sink) {
    if (!sink || !g_atomic_int_dec_and_test(&sink->refs)) return;
    g_hash_table_destroy(sink->counts);
    g_ptr_array_free(sink->order, TRUE);
    g_mutex_clear(&sink->lock);
    g_free(sink);
}

static void sink_add(MedleyLogSink *sink, const char *text) {
    g_mutex_lock(&sink->lock);
    long *count = g_hash_table_lookup(sink->counts, text);
    if (count) {
        (*count)++;
    } else {
        char *copy = g_strdup(text);
        count = g_new(long, 1);
        *count = 1;
        g_hash_table_insert(sink->counts, copy, count);
        g_ptr_array_add(sink->order, copy);
    }
    g_mutex_unlock(&sink->lock);
}

static void log_handler(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    /* Info and debug messages stay with GLib, which shows them only when G_MESSAGES_DEBUG asks;
     * errors are fatal there. */
    if (!(level & (G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_MESSAGE)) || (level & G_LOG_FLAG_FATAL)) {
        g_log_default_handler(domain, level, message, data);
        return;
    }
    MedleyLogSink *sink = g_private_get(&thread_sink);
    const char *ambiguity = "";
    g_mutex_lock(&sinks_lock);
    guint active = active_sinks ? active_sinks->len : 0;
    if (!sink && active == 1) sink = g_ptr_array_index(active_sinks, 0);
    if (sink) {
        sink_ref(sink);
    } else if (active > 1) {
        /* A libvips thread that runs no Medley kernel, while several items run: the message
         * goes to each of them, saying so, rather than to none. */
        ambiguity = " (from a libvips thread shared by the items running at the time)";
    }
    GPtrArray *targets = g_ptr_array_new_with_free_func((GDestroyNotify)sink_unref);
    if (sink) g_ptr_array_add(targets, sink);
    else for (guint i = 0; i < active; i++) g_ptr_array_add(targets, sink_ref(g_ptr_array_index(active_sinks, i)));
    g_mutex_unlock(&sinks_lock);
    if (targets->len == 0) {
        g_ptr_array_free(targets, TRUE);
        g_log_default_handler(domain, level, message, data);
        return;
    }
    char *text = g_strdup_printf("%s%s%s%s", domain ? domain : "", domain ? ": " : "", message ? message : "", ambiguity);
    g_strstrip(text);
    for (guint i = 0; i < targets->len; i++) sink_add(g_ptr_array_index(targets, i), text);
    g_free(text);
    g_ptr_array_free(targets, TRUE);
}

MedleyLogSink *medley_log_begin(void) {
    MedleyLogSink *sink = g_new0(MedleyLogSink, 1);
    sink->refs = 1;
    g_mutex_init(&sink->lock);
    sink->counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    sink->order = g_ptr_array_new();
    g_mutex_lock(&sinks_lock);
    if (!active_sinks) active_sinks = g_ptr_array_new();
    g_ptr_array_add(active_sinks, sink);
    g_mutex_unlock(&sinks_lock);
    g_private_set(&thread_sink, sink);
    return sink;
}

void medley_log_end(MedleyLogSink *sink, medley_log_visitor visit, void *ctx) {
    g_mutex_lock(&sinks_lock);
    g_ptr_array_remove(active_sinks, sink);
    g_mutex_unlock(&sinks_lock);
    if (g_private_get(&thread_sink) == sink) g_private_set(&thread_sink, NULL);
    g_mutex_lock(&sink->lock);
    for (guint i = 0; i < sink->order->len; i++) {
        const char *text = g_ptr_array_index(sink->order, i);
        visit(ctx, text, *(long *)g_hash_table_lookup(sink->counts, text));
    }
    g_mutex_unlock(&sink->lock);
    sink_unref(sink);
}

/* The workers each of Medley's sinks gets (libvips' "concurrency" on the watched image). */
static gint sink_workers;

int medley_vips_start(const char *program_name) {
    if (VIPS_INIT(program_name ? program_name : "medley")) return -1;
    g_log_set_default_handler(log_handler, NULL);
    /* A batch tool opens each file once: the operation cache would only hold memory and
     * file descriptors for files that never come back. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    /* libvips' own inner sinks get one worker; Medley's get theirs on the image (medley_sink.h). */
    if (g_atomic_int_get(&sink_workers) < 1) g_atomic_int_set(&sink_workers, vips_concurrency_get());
    vips_concurrency_set(1);
    return 0;
}

void medley_vips_set_concurrency(int threads) {
    if (threads > 0) g_atomic_int_set(&sink_workers, threads < 100 ? threads : 99);
}

int medley_vips_concurrency(void) { return medley_sink_workers(); }

/* ---- pass-through images: the same pixels, no copy, something noted per region ---- */

/* The input's pixels for `out_region` (no copy: the output region points into the input's). */
static int pass_region(VipsRegion *out_region, VipsRegion *in_region) {
    VipsRect *rect = &out_region->valid;
    return vips_region_prepare(in_region, rect) ||
           vips_region_region(out_region, in_region, rect, rect->left, rect->top) ? -1 : 0;
}

/* A new image of `in`'s pixels computed by `generate` (which calls pass_region) with `client`;
 * `on_close(image, close_data)` runs when the image goes. NULL on error (on_close has run then). */
static VipsImage *pass_through(VipsImage *in, VipsDemandStyle hint, VipsGenerateFn generate, void *client,
                               GCallback on_close, void *close_data) {
    VipsImage *out = vips_image_new();
    g_signal_connect(out, "close", on_close, close_data);
    g_object_ref(in);
    vips_object_local(out, in);
    if (vips_image_pipelinev(out, hint, in, NULL) ||
        vips_image_generate(out, vips_start_one, generate, vips_stop_one, in, client)) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

/* ---- sinks that cannot lose a failed read (medley_sink.h) ---- */

struct MedleyWatch {
    gint failed;
};

static int watched_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    if (pass_region(out_region, (VipsRegion *)seq)) {
        g_atomic_int_set(&((MedleyWatch *)b)->failed, 1);
        return -1;
    }
    return 0;
}

static void free_watch_on_close(VipsImage *image, void *watch) {
    g_free(watch);
    (void)image;
}

int medley_sink_workers(void) {
    int workers = g_atomic_int_get(&sink_workers);
    return workers > 0 ? workers : 1;
}

VipsImage *medley_sink_begin(VipsImage *in, MedleyWatch **watch) {
    MedleyWatch *noted = g_new0(MedleyWatch, 1);
    /* ANY keeps the demand style of what it reads (libvips takes the most restrictive). */
    VipsImage *out = pass_through(in, VIPS_DEMAND_STYLE_ANY, watched_generate, noted,
                                  G_CALLBACK(free_watch_on_close), noted);
    if (!out) return NULL;
    vips_image_set_int(out, VIPS_META_CONCURRENCY, medley_sink_workers());
    *watch = noted;
    return out;
}

int medley_sink_end(VipsImage *watched, MedleyWatch *watch, int result) {
    int failed = g_atomic_int_get(&watch->failed);
    g_object_unref(watched);
    if (result == 0 && failed) {
        vips_error("medley", "%s", "the image could not be read to its end (libvips filled the rest in black); not written");
        return -1;
    }
    return result;
}

char *medley_vips_take_error(void) {
    const char *text = vips_error_buffer();
    char *copy = strdup(text ? text : "");
    vips_error_clear();
    if (!copy) return NULL; /* out of memory: the caller says so */
    /* libvips ends messages with a newline; a person reads them inside our own sentence. */
    size_t n = strlen(copy);
    while (n > 0 && (copy[n - 1] == '\n' || copy[n - 1] == ' ')) copy[--n] = '\0';
    return copy;
}

static GRWLock error_owner;

void medley_vips_shared_begin(void) { g_rw_lock_reader_lock(&error_owner); }
void medley_vips_shared_end(void) { g_rw_lock_reader_unlock(&error_owner); }

void medley_vips_exclusive_begin(void) {
    g_rw_lock_writer_lock(&error_owner);
    vips_error_clear();
}

void medley_vips_exclusive_end(void) { g_rw_lock_writer_unlock(&error_owner); }

const char *medley_vips_find_loader(const char *path) {
    const char *name = vips_foreign_find_load(path);
    vips_error_clear();
    return name;
}

uint64_t medley_vips_disc_threshold(void) {
    return vips_get_disc_threshold();
}

int medley_vips_has_operation(const char *nickname) {
    return vips_type_find("VipsOperation", nickname) != 0;
}

MedleyImage *medley_image_open(const char *path, int sequential, int fail_on_error) {
    VipsImage *image = vips_image_new_from_file(path,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE,
        NULL);
    return HANDLE(image);
}

MedleyImage *medley_image_open_pages(const char *path, int sequential, int fail_on_error) {
    VipsImage *image = vips_image_new_from_file(path, "n", -1,
        "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM,
        "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE, NULL);
    return HANDLE(image);
}

int medley_image_pages(const MedleyImage *image) { return vips_image_get_n_pages(IMG(image)); }

int medley_image_page_height(const MedleyImage *image) { return vips_image_get_page_height(IMG(image)); }

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

void medley_image_unref(MedleyImage *image) {
    if (image) g_object_unref(IMG(image));
}

int medley_image_width(const MedleyImage *image) { return vips_image_get_width(IMG(image)); }
int medley_image_height(const MedleyImage *image) { return vips_image_get_height(IMG(image)); }
int medley_image_bands(const MedleyImage *image) { return vips_image_get_bands(IMG(image)); }
int medley_image_format(const MedleyImage *image) { return (int)vips_image_get_format(IMG(image)); }
int medley_image_has_alpha(const MedleyImage *image) { return vips_image_hasalpha(IMG(image)) ? 1 : 0; }

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

/* ---- Swift kernels run inside libvips' region pipeline ---- */

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
} KernelClosure;

/* Runs on a libvips worker thread: messages logged until the matching leave are the item's. */
static MedleyLogSink *enter_item(KernelClosure *closure) {
    MedleyLogSink *previous = g_private_get(&thread_sink);
    if (closure->sink) g_private_set(&thread_sink, closure->sink);
    return previous;
}

static void leave_item(MedleyLogSink *previous) { g_private_set(&thread_sink, previous); }

static void closure_free(VipsImage *image, void *data) {
    KernelClosure *closure = (KernelClosure *)data;
    if (closure->release) closure->release(closure->ctx);
    sink_unref(closure->sink);
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
    closure->sink = sink_ref(g_private_get(&thread_sink));
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
    if (vips_image_generate(out, vips_start_one, rows_generate, vips_stop_one, in, closure)) {
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
        vips_image_generate(out, vips_start_many, rows2_generate, vips_stop_many, array, closure)) {
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
    if (vips_image_generate(out, vips_start_one, regions_generate, vips_stop_one, padded, closure)) {
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
    if (vips_image_generate(out, vips_start_one, resample_generate, vips_stop_one, padded, closure)) {
        g_object_unref(out);
        return NULL;
    }
    return HANDLE(out);
}

/* ---- an item's images: libvips' worker threads log for that item ---- */

static int attributed_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    MedleyLogSink *previous = g_private_get(&thread_sink);
    g_private_set(&thread_sink, b);
    int failed = pass_region(out_region, (VipsRegion *)seq);
    g_private_set(&thread_sink, previous);
    (void)a;
    (void)stop;
    return failed;
}

static void unref_sink_on_close(VipsImage *image, void *sink) {
    sink_unref((MedleyLogSink *)sink);
    (void)image;
}

MedleyImage *medley_image_attributed(MedleyImage *image) {
    VipsImage *in = IMG(image);
    MedleyLogSink *sink = g_private_get(&thread_sink);
    if (!sink) {
        g_object_ref(in);
        return HANDLE(in);
    }
    VipsImage *out = pass_through(in, VIPS_DEMAND_STYLE_THINSTRIP, attributed_generate, sink,
                                  G_CALLBACK(unref_sink_on_close), sink_ref(sink));
    return out ? HANDLE(out) : NULL;
}

/* ---- geometry and generators, by libvips ---- */

MedleyImage *medley_image_crop(MedleyImage *image, int left, int top, int width, int height) {
    VipsImage *out = NULL;
    return vips_crop(IMG(image), &out, left, top, width, height, NULL) ? NULL : HANDLE(out);
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

MedleyImage *medley_image_thumbnail(const char *path, int width, int height, int crop, int force, int fail_on_error) {
    VipsImage *out = NULL;
    /* thumbnail's own fail_on reaches the loader it picks, as `vips copy in[fail]` does: a
     * "[fail-on=…]" suffix on the name is dropped when thumbnail reopens the file shrunk. */
    int failed = vips_thumbnail(path, &out, width, "height", height,
                                "crop", crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE,
                                "size", force ? VIPS_SIZE_FORCE : VIPS_SIZE_BOTH,
                                "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE,
                                "no_rotate", FALSE, NULL);
    return failed ? NULL : HANDLE(out);
}

MedleyImage *medley_image_from_uchar(const uint8_t *pixels, int width, int height, int bands) {
    size_t length = (size_t)width * height * bands;
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    return image ? HANDLE(image) : NULL;
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

MedleyImage *medley_image_import_icc(MedleyImage *image, const char *fallback_profile) {
    VipsImage *out = NULL;
    /* Embedded profile → sRGB, so the working space is the same whatever the camera wrote.
     * 16-bit stays 16-bit. */
    int depth = vips_image_get_format(IMG(image)) == VIPS_FORMAT_USHORT ? 16 : 8;
    int failed = fallback_profile
        ? vips_icc_transform(IMG(image), &out, "srgb", "embedded", TRUE, "input_profile", fallback_profile,
                             "depth", depth, "intent", VIPS_INTENT_RELATIVE, NULL)
        : vips_icc_transform(IMG(image), &out, "srgb", "embedded", TRUE, "depth", depth,
                             "intent", VIPS_INTENT_RELATIVE, NULL);
    return failed ? NULL : HANDLE(out);
}

MedleyImage *medley_image_reinterpret(MedleyImage *image, const char *interpretation) {
    int kind = vips_enum_from_nick("medley", VIPS_TYPE_INTERPRETATION, interpretation);
    if (kind < 0) return NULL;
    VipsImage *out = NULL;
    return vips_copy(IMG(image), &out, "interpretation", kind, NULL) ? NULL : HANDLE(out);
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

MedleyImage *medley_image_flatten_white(MedleyImage *image) {
    VipsImage *in = IMG(image);
    VipsImage *out = NULL;
    if (vips_image_hasalpha(in)) {
        VipsArrayDouble *white = vips_array_double_newv(1, 255.0);
        int failed = vips_flatten(in, &out, "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        return failed ? NULL : HANDLE(out);
    }
    g_object_ref(in);
    return HANDLE(in);
}

static void *collect_metadata_name(VipsImage *image, const char *name, GValue *value, void *a) {
    GPtrArray *names = (GPtrArray *)a;
    if (g_str_has_prefix(name, "exif-") || g_str_has_prefix(name, "xmp-") || g_str_has_prefix(name, "iptc-") ||
        g_str_has_prefix(name, "icc-") || g_str_has_prefix(name, "photoshop-") || strcmp(name, VIPS_META_ORIENTATION) == 0)
        g_ptr_array_add(names, g_strdup(name));
    (void)image;
    (void)value;
    return NULL;
}

/* A copy of the image without EXIF, XMP, IPTC, ICC or Photoshop fields. libvips 8.14's webpsave
 * writes EXIF and XMP even with strip, so stripping happens here for every saver. */
static VipsImage *without_metadata(VipsImage *in) {
    VipsImage *copy = NULL;
    if (vips_copy(in, &copy, NULL)) return NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    vips_image_map(copy, collect_metadata_name, names);
    for (guint i = 0; i < names->len; i++) vips_image_remove(copy, (const char *)g_ptr_array_index(names, i));
    g_ptr_array_unref(names);
    return copy;
}

static int save_as(VipsImage *in, const char *path, int format, int quality, int strip);

int medley_image_save(MedleyImage *image, const char *path, int format, int quality, int strip) {
    VipsImage *bare = strip ? without_metadata(IMG(image)) : IMG(image);
    if (!bare) return -1;
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(bare, &watch);
    if (strip) g_object_unref(bare);
    if (!watched) return -1;
    return medley_sink_end(watched, watch, save_as(watched, path, format, quality, strip));
}

static int save_as(VipsImage *in, const char *path, int format, int quality, int strip) {
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

/* vips_image_write_to_memory over a watch (medley_sink.h). */
static void *watched_to_memory(VipsImage *in, size_t *length) {
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(in, &watch);
    if (!watched) return NULL;
    void *pixels = vips_image_write_to_memory(watched, length);
    if (medley_sink_end(watched, watch, pixels ? 0 : -1) != 0) {
        g_free(pixels);
        return NULL;
    }
    return pixels;
}

void *medley_image_render_to_memory(MedleyImage *image, size_t *length) {
    return watched_to_memory(IMG(image), length);
}

/* ---- Reductions ---- */

/* The image's pixels as doubles in a new buffer of exactly `expected` values (caller frees), or NULL. */
static double *doubles_of(VipsImage *in, size_t expected) {
    VipsImage *cast = NULL;
    if (vips_cast(in, &cast, VIPS_FORMAT_DOUBLE, NULL)) return NULL;
    size_t length = 0;
    double *values = watched_to_memory(cast, &length);
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

/* ---- measured filter steps ---- */

/* vips_image_copy_memory over a watch (medley_sink.h); the copy does not keep the watch's workers. */
static VipsImage *watched_copy_memory(VipsImage *in) {
    MedleyWatch *watch = NULL;
    VipsImage *watched = medley_sink_begin(in, &watch);
    if (!watched) return NULL;
    VipsImage *out = vips_image_copy_memory(watched);
    if (medley_sink_end(watched, watch, out ? 0 : -1) != 0) {
        if (out) g_object_unref(out);
        return NULL;
    }
    vips_image_remove(out, VIPS_META_CONCURRENCY);
    return out;
}

MedleyImage *medley_image_copy_memory(MedleyImage *image) {
    VipsImage *out = watched_copy_memory(IMG(image));
    return out ? HANDLE(out) : NULL;
}

/* ---- watermarks and text ---- */

MedleyImage *medley_image_from_buffer(const void *bytes, size_t length, int fail_on_error) {
    /* libvips reads the buffer lazily and does not copy it: decode it whole into memory now (an
     * asset is small and decoded once per job), so the image outlives the caller's bytes and is
     * read from any thread. */
    VipsImage *lazy = vips_image_new_from_buffer(bytes, length, "",
        "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE, NULL);
    if (!lazy) return NULL;
    VipsImage *memory = watched_copy_memory(lazy);
    g_object_unref(lazy);
    return memory ? HANDLE(memory) : NULL;
}

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

int medley_image_buffer_size(const void *bytes, size_t length, int *width, int *height) {
    VipsImage *lazy = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (!lazy) return -1;
    *width = vips_image_get_width(lazy);
    *height = vips_image_get_height(lazy);
    g_object_unref(lazy);
    return 0;
}
