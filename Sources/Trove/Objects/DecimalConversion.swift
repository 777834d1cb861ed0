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
        guard i == u.endIndex else { return nil }
        if let d = Decimal(string: s, locale: posix), !d.isNaN { return d }
        return normalized(s)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// `s` (already checked as a number) with its exponent within the -128...127 that
    /// `Decimal(string:)` takes, when its value allows: `3e165` is `3` and 38 zeros, times
    /// 10^127, as a decimal holds it. Nil for a value beyond a decimal's range.
    private static func normalized(_ s: String) -> Decimal? {
        var text = Substring(s)
        var sign = ""
        if let first = text.first, first == "-" || first == "+" { sign = first == "-" ? "-" : ""; text = text.dropFirst() }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            var written = text[text.index(after: e)...]
            var negative = false
            if let first = written.first, first == "-" || first == "+" { negative = first == "-"; written = written.dropFirst() }
            // Clamped: an exponent this large is out of range whatever its digits.
            exponent = written.count > 6 ? 1_000_000 : Int(written)!
            if negative { exponent = -exponent }
            text = text[..<e]
        }
        var digits = Substring(text.filter { $0 != "." })
        if let point = text.firstIndex(of: ".") { exponent -= text.distance(from: point, to: text.endIndex) - 1 }
        digits = digits.drop(while: { $0 == "0" })
        if digits.isEmpty { return Decimal(string: sign + "0", locale: posix) }
        while exponent < Int(Int8.min), digits.last == "0" { digits = digits.dropLast(); exponent += 1 }
        // At most 39 digits fit a decimal's 128-bit significand.
        let zeros = Swift.max(0, exponent - Int(Int8.max))
        guard digits.count + zeros <= 39, exponent - zeros >= Int(Int8.min) else { return nil }
        let written = sign + digits + String(repeating: "0", count: zeros) + "e\(exponent - zeros)"
        guard let d = Decimal(string: written, locale: posix), !d.isNaN else { return nil }
        return d
    }
}
