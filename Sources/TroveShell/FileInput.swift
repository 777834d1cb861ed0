#if canImport(Glibc)
import Glibc
#endif

/// An operating-system error, described as `strerror` does.
struct SystemError: Error, Sendable {
    let message: String
    init(errno code: Int32) { message = String(cString: strerror(code)) }
    init(_ message: String) { self.message = message }
}

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

/// Reads lines from a file descriptor as they arrive, so that piped input runs statement
/// by statement instead of after end of file.
final class LineReader {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    /// Reads standard input.
    init() {
        fd = STDIN_FILENO
        ownsDescriptor = false
    }

    /// Opens `path` for reading.
    init(path: String) throws(SystemError) {
        try FileInput.checkReadable(path)
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw SystemError(errno: errno) }
        ownsDescriptor = true
    }

    deinit { if ownsDescriptor { close(fd) } }

    /// The next line without its line ending (`\n` or `\r\n`), or nil at end of input.
    func readLine() -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                return line
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { atEnd = true } else { buffer.append(contentsOf: chunk[0..<n]) }
        }
    }
}
