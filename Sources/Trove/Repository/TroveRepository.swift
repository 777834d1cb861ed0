/// A ``Repository`` over a Trove ``Store``: entities are objects of the model named by
/// ``EntityType/className``, and a save is one write transaction. A save inside a write
/// transaction open on the same thread (``Store/beginWrite()``, or ``Store/write(_:)``) joins
/// it: if that transaction rolls back, the repository forgets the save, so that an entity it
/// inserted is new again, one it deleted is followed again and one it updated has its changes
/// pending again. A fetch inside such a transaction reads, as every read does, what the store
/// held before it, not what it wrote: a rollback leaves the entities it gave as the store holds
/// them, while after a commit they are older than the store (fetch them again).
///
/// Like the stores it stands for (a Core Data context, a Realm), a repository is used from
/// one thread at a time.
public final class TroveRepository: QueryLanguageRepository {
    public let store: Store
    private let tracker: EntityTracker<ObjectReference>

    public init(store: Store) {
        self.store = store
        tracker = EntityTracker { [store] in ValueMapping.entityShape($0, $1, layout: store.layout) }
    }

    public func fetch<T: EntityType>(_ type: T.Type, predicate: ((T) throws -> Bool)?) throws -> [T] {
        try store.read { s in try entities(T.self, in: s.objects(T.modelName), predicate: predicate) }
    }

    /// The saved entities of `type` matching a predicate in the query language, using indexes.
    public func fetch<T: EntityType>(_ type: T.Type, where predicate: String, _ arguments: Value...) throws -> [T] {
        try fetch(type, where: predicate, arguments: arguments)
    }

    /// The saved entities of `type` matching a predicate in the query language, with `$0`,
    /// `$1`, ... bound to `arguments`.
    public func fetch<T: EntityType>(_ type: T.Type, where predicate: String, arguments: [Value]) throws -> [T] {
        try store.read { s in try entities(T.self, in: s.objects(T.modelName, where: predicate, arguments: arguments), predicate: nil) }
    }

    private func entities<T: EntityType>(_ type: T.Type, in results: Results, predicate: ((T) throws -> Bool)?) throws -> [T] {
        var out: [T] = []
        for object in results {
            let entity = try ObjectDecoder.decode(T.self, from: object)
            if let predicate, try !predicate(entity) { continue }
            tracker.track(entity, id: object.reference, saved: .object(try ValueMapping.properties(of: entity, model: object.model)))
            out.append(entity)
        }
        return out
    }

    public func beginWrite() throws { try tracker.beginWrite() }

    public func endWrite() throws {
        try tracker.requireWrite()
        defer { try? tracker.endWrite() }
        let pending = try tracker.pending()
        // In a transaction the caller opened, the save lasts only if that one commits.
        let joined = store.isWritingOnCurrentThread
        let (inserted, tx) = try store.write { tx -> ([ObjectIdentifier: ObjectReference], Transaction) in
            for d in pending.deletes { try tx.delete(d.id) }
            for u in pending.updates {
                try tx.update(u.id, entityProperties(u.values))
            }
            var ids: [ObjectIdentifier: ObjectReference] = [:]
            for i in pending.inserts {
                ids[i.entry] = try tx.insert(i.model, entityProperties(i.values)).reference
            }
            return (ids, tx)
        }
        let undo = tracker.saved(pending, insertedIDs: inserted, durable: !joined)
        // Rolled back, the save is forgotten: the entities are again what the store holds.
        if joined { tx.whenUndone { [weak tracker] in tracker?.undo(undo) } }
    }

    public func addEntity<T: EntityType>(_ type: T.Type) throws -> T { try tracker.addEntity(type) }

    public func removeEntity(_ entity: some EntityType) throws { try tracker.removeEntity(entity) }
}
