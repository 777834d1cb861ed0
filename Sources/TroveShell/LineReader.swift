#if canImport(Glibc)
import Glibc
#endif

/// Reads lines from a file descriptor as they arrive, so that piped input runs statement
/// by statement instead of after end of file.
final class LineReader {
    private let fd: Int32
    private let ownsDescriptor: Bool
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    /// Lines handed out so far.
    private var linesRead = 0

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

    func takeRemainingInput() -> (buffered: [UInt8], fd: Int32?, firstLine: Int) {
        let rest = Array(buffer[start...])
        buffer = []
        start = 0
        let wasAtEnd = atEnd
        atEnd = true
        return (rest, wasAtEnd ? nil : fd, linesRead + 1)
    }

    /// The next line without its line ending (`\n` or `\r\n`), or nil at end of input.
    func readLine() -> String? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let line = String(decoding: buffer[start..<end], as: UTF8.self)
                start = newline + 1
                linesRead += 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = String(decoding: buffer[start...], as: UTF8.self)
                start = buffer.count
                linesRead += 1
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
