/* Sinks that cannot lose a failed read: see medley_sink.h. */
#include "medley_internal.h"
#include "medley_sink.h"

/* The workers each of Medley's sinks gets (libvips' "concurrency" on the watched image). */
static gint sink_workers;

void medley_sink_start(void) {
    /* libvips' own inner sinks get one worker; Medley's get theirs on the image. */
    if (g_atomic_int_get(&sink_workers) < 1) g_atomic_int_set(&sink_workers, vips_concurrency_get());
    vips_concurrency_set(1);
}

void medley_vips_set_concurrency(int threads) {
    if (threads > 0) g_atomic_int_set(&sink_workers, threads < 100 ? threads : 99);
}

int medley_vips_concurrency(void) { return medley_sink_workers(); }

struct MedleyWatch {
    gint failed;
};

static int watched_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    (void)a;
    (void)stop;
    if (medley_pass_region(out_region, (VipsRegion *)seq)) {
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
    VipsImage *out = medley_pass_through(in, VIPS_DEMAND_STYLE_ANY, watched_generate, noted,
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
