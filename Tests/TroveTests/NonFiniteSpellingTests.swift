import Testing
@testable import Trove

/// NaN and the infinities have one spelling wherever Trove writes them: JSON text, a value's
/// description and the `found` of a refusal; and a refused string that spells one says how
/// to write it.
struct NonFiniteSpellingTests {
    @Test func jsonTextWritesPostgreSQLsStrings() {
        #expect(JSONValue.array([.double(.nan), .double(.infinity), .double(-.infinity)]).jsonText == #"["NaN","Infinity","-Infinity"]"#)
    }

    @Test func descriptionsUseTheSameWords() {
        #expect(Value.double(.infinity).description == "Infinity")
        #expect(Value.double(-.infinity).description == "-Infinity")
        #expect(Value.float(.nan).description == "NaN")
        #expect(Value.list([.double(.nan), .double(1.5)]).description == "[NaN, 1.5]")
    }

    @Test func refusalsNameTheValueInTheSameWords() throws {
        let error = try #require(throws: CoercionError.self) { try Coercion.scalar(.value(.double(.infinity)), as: .int, for: "n") }
        #expect(error.found == "Infinity, which is not a whole number")
        let float = try #require(throws: CoercionError.self) { try Coercion.scalar(.value(.float(-.infinity)), as: .int, for: "n") }
        #expect(float.found == "-Infinity, which is not a whole number")
    }

    @Test func aStringSpellingOneSaysHowToWriteIt() throws {
        for type in [PropertyType.double, .float] {
            let error = try #require(throws: CoercionError.self) { try Coercion.scalar(.literal(.string("NaN")), as: type, for: "d") }
            #expect(error.found.contains("written as an argument, $N, or in JSON"))
        }
        // In JSON, where the user writes a string already, it names JSON's spellings.
        for text in ["inf", "-INF", "nan", "+Infinity"] {
            let error = try #require(throws: CoercionError.self) { try Coercion.scalar(.json(.string(text)), as: .float, for: "f") }
            #expect(error.found == "the string \"\(text)\" (in JSON, NaN and the infinities are the strings \"NaN\", \"Infinity\" and \"-Infinity\")")
        }
        let other = try #require(throws: CoercionError.self) { try Coercion.scalar(.literal(.string("four")), as: .double, for: "d") }
        #expect(!other.found.contains("$N"))
    }
}
