/* GLib and libvips log messages, collected per item (medley_log_begin/end in medley_vips.h):
 * the log handler, the collections, and how a collection follows an item's pixels onto libvips'
 * worker threads (the kernels of medley_kernels.c and medley_image_attributed below). */
#include "medley_internal.h"

#include <pthread.h>

struct MedleyLogSink {
    gint refs;
    pthread_mutex_t lock;
    GHashTable *counts;   /* message → count (a long, owned by the table) */
    GPtrArray *order;     /* messages in the order first seen (owned by counts' keys) */
};

static GPrivate thread_sink;          /* the sink of the item this thread works for */
/* POSIX mutexes, not GMutex: glib's are futex calls ThreadSanitizer cannot see (scripts/sanitize.sh). */
static pthread_mutex_t sinks_lock = PTHREAD_MUTEX_INITIALIZER;
static GPtrArray *active_sinks;       /* every sink between begin and end */

static MedleyLogSink *sink_ref(MedleyLogSink *sink) {
    if (sink) g_atomic_int_inc(&sink->refs);
    return sink;
}

static void sink_unref(MedleyLogSink *sink) {
    if (!sink || !g_atomic_int_dec_and_test(&sink->refs)) return;
    g_hash_table_destroy(sink->counts);
    g_ptr_array_free(sink->order, TRUE);
    pthread_mutex_destroy(&sink->lock);
    g_free(sink);
}

static void sink_add(MedleyLogSink *sink, const char *text) {
    pthread_mutex_lock(&sink->lock);
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
    pthread_mutex_unlock(&sink->lock);
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
    pthread_mutex_lock(&sinks_lock);
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
    pthread_mutex_unlock(&sinks_lock);
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
    pthread_mutex_init(&sink->lock, NULL);
    sink->counts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    sink->order = g_ptr_array_new();
    pthread_mutex_lock(&sinks_lock);
    if (!active_sinks) active_sinks = g_ptr_array_new();
    g_ptr_array_add(active_sinks, sink);
    pthread_mutex_unlock(&sinks_lock);
    g_private_set(&thread_sink, sink);
    return sink;
}

void medley_log_end(MedleyLogSink *sink, medley_log_visitor visit, void *ctx) {
    pthread_mutex_lock(&sinks_lock);
    g_ptr_array_remove(active_sinks, sink);
    pthread_mutex_unlock(&sinks_lock);
    if (g_private_get(&thread_sink) == sink) g_private_set(&thread_sink, NULL);
    pthread_mutex_lock(&sink->lock);
    for (guint i = 0; i < sink->order->len; i++) {
        const char *text = g_ptr_array_index(sink->order, i);
        visit(ctx, text, *(long *)g_hash_table_lookup(sink->counts, text));
    }
    pthread_mutex_unlock(&sink->lock);
    sink_unref(sink);
}

void medley_log_install(void) { g_log_set_default_handler(log_handler, NULL); }

MedleyLogSink *medley_log_current(void) { return g_private_get(&thread_sink); }

MedleyLogSink *medley_log_ref(MedleyLogSink *sink) { return sink_ref(sink); }

void medley_log_unref(MedleyLogSink *sink) { sink_unref(sink); }

MedleyLogSink *medley_log_enter(MedleyLogSink *sink) {
    MedleyLogSink *previous = g_private_get(&thread_sink);
    if (sink) g_private_set(&thread_sink, sink);
    return previous;
}

void medley_log_leave(MedleyLogSink *previous) { g_private_set(&thread_sink, previous); }

/* ---- an item's images: libvips' worker threads log for that item ---- */

static int attributed_generate(VipsRegion *out_region, void *seq, void *a, void *b, gboolean *stop) {
    MedleyLogSink *previous = g_private_get(&thread_sink);
    g_private_set(&thread_sink, b);
    int failed = medley_pass_region(out_region, (VipsRegion *)seq);
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
    VipsImage *out = medley_pass_through(in, VIPS_DEMAND_STYLE_THINSTRIP, attributed_generate, sink,
                                         G_CALLBACK(unref_sink_on_close), sink_ref(sink));
    return out ? HANDLE(out) : NULL;
}
