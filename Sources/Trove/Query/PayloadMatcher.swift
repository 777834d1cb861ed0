#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
                return { RecordCodec.int($0).map { set.contains($0) } ?? hasNull }
            }
        case (.int, .list(let bounds)) where op == .between:
            if case .int(let low) = bounds[0], case .int(let high) = bounds[1] {
                return { bytes in
                    guard let v = RecordCodec.int(bytes) else { return false }
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
        case .equal: { RecordCodec.int($0) == v }
        case .notEqual: { RecordCodec.int($0) != v }
        case .less: { RecordCodec.int($0).map { $0 < v } ?? false }
        case .lessOrEqual: { RecordCodec.int($0).map { $0 <= v } ?? false }
        case .greater: { RecordCodec.int($0).map { $0 > v } ?? false }
        case .greaterOrEqual: { RecordCodec.int($0).map { $0 >= v } ?? false }
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
            let test = StringPayloadTest(op, options, constant)
            return { test.matches($0) }
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
