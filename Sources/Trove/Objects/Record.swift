#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The binary form of an object: one slot per property id, each read without decoding the others.
///
/// ```
/// u8 format | u16 slotCount n | offset[0...n] | payloads
/// ```
/// The format byte gives the width of the offsets: 3 for one byte (a record under 256 bytes),
/// 2 for two (under 64 KiB), 1 for four. An encoder takes the narrowest that fits, so a
/// small object's header costs a byte per property rather than four. Formats 2 and 3 are
/// written only to files of storage format 5 and later, which older builds refuse.
/// Slot `i` is bytes `offset[i]..<offset[i+1]`; empty means null, and a slot past `n` (a
/// property added after the record was written) reads as the property's default. Payloads:
/// bool 1 byte; integers 1 to 8 (LE, the fewest bytes whose sign extension gives the value
/// back, read by `RecordCodec.int`; files of storage formats before 6 hold all 8); float 4;
/// double 8; date 8 (seconds since 2001 as a double, exactly what `Date` holds); string, data
/// and decimal (its text; "NaN" in files of older builds) a 0x01 byte then the bytes, so an
/// empty string is not null; uuid 16;
/// link the target's object key (8); list a u32 count then elements: links 8 bytes each,
/// scalars a u32 length and a payload each.
struct RecordView {
    let base: UnsafeRawPointer
    let count: Int
    /// Bytes per offset: 1, 2 or 4.
    let width: Int

    /// Inlined: scans build one view per object, and the checks are a few loads and compares.
    @inline(__always)
    init(_ buffer: UnsafeRawBufferPointer) throws {
        guard buffer.count >= 4, let width = RecordCodec.offsetWidth(format: buffer.load(as: UInt8.self)),
              3 + width * (Int(buffer.loadUnaligned(fromByteOffset: 1, as: UInt16.self)) + 1) <= buffer.count else {
            throw Self.damage(buffer)
        }
        base = buffer.baseAddress!
        count = buffer.count
        self.width = width
    }

    @inline(never)
    private static func damage(_ buffer: UnsafeRawBufferPointer) -> StoreError {
        buffer.count >= 4 && RecordCodec.offsetWidth(format: buffer.load(as: UInt8.self)) != nil
            ? StoreError.corruptRecord("record offset table is truncated")
            : StoreError.corruptRecord("record header is damaged")
    }

    @inline(__always) var slotCount: Int { Int(base.loadUnaligned(fromByteOffset: 1, as: UInt16.self)) }

    /// Where the payloads start: past the offset table.
    @inline(__always) var payloadStart: Int { 3 + width * (slotCount + 1) }

    @inline(__always)
    private func offset(_ i: Int) -> Int {
        switch width {
        case 1: Int(base.load(fromByteOffset: 3 + i, as: UInt8.self))
        case 2: Int(base.loadUnaligned(fromByteOffset: 3 + 2 * i, as: UInt16.self))
        default: Int(base.loadUnaligned(fromByteOffset: 3 + 4 * i, as: UInt32.self))
        }
    }

    /// The payload of slot `id`, or nil if the record predates the property.
    @inline(__always)
    func slot(_ id: Int) -> UnsafeRawBufferPointer? {
        guard id < slotCount else { return nil }
        let start = offset(id), end = offset(id + 1)
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
        var size = 0
        for id in 0..<n {
            guard let p = id < layout.byID.count ? layout.byID[id] : nil else { continue }
            guard let s = payloadSize(values[id], type: p.type) else { return try encodeAppending(values, layout: layout) }
            size += s
        }
        return build(slots: n, payloadBytes: size) { id, to in
            guard let p = id < layout.byID.count ? layout.byID[id] : nil else { return 0 }
            return writePayload(values[id], type: p.type, to: to)
        }
    }

    /// A property's new value in a partial update, with the old one (for its index entries).
    struct SlotUpdate {
        let property: PropertyLayout
        let old: Value
        let new: Value
    }

    /// The record `old` with the slots of `updates` re-encoded and every other slot copied as
    /// it is (no decoding): what `encode` of the decoded values with the updates applied gives,
    /// for every well-formed record. Slots past the old record get their property's default.
    static func encode(updating old: RecordView, with updates: [SlotUpdate], layout: ModelLayout) throws -> [UInt8] {
        let n = layout.byID.count
        if old.slotCount == n, let patched = patched(old, with: updates) { return patched }
        @inline(__always) func update(_ id: Int) -> SlotUpdate? {
            for u in updates where u.property.id == id { return u }
            return nil
        }
        var size = 0
        for id in 0..<n {
            guard let p = layout.byID[id] else { continue }
            let s: Int?
            if let u = update(id) { s = payloadSize(u.new, type: p.type) }
            else if let bytes = old.slot(id) { s = bytes.count }
            else { s = payloadSize(p.defaultValue, type: p.type) }
            guard let s else { return try encodeAppending(updating: old, with: updates, layout: layout) }
            size += s
        }
        return build(slots: n, payloadBytes: size) { id, to in
            guard let p = layout.byID[id] else { return 0 }
            if let u = update(id) { return writePayload(u.new, type: p.type, to: to) }
            guard let bytes = old.slot(id) else { return writePayload(p.defaultValue, type: p.type, to: to) }
            if bytes.count > 0 { to.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
            return bytes.count
        }
    }

    /// The record `old` with `updates` written over their slots, when each new payload has its
    /// slot's size (a new score for an old one): the same bytes a full encoding produces, for
    /// a copy and a store per update instead of a pass over every slot.
    private static func patched(_ old: RecordView, with updates: [SlotUpdate]) -> [UInt8]? {
        // A slot must lie past the offset table: a damaged record takes the full encoding.
        let payloads = old.payloadStart
        for u in updates {
            guard let bytes = old.slot(u.property.id), bytes.baseAddress! - old.base >= payloads,
                  payloadSize(u.new, type: u.property.type) == bytes.count else { return nil }
        }
        return [UInt8](unsafeUninitializedCapacity: old.count) { buffer, count in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            base.copyMemory(from: old.base, byteCount: old.count)
            for u in updates {
                let start = old.slot(u.property.id)!.baseAddress! - old.base
                _ = writePayload(u.new, type: u.property.type, to: base + start)
            }
            count = old.count
        }
    }

    /// The width of a record's offsets for its format byte, nil for an unknown format.
    @inline(__always)
    static func offsetWidth(format: UInt8) -> Int? {
        switch format {
        case 1: 4
        case 2: 2
        case 3: 1
        default: nil
        }
    }

    /// The narrowest offsets that can address a record of `n` slots and `payloadBytes`.
    @inline(__always)
    static func offsetWidth(slots n: Int, payloadBytes: Int) -> Int {
        if 3 + (n + 1) + payloadBytes <= Int(UInt8.max) { return 1 }
        if 3 + 2 * (n + 1) + payloadBytes <= Int(UInt16.max) { return 2 }
        return 4
    }

    @inline(__always)
    private static func storeOffset(_ o: Int, at i: Int, width: Int, to base: UnsafeMutableRawPointer) {
        switch width {
        case 1: base.storeBytes(of: UInt8(truncatingIfNeeded: o), toByteOffset: 3 + i, as: UInt8.self)
        case 2: base.storeBytes(of: UInt16(truncatingIfNeeded: o), toByteOffset: 3 + 2 * i, as: UInt16.self)
        default: base.storeBytes(of: UInt32(truncatingIfNeeded: o), toByteOffset: 3 + 4 * i, as: UInt32.self)
        }
    }

    /// A record of `n` slots and `payloadBytes` of payloads built in one exactly sized buffer:
    /// the header, each slot's offset, and the payload `writeSlot` stores for slot `id`
    /// (returning its byte count). Payloads stored in place: appending them one by one cost
    /// more than the rest of the encoding. Inlined, so the closure costs no call per slot.
    @inline(__always)
    private static func build(slots n: Int, payloadBytes: Int,
                              _ writeSlot: (_ id: Int, _ to: UnsafeMutableRawPointer) -> Int) -> [UInt8] {
        let width = offsetWidth(slots: n, payloadBytes: payloadBytes)
        return [UInt8](unsafeUninitializedCapacity: 3 + width * (n + 1) + payloadBytes) { buffer, count in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            writeHeader(base, slots: n, width: width)
            var o = 3 + width * (n + 1)
            for id in 0..<n {
                storeOffset(o, at: id, width: width, to: base)
                o += writeSlot(id, base + o)
            }
            storeOffset(o, at: n, width: width, to: base)
            count = o
        }
    }

    @inline(__always)
    private static func writeHeader(_ base: UnsafeMutableRawPointer, slots n: Int, width: Int) {
        base.storeBytes(of: width == 1 ? 3 : width == 2 ? 2 : 1, as: UInt8.self)
        base.storeBytes(of: UInt8(n & 0xff), toByteOffset: 1, as: UInt8.self)
        base.storeBytes(of: UInt8(n >> 8), toByteOffset: 2, as: UInt8.self)
    }

    /// `record` (four-byte offsets, as the appending encoders build it) with the narrowest
    /// offsets that fit: the bytes `build` gives for the same payloads.
    private static func narrowed(_ record: [UInt8]) -> [UInt8] {
        record.withUnsafeBytes { r in
            let n = Int(r.loadUnaligned(fromByteOffset: 1, as: UInt16.self))
            let table = 3 + 4 * (n + 1)
            let payloads = UnsafeRawBufferPointer(rebasing: r[table...])
            let width = offsetWidth(slots: n, payloadBytes: payloads.count)
            guard width < 4 else { return record }
            return build(slots: n, payloadBytes: payloads.count) { id, to in
                let start = Int(r.loadUnaligned(fromByteOffset: 3 + 4 * id, as: UInt32.self)) - table
                let end = Int(r.loadUnaligned(fromByteOffset: 3 + 4 * (id + 1), as: UInt32.self)) - table
                if end > start { to.copyMemory(from: payloads.baseAddress! + start, byteCount: end - start) }
                return end - start
            }
        }
    }

    /// The bytes ``writePayload(_:type:to:)`` writes for `value`, or nil for what it leaves to
    /// ``appendPayload(_:type:property:to:)``: decimals, lists of scalars, and mismatches
    /// (which that reports).
    @inline(__always)
    static func payloadSize(_ value: Value, type: PropertyType) -> Int? {
        switch (type, value) {
        case (_, .null): return 0
        case (.bool, .bool): return 1
        case (_, .int(let v)) where type.isInteger: return intSize(v)
        case (.float, .float): return 4
        case (.double, .double), (.date, .date): return 8
        case (.string, .string(let s)): return 1 + s.utf8.count
        case (.data, .data(let d)): return 1 + d.count
        case (.uuid, .uuid): return 16
        case (.link, .reference): return 8
        case (.list(.link), .list(let items)):
            for item in items { guard case .reference = item else { return nil } }
            return 4 + 8 * items.count
        default: return nil
        }
    }

    /// Stores the payload of a value ``payloadSize(_:type:)`` accepted; returns its size.
    @inline(__always)
    static func writePayload(_ value: Value, type: PropertyType, to p: UnsafeMutableRawPointer) -> Int {
        switch (type, value) {
        case (_, .null): return 0
        case (.bool, .bool(let b)): p.storeBytes(of: b ? 1 : 0, as: UInt8.self); return 1
        case (_, .int(let v)) where type.isInteger: return storeInt(v, to: p)
        case (.float, .float(let v)): p.storeBytes(of: v, as: Float.self); return 4
        case (.double, .double(let v)): p.storeBytes(of: v, as: Double.self); return 8
        case (.date, .date(let d)): p.storeBytes(of: d.timeIntervalSinceReferenceDate, as: Double.self); return 8
        case (.string, .string(let s)):
            p.storeBytes(of: 1, as: UInt8.self)
            if let n = s.utf8.withContiguousStorageIfAvailable({ b -> Int in
                if b.count > 0 { (p + 1).copyMemory(from: b.baseAddress!, byteCount: b.count) }
                return b.count
            }) { return 1 + n }
            var o = 1
            for c in s.utf8 { p.storeBytes(of: c, toByteOffset: o, as: UInt8.self); o += 1 }
            return o
        case (.data, .data(let d)):
            p.storeBytes(of: 1, as: UInt8.self)
            d.withUnsafeBytes { if $0.count > 0 { (p + 1).copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            return 1 + d.count
        case (.uuid, .uuid(let u)): withUnsafeBytes(of: u.uuid) { p.copyMemory(from: $0.baseAddress!, byteCount: 16) }; return 16
        case (.link, .reference(let r)): p.storeBytes(of: r.key, as: UInt64.self); return 8
        case (.list(.link), .list(let items)):
            p.storeBytes(of: UInt32(items.count), as: UInt32.self)
            var o = 4
            for case .reference(let r) in items { p.storeBytes(of: r.key, toByteOffset: o, as: UInt64.self); o += 8 }
            return o
        default: return 0
        }
    }

    // MARK: Integers

    /// The bytes an integer's payload takes: the fewest whose sign extension gives `v` back
    /// (1 for -128...127, 8 for the widest). A small count or age costs a byte, not eight.
    @inline(__always)
    static func intSize(_ v: Int64) -> Int {
        let magnitude = v ^ (v >> 63)
        return (64 - magnitude.leadingZeroBitCount + 8) >> 3
    }

    /// Stores `v`'s payload at `p`; returns its size.
    @inline(__always)
    static func storeInt(_ v: Int64, to p: UnsafeMutableRawPointer) -> Int {
        let n = intSize(v)
        withUnsafeBytes(of: v.littleEndian) { p.copyMemory(from: $0.baseAddress!, byteCount: n) }
        return n
    }

    /// The integer an integer payload holds: 1 to 8 little-endian bytes, sign-extended; nil
    /// for null (no bytes) or a payload longer than 8. Every reader of integer payloads goes
    /// through it, so records of older files (always 8 bytes) and narrow ones read alike.
    @inline(__always)
    static func int(_ b: UnsafeRawBufferPointer) -> Int64? {
        let n = b.count
        switch n {
        case 8: return Int64(littleEndian: b.loadUnaligned(as: Int64.self))
        case 1: return Int64(b.load(as: Int8.self))
        case 2: return Int64(Int16(littleEndian: b.loadUnaligned(as: Int16.self)))
        case 4: return Int64(Int32(littleEndian: b.loadUnaligned(as: Int32.self)))
        case 3, 5, 6, 7: break
        default: return nil
        }
        let p = b.baseAddress!
        var v: UInt64 = 0
        var i = n
        while i > 0 { i &-= 1; v = v << 8 | UInt64(p.load(fromByteOffset: i, as: UInt8.self)) }
        let shift = UInt64(64 - 8 * n)
        return Int64(bitPattern: v << shift) >> shift
    }

    // MARK: The general encoder (every type; the fast path above covers the common ones)

    static func encodeAppending(_ values: [Value], layout: ModelLayout) throws -> [UInt8] {
        let n = values.count
        var size = 3 + 4 * (n + 1)
        for v in values { size += estimatedSize(v) }
        var out = header(slots: n, capacity: size)
        for id in 0..<n {
            setOffset(id, &out)
            guard let p = id < layout.byID.count ? layout.byID[id] : nil else { continue }
            try appendPayload(values[id], type: p.type, property: p, to: &out)
        }
        setOffset(n, &out)
        return narrowed(out)
    }

    static func encodeAppending(updating old: RecordView, with updates: [SlotUpdate], layout: ModelLayout) throws -> [UInt8] {
        let n = layout.byID.count
        var size = 3 + 4 * (n + 1) + old.count
        for u in updates { size += estimatedSize(u.new) }
        var out = header(slots: n, capacity: size)
        for id in 0..<n {
            setOffset(id, &out)
            guard let p = layout.byID[id] else { continue }
            if let u = updates.first(where: { $0.property.id == id }) {
                try appendPayload(u.new, type: p.type, property: p, to: &out)
            } else if let bytes = old.slot(id) {
                out.append(contentsOf: bytes)
            } else {
                try appendPayload(p.defaultValue, type: p.type, property: p, to: &out)
            }
        }
        setOffset(n, &out)
        return narrowed(out)
    }

    /// The version byte, the slot count and a zeroed offset table, in an array with room for
    /// `capacity` bytes (so that appending payloads does not reallocate).
    private static func header(slots n: Int, capacity: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        out.append(1)
        out.append(UInt8(n & 0xff))
        out.append(UInt8(n >> 8))
        out.append(contentsOf: repeatElement(0, count: 4 * (n + 1)))
        return out
    }

    /// Records the current end of `out` as the start of slot `id`.
    private static func setOffset(_ id: Int, _ out: inout [UInt8]) {
        let o = UInt32(out.count)
        out.withUnsafeMutableBytes { $0.storeBytes(of: o, toByteOffset: 3 + 4 * id, as: UInt32.self) }
    }

    /// About the payload's size, to size the buffer once.
    private static func estimatedSize(_ v: Value) -> Int {
        switch v {
        case .null: 0
        case .string(let s): 1 + s.utf8.count
        case .data(let d): 1 + d.count
        case .uuid: 16
        case .list(let items): 4 + 12 * items.count
        case .decimal: 40
        default: 8
        }
    }

    static func appendPayload(_ value: Value, type: PropertyType, property p: PropertyLayout, to out: inout [UInt8]) throws {
        func put<T>(_ v: T) { withUnsafeBytes(of: v) { out.append(contentsOf: $0) } }
        switch (type, value) {
        case (_, .null): return
        case (.bool, .bool(let b)): out.append(b ? 1 : 0)
        case (_, .int(let v)) where type.isInteger:
            withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<intSize(v)])) }
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
        case .int, .int8, .int16, .int32, .int64:
            guard let v = int(b) else { throw StoreError.corruptRecord("property \(p.name): \(b.count) bytes, expected 1 to 8") }
            return .int(v)
        case .float: try need(4); return .float(b.loadUnaligned(as: Float.self))
        case .double: try need(8); return .double(b.loadUnaligned(as: Double.self))
        case .date: try need(8); return .date(Date(timeIntervalSinceReferenceDate: b.loadUnaligned(as: Double.self)))
        case .string: return .string(String(decoding: UnsafeRawBufferPointer(rebasing: b[1...]), as: UTF8.self))
        case .data: return .data(Data(UnsafeRawBufferPointer(rebasing: b[1...])))
        case .decimal:
            let s = String(decoding: UnsafeRawBufferPointer(rebasing: b[1...]), as: UTF8.self)
            if let d = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")) { return .decimal(d) }
            // Older builds stored a NaN as its text (writes refuse it now): it reads as the NaN
            // it was, which sums, min and max skip and no comparison matches.
            if s == "NaN" { return .decimal(.nan) }
            throw StoreError.corruptRecord("property \(p.name): decimal text \(s.debugDescription) is not a number")
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
