#include "CLibPQ.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

struct trove_libpq_table trove_libpq;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *failure;
static char message[512];

static void load(void) {
    // The soname, not libpq.so: that link exists only where libpq-dev is installed.
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *why = dlerror();
        snprintf(message, sizeof message,
                 "PostgreSQL needs libpq (Debian's libpq5), which cannot be loaded: %s",
                 why ? why : "libpq.so.5 not found");
        failure = message;
        return;
    }
    struct trove_libpq_table table;
#define TROVE_LIBPQ_RESOLVE(name) \
    *(void **)(&table.name) = dlsym(library, #name); \
    if (table.name == NULL) { \
        snprintf(message, sizeof message, "the loaded libpq has no %s: it is older than libpq 5", #name); \
        failure = message; \
        return; \
    }
#define TROVE_LIBPQ_RESOLVE_FUNCTION(type, name, parameters, arguments) TROVE_LIBPQ_RESOLVE(name)
#define TROVE_LIBPQ_RESOLVE_PROCEDURE(name, parameters, arguments) TROVE_LIBPQ_RESOLVE(name)
    TROVE_LIBPQ_FUNCTIONS(TROVE_LIBPQ_RESOLVE_FUNCTION)
    TROVE_LIBPQ_PROCEDURES(TROVE_LIBPQ_RESOLVE_PROCEDURE)
    trove_libpq = table;
}

const char *trove_libpq_load(void) {
    pthread_once(&once, load);
    return failure;
}
