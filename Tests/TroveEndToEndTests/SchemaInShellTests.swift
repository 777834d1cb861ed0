import Foundation
import Testing

/// `.apply-schema` and `.open`: making models and switching stores without leaving the shell.
@Suite struct SchemaInShellTests {
    let w: Workspace
    init() throws { w = try Workspace() }

    @Test func applySchemaMakesModelsInTheOpenStore() throws {
        let r = try w.run(["db", ".apply-schema \(Workspace.schema("People"))", #"insert Person {"id": 1, "name": "Ann"}"#, "count Person"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasSuffix("1\n"))
        #expect(try w.run(["db", ".models"]).out == "Person\nDog\n")
        // In memory too, keeping what the store holds.
        let memory = try w.run([":memory:", #".apply-schema {"models": [{"name": "A", "primaryKey": "id", "properties": {"id": "int"}}]}"#,
                                #"insert A {"id": 7}"#,
                                #".apply-schema {"models": [{"name": "A", "primaryKey": "id", "properties": {"id": "int", "b": "string?"}}]}"#,
                                "A"])
        #expect(memory.status == 0, "\(memory.err)")
        #expect(memory.out.hasSuffix(#"{"id": 7, "b": null}"# + "\n"), "\(memory.out)")
    }

    /// As `sqlite3 db .schema > schema.sql` recreates the tables, `.schema` prints a schema file.
    @Test func schemaPrintsASchemaFileThatRecreatesTheModels() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), ".models"]).status == 0)
        let shown = try w.run(["db", ".schema"])
        #expect(shown.status == 0, "\(shown.err)")
        #expect(shown.out.hasPrefix("{\n  \"schemaVersion\": 1,\n  \"models\": [\n    {\n      \"name\": \"Person\",\n"), "\(shown.out)")
        try w.write("schema.json", shown.out)
        let copy = try w.run(["copy", "-s", "schema.json", ".schema"])
        #expect(copy.status == 0, "\(copy.err)")
        #expect(copy.out == shown.out)
        #expect(try w.run([":memory:", ".schema"]).out == "{\n  \"schemaVersion\": 0,\n  \"models\": []\n}\n")
    }

    @Test func aSchemaThatNeedsAMigrationOrIsBadChangesNothing() throws {
        #expect(try w.run(["db", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann"}"#]).status == 0)
        try w.write("changed.json", #"{"schemaVersion": 1, "models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "string"}}]}"#)
        let migration = try w.run(["db", ".apply-schema changed.json"])
        #expect(migration.status == 1)
        // The change needs a higher schemaVersion, which the refusal says once.
        #expect(migration.err.contains("but schemaVersion is still 1 (raise it to 2 or more): "), "\(migration.err)")
        #expect(!migration.err.contains("raise schemaVersion") && !migration.err.contains("--reset-on-migration"), "\(migration.err)")
        try w.write("bad.json", #"{"models": [{"name": "X", "properties": {"y": "Nope"}}]}"#)
        let bad = try w.run(["db", ".apply-schema bad.json"])
        #expect(bad.status == 1 && bad.err.contains("bad schema") && bad.err.contains("bad.json"), "\(bad.err)")
        let missing = try w.run(["db", ".apply-schema none.json"])
        #expect(missing.status == 1 && missing.err.contains("cannot read schema 'none.json'"), "\(missing.err)")
        #expect(try w.run(["db", "Person"]).out == #"{"id": 1, "name": "Ann", "birthdate": null, "age": null, "dogs": [], "nicknames": [], "bestFriend": null}"# + "\n")
        #expect(try w.run(["db", "--readonly", ".apply-schema \(Workspace.schema("Tasks"))"]).err.contains("read-only"))
    }

    @Test func openSwitchesStoresWithTheCommandLinesOptions() throws {
        #expect(try w.run(["a.trove", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann"}"#]).status == 0)
        let r = try w.run(["-c", ".open a.trove", "-c", "count Person", "-c", ".open", "-c", ".models", "-c", ".open --readonly a.trove",
                           "-c", "get Person 1"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasPrefix("1\n{\"id\": 1, \"name\": \"Ann\""), "\(r.out)")
        let readOnly = try w.run(["-c", ".open --readonly a.trove", "-c", "delete Person 1"])
        #expect(readOnly.status == 1 && readOnly.err.contains("read-only"), "\(readOnly.err)")
        let schema = try w.run(["-c", ".open -s \(Workspace.schema("Tasks")) b.trove", "-c", ".models"])
        #expect(schema.status == 0 && !schema.out.isEmpty, "\(schema.err)")
        // A store opened without models says how the shell gives it some.
        let empty = try w.run(["-c", ".open c.trove", "-c", "count Person"])
        #expect(empty.err.hasSuffix("(the store has no models: open it with --schema FILE, or run .apply-schema FILE)\n"), "\(empty.err)")
    }

    @Test func aFailedOpenKeepsTheStoreInUse() throws {
        #expect(try w.run(["a.trove", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann"}"#]).status == 0)
        try w.write("notes.txt", String(repeating: "not a store\n", count: 1000))
        let r = try w.run(["a.trove"], stdin: ".open notes.txt\ncount Person\n.open nowhere/x.trove\ncount Person\n")
        #expect(r.status == 1)
        #expect(r.out == "1\n1\n", "\(r.out)")
        #expect(r.err.contains("notes.txt"), "\(r.err)")
        #expect(try w.read("notes.txt") == String(repeating: "not a store\n", count: 1000))
    }

    @Test func openAsksForNothingWithoutATerminalAndTakesAKeyFile() throws {
        try w.write("key.hex", String(repeating: "ab", count: 64))
        #expect(try w.run(["enc.trove", "--key-file", "key.hex", "-s", Workspace.schema("People"), #"insert Person {"id": 1, "name": "Ann"}"#]).status == 0)
        let r = try w.run([], stdin: ".open enc.trove\n.open --key-file key.hex enc.trove\ncount Person\n")
        #expect(r.status == 1)
        #expect(r.err.contains("the store is encrypted: give its key with --key-file FILE"), "\(r.err)")
        #expect(r.out == "1\n")
    }
    /// Model and property names are letters, digits and `_`, letters being Unicode's
    /// (schema format): a schema file, statements, questions and output take them alike.
    @Test func namesWithNonASCIILettersWorkEndToEnd() throws {
        let schema = try w.write("café.json", """
            {"models": [{"name": "Café", "primaryKey": "id", "properties": {
              "id": "int", "größe": {"type": "int?", "indexed": true}, "名前": "string?", "nächstes": "Café?"}}]}
            """)
        let r = try w.run(["db", "-s", schema,
                           #"insert Café [{"id": 1, "größe": 3, "名前": "一"}, {"id": 2, "größe": 5, "nächstes": 1}]"#,
                           "Café where größe > 4 SELECT(id, nächstes.名前 AS n)",
                           "sum Café.größe",
                           "count Café where 名前 == '一'",
                           "update Café 2 set größe = 6",
                           "Café GROUP(größe) SORT(größe)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out == """
            {"inserted": 2}
            {"id": 2, "n": "一"}
            8
            1
            {"updated": 1}
            {"größe": 3, "@count": 1}
            {"größe": 6, "@count": 1}

            """)
        let wrong = try w.run(["db", "Café where größe2 > 1"])
        #expect(wrong.err == "error: column 12: 'Café' has no property 'größe2'; did you mean 'größe'?\n", "\(wrong.err)")
    }

    @Test func aMigrationThatDropsDataSaysWhatItDropped() throws {
        let w = try Workspace()
        let v1 = try w.write("v1.json", """
            {"schemaVersion": 1, "models": [{"name": "A", "primaryKey": "id", "properties": {"id": "int", "x": "int", "y": "int"}},
              {"name": "B", "primaryKey": "id", "properties": {"id": "int"}}]}
            """)
        let v2 = try w.write("v2.json", """
            {"schemaVersion": 2, "models": [{"name": "A", "primaryKey": "id", "properties": {"id": "int", "y": "string"}}]}
            """)
        let r = try w.run(["db", ".apply-schema \(v1)", #"insert A {"id": 1, "x": 2, "y": 3}"#, #"insert B [{"id": 1}, {"id": 2}]"#,
                           ".apply-schema \(v2)", "A", ".apply-schema \(v2)"])
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.hasSuffix(#"{"id": 1, "y": ""}"# + "\n"), "\(r.out)")
        // Once, for the migration: applying the same schema again drops nothing.
        #expect(r.err == Self.droppedByV2, "\(r.err)")
        // Opening with the schema (`--schema`, `.open -s`) says the same.
        for (store, arguments) in [("db2", ["db2", "-s", v2, "A"]), ("db3", ["-c", ".open -s \(v2) db3", "-c", "A"])] {
            #expect(try w.run([store, ".apply-schema \(v1)", #"insert A {"id": 1, "x": 2, "y": 3}"#, #"insert B [{"id": 1}, {"id": 2}]"#]).status == 0)
            let opened = try w.run(arguments)
            #expect(opened.status == 0, "\(opened.err)")
            #expect(opened.out == #"{"id": 1, "y": ""}"# + "\n", "\(opened.out)")
            #expect(opened.err == Self.droppedByV2, "\(arguments): \(opened.err)")
        }
    }

    static let droppedByV2 = "warning: the migration to schemaVersion 2 dropped the values of 'A.y' (int to string: each is its default now),"
        + " property 'A.x', model 'B' (2 objects)\n"
}
