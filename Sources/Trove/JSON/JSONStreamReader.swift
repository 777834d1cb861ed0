/// Reads a stream of JSON values with bounded memory.
///
/// The layout is detected from the first character:
/// - `[`: one top-level array; each element is a value, returned as soon as it is complete,
///   and the array itself is never built;
/// - anything else: JSON lines, or any whitespace-separated sequence of values
///   (`{"a":1}{"a":2}` too).
///
/// Memory is one chunk plus the largest single value; a value larger than `maxRecordSize`
/// is an error rather than an unbounded allocation. Errors carry the record number and the
/// line and column in the whole stream, and the reader stays failed after one.
///
/// ```swift
/// let reader = JSONStreamReader(fileDescriptor: fd)
/// while let record = try reader.next() { ... }
/// ```
package final class JSONStreamReader {
    /// The two layouts of a stream.
    package enum Layout: Sendable, Equatable {
        /// One top-level JSON array whose elements are the values.
        case array
        /// Values one after another: JSON lines or concatenated JSON.
        case sequence
    }

    /// 64 KiB: large enough to amortize `read(2)`, small enough to stay in cache.
    package static let defaultChunkSize = 64 << 10
    /// 256 MiB.
    package static let defaultMaxRecordSize = 256 << 20

    /// The detected layout; nil until the first call to ``next()`` and for empty input.
    package private(set) var layout: Layout?
    /// How many values ``next()`` has returned.
    package private(set) var recordCount = 0

    private enum State {
        case start, arrayFirst, arrayNext, arrayEnd, sequence, finished
        case failed(JSONError)
    }

    private var source: any JSONByteSource
    private let chunkSize: Int
    private let maxRecordSize: Int
    private let parser: JSONParser
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// First unconsumed byte.
    private var start = 0
    /// End of the valid bytes.
    private var end = 0
    private var atEndOfInput = false
    /// Offset in the stream of `buffer[0]`.
    private var bufferStreamOffset = 0
    /// Positions are computed lazily from a mark: the byte at `mark` is at `markPosition`.
    private var mark = 0
    private var markPosition = JSONTextPosition()
    private var state = State.start
    /// Stream offset of the first byte of the value ``next()`` returned last.
    private var lastValueStreamOffset = 0
    /// Kept across records so that decoding escaped strings reuses one buffer.
    private var scratch: [UInt8] = []

    /// Reads from `source` in chunks of `chunkSize` bytes; positions count lines from
    /// `firstLine` (where the stream starts in a larger input).
    package init(
        source: some JSONByteSource,
        chunkSize: Int = JSONStreamReader.defaultChunkSize,
        maxRecordSize: Int = JSONStreamReader.defaultMaxRecordSize,
        parser: JSONParser = JSONParser(),
        firstLine: Int = 1
    ) {
        precondition(chunkSize > 0 && maxRecordSize > 0, "chunkSize and maxRecordSize must be positive")
        self.source = source
        self.markPosition = JSONTextPosition(line: firstLine)
        self.chunkSize = chunkSize
        self.maxRecordSize = maxRecordSize
        self.parser = parser
        self.capacity = chunkSize
        self.buffer = .allocate(capacity: chunkSize)
    }

    /// Reads from an open file descriptor, which the caller keeps and closes.
    package convenience init(
        fileDescriptor: Int32,
        chunkSize: Int = JSONStreamReader.defaultChunkSize,
        maxRecordSize: Int = JSONStreamReader.defaultMaxRecordSize
    ) {
        self.init(source: FileDescriptorByteSource(fileDescriptor: fileDescriptor), chunkSize: chunkSize, maxRecordSize: maxRecordSize)
    }

    deinit {
        buffer.deallocate()
    }

    /// The next value, or nil at the end of the stream.
    package func next() throws(JSONError) -> JSONValue? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private func step() throws(JSONError) -> JSONValue? {
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .finished:
                return nil
            case .start:
                while end - start < 3, try fill() {}
                if end - start >= 3 && buffer[start] == 0xEF && buffer[start + 1] == 0xBB && buffer[start + 2] == 0xBF {
                    start += 3
                    mark = start
                }
                guard let c = try peekNonWhitespace() else {
                    state = .finished
                    return nil
                }
                if c == UInt8(ascii: "[") {
                    layout = .array
                    start += 1
                    state = .arrayFirst
                } else {
                    layout = .sequence
                    state = .sequence
                }
            case .arrayFirst:
                guard let c = try peekNonWhitespace() else {
                    throw error(.unexpectedEndOfInput(expected: "a value or ']'"), at: start)
                }
                if c == UInt8(ascii: "]") {
                    start += 1
                    state = .arrayEnd
                } else {
                    state = .arrayNext
                    return try readValue()
                }
            case .arrayNext:
                guard let c = try peekNonWhitespace() else {
                    throw error(.unexpectedEndOfInput(expected: "',' or ']' after an array element"), at: start)
                }
                if c == UInt8(ascii: "]") {
                    start += 1
                    state = .arrayEnd
                    continue
                }
                guard c == UInt8(ascii: ",") else { throw unexpected(expected: "',' or ']' after an array element") }
                start += 1
                guard let next = try peekNonWhitespace() else {
                    throw error(.unexpectedEndOfInput(expected: "a value"), at: start)
                }
                if next == UInt8(ascii: "]") { throw unexpected(expected: "a value (trailing commas are not allowed)") }
                return try readValue()
            case .arrayEnd:
                if try peekNonWhitespace() != nil {
                    throw unexpected(expected: "end of input after the top-level array")
                }
                state = .finished
                return nil
            case .sequence:
                guard try peekNonWhitespace() != nil else {
                    state = .finished
                    return nil
                }
                return try readValue()
            }
        }
    }

    // MARK: Values

    /// Finds the extent of the value at `start` (reading more as needed), then parses it.
    private func readValue() throws(JSONError) -> JSONValue {
        let first = buffer[start]
        switch first {
        case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ":"):
            throw unexpected(expected: "a value")
        default:
            break
        }
        // The scan only matches brackets and string quotes; the parser validates afterwards.
        // Its state survives refills, so a value spanning many chunks is scanned once.
        var length = 0
        var scanned = 0
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"") {
            var depth = 0
            var inString = false
            var escaped = false
            scan: while true {
                var p = start + scanned
                while p < end {
                    let c = buffer[p]
                    p += 1
                    if inString {
                        if escaped {
                            escaped = false
                        } else if c == UInt8(ascii: "\\") {
                            escaped = true
                        } else if c == UInt8(ascii: "\"") {
                            inString = false
                            if depth == 0 { length = p - start; break scan }
                        }
                    } else if c == UInt8(ascii: "\"") {
                        inString = true
                    } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                        depth += 1
                    } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                        depth -= 1
                        if depth == 0 { length = p - start; break scan }
                    }
                }
                scanned = p - start
                try checkRecordSize()
                if try !fill() {
                    // Truncated: the parser reports what is missing, and where.
                    length = end - start
                    break
                }
            }
        } else {
            scan: while true {
                var p = start + scanned
                while p < end {
                    switch buffer[p] {
                    case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"),
                         UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: ":"):
                        length = p - start
                        break scan
                    default:
                        p += 1
                    }
                }
                scanned = p - start
                try checkRecordSize()
                if try !fill() {
                    length = end - start
                    break
                }
            }
        }

        // The parser sees everything buffered so that a scalar cut short by a delimiter is
        // reported as the wrong character it is, not as the end of input.
        var core = JSONParserCore(base: buffer + start, count: end - start, options: parser)
        swap(&core.scratch, &scratch)
        defer { swap(&core.scratch, &scratch) }
        let value: JSONValue
        do {
            value = try core.parseValue()
        } catch {
            let base = position(at: start)
            let p = base.composed(with: JSONTextPosition(line: error.line, column: error.column))
            throw JSONError(error.reason, line: p.line, column: p.column,
                            byteOffset: bufferStreamOffset + start + error.byteOffset, record: recordCount + 1)
        }
        if core.i != length {
            start += core.i
            throw unexpected(expected: layout == .array
                             ? "',' or ']' after an array element"
                             : "whitespace or a new line between values")
        }
        lastValueStreamOffset = bufferStreamOffset + start
        start += length
        recordCount += 1
        return value
    }

    /// Where the value ``next()`` returned last starts (its line and column in the stream),
    /// so that an error found in it after reading names where to look. Asked before the
    /// next call to ``next()``.
    package func lastValuePosition() -> (line: Int, column: Int) {
        // Once ``next()`` has read on, the buffer may have dropped those bytes, or the mark
        // moved past them: a position counted from there would be wrong without a word.
        let index = lastValueStreamOffset - bufferStreamOffset
        precondition(index >= 0 && index >= mark, "lastValuePosition() is asked before the next call to next()")
        let p = position(at: index)
        return (p.line, p.column)
    }

    private func checkRecordSize() throws(JSONError) {
        if end - start > maxRecordSize { throw error(.recordTooLarge(limit: maxRecordSize), at: start) }
    }

    // MARK: Buffer

    /// Skips whitespace, reading more as needed; the next byte, or nil at the end of input.
    private func peekNonWhitespace() throws(JSONError) -> UInt8? {
        while true {
            while start < end {
                switch buffer[start] {
                case 0x20, 0x0A, 0x0D, 0x09: start += 1
                default: return buffer[start]
                }
            }
            guard try fill() else { return nil }
        }
    }

    /// Reads one more chunk; false at the end of input.
    private func fill() throws(JSONError) -> Bool {
        if atEndOfInput { return false }
        if capacity - end < chunkSize {
            if start > 0 { compact() }
            if capacity - end < chunkSize { grow(to: max(capacity * 2, end + chunkSize)) }
        }
        let n: Int
        do {
            n = try source.read(into: UnsafeMutableRawBufferPointer(start: buffer + end, count: capacity - end))
        } catch {
            throw self.error(.readFailed(String(describing: error)), at: end)
        }
        if n == 0 {
            atEndOfInput = true
            return false
        }
        end += n
        return true
    }

    /// Moves the unconsumed bytes to the front, remembering the position of what is dropped.
    private func compact() {
        markPosition = position(at: start)
        let remaining = end - start
        if remaining > 0 { (buffer).update(from: buffer + start, count: remaining) }
        bufferStreamOffset += start
        end = remaining
        start = 0
        mark = 0
    }

    private func grow(to newCapacity: Int) {
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: buffer, count: end)
        buffer.deallocate()
        buffer = bigger
        capacity = newCapacity
    }

    // MARK: Errors

    /// The position of buffer index `index` (at or after `mark`); moves the mark there.
    private func position(at index: Int) -> JSONTextPosition {
        assert(index >= mark, "positions are only asked for forward")
        markPosition = markPosition.advanced(over: buffer + mark, count: index - mark)
        mark = index
        return markPosition
    }

    private func error(_ reason: JSONError.Reason, at index: Int) -> JSONError {
        let p = position(at: index)
        return JSONError(reason, line: p.line, column: p.column, byteOffset: bufferStreamOffset + index, record: recordCount + 1)
    }

    /// The character at `start` is not `expected`.
    private func unexpected(expected: String) -> JSONError {
        let core = JSONParserCore(base: buffer + start, count: end - start, options: parser)
        return error(.unexpectedCharacter(found: core.describeCharacter(at: 0), expected: expected), at: start)
    }
}
