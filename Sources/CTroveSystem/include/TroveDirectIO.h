#ifndef TROVE_DIRECT_IO_H
#define TROVE_DIRECT_IO_H

// The open(2) flags for writes that go straight to stable storage, past the page cache:
// O_DIRECT | O_DSYNC, or 0 where the system has no O_DIRECT. Swift's Glibc module leaves
// O_DIRECT out (it needs _GNU_SOURCE), and its value differs between architectures, so it is
// read in CTroveSystem.c, compiled with _GNU_SOURCE.
int trove_direct_sync_flags(void);

#endif
