import Foundation
import Testing
import Trove

/// What a caught `any Error` shows through Foundation's `localizedDescription`, as an app's
/// alert or log line reads it: the error's own message.
@Suite("Localized descriptions of errors")
struct LocalizedDescriptionTests {
    private func caught(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch { return error }
        return nil
    }

    @Test func aStoreErrorReadsAsItsMessage() throws {
        let store = try memoryStore("People.json")
        try store.write { tx in _ = try tx.insert("Person", ["id": 1, "name": "Ann"]) }
        let error = try #require(caught { try store.write { tx in _ = try tx.insert("Person", ["id": 1]) } })
        #expect(error.localizedDescription == "'Person' already has an object with primary key 1")
        #expect(error.localizedDescription == "\(error)")
    }

    @Test func aQueryErrorReadsAsItsMessage() throws {
        let store = try memoryStore("People.json")
        let error = try #require(caught { _ = try store.read { try $0.objects("Person", where: "age >") } })
        #expect(error is QueryError)
        #expect(error.localizedDescription == "\(error)")
        #expect(error.localizedDescription.contains("expected a value after '>'"))
    }

    @Test func aSchemaErrorReadsAsItsMessage() throws {
        let error = try #require(caught { _ = try schemaFromJSON(#"{"models": {"A": {"properties": {"x": {"type": "nope"}}}}}"#) })
        #expect(error is SchemaError)
        #expect(error.localizedDescription == "\(error)")
        #expect(!error.localizedDescription.contains("could not be completed"))
    }
}
