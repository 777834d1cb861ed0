import Foundation

/// The binary form of an object: one slot per property id, each read without decoding the others.
///
/// ```
/// u8 version (1) | u16 slotCount n | u32 offset[0...n] | payloads
/// ```
/// Slot `i` is bytes `offset[i]..<offset[i+1]`; empty means null, and a slot past `n` (a
/// property added after the record was written) reads as the property's default. Payloads:
/// bool 1 byte; integers 8 (LE); float 4; double 8; date 8 (seconds since 2001 as a double,
/// exactly what `Date` holds); string, data and decimal (its text) a 0x01 byte then the bytes,
/// so an empty string is not null; uuid 16; link the target's object key (8); list a u32
/// count then elements: links 8 bytes each, scalars a u32 length and a payload each.
struct RecordView {
    let base: UnsafeRawPointer
    let count: Int

    init(_ buffer: UnsafeRawBufferPointer) throws {
        guard buffer.count >= 7, buffer.load(as: UInt8.self) == 1 else {
            throw StoreError.corruptRecord("record header is damaged")
        }
        base = buffer.baseAddress!
        count = buffer.count
        let n = slotCount
        guard 3 + 4 * (n + 1) <= count else { throw StoreError.corruptRecord("record offset table is truncated") }
    }

    @inline(__always) var slotCount: Int { Int(base.loadUnaligned(fromByteOffset: 1, as: UInt16.self)) }

    /// The payload of slot `id`, or nil if the record predates the property.
    @inline(__always)
    func slot(_ id: Int) -> UnsafeRawBufferPointer? {
        guard id < slotCount else { return nil }
        let start = Int(base.loadUnaligned(fromByteOffset: 3 + 4 * id, as: UInt32.self))
        let end = Int(base.loadUnaligned(fromByteOffset: 3 + 4 * (id + 1), as: UInt32.self))
        guard start <= end, end <= count else { return UnsafeRawBufferPointer(start: base, count: 0) }
        return UnsafeRawBufferPointer(start: base + start, count: end - start)
    }

    /// The value of a stored property (links as references, lists as `.list`).
    func value(of p: PropertyLayout) throws -> Value {
        guard let bytes = slot(p.id) else { return p.defaultValue }
        return try RecordCodec.decode(bytes, type: p.type, property: p)
    }
}

enum RecordCodec {
    /// Encodes values by property id (nil slots: null).
    static func encode(_ values: [Value], layout: ModelLayout) throws -> [UInt8] {
        let n = values.count
        var out = [UInt8](repeating: 0, count: 3 + 4 * (n + 1))
        out[0] = 1
        out[1] = UInt8(n & 0xff)
        out[2] = UInt8(n >> 8)
        var offsets: [UInt32] = []
        offsets.reserveCapacity(n + 1)
        for id in 0..<n {
            offsets.append(UInt32(out.count))
            guard let p = id < layout.byID.count ? layout.byID[id] : nil else { continue }
            try appendPayload(values[id], type: p.type, property: p, to: &out)
        }
        offsets.append(UInt32(out.count))
        out.withUnsafeMutableBytes { b in
            for (i, o) in offsets.enumerated() { b.storeBytes(of: o, toByteOffset: 3 + 4 * i, as: UInt32.self) }
        }
        return out
    }

    static func appendPayload(_ value: Value, type: PropertyType, property p: PropertyLayout, to out: inout [UInt8]) throws {
        func put<T>(_ v: T) { withUnsafeBytes(of: v) { out.append(contentsOf: $0) } }
        switch (type, value) {
        case (_, .null): return
        case (.bool, .bool(let b)): out.append(b ? 1 : 0)
        case (_, .int(let v)) where type.isInteger: put(v)
        case (.float, .float(let v)): put(v)
        case (.double, .double(let v)): put(v)
        case (.date, .date(let d)): put(d.timeIntervalSinceReferenceDate)
        case (.string, .string(let s)): out.append(1); out.append(contentsOf: s.utf8)
        case (.data, .data(let d)): out.append(1); out.append(contentsOf: d)
        case (.decimal, .decimal(let d)): out.append(1); out.append(contentsOf: d.description.utf8)
        case (.uuid, .uuid(let u)): put(u.uuid)
        case (.link, .reference(let r)): put(r.key)
        case (.list(let element), .list(let items)):
            put(UInt32(items.count))
            if case .link = element {
                for item in items {
                    guard case .reference(let r) = item else { throw StoreError.typeMismatch(property: p.name, expected: "an object", found: item.kindDescription) }
                    put(r.key)
                }
            } else {
                for item in items {
                    let lengthAt = out.count
                    put(UInt32(0))
                    try appendPayload(item, type: element, property: p, to: &out)
                    let length = UInt32(out.count - lengthAt - 4)
                    out.withUnsafeMutableBytes { $0.storeBytes(of: length, toByteOffset: lengthAt, as: UInt32.self) }
                }
            }
        default:
            throw StoreError.typeMismatch(property: p.name, expected: type.description, found: value.kindDescription)
        }
    }

    static func decode(_ b: UnsafeRawBufferPointer, type: PropertyType, property p: PropertyLayout) throws -> Value {
        if b.count == 0 { return .null }
        func need(_ n: Int) throws {
            guard b.count == n else { throw StoreError.corruptRecord("property \(p.name): \(b.count) bytes, expected \(n)") }
        }
        switch type {
        case .bool: try need(1); return .bool(b[0] != 0)
        case .int, .int8, .int16, .int32, .int64: try need(8); return .int(b.loadUnaligned(as: Int64.self))
        case .float: try need(4); return .float(b.loadUnaligned(as: Float.self))
        case .double: try need(8); return .double(b.loadUnaligned(as: Double.self))
        case .date: try need(8); return .date(Date(timeIntervalSinceReferenceDate: b.loadUnaligned(as: Double.self)))
        case .string: return .string(String(decoding: UnsafeRawBufferPointer(rebasing: b[1...]), as: UTF8.self))
        case .data: return .data(Data(UnsafeRawBufferPointer(rebasing: b[1...])))
        case .decimal:
            let s = String(decoding: UnsafeRawBufferPointer(rebasing: b[1...]), as: UTF8.self)
            return .decimal(Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) ?? 0)
        case .uuid:
            try need(16)
            var u = UUID().uuid
            withUnsafeMutableBytes(of: &u) { $0.copyMemory(from: b) }
            return .uuid(UUID(uuid: u))
        case .link:
            try need(8)
            return .reference(ObjectReference(model: p.target?.name ?? "", key: b.loadUnaligned(as: UInt64.self)))
        case .list(let element):
            guard b.count >= 4 else { throw StoreError.corruptRecord("list \(p.name) is truncated") }
            let n = Int(b.loadUnaligned(as: UInt32.self))
            var items: [Value] = []
            items.reserveCapacity(min(n, b.count))
            var o = 4
            if case .link = element {
                guard 4 + 8 * n == b.count else { throw StoreError.corruptRecord("list \(p.name) has a bad length") }
                let model = p.target?.name ?? ""
                for i in 0..<n { items.append(.reference(ObjectReference(model: model, key: b.loadUnaligned(fromByteOffset: 4 + 8 * i, as: UInt64.self)))) }
                return .list(items)
            }
            for _ in 0..<n {
                guard o + 4 <= b.count else { throw StoreError.corruptRecord("list \(p.name) is truncated") }
                let len = Int(b.loadUnaligned(fromByteOffset: o, as: UInt32.self))
                o += 4
                guard o + len <= b.count else { throw StoreError.corruptRecord("list \(p.name) is truncated") }
                items.append(try decode(UnsafeRawBufferPointer(rebasing: b[o..<(o + len)]), type: element, property: p))
                o += len
            }
            return .list(items)
        case .linkingObjects:
            return .list([])
        }
    }

    /// The object keys a link or list-of-links slot holds.
    static func linkKeys(_ b: UnsafeRawBufferPointer?, property p: PropertyLayout) -> [UInt64] {
        guard let b, b.count > 0 else { return [] }
        if p.isLink { return b.count == 8 ? [b.loadUnaligned(as: UInt64.self)] : [] }
        guard b.count >= 4 else { return [] }
        let n = Int(b.loadUnaligned(as: UInt32.self))
        guard 4 + 8 * n == b.count else { return [] }
        return (0..<n).map { b.loadUnaligned(fromByteOffset: 4 + 8 * $0, as: UInt64.self) }
    }
}
