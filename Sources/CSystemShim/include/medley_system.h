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

#endif
