import Trove
import TrovePostgres

/// The shell on a PostgreSQL database (`trove postgres://USER@HOST/DB`): the same statements
/// as on a store, translated to SQL by `TrovePostgres`.
///
/// `.verify`, `.dbinfo` and `.backup` concern a store file and are refused.
///
/// A write statement that fails inside `begin` ... `commit` fails the transaction as on a
/// store, in the shell (`TransactionFailure`), although the server could go on: the
/// statement ran under a savepoint and left nothing.
public final class PostgresBackend: ShellBackend {
    let store: PostgresStore
    /// `--readonly`: refused here with a store's messages, and by the server (the session is
    /// read-only) should a write get past them.
    let readOnly: Bool
    /// The schema file a read-only open left unapplied.
    private let unappliedSchema: Schema?

    init(store: PostgresStore, readOnly: Bool = false, unappliedSchema: Schema? = nil) {
        self.store = store
        self.readOnly = readOnly
        self.unappliedSchema = unappliedSchema
    }

    /// Opens the database a `postgres://` or `postgresql://` URL names. A failure to connect is
    /// a usage error (exit status 2) whose message names neither the URL nor its password.
    public static func open(_ configuration: BackendConfiguration) throws -> PostgresBackend {
        guard let url = configuration.databasePath else { throw UsageError("no PostgreSQL URL") }
        var schema: Schema?
        if let (path, text) = configuration.schema {
            do {
                schema = try Schema(jsonData: Array(text.utf8), fileName: path)
            } catch {
                throw UsageError("bad schema: \(error.description)")
            }
        }
        do {
            let store = try PostgresStore(url: url, schema: schema, readOnly: configuration.readOnly)
            if let timeout = configuration.busyTimeout { try store.connection.setLockTimeout(timeout) }
            return PostgresBackend(store: store, readOnly: configuration.readOnly, unappliedSchema: configuration.readOnly ? schema : nil)
        } catch let error as PostgresError {
            if error.message.hasPrefix("cannot connect") { throw UsageError(error.message) }
            if error.refusedMigration {
                throw StatementError(error.message + " (to read the database as it is, open it without --schema)")
            }
            throw StatementError(error.message)
        }
    }

    public func models() throws -> [ModelDescription] { store.schema.models.map(ModelDescription.init) }
    public func schemaVersion() throws -> Int { store.schema.schemaVersion }

    public var isInTransaction: Bool { store.isInTransaction }
    public var transactionCannotGoOn: Bool { store.transactionFailure != nil }

    public var openWarnings: [String] {
        guard let unappliedSchema else { return [] }
        return TroveBackend.unappliedSchemaChanges(unappliedSchema, to: store.schema, of: "database").map { [$0] } ?? []
    }

    public func begin() throws {
        guard !store.isInTransaction else { throw StatementError("a transaction is already open; 'commit' or 'rollback' it first", at: 0) }
        if readOnly { throw StatementError.readOnly("begin a transaction", at: 0) }
        try translated { try store.begin() }
    }

    public func commit() throws {
        guard store.isInTransaction else { throw StatementError("no transaction is open ('begin' starts one)", at: 0) }
        defer { keepTimeoutSetInTransaction() }
        try translated { try store.commit() }
    }

    public func rollback() throws {
        guard store.isInTransaction else { throw StatementError("no transaction is open ('begin' starts one)", at: 0) }
        defer { keepTimeoutSetInTransaction() }
        try translated { try store.rollback() }
    }

    /// `.timeout` as the session's `lock_timeout`, which a lock timeout's error names as a
    /// store's writerBusy does.
    public func setBusyTimeout(_ timeout: Duration?) throws {
        try translated { try store.connection.setLockTimeout(timeout) }
        timeoutSetInTransaction = store.isInTransaction
    }

    /// Whether `.timeout` ran in the open transaction, whose rollback would undo its `SET`.
    private var timeoutSetInTransaction = false

    /// Sets a timeout set in the transaction that just ended again, so that `.timeout` holds
    /// whether the transaction committed or not.
    private func keepTimeoutSetInTransaction() {
        guard timeoutSetInTransaction, !store.isInTransaction else { return }
        timeoutSetInTransaction = false
        try? store.connection.setLockTimeout(store.connection.lockTimeout)
    }

    public func dump(models: [String], write: @escaping (String) throws -> Void, warn: @escaping (String) -> Void) throws {
        try store.readingObjects { reader in
            try StoreDump(source: PostgresDumpSource(reader: reader), models: models, write: write, warn: warn).run()
        }
    }

    /// Streams an export's objects as a store's export writes them: a link to a model without a
    /// primary key holds its target nested (`StoreDump.withNestedLinks`), read with the query in
    /// one snapshot, and of such a model's objects, those nested in others are left out.
    public func export(_ query: QuerySpec, context: ExecutionContext, columns: ([String]) throws -> Void,
                       row: (JSONObject) throws -> Void) throws {
        let schema = store.schema
        guard let model = schema[query.model.text], case let links = StoreDump.linksWrittenNested(model, schema: schema), !links.isEmpty else {
            return try exportAnswer(query, context: context, columns: columns, row: row)
        }
        let arguments = context.arguments.map(Value.string)
        let inTransaction = store.isInTransaction
        try translated {
            try checked(query.text) {
                do {
                    try store.readingObjects { reader in
                        let objects: PostgresObjects
                        switch try store.run(query.text.text, arguments: arguments) {
                        case .objects(let found): objects = found
                        case .rows(let rows):
                            // SELECT or GROUP: rows, whose links to models without a primary key
                            // are written nested.
                            try columns(rows.columns)
                            let json = rows.json
                            for start in stride(from: 0, to: json.count, by: 1024) {
                                if context.isCancelled { throw StatementError("export interrupted") }
                                let batch = start..<min(start + 1024, json.count)
                                for r in try rows.nestedJSON(reader, rows: batch, json: json[batch]) { try row(r) }
                            }
                            return
                        case .value: throw StatementError("export: the query returned no objects")
                        }
                        try columns(objects.columns)
                        let nested = PostgresNestedObjects(reader: reader, model: model, objects: objects.objects)
                        let read = zip(objects.keys, objects.objects).map { PostgresDumpObject(nested: nested, model: model, key: $0, values: $1) }
                        let leftOut = model.primaryKey == nil ? try StoreDump.nestedInOthers(read, model, links, schema: schema) : []
                        for (i, object) in read.enumerated() {
                            if i % 1024 == 0, context.isCancelled { throw StatementError("export interrupted") }
                            if leftOut.contains(object.identity) { continue }
                            try row(try ResultRows.json(of: object, links: links, schema: schema))
                        }
                    }
                } catch where !inTransaction && (error is QueryError || error is PostgresError) {
                    // The snapshot's transaction, which the statement failed, could run no
                    // re-check of a sum out of range (those re-checks then fail as "aborted"):
                    // run alone, the statement names it.
                    _ = try store.run(query.text.text, arguments: arguments)
                    throw error
                }
            }
        }
    }

    public func applySchema(_ text: String, source: String) throws {
        guard !store.isInTransaction else {
            throw StatementError("cannot apply a schema inside a transaction ('commit' or 'rollback' first)")
        }
        guard !readOnly else { throw StatementError.readOnly("apply a schema") }
        let schema: Schema
        do { schema = try Schema(jsonData: Array(text.utf8), fileName: source) } catch { throw StatementError("bad schema: \(error.description)") }
        try translated { try store.apply(schema) }
    }

    public func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult {
        do {
            return try translated {
                do {
                    return try run(statement, context: context)
                } catch let error as PostgresError where statement.isWrite {
                    throw WriteFailure(underlying: StatementError(error.message), cause: error)
                }
            }
        } catch let failure as WriteFailure {
            // The statement's unit (a transaction, or a savepoint in an open one) left nothing.
            var error = failure.underlying
            if let cause = failure.cause as? PostgresError, cause.isLockTimeout {
                error = StatementError(store.connection.lockTimeoutFailure(cause).message)
            }
            throw error
        }
    }

    private func translated<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError where error.isLockTimeout {
            // The statement's transaction or savepoint has rolled back: the connection can ask whose lock it was.
            throw StatementError(store.connection.lockTimeoutFailure(error).message)
        } catch let error as PostgresError {
            throw StatementError(error.message)
        } catch let error as QueryError {
            throw StatementError(error, at: error.location.offset)
        } catch let error as StoreError {
            throw StatementError(error, models: store.schema.models.map(\.name))
        }
    }

    private func run(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult {
        let arguments = context.arguments.map(Value.string)
        switch statement {
        case .query(let spec), .export(let spec, _):
            let (answer, json) = try checked(spec.text) { try store.runForShell(spec.text.text, arguments: arguments) }
            switch answer {
            case .objects(let objects):
                return .objects(ResultSet(columns: objects.columns, rows: json, decimalColumns: ResultRows.decimalColumns(of: objects.model)))
            case .rows(let rows):
                return .objects(ResultSet(columns: rows.columns, rows: json, decimalColumns: ResultRows.decimalColumns(rows.columns, of: rows.rows)))
            case .value(let name, let value): return .value(name: name, value)
            }
        case .count(let model, let predicate):
            let name = try modelSchema(model).name
            guard let predicate else { return .count(try store.count(name, where: nil, arguments: arguments)) }
            return .count(try checked(predicate) {
                try store.count(name, where: predicate.text, arguments: arguments)
            })
        case .get(let model, let keys):
            let m = try modelSchema(model)
            var found: [JSONObject?] = []
            var columns = m.properties.filter(\.isStored).map(\.name)
            let primaryKeys = try keys.map { try primaryKey($0, of: m, arguments: context.arguments) }
            func lookUp(_ reader: PostgresObjectReader?) throws {
                for key in primaryKeys {
                    let objects = try store.object(m.name, primaryKey: key)
                    columns = objects.columns
                    found.append(try (reader.map { try objects.nestedJSON($0, cyclesEnd: true) } ?? objects.json).first)
                }
            }
            // Objects with links to models without a primary key are read with the linked
            // objects, nested, in one snapshot (`PostgresObjects.nestedJSON`).
            if StoreDump.linksWrittenNested(m, schema: store.schema).isEmpty {
                try lookUp(nil)
            } else {
                try store.readingObjects { try lookUp($0) }
            }
            return .lookup(columns: columns, objects: found, decimalColumns: ResultRows.decimalColumns(of: m))
        case .insert(let model, let json), .upsert(let model, let json):
            let m = try modelSchema(model)
            let records = try JSONRecords.parse(json)
            let merge = statement.keyword == "upsert"
            var summary = WriteSummary(inserted: 0)
            do {
                try atomically {
                    summary = try JSONRecords.write(records, of: m, merge: merge, into: PostgresImportDestination(store: store, model: m.name, bulk: false))
                }
            } catch let failure as WriteFailure {
                // A lost connection is the session's end, not a record's fault.
                if let lost = failure.cause as? PostgresError, lost.isConnectionLost { throw lost }
                throw failure
            }
            return .written(summary)
        case .update(let model, let target, let assignments):
            let m = try modelSchema(model)
            let values = try LiteralValue.assignments(assignments, of: m, schema: store.schema,
                                                      arguments: ParameterValues(context.arguments), typed: typedJSON)
            switch target {
            case .keys(let keys):
                var updated = 0
                try atomically {
                    for key in keys {
                        let value = try primaryKey(key, of: m, arguments: context.arguments)
                        let n = try WriteFailure.wrap {
                            // By the key as given, as on a store (`==` would also match a
                            // canonically equivalent string key).
                            try writing(assignments, of: m) { try store.update(m.name, primaryKey: value, set: values) ? 1 : 0 }
                        }
                        if n == 0 { throw StatementError("'\(m.name)' has no object with primary key \(key.text)", at: key.offset) }
                        updated += n
                    }
                }
                return .written(WriteSummary(updated: updated))
            case .predicate(let predicate):
                return .written(WriteSummary(updated: try checked(predicate) {
                    try writing(assignments, of: m) { try store.update(m.name, where: predicate.text, arguments: arguments, set: values) }
                }))
            }
        case .delete(let model, let target):
            let m = try modelSchema(model)
            switch target {
            case .keys(let keys):
                let values = try keys.map { try primaryKey($0, of: m, arguments: context.arguments) }
                return .written(WriteSummary(deleted: try store.delete(m.name, primaryKeys: values)))
            case .predicate(let predicate):
                return .written(WriteSummary(deleted: try checked(predicate) {
                    try store.delete(m.name, where: predicate.text, arguments: arguments)
                }))
            }
        case .importFile(let model, let file, let format, let merge):
            let m = try modelSchema(model)
            let input = try context.openInput(file)
            let importer = StoreImport(model: m, input: input, format: format ?? ImportFormat(fileName: file.text), merge: merge, context: context)
            return .written(try store.atomically { try importer.run(into: PostgresImportDestination(store: store, model: m.name, bulk: !merge)) })
        case .explain(let spec):
            let (sql, plan) = try checked(spec.text) {
                try store.explain(spec.text.text, arguments: arguments)
            }
            return .plan(JSONObject([("sql", .string(sql)), ("plan", .array(plan.map(JSONValue.string)))]))
        case .watch(let spec):
            guard !store.isInTransaction else {
                throw StatementError("'watch' cannot run inside a transaction: it waits for commits ('commit' or 'rollback' first)", at: 0)
            }
            try checked(spec.text) {
                try PostgresWatcher(store: store, text: spec.text.text, arguments: arguments, context: context).run()
            }
            return .none
        case .begin, .commit, .rollback:
            throw StatementError("'\(statement.keyword)' is handled by the shell")
        }
    }

    /// Runs `body`, the statement part `fragment` on the server. A statement a store refuses
    /// is refused with the store's `QueryError`, reported at its place in the statement.
    private func checked<T>(_ fragment: SourceFragment, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as QueryError {
            throw StatementError(error, at: fragment.offset + error.location.offset)
        }
    }

    /// Runs the write of a `set` list's values; the server's error about them, or the store's
    /// error it shares, stands at the value it concerns, as on a store (`LiteralValue.writing`).
    private func writing<T>(_ assignments: [Assignment], of model: ModelSchema, _ body: () throws -> T) throws -> T {
        do {
            return try LiteralValue.writing(assignments, of: model, body)
        } catch let error as PostgresError where !error.isConnectionLost && !error.isLockTimeout {
            throw StatementError(error.message, at: LiteralValue.offset(ofFailureIn: assignments, of: model))
        }
    }

    /// Runs `body` as one unit: in a transaction of its own, or in the open one under a
    /// savepoint.
    private func atomically(_ body: () throws -> Void) throws {
        try store.atomically(body)
    }

    private func modelSchema(_ name: SourceFragment) throws -> ModelSchema {
        guard let model = store.schema[name.text] else {
            throw StatementError.noModel(named: name.text, among: store.schema.models.map(\.name), at: name.offset)
        }
        return model
    }

    /// A primary key of `model` in a statement, read as a store reads it.
    private func primaryKey(_ key: SourceFragment, of model: ModelSchema, arguments: [String]) throws -> Value {
        try LiteralValue.primaryKey(key, of: model, schema: store.schema, arguments: ParameterValues(arguments), typed: typedJSON)
    }

    /// JSON for a property, as import reads it on the server.
    private func typedJSON(_ json: JSONValue, _ property: PropertySchema, _ model: String, _ offset: Int) throws -> Value {
        do {
            return try store.values(fromJSON: JSONObject([(property.name, json)]), model: model)[property.name] ?? .null
        } catch let error as PostgresError {
            throw StatementError(error.message, at: offset)
        }
    }
}

/// A PostgreSQL database as `import` writes to it, in the statement's transaction. Without
/// MERGE, the imported model's objects go by COPY, a batch at a time (`PostgresBulkInsert`);
/// the rest (nested objects, lists with elements, links set once their targets are in) by
/// statements, after the batch so far.
struct PostgresImportDestination: ImportDestination {
    let store: PostgresStore
    let bulk: PostgresBulkInsert?
    var bulkInsert: PostgresBulkInsert? { bulk }

    /// `bulk`: whether the model's objects go by COPY (they cannot when they are upserted).
    init(store: PostgresStore, model: String, bulk: Bool) throws {
        self.store = store
        self.bulk = bulk ? try PostgresBulkInsert(store: store, model: model) : nil
    }

    var schema: Schema { store.schema }

    func values(fromJSON json: JSONObject, model: String) throws -> [String: Value] {
        try store.values(fromJSON: json, model: model)
    }

    func contains(_ model: String, primaryKey: Value) throws -> Bool {
        if let bulk, bulk.model.name == model, bulk.holds(primaryKey: primaryKey) { return true }
        // A query cannot run while a batch's COPY is open: the batches stop streaming (their
        // rows then go at each batch's end), so that the imports that ask for each record
        // ask without ending a COPY each time.
        if let bulk, bulk.streams {
            bulk.streams = false
            try finish()
        }
        return try store.contains(model, primaryKey: primaryKey)
    }

    func update(_ model: String, primaryKey: Value, set values: [String: Value]) throws {
        try finish()
        guard try store.update(model, primaryKey: primaryKey, set: values) else {
            throw StoreError.objectNotFound(model: model, primaryKey: primaryKey.description)
        }
    }

    func finish() throws {
        do {
            try bulk?.flush()
        } catch let error as PostgresRowError {
            throw ImportFailure(error.description)
        }
    }

    func write(_ model: String, _ values: [String: Value], merge: Bool, at place: RecordPlace) throws -> Bool {
        if let bulk, !merge, bulk.model.name == model {
            do {
                if try bulk.add(values, at: place) { return true }
            } catch let error as PostgresRowError {
                throw ImportFailure(error.description)
            }
        }
        try finish()
        guard merge else {
            try store.insert(model, values)
            return true
        }
        return try store.upsert(model, values)
    }
}

/// The backend the command line's DATABASE names: a PostgreSQL URL, or a store file.
public enum ShellBackends {
    public static func open(_ configuration: BackendConfiguration) throws -> ShellBackend {
        if let path = configuration.databasePath, PostgresConnection.isURL(path) {
            _ = UserLocale.isUTF8 // libpq's client_encoding=auto reads LC_CTYPE
            return try PostgresBackend.open(configuration)
        }
        return try TroveBackend.open(configuration)
    }
}
