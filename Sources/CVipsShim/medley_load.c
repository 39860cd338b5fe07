/* Images from files and memory: lazy opens, shrink-on-load thumbnails, decoded buffers. */
#include "medley_internal.h"

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

/* vips_thumbnail: the loader shrinks while decoding where its format allows, EXIF orientation applied
 * unless no_rotate (then the stored pixels keep their orientation, and the tag stays on the image).
 * crop: 0 none, else a VipsInteresting (1 centre, 2 entropy, 3 attention). */
static MedleyImage *thumbnail(const char *path, int width, int height, int crop, VipsSize size, int fail_on_error,
                              int no_rotate, int intent) {
    VipsImage *out = NULL;
    VipsInteresting interesting = crop == VIPS_INTERESTING_ENTROPY ? VIPS_INTERESTING_ENTROPY
        : crop == VIPS_INTERESTING_ATTENTION ? VIPS_INTERESTING_ATTENTION
        : crop ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE;
    /* thumbnail's own fail_on reaches the loader it picks, as `vips copy in[fail]` does: a
     * "[fail-on=…]" suffix on the name is dropped when thumbnail reopens the file shrunk. */
    int failed = vips_thumbnail(path, &out, width, "height", height,
                                "crop", interesting,
                                "size", size,
                                "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE,
                                "no_rotate", no_rotate ? TRUE : FALSE,
                                "intent", medley_intent(intent), NULL);
    return failed ? NULL : HANDLE(out);
}

MedleyImage *medley_image_thumbnail(const char *path, int width, int height, int crop, int force, int fail_on_error,
                                    int intent) {
    return thumbnail(path, width, height, crop, force ? VIPS_SIZE_FORCE : VIPS_SIZE_BOTH, fail_on_error, 0, intent);
}

MedleyImage *medley_image_thumbnail_down(const char *path, int width, int height, int crop, int fail_on_error,
                                         int intent) {
    return thumbnail(path, width, height, crop, VIPS_SIZE_DOWN, fail_on_error, 0, intent);
}

MedleyImage *medley_image_thumbnail_stored(const char *path, int width, int height, int crop, int force, int enlarge,
                                           int fail_on_error, int intent) {
    VipsSize size = force ? VIPS_SIZE_FORCE : enlarge ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN;
    return thumbnail(path, width, height, crop, size, fail_on_error, 1, intent);
}

MedleyImage *medley_image_from_uchar(const uint8_t *pixels, int width, int height, int bands) {
    size_t length = (size_t)width * height * bands;
    VipsImage *image = vips_image_new_from_memory_copy(pixels, length, width, height, bands, VIPS_FORMAT_UCHAR);
    return image ? HANDLE(image) : NULL;
}

/* Who gets a wrapped image's pixels back, and how. */
typedef struct {
    void (*free)(void *context);
    void *context;
} MedleyRelease;

/* The "postclose" signal's handler: the image's pixels go back to their owner. */
static void release_wrapped(VipsImage *image, gpointer user_data) {
    MedleyRelease *release = user_data;
    (void)image;
    release->free(release->context);
    g_free(release);
}

MedleyImage *medley_image_wrap_ushort(const uint16_t *pixels, int width, int height, int bands,
                                      void (*free_pixels)(void *context), void *context) {
    size_t length = (size_t)width * height * bands * sizeof(uint16_t);
    VipsImage *image = vips_image_new_from_memory(pixels, length, width, height, bands, VIPS_FORMAT_USHORT);
    if (!image) return NULL;
    MedleyRelease *release = g_new(MedleyRelease, 1);
    release->free = free_pixels;
    release->context = context;
    g_signal_connect(image, "postclose", G_CALLBACK(release_wrapped), release);
    /* Said, not guessed: 16-bit samples are RGB16 (or GREY16), so every saver scales them to 8 bits by 257. */
    image->Type = bands >= 3 ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_GREY16;
    return HANDLE(image);
}

MedleyImage *medley_image_from_buffer(const void *bytes, size_t length, int fail_on_error) {
    /* libvips reads the buffer lazily and does not copy it: decode it whole into memory now (an
     * asset is small and decoded once per job), so the image outlives the caller's bytes and is
     * read from any thread. */
    VipsImage *lazy = vips_image_new_from_buffer(bytes, length, "",
        "fail_on", fail_on_error ? VIPS_FAIL_ON_WARNING : VIPS_FAIL_ON_NONE, NULL);
    if (!lazy) return NULL;
    VipsImage *memory = medley_memory_copy(lazy);
    g_object_unref(lazy);
    return memory ? HANDLE(memory) : NULL;
}

int medley_image_buffer_size(const void *bytes, size_t length, int *width, int *height) {
    VipsImage *lazy = vips_image_new_from_buffer(bytes, length, "", NULL);
    if (!lazy) return -1;
    *width = vips_image_get_width(lazy);
    *height = vips_image_get_height(lazy);
    g_object_unref(lazy);
    return 0;
}
