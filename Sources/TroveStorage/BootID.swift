#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel's random identifier of the current boot (`/proc/sys/kernel/random/boot_id`).
///
/// Within one boot the page cache is the truth every process reads: a page written with `pwrite`
/// is seen whole by every later reader, even if the writer dies at once. Only a crash of the
/// machine can lose or tear writes that were not yet synced, and that changes the boot id.
enum BootID {
    /// Nil when the kernel does not provide one (then every first open runs recovery's checks).
    /// Read with `open` and `read`: every open asks for it, and a one-shot shell is mostly
    /// start-up, where Foundation's file reading would bring its code in for 37 bytes.
    static let current: (UInt64, UInt64)? = {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return parse(bytes[..<n])
    }()

    /// Reads the 32 hexadecimal digits of a UUID string into two words.
    static func parse(_ text: String) -> (UInt64, UInt64)? { parse(text.utf8) }

    static func parse(_ bytes: some Sequence<UInt8>) -> (UInt64, UInt64)? {
        let digits = bytes.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\n") }
        guard digits.count == 32 else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        for (i, c) in digits.enumerated() {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if i < 16 { words.0 = words.0 << 4 | UInt64(v) } else { words.1 = words.1 << 4 | UInt64(v) }
        }
        return words
    }
}
