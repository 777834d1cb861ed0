import TroveShell
#if canImport(Glibc)
import Glibc
#endif

exit(Shell.main(arguments: Array(CommandLine.arguments.dropFirst()), openBackend: ShellBackends.open))
