// The declarations in include/CFuzzerDriver.h are all this target provides; SwiftPM needs a
// source file to build it.
#include "CFuzzerDriver.h"
