import Synchronization

/// A stored object read in place for a typed model: its properties by their position in the
/// model type's own property table, which each model layout resolves to its properties once
/// per type, so that a typed read hashes no property names and copies no record.
///
/// Valid only inside the closure that receives it. A read it cannot answer (a property the
/// store's model lacks, a link past ``ObjectDecoder/maximumDepth``) throws
/// ``StoredObjectReader/Unreadable``: the caller then reads the object through `Codable`,
/// whose errors name what does not fit.
package struct StoredObjectReader {
    let snapshot: Snapshot
    let model: ModelLayout
    let key: UInt64
    let record: RecordView
    let slots: [PropertyLayout?]
    /// How many links were followed from the object first read.
    package let depth: Int

    /// A read the typed path leaves to `Codable`.
    package struct Unreadable: Error {
        package init() {}
    }

    /// The value of the property at `index` of the type's table (links as references).
    package func value(at index: Int) throws -> Value {
        guard index < slots.count, let p = slots[index] else { throw Unreadable() }
        if p.isLinkingObjects {
            guard let target = p.target, let origin = p.origin else { return .list([]) }
            return .list(try snapshot.backlinks(to: model, key: key, from: origin).map { .reference(ObjectReference(model: target.name, key: $0)) })
        }
        return try record.value(of: p)
    }

    /// The cache of values that links in this reader's snapshot point at, one per Swift type
    /// `type`, made by `make` on first use; nil in a transaction, whose objects change as it
    /// writes. Opaque here: the typed layer that reads the values decides what it holds.
    package func linkedValueCache(for type: ObjectIdentifier, _ make: () -> AnyObject) -> AnyObject? {
        snapshot.linkedValueCache(for: type, make)
    }

    /// Calls `body` with the object of key `key` that the link, list of links or
    /// linkingObjects property at `index` points at; false when it is gone.
    package func withLinkedObject(at index: Int, key: UInt64, type: ObjectIdentifier, names: () -> [String],
                                  _ body: (StoredObjectReader) throws -> Void) throws -> Bool {
        guard index < slots.count, let target = slots[index]?.target, depth < ObjectDecoder.maximumDepth else { throw Unreadable() }
        return try snapshot.withStoredObject(target, key: key, type: type, names: names, depth: depth + 1, body)
    }
}

extension Snapshot {
    /// Calls `body` with the object of `model` whose primary key is `primaryKey`, read in place
    /// for the Swift type `type` whose property table lists `names`; false if there is none.
    /// Not generic, so that a typed read asks the runtime for no metadata of its result.
    package func withStoredObject(_ model: String, primaryKey: Value, type: ObjectIdentifier, names: () -> [String],
                                  _ body: (StoredObjectReader) throws -> Void) throws -> Bool {
        try checkLive()
        let m = try self.model(model)
        guard let key = try objectKey(m, primaryKey: primaryKey) else { return false }
        return try withStoredObject(m, key: key, type: type, names: names, depth: 0, body)
    }

    func withStoredObject(_ m: ModelLayout, key: UInt64, type: ObjectIdentifier, names: () -> [String], depth: Int,
                          _ body: (StoredObjectReader) throws -> Void) throws -> Bool {
        guard let t = try objectsTree(m) else { return false }
        let slots = m.typedSlots.slots(for: type, in: m, names: names)
        var k = key.bigEndian
        return try withUnsafeBytes(of: &k) { kb in
            // Stable: reading a link inside `body` reads other entries of this transaction.
            try storageTx.withStableValue(t, forKey: kb) { bytes in
                try body(StoredObjectReader(snapshot: self, model: m, key: key, record: try RecordView(bytes), slots: slots, depth: depth))
            } != nil
        }
    }
}

extension DynamicObject {
    /// Calls `body` with this object's record read for the Swift type `type`, as
    /// ``Snapshot/withStoredObject(_:primaryKey:type:names:_:)`` does.
    package func withStoredReader<R>(type: ObjectIdentifier, names: () -> [String], _ body: (StoredObjectReader) throws -> R) throws -> R {
        try snapshot.checkLive()
        let slots = model.typedSlots.slots(for: type, in: model, names: names)
        return try storedRecord.withUnsafeBytes { bytes in
            try body(StoredObjectReader(snapshot: snapshot, model: model, key: key, record: try RecordView(bytes), slots: slots, depth: 0))
        }
    }
}

/// The properties of a model layout in the order of each Swift type's property table that
/// has read it: resolved by name once per layout and type.
final class TypedSlotTables: Sendable {
    private let tables = Mutex<[ObjectIdentifier: [PropertyLayout?]]>([:])
    /// Whether each Swift type's whole-value writes name every stored property of the
    /// model (see ``ValueTransaction/add(_:properties:update:writtenBy:writesWhole:)``).
    private let wholeWrites = Mutex<[ObjectIdentifier: Bool]>([:])

    func writesWhole(_ type: ObjectIdentifier, _ check: () -> Bool) -> Bool {
        if let whole = wholeWrites.withLock({ $0[type] }) { return whole }
        let whole = check()
        wholeWrites.withLock { $0[type] = whole }
        return whole
    }

    func slots(for type: ObjectIdentifier, in model: ModelLayout, names: () -> [String]) -> [PropertyLayout?] {
        if let slots = tables.withLock({ $0[type] }) { return slots }
        let slots = names().map { model.byName[$0] }
        tables.withLock { $0[type] = slots }
        return slots
    }
}

extension Snapshot {
    /// The cache of linked values for the Swift type `type` (see
    /// ``StoredObjectReader/linkedValueCache(for:_:)``), or nil in a transaction.
    func linkedValueCache(for type: ObjectIdentifier, _ make: () -> AnyObject) -> AnyObject? {
        guard Swift.type(of: self) == Snapshot.self else { return nil }
        if let cache = linkedValueCaches[type] { return cache }
        let cache = make()
        linkedValueCaches[type] = cache
        return cache
    }
}
