#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
import Trove
import TroveModels

/// DBRepo's user: a class entity, its property table listed by hand (`@Model` takes structs).
final class Account: EntityType, PersistentModel {
    var username = ""
    var isActive = false
    var logins = 0
    init() {}

    static let modelProperties: [ModelProperty<Account>] = [
        .init("username", \Account.username, primaryKey: true),
        .init("isActive", \Account.isActive, indexed: true, default: false),
        .init("logins", \Account.logins, default: 0),
    ]
}

@Suite struct TypedRepositoryTests {
    /// DBRepo's examples: fetch all, fetch the active ones, save a change, delete.
    func exercise(_ repo: some Repository & RepoQueryType, fetch: (Predicate<Account>) throws -> [Account]) throws {
        try repo.beginWrite()
        // A repository saves the entities still held when the write ends.
        let added = try ["ann", "bob", "cy"].enumerated().map { i, name in
            let account = try repo.addEntity(Account.self)
            account.username = name
            account.isActive = i != 1
            return account
        }
        try repo.endWrite()
        #expect(added.count == 3)
        #expect(try repo.fetch(Account.self, predicate: nil).count == 3)
        #expect(try fetch(#Predicate { $0.isActive }).map(\.username).sorted() == ["ann", "cy"])

        let bob = try #require(try fetch(#Predicate { $0.username == "bob" }).first)
        try repo.beginWrite()
        bob.logins = 5
        try repo.endWrite()
        #expect(try fetch(#Predicate { $0.logins > 1 }).map(\.username) == ["bob"])

        try repo.beginWrite()
        try repo.removeEntity(bob)
        try repo.endWrite()
        #expect(try fetch(#Predicate { $0.username == "bob" }).isEmpty)
        #expect(throws: ModelQueryError.self) { try fetch(#Predicate { $0.logins * 2 > 1 }) }
    }

    @Test func aTroveRepositoryTakesTypedPredicates() throws {
        let repo = TroveRepository(store: try Store(configuration: .inMemory(schema: Schema(Account.self))))
        try exercise(repo) { try repo.fetch(Account.self, matching: $0) }
    }

    @Test func anInMemoryRepositoryTakesTypedPredicates() throws {
        let repo = InMemoryRepository()
        try exercise(repo) { try repo.fetch(Account.self, matching: $0) }
    }
}
