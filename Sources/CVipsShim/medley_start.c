/* libvips itself: starting it once per process, and what it can read and write. */
#include "medley_internal.h"
#include "medley_sink.h"

#include <vips/vector.h>

#include <dlfcn.h>
#include <stdio.h>

/* Whether the liborc in this process frees compiled code without its global lock. Before orc 0.4.34
 * (commit e48fa54, "orccodemem: Fix for potential race in codemem alloc/free") orc_code_chunk_free
 * unlinks a freed program's code chunk from the shared chunk list while another thread may be
 * splitting or merging chunks under the lock: the list is corrupted, and the process later aborts in
 * malloc ("malloc_consolidate(): unaligned fastbin chunk detected") or crashes inside liborc. libvips
 * before 8.15 compiles orc programs for its vector paths (reducev, convi, morph) when an operation is
 * built and frees them when it goes; with the operation cache off and several items at once, that is
 * every resize on every item thread. No liborc loaded (libvips 8.15 and later use highway): 0. */
static int orc_frees_unlocked(void) {
    const char *(*version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "orc_version_string");
    if (!version) return 0;
    const char *text = version();
    int major = 0, minor = 0, micro = 0;
    /* A version it cannot read is taken as the old one: the cost is speed, not a crash. */
    if (!text || sscanf(text, "%d.%d.%d", &major, &minor, &micro) != 3) return 1;
    return major == 0 && (minor < 4 || (minor == 4 && micro < 34));
}

int medley_vips_start(const char *program_name) {
    if (VIPS_INIT(program_name ? program_name : "medley")) return -1;
    medley_log_install();
    /* A batch tool opens each file once: the operation cache would only hold memory and
     * file descriptors for files that never come back. */
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    /* libvips' vector paths run on a liborc whose frees race with other threads' compiles: libvips'
     * plain C paths instead (about 9 % more CPU for a JPEG thumbnail; benchmarks/RESULTS.md). */
    if (orc_frees_unlocked()) vips_vector_set_enabled(FALSE);
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
