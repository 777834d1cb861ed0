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
    /// A decimal number as written (`-12.50`, `1e3`), rounded to the digits a `Decimal`
    /// holds; nil for anything else, and for a value beyond its range. `Decimal(string:)`
    /// accepts trailing garbage and locale forms, so the grammar is checked first; it also
    /// cuts digits past the 38 or 39 it holds without rounding, so longer text is rounded here.
    ///
    /// The rule is the one sums follow (`DecimalSum.decimal`): half away from zero, to 39
    /// significant digits where they fit the 128-bit significand, else 38, and to no place
    /// below 10^-128. A value nonzero as written that rounds to 0 is beyond the range.
    /// `exactly`: nil instead of a rounded value, for a comparison, which meets text a
    /// decimal cannot hold by its value (`Coercion.comparand`, `ValueComparison`).
    package static func parse(_ s: String, exactly: Bool = false) -> Decimal? {
        var i = s.utf8.startIndex
        let u = s.utf8
        var value = 0
        func digits() -> Int {
            var n = 0
            value = 0
            while i < u.endIndex, u[i] &- UInt8(ascii: "0") < 10 {
                // Clamped: an exponent this large is out of range whatever its digits.
                value = Swift.min(value * 10 + Int(u[i] &- UInt8(ascii: "0")), 1_000_000)
                n += 1
                i = u.index(after: i)
            }
            return n
        }
        if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { i = u.index(after: i) }
        var significand = digits()
        guard significand > 0 else { return nil }
        var fraction = 0
        if i < u.endIndex, u[i] == UInt8(ascii: ".") {
            i = u.index(after: i)
            fraction = digits()
            guard fraction > 0 else { return nil }
            significand += fraction
        }
        var exponent = 0
        if i < u.endIndex, u[i] | 0x20 == UInt8(ascii: "e") {
            i = u.index(after: i)
            var negative = false
            if i < u.endIndex, u[i] == UInt8(ascii: "-") || u[i] == UInt8(ascii: "+") { negative = u[i] == UInt8(ascii: "-"); i = u.index(after: i) }
            guard digits() > 0 else { return nil }
            exponent = negative ? -value : value
        }
        guard i == u.endIndex else { return nil }
        // Up to 38 digits, none below 10^-128, a `Decimal` holds whatever they are (and it
        // says NaN to an exponent beyond 127).
        if significand <= DecimalSum.digits, exponent - fraction >= DecimalSum.exponents.lowerBound,
           let d = Decimal(string: s, locale: posix), !d.isNaN {
            return d
        }
        return rounded(s, exponent: exponent - fraction, exactly: exactly)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// The digits of `s` (already checked as a number) times 10^`exponent`, rounded to the
    /// digits and exponents a decimal holds: `3e165` is `3` and 38 zeros, times 10^127; 45
    /// digits are 39 (or 38). Nil for a value beyond a decimal's range.
    private static func rounded(_ s: String, exponent: Int, exactly: Bool) -> Decimal? {
        let mantissa = s.utf8.prefix { $0 | 0x20 != UInt8(ascii: "e") }
        let digits = mantissa.compactMap { $0 &- UInt8(ascii: "0") < 10 ? $0 - UInt8(ascii: "0") : nil }.drop { $0 == 0 }
        if digits.isEmpty { return Decimal(0) }
        if exactly {
            // Trailing zeros are the exponent's; the rest is held whole when rounding keeps it.
            let zeros = digits.reversed().prefix { $0 == 0 }.count
            let significant = Array(digits.dropLast(zeros))
            guard significant.count <= DecimalSum.digits || significant.count == 39 && DecimalSum.fitsSignificand(significant),
                  exponent + zeros >= DecimalSum.exponents.lowerBound else { return nil }
        }
        guard let d = DecimalSum.decimal(Array(digits), exponent: exponent, negative: s.utf8.first == UInt8(ascii: "-")),
              !d.isZero else { return nil }
        return d
    }
}
