import Trove
import TrovePostgres

/// Where `import` writes its records: a store's transaction, or a PostgreSQL database
/// (`PostgresBackend`). The files are read, their values coerced and their forward links
/// set by the same code (`StoreImport`, `CSVImport`, `ForwardLinks`) whichever it is.
protocol ImportDestination {
    var schema: Schema { get }
    /// The values of a JSON object for `model`, as `insert` reads them.
    func values(fromJSON json: JSONObject, model: String) throws -> [String: Value]
    /// Whether `model` holds an object with this primary key.
    func contains(_ model: String, primaryKey: Value) throws -> Bool
    /// Sets `values` on the object of `model` with this primary key.
    func update(_ model: String, primaryKey: Value, set values: [String: Value]) throws
    /// Inserts an object (an existing primary key is an error) or, with `merge`, upserts it;
    /// returns whether it created one. `place` says where the object stood in the input, for
    /// an error found later (a write may be held back until `finish()`); its text is made only
    /// for that error.
    func write(_ model: String, _ values: [String: Value], merge: Bool, at place: RecordPlace) throws -> Bool
    /// Writes what is held back.
    func finish() throws
    /// The COPY that records of the imported model may be written into as they stand
    /// (`CSVCopyRows`): PostgreSQL's, without MERGE.
    var bulkInsert: PostgresBulkInsert? { get }
}

extension Transaction: ImportDestination {
    func contains(_ model: String, primaryKey: Value) throws -> Bool {
        try object(model, primaryKey: primaryKey) != nil
    }

    func update(_ model: String, primaryKey: Value, set values: [String: Value]) throws {
        _ = try update(model, primaryKey: primaryKey, values)
    }

    func finish() throws {}

    var bulkInsert: PostgresBulkInsert? { nil }

    func write(_ model: String, _ values: [String: Value], merge: Bool, at place: RecordPlace) throws -> Bool {
        if merge { return try upsert(model, values).created }
        try insert(model, values)
        return true
    }
}
