import Trove
import TrovePostgres

extension PostgresStore {
    /// What statement `text` answers (`run`), and for rows of SELECT or GROUP the JSON the shell
    /// prints: each link to a model without a primary key (a `.reference`) nested as `export`
    /// writes it (`ResultRows.nested`), its object read in the statement's snapshot. Rows that
    /// hold such links outside a transaction are read again in a snapshot of their own, with
    /// their objects; others cost nothing more.
    func runForShell(_ text: String, arguments: [Value]) throws -> (answer: Answer, rows: [JSONObject]) {
        let answer = try run(text, arguments: arguments)
        guard case .rows(let rows) = answer else { return (answer, []) }
        guard ResultRows.holdReferences(rows.rows) else { return (answer, rows.json) }
        return try readingObjects { reader in
            let again = isInTransaction ? answer : try run(text, arguments: arguments)
            guard case .rows(let rows) = again else { return (again, []) }
            return (again, try rows.nestedJSON(reader))
        }
    }
}

extension PostgresProjectedRows {
    /// The rows' JSON with each link to a model without a primary key nested, its object read
    /// by `reader` (in the snapshot the rows were read in).
    func nestedJSON(_ reader: PostgresObjectReader) throws -> [JSONObject] {
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
        return try ResultRows.nested(columns, rows, json, schema: reader.schema) { try nested.object($0) }
    }
}
