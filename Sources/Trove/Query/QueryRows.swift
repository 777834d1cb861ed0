/// One result of a projected or grouped query: its values in column order, each named.
public struct QueryRow: Sendable, Hashable {
    /// The column names, in order: the SELECT items' names, or a group's key paths and `@count`.
    public let names: [String]
    /// The values, one per name. Links are their target's primary key, and a link to a model
    /// without a primary key a `.reference` to its object; a path through a list is a `.list`.
    public let values: [Value]
    /// What the row stands for, so that a later run's rows can be matched to these.
    public let identity: Identity

    /// The object a projected row was read from, or the key values of a group.
    ///
    /// Two group identities are equal when their key values make one group, so a group of
    /// NaN is the same group in each run.
    public enum Identity: Sendable, Hashable {
        case object(ObjectReference)
        case group([Value])

        public static func == (a: Identity, b: Identity) -> Bool {
            switch (a, b) {
            case (.object(let x), .object(let y)): x == y
            case (.group(let x), .group(let y)): GroupingKey(x) == GroupingKey(y)
            default: false
            }
        }

        public func hash(into hasher: inout Hasher) {
            switch self {
            case .object(let reference):
                hasher.combine(0)
                hasher.combine(reference)
            case .group(let values):
                hasher.combine(1)
                hasher.combine(GroupingKey(values))
            }
        }
    }

    public init(names: [String], values: [Value], identity: Identity) {
        self.names = names
        self.values = values
        self.identity = identity
    }

    /// Rows are equal when their names are and their values are the same as stored
    /// (``Value/isStoredSame(as:)``, the rule an update uses to decide whether a value
    /// changes), whatever they stand for: a NaN equals itself, so a row equals itself, and
    /// strings compare by their UTF-8 bytes.
    public static func == (a: QueryRow, b: QueryRow) -> Bool {
        a.names == b.names && a.values.count == b.values.count && zip(a.values, b.values).allSatisfy { $0.isStoredSame(as: $1) }
    }

    /// Agrees with `==`: values the same as stored hash alike under `Value`'s own hash (equal
    /// strings by `==`, doubles by their bits with -0 as 0).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(names)
        hasher.combine(values)
    }

    /// The (name, value) pairs in column order.
    public var pairs: [(name: String, value: Value)] {
        Array(zip(names, values)).map { (name: $0.0, value: $0.1) }
    }

    /// The row as a JSON object, keys in column order: dates ISO 8601, data base64, decimals
    /// and UUIDs as strings, as objects print.
    ///
    /// A link to a model without a primary key (a `.reference`, alone or in a list) is its
    /// object's internal key, a number of the backend's own (a store's and PostgreSQL's
    /// differ): a row holds no snapshot to read the object from. The shell prints
    /// that object nested instead, as `export` writes it, read in the snapshot the query ran
    /// in; in Swift, read it from ``values`` with `Snapshot.object(_:)` in that snapshot.
    public var json: JSONObject {
        JSONObject(zip(names, values).map { (key: $0.0, value: Self.json($0.1)) })
    }

    /// The JSON form of one value as ``json`` writes it (a `.reference` as its object's
    /// internal key).
    public static func json(_ value: Value) -> JSONValue {
        switch value {
        case .list(let items): .array(items.map(json))
        case .reference(let r): .int(Int64(bitPattern: r.key))
        case .object: .null
        default: value.jsonValue
        }
    }

    /// The value of the column `name`, or nil when no column has that name.
    public subscript(name: String) -> Value? {
        names.firstIndex(of: name).map { values[$0] }
    }
}

/// The rows of a projected or grouped query, in order, with their column names.
public struct QueryRows: Sendable, Hashable, RandomAccessCollection {
    public let columns: [String]
    public let rows: [QueryRow]

    public init(columns: [String], rows: [QueryRow]) {
        self.columns = columns
        self.rows = rows
    }

    public var startIndex: Int { rows.startIndex }
    public var endIndex: Int { rows.endIndex }
    public subscript(position: Int) -> QueryRow { rows[position] }
}
