/// The unit of work both repositories share: which entities they handed out, under which
/// identity in their storage, and what was last saved of each, so that a save writes exactly
/// the entities added, changed or removed since.
package final class EntityTracker<ID: Hashable> {
    struct Entry {
        weak var entity: AnyObject?
        /// The entity itself from `addEntity` until the end of its write, as DBRepo's
        /// `addEntity` adds it to the store, so that one the caller let go (a loop's, or one an
        /// optimized build releases after its last use) is saved. Only for that write: after a
        /// failed save, one nobody holds is forgotten rather than failing every later save.
        var new: AnyObject?
        let model: String
        var id: ID?
        var saved: Value?
        /// Whether a save of it ended with its commit's outcome unknown (`outcomeUnknown(_:)`):
        /// its row may or may not hold `saved`, so a change to it is refused.
        var isUncertain = false
        /// When it was tracked: new entities are saved in the order they were added.
        let order: Int
        let encode: () throws -> Value?
    }

    /// What a save must write.
    package struct Pending {
        package var inserts: [(entry: ObjectIdentifier, model: String, values: Value)] = []
        /// Each changed entity's values, and those it last saved.
        package var updates: [(entry: ObjectIdentifier, model: String, id: ID, values: Value, saved: Value?)] = []
        package var deletes: [(model: String, id: ID)] = []
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Puts encoded values (model, value) in the form the storage saves them, so that they
    /// compare exactly with what was saved (``Value/isStoredSame(as:)``: strings by their bytes).
    private let shape: (String, Value) throws -> Value

    package init(shape: @escaping (String, Value) throws -> Value = { $1 }) {
        self.shape = shape
    }
    private var removed: [(model: String, id: ID)] = []
    /// The entries of the saved entities in `removed`, for `undo(_:)`.
    private var removedEntries: [ObjectIdentifier: Entry] = [:]
    private var tracked = 0
    package private(set) var inWrite = false

    package func beginWrite() throws {
        if inWrite { throw RepositoryError.alreadyInWrite }
        inWrite = true
    }

    package func requireWrite() throws {
        if !inWrite { throw RepositoryError.notInWrite }
    }

    /// Ends the write, whether or not the save succeeded; the entities added in it are held
    /// from now on only as long as their callers hold them.
    package func endWrite() throws {
        try requireWrite()
        inWrite = false
        for key in entries.keys { entries[key]?.new = nil }
    }

    /// Follows `entity`, stored as `id` with `saved` values (nil for a new one); returns its
    /// entry, for ``forgetSaved(_:)``.
    @discardableResult
    package func track<T: EntityType>(_ entity: T, id: ID?, saved: Value?) -> Tracked {
        tracked += 1
        entries[ObjectIdentifier(entity)] = Entry(entity: entity, new: id == nil ? entity : nil, model: T.modelName, id: id, saved: saved,
                                                  order: tracked) { [weak entity] in
            try entity.map { try ValueEncoder.encode($0) }
        }
        return Tracked(entry: ObjectIdentifier(entity), order: tracked)
    }

    /// One entry as ``track(_:id:saved:)`` made it: its order tells it from a later entry of
    /// another entity at the same address.
    package struct Tracked {
        fileprivate let entry: ObjectIdentifier
        fileprivate let order: Int
    }

    /// Forgets what was saved of entities fetched inside a transaction (or unit) that rolled
    /// back or whose commit's outcome is unknown: what they were fetched with may be what it
    /// wrote, which the database may not hold, so their next save writes every property.
    /// Entities uncertain after such a commit stay so (their saved values are what the refusal
    /// of a change compares with); those no longer followed stay forgotten.
    package func forgetSaved(_ fetched: [Tracked]) {
        for t in fetched {
            guard let entry = entries[t.entry], entry.order == t.order, !entry.isUncertain else { continue }
            entries[t.entry]?.saved = nil
        }
    }

    package func remove<T: EntityType>(_ entity: T) throws {
        guard let entry = entries.removeValue(forKey: ObjectIdentifier(entity)) else {
            throw RepositoryError.unknownEntity(T.modelName)
        }
        if let id = entry.id {
            removed.append((entry.model, id))
            removedEntries[ObjectIdentifier(entity)] = entry
        }
    }

    /// The changes to save; entities that were released are forgotten (their unsaved changes
    /// with them, as with any value nobody holds), but those added in the current write.
    package func pending() throws -> Pending {
        var out = Pending()
        for (key, entry) in entries.sorted(by: { $0.value.order < $1.value.order }) {
            guard entry.entity != nil, let encoded = try entry.encode() else { entries[key] = nil; continue }
            let current = try shape(entry.model, encoded)
            if entry.isUncertain {
                if entry.saved.map(current.isStoredSame) != true { throw RepositoryError.outcomeUnknown(entry.model) }
            } else if let id = entry.id {
                if entry.saved.map(current.isStoredSame) != true { out.updates.append((key, entry.model, id, current, entry.saved)) }
            } else {
                out.inserts.append((key, entry.model, current))
            }
        }
        let deletedIDs = Set(removed.map(\.id))
        out.updates.removeAll { deletedIDs.contains($0.id) }
        out.deletes = removed
        return out
    }

    /// Records a successful save of `pending`, with the ids the inserts got, so that the next
    /// save sends only what changed since. A save that is not `durable` (it ran in an outer
    /// transaction, which may yet roll back) is recorded the same way, since the transaction
    /// reads what it wrote, and returns what `undo(_:)` takes to forget it, should its
    /// transaction roll back: what it recorded lasts exactly as long as what it wrote.
    @discardableResult
    package func saved(_ pending: Pending, insertedIDs: [ObjectIdentifier: ID], durable: Bool = true) -> SaveUndo {
        var undo = SaveUndo()
        if !durable {
            for i in pending.inserts {
                guard let id = insertedIDs[i.entry] else { continue }
                undo.inserted.insert(InsertedRow(model: i.model, id: id))
                undo.insertedEntries.insert(i.entry)
            }
            undo.updated = pending.updates.map { ($0.entry, entries[$0.entry]?.saved) }
            undo.deleted = removedEntries
        }
        for i in pending.inserts {
            entries[i.entry]?.id = insertedIDs[i.entry]
            entries[i.entry]?.saved = i.values
        }
        for u in pending.updates { entries[u.entry]?.saved = u.values }
        removed = []
        removedEntries = [:]
        return undo
    }

    /// A save's changes to the entries, for a rollback to take back.
    package struct SaveUndo {
        fileprivate var inserted: Set<InsertedRow> = []
        /// The entries whose insert it saved: only they become new again, not other entities
        /// fetched for those rows since.
        fileprivate var insertedEntries: Set<ObjectIdentifier> = []
        fileprivate var updated: [(entry: ObjectIdentifier, saved: Value?)] = []
        fileprivate var deleted: [ObjectIdentifier: Entry] = [:]
    }

    fileprivate struct InsertedRow: Hashable {
        var model: String
        var id: ID
    }

    /// Takes back a save that was not durable after its transaction rolled back, so that the
    /// entries are again what the database holds: an entity it inserted is new again, one it
    /// updated has the values saved before it, and one it deleted is followed again unless
    /// removed since. Any other entity fetched for a row it inserted is no longer followed,
    /// and a pending removal of such a row is dropped: the row does not exist, and its entity
    /// becoming new too would insert the row twice. Saves are undone the latest first.
    package func undo(_ undo: SaveUndo) {
        for (key, entry) in undo.deleted where entries[key] == nil && removedEntries[key] == nil && entry.entity != nil {
            entries[key] = entry
        }
        for (key, saved) in undo.updated { entries[key]?.saved = saved }
        guard !undo.inserted.isEmpty else { return }
        func rolledBack(_ model: String, _ id: ID?) -> Bool {
            id.map { undo.inserted.contains(InsertedRow(model: model, id: $0)) } ?? false
        }
        for (key, entry) in entries where rolledBack(entry.model, entry.id) {
            if undo.insertedEntries.contains(key) {
                entries[key]?.id = nil
                entries[key]?.saved = nil
            } else {
                entries[key] = nil
            }
        }
        removed.removeAll { rolledBack($0.model, $0.id) }
        removedEntries = removedEntries.filter { !rolledBack($0.value.model, $0.value.id) }
    }

    /// Follows a save that was not durable whose commit lost its connection, so that the
    /// database may hold what it wrote or not: neither is pretended. Every entity it inserted,
    /// updated or deleted, and any other fetched for a row it inserted, is kept as it was
    /// saved but marked uncertain: a later save refuses a change to it
    /// (`RepositoryError.outcomeUnknown`) rather than writing over a row that may not exist
    /// or inserting one that may; a removal deletes its row if there is one. Fetching the
    /// row again (on PostgreSQL through a new connection, since the lost one is not reopened)
    /// gives an entity that is followed as any other.
    package func outcomeUnknown(_ undo: SaveUndo) {
        for (key, var entry) in undo.deleted where entries[key] == nil && removedEntries[key] == nil && entry.entity != nil {
            entry.isUncertain = true
            entries[key] = entry
        }
        for (key, _) in undo.updated { entries[key]?.isUncertain = true }
        for (key, entry) in entries where undo.insertedEntries.contains(key)
            || entry.id.map({ undo.inserted.contains(InsertedRow(model: entry.model, id: $0)) }) == true {
            entries[key]?.isUncertain = true
        }
    }

    /// A new entity of `type`, saved at the next `endWrite()`.
    package func addEntity<T: EntityType>(_ type: T.Type) throws -> T {
        try requireWrite()
        let entity = T()
        track(entity, id: nil, saved: nil)
        return entity
    }

    /// Marks `entity` for deletion at the next `endWrite()`.
    package func removeEntity(_ entity: some EntityType) throws {
        try requireWrite()
        try remove(entity)
    }
}

/// The properties of an encoded entity.
package func entityProperties(_ v: Value) -> [String: Value] {
    if case .object(let d) = v { return d }
    return [:]
}
