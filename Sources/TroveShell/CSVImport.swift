import Trove

/// Reads CSV or TSV records as values of a model's properties: a header line of property
/// names, then each field read as the property's type as a literal would be (through
/// `Coercion`, from text). An empty unquoted field is null, or the default for a property
/// that cannot be null; lists and nested objects are JSON text; a link is the target's
/// primary key.
///
/// A link to an object that is not stored yet (it comes later in the file, or is the row's
/// own object) is set by `finish()`, once every row is in (`ForwardLinks`).
///
/// Into a PostgreSQL import's COPY, records whose fields need no reading go as they stand
/// (`CSVCopyRows`).
struct CSVImport {
    /// One record's values and where it starts; no values for a record already written, as
    /// it stands, into the destination's COPY.
    struct Row {
        var values: [String: Value]?
        var place: RecordPlace
    }

    let model: ModelSchema
    let reader: CSVReader
    let destination: ImportDestination
    private var columns: [PropertySchema]?
    /// The index of the primary key's field, when the header names it.
    private var keyColumn: Int?
    private var links: ForwardLinks
    private var copyRows: CSVCopyRows?

    init(model: ModelSchema, reader: CSVReader, into destination: ImportDestination) {
        self.model = model
        self.reader = reader
        self.destination = destination
        links = ForwardLinks(model: model)
    }

    /// The next row's values, or nil at the end of the file.
    mutating func next() throws -> Row? {
        if columns == nil {
            guard let header = try read() else { return nil }
            let properties = try properties(of: header)
            columns = properties
            keyColumn = properties.firstIndex { $0.name == model.primaryKey }
            // A file of one column that can be null writes a null as an empty line; elsewhere
            // a blank line is a stray one (a required column's file holds none).
            reader.blankLinesAreRecords = properties.count == 1 && properties[0].isOptional && !properties[0].type.isList
            copyRows = destination.bulkInsert.flatMap { CSVCopyRows(header: properties, model: model, bulk: $0) }
        }
        guard let columns, let line = try readFields() else { return nil }
        let place = keyColumn.map { RecordPlace.keyedLine(line, keyColumn: $0 + 1, key: columns[$0].name, model: model.name) } ?? .line(line)
        if copyRows != nil, try copyRows!.add(reader, at: place) { return Row(values: nil, place: place) }
        let record = try texts(line: line)
        guard record.fields.count == columns.count else {
            throw ImportFailure("\(place): \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), but the header names \(columns.count)")
        }
        var values: [String: Value] = [:]
        values.reserveCapacity(columns.count)
        var columnOf: [String: Int] = [:]
        for (index, (field, property)) in zip(record.fields, columns).enumerated() {
            do {
                guard let value = try self.value(field, for: property) else { continue }
                values[property.name] = value
                if property.objectType != nil { columnOf[property.name] = index + 1 }
            } catch {
                throw ImportFailure("\(place.field(index + 1, named: property.name)): \(Self.message(error))")
            }
        }
        if !columnOf.isEmpty {
            try links.setAside(&values, in: destination) { place.field(columnOf[$0] ?? 0, named: $0) }
        }
        return Row(values: values, place: place)
    }

    /// Sets the links to objects that came later in the file.
    mutating func finish() throws {
        try links.finish(in: destination)
    }

    private func read() throws -> CSVReader.Record? {
        guard let line = try readFields() else { return nil }
        return try texts(line: line)
    }

    private func readFields() throws -> Int? {
        do {
            return try reader.nextFields()
        } catch let error as CSVReader.Failure {
            throw ImportFailure(error.description)
        }
    }

    private func texts(line: Int) throws -> CSVReader.Record {
        do {
            return CSVReader.Record(fields: try reader.fieldTexts(), line: line)
        } catch let error as CSVReader.Failure {
            throw ImportFailure(error.description)
        }
    }

    private func properties(of header: CSVReader.Record) throws -> [PropertySchema] {
        var seen = Set<String>()
        return try header.fields.enumerated().map { index, field in
            let name = field.text
            func bad(_ what: String) -> ImportFailure { ImportFailure("\(RecordPlace.line(header.line).field(index + 1)): \(what)") }
            guard let property = model[property: name] else {
                throw bad("model '\(model.name)' has no property '\(name)' (the header line names properties)")
            }
            guard property.isStored else { throw bad("'\(model.name).\(name)' is computed (linkingObjects) and cannot be imported") }
            guard seen.insert(name).inserted else { throw bad("'\(name)' is named twice") }
            return property
        }
    }

    /// The field as a value of `property`; nil leaves the property out (its default).
    private func value(_ field: CSVReader.Field, for property: PropertySchema) throws -> Value? {
        let text = field.text
        if text.isEmpty && !field.quoted {
            // A list cannot be null: left out, it gets its default, or under MERGE keeps its
            // value, as a scalar that cannot be null does.
            return property.isOptional && !property.type.isList ? .null : nil
        }
        switch property.type {
        case .list:
            return try json(text, for: property)
        case .link(let target):
            if text.hasPrefix("{"), let object = try? JSONParser().parse(text), object.objectValue != nil {
                return try json(object, for: property)
            }
            guard let pk = destination.schema[target]?.primaryKeyProperty else {
                throw ImportFailure("\(target) has no primary key: give the linked object as JSON text")
            }
            return try Coercion.scalar(.text(text), as: pk.type, for: property.name)
        default:
            let value = try Coercion.scalar(.text(text), as: property.type, for: property.name)
            // Refused here rather than by the write, so that the error names the column.
            if value == .null && !property.isOptional { throw StoreError.nullNotAllowed(model: model.name, property: property.name) }
            return value
        }
    }

    private func json(_ text: String, for property: PropertySchema) throws -> Value {
        let parsed: JSONValue
        do {
            parsed = try JSONParser().parse(text)
        } catch {
            throw ImportFailure("\(JSONValue.string(text).jsonText) is not JSON text (\(error.description))")
        }
        return try json(parsed, for: property)
    }

    private func json(_ parsed: JSONValue, for property: PropertySchema) throws -> Value {
        try destination.values(fromJSON: JSONObject([(property.name, parsed)]), model: model.name)[property.name] ?? .null
    }

    private static func message(_ error: any Error) -> String {
        switch error {
        case let e as CoercionError: e.description
        case let e as StoreError: e.description
        case let e as ImportFailure: e.description
        default: "\(error)"
        }
    }
}
