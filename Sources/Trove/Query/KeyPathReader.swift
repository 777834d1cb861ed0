import TroveStorage

/// Visits the payloads a key path reaches from an object, each in its record encoding (an
/// empty buffer is null; an object is its 8-byte key), until `body` returns true. Returns
/// whether `body` stopped the visit.
typealias PayloadVisitor = (RecordView, UInt64, (UnsafeRawBufferPointer) throws -> Bool) throws -> Bool

/// Follows key paths from record to record for one snapshot: the object trees of the models
/// crossed are looked up once, when a path is compiled, not once per object.
final class KeyPathReader {
    let snapshot: Snapshot
    private var trees: [Int: Tree?] = [:]

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
    }

    static var empty: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// The objects tree of `model` (nil while the model has no objects).
    func tree(_ model: ModelLayout) throws -> Tree? {
        if let tree = trees[model.id] { return tree }
        let tree = try snapshot.objectsTree(model)
        trees[model.id] = tree
        return tree
    }

    /// Calls `body` with the record of `key` in `tree`; nil if there is none.
    @inline(__always)
    func withRecord<R>(_ tree: Tree?, _ key: UInt64, _ body: (RecordView) throws -> R) throws -> R? {
        guard let tree else { return nil }
        var k = key.bigEndian
        return try withUnsafeBytes(of: &k) { kb in
            try snapshot.storageTx.withValue(tree, forKey: kb) { try body(try RecordView($0)) }
        }
    }

    /// The payload a property has when its slot predates it: its default value, encoded.
    static func defaultPayload(_ p: PropertyLayout) -> [UInt8] {
        var out: [UInt8] = []
        try? RecordCodec.appendPayload(p.defaultValue, type: p.type, property: p, to: &out)
        return out
    }

    /// The visitor of `path`.
    func visitor(_ path: BoundKeyPath) throws -> PayloadVisitor {
        var visit = try terminalVisitor(path.property)
        var restIsToMany = path.property.isList || path.property.isLinkingObjects
        for hop in path.hops.reversed() {
            visit = try hopVisitor(hop, then: visit, restIsToMany: restIsToMany)
            restIsToMany = restIsToMany || !hop.isLink
        }
        return visit
    }

    /// A reader of the single value a to-one path reaches (null through a null link).
    func valueReader(_ path: BoundKeyPath) throws -> (RecordView, UInt64) throws -> Value {
        let visit = try visitor(path)
        let decode = Self.decoder(path)
        return { record, key in
            var value = Value.null
            _ = try visit(record, key) { payload in
                value = try decode(payload)
                return true
            }
            return value
        }
    }

    /// Decodes one payload of `path` into a value.
    static func decoder(_ path: BoundKeyPath) -> (UnsafeRawBufferPointer) throws -> Value {
        let p = path.property
        if case .object(let model) = path.kind {
            let name = model.name
            return { bytes in
                bytes.count == 8 ? .reference(ObjectReference(model: name, key: bytes.loadUnaligned(as: UInt64.self))) : .null
            }
        }
        let type = p.elementType
        return { bytes in try RecordCodec.decode(bytes, type: type, property: p) }
    }

    private func terminalVisitor(_ p: PropertyLayout) throws -> PayloadVisitor {
        let id = p.id
        let fallback = Self.defaultPayload(p)
        if p.isLinkingObjects {
            guard let origin = p.origin, let owner = p.model else { return { _, _, _ in false } }
            let snapshot = self.snapshot
            return { _, key, body in
                for source in try snapshot.backlinks(to: owner, key: key, from: origin) {
                    var k = source
                    if try withUnsafeBytes(of: &k, { try body(UnsafeRawBufferPointer($0)) }) { return true }
                }
                return false
            }
        }
        if p.isLinkList {
            return { record, _, body in
                try fallback.withUnsafeBytes { fallback in
                    let bytes = record.slot(id) ?? fallback
                    guard bytes.count >= 4 else { return false }
                    let n = Int(bytes.loadUnaligned(as: UInt32.self))
                    guard 4 + 8 * n == bytes.count else { throw StoreError.corruptRecord("list \(p.name) has a bad length") }
                    for i in 0..<n where try body(UnsafeRawBufferPointer(rebasing: bytes[(4 + 8 * i)..<(12 + 8 * i)])) {
                        return true
                    }
                    return false
                }
            }
        }
        if p.isList {
            return { record, _, body in
                try fallback.withUnsafeBytes { fallback in
                    let bytes = record.slot(id) ?? fallback
                    guard bytes.count >= 4 else { return false }
                    let n = Int(bytes.loadUnaligned(as: UInt32.self))
                    var offset = 4
                    for _ in 0..<n {
                        guard offset + 4 <= bytes.count else { throw StoreError.corruptRecord("list \(p.name) is truncated") }
                        let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                        offset += 4
                        guard offset + length <= bytes.count else { throw StoreError.corruptRecord("list \(p.name) is truncated") }
                        if try body(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])) { return true }
                        offset += length
                    }
                    return false
                }
            }
        }
        return { record, _, body in
            if let bytes = record.slot(id) { return try body(bytes) }
            return try fallback.withUnsafeBytes { try body($0) }
        }
    }

    private func hopVisitor(_ hop: PropertyLayout, then rest: @escaping PayloadVisitor, restIsToMany: Bool) throws -> PayloadVisitor {
        guard let target = hop.target else { return { _, _, _ in false } }
        let tree = try self.tree(target)
        let id = hop.id
        if hop.isLink {
            return { [self] record, _, body in
                if let bytes = record.slot(id), bytes.count == 8 {
                    let key = bytes.loadUnaligned(as: UInt64.self)
                    if let stopped = try withRecord(tree, key, { try rest($0, key, body) }) { return stopped }
                }
                // A null link on the way reads as null, or as no elements when a list follows.
                return restIsToMany ? false : try body(Self.empty)
            }
        }
        if hop.isLinkList {
            return { [self] record, _, body in
                guard let bytes = record.slot(id), bytes.count >= 4 else { return false }
                let n = Int(bytes.loadUnaligned(as: UInt32.self))
                guard 4 + 8 * n == bytes.count else { throw StoreError.corruptRecord("list \(hop.name) has a bad length") }
                for i in 0..<n {
                    let key = bytes.loadUnaligned(fromByteOffset: 4 + 8 * i, as: UInt64.self)
                    if try withRecord(tree, key, { try rest($0, key, body) }) == true { return true }
                }
                return false
            }
        }
        // linkingObjects: the objects of `target` whose `origin` links here.
        guard let origin = hop.origin, let owner = hop.model else { return { _, _, _ in false } }
        return { [self] _, key, body in
            for source in try snapshot.backlinks(to: owner, key: key, from: origin) {
                if try withRecord(tree, source, { try rest($0, source, body) }) == true { return true }
            }
            return false
        }
    }
}
