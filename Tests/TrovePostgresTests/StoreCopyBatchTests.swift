import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A copy from PostgreSQL into a store writes each batch as it reads it, in the store's one
/// transaction: more objects than a batch arrive whole, links across batches included, and a
/// failure after some batches were written leaves the store as it was.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct StoreCopyBatchTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "Row", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal", "next": "Row?", "bits": "Bit[]"}},
                    {"name": "Bit", "properties": {"n": "int", "row": "Row?"}}]}
        """#.utf8), fileName: "rows")

    /// More than two batches of rows (`PostgresObjectReader.forEachBatch` reads 1,000 at a
    /// time), each linking to the next row and holding a bit that links back.
    static let count = 2_500

    /// A database holding `count` rows and bits, copied there from a store.
    static func database() throws -> (url: String, source: Store) {
        let source = try Store(configuration: .inMemory(schema: schema))
        try source.write { tx in
            var previous: ObjectReference?
            for id in (1...count).reversed() {
                let row = try tx.insert("Row", ["id": .int(Int64(id)), "dec": .string("\(id).5"),
                                                "next": previous.map(Value.reference) ?? .null]).reference
                let bit = try tx.insert("Bit", ["n": .int(Int64(id)), "row": .reference(row)]).reference
                try tx.update(row, ["bits": .list([.reference(bit)])])
                previous = row
            }
        }
        let url = try PostgresTestServer.freshURL()
        try StoreCopy.copy(source, toDatabase: url)
        return (url, source)
    }

    /// Each row as its id, decimal, next row's id and its bits' numbers and their rows' ids.
    static func contents(_ store: Store) throws -> [String] {
        try store.read { snapshot in
            try snapshot.objects("Row").map { row in
                let id = try row.value("id"), dec = try row.value("dec")
                let next = try row.object("next")?.value("id")
                var bits: [String] = []
                for bit in try row.list("bits") {
                    let n = try bit.value("n"), owner = try bit.object("row")?.value("id")
                    bits.append("\(n)>\(String(describing: owner))")
                }
                return "\(id) \(dec) \(String(describing: next)) \(bits)"
            }.sorted()
        }
    }

    @Test func moreObjectsThanABatchArriveWhole() throws {
        let (url, source) = try Self.database()
        let target = try Store(configuration: .inMemory(schema: Self.schema))
        let summary = try StoreCopy.copy(database: try PostgresConnection(url: url), to: target)
        #expect(summary.counts.map(\.objects) == [Self.count, Self.count])
        let expected = try Self.contents(source)
        #expect(expected.count == Self.count)
        #expect(try Self.contents(target) == expected)
    }

    @Test func aFailureAfterSomeBatchesLeavesTheStoreAsItWas() throws {
        let (url, _) = try Self.database()
        // A decimal beyond a store's range, written by other means, in the third batch (rows were saved from the last id down).
        let connection = try PostgresConnection(url: url)
        try connection.execute(#"UPDATE "Row" SET "dec" = 1e200 WHERE "id" = 100"#)
        let target = try Store(configuration: .inMemory(schema: Self.schema))
        try target.write { tx in _ = try tx.insert("Row", ["id": 0, "dec": .string("1")]) }
        let before = try Self.contents(target)
        #expect(throws: PostgresError.self) { try StoreCopy.copy(database: connection, to: target, replacing: true) }
        #expect(try Self.contents(target) == before)
        #expect(try target.read { try $0.count("Bit") } == 0)

        // A store file the copy created is removed.
        let path = NSTemporaryDirectory() + "trove-copy-" + UUID().uuidString + ".trove"
        #expect(throws: PostgresError.self) { try StoreCopy.copy(database: connection, toStoreAt: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
