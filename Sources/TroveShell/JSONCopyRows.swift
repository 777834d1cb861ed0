import Trove
import TrovePostgres

/// JSON records written into an import's COPY (`PostgresBulkInsert`) from the parsed object,
/// with no `[String: Value]` made for them: each field in a form whose value as its property's
/// type is certain goes into the row as `PostgresBulkInsert.add(_:at:)` would write that value:
/// - a JSON integer for an integer property (in its range), or for a `double` property;
/// - a JSON number with a fraction or an exponent for a `double` property;
/// - a JSON string for a `string` property (without a NUL);
/// - `true` or `false` for a `bool` property;
/// - `null` for an optional property;
/// and a property the record leaves out gets its default (as `CSVCopyRows` gives it).
///
/// A record with any other field (a link, a list, a date, a property the model has not, a
/// name given twice, a value of another kind, ...) returns false and goes the general way
/// (`ImportDestination.values(fromJSON:model:)`, then `PostgresBulkInsert.add(_:at:)`),
/// which reads it and reports its errors: so what is imported, and every error, is the same
/// either way.
struct JSONCopyRows {
    private struct Column {
        var name: String
        var kind: PostgresColumnKind.Kind?
        /// Whether null is the column's (of any type: null is written as no text).
        var optional: Bool
        /// The field a record that leaves the column out gets; nil for the primary key, and
        /// for a default COPY cannot carry.
        var omitted: [UInt8]?
        var omittedLineBreaks: Int
    }

    private let bulk: PostgresBulkInsert
    private let columns: [Column]
    /// For each column, the index of its pair in the record (kept for its capacity).
    private var pairOf: [Int]

    /// Nil when the bulk insert is of another model, or the model has no columns or a list
    /// whose default COPY cannot carry.
    init?(model: ModelSchema, bulk: PostgresBulkInsert) {
        guard bulk.model.name == model.name, !bulk.columns.isEmpty else { return nil }
        for property in model.properties where property.isStored && property.type.isList {
            guard PostgresBulkInsert.copyCarries(list: property.valueWhenOmitted) else { return nil }
        }
        var columns: [Column] = []
        for (index, property) in bulk.columns.enumerated() {
            let omitted = index == bulk.keyColumn ? nil : (try? bulk.defaultField(column: index)) ?? nil
            columns.append(Column(name: property.name, kind: bulk.direct[index]?.kind, optional: property.isOptional,
                                  omitted: omitted?.field, omittedLineBreaks: omitted?.lineBreaks ?? 0))
        }
        self.bulk = bulk
        self.columns = columns
        pairOf = Array(repeating: -1, count: columns.count)
    }

    /// Writes the record into the COPY and returns true; or returns false, writing nothing,
    /// when a field is not in a form this takes.
    mutating func add(_ object: JSONObject, at place: RecordPlace) throws -> Bool {
        let pairs = object.pairs
        for index in pairOf.indices { pairOf[index] = -1 }
        for (pair, item) in pairs.enumerated() {
            guard let column = columns.firstIndex(where: { $0.name == item.key }), pairOf[column] < 0 else { return false }
            pairOf[column] = pair
        }
        do {
            return try bulk.add(at: place) { row in write(pairs, to: &row) }
        } catch let error as PostgresRowError {
            throw ImportFailure(error.description)
        }
    }

    /// Appends the row of the record whose pairs are `pairs` (by column, as `pairOf` says) to
    /// `row`; nil when a field is not in a form this takes.
    private func write(_ pairs: [(key: String, value: JSONValue)], to row: inout [UInt8]) -> PostgresBulkInsert.WrittenRow? {
        let keyColumn = bulk.keyColumn
        var written = PostgresBulkInsert.WrittenRow(keyField: nil, lineBreaks: 0)
        for (index, column) in columns.enumerated() {
            if index > 0 { row.append(UInt8(ascii: ",")) }
            guard pairOf[index] >= 0 else {
                guard let omitted = column.omitted else { return nil }
                row.append(contentsOf: omitted)
                written.lineBreaks += column.omittedLineBreaks
                continue
            }
            let value = pairs[pairOf[index]].value
            switch (column.kind, value) {
            case (_, .null):
                guard column.optional else { return nil }
            case (.integer(let range)?, .int(let integer)):
                guard range.contains(integer) else { return nil }
                let start = row.count
                PostgresBulkInsert.appendQuoted(integer, to: &row)
                if index == keyColumn { written.keyField = start..<row.count }
            case (.double?, .int(let integer)):
                guard index != keyColumn else { return nil }
                Self.appendText(PostgresValues.text(Double(integer)), to: &row)
            case (.double?, .double(let double)):
                guard index != keyColumn else { return nil }
                Self.appendText(PostgresValues.text(double), to: &row)
            case (.string?, .string(let string)):
                var string = string
                let start = row.count
                guard let breaks = string.withUTF8({ PostgresBulkInsert.appendQuoted($0, to: &row) }) else { return nil }
                written.lineBreaks += breaks
                if index == keyColumn { written.keyField = start..<row.count }
            case (.bool?, .bool(let bool)):
                guard index != keyColumn else { return nil }
                Self.appendText(bool ? "true" : "false", to: &row)
            default:
                return nil
            }
        }
        return written
    }

    private static func appendText(_ text: String, to row: inout [UInt8]) {
        var text = text
        _ = text.withUTF8 { PostgresBulkInsert.appendQuoted($0, to: &row) }
    }
}
