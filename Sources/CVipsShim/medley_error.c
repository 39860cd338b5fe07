/* libvips' error buffer: the text of a failure, and the lock that makes it the failing item's own
 * (medley_vips_shared_begin … exclusive_end in medley_vips.h). */
#include "medley_internal.h"

#include <stdlib.h>
#include <string.h>

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
