// The command line of the `trove` executable, from the C start-up code instead of the Swift
// runtime's search for it. Only `trove` depends on this target: a library product must not
// replace the runtime's accessor behind its client's back.
//
// Linked statically, the runtime finds argv with a global constructor that reads
// /proc/self/maps line by line with sscanf to locate the stack, then walks back from
// `environ` (stdlib/public/CommandLineSupport/CommandLine.cpp). It runs in every process,
// whether or not it uses CommandLine, and the kernel renders the maps of the whole binary
// (its cost in a one-shot count: Benchmarks/RESULTS.md, the start-up table).
// glibc calls a program's constructors (`.init_array`) with argc, argv and envp, so one here
// has them for nothing. Defining the runtime's accessor keeps the linker from pulling the
// runtime's CommandLine object (and its constructor) out of libswiftCore.a; a duplicate
// symbol error says a toolchain references that object for something else, and
// Scripts/build-release warns when the runtime's constructor is linked anyway, and checks
// that the arguments arrive. A shared libswiftCore keeps its accessor to itself (hidden), so
// dynamically linked builds use the runtime's.
//
// glibc only: other C libraries (musl, of the static Linux SDK) call constructors without
// arguments, so there the file is empty and the runtime's accessor is linked.

#include <stdlib.h> // __GLIBC__, from <features.h> where there is one

#if defined(__GLIBC__)

static char **trove_argv;
static int trove_argc;

// The first priority a program may use: ahead of every constructor without one (the
// runtime's and the libraries'), so none of them can read CommandLine before the capture
// and leave the runtime caching no arguments.
__attribute__((constructor(101)))
static void trove_capture_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    trove_argc = argc;
    trove_argv = argv;
}

// The runtime's contract: argv and argc for the life of the process, not owned by the
// caller. Without a capture, no arguments, as the runtime answers when its search fails.
__attribute__((swiftcall, visibility("hidden")))
char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    static char *no_arguments[] = { 0 };
    if (!trove_argv) {
        *outArgLen = 0;
        return no_arguments;
    }
    *outArgLen = trove_argc;
    return trove_argv;
}

#endif
