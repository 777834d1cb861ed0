/// A ``Repository`` that keeps entities' values in memory: for tests and previews, or
/// wherever nothing needs to persist. It behaves as ``TroveRepository`` does (same write
/// protocol, same order, same closure predicates) but knows no schema: it checks no types,
/// primary keys or links.
public final class InMemoryRepository: Repository {
    /// Saved values by model, then by row id (ids grow, so their order is insertion order).
    private var rows: [String: [Int: [String: Value]]] = [:]
    private var nextID = 1
    private let tracker = EntityTracker<Int>()

    public init() {}

    public func fetch<T: EntityType>(_ type: T.Type, predicate: ((T) throws -> Bool)?) throws -> [T] {
        try fetch(type, ids: nil, predicate: predicate)
    }

    /// The saved entities of `type` that a predicate in the query language selects, with `$0`,
    /// `$1`, ... bound to `arguments`: run by Trove's evaluator, as a store runs it, over a
    /// scratch in-memory store of `schema` holding this repository's entities of `type`. A
    /// repository in memory knows no schema; the caller has one (a typed model's).
    package func fetch<T: EntityType>(_ type: T.Type, where predicate: String, arguments: [Value], schema: Schema) throws -> [T] {
        let saved = (rows[T.modelName] ?? [:]).sorted(by: { $0.key < $1.key })
        let scratch = try Store(configuration: .inMemory(schema: schema))
        let selected = try scratch.write { tx -> Set<Int> in
            var ids: [UInt64: Int] = [:]
            for (id, values) in saved {
                let shaped = entityProperties(ValueMapping.entityShape(T.modelName, .object(values), layout: scratch.layout))
                ids[try tx.insert(T.modelName, shaped).reference.key] = id
            }
            var selected = Set<Int>()
            for object in try tx.objects(T.modelName, where: predicate, arguments: arguments) {
                if let id = ids[object.reference.key] { selected.insert(id) }
            }
            return selected
        }
        return try fetch(type, ids: selected, predicate: nil)
    }

    /// The saved entities of `type` whose row ids are in `ids` (all when nil) and that
    /// `predicate` accepts, tracked, in the order they were first saved.
    private func fetch<T: EntityType>(_ type: T.Type, ids: Set<Int>?, predicate: ((T) throws -> Bool)?) throws -> [T] {
        var out: [T] = []
        for (id, values) in (rows[T.modelName] ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let ids, !ids.contains(id) { continue }
            let entity = try ObjectDecoder.decode(T.self, from: values)
            if let predicate, try !predicate(entity) { continue }
            tracker.track(entity, id: id, saved: .object(values))
            out.append(entity)
        }
        return out
    }

    public func beginWrite() throws { try tracker.beginWrite() }

    public func endWrite() throws {
        try tracker.requireWrite()
        defer { try? tracker.endWrite() }
        let pending = try tracker.pending()
        // Nothing here can fail halfway, so applying in place is all or nothing.
        for d in pending.deletes { rows[d.model]?[d.id] = nil }
        for u in pending.updates { rows[u.model, default: [:]][u.id] = entityProperties(u.values) }
        var ids: [ObjectIdentifier: Int] = [:]
        for i in pending.inserts {
            ids[i.entry] = nextID
            rows[i.model, default: [:]][nextID] = entityProperties(i.values)
            nextID += 1
        }
        tracker.saved(pending, insertedIDs: ids)
    }

    public func addEntity<T: EntityType>(_ type: T.Type) throws -> T { try tracker.addEntity(type) }

    public func removeEntity(_ entity: some EntityType) throws { try tracker.removeEntity(entity) }
}
