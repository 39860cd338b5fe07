/* See medley_system.h. */
#define _GNU_SOURCE
#include "medley_system.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

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

int medley_rename_noreplace(int fromdir, const char *from, int todir, const char *to) {
#if defined(SYS_renameat2)
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
    return (int)syscall(SYS_renameat2, fromdir, from, todir, to, RENAME_NOREPLACE);
#else
    (void)fromdir; (void)from; (void)todir; (void)to;
    errno = ENOSYS;
    return -1;
#endif
}
