import Foundation
import Testing

/// Every statement of the shell against a real file store made from `Schemas/*.json`, run
/// through the built binary as a script would.
@Suite struct StoreStatementTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    static let ann = #"{"id": 1, "name": "Ann", "birthdate": "1990-05-01T00:00:00Z", "age": 31, "nicknames": ["annie"]}"#
    static let bob = #"{"id": 2, "name": "Bob"}"#

    /// A People store with Ann and Bob.
    func people() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"), "insert Person [\(Self.ann), \(Self.bob)]"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 2}\n")
    }

    @Test func insertThenQueryPrintsEveryStoredPropertyInSchemaOrder() throws {
        try people()
        let r = try w.run(["db", "Person"])
        #expect(r.status == 0)
        #expect(r.out == """
            {"id": 1, "name": "Ann", "birthdate": "1990-05-01T00:00:00Z", "age": 31, "dogs": [], "nicknames": ["annie"], "bestFriend": null}
            {"id": 2, "name": "Bob", "birthdate": null, "age": null, "dogs": [], "nicknames": [], "bestFriend": null}

            """)
    }

    @Test func everyOutputMode() throws {
        try people()
        #expect(try w.run(["db", "--json", "Person"]).out.hasPrefix("[\n  {\"id\": 1, \"name\": \"Ann\""))
        let csv = try w.run(["db", "--csv", "Person"])
        #expect(csv.out == """
            id,name,birthdate,age,dogs,nicknames,bestFriend
            1,Ann,1990-05-01T00:00:00Z,31,[],"[""annie""]",
            2,Bob,,,[],[],

            """)
        let table = try w.run(["db", "--table", "Person"])
        #expect(table.out.contains("│ id │ name │") && table.out.hasSuffix("(2 rows)\n"))
        let line = try w.run(["db", "--line", "get Person 2"])
        #expect(line.out.contains("name = Bob"))
        for mode in ["--json", "--jsonl", "--csv"] {
            #expect(try w.run(["db", mode, "count Person"]).out == "2\n")
            #expect(try w.run(["db", mode, "delete Person 99"]).out == "{\"deleted\": 0}\n")
        }
        #expect(try w.run(["db", "--table", "delete Person 99"]).out == "0 objects deleted\n")
    }

    /// `get` of a key no object has prints `null` in its place in json and jsonl, and in the
    /// other modes nothing, as a query that matches nothing prints: the header line alone in
    /// csv and tsv, no record in line mode, a table without rows.
    @Test func getOfAKeyNotFoundPrintsNullOrNoRecordByMode() throws {
        try people()
        let expected: [(mode: String, one: String, several: String)] = [
            ("--json", "null\n", "[\n  null,\n  {\"id\": 2, \"name\": \"Bob\", \"birthdate\": null, \"age\": null, \"dogs\": [], \"nicknames\": [], \"bestFriend\": null}\n]\n"),
            ("--jsonl", "null\n", "null\n{\"id\": 2, \"name\": \"Bob\", \"birthdate\": null, \"age\": null, \"dogs\": [], \"nicknames\": [], \"bestFriend\": null}\n"),
            ("--csv", "id,name,birthdate,age,dogs,nicknames,bestFriend\n", "id,name,birthdate,age,dogs,nicknames,bestFriend\n2,Bob,,,[],[],\n"),
            ("--tsv", "id\tname\tbirthdate\tage\tdogs\tnicknames\tbestFriend\n",
             "id\tname\tbirthdate\tage\tdogs\tnicknames\tbestFriend\n2\tBob\t\t\t[]\t[]\t\n"),
            ("--line", "", "        id = 2\n      name = Bob\n birthdate = null\n       age = null\n      dogs = []\n nicknames = []\nbestFriend = null\n"),
        ]
        for (mode, one, several) in expected {
            let missing = try w.run(["db", mode, "get Person 42"])
            #expect(missing.status == 0 && missing.err == "")
            #expect(missing.out == one, "\(mode)")
            #expect(try w.run(["db", mode, "get Person 42 2"]).out == several, "\(mode)")
        }
        let table = try w.run(["db", "--table", "get Person 42"]).out
        #expect(table.contains("│ id │ name │") && !table.contains("Ann") && table.hasSuffix("┘\n(0 rows, 1 not found)\n"))
        let markdown = try w.run(["db", "--markdown", "get Person 42"]).out
        #expect(markdown == (try w.run(["db", "--markdown", "Person where id == 42"]).out) && markdown.hasPrefix("| id "))
    }

    /// Inside `begin` ... `commit` the json, jsonl, csv and tsv modes print each write's
    /// summary when the commit succeeds, and never for a transaction rolled back, failed or
    /// left open at exit; table mode tells of each write when it runs, as psql does.
    @Test func writeSummariesOfATransactionPrintWhenItCommits() throws {
        try people()
        let script = """
            begin
            insert Person {"id": 3, "name": "Cy"}
            rollback
            begin
            insert Person {"id": 4, "name": "Di"}
            update Person 4 set age = 5
            count Person
            commit
            .mode csv
            begin
            delete Person 4
            rollback
            begin
            delete Person 4
            commit
            .mode tsv
            begin
            insert Person {"id": 5, "name": "Ed"}
            commit
            .mode table
            begin
            insert Person {"id": 6, "name": "Flo"}
            rollback
            .mode jsonl
            begin
            insert Person {"id": 7, "name": "Gus"}
            insert Person {"id": 7, "name": "Gus"}
            commit
            begin
            insert Person {"id": 8, "name": "Hal"}
            """
        let r = try w.run(["db"], stdin: script)
        #expect(r.out == "3\n{\"inserted\": 1}\n{\"updated\": 1}\n{\"deleted\": 1}\n{\"inserted\": 1}\n1 object inserted\n", "\(r.out)")
        #expect(r.err.hasSuffix("warning: the open transaction was rolled back\n"), "\(r.err)")
        #expect(try w.run(["db", "count Person"]).out == "3\n")
    }

    /// A JSON number for a decimal, in `insert` and in `import`, is refused showing it as the
    /// decimal prints it and the string to write; a decimal prints its fewest digits whatever
    /// form it came in.
    @Test func aJSONNumberForADecimalIsRefusedWithTheStringThatWritesIt() throws {
        try w.write("d.json", #"{"models": [{"name": "D", "primaryKey": "id", "properties": {"id": "int", "d": "decimal?"}}]}"#)
        #expect(try w.run(["db", "-s", "d.json", "count D"]).out == "0\n")
        for (number, shown) in [("1e3", "1000"), ("1.50", "1.5"), ("5", "5")] {
            let r = try w.run(["db", #"insert D {"id": 1, "d": \#(number)}"#])
            #expect(r.status == 1)
            #expect(r.err == #"error: column 10: property 'd' expects decimal, not the number \#(shown) (JSON writes a decimal as a string, "\#(shown)", to keep every digit)"# + "\n")
        }
        // Past 15 digits a double may have dropped some of those written: no string is offered.
        for number in ["12345678901234567890.5", "0.12345678901234567890123"] {
            #expect(try w.run(["db", #"insert D {"id": 1, "d": \#(number)}"#]).err
                    == "error: column 10: property 'd' expects decimal, not a JSON number of more digits than a double keeps"
                    + " (JSON writes a decimal as a string, the number's digits in quotes, to keep every digit)\n")
        }
        try w.write("n.jsonl", #"{"id": 1, "d": 1e3}"# + "\n")
        #expect(try w.run(["db", "import D n.jsonl"]).err
                == #"error: import from 'n.jsonl' failed: record 1, line 1, column 1: property 'd' expects decimal, not the number 1000 (JSON writes a decimal as a string, "1000", to keep every digit); nothing was imported"# + "\n")
        #expect(try w.run(["db", #"insert D [{"id": 1, "d": "1.50"}, {"id": 2, "d": "1e3"}]"#, "insert D {\"id\": 3}", "update D 3 set d = 1.50"]).status == 0)
        #expect(try w.run(["db", "D SORT(id)"]).out == #"{"id": 1, "d": "1.5"}"# + "\n" + #"{"id": 2, "d": "1000"}"# + "\n" + #"{"id": 3, "d": "1.5"}"# + "\n")
    }

    @Test func getTypesKeysByThePrimaryKeyAndTakesArguments() throws {
        try people()
        let r = try w.run(["db", "--json", "--arg", "2", "get Person 1 $0 3"])
        #expect(r.status == 0)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [Any])
        #expect(array.count == 3)
        #expect((array[1] as? [String: Any])?["name"] as? String == "Bob")
        #expect(array[2] is NSNull)
        #expect(try w.run(["db", "--json", "get Person 42"]).out == "null\n")
        let wrong = try w.run(["db", "get Person 'one'"])
        #expect(wrong.status == 1)
        #expect(wrong.err.hasPrefix("error: column 12: "))

        // A uuid key may be written bare.
        let id = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        #expect(try w.run(["tasks", "-s", Workspace.schema("Tasks"), "insert Project {\"id\": \"\(id)\", \"name\": \"P\"}"]).status == 0)
        #expect(try w.run(["tasks", "get Project \(id)"]).out.contains("\"name\": \"P\""))
        #expect(try w.run(["tasks", "get Project '\(id)'"]).out.contains("\"name\": \"P\""))
    }

    @Test func insertOfAnExistingKeyFailsAndAppliesNothing() throws {
        try people()
        let r = try w.run(["db", #"insert Person [{"id": 3, "name": "Cy"}, {"id": 1, "name": "Again"}]"#])
        #expect(r.status == 1)
        #expect(r.err == "error: column 41: record 2: 'Person' already has an object with primary key 1\n")
        #expect(try w.run(["db", "count Person"]).out == "2\n")
    }

    /// An error in one record of an array points at that record, on its own line in a script.
    @Test func aBadRecordOfAnArrayIsPlacedAtTheRecord() throws {
        try people()
        let script = try w.write("s.trove", "count Person\ninsert Person [\n  {\"id\": 7, \"name\": \"G\"},\n  {\"id\": 8, \"name\": 5}\n]\n")
        let r = try w.run(["db", "-f", script])
        #expect(r.status == 1)
        #expect(r.err == "error: \(script):4:3: record 2: property 'name' expects string, not the number 5\n")
        let notObject = try w.run(["db", #"insert Person [{"id": 7, "name": "G"}, [8]]"#])
        #expect(notObject.err == "error: column 40: record 2 is an array, not an object\n")
        #expect(try w.run(["db", "count Person"]).out == "2\n")
    }

    /// A SELECT item of a property named like a keyword, escaped, is named for the property.
    @Test func anEscapedKeywordPropertyInSelectIsNamedForTheProperty() throws {
        let schema = try w.write("kw.json", #"{"models": [{"name": "Order", "primaryKey": "id", "properties": {"id": "int", "any": "int?", "desc": "string?"}}]}"#)
        let r = try w.run(["kw", "-s", schema, #"insert Order {"id": 1, "any": 5, "desc": "x"}"#, "Order SELECT(#any, #desc, id)", "Order SELECT(#any AS a)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 1}\n{\"any\": 5, \"desc\": \"x\", \"id\": 1}\n{\"a\": 5}\n")
    }

    /// A link set once every record is in (its target might come later) fails at its record.
    @Test func aForwardLinkThatFailsIsPlacedAtItsRecord() throws {
        try people()
        let script = try w.write("s.trove", "insert Person [\n  {\"id\": 7, \"name\": \"G\", \"bestFriend\": 9},\n  {\"id\": 8, \"name\": \"H\"}\n]\n")
        let r = try w.run(["db", "-f", script])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: \(script):2:3: record 1 (bestFriend): "), "\(r.err)")
        let second = try w.run(["db", #"insert Person [{"id": 7, "name": "G"}, {"id": 8, "name": "H", "bestFriend": 9}]"#])
        #expect(second.err.hasPrefix("error: column 40: record 2 (bestFriend): "), "\(second.err)")
        #expect(try w.run(["db", "count Person"]).out == "2\n")
    }

    @Test func upsertCreatesOrUpdatesOnlyTheGivenProperties() throws {
        try people()
        let r = try w.run(["db", #"upsert Person [{"id": 1, "age": 32}, {"id": 3, "name": "Cy"}]"#])
        #expect(r.out == "{\"inserted\": 2}\n")
        let ann = try w.run(["db", "get Person 1"]).out
        #expect(ann.contains("\"name\": \"Ann\"") && ann.contains("\"age\": 32"))
        // One count, of what happened.
        #expect(try w.run(["db", #"upsert Person {"id": 1, "age": 33}"#]).out == "{\"updated\": 1}\n")
        #expect(try w.run(["db", #"upsert Person {"id": 9, "name": "Di"}"#]).out == "{\"inserted\": 1}\n")
    }

    @Test func updateByKeySetsLiteralsTypedByTheProperty() throws {
        try people()
        let r = try w.run(["db", "--arg", "2001-02-03T04:05:06Z", "update Person 2 set age = 40, birthdate = $0, nicknames = [\"b\"], bestFriend = 1"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"updated\": 1}\n")
        #expect(try w.run(["db", "get Person 2"]).out
            == "{\"id\": 2, \"name\": \"Bob\", \"birthdate\": \"2001-02-03T04:05:06Z\", \"age\": 40, \"dogs\": [], \"nicknames\": [\"b\"], \"bestFriend\": 1}\n")
        #expect(try w.run(["db", "update Person 2 set age = nil"]).status == 0)
        // `{}` empties a list, as `{"a"}` fills one.
        let emptied = try w.run(["db", "update Person 2 set nicknames = {}", "get Person 2"])
        #expect(emptied.status == 0, "\(emptied.err)")
        #expect(emptied.out.contains("\"nicknames\": []"), "\(emptied.out)")

        let mismatch = try w.run(["db", "update Person 2 set age = 'old'"])
        #expect(mismatch.status == 1)
        #expect(mismatch.err.hasPrefix("error: column 27: property 'age' expects int"))
        let missing = try w.run(["db", "update Person 9 set age = 1"])
        #expect(missing.err == "error: column 15: 'Person' has no object with primary key 9\n")
        let unknown = try w.run(["db", "update Person 2 set agee = 1"])
        #expect(unknown.err == "error: column 21: model 'Person' has no property 'agee'\n")
        let noArg = try w.run(["db", "update Person 2 set age = $1"])
        #expect(noArg.err == "error: column 27: $1 has no value: none is bound (bind them with --arg VALUE, or .param set N VALUE)\n")
    }

    @Test func setValuesTheWriteRefusesNameTheirColumn() throws {
        try people()
        let noKey = try w.run(["db", "update Person 1 set bestFriend = {}"])
        #expect(noKey.status == 1)
        #expect(noKey.err == "error: column 34: an object of 'Person' needs its primary key\n")
        let noTarget = try w.run(["db", "update Person where id == 1 set age = 3, bestFriend = 99"])
        #expect(noTarget.err == "error: column 55: property 'bestFriend' links to 'Person' with primary key 99, which does not exist\n")
        let null = try w.run(["db", "update Person 1 set age = 3, name = nil"])
        #expect(null.err == "error: column 37: 'Person.name' cannot be null\n")
    }

    @Test func deleteByKey() throws {
        try people()
        #expect(try w.run(["db", "delete Person 1 2 7"]).out == "{\"deleted\": 2}\n")
        #expect(try w.run(["db", "count Person"]).out == "0\n")
    }

    @Test func nestedObjectsForLinksAreUpserted() throws {
        try people()
        let r = try w.run(["db", #"insert Person {"id": 5, "name": "Eve", "bestFriend": {"id": 1, "age": 50}, "dogs": [{"name": "Rex"}]}"#])
        #expect(r.status == 0, "\(r.err)")
        #expect(try w.run(["db", "get Person 1"]).out.contains("\"age\": 50"))
        #expect(try w.run(["db", "--csv", "Dog"]).out == "name,age\nRex,0\n")
    }

    @Test func insertAndUpsertOfAnArrayLinkToLaterObjectsOfIt() throws {
        let r = try w.run(["db", "-s", Workspace.schema("People"),
                           #"insert Person [{"id": 1, "name": "Ann", "bestFriend": 2}, {"id": 2, "name": "Bob", "bestFriend": 2}]"#])
        #expect(r.status == 0, "\(r.err)")
        #expect(try w.run(["db", "--csv", "Person SELECT(id, bestFriend.name)"]).out == "id,bestFriend.name\n1,Bob\n2,Bob\n")
        let u = try w.run(["db", #"upsert Person [{"id": 1, "bestFriend": 3}, {"id": 3, "name": "Cy", "bestFriend": 1}]"#])
        #expect(u.status == 0, "\(u.err)")
        #expect(u.out == "{\"inserted\": 2}\n")
        #expect(try w.run(["db", "--csv", "Person SELECT(id, bestFriend.name)"]).out == "id,bestFriend.name\n1,Cy\n2,Bob\n3,Ann\n")
        let missing = try w.run(["db", #"insert Person [{"id": 4, "name": "Di", "bestFriend": 9}, {"id": 5, "name": "Ed"}]"#])
        #expect(missing.status == 1)
        #expect(missing.err == "error: column 16: record 1 (bestFriend): links to 'Person' with primary key 9, which does not exist\n")
        // One record's place is the property alone, named once.
        #expect(try w.run(["db", #"insert Person {"id": 4, "name": "Di", "bestFriend": 9}"#]).err
                == "error: column 15: bestFriend: links to 'Person' with primary key 9, which does not exist\n")
        #expect(try w.run(["db", "count Person"]).out == "3\n")
    }

    @Test func importStreamsJSONLinesFromAPipeline() throws {
        #expect(try w.run(["users", "-s", Workspace.schema("User")]).status == 0)
        var lines = ""
        for i in 0..<2000 {
            lines += #"{"uid": "u\#(i)", "name": "User \#(i)", "signedUpAt": "2024-05-01T12:00:00Z", "age": \#(i % 90)}"# + "\n"
        }
        let r = try w.run(["users", "-c", "import User -"], stdin: lines)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 2000}\n")
        #expect(try w.run(["users", "count User"]).out == "2000\n")
        #expect(try w.run(["users", "--csv", "get User 'u1999'"]).out.contains("u1999,User 1999,,19,false"))
    }

    @Test func importOfAJSONArrayFile() throws {
        #expect(try w.run(["users", "-s", Workspace.schema("User")]).status == 0)
        try w.write("users.json", """
            [
              {"uid": "a", "name": "Ann", "signedUpAt": "2024-05-01T12:00:00Z", "avatar": "aGVsbG8=", "roles": ["admin"]},
              {"uid": "b", "name": "Bob", "signedUpAt": "2024-05-02T12:00:00.250Z"}
            ]
            """)
        let r = try w.run(["users", "import User users.json", "get User 'b'"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("{\"inserted\": 2}\n"))
        #expect(r.out.contains("\"signedUpAt\": \"2024-05-02T12:00:00.25"))
    }

    @Test func importWithOneBadRecordImportsNothingAndNamesIt() throws {
        #expect(try w.run(["users", "-s", Workspace.schema("User")]).status == 0)
        try w.write("bad.jsonl", """
            {"uid": "a", "name": "Ann", "signedUpAt": "2024-05-01T12:00:00Z"}
            {"uid": "b", "name": "Bob", "signedUpAt": "2024-05-01T12:00:00Z"}
            {"uid": "c", "name": "Cy", "signedUpAt": "last tuesday"}
            {"uid": "d", "name": "Di", "signedUpAt": "2024-05-01T12:00:00Z"}

            """)
        let r = try w.run(["users", "import User bad.jsonl"])
        #expect(r.status == 1)
        #expect(r.out.isEmpty)
        #expect(r.err.hasPrefix("error: import from 'bad.jsonl' failed: record 3, line 3, column 1: property 'signedUpAt' expects date"))
        #expect(r.err.contains("last tuesday") && r.err.hasSuffix("nothing was imported\n"))
        #expect(try w.run(["users", "count User"]).out == "0\n")

        try w.write("broken.json", "[{\"uid\": \"a\", \"name\": \"A\", \"signedUpAt\": \"2024-05-01T12:00:00Z\"},\n {\"uid\": \"b\" \"name\": 1}]")
        let broken = try w.run(["users", "import User broken.json"])
        #expect(broken.status == 1)
        #expect(broken.err.contains("record 2, line 2, column 14: expected ',' or '}'"))

        try w.write("dup.jsonl", "{\"uid\": \"a\", \"name\": \"A\", \"signedUpAt\": \"2024-05-01T12:00:00Z\"}\n{\"uid\": \"a\", \"name\": \"A\", \"signedUpAt\": \"2024-05-01T12:00:00Z\"}\n")
        let dup = try w.run(["users", "import User dup.jsonl"])
        #expect(dup.err.contains("record 2, line 2, column 1: 'User' already has an object with primary key \"a\""))
        #expect(try w.run(["users", "count User"]).out == "0\n")

        // A record's fault found after it was read names where the record starts: its
        // number alone does not find it in an array over many lines or past blank lines.
        try w.write("typed.json", "[\n  {\"uid\": \"a\", \"name\": \"A\", \"signedUpAt\": \"2024-05-01\"},\n\n  {\"uid\": \"b\", \"name\": 2}\n]\n")
        #expect(try w.run(["users", "import User typed.json"]).err
                == "error: import from 'typed.json' failed: record 2, line 4, column 3: property 'name' expects string, not the number 2; nothing was imported\n")
        try w.write("spaced.jsonl", "{\"uid\": \"a\", \"name\": \"A\", \"signedUpAt\": \"2024-05-01\"}\n\n\n{\"uid\": \"b\", \"nom\": \"B\"}\n")
        #expect(try w.run(["users", "import User spaced.jsonl"]).err
                == "error: import from 'spaced.jsonl' failed: record 2, line 4, column 1: model 'User' has no property 'nom'; nothing was imported\n")
        #expect(try w.run(["users", "count User"]).out == "0\n")
    }

    @Test func exportWritesJSONCSVAndJSONLines() throws {
        try people()
        let r = try w.run(["db", "export Person out.json", "export Person out.csv", "export Person out.jsonl", "export Person"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.split(separator: "\n").count == 2)
        let array = try JSONSerialization.jsonObject(with: try w.bytes("out.json")) as? [[String: Any]]
        #expect(array?.map { $0["name"] as? String } == ["Ann", "Bob"])
        #expect(try w.read("out.csv").hasPrefix("id,name,birthdate,age,dogs,nicknames,bestFriend\n1,Ann,"))
        #expect(try Workspace.jsonLines(try w.read("out.jsonl")).count == 2)
        // Round trip through import.
        #expect(try w.run(["copy", "-s", Workspace.schema("People"), "import Person out.json", "count Person"]).out == "{\"inserted\": 2}\n2\n")
    }

    @Test func queryOutputFeedsAPipeline() throws {
        try people()
        let r = try w.bash("""
            trove db 'Person' | trove copy -s \(Workspace.schema("People")) -c 'import Person -'
            trove copy 'count Person'
            trove db --csv 'Person' | cut -d, -f2
            """)
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 2}\n2\nname\nAnn\nBob\n")
    }

    @Test func transactionsCommitTogetherOrNotAtAll() throws {
        try people()
        let rolledBack = try w.run(["db"], stdin: """
            begin
            insert Person {"id": 3, "name": "Cy"}
            count Person
            rollback
            count Person

            """)
        #expect(rolledBack.status == 0)
        #expect(rolledBack.out == "3\n2\n")
        let committed = try w.run(["db", "begin", #"insert Person {"id": 3, "name": "Cy"}"#, "delete Person 1", "commit", "count Person"])
        #expect(committed.out == "{\"inserted\": 1}\n{\"deleted\": 1}\n2\n")
        // Left open at exit: rolled back, with a warning.
        let open = try w.run(["db", "begin", "delete Person 2"])
        #expect(open.status == 0)
        #expect(open.err == "warning: the open transaction was rolled back\n")
        #expect(try w.run(["db", "count Person"]).out == "2\n")
    }

    /// A transaction statement at the wrong time names its place, as other statement errors do.
    @Test func transactionStatementsOutOfPlaceNameTheirPosition() throws {
        try people()
        let r = try w.run(["db"], stdin: "commit\nbegin\ncount Person; begin\nwatch Person\nrollback\n  rollback\n")
        #expect(r.status == 1)
        #expect(r.err == """
            error: line 1, column 1: no transaction is open ('begin' starts one)
            error: line 3, column 15: a transaction is already open; 'commit' or 'rollback' it first
            error: line 4, column 1: 'watch' cannot run inside a transaction: it waits for commits ('commit' or 'rollback' first)
            error: line 6, column 3: no transaction is open ('begin' starts one)

            """)
    }

    @Test func aFailedWriteInATransactionRollsItBack() throws {
        try people()
        let r = try w.run(["db"], stdin: """
            begin
            insert Person {"id": 3, "name": "Cy"}
            insert Person [{"id": 4, "name": "Di"}, {"id": 1, "name": "Dup"}]
            count Person
            commit
            count Person

            """)
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err.contains("line 4: the transaction failed"))
        #expect(r.err.contains("line 5: the transaction was rolled back, not committed"))
    }

    /// An update of several keys that fails at a later key has written the earlier ones into
    /// the transaction; no statement sees them (a read, `export`, `.dump`) and `commit` rolls
    /// them back.
    @Test func aWriteFailingPartWayInATransactionIsNeitherSeenNorCommitted() throws {
        try people()
        let r = try w.run(["db"], stdin: """
            begin
            update Person 1 2 999 set name = "Zed"
            Person where name == "Zed"
            export Person
            .dump
            commit
            Person SORT(id) SELECT(name)

            """)
        #expect(r.status == 1)
        #expect(r.out == "{\"name\": \"Ann\"}\n{\"name\": \"Bob\"}\n")
        let failure = "'Person' has no object with primary key 999"
        let refused = "the transaction failed (\(failure)); statements are refused until 'rollback'"
        #expect(r.err == """
            error: line 2, column 19: \(failure)
            error: line 3: \(refused)
            error: line 4: \(refused)
            error: line 5: \(refused)
            error: line 6: the transaction was rolled back, not committed: a statement in it failed (\(failure))

            """)
    }

    /// Any write statement that fails in a transaction fails it, as in psql, even one refused
    /// before it wrote anything; a read that fails changes nothing and fails nothing.
    @Test func anyFailedWriteFailsTheTransactionAndAFailedReadNone() throws {
        try people()
        let r = try w.run(["db"], stdin: """
            begin
            Person where nope == 1
            insert Person {"id": 3, "name": "Cy"}
            update Person 1 set nope = 1
            count Person
            rollback
            count Person

            """)
        #expect(r.out == "2\n")
        #expect(r.err.contains("line 2, column 14: "))
        #expect(r.err.contains("line 5: the transaction failed ("))
        #expect(!r.err.contains("line 3:"))
    }

    /// The write summaries of a transaction whose commit fails are not printed, neither then
    /// nor at the next commit.
    @Test func aFailedCommitPrintsNoSummaries() throws {
        try people()
        let r = try w.run(["db"], stdin: """
            begin
            insert Person {"id": 3, "name": "Cy"}
            insert Person {"id": 1, "name": "Dup"}
            commit
            begin
            delete Person 2
            commit

            """)
        #expect(r.out == "{\"deleted\": 1}\n")
        #expect(try w.run(["db", "Person SELECT(id)"]).out == "{\"id\": 1}\n")
    }

    @Test func stopsAtTheFirstErrorWithStatusOne() throws {
        try people()
        let r = try w.run(["db", "-c", "count Person", "-c", "count Nobody", "-c", "delete Person 1"])
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err == "error: column 7: no model named 'Nobody' (models: Person, Dog)\n")
        // psql's words at the start of a line say what they are here.
        #expect(try w.run(["db", "quit"]).err == "error: column 1: no model named 'quit'; .quit leaves the shell\n")
        #expect(try w.run(["db", "help"]).err == "error: column 1: no model named 'help'; .help lists the commands\n")
        #expect(try w.run(["db", "SELECT * FROM Person"]).err
                == "error: column 1: no model named 'SELECT'; a query is not SQL here: it names its model first, as in Person where age > 30 SELECT(name)\n")
        #expect(try w.run(["db", "  Quit  "]).err == "error: column 3: no model named 'Quit'; .quit leaves the shell\n")
        // Its backslash commands say which dot-command or statement does their work.
        #expect(try w.run(["db", "\\q"]).err == "error: column 1: unknown command '\\q'; .quit leaves the shell\n")
        #expect(try w.run(["db", "\\copy Person from 'p.csv' csv header"]).err
                == "error: column 1: unknown command '\\copy'; import MODEL FILE and export MODEL FILE read and write CSV, TSV and JSON\n")
        #expect(try w.run(["db", "\\dT+"]).err == "error: column 1: unknown command '\\dT+'; psql's backslash commands are dot-commands here: .help lists them\n")
        #expect(try w.run(["db", "count Person"]).out == "2\n")
    }

    /// Dot-command and runtime errors in a script name their column as parse errors do.
    @Test func scriptErrorsNameTheirColumn() throws {
        try people()
        let script = try w.write("s.trove", """
            .mode bogus
              .schema  Nobody
            .read missing.trove
            insert Person {"id": 1, "name": "Ann"}
            upsert Person {"id": "x"}
            import Person missing.jsonl
            .frob
            export Person where age > 1 missing/out.csv

            """)
        let r = try w.run(["db", "-f", script, "--bail"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("error: \(script):1:7: unknown mode 'bogus'"), "\(r.err)")
        let lines = try w.run(["db"], stdin: try w.read("s.trove")).err.split(separator: "\n")
        #expect(lines.count == 8, "\(lines)")
        let expected = [
            "error: line 1, column 7: unknown mode 'bogus'",
            "error: line 2, column 12: no model named 'Nobody'",
            "error: line 3, column 7: cannot read 'missing.trove'",
            "error: line 4, column 15: 'Person' already has an object with primary key 1",
            "error: line 5, column 15: property 'id' expects int",
            "error: line 6, column 15: cannot read 'missing.jsonl'",
            "error: line 7, column 1: unknown command '.frob'",
            "error: line 8, column 29: cannot write 'missing/out.csv'",
        ]
        for (line, prefix) in zip(lines, expected) { #expect(line.hasPrefix(prefix), "\(line)") }
    }

    @Test func readonlyRefusesWritesAndLeavesTheFileByteForByte() throws {
        try people()
        let before = try w.bytes("db")
        let r = try w.run(["--readonly", "db", "-c", "count Person", "-c", "delete Person 1"])
        #expect(r.status == 1)
        #expect(r.out == "2\n")
        #expect(r.err == "error: column 1: cannot delete: the database is open read-only (--readonly)\n")
        #expect(try w.run(["db", "--readonly", "begin"]).err
                == "error: column 1: cannot begin a transaction: the database is open read-only (--readonly)\n")
        #expect(try w.run(["db", "--readonly", ".vacuum"]).err == "error: cannot vacuum: the database is open read-only (--readonly)\n")
        for statement in ["begin", #"insert Person {"id": 9, "name": "X"}"#, "update Person 1 set age = 1", "import Person -"] {
            #expect(try w.run(["db", "--readonly", statement]).status == 1)
        }
        #expect(try w.run(["db", "--readonly", "-s", Workspace.schema("People"), "Person", "get Person 1", ".schema"]).status == 0)
        // A schema file that adds to the store cannot be applied: the open says so and goes on.
        let people = try String(contentsOfFile: Workspace.schema("People"), encoding: .utf8)
        try w.write("more.json", people.replacingOccurrences(of: #""bestFriend": "Person?""#, with: #""bestFriend": "Person?", "email": "string?""#))
        let more = try w.run(["db", "--readonly", "-s", "more.json", "count Person"])
        #expect(more.status == 0)
        #expect(more.out == "2\n")
        #expect(more.err == "warning: the schema file is not applied, since --readonly cannot change the store"
                + " (property 'Person.email' (string?) added); statements see the store's own schema\n")
        #expect(try w.run(["db", "--readonly", "-s", Workspace.schema("People"), "count Person"]).err == "")
        try w.write("less.json", people.replacingOccurrences(of: #""age": *"int\?","#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #""schemaVersion": 1"#, with: #""schemaVersion": 2"#))
        let less = try w.run(["db", "--readonly", "-s", "less.json", "count Person"])
        #expect(less.status == 1)
        #expect(less.err == "error: cannot open 'db' with this schema: the store needs a migration to schema version 2,"
                + " but it is open read-only (open it without --readonly to migrate it; to read the store as it is,"
                + " open it without --schema)\n")
        #expect(try w.bytes("db") == before)
        let missing = try w.run(["--readonly", "nothing.trove", "count Person"])
        #expect(missing.status == 2)
        #expect(missing.err == "trove: cannot open 'nothing.trove': No such file or directory\n")
        #expect(!FileManager.default.fileExists(atPath: w.path("nothing.trove")))
    }

    /// A refused migration says what would make it go, by why it was refused: a lower
    /// schemaVersion never migrates (under --readonly, --reset-on-migration would wipe the
    /// store without it), and changes that need a higher one say so once; under --readonly
    /// each also says how to read the store as it is.
    @Test func aRefusedMigrationGivesOneHintThatFitsItsCause() throws {
        let people = try String(contentsOfFile: Workspace.schema("People"), encoding: .utf8)
        try w.write("v2.json", people.replacingOccurrences(of: #""schemaVersion": 1"#, with: #""schemaVersion": 2"#))
        #expect(try w.run(["db", "-s", "v2.json", #"insert Person {"id": 1, "name": "Ann"}"#]).status == 0)
        let before = try w.bytes("db")
        let lower = "error: cannot open 'db' with this schema: schemaVersion 1 is lower than the store's schemaVersion 2"
        let readOnlyReset = try w.run(["db", "--readonly", "--reset-on-migration", "-s", Workspace.schema("People"), "count Person"])
        #expect(readOnlyReset.status == 1)
        #expect(readOnlyReset.err == lower + " (nothing migrates to a lower schemaVersion; without --readonly,"
                + " --reset-on-migration would wipe the store; to read the store as it is, open it without --schema)\n")
        #expect(try w.run(["db", "--readonly", "-s", Workspace.schema("People"), "count Person"]).err
                == lower + " (nothing migrates to a lower schemaVersion: raise it, and open the store without --readonly to migrate it;"
                + " to read the store as it is, open it without --schema)\n")
        #expect(try w.run(["db", "-s", Workspace.schema("People"), "count Person"]).err
                == lower + " (raise schemaVersion, or pass --reset-on-migration to wipe the store)\n")
        #expect(try w.bytes("db") == before)

        try w.write("email.json", people.replacingOccurrences(of: #""schemaVersion": 1"#, with: #""schemaVersion": 2"#)
            .replacingOccurrences(of: #""bestFriend": "Person?""#, with: #""bestFriend": "Person?", "email": "string""#))
        let required = try w.run(["db", "-s", "email.json", "count Person"])
        #expect(required.status == 1)
        #expect(required.err == "error: cannot open 'db' with this schema: the schema changed in ways that need a migration,"
                + " but schemaVersion is still 2 (raise it to 3 or more): property 'Person.email' (string) added, required and"
                + " without a default (give it a default or make it optional to add it without a migration)\n")
        // Under --readonly raising schemaVersion is not enough: the hint says what else to do.
        let readOnly = try w.run(["db", "--readonly", "-s", "email.json", "count Person"])
        #expect(readOnly.status == 1)
        #expect(readOnly.err == String(required.err.dropLast()) + " (then open it without --readonly to migrate it;"
                + " to read the store as it is, open it without --schema)\n")
        #expect(try w.run(["db", "--readonly", "--reset-on-migration", "-s", "email.json", "count Person"]).err
                == readOnly.err)
        #expect(try w.run(["db", "--readonly", "count Person"]).out == "1\n")
        #expect(try w.bytes("db") == before)
    }

    @Test func badSchemaFileExitsTwoNamingFilePathAndProblem() throws {
        try w.write("bad.json", #"{"models": [{"name": "A", "properties": {"x": "int"}}, {"name": "B", "properties": {"owner": "Persn"}}]}"#)
        let r = try w.run(["db", "-s", "bad.json", "count A"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("trove: bad schema: bad.json: models[1].properties.owner: unknown type 'Persn'"))
        #expect(!FileManager.default.fileExists(atPath: w.path("db")))
        let unreadable = try w.run(["db", "--schema", "missing.json"])
        #expect(unreadable.status == 2)
        #expect(unreadable.err == "trove: cannot read schema 'missing.json': No such file or directory\n")
    }

    @Test func aFileThatIsNotAStoreExitsTwo() throws {
        try w.write("notes.txt", "these are not the bytes you are looking for\n")
        let r = try w.run(["notes.txt", "count Person"])
        #expect(r.status == 2)
        #expect(r.err.hasPrefix("trove: cannot open 'notes.txt': "))
        #expect(r.err.contains("not a Trove store"))
        #expect(try w.read("notes.txt") == "these are not the bytes you are looking for\n")
        #expect(!FileManager.default.fileExists(atPath: w.path("notes.txt-lock")))
        #expect(!FileManager.default.fileExists(atPath: w.path("notes.txt-log")))
    }

    @Test func resetOnMigrationWipesInsteadOfFailing() throws {
        try people()
        // `age` changes type without a higher schemaVersion: a migration that is not allowed.
        let changed = try String(contentsOfFile: Workspace.schema("People"), encoding: .utf8)
            .replacingOccurrences(of: "\"age\":        \"int?\"", with: "\"age\":        \"string?\"")
        try w.write("changed.json", changed)
        let refused = try w.run(["db", "-s", "changed.json", "count Person"])
        #expect(refused.status == 1)
        #expect(refused.err.hasPrefix("error: cannot open 'db' with this schema: "))
        #expect(try w.run(["db", "count Person"]).out == "2\n")
        let reset = try w.run(["db", "-s", "changed.json", "--reset-on-migration", "count Person"])
        #expect(reset.status == 0, "\(reset.err)")
        #expect(reset.out == "0\n")
        // What was wiped, and why.
        #expect(reset.err.hasPrefix("warning: --reset-on-migration wiped the store, deleting model 'Person' (2 objects),"
            + " model 'Dog' (0 objects), since the schema changed in ways that need a migration, but schemaVersion is still 1"),
                "\(reset.err)")
        #expect(reset.err.contains("'Person.age'") && reset.err.hasSuffix("\n") && reset.err.split(separator: "\n").count == 1, "\(reset.err)")
    }

    /// A migration that a higher schemaVersion allows runs and keeps the data, with or without
    /// `--reset-on-migration`, which wipes only where the open would fail.
    @Test func resetOnMigrationKeepsTheDataOfAnAllowedMigration() throws {
        try people()
        let changed = try String(contentsOfFile: Workspace.schema("People"), encoding: .utf8)
            .replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 2")
            .replacingOccurrences(of: "\"age\":        \"int?\"", with: "\"age\":        \"string?\"")
        try w.write("v2.json", changed)
        let r = try w.run(["db", "-s", "v2.json", "--reset-on-migration", "--csv", "Person SELECT(id, name, age)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "id,name,age\n1,Ann,\n2,Bob,\n")
        #expect(r.err == "warning: the migration to schemaVersion 2 dropped the values of 'Person.age' (int to string: each is its default now)\n",
                "\(r.err)")
    }

    /// A migration that makes an optional property required warns of the nulls it replaced
    /// with the default (Bob has no age).
    @Test func aMigrationThatMakesAPropertyRequiredWarnsOfItsNulls() throws {
        try people()
        let changed = try String(contentsOfFile: Workspace.schema("People"), encoding: .utf8)
            .replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 2")
            .replacingOccurrences(of: "\"age\":        \"int?\"", with: "\"age\":        \"int\"")
        try w.write("v2.json", changed)
        let r = try w.run(["db", "-s", "v2.json", "--csv", "Person SELECT(id, name, age)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "id,name,age\n1,Ann,31\n2,Bob,0\n")
        #expect(r.err == "warning: the migration to schemaVersion 2 dropped the nulls of 'Person.age' (1 object, made required: each is its default now)\n",
                "\(r.err)")
    }

    @Test func modelsAndSchemaComeFromTheStore() throws {
        try people()
        #expect(try w.run(["db", ".models"]).out == "Person\nDog\n")
        let schema = try w.run(["db", ".schema Dog"]).out
        #expect(schema.contains("\"age\": {\"type\": \"int\", \"default\": 0}"))
        #expect(schema.contains("\"owners\": {\"type\": \"linkingObjects\", \"objectType\": \"Person\", \"property\": \"dogs\"}"))
        #expect(try w.run(["db", ".schema Cat"]).status == 1)
    }

    @Test func inMemoryStoreWithASchema() throws {
        let r = try w.run([":memory:", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "A"}"#, "count Person"])
        #expect(r.out == "{\"inserted\": 1}\n1\n")
        let none = try w.run(["-c", "count Person"])
        #expect(none.status == 1)
        #expect(none.err.contains("no model named 'Person' (the store has no models: open it with --schema FILE, or run .apply-schema FILE)"))
    }

    @Test func queriesWithPredicatesClausesAndParameters() throws {
        try people()
        #expect(try w.run(["db", #"insert Person [{"id": 3, "name": "Cy", "age": 25}, {"id": 4, "name": "Di", "age": 31}]"#]).status == 0)
        let sorted = try w.run(["db", "--csv", "Person where age != nil SORT(age DESC, name ASC) LIMIT(2)"])
        #expect(sorted.out.split(separator: "\n").map { $0.split(separator: ",")[1] } == ["name", "Ann", "Di"])
        let distinct = try w.run(["db", "--csv", "Person where age > 0 SORT(age) DISTINCT(age)"])
        #expect(distinct.out.split(separator: "\n").count == 3)
        // OFFSET pages through the sorted results, in queries, export and explain.
        let page = try w.run(["db", "--csv", "Person SORT(id) OFFSET(1) LIMIT(2)"])
        #expect(page.out.split(separator: "\n").map { $0.split(separator: ",")[0] } == ["id", "2", "3"])
        #expect(try w.run(["db", "--csv", "Person SORT(id DESC) offset(3)"]).out.split(separator: "\n").count == 2)
        #expect(try w.run(["db", "export Person SORT(id) OFFSET(2) page.jsonl"]).status == 0)
        #expect(try w.read("page.jsonl").split(separator: "\n").count == 2)
        let pagePlan = try w.run(["db", "explain Person SORT(id) OFFSET(1) LIMIT(2)"])
        #expect(pagePlan.out.contains("\"OFFSET 1 (skips index entries, reads no object)\""), "\(pagePlan.out)")
        let negative = try w.run(["db", "Person SORT(id)  OFFSET(-1)"])
        #expect(negative.status == 1)
        #expect(negative.err.hasPrefix("error: column 25: OFFSET takes an integer from 0 to 9223372036854775807"), "\(negative.err)")
        #expect(try w.run(["db", "--arg", "30", "count Person where age > $0"]).out == "2\n")
        #expect(try w.run(["db", "--arg", "a", "count Person where name BEGINSWITH[c] $0"]).out == "1\n")
        // Every statement of a run is given every --arg value, and uses those it names.
        let both = try w.run(["db", "--arg", "30", "--arg", "a", "-c", "count Person where age > $0",
                              "-c", "count Person where name BEGINSWITH[c] $1", "-c", "count Person", "-c", "sum Person.age where age > $0"])
        #expect(both.status == 0, "\(both.err)")
        #expect(both.out.split(separator: "\n").count == 4, "\(both.out)")
        #expect(try w.run(["db", "update Person where age == 31 set age = 32"]).out == "{\"updated\": 2}\n")
        #expect(try w.run(["db", "delete Person where age == nil"]).out == "{\"deleted\": 1}\n")
        #expect(try w.run(["db", "count Person"]).out == "3\n")
        let plan = try w.run(["db", "explain Person where id == 3"])
        #expect(plan.status == 0)
        #expect(plan.out.hasPrefix("{\"model\": \"Person\", \"access\": ") && plan.out.hasSuffix("\"returnedRows\": 1}\n"))
    }

    @Test func queryErrorsNameTheirColumn() throws {
        try people()
        let typo = try w.run(["db", "Person where agee > 3"])
        #expect(typo.status == 1)
        #expect(typo.err == "error: column 14: 'Person' has no property 'agee'; did you mean 'age'?\n")
        let sort = try w.run(["db", "Person where age > 3 SORT(nme)"])
        #expect(sort.err == "error: column 27: 'Person' has no property 'nme'; did you mean 'name'?\n")
        let where_ = try w.run(["db", "count Person where name > 3"])
        #expect(where_.err.hasPrefix("error: column 27: "))
        let update = try w.run(["db", "update Person where age >> 1 set age = 2"])
        #expect(update.err.hasPrefix("error: column 26: "))
        // Clauses are the query parser's; its positions count from the statement as typed.
        for (statement, column) in [("  Person whre x", 10), ("Person LIMIT(x)", 14), ("Person SORT(age UP)", 17),
                                    ("Person LIMIT(1) junk", 17), ("explain  Person where", 22),
                                    ("export Person where age > 3 SORT(nme) out.json", 34)] {
            let r = try w.run(["db", statement])
            #expect(r.status == 1)
            #expect(r.err.hasPrefix("error: column \(column): "), "\(statement): \(r.err)")
        }
    }
}
