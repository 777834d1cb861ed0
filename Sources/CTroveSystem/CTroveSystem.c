// SwiftPM wants a source file in a C target; the functions are static inline in the headers.
#include "TrovePrefetch.h"
#include "TroveDirectIO.h"
