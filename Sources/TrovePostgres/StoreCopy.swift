#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Trove

/// Copies every object of a store into a PostgreSQL database, or of a database into a store:
/// every model, link and list, so that a project can start on a file and move to a server (or
/// take a server's data home).
///
/// - The copy is one transaction on the target: it applies whole or not at all, whatever
///   fails (a schema that differs, a target that holds objects, a server that goes away).
/// - The source is read in one snapshot (a store's read transaction; on PostgreSQL a
///   `REPEATABLE READ` one), so a copy taken while clients write is consistent.
/// - The target holds the source's schema afterwards: a database without a Trove schema gets
///   it; a database or store that has one must have the same one. It must hold no objects,
///   unless `replacing`, which first deletes those it holds (in the same transaction).
/// - Objects keep their order (the order of results without `SORT`), links and lists keep
///   their targets whether or not those have primary keys, lists keep their order, nulls stay
///   null. Every value is copied exactly, but for dates: PostgreSQL keeps microseconds, so a
///   date copied into it is rounded to the nearest microsecond.
public enum StoreCopy {
    /// How many objects a copy wrote, by model in schema order.
    public struct Summary: Sendable, Equatable {
        public var counts: [(model: String, objects: Int)]
        public var objects: Int { counts.reduce(0) { $0 + $1.objects } }

        public static func == (a: Summary, b: Summary) -> Bool {
            a.counts.map(\.model) == b.counts.map(\.model) && a.counts.map(\.objects) == b.counts.map(\.objects)
        }
    }

    // MARK: Store to PostgreSQL

    /// Copies the objects of `store` into the database at `url`.
    @discardableResult
    public static func copy(_ store: Store, toDatabase url: String, replacing: Bool = false) throws -> Summary {
        let connection = try PostgresConnection(url: url)
        return try store.read { snapshot in
            try connection.transaction { try write(snapshot, to: connection, replacing: replacing) }
        }
    }

    private static func write(_ snapshot: Snapshot, to connection: PostgresConnection, replacing: Bool) throws -> Summary {
        let schema = snapshot.schema
        if let stored = try PostgresSchemaInstaller.storedSchema(connection) {
            guard stored == schema else { throw mismatch(schema.migrationPlan(from: stored), target: "the database '\(connection.database)'") }
        } else {
            _ = try PostgresSchemaInstaller.installInTransaction(schema, on: connection)
        }
        let tables = PostgresTables(schema: schema, schemaName: connection.schemaName)
        try empty(tables, connection: connection, replacing: replacing)

        // Every object's key in the database: its primary key, or its position (its "@key").
        var keys: [ObjectReference: String] = [:]
        var references: [String: [ObjectReference]] = [:]
        for model in schema.models {
            let results = try snapshot.objects(model.name)
            var list: [ObjectReference] = []
            list.reserveCapacity(results.count)
            for (index, object) in results.enumerated() {
                let reference = object.reference
                list.append(reference)
                if let pk = model.primaryKeyProperty, let value = try object.primaryKey {
                    keys[reference] = try PostgresValues.parameter(value, type: pk.type).0
                } else {
                    keys[reference] = String(index + 1)
                }
            }
            references[model.name] = list
        }

        // Rows with their scalars and lists of scalars first; links once every row exists.
        var counts: [(String, Int)] = []
        for model in schema.models {
            let objects = references[model.name] ?? []
            let scalars = model.properties.filter { $0.isStored && !$0.type.isList && !$0.type.isLink }
            var rows = RowBatch(connection: connection,
                                head: "INSERT INTO \(tables.table(model.name)) (\(([PostgresTables.orderColumn] + scalars.map { PostgresTables.quoted($0.name) }).joined(separator: ", "))) OVERRIDING SYSTEM VALUE VALUES ",
                                tail: "")
            for (index, reference) in objects.enumerated() {
                guard let object = try snapshot.object(reference) else { continue }
                var values = ["\(rows.parameters.add(String(index + 1)))::bigint"]
                for property in scalars {
                    let value = try object.value(property.name)
                    try checkText(value, of: model, object, at: index, property.name)
                    values.append(try PostgresValues.sql(value, type: property.type, &rows.parameters))
                }
                try rows.add("(" + values.joined(separator: ", ") + ")")
            }
            try rows.flush()
            if !objects.isEmpty {
                try connection.execute("SELECT setval(pg_get_serial_sequence($1, '@key'), $2::bigint)",
                                       [tables.table(model.name), String(objects.count)])
            }
            counts.append((model.name, objects.count))
        }
        for model in schema.models {
            let objects = references[model.name] ?? []
            let keyCast = PostgresTables.castType(model.primaryKeyProperty?.type ?? .int)
            for property in model.properties where property.isStored {
                switch property.type {
                case .link(let target):
                    let targetCast = try castType(ofKeysOf: target, in: schema)
                    var rows = RowBatch(connection: connection, head: "UPDATE \(tables.table(model.name)) AS t SET \(PostgresTables.quoted(property.name)) = v.target FROM (VALUES ",
                                        tail: ") AS v(owner, target) WHERE t.\(tables.keyColumn(model)) = v.owner")
                    for reference in objects {
                        guard case .reference(let target)? = try snapshot.object(reference)?.value(property.name), let targetKey = keys[target] else { continue }
                        try rows.add("(\(rows.parameters.add(keys[reference]))::\(keyCast), \(rows.parameters.add(targetKey))::\(targetCast))")
                    }
                    try rows.flush()
                case .list(let element):
                    var rows = RowBatch(connection: connection, head: "INSERT INTO \(tables.listTable(model.name, property.name)) (owner, position, value) VALUES ",
                                        tail: "")
                    for (index, reference) in objects.enumerated() {
                        guard let object = try snapshot.object(reference), case .list(let items) = try object.value(property.name), !items.isEmpty else { continue }
                        try checkText(.list(items), of: model, object, at: index, property.name)
                        for (position, item) in items.enumerated() {
                            let value: String
                            if case .link(let target) = element {
                                guard case .reference(let r) = item, let targetKey = keys[r] else { continue }
                                value = "\(rows.parameters.add(targetKey))::\(try castType(ofKeysOf: target, in: schema))"
                            } else {
                                value = try PostgresValues.sql(item, type: element, &rows.parameters)
                            }
                            try rows.add("(\(rows.parameters.add(keys[reference]))::\(keyCast), \(position), \(value))")
                        }
                    }
                    try rows.flush()
                default:
                    break
                }
            }
        }
        return Summary(counts: counts)
    }

    /// Refuses a string PostgreSQL's text cannot hold, naming where it is: the model, the
    /// object (by primary key, or by position without one), the property and the element.
    private static func checkText(_ value: Value, of model: ModelSchema, _ object: DynamicObject, at index: Int, _ property: String) throws {
        let element: Int?
        switch value {
        case .string(let text) where text.utf8.contains(0): element = nil
        case .list(let items):
            guard let position = items.firstIndex(where: { if case .string(let text) = $0 { text.utf8.contains(0) } else { false } }) else { return }
            element = position + 1
        default: return
        }
        let record = try object.primaryKey.map { "with primary key \($0)" } ?? "at position \(index + 1)"
        throw PostgresError.nulCharacter(model: model.name, property: property, element: element, record: record)
    }

    private static func castType(ofKeysOf model: String, in schema: Schema) throws -> String {
        guard let target = schema[model] else { throw StoreError.noSuchModel(model) }
        return PostgresTables.castType(target.primaryKeyProperty?.type ?? .int)
    }

    /// Refuses a database holding objects, or (`replacing`) deletes them.
    private static func empty(_ tables: PostgresTables, connection: PostgresConnection, replacing: Bool) throws {
        let names = tables.schema.models.map { tables.table($0.name) }
        guard !names.isEmpty else { return }
        if replacing {
            let lists = tables.schema.models.flatMap { model in
                model.properties.filter(\.type.isList).map { tables.listTable(model.name, $0.name) }
            }
            try connection.execute("TRUNCATE \((names + lists).joined(separator: ", ")) RESTART IDENTITY")
            return
        }
        for (model, table) in zip(tables.schema.models, names) {
            if try connection.execute("SELECT EXISTS (SELECT 1 FROM \(table))").rows.first?.first == "t" {
                throw notEmpty("the database '\(connection.database)'", model: model.name)
            }
        }
    }

    /// Rows of one statement, sent in batches under PostgreSQL's limit of parameters.
    private struct RowBatch {
        let connection: PostgresConnection
        let head: String
        let tail: String
        var parameters = SQLParameters()
        var rows: [String] = []

        mutating func add(_ row: String) throws {
            rows.append(row)
            if parameters.values.count >= 30_000 { try flush() }
        }

        mutating func flush() throws {
            guard !rows.isEmpty else { return }
            try connection.execute(head + rows.joined(separator: ", ") + tail, parameters.values)
            rows = []
            parameters = SQLParameters()
        }
    }

    // MARK: PostgreSQL to store

    /// Copies the objects of the database at `url` into the store file at `path`, created
    /// (with the database's schema) when missing, and removed again when the copy fails.
    @discardableResult
    public static func copy(database url: String, toStoreAt path: String, replacing: Bool = false) throws -> Summary {
        try copy(database: try PostgresConnection(url: url), toStoreAt: path, replacing: replacing)
    }

    /// ``copy(database:toStoreAt:replacing:)`` from an open connection (outside a transaction).
    @discardableResult
    public static func copy(database connection: PostgresConnection, toStoreAt path: String, replacing: Bool = false) throws -> Summary {
        try PostgresObjectReader.inSnapshot(connection) { reader in
            guard !FileManager.default.fileExists(atPath: path) else {
                return try write(reader, to: try Store(path: path), replacing: replacing)
            }
            do {
                return try write(reader, to: try Store(path: path, schema: reader.schema), replacing: replacing)
            } catch {
                for suffix in ["", "-lock", "-log", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                throw error
            }
        }
    }

    /// Copies the objects of the database `connection` is open on into `store`.
    @discardableResult
    public static func copy(database connection: PostgresConnection, to store: Store, replacing: Bool = false) throws -> Summary {
        try PostgresObjectReader.inSnapshot(connection) { try write($0, to: store, replacing: replacing) }
    }

    /// Writes the objects `reader` reads into `store`, in one write transaction, each batch as it
    /// is read (`PostgresObjectReader.forEachBatch`), so that a copy holds one batch at a time
    /// and a reference to each object of a model that links point to: first the objects of
    /// those models and of models without links, with their scalars and lists of scalars; then,
    /// reading the models with links again in the same snapshot, the links of the first and
    /// the whole objects of the others (no link can point to them, so nothing needs their
    /// references).
    private static func write(_ reader: PostgresObjectReader, to store: Store, replacing: Bool) throws -> Summary {
        let schema = reader.schema
        guard store.schema == schema else { throw mismatch(schema.migrationPlan(from: store.schema), target: "the store") }
        let targets = Set(schema.models.flatMap { $0.properties.filter(\.isStored).compactMap(\.type.objectType) })
        return try store.write { tx in
            for model in schema.models where try tx.count(model.name) > 0 {
                guard replacing else { throw notEmpty("the store", model: model.name) }
                try tx.deleteAll(model.name)
            }
            // Each linked-to object's reference by its key's text in the database, as bytes: a
            // `String` key would make canonically equivalent keys (`é`, `e` + U+0301), two objects, one.
            var references: [String: [[UInt8]: ObjectReference]] = [:]
            var counts: [String: Int] = [:]
            for model in schema.models {
                let stored = model.properties.filter(\.isStored)
                let isTarget = targets.contains(model.name)
                guard isTarget || !stored.contains(where: { linksObjects($0.type) }) else { continue }
                var byKey: [[UInt8]: ObjectReference] = [:]
                var count = 0
                try reader.forEachBatch(of: model) { batch in
                    for (key, values) in zip(batch.keys, batch.objects) {
                        var properties: [String: Value] = [:]
                        for (property, value) in zip(stored, values) where !linksObjects(property.type) {
                            properties[property.name] = value
                        }
                        let reference = try tx.insert(model.name, properties).reference
                        if isTarget { byKey[Array(key.utf8)] = reference }
                    }
                    count += batch.objects.count
                }
                if isTarget { references[model.name] = byKey }
                counts[model.name] = count
            }
            for model in schema.models {
                let stored = model.properties.filter(\.isStored)
                let linkProperties = stored.enumerated().filter { linksObjects($0.element.type) }
                guard !linkProperties.isEmpty else { continue }
                let isTarget = targets.contains(model.name)
                var count = 0
                try reader.forEachBatch(of: model) { batch in
                    for (key, values) in zip(batch.keys, batch.objects) {
                        var properties: [String: Value] = [:]
                        if !isTarget {
                            for (property, value) in zip(stored, values) where !linksObjects(property.type) {
                                properties[property.name] = value
                            }
                        }
                        for (index, property) in linkProperties {
                            guard let target = property.type.objectType, let targets = references[target] else { continue }
                            let keyType = schema[target]?.primaryKeyProperty?.type ?? .int
                            func reference(_ value: Value) throws -> Value {
                                guard !value.isNull else { return .null }
                                let text = try PostgresValues.parameter(value, type: keyType).0
                                return targets[Array(text.utf8)].map(Value.reference) ?? .null
                            }
                            if case .list(let items) = values[index] {
                                properties[property.name] = .list(try items.map(reference))
                            } else {
                                let link = try reference(values[index])
                                if !link.isNull { properties[property.name] = link }
                            }
                        }
                        if !isTarget {
                            _ = try tx.insert(model.name, properties)
                        } else if !properties.isEmpty, let owner = references[model.name]?[Array(key.utf8)] {
                            try tx.update(owner, properties)
                        }
                    }
                    count += batch.objects.count
                }
                if !isTarget { counts[model.name] = count }
            }
            return Summary(counts: schema.models.map { ($0.name, counts[$0.name] ?? 0) })
        }
    }

    /// Whether values of `type` name objects: a link or a list of links.
    private static func linksObjects(_ type: PropertyType) -> Bool {
        if case .list(.link) = type { return true }
        return type.isLink
    }

    private static func mismatch(_ plan: MigrationPlan, target: String) -> PostgresError {
        PostgresError("\(target) holds a different schema (\(plan.changes.map(\.description).joined(separator: "; "))): copy into a new or matching one")
    }

    private static func notEmpty(_ target: String, model: String) -> PostgresError {
        PostgresError("\(target) already holds '\(model)' objects: copy into an empty one, or replace them with --replace")
    }
}
