import Foundation
import Testing

/// The coercion rules of the shell contract ("Data in and out"), end to end through the
/// binary: integral numbers for integer properties, dates with or without a time, decimals at
/// full precision, and a literal of the wrong kind refused.
@Suite struct ValueCoercionTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    func store() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("AllTypes")]).status == 0)
    }

    /// A schema with lists of scalars, files that give them, and for each statement the error
    /// a store gives: a wrong-typed element is named by its position, from 1.
    static let listSchema = #"{"models": [{"name": "Cat", "primaryKey": "id", "properties": {"id": "int", "tags": "string[]", "nums": "int[]", "friends": "Cat[]"}}]}"#
    static let listFiles = [("el.csv", "id,tags\n1,\"[\"\"a\"\", 2]\"\n"), ("el.jsonl", "{\"id\": 1, \"nums\": [1, 2, \"x\"]}\n")]
    static let listCases: [(statement: String, error: String)] = [
        (#"insert Cat {"id": 1, "tags": ["a", 2]}"#, "error: column 12: element 2 of property 'tags' expects string, not the number 2\n"),
        (#"insert Cat {"id": 1, "nums": [1, "a"]}"#, "error: column 12: element 2 of property 'nums' expects int, not the string \"a\"\n"),
        ("update Cat 7 set nums = {1, 2.5}", "error: column 29: element 2 of property 'nums' expects int, not 2.5, which is not a whole number\n"),
        (#"update Cat 7 set tags = ["a", "b", 3]"#, "error: column 25: element 3 of property 'tags' expects string, not the number 3\n"),
        ("import Cat el.csv", "error: import from 'el.csv' failed: line 2, column 2 (tags): element 2 of property 'tags' expects string, not the number 2; nothing was imported\n"),
        ("import Cat el.jsonl", "error: import from 'el.jsonl' failed: record 1, line 1, column 1: element 3 of property 'nums' expects int, not the string \"x\"; nothing was imported\n"),
        // A list of links too, given as JSON or as a literal.
        (#"insert Cat {"id": 1, "friends": [7, "x"]}"#, "error: column 12: element 2 of property 'friends' expects int, not the string \"x\"\n"),
        (#"update Cat 7 set friends = {7, "x"}"#, "error: column 32: element 2 of property 'friends' expects int, not the string \"x\"\n"),
        // The property itself of the wrong type is named as the property.
        (#"insert Cat {"id": 1, "tags": "a"}"#, "error: column 12: property 'tags' expects string[], not a string\n"),
    ]

    @Test func aWrongTypedElementOfAListIsNamedByItsPosition() throws {
        try w.write("s.json", Self.listSchema)
        for (file, contents) in Self.listFiles { try w.write(file, contents) }
        #expect(try w.run(["cats", "--schema", "s.json", #"insert Cat {"id": 7}"#]).status == 0)
        for (statement, error) in Self.listCases {
            let r = try w.run(["cats", statement])
            #expect(r.status == 1 && r.err == error, "\(statement): \(r.err)")
        }
        #expect(try w.run(["cats", "count Cat"]).out == "1\n")
    }

    @Test func importTakesIntegralNumbersForIntegersAndDatesWithoutATime() throws {
        try store()
        // As Python's json.dumps writes a float column, and a data set's date-only dates.
        try w.write("cars.jsonl", """
            {"id": 1, "intValue": 4.0, "int8Value": 1e2, "dateValue": "1970-01-01", "optDate": "2024-05-01T14:00:00+02:00"}
            {"id": 2, "intValue": 8, "dateValue": "1982-01-01T00:00:00Z"}

            """)
        let r = try w.run(["db", "import AllTypes cars.jsonl", "AllTypes SORT(id)"])
        #expect(r.status == 0, "\(r.err)")
        let objects = try Workspace.jsonLines(String(r.out.split(separator: "\n", maxSplits: 1)[1])) as? [[String: Any]]
        #expect(objects?[0]["intValue"] as? Int == 4)
        #expect(objects?[0]["int8Value"] as? Int == 100)
        #expect(objects?[0]["dateValue"] as? String == "1970-01-01T00:00:00Z")
        #expect(objects?[0]["optDate"] as? String == "2024-05-01T12:00:00Z")
        #expect(objects?[1]["intValue"] as? Int == 8)

        try w.write("fraction.jsonl", "{\"id\": 3, \"intValue\": 4.5}\n")
        let fraction = try w.run(["db", "import AllTypes fraction.jsonl"])
        #expect(fraction.status == 1)
        #expect(fraction.err.contains("property 'intValue' expects int, not 4.5, which is not a whole number"))

        // A number beyond an integer's range shows as written, in a statement as in a file.
        for number in ["1e20", "100000000000000000000", "-12345678901234567890123"] {
            let big = try w.run(["db", #"insert AllTypes {"id": 4, "intValue": \#(number)}"#])
            #expect(big.status == 1)
            #expect(big.err == "error: column 17: property 'intValue' expects int, not \(number), which is out of range (-9223372036854775808...9223372036854775807)\n")
            try w.write("big.jsonl", "{\"id\": 4, \"intValue\": \(number)}\n")
            #expect(try w.run(["db", "import AllTypes big.jsonl"]).err.contains("expects int, not \(number), which is out of range"))
        }
        #expect(try w.run(["db", #"insert AllTypes {"id": 4, "doubleValue": 100000000000000000000}"#, "get AllTypes 4"]).out.contains(#""doubleValue": 1e+20"#))
    }

    @Test func statementsAndArgumentsFollowTheSameRules() throws {
        try store()
        let r = try w.run(["db", "--arg", "1e3", "--arg", "1970-01-02",
                           #"insert AllTypes {"id": 1, "intValue": 4.0, "dateValue": "1970-01-01"}"#,
                           "update AllTypes 1 set int16Value = 2.0, optInt = $0, optDate = $1",
                           "count AllTypes where intValue == 4 AND int16Value == 2 AND optInt == 1000 AND optDate == '1970-01-02'"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasSuffix("1\n"))
        let bad = try w.run(["db", "update AllTypes 1 set int8Value = 300"])
        #expect(bad.status == 1)
        #expect(bad.err.contains("property 'int8Value' expects int8, not 300, which is out of range (-128...127)"))
    }

    @Test func aDecimalComparesWithATwentyDigitLiteral() throws {
        try store()
        let r = try w.run(["db", #"insert AllTypes {"id": 1, "decimalValue": "12345678901234567890"}"#,
                           "count AllTypes where decimalValue == 12345678901234567890",
                           "count AllTypes where decimalValue > 12345678901234567889",
                           "count AllTypes where decimalValue < 1234567890123456789.5"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasSuffix("1\n1\n0\n"))
    }

    @Test func theLastDateHeldRoundTripsThroughGetExportAndImport() throws {
        try store()
        // A date is a double of seconds since 2001, read from text counted from 1970:
        // microseconds are its own from 1900 to 2100, about 30 µs apart in year 9999, where
        // .999999 would be 10000-01-01.
        let dates = ["9999-12-31T23:59:59.999969Z", "0000-01-01T00:00:00Z", "2100-12-31T23:59:59.999999Z",
                     "1900-01-01T00:00:00.000001Z", "2024-05-01T12:00:00.5Z"]
        let inserts = dates.enumerated().map { #"insert AllTypes {"id": \#($0.offset), "dateValue": "\#($0.element)"}"# }
        let r = try w.run(["--jsonl", "db"] + inserts + ["AllTypes SORT(id) SELECT(dateValue)", "export AllTypes all.json"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasSuffix(dates.map { #"{"dateValue": "\#($0)"}"# + "\n" }.joined()), "\(r.out)")
        #expect(try w.run(["copy.db", "-s", Workspace.schema("AllTypes")]).status == 0)
        let copy = try w.run(["--jsonl", "copy.db", "import AllTypes all.json", "AllTypes SORT(id) SELECT(dateValue)"])
        #expect(copy.status == 0, "\(copy.err)")
        #expect(copy.out.hasSuffix(dates.map { #"{"dateValue": "\#($0)"}"# + "\n" }.joined()), "\(copy.out)")

        // What the text cannot write back is refused where it comes in, and nothing is written.
        for (date, why) in [("9999-12-31T23:59:59.999999Z", "after 9999-12-31T23:59:59.999969Z, the last date held"),
                            ("0000-01-01T00:00:00+01:00", "before 0000-01-01T00:00:00Z, the first date held")] {
            let refused = try w.run(["db", #"insert AllTypes {"id": 9, "dateValue": "\#(date)"}"#])
            #expect(refused.status == 1)
            #expect(refused.err.contains(#"property 'dateValue' expects date, not "\#(date)", which is \#(why)"#), "\(refused.err)")
            try w.write("late.json", #"[{"id": 9, "dateValue": "\#(date)"}]"#)
            #expect(try w.run(["db", "import AllTypes late.json"]).err.contains(why))
        }
        // A predicate compares with any date it can read.
        let compared = try w.run(["db", "count AllTypes where dateValue < '9999-12-31T23:59:59.999999Z'"])
        #expect(compared.out == "5\n", "\(compared.err)")
    }

    @Test func aBoolComparedWithAStringIsAnError() throws {
        try store()
        let r = try w.run(["db", "count AllTypes where boolValue == 'true'"])
        #expect(r.status == 1)
        #expect(r.err.contains("expected bool, found the string \"true\""))
        let number = try w.run(["db", "count AllTypes where stringValue == 5"])
        #expect(number.status == 1)
        #expect(number.err.contains("expected string, found the number 5"))
    }
}
