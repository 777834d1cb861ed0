// SQLite's C API (libsqlite3-dev).
#include <sqlite3.h>
