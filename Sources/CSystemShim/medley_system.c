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

/* Hot folders: see medley_system.h. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/inotify.h>
#endif

int medley_watch_open(void) {
#if defined(__linux__)
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    return fd >= 0 ? fd : -errno;
#else
    return -ENOSYS;
#endif
}

int medley_watch_add(int fd, const char *path) {
#if defined(__linux__)
    uint32_t mask = IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE
                  | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW;
    int wd = inotify_add_watch(fd, path, mask);
    return wd >= 0 ? wd : -errno;
#else
    (void)fd; (void)path;
    return -ENOSYS;
#endif
}

#if defined(__linux__)
static uint32_t medley_watch_what(uint32_t mask) {
    uint32_t what = 0;
    if (mask & IN_CREATE) what |= MEDLEY_WATCH_CREATED;
    if (mask & IN_MODIFY) what |= MEDLEY_WATCH_MODIFIED;
    if (mask & IN_ATTRIB) what |= MEDLEY_WATCH_ATTRIBUTES;
    if (mask & IN_CLOSE_WRITE) what |= MEDLEY_WATCH_CLOSED;
    if (mask & IN_MOVED_TO) what |= MEDLEY_WATCH_MOVED_IN;
    if (mask & IN_MOVED_FROM) what |= MEDLEY_WATCH_MOVED_OUT;
    if (mask & IN_DELETE) what |= MEDLEY_WATCH_DELETED;
    if (mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) what |= MEDLEY_WATCH_GONE;
    if (mask & IN_Q_OVERFLOW) what |= MEDLEY_WATCH_OVERFLOW;
    if (mask & IN_ISDIR) what |= MEDLEY_WATCH_FOLDER;
    return what;
}
#endif

long medley_watch_read(int fd, int timeout_ms, unsigned char *out, unsigned long capacity) {
#if defined(__linux__)
    /* Events are read in pieces small enough that every record they make fits in out. */
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    struct pollfd waiting = { .fd = fd, .events = POLLIN, .revents = 0 };
    int ready = poll(&waiting, 1, timeout_ms);
    if (ready < 0) return errno == EINTR ? 0 : -errno;
    if (ready == 0) return 0;
    unsigned long written = 0;
    while (capacity - written >= sizeof events + 12) {
        ssize_t got = read(fd, events, sizeof events);
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR) break;
            return written > 0 ? (long)written : -errno;
        }
        if (got == 0) break;
        for (char *at = events; at < events + got;) {
            const struct inotify_event *event = (const struct inotify_event *)at;
            uint32_t length = event->len > 0 ? (uint32_t)strnlen(event->name, event->len) : 0;
            int32_t wd = event->wd;
            uint32_t what = medley_watch_what(event->mask);
            memcpy(out + written, &wd, 4);
            memcpy(out + written + 4, &what, 4);
            memcpy(out + written + 8, &length, 4);
            memcpy(out + written + 12, event->name, length);
            written += 12 + length;
            at += sizeof(struct inotify_event) + event->len;
        }
    }
    return (long)written;
#else
    (void)fd; (void)timeout_ms; (void)out; (void)capacity;
    return -ENOSYS;
#endif
}

void medley_watch_close(int fd) {
    if (fd >= 0) close(fd);
}
