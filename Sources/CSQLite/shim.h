// SPDX-License-Identifier: Apache-2.0
// Debian's libsqlite3 (libsqlite3-dev), for pinpadctl's access log and use counters.
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: bound text is copied.
static inline sqlite3_destructor_type pinpad_sqlite_transient(void) { return SQLITE_TRANSIENT; }
