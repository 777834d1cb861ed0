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
            let slow: PayloadTest = { bytes in
                let value = FoldedString(Self.string(bytes), options: options)
                switch op {
                case .beginsWith: return value.hasPrefix(needle)
                case .endsWith: return value.hasSuffix(needle)
                case .contains: return value.contains(needle)
                default: return value == needle
                }
            }
            // Plain ASCII text (no byte >= 0x80, no CR) is decided on its bytes; the rest folds.
            let test: PayloadTest
            if asciiNeedle {
                let ascii = ASCIINeedle(folded, lower: lower)
                switch op {
                case .contains:
                    test = { bytes in
                        guard bytes.count > 0 else { return false }
                        if let r = ascii.isContained(in: bytes.baseAddress! + 1, bytes.count - 1) { return r }
                        return try slow(bytes)
                    }
                case .beginsWith:
                    test = { bytes in
                        guard bytes.count > 0 else { return false }
                        if let r = ascii.isPrefix(of: bytes.baseAddress! + 1, bytes.count - 1) { return r }
                        return try slow(bytes)
                    }
                case .endsWith:
                    test = { bytes in
                        guard bytes.count > 0 else { return false }
                        if let r = ascii.isSuffix(of: bytes.baseAddress! + 1, bytes.count - 1) { return r }
                        return try slow(bytes)
                    }
                default:
                    test = { bytes in
                        guard bytes.count > 0 else { return false }
                        if let r = ascii.equals(bytes.baseAddress! + 1, bytes.count - 1) { return r }
                        return try slow(bytes)
                    }
                }
            } else {
                // An ASCII string, folded, stays ASCII: it cannot hold a needle that is not.
                test = { bytes in
                    guard bytes.count > 0 else { return false }
                    if isPlainASCII(bytes.baseAddress! + 1, bytes.count - 1) { return false }
                    return try slow(bytes)
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

    /// Whether eight bytes are ASCII without CR.
    @inline(__always)
    static func isPlainASCII(_ w: UInt64) -> Bool {
        let high: UInt64 = 0x8080_8080_8080_8080, ones: UInt64 = 0x0101_0101_0101_0101
        let cr = w ^ (ones &* 0x0D)
        // High bits set, or a zero byte in `cr` (a CR in `w`).
        return (w | ((cr &- ones) & ~cr)) & high == 0
    }

    /// Whether `count` bytes are ASCII without CR, eight at a time.
    @inline(__always)
    static func isPlainASCII(_ p: UnsafeRawPointer, _ count: Int) -> Bool {
        var i = 0
        while i &+ 8 <= count {
            if !isPlainASCII(p.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return false }
            i &+= 8
        }
        while i < count {
            let b = p.load(fromByteOffset: i, as: UInt8.self)
            if b >= 0x80 || b == 0x0D { return false }
            i &+= 1
        }
        return true
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

/// A folded ASCII needle (no CR) in stable memory, matched against stored UTF-8 bytes. Each
/// match answers nil when the text is not plain ASCII, for the folding path to decide.
private final class ASCIINeedle {
    private let bytes: UnsafeMutablePointer<UInt8>
    private let count: Int
    private let lower: Bool
    /// The first byte and, for a letter under `[c]`, its upper case (else the same byte): the
    /// search's filter, so that text bytes are folded only where a match may start.
    private let first: UInt8, firstUpper: UInt8
    /// `first` and `firstUpper` in every byte of a word.
    private let firstWord: UInt64, firstUpperWord: UInt64

    init(_ folded: [UInt8], lower: Bool) {
        count = folded.count
        bytes = .allocate(capacity: max(count, 1))
        bytes.initialize(from: folded, count: count)
        self.lower = lower
        let head = folded.first ?? 0
        if lower && head &- 0x41 < 26 {
            // Folded text holds no upper case: nothing matches. 0x80 is not in plain ASCII.
            first = 0x80
            firstUpper = 0x80
        } else {
            first = head
            firstUpper = lower && head &- 0x61 < 26 ? head & ~0x20 : head
        }
        firstWord = UInt64(first) &* 0x0101_0101_0101_0101
        firstUpperWord = UInt64(firstUpper) &* 0x0101_0101_0101_0101
    }

    deinit { bytes.deallocate() }

    @inline(__always)
    private func fold(_ b: UInt8) -> UInt8 { lower && b &- 0x41 < 26 ? b | 0x20 : b }

    /// Whether the needle's bytes from `from` on equal the text's at `p + from`, folded.
    @inline(__always)
    private func matches(at p: UnsafeRawPointer, from: Int) -> Bool {
        var i = from
        while i < count {
            if fold(p.load(fromByteOffset: i, as: UInt8.self)) != bytes[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Checks and searches eight bytes at a time: a word's bytes equal to the needle's first
    /// byte (either case) are candidates, and only candidates are compared further.
    func isContained(in t: UnsafeRawPointer, _ m: Int) -> Bool? {
        if m < 8 { return isContained(inShort: t, m) }
        let last = m &- count
        var found = count == 0
        var i = 0
        while true {
            // The last word ends at the text's end, overlapping the one before it.
            let start = Swift.min(i, m &- 8)
            let w = UInt64(littleEndian: t.loadUnaligned(fromByteOffset: start, as: UInt64.self))
            if !PayloadMatcher.isPlainASCII(w) { return nil }
            if !found && last >= 0 {
                var candidates = (Self.zeroBytes(w ^ firstWord) | Self.zeroBytes(w ^ firstUpperWord)) & (~0 << ((i &- start) &* 8))
                while candidates != 0 {
                    let at = start &+ candidates.trailingZeroBitCount >> 3
                    if at > last { break }
                    if matches(at: t + at, from: 1) { found = true; break }
                    candidates &= candidates &- 1
                }
            }
            i = start &+ 8
            if i >= m { return found }
        }
    }

    private func isContained(inShort t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        if count == 0 { return true }
        guard count <= m else { return false }
        let last = m &- count
        var i = 0
        while i <= last {
            let b = t.load(fromByteOffset: i, as: UInt8.self)
            if (b == first || b == firstUpper) && matches(at: t + i, from: 1) { return true }
            i &+= 1
        }
        return false
    }

    /// The high bit of each byte of `x` that is zero (and maybe of some bytes above one):
    /// a superset of the zero bytes, exact about whether there is any.
    @inline(__always)
    private static func zeroBytes(_ x: UInt64) -> UInt64 {
        (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }

    func isPrefix(of t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        return count <= m && matches(at: t, from: 0)
    }

    func isSuffix(of t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        return count <= m && matches(at: t + (m - count), from: 0)
    }

    func equals(_ t: UnsafeRawPointer, _ m: Int) -> Bool? {
        guard PayloadMatcher.isPlainASCII(t, m) else { return nil }
        return count == m && matches(at: t, from: 0)
    }
}
