/// How `import` reads its file.
public enum ImportFormat: String, Sendable, Equatable {
    /// A JSON array or JSON lines.
    case json
    /// RFC 4180 CSV with a header line.
    case csv
    /// The same with tabs between fields.
    case tsv

    /// The format FILE's name implies: `.csv`, `.tsv`, anything else JSON.
    public init(fileName: String) {
        let lowered = fileName.lowercased()
        self = lowered.hasSuffix(".csv") ? .csv : lowered.hasSuffix(".tsv") ? .tsv : .json
    }
}

/// One statement of the shell language, recognized but not interpreted.
///
/// Every piece the store must interpret (model names, queries, predicates, JSON, keys, values)
/// is a `SourceFragment`, so a backend can hand its text to the store's parsers and report
/// errors at `fragment.offset + positionInFragment`.
public enum ShellStatement: Sendable, Equatable {
    /// `MODEL [where PREDICATE] [SORT(...)] [DISTINCT(...)] [OFFSET(N)] [LIMIT(N)]`
    case query(QuerySpec)
    /// `count MODEL [where PREDICATE]`
    case count(model: SourceFragment, predicate: SourceFragment?)
    /// `get MODEL PK [PK ...]`; each key is a raw literal (`42`, `'ann'`, `$0`, a bare UUID).
    case get(model: SourceFragment, keys: [SourceFragment])
    /// `insert MODEL JSON`: the JSON text is an object or an array of objects.
    case insert(model: SourceFragment, json: SourceFragment)
    /// `upsert MODEL JSON`
    case upsert(model: SourceFragment, json: SourceFragment)
    /// `update MODEL PK set ...` or `update MODEL where PREDICATE set ...`
    case update(model: SourceFragment, target: WriteTarget, assignments: [Assignment])
    /// `delete MODEL PK [PK ...]` or `delete MODEL where PREDICATE`
    case delete(model: SourceFragment, target: WriteTarget)
    /// `import MODEL FILE [AS CSV|TSV|JSON] [MERGE]`; `-` is standard input (see
    /// `ExecutionContext.openInput`). Without `AS` the format follows FILE's name; `MERGE`
    /// creates or updates only the given properties, as `upsert` does.
    case importFile(model: SourceFragment, file: SourceFragment, format: ImportFormat? = nil, merge: Bool = false)
    /// `export MODEL [where PREDICATE] [FILE]`; no file (or `-`) is standard output.
    case export(QuerySpec, file: SourceFragment?)
    /// `explain QUERY`
    case explain(QuerySpec)
    /// `watch QUERY`: streams change events through `ExecutionContext.emit` until cancelled.
    case watch(QuerySpec)
    case begin
    case commit
    case rollback

    /// Whether the statement changes the store (refused under `--readonly`).
    public var isWrite: Bool {
        switch self {
        case .insert, .upsert, .update, .delete, .importFile: true
        default: false
        }
    }

    /// The statement's leading keyword, as used in messages (`"insert"`, `"query"`, ...).
    public var keyword: String {
        switch self {
        case .query: "query"
        case .count: "count"
        case .get: "get"
        case .insert: "insert"
        case .upsert: "upsert"
        case .update: "update"
        case .delete: "delete"
        case .importFile: "import"
        case .export: "export"
        case .explain: "explain"
        case .watch: "watch"
        case .begin: "begin"
        case .commit: "commit"
        case .rollback: "rollback"
        }
    }
}

/// The query of a plain query statement, `export`, `explain` and `watch`.
public struct QuerySpec: Sendable, Equatable {
    /// The model queried.
    public var model: SourceFragment
    /// The query as typed, from the model name to its last clause, for the store's query
    /// parser: `Person where age > 3 SORT(name) LIMIT(10)`.
    public var text: SourceFragment

    public init(model: SourceFragment, text: SourceFragment) {
        self.model = model
        self.text = text
    }
}

/// Which objects an `update` or `delete` applies to.
public enum WriteTarget: Sendable, Equatable {
    /// Primary keys as raw literals.
    case keys([SourceFragment])
    /// The text after `where`.
    case predicate(SourceFragment)
}

/// `PROP = VALUE` in an `update ... set` list; the value is a raw literal (number, quoted
/// string, `true`, `nil`, `$0`, a JSON array or object).
public struct Assignment: Sendable, Equatable {
    public var property: SourceFragment
    public var value: SourceFragment

    public init(property: SourceFragment, value: SourceFragment) {
        self.property = property
        self.value = value
    }
}
