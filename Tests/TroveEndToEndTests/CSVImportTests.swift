import Foundation
import Testing

/// `import` of CSV and TSV files, and `import ... MERGE`, through the built binary.
@Suite struct CSVImportTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    func store(_ name: String = "db") throws {
        let r = try w.run([name, "-s", Workspace.schema("AllTypes")])
        #expect(r.status == 0, "\(r.err)")
    }

    /// Objects holding every type, nulls, empty strings, lists, links (one to an object that
    /// comes later, one to itself) and non-ASCII text.
    static let objects = """
        [{"id": 1, "boolValue": false, "intValue": 7, "int8Value": -128, "int16Value": 32767, "int32Value": -2147483648,
          "int64Value": -9223372036854775808, "floatValue": 0.1, "doubleValue": 2.718281828459045,
          "stringValue": "héllo, \\"wörld\\"\\nsecond line", "dateValue": "2024-05-01T12:00:00.123456Z", "dataValue": "AAEC/w==",
          "decimalValue": "12345678901234567890.5", "uuidValue": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
          "optBool": true, "optInt": 0, "optString": "日本語 🎉", "optDate": "1970-01-01T00:00:00Z", "optData": "",
          "optDecimal": "-0.001", "optUUID": "00000000-0000-0000-0000-000000000001", "optDouble": -1.5e-300,
          "boolList": [true, false], "intList": [1, -2, 3], "int8List": [1], "floatList": [1.5], "doubleList": [0.1, 1e300],
          "stringList": ["a,b", "c\\"d", "", "é"], "dateList": ["2024-01-01T00:00:00Z"], "dataList": ["AQI="],
          "decimalList": ["1.10"], "uuidList": ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F"], "optIntList": [1, null],
          "optStringList": ["x", null], "link": 2, "links": [2, 1]},
         {"id": 2, "stringValue": "", "optString": "", "optInt": null, "optDouble": null, "link": 2},
         {"id": 3, "stringValue": "null", "optString": "NULL", "intValue": 0, "links": [1, 1]}]
        """

    func dump(_ store: String) throws -> String {
        let r = try w.run([store, "AllTypes SORT(id)"])
        #expect(r.status == 0, "\(r.err)")
        return r.out
    }

    @Test(arguments: ["all.csv", "all.tsv"])
    func exportThenImportGivesBackEqualObjects(file: String) throws {
        try store("a")
        try w.write("all.json", Self.objects)
        #expect(try w.run(["a", "import AllTypes all.json", "export AllTypes \(file)"]).status == 0)
        try store("b")
        let r = try w.run(["b", "import AllTypes \(file)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 3}\n")
        let original = try dump("a")
        #expect(original.contains("日本語 🎉") && original.contains("\"links\": [2, 1]"))
        #expect(try dump("b") == original)
    }

    /// Links to a model without a primary key (`Person.dogs`) are exported as nested objects,
    /// so that they import back; `bestFriend` links form a cycle.
    @Test(arguments: ["pp.csv", "pp.jsonl"])
    func exportedLinksToObjectsWithoutAKeyImportBack(file: String) throws {
        let people = """
            [{"id": 1, "name": "Ann", "age": 40, "dogs": [{"name": "Rex", "age": 3}, {"name": "Fido"}],
              "nicknames": ["A", "Annie"], "bestFriend": 2},
             {"id": 2, "name": "Bob", "birthdate": "1990-02-03", "dogs": [{"name": "Spot", "age": 7}], "bestFriend": 1},
             {"id": 3, "name": "Cy"}]
            """
        try w.write("people.json", people)
        let a = try w.run(["a", "-s", Workspace.schema("People"), "import Person people.json", "export Person \(file)"])
        #expect(a.status == 0, "\(a.err)")
        let b = try w.run(["b", "-s", Workspace.schema("People"), "import Person \(file)"])
        #expect(b.status == 0, "\(b.err)")
        #expect(b.out == "{\"inserted\": 3}\n")
        let original = try w.run(["a", ".dump"])
        #expect(original.status == 0 && original.out.contains("\"Rex\"") && original.out.contains("\"Spot\""))
        #expect(try w.run(["b", ".dump"]).out == original.out)
        let dogs = try w.run(["b", "Dog SORT(name) SELECT(name, age)"])
        #expect(dogs.out == (try w.run(["a", "Dog SORT(name) SELECT(name, age)"]).out))
    }

    /// Objects of a model without a primary key that another exported object holds nested are
    /// written only there, so that each comes back once.
    @Test(arguments: ["tags.csv", "tags.jsonl"])
    func exportedObjectsWithoutAKeyComeBackOnce(file: String) throws {
        let schema = try w.write("tags.json", """
            {"schemaVersion": 1, "models": [{"name": "Tag", "properties": {"label": "string", "next": "Tag?"}}]}
            """)
        let a = try w.run(["a", "-s", schema, #"insert Tag {"label": "a", "next": {"label": "b", "next": {"label": "c"}}}"#,
                           #"insert Tag {"label": "d"}"#, "export Tag \(file)"])
        #expect(a.status == 0, "\(a.err)")
        let b = try w.run(["b", "-s", schema, "import Tag \(file)"])
        #expect(b.status == 0, "\(b.err)")
        let labels = "Tag SORT(label) SELECT(label, next.label)"
        #expect(try w.run(["b", labels]).out == (try w.run(["a", labels]).out))
        #expect(try w.run(["b", "count Tag"]).out == "4\n")
    }

    /// A null in a file of one column is an empty line: it is an object, not a blank line
    /// to skip, or the round trip would lose it.
    @Test(arguments: ["one.csv", "one.tsv"])
    func aOneColumnExportWithNullsImportsBackEveryObject(file: String) throws {
        let schema = try w.write("one.json", """
            {"models": [{"name": "One", "properties": {"v": "string?"}}, {"name": "Num", "properties": {"n": "int?"}},
             {"name": "Key", "primaryKey": "k", "properties": {"k": "string"}}]}
            """)
        let a = try w.run(["a", "-s", schema, #"insert One [{"v": "a"}, {"v": null}, {"v": ""}, {"v": null}]"#,
                           #"insert Num [{"n": null}, {"n": 1}]"#, "export One \(file)", "export Num n-\(file)"])
        #expect(a.status == 0, "\(a.err)")
        let b = try w.run(["b", "-s", schema, "import One \(file)", "import Num n-\(file)", "One", "Num"])
        #expect(b.status == 0, "\(b.err)")
        #expect(b.out == #"""
            {"inserted": 4}
            {"inserted": 2}
            {"v": "a"}
            {"v": null}
            {"v": ""}
            {"v": null}
            {"n": null}
            {"n": 1}

            """#)
        // A required column's file holds no null: a blank line there is a stray one.
        let required = try w.run(["b", "-s", schema, "import Key - AS CSV", "count Key"], stdin: "k\n\nx\n\n")
        #expect(required.status == 0, "\(required.err)")
        #expect(required.out == "{\"inserted\": 1}\n1\n")
    }

    /// The rule is the header's, not the model's: in a file whose one column can be null,
    /// every empty line is an object, one at the end of the file too, though the model has
    /// more properties (as `--csv 'Tag SELECT(name)'` writes such a file).
    @Test(arguments: ["t.csv", "t.tsv"])
    func everyEmptyLineOfAOneNullableColumnFileIsAnObject(file: String) throws {
        let schema = try w.write("tag.json", """
            {"models": [{"name": "Tag", "properties": {"name": "string?", "color": "string?"}}]}
            """)
        try w.write(file, "name\nred\n\nblue\n\n")
        let r = try w.run(["t", "-s", schema, "import Tag \(file)", "Tag"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == #"""
            {"inserted": 4}
            {"name": "red", "color": null}
            {"name": null, "color": null}
            {"name": "blue", "color": null}
            {"name": null, "color": null}

            """#)
    }

    @Test func quotingFollowsRFC4180AndEmptyFieldsAreNullOrTheDefault() throws {
        try store()
        try w.write("q.csv", "\u{FEFF}id,stringValue,optString,intValue,optInt,stringList\r\n"
            + "1,\"a, \"\"quoted\"\"\r\nline\",\"\",,,[]\r\n"
            + "\n"
            + "2,plain,x,5,6,\"[\"\"é\"\"]\"\r\n")
        let r = try w.run(["db", "import AllTypes q.csv", "AllTypes SORT(id)"])
        #expect(r.status == 0, "\(r.err)")
        let objects = try Workspace.jsonLines(String(r.out.split(separator: "\n", maxSplits: 1)[1])) as? [[String: Any]]
        #expect(objects?[0]["stringValue"] as? String == "a, \"quoted\"\r\nline")
        #expect(objects?[0]["optString"] as? String == "")
        #expect(objects?[0]["intValue"] as? Int == -42)  // the default
        #expect(objects?[0]["optInt"] is NSNull)
        #expect(objects?[1]["stringList"] as? [String] == ["é"])
        #expect(objects?[1]["optInt"] as? Int == 6)
    }

    /// Data that follows its statement on standard input counts lines as the user sees the
    /// input, from its first line; with the statement on the command line it starts at 1.
    @Test func importErrorsOnStandardInputCountTheInputsLines() throws {
        try store()
        let csv = try w.run(["db"], stdin: "count AllTypes\nimport AllTypes - AS CSV\nid,intValue\n1,4\n2,x\n")
        #expect(csv.status == 1)
        #expect(csv.err.hasPrefix("error: line 2: import from standard input failed: line 5, column 2 (intValue): "), "\(csv.err)")
        let json = try w.run(["db"], stdin: "\n\nimport AllTypes -\n{\"id\": 1}\n{\"id\": }\n")
        #expect(json.status == 1)
        #expect(json.err.contains("failed: record 2, line 5, column 8: "), "\(json.err)")
        let command = try w.run(["db", "import AllTypes - AS CSV"], stdin: "id,intValue\n1,4\n2,x\n")
        #expect(command.err.contains("failed: line 3, column 2 (intValue): "), "\(command.err)")
    }

    @Test func standardInputIsReadAsCSVWhenAsked() throws {
        try store()
        let r = try w.run(["db", "import AllTypes - AS CSV", "count AllTypes where intValue == 4"], stdin: "id,intValue\n1,4.0\n2,4\n")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 2}\n2\n")
        let tsv = try w.run(["db", "import AllTypes - as tsv", "get AllTypes 3"], stdin: "id\tstringValue\n3\ta,b\n")
        #expect(tsv.status == 0, "\(tsv.err)")
        #expect(tsv.out.contains("\"stringValue\": \"a,b\""))
        // Without AS CSV, standard input is JSON: CSV fails on its first line, saying how to ask.
        let unnamed = try w.run(["db", "import AllTypes -"], stdin: "id,intValue\n5,4\n")
        #expect(unnamed.status == 1)
        #expect(unnamed.err.contains("record 1, line 1, column 1: expected a value, found 'i' (read as JSON; for CSV or TSV, "),
                "\(unnamed.err)")
        let named = try w.run(["db", "import AllTypes -"], stdin: "intValue,id\n4,5\n")
        #expect(named.err.contains("(read as JSON; for CSV or TSV, "), "\(named.err)")
        // A malformed JSON record is JSON gone wrong, not CSV.
        let later = try w.run(["db", "import AllTypes -"], stdin: "{\"id\": 6}\n{\"id\": }\n")
        #expect(later.status == 1 && !later.err.contains("read as JSON"), "\(later.err)")
        let first = try w.run(["db", "import AllTypes -"], stdin: "{\"id\": 6, \"id\": 7}\n")
        #expect(first.status == 1 && !first.err.contains("read as JSON"), "\(first.err)")
    }

    @Test(arguments: [
        ("id,intValue\n1,4\n2,abc\n", "line 3, column 2 (intValue): property 'intValue' expects int, not \"abc\", which is not a number"),
        ("id,intValue\n1,4.5\n", "line 2, column 2 (intValue): property 'intValue' expects int, not 4.5, which is not a whole number"),
        ("id,nmae\n1,x\n", "line 1, column 2: model 'AllTypes' has no property 'nmae'"),
        ("id,linkedFrom\n1,x\n", "line 1, column 2: 'AllTypes.linkedFrom' is computed"),
        ("id,intValue,id\n", "line 1, column 3: 'id' is named twice"),
        ("id,intValue\n1,4\n2\n", "line 3: 1 field, but the header names 2"),
        ("id,intValue\n1,4,5\n", "line 2: 3 fields, but the header names 2"),
        ("id,stringValue\n1,ok\n2,\"abc\n3,x\n", "line 3, column 2: a quoted field is not closed"),
        ("id,stringValue\n1,\"a\"b\n", "line 2, column 2: unexpected text after a closing quote"),
        ("id,link\n1,99\n", "line 2, column 2 (link): links to 'AllTypes' with primary key 99, which does not exist"),
        ("id,boolValue\n1,yes\n2,null\n", "line 3, column 2 (boolValue): 'AllTypes.boolValue' cannot be null"),
        ("id,intList\n1,\"[1,\"\n", "line 2, column 2 (intList): \"[1,\" is not JSON text"),
        ("id,dateValue\n1,yesterday\n", "line 2, column 2 (dateValue): property 'dateValue' expects date"),
        // A primary key taken names the field that holds it.
        ("id,intValue\n1,4\n1,5\n", "line 3, column 1 (id): 'AllTypes' already has an object with primary key 1"),
        ("intValue,id\n4,1\n5,1\n", "line 3, column 2 (id): 'AllTypes' already has an object with primary key 1"),
    ])
    func aBadFileNamesLineColumnAndPropertyAndImportsNothing(csv: String, message: String) throws {
        try store()
        try w.write("bad.csv", csv)
        let r = try w.run(["db", "import AllTypes bad.csv"])
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(r.err.contains("error: import from 'bad.csv' failed: " + message), "\(r.err)")
        #expect(r.err.hasSuffix("nothing was imported\n"))
        #expect(try w.run(["db", "count AllTypes"]).out == "0\n")
    }

    @Test func invalidUTF8IsAnError() throws {
        try store()
        try Data("id,stringValue\n1,ok\n2,".utf8 + [0xC3, 0x28] + Data("\n".utf8)).write(to: URL(fileURLWithPath: w.path("bad.csv")))
        let r = try w.run(["db", "import AllTypes bad.csv"])
        #expect(r.status == 1)
        #expect(r.err.contains("line 3, column 2: the field is not valid UTF-8"), "\(r.err)")
        #expect(try w.run(["db", "count AllTypes"]).out == "0\n")
    }

    @Test func mergeCreatesOrUpdatesOnlyTheGivenProperties() throws {
        try store()
        #expect(try w.run(["db", #"insert AllTypes {"id": 1, "intValue": 5, "stringValue": "kept"}"#]).status == 0)
        try w.write("m.csv", "id,intValue\n1,6\n2,7\n")
        let csv = try w.run(["db", "import AllTypes m.csv MERGE", "AllTypes SORT(id)"])
        #expect(csv.status == 0, "\(csv.err)")
        let lines = csv.out.split(separator: "\n")
        #expect(lines.first == "{\"inserted\": 2}")
        #expect(lines[1].contains("\"intValue\": 6") && lines[1].contains("\"stringValue\": \"kept\""))
        #expect(lines[2].contains("\"intValue\": 7"))

        try w.write("m.jsonl", "{\"id\": 2, \"stringValue\": \"two\"}\n{\"id\": 3}\n")
        let json = try w.run(["db", "import AllTypes m.jsonl merge", "get AllTypes 2"])
        #expect(json.status == 0, "\(json.err)")
        #expect(json.out.hasPrefix("{\"inserted\": 2}\n"))
        let updates = try w.run(["db", "import AllTypes - AS CSV MERGE"], stdin: "id,intValue\n1,8\n2,9\n")
        #expect(updates.out == "{\"updated\": 2}\n", "\(updates.err)")
        #expect(json.out.contains("\"intValue\": 7") && json.out.contains("\"stringValue\": \"two\""))

        // Without MERGE an existing key is an error, and nothing is imported.
        let plain = try w.run(["db", "import AllTypes m.csv"])
        #expect(plain.status == 1)
        #expect(plain.err.contains("line 2, column 1 (id): 'AllTypes' already has an object with primary key 1"))
        #expect(try w.run(["db", "count AllTypes"]).out == "3\n")
    }

    /// A list cannot be null, so its empty field is left out as a required scalar's is: with
    /// MERGE an existing object keeps its list (and the objects it links), a new one gets the
    /// default. A link's empty field is null, as for any property that can be null.
    @Test(arguments: ["m.csv", "m.tsv"])
    func anEmptyListFieldKeepsTheListUnderMerge(file: String) throws {
        let setUp = try w.run(["db", "-s", Workspace.schema("People"),
                               #"insert Person {"id": 1, "name": "Ann", "nicknames": ["x"], "dogs": [{"name": "R"}], "bestFriend": 1}"#])
        #expect(setUp.status == 0, "\(setUp.err)")
        let csv = "id,name,nicknames,dogs,bestFriend\n1,,,,\n2,Bo,,,\n"
        try w.write(file, file.hasSuffix(".tsv") ? csv.replacingOccurrences(of: ",", with: "\t") : csv)
        let r = try w.run(["db", "import Person \(file) MERGE", "Person SORT(id) SELECT(id, name, nicknames, dogs.@count, bestFriend)",
                           "count Dog"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == """
            {"inserted": 2}
            {"id": 1, "name": "Ann", "nicknames": ["x"], "dogs.@count": 1, "bestFriend": null}
            {"id": 2, "name": "Bo", "nicknames": [], "dogs.@count": 0, "bestFriend": null}
            1

            """)
    }

    /// JSON says what it means: a property left out keeps its value under MERGE, and null
    /// for a list is the empty list.
    @Test func aJSONRecordKeepsWhatItLeavesOutAndEmptiesAListGivenNull() throws {
        let setUp = try w.run(["db", "-s", Workspace.schema("People"),
                               #"insert Person [{"id": 1, "name": "Ann", "nicknames": ["x"]}, {"id": 2, "name": "Bo", "nicknames": ["y"]}]"#])
        #expect(setUp.status == 0, "\(setUp.err)")
        try w.write("m.jsonl", "{\"id\": 1, \"name\": \"Anna\"}\n{\"id\": 2, \"nicknames\": null}\n")
        let r = try w.run(["db", "import Person m.jsonl MERGE", "Person SORT(id) SELECT(id, name, nicknames)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == """
            {"updated": 2}
            {"id": 1, "name": "Anna", "nicknames": ["x"]}
            {"id": 2, "name": "Bo", "nicknames": []}

            """)
    }
}
