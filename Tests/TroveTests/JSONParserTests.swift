import Foundation
import Testing
@testable import Trove

@Suite struct JSONParserTests {
    func parse(_ text: String) throws(JSONError) -> JSONValue { try JSONParser().parse(text) }

    /// Where each element of a top-level array starts, in bytes from the text's start (a byte
    /// order mark included); nested arrays and strings with brackets and commas are one element.
    @Test func elementOffsetsAreWhereTopLevelElementsStart() throws {
        let parsed = try JSONParser().parseWithElementOffsets("\u{FEFF} [ 1, {\"a\": [2, 3]},\n\"x,]\" ]")
        #expect(parsed.elementOffsets == [6, 9, 24])
        #expect(parsed.value == [1, ["a": [2, 3]], "x,]"])
        #expect(try JSONParser().parseWithElementOffsets(#"{"a": [1]}"#).elementOffsets == [])
        #expect(try JSONParser().parseWithElementOffsets("[]").elementOffsets == [])
    }

    func failure(_ bytes: [UInt8]) -> JSONError? {
        do {
            _ = try JSONParser().parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    func failure(_ text: String) -> JSONError? { failure(Array(text.utf8)) }

    @Test func objectsKeepKeyOrder() throws {
        let value = try parse(#"{"z":1,"a":2,"m":{"y":true,"b":null}}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.objectValue?["m"]?.objectValue?.keys == ["y", "b"])
    }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(" [ null , true,false, 0, -12, 3.5, \"s\", [], {} ] \n")
        #expect(value == [nil, true, false, 0, -12, 3.5, "s", [], [:]])
    }

    @Test func integersThatFitInt64AreIntsLongerOnesTheirTextAndOthersDoubles() throws {
        #expect(try parse("9223372036854775807") == .int(.max))
        #expect(try parse("-9223372036854775808") == .int(.min))
        #expect(try parse("9223372036854775808") == .bigInteger("9223372036854775808"))
        #expect(try parse("-9223372036854775809") == .bigInteger("-9223372036854775809"))
        #expect(try JSONWriter().string(try parse("[100000000000000000000]")) == "[100000000000000000000]")
        #expect(try parse("1.0") == .double(1))
        #expect(try parse("1e2") == .double(100))
        #expect(try parse("-0") == .int(0))
        #expect(try parse("-0.0") == .double(-0.0))
        #expect(try parse("2.5E-3") == .double(0.0025))
        #expect(try parse("123456789012345678901234567890") == .bigInteger("123456789012345678901234567890"))
        #expect(try parse("1.2345678901234567890123456789e29") == .double(1.2345678901234568e29))
    }

    @Test func decodesEveryStringEscape() throws {
        let value = try parse(#""\"\\\/\b\f\n\r\t\u00e9\u20AC\ud83d\ude00\u0000""#)
        #expect(value == .string("\"\\/\u{8}\u{C}\n\r\té€😀\u{0}"))
    }

    @Test func readsRawUTF8InStrings() throws {
        #expect(try parse("\"héllo wörld 😀 日本\"") == .string("héllo wörld 😀 日本"))
    }

    @Test func skipsAByteOrderMark() throws {
        #expect(try JSONParser().parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
    }

    @Test func keepsDuplicateKeysWhenAskedTo() throws {
        let value = try JSONParser(allowsDuplicateKeys: true).parse(#"{"a":1,"a":2}"#)
        #expect(value.objectValue?.pairs.map(\.key) == ["a", "a"])
    }

    @Test func rejectsDuplicateKeysEvenInWideObjects() {
        let keys = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let error = failure("{\(keys),\"k17\":0}")
        #expect(error?.reason == .duplicateKey("k17"))
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var input: String
        var reason: JSONError.Reason
        var line: Int
        var column: Int
        var testDescription: String { input.debugDescription }
    }

    static let cases: [Case] = [
        Case(input: "", reason: .unexpectedEndOfInput(expected: "a value"), line: 1, column: 1),
        Case(input: #"{"a":1,}"#, reason: .unexpectedCharacter(found: "'}'", expected: "a string key (trailing commas are not allowed)"), line: 1, column: 8),
        Case(input: "[1,2", reason: .unexpectedEndOfInput(expected: "',' or ']' after an array element"), line: 1, column: 5),
        Case(input: "[1,]", reason: .unexpectedCharacter(found: "']'", expected: "a value (trailing commas are not allowed)"), line: 1, column: 4),
        Case(input: #"{"a" 1}"#, reason: .unexpectedCharacter(found: "'1'", expected: "':' after an object key"), line: 1, column: 6),
        Case(input: "{a:1}", reason: .unexpectedCharacter(found: "'a'", expected: "a string key or '}'"), line: 1, column: 2),
        Case(input: #"{"a":1 "b":2}"#, reason: .unexpectedCharacter(found: "'\"'", expected: "',' or '}' after an object member"), line: 1, column: 8),
        Case(input: "[01]", reason: .invalidNumber("leading zeros are not allowed"), line: 1, column: 2),
        Case(input: "[1.]", reason: .invalidNumber("expected a digit after '.', found ']'"), line: 1, column: 4),
        Case(input: "[1e+]", reason: .invalidNumber("expected a digit in the exponent, found ']'"), line: 1, column: 5),
        Case(input: "-x", reason: .invalidNumber("expected a digit after '-'"), line: 1, column: 2),
        Case(input: "[.5]", reason: .unexpectedCharacter(found: "'.'", expected: "a value"), line: 1, column: 2),
        Case(input: "1e999", reason: .numberOutOfRange, line: 1, column: 1),
        Case(input: "tru", reason: .unexpectedEndOfInput(expected: "'true'"), line: 1, column: 4),
        Case(input: "[trux]", reason: .invalidLiteral(expected: "true"), line: 1, column: 2),
        Case(input: "NULL", reason: .unexpectedCharacter(found: "'N'", expected: "a value"), line: 1, column: 1),
        Case(input: "1 2", reason: .unexpectedCharacter(found: "'2'", expected: "end of input"), line: 1, column: 3),
        Case(input: #""ab"#, reason: .unexpectedEndOfInput(expected: "'\"' to close the string"), line: 1, column: 4),
        Case(input: "\"a\nb\"", reason: .controlCharacterInString(0x0A), line: 1, column: 3),
        Case(input: "\"\t\"", reason: .controlCharacterInString(0x09), line: 1, column: 2),
        Case(input: #""\x""#, reason: .invalidEscape(#"'\' followed by 'x'; valid escapes are \" \\ \/ \b \f \n \r \t \uXXXX"#), line: 1, column: 2),
        Case(input: #""\u12G4""#, reason: .invalidEscape("expected 4 hexadecimal digits after \\u, found 'G'"), line: 1, column: 6),
        Case(input: #""\ud800""#, reason: .invalidEscape("high surrogate \\uD800 is not followed by a low surrogate"), line: 1, column: 2),
        Case(input: #""\ud800\u0041""#, reason: .invalidEscape("high surrogate \\uD800 is followed by \\u0041, not a low surrogate"), line: 1, column: 2),
        Case(input: #""\udc00""#, reason: .invalidEscape("lone low surrogate \\uDC00"), line: 1, column: 2),
        Case(input: #"{"a":1,"a":2}"#, reason: .duplicateKey("a"), line: 1, column: 8),
        Case(input: "{\n  \"a\": 1,\n  \"b\" 2\n}", reason: .unexpectedCharacter(found: "'2'", expected: "':' after an object key"), line: 3, column: 7),
        Case(input: "[\"é😀\", x]", reason: .unexpectedCharacter(found: "'x'", expected: "a value"), line: 1, column: 8),
        Case(input: "[1,\r\n ]", reason: .unexpectedCharacter(found: "']'", expected: "a value (trailing commas are not allowed)"), line: 2, column: 2),
        Case(input: "[é]", reason: .unexpectedCharacter(found: "'é'", expected: "a value"), line: 1, column: 2),
    ]

    @Test(arguments: cases)
    func reportsWhatWasExpectedAndWhere(_ c: Case) {
        let error = failure(c.input)
        #expect(error?.reason == c.reason)
        #expect(error?.line == c.line)
        #expect(error?.column == c.column)
    }

    @Test func describesErrorsWithLineColumnAndExpectation() {
        let error = failure("{\n  \"a\": 1,\n  \"b\" 2\n}")
        #expect(error?.description == "line 3, column 7: expected ':' after an object key, found '2'")
        #expect(error?.byteOffset == 18)
    }

    @Test(arguments: [
        [0x22, 0xC3, 0x28, 0x22],  // truncated two-byte sequence
        [0x22, 0xC0, 0xAF, 0x22],  // overlong '/'
        [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-16 surrogate encoded in UTF-8
        [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
        [0x22, 0xFF, 0x22],
        [0x22, 0x5C, 0x6E, 0xE2, 0x82, 0x22],  // after an escape, on the slow path
    ] as [[UInt8]])
    func rejectsInvalidUTF8InStrings(_ bytes: [UInt8]) {
        let error = failure(bytes)
        #expect(error?.reason == .invalidUTF8)
        #expect(error?.line == 1)
    }

    @Test func describesABadByteOutsideStrings() {
        #expect(failure([0x5B, 0xFF, 0x5D])?.reason == .unexpectedCharacter(found: "byte 0xFF", expected: "a value"))
    }

    @Test func limitsNestingDepthInsteadOfOverflowingTheStack() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect(failure(deep)?.reason == .nestingTooDeep(limit: 512))
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONParser().parse(ok) }
        let tooDeep = String(repeating: "{\"a\":", count: 11) + "1" + String(repeating: "}", count: 11)
        #expect(throws: JSONError.self) { try JSONParser(maxDepth: 10).parse(tooDeep) }
    }

    @Test func parsesFromDataAndArrays() throws {
        #expect(try JSONParser().parse(Data("[1]".utf8)) == [1])
        #expect(try JSONValue(parsing: Array("{\"k\":\"v\"}".utf8)) == ["k": "v"])
    }
}
