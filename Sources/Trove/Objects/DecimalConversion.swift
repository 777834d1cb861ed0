#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Decimal {
    /// The nearest `Double`. FoundationEssentials has no `NSDecimalNumber`; the decimal's own
    /// digits, parsed as a `Double`, round correctly (and decimals meet this only in index
    /// keys and comparisons with other numbers, never per object in a scan).
    var doubleValue: Double { Double(description) ?? .nan }
}

extension Decimal {
    /// A decimal number as written (`-12.50`, `1e3`), every digit kept; nil for anything
    /// else. `Decimal(string:)` accepts trailing garbage and locale forms, so the grammar is
    /// checked first.
    static func parse(_ s: String) -> Decimal? {
        var i = s.utf8.startIndex
        let u = s.utf8
        func digits() -> Int {
            var n = 0
            while i < u.endIndex, u[i] &- UInt8(ascii: "0") < 10 { n += 1; i = u.index(after: i) }
            return n
        }
        if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
        guard digits() > 0 else { return nil }
        if i < u.endIndex, u[i] == UInt8(ascii: ".") {
            i = u.index(after: i)
            guard digits() > 0 else { return nil }
        }
        if i < u.endIndex, u[i] | 0x20 == UInt8(ascii: "e") {
            i = u.index(after: i)
            if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
            guard digits() > 0 else { return nil }
        }
        guard i == u.endIndex, let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")), !d.isNaN else { return nil }
        return d
    }
}
