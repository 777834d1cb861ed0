import Foundation
import Testing

/// `.dump` on a PostgreSQL database: the same text a store with the same objects gives, read
/// in one snapshot, which rebuilds the objects in a store or another database.
@Suite(PostgresServer.isGiven)
struct PostgresDumpTests {
    let w: Workspace, url: String
    init() throws { (w, url) = try PostgresServer.workspace() }

    /// Links in a cycle and to themselves, lists, NaN, an NFD string (`e` + U+0301), beside
    /// `DumpTests.allTypes`.
    static let allTypes = "insert AllTypes [\((DumpTests.allTypes + [#"{"id": 4, "doubleValue": "NaN", "optDouble": "-Infinity", "stringValue": "cafe\u0301", "stringList": ["e\u0301", "é"]}"#]).joined(separator: ", ").replacingOccurrences(of: "\n", with: " "))]"
    /// Objects of a model without a primary key: held in a link, and on their own.
    static let people = [
        #"insert Person [{"id": 2, "name": "Bob", "nicknames": ["b", "bobby"]}, {"id": 1, "name": "Ann", "dogs": [{"name": "Rex", "age": 3}, {"name": "Fido"}], "bestFriend": 2}]"#,
        #"insert Dog [{"name": "Stray"}, {"name": "Zoe\u0301"}]"#,
        #"upsert Person {"id": 2, "bestFriend": 1, "dogs": [{"name": "Max"}]}"#,
    ]

    /// Runs `commands` on the store file `store` and on the database, both with `schema`.
    func load(_ schema: String, _ commands: [String], store: String = "a.trove") throws {
        for target in [store, url] {
            let made = try w.run([target, "-s", Workspace.schema(schema)] + commands)
            #expect(made.status == 0, "\(target): \(made.err)")
        }
    }

    @Test func theSameObjectsDumpToTheSameTextAsOnAStore() throws {
        try load("AllTypes", [Self.allTypes, DumpTests.allTypesLinks])
        let store = try w.run(["a.trove", ".dump"])
        let server = try w.run([url, ".dump"])
        #expect(store.status == 0 && server.status == 0, "\(store.err)\(server.err)")
        #expect(server.out == store.out, "\(server.out)")
        #expect(Array(server.out.utf8) == Array(store.out.utf8))
        #expect(server.out.contains("\"NaN\"") && server.out.utf8.contains(0xCC), "\(server.out)")

        let url2 = try PostgresServer.urlInOwnSchema()
        for target in ["b.trove", url2] {
            #expect(try w.run([target, "-s", Workspace.schema("People")] + Self.people).status == 0)
        }
        let people = try w.run(["b.trove", ".dump"])
        let peopleThere = try w.run([url2, ".dump"])
        #expect(people.status == 0 && peopleThere.status == 0, "\(people.err)\(peopleThere.err)")
        #expect(peopleThere.out == people.out, "\(peopleThere.out)")
        #expect(peopleThere.out.contains(#"insert Dog {"name": "Stray", "age": 0}"#), "\(peopleThere.out)")
        #expect(peopleThere.out.contains(#""dogs": [{"name": "Rex", "age": 3}, {"name": "Fido", "age": 0}]"#), "\(peopleThere.out)")
    }

    @Test func aDumpOfADatabaseReloadsIntoAStoreAndADatabase() throws {
        try load("AllTypes", [Self.allTypes, DumpTests.allTypesLinks])
        let dump = try w.run([url, ".dump"])
        #expect(dump.status == 0 && dump.err.isEmpty, "\(dump.err)")
        try w.write("dump.txt", dump.out)
        let fresh = try PostgresServer.urlInOwnSchema()
        for target in ["rebuilt.trove", fresh] {
            let rebuilt = try w.run([target, "-f", "dump.txt"])
            #expect(rebuilt.status == 0, "\(target): \(rebuilt.err)")
            try #expect(w.run([target, "--jsonl", "export AllTypes"]).out == w.run([url, "--jsonl", "export AllTypes"]).out)
            try #expect(w.run([target, "--jsonl", "AllTypes"]).out == w.run(["a.trove", "--jsonl", "AllTypes"]).out)
            #expect(try w.run([target, ".dump"]).out == dump.out)
        }
    }

    @Test func oneModelsDumpIsAStores() throws {
        try load("People", Self.people)
        let store = try w.run(["a.trove", ".dump Dog"])
        let server = try w.run([url, ".dump Dog"])
        #expect(server.status == 0 && server.out == store.out, "\(server.err)\(server.out)")
        #expect(!server.out.contains("insert Person") && server.out.contains(#"insert Dog {"name": "Stray""#))
        for statement in [".dump Cat", ".dump dog", ".schema Cat", "count Cat"] {
            let unknown = try w.run([url, statement]), onStore = try w.run(["a.trove", statement])
            #expect(onStore.err.contains("no model named 'Cat' (models: Person, Dog)") || onStore.err.contains("did you mean 'Dog'?"), "\(onStore.err)")
            #expect(unknown.status == 1 && unknown.err == onStore.err, "\(statement): \(unknown.err)")
        }
    }

    @Test func aDumpInATransactionSeesItsWritesAsOnAStore() throws {
        try load("People", Self.people)
        var outs: [String] = []
        for target in ["a.trove", url] {
            let r = try w.run([target, "-c", "begin", "-c", #"insert Person {"id": 3, "name": "Cy"}"#, "-c", #"delete Dog where name == 'Stray'"#,
                               "-c", ".dump", "-c", "rollback"])
            #expect(r.status == 0, "\(target): \(r.err)")
            #expect(r.out.contains(#"insert Person {"id": 3, "name": "Cy""#) && !r.out.contains("Stray"), "\(r.out)")
            outs.append(r.out)
        }
        #expect(outs[0] == outs[1])
        #expect(try w.run([url, "count Person"]).out == "2\n")
    }
}
