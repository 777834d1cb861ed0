import Trove

/// Reads CSV (RFC 4180) or TSV records from a byte source in fixed-size chunks, so a file of
/// any size streams through in bounded memory: only the current record is held.
///
/// A field enclosed in double quotes may hold the separator, quotes (doubled) and line
/// breaks; an empty field that was not quoted is told apart from `""`, because import reads
/// the first as null. Records end with CR, LF or CRLF; blank lines are skipped (unless
/// `blankLinesAreRecords`), and a UTF-8 byte order mark at the start is ignored. Every field
/// must be valid UTF-8.
final class CSVReader {
    struct Field {
        var text: String
        /// Whether the field was enclosed in quotes.
        var quoted: Bool
    }

    /// One record and the line it starts on (1-based).
    struct Record {
        var fields: [Field]
        var line: Int
    }

    /// A malformed record: where (line, and the field's 1-based position) and what.
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var column: Int
        var message: String
        var description: String { "\(RecordPlace.line(line).field(column)): \(message)" }
    }

    // A reader belongs to one thread, and its source (the one call out) cannot reach it, so
    // the runtime's exclusivity checks on each access are skipped: with them, reading the
    // fields of a large import took a third of the shell's instructions.
    @exclusivity(unchecked) private var source: any JSONByteSource
    private let separator: UInt8
    @exclusivity(unchecked) private var buffer: [UInt8]
    @exclusivity(unchecked) private var position = 0
    @exclusivity(unchecked) private var count = 0
    @exclusivity(unchecked) private var atEnd = false
    @exclusivity(unchecked) private var line: Int
    @exclusivity(unchecked) private var started = false

    /// Whether a blank line is a record of one empty field rather than nothing: it is in a
    /// file of one nullable column, where a null is written as an empty line, and skipping
    /// it would lose the object. Set after the header: blank lines before it are skipped.
    var blankLinesAreRecords = false

    /// `firstLine`: the line number of the input's first line.
    init(source: any JSONByteSource, separator: UInt8, chunkSize: Int = 1 << 16, firstLine: Int = 1) {
        self.source = source
        self.line = firstLine
        self.separator = separator
        self.buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    /// Bytes read ahead and handed back, the next last.
    @exclusivity(unchecked) private var pushedBack: [UInt8] = []

    /// The next byte without consuming it; nil at the end of the input.
    private func peek() throws -> UInt8? {
        if let b = pushedBack.last { return b }
        if position < count { return buffer[position] }
        if atEnd { return nil }
        let n = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
        position = 0
        count = n
        if n == 0 {
            atEnd = true
            return nil
        }
        return buffer[0]
    }

    /// Consumes the byte `peek()` returned.
    private func advance() {
        if pushedBack.isEmpty { position += 1 } else { pushedBack.removeLast() }
    }

    /// The bytes of the record `nextFields()` read, its fields one after another.
    @exclusivity(unchecked) private(set) var recordBytes: [UInt8] = []
    /// The fields of the record `nextFields()` read, in order: where each ends in
    /// `recordBytes` (each starts where the one before ends), whether it was quoted and the
    /// line it starts on.
    @exclusivity(unchecked) private(set) var fieldBounds: [FieldBounds] = []

    struct FieldBounds {
        var end: Int
        var quoted: Bool
        var line: Int
    }

    /// The next record, or nil at the end of the input.
    func next() throws -> Record? {
        guard let line = try nextFields() else { return nil }
        return Record(fields: try fieldTexts(), line: line)
    }

    /// The fields of the record `nextFields()` read, as text; a field that is not valid UTF-8
    /// is a failure naming it.
    func fieldTexts() throws -> [Field] {
        var fields: [Field] = []
        fields.reserveCapacity(fieldBounds.count)
        var start = 0
        for (index, field) in fieldBounds.enumerated() {
            guard let text = String(validating: recordBytes[start..<field.end], as: UTF8.self) else {
                throw Failure(line: field.line, column: index + 1, message: "the field is not valid UTF-8")
            }
            fields.append(Field(text: text, quoted: field.quoted))
            start = field.end
        }
        return fields
    }

    /// Reads the next record into `recordBytes` and `fieldBounds`, without reading its
    /// fields as text; returns the line it starts on, or nil at the end of the input.
    func nextFields() throws -> Int? {
        do {
            return try readFields()
        } catch {
            // A field before the one that failed that is not UTF-8 is the first failure.
            _ = try fieldTexts()
            throw error
        }
    }

    private func readFields() throws -> Int? {
        recordBytes.removeAll(keepingCapacity: true)
        fieldBounds.removeAll(keepingCapacity: true)
        if !started {
            started = true
            try skipByteOrderMark()
        }
        if blankLinesAreRecords {
            guard try peek() != nil else { return nil }
        } else {
            // Blank lines between records carry nothing.
            while let b = try peek(), b == 0x0A || b == 0x0D {
                advance()
                if b == 0x0A { line += 1 }
            }
            guard try peek() != nil else { return nil }
        }
        let recordLine = line
        while true {
            let column = fieldBounds.count + 1
            let fieldLine = line
            var quoted = false
            if try peek() == 0x22 {
                quoted = true
                advance()
                while true {
                    guard let b = try peek() else {
                        throw Failure(line: fieldLine, column: column, message: "a quoted field is not closed (a quote is missing)")
                    }
                    advance()
                    if b == 0x22 {
                        if try peek() == 0x22 {
                            advance()
                            recordBytes.append(0x22)
                            continue
                        }
                        break
                    }
                    if b == 0x0A { line += 1 }
                    recordBytes.append(b)
                }
                if let b = try peek(), b != separator, b != 0x0A, b != 0x0D {
                    throw Failure(line: line, column: column, message: "unexpected text after a closing quote (a quote inside a field is written twice)")
                }
            } else {
                while true {
                    // The field's bytes in the buffer read so far, found in one pass: a byte at
                    // a time through `peek` costs most of a large import's reading.
                    if pushedBack.isEmpty, position < count {
                        let start = position, end = count, separator = separator
                        let stop = buffer.withUnsafeBufferPointer { buffer in
                            var i = start
                            while i < end, buffer[i] != separator, buffer[i] != 0x0A, buffer[i] != 0x0D { i += 1 }
                            recordBytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<i]))
                            return i
                        }
                        position = stop
                        if stop < end { break }
                    }
                    guard let b = try peek(), b != separator, b != 0x0A, b != 0x0D else { break }
                    recordBytes.append(b)
                    advance()
                }
            }
            fieldBounds.append(FieldBounds(end: recordBytes.count, quoted: quoted, line: fieldLine))
            switch try peek() {
            case nil:
                return recordLine
            case separator?:
                advance()
            default:
                // CR, CRLF or LF ends the record.
                if try peek() == 0x0D {
                    advance()
                    if try peek() == 0x0A { advance() }
                } else {
                    advance()
                }
                line += 1
                return recordLine
            }
        }
    }

    private func skipByteOrderMark() throws {
        var read: [UInt8] = []
        for expected: UInt8 in [0xEF, 0xBB, 0xBF] {
            guard let b = try peek(), b == expected else {
                pushedBack = read.reversed()
                return
            }
            read.append(b)
            advance()
        }
    }
}
