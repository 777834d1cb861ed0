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
        var references: [ObjectReference] = []
        for row in rows {
            for value in row {
                switch value {
                case .reference(let reference): references.append(reference)
                case .list(let items): for case .reference(let reference) in items { references.append(reference) }
                default: break
                }
            }
        }
        let nested = PostgresNestedObjects(reader: reader, references: references)
        return try ResultRows.nested(columns, rows, json, schema: reader.schema, cyclesEnd: cyclesEnd) { try nested.object($0) }
    }
}
