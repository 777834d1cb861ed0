import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// DISTINCT keeps the first object of each combination as a store does.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDistinctTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "P", "primaryKey": "id", "properties": {"id": "int", "g": "int", "ns": "int[]", "ds": "double[]"}}]}
        """#.utf8), fileName: "distinctitems")

    /// A store's answer or error, as text.
    static func fromStore(_ text: String, _ store: Store) -> String {
        do {
            switch try store.read({ try $0.answer(text) }) {
            case .rows(let rows): return "\(rows.map(\.values))"
            case .value(let value): return "\(value)"
            case .objects: return "objects"
            }
        } catch let error as QueryError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    static func fromPostgres(_ text: String, _ postgres: PostgresStore) -> String {
        do {
            switch try postgres.run(text) {
            case .rows(let rows): return "\(rows.rows)"
            case .value(_, let value): return "\(value)"
            case .objects: return "objects"
            }
        } catch let error as QueryError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func itemsAreComputedForTheObjectsDistinctKeepsAlone() throws {
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: Self.schema)
        let store = try Store(configuration: .inMemory(schema: Self.schema))
        // In group 1, object 2's sums are out of range; DISTINCT keeps object 1 or object 4.
        let objects: [[String: Value]] = [
            ["id": 1, "g": 1, "ns": [1, 2], "ds": [.double(0.5)]],
            ["id": 2, "g": 1, "ns": [.int(.max), 1], "ds": [.double(1e308), .double(1e308)]],
            ["id": 3, "g": 2, "ns": [5], "ds": []],
            ["id": 4, "g": 1, "ns": [], "ds": [.double(-2)]],
            ["id": 5, "g": 2, "ns": [7, 8], "ds": [.double(3), .double(4)]],
        ]
        for object in objects { try postgres.insert("P", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("P", object) } }
        #expect(Self.fromStore("P where id == 2 SELECT(ns.@sum)", store).contains("out of the range"))
        #expect(Self.fromStore("P where id == 2 SELECT(ds.@sum)", store).contains("out of the range"))
        for text in ["P SORT(id) DISTINCT(g) SELECT(id, ns.@sum, ds.@sum)",
                     "P SORT(id DESC) DISTINCT(g) SELECT(id, ns.@sum, ds.@avg)",
                     "P SORT(id DESC) DISTINCT(g) SELECT(id, ns.@sum AS s, ds.@sum) LIMIT(1)",
                     "P SORT(id) DISTINCT(g) SELECT(id, ns.@sum, ds.@max) OFFSET(1)",
                     "P DISTINCT(g) SELECT(id, g, ns.@sum, ds.@sum)",
                     "P where g >= 1 SORT(g DESC, id) DISTINCT(g) SELECT(ns.@sum, ds.@avg, ns)"] {
            let expected = Self.fromStore(text, store)
            #expect(!expected.contains("range"), "\(text): \(expected)")
            #expect(Self.fromPostgres(text, postgres) == expected, "\(text)")
        }
    }

    /// -0.0 and 0.0 are one value to DISTINCT, as are two NaNs; the object kept is the first in
    /// the sorted order (in key order without SORT), whose value shows.
    @Test func zerosOfEitherSignAndNaNsAreEachOneValue() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Z", "primaryKey": "id", "properties": {"id": "int", "x": "int", "d": "double"}}]}
            """#.utf8), fileName: "distinctzeros")
        let postgres = try PostgresStore(url: try PostgresTestServer.freshURL(), schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let values: [Double] = [-0.0, 0.0, .nan, .nan, 1, 0.0, -0.0]
        let objects: [[String: Value]] = values.enumerated().map { i, d in ["id": .int(Int64(i + 1)), "x": .int(Int64((i * 5) % 7)), "d": .double(d)] }
        for object in objects { try postgres.insert("Z", object) }
        try store.write { tx in for object in objects { _ = try tx.insert("Z", object) } }
        for text in ["Z SORT(x) DISTINCT(d) SELECT(id, x, d)", "Z SORT(x DESC) DISTINCT(d) SELECT(id, d)",
                     "Z SORT(d, x) DISTINCT(d) SELECT(id, x, d)", "Z SORT(d DESC, x DESC) DISTINCT(d) SELECT(id, d)",
                     "Z DISTINCT(d) SELECT(id, d)", "Z SORT(d) DISTINCT(d) SELECT(id, d)", "Z where x > 0 SORT(x) DISTINCT(d) SELECT(d, id)"] {
            let expected = Self.fromStore(text, store)
            #expect(expected.contains("-0.0") || expected.contains("0.0"), "\(text): \(expected)")
            #expect(Self.fromPostgres(text, postgres) == expected, "\(text)")
        }
    }
}
