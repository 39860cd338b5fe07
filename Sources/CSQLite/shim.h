#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro (a cast of -1), which Swift cannot import. */
static inline sqlite3_destructor_type medley_sqlite_transient(void) { return SQLITE_TRANSIENT; }
