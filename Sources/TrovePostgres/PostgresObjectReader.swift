import Trove

/// Reads a database's objects in one snapshot, as `.copy` and `.dump` do: each model's objects
/// streamed through a cursor in batches, in the order results without `SORT` come in, and
/// objects of a model without a primary key by their keys (`"@key"`, what links to them hold).
///
/// A reader only runs inside a transaction (``PostgresStore/readingObjects(_:)``,
/// ``PostgresObjectReader/inSnapshot(_:_:)``), whose snapshot every read shares.
public final class PostgresObjectReader {
    public let schema: Schema
    let connection: PostgresConnection
    private let tables: PostgresTables
    private let translator: PostgresQueryTranslator
    /// Cursors opened so far, so that each has a name of its own.
    private var cursors = 0

    init(connection: PostgresConnection, schema: Schema) {
        self.connection = connection
        self.schema = schema
        tables = PostgresTables(schema: schema, schemaName: connection.schemaName)
        translator = PostgresQueryTranslator(tables: tables)
    }

    /// Runs `body` with a reader of the database `connection` is open on (outside a
    /// transaction), in a `REPEATABLE READ READ ONLY` transaction of its own. A database
    /// without a Trove schema reads as one with no models.
    public static func inSnapshot<T>(_ connection: PostgresConnection, _ body: (PostgresObjectReader) throws -> T) throws -> T {
        try inSnapshot(connection, schema: nil, body)
    }

    /// ``inSnapshot(_:_:)`` with `schema`, when given, rather than the database's own.
    static func inSnapshot<T>(_ connection: PostgresConnection, schema: Schema?, _ body: (PostgresObjectReader) throws -> T) throws -> T {
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        do {
            let schema = try schema ?? PostgresSchemaInstaller.storedSchema(connection) ?? Schema(models: [])
            let value = try body(PostgresObjectReader(connection: connection, schema: schema))
            try connection.execute("COMMIT")
            return value
        } catch {
            _ = try? connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Calls `body` with successive batches of the objects of `model`, at most `batchSize`
    /// each, so that reading a model of any size holds one batch at a time.
    public func forEachBatch(of model: ModelSchema, batchSize: Int = 1000, _ body: (PostgresObjects) throws -> Void) throws {
        let types = try PostgresObjects.types(model, schema: schema)
        cursors += 1
        let cursor = "trove_read_\(cursors)"
        try connection.execute("DECLARE \(cursor) NO SCROLL CURSOR FOR SELECT \(try columns(model).joined(separator: ", ")) FROM \(tables.table(model.name)) AS t0 ORDER BY t0.\(PostgresTables.orderColumn)")
        while true {
            let rows = try connection.execute("FETCH \(batchSize) FROM \(cursor)")
            if rows.rows.isEmpty { break }
            try body(try PostgresObjects(model: model, types: types, rows: rows.rows))
        }
        try connection.execute("CLOSE \(cursor)")
    }

    /// The objects of `model`, a model without a primary key, whose `"@key"` is each of
    /// `keys` in turn (once per occurrence; a key no object has is skipped).
    public func objects(of model: ModelSchema, keys: [Int64]) throws -> PostgresObjects {
        let types = try PostgresObjects.types(model, schema: schema)
        guard !keys.isEmpty else { return try PostgresObjects(model: model, types: types, rows: []) }
        let rows = try connection.execute(
            "SELECT \(try columns(model).joined(separator: ", ")) FROM \(tables.table(model.name)) AS t0"
                + " JOIN unnest($1::bigint[]) WITH ORDINALITY AS u(key, n) ON t0.\(PostgresTables.orderColumn) = u.key ORDER BY u.n",
            ["{" + keys.map(String.init).joined(separator: ",") + "}"])
        return try PostgresObjects(model: model, types: types, rows: rows.rows)
    }

    /// The stored properties in schema order, then the key as text (`PostgresObjects` reads).
    private func columns(_ model: ModelSchema) throws -> [String] {
        try translator.outputColumns(model, alias: "t0") + ["t0.\(tables.keyColumn(model))::pg_catalog.text"]
    }
}

extension PostgresStore {
    /// Runs `body` with a reader of one consistent snapshot of the database: the open
    /// transaction's, its own writes included, or a `REPEATABLE READ READ ONLY` one of its own.
    public func readingObjects<T>(_ body: (PostgresObjectReader) throws -> T) throws -> T {
        guard isInTransaction else {
            return try PostgresObjectReader.inSnapshot(connection, schema: schema, body)
        }
        return try read { try body(PostgresObjectReader(connection: connection, schema: schema)) }
    }
}
