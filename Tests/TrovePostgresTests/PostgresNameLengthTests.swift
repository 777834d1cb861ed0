import Foundation
import Testing
import Trove
@testable import TrovePostgres
import PostgresTestSupport

/// PostgreSQL keeps 63 bytes of a name: a table or column name that does not fit is refused
/// before anything is created, and long index names stay distinct.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresNameLengthTests {
    static func schema(_ text: String) throws -> Schema { try Schema(jsonData: Array(text.utf8), fileName: "test") }
    /// 63 bytes: the longest name PostgreSQL keeps whole.
    static let base = "M" + String(repeating: "é", count: 20) + String(repeating: "x", count: 22)

    /// The tables of the test's PostgreSQL schema.
    static func tables(_ url: String) throws -> [String] {
        let connection = try PostgresConnection(url: url)
        return try connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1").rows.compactMap { $0[0] }
    }

    @Test func modelsAlikeInTheirFirst63BytesAreRefusedAndNothingIsCreated() throws {
        #expect(Self.base.utf8.count == 63)
        let url = try PostgresTestServer.freshURL()
        let schema = try Self.schema(#"""
            {"models": [{"name": "\#(Self.base)a", "properties": {"n": "int"}}, {"name": "\#(Self.base)b", "properties": {"n": "int"}}]}
            """#)
        let error = #expect(throws: PostgresError.self) { try PostgresStore(url: url, schema: schema) }
        #expect(error?.message.hasPrefix("model \(Self.base)a: ") == true, "\(String(describing: error))")
        #expect(error?.message.contains("64 bytes") == true && error?.message.contains("keeps 63 bytes") == true)
        #expect(try Self.tables(url) == [])
    }

    @Test func aListWhoseTableNameIsTooLongIsRefusedAndNothingIsCreated() throws {
        let url = try PostgresTestServer.freshURL()
        let property = String(repeating: "t", count: 59)  // "Item." makes 64 bytes
        let schema = try Self.schema(#"""
            {"models": [{"name": "Shelf", "properties": {"n": "int"}},
                        {"name": "Item", "properties": {"label": "string", "\#(property)": "string[]"}}]}
            """#)
        let error = #expect(throws: PostgresError.self) { try PostgresStore(url: url, schema: schema) }
        #expect(error?.message.hasPrefix("property Item.\(property): ") == true, "\(String(describing: error))")
        #expect(error?.message.contains("\"Item.\(property)\"") == true)
        #expect(try Self.tables(url) == [])
    }

    @Test func aMigrationAddingATooLongNameChangesNothing() throws {
        let url = try PostgresTestServer.freshURL()
        let v1 = try Self.schema(#"{"models": [{"name": "Item", "properties": {"n": "int"}}]}"#)
        let store = try PostgresStore(url: url, schema: v1)
        try store.insert("Item", ["n": 1])
        let long = String(repeating: "p", count: 64)
        let v2 = try Self.schema(#"""
            {"models": [{"name": "Item", "properties": {"n": "int", "tags": "string[]", "\#(long)": "int?"}}, {"name": "Box", "properties": {"n": "int"}}]}
            """#)
        let error = #expect(throws: PostgresError.self) { try PostgresStore(url: url, schema: v2) }
        #expect(error?.message.hasPrefix("property Item.\(long): its name, the name of its column, is 64 bytes") == true, "\(String(describing: error))")
        #expect(try Self.tables(url) == ["@trove_schema", "Item"])
        let reopened = try PostgresStore(url: url)
        #expect(reopened.schema == v1)
        #expect(try reopened.count("Item") == 1)
    }

    /// Names of 63 bytes map as they are; their indexes' names, alike in their first 63
    /// bytes, stay two indexes, and removing one drops that one.
    @Test func namesOf63BytesAndTheirIndexesWork() throws {
        let url = try PostgresTestServer.freshURL()
        let other = String(Self.base.dropLast()) + "z", list = String(repeating: "l", count: 57)
        let text = #"""
            {"models": [{"name": "\#(Self.base)", "primaryKey": "id", "properties": {"id": "int", "v": {"type": "string", "indexed": true}}},
                        {"name": "Shelf", "properties": {"\#(list)": "int[]"}},
                        {"name": "\#(other)", "properties": {"v": {"type": "string", "indexed": true}}}]}
            """#
        let schema = try Self.schema(text)
        let store = try PostgresStore(url: url, schema: schema)
        #expect(try Self.tables(url) == ["@trove_schema", Self.base, other, "Shelf", "Shelf." + list].sorted())
        try store.insert(Self.base, ["id": 1, "v": "a"])
        try store.insert(other, ["v": "b"])
        try store.insert("Shelf", [list: .list([.int(7)])])
        #expect(try store.count(Self.base, where: "v == 'a'") == 1)
        #expect(try store.count(other, where: "v == 'b'") == 1)
        #expect(try store.count("Shelf", where: "ANY \(list) == 7") == 1)
        let hashed = "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%~%'"
        #expect(try store.connection.execute(hashed).rows == [["2"]])
        let v2 = try Self.schema(text.replacingOccurrences(of: #""v": {"type": "string", "indexed": true}}}]}"#, with: #""v": "string"}}]}"#))
        #expect(v2 != schema)
        let migrated = try PostgresStore(url: url, schema: v2)
        #expect(try migrated.connection.execute(hashed).rows == [["1"]])
        #expect(try migrated.count(Self.base, where: "v == 'a'") == 1)
        #expect(try migrated.count(other, where: "v == 'b'") == 1)
    }
}
