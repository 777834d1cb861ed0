import Foundation
import Testing
import Trove
import TrovePostgres
#if canImport(Glibc)
import Glibc
#endif

/// The `trove` binary on a PostgreSQL database: the server `make test` starts (see
/// Tests/TrovePostgresTests/PostgresTestServer.swift); skipped without `TROVE_TEST_POSTGRES_URL`.
@Suite(PostgresServer.isGiven)
struct PostgresShellTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// As on a store: an array links forward within itself, and a set value the server
    /// refuses names its column.
    @Test func insertLinksForwardAndSetErrorsNameTheirColumn() throws {
        let r = try w.run([url, "--schema", Workspace.schema("People"),
                           #"insert Person [{"id": 1, "name": "Ann", "bestFriend": 2}, {"id": 2, "name": "Bob", "bestFriend": 1}]"#])
        #expect(r.status == 0, "\(r.err)")
        #expect(try w.run([url, "--csv", "Person SELECT(id, bestFriend.name)"]).out == "id,bestFriend.name\n1,Bob\n2,Ann\n")
        let noKey = try w.run([url, "update Person 1 set bestFriend = {}"])
        #expect(noKey.status == 1)
        #expect(noKey.err.hasPrefix("error: column 34: "), "\(noKey.err)")
    }

    /// A transaction statement at the wrong time names its place on the server, in the
    /// store's words.
    @Test func transactionStatementsOutOfPlaceNameTheirPositionAsOnAStore() throws {
        let script = "commit\nbegin\ncount Person; begin\nwatch Person\nrollback\n  rollback\n"
        var errors: [String] = []
        for database in ["t.trove", url] {
            #expect(try w.run([database, "--schema", Workspace.schema("People"), "count Person"]).status == 0)
            let r = try w.run([database], stdin: script)
            #expect(r.status == 1)
            errors.append(r.err)
        }
        #expect(errors[1] == errors[0])
        #expect(errors[0].hasPrefix("error: line 1, column 1: no transaction is open"), "\(errors[0])")
    }

    /// A null in a CSV file of one column is an empty line; the import's COPY reads it back as
    /// the object it is, as a store's import does.
    @Test func aOneColumnCSVWithNullsImportsEveryObject() throws {
        try w.write("one.json", #"{"models": [{"name": "One", "properties": {"v": "string?"}}, {"name": "Num", "properties": {"n": "int?"}}]}"#)
        try w.write("one.csv", "v\na\n\n\"\"\n\n")
        try w.write("num.csv", "n\n\n1\n")
        let r = try w.run([url, "--schema", "one.json", "import One one.csv", "import Num num.csv", "--csv", "One", "Num"])
        #expect(r.status == 0, "\(r.err)")
        // The order is guaranteed, though neither model has a primary key: a query without
        // SORT reads a table by its generated "@key", which counts objects in the order they
        // were saved (PostgresTables, PostgresQueryTranslator), and COPY saves the file's rows
        // in order.
        #expect(r.out == "{\"inserted\": 4}\n{\"inserted\": 2}\nv\na\n\n\"\"\n\nn\n\n1\n")
    }

    /// A SELECT item of a property named like a keyword, escaped, is named for the property.
    @Test func anEscapedKeywordPropertyInSelectIsNamedForTheProperty() throws {
        try w.write("kw.json", #"{"models": [{"name": "Order", "primaryKey": "id", "properties": {"id": "int", "any": "int?", "desc": "string?"}}]}"#)
        let r = try w.run([url, "--schema", "kw.json", #"insert Order {"id": 1, "any": 5, "desc": "x"}"#, "Order SELECT(#any, #desc, id)", "Order SELECT(#any AS a)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == "{\"inserted\": 1}\n{\"any\": 5, \"desc\": \"x\", \"id\": 1}\n{\"a\": 5}\n")
    }

    @Test func runsTheShellsStatementsOnTheServer() throws {
        let sample = URL(fileURLWithPath: Workspace.schema("People")).deletingLastPathComponent().appendingPathComponent("People-sample.jsonl").path
        let load = try w.run([url, "--schema", Workspace.schema("People"), "import Person \(sample)"])
        #expect(load.status == 0, "\(load.err)")
        #expect(load.out == #"{"inserted": 10}"# + "\n")
        let r = try w.run([url, "-c", "Person where age > 30 SORT(age DESC) LIMIT(2)", "-c", "count Dog", "-c", ".models",
                           "-c", "update Person 1 set age = 99", "-c", "get Person 1", "-c", "delete Person where age < 30",
                           "-c", "count Person"])
        #expect(r.status == 0, "\(r.err)")
        let lines = r.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 9, "\(r.out)")
        #expect(lines.first?.contains(#""id": 6"#) == true, "\(r.out)")
        #expect(lines.contains("Person") && lines.contains("Dog"))
        #expect(lines.contains { $0.hasPrefix(#"{"id": 1, "name": "Ann Lee""#) && $0.contains(#""age": 99"#) }, "\(r.out)")
        let explain = try w.run([url, "explain Person where name == 'x; DROP TABLE \"Person\"'"])
        #expect(explain.status == 0, "\(explain.err)")
        // The statement holds a placeholder; the plan shows the bound value as a constant.
        let plan = try JSONSerialization.jsonObject(with: Data(explain.out.utf8)) as? [String: Any]
        let sql = plan?["sql"] as? String ?? ""
        #expect(sql.contains("$1") && !sql.contains("DROP"), "\(explain.out)")
    }

    @Test func hostileStringsAreStoredAndMatchedExactly() throws {
        try w.write("s.json", #"{"models": [{"name": "order", "primaryKey": "select", "properties": {"select": "string", "from": "string?"}}]}"#)
        let hostile = [#"it's"#, #"back\\slash"#, "$1", #"'; DROP TABLE \"order\"; --"#, #"\"quoted\""#]
        for (i, value) in hostile.enumerated() {
            let r = try w.run([url, "--schema", "s.json", #"insert order {"select": "k\#(i)", "from": "\#(value)"}"#])
            #expect(r.status == 0, "\(r.err)")
        }
        for (i, value) in hostile.enumerated() {
            let r = try w.run([url, "--arg", try JSONSerialization.jsonObject(with: Data("\"\(value)\"".utf8), options: .fragmentsAllowed) as! String,
                               "count order where from == $0", "order where from == $0"])
            #expect(r.status == 0, "\(r.err)")
            #expect(r.out.hasPrefix("1\n") && r.out.contains(#""select": "k\#(i)""#), "\(value): \(r.out)")
        }
    }

    /// A string key names the spelling given, as on a store: `get` and `update` by the other
    /// spelling of `é` find nothing, while a query's `==` matches both.
    @Test func aStringKeyNamesOneSpellingAsOnAStore() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "n": "int"}}]}"#)
        let (nfc, nfd) = ("\u{E9}", "e\u{301}")
        let statements = [#"insert Item {"id": "\#(nfc)", "n": 1}"#, #"get Item "\#(nfd)""#, #"get Item "\#(nfc)""#,
                          #"insert Item {"id": "\#(nfd)", "n": 2}"#, #"update Item "\#(nfd)" set n = 3"#, #"get Item "\#(nfd)""#,
                          #"Item where id == "\#(nfc)" SELECT(n)"#]
        let onStore = try w.run(["store.trove", "--schema", "s.json"] + statements.flatMap { ["-c", $0] })
        let onServer = try w.run([url, "--schema", "s.json"] + statements.flatMap { ["-c", $0] })
        #expect(onStore.status == 0, "\(onStore.err)")
        #expect(Array(onServer.out.utf8) == Array(onStore.out.utf8) && onServer.status == onStore.status, "\(onServer.out)\(onServer.err)\nstore: \(onStore.out)")
        #expect(onStore.out.contains(#""n": 3"#) && onStore.out.contains(#"{"n": 1}"#), "\(onStore.out)")
        let missing = try w.run([url, #"update Item "A\#u{308}" set n = 1"#])
        #expect(missing.status == 1 && missing.err.contains("has no object with primary key"), "\(missing.err)")
    }

    /// `get` finds a key as an update by key does, whatever the key property is named: a name
    /// that is a word of the query language (`like`) makes no query to misread, as on a store.
    @Test func getFindsAKeyWhateverItsPropertyIsNamed() throws {
        try w.write("s.json", #"{"models": [{"name": "Word", "primaryKey": "like", "properties": {"like": "string", "in": "int"}}]}"#)
        let statements = [#"insert Word [{"like": "a", "in": 1}, {"like": "\#u{E9}", "in": 2}]"#, #"get Word "a""#,
                          #"get Word "\#u{E9}" "e\#u{301}" "b""#, #"update Word "\#u{E9}" set in = 3"#, #"get Word "\#u{E9}""#]
        let onStore = try w.run(["store.trove", "--schema", "s.json"] + statements.flatMap { ["-c", $0] })
        let onServer = try w.run([url, "--schema", "s.json"] + statements.flatMap { ["-c", $0] })
        #expect(onStore.status == 0, "\(onStore.err)")
        #expect(onStore.out.contains(#"{"like": "a", "in": 1}"#) && onStore.out.contains(#""in": 3"#), "\(onStore.out)")
        #expect(Array(onServer.out.utf8) == Array(onStore.out.utf8) && onServer.status == onStore.status, "\(onServer.out)\(onServer.err)\nstore: \(onStore.out)")
    }

    /// An import's error names the record (`record N` of JSON with the line and column where it starts, `line N` of CSV, with the column
    /// and property of a field), in the same words on a store and on the server, whichever way
    /// the record went. The words are written out: they are the project's, no spec's.
    @Test func importErrorsNameTheirRecordsByRecordPlace() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "n": "int", "next": "Item?"}}]}"#)
        let cases: [(file: String, contents: String, place: String)] = [
            ("object.jsonl", "{\"id\": 1, \"n\": 1}\n[1]\n", "record 2, line 2, column 1: expected a JSON object"),
            ("value.jsonl", "{\"id\": 1, \"n\": 1}\n{\"id\": 2, \"n\": \"x\"}\n", "record 2, line 2, column 1: "),
            ("link.jsonl", "{\"id\": 1, \"n\": 1}\n{\"id\": 2, \"n\": 2, \"next\": 9}\n", "record 2, line 2, column 1 (next): "),
            ("taken.jsonl", "{\"id\": 1, \"n\": 1}\n{\"id\": 1, \"n\": 2}\n", "record 2, line 2, column 1: "),
            ("header.csv", "id,m\n1,1\n", "line 1, column 2: model 'Item' has no property 'm'"),
            ("quote.csv", "id,n\n1,1\n2,\"2\n", "line 3, column 2: a quoted field is not closed"),
            ("fields.csv", "id,n\n1,1\n2\n", "line 3: 1 field, but the header names 2"),
            ("value.csv", "id,n\n1,1\n2,x\n", "line 3, column 2 (n): "),
            ("link.csv", "id,n,next\n1,1,\n2,2,9\n", "line 3, column 3 (next): "),
            ("taken.csv", "id,n\n1,1\n1,2\n", "line 3, column 1 (id): 'Item' already has"),
            ("takenLater.csv", "n,id\n1,1\n2,1\n", "line 3, column 2 (id): 'Item' already has"),
            // The server finds a key taken only as the rows held back are sent: a later
            // record's fault found on the client must not hide it.
            ("takenThenValue.jsonl", "{\"id\": 1, \"n\": 1}\n{\"id\": 1, \"n\": 2}\n{\"id\": 3, \"n\": \"x\"}\n", "record 2, line 2, column 1: 'Item' already has"),
            ("takenThenSyntax.jsonl", "{\"id\": 1, \"n\": 1}\n{\"id\": 1, \"n\": 2}\n{\"id\": 3,}\n", "record 2, line 2, column 1: 'Item' already has"),
            ("takenThenValue.csv", "id,n\n1,1\n1,2\n3,x\n", "line 3, column 1 (id): 'Item' already has"),
            ("takenThenQuote.csv", "id,n\n1,1\n1,2\n3,\"4\n", "line 3, column 1 (id): 'Item' already has"),
        ]
        for (file, contents, place) in cases {
            try w.write(file, contents)
            let onStore = try w.run(["\(file).trove", "--schema", "s.json", "import Item \(file)"])
            let onServer = try w.run([url, "--schema", "s.json", "import Item \(file)"])
            #expect(onStore.status == 1 && onStore.err.contains("failed: \(place)"), "\(file): \(onStore.err)")
            #expect(onServer.status == 1 && onServer.err == onStore.err, "\(file): \(onServer.err)\nstore: \(onStore.err)")
        }
    }

    /// A wrong-typed element of a list is named by its position, as on a store.
    @Test func aWrongTypedElementOfAListIsNamedAsOnAStore() throws {
        try w.write("s.json", ValueCoercionTests.listSchema)
        for (file, contents) in ValueCoercionTests.listFiles { try w.write(file, contents) }
        #expect(try w.run([url, "--schema", "s.json", #"insert Cat {"id": 7}"#]).status == 0)
        for (statement, error) in ValueCoercionTests.listCases {
            let r = try w.run([url, statement])
            #expect(r.status == 1 && r.err == error, "\(statement): \(r.err)")
        }
        #expect(try w.run([url, "count Cat"]).out == "1\n")
    }

    /// Text with a NUL, which PostgreSQL text cannot hold, is refused naming the model and
    /// the property (and the element of a list, and the record of an import), by every
    /// statement that writes, and writes nothing.
    @Test func aNULInTextNamesItsProperty() throws {
        try w.write("s.json", #"{"models": [{"name": "Cat", "primaryKey": "id", "properties": {"id": "int", "name": "string", "tags": "string[]"}}]}"#)
        try w.write("nul.csv", "id,name\n2,b\n3,c\u{0}d\n")
        try w.write("nul.jsonl", "{\"id\": 2, \"name\": \"b\"}\n{\"id\": 3, \"name\": \"c\\u0000d\"}\n")
        #expect(try w.run([url, "--schema", "s.json", #"insert Cat {"id": 1, "name": "a"}"#]).status == 0)
        let name = "the text for property 'name' of 'Cat' has a NUL character, which PostgreSQL text cannot hold"
        let cases: [(statement: String, error: String)] = [
            (#"insert Cat {"id": 5, "name": "x\u0000y"}"#, "column 12: \(name)"),
            (#"insert Cat {"id": 5, "name": "x", "tags": ["a", "b\u0000"]}"#,
             "column 12: the text for element 2 of property 'tags' of 'Cat' has a NUL character, which PostgreSQL text cannot hold"),
            (#"upsert Cat {"id": 1, "name": "x\u0000y"}"#, "column 12: \(name)"),
            (#"update Cat 1 set name = "x\u0000y""#, "column 25: \(name)"),
            (#"update Cat where id = 1 set name = "x\u0000y""#, "column 36: \(name)"),
            (#"update Cat 1 set tags = ["a\u0000"]"#, "column 25: the text for element 1 of property 'tags' of 'Cat' has a NUL character, which PostgreSQL text cannot hold"),
            ("import Cat nul.csv", "import from 'nul.csv' failed: line 3: \(name); nothing was imported"),
            ("import Cat nul.jsonl", "import from 'nul.jsonl' failed: record 2, line 2, column 1: \(name); nothing was imported"),
        ]
        for (statement, error) in cases {
            let r = try w.run([url, statement])
            #expect(r.status == 1 && r.err == "error: \(error)\n", "\(statement): \(r.err)")
        }
        #expect(try w.run([url, "--jsonl", "Cat"]).out == #"{"id": 1, "name": "a", "tags": []}"# + "\n")
    }

    /// A query's string literal holding a NUL is refused at the literal, and an `--arg`
    /// value by its name `$N`, not by the number of a parameter of the SQL.
    @Test func aNULInAQueryLiteralIsRefusedAtTheLiteral() throws {
        try w.write("s.json", #"{"models": [{"name": "Cat", "primaryKey": "id", "properties": {"id": "int", "name": "string", "origin": "string?"}}]}"#)
        #expect(try w.run([url, "--schema", "s.json", #"insert Cat {"id": 1, "name": "a"}"#]).status == 0)
        let r = try w.run([url, "--arg", "USA", #"Cat where origin == $0 AND name == "a\u0000b""#])
        #expect(r.status == 1 && r.err == "error: column 36: the text for this string literal has a NUL character, which PostgreSQL text cannot hold\n", "\(r.err)")
    }

    /// A string primary key holding a NUL, by which a statement finds an object (an upsert, a
    /// merge) or a link names one, is refused naming the key's property, and writes nothing.
    @Test func aNULInAStringKeyNamesTheKeysProperty() throws {
        try w.write("s.json", #"{"models": [{"name": "Tag", "primaryKey": "id", "properties": {"id": "string"}}, {"name": "Pet", "primaryKey": "id", "properties": {"id": "int", "tag": "Tag?", "more": "Tag[]"}}]}"#)
        try w.write("merge.jsonl", "{\"id\": \"b\\u0000\"}\n")
        #expect(try w.run([url, "--schema", "s.json", #"insert Tag {"id": "a"}"#]).status == 0)
        let key = "the text for property 'id' of 'Tag' has a NUL character, which PostgreSQL text cannot hold"
        for statement in [#"upsert Tag {"id": "a\u0000"}"#, "import Tag merge.jsonl MERGE",
                          #"insert Pet {"id": 1, "tag": "a\u0000"}"#, #"insert Pet {"id": 1, "more": ["a", "a\u0000"]}"#,
                          #"insert Pet {"id": 1, "tag": {"id": "a\u0000"}}"#] {
            let r = try w.run([url, statement])
            #expect(r.status == 1 && r.err.hasPrefix("error: ") && r.err.contains(key), "\(statement): \(r.err)")
        }
        #expect(try w.run([url, "--jsonl", "Tag"]).out == #"{"id": "a"}"# + "\n")
        #expect(try w.run([url, "--jsonl", "Pet"]).out == "")
    }

    /// Each statement that fails (an import with MERGE, an upsert of several objects, an
    /// insert or update whose link is to no object, found once its row was written, a delete
    /// of several keys) leaves nothing of itself, and the next ones go on, as on a store.
    @Test func aFailedWriteLeavesNothingAsOnAStore() throws {
        try w.write("s.json", #"{"models": [{"name": "Cat", "primaryKey": "id", "properties": {"id": "int", "name": "string?", "tags": "string[]", "friends": "Cat[]"}}]}"#)
        try w.write("m.jsonl", "{\"id\": 1, \"name\": \"merged\", \"tags\": [\"t\"]}\n{\"id\": 5, \"tags\": [\"x\", 2]}\n")
        let script = """
            import Cat m.jsonl MERGE
            upsert Cat [{"id": 1, "name": "changed"}, {"id": 3, "tags": ["a", 5]}]
            insert Cat {"id": 4, "tags": ["a"], "friends": [1, 99]}
            update Cat 1 set name = "n", friends = {1, 99}
            delete Cat 1 "x"
            insert Cat {"id": 50}

            """
        let expected = #"{"id": 1, "name": "one", "tags": [], "friends": []}"# + "\n" + #"{"id": 50, "name": null, "tags": [], "friends": []}"# + "\n"
        var errors: [String] = []
        for database in ["cats.trove", url] {
            #expect(try w.run([database, "--schema", "s.json", #"insert Cat {"id": 1, "name": "one"}"#]).status == 0)
            let r = try w.run([database], stdin: script)
            errors.append(r.err)
            #expect(r.err.split(separator: "\n").count == 5, "\(database): \(r.err)")
            #expect(try w.run([database, "--jsonl", "Cat SORT(id)"]).out == expected, "\(database)")
        }
        #expect(errors[1] == errors[0])
    }

    /// A `trove` running `statement` (a `watch`) on the server, with the lines it prints and
    /// its standard error.
    func startWatch(_ statement: String) throws -> (Process, WatchTests.Lines, Pipe) {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: TroveBinary.path)
        watcher.arguments = [url, statement]
        let output = Pipe(), errors = Pipe()
        watcher.standardOutput = output
        watcher.standardError = errors
        watcher.standardInput = FileHandle.nullDevice
        try watcher.run()
        return (watcher, WatchTests.Lines(output.fileHandleForReading), errors)
    }

    /// Two objects whose string keys are canonically equivalent stay two objects to `watch`.
    @Test func watchTellsCanonicallyEquivalentKeysApart() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "string", "n": "int"}}]}"#)
        let setup = try w.run([url, "-s", "s.json", #"insert Item [{"id": "\#u{E9}", "n": 1}, {"id": "e\#u{301}", "n": 2}]"#])
        #expect(setup.status == 0, "\(setup.err)")
        let (watcher, lines, _) = try startWatch("watch Item SORT(n)")
        #expect(try #require(lines.next()) == #"{"id": "\#u{E9}", "n": 1}"#)
        #expect(try #require(lines.next()) == #"{"id": "e\#u{301}", "n": 2}"#)
        #expect(try w.run([url, #"update Item "e\#u{301}" set n = 3"#]).status == 0)
        #expect(try #require(lines.next()) == #"{"op": "update", "index": 1, "object": {"id": "e\#u{301}", "n": 3}}"#)
        #expect(try w.run([url, #"delete Item "e\#u{301}""#]).status == 0)
        #expect(try #require(lines.next()) == #"{"op": "delete", "index": 1, "object": {"id": "e\#u{301}", "n": 3}}"#)
        #expect(try w.run([url, #"insert Item {"id": "x", "n": 4}"#]).status == 0)
        #expect(try #require(lines.next()) == #"{"op": "insert", "index": 1, "object": {"id": "x", "n": 4}}"#)
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
    }

    /// A NaN average (both infinities) prints once, as JSON's string "NaN", not again after
    /// each commit that leaves it NaN, as on a store.
    @Test func aWatchedNaNAggregatePrintsOnlyWhenItChanges() throws {
        let schema = try Schema(jsonData: Array(#"{"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "d": "double?"}}]}"#.utf8))
        do {
            let postgres = try PostgresStore(url: url, schema: schema)
            for (id, d) in [(1, Double.infinity), (2, -.infinity)] { try postgres.insert("M", ["id": .int(Int64(id)), "d": .double(d)]) }
        }
        let (watcher, lines, errors) = try startWatch("watch avg M.d")
        #expect(lines.next() == #""NaN""#)
        #expect(try w.run([url, #"insert M {"id": 3, "d": 1}"#]).status == 0)
        #expect(try w.run([url, "delete M where d > 2 or d < 0"]).status == 0)
        #expect(lines.next() == "1.0")
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    @Test func aFailedWriteChangesNothing() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}]}"#)
        #expect(try w.run([url, "--schema", "s.json", #"insert Item {"id": 1}"#]).status == 0)
        let failed = try w.run([url, #"insert Item [{"id": 2}, {"id": 1}]"#])
        #expect(failed.status == 1 && failed.err.contains("'Item' already has an object with primary key 1"), "\(failed.err)")
        let tx = try w.run([url, "-c", "begin", "-c", #"insert Item {"id": 3}"#, "-c", "rollback", "-c", "count Item"])
        #expect(tx.status == 0 && tx.out.hasSuffix("1\n"), "\(tx.out)\(tx.err)")
    }

    @Test func watchSeesCommitsOfAnotherProcess() throws {
        let setup = try w.run([url, "-s", Workspace.schema("People"), #"insert Person [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#])
        #expect(setup.status == 0, "\(setup.err)")
        let (watcher, lines, errors) = try startWatch("watch Person SORT(id)")
        #expect(try #require(lines.next()).hasPrefix(#"{"id": 1, "name": "Ann""#))
        #expect(try #require(lines.next()).hasPrefix(#"{"id": 2, "name": "Bob""#))
        #expect(try w.run([url, #"insert Person {"id": 3, "name": "Cy"}"#]).status == 0)
        #expect(try #require(lines.next()) == #"{"op": "insert", "index": 2, "object": {"id": 3, "name": "Cy", "birthdate": null, "age": null, "dogs": [], "nicknames": [], "bestFriend": null}}"#)
        #expect(try w.run([url, "update Person 1 set age = 30"]).status == 0)
        #expect(try #require(lines.next()).hasPrefix(#"{"op": "update", "index": 0, "object": {"id": 1, "name": "Ann", "birthdate": null, "age": 30"#))
        #expect(try w.run([url, "delete Person 2"]).status == 0)
        #expect(try #require(lines.next()).hasPrefix(#"{"op": "delete", "index": 1, "object": {"id": 2"#))
        kill(watcher.processIdentifier, SIGINT)
        watcher.waitUntilExit()
        #expect(watcher.terminationReason == .exit && watcher.terminationStatus == 0)
        #expect(errors.fileHandleForReading.readDataToEndOfFile().isEmpty)
    }

    /// Projections, groups and the aggregates print on the server exactly as on a store, in
    /// every output mode.
    @Test func questionsPrintAsOnAStoreInEveryMode() throws {
        let sample = URL(fileURLWithPath: Workspace.schema("People")).deletingLastPathComponent().appendingPathComponent("People-sample.jsonl").path
        let load = try w.run([url, "--schema", Workspace.schema("People"), "import Person \(sample)"])
        #expect(load.status == 0, "\(load.err)")
        #expect(try w.run(["people.trove", "--schema", Workspace.schema("People"), "import Person \(sample)"]).status == 0)
        let questions = [
            "Person SORT(age DESC) LIMIT(4) SELECT(name, age, bestFriend.name AS friend, nicknames, dogs.name, dogs.@count AS dogCount, dogs.@avg.age)",
            "Person where age > 20 SORT(friend DESC, name) OFFSET(1) SELECT(name, bestFriend.name AS friend, birthdate)",
            "Person GROUP(bestFriend.name) SELECT(bestFriend.name, @count, @avg.age AS avgAge, @min.birthdate, @max.age, @sum.age) SORT(@count DESC)",
            "Person GROUP(bestFriend) OFFSET(1) LIMIT(3)",
            "Dog GROUP(age) SORT(age DESC)",
            "Dog GROUP(age) SELECT(@count AS n, age) SORT(n, age DESC) LIMIT(2)",
            "Person where age > 100 GROUP(age) SELECT(age, @avg.age, @sum.age)",
            "Person where age > 100 SELECT(name)",
            "sum Person.age where age > 100", "avg Person.age", "min Person.birthdate", "max Dog.age",
        ]
        for mode in ["json", "jsonl", "csv", "table", "line", "markdown", "tsv"] {
            let arguments = ["-c", ".mode \(mode)"] + questions.flatMap { ["-c", $0] }
            let store = try w.run(["people.trove"] + arguments)
            let server = try w.run([url] + arguments)
            #expect(store.status == 0 && server.status == 0, "\(mode): \(store.err)\(server.err)")
            #expect(server.out == store.out, "\(mode):\n\(server.out)\nexpected\n\(store.out)")
        }
        let export = try w.run([url, "export Person GROUP(age) SELECT(age, @count) SORT(age) grouped.csv"])
        #expect(export.status == 0, "\(export.err)")
        let grouped = try w.read("grouped.csv")
        #expect(grouped.hasPrefix("age,@count\n"), "\(grouped)")
    }

    /// Rows ordered by a list aggregate, groups of a link (in the order of their targets'
    /// primary keys, not the order they were saved in), SELECT items through a null link
    /// (null, also before a list) and a sum beyond the range of int (the store's error, at
    /// its column) are the same on the server as on a store.
    @Test func listAggregatesNullLinksLinkGroupsAndOverflowingSumsAnswerAsOnAStore() throws {
        let insert = """
            insert Person [{"id": 5, "name": "Eve", "age": 9223372036854775807, "dogs": [{"name": "Rex", "age": 3}, {"name": "Max", "age": 8}]},
                           {"id": 2, "name": "Bob", "age": 1, "nicknames": ["b"]},
                           {"id": 9, "name": "Zed", "age": 2, "bestFriend": 5, "dogs": [{"name": "Fido", "age": 1}]},
                           {"id": 7, "name": "Gus", "bestFriend": 2}, {"id": 8, "name": "Hal", "bestFriend": 5}]
            """
        for database in [url, "people.trove"] {
            let r = try w.run([database, "--schema", Workspace.schema("People"), insert])
            #expect(r.status == 0, "\(r.err)")
        }
        let answers: [(String, String)] = [
            ("Person SORT(n DESC, id) SELECT(id, dogs.@count AS n)",
             "id,n\n5,2\n9,1\n2,0\n7,0\n8,0\n"),
            ("Person SORT(dogs.@avg.age DESC, id) LIMIT(2) SELECT(id, dogs.@avg.age)",
             "id,dogs.@avg.age\n5,5.5\n9,1.0\n"),
            ("Person where id > 5 SORT(id) SELECT(id, bestFriend.dogs.@count, bestFriend.dogs.name, bestFriend.nicknames)",
             "id,bestFriend.dogs.@count,bestFriend.dogs.name,bestFriend.nicknames\n7,0,[],\"[\"\"b\"\"]\"\n8,2,\"[\"\"Rex\"\", \"\"Max\"\"]\",[]\n9,2,\"[\"\"Rex\"\", \"\"Max\"\"]\",[]\n"),
            ("Person where id < 3 SELECT(id, bestFriend.dogs.@count, bestFriend.dogs.name)",
             "id,bestFriend.dogs.@count,bestFriend.dogs.name\n2,,\n"),
            ("Person GROUP(bestFriend)", "bestFriend,@count\n,2\n2,1\n5,2\n"),
            ("Person GROUP(bestFriend) SORT(bestFriend DESC) LIMIT(2)", "bestFriend,@count\n5,2\n2,1\n"),
        ]
        for (statement, csv) in answers {
            let store = try w.run(["people.trove", "--csv", statement])
            let server = try w.run([url, "--csv", statement])
            #expect(store.status == 0 && store.out == csv, "\(statement): \(store.out)\(store.err)")
            #expect(server.status == 0 && server.out == store.out, "\(statement): \(server.out)\(server.err)expected \(store.out)")
        }
        let overflows: [(String, String)] = [
            ("sum Person.age where age > 0", "error: column 12: the sum of 'age' is out of the range of int"),
            ("Person GROUP(bestFriend) SELECT(bestFriend, @sum.age)", "error: column 50: the sum of 'age' is out of the range of int"),
        ]
        for (statement, message) in overflows {
            let store = try w.run(["people.trove", statement])
            let server = try w.run([url, statement])
            #expect(store.status == 1 && store.err.hasPrefix(message), "\(statement): \(store.err)")
            #expect(server.status == 1 && server.err == store.err, "\(statement): \(server.err)expected \(store.err)")
        }
    }

    /// Decimals print as on a store: aggregates as numbers with every digit, columns of
    /// decimals aligned right in table and markdown modes.
    @Test func decimalsPrintAsOnAStoreInEveryMode() throws {
        let schema = try w.write("d.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "price": "decimal?", "tag": "string?"}}]}"#)
        let insert = #"insert Item [{"id": 1, "price": "12.345678901234567890123", "tag": "a"}, {"id": 2, "price": "0.1", "tag": "a"}, {"id": 3, "tag": "b"}]"#
        for database in [url, "d.trove"] {
            let r = try w.run([database, "--schema", schema, insert])
            #expect(r.status == 0, "\(r.err)")
        }
        let statements = ["Item SORT(id)", "get Item 2", "sum Item.price", "max Item.price",
                          "Item GROUP(tag) SELECT(tag, @sum.price AS total) SORT(tag)"]
        for mode in ["json", "jsonl", "csv", "table", "markdown"] {
            let arguments = ["-c", ".mode \(mode)"] + statements.flatMap { ["-c", $0] }
            let store = try w.run(["d.trove"] + arguments)
            let server = try w.run([url] + arguments)
            #expect(store.status == 0 && server.status == 0, "\(mode): \(store.err)\(server.err)")
            #expect(server.out == store.out, "\(mode):\n\(server.out)\nexpected\n\(store.out)")
        }
    }

    @Test func aWrongStatementNamesItsColumnAsOnAStore() throws {
        #expect(try w.run([url, "--schema", Workspace.schema("People"), ".models"]).status == 0)
        #expect(try w.run(["people.trove", "--schema", Workspace.schema("People"), ".models"]).status == 0)
        let statements = [
            "Person where agee > 1", "Person SELECT(name, nme)", "Person GROUP(age) SORT(age) SELECT(age)",
            "sum Person.agee where age > 1", "count Person where agee > 1", "explain Person where agee > 1",
            "update Person where agee > 1 set age = 1", "delete Person where agee > 1", "export Person where agee > 1",
            // Malformed, or refused for a value: the parser's and the binder's errors.
            "Person where age >", "Person where age > 1)", "count Person where name ==[x] 'a'", "Persn where age > 1",
            "Person where age BETWEEN {nil, 3}", "avg Person.name", "Person GROUP(age) SELECT(age, @avg.name)",
            "count Person where age > $0", "Person where age > 1 SORT(dogs.age)", "watch Person where agee > 1",
            "get Person $0",
            // A write's argument is read as its property's type, and refused at its column.
            "update Person 1 set age = $0", "update Person where age > 1 set birthdate = $0", "update Person $0 set age = 1",
            "delete Person $0", "update Person 1 set nicknames = $0", "update Person 1 set age = $1",
            // A `set` list is checked as a store checks it: the primary key, a property set
            // twice, a computed or unknown property.
            "update Person 1 set id = 2", "update Person where age > 1 set name = 'a', id = 2",
            "update Person 1 set age = 1, age = 2", "update Person where age > 1 set name = 'a', name = 'b'",
            "update Dog where age > 1 set owners = nil", "update Person 1 set agee = 1",
            // A model without a primary key has no upsert.
            #"upsert Dog {"name": "Rex"}"#, #"upsert Dog [{"name": "Rex"}, {"name": "Fido"}]"#,
        ]
        for statement in statements {
            let store = try w.run(["people.trove", "--arg", "many", statement])
            let server = try w.run([url, "--arg", "many", statement])
            #expect(store.err.hasPrefix("error: column "), "\(statement): \(store.err)")
            #expect(server.status == 1 && server.err == store.err, "\(statement): \(server.err)expected \(store.err)")
        }
        #expect(try w.run([url, "count Dog"]).out == "0\n")
    }

    /// A write the store refuses for its data (a link to a primary key that does not exist, a
    /// duplicate primary key, a computed or unknown property set, a missing primary key, null
    /// for a required property or in a list) fails on the server with the store's error, at
    /// the same place, by every statement that writes, and writes nothing.
    @Test func refusedWritesAreWordedAsOnAStore() throws {
        let schema = try w.write("w.json", #"""
            {"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "name": "string",
                "friend": "Person?", "friends": "Person[]", "tags": "string[]", "pets": "Pet[]"}},
              {"name": "Pet", "properties": {"name": "string", "owners": {"type": "linkingObjects", "objectType": "Person", "property": "pets"}}},
              {"name": "Tag", "primaryKey": "code", "properties": {"code": "string", "n": "int?"}}]}
            """#)
        let setup = [#"insert Person {"id": 1, "name": "Ann"}"#, #"insert Tag {"code": "x"}"#, #"insert Pet {"name": "Rex"}"#]
        for database in ["w.trove", url] {
            let r = try w.run([database, "--schema", schema] + setup.flatMap { ["-c", $0] })
            #expect(r.status == 0, "\(r.err)")
        }
        try w.write("link.jsonl", #"{"id": 2, "name": "Bob", "friend": 99}"# + "\n")
        try w.write("link.csv", "id,name,friend\n2,Bob,99\n")
        try w.write("duplicate.jsonl", #"{"id": 2, "name": "Bob"}"# + "\n" + #"{"id": 1, "name": "Ann"}"# + "\n")
        try w.write("duplicate.csv", "id,name\n2,Bob\n1,Ann\n")
        try w.write("null.csv", "code,n\n,1\n")
        let statements = [
            // A link to a primary key that does not exist.
            #"insert Person {"id": 2, "name": "Bob", "friend": 99}"#, #"insert Person {"id": 2, "name": "Bob", "friends": [1, 99]}"#,
            "update Person 1 set friend = 99", "update Person where id == 1 set friends = [1, 99]", "update Person 1 set friend = $0",
            #"upsert Person {"id": 1, "friend": 99}"#, #"upsert Person {"id": 3, "name": "Cy", "friend": 99}"#,
            "import Person link.jsonl", "import Person link.csv", "import Person link.jsonl MERGE",
            // A duplicate primary key.
            #"insert Person {"id": 1, "name": "Ann"}"#, #"insert Person [{"id": 5, "name": "Eve"}, {"id": 5, "name": "Eve"}]"#,
            #"insert Tag {"code": "x"}"#, #"insert Person {"id": 6, "name": "Fay", "friend": {"id": 1, "name": "Ann"}, "friends": [{"id": 6, "name": "Fay"}]}"#,
            "import Person duplicate.jsonl", "import Person duplicate.csv",
            // A computed property, or one the model does not have.
            #"insert Pet {"name": "Tom", "owners": []}"#, #"upsert Pet {"name": "Tom", "owners": []}"#,
            "update Pet where name == 'Rex' set owners = nil", #"insert Person {"id": 7, "name": "Gus", "nope": 1}"#,
            // A missing primary key.
            #"insert Person {"name": "Hal"}"#, #"upsert Person {"name": "Hal"}"#, #"upsert Person {"id": null, "name": "Hal"}"#,
            #"insert Tag {"n": 1}"#, #"insert Person {"id": 8, "name": "Ida", "friend": {"name": "Jo"}}"#,
            // Null for a required property, or in a list.
            #"insert Person {"id": 9, "name": null}"#, "update Person 1 set name = nil", "update Person where id == 1 set name = nil",
            #"upsert Person {"id": 1, "name": null}"#, #"insert Person {"id": 9, "name": "Kim", "tags": [null]}"#,
            #"insert Person {"id": 9, "name": "Kim", "friends": [null]}"#, #"insert Person {"id": 9, "name": "Kim", "pets": [null]}"#,
            #"insert Person {"id": 9, "name": "Kim", "pets": [{"name": null}]}"#, "import Tag null.csv",
        ]
        for statement in statements {
            let store = try w.run(["w.trove", "--arg", "99", statement])
            let server = try w.run([url, "--arg", "99", statement])
            #expect(store.status == 1 && store.err.hasPrefix("error: "), "\(statement): \(store.err)")
            #expect(server.status == 1 && server.err == store.err, "\(statement): \(server.err)expected \(store.err)")
        }
        let counts = ["count Person", "count Pet", "count Tag", "Person SORT(id)"].flatMap { ["-c", $0] }
        let store = try w.run(["w.trove"] + counts), server = try w.run([url] + counts)
        #expect(server.status == 0 && server.out == store.out && store.out.hasPrefix("1\n1\n1\n"), "\(server.out)expected\n\(store.out)")
    }

    /// An insert that omits properties gives them what a store gives (a default, else the zero
    /// value), in nested objects and by import too; a null for a required property and a
    /// missing primary key fail with the store's errors.
    @Test func omittedPropertiesGetWhatAStoreGives() throws {
        let schema = try w.write("o.json", #"""
            {"models": [{"name": "Dog", "properties": {"name": "string", "age": "int", "born": "date", "tags": "string[]"}},
              {"name": "Owner", "primaryKey": "id", "properties": {"id": "int", "name": {"type": "string", "default": "anon"},
                "score": "double", "pet": "Pet?"}},
              {"name": "Pet", "primaryKey": "name", "properties": {"name": "string", "kind": "string", "legs": "int"}}]}
            """#)
        try w.write("dogs.jsonl", "{}\n{\"age\": 2}\n")
        try w.write("dogs.csv", "name\nRex\n")
        let writes = ["insert Dog {}", #"insert Dog [{"name": "Fido"}, {}]"#, #"insert Owner {"id": 1}"#,
                      #"insert Owner {"id": 2, "pet": {"name": "Tom"}}"#, "import Dog dogs.jsonl", "import Dog dogs.csv"]
        let reads = ["Dog SORT(name, age)", "Owner SORT(id)", "Pet", "count Dog where born == '1970-01-01'"]
        let store = try w.run(["o.trove", "--schema", schema] + (writes + reads).flatMap { ["-c", $0] })
        let server = try w.run([url, "--schema", schema] + (writes + reads).flatMap { ["-c", $0] })
        #expect(store.status == 0, "\(store.err)")
        #expect(server.status == 0 && server.out == store.out, "\(server.err)\(server.out)expected\n\(store.out)")
        for statement in ["insert Owner {}", #"insert Owner {"id": 3, "score": null}"#, #"insert Dog {"name": null}"#,
                          #"insert Owner {"id": 3, "pet": {"kind": "cat"}}"#] {
            let onStore = try w.run(["o.trove", statement])
            let onServer = try w.run([url, statement])
            #expect(onStore.status == 1 && onServer.status == 1 && onServer.err == onStore.err, "\(statement): \(onServer.err)expected \(onStore.err)")
        }
    }

    /// The arguments of writes (`set` values, keys) are read as the store reads them: as the
    /// property's type, by the store's coercion.
    @Test func argumentsOfWritesAreReadAsOnAStore() throws {
        let people = #"insert Person [{"id": 1, "name": "Ann"}, {"id": 2, "name": "Bob"}]"#
        let arguments = ["--arg", "42", "--arg", "2001-02-03", "--arg", #"["a", "b"]"#, "--arg", "2", "--arg", "1"]
        let statements = ["update Person 1 set age = $0, birthdate = $1, nicknames = $2, bestFriend = $3",
                          "update Person where name == 'Bob' set age = $4", "delete Person $4", "Person SORT(id)"]
        let script = arguments + statements.flatMap { ["-c", $0] }
        let store = try w.run(["people.trove", "--schema", Workspace.schema("People"), "-c", people] + script)
        let server = try w.run([url, "--schema", Workspace.schema("People"), "-c", people] + script)
        #expect(store.status == 0 && server.status == 0, "\(store.err)\(server.err)")
        #expect(server.out == store.out, "\(server.out)\nexpected\n\(store.out)")
        #expect(server.out.contains(#""id": 2, "name": "Bob", "birthdate": null, "age": 1"#), "\(server.out)")
    }

    /// What PostgreSQL cannot run the store's way (a store runs it) is refused as a store
    /// refuses a statement: `error:`, the line and column of the construct, status 1, and
    /// nothing written.
    @Test func aConstructThatIsNotTranslatedIsRefusedAtItsPlace() throws {
        let ann = #"insert Person {"id": 1, "name": "Ann Lee"}"#
        #expect(try w.run([url, "--schema", Workspace.schema("People"), ann]).status == 0)
        #expect(try w.run(["people.trove", "--schema", Workspace.schema("People"), ann]).status == 0)
        // A constant on the left of CONTAINS, a pattern read from the objects: translated.
        for statement in ["count Person where 'Ann Lee' CONTAINS[c] name", "count Person where 'ANN LEE' LIKE[c] name", "count Person where name LIKE name"] {
            #expect(try w.run([url, statement]).out == "1\n", "\(statement)")
            #expect(try w.run(["people.trove", statement]).out == "1\n", "\(statement)")
        }
        let statements = [
            ("Person where name MATCHES '(?i)a.*'", "error: column 19: MATCHES is not translated to PostgreSQL for this pattern: '(?' is ICU's, not PostgreSQL's\n"),
            ("Person where name MATCHES[c] 'é.*'", "error: column 19: MATCHES[c] is not translated to PostgreSQL for this pattern: ICU's case folding of the non-ASCII character 'é' is not written out in PostgreSQL's syntax\n"),
            ("count Person where age == nil AND name MATCHES bestFriend.name",
             "error: column 40: MATCHES with a pattern that is not a constant is not translated to PostgreSQL: only a constant pattern can be checked to mean the same in ICU's syntax and PostgreSQL's\n"),
            ("update Person where 'Ann Lee' MATCHES name set age = 3", "error: column 31: MATCHES with a constant on its left is not translated to PostgreSQL\n"),
            ("delete Person where name MATCHES '\\\\w+ Lee'", "error: column 26: MATCHES is not translated"),
            ("sum Person.age where name MATCHES 'A.*$'", "error: column 27: MATCHES is not translated"),
            ("explain Person where name MATCHES '^A.*'", "error: column 27: MATCHES is not translated"),
        ]
        for (statement, expected) in statements {
            let store = try w.run(["people.trove", statement])
            #expect(store.status == 0, "\(statement): \(store.err)")
            let server = try w.run([url, statement])
            #expect(server.status == 1 && server.err.hasPrefix(expected) && server.out.isEmpty, "\(statement): \(server.err)")
        }
        let script = "Person where (age > 1 OR\n   name MATCHES '(?i)a.*')\n"
        let server = try w.run([url], stdin: script)
        #expect(server.status == 1 && server.err.hasPrefix("error: line 2, column 9: MATCHES is not translated"), "\(server.err)")
        #expect(try w.run(["people.trove"], stdin: script).status == 0)
        #expect(try w.run([url, "count Person where age == nil"]).out == "1\n")
        // A pattern that means the same to both is translated (the store above ran the writes).
        #expect(try w.run(["fresh.trove", "--schema", Workspace.schema("People"), ann]).status == 0)
        for statement in ["Person where name MATCHES 'A.*'", "count Person where name MATCHES '[A-Z][a-z]+ L(e|i)e'",
                          "count Person where name MATCHES[c] 'ANN [k-m]EE'", "count Person where name MATCHES[cd] 'àn+ lée'"] {
            let store = try w.run(["fresh.trove", statement]), server = try w.run([url, statement])
            #expect(server.status == 0 && server.out == store.out && store.out.contains("1"), "\(statement): \(server.err)\(server.out)")
        }
    }


    /// bad record that says where and what and imports nothing.
    @Test func importsCSVAsAStoreDoes() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "name": "string?", "price": "decimal?", "when": "date?", "tags": "string[]", "next": "Item?"}}]}"#)
        try w.write("items.csv", """
            id,name,price,when,tags,next
            1,"Ann, ""the"" first",1.10,2024-05-01,"[""a"",""b""]",3
            2,,,,,
            3,"",0.5,2024-05-01T12:30:00Z,[],1

            """)
        let server = try w.run([url, "--schema", "s.json", "-c", "import Item items.csv", "-c", "Item SORT(id)"])
        let store = try w.run(["items.trove", "--schema", "s.json", "-c", "import Item items.csv", "-c", "Item SORT(id)"])
        #expect(server.status == 0, "\(server.err)")
        #expect(server.out == store.out, "\(server.out)\nexpected\n\(store.out)")
        #expect(server.out.hasPrefix(#"{"inserted": 3}"#), "\(server.out)")

        try w.write("bad.tsv", "id\tname\tprice\n7\tok\t1\n8\tbad\tnot-a-number\n")
        let bad = try w.run([url, "import Item bad.tsv"])
        let badOnStore = try w.run(["items.trove", "import Item bad.tsv"])
        #expect(bad.status == 1 && bad.err == badOnStore.err, "\(bad.err)\nexpected\n\(badOnStore.err)")
        #expect(bad.err.contains("line 3, column 3 (price)") && bad.err.contains("nothing was imported"), "\(bad.err)")
        let merged = try w.run([url, "-c", "import Item bad.tsv MERGE", "-c", "count Item"])
        #expect(merged.status == 1 && merged.out.isEmpty, "\(merged.out)")
        #expect(try w.run([url, "count Item"]).out == "3\n")
        // A CSV file may name a key no object has: the import fails, naming the field.
        try w.write("dangling.csv", "id,next\n9,42\n")
        let dangling = try w.run([url, "import Item dangling.csv"])
        #expect(dangling.status == 1 && dangling.err.contains("line 2, column 2 (next)"), "\(dangling.err)")
        #expect(try w.run([url, "count Item"]).out == "3\n")
    }

    /// Fields that go into COPY as they stand (plain integers and decimals, ASCII text) and
    /// fields that are read first (signs, exponents, `null`, non-ASCII text, quoted numbers),
    /// mixed in one file: the same objects as on a store, and every bad record the same error.
    @Test func csvFieldsTakenAsTheyStandReadAsOnAStore() throws {
        try w.write("s.json", #"{"models": [{"name": "Row", "primaryKey": "id", "properties": {"id": "int", "small": "int8?", "x": "double?", "s": "string?", "r": {"type": "string", "default": "d"}, "tags": "string[]"}}]}"#)
        try w.write("rows.csv", """
            id,small,x,s
            1,-0,-0.0,plain
            2,007,007.50,"quoted, with ""quotes"" in"
            3,+5,1e3,null
            4,127,3.14159265358979323846264338327950288,ünïcödé
            5,-128,0.1,NULL
            6,"12","2.5",""
            7,1e2,4.0,"two
            lines"
            8,,123456789012345678901234567890.5,
            9,-00,1e-400,nil
            10,12,0.30000000000000004,x

            """)
        let server = try w.run([url, "--schema", "s.json", "-c", "import Row rows.csv", "-c", "Row SORT(id)"])
        let store = try w.run(["rows.trove", "--schema", "s.json", "-c", "import Row rows.csv", "-c", "Row SORT(id)"])
        #expect(server.status == 0, "\(server.err)")
        #expect(server.out.hasPrefix(#"{"inserted": 10}"#), "\(server.out)")
        #expect(server.out == store.out, "\(server.out)\nexpected\n\(store.out)")

        // Each bad record between two good ones; 0xBF alone is not UTF-8.
        let bad: [[UInt8]] = [
            Array("21,128,2.5,a".utf8), Array("21,1,1.5.5,a".utf8), Array("21,x,2.5,a".utf8), Array("21,1,1e400,a".utf8),
            Array("21,1,2.5".utf8), Array("21,1,2.5,a".utf8) + [0xBF], Array("21,1,\"2.5".utf8),
            Array("21,1,2.5".utf8) + [0xBF] + Array(",\"open".utf8),
        ]
        for (index, record) in bad.enumerated() {
            let name = "bad\(index).csv"
            try Data(Array("id,small,x,s\n20,1,2.5,ok\n".utf8) + record + Array("\n22,1,2.5,b\n".utf8)).write(to: URL(fileURLWithPath: w.path(name)))
            let server = try w.run([url, "import Row \(name)"])
            let store = try w.run(["rows.trove", "import Row \(name)"])
            #expect(server.status == 1 && server.err == store.err, "\(name): \(server.err)expected \(store.err)")
            #expect(server.err.contains("nothing was imported"), "\(name): \(server.err)")
        }
        #expect(try w.run([url, "count Row"]).out == "10\n")
    }

    /// JSON records whose fields go into COPY as they stand (integers, numbers for a double,
    /// strings, booleans, nulls, left-out properties) and fields that are read first (a number
    /// for an int8 out of its range or not whole, a big integer, a string for a number, a
    /// date, a list), mixed in one file: the same objects as on a store, and every
    /// bad record the same error.
    @Test func jsonFieldsTakenAsTheyStandReadAsOnAStore() throws {
        try w.write("s.json", #"{"models": [{"name": "Row", "primaryKey": "id", "properties": {"id": "int", "small": "int8?", "x": "double?", "s": "string?", "r": {"type": "string", "default": "d"}, "b": "bool?", "when": "date?", "tags": "string[]"}}]}"#)
        try w.write("rows.jsonl", #"""
            {"id": 1, "small": -128, "x": -0.0, "s": "plain", "r": "", "b": true}
            {"id": 2, "small": 127, "x": 7, "s": "quoted, with \"quotes\" in", "b": false}
            {"id": 3, "small": null, "x": 1e3, "s": null, "b": null, "when": null}
            {"id": 4, "x": 3.14159265358979323846264338327950288, "s": "ünïcödé 🦆", "r": "two\nlines"}
            {"id": 5, "small": 5.0, "x": 0.1, "s": "\\.", "when": "2024-05-01T12:30:00Z"}
            {"id": 6, "small": 1e2, "x": 123456789012345678901234567890, "s": "$1'; DROP TABLE \"Row\"; --"}
            {"id": 7, "x": 1.5, "tags": ["a", "b"]}
            {"id": 8, "x": 0.30000000000000004, "r": "x", "tags": []}
            {"r": "no key given", "id": 9}

            """#)
        let server = try w.run([url, "--schema", "s.json", "-c", "import Row rows.jsonl", "-c", "Row SORT(id)"])
        let store = try w.run(["rows.trove", "--schema", "s.json", "-c", "import Row rows.jsonl", "-c", "Row SORT(id)"])
        #expect(server.status == 0, "\(server.err)")
        #expect(server.out.hasPrefix(#"{"inserted": 9}"#), "\(server.out)")
        #expect(server.out == store.out, "\(server.out)\nexpected\n\(store.out)")

        // Each bad record between two good ones.
        let bad = [#"{"id": 21, "small": 128}"#, #"{"id": 21, "small": 1.5}"#, #"{"id": 21, "x": "2.5"}"#, #"{"id": 21, "r": null}"#,
                   #"{"id": 21, "when": "yesterday"}"#, #"{"id": 21, "nope": 1}"#, #"{"small": 1}"#, #"{"id": 21, "b": 1}"#, #"{"id": 20}"#]
        for (index, record) in bad.enumerated() {
            let name = "bad\(index).jsonl"
            try w.write(name, "{\"id\": 20, \"s\": \"ok\"}\n" + record + "\n{\"id\": 22, \"s\": \"b\"}\n")
            let server = try w.run([url, "import Row \(name)"])
            let store = try w.run(["rows.trove", "import Row \(name)"])
            #expect(server.status == 1 && server.err == store.err, "\(name): \(server.err)expected \(store.err)")
            #expect(server.err.contains("record 2") && server.err.contains("nothing was imported"), "\(name): \(server.err)")
        }
        #expect(try w.run([url, "count Row"]).out == "9\n")
    }

    /// Import without MERGE sends its objects by COPY: awkward text, dates, nulls, links back
    /// and forward and lists (which go by statements) arrive as on a store; a record the
    /// server refuses is named, and nothing of the import remains.
    @Test func importByCopyWritesWhatAStoreWritesAndABadRecordImportsNothing() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "name": "string?", "when": "date?", "score": "double?", "parent": "Item?", "tags": "string[]"}}]}"#)
        let awkward = [#"a \"quoted\", comma"#, #"line\nbreak"#, #"back\\slash \\. end"#, "", #"$1'; DROP TABLE \"Item\"; --"#, "ünïcödé"]
        let dates = ["2024-05-01T12:30:00Z", "1969-07-20T20:17:40Z", "0001-01-01T00:00:00Z"]
        var lines: [String] = []
        for i in 1...3_000 {
            let name = i % 7 == 0 ? "null" : "\"\(awkward[i % awkward.count])\""
            let parent = i % 5 == 0 ? "\(i - 1)" : i % 5 == 1 ? "\(i + 1)" : "null"
            let tags = i % 100 == 0 ? #"["x", "y"]"# : "[]"
            lines.append(#"{"id": \#(i), "name": \#(name), "when": "\#(dates[i % dates.count])", "score": \#(Double(i) / 8), "parent": \#(parent), "tags": \#(tags)}"#)
        }
        try w.write("items.jsonl", lines.joined(separator: "\n") + "\n")
        let server = try w.run([url, "--schema", "s.json", "-c", "import Item items.jsonl", "-c", "Item SORT(id)"])
        let store = try w.run(["items.trove", "--schema", "s.json", "-c", "import Item items.jsonl", "-c", "Item SORT(id)"])
        #expect(server.status == 0, "\(server.err)")
        #expect(server.out.hasPrefix(#"{"inserted": 3000}"#), "\(server.out.prefix(200))")
        #expect(server.out == store.out)

        try w.write("again.jsonl", (3_001...3_010).map { #"{"id": \#($0 == 3_008 ? 5 : $0)}"# }.joined(separator: "\n"))
        let taken = try w.run([url, "import Item again.jsonl"])
        #expect(taken.status == 1 && taken.err.contains("record 8, line 8, column 1: 'Item' already has an object with primary key 5"), "\(taken.err)")
        #expect(taken.err.contains("nothing was imported"), "\(taken.err)")
        try w.write("twice.csv", "id,name\n4001,a\n4002,\"two\nlines\"\n4001,c\n")
        let twice = try w.run([url, "import Item twice.csv"])
        #expect(twice.status == 1 && twice.err.contains("line 5, column 1 (id): 'Item' already has an object with primary key 4001"), "\(twice.err)")
        #expect(try w.run([url, "count Item"]).out == "3000\n")
    }

    /// The server ends the shell's session while its statement runs: exit status 1, a
    /// message that says so, and nothing of the statement in the database.
    @Test func aServerThatGoesAwayMidStatementEndsTheShellWithStatus1() throws {
        try w.write("s.json", #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int"}}]}"#)
        #expect(try w.run([url, "--schema", "s.json", #"insert Item {"id": 1}"#]).status == 0)
        let blocker = try PostgresConnection(url: url)
        try blocker.execute("BEGIN")
        try blocker.execute(#"LOCK TABLE "Item" IN ACCESS EXCLUSIVE MODE"#)
        let blockerPID = try #require(try blocker.execute("SELECT pg_backend_pid()").rows.first?.first ?? nil)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: TroveBinary.path)
        shell.arguments = [url, "-c", #"insert Item [{"id": 2}, {"id": 3}]"#, "-c", "count Item"]
        let output = Pipe(), errors = Pipe()
        shell.standardOutput = output
        shell.standardError = errors
        shell.standardInput = FileHandle.nullDevice
        try shell.run()
        // Each question is a round trip to the server, until the shell's insert waits on the lock.
        let observer = try PostgresConnection(url: url)
        var waiting: String?
        for _ in 0..<1_000_000 where waiting == nil {
            waiting = try observer.execute("SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))", [blockerPID]).rows.first?.first ?? nil
        }
        let pid = try #require(waiting)
        try observer.execute("SELECT pg_terminate_backend($1::int)", [pid])
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 1, "\(err)")
        #expect(err.hasPrefix("error: lost the connection to PostgreSQL") && err.contains("not committed"), "\(err)")
        #expect(output.fileHandleForReading.readDataToEndOfFile().isEmpty)
        try blocker.execute("ROLLBACK")
        #expect(try w.run([url, "count Item"]).out == "1\n")
    }

    @Test func aWrongPasswordOrAnUnreachableServerIsAClearErrorWithStatus2() throws {
        let wrong = try w.run([PostgresServer.url! + "&password=hunter2-wrong", "count Item"])
        #expect(wrong.status == 2)
        #expect(wrong.err.contains("password authentication failed") && !wrong.err.contains("hunter2"), "\(wrong.err)")
        let unreachable = try w.run(["postgresql://trove:s3cret@127.0.0.1:1/trove?connect_timeout=2", "count Item"])
        #expect(unreachable.status == 2)
        #expect(unreachable.err.contains("cannot connect to PostgreSQL") && !unreachable.err.contains("s3cret"), "\(unreachable.err)")
    }
}
