import Foundation
import Testing
import Trove
import TroveModels
import TrovePostgres

/// An entity whose schema TroveModels derives, fetched with `#Predicate` on PostgreSQL.
final class Member: EntityType, PersistentModel {
    var handle = ""
    var isActive = false
    var visits = 0
    init() {}

    static let modelProperties: [ModelProperty<Member>] = [
        .init("handle", \Member.handle, primaryKey: true),
        .init("isActive", \Member.isActive, indexed: true, default: false),
        .init("visits", \Member.visits, default: 0),
    ]
}

@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresTypedRepositoryTests {
    @Test func typedPredicatesRunAsSQL() throws {
        let repo = PostgresRepository(store: try PostgresStore(url: try PostgresTestServer.freshURL(), schema: try Schema(Member.self)))
        try repo.beginWrite()
        // A repository saves the entities still held when the write ends.
        let added = try ["ann", "bob", "cy"].enumerated().map { i, handle in
            let member = try repo.addEntity(Member.self)
            member.handle = handle
            member.isActive = i != 1
            member.visits = i * 3
            return member
        }
        try repo.endWrite()
        #expect(added.count == 3)
        #expect(try repo.fetch(Member.self, matching: #Predicate { $0.isActive }).map(\.handle) == ["ann", "cy"])
        #expect(try repo.fetch(Member.self, matching: #Predicate { $0.visits > 1 && $0.handle != "cy" }).map(\.handle) == ["bob"])
        #expect(throws: ModelQueryError.self) { try repo.fetch(Member.self, matching: #Predicate { $0.visits * 2 > 1 }) }
    }
}
