import Foundation
import Testing
@testable import Trove

@Suite struct JSONWriterTests {
    @Test func writesCompactJSONWithoutSpaces() throws {
        let value: JSONValue = ["a": 1, "b": [true, nil], "c": ["d": "e"], "f": [], "g": [:]]
        #expect(try JSONWriter().string(value) == #"{"a":1,"b":[true,null],"c":{"d":"e"},"f":[],"g":{}}"#)
    }

    @Test func writesPrettyJSONWithTwoSpaceIndent() throws {
        let value: JSONValue = ["a": 1, "b": [true, nil], "c": [:], "d": []]
        let expected = """
            {
              "a": 1,
              "b": [
                true,
                null
              ],
              "c": {},
              "d": []
            }
            """
        #expect(try JSONWriter(style: .pretty).string(value) == expected)
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() throws {
        let value = JSONValue.string("\"\\\n\r\t\u{8}\u{C}\u{1}\u{1F}é/😀")
        #expect(try JSONWriter().string(value) == #""\"\\\n\r\t\b\f\u0001\u001fé/😀""#)
    }

    @Test func writesIntegralDoublesWithAFractionSoTheyReadBackAsDoubles() throws {
        #expect(try JSONWriter().string(.double(1)) == "1.0")
        #expect(try JSONWriter().string(.double(-0.0)) == "-0.0")
        #expect(try JSONWriter().string(.double(0.1)) == "0.1")
        #expect(try JSONWriter().string(.double(1e300)) == "1e+300")
        #expect(try JSONWriter().string(.int(.min)) == "-9223372036854775808")
        #expect(try JSONWriter().string(.int(.max)) == "9223372036854775807")
        #expect(try JSONWriter().string(.int(0)) == "0")
    }

    @Test func refusesNonFiniteDoublesByDefault() throws {
        #expect(throws: JSONWriter.NonFiniteNumberError.self) { try JSONWriter().string(.double(.infinity)) }
        #expect(throws: JSONWriter.NonFiniteNumberError.self) { try JSONWriter().string([.double(.nan)]) }
        #expect(try JSONWriter(nonFiniteNumbers: .writeStrings).string([.double(.nan), .double(-.infinity), .double(.infinity)]) == #"["NaN","-Infinity","Infinity"]"#)
        #expect(JSONValue.double(.nan).jsonText == #""NaN""#)
    }

    @Test(arguments: [JSONWriter.Style.compact, .pretty])
    func writingThenParsingIsTheIdentity(_ style: JSONWriter.Style) throws {
        let value: JSONValue = [
            "ints": [0, 1, -1, .int(.max), .int(.min)],
            "doubles": [0.1, 1.0, -0.0, 1e300, .double(Double.leastNonzeroMagnitude), 2.718281828459045, 1e16, 123456.789],
            "strings": ["", "a\u{0}b", "\u{7F}", "é😀", "\"\\/"],
            "nested": ["deep": [[[["x": nil]]]]],
            "bools": [true, false],
        ]
        let text = try JSONWriter(style: style).bytes(value)
        #expect(try JSONParser().parse(text) == value)
    }
}
