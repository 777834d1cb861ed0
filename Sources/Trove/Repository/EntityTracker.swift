/// The unit of work both repositories share: which entities they handed out, under which
/// identity in their storage, and what was last saved of each, so that a save writes exactly
/// the entities added, changed or removed since.
package final class EntityTracker<ID: Hashable> {
    struct Entry {
        weak var entity: AnyObject?
        let model: String
        var id: ID?
        var saved: Value?
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
    /// compare exactly with what was saved.
    private let shape: (String, Value) throws -> Value

    package init(shape: @escaping (String, Value) throws -> Value = { $1 }) {
        self.shape = shape
    }
    private var removed: [(model: String, id: ID)] = []
    private var tracked = 0
    package private(set) var inWrite = false

    package func beginWrite() throws {
        if inWrite { throw RepositoryError.alreadyInWrite }
        inWrite = true
    }

    package func requireWrite() throws {
        if !inWrite { throw RepositoryError.notInWrite }
    }

    /// Ends the write, whether or not the save succeeded.
    package func endWrite() throws {
        try requireWrite()
        inWrite = false
    }

    /// Follows `entity`, stored as `id` with `saved` values (nil for a new one).
    package func track<T: EntityType>(_ entity: T, id: ID?, saved: Value?) {
        tracked += 1
        entries[ObjectIdentifier(entity)] = Entry(entity: entity, model: T.modelName, id: id, saved: saved, order: tracked) { [weak entity] in
            try entity.map { try ValueEncoder.encode($0) }
        }
    }

    package func remove<T: EntityType>(_ entity: T) throws {
        guard let entry = entries.removeValue(forKey: ObjectIdentifier(entity)) else {
            throw RepositoryError.unknownEntity(T.modelName)
        }
        if let id = entry.id { removed.append((entry.model, id)) }
    }

    /// The changes to save; entities that were released are forgotten (their unsaved
    /// changes with them, as with any value nobody holds).
    package func pending() throws -> Pending {
        var out = Pending()
        for (key, entry) in entries.sorted(by: { $0.value.order < $1.value.order }) {
            guard entry.entity != nil, let encoded = try entry.encode() else { entries[key] = nil; continue }
            let current = try shape(entry.model, encoded)
            if let id = entry.id {
                if current != entry.saved { out.updates.append((key, entry.model, id, current, entry.saved)) }
            } else {
                out.inserts.append((key, entry.model, current))
            }
        }
        let deletedIDs = Set(removed.map(\.id))
        out.updates.removeAll { deletedIDs.contains($0.id) }
        out.deletes = removed
        return out
    }

    /// Records a successful save of `pending`, with the ids the inserts got. A save that is not
    /// `durable` (it ran in an outer transaction, which may yet roll back) records no values
    /// as saved, so that the next save sends every property of those entities again.
    package func saved(_ pending: Pending, insertedIDs: [ObjectIdentifier: ID], durable: Bool = true) {
        for i in pending.inserts {
            entries[i.entry]?.id = insertedIDs[i.entry]
            entries[i.entry]?.saved = durable ? i.values : nil
        }
        for u in pending.updates { entries[u.entry]?.saved = durable ? u.values : nil }
        removed = []
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
