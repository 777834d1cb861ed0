import Testing
import Trove
@testable import TroveShell

/// The CSV reader on its own: RFC 4180 quoting, line numbers, and records split across
/// chunk boundaries (the reader holds one chunk, never the file).
struct CSVReaderTests {
    /// Hands out `bytes` a few at a time.
    struct Chunks: JSONByteSource {
        let bytes: [UInt8]
        var offset = 0
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = min(buffer.count, bytes.count - offset)
            for i in 0..<n { buffer[i] = bytes[offset + i] }
            offset += n
            return n
        }
    }

    static func records(_ text: String, separator: UInt8 = 0x2C, chunk: Int) throws -> [[String]] {
        let reader = CSVReader(source: Chunks(bytes: Array(text.utf8)), separator: separator, chunkSize: chunk)
        var out: [[String]] = []
        while let record = try reader.next() {
            out.append(record.fields.map { $0.quoted ? "<\($0.text)>" : $0.text })
        }
        return out
    }

    @Test(arguments: [1, 2, 3, 7, 65536])
    func readsQuotingAcrossChunkBoundaries(chunk: Int) throws {
        let text = "\u{FEFF}a,b,c\r\n\"x, \"\"y\"\"\",,\"line\nbreak\"\n\n\"\",é,\"\"\"\"\n"
        #expect(try Self.records(text, chunk: chunk) == [["a", "b", "c"], ["<x, \"y\">", "", "<line\nbreak>"], ["<>", "é", "<\">"]])
        #expect(try Self.records("a\tb\n1,2\t\"3\t4\"", separator: 0x09, chunk: chunk) == [["a", "b"], ["1,2", "<3\t4>"]])
    }

    @Test func failuresNameTheLineAndColumn() throws {
        func failure(_ text: String) -> String {
            do {
                _ = try Self.records(text, chunk: 4)
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(failure("a,b\n1,\"open\nstill open") == "line 2, column 2: a quoted field is not closed (a quote is missing)")
        #expect(failure("a,b\n\"x\"y,2") == "line 2, column 1: unexpected text after a closing quote (a quote inside a field is written twice)")
        #expect(try Self.records("a\n\"multi\nline\"\nnext\n", chunk: 4).count == 3)
    }

    /// In a file of one column an empty line is a record (a null there), once the header is
    /// read; blank lines before the header are still skipped.
    @Test(arguments: [1, 3, 65536])
    func blankLinesAreRecordsWhenAsked(chunk: Int) throws {
        let reader = CSVReader(source: Chunks(bytes: Array("\nv\na\n\n\"\"\r\n\r\nb".utf8)), separator: 0x2C, chunkSize: chunk)
        #expect(try reader.next()?.fields.map(\.text) == ["v"])
        reader.blankLinesAreRecords = true
        var out: [String] = []
        while let record = try reader.next() {
            out.append(record.fields.map { $0.quoted ? "<\($0.text)>" : $0.text }.joined(separator: "|") + "@\(record.line)")
        }
        #expect(out == ["a@3", "@4", "<>@5", "@6", "b@7"])
    }

    /// Fields are checked in order: a field that is not UTF-8 is the error even when a later
    /// field of its record is malformed too.
    @Test func theFirstBadFieldOfARecordIsTheError() throws {
        func failure(_ bytes: [UInt8]) -> String {
            let reader = CSVReader(source: Chunks(bytes: bytes), separator: 0x2C, chunkSize: 4)
            do {
                while try reader.next() != nil {}
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(failure(Array("a,b\n1".utf8) + [0xBF] + Array(",\"open".utf8)) == "line 2, column 1: the field is not valid UTF-8")
        #expect(failure(Array("a,b\n1,".utf8) + [0xBF]) == "line 2, column 2: the field is not valid UTF-8")
        #expect(failure(Array("a,b\n1,\"open".utf8) + [0xBF]) == "line 2, column 2: a quoted field is not closed (a quote is missing)")
    }
}
