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

extension Account {
    /// Not stored: a `where:` closure that reads it cannot run.
    var loginsTwice: Int { logins * 2 }
}

@Suite struct TypedRepositoryTests {
    /// DBRepo's examples: fetch all, fetch the active ones, save a change, delete.
    func exercise(_ repo: some Repository & RepoQueryType, fetch: (Predicate<Account>) throws -> [Account]) throws {
        try repo.beginWrite()
        let added = try ["ann", "bob", "cy"].enumerated().map { i, name in
            let account = try repo.addEntity(Account.self)
            account.username = name
            account.isActive = i != 1
            return account
        }
        try repo.endWrite()
        #expect(try repo.fetch(Account.self, predicate: nil).map(\.username).sorted() == added.map(\.username).sorted())
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

    /// A `where:` closure fetches what the `#Predicate` that says the same fetches, and the
    /// entities it fetches are tracked as any fetched entity is.
    func exerciseWhereClosures(
        _ repo: some Repository & RepoQueryType,
        where fetchWhere: ((ModelQuery<Account, Account>) -> ModelCondition<Account>) throws -> [Account],
        matching fetchMatching: (Predicate<Account>) throws -> [Account]
    ) throws {
        try repo.beginWrite()
        let added = try [("ann", true, 0), ("bob", false, 5), ("cy", true, 2), ("dee", true, 7)].map { name, active, logins in
            let account = try repo.addEntity(Account.self)
            account.username = name
            account.isActive = active
            account.logins = logins
            return account
        }
        try repo.endWrite()
        #expect(try repo.fetch(Account.self, predicate: nil).map(\.username).sorted() == added.map(\.username).sorted())
        func usernames(_ accounts: [Account]) -> [String] { accounts.map(\.username) }

        #expect(try usernames(fetchWhere { $0.isActive == true }) == ["ann", "cy", "dee"])
        #expect(try usernames(fetchWhere { $0.isActive == true }) == usernames(fetchMatching(#Predicate { $0.isActive })))
        #expect(try usernames(fetchWhere { $0.logins > 1 && $0.username != "cy" })
            == usernames(fetchMatching(#Predicate { $0.logins > 1 && $0.username != "cy" })))
        #expect(try usernames(fetchWhere { $0.username.starts(with: "b") || $0.logins.contains(1...3) })
            == usernames(fetchMatching(#Predicate { $0.username.starts(with: "b") || ($0.logins >= 1 && $0.logins <= 3) })))
        #expect(try usernames(fetchWhere { !($0.isActive == true) }) == usernames(fetchMatching(#Predicate { !$0.isActive })))
        // The query language's case-insensitive comparison, wherever the entities are kept.
        #expect(try usernames(fetchWhere { $0.username.contains("E", options: .caseInsensitive) }) == ["dee"])
        #expect(throws: ModelQueryError.self) { try fetchWhere { $0.loginsTwice > 1 } }

        let bob = try #require(try fetchWhere { $0.username == "bob" }.first)
        try repo.beginWrite()
        bob.logins = 1
        try repo.endWrite()
        #expect(try usernames(fetchWhere { $0.logins == 1 }) == ["bob"])
    }

    @Test func aTroveRepositoryTakesWhereClosures() throws {
        let repo = TroveRepository(store: try Store(configuration: .inMemory(schema: Schema(Account.self))))
        try exerciseWhereClosures(repo, where: { try repo.fetch(Account.self, where: $0) },
                                  matching: { try repo.fetch(Account.self, matching: $0) })
    }

    @Test func anInMemoryRepositoryTakesWhereClosures() throws {
        let repo = InMemoryRepository()
        try exerciseWhereClosures(repo, where: { try repo.fetch(Account.self, where: $0) },
                                  matching: { try repo.fetch(Account.self, matching: $0) })
    }
}
