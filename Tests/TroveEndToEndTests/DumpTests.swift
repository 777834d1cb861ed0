import Foundation
import Testing

/// `.dump` through the built binary: the text rebuilds an equal store, and dumping the
/// rebuilt store gives the same text.
@Suite struct DumpTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    /// Every property type set, defaults, nulls, empty and non-empty lists, non-ASCII text,
    /// and links in a cycle (1 → 2 → 1), to itself and from a list.
    static let allTypes = [
        #"{"id": 1}"#,
        #"""
        {"id": 2, "boolValue": false, "intValue": 9223372036854775807, "int8Value": 127, "int16Value": -32768,
         "int32Value": -2147483648, "int64Value": 1, "floatValue": 3.25, "doubleValue": -0.1,
         "stringValue": "naïve 日本語 🎉 \"quoted\" ; -- not a comment\nsecond line", "dateValue": "1969-07-20T20:17:40.5Z",
         "dataValue": "3q2+7w==", "decimalValue": "-0.000001",
         "uuidValue": "00000000-0000-0000-0000-000000000001", "optBool": true, "optInt": 0, "optInt8": -1,
         "optInt16": 2, "optInt32": 3, "optInt64": 4, "optFloat": 1.5, "optDouble": null, "optString": "",
         "optDate": "2024-02-29T23:59:59.999999Z", "optData": "", "optDecimal": "1e10",
         "optUUID": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "boolList": [true, false], "intList": [1, -1],
         "int8List": [8], "int16List": [16], "int32List": [32], "int64List": [64], "floatList": [0.5],
         "doubleList": [1e300, -2.5], "stringList": ["", "ß", "a,b"], "dateList": ["2000-01-01T00:00:00Z"],
         "dataList": ["AA=="], "decimalList": ["3.14"], "uuidList": ["E621E1F8-C36C-495A-93FC-0C247A3E6E5F"],
         "optIntList": [null, 7], "optStringList": [null, "x"]}
        """#,
        #"{"id": 3, "optString": "Ünïcödé"}"#,
    ]
    static let allTypesLinks = #"upsert AllTypes [{"id": 1, "link": 2, "links": [1, 2, 3]}, {"id": 2, "link": 1, "links": [2]}, {"id": 3, "link": 3}]"#

    func dumpRebuildDump(_ store: String) throws -> (first: String, second: String) {
        let first = try w.run([store, ".dump"])
        #expect(first.status == 0 && first.err.isEmpty, "\(first.err)")
        try w.write("dump.txt", first.out)
        let rebuild = try w.run(["rebuilt.trove", "-f", "dump.txt"])
        #expect(rebuild.status == 0, "\(rebuild.err)")
        let piped = try w.run(["piped.trove"], stdin: first.out)
        #expect(piped.status == 0, "\(piped.err)")
        let second = try w.run(["rebuilt.trove", ".dump"])
        #expect(second.status == 0, "\(second.err)")
        #expect(try w.run(["piped.trove", ".dump"]).out == first.out)
        return (first.out, second.out)
    }

    @Test func everyTypeNullsListsLinksAndUnicodeComeBackIdentical() throws {
        let insert = try w.run(["db", "-s", Workspace.schema("AllTypes"),
                                "insert AllTypes [\(Self.allTypes.joined(separator: ", ").replacingOccurrences(of: "\n", with: " "))]",
                                Self.allTypesLinks])
        #expect(insert.status == 0, "\(insert.err)")
        let (first, second) = try dumpRebuildDump("db")
        #expect(first == second)
        #expect(first.contains(".apply-schema {"))
        #expect(first.contains("naïve 日本語 🎉"))
        // The rebuilt store holds equal objects, and its schema (version included).
        #expect(try w.run(["rebuilt.trove", "AllTypes"]).out == w.run(["db", "AllTypes"]).out)
        #expect(try w.run(["rebuilt.trove", ".schema"]).out == w.run(["db", ".schema"]).out)
        #expect(try w.run(["rebuilt.trove", "AllTypes where ANY linkedFrom.id == 1"]).out.split(separator: "\n").count == 3)
    }

    @Test func objectsWithoutAPrimaryKeyAreWrittenInsideTheLinkThatHoldsThem() throws {
        let people = #"[{"id": 1, "name": "Ann", "dogs": [{"name": "Rex", "age": 3}, {"name": "Fido"}]},"#
            + #" {"id": 2, "name": "Bob", "bestFriend": 1, "nicknames": ["b", "bobby"]}]"#
        let r = try w.run(["db", "-s", Workspace.schema("People"), "insert Person \(people)", #"insert Dog {"name": "Stray"}"#,
                           #"upsert Person {"id": 1, "bestFriend": 2}"#])
        #expect(r.status == 0, "\(r.err)")
        let (first, second) = try dumpRebuildDump("db")
        #expect(first == second)
        #expect(first.contains(#"insert Dog {"name": "Stray", "age": 0}"#), "\(first)")
        #expect(!first.contains(#"insert Dog {"name": "Rex""#))
        #expect(try w.run(["rebuilt.trove", "count Dog"]).out == "3\n")
        #expect(try w.run(["rebuilt.trove", "Dog where ANY owners.name == 'Ann' SORT(name)"]).out
            == w.run(["db", "Dog where ANY owners.name == 'Ann' SORT(name)"]).out)
        #expect(try w.run(["rebuilt.trove", "Person"]).out == w.run(["db", "Person"]).out)
    }

    @Test func dumpOfOneModelHasTheSchemaItNeedsAndOnlyItsObjects() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann", "dogs": [{"name": "Rex"}]}"#,
                           #"insert Dog {"name": "Stray"}"#])
        #expect(r.status == 0, "\(r.err)")
        let dump = try w.run(["db", ".dump Dog"])
        #expect(dump.status == 0, "\(dump.err)")
        #expect(dump.out.contains(#""name":"Person""#) && dump.out.contains(#""name":"Dog""#))
        #expect(!dump.out.contains("insert Person"))
        #expect(dump.out.contains(#"insert Dog {"name": "Stray""#))
        // Worded as every statement and query that names a model words it: the model it most
        // likely misspells, else the models there are.
        #expect(try w.run(["db", ".dump Cat"]).err == "error: column 7: no model named 'Cat' (models: Person, Dog)\n")
        #expect(try w.run(["db", ".dump dog"]).err == "error: column 7: no model named 'dog'; did you mean 'Dog'?\n")
        #expect(try w.run(["db", ".schema Cat"]).err == "error: column 9: no model named 'Cat' (models: Person, Dog)\n")
        #expect(try w.run(["db", "count Cat"]).err == "error: column 7: no model named 'Cat' (models: Person, Dog)\n")
        #expect(try w.run(["db", ".dump Doge"]).err == "error: column 7: no model named 'Doge'; did you mean 'Dog'?\n")
        #expect(try w.run(["db", "Dgo where name == 'x'"]).err == "error: column 1: no model named 'Dgo'; did you mean 'Dog'?\n")
        #expect(try w.run(["db", "Dogcatcher where name == 'x'"]).err == "error: column 1: no model named 'Dogcatcher' (models: Person, Dog)\n")
        #expect(try w.run(["db", "Doge where name == 'x'"]).err == "error: column 1: no model named 'Doge'; did you mean 'Dog'?\n")
        #expect(try w.run(["db", "delete Doge where name == 'x'"]).err == "error: column 8: no model named 'Doge'; did you mean 'Dog'?\n")
    }

    @Test func aDumpThatFailsHalfWayLeavesNoObjects() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"), #"insert Person [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#])
        #expect(r.status == 0, "\(r.err)")
        var lines = try w.run(["db", ".dump"]).out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let second = try #require(lines.lastIndex { $0.hasPrefix("insert Person") })
        lines[second] = #"insert Person {"id": 2, "name": 5}"#
        try w.write("bad.txt", lines.joined(separator: "\n"))
        let rebuild = try w.run(["new.trove", "-f", "bad.txt"])
        #expect(rebuild.status == 1)
        #expect(rebuild.err.contains("bad.txt:\(second + 1)"), "\(rebuild.err)")
        #expect(try w.run(["new.trove", "count Person"]).out == "0\n")
    }
}
