/// A ``Repository`` that keeps entities' values in memory: for tests and previews, or
/// wherever nothing needs to persist. It keeps ``TroveRepository``'s write protocol, order
/// and closure predicates. Given the schema (``init(schema:)``), it refuses a save that
/// changes an entity's primary key or adds one with a primary key held already as a store
/// does (``StoreError/primaryKeyChanged(model:from:to:)``,
/// ``StoreError/duplicatePrimaryKey(model:value:)``). It checks nothing else of the
/// schema, and so saves what a store would refuse: values of the wrong type, a link to an
/// entity it does not hold (and, without a schema, a changed primary key, saved as that
/// entity, and two entities with one primary key). A fetch by a predicate in the query
/// language, which needs a schema, meets them as a store's errors.
public final class InMemoryRepository: Repository {
    /// Saved values by model, then by row id (ids grow, so their order is insertion order).
    private var rows: [String: [Int: [String: Value]]] = [:]
    private var nextID = 1
    private let tracker = EntityTracker<Int>()
    /// The primary key of each model of the schema given at init.
    private let primaryKeys: [String: String]
    /// The saved entities' row ids by model, then by primary key, for the models in
    /// `primaryKeys`: so that a save checks its added keys without reading every saved entity.
    private var keyIndex: [String: [ExactKey: Int]] = [:]

    /// A repository that knows no schema.
    public init() {
        primaryKeys = [:]
    }

    /// A repository that knows the primary keys of `schema`'s models: a save that changes
    /// one throws ``StoreError/primaryKeyChanged(model:from:to:)``, and one that adds an
    /// entity with the primary key of a saved one (not removed by the save) or of another it
    /// adds throws ``StoreError/duplicatePrimaryKey(model:value:)``, in a store's words; either
    /// keeps nothing of the save and leaves its changes pending, as a ``TroveRepository`` does.
    public init(schema: Schema) {
        primaryKeys = Dictionary(schema.models.compactMap { m in m.primaryKey.map { (m.name, $0) } }) { first, _ in first }
    }

    public func fetch<T: EntityType>(_ type: T.Type, predicate: ((T) throws -> Bool)?) throws -> [T] {
        try fetch(type, ids: nil, predicate: predicate)
    }

    /// The saved entities of `type` that a predicate in the query language selects, with `$0`,
    /// `$1`, ... bound to `arguments`: run by Trove's evaluator, as a store runs it, over a
    /// scratch in-memory store of `schema` that holds this repository's entities of every
    /// model of `schema`, so that links, lists of links and linkingObjects resolve as they do
    /// in a store. A repository in memory knows no schema; the caller has one (a typed
    /// model's). Each call writes all those entities into a new store: O(N) in the entities
    /// held, for a test double, not for large data.
    ///
    /// Entities that a store would refuse make the fetch throw the store's error: two with
    /// one primary key (``StoreError/duplicatePrimaryKey(model:value:)``, naming the model
    /// and the key), a link to an entity of a primary key that nothing holds
    /// (``StoreError/linkTargetNotFound(property:model:primaryKey:)``), a value of the wrong type.
    package func fetch<T: EntityType>(_ type: T.Type, where predicate: String, arguments: [Value], schema: Schema) throws -> [T] {
        let scratch = try Store(configuration: .inMemory(schema: schema))
        let ids = try scratch.write { tx in try load(schema, into: tx, keysOf: T.modelName) }
        let selected = try scratch.read { snapshot -> Set<Int> in
            var selected = Set<Int>()
            for object in try snapshot.objects(T.modelName, where: predicate, arguments: arguments) {
                if let id = ids[object.reference.key] { selected.insert(id) }
            }
            return selected
        }
        return try fetch(type, ids: selected, predicate: nil)
    }

    /// Writes the saved entities of every model of `schema` into `tx`, as a store holding
    /// them would hold them; returns the row ids of `model`'s entities by their object keys.
    ///
    /// Three passes, because a saved entity's links may name their targets by primary key
    /// (which must exist first, and a model may link to itself) or carry a nested copy of
    /// them (which a store writes over the target, and which may be older than the target's
    /// own values): the entities of models with a primary key, without their links; then
    /// every entity whole, in the order they were saved, as a repository over a store wrote
    /// them; then the own values of the first pass again, links as primary keys, so that no
    /// nested copy outlives them.
    private func load(_ schema: Schema, into tx: Transaction, keysOf model: String) throws -> [UInt64: Int] {
        let layout = tx.layout
        var held: [(id: Int, model: ModelSchema, values: [String: Value])] = []
        for m in schema.models {
            for (id, values) in rows[m.name] ?? [:] {
                held.append((id, m, entityProperties(ValueMapping.entityShape(m.name, .object(values), layout: layout))))
            }
        }
        held.sort { $0.id < $1.id }
        var ids: [UInt64: Int] = [:]
        for entity in held {
            guard let pk = entity.model.primaryKey else { continue }
            let scalars = entity.values.filter { name, _ in entity.model[property: name]?.type.objectType == nil }
            let written = try tx.upsert(entity.model.name, scalars)
            guard written.created else {
                throw StoreError.duplicatePrimaryKey(model: entity.model.name, value: (scalars[pk] ?? .null).description)
            }
            if entity.model.name == model { ids[written.object.reference.key] = entity.id }
        }
        for entity in held {
            if entity.model.primaryKey != nil {
                try tx.upsert(entity.model.name, entity.values)
            } else {
                let object = try tx.insert(entity.model.name, entity.values)
                if entity.model.name == model { ids[object.reference.key] = entity.id }
            }
        }
        for entity in held where entity.model.primaryKey != nil {
            var own = entity.values
            for (name, value) in entity.values {
                guard let p = entity.model[property: name], let target = p.type.objectType else { continue }
                // A link to a model without a primary key is its nested object, written once above.
                guard let targetKey = schema[target]?.primaryKey else {
                    own[name] = nil
                    continue
                }
                func key(_ link: Value) -> Value {
                    if case .object(let nested) = link, let k = nested[targetKey] { return k }
                    return link
                }
                if case .list(let items) = value { own[name] = .list(items.map(key)) } else { own[name] = key(value) }
            }
            try tx.upsert(entity.model.name, own)
        }
        return ids
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
        for u in pending.updates {
            guard let pk = primaryKeys[u.model], let saved = u.saved else { continue }
            let before = entityProperties(saved)[pk] ?? .null, after = entityProperties(u.values)[pk] ?? .null
            if !after.isStoredSame(as: before) { throw StoreError.primaryKeyChanged(model: u.model, from: before, to: after) }
        }
        try refuseHeldPrimaryKeys(pending)
        // Nothing here can fail halfway, so applying in place is all or nothing. An update
        // keeps its primary key (checked above), so only deletes and inserts move `keyIndex`.
        for d in pending.deletes {
            if let pk = primaryKeys[d.model], let values = rows[d.model]?[d.id] {
                keyIndex[d.model]?[ExactKey(values[pk] ?? .null)] = nil
            }
            rows[d.model]?[d.id] = nil
        }
        for u in pending.updates { rows[u.model, default: [:]][u.id] = entityProperties(u.values) }
        var ids: [ObjectIdentifier: Int] = [:]
        for i in pending.inserts {
            ids[i.entry] = nextID
            let values = entityProperties(i.values)
            rows[i.model, default: [:]][nextID] = values
            if let pk = primaryKeys[i.model] { keyIndex[i.model, default: [:]][ExactKey(values[pk] ?? .null)] = nextID }
            nextID += 1
        }
        tracker.saved(pending, insertedIDs: ids)
    }

    /// Throws ``StoreError/duplicatePrimaryKey(model:value:)`` for the first entity `pending`
    /// adds whose primary key a saved entity that `pending` does not remove holds, or an
    /// entity added before it: the insert a store refuses, after its deletes and updates.
    private func refuseHeldPrimaryKeys(_ pending: EntityTracker<Int>.Pending) throws {
        guard !primaryKeys.isEmpty, !pending.inserts.isEmpty else { return }
        var removed: [String: Set<Int>] = [:]
        for d in pending.deletes { removed[d.model, default: []].insert(d.id) }
        var added: [String: Set<ExactKey>] = [:]
        for i in pending.inserts {
            guard let pk = primaryKeys[i.model] else { continue }
            let key = entityProperties(i.values)[pk] ?? .null, exact = ExactKey(key)
            let heldBySaved = keyIndex[i.model]?[exact].map { !(removed[i.model]?.contains($0) ?? false) } ?? false
            guard !heldBySaved, added[i.model, default: []].insert(exact).inserted else {
                throw StoreError.duplicatePrimaryKey(model: i.model, value: key.description)
            }
        }
    }

    public func addEntity<T: EntityType>(_ type: T.Type) throws -> T { try tracker.addEntity(type) }

    public func removeEntity(_ entity: some EntityType) throws { try tracker.removeEntity(entity) }
}
