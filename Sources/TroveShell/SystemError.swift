#if canImport(Glibc)
import Glibc
#endif

/// An operating-system error, described as `strerror` does.
struct SystemError: Error, Sendable {
    let message: String
    init(errno code: Int32) { message = String(cString: strerror(code)) }
    init(_ message: String) { self.message = message }
}
