import Foundation
import Testing
import Trove

/// The entity the contract saves and fetches (model `User` of Schemas/User.json).
public final class User: EntityType {
    public var uid = ""
    public var name = ""
    public var email: String?
    public var age: Int?
    public var isVerified = false
    public var signedUpAt = Date(timeIntervalSince1970: 0)
    public var roles: [String] = []
    public init() {}
}

/// What every ``Repository`` promises, one clause per case: `TroveRepository`,
/// `InMemoryRepository` and `PostgresRepository` run the same clauses, so that code written
/// against `Repository` behaves the same whichever is chosen.
public enum RepositoryContract: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case addedEntitiesAreSavedAtEndWriteAndFetchedInOrder
    case anAddedEntityIsSavedThoughTheCallerNoLongerHoldsIt
    case anAddedEntityWhoseSaveFailedIsForgottenOnceReleased
    case closurePredicatesFilter
    case changesToFetchedEntitiesAreSavedByTheNextEndWrite
    case removedEntitiesAreGoneAfterEndWrite
    case lifetimeChangesOutsideAWriteAreRefused
    case aChangedPrimaryKeyFailsTheSaveAndStaysPending
    case aPrimaryKeyHeldTwiceFailsTheSaveAndStaysPending

    public var testDescription: String { rawValue }

    /// The schema of ``User``: Schemas/User.json.
    public static func userSchema() throws -> Schema {
        try Schema(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Schemas/User.json"))
    }

    /// Checks the clause on `repository`, new and empty, whose schema is ``userSchema()``.
    public func check<R: Repository>(_ repository: R) throws {
        switch self {
        case .addedEntitiesAreSavedAtEndWriteAndFetchedInOrder: try Self.addedEntitiesAreSaved(repository)
        case .anAddedEntityIsSavedThoughTheCallerNoLongerHoldsIt: try Self.addedEntitiesNotHeld(repository)
        case .anAddedEntityWhoseSaveFailedIsForgottenOnceReleased: try Self.failedAddNotHeld(repository)
        case .closurePredicatesFilter: try Self.predicatesFilter(repository)
        case .changesToFetchedEntitiesAreSavedByTheNextEndWrite: try Self.changesAreSaved(repository)
        case .removedEntitiesAreGoneAfterEndWrite: try Self.removal(repository)
        case .lifetimeChangesOutsideAWriteAreRefused: try Self.writeProtocol(repository)
        case .aChangedPrimaryKeyFailsTheSaveAndStaysPending: try Self.changedPrimaryKey(repository)
        case .aPrimaryKeyHeldTwiceFailsTheSaveAndStaysPending: try Self.primaryKeyHeldTwice(repository)
        }
    }

    /// Adds users named `names` (uids u0, u1, ...) in one write.
    @discardableResult
    public static func addUsers<R: Repository>(_ repo: R, _ names: [String]) throws -> [User] {
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

    private static func addedEntitiesAreSaved<R: Repository>(_ repo: R) throws {
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

    /// An entity from `addEntity` is the repository's to save, as DBRepo's is added to the
    /// store: one the caller let go before `endWrite` (each of a loop's, or one an optimized
    /// build releases after its last use) is saved all the same.
    private static func addedEntitiesNotHeld<R: Repository>(_ repo: R) throws {
        try repo.beginWrite()
        for (i, name) in ["Ann", "Bob"].enumerated() {
            let user = try repo.addEntity(User.self)
            user.uid = "u\(i)"
            user.name = name
        }
        try repo.endWrite()
        #expect(try repo.fetch(User.self, predicate: nil).map(\.name) == ["Ann", "Bob"])
    }

    private static func failedAddNotHeld<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann"])
        try repo.beginWrite()
        do {
            let twin = try repo.addEntity(User.self)
            twin.uid = "u0"
            twin.name = "Twin"
        }
        #expect(throws: StoreError.duplicatePrimaryKey(model: "User", value: Value.string("u0").description)) { try repo.endWrite() }
        try repo.beginWrite()
        do {
            let bob = try repo.addEntity(User.self)
            bob.uid = "u1"
            bob.name = "Bob"
        }
        try repo.endWrite()
        #expect(try repo.fetch(User.self, predicate: nil).map(\.name) == ["Ann", "Bob"])
    }

    private static func predicatesFilter<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann", "Bob", "Cid"])
        #expect(try repo.fetch(User.self) { $0.isVerified }.map(\.name) == ["Ann", "Cid"])
        #expect(try repo.fetch(User.self) { $0.name.hasPrefix("B") }.map(\.uid) == ["u1"])
    }

    private static func changesAreSaved<R: Repository>(_ repo: R) throws {
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
        // A change of spelling alone (`é` to `e` + U+0301) is a change: the new bytes are saved.
        try repo.beginWrite()
        again[0].name = "Ren\u{E9}"
        try repo.endWrite()
        try repo.beginWrite()
        again[0].name = "Rene\u{301}"
        try repo.endWrite()
        let renamed = try #require(try repo.fetch(User.self) { $0.uid == "u0" }.first)
        #expect(Array(renamed.name.utf8) == Array("Rene\u{301}".utf8))
    }

    private static func removal<R: Repository>(_ repo: R) throws {
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

    /// A save that changes an entity's primary key throws the store's error, as a store
    /// refuses the change, and writes nothing of the save; the changes stay pending, and are
    /// saved once the key is back.
    private static func changedPrimaryKey<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann", "Bob"])
        let users = try repo.fetch(User.self, predicate: nil)
        try repo.beginWrite()
        users[0].name = "Anne"
        users[1].uid = "bob"
        users[1].name = "Robert"
        let refusal = StoreError.invalidArgument("the primary key of User cannot be changed (\(Value.string("u1")) to \(Value.string("bob")))")
        #expect(throws: refusal) { try repo.endWrite() }
        #expect(try repo.fetch(User.self, predicate: nil).map { [$0.uid, $0.name] } == [["u0", "Ann"], ["u1", "Bob"]])
        try repo.beginWrite()
        #expect(throws: refusal) { try repo.endWrite() }
        try repo.beginWrite()
        users[1].uid = "u1"
        try repo.endWrite()
        #expect(try repo.fetch(User.self, predicate: nil).map { [$0.uid, $0.name] } == [["u0", "Anne"], ["u1", "Robert"]])
    }

    /// A save that adds an entity with the primary key of a saved one, or two with one
    /// primary key, throws the store's error and writes nothing of the save; the changes stay
    /// pending, and are saved once the keys differ. The key of an entity removed in the same
    /// save is free.
    private static func primaryKeyHeldTwice<R: Repository>(_ repo: R) throws {
        try addUsers(repo, ["Ann"])
        let ann = try repo.fetch(User.self, predicate: nil)[0]
        func saved() throws -> [[String]] { try repo.fetch(User.self, predicate: nil).map { [$0.uid, $0.name] } }
        try repo.beginWrite()
        ann.name = "Anne"
        let twin = try repo.addEntity(User.self)
        twin.uid = "u0"
        twin.name = "Twin"
        #expect(throws: StoreError.duplicatePrimaryKey(model: "User", value: Value.string("u0").description)) { try repo.endWrite() }
        #expect(try saved() == [["u0", "Ann"]])
        try repo.beginWrite()
        twin.uid = "u1"
        let other = try repo.addEntity(User.self)
        other.uid = "u1"
        other.name = "Other"
        #expect(throws: StoreError.duplicatePrimaryKey(model: "User", value: Value.string("u1").description)) { try repo.endWrite() }
        #expect(try saved() == [["u0", "Ann"]])
        try repo.beginWrite()
        other.uid = "u2"
        try repo.endWrite()
        #expect(try saved() == [["u0", "Anne"], ["u1", "Twin"], ["u2", "Other"]])
        try repo.beginWrite()
        try repo.removeEntity(try repo.fetch(User.self) { $0.uid == "u2" }[0])
        let successor = try repo.addEntity(User.self)
        successor.uid = "u2"
        successor.name = "Successor"
        try repo.endWrite()
        #expect(try saved() == [["u0", "Anne"], ["u1", "Twin"], ["u2", "Successor"]])
    }

    private static func writeProtocol<R: Repository>(_ repo: R) throws {
        #expect(throws: RepositoryError.notInWrite) { _ = try repo.addEntity(User.self) }
        #expect(throws: RepositoryError.notInWrite) { try repo.endWrite() }
        try repo.beginWrite()
        #expect(throws: RepositoryError.alreadyInWrite) { try repo.beginWrite() }
        try repo.endWrite()
    }
}

/// What every ``QueryLanguageRepository`` promises beyond ``RepositoryContract``, as a
/// repository over a schema: predicates in the query language.
/// `TroveRepository` and `PostgresRepository` run the same clauses.
public enum QueryLanguageContract: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case aBadPredicateThrowsTheStoresQueryError

    public var testDescription: String { rawValue }

    /// Checks the clause on `repository`, new and empty, whose schema is
    /// ``RepositoryContract/userSchema()``.
    public func check<R: QueryLanguageRepository>(_ repository: R) throws {
        switch self {
        case .aBadPredicateThrowsTheStoresQueryError: try Self.badPredicates(repository)
        }
    }

    /// A malformed or ill-typed predicate, or one a store refuses for its arguments, throws
    /// the `QueryError` a store's query throws (kind, message, position, statement) and reads
    /// nothing.
    private static func badPredicates<R: QueryLanguageRepository>(_ repo: R) throws {
        try RepositoryContract.addUsers(repo, ["Ann", "Bob"])
        let store = try Store(configuration: .inMemory(schema: try RepositoryContract.userSchema()))
        let cases: [(predicate: String, arguments: [Value], kind: QueryError.Kind, column: Int)] = [
            ("agee > 1", [], .unknownProperty, 1),
            ("age > 'old'", [], .typeMismatch, 7),
            ("name == 'Ann' AND age >", [], .unexpectedEnd, 24),
            ("name MATCHES '('", [], .invalidRegularExpression, 14),
            ("age > $1", [.int(3)], .invalidParameter, 7),
            ("age > $0", [.int(3), .int(4)], .invalidParameter, 7),
            ("age BEGINSWITH 'a'", [], .invalidOperator, 5),
        ]
        for bad in cases {
            var expected: QueryError?
            do {
                _ = try store.read { try $0.objects("User", where: bad.predicate, arguments: bad.arguments).count }
            } catch let error as QueryError {
                expected = error
            }
            #expect(expected?.kind == bad.kind && expected?.column == bad.column, "\(bad.predicate): a store throws \(String(describing: expected))")
            do {
                let users = try repo.fetch(User.self, where: bad.predicate, arguments: bad.arguments)
                Issue.record("\(bad.predicate): fetched \(users.count) users; a store throws \(String(describing: expected))")
            } catch let error as QueryError {
                #expect(error == expected, "\(bad.predicate): \(error)\nexpected \(String(describing: expected))")
            } catch {
                Issue.record("\(bad.predicate): \(error); a store throws \(String(describing: expected))")
            }
        }
    }
}
