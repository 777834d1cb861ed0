import Testing
import Trove
import TrovePostgres
import PostgresTestSupport
@testable import TroveShell

/// Objects without a primary key that link to each other in a cycle (only the Swift API makes
/// one: the shell's inserts nest new objects): the shell prints them, a link to an object
/// already on its own path as null, where `export` refuses the cycle.
struct KeylessLinkCycleTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Box", "properties": {"label": "string", "inner": "Box?"}}]}
        """#.utf8), fileName: "cycle")

    /// What the shell prints for every Box: a → b → a, b → a → b.
    static let printed = [#"{"label":"a","inner":{"label":"b","inner":null}}"#, #"{"label":"b","inner":{"label":"a","inner":null}}"#]

    /// A store holding Boxes a and b, each the other's `inner`.
    static func cycle() throws -> Store {
        let store = try Store(configuration: .inMemory(schema: schema))
        try store.write { tx in
            let a = try tx.insert("Box", ["label": "a"])
            let b = try tx.insert("Box", ["label": "b", "inner": .reference(a.reference)])
            _ = try tx.update(a.reference, ["inner": .reference(b.reference)])
        }
        return store
    }

    @Test func aStorePrintsACycleAndExportRefusesIt() throws {
        try Self.cycle().read { snapshot in
            let printed = try ResultRows.make(try snapshot.objects("Box"), context: ExecutionContext(arguments: []))
            #expect(printed.rows.map { JSONValue.object($0).jsonText } == Self.printed)
            let box = try #require(snapshot.schema["Box"])
            let links = StoreDump.linksWrittenNested(box, schema: snapshot.schema)
            #expect(throws: StatementError.self) {
                for object in try snapshot.objects("Box") { _ = try ResultRows.json(of: object, links: links, schema: snapshot.schema) }
            }
        }
    }

    @Test(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
    func postgreSQLPrintsACycleAsAStoreDoes() throws {
        let url = try PostgresTestServer.freshURL()
        try StoreCopy.copy(try Self.cycle(), toDatabase: url)
        let store = try PostgresStore(url: url, schema: Self.schema)
        let objects = try store.runForShell("Box", arguments: []).rows
        #expect(objects.map { JSONValue.object($0).jsonText } == Self.printed)
        let rows = try store.runForShell("Box SELECT(inner)", arguments: []).rows
        // A selected link starts its own path: b, in it a, in it b again (null).
        #expect(rows.map { JSONValue.object($0).jsonText } == [#"{"inner":{"label":"b","inner":{"label":"a","inner":null}}}"#,
                                                                #"{"inner":{"label":"a","inner":{"label":"b","inner":null}}}"#])
    }
}
