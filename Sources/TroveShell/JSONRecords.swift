import Trove
import TrovePostgres

/// The JSON of `insert` and `upsert`: one object, or an array of objects.
enum JSONRecords {
    struct Record {
        var object: JSONObject
        /// Where the record starts in the statement.
        var offset: Int
        /// Where the statement's JSON starts: the place of an error no one record owns.
        var jsonOffset: Int
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
            return [Record(object: object, offset: fragment.offset, jsonOffset: fragment.offset)]
        case .array(let elements):
            let starts = elementStarts(fragment, count: elements.count)
            return try elements.enumerated().map { index, element in
                guard case .object(let object) = element else {
                    throw StatementError("record \(index + 1) is \(element.typeDescription), not an object", at: starts[index])
                }
                return Record(object: object, offset: starts[index], jsonOffset: fragment.offset)
            }
        default:
            throw StatementError("expected a JSON object or an array of objects, found \(value.typeDescription)", at: fragment.offset)
        }
    }

    /// Where each element of the JSON array `fragment` (valid JSON) starts in the statement, so
    /// that an error in a record points at it, not at the array.
    private static func elementStarts(_ fragment: SourceFragment, count: Int) -> [Int] {
        let scanner = StatementScanner(fragment.text)
        let array = scanner.trimmed(0..<scanner.bytes.count)
        let elements = count == 0 ? [] : scanner.splitTopLevel(array.lowerBound + 1..<array.upperBound - 1)
        guard elements.count == count else { return Array(repeating: fragment.offset, count: count) }
        return elements.map { fragment.offset + scanner.trimmed($0).lowerBound }
    }
}

extension JSONRecords {
    /// Writes the records of `insert` (or, with `merge`, of `upsert`) in the statement's
    /// transaction. A link may name a primary key that a later record of the array brings, as
    /// in `import`: `ForwardLinks` sets it once every record is in.
    static func write(_ records: [Record], of model: ModelSchema, merge: Bool, into destination: ImportDestination) throws -> WriteSummary {
        var links = ForwardLinks(model: model)
        var inserted = 0, updated = 0
        for (index, record) in records.enumerated() {
            let place: RecordPlace = records.count > 1 ? .record(index + 1) : .named("the object")
            var values = try WriteFailure.naming(record: index, of: records.count, at: record.offset) {
                try destination.values(fromJSON: record.object, model: model.name)
            }
            try placed(at: record.offset) {
                try links.setAside(&values, in: destination) { property in records.count > 1 ? "\(place) (\(property))" : property }
            }
            try WriteFailure.naming(record: index, of: records.count, at: record.offset) {
                if try destination.write(model.name, values, merge: merge, at: place) { inserted += 1 } else { updated += 1 }
            }
        }
        try placed(at: records.first?.jsonOffset) { try links.finish(in: destination) }
        return merge ? .upsert(inserted: inserted, updated: updated) : WriteSummary(inserted: inserted)
    }

    /// Runs a step of `ForwardLinks`, whose errors name their record and property themselves.
    private static func placed(at offset: Int?, _ body: () throws -> Void) throws {
        do {
            try WriteFailure.wrap(body)
        } catch let failure as WriteFailure {
            throw WriteFailure(underlying: StatementError(failure.underlying.message, at: failure.underlying.offset ?? offset), cause: failure.cause)
        }
    }
}
