// LMDB's C API (liblmdb-dev).
#include <lmdb.h>
