import Foundation
import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// Connecting again with a schema whose default is NaN rewrites nothing: not the schema row,
/// not the notify triggers (whose DDL would lock the tables on every connect).
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNaNDefaultSchemaTests {
    static let schema = try! Schema(jsonData: Array(#"""
        {"models": [{"name": "M", "primaryKey": "id", "properties": {"id": "int",
          "d": {"type": "double", "default": "NaN"}, "f": {"type": "float", "default": "NaN"}}}]}
        """#.utf8), fileName: "nan-default")

    /// The schema row's and this test's triggers' transaction ids: each changes when it is written.
    /// `pg_trigger` is the whole database's, which other tests' schemas share, so only the triggers
    /// of tables in this test's schema count.
    static func versions(_ connection: PostgresConnection) throws -> [[String?]] {
        try connection.execute(#"SELECT xmin::text FROM "@trove_schema""#).rows
            + connection.execute("""
                SELECT t.xmin::text FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_class c ON c.oid = t.tgrelid
                WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace ORDER BY t.oid
                """).rows
    }

    @Test func aSecondConnectWritesNothing() throws {
        let url = try PostgresTestServer.freshURL()
        let first = try PostgresStore(url: url, schema: Self.schema)
        try first.insert("M", ["id": 1])
        let connection = try PostgresConnection(url: url)
        let before = try Self.versions(connection)
        #expect(before.count > 1)
        let second = try PostgresStore(url: url, schema: Self.schema)
        #expect(try Self.versions(connection) == before)
        #expect(second.schema == Self.schema)
        let stored = try connection.execute(#"SELECT "d"::text, "f"::text FROM "M" WHERE "id" = 1"#).rows
        #expect(stored == [["NaN", "NaN"]])
    }
}
