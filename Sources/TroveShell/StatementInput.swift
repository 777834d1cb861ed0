#if canImport(Glibc)
import Glibc
#endif
import Trove

/// A file or standard input opened for `import`: read in chunks as the importer asks, so a
/// file of any size streams through in bounded memory.
public final class StatementInput: JSONByteSource {
    /// The name as the statement gave it (`-` for standard input).
    public let name: String
    /// The size of a regular file, for progress; nil for pipes and terminals.
    public let size: Int?
    /// Bytes handed out so far.
    public private(set) var bytesRead = 0
    /// The line of the input, as the user sees it, that the data starts on: standard input
    /// that carried the statements before it goes on after their lines.
    public let firstLine: Int
    private var prefix: [UInt8]
    private var prefixOffset = 0
    private let fd: Int32?
    private let ownsDescriptor: Bool

    /// `prefix` comes first (input already buffered by the shell), then `fd` until its end.
    init(name: String, prefix: [UInt8], fd: Int32?, ownsDescriptor: Bool, firstLine: Int = 1) {
        self.name = name
        self.firstLine = firstLine
        self.prefix = prefix
        self.fd = fd
        self.ownsDescriptor = ownsDescriptor
        var st = stat()
        if let fd, fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
            size = Int(st.st_size)
        } else {
            size = fd == nil ? prefix.count : nil
        }
    }

    /// Opens `path` for reading.
    static func open(path: String) throws(StatementError) -> StatementInput {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw StatementError("cannot read '\(path)': \(SystemError(errno: errno).message)") }
        var st = stat()
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            Glibc.close(fd)
            throw StatementError("cannot read '\(path)': \(SystemError(errno: EISDIR).message)")
        }
        return StatementInput(name: path, prefix: [], fd: fd, ownsDescriptor: true)
    }

    deinit { if ownsDescriptor, let fd { Glibc.close(fd) } }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if prefixOffset < prefix.count {
            let n = min(buffer.count, prefix.count - prefixOffset)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + prefixOffset, byteCount: n) }
            prefixOffset += n
            if prefixOffset == prefix.count { prefix = [] ; prefixOffset = 0 }
            bytesRead += n
            return n
        }
        guard let fd else { return 0 }
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n >= 0 {
                bytesRead += n
                return n
            }
            if errno == EINTR {
                if Interrupt.isRequested { throw StatementError("interrupted") }
                continue
            }
            throw StatementError("cannot read '\(name)': \(SystemError(errno: errno).message)")
        }
    }
}
