import Trove

/// What a statement produced.
public enum ShellResult: Sendable, Equatable {
    /// Objects of a query (or of the query part of `export`), in the order to print.
    case objects(ResultSet)
    /// `get`: one entry per requested key, nil where no object has that key.
    case lookup(columns: [String], objects: [JSONObject?], decimalColumns: Set<String> = [])
    /// `count`
    case count(Int)
    /// `sum`, `avg`, `min`, `max`: one value, named by the statement's function.
    case value(name: String, Value)
    /// A committed (or, in a transaction, pending) write.
    case written(WriteSummary)
    /// `explain`: how the query runs, e.g. `{"model": "Person", "index": "age", "estimatedRows": 12}`.
    case plan(JSONObject)
    /// Nothing to print (`watch` after streaming, transaction control).
    case none
}

/// Rows with their column order (schema order of the model's properties).
public struct ResultSet: Sendable, Equatable {
    public var columns: [String]
    public var rows: [JSONObject]
    /// The columns that hold decimals: numbers whose JSON form is a string.
    public var decimalColumns: Set<String>

    public init(columns: [String], rows: [JSONObject], decimalColumns: Set<String> = []) {
        self.columns = columns
        self.rows = rows
        self.decimalColumns = decimalColumns
    }
}

/// Counts of a write, printed as `{"inserted": N}`, `{"updated": N}` or `{"deleted": N}`;
/// nil counts are left out.
public struct WriteSummary: Sendable, Equatable {
    public var inserted: Int?
    public var updated: Int?
    public var deleted: Int?

    public init(inserted: Int? = nil, updated: Int? = nil, deleted: Int? = nil) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// What `upsert` and `import ... MERGE` report, one count as the contract wants:
    /// `updated` when every record updated an existing object, otherwise `inserted`
    /// counting every record written, as PostgreSQL's `INSERT ... ON CONFLICT DO UPDATE`
    /// counts its rows.
    public static func upsert(inserted: Int, updated: Int) -> WriteSummary {
        inserted == 0 && updated > 0 ? WriteSummary(updated: updated) : WriteSummary(inserted: inserted + updated)
    }

    /// The summary as the JSON object the shell prints.
    public var object: JSONObject {
        var pairs: [(key: String, value: JSONValue)] = []
        if let inserted { pairs.append(("inserted", .int(Int64(inserted)))) }
        if let updated { pairs.append(("updated", .int(Int64(updated)))) }
        if let deleted { pairs.append(("deleted", .int(Int64(deleted)))) }
        return JSONObject(pairs)
    }
}
