import Foundation

/// Tests one payload (a record slot or a list element, in its record encoding; empty is null).
typealias PayloadTest = (UnsafeRawBufferPointer) throws -> Bool

/// Compiles `path op constant` into a test on payloads that reads the stored bytes directly:
/// an integer slot's 8 bytes against an `Int64`, a string's UTF-8 against the constant's
/// bytes. Whatever has no fast path decodes the payload and uses `ValueComparison`, whose
/// semantics the fast paths reproduce.
enum PayloadMatcher {
    static func make(_ c: PathComparison, patterns: RegularExpressionCache) throws -> PayloadTest {
        let op = c.op, constant = c.constant
        // Null constants: only == and != take them (the binder sees to it).
        if constant.isNull {
            return op == .equal ? { $0.count == 0 } : { $0.count != 0 }
        }
        switch (c.path.kind, constant) {
        case (.int, .int(let v)):
            if let test = integer(op, v) { return test }
        case (.int, .list(let items)) where op == .in:
            let hasNull = items.contains(.null)
            var set = Set<Int64>()
            var others: [Value] = []
            for item in items where !item.isNull {
                if case .int(let v) = item { set.insert(v) } else { others.append(item) }
            }
            if others.isEmpty {
                return { $0.count == 8 ? set.contains($0.loadUnaligned(as: Int64.self)) : hasNull }
            }
        case (.int, .list(let bounds)) where op == .between:
            if case .int(let low) = bounds[0], case .int(let high) = bounds[1] {
                return { bytes in
                    guard bytes.count == 8 else { return false }
                    let v = bytes.loadUnaligned(as: Int64.self)
                    return low <= v && v <= high
                }
            }
        case (.double, .double(let v)):
            if let test = floating(op, v, as: Double.self) { return test }
        case (.date, .date(let d)):
            if let test = floating(op, d.timeIntervalSinceReferenceDate, as: Double.self) { return test }
        case (.float, .float(let v)):
            if let test = floating(op, v, as: Float.self) { return test }
        case (.bool, .bool(let v)):
            let byte: UInt8 = v ? 1 : 0
            if op == .equal { return { $0.count == 1 && ($0[0] != 0 ? 1 : 0) == byte } }
            if op == .notEqual { return { !($0.count == 1 && ($0[0] != 0 ? 1 : 0) == byte) } }
        case (.string, .string(let s)):
            if let test = try string(op, c.options, s, patterns: patterns) { return test }
        case (.string, .list(let items)) where op == .in:
            let options = c.options
            let hasNull = items.contains(.null)
            // String hashing respects canonical equivalence, so a set lookup is `==`.
            let set = Set(items.compactMap { item -> String? in
                guard case .string(let s) = item else { return nil }
                return options.isEmpty ? s : StringFolding.fold(s, options: options)
            })
            return { bytes in
                guard bytes.count > 0 else { return hasNull }
                let s = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[1...]), as: UTF8.self)
                return set.contains(options.isEmpty ? s : StringFolding.fold(s, options: options))
            }
        default:
            break
        }
        let decode = KeyPathReader.decoder(c.path)
        let options = c.options
        return { bytes in try ValueComparison.test(try decode(bytes), op, options, constant, patterns: patterns) }
    }

    // MARK: Numbers

    private static func integer(_ op: BoundOperator, _ v: Int64) -> PayloadTest? {
        switch op {
        case .equal: { $0.count == 8 && $0.loadUnaligned(as: Int64.self) == v }
        case .notEqual: { !($0.count == 8 && $0.loadUnaligned(as: Int64.self) == v) }
        case .less: { $0.count == 8 && $0.loadUnaligned(as: Int64.self) < v }
        case .lessOrEqual: { $0.count == 8 && $0.loadUnaligned(as: Int64.self) <= v }
        case .greater: { $0.count == 8 && $0.loadUnaligned(as: Int64.self) > v }
        case .greaterOrEqual: { $0.count == 8 && $0.loadUnaligned(as: Int64.self) >= v }
        default: nil
        }
    }

    private static func floating<F: BinaryFloatingPoint>(_ op: BoundOperator, _ v: F, as: F.Type) -> PayloadTest? {
        let size = MemoryLayout<F>.size
        return switch op {
        case .equal: { $0.count == size && $0.loadUnaligned(as: F.self) == v }
        case .notEqual: { !($0.count == size && $0.loadUnaligned(as: F.self) == v) }
        case .less: { $0.count == size && $0.loadUnaligned(as: F.self) < v }
        case .lessOrEqual: { $0.count == size && $0.loadUnaligned(as: F.self) <= v }
        case .greater: { $0.count == size && $0.loadUnaligned(as: F.self) > v }
        case .greaterOrEqual: { $0.count == size && $0.loadUnaligned(as: F.self) >= v }
        default: nil
        }
    }

    // MARK: Strings

    private static func string(_ op: BoundOperator, _ options: StringComparisonOptions, _ constant: String,
                               patterns: RegularExpressionCache) throws -> PayloadTest? {
        switch op {
        case .like:
            let pattern = LikePattern(constant, options: options)
            return { bytes in bytes.count > 0 && pattern.matches(Self.string(bytes)) }
        case .matches:
            let pattern = try patterns.pattern(constant, options: options)
            return { bytes in bytes.count > 0 && pattern.matches(Self.string(bytes)) }
        case .equal, .notEqual, .beginsWith, .endsWith, .contains:
            let needle = FoldedString(constant, options: options)
            let folded = Array(needle.value.utf8)
            // ASCII bytes stand for characters except around CR LF, which is one character.
            let asciiNeedle = folded.allSatisfy { $0 < 0x80 && $0 != 0x0D }
            let lower = options.contains(.caseInsensitive)
            let test: PayloadTest = { bytes in
                guard bytes.count > 0 else { return false }
                let text = UnsafeRawBufferPointer(rebasing: bytes[1...])
                if let result = asciiMatch(op, text, folded, lower: lower, asciiNeedle: asciiNeedle) { return result }
                let value = FoldedString(Self.string(bytes), options: options)
                switch op {
                case .beginsWith: return value.hasPrefix(needle)
                case .endsWith: return value.hasSuffix(needle)
                case .contains: return value.contains(needle)
                default: return value == needle
                }
            }
            return op == .notEqual ? { try !test($0) } : test
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let bytes = Array(constant.utf8)
            let ascii = bytes.allSatisfy { $0 < 0x80 }
            let accept: (Int) -> Bool = switch op {
            case .less: { $0 < 0 }
            case .lessOrEqual: { $0 <= 0 }
            case .greater: { $0 > 0 }
            default: { $0 >= 0 }
            }
            return { payload in
                guard payload.count > 0 else { return false }
                let text = UnsafeRawBufferPointer(rebasing: payload[1...])
                if ascii, text.allSatisfy({ $0 < 0x80 }) {
                    // ASCII orders by bytes, which is scalar order.
                    return accept(bytes.withUnsafeBytes { Self.compareBytes(text, $0) })
                }
                return accept(StringComparison.compare(Self.string(payload), constant))
            }
        default:
            return nil
        }
    }

    /// The answer from bytes alone when the stored string is ASCII without CR; nil otherwise.
    /// `needle` is folded; with `lower`, the stored bytes are folded on the fly.
    @inline(__always)
    private static func asciiMatch(_ op: BoundOperator, _ text: UnsafeRawBufferPointer, _ needle: [UInt8],
                                   lower: Bool, asciiNeedle: Bool) -> Bool? {
        for byte in text where byte >= 0x80 || byte == 0x0D { return nil }
        // An ASCII string, folded, stays ASCII: it cannot hold a needle that is not.
        guard asciiNeedle else { return false }
        let n = needle.count, m = text.count
        @inline(__always) func fold(_ b: UInt8) -> UInt8 { lower && b &- 0x41 < 26 ? b | 0x20 : b }
        @inline(__always) func equal(at start: Int) -> Bool {
            for i in 0..<n where fold(text[start + i]) != needle[i] { return false }
            return true
        }
        switch op {
        case .equal, .notEqual: return m == n && equal(at: 0)
        case .beginsWith: return m >= n && equal(at: 0)
        case .endsWith: return m >= n && equal(at: m - n)
        default:
            guard n <= m else { return false }
            if n == 0 { return true }
            for start in 0...(m - n) where equal(at: start) { return true }
            return false
        }
    }

    @inline(__always)
    static func string(_ payload: UnsafeRawBufferPointer) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: payload[1...]), as: UTF8.self)
    }

    private static func compareBytes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(a.count, b.count)
        if common > 0, let p = a.baseAddress, let q = b.baseAddress {
            let order = memcmp(p, q, common)
            if order != 0 { return order < 0 ? -1 : 1 }
        }
        return a.count < b.count ? -1 : a.count == b.count ? 0 : 1
    }
}
