import Foundation

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
        case (.decimal, .decimal(let d)): appendDouble(NSDecimalNumber(decimal: d).doubleValue, to: &out)
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
        case .decimal(let d): NSDecimalNumber(decimal: d).doubleValue
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
}
