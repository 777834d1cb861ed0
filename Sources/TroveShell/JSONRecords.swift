import Trove

/// The JSON of `insert` and `upsert`: one object, or an array of objects.
enum JSONRecords {
    struct Record {
        var object: JSONObject
        /// Where the record starts in the statement.
        var offset: Int
    }

    static func parse(_ fragment: SourceFragment) throws -> [Record] {
        let value: JSONValue
        do {
            value = try JSONParser().parse(fragment.text)
        } catch {
            throw StatementError("invalid JSON: \(error.message)", at: fragment.offset + error.byteOffset)
        }
        switch value {
        case .object(let object):
            return [Record(object: object, offset: fragment.offset)]
        case .array(let elements):
            return try elements.enumerated().map { index, element in
                guard case .object(let object) = element else {
                    throw StatementError("record \(index + 1) is \(element.typeDescription), not an object", at: fragment.offset)
                }
                return Record(object: object, offset: fragment.offset)
            }
        default:
            throw StatementError("expected a JSON object or an array of objects, found \(value.typeDescription)", at: fragment.offset)
        }
    }
}
