/* Pass-through images: the same pixels, no copy, with something noted for each region computed
 * (a sink's watch in medley_sink.c, an item's log collection in medley_log.c). */
#include "medley_internal.h"

/* The input's pixels for `out_region` (no copy: the output region points into the input's). */
int medley_pass_region(VipsRegion *out_region, VipsRegion *in_region) {
    VipsRect *rect = &out_region->valid;
    return vips_region_prepare(in_region, rect) ||
           vips_region_region(out_region, in_region, rect, rect->left, rect->top) ? -1 : 0;
}

/* A new image of `in`'s pixels computed by `generate` (which calls medley_pass_region) with `client`;
 * `on_close(image, close_data)` runs when the image goes. NULL on error (on_close has run then). */
VipsImage *medley_pass_through(VipsImage *in, VipsDemandStyle hint, VipsGenerateFn generate, void *client,
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
