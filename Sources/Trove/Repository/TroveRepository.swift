/// A ``Repository`` over a Trove ``Store``: entities are objects of the model named by
/// ``EntityType/className``, and a save is one write transaction. A save inside a write
/// transaction open on the same thread (``Store/beginWrite()``, or ``Store/write(_:)``) joins
/// it: if that transaction rolls back, the repository forgets the save, so that an entity it
/// inserted is new again, one it deleted is followed again and one it updated has its changes
/// pending again. A fetch inside such a transaction reads through it, so it sees what the
/// transaction wrote (as a Realm or a GRDB fetch does); rolled back, the entities that fetch
/// gave may hold values the store no longer does, so the repository forgets what they saved,
/// and the next save writes every property of each.
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
        try reading { s in try entities(T.self, in: s.objects(T.modelName), predicate: predicate) }
    }

    /// The saved entities of `type` matching a predicate in the query language, using indexes.
    public func fetch<T: EntityType>(_ type: T.Type, where predicate: String, _ arguments: Value...) throws -> [T] {
        try fetch(type, where: predicate, arguments: arguments)
    }

    /// The saved entities of `type` matching a predicate in the query language, with `$0`,
    /// `$1`, ... bound to `arguments`.
    public func fetch<T: EntityType>(_ type: T.Type, where predicate: String, arguments: [Value]) throws -> [T] {
        try reading { s in try entities(T.self, in: s.objects(T.modelName, where: predicate, arguments: arguments), predicate: nil) }
    }

    /// Runs `body` on the write transaction open on this thread, so that a fetch sees its
    /// writes, or else on a snapshot of the newest commit. Entities tracked in the transaction
    /// hold its writes, which last only if it commits: rolled back, what they saved is
    /// forgotten.
    private func reading<T>(_ body: (Snapshot) throws -> ([T], [EntityTracker<ObjectReference>.Tracked])) throws -> [T] {
        guard let tx = store.writeOnCurrentThread else { return try store.read(body).0 }
        let (out, tracked): ([T], [EntityTracker<ObjectReference>.Tracked])
        do { (out, tracked) = try body(tx) } catch { throw StoreError.wrapping(error) }
        if !tracked.isEmpty { tx.whenUndone { [weak tracker] in tracker?.forgetSaved(tracked) } }
        return out
    }

    private func entities<T: EntityType>(_ type: T.Type, in results: Results, predicate: ((T) throws -> Bool)?) throws
        -> ([T], [EntityTracker<ObjectReference>.Tracked]) {
        var out: [T] = []
        var tracked: [EntityTracker<ObjectReference>.Tracked] = []
        for object in results {
            let entity = try ObjectDecoder.decode(T.self, from: object)
            if let predicate, try !predicate(entity) { continue }
            tracked.append(tracker.track(entity, id: object.reference, saved: .object(try ValueMapping.properties(of: entity, model: object.model))))
            out.append(entity)
        }
        return (out, tracked)
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
