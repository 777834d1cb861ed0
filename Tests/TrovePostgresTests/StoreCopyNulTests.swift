import Testing
import Trove
import TrovePostgres
import PostgresTestSupport

/// A string with a NUL character cannot go into PostgreSQL: the copy says where it is (the
/// model, the object, the property and the element), in the wording of every NUL refusal.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct StoreCopyNulTests {
    @Test func aNulCharacterIsNamedByModelObjectAndProperty() throws {
        let schema = try Schema(jsonData: Array(#"""
            {"models": [{"name": "Note", "primaryKey": "id", "properties": {"id": "int", "text": "string?", "tags": "string[]"}},
                        {"name": "Loose", "properties": {"text": "string"}}]}
            """#.utf8), fileName: "n")
        let cases: [((Store) throws -> Void, String)] = [
            ({ try $0.write { tx in _ = try tx.insert("Note", ["id": 1, "text": "fine"]); _ = try tx.insert("Note", ["id": 7, "text": "a\u{0}b"]) } },
             "the text for property 'text' of 'Note' in the object with primary key 7 has a NUL character, which PostgreSQL text cannot hold"),
            ({ try $0.write { tx in _ = try tx.insert("Note", ["id": 2, "tags": .list(["x", "\u{0}"])]) } },
             "the text for element 2 of property 'tags' of 'Note' in the object with primary key 2 has a NUL character, which PostgreSQL text cannot hold"),
            ({ try $0.write { tx in _ = try tx.insert("Loose", ["text": "ok"]); _ = try tx.insert("Loose", ["text": "\u{0}"]) } },
             "the text for property 'text' of 'Loose' in the object at position 2 has a NUL character, which PostgreSQL text cannot hold"),
        ]
        for (fill, message) in cases {
            let source = try Store(configuration: .inMemory(schema: schema))
            try fill(source)
            let url = try PostgresTestServer.freshURL()
            #expect(throws: PostgresError(message)) { try StoreCopy.copy(source, toDatabase: url) }
            // Nothing was written: the copy is one transaction.
            #expect(try PostgresConnection(url: url).execute(#"SELECT to_regclass('"Note"') IS NULL"#).rows == [["t"]])
        }
    }
}
