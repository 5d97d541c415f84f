#include <sqlite3.h>

/// SQLite's memory statistics off, for the whole process (`sqlite3_config` is variadic, which
/// Swift cannot call). With them on, SQLite takes a global mutex around every allocation and
/// free to count them. Must run before SQLite initializes (before the first connection opens);
/// returns SQLITE_MISUSE when it is too late.
static inline int csqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
