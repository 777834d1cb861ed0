import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A numeric with more digits than a decimal holds, written to the table by other means,
/// reads back rounded as a store's coercion rounds the same text (half away from zero), not
/// cut as `Decimal(string:)` cuts it.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDecimalReadTests {
    @Test func aLongNumericRoundsAsAStoreRoundsIt() throws {
        let schema = try Schema(jsonData: Array(#"{"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int", "dec": "decimal?"}}]}"#.utf8),
                                fileName: "long")
        let texts = ["0.1111111111111111111111111111111111111119", "-2.99999999999999999999999999999999999999999999", "123456789012345678901234567890123456789.5"]
        let url = try PostgresTestServer.freshURL()
        let postgres = try PostgresStore(url: url, schema: schema)
        let store = try Store(configuration: .inMemory(schema: schema))
        let connection = try PostgresConnection(url: url)
        for (i, text) in texts.enumerated() {
            try postgres.insert("M", ["id": .int(Int64(i)), "dec": .decimal(0)])
            _ = try connection.execute(#"UPDATE "M" SET "dec" = $1::numeric WHERE "id" = \#(i)"#, [text])
            try store.write { tx in _ = try tx.insert("M", ["id": .int(Int64(i)), "dec": .string(text)]) }
        }
        for (i, text) in texts.enumerated() {
            let expected = try #require(try store.read { try $0.object("M", primaryKey: .int(Int64(i)))?.value("dec") })
            #expect(expected != .decimal(Decimal(string: text)!), "\(text): the store's value is a cut one")
            let got = try postgres.objects("M where id == $0", arguments: [.int(Int64(i))]).objects.first?.last
            #expect(got == expected, "\(text)")
        }
    }
}
