import Foundation
import Testing
@testable import Trove

import RepositoryContract

/// The repositories the contract runs against; code written against `Repository` picks one.
enum RepositoryKind: String, CaseIterable, CustomTestStringConvertible {
    case trove, inMemory, inMemoryWithoutSchema

    var testDescription: String { rawValue }

    func make() throws -> any Repository {
        switch self {
        case .trove: TroveRepository(store: try memoryStore("User.json"))
        case .inMemory: InMemoryRepository(schema: try RepositoryContract.userSchema())
        case .inMemoryWithoutSchema: InMemoryRepository()
        }
    }

    /// The clauses this repository is held to: every one, but for `InMemoryRepository()` the
    /// primary-key clauses, since a repository given no schema cannot know which property is
    /// an entity's primary key (`EntityType` does not say).
    var clauses: [RepositoryContract] {
        switch self {
        case .trove, .inMemory: RepositoryContract.allCases
        case .inMemoryWithoutSchema:
            RepositoryContract.allCases.filter {
                $0 != .aChangedPrimaryKeyFailsTheSaveAndStaysPending && $0 != .aPrimaryKeyHeldTwiceFailsTheSaveAndStaysPending
                    && $0 != .anAddedEntityWhoseSaveFailedIsForgottenOnceReleased
            }
        }
    }

    /// Each repository with each clause it is held to.
    static var contractCases: [(RepositoryKind, RepositoryContract)] {
        allCases.flatMap { kind in kind.clauses.map { (kind, $0) } }
    }
}

private func addUsers<R: Repository>(_ repo: R, _ names: [String]) throws {
    try RepositoryContract.addUsers(repo, names)
}

/// One contract, run against every repository.
@Suite struct RepositoryContractTests {
    @Test(arguments: RepositoryKind.contractCases)
    func contract(kind: RepositoryKind, clause: RepositoryContract) throws {
        try clause.check(try kind.make())
    }
}

@Suite struct TroveRepositoryTests {
    @Test(arguments: QueryLanguageContract.allCases)
    func keepsTheQueryLanguageContract(clause: QueryLanguageContract) throws {
        try clause.check(TroveRepository(store: try memoryStore("User.json")))
    }

    @Test(arguments: RollbackContract.allCases)
    func keepsTheRollbackContract(clause: RollbackContract) throws {
        let store = try memoryStore("User.json")
        try clause.check(TroveRepository(store: store), rollingBack: { body in
            let tx = try store.beginWrite()
            defer { try? tx.rollback() }
            try body()
        }, reopened: { TroveRepository(store: store) })
    }

    @Test(arguments: TransactionReadContract.allCases)
    func keepsTheTransactionReadContract(clause: TransactionReadContract) throws {
        let store = try memoryStore("User.json")
        try clause.check(TroveRepository(store: store), committing: { body in
            let tx = try store.beginWrite()
            do { try body() } catch { try? tx.rollback(); throw error }
            try tx.commit()
        }, reopened: { TroveRepository(store: store) })
    }

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
