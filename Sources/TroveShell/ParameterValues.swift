import Trove

/// The `--arg` values bound to `$0`, `$1`, ...: each is read as a literal of the type of the
/// property it meets (a number for `int`, ISO 8601 for `date`, base64 for `data`, ...), and
/// is never query text.
struct ParameterValues {
    let texts: [String]

    init(_ texts: [String]) { self.texts = texts }

    /// The values as the query engine takes them: strings it types by the property they meet.
    var values: [Value] { texts.map(Value.string) }

    /// `$index` as the JSON value of a property of `type`; `offset` is where `$index` stands.
    func json(_ index: Int, for type: PropertyType, property: String, schema: Schema, at offset: Int) throws(StatementError) -> JSONValue {
        guard index < texts.count else {
            let given = texts.isEmpty ? "no --arg was given" : texts.count == 1 ? "only 1 --arg was given" : "only \(texts.count) --arg values were given"
            throw StatementError("$\(index) has no value: \(given)", at: offset)
        }
        let text = texts[index]
        func bad(_ what: String) -> StatementError {
            StatementError("$\(index) is \(JSONValue.string(text).jsonText), which is not \(what) (property '\(property)' is \(type))", at: offset)
        }
        let lowered = text.lowercased()
        if type != .string, lowered == "null" || lowered == "nil" { return .null }
        switch type {
        case .int, .int8, .int16, .int32, .int64:
            if let i = Int64(text) { return .int(i) }
            if let d = Double(text), d.isFinite { return .double(d) }
            throw bad("an integer")
        case .float, .double:
            if let i = Int64(text) { return .int(i) }
            if let d = Double(text) { return .double(d) }
            throw bad("a number")
        case .bool:
            switch lowered {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw bad("true or false")
            }
        case .string, .date, .data, .decimal, .uuid:
            return .string(text)
        case .link(let target):
            guard let pk = schema[target]?.primaryKeyProperty else { throw bad("an object (\(target) has no primary key)") }
            return try json(index, for: pk.type, property: property, schema: schema, at: offset)
        case .list, .linkingObjects:
            do {
                return try JSONParser().parse(text)
            } catch {
                throw bad("a JSON array")
            }
        }
    }
}
