#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `fd` moved to 3 or above (close-on-exec), or `fd` itself when it already is, or is -1.
///
/// A program started with standard input, output or error closed gets a store's file on
/// descriptor 0, 1 or 2 from `open`, and its own `print` or a child's output would then be
/// written into the store. Every descriptor the storage opens passes through here. On
/// failure the low descriptor is closed and -1 returned with `errno` set.
func liftedAboveStandardStreams(_ fd: Int32) -> Int32 {
    guard fd >= 0, fd <= 2 else { return fd }
    let moved = fcntl(fd, F_DUPFD_CLOEXEC, 3)
    let code = errno
    close(fd)
    errno = code
    return moved
}
