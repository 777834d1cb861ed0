import Foundation
import Testing
import Trove
import TroveModels
import TrovePostgres
import PostgresTestSupport

/// DBRepo's entity as a `@Model` class, whose `init()` the macro keeps.
@Model final class Visitor: EntityType {
    @Attribute(.primaryKey) var handle: String = ""
    @Attribute(.indexed) var isActive: Bool = false
    var visits: Int = 0
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresClassModelRepositoryTests {
    @Test func classModelsAreKeptAndQueriedAsSQL() throws {
        let repo = PostgresRepository(store: try PostgresStore(url: try PostgresTestServer.freshURL(), schema: try Schema(Visitor.self)))
        try repo.beginWrite()
        // A repository saves the entities still held when the write ends.
        let added = try ["ann", "bob", "cy"].enumerated().map { i, handle in
            let visitor = try repo.addEntity(Visitor.self)
            visitor.handle = handle
            visitor.isActive = i != 1
            visitor.visits = i * 3
            return visitor
        }
        try repo.endWrite()
        #expect(try repo.fetch(Visitor.self, predicate: nil).map(\.handle).sorted() == added.map(\.handle))
        #expect(try repo.fetch(Visitor.self, matching: #Predicate { $0.isActive }).map(\.handle) == ["ann", "cy"])
        #expect(try repo.fetch(Visitor.self, where: { $0.visits > 1 && $0.handle != "cy" }).map(\.handle) == ["bob"])
        let bob = try #require(try repo.fetch(Visitor.self, where: { $0.handle == "bob" }).first)
        try repo.beginWrite()
        bob.visits = 9
        try repo.endWrite()
        #expect(try repo.fetch(Visitor.self, where: { $0.visits == 9 }).map(\.handle) == ["bob"])
    }
}
