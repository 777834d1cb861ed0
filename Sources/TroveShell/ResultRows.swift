import Trove

/// Query results as the rows the shell prints.
enum ResultRows {
    /// The stored properties of `model`, in schema order: the columns of its objects.
    static func columns(of model: ModelSchema) -> [String] {
        model.properties.filter(\.isStored).map(\.name)
    }

    /// Every object of `results` as JSON (`json(of:links:schema:)`), stopping early at Ctrl-C.
    static func make(_ results: Results, context: ExecutionContext) throws -> ResultSet {
        let schema = results.snapshot.schema
        guard let model = schema[results.modelName] else { return ResultSet(columns: [], rows: []) }
        let links = StoreDump.linksWrittenNested(model, schema: schema)
        var rows: [JSONObject] = []
        rows.reserveCapacity(results.count)
        for (i, object) in results.enumerated() {
            if i % 1024 == 0, context.isCancelled { throw StatementError("interrupted") }
            rows.append(try json(of: object, links: links, schema: schema, cyclesEnd: true))
        }
        return ResultSet(columns: columns(of: model), rows: rows, decimalColumns: decimalColumns(of: model))
    }

    /// An object as the shell prints it: its JSON form, with each of `links`
    /// (`StoreDump.linksWrittenNested` of its model) nested as `export` writes it
    /// (`StoreDump.withNestedLinks`), so that the text is the same on a store and on PostgreSQL,
    /// whose internal keys of such objects differ. With `cyclesEnd` (printing, not `export`), a
    /// link to an object already on its own path is null.
    static func json(of object: some DumpObject, links: [PropertySchema], schema: Schema, cyclesEnd: Bool = false) throws -> JSONObject {
        let json = try object.json()
        return links.isEmpty ? json : try StoreDump.withNestedLinks(object, json, links, schema: schema, cyclesEnd: cyclesEnd)
    }

    /// The properties of `model` that hold a decimal.
    static func decimalColumns(of model: ModelSchema) -> Set<String> {
        Set(model.properties.filter { $0.type == .decimal }.map(\.name))
    }

    /// The `columns` where a decimal stands in `rows` (each row's values in column order).
    static func decimalColumns(_ columns: [String], of rows: some Sequence<[Value]>) -> Set<String> {
        var result: Set<String> = []
        for row in rows {
            for (name, value) in zip(columns, row) {
                if case .decimal = value { result.insert(name) }
            }
        }
        return result
    }

    /// Projected or grouped rows of `snapshot` as the shell prints them.
    static func make(_ rows: QueryRows, in snapshot: Snapshot) throws -> ResultSet {
        ResultSet(columns: rows.columns, rows: try json(rows, in: snapshot, cyclesEnd: true), decimalColumns: decimalColumns(rows.columns, of: rows.map(\.values)))
    }

    /// The JSON of projected or grouped rows of `snapshot`, links to models without a primary
    /// key nested (`nested`).
    static func json(_ rows: QueryRows, in snapshot: Snapshot, cyclesEnd: Bool = false) throws -> [JSONObject] {
        try nested(rows.columns, rows.map(\.values), rows.map(\.json), schema: snapshot.schema, cyclesEnd: cyclesEnd) { try snapshot.object($0) }
    }

    /// Whether `rows` hold a link to a model without a primary key: a `.reference`, alone or
    /// in a list.
    static func holdReferences(_ rows: some Sequence<[Value]>) -> Bool {
        !references(in: rows).isEmpty
    }

    /// Every link to a model without a primary key that `rows` hold: each `.reference`, alone
    /// or in a list, in row and column order.
    static func references(in rows: some Sequence<[Value]>) -> [ObjectReference] {
        var found: [ObjectReference] = []
        for row in rows {
            for value in row {
                switch value {
                case .reference(let reference): found.append(reference)
                case .list(let items): for case .reference(let reference) in items { found.append(reference) }
                default: break
                }
            }
        }
        return found
    }

    /// `json`, the JSON of rows whose values are `values` (in `columns` order), with each link
    /// to a model without a primary key (a `.reference`, alone or in a list) written as `export`
    /// writes it, nested (`StoreDump.nestedReferences`), its objects read by `object`: the
    /// same text on a store and on PostgreSQL, its properties in schema order.
    static func nested(_ columns: [String], _ values: [[Value]], _ json: [JSONObject], schema: Schema, cyclesEnd: Bool = false,
                       object: (ObjectReference) throws -> (any DumpObject)?) throws -> [JSONObject] {
        guard holdReferences(values) else { return json }
        return try zip(values, json).map { row, rowJSON in
            var out = rowJSON
            for (name, value) in zip(columns, row) {
                out[name] = try StoreDump.nestedReferences(value, rowJSON[name] ?? .null, schema: schema, cyclesEnd: cyclesEnd, object: object)
            }
            return out
        }
    }
}
