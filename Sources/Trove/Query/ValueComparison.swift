#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The comparison semantics of predicates, sorting and `DISTINCT` on decoded values, as Realm
/// defines them: null equals only null and orders before everything, numeric types compare
/// with each other exactly, strings order by Unicode scalar values.
///
/// The evaluator's fast paths on record slots must agree with these; the general path (a
/// property against another, aggregates) uses them directly.
package enum ValueComparison {
    /// `a op b` for a bound operator. `b` is a `.list` for `IN` (elements) and `BETWEEN`
    /// (the two bounds). `LIKE` and `MATCHES` compile `b` on each call: callers with a
    /// constant pattern compile it once instead.
    static func test(_ a: Value, _ op: BoundOperator, _ options: StringComparisonOptions, _ b: Value,
                     patterns: RegularExpressionCache) throws -> Bool {
        switch op {
        case .equal: return equals(a, b, options: options)
        case .notEqual: return !equals(a, b, options: options)
        case .in:
            guard case .list(let items) = b else { return false }
            return items.contains { equals(a, $0, options: options) }
        case .between:
            guard case .list(let bounds) = b, bounds.count == 2,
                  let low = order(a, bounds[0]), let high = order(a, bounds[1]) else { return false }
            return low >= 0 && high <= 0
        case .less: return order(a, b).map { $0 < 0 } ?? false
        case .lessOrEqual: return order(a, b).map { $0 <= 0 } ?? false
        case .greater: return order(a, b).map { $0 > 0 } ?? false
        case .greaterOrEqual: return order(a, b).map { $0 >= 0 } ?? false
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let s) = a, case .string(let t) = b else { return false }
            switch op {
            case .beginsWith: return StringComparison.beginsWith(s, t, options: options)
            case .endsWith: return StringComparison.endsWith(s, t, options: options)
            case .contains: return StringComparison.contains(s, t, options: options)
            case .like: return StringComparison.like(s, t, options: options)
            default: return try patterns.pattern(t, options: options).matches(s)
            }
        }
    }

    /// `a op b` for two values known before a query runs, as the query would test them: a
    /// typed predicate folds a comparison of its constants to this. False for `LIKE` and
    /// `MATCHES` on a pattern that does not compile.
    package static func holds(_ a: Value, _ op: ComparisonOperator, _ b: Value, options: StringComparisonOptions = []) -> Bool {
        // Only `MATCHES` compiles a pattern; the other operators never touch the shared cache,
        // so it stays empty and no call allocates one.
        let patterns = op == .matches ? RegularExpressionCache() : unusedPatterns
        return (try? test(a, BoundOperator(op), options, b, patterns: patterns)) ?? false
    }

    /// The pattern cache ``holds(_:_:_:options:)`` gives the operators that compile none.
    private static let unusedPatterns = RegularExpressionCache()

    /// `==`: null equals null only; values of kinds that cannot meet are unequal.
    static func equals(_ a: Value, _ b: Value, options: StringComparisonOptions = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let s), .string(let t)):
            return options.isEmpty ? s == t : StringComparison.equals(s, t, options: options)
        case (.bool(let x), .bool(let y)): return x == y
        case (.data(let x), .data(let y)): return x == y
        case (.uuid(let x), .uuid(let y)): return x == y
        case (.reference(let x), .reference(let y)): return x.key == y.key && x.model == y.model
        default: return order(a, b) == 0
        }
    }

    /// The order of two non-null values: negative, zero or positive; nil when they do not
    /// order (null, NaN, kinds that cannot meet).
    static func order(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : x == y ? 0 : 1
        case (.int(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .int(let y)): return compare(y, x).map { -$0 }
        case (.int(let x), .float(let y)): return compare(x, Double(y))
        case (.float(let x), .int(let y)): return compare(y, Double(x)).map { -$0 }
        case (.float(let x), .float(let y)): return compare(x, y)
        case (.float(let x), .double(let y)): return compare(Double(x), y)
        case (.double(let x), .float(let y)): return compare(x, Double(y))
        case (.double(let x), .double(let y)): return compare(x, y)
        case (.decimal(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .decimal(let y)): return compare(y, x).map { -$0 }
        case (.decimal(let x), .float(let y)): return compare(x, Double(y))
        case (.float(let x), .decimal(let y)): return compare(y, Double(x)).map { -$0 }
        case (.decimal, _), (_, .decimal):
            guard let x = decimal(a), let y = decimal(b), !x.isNaN, !y.isNaN else { return nil }
            return x < y ? -1 : x == y ? 0 : 1
        case (.date(let x), .date(let y)):
            return compare(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        case (.string(let x), .string(let y)): return StringComparison.compare(x, y)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : x ? 1 : -1
        case (.data(let x), .data(let y)): return lexicographic(x, y)
        case (.uuid(let x), .uuid(let y)):
            return withUnsafeBytes(of: x.uuid) { p in withUnsafeBytes(of: y.uuid) { q in lexicographic(p, q) } }
        case (.reference(let x), .reference(let y)): return x.key < y.key ? -1 : x.key == y.key ? 0 : 1
        default: return nil
        }
    }

    /// A total order for `SORT`: null before every value, NaN after every number.
    static func sortOrder(_ a: Value, _ b: Value) -> Int {
        switch (a.isNull, b.isNull) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        default: break
        }
        if let order = order(a, b) { return order }
        switch (isNaN(a), isNaN(b)) {
        case (true, true): return 0
        case (true, false): return 1
        case (false, true): return -1
        default: return 0
        }
    }

    /// An integer against a double, exactly (no rounding of large integers).
    @inline(__always)
    static func compare(_ x: Int64, _ y: Double) -> Int? {
        if y.isNaN { return nil }
        if y >= 9_223_372_036_854_775_808.0 { return -1 }
        if y < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = y.rounded(.down)
        let w = Int64(whole)
        if x < w { return -1 }
        if x > w { return 1 }
        return y > whole ? -1 : 0
    }

    /// A decimal against a double: by the double's shortest decimal text (`0.1` equals the
    /// decimal 0.1), and by sign and magnitude where that text is beyond what a decimal holds
    /// (above about 3.4e165, or nonzero below 1e-128, the smallest nonzero decimal).
    static func compare(_ x: Decimal, _ y: Double) -> Int? {
        if x.isNaN || y.isNaN { return nil }
        if y.isInfinite || y.magnitude > decimalMagnitudes.upperBound { return y > 0 ? -1 : 1 }
        if y != 0, y.magnitude < decimalMagnitudes.lowerBound {
            // Between 0 and the smallest nonzero decimal: only a zero decimal is on the other side.
            return x.isZero ? (y > 0 ? -1 : 1) : x > 0 ? 1 : -1
        }
        // The few doubles in range whose text a decimal cannot hold (17 digits at an exponent
        // near -128) meet the decimal as doubles.
        guard let d = decimal(.double(y)) else { return compare(x.doubleValue, y) }
        return x < d ? -1 : x == d ? 0 : 1
    }

    /// The magnitudes of nonzero decimals, as doubles.
    private static let decimalMagnitudes = 1e-128...Decimal.greatestFiniteMagnitude.doubleValue

    @inline(__always)
    static func compare<F: BinaryFloatingPoint>(_ x: F, _ y: F) -> Int? {
        x < y ? -1 : x > y ? 1 : x == y ? 0 : nil
    }

    static func decimal(_ v: Value) -> Decimal? {
        switch v {
        case .decimal(let d): d
        case .int(let i): Decimal(i)
        case .double(let d): d.isFinite ? Decimal.parse("\(d)", exactly: true) : nil
        case .float(let f): f.isFinite ? Decimal.parse("\(f)", exactly: true) : nil
        default: nil
        }
    }

    static func isNaN(_ v: Value) -> Bool {
        switch v {
        case .double(let d): d.isNaN
        case .float(let f): f.isNaN
        case .decimal(let d): d.isNaN
        default: false
        }
    }

    private static func lexicographic<C: Collection>(_ x: C, _ y: C) -> Int where C.Element == UInt8 {
        var i = x.makeIterator(), j = y.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (p?, q?): if p != q { return p < q ? -1 : 1 }
            }
        }
    }
}
