import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport

/// An update of several objects that sets a list holding a nested object writes that object
/// once, before it matches any object, and links each object it updates to it: on a store and
/// on PostgreSQL alike, for a model with no primary key (whose object each write would add).
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNestedUpdateTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Box", "properties": {"label": "string"}},
          {"name": "Shelf", "primaryKey": "id", "properties": {"id": "int", "boxes": "Box[]"}}]}
        """#.utf8), fileName: "shelves")

    @Test func anUpdateWhereWritesANestedObjectInAListOnce() throws {
        let set: [String: Value] = ["boxes": [.object(["label": "x"])]]
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        try store.write { tx in
            for id: Int64 in 1...2 { _ = try tx.insert("Shelf", ["id": .int(id)]) }
            #expect(try tx.update("Shelf", where: "id > 0", set: set) == 2)
        }
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        for id: Int64 in 1...2 { try postgres.insert("Shelf", ["id": .int(id)]) }
        #expect(try postgres.update("Shelf", where: "id > 0", set: set) == 2)

        #expect(try store.read { try $0.count("Box") } == 1)
        #expect(try postgres.count("Box") == 1)
        let query = "Shelf SORT(id) SELECT(id, boxes.label)"
        let onStore = try store.read { snapshot in try snapshot.rows(query).map { $0.values } }
        guard case .rows(let rows) = try postgres.run(query) else {
            Issue.record("\(query): no rows")
            return
        }
        #expect(onStore == [[.int(1), ["x"]], [.int(2), ["x"]]])
        #expect(rows.rows == onStore)
    }
}
