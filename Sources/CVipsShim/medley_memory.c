/* Copies to memory: an image's pixels into a buffer, or into a new image that can be read more than
 * once. Both are sinks, so both read through a watch (medley_sink.h). */
#include "medley_internal.h"
#include "medley_sink.h"

/* vips_image_write_to_memory over a watch (medley_sink.h). */
void *medley_memory_write(VipsImage *in, size_t *length) {
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
    return medley_memory_write(IMG(image), length);
}

/* vips_image_copy_memory over a watch (medley_sink.h); the copy does not keep the watch's workers. */
VipsImage *medley_memory_copy(VipsImage *in) {
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
    VipsImage *out = medley_memory_copy(IMG(image));
    return out ? HANDLE(out) : NULL;
}
