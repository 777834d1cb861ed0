import Trove

/// A ``Repository`` over a ``PostgresStore``: entities are rows of the model named by
/// ``EntityType/className``, and a save is one PostgreSQL transaction (a savepoint inside one
/// opened with ``PostgresStore/begin()``). A save writes only the properties of an entity that
/// changed since it was fetched or last saved, so that what other clients of the database
/// wrote to its other properties meanwhile stays.
///
/// It keeps the contract of ``TroveRepository``: the same write protocol, fetches in the order
/// entities were first saved, closure predicates, query-language predicates
/// (``fetch(_:where:_:)``, translated to SQL), and a failed save that writes nothing and
/// leaves the changes pending. A save inside a transaction lasts as that transaction does:
/// rolled back (the transaction, or the ``PostgresStore/atomically(_:)`` unit it ran in), it
/// is taken back, so that an entity it inserted is new again and one it changed has those
/// changes pending again. A fetch inside a transaction reads what it wrote; rolled back, the
/// entities that fetch gave may hold values the rows no longer do, so the repository forgets
/// what they saved, and the next save writes every property of each (that save writes them
/// whole, over what other clients wrote to their other properties since).
///
/// A commit that loses its connection (``PostgresError/isOutcomeUnknown``) may have been
/// committed or not, and the repository pretends neither: the entities its saves wrote are
/// uncertain, and a save refuses a change to one (``RepositoryError/outcomeUnknown(_:)``)
/// rather than insert a row twice or update one that may not exist. Fetch them again (on a
/// new connection) to see what the database holds.
///
/// A fetch reads in one snapshot (`REPEATABLE READ`) the
/// entities' rows and every object their links reach, so that a link decodes as the nested
/// value it is in a store.
///
/// Used from one thread at a time, as its connection is.
public final class PostgresRepository: QueryLanguageRepository {
    public let store: PostgresStore
    /// Entities by their row's `"@key"`, which a save never changes (nor the primary key).
    private let tracker: EntityTracker<Int64>
    /// The values a save writes and compares, for the schema the store held at `init`.
    private let shape: (String, Value) -> Value

    public init(store: PostgresStore) {
        self.store = store
        let shape = ValueMapping.entityShape(schema: store.schema)
        self.shape = shape
        tracker = EntityTracker(shape: shape)
    }

    public func fetch<T: EntityType>(_ type: T.Type, predicate: ((T) throws -> Bool)?) throws -> [T] {
        try entities(T.self, where: nil, arguments: [], predicate: predicate)
    }

    /// The saved entities of `type` matching a predicate in the query language, run by
    /// PostgreSQL.
    public func fetch<T: EntityType>(_ type: T.Type, where predicate: String, _ arguments: Value...) throws -> [T] {
        try fetch(type, where: predicate, arguments: arguments)
    }

    /// The saved entities of `type` matching a predicate in the query language, with `$0`,
    /// `$1`, ... bound to `arguments`.
    /// A predicate a store refuses throws the store's `QueryError`, as
    /// ``TroveRepository/fetch(_:where:arguments:)`` does, before anything is translated; a
    /// sum in it beyond its type's range throws the store's error for that sum.
    public func fetch<T: EntityType>(_ type: T.Type, where predicate: String, arguments: [Value]) throws -> [T] {
        let model = try store.model(T.modelName)
        let checked = try store.checkedPredicate(predicate, model: model, arguments: arguments)
        do {
            return try PostgresStore.translating(predicate) {
                try entities(T.self, where: checked, arguments: arguments, predicate: nil)
            }
        } catch let error as PostgresError where error.sqlState == "22003" {
            // Only the condition's sums can leave a range: reading the rows computes nothing.
            guard var refusal = try store.overflowingSum(in: checked, model: model, predicate, arguments: arguments, only: true) else { throw error }
            // As a store's repository throws it: the predicate is the caller's own text.
            refusal.statement = nil
            throw refusal
        }
    }

    private func entities<T: EntityType>(_ type: T.Type, where condition: QueryPredicate?, arguments: [Value],
                                         predicate: ((T) throws -> Bool)?) throws -> [T] {
        let model = try store.model(T.modelName)
        var graph = ObjectGraph(schema: store.schema, connection: store.connection)
        let roots = try snapshot { try graph.load(model, where: condition, arguments: arguments) }
        var out: [T] = []
        var tracked: [EntityTracker<Int64>.Tracked] = []
        for root in roots {
            let entity = try ObjectDecoder.decode(T.self, from: graph.properties(model.name, root.key))
            if let predicate, try !predicate(entity) { continue }
            tracked.append(tracker.track(entity, id: root.order, saved: shape(T.modelName, try ValueEncoder.encode(entity))))
            out.append(entity)
        }
        // Read in a transaction, the rows hold its writes, which last only if it commits.
        if store.isInTransaction, !tracked.isEmpty {
            store.whenNotCommitted { [weak tracker] _ in tracker?.forgetSaved(tracked) }
        }
        return out
    }

    /// Runs the statements of `body` on one snapshot of the database: in the open
    /// transaction, or in a read-only repeatable-read one of their own.
    private func snapshot<R>(_ body: () throws -> R) throws -> R {
        if store.isInTransaction { return try store.read(body) }
        let connection = store.connection
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let value = try body()
            try connection.execute("COMMIT")
            return value
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    public func beginWrite() throws { try tracker.beginWrite() }

    public func endWrite() throws {
        try tracker.requireWrite()
        defer { try? tracker.endWrite() }
        let pending = try tracker.pending()
        let tables = store.tables
        let connection = store.connection
        // What a save in an outer transaction wrote lasts only if that transaction commits.
        let durable = !store.isInTransaction
        var inserted: [ObjectIdentifier: Int64] = [:]
        do {
            // Every value is checked before the first statement is sent, so that a value the
            // client refuses leaves the save unwritten, in a unit (`atomically`) too.
            var updates: [(id: Int64, values: CheckedValues)] = []
            for u in pending.updates {
                // Only the properties that changed since the entity was fetched or last saved:
                // the key it last saved is the row's and is not sent (no change for the
                // statement to check); what another client wrote since, or a linked object
                // changed through another entity, is not written back as it was; an unchanged
                // list's side table is not rewritten.
                let saved = entityProperties(u.saved ?? .null)
                let values = entityProperties(u.values).filter { saved[$0.key].map($0.value.isStoredSame) != true }
                guard !values.isEmpty else { continue }
                updates.append((u.id, try store.checked(try store.model(u.model), values)))
            }
            let inserts = try pending.inserts.map { i in (i.entry, try store.preparedInsert(try store.model(i.model), entityProperties(i.values))) }
            try store.write {
                for d in pending.deletes {
                    try connection.execute("DELETE FROM \(tables.table(d.model)) WHERE \(PostgresTables.orderColumn) = $1::bigint", [String(d.id)])
                }
                for (id, values) in updates {
                    _ = try store.updateRows(values.model, condition: "t0.\(PostgresTables.orderColumn) = $1::bigint",
                                             conditionParameters: [String(id)], values: values)
                }
                for (entry, insert) in inserts {
                    let key = try store.send(insert, returningKey: true)
                    inserted[entry] = try order(of: insert.plan.model, key: key, tables: tables)
                }
            }
        } catch let error as PostgresError where error.isOutcomeUnknown {
            // Its own transaction's commit lost the connection: neither outcome is pretended.
            tracker.outcomeUnknown(tracker.saved(pending, insertedIDs: inserted, durable: false))
            throw error
        }
        let undo = tracker.saved(pending, insertedIDs: inserted, durable: durable)
        // Rolled back, the save is forgotten: the entities are again what the rows are. A
        // commit whose outcome is unknown leaves them uncertain.
        if !durable {
            store.whenNotCommitted { [weak tracker] end in
                end == .outcomeUnknown ? tracker?.outcomeUnknown(undo) : tracker?.undo(undo)
            }
        }
    }

    /// The `"@key"` of the row whose key (primary key or `"@key"`) is `key`.
    private func order(of model: ModelSchema, key: String?, tables: PostgresTables) throws -> Int64 {
        var text = key
        if let pk = model.primaryKeyProperty {
            text = try store.connection.execute(
                "SELECT \(PostgresTables.orderColumn)::pg_catalog.text FROM \(tables.table(model.name)) WHERE \(tables.keyColumn(model)) = $1::\(PostgresTables.castType(pk.type))",
                [key]).rows.first?.first ?? nil
        }
        guard let text, let order = Int64(text) else { throw PostgresError("PostgreSQL returned no key for the new '\(model.name)'") }
        return order
    }

    public func addEntity<T: EntityType>(_ type: T.Type) throws -> T { try tracker.addEntity(type) }

    public func removeEntity(_ entity: some EntityType) throws { try tracker.removeEntity(entity) }
}

/// The rows one fetch reads: its entities' objects and every object their links and
/// linkingObjects reach, each read once (one statement per model and step), then given to
/// the decoder as nested values, as a store's objects are.
struct ObjectGraph {
    let schema: Schema
    let connection: PostgresConnection
    private let tables: PostgresTables

    /// An object as read: its scalars, and for each link, list of links or linkingObjects
    /// property the keys of the objects it reaches.
    private struct Row {
        var values: [String: Value] = [:]
        var links: [(property: String, target: String, keys: [String], isList: Bool)] = []
    }

    /// Rows by model, then by key text's UTF-8 bytes (as are `built` and `cut`): a `String`
    /// would hold canonically equivalent keys, two objects, as one.
    private var rows: [String: [[UInt8]: Row]] = [:]
    /// Built values of objects whose links end within the depth limit, and how deep they go.
    private var built: [[UInt8]: (value: Value, height: Int)] = [:]
    /// Built values of objects cut at the depth limit, by depth: a cycle of links is built
    /// once per depth, not once per path.
    private var cut: [[UInt8]: Value] = [:]

    init(schema: Schema, connection: PostgresConnection) {
        self.schema = schema
        self.connection = connection
        tables = PostgresTables(schema: schema, schemaName: connection.schemaName)
    }

    /// Reads the objects of `model` matching `condition` and what they reach; returns their
    /// keys and `"@key"`s in the order they were first saved.
    mutating func load(_ model: ModelSchema, where condition: QueryPredicate?, arguments: [Value]) throws -> [(key: String, order: Int64)] {
        var translator = PostgresQueryTranslator(tables: tables, arguments: arguments)
        let filter = try condition.map { "t0.\(tables.keyColumn(model)) IN (\(try translator.keys(model, where: $0)))" } ?? "true"
        let roots = try read(model, filter: filter, parameters: translator.parameters.values)
        var wanted: [String: Set<[UInt8]>] = [:]
        func want(_ model: String, _ keys: [String]) {
            for row in keys.compactMap({ key in rows[model]?[Array(key.utf8)] }) {
                for link in row.links {
                    for key in link.keys where rows[link.target]?[Array(key.utf8)] == nil { wanted[link.target, default: []].insert(Array(key.utf8)) }
                }
            }
        }
        want(model.name, roots.map(\.key))
        while let (target, keys) = wanted.first {
            wanted[target] = nil
            let pending = keys.filter { rows[target]?[$0] == nil }.map { String(decoding: $0, as: UTF8.self) }.sorted()
            guard !pending.isEmpty, let targetModel = schema[target] else { continue }
            var parameters = SQLParameters()
            let keyType = PostgresTables.castType(targetModel.primaryKeyProperty?.type ?? .int)
            let filter = "t0.\(tables.keyColumn(targetModel)) = ANY(\(parameters.add(PostgresValues.arrayLiteral(pending)))::\(keyType)[])"
            _ = try read(targetModel, filter: filter, parameters: parameters.values)
            want(target, pending)
        }
        return roots
    }

    /// Reads the rows of `model` that `filter` (on alias `t0`) selects into `rows`.
    private mutating func read(_ model: ModelSchema, filter: String, parameters: [String?]) throws -> [(key: String, order: Int64)] {
        let translator = PostgresQueryTranslator(tables: tables)
        let columns = try translator.outputColumns(model, alias: "t0")
        let sql = "SELECT \(columns.joined(separator: ", ")), t0.\(PostgresTables.orderColumn)::pg_catalog.text, t0.\(tables.keyColumn(model))::pg_catalog.text "
            + "FROM \(tables.table(model.name)) AS t0 WHERE \(filter) ORDER BY t0.\(PostgresTables.orderColumn)"
        let result = try connection.execute(sql, parameters).rows
        let objects = try PostgresObjects(model: model, schema: schema, rows: result.map { Array($0.dropLast(2)) + [$0.last ?? nil] })
        let stored = model.properties.filter(\.isStored)
        var out: [(key: String, order: Int64)] = []
        var added: [String] = []
        for (index, values) in objects.objects.enumerated() {
            let key = objects.keys[index]
            var row = Row()
            for (property, value) in zip(stored, values) {
                switch property.type {
                case .link(let target):
                    row.links.append((property.name, target, try keyTexts([value], target: target), false))
                case .list(.link(let target)):
                    guard case .list(let items) = value else { continue }
                    row.links.append((property.name, target, try keyTexts(items, target: target), true))
                default:
                    row.values[property.name] = value
                }
            }
            rows[model.name, default: [:]][Array(key.utf8)] = row
            added.append(key)
            out.append((key, Int64(result[index][columns.count] ?? "") ?? 0))
        }
        try readLinkingObjects(model, keys: added)
        return out
    }

    /// Fills the linkingObjects properties of the objects `keys` of `model`: each object
    /// linking to one, once, in the order they were first saved.
    private mutating func readLinkingObjects(_ model: ModelSchema, keys: [String]) throws {
        guard !keys.isEmpty else { return }
        for property in model.properties {
            guard case .linkingObjects(let originName, let originProperty) = property.type,
                  let origin = schema[originName], let via = origin[property: originProperty] else { continue }
            var parameters = SQLParameters()
            let keyArray = "\(parameters.add(PostgresValues.arrayLiteral(keys)))::\(PostgresTables.castType(model.primaryKeyProperty?.type ?? .int))[]"
            let originTable = tables.table(origin.name)
            let originKey = tables.keyColumn(origin)
            let sql: String
            if via.type.isList {
                sql = "SELECT DISTINCT l.value::pg_catalog.text, o.\(originKey)::pg_catalog.text, o.\(PostgresTables.orderColumn) FROM \(tables.listTable(origin.name, via.name)) AS l "
                    + "JOIN \(originTable) AS o ON o.\(originKey) = l.owner WHERE l.value = ANY(\(keyArray)) ORDER BY o.\(PostgresTables.orderColumn)"
            } else {
                let column = PostgresTables.quoted(via.name)
                sql = "SELECT o.\(column)::pg_catalog.text, o.\(originKey)::pg_catalog.text, o.\(PostgresTables.orderColumn) FROM \(originTable) AS o "
                    + "WHERE o.\(column) = ANY(\(keyArray)) ORDER BY o.\(PostgresTables.orderColumn)"
            }
            var sources: [[UInt8]: [String]] = [:]
            for row in try connection.execute(sql, parameters.values).rows {
                guard let target = row[0], let source = row[1] else { continue }
                sources[Array(target.utf8), default: []].append(source)
            }
            for key in keys {
                rows[model.name]?[Array(key.utf8)]?.links.append((property.name, origin.name, sources[Array(key.utf8)] ?? [], true))
            }
        }
    }

    /// The key texts (as `::text` writes them) of link values to `target`.
    private func keyTexts(_ values: [Value], target: String) throws -> [String] {
        let type = schema[target]?.primaryKeyProperty?.type ?? .int
        return try values.compactMap { value in value.isNull ? nil : try PostgresValues.parameter(value, type: type).0 }
    }

    /// The properties of the object `key` of `model`, each link as the properties of the
    /// object it reaches.
    mutating func properties(_ model: String, _ key: String) -> [String: Value] {
        guard case .object(let properties) = value(model, key, depth: 0).value else { return [:] }
        return properties
    }

    /// Links are followed one step further than the decoder follows them, so that a type
    /// graph with a cycle meets the decoder's own error; a link beyond is null.
    private static let depthLimit = ObjectDecoder.maximumDepth + 1

    /// The object's value `depth` links from the entity, and how many links deep it goes
    /// (`depthLimit` when it was cut there: then it is built again at each depth).
    private mutating func value(_ model: String, _ key: String, depth: Int) -> (value: Value, height: Int) {
        let id = Array((model + "\u{0}" + key).utf8)
        let cutID = id + Array("\u{0}\(depth)".utf8)
        if let done = built[id], depth + done.height < Self.depthLimit { return done }
        if let value = cut[cutID] { return (value, Self.depthLimit) }
        guard depth < Self.depthLimit, let row = rows[model]?[Array(key.utf8)] else { return (.null, Self.depthLimit) }
        var properties = row.values
        var height = 0
        for link in row.links {
            var reached: [Value] = []
            for target in link.keys {
                let (value, h) = value(link.target, target, depth: depth + 1)
                reached.append(value)
                height = max(height, h == Self.depthLimit ? Self.depthLimit : h + 1)
            }
            properties[link.property] = link.isList ? .list(reached) : reached.first ?? .null
        }
        let result = (Value.object(properties), height)
        if height < Self.depthLimit { built[id] = result } else { cut[cutID] = result.0 }
        return result
    }
}
