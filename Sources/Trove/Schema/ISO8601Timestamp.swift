#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The ISO 8601 form of dates in schema files, imports and output.
///
/// Reads `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM[:SS[.fraction]]` (up to 9 fraction
/// digits; a space may stand for the `T`), then `Z`, an offset `±HH:MM`, `±HHMM` or `±HH`, or
/// nothing for UTC. Writes UTC with `Z` and at most microseconds, trailing zeros removed.
/// Written by hand because `ISO8601DateFormatter` keeps only milliseconds and needs one
/// configuration per fraction style.
///
/// A `Date` is seconds since 2001 in a double, about 30 µs apart in year 9999. Parsing
/// counts whole seconds and the fraction from 1970 (the double every stored date was made
/// with, which equality on dates depends on); formatting splits the seconds since 2001,
/// so a parsed date formats back to its text to the microsecond wherever the double holds
/// one.
package enum ISO8601Timestamp {
    /// The dates the four-digit years of the text form can write, 0000-01-01T00:00:00Z up to
    /// the last double before 10000-01-01T00:00:00Z (9999-12-31T23:59:59.999969Z): outside
    /// them a date would be written as text that no reader takes back.
    package static let writable = Date(timeIntervalSinceReferenceDate: Double(secondsToReference(days: daysFromCivil(year: 0, month: 1, day: 1))))
        ..< Date(timeIntervalSinceReferenceDate: Double(secondsToReference(days: daysFromCivil(year: 10000, month: 1, day: 1))))

    /// The last date of `writable`.
    package static var last: Date { Date(timeIntervalSinceReferenceDate: writable.upperBound.timeIntervalSinceReferenceDate.nextDown) }

    /// Seconds from 2001-01-01T00:00:00Z to the start of day `days` (since 1970).
    private static func secondsToReference(days: Int) -> Int { days * 86400 - 978_307_200 }

    static func parse(_ text: String) -> Date? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= b.count else { return nil }
            var v = 0
            for k in i..<(i + digits) {
                let d = b[k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            i += digits
            return v
        }
        func expect(_ c: UInt8...) -> Bool {
            guard i < b.count, c.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        if i == b.count { return Date(timeIntervalSinceReferenceDate: Double(secondsToReference(days: days))) }
        guard expect(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
              let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2)
        else { return nil }
        var second = 0
        let hasSeconds = expect(UInt8(ascii: ":"))
        if hasSeconds {
            guard let s = number(2) else { return nil }
            second = s
        }
        guard hour < 24, minute < 60, second < 60 else { return nil }
        var fraction = 0.0
        if hasSeconds, expect(UInt8(ascii: ".")) {
            var digits = 0
            var v = 0
            while i < b.count, b[i] &- UInt8(ascii: "0") < 10 {
                guard digits < 9 else { return nil }
                v = v * 10 + Int(b[i] - UInt8(ascii: "0"))
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            fraction = Double(v) / pow(10, Double(digits))
        }
        var offset = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = number(2), oh < 24 else { return nil }
            var om = 0
            if i < b.count {
                _ = expect(UInt8(ascii: ":"))
                guard let m = number(2), m < 60 else { return nil }
                om = m
            }
            offset = sign * (oh * 3600 + om * 60)
        }
        guard i == b.count else { return nil }
        // Counted from 1970, as stores written before have their dates: the double a text
        // gives must not change, or stored dates would stop matching their own text.
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    static func format(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        // Only a date from the Swift API on its way to being refused is this far out.
        guard t.isFinite, t.magnitude < 1e15 else { return "\(t) seconds from 2001-01-01T00:00:00Z" }
        let whole = t.rounded(.down)
        var seconds = Int(whole) + 978_307_200
        var micros = Int(((t - whole) * 1_000_000).rounded())
        if micros >= 1_000_000 {
            seconds += 1
            micros -= 1_000_000
        }
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (y, m, d) = civilFromDays(days)
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        var s = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if micros > 0 {
            var f = pad(micros, 6)
            while f.hasSuffix("0") { f.removeLast() }
            s += "." + f
        }
        return s + "Z"
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The civil date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
