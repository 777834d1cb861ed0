// _GNU_SOURCE before any libc header: it is what makes <fcntl.h> define O_DIRECT.
#define _GNU_SOURCE
#include <fcntl.h>

#include "TrovePrefetch.h"
#include "TroveDirectIO.h"

int trove_direct_sync_flags(void) {
#ifdef O_DIRECT
    return O_DIRECT | O_DSYNC;
#else
    return 0;
#endif
}
