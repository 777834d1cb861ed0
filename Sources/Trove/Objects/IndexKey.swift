#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Order-preserving byte encodings of values, for primary-key and secondary indexes: the
/// bytewise order of encodings is the order of values (null first), so equality, `IN`,
/// ranges and `BEGINSWITH` become range scans of a tree.
///
/// Every encoding starts with a tag byte (0 null, 1 a value). Integers of every width are
/// Int64 with the sign bit flipped, big-endian; floats, doubles and dates are IEEE doubles
/// transformed so negative numbers sort first; strings and data are escaped (0x00 -> 0x00 0xFF)
/// and end with 0x00 0x00, so that a shorter string sorts before its extensions and an index
/// entry can append the object key after it. Strings longer than ``maxValueBytes`` are cut
/// (without the terminator): an index lookup always re-checks the object itself.
enum IndexKey {
    static let maxValueBytes = 400

    static func append(_ value: Value, as type: PropertyType, to out: inout [UInt8]) {
        switch value {
        case .null:
            out.append(0)
            return
        default:
            out.append(1)
        }
        switch (type, value) {
        case (.bool, .bool(let b)): out.append(b ? 1 : 0)
        case (_, .int(let v)) where type.isInteger: appendInt(v, to: &out)
        case (.float, _), (.double, _), (.date, _):
            appendDouble(doubleValue(value) ?? 0, to: &out)
        case (.string, .string(let s)): appendEscaped(s.utf8, to: &out)
        case (.data, .data(let d)): appendEscaped(d, to: &out)
        case (.decimal, .decimal(let d)): appendDouble(d.doubleValue, to: &out)
        case (.uuid, .uuid(let u)): withUnsafeBytes(of: u.uuid) { out.append(contentsOf: $0) }
        case (.link, .reference(let r)): appendUInt64(r.key, to: &out)
        default: appendEscaped(value.description.utf8, to: &out)
        }
    }

    static func encode(_ value: Value, as type: PropertyType) -> [UInt8] {
        var out: [UInt8] = []
        if case .string(let s) = value { out.reserveCapacity(s.utf8.count + 3) } else { out.reserveCapacity(16) }
        append(value, as: type, to: &out)
        return out
    }

    static func doubleValue(_ value: Value) -> Double? {
        switch value {
        case .int(let v): Double(v)
        case .float(let v): Double(v)
        case .double(let v): v
        case .date(let d): d.timeIntervalSinceReferenceDate
        case .decimal(let d): d.doubleValue
        default: nil
        }
    }

    @inline(__always)
    static func appendInt(_ v: Int64, to out: inout [UInt8]) {
        appendUInt64(UInt64(bitPattern: v) ^ (1 << 63), to: &out)
    }

    @inline(__always)
    static func appendUInt64(_ v: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: v.bigEndian) { out.append(contentsOf: $0) }
    }

    @inline(__always)
    static func appendDouble(_ d: Double, to out: inout [UInt8]) {
        let bits = (d == 0 ? 0.0 : d).bitPattern   // -0 and 0 are one key
        appendUInt64(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), to: &out)
    }

    static func appendEscaped<C: Collection>(_ bytes: C, to out: inout [UInt8]) where C.Element == UInt8 {
        // Most values need no escape and no cut: one copy.
        let copied = bytes.withContiguousStorageIfAvailable { buffer -> Bool in
            guard buffer.count <= maxValueBytes, !buffer.contains(0) else { return false }
            out.append(contentsOf: buffer)
            out.append(0)
            out.append(0)
            return true
        }
        if copied == true { return }
        var n = 0
        for b in bytes {
            if n >= maxValueBytes { return }
            out.append(b)
            if b == 0 { out.append(0xFF) }
            n += 1
        }
        out.append(0)
        out.append(0)
    }

    // MARK: The primary-key index's values

    /// Calls `body` with the primary-key index's value for object `key`: its big-endian bytes
    /// without leading zeros (one byte at least), so the object keys of a model of a million
    /// objects take three bytes, not eight. Files of storage formats before 6 hold all eight;
    /// ``objectKey(value:)`` reads both.
    @inline(__always)
    static func withObjectKeyValue<R>(_ key: UInt64, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let n = max(1, 8 - key.leadingZeroBitCount / 8)
        return try withUnsafeBytes(of: key.bigEndian) { try body(UnsafeRawBufferPointer(rebasing: $0[(8 - n)...])) }
    }

    /// The object key a primary-key index's value holds: 1 to 8 big-endian bytes; nil for
    /// anything else.
    @inline(__always)
    static func objectKey(value: UnsafeRawBufferPointer) -> UInt64? {
        let n = value.count
        if n == 8 { return UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)) }
        guard n > 0, n < 8 else { return nil }
        let p = value.baseAddress!
        var k: UInt64 = 0
        for i in 0..<n { k = k << 8 | UInt64(p.load(fromByteOffset: i, as: UInt8.self)) }
        return k
    }

    /// The smallest key greater than every key that starts with `prefix`, or nil if none.
    static func successor(ofPrefix prefix: [UInt8]) -> [UInt8]? {
        var p = prefix
        while let last = p.last {
            if last < 0xFF {
                p[p.count - 1] = last + 1
                return p
            }
            p.removeLast()
        }
        return nil
    }

    // MARK: Values back from keys (plans that read an index instead of records)

    /// The value an encoding (without an object-key suffix) holds whole: null, a boolean, an
    /// integer, a float, double or date (a zero's sign is not kept: -0 and 0 are one key), or a
    /// string of ASCII bytes without NUL, whose bytes order as its scalars do. Nil for the
    /// rest: cut or non-ASCII strings (strings order by their NFC scalars, keys by the bytes as
    /// stored), decimals (keys hold a rounded double), data, UUIDs and links.
    static func value(of key: UnsafeRawBufferPointer, as type: PropertyType) -> Value? {
        guard let tag = key.first else { return nil }
        if tag == 0 { return key.count == 1 ? .null : nil }
        @inline(__always) func word() -> UInt64? {
            key.count == 9 ? UInt64(bigEndian: key.loadUnaligned(fromByteOffset: 1, as: UInt64.self)) : nil
        }
        @inline(__always) func double() -> Double? {
            guard let stored = word() else { return nil }
            return Double(bitPattern: stored & (1 << 63) != 0 ? stored & ~(1 << 63) : ~stored)
        }
        switch type {
        case .bool: return key.count == 2 ? .bool(key[1] != 0) : nil
        case _ where type.isInteger: return word().map { .int(Int64(bitPattern: $0 ^ (1 << 63))) }
        case .double: return double().map { .double($0) }
        case .float: return double().map { .float(Float($0)) }
        case .date: return double().map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .string:
            guard IndexScan.holdsWholeASCII(key, hasObjectKey: false) else { return nil }
            return .string(String(decoding: UnsafeRawBufferPointer(rebasing: key[1..<(key.count - 2)]), as: UTF8.self))
        default: return nil
        }
    }

    // MARK: Encoding without a heap buffer (the write and lookup paths)

    /// The largest encoding ``encode(_:as:into:)`` writes, with an 8-byte suffix.
    static let maxStackEncoding = 1 + 2 * maxValueBytes + 2 + 8

    /// Calls `body` with the encoding of `value` followed by `suffix` (an object key,
    /// big-endian) if given: the same bytes as `encode(value, as: type) + suffix`, built in a
    /// stack buffer rather than arrays (each write builds one to three such keys).
    static func withEncoded<R>(_ value: Value, as type: PropertyType, suffix: UInt64? = nil,
                               _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: maxStackEncoding, alignment: 8) { buffer in
            let p = buffer.baseAddress!
            if var n = encode(value, as: type, into: p) {
                if let suffix { p.storeBytes(of: suffix.bigEndian, toByteOffset: n, as: UInt64.self); n += 8 }
                return try body(UnsafeRawBufferPointer(start: p, count: n))
            }
            var out = encode(value, as: type)
            if let suffix { appendUInt64(suffix, to: &out) }
            return try out.withUnsafeBytes(body)
        }
    }

    /// Writes what ``append(_:as:to:)`` appends to `p` (room for ``maxStackEncoding`` bytes)
    /// and returns the byte count; nil for the rare encodings it leaves to `append`
    /// (decimals, mismatched values).
    static func encode(_ value: Value, as type: PropertyType, into p: UnsafeMutableRawPointer) -> Int? {
        @inline(__always) func store(_ v: UInt64, at o: Int) { p.storeBytes(of: v.bigEndian, toByteOffset: o, as: UInt64.self) }
        @inline(__always) func double(_ d: Double) -> Int {
            let bits = (d == 0 ? 0.0 : d).bitPattern
            store(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), at: 1)
            return 9
        }
        if case .null = value { p.storeBytes(of: 0, as: UInt8.self); return 1 }
        p.storeBytes(of: 1, as: UInt8.self)
        switch (type, value) {
        case (.bool, .bool(let b)): p.storeBytes(of: b ? 1 : 0, toByteOffset: 1, as: UInt8.self); return 2
        case (_, .int(let v)) where type.isInteger: store(UInt64(bitPattern: v) ^ (1 << 63), at: 1); return 9
        case (.float, .decimal), (.double, .decimal), (.date, .decimal): return nil
        case (.float, _), (.double, _), (.date, _): return double(doubleValue(value) ?? 0)
        case (.string, .string(let s)):
            if let n = s.utf8.withContiguousStorageIfAvailable({ escape(UnsafeRawBufferPointer($0), into: p + 1) }) { return 1 + n }
            return 1 + Array(s.utf8).withUnsafeBytes { escape($0, into: p + 1) }
        case (.data, .data(let d)): return 1 + d.withUnsafeBytes { escape($0, into: p + 1) }
        case (.uuid, .uuid(let u)): withUnsafeBytes(of: u.uuid) { (p + 1).copyMemory(from: $0.baseAddress!, byteCount: 16) }; return 17
        case (.link, .reference(let r)): store(r.key, at: 1); return 9
        default: return nil
        }
    }

    /// ``appendEscaped(_:to:)`` into a raw buffer: returns the bytes written.
    private static func escape(_ bytes: UnsafeRawBufferPointer, into p: UnsafeMutableRawPointer) -> Int {
        var o = 0
        for (n, b) in bytes.enumerated() {
            if n >= maxValueBytes { return o }
            p.storeBytes(of: b, toByteOffset: o, as: UInt8.self)
            o += 1
            if b == 0 { p.storeBytes(of: 0xFF, toByteOffset: o, as: UInt8.self); o += 1 }
        }
        p.storeBytes(of: 0, toByteOffset: o, as: UInt8.self)
        p.storeBytes(of: 0, toByteOffset: o + 1, as: UInt8.self)
        return o + 2
    }
}
