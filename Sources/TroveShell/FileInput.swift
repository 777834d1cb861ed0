#if canImport(Glibc)
import Glibc
#endif

/// Reads input files and standard input with plain system calls, without Foundation.
enum FileInput {
    /// The whole file, or standard input when `path` is nil.
    static func readAll(_ path: String?) throws(SystemError) -> [UInt8] {
        let fd: Int32
        if let path {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 { throw SystemError(errno: errno) }
        } else {
            fd = STDIN_FILENO
        }
        defer { if path != nil { close(fd) } }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw SystemError(errno: EISDIR) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(errno: errno)
            }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    /// Checks that `path` can be opened for reading (to report usage errors up front).
    static func checkReadable(_ path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw SystemError(errno: errno) }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR { throw SystemError(errno: EISDIR) }
    }
}
