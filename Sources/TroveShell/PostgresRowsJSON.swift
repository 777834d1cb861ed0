import Trove
import TrovePostgres

extension PostgresStore {
    /// What statement `text` answers (`run`), and the JSON the shell prints for its objects or
    /// rows: each link to a model without a primary key nested as `export` writes it (objects:
    /// `PostgresObjects.nestedJSON`, rows of SELECT or GROUP: `ResultRows.nested`), its object
    /// read in the statement's snapshot. Whether the answer may hold such links is known from
    /// the statement before it runs (`answerKind(of:arguments:)`), so that it runs once: in a
    /// snapshot with those objects when it may, plainly when it may not.
    func runForShell(_ text: String, arguments: [Value]) throws -> (answer: Answer, rows: [JSONObject]) {
        let nests = switch try answerKind(of: text, arguments: arguments) {
        case .objects(let model): schema[model].map { !StoreDump.linksWrittenNested($0, schema: schema).isEmpty } ?? false
        case .rows(let readsReferences): readsReferences
        case .value: false
        }
        guard nests else {
            let answer = try run(text, arguments: arguments)
            switch answer {
            case .objects(let objects): return (answer, objects.json)
            case .rows(let rows): return (answer, rows.json)
            case .value: return (answer, [])
            }
        }
        return try readingObjects { reader in
            let answer = try run(text, arguments: arguments)
            switch answer {
            case .objects(let objects): return (answer, try objects.nestedJSON(reader, cyclesEnd: true))
            case .rows(let rows): return (answer, try rows.nestedJSON(reader, cyclesEnd: true))
            case .value: return (answer, [])
            }
        }
    }
}

extension PostgresObjects {
    /// The objects as the shell prints them (`ResultRows.json(of:links:schema:)`): each link to
    /// a model without a primary key nested, its object read by `reader` (in the snapshot the
    /// objects were read in). With `cyclesEnd` (printing, not `export`), a link to an object
    /// already on its own path is null.
    func nestedJSON(_ reader: PostgresObjectReader, cyclesEnd: Bool = false) throws -> [JSONObject] {
        let schema = reader.schema
        let links = StoreDump.linksWrittenNested(model, schema: schema)
        guard !links.isEmpty else { return json }
        let nested = PostgresNestedObjects(reader: reader, model: model, objects: objects)
        return try zip(keys, objects).map { key, values in
            try ResultRows.json(of: PostgresDumpObject(nested: nested, model: model, key: key, values: values), links: links, schema: schema, cyclesEnd: cyclesEnd)
        }
    }
}

extension PostgresProjectedRows {
    /// The rows' JSON with each link to a model without a primary key nested, its object read
    /// by `reader` (in the snapshot the rows were read in); `cyclesEnd` as for objects.
    func nestedJSON(_ reader: PostgresObjectReader, cyclesEnd: Bool = false) throws -> [JSONObject] {
        try nestedJSON(reader, rows: rows.indices, json: json, cyclesEnd: cyclesEnd)
    }

    /// `nestedJSON(_:cyclesEnd:)` of the rows in `range` alone, whose plain JSON is `json`
    /// (`self.json[range]`): `export` nests a batch of rows at a time.
    func nestedJSON(_ reader: PostgresObjectReader, rows range: Range<Int>, json: some Collection<JSONObject>,
                    cyclesEnd: Bool = false) throws -> [JSONObject] {
        let some = Array(rows[range])
        let nested = PostgresNestedObjects(reader: reader, references: ResultRows.references(in: some))
        return try ResultRows.nested(columns, some, Array(json), schema: reader.schema, cyclesEnd: cyclesEnd) { try nested.object($0) }
    }
}
