/* The few C library (glibc) calls Swift's Glibc module does not expose. */
#ifndef MEDLEY_SYSTEM_H
#define MEDLEY_SYSTEM_H

/* Caps how many malloc arenas glibc makes (mallopt M_ARENA_MAX). Each arena reserves 64 MB of
 * address space, so under `ulimit -v` the default (8 per core) can use the limit up unallocated.
 * Returns 1 when set, 0 when this C library has no such setting. */
int medley_limit_malloc_arenas(int count);

/* The width in columns of the terminal on descriptor fd (TIOCGWINSZ), or 0 when fd is no
 * terminal or the terminal does not say. */
int medley_terminal_columns(int fd);

/* renameat2(fromdir, from, todir, to, RENAME_NOREPLACE): moves the entry without ever replacing
 * one at the destination (EEXIST when the name is taken), atomically. Returns 0, or -1 with errno
 * set (EINVAL when the file system cannot rename without replacing, ENOSYS on a kernel without
 * renameat2). */
int medley_rename_noreplace(int fromdir, const char *from, int todir, const char *to);

/* Hot folders (`medley watch`): inotify, folder by folder. Events are handed to Swift as packed
 * records in a byte buffer it owns, so no struct with a flexible name reaches Swift. */

/* What happened, as Medley names it (the bits of one record's `what`). */
#define MEDLEY_WATCH_CREATED     0x0001u /* IN_CREATE */
#define MEDLEY_WATCH_MODIFIED    0x0002u /* IN_MODIFY */
#define MEDLEY_WATCH_CLOSED      0x0004u /* IN_CLOSE_WRITE: closed after writing */
#define MEDLEY_WATCH_MOVED_IN    0x0008u /* IN_MOVED_TO */
#define MEDLEY_WATCH_MOVED_OUT   0x0010u /* IN_MOVED_FROM */
#define MEDLEY_WATCH_DELETED     0x0020u /* IN_DELETE */
#define MEDLEY_WATCH_GONE        0x0040u /* IN_DELETE_SELF, IN_MOVE_SELF or IN_IGNORED: the watched folder itself */
#define MEDLEY_WATCH_OVERFLOW    0x0080u /* IN_Q_OVERFLOW: events were lost */
#define MEDLEY_WATCH_FOLDER      0x0100u /* IN_ISDIR: the entry named is a folder */
#define MEDLEY_WATCH_ATTRIBUTES  0x0200u /* IN_ATTRIB: times, permissions (touch, chmod) */

/* A new inotify instance (non-blocking, close-on-exec): its descriptor, or -errno. */
int medley_watch_open(void);

/* Watches the folder at path (not following a final link) for entries created, written, closed,
 * moved and deleted: the watch number, or -errno (-ENOSPC: fs.inotify.max_user_watches reached). */
int medley_watch_add(int fd, const char *path);

/* Waits up to timeout_ms for events, then reads what is there into out (capacity bytes, at least
 * 4096 + NAME_MAX) as records: watch number (int32), what (uint32, MEDLEY_WATCH_*), name length
 * (uint32), name bytes (no terminator), in native byte order, unpadded. Returns the bytes written
 * (0: none came in time), or -errno. */
long medley_watch_read(int fd, int timeout_ms, unsigned char *out, unsigned long capacity);

/* Closes the instance. */
void medley_watch_close(int fd);

#endif
