#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The exact sum of decimals, rounded once, when read, to the digits a `Decimal` holds: 38,
/// or 39 where they fit its 128-bit significand.
///
/// `Decimal`'s own `+` keeps at most 38 digits of each step: adding values of different
/// magnitudes one by one cuts the fraction of every step to the digits the running total
/// leaves room for, so a sum of many values loses digits well inside the 38 its result
/// could hold. This keeps every digit, an integer in base 10^18 scaled by a power of ten
/// common to all values, and `value` and `average(over:)` round only the result, half away
/// from zero as `Decimal` and PostgreSQL's `numeric` round.
package struct DecimalSum {
    /// The magnitudes of the positive and of the negative values added, little-endian limbs
    /// of 18 decimal digits each, both scaled by `10^exponent`.
    private var positive: [UInt64] = []
    private var negative: [UInt64] = []
    /// The smallest exponent of the values added; a `Decimal`'s text has no exponent, so
    /// it is never above 0.
    private var exponent = 0

    private static let base: UInt64 = 1_000_000_000_000_000_000
    private static let limbDigits = 18
    /// The significant digits a `Decimal` holds whatever they are, and its exponents.
    static let digits = 38
    static let exponents = -128...127

    package init() {}

    /// The sum whose exact value is `text`, digits with an optional `-` and `.` (as
    /// PostgreSQL writes a `numeric`), so that it rounds as a store's sum of the same values
    /// rounds; nil for any other text.
    package init?(exactly text: String) {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        add(text: text)
    }

    mutating func add(_ value: Decimal) {
        guard !value.isNaN, !value.isZero else { return }
        // The text is the one exact spelling of a Decimal's digits FoundationEssentials gives
        // (no NSDecimalNumber); it is what a store holds, so this is the stored form anyway.
        add(text: value.description)
    }

    private mutating func add(text: String) {
        var digits: [UInt8] = []
        var isNegative = false
        var fraction = 0
        var inFraction = false
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "-"): isNegative = true
            case UInt8(ascii: "."): inFraction = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits.append(c &- UInt8(ascii: "0"))
                if inFraction { fraction += 1 }
            default: break
            }
        }
        let valueExponent = -fraction
        if valueExponent < exponent {
            Self.scale(&positive, by: exponent - valueExponent)
            Self.scale(&negative, by: exponent - valueExponent)
            exponent = valueExponent
        } else if valueExponent > exponent {
            digits.append(contentsOf: repeatElement(0, count: valueExponent - exponent))
        }
        let limbs = Self.limbs(digits)
        if isNegative { Self.add(limbs, to: &negative) } else { Self.add(limbs, to: &positive) }
    }

    /// The sum, rounded to the digits a `Decimal` holds; nil when it is beyond its range.
    package var value: Decimal? {
        let (magnitude, isNegative) = difference
        return Self.decimal(Self.digits(of: magnitude), exponent: exponent, negative: isNegative)
    }

    /// The sum divided by `count` (positive), rounded to the digits a `Decimal` holds.
    package func average(over count: Int) -> Decimal? {
        let (exact, isNegative) = difference
        var magnitude = exact
        let divisor = UInt64(count)
        // Enough digits that the quotient has at least 40: the 39 kept at most and the one that rounds.
        let scale = max(0, Self.digits + 2 + String(divisor).utf8.count - Self.digits(of: magnitude).count)
        Self.scale(&magnitude, by: scale)
        var remainder: UInt64 = 0
        for i in magnitude.indices.reversed() {
            let wide = remainder.multipliedFullWidth(by: Self.base)
            let (low, carry) = wide.low.addingReportingOverflow(magnitude[i])
            (magnitude[i], remainder) = divisor.dividingFullWidth((wide.high + (carry ? 1 : 0), low))
        }
        return Self.decimal(Self.digits(of: magnitude), exponent: exponent - scale, negative: isNegative)
    }

    /// |positive - negative| and whether the difference is negative.
    private var difference: (magnitude: [UInt64], negative: Bool) {
        if Self.compare(positive, negative) >= 0 { return (Self.subtract(negative, from: positive), false) }
        return (Self.subtract(positive, from: negative), true)
    }

    /// `digits` (most significant first) times `10^exponent` as a `Decimal`, rounded to the
    /// digits and exponents it holds; nil when too large.
    static func decimal(_ digits: [UInt8], exponent: Int, negative: Bool) -> Decimal? {
        let exact = Array(digits.drop { $0 == 0 })
        // Rounded once (twice could carry a half that was not there): to 39 digits where they
        // fit the 128-bit significand, else 38, and to no place below 10^-128.
        func rounded(to kept: Int) -> (digits: [UInt8], exponent: Int) {
            var digits = exact, rounded = exponent
            roundOff(&digits, &rounded, Swift.max(digits.count - kept, Self.exponents.lowerBound - exponent))
            return (digits, rounded)
        }
        var (digits, exponent) = rounded(to: 39)
        if !fitsSignificand(digits) { (digits, exponent) = rounded(to: Self.digits) }
        while digits.last == 0 { digits.removeLast(); exponent += 1 }
        guard !digits.isEmpty else { return Decimal(0) }
        while exponent > Self.exponents.upperBound, fitsSignificand(digits + [0]) {
            digits.append(0)
            exponent -= 1
        }
        guard exponent <= Self.exponents.upperBound else { return nil }
        let sign: FloatingPointSign = negative ? .minus : .plus
        guard digits.last == 0 else { return significand(digits).map { Decimal(sign: sign, exponent: exponent, significand: $0) } }
        // Zeros were added to bring the exponent down to 127. A significand read from text
        // keeps its trailing zeros as its own exponent, which `Decimal(sign:exponent:significand:)`
        // adds past 127 (NaN); a sum keeps them in the significand, as Foundation's compaction
        // does with any exponent it cannot raise. So: (digits - 1) + 1, each at `exponent`.
        var lower = digits
        var i = lower.endIndex - 1
        while lower[i] == 0 { lower[i] = 9; i -= 1 }
        lower[i] -= 1
        guard let lowerSignificand = significand(lower) else { return nil }
        return Decimal(sign: sign, exponent: exponent, significand: lowerSignificand) + Decimal(sign: sign, exponent: exponent, significand: 1)
    }

    /// The integer `digits` spell (most significant first, the last not 0, so that its
    /// exponent is 0).
    private static func significand(_ digits: [UInt8]) -> Decimal? {
        Decimal(string: String(decoding: digits.map { $0 + UInt8(ascii: "0") }, as: UTF8.self), locale: Locale(identifier: "en_US_POSIX"))
    }

    /// 2^128 - 1, the largest significand a `Decimal` holds.
    private static let largestSignificand: [UInt8] = "340282366920938463463374607431768211455".utf8.map { $0 - UInt8(ascii: "0") }

    static func fitsSignificand(_ digits: [UInt8]) -> Bool {
        digits.count < largestSignificand.count
            || digits.count == largestSignificand.count && !largestSignificand.lexicographicallyPrecedes(digits)
    }

    /// Drops the last `n` of `digits`, rounding half away from zero, and adds `n` to `exponent`.
    private static func roundOff(_ digits: inout [UInt8], _ exponent: inout Int, _ n: Int) {
        guard n > 0 else { return }
        exponent += n
        guard n <= digits.count else { digits = []; return }
        let up = digits[digits.count - n] >= 5
        digits.removeLast(n)
        guard up else { return }
        var i = digits.endIndex
        while i > digits.startIndex {
            i -= 1
            if digits[i] < 9 { digits[i] += 1; return }
            digits[i] = 0
        }
        // All nines (or no digit left): 99.5 becomes 100, the last zero a place of the exponent.
        digits.insert(1, at: 0)
        if digits.count > 1 { digits.removeLast(); exponent += 1 }
    }

    /// The decimal digits of `limbs`, most significant first, without leading zeros.
    private static func digits(of limbs: [UInt64]) -> [UInt8] {
        var out: [UInt8] = []
        for limb in limbs.reversed() {
            var chunk = [UInt8](repeating: 0, count: limbDigits)
            var v = limb
            for j in chunk.indices.reversed() { chunk[j] = UInt8(v % 10); v /= 10 }
            out.append(contentsOf: chunk)
        }
        return Array(out.drop { $0 == 0 })
    }

    /// `digits` (most significant first) as limbs.
    private static func limbs(_ digits: [UInt8]) -> [UInt64] {
        var out: [UInt64] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = max(digits.startIndex, end - limbDigits)
            out.append(digits[start..<end].reduce(0) { $0 * 10 + UInt64($1) })
            end = start
        }
        return out
    }

    /// Multiplies `limbs` by `10^n`.
    private static func scale(_ limbs: inout [UInt64], by n: Int) {
        guard n > 0, !limbs.isEmpty else { return }
        limbs.insert(contentsOf: repeatElement(0, count: n / limbDigits), at: 0)
        var factor: UInt64 = 1
        for _ in 0..<(n % limbDigits) { factor *= 10 }
        guard factor > 1 else { return }
        var carry: UInt64 = 0
        for i in limbs.indices {
            let wide = limbs[i].multipliedFullWidth(by: factor)
            let (low, overflow) = wide.low.addingReportingOverflow(carry)
            (carry, limbs[i]) = base.dividingFullWidth((wide.high + (overflow ? 1 : 0), low))
        }
        if carry > 0 { limbs.append(carry) }
    }

    private static func add(_ limbs: [UInt64], to total: inout [UInt64]) {
        if total.count < limbs.count { total.append(contentsOf: repeatElement(0, count: limbs.count - total.count)) }
        var carry: UInt64 = 0
        var i = 0
        while i < total.count, carry > 0 || i < limbs.count {
            let sum = total[i] + (i < limbs.count ? limbs[i] : 0) + carry
            (total[i], carry) = sum >= base ? (sum - base, 1) : (sum, 0)
            i += 1
        }
        if carry > 0 { total.append(carry) }
    }

    /// `a - b`, where `a >= b`.
    private static func subtract(_ b: [UInt64], from a: [UInt64]) -> [UInt64] {
        var out = a
        var borrow: UInt64 = 0
        for i in out.indices {
            let sub = (i < b.count ? b[i] : 0) + borrow
            (out[i], borrow) = out[i] >= sub ? (out[i] - sub, 0) : (out[i] + base - sub, 1)
        }
        while out.last == 0 { out.removeLast() }
        return out
    }

    private static func compare(_ a: [UInt64], _ b: [UInt64]) -> Int {
        let n = max(a.count, b.count)
        for i in (0..<n).reversed() {
            let x = i < a.count ? a[i] : 0, y = i < b.count ? b[i] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }
}
