#ifndef TROVE_DIRECT_IO_H
#define TROVE_DIRECT_IO_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>

// The open(2) flags for writes that go straight to stable storage, past the page cache:
// O_DIRECT | O_DSYNC. Swift's Glibc module leaves O_DIRECT out (it needs _GNU_SOURCE), and its
// value differs between architectures. 0 where the system has no O_DIRECT.
static inline int trove_direct_sync_flags(void) {
#ifdef O_DIRECT
    return O_DIRECT | O_DSYNC;
#else
    return 0;
#endif
}

#endif
