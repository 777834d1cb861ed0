#ifndef TROVE_PREFETCH_H
#define TROVE_PREFETCH_H

// Asks the CPU to start loading the cache line holding `address` for reading, without waiting
// for it: Swift has no spelling of the prefetch instruction. A hint only; it never faults.
static inline void trove_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
