/* See medley_system.h. */
#include "medley_system.h"

#include <stdlib.h> /* defines __GLIBC__ on glibc */
#include <sys/ioctl.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int medley_limit_malloc_arenas(int count) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    return mallopt(M_ARENA_MAX, count) == 1;
#else
    (void)count;
    return 0;
#endif
}

int medley_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}
