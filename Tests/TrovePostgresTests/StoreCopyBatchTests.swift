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

    /// Keys as strings, and a model that links to them but that no link points to.
    static let keyedSchema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "K", "primaryKey": "id", "properties": {"id": "string", "n": "int"}},
                    {"name": "L", "properties": {"n": "int", "k": "K?", "ks": "K[]"}}]}
        """#.utf8), fileName: "keyed")

    /// A database of `count` objects `K` (`id` `k1`, `k2`, ...; `n` 1, 2, ...), and as many `L`
    /// linking to the `K` of their `n` and listing it and the next, put there by SQL.
    static func keyedDatabase(count: Int) throws -> String {
        let url = try PostgresTestServer.freshURL()
        let connection = try PostgresStore(url: url, schema: keyedSchema).connection
        try connection.execute(#"INSERT INTO "K" ("id", "n") SELECT 'k' || i, i FROM generate_series(1, $1::int) AS i"#, [String(count)])
        try connection.execute(#"INSERT INTO "L" ("n", "k") SELECT i, 'k' || i FROM generate_series(1, $1::int) AS i ORDER BY i"#, [String(count)])
        try connection.execute(#"INSERT INTO "L.ks" (owner, position, value) SELECT "@key", 0, 'k' || n FROM "L""#)
        try connection.execute(#"INSERT INTO "L.ks" (owner, position, value) SELECT "@key", 1, 'k' || (n % $1::int + 1) FROM "L""#, [String(count)])
        return url
    }

    /// Each batch is written before the next is read: a list of links the store refuses (one
    /// holding a null, which PostgreSQL's side table can) in the first batch of `L` ends the
    /// copy there, with the FETCHes of `L`'s other batches left unsent, which reading every
    /// batch first could not do.
    @Test func theStoreRefusingAnObjectOfTheFirstBatchEndsTheCopyThere() throws {
        let batches = 10
        let url = try Self.keyedDatabase(count: batches * 1000)
        let connection = try PostgresConnection(url: url)
        func statements(_ body: () throws -> Void) rethrows -> Int {
            let before = connection.statementsSent
            try body()
            return connection.statementsSent - before
        }
        let whole = try statements { try StoreCopy.copy(database: connection, to: try Store(configuration: .inMemory(schema: Self.keyedSchema))) }
        try connection.execute(#"UPDATE "L.ks" SET value = NULL WHERE owner = (SELECT min("@key") FROM "L") AND position = 0"#)
        let target = try Store(configuration: .inMemory(schema: Self.keyedSchema))
        let refused = statements {
            #expect(throws: (any Error).self) { try StoreCopy.copy(database: connection, to: target) }
        }
        #expect(refused <= whole - (batches - 1), "\(refused) statements, \(whole) for the whole copy")
        #expect(try target.read { try $0.count("K") + $0.count("L") } == 0)
    }

    /// Objects of a model that links point to and of one they do not, over several batches,
    /// arrive whole, in order, with their links and lists of links.
    @Test func modelsNoLinkPointsToArriveWithTheirLinks() throws {
        let count = 2_500
        let url = try Self.keyedDatabase(count: count)
        let target = try Store(configuration: .inMemory(schema: Self.keyedSchema))
        let summary = try StoreCopy.copy(database: try PostgresConnection(url: url), to: target)
        #expect(summary.counts.map(\.model) == ["K", "L"] && summary.counts.map(\.objects) == [count, count])
        let rows = try target.read { snapshot in
            try snapshot.objects("L").map { l in
                "\(try l.value("n")) \(String(describing: try l.object("k")?.value("n"))) \(try l.list("ks").map { try $0.value("id") })"
            }
        }
        let expected = (1...count).map { n in
            "\(Value.int(Int64(n))) \(String(describing: Optional(Value.int(Int64(n))))) \([Value.string("k\(n)"), .string("k\(n % count + 1)")])"
        }
        #expect(rows == expected)
    }
}
