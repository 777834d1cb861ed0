import Trove

/// The values bound to `$0`, `$1`, ... by `--arg` and `.param set`: each is read as a literal of the type of the
/// property it meets (a number for `int`, ISO 8601 for `date`, base64 for `data`, ...), and
/// is never query text.
struct ParameterValues {
    let texts: [String]

    init(_ texts: [String]) { self.texts = texts }

    /// The values as the query engine takes them: strings it types by the property they meet.
    var values: [Value] { texts.map(Value.string) }

    /// The text of `$index`; `offset` is where `$index` stands.
    func text(_ index: Int, at offset: Int) throws(StatementError) -> String {
        guard index < texts.count else {
            let bound = texts.isEmpty ? "none is bound" : texts.count == 1 ? "only $0 is bound" : "only $0 to $\(texts.count - 1) are bound"
            throw StatementError("$\(index) has no value: \(bound) (bind them with --arg VALUE, or .param set N VALUE)", at: offset)
        }
        return texts[index]
    }

    /// `$index` as the JSON array a list property takes.
    func json(_ index: Int, for property: PropertySchema, at offset: Int) throws(StatementError) -> JSONValue {
        let text = try text(index, at: offset)
        do {
            return try JSONParser().parse(text)
        } catch {
            throw StatementError("$\(index) is \(JSONValue.string(text).jsonText), which is not a JSON array (property '\(property.name)' is \(property.typeString))", at: offset)
        }
    }
}
