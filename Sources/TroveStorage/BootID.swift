#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The kernel's random identifier of the current boot (`/proc/sys/kernel/random/boot_id`).
///
/// Within one boot the page cache is the truth every process reads: a page written with `pwrite`
/// is seen whole by every later reader, even if the writer dies at once. Only a crash of the
/// machine can lose or tear writes that were not yet synced, and that changes the boot id.
enum BootID {
    /// Nil when the kernel does not provide one (then every first open runs recovery's checks).
    static let current: (UInt64, UInt64)? = {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        return parse(text)
    }()

    /// Reads the 32 hexadecimal digits of a UUID string into two words.
    static func parse(_ text: String) -> (UInt64, UInt64)? {
        let digits = text.utf8.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "\n") }
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
