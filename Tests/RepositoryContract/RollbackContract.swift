import Testing
import Trove

/// What a repository over a store with transactions promises when one rolls back, beyond
/// ``RepositoryContract``: `TroveRepository` and `PostgresRepository` run the same clauses
/// (`InMemoryRepository` has no transactions).
public enum RollbackContract: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case aSaveWritesWhatAnEntityFetchedInARolledBackTransactionHolds

    public var testDescription: String { rawValue }

    /// Checks the clause on `repository`, new and empty, whose schema is
    /// ``RepositoryContract/userSchema()``. `rollingBack` runs its body in a transaction of
    /// the repository's store (or a unit in one) that then rolls back; `reopened` gives a new
    /// repository over the same database.
    public func check<R: Repository>(_ repository: R, rollingBack: (() throws -> Void) throws -> Void,
                                     reopened: () throws -> R) throws {
        switch self {
        case .aSaveWritesWhatAnEntityFetchedInARolledBackTransactionHolds:
            try Self.fetchedInARollback(repository, rollingBack: rollingBack, reopened: reopened)
        }
    }

    /// An entity fetched inside a transaction that rolls back holds what the transaction
    /// wrote, which the database no longer holds: the next save writes it, and afterwards the
    /// database holds what the entity does.
    private static func fetchedInARollback<R: Repository>(_ repo: R, rollingBack: (() throws -> Void) throws -> Void,
                                                          reopened: () throws -> R) throws {
        try RepositoryContract.addUsers(repo, ["Ann"])
        let ann = try #require(try repo.fetch(User.self, predicate: nil).first)
        var fetched: User?
        try rollingBack {
            try repo.beginWrite()
            ann.name = "Anne"
            ann.age = 30
            try repo.endWrite()
            fetched = try repo.fetch(User.self, predicate: nil).first
        }
        let inRollback = try #require(fetched)
        // Back to what the database holds, `ann` has nothing to save.
        ann.name = "Ann"
        ann.age = nil
        inRollback.name = "Anne"
        inRollback.age = 30
        try repo.beginWrite()
        try repo.endWrite()
        let saved = try reopened().fetch(User.self, predicate: nil)
        #expect(saved.map(\.name) == ["Anne"])
        #expect(saved.map(\.age) == [30])
    }
}
