import Foundation
import Testing

/// The shell on PostgreSQL gives what it gives on a store, for the same statements: the same
/// answers, errors and exit statuses.
@Suite(.enabled(if: PostgresServer.url != nil, "TROVE_TEST_POSTGRES_URL is not set: run `make test`"))
struct PostgresStoreParityTests {

    let w: Workspace
    /// The server's URL, in a PostgreSQL schema of this test's own.
    let url: String

    init() throws {
        w = try Workspace()
        url = try PostgresServer.urlInOwnSchema()
    }

    /// Runs `arguments` (and `stdin`) on a new store and on the server, both opened with
    /// `schema`, and expects the same output, errors and status.
    func expectSame(schema: String, _ arguments: [String], stdin: String = "",
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        let schemaFile = try w.write("parity-schema.json", schema)
        let store = "parity-\(UUID().uuidString).trove"
        #expect(try w.run([store, "--schema", schemaFile, "count \(try #require(modelName(schema)))"]).status == 0, sourceLocation: sourceLocation)
        #expect(try w.run([url, "--schema", schemaFile, "count \(try #require(modelName(schema)))"]).status == 0, sourceLocation: sourceLocation)
        let onStore = try w.run([store] + arguments, stdin: stdin)
        let onServer = try w.run([url] + arguments, stdin: stdin)
        #expect(onServer.err == onStore.err, "PostgreSQL:\n\(onServer.err)\nstore:\n\(onStore.err)", sourceLocation: sourceLocation)
        #expect(onServer.out == onStore.out, "PostgreSQL:\n\(onServer.out)\nstore:\n\(onStore.out)", sourceLocation: sourceLocation)
        #expect(onServer.status == onStore.status, sourceLocation: sourceLocation)
    }

    private func modelName(_ schema: String) -> String? {
        let json = try? JSONSerialization.jsonObject(with: Data(schema.utf8)) as? [String: Any]
        return (json?["models"] as? [[String: Any]])?.first?["name"] as? String
    }

    /// A write that fails inside `begin` ... `commit` fails the transaction: later statements
    /// are refused and `commit` rolls it back, although the server could go on.
    @Test func aFailedWriteFailsTheTransaction() throws {
        let schema = #"{"models": [{"name": "Item", "primaryKey": "id", "properties": {"id": "int", "tag": "string?"}}]}"#
        try expectSame(schema: schema, [], stdin: """
            begin
            insert Item {"id": 71}
            insert Item {"id": 71}
            insert Item {"id": 72}
            count Item
            commit
            count Item
            begin
            insert Item {"id": 73}
            rollback
            begin
            insert Item {"id": 74}
            update Item 999 set tag = "x"
            commit
            count Item
            """)
    }
}
