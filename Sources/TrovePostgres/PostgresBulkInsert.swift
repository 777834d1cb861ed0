import Trove

/// Objects of one model inserted in bulk through `COPY ... FROM STDIN`: a batch of rows goes
/// to the server in one statement rather than one round trip per object (what `import`
/// writes through).
///
/// Each object's values are checked when it is added, as `PostgresStore.insert` checks them.
/// What only the server can check (a primary key already taken, a link to no object) fails
/// the batch's COPY, and the error names the row's place. The batches run in the store's
/// transaction: a failure leaves it to roll back, so that nothing of the import remains.
///
/// In a transaction's unit (`atomically`, as `import` runs) or outside a transaction, a batch
/// streams: its COPY opens at its first rows and takes them as they are made, so the server
/// reads rows while the next are checked. Until `flush()`, the store runs nothing else: a
/// statement run before it ends the batch's COPY as failed.
public final class PostgresBulkInsert {
    private let store: PostgresStore
    public let model: ModelSchema
    /// The table's columns the rows fill, in order: the stored properties but lists.
    public let columns: [PropertySchema]
    private let copySQL: String
    /// The batch: CSV rows, the place of each and the line of the data it ends on (a quoted
    /// field may hold line breaks, and COPY's errors count lines), and the primary keys they
    /// hold (the bytes of each key's text, one after another in `keyBytes`, each ending at its
    /// `keyEnds`). Places and keys are kept as numbers and bytes: their text is made only for
    /// an error or for `holds(primaryKey:)`. A bulk insert belongs to one thread and, while it
    /// writes its batch, calls out only to the writer of `add(at:writing:)`, which must not call
    /// back into it (a package API, whose callers keep to that): so the runtime's exclusivity
    /// checks on each access are skipped: they cost about a seventh of the client's work per
    /// record.
    @exclusivity(unchecked) private var data: [UInt8] = []
    @exclusivity(unchecked) private var places: [RecordPlace] = []
    @exclusivity(unchecked) private var lastLines: [Int] = []
    @exclusivity(unchecked) private var keyBytes: [UInt8] = []
    @exclusivity(unchecked) private var keyEnds: [Int] = []
    /// The texts of the first `indexedKeys` keys, made when `holds(primaryKey:)` asks.
    /// By UTF-8 bytes: a `String` would hold canonically equivalent keys as one.
    private var keySet: Set<[UInt8]> = []
    private var indexedKeys = 0
    /// The index in `columns` of the primary key.
    package let keyColumn: Int?
    /// The names of `columns`, and the model's stored lists (which a row by COPY leaves empty).
    private let columnNames: [String]
    private let lists: [PropertySchema]
    /// The kind of value each column takes as it stands (see `appendDirect`); nil for a
    /// column whose every value goes through `appendField`.
    package let direct: [PostgresColumnKind?]
    /// A record's values by column, as `add(_:at:)` sorts them (kept for its capacity).
    @exclusivity(unchecked) private var given: [Value?]
    /// A batch that holds this many bytes ends (its COPY is sent) when the next row comes,
    /// before that row is written: the size is checked before a row, not after, so a batch
    /// may pass it by up to one row. A streamed batch is sent in pieces of `pieceBytes`, and
    /// `sentBytes` of it are sent.
    private static let batchBytes = 4 << 20
    private static let pieceBytes = 64 << 10
    @exclusivity(unchecked) private var sentBytes = 0
    /// How many rows came written by the caller (`add(at:writing:)`), not made here from
    /// values: which way an import's records took, as its tests see it.
    @exclusivity(unchecked) package private(set) var rowsWritten = 0
    /// Whether batches stream (see above). A caller that runs statements between adds turns
    /// it off, after a `flush()`: each statement would end a streamed COPY.
    public var streams = true

    public init(store: PostgresStore, model: String) throws {
        self.store = store
        let schema = try store.model(model)
        self.model = schema
        let columns = schema.properties.filter { $0.isStored && !$0.type.isList }
        self.columns = columns
        keyColumn = schema.primaryKey.flatMap { key in columns.firstIndex { $0.name == key } }
        columnNames = columns.map(\.name)
        lists = schema.properties.filter { $0.isStored && $0.type.isList }
        given = Array(repeating: nil, count: columns.count)
        direct = columns.map(PostgresColumnKind.init)
        copySQL = "COPY \(store.tables.table(model)) (\(columns.map { PostgresTables.quoted($0.name) }.joined(separator: ", "))) FROM STDIN (FORMAT csv)"
    }

    /// Whether a row can go by COPY with this value for a list property: only a list with no
    /// elements (or none), as a list's elements are rows of its side table, not a column.
    public static func copyCarries(list value: Value) -> Bool {
        switch value {
        case .null: true
        case .list(let elements): elements.isEmpty
        default: false
        }
    }

    /// Adds an object to the batch; `place` names it (`record 3`, `line 7`) in the error of a
    /// batch that fails. Returns false, adding nothing, for an object COPY cannot carry (a
    /// list with elements, a nested object, a date outside the years 1 to 9999): that one is
    /// for `PostgresStore.insert`, after `flush()`.
    public func add(_ values: [String: Value], at place: RecordPlace) throws -> Bool {
        guard !columns.isEmpty else { return false }
        // The record's values go to their columns in one pass, by comparing names: they are
        // few, and mostly small strings equal bit for bit to the schema's, which compare in a
        // step where looking each column's name up in the record would hash it.
        var unknown = false, givesList = false
        given.withUnsafeMutableBufferPointer { given in
            for index in given.indices { given[index] = nil }
            for (name, value) in values {
                if let index = columnNames.firstIndex(of: name) {
                    given[index] = value
                } else if lists.contains(where: { $0.name == name }) {
                    givesList = true
                } else {
                    unknown = true
                }
            }
        }
        for property in lists {
            guard Self.copyCarries(list: (givesList ? values[property.name] : nil) ?? property.valueWhenOmitted) else { return false }
        }
        try flushIfFull()
        // The row is written straight into the batch, and taken back if the record fails.
        let start = data.count
        var lineBreaks = 0
        var keyText: String?
        do {
            for index in columns.indices {
                if index > 0 { data.append(UInt8(ascii: ",")) }
                if let value = given[index], let direct = direct[index], let breaks = Self.appendDirect(value, direct, to: &data) {
                    lineBreaks += breaks
                    if index == keyColumn { keyText = try Self.keyText(value, type: columns[index].type) }
                    continue
                }
                guard let breaks = try appendField(given[index], column: index, to: &data, keyText: &keyText) else {
                    data.removeLast(data.count - start)
                    return false
                }
                lineBreaks += breaks
            }
            if unknown {
                for name in values.keys { _ = try model.storedProperty(name) }
            }
        } catch {
            data.removeLast(data.count - start)
            throw error
        }
        if let keyText { keyBytes.append(contentsOf: keyText.utf8) }
        try added(hasKey: keyText != nil, lineBreaks: lineBreaks, at: place)
        return true
    }

    /// Appends `value` as `appendField` would for a column of `direct`, with no text made for
    /// it (an integer's digits, a double's text, a string's bytes, or nothing for null), and
    /// returns the line breaks it holds; nil, appending nothing, when it is not of the
    /// column's own kind, is a `bool` (whose text `appendField` makes), or is text holding a
    /// NUL (whose error is `appendField`'s).
    private static func appendDirect(_ value: Value, _ direct: PostgresColumnKind, to row: inout [UInt8]) -> Int? {
        switch (direct.kind, value) {
        case (.integer(let range), .int(let integer)):
            guard range.contains(integer) else { return nil }
            appendQuoted(integer, to: &row)
            return 0
        case (.double, .double(let double)):
            var text = PostgresValues.text(double)
            return text.withUTF8 { appendQuoted($0, to: &row) }
        case (.string, .string(let string)):
            var string = string
            let start = row.count
            guard let breaks = string.withUTF8({ appendQuoted($0, to: &row) }) else {
                row.removeLast(row.count - start)
                return nil
            }
            return breaks
        case (.integer, .null), (.double, .null), (.string, .null):
            return direct.allowsNull ? 0 : nil
        default:
            return nil
        }
    }

    /// The text a batch keeps for a primary key of `value` (non-null, of the column's `type`):
    /// `PostgresValues.parameter`'s, as `holds(primaryKey:)` makes it to compare.
    private static func keyText(_ value: Value, type: PropertyType) throws -> String {
        switch value {
        case .int(let integer): String(integer)
        case .string(let string): string
        default: try PostgresValues.parameter(value, type: type).0
        }
    }

    /// The fields of a row, as `add(at:writing:)`'s caller wrote them: `keyField` is the range
    /// in the batch of the primary key's field, quotes included, whose text is the key as
    /// `PostgresValues.parameter` writes it; `lineBreaks` is how many line breaks the fields hold.
    package struct WrittenRow {
        package var keyField: Range<Int>?
        package var lineBreaks: Int

        package init(keyField: Range<Int>?, lineBreaks: Int) {
            self.keyField = keyField
            self.lineBreaks = lineBreaks
        }
    }

    /// Adds a row the caller writes: `write` appends the fields of `columns` to the batch, in
    /// order and separated by commas, each as `add(_:at:)` writes it (see `appendQuoted(_:to:)`
    /// and `defaultField(column:)`), and says what they hold; or returns nil, and what it
    /// appended is taken back. Returns whether the row was added. The row goes straight into
    /// the batch: no copy of it is made. `write` must not call back into the bulk insert: it
    /// holds the batch while it writes, and the batch's accesses are not checked for overlap.
    package func add(at place: RecordPlace, writing write: (inout [UInt8]) -> WrittenRow?) throws -> Bool {
        try flushIfFull()
        let start = data.count
        guard let row = write(&data) else {
            data.removeLast(data.count - start)
            return false
        }
        rowsWritten += 1
        if let keyField = row.keyField {
            precondition(keyField.lowerBound >= start && keyField.upperBound <= data.count,
                         "the key field \(keyField) is not within the row written, \(start)..<\(data.count)")
            data.withUnsafeBufferPointer { Self.appendUnquoted(UnsafeBufferPointer(rebasing: $0[keyField]), to: &keyBytes) }
        }
        try added(hasKey: row.keyField != nil, lineBreaks: row.lineBreaks, at: place)
        return true
    }

    /// Appends the text of a field `appendQuoted` wrote: without its quotes, a doubled quote
    /// as one.
    private static func appendUnquoted(_ field: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        let inner = UnsafeBufferPointer(rebasing: field.dropFirst().dropLast())
        guard inner.contains(UInt8(ascii: "\"")) else {
            bytes.append(contentsOf: inner)
            return
        }
        var quote = false
        for byte in inner {
            if byte == UInt8(ascii: "\""), !quote {
                quote = true
                continue
            }
            quote = false
            bytes.append(byte)
        }
    }

    /// The field of column `index` in a row that gives it no value (its default, or null),
    /// with the line breaks it holds; nil when COPY cannot carry it. Throws as `add(_:at:)`
    /// does for such a row (a required property).
    public func defaultField(column index: Int) throws -> (field: [UInt8], lineBreaks: Int)? {
        var field: [UInt8] = [], keyText: String?
        guard let lineBreaks = try appendField(nil, column: index, to: &field, keyText: &keyText) else { return nil }
        return (field, lineBreaks)
    }

    /// Appends the field of column `index` holding `given` (its default when nil) to `row`,
    /// and sets `keyText` for the primary key's; returns the line breaks the field holds, or
    /// nil for a value COPY cannot carry.
    private func appendField(_ given: Value?, column index: Int, to row: inout [UInt8], keyText: inout String?) throws -> Int? {
        let property = columns[index]
        if given == nil, index == keyColumn { throw StoreError.missingPrimaryKey(model: model.name) }
        let value = given ?? property.valueWhenOmitted
        let stored: Value, type: PropertyType
        switch property.type {
        case .link(let target):
            if case .object = value { return nil }
            type = try store.keyType(target)
            stored = try store.linkKey(value, target: target, property: property.name)
        default:
            type = property.type
            stored = try store.stored(value, type, model: model.name, property: property.name)
            if stored.isNull, !property.isOptional { throw StoreError.nullNotAllowed(model: model.name, property: property.name) }
        }
        guard !stored.isNull else { return 0 }
        if index == keyColumn { keyText = try Self.keyText(stored, type: type) }
        // An integer's digits go into the row with no text made for them.
        if case .int(let integer) = stored {
            Self.appendQuoted(integer, to: &row)
            return 0
        }
        guard var text = try Self.text(stored, type: type) else { return nil }
        guard let lineBreaks = text.withUTF8({ Self.appendQuoted($0, to: &row) }) else {
            throw PostgresError.nulCharacter(model: model.name, property: property.name)
        }
        return lineBreaks
    }

    /// Ends the batch once it holds `batchBytes`, before another row is written into it.
    private func flushIfFull() throws {
        if sentBytes + data.count >= Self.batchBytes { try flush() }
    }

    /// Ends the row just written into `data`, and records what names it (its key's bytes, when
    /// `hasKey`, are just appended to `keyBytes`).
    private func added(hasKey: Bool, lineBreaks: Int, at place: RecordPlace) throws {
        if hasKey { keyEnds.append(keyBytes.count) }
        data.append(UInt8(ascii: "\n"))
        places.append(place)
        lastLines.append((lastLines.last ?? 0) + lineBreaks + 1)
        if streams, data.count >= Self.pieceBytes, store.writesWithoutSavepoint { try send() }
    }

    /// Sends the rows made so far in the batch's COPY, opening it at the batch's first piece.
    private func send() throws {
        if sentBytes == 0 { try store.write(oneStatement: true) { try store.connection.beginCopy(copySQL) } }
        store.connection.sendCopyData(data)
        sentBytes += data.count
        data.removeAll(keepingCapacity: true)
    }

    /// Whether the batch holds the object with this primary key (not yet on the server).
    public func holds(primaryKey: Value) -> Bool {
        guard !keyEnds.isEmpty, let text = try? store.keyText(model, primaryKey) else { return false }
        while indexedKeys < keyEnds.count {
            keySet.insert(Array(keyBytes[(indexedKeys == 0 ? 0 : keyEnds[indexedKeys - 1])..<keyEnds[indexedKeys]]))
            indexedKeys += 1
        }
        return keySet.contains(Array(text.utf8))
    }

    /// The text of the batch's `index`th key.
    private func key(_ index: Int) -> String {
        String(decoding: keyBytes[(index == 0 ? 0 : keyEnds[index - 1])..<keyEnds[index]], as: UTF8.self)
    }

    /// Sends the batch to the server. A row it refuses is a `PostgresRowError` naming its place.
    public func flush() throws {
        guard !places.isEmpty else { return }
        defer {
            data.removeAll(keepingCapacity: true)
            places.removeAll()
            lastLines.removeAll()
            keyBytes.removeAll(keepingCapacity: true)
            keyEnds.removeAll(keepingCapacity: true)
            keySet.removeAll()
            indexedKeys = 0
            sentBytes = 0
        }
        do {
            if sentBytes > 0 {
                store.connection.sendCopyData(data)
                _ = try store.write(oneStatement: true) { try store.connection.endCopy() }
            } else {
                _ = try store.write(oneStatement: true) { try store.connection.copy(copySQL, data: data) }
            }
        } catch let error as PostgresError {
            guard let line = error.copyLine, let row = lastLines.firstIndex(where: { $0 >= line }) else {
                throw PostgresStore.constraintError(model, error)
            }
            // The refused row's key, as a store names a duplicate one.
            var written = PostgresStore.WrittenKeys()
            if keyEnds.count == places.count, let type = model.primaryKeyProperty?.type { written.primaryKey = try? PostgresValues.value(key(row), type: type) }
            let storeError = store.storeError(model, error, written)
            throw PostgresRowError(place: places[row].place(of: storeError), error: PostgresStore.constraintError(model, error),
                                   storeError: storeError)
        }
    }

    /// The text COPY reads for a non-null value, or nil for one it cannot take as it stands.
    private static func text(_ value: Value, type: PropertyType) throws -> String? {
        switch value {
        case .date(let date):
            let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
            guard let whole = Int64(exactly: micros) else { return nil }
            return timestamp(micros: whole)
        case .data:
            return "\\x" + (try PostgresValues.parameter(value, type: type).0)
        default:
            return try PostgresValues.parameter(value, type: type).0
        }
    }

    /// `YYYY-MM-DD HH:MM:SS.ffffff+00` for microseconds since 1970, or nil outside the years
    /// 1 to 9999.
    static func timestamp(micros: Int64) -> String? {
        guard (-62_135_596_800_000_000...253_402_300_799_999_999).contains(micros) else { return nil }
        let perDay: Int64 = 86_400_000_000
        let days = micros.floorDivided(by: perDay), rest = micros - days * perDay
        let (year, month, day) = ISO8601Timestamp.civilFromDays(Int(days))
        guard (1...9999).contains(year) else { return nil }
        let seconds = rest / 1_000_000
        func digits(_ n: some BinaryInteger, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2)) \(digits(seconds / 3600, 2)):\(digits(seconds / 60 % 60, 2)):\(digits(seconds % 60, 2))"
            + ".\(digits(rest % 1_000_000, 6))+00"
    }

    /// Appends `value` in decimal as a CSV field in quotes, as `add(_:at:)` writes an integer.
    public static func appendQuoted(_ value: Int64, to row: inout [UInt8]) {
        // Written from the end into a buffer on the stack, then appended in one copy.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 22) { buffer in
            var i = buffer.count - 1
            buffer[i] = UInt8(ascii: "\"")
            var magnitude = value.magnitude
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                i -= 1
                buffer[i] = UInt8(ascii: "-")
            }
            i -= 1
            buffer[i] = UInt8(ascii: "\"")
            row.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i...]))
        }
    }

    /// Appends the text `bytes` as a CSV field in quotes (so that an empty string is not NULL,
    /// nor `\.` the end of data); returns how many line breaks it holds, or nil for text
    /// holding a NUL, which PostgreSQL's text cannot (then `row` is left part-written).
    public static func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, to row: inout [UInt8]) -> Int? {
        row.append(UInt8(ascii: "\""))
        var plain = true
        for byte in bytes where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") || byte == 0 {
            if byte == 0 { return nil }
            plain = false
        }
        var lineBreaks = 0
        if plain {
            // Most fields hold no quote and no line break: their bytes go in one copy.
            row.append(contentsOf: bytes)
        } else {
            for byte in bytes {
                if byte == UInt8(ascii: "\"") { row.append(byte) }
                if byte == UInt8(ascii: "\n") { lineBreaks += 1 }
                row.append(byte)
            }
        }
        row.append(UInt8(ascii: "\""))
        return lineBreaks
    }
}

/// A row of a bulk insert that the server refused, with where the row came from.
public struct PostgresRowError: DescribedError, Sendable {
    public var place: String
    /// The server's refusal, always set; a broken constraint's in the store's words.
    public var error: PostgresError
    /// The store's error for the row, set when it broke a constraint a store names (a
    /// duplicate primary key); nil for another refusal (a value its column cannot take).
    public var storeError: StoreError?

    public init(place: String, error: PostgresError, storeError: StoreError? = nil) {
        self.place = place
        self.error = error
        self.storeError = storeError
    }

    /// The place and the store's error, or the server's when there is none.
    public var description: String { "\(place): \(storeError.map { "\($0)" } ?? error.description)" }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
