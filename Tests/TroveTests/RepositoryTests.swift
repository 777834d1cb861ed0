import Foundation
import Testing
@testable import Trove

final class User: EntityType {
    var uid = ""
    var name = ""
    var email: String?
    var age: Int?
    var isVerified = false
    var signedUpAt = Date(timeIntervalSince1970: 0)
    var roles: [String] = []
    init() {}
}

/// The repositories the contract runs against; code written against `Repository` picks one.
enum RepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case trove, inMemory

    var testDescription: String { rawValue }

    func make() throws -> any Repository {
        switch self {
        case .trove: TroveRepository(store: try memoryStore("User.json"))
        case .inMemory: InMemoryRepository()
        }
    }
}

/// Adds users named `names` (uids u0, u1, ...) in one write.
@discardableResult
private func addUsers<R: Repository>(_ repo: R, _ names: [String]) throws -> [User] {
    try repo.beginWrite()
    let users = try names.enumerated().map { i, name in
        let u = try repo.addEntity(User.self)
        u.uid = "u\(i)"
        u.name = name
        u.isVerified = i % 2 == 0
        return u
    }
    try repo.endWrite()
    return users
}

/// One contract, run against every repository.
@Suite struct RepositoryContractTests {
    @Test(arguments: RepositoryKind.allCases)
    func addedEntitiesAreSavedAtEndWriteAndFetchedInOrder(kind: RepositoryKind) throws {
        try addedEntitiesAreSaved(try kind.make())
    }
    private func addedEntitiesAreSaved<R: Repository>(_ repo: R) throws {
        try repo.beginWrite()
        let ada = try repo.addEntity(User.self)
        ada.uid = "ada"
        ada.name = "Ada"
        ada.roles = ["admin"]
        #expect(try repo.fetch(User.self, predicate: nil).isEmpty)
        try repo.endWrite()
        try addUsers(repo, ["Bob"])
        let all = try repo.fetch(User.self, predicate: nil)
        #expect(all.map(\.name) == ["Ada", "Bob"])
        #expect(all[0].roles == ["admin"] && all[0].email == nil && all[0] !== ada)
    }

    @Test(arguments: RepositoryKind.allCases)
    func closurePredicatesFilter(kind: RepositoryKind) throws {
        try predicatesFilter(try kind.make())
    }
    private func predicatesFilter<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann", "Bob", "Cid"])
        #expect(try repo.fetch(User.self) { $0.isVerified }.map(\.name) == ["Ann", "Cid"])
        #expect(try repo.fetch(User.self) { $0.name.hasPrefix("B") }.map(\.uid) == ["u1"])
    }

    @Test(arguments: RepositoryKind.allCases)
    func changesToFetchedEntitiesAreSavedByTheNextEndWrite(kind: RepositoryKind) throws {
        try changesAreSaved(try kind.make())
    }
    private func changesAreSaved<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann", "Bob"])
        let bob = try #require(try repo.fetch(User.self) { $0.name == "Bob" }.first)
        try repo.beginWrite()
        bob.name = "Robert"
        bob.email = "bob@example.com"
        try repo.endWrite()
        let again = try repo.fetch(User.self, predicate: nil)
        #expect(again.map(\.name) == ["Ann", "Robert"])
        #expect(again[1].email == "bob@example.com")
        // Setting an optional back to nil is saved too.
        try repo.beginWrite()
        again[1].email = nil
        try repo.endWrite()
        #expect(try repo.fetch(User.self) { $0.uid == "u1" }.first?.email == nil)
    }

    @Test(arguments: RepositoryKind.allCases)
    func removedEntitiesAreGoneAfterEndWrite(kind: RepositoryKind) throws {
        try removal(try kind.make())
    }
    private func removal<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann", "Bob", "Cid"])
        let bob = try #require(try repo.fetch(User.self) { $0.name == "Bob" }.first)
        try repo.beginWrite()
        bob.name = "changed, then removed"
        try repo.removeEntity(bob)
        let temp = try repo.addEntity(User.self)
        try repo.removeEntity(temp)
        try repo.endWrite()
        #expect(try repo.fetch(User.self, predicate: nil).map(\.name) == ["Ann", "Cid"])
        #expect(throws: RepositoryError.unknownEntity("User")) {
            try repo.beginWrite()
            defer { try? repo.endWrite() }
            try repo.removeEntity(bob)
        }
    }

    @Test(arguments: RepositoryKind.allCases)
    func lifetimeChangesOutsideAWriteAreRefused(kind: RepositoryKind) throws {
        try writeProtocol(try kind.make())
    }
    private func writeProtocol<R: Repository>(_ repo: R) throws {
        #expect(throws: RepositoryError.notInWrite) { _ = try repo.addEntity(User.self) }
        #expect(throws: RepositoryError.notInWrite) { try repo.endWrite() }
        try repo.beginWrite()
        #expect(throws: RepositoryError.alreadyInWrite) { try repo.beginWrite() }
        try repo.endWrite()
    }
}

@Suite struct TroveRepositoryTests {
    @Test func queryLanguagePredicatesUseTheStore() throws {
        let repo = TroveRepository(store: try memoryStore("User.json"))
        try addUsers(repo, ["Ann", "Bob", "Cid"])
        #expect(try repo.fetch(User.self, where: "isVerified == true AND name != $0", "Ann").map(\.name) == ["Cid"])
        // Fetched this way, entities are tracked like any other.
        let cid = try #require(try repo.fetch(User.self, where: "name == 'Cid'").first)
        try repo.beginWrite()
        cid.age = 40
        try repo.endWrite()
        #expect(try repo.fetch(User.self, where: "age == 40").map(\.uid) == ["u2"])
    }

    @Test func aFailedSaveWritesNothingAndKeepsTheChangesPending() throws {
        let repo = TroveRepository(store: try memoryStore("User.json"))
        try addUsers(repo, ["Ann"])
        try repo.beginWrite()
        let dup = try repo.addEntity(User.self)
        dup.uid = "u0"
        let ann = try #require(try repo.fetch(User.self, predicate: nil).first)
        ann.name = "Anne"
        #expect(throws: StoreError.duplicatePrimaryKey(model: "User", value: "\"u0\"")) { try repo.endWrite() }
        #expect(try repo.fetch(User.self, predicate: nil).map(\.name) == ["Ann"])
        try repo.beginWrite()
        dup.uid = "u9"
        try repo.endWrite()
        #expect(try repo.fetch(User.self, predicate: nil).map(\.uid) == ["u0", "u9"])
        #expect(try repo.store.read { try $0.object("User", primaryKey: "u0")?.string("name") } == "Anne")
    }
}
