import Foundation
import Testing
import Trove
import TroveModels
import TrovePostgres
import PostgresTestSupport

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

extension Member {
    /// Not stored: a `where:` closure that reads it cannot run.
    var doubled: Int { visits * 2 }
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
        #expect(try repo.fetch(Member.self, predicate: nil).map(\.handle).sorted() == added.map(\.handle))
        #expect(try repo.fetch(Member.self, matching: #Predicate { $0.isActive }).map(\.handle) == ["ann", "cy"])
        #expect(try repo.fetch(Member.self, matching: #Predicate { $0.visits > 1 && $0.handle != "cy" }).map(\.handle) == ["bob"])
        #expect(throws: ModelQueryError.self) { try repo.fetch(Member.self, matching: #Predicate { $0.visits * 2 > 1 }) }
    }

    /// A `where:` closure's query text and values go through the translation to SQL a string
    /// predicate goes through, and select what the `#Predicate` that says the same selects.
    @Test func whereClosuresRunAsSQL() throws {
        let repo = PostgresRepository(store: try PostgresStore(url: try PostgresTestServer.freshURL(), schema: try Schema(Member.self)))
        try repo.beginWrite()
        let added = try [("ann", true, 0), ("Bob", false, 5), ("cy", true, 2), ("dee", true, 7)].map { handle, active, visits in
            let member = try repo.addEntity(Member.self)
            member.handle = handle
            member.isActive = active
            member.visits = visits
            return member
        }
        try repo.endWrite()
        #expect(try repo.fetch(Member.self, predicate: nil).map(\.handle).sorted() == added.map(\.handle).sorted())
        func handles(_ members: [Member]) -> [String] { members.map(\.handle) }

        #expect(try handles(repo.fetch(Member.self, where: { $0.isActive == true })) == ["ann", "cy", "dee"])
        #expect(try handles(repo.fetch(Member.self, where: { $0.isActive == true }))
            == handles(repo.fetch(Member.self, matching: #Predicate { $0.isActive })))
        #expect(try handles(repo.fetch(Member.self, where: { $0.visits > 1 && $0.handle != "cy" }))
            == handles(repo.fetch(Member.self, matching: #Predicate { $0.visits > 1 && $0.handle != "cy" })))
        #expect(try handles(repo.fetch(Member.self, where: { $0.visits.contains(1...5) || !($0.isActive == true) }))
            == handles(repo.fetch(Member.self, matching: #Predicate { ($0.visits >= 1 && $0.visits <= 5) || !$0.isActive })))
        #expect(try handles(repo.fetch(Member.self, where: { $0.handle.starts(with: "b", options: .caseInsensitive) }))
            == handles(repo.fetch(Member.self, where: "handle BEGINSWITH[c] $0", arguments: [.string("b")])))
        #expect(try handles(repo.fetch(Member.self, where: { $0.handle.starts(with: "b", options: .caseInsensitive) })) == ["Bob"])
        #expect(throws: ModelQueryError.self) { try repo.fetch(Member.self, where: { $0.doubled > 1 }) }
    }
}
