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
        var out: [T] = []
        for (id, values) in (rows[T.modelName] ?? [:]).sorted(by: { $0.key < $1.key }) {
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
