import Foundation
import Testing
import Trove
import TroveModels

/// A typed query's refusal, caught as `any Error`, shows its message through Foundation's
/// `localizedDescription`.
@Suite("Localized descriptions of typed query errors")
struct LocalizedQueryErrorTests {
    @Test func aModelQueryErrorReadsAsItsMessage() throws {
        let store = try Store(configuration: .inMemory(schema: Schema(Person.self)))
        var caught: (any Error)?
        do { _ = try store.read { try $0.objects(Person.self, where: #Predicate { $0.age + 1 > 3 }).count } }
        catch { caught = error }
        let error = try #require(caught)
        #expect(error is ModelQueryError)
        #expect(error.localizedDescription == "\(error)")
        #expect(!error.localizedDescription.contains("could not be completed"))
    }
}
