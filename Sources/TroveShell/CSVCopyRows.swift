import Trove
import TrovePostgres

/// CSV records written into an import's COPY (`PostgresBulkInsert`) straight from the file's
/// bytes, with no `Value` or `String` made for their fields: what makes a large CSV import on
/// PostgreSQL cost about what the server's own reading of the file costs.
///
/// A field goes this way only in a form whose reading as a literal of its property's type is
/// certain, and written as `PostgresBulkInsert.add(_:at:)` would write that value:
/// - an integer property's plain decimal (`-42`, at most 18 digits), written as its value;
/// - a `double` property's plain decimal (`-4.125`, at most 40 digits), written as it
///   stands: PostgreSQL and Swift both read it with the C library's correctly rounded
///   `strtod`, so the server stores the double the literal is, and with no exponent and so
///   few digits it is never out of range;
/// - a `string` property's ASCII text without a NUL;
/// - an empty unquoted field of an optional property (null).
///
/// A record with any other field (`null`, an exponent, non-ASCII text, a field count that
/// does not match the header, ...) returns false and goes the general way (`CSVImport`'s
/// values, then `PostgresBulkInsert.add(_:at:)`), which reads it and reports its errors: so
/// what is imported, and every error, is the same either way.
struct CSVCopyRows {
    /// Where each of the bulk insert's columns comes from: a field of the record (its index
    /// in the header) or the column's default, the same in every row.
    private enum Source {
        case field(Int, PostgresColumnKind)
        case fixed([UInt8], lineBreaks: Int)
    }

    private let bulk: PostgresBulkInsert
    private let sources: [Source]
    private let fieldCount: Int
    /// The header index of the primary key, whose field the bulk insert keeps.
    private let keyField: Int?

    /// Nil when the model or the header has a column that cannot go this way in any record:
    /// a link or a list, another type, a primary key not in the header, or a default COPY
    /// cannot carry.
    init?(header: [PropertySchema], model: ModelSchema, bulk: PostgresBulkInsert) {
        for property in model.properties where property.isStored && property.type.isList {
            guard !header.contains(property), PostgresBulkInsert.copyCarries(list: property.valueWhenOmitted) else { return nil }
        }
        var sources: [Source] = []
        for (index, column) in bulk.columns.enumerated() {
            if let field = header.firstIndex(of: column) {
                guard let kind = PostgresColumnKind(column) else { return nil }
                // A `bool` field's spellings are coercion's to read.
                if case .bool = kind.kind { return nil }
                sources.append(.field(field, kind))
            } else {
                guard column.name != model.primaryKey, let fixed = try? bulk.defaultField(column: index) else { return nil }
                sources.append(.fixed(fixed.field, lineBreaks: fixed.lineBreaks))
            }
        }
        guard header.allSatisfy(bulk.columns.contains) else { return nil }
        self.bulk = bulk
        self.sources = sources
        fieldCount = header.count
        keyField = model.primaryKey.flatMap { key in header.firstIndex { $0.name == key } }
    }

    /// Writes the record `reader` holds (from `nextFields()`, starting at `place`) into the
    /// COPY and returns true; or returns false, writing nothing, when a field is not in a form
    /// this takes.
    func add(_ reader: CSVReader, at place: RecordPlace) throws -> Bool {
        let bounds = reader.fieldBounds
        guard bounds.count == fieldCount else { return false }
        do {
            return try reader.recordBytes.withUnsafeBufferPointer { bytes in
                try bulk.add(at: place) { row in write(bytes, bounds, to: &row) }
            }
        } catch let error as PostgresRowError {
            throw ImportFailure(error.description)
        } catch {
            throw ImportFailure("\(place): \(error)")
        }
    }

    /// Appends the row of the record whose fields are `bytes`, bounded by `bounds`, to `row`;
    /// nil when a field is not in a form this takes.
    private func write(_ bytes: UnsafeBufferPointer<UInt8>, _ bounds: [CSVReader.FieldBounds], to row: inout [UInt8]) -> PostgresBulkInsert.WrittenRow? {
        var written = PostgresBulkInsert.WrittenRow(keyField: nil, lineBreaks: 0)
        for (index, source) in sources.enumerated() {
            if index > 0 { row.append(UInt8(ascii: ",")) }
            switch source {
            case .fixed(let field, let breaks):
                row.append(contentsOf: field)
                written.lineBreaks += breaks
            case .field(let field, let kind):
                let start = field == 0 ? 0 : bounds[field - 1].end
                let text = UnsafeBufferPointer(rebasing: bytes[start..<bounds[field].end])
                if text.isEmpty, !bounds[field].quoted {
                    // Null; a required property's default is the general way's.
                    guard kind.allowsNull else { return nil }
                    continue
                }
                switch kind.kind {
                case .integer(let range):
                    guard let value = Self.integer(text), range.contains(value) else { return nil }
                    let start = row.count
                    PostgresBulkInsert.appendQuoted(value, to: &row)
                    if field == keyField { written.keyField = start..<row.count }
                case .double:
                    guard Self.isPlainDecimal(text) else { return nil }
                    row.append(UInt8(ascii: "\""))
                    row.append(contentsOf: text)
                    row.append(UInt8(ascii: "\""))
                case .string:
                    for byte in text where byte >= 0x80 { return nil }
                    let start = row.count
                    guard let breaks = PostgresBulkInsert.appendQuoted(text, to: &row) else { return nil }
                    written.lineBreaks += breaks
                    if field == keyField { written.keyField = start..<row.count }
                case .bool:
                    return nil // not a source (see `init`)
                }
            }
        }
        return written
    }

    /// `-?[0-9]{1,18}` as its value: too few digits to overflow.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var i = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { i = 1 }
        guard text.count > i, text.count - i <= 18 else { return nil }
        var value: Int64 = 0
        while i < text.count {
            let digit = text[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            i += 1
        }
        return negative ? -value : value
    }

    /// Whether `text` is `-?[0-9]+(\.[0-9]+)?` with at most 40 digits.
    private static func isPlainDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = text.first == UInt8(ascii: "-") ? 1 : 0
        var digits = 0, beforePoint = 0
        var point = false
        while i < text.count {
            let byte = text[i]
            if byte &- UInt8(ascii: "0") < 10 {
                digits += 1
            } else if byte == UInt8(ascii: "."), !point, digits > 0 {
                point = true
                beforePoint = digits
            } else {
                return false
            }
            i += 1
        }
        return digits > 0 && digits <= 40 && (!point || digits > beforePoint)
    }
}
