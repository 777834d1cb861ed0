import Trove

/// What the shell needs from a store, and all it knows of one.
///
/// The shell parses the command line, splits and recognizes statements, prints results and
/// runs the REPL; a backend interprets recognized statements against a store. Errors a
/// backend throws are printed as `error: ...`: throw `StatementError` with an offset
/// (UTF-8, from the statement's start) to have the line and column named.
public protocol ShellBackend: AnyObject {
    /// The store's models in schema order, for `.models`, `.schema` and tab completion.
    func models() throws -> [ModelDescription]

    /// Runs one statement other than `begin`/`commit`/`rollback`. A write outside an
    /// explicit transaction must be atomic and committed before this returns.
    func execute(_ statement: ShellStatement, context: ExecutionContext) throws -> ShellResult

    /// Starts an explicit transaction around the following statements.
    func begin() throws
    func commit() throws
    func rollback() throws
    /// Whether an explicit transaction is open (write summaries wait for its commit).
    var isInTransaction: Bool { get }
}

/// How to open the store, from the command line.
public struct BackendConfiguration: Sendable, Equatable {
    /// A file path, or nil for a transient in-memory store (`:memory:` or no DATABASE).
    public var databasePath: String?
    /// The `--schema` file's path and contents (the shell reads it, so that an unreadable
    /// file is a usage error with exit status 2).
    public var schema: (path: String, text: String)?
    public var readOnly: Bool
    public var resetOnMigration: Bool

    public init(databasePath: String?, schema: (path: String, text: String)?, readOnly: Bool, resetOnMigration: Bool) {
        self.databasePath = databasePath
        self.schema = schema
        self.readOnly = readOnly
        self.resetOnMigration = resetOnMigration
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.databasePath == b.databasePath && a.schema?.path == b.schema?.path && a.schema?.text == b.schema?.text
            && a.readOnly == b.readOnly && a.resetOnMigration == b.resetOnMigration
    }
}

/// What a statement produced.
public enum ShellResult: Sendable, Equatable {
    /// Objects of a query (or of the query part of `export`), in the order to print.
    case objects(ResultSet)
    /// `get`: one entry per requested key, nil where no object has that key.
    case lookup(columns: [String], objects: [JSONObject?])
    /// `count`
    case count(Int)
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

    public init(columns: [String], rows: [JSONObject]) {
        self.columns = columns
        self.rows = rows
    }
}

/// Counts of a write, printed as `{"inserted": N}` etc.; nil counts are left out, so an
/// upsert may report `{"inserted": 2, "updated": 1}`.
public struct WriteSummary: Sendable, Equatable {
    public var inserted: Int?
    public var updated: Int?
    public var deleted: Int?

    public init(inserted: Int? = nil, updated: Int? = nil, deleted: Int? = nil) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
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

/// A model as `.models`, `.schema` and completion see it.
public struct ModelDescription: Sendable, Equatable {
    public var name: String
    public var primaryKey: String?
    /// In schema order.
    public var properties: [PropertyDescription]

    public init(name: String, primaryKey: String? = nil, properties: [PropertyDescription]) {
        self.name = name
        self.primaryKey = primaryKey
        self.properties = properties
    }
}

/// A property as a schema file writes it.
public struct PropertyDescription: Sendable, Equatable {
    public var name: String
    /// The schema file's type string: `"int"`, `"date?"`, `"Dog[]"`, `"Person?"`, or
    /// `"linkingObjects"`.
    public var type: String
    /// The linked model of a link, a list of links or linkingObjects, so completion can
    /// follow key paths such as `owner.name`.
    public var objectType: String?
    /// For linkingObjects: the link property of `objectType` it inverts.
    public var linkProperty: String?
    public var isIndexed: Bool

    public init(name: String, type: String, objectType: String? = nil, linkProperty: String? = nil, isIndexed: Bool = false) {
        self.name = name
        self.type = type
        self.objectType = objectType
        self.linkProperty = linkProperty
        self.isIndexed = isIndexed
    }
}
