// The command line, from the C start-up code instead of the Swift runtime's search for it.
//
// Linked statically, the runtime finds argv with a global constructor that reads
// /proc/self/maps line by line with sscanf to locate the stack, then walks back from
// `environ` (stdlib/public/CommandLineSupport/CommandLine.cpp). It runs in every process,
// whether or not it uses CommandLine: in a one-shot `trove DB 'count ...'` that is 0.13M
// instructions and a few page faults, and the kernel renders the maps of the whole binary.
// glibc calls a program's constructors (`.init_array`) with argc, argv and envp, so one here
// has them for nothing. Defining the runtime's accessor keeps the linker from pulling the
// runtime's CommandLine object (and its constructor) out of libswiftCore.a; a duplicate
// symbol error says a toolchain references that object for something else, and
// Scripts/build-release warns when the runtime's constructor is linked anyway. A shared
// libswiftCore keeps its accessor to itself (hidden), so dynamically linked builds use the
// runtime's.

static char **trove_argv;
static int trove_argc;

__attribute__((constructor))
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
