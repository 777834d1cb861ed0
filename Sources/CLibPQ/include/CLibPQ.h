// libpq, PostgreSQL's C client library, loaded with dlopen the first time a PostgreSQL URL is
// opened. Linked at build time, libpq would bring some twenty shared libraries (OpenSSL,
// Kerberos, LDAP, GnuTLS...) into every start of `trove`, most of whose runs never reach a
// server; loaded on demand, they cost nothing until then, and `trove` runs on a machine
// without libpq for everything but PostgreSQL.
//
// The declarations are those of libpq-fe.h (libpq 5, whose ABI has been stable since
// PostgreSQL 8), for the functions TrovePostgres calls; each calls through the table that
// trove_libpq_load fills.
#ifndef TROVE_CLIBPQ_H
#define TROVE_CLIBPQ_H

typedef unsigned int Oid;
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

typedef enum {
    CONNECTION_OK,
    CONNECTION_BAD
} ConnStatusType;

typedef enum {
    PQTRANS_IDLE,
    PQTRANS_ACTIVE,
    PQTRANS_INTRANS,
    PQTRANS_INERROR,
    PQTRANS_UNKNOWN
} PGTransactionStatusType;

typedef enum {
    PGRES_EMPTY_QUERY = 0,
    PGRES_COMMAND_OK,
    PGRES_TUPLES_OK,
    PGRES_COPY_OUT,
    PGRES_COPY_IN,
    PGRES_BAD_RESPONSE,
    PGRES_NONFATAL_ERROR,
    PGRES_FATAL_ERROR,
    PGRES_COPY_BOTH,
    PGRES_SINGLE_TUPLE,
    PGRES_PIPELINE_SYNC,
    PGRES_PIPELINE_ABORTED
} ExecStatusType;

typedef struct pgNotify {
    char *relname;
    int be_pid;
    char *extra;
    struct pgNotify *next;
} PGnotify;

typedef struct _PQconninfoOption {
    char *keyword;
    char *envvar;
    char *compiled;
    char *val;
    char *label;
    char *dispchar;
    int dispsize;
} PQconninfoOption;

typedef void (*PQnoticeProcessor)(void *arg, const char *message);

// Functions that return a value: X(return type, name, parameters, arguments).
#define TROVE_LIBPQ_FUNCTIONS(X) \
    X(PGconn *, PQconnectdb, (const char *conninfo), (conninfo)) \
    X(ConnStatusType, PQstatus, (const PGconn *conn), (conn)) \
    X(char *, PQerrorMessage, (const PGconn *conn), (conn)) \
    X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg)) \
    X(char *, PQdb, (const PGconn *conn), (conn)) \
    X(PGresult *, PQexecParams, (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, \
        const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), \
        (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query)) \
    X(PGresult *, PQprepare, (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), \
        (conn, stmtName, query, nParams, paramTypes)) \
    X(PGresult *, PQexecPrepared, (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, \
        const int *paramLengths, const int *paramFormats, int resultFormat), \
        (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat)) \
    X(PGresult *, PQgetResult, (PGconn *conn), (conn)) \
    X(int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes)) \
    X(int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg)) \
    X(ExecStatusType, PQresultStatus, (const PGresult *res), (res)) \
    X(char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode)) \
    X(char *, PQresultErrorMessage, (const PGresult *res), (res)) \
    X(int, PQnfields, (const PGresult *res), (res)) \
    X(char *, PQfname, (const PGresult *res, int field_num), (res, field_num)) \
    X(int, PQntuples, (const PGresult *res), (res)) \
    X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num)) \
    X(char *, PQcmdTuples, (PGresult *res), (res)) \
    X(char *, PQcmdStatus, (PGresult *res), (res)) \
    X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn)) \
    X(int, PQsocket, (const PGconn *conn), (conn)) \
    X(int, PQconsumeInput, (PGconn *conn), (conn)) \
    X(PGnotify *, PQnotifies, (PGconn *conn), (conn)) \
    X(PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg), (conninfo, errmsg))

// Functions that return nothing: V(name, parameters, arguments).
#define TROVE_LIBPQ_PROCEDURES(V) \
    V(PQfinish, (PGconn *conn), (conn)) \
    V(PQclear, (PGresult *res), (res)) \
    V(PQfreemem, (void *ptr), (ptr)) \
    V(PQconninfoFree, (PQconninfoOption *connOptions), (connOptions))

struct trove_libpq_table {
#define TROVE_LIBPQ_FIELD(type, name, parameters, arguments) type (*name) parameters;
#define TROVE_LIBPQ_VOID_FIELD(name, parameters, arguments) void (*name) parameters;
    TROVE_LIBPQ_FUNCTIONS(TROVE_LIBPQ_FIELD)
    TROVE_LIBPQ_PROCEDURES(TROVE_LIBPQ_VOID_FIELD)
#undef TROVE_LIBPQ_FIELD
#undef TROVE_LIBPQ_VOID_FIELD
};

/// The table, filled by the first successful trove_libpq_load.
extern struct trove_libpq_table trove_libpq;

/// Loads libpq once per process: NULL when it is loaded, else why it cannot be (a static
/// message naming the library or the missing function).
const char *trove_libpq_load(void);

#define TROVE_LIBPQ_CALL(type, name, parameters, arguments) \
    static inline type name parameters { return trove_libpq.name arguments; }
#define TROVE_LIBPQ_VOID_CALL(name, parameters, arguments) \
    static inline void name parameters { trove_libpq.name arguments; }
TROVE_LIBPQ_FUNCTIONS(TROVE_LIBPQ_CALL)
TROVE_LIBPQ_PROCEDURES(TROVE_LIBPQ_VOID_CALL)
#undef TROVE_LIBPQ_CALL
#undef TROVE_LIBPQ_VOID_CALL

#endif
