#if canImport(Glibc)
import Glibc
#endif

/// Where the shell writes text: standard output, standard error, a file, or a test's buffer.
public protocol OutputSink: AnyObject {
    func write(_ text: String)
    /// Pushes buffered text out (after each statement, and before anything goes to the
    /// other stream, so that a terminal shows output and errors in order).
    func flush()
}

/// Buffered writing to a file descriptor: rows are collected and written in large
/// chunks instead of one system call per row.
public final class FileOutput: OutputSink {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let capacity: Int
    /// Set once a write failed (a closed pipe, a full disk): later output is dropped.
    public private(set) var failed = false
    /// The `errno` of the write that failed.
    public private(set) var failure: Int32 = 0

    public init(fd: Int32, capacity: Int = 1 << 16) {
        self.fd = fd
        self.capacity = capacity
        buffer.reserveCapacity(capacity)
    }

    public func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    public func flush() {
        var offset = 0
        while offset < buffer.count, !failed {
            let n = buffer[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = errno
                failed = true
            } else {
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Drops what is buffered and any later output: the descriptor is about to be closed
    /// (an export that failed), and nothing may reach whatever takes its number next.
    public func discard() {
        buffer.removeAll()
        failed = true
    }

    deinit { flush() }
}

/// Collects output in memory (tests, and `export` before it is written).
public final class StringOutput: OutputSink {
    public private(set) var text = ""
    public init() {}
    public func write(_ text: String) { self.text += text }
    public func flush() {}
}
