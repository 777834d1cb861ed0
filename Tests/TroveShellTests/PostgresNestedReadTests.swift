import Testing
import Trove
import TrovePostgres
import PostgresTestSupport
@testable import TroveShell

/// `.dump` and `export` read the objects without a primary key they write nested a batch at
/// a time (`PostgresNestedObjects`): the statements they send do not grow with the objects.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNestedReadTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Person", "primaryKey": "id", "properties": {"id": "int", "dogs": "Dog[]", "best": "Dog?"}},
                    {"name": "Dog", "properties": {"name": "string", "toy": "Toy?"}},
                    {"name": "Toy", "properties": {"n": "int", "parts": "Toy[]"}}]}
        """#.utf8), fileName: "nested")

    /// A database of `people` people, each with two dogs and a best dog, each dog with a toy
    /// of two parts.
    static func backend(people: Int) throws -> PostgresBackend {
        let store = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        func dog(_ name: String, _ n: Int) -> Value {
            .object(["name": .string(name), "toy": .object(["n": .int(Int64(n)), "parts": .list([.object(["n": 1]), .object(["n": 2])])])])
        }
        try store.atomically {
            for id in 1...people {
                try store.insert("Person", ["id": .int(Int64(id)), "dogs": .list([dog("a\(id)", id), dog("b\(id)", -id)]), "best": dog("c\(id)", 0)])
            }
        }
        return PostgresBackend(store: store)
    }

    /// The statements `body` sends on `backend`'s connection, and what it wrote.
    static func statements(_ backend: PostgresBackend, _ body: (@escaping (String) throws -> Void) throws -> Void) throws -> (Int, String) {
        var text = ""
        let before = backend.store.connection.statementsSent
        try body { text += $0 }
        return (backend.store.connection.statementsSent - before, text)
    }

    @Test func aDumpsStatementsDoNotGrowWithItsObjects() throws {
        var sent: [Int] = []
        for people in [5, 50] {
            let backend = try Self.backend(people: people)
            let (count, text) = try Self.statements(backend) { write in try backend.dump(models: [], write: write, warn: { _ in }) }
            #expect(text.contains(#"upsert Person {"id": 1, "dogs": [{"name": "a1", "toy": {"n": 1, "parts": [{"n": 1, "parts": []}, {"n": 2, "parts": []}]}}"#),
                    "\(text.prefix(2000))")
            sent.append(count)
        }
        #expect(sent[0] == sent[1], "\(sent)")
    }

    @Test func anExportsStatementsDoNotGrowWithItsObjects() throws {
        var sent: [Int] = []
        for people in [5, 50] {
            let backend = try Self.backend(people: people)
            let context = ExecutionContext(arguments: [])
            for text in ["Person", "Dog", "Toy"] {
                // Run once first, so that both sizes count a run with its statements prepared.
                _ = try Self.statements(backend) { _ in
                    try backend.export(QuerySpec(model: SourceFragment(text, offset: 0), text: SourceFragment(text, offset: 0)),
                                       context: context, columns: { _ in }, row: { _ in })
                }
            }
            var rows: [JSONObject] = []
            let (count, _) = try Self.statements(backend) { _ in
                for text in ["Person", "Dog", "Toy"] {
                    try backend.export(QuerySpec(model: SourceFragment(text, offset: 0), text: SourceFragment(text, offset: 0)),
                                       context: context, columns: { _ in }, row: { rows.append($0) })
                }
            }
            // Every person and dog, and the dogs' toys but not their parts, which the toys hold nested.
            #expect(rows.count == 7 * people, "\(rows.count)")
            sent.append(count)
        }
        #expect(sent[0] == sent[1], "\(sent)")
    }

    /// A statement whose answer may hold links to objects without a primary key runs once, in
    /// the snapshot its objects are read in: what the shell sends for it is what one run and
    /// the reading of its objects send. One that holds none runs alone.
    @Test func aStatementTheShellPrintsNestedRunsOnce() throws {
        let backend = try Self.backend(people: 3)
        let store = backend.store
        for text in ["Person SELECT(id, best)", "Person SELECT(id, dogs)", "Person where id <= 2", "Dog GROUP(toy) SELECT(toy, @count)"] {
            _ = try store.runForShell(text, arguments: [])  // prepares its statements
            let (once, _) = try Self.statements(backend) { _ in
                _ = try store.readingObjects { reader in
                    switch try store.run(text) {
                    case .objects(let objects): _ = try objects.nestedJSON(reader)
                    case .rows(let rows): _ = try rows.nestedJSON(reader)
                    case .value: break
                    }
                }
            }
            let (sent, _) = try Self.statements(backend) { _ in _ = try store.runForShell(text, arguments: []) }
            #expect(sent == once, "\(text): \(sent) statements, one run sends \(once)")
        }
        for text in ["Person SELECT(id)", "Dog SELECT(name)", "sum Person.id"] {
            _ = try store.runForShell(text, arguments: [])
            let (sent, _) = try Self.statements(backend) { _ in _ = try store.runForShell(text, arguments: []) }
            #expect(sent == 1, "\(text): \(sent) statements")
        }
    }
}
