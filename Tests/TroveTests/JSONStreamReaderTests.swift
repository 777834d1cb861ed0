import Foundation
import Testing
@testable import Trove

@Suite struct JSONStreamReaderTests {
    func reader(_ text: String, chunkSize: Int = 64 << 10, maxReadSize: Int = .max, maxRecordSize: Int = JSONStreamReader.defaultMaxRecordSize) -> JSONStreamReader {
        JSONStreamReader(source: ByteArraySource(Array(text.utf8), maxReadSize: maxReadSize), chunkSize: chunkSize, maxRecordSize: maxRecordSize)
    }

    func readAll(_ reader: JSONStreamReader) throws(JSONError) -> [JSONValue] {
        var values: [JSONValue] = []
        while let v = try reader.next() { values.append(v) }
        return values
    }

    func firstError(_ reader: JSONStreamReader) -> JSONError? {
        do {
            _ = try readAll(reader)
            return nil
        } catch {
            return error
        }
    }

    @Test func yieldsEachElementOfATopLevelArray() throws {
        let r = reader(#" [ {"a":1}, {"a":2} ,3,"x",[4]] "#)
        #expect(try readAll(r) == [["a": 1], ["a": 2], 3, "x", [4]])
        #expect(r.layout == .array)
        #expect(r.recordCount == 5)
        #expect(try r.next() == nil)
    }

    @Test func yieldsEachLineOfJSONLines() throws {
        let r = reader("{\"a\":1}\n{\"a\":2}\r\n\n{\"a\":3}\n")
        #expect(try readAll(r) == [["a": 1], ["a": 2], ["a": 3]])
        #expect(r.layout == .sequence)
    }

    @Test func yieldsConcatenatedValues() throws {
        #expect(try readAll(reader(#"{"a":1}{"b":2}"c" 1 true null -2"#)) == [["a": 1], ["b": 2], "c", 1, true, nil, -2])
    }

    @Test func readsNothingFromEmptyInputOrAnEmptyArray() throws {
        let empty = reader("  \n ")
        #expect(try empty.next() == nil)
        #expect(empty.layout == nil)
        let array = reader(" [ ] ")
        #expect(try array.next() == nil)
        #expect(array.layout == .array)
    }

    @Test func skipsAByteOrderMark() throws {
        let r = JSONStreamReader(source: ByteArraySource([0xEF, 0xBB, 0xBF] + Array("[1,x]".utf8), maxReadSize: 1))
        #expect(try r.next() == 1)
        #expect(throws: JSONError.self) { try r.next() }
        #expect(firstError(JSONStreamReader(source: ByteArraySource([0xEF, 0xBB, 0xBF] + Array("[1,x]".utf8))))?.column == 4)
    }

    static let mixed = """
        [
          {"id": 1, "name": "Zoë \\"the\\" dog", "tags": ["a", "b\\u00e9"], "n": -12.5e3},
          {"id": 2, "nested": {"deep": [[[]], {}], "s": "}]\\\\"}, "t": true, "f": false, "z": null},
          "a string with [brackets] and {braces}", 123456789012, -0.25
        ]
        """

    @Test(arguments: [1, 2, 3, 5, 7, 16, 64])
    func handlesValuesSplitAcrossChunkBoundaries(_ chunk: Int) throws {
        let expected = try JSONParser().parse(Self.mixed).arrayValue!
        for readSize in [1, 3, chunk] {
            #expect(try readAll(reader(Self.mixed, chunkSize: chunk, maxReadSize: readSize)) == expected)
            let lines = expected.map(\.jsonText).joined(separator: "\n")
            #expect(try readAll(reader(lines, chunkSize: chunk, maxReadSize: readSize)) == expected)
        }
    }

    @Test func readsAMultiMegabyteString() throws {
        let big = String(repeating: "abcdefghé\\n😀", count: 300_000)  // ~4.5 MB of JSON text
        let decoded = try JSONParser().parse("\"\(big)\"")
        let text = "[{\"big\":\"\(big)\"},{\"small\":1}]"
        let r = reader(text)
        #expect(try r.next() == ["big": decoded])
        #expect(try r.next() == ["small": 1])
        #expect(try r.next() == nil)
        #expect(try readAll(reader("\"\(big)\"\n2\n")) == [decoded, 2])
    }

    @Test func namesTheRecordLineAndColumnOfAnError() {
        let error = firstError(reader("{\"a\":1}\n{\"a\":2}\n{\"a\" 3}\n", chunkSize: 4))
        #expect(error?.record == 3)
        #expect(error?.line == 3)
        #expect(error?.column == 6)
        #expect(error?.reason == .unexpectedCharacter(found: "'3'", expected: "':' after an object key"))
        #expect(error?.description == "record 3, line 3, column 6: expected ':' after an object key, found '3'")
    }

    @Test func keepsPositionsRightFarIntoALongStream() {
        var lines = (1...9_999).map { "{\"id\":\($0),\"name\":\"namé \($0)\"}" }
        lines.append("{\"id\":10000,\"name\":\"x\",}")
        let error = firstError(reader(lines.joined(separator: "\n"), chunkSize: 100, maxReadSize: 37))
        #expect(error?.record == 10_000)
        #expect(error?.line == 10_000)
        #expect(error?.column == 24)
        let expectedOffset = lines.dropLast().reduce(0) { $0 + $1.utf8.count + 1 } + 23
        #expect(error?.byteOffset == expectedOffset)
    }

    /// Each value's start, with records spread over lines deep into a stream read in chunks
    /// far smaller than a record, so that the buffer drops and refills between values.
    @Test(arguments: [8, 100, 64 << 10])
    func namesWhereEachValueStarts(_ chunk: Int) throws {
        var text = "[\n"
        var starts: [(line: Int, column: Int)] = []
        var line = 2
        for i in 1...3_000 {
            let indent = String(repeating: " ", count: i % 5)
            starts.append((line, indent.count + 1))
            text += indent + "{\"id\": \(i),\n  \"name\": \"namé \(i)\"}" + (i < 3_000 ? ",\n" : "\n")
            line += 2
        }
        text += "]\n"
        let r = reader(text, chunkSize: chunk, maxReadSize: 37)
        var found: [(line: Int, column: Int)] = []
        while try r.next() != nil { found.append(r.lastValuePosition()) }
        #expect(found.count == starts.count)
        #expect(zip(found, starts).allSatisfy { $0.line == $1.line && $0.column == $1.column })
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        var reason: JSONError.Reason
        var record: Int
        var line: Int
        var column: Int
        var testDescription: String { input.debugDescription }
    }

    static let cases: [Case] = [
        Case(input: "[1, 2 3]", reason: .unexpectedCharacter(found: "'3'", expected: "',' or ']' after an array element"), record: 3, line: 1, column: 7),
        Case(input: "[1, 2,]", reason: .unexpectedCharacter(found: "']'", expected: "a value (trailing commas are not allowed)"), record: 3, line: 1, column: 7),
        Case(input: "[1,\n2", reason: .unexpectedEndOfInput(expected: "',' or ']' after an array element"), record: 3, line: 2, column: 2),
        Case(input: "[\n", reason: .unexpectedEndOfInput(expected: "a value or ']'"), record: 1, line: 2, column: 1),
        Case(input: "[1] 2", reason: .unexpectedCharacter(found: "'2'", expected: "end of input after the top-level array"), record: 2, line: 1, column: 5),
        Case(input: "[1, {\"a\": [1, 2}]", reason: .unexpectedCharacter(found: "'}'", expected: "',' or ']' after an array element"), record: 2, line: 1, column: 16),
        Case(input: "{\"a\":1}\n{\"a\":", reason: .unexpectedEndOfInput(expected: "a value"), record: 2, line: 2, column: 6),
        Case(input: "1\n12a", reason: .unexpectedCharacter(found: "'a'", expected: "whitespace or a new line between values"), record: 2, line: 2, column: 3),
        Case(input: "[tru, 1]", reason: .invalidLiteral(expected: "true"), record: 1, line: 1, column: 2),
        Case(input: "{}\n, {}", reason: .unexpectedCharacter(found: "','", expected: "a value"), record: 2, line: 2, column: 1),
        Case(input: "\"abc\n\"", reason: .controlCharacterInString(0x0A), record: 1, line: 1, column: 5),
        Case(input: "[1, \"unterminated", reason: .unexpectedEndOfInput(expected: "'\"' to close the string"), record: 2, line: 1, column: 18),
        Case(input: "{\"k\":1,\"k\":2}", reason: .duplicateKey("k"), record: 1, line: 1, column: 8),
    ]

    @Test(arguments: cases)
    func reportsMalformedStreams(_ c: Case) {
        for chunk in [1, 4, 1024] {
            let error = firstError(reader(c.input, chunkSize: chunk))
            #expect(error?.reason == c.reason, "chunk \(chunk)")
            #expect(error?.record == c.record, "chunk \(chunk)")
            #expect(error?.line == c.line, "chunk \(chunk)")
            #expect(error?.column == c.column, "chunk \(chunk)")
        }
    }

    @Test func staysFailedAfterAnError() throws {
        let r = reader("1 x 2")
        #expect(try r.next() == 1)
        #expect(throws: JSONError.self) { try r.next() }
        #expect(throws: JSONError.self) { try r.next() }
    }

    @Test func refusesARecordLargerThanTheLimit() {
        let error = firstError(reader("[1, \"" + String(repeating: "x", count: 10_000) + "\"]", chunkSize: 256, maxRecordSize: 4096))
        #expect(error?.reason == .recordTooLarge(limit: 4096))
        #expect(error?.record == 2)
        #expect(error?.column == 5)
    }

    @Test func reportsAFailingSource() {
        struct Failing: JSONByteSource {
            struct Broken: Error, CustomStringConvertible { var description: String { "disk on fire" } }
            mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { throw Broken() }
        }
        let error = firstError(JSONStreamReader(source: Failing()))
        #expect(error?.reason == .readFailed("disk on fire"))
    }

    @Test func readsFromAFileDescriptor() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("trove-stream-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let lines = (0..<5_000).map { "{\"n\":\($0)}" }.joined(separator: "\n")
        try Data(lines.utf8).write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let r = JSONStreamReader(fileDescriptor: handle.fileDescriptor, chunkSize: 1000)
        var count: Int64 = 0
        while let v = try r.next() {
            #expect(v == ["n": .int(count)])
            count += 1
        }
        #expect(count == 5_000)
    }
}
