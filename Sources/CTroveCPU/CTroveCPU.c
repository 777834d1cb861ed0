// SwiftPM wants a source file in a C target; the one function is static inline in the header.
#include "CTroveCPU.h"
