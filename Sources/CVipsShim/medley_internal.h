/* What CVipsShim's files share with each other (private to CVipsShim; the Swift side sees
 * include/medley_vips.h only). Each section names the file that defines it. */
#ifndef MEDLEY_INTERNAL_H
#define MEDLEY_INTERNAL_H

#include "medley_vips.h"

#include <vips/vips.h>

/* A MedleyImage is a VipsImage underneath. */
#define IMG(h) ((VipsImage *)(h))
#define HANDLE(i) ((MedleyImage *)(i))

/* A rendering intent from Swift (VipsIntent's numbers); anything else is relative colorimetric. */
static inline VipsIntent medley_intent(int intent) {
    switch (intent) {
    case VIPS_INTENT_PERCEPTUAL: return VIPS_INTENT_PERCEPTUAL;
    case VIPS_INTENT_SATURATION: return VIPS_INTENT_SATURATION;
    case VIPS_INTENT_ABSOLUTE: return VIPS_INTENT_ABSOLUTE;
    default: return VIPS_INTENT_RELATIVE;
    }
}

/* ---- medley_log.c: the collection an item's messages go to, carried onto libvips' worker threads ---- */

/* Installs the GLib log handler that routes messages to collections (medley_vips_start). */
void medley_log_install(void);
/* The collection of the item the calling thread works for, or NULL (not a new reference). */
MedleyLogSink *medley_log_current(void);
/* Reference counting: a collection lives while an image whose pixels log into it does. NULL-safe. */
MedleyLogSink *medley_log_ref(MedleyLogSink *sink);
void medley_log_unref(MedleyLogSink *sink);
/* Makes `sink` (when set) the calling thread's collection until the matching leave, which gets
 * what enter returned: messages logged in between are that item's. */
MedleyLogSink *medley_log_enter(MedleyLogSink *sink);
void medley_log_leave(MedleyLogSink *previous);

/* ---- medley_pass.c: the same pixels, no copy, something noted per region ---- */

/* The input's pixels for `out_region` (no copy: the output region points into the input's). 0 or -1. */
int medley_pass_region(VipsRegion *out_region, VipsRegion *in_region);
/* A new image of `in`'s pixels computed by `generate` (which calls medley_pass_region) with
 * `client`; `on_close(image, close_data)` runs when the image goes. NULL on error (on_close has
 * run then). */
VipsImage *medley_pass_through(VipsImage *in, VipsDemandStyle hint, VipsGenerateFn generate, void *client,
                               GCallback on_close, void *close_data);

/* ---- medley_memory.c: sinks into memory, over a watch (medley_sink.h) ---- */

/* vips_image_write_to_memory: the pixels in a new g_malloc'ed buffer (g_free), or NULL. */
void *medley_memory_write(VipsImage *in, size_t *length);
/* vips_image_copy_memory: a new image in memory (without the watch's workers), or NULL. */
VipsImage *medley_memory_copy(VipsImage *in);

#endif
