// libpq, PostgreSQL's C client library (Debian's libpq-dev), for TrovePostgres.
#ifndef TROVE_CLIBPQ_SHIM_H
#define TROVE_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
