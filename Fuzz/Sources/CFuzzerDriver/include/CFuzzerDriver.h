#ifndef TROVE_CFUZZERDRIVER_H
#define TROVE_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, linked by -sanitize=fuzzer). SwiftPM gives every executable
// target a `main` of its own, which shadows libFuzzer's, so each target's main.swift calls this.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
