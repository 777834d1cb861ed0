import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A read-only `PostgresStore` (the shell's `--readonly`) writes nothing, whatever asks it to.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresReadOnlyTests {
    @Test func theServerRefusesEveryWriteOfAReadOnlyStore() throws {
        let url = try PostgresTestServer.freshURL()
        let writer = try PostgresStore(url: url, schema: PostgresFixtures.schema)
        try writer.insert("Person", ["id": 1, "name": "Ann"])
        let additive = try PostgresStoreTests.schema(PostgresFixtures.schemaText.replacing(#""models": ["#, with: #""models": [{"name": "Extra", "properties": {"a": "int"}},"#))
        let reader = try PostgresStore(url: url, schema: additive, readOnly: true)
        // A schema that adds is not installed: the store reads with the database's own. One
        // that a read-write open would refuse is refused here too.
        #expect(reader.schema == writer.schema)
        let breaking = #expect(throws: PostgresError.self) {
            try PostgresStore(url: url, schema: PostgresStoreTests.schema(
                #"{"schemaVersion": 2, "models": [{"name": "Extra", "properties": {"a": "int"}}]}"#), readOnly: true)
        }
        #expect(breaking?.refusedMigration == true)
        #expect(try reader.count("Person") == 1)
        #expect(throws: PostgresError.self) { try reader.insert("Person", ["id": 2]) }
        #expect(throws: PostgresError.self) { try reader.update("Person", where: nil as String?, set: ["age": 3]) }
        #expect(throws: PostgresError.self) { try reader.delete("Person", where: nil as String?) }
        #expect(throws: PostgresError.self) { try reader.apply(additive) }
        #expect(try writer.objects("Person").json.count == 1)
        #expect(try writer.count("Person", where: "age == nil") == 1)
        let emptyURL = try PostgresTestServer.freshURL()
        let empty = #expect(throws: PostgresError.self) { try PostgresStore(url: emptyURL, schema: PostgresFixtures.schema, readOnly: true) }
        #expect(empty?.message.contains("holds no Trove schema, and a read-only client cannot install one") == true, "\(String(describing: empty))")
    }
}
