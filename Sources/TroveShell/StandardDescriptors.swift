#if canImport(Glibc)
import Glibc
#endif

/// Standard input, output and error as the process started with them.
enum StandardDescriptors {
    /// Puts a placeholder on each of descriptors 0, 1 and 2 that the process started
    /// without (`trove DB QUERY >&-`): otherwise a file the shell opens (an export's,
    /// `.output`'s) would take the lowest free number, and the results written to "standard
    /// output" would overwrite it. (TroveStorage keeps the store's own files above 2.) The placeholder is `/dev/null` opened the other way round (read-only in
    /// place of an output, write-only in place of the input), so that using it fails with
    /// `EBADF` as the closed descriptor did.
    static func occupyClosed() {
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let placeholder = open("/dev/null", (fd == STDIN_FILENO ? O_WRONLY : O_RDONLY))
            if placeholder >= 0, placeholder != fd {
                dup2(placeholder, fd)
                close(placeholder)
            }
        }
    }
}
