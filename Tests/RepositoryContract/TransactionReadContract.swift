import Testing
import Trove

/// What a repository over a store with transactions promises of a fetch inside one, beyond
/// ``RepositoryContract``: `TroveRepository` and `PostgresRepository` run the same clauses
/// (`InMemoryRepository` has no transactions).
public enum TransactionReadContract: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case aFetchInATransactionSeesItsSavesAndTheyLastWhenItCommits

    public var testDescription: String { rawValue }

    /// Checks the clause on `repository`, new and empty, whose schema is
    /// ``RepositoryContract/userSchema()``. `committing` runs its body in a transaction of the
    /// repository's store (or a unit in one) that then commits; `reopened` gives a new
    /// repository over the same database.
    public func check<R: Repository>(_ repository: R, committing: (() throws -> Void) throws -> Void,
                                     reopened: () throws -> R) throws {
        switch self {
        case .aFetchInATransactionSeesItsSavesAndTheyLastWhenItCommits:
            try Self.readsItsWrites(repository, committing: committing, reopened: reopened)
        }
    }

    /// A fetch after a save in the same transaction gives what the save wrote (as Realm and
    /// GRDB do); once committed, a change to another property of what it gave saves that
    /// change and keeps the earlier one.
    private static func readsItsWrites<R: Repository>(_ repo: R, committing: (() throws -> Void) throws -> Void,
                                                      reopened: () throws -> R) throws {
        try RepositoryContract.addUsers(repo, ["Ann"])
        let ann = try #require(try repo.fetch(User.self, predicate: nil).first)
        var fetched: User?
        try committing {
            try repo.beginWrite()
            ann.name = "Anne"
            try repo.endWrite()
            fetched = try repo.fetch(User.self, predicate: nil).first
        }
        let inTransaction = try #require(fetched)
        #expect(inTransaction.name == "Anne")
        inTransaction.age = 30
        try repo.beginWrite()
        try repo.endWrite()
        let saved = try reopened().fetch(User.self, predicate: nil)
        #expect(saved.map(\.name) == ["Anne"])
        #expect(saved.map(\.age) == [30])
    }
}
