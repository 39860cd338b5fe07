/* libvips itself: starting it once per process, and what it can read and write. */
#include "medley_internal.h"
#include "medley_sink.h"

#include <vips/vector.h>

int medley_vips_start(const char *program_name) {
    if (VIPS_INIT(program_name ? program_name : "medley")) return -1;
    medley_log_install();
    /* A batch tool opens each file once: the operation cache would only hold memory and
     * file descriptors for files that never come back. (So every resize builds its vector programs
     * anew, on its item's thread: medley_orc.c keeps that safe with the liborc Debian 12 ships.) */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    /* libvips' own inner sinks get one worker; Medley's get theirs on the image (medley_sink.h). */
    medley_sink_start();
    return 0;
}

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

int medley_vips_vector_enabled(void) { return vips_vector_isenabled() ? 1 : 0; }
