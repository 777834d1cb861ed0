import Trove
import TrovePostgres

/// The JSON of `insert` and `upsert`: one object, or an array of objects.
enum JSONRecords {
    struct Record {
        var object: JSONObject
        /// Where the record starts in the statement.
        var offset: Int
    }

    static func parse(_ fragment: SourceFragment) throws -> [Record] {
        let value: JSONValue, starts: [Int]
        do {
            (value, starts) = try JSONParser().parseWithElementOffsets(fragment.text)
        } catch {
            throw StatementError("invalid JSON: \(error.message)", at: fragment.offset + error.byteOffset)
        }
        switch value {
        case .object(let object):
            return [Record(object: object, offset: fragment.offset)]
        case .array(let elements):
            return try elements.enumerated().map { index, element in
                let offset = fragment.offset + starts[index]
                guard case .object(let object) = element else {
                    throw StatementError("record \(index + 1) is \(element.typeDescription), not an object", at: offset)
                }
                return Record(object: object, offset: offset)
            }
        default:
            throw StatementError("expected a JSON object or an array of objects, found \(value.typeDescription)", at: fragment.offset)
        }
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
                try links.setAside(&values, in: destination, at: record.offset) { property in records.count > 1 ? "\(place) (\(property))" : property }
            }
            try WriteFailure.naming(record: index, of: records.count, at: record.offset) {
                if try destination.write(model.name, values, merge: merge, at: place) { inserted += 1 } else { updated += 1 }
            }
        }
        try placed(at: nil) { try links.finish(in: destination) }
        return merge ? .upsert(inserted: inserted, updated: updated) : WriteSummary(inserted: inserted)
    }

    /// Runs a step of `ForwardLinks`, whose errors name their record and property themselves
    /// and stand at their record (a link set once every record is in says which), else at `offset`.
    private static func placed(at offset: Int?, _ body: () throws -> Void) throws {
        do {
            try WriteFailure.wrap(body)
        } catch var failure as WriteFailure {
            failure.underlying.offset = failure.underlying.offset ?? (failure.cause as? ImportFailure)?.offset ?? offset
            throw failure
        }
    }
}
