import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport
import TroveTestFixtures

/// In the Swift API's rows, a SELECT item or GROUP key that is a link to a model without a
/// primary key is a `.reference` to the linked object (in a list, one per element), on a store
/// and on PostgreSQL alike: its key is internal to each backend, the model and the shape are not.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresKeylessLinkRowsTests {
    /// `value` with each reference's key left out: what both backends share.
    static func shape(_ value: Value) -> String {
        switch value {
        case .reference(let reference): "ref(\(reference.model))"
        case .list(let items): "[" + items.map(shape).joined(separator: ", ") + "]"
        default: "\(value)"
        }
    }

    @Test(arguments: ["Shelf SORT(id) SELECT(id, top, boxes, next.top, boxes.inner, top.inner)",
                      "Shelf GROUP(top) SELECT(top, @count)"])
    func aLinkToAModelWithoutAPrimaryKeyIsAReference(_ text: String) throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: KeylessLinkShelves.schema)
        let store = try Store(configuration: .inMemory(schema: KeylessLinkShelves.schema))
        try postgres.atomically { for shelf in KeylessLinkShelves.shelves { try postgres.insert("Shelf", shelf) } }
        try store.write { tx in for shelf in KeylessLinkShelves.shelves { _ = try tx.insert("Shelf", shelf) } }
        let expected = try store.read { snapshot in try snapshot.rows(text).map { $0.values.map(Self.shape) } }
        guard case .rows(let rows) = try postgres.run(text) else {
            Issue.record("\(text): no rows")
            return
        }
        #expect(rows.rows.map { $0.map(Self.shape) } == expected, "\(text)")
        #expect(expected.joined().contains("ref(Box)"), "\(text): \(expected)")
    }
}

/// A list of keys PostgreSQL answers that is not one is refused, as a single bad key is: no
/// server is needed to read an answer.
struct PostgresKeylessLinkAnswerTests {
    @Test(arguments: ["7", "[1]", "{\"a\": 1}", "not json"])
    func aMalformedListOfKeysThrows(_ text: String) {
        let column = PostgresProjectedColumn(name: "boxes", reading: .references("Box"))
        #expect(throws: PostgresError.self) { try PostgresProjectedRows(columns: [column], rows: [[text]]) }
    }

    @Test func aBadKeyThrows() {
        let column = PostgresProjectedColumn(name: "top", reading: .reference("Box"))
        #expect(throws: PostgresError.self) { try PostgresProjectedRows(columns: [column], rows: [["x"]]) }
    }

    @Test func aListOfKeysHoldsNullForANullLinkOnTheWay() throws {
        let column = PostgresProjectedColumn(name: "boxes", reading: .references("Box"))
        let rows = try PostgresProjectedRows(columns: [column], rows: [[#"[null, "3"]"#]])
        #expect(rows.rows == [[.list([.null, .reference(ObjectReference(model: "Box", key: 3))])]])
    }
}
